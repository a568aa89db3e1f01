"""The batched search (``fiveplay_env.agents.bsearch``): the same search as ``ismcts``, its worlds in the batched engine.

- on the same (world, candidate) pairs and random numbers its rollouts give ``ismcts``'s values exactly
  (heuristic rollouts), for every config family;
- its worlds dealt in the batched engine (``deal``) are determinizations of the information set: what the
  player knows is unchanged, every hidden card is re-dealt to a place of the same kind, and each place
  gets each hidden card about equally often; the opponent model (``plan``) equals ``rollouts.prepare``;
- it sees nothing hidden (re-dealt hidden cards: the same decision), is deterministic by seed, plays
  legal moves in every config family, keeps a ``time`` budget and refuses bad options.
"""
from __future__ import annotations

import time

import numpy as np
import pytest

from fiveplay_env.agents import games
from fiveplay_env.agents.base import InformationSet
from fiveplay_env.agents.bsearch import MAX_ROWS, BatchSearchAgent, BatchSearchParams
from fiveplay_env.agents.registry import make_agent
from fiveplay_env.agents.take5 import bsearch as t5bs
from fiveplay_env.agents.take5 import rollouts as t5roll
from fiveplay_env.take5 import engine as t5eng
from fiveplay_env.take5.batched import ASIDE, PENDING, QUEUE
from fiveplay_env.take5.config import Take5Config
from fiveplay_env.take5.state import NUM_CARDS

CONFIGS = {
    "4p-round": Take5Config(mode="round"),
    "10p-game": Take5Config(num_players=10, mode="game"),
    "2p-rounds": Take5Config(num_players=2, mode="rounds:2", row_pick="min_bullheads"),
    "3p-professional": Take5Config(num_players=3, professional=True, mode="round"),
    "3p-draft": Take5Config(num_players=3, professional=True, draft=True, mode="round"),
    "5p-exclusive": Take5Config(num_players=5, end_score=30, end_inclusive=False),
}


def _positions(config: Take5Config, count: int, seed: int, every: float = 0.2) -> list[tuple[t5eng.Take5Engine, int]]:
    """(engine, acting player) pairs with a real choice, from random play (not in a draft: nothing hidden)."""
    rng = np.random.default_rng(seed)
    out: list[tuple[t5eng.Take5Engine, int]] = []
    g = 0
    while len(out) < count:
        engine = t5eng.Take5Engine(config, seed=seed * 1000 + g)
        g += 1
        while not engine.is_over and len(out) < count:
            legal = np.flatnonzero(engine.legal_mask())
            if len(legal) > 1 and engine.state.phase != t5eng.DRAFT and rng.random() < every:
                out.append((engine.clone(), engine.current_player))
            engine.step(int(legal[rng.integers(len(legal))]))
    return out


def _decide(name: str, engine: t5eng.Take5Engine, player: int, seed: int) -> tuple[int, dict]:
    game = games.get_game("take5")
    agent = make_agent(name, "take5", seed=seed)
    agent.keep_thoughts = True
    agent.observe_engine(engine, player)
    act = agent.act(game.observe(engine, player), engine.legal_mask())
    return act, {k: v for k, v in agent.last_thoughts.items() if k != "seconds"}  # all but the time taken


@pytest.mark.parametrize("name", list(CONFIGS))
def test_values_equal_ismcts_on_the_same_worlds(name: str) -> None:
    """The (world, candidate) pairs of ``ismcts``'s worlds, rolled out by both: the same values."""
    config = CONFIGS[name]
    for i, (engine, player) in enumerate(_positions(config, 3, seed=11)):
        ref = make_agent("ismcts:sims=20", "take5", seed=i)
        bat = make_agent("bsearch:sims=20", "take5", seed=i)
        info = InformationSet(engine, player)
        legal = [int(a) for a in np.flatnonzero(engine.legal_mask())]
        worlds = [ref._new_world(info) for _ in range(4)]
        pairs = [(w, a) for w in worlds for a in legal]
        assert bat._values(pairs, player) == pytest.approx(ref._values(pairs, player), abs=1e-9)


def _hidden_places(engine: object, slot: int, player: int) -> dict[int, int]:
    """card -> its place code (another seat's hand, PENDING or ASIDE) for every card hidden from ``player``."""
    loc = engine.field("loc")[slot, :engine.config.deck_size].astype(int)
    n = engine.num_players
    return {c: int(code) for c, code in enumerate(loc)
            if (code < n and code != player) or code in (PENDING, ASIDE)}


