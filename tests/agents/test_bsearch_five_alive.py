"""The batched search (``fiveplay_env.agents.bsearch``) in 5 Alive (``agents/five_alive/bsearch.py``).

- on the same (world, candidate) pairs and random numbers its rollouts give ``ismcts``'s values exactly
  (the attacker/saver rollouts, every option that changes them, every config family; with
  ``rollout=policy`` up to the float rounding of the network's batches), and with the same seed and
  ``sims`` a whole decision is ``ismcts``'s (the same worlds: both draw them with the game's sampler);
- the worlds reach the batched engine through ``load_states``, whose stacked path equals the per-state one;
- it sees nothing hidden (re-dealt hidden cards: the same decision), is deterministic by seed, plays legal
  moves through whole games in every config family, keeps a ``time`` budget and a hard deadline.
"""
from __future__ import annotations

import time

import numpy as np
import pytest

from fiveplay_env.agents import games
from fiveplay_env.agents.base import InformationSet
from fiveplay_env.agents.registry import catalogue, known_agents, make_agent
from fiveplay_env.five_alive import engine as faeng
from fiveplay_env.five_alive.batched import BatchedFiveAlive
from fiveplay_env.five_alive.config import FiveAliveConfig
from fiveplay_env.five_alive.determinize import sample_world

GAME = "five_alive"

CONFIGS = {
    "4p": FiveAliveConfig(num_players=4),
    "2p-lives": FiveAliveConfig(num_players=2, reward="lives"),
    "3p-sudden-bomb0": FiveAliveConfig(num_players=3, variant="sudden_death", bomb_zero_optional=True),
    "4p-teams-mixed": FiveAliveConfig(num_players=4, variant="teams", reward="win_loss+lives"),
    "5p-bust-roundrobin": FiveAliveConfig(num_players=5, allow_voluntary_bust=True, draw_order="round_robin"),
    "6p-teams-bomb0": FiveAliveConfig(num_players=6, variant="teams", bomb_zero_optional=True,
                                      empty_draw_pile="skip"),
}

ROLLOUT_OPTIONS = ("", "depth=3", "alpha=1.5", "insure=0,rel=0.5", "eps=0.5", "model=none,eps=0")


def _positions(config: FiveAliveConfig, count: int, seed: int, every: float = 0.2,
               ) -> list[tuple[faeng.FiveAliveEngine, int]]:
    """(engine, acting player) pairs with a real choice, from random play."""
    rng = np.random.default_rng(seed)
    out: list[tuple[faeng.FiveAliveEngine, int]] = []
    g = 0
    while len(out) < count:
        engine = faeng.FiveAliveEngine(config, seed=seed * 1000 + g)
        g += 1
        while not engine.is_over and len(out) < count:
            legal = np.flatnonzero(engine.legal_mask())
            if len(legal) > 1 and rng.random() < every:
                out.append((engine.clone(), engine.current_player))
            engine.step(int(legal[rng.integers(len(legal))]))
    return out


def _decide(name: str, engine: faeng.FiveAliveEngine, player: int, seed: int) -> tuple[int, dict]:
    game = games.get_game(GAME)
    agent = make_agent(name, GAME, seed=seed)
    agent.keep_thoughts = True
    agent.observe_engine(engine, player)
    act = agent.act(game.observe(engine, player), engine.legal_mask())
    return act, {k: v for k, v in agent.last_thoughts.items() if k != "seconds"}  # all but the time taken


def _torch() -> bool:
    try:
        import torch  # noqa: F401
    except ImportError:  # pragma: no cover - the train extra is part of make test
        return False
    return True


