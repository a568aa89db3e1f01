"""Game facts declared once: spaces, tests and agents derive from these records."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GameSpec:
    """Facts about one game that do not depend on the config.

    Attributes:
        name: the environment name, e.g. ``"take5_v0"``.
        min_players, max_players: the allowed ``num_players`` range.
        num_actions: size of the action space (and of every action mask).
        version: bumped whenever observations, actions or rules change meaning.
    """

    name: str
    min_players: int
    max_players: int
    num_actions: int
    version: int = 0

    def agents(self, num_players: int) -> list[str]:
        return [f"player_{i}" for i in range(num_players)]
