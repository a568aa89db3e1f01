"""``set_state`` and ``load`` trust nothing (issue 27, item 2): a refused state is a ``ValueError`` naming the
entry and what was expected, and changes nothing; an accepted one holds every invariant.

The reproducers of the audit come first (``_cur[0] = 2**62``, ``_cur = 100`` with 4 players, a state of
another config with the same shapes, hand-built positions that do not add up); then a property test:
``set_state`` of any mutated state either raises and leaves the engine exactly as before, or the engine
goes on playing a game that satisfies every invariant. The invariants are checked independently of the
engines' own validation: a 5 Alive game is rebuilt as a reference state (``engine.from_position``) and
both engines must then play exactly the same game; a Take 5 game is checked card by card through the
public accessors while it plays on.
"""
from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fiveplay_env.five_alive import engine as fa_eng
from fiveplay_env.five_alive.batched import BatchedFiveAlive
from fiveplay_env.five_alive.config import FiveAliveConfig
from fiveplay_env.five_alive.observation import observe as fa_observe
from fiveplay_env.five_alive.state import BOMB, BOMB_ANSWER, N0, N1, N2, N3, OVER, build_table
from fiveplay_env.take5.batched import BatchedTake5
from fiveplay_env.take5.config import Take5Config
from fiveplay_env.take5.observation import observation_high
from fiveplay_env.take5.state import DRAFT, PLAY, ROW_CHOICE
from fiveplay_env.vector import random_actions

REFUSAL = re.compile(r"^state\['arrays'\]\['(\w+)'\]: game \d+: expected .+, got .+", re.S)


def _same(a: dict, b: dict) -> bool:
    return a["base_seed"] == b["base_seed"] and a.keys() == b.keys() and all(
        np.array_equal(a["arrays"][k], b["arrays"][k], equal_nan=a["arrays"][k].dtype.kind == "f") for k in a["arrays"])


