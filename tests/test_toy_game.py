"""The toy game (``tests/toy_game``: a game defined in one folder of the tests) works in every tool,
with no file outside its folder changed: the table and the entry point, the arena and the search
agent, tournaments (in process and in worker processes), records, training, the web app's list.
(The PettingZoo API, vector and record contracts run on it in ``tests/contracts``.)"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fiveplay_env.agents import games as agent_games
from fiveplay_env.agents import make_agent, play_game
from fiveplay_env import games, records
from tests.toy_game import GAME

ROOT = Path(__file__).resolve().parent.parent


def _entry_point_dir(tmp_path: Path) -> Path:
    """A folder holding the metadata of an installed distribution that declares the toy game in the
    ``fiveplay.games`` entry-point group (what ``pip install`` of such a package leaves behind)."""
    dist = tmp_path / "site" / "fiveplay_toybid-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: fiveplay-toybid\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[fiveplay.games]\ntoybid = tests.toy_game:GAME\n")
    return tmp_path / "site"


def test_entry_point_registers_the_game_in_a_fresh_process(tmp_path):
    site = _entry_point_dir(tmp_path)
    code = ("from fiveplay_env import games, make; import gymnasium; "
            "print(games.names()); e = make('toybid', num_players=3); print(e.possible_agents); "
            "print(gymnasium.make('fiveplay/ToyBid-v0', opponents='random').reset(seed=0)[0].shape)")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]))
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.splitlines()
    assert lines[0] == "['five_alive', 'take5', 'toybid']"
    assert lines[1] == "['player_0', 'player_1', 'player_2']"
    assert lines[2] == "(22,)"  # the learner's observation, n*K + 2K + n with n = 2, K = 5


def test_a_broken_entry_point_is_a_warning_not_a_crash(tmp_path):
    site = _entry_point_dir(tmp_path)
    (site / "fiveplay_toybid-0.1.dist-info" / "entry_points.txt").write_text(
        "[fiveplay.games]\nbroken = no_such_module_anywhere:GAME\n")
    code = "import warnings; warnings.simplefilter('always'); from fiveplay_env import games; print(games.names())"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]))
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "['five_alive', 'take5']"
    assert "broken" in out.stderr and "no_such_module_anywhere" in out.stderr


def test_the_table_and_the_agents_layer_see_it():
    assert games.get("toybid") is GAME and "toybid" in agent_games.GAMES
    kit = agent_games.kit("toybid")  # no kit of its own: the default one
    assert kit.heuristics == {} and kit.baseline == "random"
    with pytest.raises(ValueError, match="already registered"):
        games.register(games.get("take5").__class__(**{**GAME.__dict__, "title": "another"}))


@pytest.mark.parametrize("names", [["random", "random"], ["ismcts:sims=20", "random"], ["random", "ismcts:sims=20"]])
def test_arena_search_and_records(names):
    config = GAME.make_config({"num_players": 2})
    agents = [make_agent(n, "toybid", seed=i) for i, n in enumerate(names)]
    rec = play_game(GAME, config, agents, seed=4)
    assert sum(rec.results["win"]) == pytest.approx(1.0)
    assert sorted(rec.results) == ["placing", "points", "win"]
    assert sum(rec.results["points"]) <= 15 and rec.steps == 10
    replay = records.replay(records.make_record("toybid", config, 4, rec.actions, agents=names))
    assert replay.engine.is_over


def test_search_beats_random_in_the_toy_game():
    """The generic random-playout search is a real player: it wins most games against random."""
    config = GAME.make_config({"num_players": 2, "cards": 5})
    wins = 0.0
    for seed in range(30):
        seat = seed % 2
        agents = [make_agent("random", "toybid", seed=seed) for _ in range(2)]
        agents[seat] = make_agent("ismcts:sims=60", "toybid", seed=seed)
        wins += play_game(GAME, config, agents, seed=seed).results["win"][seat]
    assert wins >= 18, wins


def test_a_few_ppo_updates_train_and_checkpoint(tmp_path):
    """The trainer runs on the toy game (its reference-engine vector env: the toy has no batched
    engine) and writes a checkpoint that loads as an agent."""
    from fiveplay_env.experiments import train

    out = tmp_path / "runs"
    result = train.main(["--game", "toybid", "--config", "num_players=2", "--total-decisions", "600",
                         "--num-envs", "8", "--rollout-steps", "16", "--eval-interval", "2", "--eval-games", "8",
                         "--minibatch-size", "64", "--hidden", "32", "32", "--out", str(out), "--no-progress",
                         "--quiet", "--no-plots", "--no-tensorboard", "--threads", "1"])
    run_dir = Path(result["run_dir"]) if isinstance(result, dict) and "run_dir" in result else next(out.iterdir())
    ckpt = run_dir / "checkpoint.pt"
    assert ckpt.is_file()
    agent = make_agent(f"ckpt:{ckpt}", "toybid", seed=0)
    config = GAME.make_config({"num_players": 2})
    rec = play_game(GAME, config, [agent, make_agent("random", "toybid", seed=1)], seed=3)
    assert sum(rec.results["win"]) == pytest.approx(1.0)


def test_the_toy_game_passes_check_game():
    """The contract suite a game's author runs (``fiveplay_env.testing.check_game``) passes on the toy game:
    every contract that applies ran, on each preset."""
    from fiveplay_env.testing import check_game

    results = check_game(GAME)
    ran = {r.contract for r in results if r.skipped is None}
    assert {"dynamics", "pettingzoo_api", "pettingzoo_parallel_api", "vector_equals_reference",
            "records_round_trip"} <= ran
    assert {r.label for r in results} == {"default", "standard", "three"}
