"""5 Alive's compiled search rollouts (``fiveplay_env.agents.five_alive.compiled``) equal the Python reference
bit for bit: every (world, candidate) value of ``rollouts.simulate`` on the worlds ``InformationSet.sample_at``
draws, with and without an opponent model's beliefs, in every config family; the worlds it draws, with and
without beliefs (those no conditioned deal met drawn without them), are the sampler's; and the rollouts read
their random numbers in order (the searcher's insured moves once reset the position)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from fiveplay_env import games
from fiveplay_env.agents.base import WORLD_STRIDE, InformationSet, world_noise
from fiveplay_env.agents.five_alive import compiled, rollouts
from fiveplay_env.agents.five_alive.heuristics import AttackerAgent
from fiveplay_env.agents.search import NOISE_LEN
from fiveplay_env.agents.search_params import SearchParams
from fiveplay_env.core.seeding import CounterStream
from fiveplay_env.five_alive import determinize
from fiveplay_env.five_alive import engine as eng
from fiveplay_env.five_alive import kernel, positions
from fiveplay_env.five_alive.config import FiveAliveConfig
from fiveplay_env.five_alive.state import EQ21, N0, N3, N4, N7

GAME = games.get("five_alive")
FAMILIES = {
    "4p": dict(num_players=4),
    "2p": dict(num_players=2),
    "6p": dict(num_players=6),
    "teams": dict(variant="teams"),
    "teams6": dict(num_players=6, variant="teams"),
    "sudden3-bombchoice": dict(num_players=3, variant="sudden_death", bomb_zero_optional=True),
    # the other rules, a deck of Draw, Re-Deal and Bomb cards (reshuffles, re-deals), and max_steps cutting games
    "5p-rules": dict(num_players=5, bomb_zero_optional=True, allow_voluntary_bust=True, reward="lives",
                     draw_order="round_robin", new_round_start="dealer", new_round_direction="keep",
                     bomb_last_card_resolves=False, max_reshuffles=2, max_steps=90,
                     deck_counts={"draw1": 8, "draw2": 8, "redeal": 6, "bomb": 6, "n7": 2}),
}
PARAMS = [
    SearchParams(sims=1),  # eps 0.1, to the end of the round, insured
    SearchParams(sims=1, eps=0.3, depth=4, insure=False, rel=0.5),
    SearchParams(sims=1, eps=0.0, alpha=1.5),
    SearchParams(sims=1, rollout="random", depth=3, alpha=2.0),
]


def reference(info: InformationSet, key: int, first: int, count: int, actions: list[int], params: SearchParams,
              facts: dict[int, int] | None) -> np.ndarray:
    """The values ``compiled.evaluate`` must equal (its module docstring)."""
    out = np.empty((count, len(actions)))
    for i in range(count):
        j = first + i
        world = info.sample_at(key, j, facts)
        plan = rollouts.prepare(world, info.player, params)
        noise = world_noise(key, j, NOISE_LEN).tolist()
        for s, a in enumerate(actions):
            out[i, s] = rollouts.simulate(world.clone(), a, info.player, noise, plan, params)
    return out


def random_positions(cfg: FiveAliveConfig, count: int, seed: int) -> list[tuple[eng.FiveAliveEngine, int, None]]:
    """(engine, acting seat, no beliefs) at decisions with a choice, from random play."""
    rng = np.random.default_rng(seed)
    out: list[tuple[eng.FiveAliveEngine, int, None]] = []
    g = 0
    while len(out) < count:
        e = GAME.new_engine(cfg, seed * 100 + g)
        g += 1
        while not e.is_over and len(out) < count:
            legal = np.flatnonzero(e.legal_mask())
            if len(legal) > 1 and rng.random() < 0.12:
                out.append((e.clone(), e.current_player, None))
            e.step(int(legal[rng.integers(len(legal))]))
    return out


def model_positions(cfg: FiveAliveConfig, count: int, seed: int) -> list[tuple[eng.FiveAliveEngine, int, dict]]:
    """(engine, seat 0, its beliefs) at seat 0's decisions with a choice and beliefs, in games of
    five-alive-attacker bots followed by the search's opponent model (``rollouts.observe``)."""
    rng = np.random.default_rng(seed)
    model = SearchParams(sims=1)
    out: list[tuple[eng.FiveAliveEngine, int, dict]] = []
    g = 0
    while len(out) < count:
        e = GAME.new_engine(cfg, seed * 100 + g)
        g += 1
        bots = [AttackerAgent(seed=s) for s in range(cfg.num_players)]
        memory: dict = {}
        rollouts.observe(InformationSet(e, 0), memory, model)
        while not e.is_over and len(out) < count:
            p = e.current_player
            mask = e.legal_mask()
            if p == 0 and mask.sum() > 1 and memory.get("facts") and rng.random() < 0.3:
                out.append((e.clone(), 0, dict(memory["facts"])))
            e.step(bots[p].act(GAME.observe(e, p), mask))
            rollouts.observe(InformationSet(e, 0), memory, model)
    return out


