"""Batched engines and ``make_vec`` envs: copies, pickles and ``get_state``/``set_state`` are exact
(issue 12, item 6): the copy plays exactly the same games as the original, independently of it."""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from fiveplay_env import vector
from fiveplay_env.five_alive.batched import make_batched as make_five_alive
from fiveplay_env.take5.batched import make_batched as make_take5
from fiveplay_env.vector import random_actions

ENGINES = [
    ("take5", lambda: make_take5(6, seed=3, num_players=4)),
    ("take5-draft", lambda: make_take5(5, seed=3, num_players=3, professional=True, draft=True)),
    ("five_alive", lambda: make_five_alive(6, seed=3, num_players=4)),
    ("five_alive-optional", lambda: make_five_alive(5, seed=3, num_players=6, bomb_zero_optional=True)),
]


def _play(engine, steps: int, seed: int) -> list[tuple[bytes, ...]]:
    """Step with random legal actions; a trace of what every step showed."""
    rng = np.random.default_rng(seed)
    trace = []
    for _ in range(steps):
        a = random_actions(engine.legal_action_mask, rng)
        r = engine.step(a)
        trace.append((r.tobytes(), engine.terminated.tobytes(), engine.legal_action_mask.tobytes(),
                      engine.current_player.tobytes(), engine.observe().tobytes()))
    return trace


@pytest.mark.parametrize("how", ["deepcopy", "copy", "pickle", "state"])
@pytest.mark.parametrize("name, make", ENGINES, ids=[e[0] for e in ENGINES])
def test_a_copied_batched_engine_plays_exactly_the_same_games(name, make, how):
    eng = make()
    _play(eng, 25, 0)  # mid-game
    if how == "deepcopy":
        other = copy.deepcopy(eng)
    elif how == "copy":
        other = copy.copy(eng)
    elif how == "pickle":
        other = pickle.loads(pickle.dumps(eng))
    else:
        other = make()
        _play(other, 7, 5)  # somewhere else entirely
        other.set_state(eng.get_state())
    np.testing.assert_array_equal(other.legal_action_mask, eng.legal_action_mask)
    a = _play(eng, 300, 1)
    b = _play(other, 300, 1)
    assert a == b
    # independent: stepping one leaves the other as it was
    before = other.get_state()
    _play(eng, 3, 2)
    after = other.get_state()
    assert all(np.array_equal(before["arrays"][k], after["arrays"][k]) for k in before["arrays"])


def test_a_copied_make_vec_env_plays_exactly_the_same_games():
    env = vector.make_vec("five_alive", 4, seed=1, num_players=3)
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(20):
        env.step(random_actions(env.engine.legal_action_mask, rng))
    other = pickle.loads(pickle.dumps(copy.deepcopy(env)))
    for _ in range(200):
        a = random_actions(env.engine.legal_action_mask, rng)
        x, y = env.step(a), other.step(a)
        for u, v in zip(x[:5], y[:5], strict=True):
            np.testing.assert_array_equal(u, v)


@pytest.mark.parametrize("name, make", ENGINES[::2], ids=[e[0] for e in ENGINES[::2]])
def test_set_state_refuses_a_bad_state_and_changes_nothing(name, make):
    eng = make()
    good = eng.get_state()
    other = make_take5(3, seed=0) if name.startswith("five") else make_five_alive(3, seed=0)
    bad_arrays = dict(good["arrays"])
    key = next(iter(bad_arrays))
    bad_arrays[key] = bad_arrays[key][:1]
    legacy = {k: v for k, v in other.get_state().items() if k != "config"}  # no fingerprint: the arrays differ
    for bad, field in [(None, "state"), ({"base_seed": 0}, "state"), (other.get_state(), "config"), (legacy, "arrays"),
                       ({"base_seed": 0, "arrays": bad_arrays}, key),
                       ({"base_seed": "x", "arrays": good["arrays"]}, "seed")]:
        with pytest.raises(ValueError, match=field):
            eng.set_state(bad)
        after = eng.get_state()
        assert after["base_seed"] == good["base_seed"]
        assert all(np.array_equal(good["arrays"][k], after["arrays"][k]) for k in good["arrays"])
