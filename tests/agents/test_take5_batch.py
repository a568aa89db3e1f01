"""take5-safest's batched actions equal its one-at-a-time actions, decision by decision."""
from __future__ import annotations

import numpy as np
import pytest

from fiveplay_env.agents.take5.batch import safest_actions
from fiveplay_env.agents.take5.heuristics import SafestAgent
from fiveplay_env import vector


@pytest.mark.parametrize("config", [
    {"num_players": 4},
    {"num_players": 2, "mode": "round"},
    {"num_players": 7, "row_pick": "player"},
    {"num_players": 5, "professional": True, "draft": True},
    {"num_players": 6, "professional": True, "mode": "round"},
])
def test_batched_safest_equals_scalar(config: dict) -> None:
    env = vector.make_vec("take5", 64, seed=3, **config)
    obs, mask, _ = env.reset(3)
    agent = SafestAgent(seed=0)
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(120):
        fast = safest_actions(obs, mask)
        slow = np.array([agent.act(o, m) for o, m in zip(obs, mask)])
        np.testing.assert_array_equal(fast, slow)
        checked += len(obs)
        # mix in random legal play so that many kinds of situations arise
        rand = vector.random_actions(mask, rng)
        acts = np.where(rng.random(len(obs)) < 0.5, fast, rand)
        obs, mask, _, _, _, _ = env.step(acts)
    assert checked == 120 * 64


def test_act_batch_uses_batched_path_and_checks_input() -> None:
    agent = SafestAgent(seed=0)
    with pytest.raises(ValueError, match="expected every mask to have a legal action"):
        agent.act_batch(np.zeros((1, 860), np.float32), np.zeros((1, 109), np.int8))
    with pytest.raises(ValueError, match="Take 5 observation"):
        safest_actions(np.zeros((1, 10), np.float32), np.ones((1, 109), np.int8))
