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
             "skipped": skipped, "reversed": reversed_, "round": after.round, "round_before": before.round,
             "text": text.replace("player_", "P"),
             "after": _five_alive_public(after)}]


def _five_alive_public(s: fa_state.FiveAliveState) -> dict[str, Any]:
    """The public table after a 5 Alive step (what every player sees), for playing steps back one by one."""
    return {"total": s.total, "top": s.top, "direction": s.direction, "current": s.current,
            "phase": fa_state.PHASE_NAMES[s.phase], "lives": list(s.lives), "alive": list(s.alive),
            "hand_sizes": list(s.hand_size), "draw_size": len(s.draw), "discard_size": s.discard_size,
            "round": s.round}



def _t5_table(s: t5_state.Take5State) -> dict[str, Any]:
    """The public numbers of a Take 5 table (what the header and the players' boxes show)."""
    return {"round": s.round, "trick": s.trick, "scores": list(s.scores), "round_penalty": list(s.round_pen),
            "hand_sizes": list(s.hand_size), "chosen": [p >= 0 for p in s.pending], "over": s.phase == t5_state.OVER}


def _bulls(cards: list[int]) -> int:
    return sum(t5_state.BULL[c] for c in cards)


def _take5_events(config: Any, b: t5_state.Take5State, a: int, s: t5_state.Take5State) -> list[dict[str, Any]]:
    """Each event but ``chose`` carries ``table``: the public numbers as of that event (round, trick, scores, round
    penalties, hand sizes, who has chosen), so a browser playing the events back shows the table as of
    the event on screen, never the step's end. A ``place`` that takes a row says why (``reason``:
    ``"sixth"``, ``"low"`` with ``chooser``: the player or the automatic cheapest row)."""
    n = b.num_players
    p = b.current
    events: list[dict[str, Any]] = []
    if b.phase == t5_state.DRAFT:
        return [{"type": "draft", "player": p, "card": a + 1, "text": f"P{p} drafts {a + 1}", "table": _t5_table(s)}]
    table = _t5_table(b)
    if b.phase == t5_state.PLAY:
        if p < n - 1:
            # nothing but who chose: the browser marks the chooser (one card fewer in hand, "has chosen")
            return [{"type": "chose", "player": p, "text": f"P{p} has chosen a card"}]
        queue = sorted((b.pending[q] if q != p else a, q) for q in range(n))
        table["hand_sizes"][p] -= 1
        table["chosen"] = [False] * n
        events.append({"type": "reveal", "cards": [[c + 1, q] for c, q in queue], "round": b.round, "trick": b.trick,
                       "text": "revealed: " + ", ".join(f"P{q}: {c + 1}" for c, q in queue), "table": dict(table)})
        forced = -1
    else:  # ROW_CHOICE: the queue's first card takes the chosen row
        queue = list(b.queue)
        forced = a - t5_state.ACTION_ROW0
    rows = [r[:] for r in b.rows]
    for i, (card, owner) in enumerate(queue):
        r = forced if i == 0 and forced >= 0 else t5_engine.target_row(rows, card)
        took: list[int] = []
        reason = None
        if r < 0:
            if config.row_pick == "player":
                events.append({"type": "choose_row", "player": owner, "card": card + 1, "table": dict(table),
                               "text": f"P{owner}'s {card + 1} is lower than every row: P{owner} picks a row to take"})
                return events
            r = t5_engine.cheapest_row(rows)
            took = rows[r]
            reason = "low"
        elif i == 0 and forced >= 0:
            took = rows[r]
            reason = "low"
        elif len(rows[r]) == t5_state.ROW_LIMIT:
            took = rows[r]
            reason = "sixth"
        if took:
            rows[r] = [card]
        else:
            rows[r] = rows[r] + [card]
        bulls = _bulls(took)
        heads = f"{bulls} bull head{'s' if bulls != 1 else ''}"
        text = f"P{owner} places {card + 1} on row {r + 1}"
        if reason == "sixth":
            text = (f"P{owner}'s {card + 1} is the sixth card in row {r + 1}: P{owner} takes its "
                    f"{len(took)} cards ({heads})")
        elif reason == "low":
            how = f"P{owner} chose row {r + 1}" if forced >= 0 else f"row {r + 1} (the fewest bull heads) goes to P{owner}"
            text = f"{card + 1} is lower than every row: {how} and takes {len(took)} card{'s' if len(took) != 1 else ''} ({heads})"
        table = dict(table, round_penalty=list(table["round_penalty"]))
        table["round_penalty"][owner] += bulls
        ev = {"type": "place", "player": owner, "card": card + 1, "row": r, "took": _num(took),
              "bulls": bulls, "rows": [_num(x) for x in rows], "text": text, "table": table}
        if reason:
            ev["reason"] = reason
            ev["chooser"] = "player" if forced >= 0 else "auto"
        events.append(ev)
    if s.round > b.round:
        pens = [s.scores[q] - b.scores[q] for q in range(n)]
        end_table = dict(table, scores=list(s.scores), over=s.phase == t5_state.OVER)
        events.append({"type": "round_end", "round": b.round + 1, "penalties": pens, "scores": list(s.scores),
                       "table": end_table,
                       "text": f"round {b.round + 1} over: " + ", ".join(f"P{q} +{pens[q]}" for q in range(n))
                               + " \u00b7 scores " + ", ".join(f"P{q} {s.scores[q]}" for q in range(n))})
    if s.phase == t5_state.OVER:
        win = t5_engine.winners(s)
        events.append({"type": "game_over", "winners": win, "scores": list(s.scores), "reason": _t5_end_reason(config, s),
                       "ranking": ranking(s.scores),
                       "table": dict(events[-1]["table"] if events else _t5_table(s), over=True),
                       "text": "game over: " + ", ".join(f"P{w}" for w in win) + " win" + ("s" if len(win) == 1 else "")})
    return events


def ranking(scores: list[int]) -> list[int]:
    """Each player's place (1 = best) by Take 5 score, lowest first; tied scores share a place."""
    return [1 + sum(1 for t in scores if t < x) for x in scores]


def _t5_end_reason(config: Any, s: t5_state.Take5State) -> str:
    """Why a Take 5 game ended, in a player's words."""
    rounds = s.round
    if config.mode == "round":
        return "the game was one round"
    if config.mode.startswith("rounds:"):
        return f"the game was {rounds} rounds"
    top = max(s.scores)
    who = ", ".join(f"P{q}" for q in range(s.num_players) if s.scores[q] == top)
    limit = f"{config.end_score} or more" if config.end_inclusive else f"more than {config.end_score}"
    return f"{who} reached {top} bull heads after round {rounds} (the game ends at {limit})"


def action_label(game: str, action: int) -> str:
    """An action id in words (Take 5: ``card 55`` / ``row 2``; 5 Alive: the card's name or BUST)."""
    if game == "take5":
        if action >= t5_state.ACTION_ROW0:
            return f"row {action - t5_state.ACTION_ROW0 + 1}"
        return f"card {action + 1}"
    return fa_state.ACTION_NAMES[action]