@pytest.mark.parametrize("name", ["4p-round", "10p-game", "3p-professional"])
def test_deal_redeals_only_hidden_cards_uniformly(name: str) -> None:
    config = CONFIGS[name]
    rng = np.random.default_rng(0)
    for engine, player in _positions(config, 3, seed=4):
        world = InformationSet(engine, player).sample(rng)
        base = t5bs.make_engine(config, 1)
        base.load_states([world.state])
        K = 1500
        eng = t5bs.make_engine(config, K)
        eng.gather(base, np.zeros(K, np.int64))
        t5bs.deal(eng, player, np.random.default_rng(1))
        before = _hidden_places(base, 0, player)
        pending_seats = [q for q in range(config.num_players) if q < base.field("cur")[0] and q != player]
        # what the player knows is the same in every slot; every slot is a valid game (checked as set_state checks)
        t5bs.make_engine(config, K).set_state(eng.get_state())
        known = base.field("loc")[0, :NUM_CARDS].copy()
        hide = np.zeros(NUM_CARDS, bool)
        hide[list(before)] = True
        assert (eng.field("loc")[:, :NUM_CARDS][:, ~hide] == known[~hide]).all()
        assert np.array_equal(eng.observe_as(np.full(K, player)), np.repeat(base.observe_as(np.full(1, player)), K, 0))
        # each place kind keeps its count; each hidden card goes to each place about in proportion
        codes = sorted(set(before.values()))
        for code in codes:
            want = sum(1 for v in before.values() if v == code)
            got = (eng.field("loc")[:, list(before)] == code).sum(axis=1)
            assert (got == want).all()
            share = (eng.field("loc")[:, list(before)] == code).mean(axis=0)  # per card: how often it lands there
            p = want / len(before)
            assert np.abs(share - p).max() < 5 * np.sqrt(p * (1 - p) / K) + 1e-9
        for q in pending_seats:  # the unrevealed choices follow their cards
            assert (eng.field("loc")[np.arange(K), eng.field("pending")[:, q].astype(int)] == PENDING).all()
        assert len({eng.field("loc")[k, :NUM_CARDS].tobytes() for k in range(50)}) > 40  # the slots really differ


@pytest.mark.parametrize("name", ["4p-round", "10p-game", "3p-professional", "3p-draft"])
def test_plan_equals_the_reference_opponent_model(name: str) -> None:
    config = CONFIGS[name]
    params = BatchSearchParams()
    rng = np.random.default_rng(3)
    for engine, player in _positions(config, 4, seed=8):
        worlds = [InformationSet(engine, player).sample(rng) for _ in range(6)]
        eng = t5bs.make_engine(config, len(worlds))
        eng.load_states([w.state for w in worlds])
        got = t5bs.plan(eng, player, params)
        for k, w in enumerate(worlds):
            ref = t5roll.prepare(w, player, params) or {}
            want = np.full(config.num_players, -1)
            for q, c in ref.items():
                want[q] = c
            assert got[k].tolist() == want.tolist()
            for q in range(config.num_players):  # the choices already made, set to the model's
                if w.state.pending[q] >= 0 and q < w.state.current:
                    assert int(eng.field("pending")[k, q]) == w.state.pending[q]
                    assert eng.field("loc")[k, w.state.pending[q]] == PENDING
            hands = w.state.hands[:, :NUM_CARDS]
            for q in range(config.num_players):
                assert np.array_equal(eng.field("loc")[k, :NUM_CARDS] == q, hands[q] == 1)


SPECS = ("bsearch:sims=60", "bsearch:worlds=6", "bsearch:sims=60,model=none,eps=0")


def _guided() -> tuple[str, ...]:
    try:
        import torch  # noqa: F401
    except ImportError:  # pragma: no cover - the train extra is part of make test
        return ()
    return ("bsearch:sims=40,prior=take5-round-4p,rollout=policy",
            "bsearch:sims=40,prior=take5-round-4p,rollout=policy,depth=1,value=1,topk=3")


