"""Helpers shared by the tests."""
from __future__ import annotations

import numpy as np


def pick(mask: np.ndarray, rng: np.random.Generator) -> int:
    """A uniformly random legal action from an action mask."""
    legal = np.flatnonzero(mask)
    assert len(legal) > 0, "the acting player's mask is empty"
    return int(legal[rng.integers(len(legal))])
