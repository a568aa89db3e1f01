"""Users' own bots by import path (``mypkg.mybots:CleverBot``) in the tournament (worker processes
included), the training opponents and the single-agent env; clear errors otherwise."""
from __future__ import annotations

import sys
import textwrap

import numpy as np
import pytest

from fiveplay_env.agents.base import Agent
from fiveplay_env.agents.registry import make_agent

BOT_MODULE = textwrap.dedent('''
    import numpy as np
    from fiveplay_env.agents.base import Agent

    class LowestCard(Agent):
        """Always the legal action with the lowest id."""
        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask)[0])

    class Plain:
        """Not an Agent subclass: only act()."""
        def __init__(self, seed=None):
            self.rng = np.random.default_rng(seed)
        def act(self, observation, action_mask):
            return int(self.rng.choice(np.flatnonzero(action_mask)))

    class Highest(Agent):
        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask)[-1])

    def make_highest(seed, game) -> Highest:
        return Highest(seed)

    NOT_AN_AGENT = 42

    def returns_junk(seed) -> Plain:
        return "junk"
''')


@pytest.fixture
def bot_module(tmp_path, monkeypatch):
    """A bot module outside the package, importable here and in spawned workers (PYTHONPATH)."""
    (tmp_path / "userbots_issue10.py").write_text(BOT_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    yield "userbots_issue10"
    sys.modules.pop("userbots_issue10", None)


def test_make_agent_by_import_path(bot_module):
    low = make_agent(f"{bot_module}:LowestCard", "take5", seed=1, allow_import=True)
    assert isinstance(low, Agent) and low.name == f"{bot_module}:LowestCard"
    mask = np.zeros(109, np.int8)
    mask[[7, 30]] = 1
    assert low.act(np.zeros(860, np.float32), mask) == 7
    plain = make_agent(f"{bot_module}:Plain", "take5", seed=1, allow_import=True)  # wrapped: reset and act_batch supplied
    plain.reset(seed=3)
    assert plain.act_batch(np.zeros((2, 860)), np.stack([mask, mask])).tolist() in ([7, 7], [7, 30], [30, 7], [30, 30])
    assert make_agent(f"{bot_module}:make_highest", "five_alive", seed=0, allow_import=True).act(np.zeros(92), np.ones(19)) == 18


def test_clear_errors(bot_module):
    with pytest.raises(ValueError, match="cannot import module 'no_such_pkg_x.bots' \\(No module named 'no_such_pkg_x'\\)"):
        make_agent("no_such_pkg_x.bots:Bot", "take5", 0, allow_import=True)
    with pytest.raises(ValueError, match="has no attribute 'Missing'"):
        make_agent(f"{bot_module}:Missing", "take5", 0, allow_import=True)
    with pytest.raises(ValueError, match="expected an Agent class or a factory"):
        make_agent(f"{bot_module}:NOT_AN_AGENT", "take5", 0, allow_import=True)
    with pytest.raises(ValueError, match=r"expected an object with act\(observation, action_mask\)"):
        make_agent(f"{bot_module}:returns_junk", "take5", 0, allow_import=True)


def test_user_bot_in_a_tournament_with_two_workers(bot_module, tmp_path):
    from fiveplay_env.experiments import tournament as T

    bot = f"{bot_module}:LowestCard"
    summary = T.main(["--game", "take5", "--agents", bot, "random", "--players", "2", "--config", "mode=round",
                      "--games", "4", "--seed", "1", "--workers", "2", "--out", str(tmp_path / "runs"),
                      "--no-progress", "--quiet"])
    assert summary["complete"] and summary["games_completed"] == 4
    one = T.main(["--game", "take5", "--agents", bot, "random", "--players", "2", "--config", "mode=round",
                  "--games", "4", "--seed", "1", "--workers", "1", "--out", str(tmp_path / "runs1"),
                  "--no-progress", "--quiet"])
    # the same games, seats and results whatever the number of workers
    with open(f"{summary['run_dir']}/games.csv") as f2, open(f"{one['run_dir']}/games.csv") as f1:
        strip = lambda rows: sorted(",".join(r.split(",")[:8]) for r in rows[1:])  # noqa: E731
        assert strip(f2.read().splitlines()) == strip(f1.read().splitlines())


def test_user_bot_as_opponent_in_the_single_agent_env_and_training(bot_module):
    from fiveplay_env.agents.learned.config import parse_opponents
    from fiveplay_env.vector_gym import GymVectorEnv
    from fiveplay_env.wrappers import SingleAgentEnv

    env = SingleAgentEnv("take5", opponents=f"{bot_module}:LowestCard", seat=0, num_players=3, mode="round")
    obs, info = env.reset(seed=0)
    assert env.action_masks().any()
    assert parse_opponents([f"{bot_module}:LowestCard@2"]) == [(f"{bot_module}:LowestCard", 2.0)]
    venv = GymVectorEnv("take5", 4, opponents=f"{bot_module}:Plain", num_players=3, mode="round")
    obs, info = venv.reset(seed=0)
    venv.step(venv.sample_legal())
