"""Text and picture of a Take 5 table (the ``ansi`` and ``human`` render modes: text; ``rgb_array``: a picture)."""
from __future__ import annotations

from typing import Any

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


# --- the picture (render_mode="rgb_array"): Pillow, imported lazily by fiveplay_env.core.picture ---------

CARD_COLORS = {1: "#ffffff", 2: "#cfe3ff", 3: "#ffe9a8", 5: "#ffc2c2", 7: "#e2c4ff"}
"""A card's fill by its bull heads: the web app's (``experiments/web/static/take5.js`` ``T5_COLORS``)."""
BULL_INK = "#7a1414"
"""The bull heads' dots and the penalty text (take5.js)."""
CARD_W, CARD_H = 44, 64
HAND_W, HAND_H = 50, 72


def card_places(state: Take5State, viewer: int | None = None) -> list[tuple[str, int, tuple[int, int, int, int]]]:
    """Where ``table_image`` draws each card: ``(place, card id, (x0, y0, x1, y1))``, place ``"row:R"``,
    ``"trick"`` or ``"hand"`` (the hand of ``viewer``, default the acting player; none from above)."""
    out: list[tuple[str, int, tuple[int, int, int, int]]] = []
    for r, row in enumerate(state.rows):
        y = 40 + r * 76
        for i, c in enumerate(row):
            x = 96 + i * 52
            out.append((f"row:{r}", int(c), (x, y, x + CARD_W, y + CARD_H)))
    for i, c in enumerate(state.trick_cards):
        x, y = 440 + (i % 5) * 38, 301 + (i // 5) * 44
        out.append(("trick", int(c), (x, y, x + 32, y + 41)))
    who = state.current if viewer is None else viewer
    if 0 <= who < state.num_players:
        for i, c in enumerate(state.hand(who)):
            x = 14 + i * 56
            out.append(("hand", int(c), (x, 398, x + HAND_W, 398 + HAND_H)))
    return out


def _card(canvas: Any, c: int, box: tuple[int, int, int, int]) -> None:
    """Card id ``c`` as the web app draws it: its bull-head colour, the heads as dots, the number."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    bulls = BULL[c]
    canvas.rect(box, fill=CARD_COLORS[bulls], outline="#4a4a4a", radius=max(3, w // 8), width=2)
    step = min(w * 0.15, (w - 8) / bulls)  # (seven heads fit; the dots never touch)
    r = min(w * 0.05, step * 0.32)
    for i in range(bulls):
        canvas.circle(x0 + w / 2 + (i - (bulls - 1) / 2) * step, y0 + h * 0.15, r, BULL_INK)
    canvas.text((x0 + w / 2, y0 + h * 0.58), str(c + 1), max(10, int(h * 0.32)), "#1d1d1d", "mm")


def table_image(state: Take5State, viewer: int | None = None) -> Any:
    """The table as ``uint8[480, 640, 3]`` (``render_mode="rgb_array"``): the four rows with each row's
    bull heads, the cards revealed this trick, every player's score, round penalty and hand size (the
    acting one marked), and the hand of ``viewer`` (default: the acting player; the only hidden cards
    shown). Needs Pillow (``fiveplay_env.core.picture``)."""
    from fiveplay_env.core import picture as pic

    cv = pic.Canvas()
    n = state.num_players
    if state.phase == OVER:
        low = min(state.scores)
        won = ", ".join(f"player_{p}" for p in range(n) if state.scores[p] == low)
        cv.title(f"Take 5 - game over after {state.round} round(s): {won} wins with {low}")
    else:
        cv.title(f"Take 5 - round {state.round + 1}, trick {min(state.trick + 1, 10)}/10 - "
                 f"{PHASE_NAMES[state.phase]}: player_{state.current}")
    places = card_places(state, viewer)
    for r, row in enumerate(state.rows):
        y = 36 + r * 76
        cv.rect((8, y, 424, y + 72), fill=pic.PANEL, outline=pic.LINE, radius=6)
        cv.text((16, y + 22), f"row {r + 1}", 15, pic.INK, "lm")
        bulls = sum(BULL[c] for c in row)
        cv.text((16, y + 46), f"{bulls} bull{'s' if bulls != 1 else ''}", 13, BULL_INK, "lm")
    for place, c, box in places:
        if place.startswith("row:"):
            _card(cv, c, box)
    cv.rect((432, 36, 632, 276), fill=pic.PANEL, outline=pic.LINE, radius=6)
    cv.text((440, 48), "player", 12, pic.MUTED, "lm")
    for x, head in ((540, "score"), (585, "round"), (622, "hand")):
        cv.text((x, 48), head, 12, pic.MUTED, "rm")
    for p in range(n):
        y = 60 + p * 21
        if p == state.current and state.phase != OVER:
            cv.rect((436, y, 628, y + 20), fill=pic.ACCENT_BG, radius=3)
        chosen = "*" if state.phase == PLAY and state.pending[p] >= 0 else ""
        cv.text((440, y + 10), f"player_{p}", 13, pic.ACCENT if p == state.current else pic.INK, "lm")
        cv.text((540, y + 10), str(state.scores[p]), 13, pic.INK, "rm")
        cv.text((585, y + 10), f"+{state.round_pen[p]}" if state.round_pen[p] else "0", 13,
                BULL_INK if state.round_pen[p] else pic.INK, "rm")
        cv.text((622, y + 10), f"{state.hand_size[p]}{chosen}", 13, pic.INK, "rm")
    cv.rect((432, 282, 632, 388), fill=pic.PANEL, outline=pic.LINE, radius=6)
    if state.trick_cards:
        cv.text((440, 292), "revealed this trick", 11, pic.MUTED, "lm")
    elif state.phase == 0:
        cv.text((440, 296), f"draft: {int(state.pool[:104].sum())} cards in the pool", 13, pic.MUTED, "lm")
    else:
        cv.text((440, 296), "no card revealed yet", 13, pic.MUTED, "lm")
    for place, c, box in places:
        if place == "trick":
            _card(cv, c, box)
    who = state.current if viewer is None else viewer
    if 0 <= who < n:
        cv.text((14, 382), f"hand of player_{who}", 14, pic.INK, "lm")
        for place, c, box in places:
            if place == "hand":
                _card(cv, c, box)
    return cv.array()
