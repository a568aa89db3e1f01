"""What the browser is shown: a table as one seat sees it, and each step's public events.

``view(game, config, state, seat)`` is the table as ``seat`` may see it (``seat=None``: from above, every
hand). It is the only place the web app turns a state into data for the browser, so what a seat may see
is decided here and nowhere else: other players' hands, their unrevealed Take 5 choices, the cards set
aside and the 5 Alive draw pile's order are never in a seat's view (tests re-deal them and compare).

``step_events(game, config, before, action, after)`` says what one step did, as every player saw it:
Take 5: ``chose`` (a player picked a card, not which), ``reveal`` (the trick, ascending), one ``place``
per card placed (row, cards taken, bull heads, the rows after it), ``choose_row`` (a too-low card waits
for its owner's row), ``draft``, ``round_end`` and ``game_over``; 5 Alive: one ``play`` event with the
engine's ``last_event`` fields, a sentence (a Reverse names the new direction) and ``after``, the public
table after the step (total, top card, direction, lives, hand sizes, piles). Placement order and row rules come from the Take 5
engine's own ``target_row`` / ``cheapest_row``.
"""
from __future__ import annotations

from typing import Any

from fiveplay_env.five_alive import engine as fa_engine
from fiveplay_env.five_alive import render as fa_render
from fiveplay_env.five_alive import state as fa_state
from fiveplay_env.take5 import engine as t5_engine
from fiveplay_env.take5 import state as t5_state


def view(game: str, config: Any, state: Any, seat: int | None) -> dict[str, Any]:
    """The table of ``state`` as ``seat`` sees it (None: every hand); plain JSON-ready data."""
    if game == "take5":
        return _take5_view(config, state, seat)
    return _five_alive_view(config, state, seat)


def _num(cards: list[int]) -> list[int]:
    return [int(c) + 1 for c in cards]


def _take5_view(config: Any, s: t5_state.Take5State, seat: int | None) -> dict[str, Any]:
    n = s.num_players
    visible = range(n) if seat is None else [seat]
    over = s.phase == t5_state.OVER
    out: dict[str, Any] = {
        "game": "take5", "num_players": n, "round": s.round, "trick": s.trick,
        "phase": t5_state.PHASE_NAMES[s.phase], "current": s.current, "over": over,
        "rows": [_num(r) for r in s.rows], "scores": list(s.scores), "round_penalty": list(s.round_pen),
        "hand_sizes": list(s.hand_size), "chosen": [p >= 0 for p in s.pending],
        "taken": [_num(t) for t in s.taken], "pool": _num([int(c) for c in (s.pool[:104].nonzero()[0])]),
        "hands": {str(p): _num(s.hand(p)) for p in visible},
        "pending": {str(p): s.pending[p] + 1 for p in visible if s.pending[p] >= 0},
        "trick_cards": _num(s.trick_cards),
        "waiting_row": None, "winners": t5_engine.winners(s) if over else [],
        "mode": config.mode, "row_pick": config.row_pick,
    }
    if s.phase == t5_state.ROW_CHOICE and s.queue:
        card, owner = s.queue[0]
        out["waiting_row"] = {"player": owner, "card": card + 1}
    return out


def _five_alive_view(config: Any, s: fa_state.FiveAliveState, seat: int | None) -> dict[str, Any]:
    n = s.num_players
    visible = range(n) if seat is None else [seat]
    over = s.phase == fa_state.OVER
    return {
        "game": "five_alive", "num_players": n, "round": s.round, "turns": s.turns,
        "phase": fa_state.PHASE_NAMES[s.phase], "current": s.current, "over": over,
        "direction": s.direction, "total": s.total, "top": s.top, "discard_size": s.discard_size,
        "draw_size": len(s.draw), "lives": list(s.lives), "alive": list(s.alive), "hand_sizes": list(s.hand_size),
        "hands": {str(p): list(s.hands[p]) for p in visible}, "bomber": s.bomber,
        "winners": list(s.winners), "variant": config.variant,
    }


