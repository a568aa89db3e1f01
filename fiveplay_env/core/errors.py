"""Errors shared by both games, and the one rule for what counts as an action id."""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

ACTION_FORMS = "an int, a numpy integer or a 0-d integer array"
"""The forms an action id may take everywhere an env or engine takes one action (``action_id``)."""


def action_id(action: object) -> int | None:
    """``action`` as a Python int when it has one of the accepted forms (``ACTION_FORMS``): an int, a
    numpy integer scalar (``np.int64(3)``), or a 0-d integer array (``np.array(3)``); never a bool. None
    for anything else: a float (even ``3.0``), a bool, a string, or an array with a dimension
    (``np.array([3])`` is refused: a batch of one is not one action)."""
    if type(action) is int:
        return action
    if isinstance(action, (bool, np.bool_)):
        return None
    if isinstance(action, (int, np.integer)):
        return int(action)
    if isinstance(action, np.ndarray) and action.ndim == 0 and action.dtype.kind in "iu":
        return int(action)
    return None


def _describe(action: object) -> str:
    if isinstance(action, np.ndarray):
        return f"an array of shape {action.shape} and dtype {action.dtype}"
    text = repr(action)
    return text if len(text) <= 80 else text[:77] + "..."


class IllegalActionError(ValueError):
    """An action that is not legal for the acting player right now, or not an action id at all.

    Raised before anything changes: the game state is exactly as it was before the call.
    """

    def __init__(self, agent: str, action: object, legal: Iterable[int]) -> None:
        self.agent = agent
        self.action = action
        self.legal = [int(a) for a in legal]
        if action_id(action) is None and not isinstance(action, str):  # not even an id: say which forms are
            super().__init__(f"illegal action for {agent}: expected one of {self.legal} as an action id "
                             f"({ACTION_FORMS}), got {_describe(action)}")
        else:
            super().__init__(
                f"illegal action for {agent}: expected one of {self.legal}, got {_describe(action)}"
            )


class ResetNeededError(RuntimeError):
    """A call that needs a game in progress: ``step``, ``last`` or ``observe`` before the first ``reset()``,
    or ``step`` once the game is over and every agent is done. Nothing changes; call ``reset()``."""


class CheckpointError(ValueError):
    """A checkpoint that is missing, truncated, corrupt or made for another configuration."""