def _pair_values(spec: str, config: FiveAliveConfig, seed: int, worlds: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """Both searches' values of every (world, legal action) pair of ``ismcts``'s worlds at a few positions."""
    got, want = [], []
    for i, (engine, player) in enumerate(_positions(config, 3, seed=seed)):
        ref = make_agent(f"ismcts:sims=20{spec}", GAME, seed=i)
        bat = make_agent(f"bsearch:sims=20{spec}", GAME, seed=i)
        info = InformationSet(engine, player)
        legal = [int(a) for a in np.flatnonzero(engine.legal_mask())]
        pairs = [(w, a) for w in [ref._new_world(info) for _ in range(worlds)] for a in legal]
        want += ref._values(pairs, player)
        got += bat._values(pairs, player)
    return np.array(got), np.array(want)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_values_equal_ismcts_on_the_same_worlds(name: str) -> None:
    """The attacker/saver rollouts, with every option that changes them: exactly ``rollouts.simulate``'s values."""
    for opts in ROLLOUT_OPTIONS:
        got, want = _pair_values("," + opts if opts else "", CONFIGS[name], seed=11)
        assert got == pytest.approx(want, abs=1e-9), opts


@pytest.mark.skipif(not _torch(), reason="the shipped policy needs torch (the train extra)")
@pytest.mark.parametrize("opts,tol", [("rollout=policy", 1e-9), ("rollout=policy,eps=0,depth=3", 1e-9),
                                      ("rollout=policy,depth=2,value=1", 1e-5),
                                      ("rollout=policy,depth=1,value=1,eps=0.3", 1e-5)])
def test_policy_rollout_values_equal_ismcts(opts: str, tol: float) -> None:
    """``rollout=policy`` (one forward pass for every row that decides) and ``value=1`` (the value head at the
    searcher's D-th next decision, read in the same pass): ``rollouts.simulate_policy``'s values; the value
    head's float32 output differs in its last bits between batches of other sizes, hence ``tol``."""
    got, want = _pair_values(f",prior=five-alive-4p,{opts}", CONFIGS["4p"], seed=12)
    assert got == pytest.approx(want, abs=tol)


@pytest.mark.parametrize("name", ["4p", "3p-sudden-bomb0", "6p-teams-bomb0"])
def test_a_decision_equals_ismcts_with_the_same_seed(name: str) -> None:
    """Same seed and ``sims``: the same worlds and random numbers, so the same visits, means and choice."""
    for i, (engine, player) in enumerate(_positions(CONFIGS[name], 3, seed=21)):
        for opts in ("", ",model=none"):
            act, thoughts = _decide(f"ismcts:sims=40{opts}", engine, player, i)
            bact, bthoughts = _decide(f"bsearch:sims=40{opts}", engine, player, i)
            assert bact == act and bthoughts["sims"] == thoughts["sims"]
            for c, d in zip(bthoughts["candidates"], thoughts["candidates"]):
                assert (c["action"], c["visits"]) == (d["action"], d["visits"])
                assert c["mean"] == pytest.approx(d["mean"], abs=1e-9)


@pytest.mark.parametrize("name", ["4p", "3p-sudden-bomb0", "6p-teams-bomb0"])
def test_load_states_equals_loading_each_slot(name: str) -> None:
    """The worlds' way into the batched engine: ``load_states`` of many positions (a Bomb being answered
    among them) gives every slot the arrays ``load`` of that one position gives it; a bad field is named."""
    config = CONFIGS[name]
    positions = [e.state for e, _ in _positions(config, 24, seed=5, every=0.5)]
    for lo in range(0, len(positions), 6):
        part = positions[lo:lo + 6]
        many = BatchedFiveAlive(config, len(part), seed=3)
        many.load_states(part)
        one = BatchedFiveAlive(config, len(part), seed=3)
        for i, s in enumerate(part):
            one.load(i, s)
        a, b = many.get_state()["arrays"], one.get_state()["arrays"]
        for key in many.STATE:
            assert a[key].dtype == b[key].dtype and np.array_equal(a[key], b[key]), key
    bad = [s.clone() for s in positions[:2]]
    bad[1].hands[0][0] = True  # a bool where an int belongs: named, nothing loaded
    eng = BatchedFiveAlive(config, 2, seed=3)
    with pytest.raises(ValueError, match=r"states\[1\]\.hands"):
        eng.load_states(bad)


SPECS = ("bsearch:sims=60", "bsearch:worlds=6", "bsearch:sims=60,model=none,eps=0")


@pytest.mark.parametrize("name", ["4p", "3p-sudden-bomb0", "6p-teams-bomb0"])
def test_bsearch_never_reads_hidden_state(name: str) -> None:
    """Two engines differing only in what the player cannot see (the other hands, the draw pile and its
    order, the seed of later shuffles): the same decision and the same values."""
    config = CONFIGS[name]
    guided = ("bsearch:sims=40,prior=five-alive-4p,rollout=policy,depth=2,value=1",) \
        if _torch() and config.num_players == 4 else ()
    for i, (engine, player) in enumerate(_positions(config, 5, seed=5)):
        state = sample_world(config, engine.state, player, np.random.default_rng(i))
        other = faeng.FiveAliveEngine(config, state=state)
        assert other.state.hands != engine.state.hands or other.state.draw != engine.state.draw
        for spec in SPECS + guided:
            assert _decide(spec, engine, player, i) == _decide(spec, other, player, i), spec


@pytest.mark.parametrize("name", list(CONFIGS))
def test_deterministic_by_seed_and_legal_through_whole_games(name: str) -> None:
    """Two seats search (one of them beside a twin of the same seed), the others play five-alive-attacker,
    to the end of the game."""
    config = CONFIGS[name]
    game = games.get_game(GAME)
    engine = faeng.FiveAliveEngine(config, seed=3)
    agent = make_agent("bsearch:worlds=2", GAME, seed=1)
    twin = make_agent("bsearch:worlds=2", GAME, seed=1)
    rival = make_agent("bsearch:sims=8,model=none", GAME, seed=2)
    others = [make_agent("five-alive-attacker", GAME, seed=q) for q in range(config.num_players)]
    decisions = 0
    while not engine.is_over:
        p = engine.current_player
        mask = engine.legal_mask()
        obs = game.observe(engine, p)
        for a in (agent, twin, rival):  # every step: the opponent model follows the public events
            a.observe_engine(engine, p)
        if p == 0:
            act = agent.act(obs, mask)
            assert twin.act(obs, mask) == act
            decisions += 1
        elif p == 1:
            act = rival.act(obs, mask)
        else:
            act = others[p].act(obs, mask)
        assert mask[act] == 1, name
        engine.step(act)
    assert decisions > 0 and engine.state.turns < config.max_steps


def test_time_budget_and_hard_deadline() -> None:
    """``time=`` is kept (loosely: the budget plus one batch); the web app's per-move ``deadline`` stops the
    largest budget, heuristic or guided."""
    game = games.get_game(GAME)
    engine, player = _positions(CONFIGS["6p-teams-bomb0"], 1, seed=2, every=1.0)[0]
    agent = make_agent("bsearch:time=0.05", GAME, seed=0)
    for _ in range(3):
        agent.observe_engine(engine, player)
        t0 = time.perf_counter()
        a = agent.act(game.observe(engine, player), engine.legal_mask())
        assert time.perf_counter() - t0 < 2.0 and engine.legal_mask()[a] == 1
        assert agent.last_stats["sims"] > 0
    engine, player = _positions(CONFIGS["4p"], 1, seed=6, every=1.0)[0]
    specs = ["bsearch:sims=100000"] + (["bsearch:sims=100000,prior=five-alive-4p,rollout=policy"] if _torch() else [])
    for spec in specs:
        agent = make_agent(spec, GAME, seed=0)
        agent.deadline = 0.2
        agent.observe_engine(engine, player)
        t0 = time.perf_counter()
        a = agent.act(game.observe(engine, player), engine.legal_mask())
        assert time.perf_counter() - t0 < 3.0, spec
        assert engine.legal_mask()[a] == 1 and agent.last_stats["sims"] < 100000


def test_listed_for_the_game_and_bad_options_refused() -> None:
    assert games.kit(GAME).batch_search is not None
    assert "bsearch:worlds=K" in known_agents(GAME)
    assert any(row["name"].startswith("bsearch") for row in catalogue(GAME))
    for spec, match in (("bsearch:alloc=ucb", "alloc"), ("bsearch:worlds=4,sims=8", "search budget"),
                        ("bsearch:value=1", "value=1")):
        with pytest.raises(ValueError, match=match):
            make_agent(spec, GAME, seed=0)