def step_events(game: str, config: Any, before: Any, action: int, after: Any) -> list[dict[str, Any]]:
    """What the step ``before --action--> after`` did, as public events (see the module docstring)."""
    if game == "take5":
        return _take5_events(config, before, action, after)
    ev = fa_engine.last_event(after)
    text = fa_render.describe_event(after)
    skipped = None
    if ev["action"] == fa_state.SKIP and not ev["bomb_answer"] and not ev["game_over"] and not ev["went_out"]:
        skipped = fa_engine._next(after, ev["player"])  # the survivor the Skip passed over (the engine's rule)
        text += f"; player_{skipped} is skipped"
    reversed_ = ev["action"] == fa_state.REVERSE and not ev["bomb_answer"] and after.direction != before.direction
    if reversed_:
        text += "; the direction is now " + ("clockwise" if after.direction == 1 else "counter-clockwise")
    return [{"type": "play", "player": ev["player"], "card": ev["card"], "action": ev["action"],
             "bomb_answer": ev["bomb_answer"], "total": ev["total"],
             "drawn": {str(k): v for k, v in ev["drawn"].items()},
             "lives_lost": {str(k): v for k, v in ev["lives_lost"].items()}, "eliminated": ev["eliminated"],
             "went_out": ev["went_out"], "dealer": ev["dealer"], "game_over": ev["game_over"],
             "skipped": skipped, "reversed": reversed_, "round": after.round, "text": text.replace("player_", "P"),
             "after": _five_alive_public(after)}]


def _five_alive_public(s: fa_state.FiveAliveState) -> dict[str, Any]:
    """The public table after a 5 Alive step (what every player sees), for playing steps back one by one."""
    return {"total": s.total, "top": s.top, "direction": s.direction, "current": s.current,
            "phase": fa_state.PHASE_NAMES[s.phase], "lives": list(s.lives), "alive": list(s.alive),
            "hand_sizes": list(s.hand_size), "draw_size": len(s.draw), "discard_size": s.discard_size,
            "round": s.round}



def _take5_events(config: Any, b: t5_state.Take5State, a: int, s: t5_state.Take5State) -> list[dict[str, Any]]:
    n = b.num_players
    p = b.current
    events: list[dict[str, Any]] = []
    if b.phase == t5_state.DRAFT:
        return [{"type": "draft", "player": p, "card": a + 1, "text": f"P{p} drafts {a + 1}"}]
    if b.phase == t5_state.PLAY:
        if p < n - 1:
            return [{"type": "chose", "player": p, "text": f"P{p} has chosen a card"}]
        queue = sorted((b.pending[q] if q != p else a, q) for q in range(n))
        events.append({"type": "reveal", "cards": [[c + 1, q] for c, q in queue], "round": b.round, "trick": b.trick,
                       "text": "revealed: " + ", ".join(f"P{q}: {c + 1}" for c, q in queue)})
        forced = -1
    else:  # ROW_CHOICE: the queue's first card takes the chosen row
        queue = list(b.queue)
        forced = a - t5_state.ACTION_ROW0
    rows = [r[:] for r in b.rows]
    for i, (card, owner) in enumerate(queue):
        r = forced if i == 0 and forced >= 0 else t5_engine.target_row(rows, card)
        took: list[int] = []
        if r < 0:
            if config.row_pick == "player":
                events.append({"type": "choose_row", "player": owner, "card": card + 1,
                               "text": f"P{owner}'s {card + 1} is lower than every row: P{owner} picks a row to take"})
                return events
            r = t5_engine.cheapest_row(rows)
            took = rows[r]
        elif (i == 0 and forced >= 0) or len(rows[r]) == t5_state.ROW_LIMIT:
            took = rows[r]
        if took:
            rows[r] = [card]
        else:
            rows[r] = rows[r] + [card]
        bulls = sum(t5_state.BULL[c] for c in took)
        text = f"P{owner} places {card + 1} on row {r + 1}"
        if took:
            text = f"P{owner} places {card + 1} and takes row {r + 1} ({bulls} bull head{'s' if bulls != 1 else ''})"
        events.append({"type": "place", "player": owner, "card": card + 1, "row": r, "took": _num(took),
                       "bulls": bulls, "rows": [_num(x) for x in rows], "text": text})
    if s.round > b.round:
        pens = [s.scores[q] - b.scores[q] for q in range(n)]
        events.append({"type": "round_end", "round": b.round + 1, "penalties": pens, "scores": list(s.scores),
                       "text": f"round {b.round + 1} over: penalties {pens}, scores {list(s.scores)}"})
    if s.phase == t5_state.OVER:
        win = t5_engine.winners(s)
        events.append({"type": "game_over", "winners": win, "scores": list(s.scores),
                       "text": "game over: " + ", ".join(f"P{w}" for w in win) + " win" + ("s" if len(win) == 1 else "")})
    return events


def action_label(game: str, action: int) -> str:
    """An action id in words (Take 5: ``card 55`` / ``row 2``; 5 Alive: the card's name or BUST)."""
    if game == "take5":
        if action >= t5_state.ACTION_ROW0:
            return f"row {action - t5_state.ACTION_ROW0 + 1}"
        return f"card {action + 1}"
    return fa_state.ACTION_NAMES[action]
