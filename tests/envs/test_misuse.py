"""Misuse gets a clear, documented error and changes nothing (issue 12, item 11, and its property test).

Documented exception types: ``ValueError`` for a bad value (its message starts with the field's name),
``IllegalActionError`` (a ``ValueError``) for an action that is not legal now, ``ResetNeededError`` (a
``RuntimeError``) for a call that needs a game in progress."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fiveplay_env import five_alive_v0, take5_v0
from fiveplay_env.core.errors import IllegalActionError, ResetNeededError
from fiveplay_env.five_alive.config import FiveAliveConfig
from fiveplay_env.take5.config import Take5Config
from tests.util import pick

AEC = [("take5", take5_v0.env), ("five_alive", five_alive_v0.env)]


# --- before reset(), after the end ---------------------------------------------------------------------
@pytest.mark.parametrize("name, make", AEC, ids=[a[0] for a in AEC])
def test_calls_before_reset_raise_reset_needed(name, make):
    env = make(num_players=3)
    for call in (lambda: env.step(0), lambda: env.last(), lambda: env.observe("player_0"), lambda: env.step(None)):
        with pytest.raises(ResetNeededError, match=r"reset\(\)"):
            call()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="agent: expected one of"):
        env.observe("player_9")
    with pytest.raises(ValueError, match="agent: expected one of"):
        env.observe(["player_0"])


@pytest.mark.parametrize("name, make", AEC, ids=[a[0] for a in AEC])
def test_stepping_after_every_agent_is_done_raises_reset_needed(name, make):
    env = make(num_players=2, **({"mode": "round"} if name == "take5" else {}))
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else pick(obs["action_mask"], rng))
    assert env.agents == []
    for call in (lambda: env.step(None), lambda: env.step(0), lambda: env.last()):
        with pytest.raises(ResetNeededError, match="game is over"):
            call()
    env.reset(seed=2)  # and the env plays again
    assert env.agents


def test_parallel_env_misuse():
    env = take5_v0.parallel_env(num_players=3, mode="round")
    for bad in (None, {}, {"player_0": 1}):
        with pytest.raises(ResetNeededError, match=r"reset\(\)"):
            env.step(bad)
    obs, _ = env.reset(seed=3)
    before = env.engine.state.clone()
    acts = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in env.agents}
    for bad, err, message in [(None, ValueError, "actions: expected a dict"), ([1, 2, 3], ValueError, "actions"),
                              ({}, IllegalActionError, "player_0"),
                              ({**acts, "player_7": 0}, ValueError, "unknown agents.*player_7"),
                              ({**acts, 3: 0}, ValueError, "unknown agents")]:
        with pytest.raises(err, match=message):
            env.step(bad)
        assert env.engine.state.hands.tobytes() == before.hands.tobytes() and env.engine.state.pending == before.pending
    env.step(acts)
    while env.agents:
        env.step({a: pick(env.legal_mask(p), np.random.default_rng(p)) for p, a in enumerate(env.possible_agents)})
    with pytest.raises(ResetNeededError, match="game is over"):
        env.step(acts)


# --- configs -----------------------------------------------------------------------------------------
def test_config_together_with_other_keywords_or_of_the_other_game_is_refused():
    with pytest.raises(ValueError, match="config: expected either config= or the config fields.*num_players"):
        take5_v0.env(config=Take5Config(num_players=3), num_players=5)
    with pytest.raises(ValueError, match="config: expected either config="):
        five_alive_v0.env(config=FiveAliveConfig(), variant="teams")
    with pytest.raises(ValueError, match="config: expected a Take5Config, got FiveAliveConfig"):
        take5_v0.parallel_env(config=FiveAliveConfig())
    with pytest.raises(ValueError, match="config: expected a FiveAliveConfig, got Take5Config"):
        five_alive_v0.env(config=Take5Config())
    with pytest.raises(ValueError, match="config: expected a Take5Config, got dict"):
        take5_v0.env(config={"num_players": 3})
    env = take5_v0.env(config=Take5Config(num_players=3), render_mode="ansi")  # env options may go along
    assert env.config.num_players == 3 and env.render_mode == "ansi"


@pytest.mark.parametrize("kw, field", [
    (dict(mode="rounds:²"), "mode"), (dict(mode="rounds:٣"), "mode"), (dict(mode=np.array(["game"])), "mode"),
    (dict(end_score=np.array([66])), "end_score"), (dict(num_players=np.array(4)), "num_players"),
    (dict(num_players=4.0), "num_players"), (dict(row_pick=np.array("player")), "row_pick"),
    (dict(professional="yes"), "professional"),
])
def test_take5_config_bad_values_name_the_field(kw, field):
    with pytest.raises(ValueError, match=f"^{field}: expected"):
        Take5Config(**kw)


def test_numpy_scalars_and_arrays_where_they_make_sense():
    assert Take5Config(professional=np.bool_(True), draft=np.True_).draft is True
    assert FiveAliveConfig(bomb_zero_optional=np.bool_(True)).bomb_zero_optional is True
    deck = np.array(FiveAliveConfig().deck_counts, dtype=np.int64)
    assert FiveAliveConfig(deck_counts=deck).deck_counts == tuple(deck.tolist())
    with pytest.raises(ValueError, match="deck_counts: expected 18 counts"):
        FiveAliveConfig(deck_counts=deck.reshape(2, 9))
    with pytest.raises(ValueError, match=r"deck_counts\[n0\]: expected an integer"):
        FiveAliveConfig(deck_counts=deck.astype(float))


def test_single_agent_env_takes_a_size_1_integer_array():
    from fiveplay_env.wrappers import SingleAgentEnv

    a, b = (SingleAgentEnv("five_alive", opponents="random", num_players=3, seat=0) for _ in range(2))
    _, info_a = a.reset(seed=4)
    b.reset(seed=4)
    act = int(np.flatnonzero(info_a["action_mask"])[0])
    ra = a.step(np.array([act]))
    rb = b.step(act)
    np.testing.assert_array_equal(ra[0], rb[0])
    assert ra[1:4] == rb[1:4]
    with pytest.raises(IllegalActionError):
        a.step(np.array([act + 0.5]))  # a float is not an action id (never silently rounded)


# --- the property test -------------------------------------------------------------------------------
ANY = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=True) | st.text(max_size=12)
    | st.builds(np.int64, st.integers(-5, 200)) | st.builds(np.bool_, st.booleans())
    | st.builds(np.array, st.lists(st.integers(-3, 120), max_size=4))
    | st.builds(np.array, st.integers(-3, 120)) | st.builds(np.array, st.floats(-3, 120)),  # 0-d arrays
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner) | st.dictionaries(st.text(max_size=6), inner,
                                                                                          max_size=3),
    max_leaves=8,
)
PLAIN = (bool, int, str, tuple, type(None))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.sampled_from(["take5", "five_alive"]), data=st.data())
def test_any_value_for_any_config_field_is_accepted_as_plain_data_or_refused_by_name(game, data):
    cls = Take5Config if game == "take5" else FiveAliveConfig
    field = data.draw(st.sampled_from([f.name for f in dataclasses.fields(cls)]))
    value = data.draw(ANY)
    make = take5_v0.env if game == "take5" else five_alive_v0.env
    try:
        cfg = cls(**{field: value})
    except ValueError as exc:
        assert str(exc).startswith(field), (field, value, str(exc))
        with pytest.raises(ValueError, match=f"^{field}"):  # the env says the same
            make(**{field: value})
        return
    got = getattr(cfg, field)
    assert isinstance(got, PLAIN) and (not isinstance(got, tuple) or all(type(c) is int for c in got)), (field, got)
    assert make(**{field: value}).config == cfg


def _snapshot(env):
    state = env.unwrapped.engine.state
    fields = {k: (v.tobytes() if isinstance(v, np.ndarray) else repr(v)) for k, v in vars(state).items() if k != "view"}
    return fields, env.agent_selection, dict(env._cumulative_rewards), list(env.agents)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.sampled_from(["take5", "five_alive"]), seed=st.integers(0, 50), steps=st.integers(0, 30),
       action=ANY)
def test_any_value_as_an_action_is_played_or_refused_with_nothing_changed(game, seed, steps, action):
    make = take5_v0.env if game == "take5" else five_alive_v0.env
    env = make(num_players=3, **({"bomb_zero_optional": True} if game == "five_alive" else {}))
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else pick(obs["action_mask"], rng))
        if not env.agents:
            return
    obs, _, term, trunc, _ = env.last()
    if term or trunc:
        return
    mask = obs["action_mask"]
    # the documented forms of an action id: an int, a numpy integer, a 0-d integer array (core.errors.action_id)
    a = action.item() if isinstance(action, np.ndarray) and action.ndim == 0 and action.dtype.kind in "iu" else action
    legal = (isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_))
             and 0 <= a < mask.size and bool(mask[a]))
    before = _snapshot(env)
    if legal:
        env.step(action)
        return
    with pytest.raises(IllegalActionError) as info:
        env.step(action)
    assert env.agent_selection in str(info.value) and "expected one of" in str(info.value)
    assert _snapshot(env) == before
