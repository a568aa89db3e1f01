"""The win option of the reward: w * (win share - 1/n) added at each learner seat's last decision."""
from __future__ import annotations

import numpy as np
import pytest

from fiveplay_env.agents.learned.algorithms.ppo import PPOConfig

from fiveplay_env.agents.learned.trainer import Trainer


def _batch(win_reward: float) -> dict:
    cfg = PPOConfig(game="take5", config={"num_players": 4, "mode": "round"}, opponents=[("self", 1.0)],
                      total_decisions=10_000, num_envs=8, rollout_steps=100, hidden=(32,), gamma=1.0,
                      gae_lambda=1.0, win_reward=win_reward, seed=3)
    return Trainer(cfg).collect()["batch"]


def test_win_bonus_reaches_the_returns_of_finished_games() -> None:
    a, b = _batch(0.0), _batch(5.0)
    assert np.array_equal(a["act"], b["act"])  # same play: only the rewards differ
    d = b["ret"] - a["ret"]  # gamma = lambda = 1: the bonus carries back to every decision of the game
    shares = {5.0 * (s - 0.25) for s in (0.0, 1.0, 1 / 2, 1 / 3, 1 / 4)}
    assert all(min(abs(x - s) for s in shares) < 1e-4 for x in d)
    assert (np.abs(d) > 1e-4).sum() > 100  # games ended in the rollout: winners up, the others down
    assert d.max() > 0 > d.min()


def test_win_reward_is_validated() -> None:
    with pytest.raises(ValueError, match="win_reward"):
        PPOConfig(game="take5", config={}, opponents=[("self", 1.0)], total_decisions=10, win_reward=-1.0)
