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


def table_text(state: Take5State, viewer: int | None = None) -> str:
    """The table for a replay: ``render_text`` with ``viewer``'s hand (a seat's view), or, from above
    (``viewer=None``), every player's hand."""
    if viewer is not None:
        return render_text(state, viewer)
    text = render_text(state, -1)
    hands = [f"  player_{p}: " + (" ".join(card(c) for c in state.hand(p)) or "-") for p in range(state.num_players)]
    return text + "\nhands:\n" + "\n".join(hands)


def new_section(before: Take5State, after: Take5State) -> bool:
    """Whether a replay shows the table again after this step: a trick (or the round, or the game) ended."""
    return (after.trick, after.round, after.phase == OVER) != (before.trick, before.round, before.phase == OVER)


def describe_step(before: Take5State, action: int, after: Take5State, viewer: int | None = None) -> str:
    """One step of a replay in words: who did what, then what it caused (the trick revealed, the bull
    heads taken, the round's end). ``viewer``: a seat's view (the other players' cards are hidden until
    the trick reveals them), or ``None``, from above."""
    p = before.current
    who = f"player_{p}"
    if before.phase == ROW_CHOICE:
        row = before.rows[action - 104] if 104 <= action < 108 else []
        text = f"{who} takes row {action - 104} ({' '.join(card(c) for c in row)}: {sum(BULL[c] for c in row)} bulls)"
    elif before.phase == PLAY:
        text = f"{who} chooses {card(action)}" if viewer is None or viewer == p else f"{who} chooses a card"
    elif before.phase == 0:
        text = f"{who} drafts {card(action)}"
    else:
        text = f"{who}: action {action}"
    notes = []
    if after.phase == ROW_CHOICE and before.phase == PLAY:
        notes.append("revealed: " + " ".join(card(c) for c in after.trick_cards)
                     + f"; player_{after.current} must take a row")
    elif before.phase == PLAY and all(c >= 0 for c in before.pending[:p] + before.pending[p + 1:]) \
            and (after.trick != before.trick or after.round != before.round or after.phase == OVER):
        shown = [card(c) for c in sorted([*[c for c in before.pending if c >= 0], action])]
        notes.append("revealed: " + " ".join(shown))
    took = [(q, b) for q, b in enumerate(_taken(before, after)) if b]
    notes += [f"player_{q} takes {b} bull{'s' if b != 1 else ''}" for q, b in took]
    if after.round != before.round or (after.phase == OVER and before.phase != OVER):
        notes.append("round over; scores " + " ".join(str(s) for s in after.scores))
    return text + (": " + "; ".join(notes) if notes else "")


def _taken(before: Take5State, after: Take5State) -> list[int]:
    """Bull heads each player took in one step (a round's end moves the round's penalties into the scores)."""
    if after.round == before.round and after.phase != OVER:
        return [a - b for a, b in zip(after.round_pen, before.round_pen)]
    return [s1 - s0 - r0 for s1, s0, r0 in zip(after.scores, before.scores, before.round_pen)]
