"""Text and picture of a 5 Alive table (the ``ansi`` and ``human`` render modes: text; ``rgb_array``: a picture)."""
from __future__ import annotations

from typing import Any

from fiveplay_env.five_alive.config import KIND_NAMES, LIVES, NUM_KINDS
from fiveplay_env.five_alive.events import last_event
from fiveplay_env.five_alive.state import BOMB_ANSWER, OVER, FiveAliveState


def hand_text(counts: list[int]) -> str:
    """A hand by kind, e.g. ``0 x2, 5, Reverse, Skip x2`` (``-`` when empty)."""
    parts = [KIND_NAMES[k] + (f" x{c}" if c > 1 else "") for k, c in enumerate(counts) if c]
    return ", ".join(parts) if parts else "-"


def describe_event(state: FiveAliveState) -> str:
    """The last step in words, e.g. ``player_1 played Draw 2: player_2 drew 2; T = 14``."""
    ev = last_event(state)
    if ev["player"] < 0:
        return "new game"
    who = f"player_{ev['player']}"
    if ev["bomb_answer"]:
        text = f"{who} answered the Bomb: {ev['card']}"
    elif ev["card"] == "BUST":
        text = f"{who} went bust"
    else:
        text = f"{who} played {ev['card']}"
    notes = []
    if ev["reshuffled"]:
        notes.append(f"{ev['reshuffled']} cards reshuffled into the draw pile")
    notes += [f"player_{q} drew {c}" for q, c in ev["drawn"].items()]
    notes += [f"player_{q} discarded a 0" for q in ev["zeros_discarded"]]
    if ev["went_out"]:  # who went out first: the lives lost at the round's end follow from it
        notes.append("went out: " + ", ".join(f"player_{q}" for q in ev["went_out"]) + "; the round ends")
    notes += [f"player_{q} lost {c} li{'fe' if c == 1 else 'ves'}" for q, c in ev["lives_lost"].items()]
    notes += [f"player_{q} is eliminated" for q in ev["eliminated"]]
    if ev["dealer"] is not None:
        notes.append(f"player_{ev['dealer']} deals a new round")
    if state.phase == BOMB_ANSWER:
        notes.append(f"player_{state.current} must answer the Bomb (discard a 0 or lose a life)")
    if ev["game_over"]:
        notes.append("game over")
    else:
        notes.append(f"T = {ev['total']}")
    return text + ": " + "; ".join(notes)


def render_text(state: FiveAliveState, viewer: int | None = None, teams: bool = False) -> str:
    """T, direction, whose turn, each player's lives and hand size, the hand of ``viewer`` (default:
    the acting player) by kind, the piles and the last event."""
    n = state.num_players
    lines = []
    direction = "clockwise" if state.direction == 1 else "counter-clockwise"
    if state.phase == OVER:
        won = ", ".join(f"player_{p}" for p in state.winners)
        lines.append(f"5 Alive - game over in round {state.round + 1}; winner(s): {won}")
    else:
        doing = "answers the Bomb" if state.phase == BOMB_ANSWER else "to play"
        lines.append(f"5 Alive - round {state.round + 1}, T = {state.total}, {direction}: "
                     f"player_{state.current} {doing}")
    lines.append("  player     team  lives  cards" if teams else "  player     lives  cards")
    for p in range(n):
        mark = "*" if p == state.current else " "
        team = f" {'AB'[p % 2]:>4}" if teams else ""
        status = "" if state.alive[p] else "  (eliminated)"
        lines.append(f"{mark} player_{p:<3}{team} {state.lives[p]:>5} {state.hand_size[p]:>6}{status}")
    top = KIND_NAMES[state.top] if state.top >= 0 else "-"
    lines.append(f"draw pile: {len(state.draw)} cards; discard pile: {state.discard_size} cards, top: {top}")
    who = state.current if viewer is None else viewer
    if 0 <= who < n:
        lines.append(f"hand of player_{who}: {hand_text(state.hands[who][:NUM_KINDS])}")
    lines.append("last: " + describe_event(state))
    return "\n".join(lines)


