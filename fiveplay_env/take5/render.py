"""Text picture of a Take 5 table (the ``ansi`` and ``human`` render modes)."""
from __future__ import annotations

from fiveplay_env.take5.state import BULL, OVER, PHASE_NAMES, PLAY, ROW_CHOICE, Take5State


def card(c: int) -> str:
    """A card as ``number:bullheads``, e.g. ``55:7``."""
    return f"{c + 1}:{BULL[c]}"


def render_text(state: Take5State, viewer: int | None = None) -> str:
    """The four rows with each card's bull heads, every player's score and round penalty, and the
    hand of ``viewer`` (default: the acting player)."""
    n = state.num_players
    lines = []
    if state.phase == OVER:
        low = min(state.scores)
        won = ", ".join(f"player_{p}" for p in range(n) if state.scores[p] == low)
        lines.append(f"Take 5 - game over after {state.round} round(s); winner(s): {won} with {low}")
    else:
        lines.append(
            f"Take 5 - round {state.round + 1}, trick {min(state.trick + 1, 10)}/10, "
            f"{PHASE_NAMES[state.phase]}: player_{state.current} to act"
        )
    if state.trick_cards and state.phase == ROW_CHOICE:
        lines.append("revealed this trick: " + " ".join(card(c) for c in state.trick_cards))
    for r, row in enumerate(state.rows):
        bulls = sum(BULL[c] for c in row)
        lines.append(f"  row {r}: " + " ".join(f"{card(c):>6}" for c in row).ljust(36) + f" [{bulls} bulls]")
    lines.append("  player     score  round  hand")
    for p in range(n):
        mark = "*" if p == state.current else " "
        chosen = " (chosen)" if state.phase == PLAY and state.pending[p] >= 0 else ""
        lines.append(f"{mark} player_{p:<3} {state.scores[p]:>5} {state.round_pen[p]:>6} {state.hand_size[p]:>5}{chosen}")
    who = state.current if viewer is None else viewer
    if who >= 0:
        lines.append(f"hand of player_{who}: " + " ".join(card(c) for c in state.hand(who)))
    if state.phase == 0:
        import numpy as np
        lines.append("draft pool: " + " ".join(card(int(c)) for c in np.flatnonzero(state.pool[:104])))
    return "\n".join(lines)
