"""five-alive-attacker's batched actions equal its one-at-a-time actions, decision by decision."""
from __future__ import annotations

import numpy as np
import pytest

from fiveplay_env.agents.five_alive.batch import attacker_actions
from fiveplay_env.agents.five_alive.heuristics import AttackerAgent
from fiveplay_env import vector


@pytest.mark.parametrize("config", [
    {"num_players": 4},
    {"num_players": 2},
    {"num_players": 6, "variant": "sudden_death"},
    {"num_players": 4, "variant": "teams", "bomb_zero_optional": True},
])
def test_batched_attacker_equals_scalar(config: dict) -> None:
    env = vector.make_vec("five_alive", 64, seed=5, **config)
    obs, mask, _ = env.reset(5)
    agent = AttackerAgent(seed=0)
    rng = np.random.default_rng(1)
    for _ in range(150):
        fast = attacker_actions(obs, mask)
        slow = np.array([agent.act(o, m) for o, m in zip(obs, mask)])
        np.testing.assert_array_equal(fast, slow)
        acts = np.where(rng.random(len(obs)) < 0.5, fast, vector.random_actions(mask, rng))
        obs, mask, _, _, _, _ = env.step(acts)


def test_inconsistent_mask_falls_back_like_scalar() -> None:
    env = vector.make_vec("five_alive", 16, seed=2, num_players=3)
    obs, mask, _ = env.reset(2)
    rng = np.random.default_rng(0)
    # masks that disagree with the observation: random legal sets
    bad = (rng.random(mask.shape) < 0.3).astype(np.int8)
    bad[:, 0] = 1
    agent = AttackerAgent(seed=0)
    np.testing.assert_array_equal(attacker_actions(obs, bad), [agent.act(o, m) for o, m in zip(obs, bad)])
    with pytest.raises(ValueError, match="5 Alive observation"):
        attacker_actions(np.zeros((1, 7), np.float32), np.ones((1, 19), np.int8))