def table_text(state: FiveAliveState, viewer: int | None = None, teams: bool = False) -> str:
    """The table for a replay: ``render_text`` with ``viewer``'s hand (a seat's view), or, from above
    (``viewer=None``), every player's hand."""
    if viewer is not None:
        return render_text(state, viewer, teams)
    lines = render_text(state, -1, teams).splitlines()
    last = lines.pop()  # "last: ...": the replay says it step by step
    hands = [f"  player_{p}: {hand_text(state.hands[p][:NUM_KINDS])}" for p in range(state.num_players)]
    return "\n".join([*lines, "hands:", *hands]) if last.startswith("last:") else "\n".join([*lines, last, *hands])


def new_section(before: FiveAliveState, after: FiveAliveState) -> bool:
    """Whether a replay shows the table again after this step: a round (or the game) ended."""
    return after.round != before.round or (after.phase == OVER) != (before.phase == OVER)


def describe_step(before: FiveAliveState, action: int, after: FiveAliveState, viewer: int | None = None) -> str:
    """One step of a replay in words (every move of 5 Alive is public): ``describe_event`` of the state
    after it."""
    return describe_event(after)


# --- the picture (render_mode="rgb_array"): Pillow, imported lazily by fiveplay_env.core.picture ---------

KIND_STYLE: tuple[tuple[str, str, str], ...] = (
    ("#e8f5e9", "0", ""), ("#c8e6c9", "1", ""), ("#a5d6a7", "2", ""), ("#8fd08f", "3", ""),
    ("#7cc47f", "4", ""), ("#fff59d", "5", ""), ("#ffcc80", "6", ""), ("#ef9a9a", "7", ""),
    ("#b3e5fc", "REV", "Reverse"), ("#ce93d8", "=21", "to 21"), ("#ffab91", "SKIP", "Skip"),
    ("#e0e0e0", "PASS", "Pass by"), ("#b2dfdb", "=0", "to 0"), ("#b2dfdb", "=10", "to 10"),
    ("#f8bbd0", "+1", "Draw 1"), ("#f48fb1", "+2", "Draw 2"), ("#d1c4e9", "DEAL", "Re-Deal"),
    ("#333333", "BOMB", "Bomb"),
)
"""Per card kind: fill, big label, short name: the web app's (``experiments/web/static/five_alive.js``
``FA_STYLE``)."""
HEART = "#c62828"
CARD_W, CARD_H = 44, 62


