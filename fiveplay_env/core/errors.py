"""Errors shared by both games."""
from __future__ import annotations

from collections.abc import Iterable


class IllegalActionError(ValueError):
    """An action that is not legal for the acting player right now.

    Raised before anything changes: the game state is exactly as it was before the call.
    """

    def __init__(self, agent: str, action: object, legal: Iterable[int]) -> None:
        self.agent = agent
        self.action = action
        self.legal = [int(a) for a in legal]
        super().__init__(
            f"illegal action for {agent}: expected one of {self.legal}, got {action!r}"
        )


class ResetNeededError(RuntimeError):
    """A call that needs a game in progress: ``step``, ``last`` or ``observe`` before the first ``reset()``,
    or ``step`` once the game is over and every agent is done. Nothing changes; call ``reset()``."""


class CheckpointError(ValueError):
    """A checkpoint that is missing, truncated, corrupt or made for another configuration."""