def bits(values: np.ndarray) -> np.ndarray:
    return np.asarray(values, np.float64).view(np.uint64)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_compiled_values_equal_the_reference_bit_for_bit(family: str) -> None:
    cfg = FiveAliveConfig(**FAMILIES[family])
    cases = random_positions(cfg, 3, seed=cfg.num_players) + model_positions(cfg, 3, seed=cfg.num_players + 1)
    assert any(facts for _, _, facts in cases)
    for c, (engine, player, facts) in enumerate(cases):
        actions = [int(a) for a in np.flatnonzero(engine.legal_mask())]
        for p, params in enumerate(PARAMS):
            key = 1000 * c + p
            # a fresh InformationSet each: a failed conditioned deal changes what it draws afterwards
            want = reference(InformationSet(engine, player), key, 3, 4, actions, params, facts)
            got = compiled.evaluate(InformationSet(engine, player), key, 3, 4, actions, params, facts)
            assert got.shape == (4, len(actions)) and got.dtype == np.float64
            np.testing.assert_array_equal(bits(got), bits(want), err_msg=f"{family} case {c} {params}")


def drawn(info: InformationSet, key: int, first: int, count: int, facts: dict[int, int] | None
          ) -> tuple[dict[str, np.ndarray], np.ndarray, tuple]:
    """The schema's arrays of worlds ``first..first+count-1`` drawn in compiled code (``_draw_worlds``), which of
    them fell back to no beliefs, and ``_draw_worlds``' arguments."""
    canon = info.canonical()
    args = compiled._recorded(info, canon) + compiled._conditioned(info, canon, facts)
    arrays = positions.SCHEMA.allocate(count, positions.dims(info.config))
    W = tuple(arrays[name] for name in compiled._ROW_FIELDS)
    fell = np.zeros(count, np.bool_)
    assert compiled._draw_worlds(args[0], W, np.uint64(key), np.int64(first), *args[1:], fell) == -1
    return arrays, fell, args


def assert_sampled(info: InformationSet, key: int, first: int, count: int, facts: dict[int, int] | None) -> np.ndarray:
    """The compiled worlds are ``sample_at``'s, field for field as the schema reads them (``load`` is that reading
    too), and those that fell back are those whose conditioned deal failed in Python; returns which fell."""
    arrays, fell, _ = drawn(info, key, first, count, facts)
    states = [info.sample_at(key, first + i, facts).state for i in range(count)]
    dims = positions.dims(info.config)
    want = positions.SCHEMA.from_states(states, dims)
    loaded = positions.SCHEMA.allocate(count, dims)
    compiled.load(states, loaded, kernel.params(info.config))
    for name in compiled._ROW_FIELDS:
        if name != "game_index":
            np.testing.assert_array_equal(arrays[name], want[name], err_msg=name)
            np.testing.assert_array_equal(loaded[name], want[name], err_msg=name)
    cond = GAME.condition(info.config, info.canonical(), facts) if facts else None
    for i in range(count):
        failed = False
        if cond is not None:
            try:
                determinize.sample_conditioned(info.config, cond, info.player,
                                               CounterStream(key, (first + i) * WORLD_STRIDE, WORLD_STRIDE - 1))
            except RuntimeError:
                failed = True
        assert fell[i] == failed, i
    return fell


def test_worlds_drawn_in_compiled_code_are_the_samplers() -> None:
    """Without beliefs the worlds are drawn in compiled code from the canonical state: ``sample_at``'s, with
    recorded facts and caps."""
    demanded = capped = 0
    for family in ("4p", "teams6", "5p-rules"):
        cfg = FiveAliveConfig(**FAMILIES[family])
        for engine, player, _ in random_positions(cfg, 6, seed=7):
            info = InformationSet(engine, player)
            _, fell, args = drawn(info, 9, 5, 3, None)
            demanded += len(args[7]) > 0
            capped += bool(args[5])
            assert args[-1] == 0 and not fell.any()  # no conditioned try
            assert_sampled(info, 9, 5, 3, None)
    assert demanded and capped


def test_worlds_drawn_with_beliefs_in_compiled_code_are_the_samplers() -> None:
    """With an opponent model's beliefs the worlds are drawn in compiled code too (``determinize._sample_conditioned``'s
    tries, then ``engine_of_world``'s seed): ``sample_at(key, j, facts)``'s, world by world, with caps."""
    capped = 0
    for family in ("4p", "teams6", "5p-rules"):
        cfg = FiveAliveConfig(**FAMILIES[family])
        for engine, player, facts in model_positions(cfg, 3, seed=cfg.num_players + 1):
            info = InformationSet(engine, player)
            _, _, args = drawn(info, 9, 5, 4, facts)
            assert args[-1] == determinize.CONDITIONED_TRIES and len(args[-4]) > len(args[7])  # beliefs demand slots
            capped += bool(args[5])
            assert_sampled(info, 9, 5, 4, facts)
    assert capped