def _play(env, steps: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        env.step(random_actions(env.legal_action_mask, rng))


def _refused(env, state: dict, match: str) -> ValueError:
    before = env.get_state()
    mask = env.legal_action_mask.copy()
    with pytest.raises(ValueError, match=match) as info:
        env.set_state(state)
    assert _same(env.get_state(), before) and np.array_equal(env.legal_action_mask, mask)
    return info.value


# --- the audit's reproducers ----------------------------------------------------------------------------

def test_a_huge_acting_seat_is_refused_and_the_engine_keeps_its_own():
    env = BatchedFiveAlive(FiveAliveConfig(num_players=4), 3, seed=1)
    _play(env, 5, 0)
    st_ = env.get_state()
    st_["arrays"]["cur"][0] = 127  # the old engine raised IndexError on 2**62 in its mask, the value kept
    _refused(env, st_, r"state\['arrays'\]\['cur'\]: game 0: expected values in 0\.\.3, got 127")
    env.step(random_actions(env.legal_action_mask, np.random.default_rng(0)))  # still plays


@pytest.mark.parametrize("make", [lambda: BatchedFiveAlive(FiveAliveConfig(num_players=4), 3, seed=2),
                                  lambda: BatchedTake5(Take5Config(num_players=4), 3, seed=2)], ids=["five_alive", "take5"])
def test_an_acting_seat_of_100_with_4_players_is_refused(make):
    env = make()
    st_ = env.get_state()
    st_["arrays"]["cur"][:] = 100  # used to be accepted, observe() crashed later
    _refused(env, st_, r"\['cur'\]: game 0: expected values in 0\.\.3, got 100")


def test_a_state_of_another_config_with_the_same_shapes_is_refused():
    a = BatchedFiveAlive(FiveAliveConfig(num_players=4), 4, seed=3)
    b = BatchedFiveAlive(FiveAliveConfig(num_players=4, reward="lives"), 4, seed=3)  # same arrays, other rules
    _refused(b, a.get_state(), r"^state\['config'\]: expected 'FiveAliveConfig:")
    # with a forged fingerprint, the contents still must fit: another deck of the same size
    deck = list(FiveAliveConfig().deck_counts)
    deck[N0] += 2
    deck[N1] -= 2
    c = BatchedFiveAlive(FiveAliveConfig(num_players=4, deck_counts=deck), 4, seed=3)
    forged = {**c.get_state(), "config": a.get_state()["config"]}
    _refused(a, forged, r"\['hands'\]: game \d: expected at most deck_counts\[k\] cards of each kind")
    t = BatchedTake5(Take5Config(num_players=4, end_score=66), 4, seed=3)
    _play(t, 4 * 10 * 4 * 3, 1)  # a few rounds: some scores above 20
    low = BatchedTake5(Take5Config(num_players=4, end_score=20), 4, seed=3)
    state = t.get_state()
    state["config"] = low.get_state()["config"]  # the fingerprint forged: the contents must still fit
    if (t.scores.max(axis=1) >= 20).any():
        _refused(low, state, r"\['scores'\]: game \d: expected every score below the end threshold")


def test_a_state_of_the_numpy_engine_before_the_kernel_is_refused_by_its_form():
    env = BatchedFiveAlive(FiveAliveConfig(num_players=3), 4, seed=4)
    _play(env, 30, 0)
    old = env.get_state()
    legacy = {**old, "arrays": {f"_{k}": v for k, v in old["arrays"].items()}}  # the old engine's field names
    other = BatchedFiveAlive(FiveAliveConfig(num_players=3), 4, seed=9)
    _refused(other, legacy, r"^state\['arrays'\]: expected the arrays \[.*'hands'.*\] \(the five_alive state schema\)")
    other.set_state(old)  # the state of this engine goes in
    np.testing.assert_array_equal(other.legal_action_mask, env.legal_action_mask)
    np.testing.assert_array_equal(other.observe(), env.observe())


def test_a_failure_while_committing_puts_everything_back(monkeypatch):
    env = BatchedTake5(Take5Config(num_players=3), 3, seed=5)
    _play(env, 7, 0)
    before, mask, obs = env.get_state(), env.legal_action_mask, env.observe()
    other = BatchedTake5(Take5Config(num_players=3), 3, seed=6)
    good = other.get_state()

    def boom(self, *args):
        raise MemoryError("no room for the mask")

    monkeypatch.setattr(BatchedTake5, "_k_mask", boom)
    with pytest.raises(MemoryError):
        env.set_state(good)
    monkeypatch.undo()
    assert _same(env.get_state(), before) and env.legal_action_mask is mask
    np.testing.assert_array_equal(env.observe(), obs)
    env.set_state(good)  # and the good state goes in once nothing fails
    np.testing.assert_array_equal(env.observe(), other.observe())


@pytest.mark.parametrize("edit, match", [
    (lambda s: s.hand_size.__setitem__(0, 9), r"^state\.hand_size: expected each hand's number of cards"),
    (lambda s: s.hands[1].__setitem__(N2, 300), r"^state\.hands: expected values in 0\.\.255 of shape \(4, 18\)"),
    (lambda s: s.hands.__setitem__(1, [1] * 5), r"^state\.hands: expected values in 0\.\.255 of shape \(4, 18\)"),
    (lambda s: s.lives.__setitem__(2, 7), r"^state\.lives: expected values in 0\.\.5, got \[5, 5, 7, 5\]"),
    (lambda s: s.draw.append(18), r"^state\.draw: expected values in 0\.\.17"),
    (lambda s: setattr(s, "total", 22), r"^state\.total: expected values in 0\.\.21, got 22"),
    (lambda s: setattr(s, "current", 7), r"^state\.current: expected values in 0\.\.3, got 7"),
    (lambda s: setattr(s, "direction", 0), r"^state\.direction: expected \+1 or -1"),
    (lambda s: setattr(s, "top", N3), r"^state\.top: expected a kind the discard pile holds"),
    (lambda s: setattr(s, "seed", -1), r"^state\.seed: expected "),
    (lambda s: setattr(s, "turns", 10_000), r"^state\.turns: expected values in 0\.\.9999, got 10000"),
    (lambda s: setattr(s, "bomber", 2), r"^state\.bomber: expected -1 and an empty bomb_queue"),
])
def test_load_refuses_a_position_that_does_not_add_up_and_changes_nothing(edit, match):
    cfg = FiveAliveConfig(num_players=4, first_player="seat0")
    s = fa_eng.from_position(cfg, [[BOMB, N1], [N0, N3], [N2, N1], [N3]], total=4, draw=[N1, N2], discard=[N0, N1])
    env = BatchedFiveAlive(cfg, 2, seed=0)
    before, mask = env.get_state(), env.legal_action_mask.copy()
    edit(s)
    with pytest.raises(ValueError, match=match):
        env.load(1, s)
    assert _same(env.get_state(), before) and np.array_equal(env.legal_action_mask, mask)


def test_load_checks_the_pending_bomb_answers():
    cfg = FiveAliveConfig(num_players=4, first_player="seat0", bomb_zero_optional=True)
    s = fa_eng.from_position(cfg, [[BOMB, N1], [N0, N3], [N2, N1], [N3]], total=4)
    fa_eng.step(cfg, s, BOMB)  # player 1 answers; 2 and 3 follow
    assert s.phase == BOMB_ANSWER and s.bomb_queue == [2, 3]
    env = BatchedFiveAlive(cfg, 1, seed=0)
    env.load(0, s)  # a consistent position goes in
    s.bomb_queue = [3]
    with pytest.raises(ValueError, match=r"^state\.bomb_queue: expected the survivors after player 1 .*\[2, 3\], got \[3\]"):
        env.load(0, s)


# --- the property test ------------------------------------------------------------------------------------

ENGINES = {
    "take5": lambda: BatchedTake5(Take5Config(num_players=4), 4, seed=11),
    "take5-draft": lambda: BatchedTake5(Take5Config(num_players=3, professional=True, draft=True), 4, seed=11),
    "take5-auto-rounds": lambda: BatchedTake5(Take5Config(num_players=5, row_pick="min_bullheads", mode="rounds:3"),
                                              4, seed=11),
    "five_alive": lambda: BatchedFiveAlive(FiveAliveConfig(num_players=4), 4, seed=11),
    "five_alive-optional-6": lambda: BatchedFiveAlive(FiveAliveConfig(num_players=6, bomb_zero_optional=True,
                                                                      deck_counts={"bomb": 8, "n0": 12}), 4, seed=11),
    "five_alive-teams": lambda: BatchedFiveAlive(FiveAliveConfig(num_players=4, variant="teams", max_steps=400), 4,
                                                 seed=11),
}


def _values(arr: np.ndarray, flat: int, other: int):
    """Interesting replacements for ``arr.flat[flat]``: neighbours, extremes, another cell's value."""
    old = arr.flat[flat].item()
    if arr.dtype == bool:
        return [not old]
    if arr.dtype.kind == "f":
        return [float("nan"), float("inf"), -1e9, old + 1, -1.0, 0.5, 2.0, -200.0]
    info = np.iinfo(arr.dtype)
    cands = [old + 1, old - 1, 0, -1, 1, 2, 5, 100, 2**62, -2**62, info.max, info.min, arr.flat[other].item()]
    return [v for v in cands if info.min <= v <= info.max and v != old]


def _mutate(env, data) -> dict:
    state = env.get_state()
    arrays = state["arrays"]
    kind = data.draw(st.sampled_from(["cell", "cell", "cell", "game", "fingerprint"]), label="kind")
    if kind == "fingerprint":  # a state of another config with the same shapes
        state["config"] = state["config"][:-1] + ("0" if state["config"][-1] != "0" else "1")
        return state
    if kind == "game" and isinstance(env, BatchedFiveAlive):  # slot j's game copied into slot i
        i, j = data.draw(st.integers(0, 3), label="i"), data.draw(st.integers(0, 3), label="j")
        for name, a in arrays.items():
            if name != "game_index":
                a[i] = a[j]
        return state
    name = data.draw(st.sampled_from(sorted(arrays)), label="array")
    a = arrays[name]
    flat = data.draw(st.integers(0, a.size - 1), label="cell")
    other = data.draw(st.integers(0, a.size - 1), label="other")
    a.flat[flat] = data.draw(st.sampled_from(_values(a, flat, other)), label="value")
    return state


def _fa_reference(env: BatchedFiveAlive, i: int):
    """Slot i's game as a reference state, built from the batched engine's public accessors."""
    cfg, n = env.config, env.num_players
    hands = env.hands()[i]
    disc, top = env.discard()[i], int(env.top()[i])
    discard = [k for k in range(18) for _ in range(disc[k])]
    if top >= 0:
        discard.remove(top)
        discard.append(top)
    s = fa_eng.from_position(cfg, [[k for k in range(18) for _ in range(hands[p][k])] for p in range(n)],
                             current=int(env.current_player[i]), total=int(env.total[i]),
                             direction=int(env.direction[i]), draw=env.draw_pile(i), discard=discard,
                             lives=env.lives[i].tolist(), seed=int(env.seeds[i]), counter=int(env.counter[i]),
                             round=int(env.round[i]))
    s.top = top
    s.reshuffles, s.turns = int(env.reshuffles[i]), int(env.steps[i])
    if env.phase[i] == BOMB_ANSWER:
        s.phase, s.bomber = BOMB_ANSWER, int(env.field("bomber")[i])
        q, queue = s.current, []
        for _ in range(n):
            q = (q + s.direction) % n
            if q == s.bomber:
                break
            if s.alive[q]:
                queue.append(q)
        s.bomb_queue = queue
    s.tab = build_table(s)
    return s


def _fa_plays_as_the_reference(env: BatchedFiveAlive, steps: int, seed: int) -> None:
    cfg = env.config
    refs = {i: _fa_reference(env, i) for i in range(env.batch_size)}
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        obs, mask = env.observe(), env.legal_action_mask
        for i, s in refs.items():
            assert mask[i].any() and np.array_equal(mask[i], fa_eng.legal_mask(s)), f"slot {i}: mask"
            assert np.array_equal(obs[i], fa_observe(cfg, s, s.current)), f"slot {i}: observation"
            counts = s.card_counts()
            assert all(c <= d for c, d in zip(counts, cfg.deck_counts)), f"slot {i}: cards {counts}"
            assert np.array_equal(s.tab, build_table(s)), f"slot {i}: table"
        actions = random_actions(mask, rng)
        rewards = env.step(actions)
        for i in list(refs):
            r = fa_eng.step(cfg, refs[i], int(actions[i]))
            assert rewards[i].tolist() == [float(x) for x in r], f"slot {i}: rewards"
            assert bool(env.terminated[i]) == (refs[i].phase == OVER), f"slot {i}: terminated"
            if refs[i].phase == OVER:
                del refs[i]  # the slot's next game is the engine's own business (the replay tests)


def _t5_invariants(env: BatchedTake5) -> None:
    """Every Take 5 game of ``env``, card by card, through the public accessors."""
    cfg, n = env.config, env.num_players
    mask, obs = env.legal_action_mask, env.observe()
    assert np.isfinite(obs).all() and obs.min() >= 0
    assert (obs <= observation_high(cfg) + 1e-6).all()
    hands = env.hands()[:, :, :104]
    for i in range(env.batch_size):
        h, phase, t, c = hands[i], int(env.phase[i]), int(env.trick[i]), int(env.current_player[i])
        assert h.sum(axis=0).max() <= 1, f"game {i}: a card in two hands"
        assert mask[i].sum() > 0 and 0 <= c < n
        assert (env.scores[i] >= 0).all() and (env.round_penalty[i] >= 0).all()
        if cfg.num_rounds is None:
            assert env.scores[i].max() < cfg.end_score
        rows = env.row_lists(i)
        if phase == DRAFT:
            assert rows == [] and t == 0
            continue
        assert len(rows) == 4 and all(1 <= len(r) <= 5 and r == sorted(set(r)) for r in rows), rows
        in_rows = [x for r in rows for x in r]
        assert len(set(in_rows)) == len(in_rows) and not h[:, in_rows].any(), f"game {i}: rows {rows}"
        sizes = h.sum(axis=1)
        if phase == PLAY:
            assert sizes.tolist() == [10 - t - (p < c) for p in range(n)], (i, sizes, t, c)
            assert np.array_equal(mask[i, :104], h[c]) and not mask[i, 104:].any()
        else:
            assert phase == ROW_CHOICE and sizes.tolist() == [9 - t] * n
            assert mask[i].tolist() == [0] * 104 + [1] * 4 + [0]


def _plays_on(env, seed: int) -> None:
    if isinstance(env, BatchedFiveAlive):
        _fa_plays_as_the_reference(env, 25, seed)
        return
    rng = np.random.default_rng(seed)
    for _ in range(25):
        _t5_invariants(env)
        r = env.step(random_actions(env.legal_action_mask, rng))
        assert np.isfinite(r).all() and (r <= 0).all()
    _t5_invariants(env)


@pytest.mark.parametrize("name", list(ENGINES))
@settings(max_examples=70, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_set_state_of_any_mutated_state_refuses_it_cleanly_or_holds_every_invariant(name, data):
    env = ENGINES[name]()
    _play(env, data.draw(st.integers(0, 60), label="steps"), 3)
    bad = _mutate(env, data)
    before, mask = env.get_state(), env.legal_action_mask.copy()
    try:
        env.set_state(bad)
    except ValueError as e:
        msg = str(e)
        m = REFUSAL.match(msg)
        assert m and m.group(1) in env.STATE or msg.startswith("state['config']: expected"), msg
        assert _same(env.get_state(), before) and np.array_equal(env.legal_action_mask, mask)
        return
    _plays_on(env, data.draw(st.integers(0, 1000), label="seed"))
