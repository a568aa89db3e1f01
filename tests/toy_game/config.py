"""The toy game's config: frozen and validated like the real games' configs."""
from __future__ import annotations

from dataclasses import dataclass

from fiveplay_env.core.config import check_int, set_fields

MIN_PLAYERS, MAX_PLAYERS = 2, 4
MAX_CARDS = 8


@dataclass(frozen=True)
class ToyBidConfig:
    """Attributes: ``num_players`` (2..4) and ``cards`` (K, 3..8: bid cards and prizes 1..K)."""

    num_players: int = 2
    cards: int = 5

    def __post_init__(self) -> None:
        set_fields(self, num_players=check_int("num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS),
                   cards=check_int("cards", self.cards, 3, MAX_CARDS))
