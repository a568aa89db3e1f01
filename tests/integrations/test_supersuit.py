"""SuperSuit's SB3 vector env over the Take 5 parallel env (``sb3_vec_env``): masks for MaskablePPO,
final results that survive SuperSuit's autoreset, and a short MaskablePPO run."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("supersuit")
pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported  # noqa: E402

from fiveplay_env import take5_v0  # noqa: E402
from fiveplay_env.integrations.supersuit import sb3_vec_env  # noqa: E402


def test_masks_and_final_results_through_supersuit():
    n = 3
    venv = sb3_vec_env(take5_v0.parallel_env(num_players=n, mode="round"), num_vec_envs=2, seed=5)
    assert venv.num_envs == 2 * n and is_masking_supported(venv)
    obs = venv.reset()
    assert obs.shape == (2 * n, venv.observation_space.shape[0]) and obs.dtype == np.float32
    rng = np.random.default_rng(0)
    returns = np.zeros(2 * n)
    finals = 0
    for _ in range(60):
        masks = get_action_masks(venv)
        assert masks.shape == (2 * n, 109) and masks.any(axis=1).all()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = venv.step(actions)
        dones = dones.astype(bool)
        returns += rewards
        for i in np.flatnonzero(dones):
            # the reset infos of the next game are merged in, but the final keys are the last step's
            assert infos[i]["final_score"] == -returns[i] and infos[i]["score"] == 0
            assert isinstance(infos[i]["final_winner"], bool)
            finals += 1
            returns[i] = 0
        for i in np.flatnonzero(~dones):
            assert "final_score" not in infos[i]
    assert finals >= 2 * n  # every seat of both copies finished at least one game (10 tricks a round)


def test_maskable_ppo_trains_on_the_supersuit_env():
    venv = sb3_vec_env(take5_v0.parallel_env(num_players=3, mode="round"), num_vec_envs=1, seed=0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=256, batch_size=256, n_epochs=1, seed=0,
                        policy_kwargs={"net_arch": [32]})
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(2_000)
    assert model.num_timesteps >= 2_000
    assert any(not np.array_equal(a.numpy(), b.detach().numpy()) for a, b in zip(before, model.policy.parameters()))
