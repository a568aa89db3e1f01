"""Unclear errors left by the second audit (issue 27, item 7): a huge ``num_envs``, a config that is not a
config, an array taken as an action. Each is now accepted explicitly or refused with a ``ValueError``
naming what was expected."""
from __future__ import annotations

import numpy as np
import pytest

from fiveplay_env import five_alive_v0, take5_v0, vector
from fiveplay_env.core.errors import IllegalActionError, action_id
from fiveplay_env.five_alive import engine as fa
from fiveplay_env.five_alive.config import FiveAliveConfig
from fiveplay_env.take5 import engine as t5
from fiveplay_env.take5.batched import BatchedTake5
from fiveplay_env.take5.config import Take5Config
from fiveplay_env.wrappers import IllegalActionPenalty

GAMES = [(t5, Take5Config, t5.Take5Engine, take5_v0), (fa, FiveAliveConfig, fa.FiveAliveEngine, five_alive_v0)]


@pytest.mark.parametrize("mod, cfg_cls, engine_cls, _", GAMES, ids=["take5", "five_alive"])
@pytest.mark.parametrize("bad", [None, {}, {"num_players": 4}, "take5", 4])
def test_new_game_and_the_engine_refuse_what_is_not_their_config(mod, cfg_cls, engine_cls, _, bad):
    with pytest.raises(ValueError, match=rf"^config: expected a {cfg_cls.__name__} \(for example"):
        mod.new_game(bad, 0)
    with pytest.raises(ValueError, match=rf"^config: expected a {cfg_cls.__name__}, got"):
        engine_cls(bad, 0)


def test_an_engine_refuses_a_state_of_another_game_or_size():
    cfg = Take5Config(num_players=4)
    with pytest.raises(ValueError, match=r"^state: expected a Take5State of 4 players, got FiveAliveState"):
        t5.Take5Engine(cfg, state=fa.new_game(FiveAliveConfig(num_players=4), 0))
    with pytest.raises(ValueError, match=r"^state: expected a Take5State of 4 players"):
        t5.Take5Engine(cfg, state=t5.new_game(Take5Config(num_players=3), 0))
    with pytest.raises(ValueError, match=r"^config: expected a FiveAliveConfig, got Take5Config"):
        fa.FiveAliveEngine(cfg, state=fa.new_game(FiveAliveConfig(num_players=4), 0))
    e = fa.FiveAliveEngine(FiveAliveConfig(num_players=4), state=fa.new_game(FiveAliveConfig(num_players=4), 3))
    c = e.clone()  # the clone skips the checks, and is independent
    c.step(int(np.flatnonzero(c.legal_mask())[0]))
    assert c.state.turns == 1 and e.state.turns == 0 and type(c) is fa.FiveAliveEngine


def test_a_huge_num_envs_is_refused_before_anything_is_allocated(monkeypatch):
    for n in (10**12, 2**24 + 1):
        with pytest.raises(ValueError, match=r"^num_envs: expected an integer in 1\.\.16777216, got"):
            vector.make_vec("take5", n)
    with pytest.raises(ValueError, match=r"^batch_size: expected an integer in 1\.\.16777216"):
        BatchedTake5(Take5Config(), 10**12)
    monkeypatch.setattr(vector, "physical_memory", lambda: 2**30)  # a 1 GiB machine
    with pytest.raises(ValueError, match=r"^num_envs: expected at most [\d,]+ games on this machine \(1\.0 GiB of "
                                         r"memory; about [\d,]+ bytes a game .*got 1,500,000"):
        vector.make_vec("five_alive", 1_500_000, num_players=6)  # the compiled engine's state: 271 bytes a game
    assert vector.make_vec("five_alive", 1000, num_players=6).num_envs == 1000  # what fits is made
    with pytest.raises(ValueError, match="unknown config field 'colour'"):  # the probe checks the config first
        vector.make_vec("take5", 10, colour="red")


def test_the_action_forms():
    assert action_id(3) == 3 and action_id(np.int8(3)) == 3 and action_id(np.array(3)) == 3
    assert action_id(np.array(3, np.uint8)) == 3 and type(action_id(np.array(3))) is int
    for bad in (np.array([3]), np.array([[3]]), np.zeros(0, int), 3.0, np.float32(3), np.array(3.0), True,
                np.bool_(True), "3", None, [3], (3,)):
        assert action_id(bad) is None, bad


@pytest.mark.parametrize("mod", [take5_v0, five_alive_v0], ids=["take5", "five_alive"])
def test_aec_envs_take_a_0d_integer_array_and_refuse_other_arrays_clearly(mod):
    env, twin = mod.env(num_players=3), mod.env(num_players=3)
    env.reset(seed=4)
    twin.reset(seed=4)
    rng = np.random.default_rng(0)
    for k in range(40):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            twin.step(None)
            continue
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        for bad in (np.array([a]), np.array([[a]]), float(a)):
            with pytest.raises(IllegalActionError, match=r"as an action id \(an int, a numpy integer or a 0-d "
                                                         r"integer array\), got (an array of shape|\d+\.0)"):
                env.step(bad)
        env.step(np.array(a) if k % 2 else np.int32(a))  # the accepted forms play as the int would
        twin.step(a)
        np.testing.assert_array_equal(env.observe(env.agent_selection)["observation"],
                                      twin.observe(twin.agent_selection)["observation"])
        assert env.rewards == twin.rewards


def test_the_parallel_env_and_the_penalty_wrapper_follow_the_same_rule():
    env = take5_v0.parallel_env(num_players=3)
    obs, _ = env.reset(seed=1)
    first = {ag: int(np.flatnonzero(o["action_mask"])[0]) for ag, o in obs.items()}
    with pytest.raises(IllegalActionError, match="as an action id"):
        env.step({ag: np.array([a]) for ag, a in first.items()})
    env.step({ag: np.array(a) for ag, a in first.items()})  # 0-d arrays: accepted
    wrapped = IllegalActionPenalty(five_alive_v0.env(num_players=3))
    wrapped.reset(seed=2)
    mask = wrapped.observe(wrapped.agent_selection)["action_mask"]
    wrapped.step(np.array(int(np.flatnonzero(mask)[0])))  # legal in the wrapper too
    assert not any(wrapped.terminations.values())
    agent = wrapped.agent_selection
    mask = wrapped.observe(agent)["action_mask"]
    wrapped.step(np.array([int(np.flatnonzero(mask)[0])]))  # an array of shape (1,): illegal, the penalty
    assert all(wrapped.terminations.values()) and wrapped.rewards[agent] == -1.0
