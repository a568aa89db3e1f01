"""The random agent: a uniformly random legal action, for either game.

The sampler is the cheap one: the legal action with the largest uniform
noise value (``argmax(where(mask, noise, -1))``), one vectorised call for a whole batch; each legal
action is equally likely.
"""
from __future__ import annotations

import numpy as np

from fiveplay_env.agents.base import Agent, check_batch, check_mask


class RandomAgent(Agent):
    """Plays a uniformly random legal action; ignores the observation."""

    name = "random"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = check_mask(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        return int(legal[self.rng.integers(len(legal))])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        _, m = check_batch(observations, masks)
        noise = self.rng.random(m.shape)
        return np.argmax(np.where(m != 0, noise, -1.0), axis=1).astype(np.int64)
