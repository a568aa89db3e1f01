"""Take 5 in the web app: the table as a seat sees it, each step's public events, the new-game panel's
choices, drawn by ``static/take5.js`` (kind ``"rows"``).

``table(config, state, seat)``: rows, scores, round penalties, hand sizes, who has chosen, the draft
pool, the cards taken; ``seat``'s own hand and its own unrevealed choice only (``seat=None``: every hand).
``events(config, before, action, after)``: ``chose`` (a player picked a card, not which), ``reveal`` (the
trick, ascending), one ``place`` per card placed (row, cards taken, bull heads, the rows after it),
``choose_row`` (a too-low card waits for its owner's row), ``draft``, ``round_end`` and ``game_over``.
Each event but ``chose`` carries ``table``: the public numbers as of that event (round, trick, scores,
round penalties, hand sizes, who has chosen), so a browser playing the events back shows the table as of
the event on screen, never the step's end. A ``place`` that takes a row says why (``reason``:
``"sixth"``, ``"low"`` with ``chooser``: the player or the automatic cheapest row). Placement order and
row rules come from the engine's own ``target_row`` / ``cheapest_row``.
"""
from __future__ import annotations

from typing import Any

from fiveplay_env.experiments.web.games import WebView
from fiveplay_env.take5 import config as t5_config
from fiveplay_env.take5 import engine as t5_engine
from fiveplay_env.take5 import state as t5_state


def _num(cards: list[int]) -> list[int]:
    return [int(c) + 1 for c in cards]


def table(config: Any, s: t5_state.Take5State, seat: int | None) -> dict[str, Any]:
    """The table of ``s`` as ``seat`` sees it (None: every hand); plain JSON-ready data."""
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


def table_numbers(s: t5_state.Take5State) -> dict[str, Any]:
    """The public numbers of a table (what the header and the players' boxes show)."""
    return {"round": s.round, "trick": s.trick, "scores": list(s.scores), "round_penalty": list(s.round_pen),
            "hand_sizes": list(s.hand_size), "chosen": [p >= 0 for p in s.pending], "over": s.phase == t5_state.OVER}


def _bulls(cards: list[int]) -> int:
    return sum(t5_state.BULL[c] for c in cards)


def events(config: Any, b: t5_state.Take5State, a: int, s: t5_state.Take5State) -> list[dict[str, Any]]:
    """What the step ``b --a--> s`` did, as public events (module docstring)."""
    n = b.num_players
    p = b.current
    out: list[dict[str, Any]] = []
    if b.phase == t5_state.DRAFT:
        return [{"type": "draft", "player": p, "card": a + 1, "text": f"P{p} drafts {a + 1}", "table": table_numbers(s)}]
    numbers = table_numbers(b)
    if b.phase == t5_state.PLAY:
        if p < n - 1:
            # nothing but who chose: the browser marks the chooser (one card fewer in hand, "has chosen")
            return [{"type": "chose", "player": p, "text": f"P{p} has chosen a card"}]
        queue = sorted((b.pending[q] if q != p else a, q) for q in range(n))
        numbers["hand_sizes"][p] -= 1
        numbers["chosen"] = [False] * n
        out.append({"type": "reveal", "cards": [[c + 1, q] for c, q in queue], "round": b.round, "trick": b.trick,
                    "text": "revealed: " + ", ".join(f"P{q}: {c + 1}" for c, q in queue), "table": dict(numbers)})
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
                out.append({"type": "choose_row", "player": owner, "card": card + 1, "table": dict(numbers),
                            "text": f"P{owner}'s {card + 1} is lower than every row: P{owner} picks a row to take"})
                return out
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
        numbers = dict(numbers, round_penalty=list(numbers["round_penalty"]))
        numbers["round_penalty"][owner] += bulls
        ev = {"type": "place", "player": owner, "card": card + 1, "row": r, "took": _num(took),
              "bulls": bulls, "rows": [_num(x) for x in rows], "text": text, "table": numbers}
        if reason:
            ev["reason"] = reason
            ev["chooser"] = "player" if forced >= 0 else "auto"
        out.append(ev)
    if s.round > b.round:
        pens = [s.scores[q] - b.scores[q] for q in range(n)]
        end_table = dict(numbers, scores=list(s.scores), over=s.phase == t5_state.OVER)
        out.append({"type": "round_end", "round": b.round + 1, "penalties": pens, "scores": list(s.scores),
                    "table": end_table,
                    "text": f"round {b.round + 1} over: " + ", ".join(f"P{q} +{pens[q]}" for q in range(n))
                            + " \u00b7 scores " + ", ".join(f"P{q} {s.scores[q]}" for q in range(n))})
    if s.phase == t5_state.OVER:
        win = t5_engine.winners(s)
        out.append({"type": "game_over", "winners": win, "scores": list(s.scores), "reason": end_reason(config, s),
                    "ranking": ranking(s.scores),
                    "table": dict(out[-1]["table"] if out else table_numbers(s), over=True),
                    "text": "game over: " + ", ".join(f"P{w}" for w in win) + " win" + ("s" if len(win) == 1 else "")})
    return out


def ranking(scores: list[int]) -> list[int]:
    """Each player's place (1 = best) by score, lowest first; tied scores share a place."""
    return [1 + sum(1 for t in scores if t < x) for x in scores]


def end_reason(config: Any, s: t5_state.Take5State) -> str:
    """Why the game ended, in a player's words."""
    rounds = s.round
    if config.mode == "round":
        return "the game was one round"
    if config.mode.startswith("rounds:"):
        return f"the game was {rounds} rounds"
    top = max(s.scores)
    who = ", ".join(f"P{q}" for q in range(s.num_players) if s.scores[q] == top)
    limit = f"{config.end_score} or more" if config.end_inclusive else f"more than {config.end_score}"
    return f"{who} reached {top} bull heads after round {rounds} (the game ends at {limit})"


def label(action: int) -> str:
    """An action id in words: ``card 55`` / ``row 2``."""
    if action >= t5_state.ACTION_ROW0:
        return f"row {action - t5_state.ACTION_ROW0 + 1}"
    return f"card {action + 1}"


def round_of(s: t5_state.Take5State) -> int:
    """The 0-based round a state belongs to (a finished game's last state belongs to its last round)."""
    return max(0, s.round - 1) if s.phase == t5_state.OVER else s.round


VIEW = WebView(
    game="take5", kind="rows", script="take5.js", table=table, events=events, label=label, round_of=round_of,
    choices={"row_pick": list(t5_config.ROW_PICKS), "mode": ["game", "round", "rounds:2", "rounds:3", "rounds:5"]},
    bot_family=(({"mode": "game"}, "take5-game-"), ({}, "take5-round-")),
    guided_about="search guided by the {policy} policy (policy rollouts, value leaf): the ladder's strongest",
    browser={"bullheads": list(t5_state.BULL)},
    meta={"take5_bullheads": list(t5_state.BULL)},
    rules_chapter="1",
)
