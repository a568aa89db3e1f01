"""Take 5 observations as a network trained for another player count reads them (``fiveplay_env.agents.take5.KIT``'s
``adapt_observation``; the shipped policies play 2..10 players this way, ``fiveplay_env.agents.learned.pretrained``)."""
from __future__ import annotations

import numpy as np

from fiveplay_env.take5 import observation as t5obs


def adapt_take5_observation(obs: np.ndarray, n: int, k: int) -> np.ndarray:
    """Take 5 observations ``[B, 848 + 3n + ...]`` of n players rewritten for a k-player network: scores,
    round penalties (relative seats: self first) kept for self and the next k-1 seats or zero-padded;
    the seat one-hot mapped to ``min(seat, k-1)``; phase and tricks kept; with ``draft=True``, the other
    players' public hands (the trailing ``others`` piece) are dropped, as the shipped policies were
    trained without a draft."""
    S = t5obs.SCORES
    if n == k:
        size = t5obs.observation_size(k)
        return obs if obs.shape[1] == size else obs[:, :size]  # a draft's trailing public hands dropped
    B = obs.shape[0]
    out = np.zeros((B, t5obs.observation_size(k)), np.float32)
    out[:, :S] = obs[:, :S]
    m = min(n, k)
    out[:, S:S + m] = obs[:, S:S + m]                     # scores
    out[:, S + k:S + k + m] = obs[:, S + n:S + n + m]     # round penalties
    seat = obs[:, S + 2 * n:S + 3 * n].argmax(axis=1)
    out[np.arange(B), S + 2 * k + np.minimum(seat, k - 1)] = 1.0
    out[:, S + 3 * k:] = obs[:, S + 3 * n:S + 3 * n + 4]  # phase (3), tricks (1); a draft's public hands dropped
    return out


def adapt_observation(obs: np.ndarray, num_players: int) -> np.ndarray:
    """Observations ``obs`` [B, D] of any Take 5 player count (or with a draft's public hands) as a network
    trained for ``num_players`` players reads them (``ValueError`` for a size no Take 5 observation has)."""
    n, _ = t5obs.players_of_size(obs.shape[1])
    return adapt_take5_observation(obs, n, int(num_players))


__all__ = ["adapt_observation", "adapt_take5_observation"]
