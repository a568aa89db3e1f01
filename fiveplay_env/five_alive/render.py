"""Text picture of a 5 Alive table (the ``ansi`` and ``human`` render modes)."""
from __future__ import annotations

from fiveplay_env.five_alive.config import KIND_NAMES, NUM_KINDS
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
    notes += [f"player_{q} lost {c} li{'fe' if c == 1 else 'ves'}" for q, c in ev["lives_lost"].items()]
    notes += [f"player_{q} is eliminated" for q in ev["eliminated"]]
    if ev["went_out"]:
        notes.append("went out: " + ", ".join(f"player_{q}" for q in ev["went_out"]) + "; the round ends")
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
