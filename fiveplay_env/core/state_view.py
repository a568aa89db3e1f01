"""The full state for centralised critics (PettingZoo's ``state()`` / ``state_space``), shared by the
games' environments.

``state()`` is every player's observation vector, concatenated in seat order (seat 0 first): float32
[n * obs_dim], each piece in its seat's own documented layout (``<game>/observation.py``, relative to
that seat). Together they hold every hand and every public fact (rows or pile, scores or lives, whose
turn it is), which is what a centralised critic (MAPPO-style) may see during training; only the order of
the undealt draw pile, a chance outcome, is left out. ``state_space`` is the matching ``Box``: the
observation bounds tiled n times.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
from gymnasium import spaces


def state_space(observation: spaces.Box, num_players: int) -> spaces.Box:
    """``Box`` of the concatenated observations of ``num_players`` seats."""
    return spaces.Box(np.tile(observation.low, num_players), np.tile(observation.high, num_players),
                      dtype=np.float32)


def full_state(observe: Callable[[int], np.ndarray], num_players: int, engine: object) -> np.ndarray:
    """float32 [n * obs_dim]: ``observe(p)`` for every seat p, in seat order; a clear error before reset."""
    if engine is None:
        raise RuntimeError("state: call reset() first")
    return np.concatenate([observe(p) for p in range(num_players)]).astype(np.float32, copy=False)