def test_beliefs_no_deal_meets_fall_back_to_the_worlds_without_them() -> None:
    """Beliefs of two players that do not nest: some worlds' tries all fail, and those (only those) are drawn
    without beliefs from their own counters again, in compiled code as in ``sample_at``; the values follow."""
    cfg = FiveAliveConfig(**FAMILIES["4p"])
    engine, player, _ = random_positions(cfg, 6, seed=7)[5]
    facts = {0: 131566, 2: 529}
    info = InformationSet(engine, player)
    fell = assert_sampled(info, 9, 0, 16, facts)
    assert 0 < fell.sum() < 16 and compiled._recorded(info)[5]  # some fall back, some not; a capped draw pile
    fell = np.flatnonzero(fell)
    actions = [int(a) for a in np.flatnonzero(engine.legal_mask())]
    params = SearchParams(sims=1, depth=4)
    first = int(fell[0]) - 1 if fell[0] else int(fell[0])  # a conditioned world and one drawn without beliefs
    want = reference(InformationSet(engine, player), 9, first, 3, actions, params, facts)
    got = compiled.evaluate(InformationSet(engine, player), 9, first, 3, actions, params, facts)
    np.testing.assert_array_equal(bits(got), bits(want))


def test_condition_returning_none_and_a_foreign_sampler(monkeypatch: pytest.MonkeyPatch) -> None:
    """``condition`` returning None: every world without beliefs (compiled); a game whose conditioned sampler is
    not ``determinize``'s: its worlds drawn by it in Python (the fallback). Both equal ``sample_at``'s."""
    cfg = FiveAliveConfig(**FAMILIES["4p"])
    engine, player, facts = model_positions(cfg, 1, seed=5)[0]
    actions = [int(a) for a in np.flatnonzero(engine.legal_mask())]
    params = SearchParams(sims=1, depth=3)
    calls: list[int] = []

    def foreign(*args):  # type: ignore[no-untyped-def]
        calls.append(1)
        return determinize.sample_conditioned(*args)

    for game, kind in ((dataclasses.replace(GAME, condition=lambda config, canonical, facts: None), "none"),
                       (dataclasses.replace(GAME, sample_conditioned=foreign), "foreign")):
        infos = [InformationSet(engine, player) for _ in range(3)]
        for info in infos:
            monkeypatch.setattr(info, "_game", game)
        beliefs = compiled._conditioned(infos[0], infos[0].canonical(), facts)
        if kind == "none":
            assert beliefs is compiled.UNCONDITIONED
            assert_sampled(infos[0], 9, 2, 3, facts)
            with_none = positions.SCHEMA.from_states([infos[0].sample_at(9, 2 + i, facts).state for i in range(3)],
                                                     positions.dims(cfg))
            plain = positions.SCHEMA.from_states([infos[0].sample_at(9, 2 + i).state for i in range(3)],
                                                 positions.dims(cfg))
            for name in compiled._ROW_FIELDS:
                np.testing.assert_array_equal(with_none[name], plain[name], err_msg=name)
        else:
            assert beliefs is None
        want = reference(infos[1], 9, 2, 3, actions, params, facts)
        calls.clear()
        got = compiled.evaluate(infos[2], 9, 2, 3, actions, params, facts)
        assert bool(calls) == (kind == "foreign")
        np.testing.assert_array_equal(bits(got), bits(want), err_msg=kind)


def test_rollout_random_numbers_are_read_in_order_across_insured_moves() -> None:
    """The searcher (seat 0) twice plays its last 0 under insurance (a =21 instead, then the 0: no wild card
    left): the rollout's random numbers are still read at positions 0, 1, 2, ... (the loop over the wild
    cards reused the position's name and jumped to 9, then 16); the compiled rollouts read them likewise."""

    class Recorder(list):
        def __init__(self, values: list[float]) -> None:
            super().__init__(values)
            self.read: list[int] = []

        def __getitem__(self, i):  # type: ignore[no-untyped-def]
            self.read.append(i)
            return super().__getitem__(i)

    cfg = FiveAliveConfig(num_players=2, first_player="seat0")
    state = eng.from_position(cfg, [[N3, N0, EQ21, N7], [N7, N7, N7, N4]], draw=[N3] * 10)
    noise = Recorder([0.5] * NOISE_LEN)
    value = rollouts.simulate(eng.FiveAliveEngine(cfg, state=state), N3, 0, noise, None, SearchParams(sims=1, eps=0.0))
    assert noise.read == [0, 1, 2, 3, 4, 5] and value == 2.0
    assert compiled.NOISE_LEN == NOISE_LEN


def test_policy_rollouts_and_empty_requests() -> None:
    cfg = FiveAliveConfig(num_players=2)
    engine = GAME.new_engine(cfg, 3)
    info = InformationSet(engine, engine.current_player)
    with pytest.raises(ValueError, match="rollout=policy"):
        compiled.evaluate(info, 1, 0, 2, [0], SearchParams(sims=1, rollout="policy", prior="x"), None)
    assert compiled.evaluate(info, 1, 0, 0, [0, 1], SearchParams(sims=1), None).shape == (0, 2)
    assert compiled.evaluate(info, 1, 0, 3, [], SearchParams(sims=1), None).shape == (3, 0)
