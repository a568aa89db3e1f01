"""Gymnasium and PettingZoo conventions: registered ids, both env checkers, infos with a fixed
structure, state()/state_space (PettingZoo's state_test), render_test and performance_benchmark."""
from __future__ import annotations

import importlib.util

import importlib
import types
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from pettingzoo.test import render_test

import fiveplay_env
from fiveplay_env import games
from fiveplay_env import five_alive_v0, take5_v0
from fiveplay_env.registration import ILLEGAL_ACTION_PENALTY, IDS
from fiveplay_env.wrappers import IllegalActionPenalty, SingleAgentEnv

perf_module = importlib.import_module("pettingzoo.test.performance_benchmark")
pz_state = importlib.import_module("pettingzoo.test.state_test")  # the package re-exports a function of that name

KWARGS = {"fiveplay/Take5-v0": {"num_players": 4, "mode": "round", "opponents": "take5-safest"},
          "fiveplay/FiveAlive-v0": {"num_players": 3, "opponents": "five-alive-attacker"}}
OTHER = {"num_players": 2, "opponents": "random"}  # any other registered game (the toy game of tests/toy_game)


@pytest.mark.parametrize("env_id", sorted(IDS))
def test_gymnasium_make_and_both_checkers(env_id):
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    env = gymnasium.make(env_id, **KWARGS.get(env_id, OTHER))
    base = env.unwrapped
    assert isinstance(base, SingleAgentEnv) and base.game == IDS[env_id]
    assert base.num_players == KWARGS.get(env_id, OTHER)["num_players"] and base.metadata["render_fps"] == 1
    assert base.illegal_action_penalty == ILLEGAL_ACTION_PENALTY[base.game]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gym_check_env(base, skip_render_check=True)
        sb3_checker.check_env(base)
    # an unmasked action is answered by the documented penalty, not an exception
    obs, info = env.reset(seed=0)
    bad = int(np.flatnonzero(~base.action_masks())[0])
    obs, reward, terminated, truncated, info = env.step(bad)
    assert terminated and reward == ILLEGAL_ACTION_PENALTY[base.game] and "illegal_action" in info
    # the class itself stays loud; so does the id with the penalty switched off
    strict = gymnasium.make(env_id, illegal_action_penalty=None, **KWARGS.get(env_id, OTHER))
    strict.reset(seed=0)
    with pytest.raises(fiveplay_env.IllegalActionError):
        strict.step(int(np.flatnonzero(~strict.unwrapped.action_masks())[0]))
    with pytest.raises(ValueError, match="render_mode"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Gymnasium's own note that the mode is not in render_modes
        gymnasium.make(env_id, render_mode="rgb")
    drawn = "rgb_array" in games.get(base.game).make_env().metadata["render_modes"]  # (the toy game: text only)
    if drawn and importlib.util.find_spec("PIL") is not None:  # the picture Gymnasium's RecordVideo records
        pic = gymnasium.make(env_id, render_mode="rgb_array", **KWARGS.get(env_id, OTHER))
        pic.reset(seed=0)
        frame = pic.render()
        assert frame.shape == (480, 640, 3) and frame.dtype == np.uint8


@pytest.mark.parametrize("env_id", sorted(IDS))
def test_sb3_make_vec_env(env_id):
    env_util = pytest.importorskip("stable_baselines3.common.env_util")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Gymnasium's notes on SB3's first try, render_mode="rgb_array"
        venv = env_util.make_vec_env(env_id, n_envs=2, seed=0, env_kwargs=KWARGS.get(env_id, OTHER))
    obs = venv.reset()
    assert obs.shape == (2, venv.observation_space.shape[0])
    masks = np.stack(venv.env_method("action_masks"))
    obs, rewards, dones, infos = venv.step(np.array([np.flatnonzero(m)[0] for m in masks]))
    assert obs.shape[0] == 2 and len(infos) == 2


def _info_structure(info: dict) -> dict:
    out = {}
    for k, v in info.items():
        if isinstance(v, dict):
            out[k] = _info_structure(v)
        else:
            a = np.asarray(v)
            out[k] = (a.shape, a.dtype.kind if a.dtype.kind != "U" else "U")
    return out


@pytest.mark.parametrize(("make", "cfg"), [(take5_v0.env, {"num_players": 4, "mode": "round"}),
                                           (five_alive_v0.env, {"num_players": 4}),
                                           (five_alive_v0.env, {"num_players": 4, "variant": "teams"})])
def test_infos_have_the_same_keys_and_shapes_at_every_step(make, cfg):
    env = make(**cfg)
    rng = np.random.default_rng(0)
    for seed in range(3):
        env.reset(seed=seed)
        first = _info_structure(env.infos[env.agent_selection])
        for agent in env.agent_iter():
            obs, rew, term, trunc, info = env.last()
            assert _info_structure(info) == first
            assert all(isinstance(k, str) for k in info) and all(isinstance(k, str) for k in info.get("event", {}))
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_parallel_infos_have_the_same_keys_at_every_step_and_the_result_at_the_last():
    env = take5_v0.parallel_env(num_players=3, mode="round")
    obs, infos = env.reset(seed=1)
    keys = {a: set(i) for a, i in infos.items()}
    assert keys["player_0"] == {"score", "round_penalty", "round", "winner"}
    rng = np.random.default_rng(0)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    while env.agents:
        acts = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
        obs, rew, term, trunc, infos = env.step(acts)
        for a, r in rew.items():
            returns[a] += r
        assert {a: set(i) for a, i in infos.items()} == keys  # the last step included
        assert not any(i["winner"] for i in infos.values()) or all(term.values())
    assert {a: -i["score"] for a, i in infos.items()} == returns
    best = min(i["score"] for i in infos.values())
    assert {a for a, i in infos.items() if i["winner"]} == {a for a, i in infos.items() if i["score"] == best}


def _state_checks(env, n):
    env.reset(seed=0)
    s = env.state()
    assert s.dtype == np.float32 and s.shape == env.state_space.shape == (n * env.observation_space("player_0")["observation"].shape[0],)
    obs_dim = s.shape[0] // n
    for p, agent in enumerate(env.possible_agents):  # seat p's piece is its own observation
        np.testing.assert_array_equal(s[p * obs_dim:(p + 1) * obs_dim], env.observe(agent)["observation"])


def test_state_and_pettingzoo_state_test():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pettingzoo's generic advice (observations with zeros, ...)
        # the tests step unmasked random actions: the documented penalty wrapper ends the episode then
        pz_state.state_test(IllegalActionPenalty(take5_v0.env(num_players=4)), take5_v0.parallel_env(num_players=4), 50)
        fa = IllegalActionPenalty(five_alive_v0.env(num_players=4))
        pz_state.test_state_space(fa)  # 5 Alive has no parallel env: the AEC parts of state_test
        pz_state.test_state(fa, 50)
    _state_checks(take5_v0.env(num_players=3), 3)
    _state_checks(five_alive_v0.env(num_players=5), 5)
    penv = take5_v0.parallel_env(num_players=3)
    penv.reset(seed=2)
    aec = take5_v0.env(num_players=3)
    aec.reset(seed=2)
    np.testing.assert_array_equal(penv.state(), aec.state())  # same seed, same game, same state
    with pytest.raises(RuntimeError, match="reset"):
        take5_v0.env(num_players=3).state()


@pytest.mark.parametrize("module", [take5_v0, five_alive_v0])
def test_render_test_and_performance_benchmark(module, monkeypatch, capsys):
    render_test(lambda render_mode=None: module.env(num_players=3, render_mode=render_mode))
    # performance_benchmark runs for 5 s of wall clock; a fake clock (0.01 s per read) keeps it short
    clock = iter(np.arange(0.0, 1e6, 0.01))
    monkeypatch.setattr(perf_module, "time", types.SimpleNamespace(time=lambda: float(next(clock))))
    perf_module.performance_benchmark(module.env(num_players=3))
    out = capsys.readouterr().out
    assert "turns per second" in out and "Finished performance benchmark" in out


def test_skip_dead_steps_keeps_every_reward_and_never_selects_a_dead_agent():
    from fiveplay_env.wrappers import SkipDeadSteps

    for cfg in ({"num_players": 5}, {"num_players": 4, "reward": "win_loss+lives"}, {"num_players": 4, "variant": "teams"}):
        env = SkipDeadSteps(five_alive_v0.env(**cfg))
        rng = np.random.default_rng(2)
        for seed in range(3):
            env.reset(seed=seed)
            totals = dict.fromkeys(env.possible_agents, 0.0)
            while True:
                obs, rew, term, trunc, info = env.last()
                if term or trunc:  # only once the game is over
                    assert env.unwrapped.engine.is_over and all(env.terminations.values())
                    break
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
                assert set(env.rewards) == set(env.possible_agents)
                for a, r in env.rewards.items():
                    totals[a] += r
            state = env.unwrapped.engine.state
            expected = np.zeros(cfg["num_players"])
            if "lives" not in cfg.get("reward", ""):
                expected = np.asarray(state.result, float)
                assert [totals[a] for a in env.possible_agents] == list(expected)
            else:  # win/loss plus -1 per life lost: every life lost is counted, eliminated players' too
                lost = [5 - lv for lv in state.lives]
                assert [totals[a] for a in env.possible_agents] == [r - k for r, k in zip(state.result, lost)]
    with pytest.raises(ValueError, match="AECEnv"):
        SkipDeadSteps(take5_v0.parallel_env(num_players=3))