def card_places(state: FiveAliveState, viewer: int | None = None) -> list[tuple[str, int, tuple[int, int, int, int]]]:
    """Where ``table_image`` draws each card: ``(place, kind, (x0, y0, x1, y1))``, place ``"top"`` (the
    last card played) or ``"hand"`` (one card per kind ``viewer`` holds, default the acting player)."""
    out: list[tuple[str, int, tuple[int, int, int, int]]] = []
    if state.top >= 0:
        out.append(("top", int(state.top), (200, 120, 256, 200)))
    who = state.current if viewer is None else viewer
    if 0 <= who < state.num_players:
        kinds = [k for k in range(NUM_KINDS) if state.hands[who][k]]
        for i, k in enumerate(kinds):
            x, y = 14 + (i % 12) * 52, 330 + (i // 12) * 72
            out.append(("hand", k, (x, y, x + CARD_W, y + CARD_H)))
    return out


def _card(canvas: Any, kind: int, box: tuple[int, int, int, int], count: int = 1) -> None:
    """A card of ``kind`` as the web app draws it: its fill and label (and ``xN`` when several)."""
    fill, label, short = KIND_STYLE[kind]
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    ink = "#ffffff" if kind == 17 else "#1d1d1d"
    canvas.rect(box, fill=fill, outline="#4a4a4a", radius=6, width=2)
    size = int(h * (0.4 if kind < 8 else 0.22))
    canvas.text((x0 + w / 2, y0 + h * (0.5 if kind < 8 else 0.42)), label, size, ink, "mm")
    if short and h >= 70:
        canvas.text((x0 + w / 2, y0 + h * 0.78), short, 11, ink, "mm")
    if count > 1:
        canvas.rect((x1 - 20, y0 - 6, x1 + 4, y0 + 12), fill="#15604e", radius=8)
        canvas.text((x1 - 8, y0 + 3), f"x{count}", 11, "#ffffff", "mm")


def table_image(state: FiveAliveState, viewer: int | None = None, teams: bool = False) -> Any:
    """The table as ``uint8[480, 640, 3]`` (``render_mode="rgb_array"``): T of 21, the direction, the
    last card played, the piles' sizes, every player's lives (hearts) and hand size (the acting one
    marked), and the hand of ``viewer`` by kind (default: the acting player; the only hidden cards shown).
    Needs Pillow (``fiveplay_env.core.picture``)."""
    from fiveplay_env.core import picture as pic

    cv = pic.Canvas()
    n = state.num_players
    if state.phase == OVER:
        cv.title(f"5 Alive - game over in round {state.round + 1}: "
                 + ", ".join(f"player_{p}" for p in state.winners) + " won")
    else:
        doing = "answers the Bomb" if state.phase == BOMB_ANSWER else "to play"
        cv.title(f"5 Alive - round {state.round + 1}: player_{state.current} {doing}")
    cv.rect((8, 36, 300, 290), fill=pic.PANEL, outline=pic.LINE, radius=6)
    cv.text((20, 50), "total", 13, pic.MUTED, "lm")
    cv.text((20, 96), str(state.total), 56, pic.WARN if state.total >= 18 else pic.INK, "lm")
    cv.text((100, 106), "/ 21", 18, pic.MUTED, "lm")
    cv.text((20, 150), "clockwise" if state.direction == 1 else "counter-clockwise", 15, pic.INK, "lm")
    cv.text((20, 174), "direction", 12, pic.MUTED, "lm")
    cv.text((228, 110), "last card", 12, pic.MUTED, "mm")
    places = card_places(state, viewer)
    for place, k, box in places:
        if place == "top":
            _card(cv, k, box)
    if state.top < 0:
        cv.text((228, 160), "none yet", 13, pic.MUTED, "mm")
    cv.text((20, 230), f"draw pile {len(state.draw)}", 14, pic.INK, "lm")
    cv.text((20, 254), f"discard pile {state.discard_size}", 14, pic.INK, "lm")
    cv.rect((308, 36, 632, 290), fill=pic.PANEL, outline=pic.LINE, radius=6)
    for p in range(n):
        y = 44 + p * 40
        if p == state.current and state.phase != OVER:
            cv.rect((312, y, 628, y + 36), fill=pic.ACCENT_BG, radius=4)
        team = f" (team {'AB'[p % 2]})" if teams else ""
        ink = pic.INK if state.alive[p] else pic.MUTED
        cv.text((320, y + 10), f"player_{p}{team}", 14, pic.ACCENT if p == state.current else ink, "lm")
        cv.text((320, y + 27), f"{state.hand_size[p]} cards" if state.alive[p] else "eliminated", 12, pic.MUTED, "lm")
        for i in range(LIVES):
            cx = 500 + i * 24
            if i < state.lives[p]:
                cv.circle(cx, y + 18, 8, HEART)
            else:
                cv.rect((cx - 8, y + 10, cx + 8, y + 26), outline=HEART, radius=8, width=2)
    who = state.current if viewer is None else viewer
    if 0 <= who < n:
        cv.text((14, 312), f"hand of player_{who} ({state.hand_size[who]} cards)", 14, pic.INK, "lm")
        for place, k, box in places:
            if place == "hand":
                _card(cv, k, box, int(state.hands[who][k]))
    return cv.array()
