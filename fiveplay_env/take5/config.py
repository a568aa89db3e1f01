"""Take 5 configuration: every field of docs/rules.md section 1, frozen and validated."""
from __future__ import annotations

from dataclasses import dataclass

from fiveplay_env.core.config import check_bool, check_choice, check_int, set_fields, show_value

MIN_PLAYERS, MAX_PLAYERS = 2, 10
PROFESSIONAL_MAX_PLAYERS = 6
ROW_PICKS = ("player", "min_bullheads")


@dataclass(frozen=True)
class Take5Config:
    """The rules in force for one Take 5 game (docs/rules.md section 1; defaults are the [D] choices).

    Attributes:
        num_players: 2..10 (2..6 with ``professional``).
        row_pick: who chooses the row a too-low card takes: ``"player"`` (a decision of its own,
            actions 104..107) or ``"min_bullheads"`` (automatic: fewest bull heads, then fewer cards,
            then the lowest row index).
        end_score: the threshold that ends a game in ``mode="game"``.
        end_inclusive: True: the game ends when a score is >= end_score; False: > end_score.
        mode: ``"game"`` (rounds until the threshold), ``"round"`` (one round) or ``"rounds:K"``
            (exactly K rounds, K >= 1).
        professional: use only cards 1..10n+4, so every card in play is known.
        draft: (professional only) players draft their hands from the face-up cards, one pick at a
            time in seat order; the 4 cards left start the rows in ascending order.
    """

    num_players: int = 4
    row_pick: str = "player"
    end_score: int = 66
    end_inclusive: bool = True
    mode: str = "game"
    professional: bool = False
    draft: bool = False

    def __post_init__(self) -> None:
        # each value is validated and stored as a plain Python value (numpy scalars are accepted)
        set_fields(
            self,
            num_players=check_int("num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS),
            row_pick=check_choice("row_pick", self.row_pick, ROW_PICKS),
            end_score=check_int("end_score", self.end_score, 1),
            end_inclusive=check_bool("end_inclusive", self.end_inclusive),
            professional=check_bool("professional", self.professional),
            draft=check_bool("draft", self.draft),
        )
        _parse_mode(self.mode)
        set_fields(self, mode=str(self.mode))
        if self.professional and self.num_players > PROFESSIONAL_MAX_PLAYERS:
            raise ValueError(
                f"num_players: the professional variant is for 2..{PROFESSIONAL_MAX_PLAYERS} players, "
                f"got {self.num_players}"
            )
        if self.draft and not self.professional:
            raise ValueError("draft: expected False unless professional=True (the draft is a professional rule), got True")

    @property
    def num_rounds(self) -> int | None:
        """Rounds in the game: 1 for ``round``, K for ``rounds:K``, None for ``game``."""
        return _parse_mode(self.mode)

    @property
    def deck_size(self) -> int:
        """Cards in play: 104, or 10n+4 in the professional variant."""
        return 10 * self.num_players + 4 if self.professional else 104


def _parse_mode(mode: object) -> int | None:
    if isinstance(mode, str):
        if mode == "game":
            return None
        if mode == "round":
            return 1
        if mode.startswith("rounds:"):
            k = mode[len("rounds:"):]
            if k.isascii() and k.isdigit() and int(k) >= 1:  # ASCII digits only ("²" is a digit to str)
                return int(k)
    raise ValueError(f"mode: expected 'game', 'round' or 'rounds:K' with K >= 1, got {show_value(mode)}")


PRESETS: dict[str, Take5Config] = {
    "standard": Take5Config(),
    "single_round": Take5Config(mode="round"),
    "auto_rows": Take5Config(row_pick="min_bullheads"),
    "professional": Take5Config(professional=True),
    "professional_draft": Take5Config(professional=True, draft=True),
}