@pytest.mark.parametrize("name", ["4p-round", "3p-draft", "5p-exclusive"])
def test_bsearch_never_reads_hidden_state(name: str) -> None:
    """Two worlds differing only in cards the player cannot see: the same decision and the same values."""
    config = CONFIGS[name]
    for i, (engine, player) in enumerate(_positions(config, 6, seed=5)):
        state = t5eng.sample_world(engine.config, engine.state, player, np.random.default_rng(i))
        other = t5eng.Take5Engine(engine.config, state=state)
        for spec in SPECS + (_guided() if config.num_players == 4 else ()):
            assert _decide(spec, engine, player, i) == _decide(spec, other, player, i), spec


def test_deterministic_by_seed_and_legal_in_every_config_family() -> None:
    game = games.get_game("take5")
    for name, config in CONFIGS.items():
        engine = t5eng.Take5Engine(config, seed=3)
        agent = make_agent("bsearch:worlds=4", "take5", seed=1)
        twin = make_agent("bsearch:worlds=4", "take5", seed=1)
        other = make_agent("bsearch:worlds=4", "take5", seed=2)
        differs = 0
        steps = 0
        while not engine.is_over and steps < 16:
            p = engine.current_player
            mask = engine.legal_mask()
            obs = game.observe(engine, p)
            for a in (agent, twin, other):
                a.observe_engine(engine, p)
            act = agent.act(obs, mask)
            assert mask[act] == 1, name
            assert twin.act(obs, mask) == act
            differs += other.act(obs, mask) != act
            engine.step(act)
            steps += 1
        assert steps > 0


def test_time_budget_and_batch_bound() -> None:
    """``time=`` is kept (loosely: the bound is the budget plus one batch), and no batch exceeds MAX_ROWS."""
    config = CONFIGS["10p-game"]
    engine, player = _positions(config, 1, seed=2, every=1.0)[0]
    game = games.get_game("take5")
    agent = make_agent("bsearch:time=0.05", "take5", seed=0)
    seen: list[int] = []
    real = agent._engine

    def spy(cfg: object, size: int) -> object:
        seen.append(size)
        return real(cfg, size)

    agent._engine = spy
    for _ in range(3):
        agent.observe_engine(engine, player)
        t0 = time.perf_counter()
        agent.act(game.observe(engine, player), engine.legal_mask())
        assert time.perf_counter() - t0 < 2.0
    engine, player = _positions(CONFIGS["4p-round"], 1, seed=2, every=1.0)[0]
    k = int(engine.legal_mask().sum())
    big = make_agent(f"bsearch:worlds={MAX_ROWS // 2}", "take5", seed=0)  # a first round of 2 x MAX_ROWS / rounds rows
    big._engine = spy
    seen.clear()
    big.observe_engine(engine, player)
    big.act(game.observe(engine, player), engine.legal_mask())
    assert max(seen) <= MAX_ROWS and big.last_stats["sims"] >= MAX_ROWS // 2 * k * 0.9


def test_hard_deadline_bounds_any_budget() -> None:
    """The web app's per-move ``deadline`` stops the largest budget (10 players, guided when torch is there)."""
    config = CONFIGS["10p-game"]
    engine, player = _positions(config, 1, seed=6, every=1.0)[0]
    game = games.get_game("take5")
    specs = ["bsearch:sims=100000"] + [f"bsearch:sims=100000,prior=take5-game-10p,rollout=policy"
                                       for _ in _guided()[:1]]
    for spec in specs:
        agent = make_agent(spec, "take5", seed=0)
        agent.deadline = 0.2
        agent.observe_engine(engine, player)
        t0 = time.perf_counter()
        a = agent.act(game.observe(engine, player), engine.legal_mask())
        assert time.perf_counter() - t0 < 3.0, spec
        assert engine.legal_mask()[a] == 1 and agent.last_stats["sims"] < 100000
        if "prior" not in spec:  # heuristic rollouts finish several batches in the time (a guided one may not)
            assert agent.last_stats["sims"] > 0


def test_bad_options_are_refused() -> None:
    for spec, match in (("bsearch:worlds=0", "worlds: expected an integer"), ("bsearch:alloc=ucb", "alloc"),
                        ("bsearch:worlds=4,sims=8", "search budget"), ("bsearch:cpuct=1", "cpuct"),
                        ("bsearch:worlds=x", "worlds: expected a number")):
        with pytest.raises(ValueError, match=match):
            make_agent(spec, "take5", seed=0)
    with pytest.raises(ValueError, match="game"):
        BatchSearchAgent(seed=0, game=None)  # type: ignore[arg-type]
