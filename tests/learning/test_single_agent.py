"""The Gymnasium single-agent view, and sb3-contrib's MaskablePPO training on it unchanged."""
from __future__ import annotations

import numpy as np
import pytest

from fiveplay_env.core.errors import IllegalActionError
from fiveplay_env.wrappers import SingleAgentEnv


def _play(env: SingleAgentEnv, seed: int) -> tuple[float, list[int], dict]:
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total, acts = 0.0, []
    while True:
        legal = np.flatnonzero(env.action_masks())
        assert legal.size and np.array_equal(info["action_mask"].astype(bool), env.action_masks())
        a = int(rng.choice(legal))
        acts.append(a)
        obs, r, term, trunc, info = env.step(a)
        assert env.observation_space.contains(obs)
        total += r
        if term or trunc:
            assert not env.action_masks().any()
            return total, acts, info


def test_take5_episode_return_is_minus_the_score_and_seeds_repeat():
    env = SingleAgentEnv("take5", opponents="take5-safest", num_players=4, mode="round")
    total, acts, info = _play(env, 3)
    assert total == -info["score"] and len(acts) >= 10
    assert _play(env, 3)[:2] == (total, acts)       # same seed, same episode (seat, deal, opponents)
    assert {SingleAgentEnv("take5", seat="random", num_players=4, mode="round").reset(seed=s)[1]["seat"]
            for s in range(12)} == {0, 1, 2, 3}


def test_five_alive_and_fixed_seat_and_errors():
    env = SingleAgentEnv("five_alive", opponents=["random", "random"], seat=2, num_players=3)
    total, _, info = _play(env, 0)
    assert info["seat"] == 2 and total in (-1.0, 1.0)
    env.reset(seed=1)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    with pytest.raises(ValueError, match="seat"):
        SingleAgentEnv("take5", seat=4, num_players=4)
    with pytest.raises(ValueError, match="opponents"):
        SingleAgentEnv("take5", opponents=["random"], num_players=4)
    with pytest.raises(ValueError, match="game"):
        SingleAgentEnv("chess")


def test_gymnasium_env_checker():
    from gymnasium.utils.env_checker import check_env

    check_env(SingleAgentEnv("take5", opponents="random", illegal_action_penalty=-10.0, num_players=3, mode="round"),
              skip_render_check=True)


def test_maskable_ppo_trains_on_it():
    sb3 = pytest.importorskip("sb3_contrib")
    env = SingleAgentEnv("take5", opponents="random", num_players=4, mode="round")
    model = sb3.MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=64, n_epochs=2, seed=0, verbose=0,
                            policy_kwargs={"net_arch": [64]})
    model.learn(2048)
    assert model.num_timesteps >= 2048
    obs, _ = env.reset(seed=9)
    for _ in range(10):
        a, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
        assert env.action_masks()[int(a)]
        obs, _, term, trunc, _ = env.step(int(a))
        if term or trunc:
            break
