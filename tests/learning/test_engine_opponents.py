"""Agents that need the engine (uses_engine: the search agent) as training opponents and evaluation
baselines: each is shown its own slot's engine at every step, the batched engine refuses them, training
is reproducible and resumes exactly (or refuses to), evaluation plays the same games as the arena."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from fiveplay_env.agents.base import Agent
from fiveplay_env.vector import LoopVecEnv
from fiveplay_env.core import seeding
from fiveplay_env.core.errors import CheckpointError

from tests.learning.conftest import TAKE5_CFG

WATCHER = "tests.learning.test_engine_opponents:Watcher"
GAMES = [("take5", dict(TAKE5_CFG)), ("five_alive", {"num_players": 3})]

_STEPS: dict[int, int] = {}       # id(engine) -> steps taken on it (LoopVecEnv patched below)
_SLOT: dict[int, tuple[int, object]] = {}  # id(engine) -> (its slot, the engine: kept alive, so ids stay unique)


class Watcher(Agent):
    """A fake engine-using opponent: records every ``observe_engine`` (engine, seat, steps taken on that
    engine) and every reset; each ``act`` checks that it was just shown the acting seat of the engine
    whose mask it is given. It cannot save its state (``get_state`` is the base's None)."""

    uses_engine = True

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.seen: list[tuple[int, int, int]] = []
        self.resets: list[int | None] = []
        self.last: tuple[object, int] | None = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.resets.append(seed)
        self.last = None

    def observe_engine(self, engine, player: int) -> None:
        self.last = (engine, player)
        self.seen.append((id(engine), int(player), _STEPS.get(id(engine), -1)))

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        assert self.last is not None, "act without observe_engine"
        engine, player = self.last
        assert engine.current_player == player and np.array_equal(engine.legal_mask(), action_mask)
        return int(self.rng.choice(np.flatnonzero(action_mask)))


@pytest.fixture
def counted_steps(monkeypatch):
    """LoopVecEnv counting the steps taken on each of its engines and recording each engine's slot."""
    _STEPS.clear()
    _SLOT.clear()
    new, step = LoopVecEnv._new, LoopVecEnv.step

    def _new(self, i, seed):
        new(self, i, seed)
        e = self.engines[i]
        _STEPS[id(e)] = 0
        _SLOT[id(e)] = (i, e)

    def _step(self, actions):
        before = list(self.engines)
        out = step(self, actions)
        for e in before:
            _STEPS[id(e)] += 1
        return out

    monkeypatch.setattr(LoopVecEnv, "_new", _new)
    monkeypatch.setattr(LoopVecEnv, "step", _step)
    yield


def _cfg(game, config, opponents, **kw):
    from fiveplay_env.agents.learned.algorithms.ppo import PPOConfig

    base = dict(game=game, config=dict(config), opponents=opponents, total_decisions=10_000, num_envs=6,
                rollout_steps=16, minibatch_size=64, epochs=1, hidden=(32, 32))
    base.update(kw)
    return PPOConfig(**base)


@pytest.mark.parametrize("game,config", GAMES)
def test_an_engine_opponent_sees_its_own_slots_engine_at_every_step(counted_steps, game, config):
    from fiveplay_env.agents.learned.engine_seats import seat_seed
    from fiveplay_env.agents.learned.trainer import Trainer

    tr = Trainer(_cfg(game, config, [(WATCHER, 2.0), ("self", 1.0)]))
    assert tr.backend == "reference-loop" and tr.collector.engine_seats is not None
    for _ in range(4 if game == "take5" else 2):
        tr.train_update()
    agents = tr.collector.engine_seats._agents
    assert agents, "no game seated the engine-using opponent"
    ended_games = 0
    for (kind, slot, seat), a in agents.items():
        assert kind == 0 and a.seen
        by_engine: dict[int, list[int]] = {}
        for eid, player, steps in a.seen:
            assert player == seat                       # always its own seat
            assert _SLOT[eid][0] == slot                # never another slot's engine
            by_engine.setdefault(eid, []).append(steps)
        for eid, steps in by_engine.items():
            engine = _SLOT[eid][1]
            # every step of the game from its start, each in order (the acting seat's extra look before
            # its decision repeats a count); a finished game up to its last step
            assert sorted(set(steps)) == list(range(_STEPS[eid] + 1)) and steps == sorted(steps)
            ended_games += engine.is_over
        # one reset per game it sat in, seeded from the run seed, its kind, the game's number and its seat
        assert len(a.resets) == len(by_engine) and len(set(a.resets)) == len(a.resets)
    if game == "take5":
        assert ended_games > 0  # a game's last step is shown too (the finished engine)
    # the seats of the current games: exactly the non-learner seats of slots playing the watcher
    for i in range(tr.cfg.num_envs):
        seated = tr.collector.engine_seats.seated[i]
        if tr.collector.slot_kind[i] == 0:
            assert sorted(seated) == np.flatnonzero(~tr.collector.learner_seat[i]).tolist()
            base, g = seeding.derive(tr.cfg.seed, 100), int(tr.env.game_index[i])
            assert all(a.resets[-1] == seat_seed(base, g, q, tr.n) for q, a in seated.items())
        else:
            assert not seated


def test_the_batched_engine_refuses_an_engine_opponent_with_a_clear_error(tmp_path):
    from fiveplay_env.agents.learned.envs import resolve_backend
    from fiveplay_env.agents.learned.evaluation import evaluate
    from fiveplay_env.agents.learned.trainer import Trainer
    from fiveplay_env.experiments import train

    msg = r"'ismcts:sims=4' uses the engine .* expected backend 'reference' or 'auto', got 'batched'"
    with pytest.raises(ValueError, match=msg):
        Trainer(_cfg("take5", TAKE5_CFG, [("ismcts:sims=4", 1.0)], backend="batched"))
    with pytest.raises(ValueError, match="compact_obs: .*'ismcts:sims=4' uses the engine"):
        Trainer(_cfg("take5", TAKE5_CFG, [("ismcts:sims=4", 1.0)], compact_obs=True))
    with pytest.raises(ValueError, match=msg):
        evaluate(torch.nn.Linear(1, 1), "take5", dict(TAKE5_CFG), "ismcts:sims=4", 4, 0, backend="batched")
    common = ["--game", "take5", "--config", "num_players=4", "mode=round", "--backend", "batched",
              "--total-decisions", "50", "--num-envs", "4", "--out", str(tmp_path), "--quiet"]
    with pytest.raises(ValueError, match=msg):
        train.main([*common, "--opponents", "ismcts:sims=4"])
    with pytest.raises(ValueError, match=msg):
        train.main([*common, "--opponents", "random", "--eval-baselines", "random", "ismcts:sims=4"])
    assert not list(tmp_path.iterdir())  # refused before any run folder was made
    assert resolve_backend("take5", "auto", ["ismcts:sims=4"]) == "reference"
    assert resolve_backend("take5", "auto") == "batched"


def _same(a, b) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize("game,config", GAMES)
def test_training_against_the_search_agent_repeats_and_resumes_exactly(tmp_path, game, config):
    from fiveplay_env.agents.learned.checkpoint import load_checkpoint, save_checkpoint
    from fiveplay_env.agents.learned.trainer import Trainer

    cfg = _cfg(game, config, [("ismcts:sims=4", 2.0), ("self", 1.0)])
    a = Trainer(cfg)
    a.train_update()
    path = str(tmp_path / "c.pt")
    save_checkpoint(path, a.state(args={"note": "test"}))
    a.train_update()
    a.train_update()
    b = Trainer(cfg)
    for _ in range(3):
        b.train_update()
    assert _same(a.model.state_dict(), b.model.state_dict())  # same seed, same updates
    assert np.array_equal(a.obs, b.obs) and a.collector.engine_seats.state() == b.collector.engine_seats.state()
    ckpt = load_checkpoint(path)  # a weights-only load: the agents' states are plain data
    saved = ckpt["trainer"]["engine_seats"]
    assert saved["resumable"] and saved["slots"]
    if game == "five_alive":  # the opponent model's beliefs about hidden hands travel with the checkpoint
        assert any(st["memory"].get("facts") for e in saved["slots"] for st in e["states"])
    c = Trainer(cfg)
    c.load_state(ckpt)
    c.train_update()
    c.train_update()
    assert _same(a.model.state_dict(), c.model.state_dict())
    assert np.array_equal(a.obs, c.obs) and a.decisions == c.decisions and a.games == c.games
    assert a.collector.engine_seats.state() == c.collector.engine_seats.state()  # the same generators and memories


def test_an_engine_opponent_without_a_state_refuses_to_resume(tmp_path):
    from fiveplay_env.agents.learned.checkpoint import load_checkpoint, save_checkpoint
    from fiveplay_env.agents.learned.trainer import Trainer

    cfg = _cfg("take5", TAKE5_CFG, [(WATCHER, 1.0)])
    a = Trainer(cfg)
    a.train_update()
    path = str(tmp_path / "c.pt")
    save_checkpoint(path, a.state())
    ckpt = load_checkpoint(path)
    assert not ckpt["trainer"]["engine_seats"]["resumable"]
    with pytest.raises(CheckpointError, match=r"cannot be resumed exactly: opponent .*Watcher' uses the engine"):
        Trainer(cfg).load_state(ckpt)
    from fiveplay_env.agents.learned.agent import load_policy

    load_policy(path)  # the policy in it still loads


@pytest.mark.parametrize("game,config,learner", [("take5", dict(TAKE5_CFG), "take5-safest"),
                                                  ("five_alive", {"num_players": 3}, "five-alive-attacker")])
def test_evaluation_against_the_search_agent_plays_the_arenas_games(game, config, learner):
    """The duplicate format against 2-3 x ismcts: each game is the game fiveplay_env.agents.arena.play_game plays with
    the same deal, the learner in the same seat and the search agents reset to the same seeds."""
    from fiveplay_env.agents import games
    from fiveplay_env.agents.arena import play_game
    from fiveplay_env.agents.learned.engine_seats import seat_seed
    from fiveplay_env.agents.learned.envs import score_info
    from fiveplay_env.agents.learned.evaluation import evaluate
    from fiveplay_env.agents.registry import make_agent

    seed, total, name = 5, 2 * config["num_players"], "ismcts:sims=4"  # two deals, each from every seat
    me = make_agent(learner, game, seed=0)  # a deterministic heuristic as the learner
    res = evaluate(me, game, config, name, total, seed)
    adapter = games.get_game(game)
    cfg = adapter.make_config(config)
    n = cfg.num_players
    assert res["games"] == total and res["deals"] == total // n
    base = seeding.derive(seed, 1 << 51)
    key = score_info(game).name
    for g in range(total):
        seat = g % n
        seated = []
        for q in range(n):
            if q == seat:
                seated.append(me)
                continue
            a = make_agent(name, game, seed=0)
            a.reset(seed=seat_seed(base, g, q, n))
            seated.append(a)
        rec = play_game(adapter, cfg, seated, seeding.derive(seed, g // n))  # the env raises on an illegal move
        assert not rec.truncated
        assert res["per_game"]["score"][g] == rec.results[key][seat]
        others = [rec.results[key][q] for q in range(n) if q != seat]
        assert res["per_game"]["opp_score"][g] == pytest.approx(sum(others) / (n - 1))
        assert res["per_game"]["win"][g] == rec.results["win"][seat]
