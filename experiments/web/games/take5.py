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

from fiveplay_env.experiments.web.games import Option, PlayerRules, WebView
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


# --- hints in a player's terms (fiveplay_env.experiments.web.hints) -----------------------------------------

def _heads(n: float | int) -> str:
    return f"{n} bull head{'' if n == 1 else 's'}"


def _ordinal(k: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(k, f"{k}th")


def _taken(s0: t5_state.Take5State, s1: t5_state.Take5State, seat: int) -> int:
    """The bull heads ``seat`` took from ``s0`` to ``s1`` (a rollout's end: the round's end, where the round's
    penalties have joined the scores, or earlier)."""
    if s1.round > s0.round:
        return s1.scores[seat] - s0.scores[seat] - s0.round_pen[seat]
    return s1.round_pen[seat] - s0.round_pen[seat]


def hint_cost(config: Any, s: t5_state.Take5State, seat: int, action: int, legal: list[int],
              rollouts: Any) -> dict[str, Any]:
    """What ``action`` is expected to cost ``seat`` in bull heads: a row choice exactly (the row's bull heads,
    taken now), a card as the mean of what the seat takes by the end of the round (``value``) and at this
    trick (``now``) in the search's rollouts of every legal card on common worlds; with the cheapest other
    moves (``others``)."""
    now: dict[int, float] = {}
    if s.phase == t5_state.ROW_CHOICE:
        cost = {a: float(_bulls(s.rows[a - t5_state.ACTION_ROW0])) for a in legal}
        when, worlds = "now", 0
        text = f"you take {_heads(int(cost[action]))} now"
    else:
        def mean(ends: dict[int, list[Any]]) -> dict[int, float]:
            return {a: sum(_taken(s, e, seat) for e in ends[a]) / max(1, len(ends[a])) for a in legal}

        ends = rollouts(legal)
        worlds = len(ends[action])
        cost = mean(ends)
        when = "this round"
        x = cost[action]
        text = f"about {x:.1f} bull heads for you by the round's end"
        if s.phase == t5_state.PLAY:
            now = mean(rollouts(legal, depth=1))
            y = now[action]
            text = (f"likely nothing to take this trick, about {x:.1f} bull heads by the round's end" if y < 0.05
                    else f"about {y:.1f} bull heads this trick, {x:.1f} by the round's end")
    rest = sorted((c, a) for a, c in cost.items() if a != action)
    others = [{"action": a, "label": label(a), "value": round(c, 2)} for c, a in rest[:3]]
    if rest:
        c, a = rest[0]
        text += f" ({label(a)}: {_heads(int(c)) if when == 'now' else f'{c:.1f}'})"
    out = {"value": round(cost[action], 2), "unit": "bull heads", "when": when, "text": text, "others": others,
           "worlds": worlds}
    if now:
        out["now"] = round(now[action], 2)
    return out


def hint_reason(config: Any, s: t5_state.Take5State, seat: int, action: int) -> str:
    """Why ``action``, from what ``seat`` sees: where the card would go on the rows as they are, or what the
    chosen row holds against the others."""
    rows = s.rows
    if s.phase == t5_state.ROW_CHOICE:
        r = action - t5_state.ACTION_ROW0
        bulls = [_bulls(x) for x in rows]
        low = min(bulls)
        if bulls[r] == low:
            ties = [str(q + 1) for q in range(len(rows)) if bulls[q] == low and q != r]
            also = "" if not ties else f" (as does row {ties[0]})" if len(ties) == 1 else \
                f" (as do rows {', '.join(ties[:-1])} and {ties[-1]})"
            return f"row {r + 1} holds {_heads(low)}, the fewest{also}"
        q = bulls.index(low)
        return f"row {r + 1} holds {_heads(bulls[r])}; the fewest is {low}, on row {q + 1}"
    n = action + 1
    if s.phase == t5_state.DRAFT:
        return f"{n} carries {_heads(int(t5_state.BULL[action]))}"
    r = t5_engine.target_row(rows, action)
    if r < 0:
        q = t5_engine.cheapest_row(rows)
        heads = _heads(_bulls(rows[q]))
        if config.row_pick == "player":
            return f"your {n} is lower than every row: you would take one (the cheapest: row {q + 1}, {heads})"
        return f"your {n} is lower than every row: you would take the cheapest, row {q + 1} ({heads})"
    if len(rows[r]) >= t5_state.ROW_LIMIT:
        return (f"your {n} would be the 6th card of row {r + 1}: you would take its {len(rows[r])} cards "
                f"({_heads(_bulls(rows[r]))})")
    pos = len(rows[r]) + 1
    full = "; the row would then be full" if pos == t5_state.ROW_LIMIT else ""
    return f"your {n} would be the {_ordinal(pos)} card of row {r + 1}, after {rows[r][-1] + 1}{full}"


# --- the rules for players ---------------------------------------------------------------------------------
# Written for the table (rows 1 to 4, P0.., no engine words); each sentence names the rule book items it says
# (docs/rules.md, numbered by rules_text.book_items), and tests/web/test_player_rules.py checks that every item
# of the book's player sections is said here or in OPTIONS.

RULES = PlayerRules(
    title="Take 5",
    intro="Take as few bull heads as you can. Everybody plays a card at the same time; the cards go onto four rows, "
          "and whoever's card would be the sixth in a row, or fits on no row, takes cards as penalty points.",
    sections=(
        ("The cards", (
            (("1.1.1",), "104 cards numbered 1 to 104. Each card carries bull heads (penalty points), shown as dots at "
                         "its top: 55 has 7; the other multiples of 11 (11, 22, 33, ... 99) have 5; multiples of 10 have 3; "
                         "the other multiples of 5 have 2; every other card has 1. The whole deck holds 171 bull heads."),
        )),
        ("Setting up a round", (
            (("1.2.1",), "Each player gets 10 cards. Four more are laid face up, each starting one of the four rows; "
                         "the rest stay face down, unseen by anyone, for the whole round."),
            (("1.2.1a",), "The rows are numbered 1 to 4, in the order they were started."),
        )),
        ("A trick", (
            (("1.2.2",), "A round has 10 tricks. In each trick everyone picks a card from their hand in secret; when all "
                         "have chosen, the cards are turned over together."),
            (("1.2.3",), "The cards are then laid one at a time, lowest first; each card finds the rows as the cards "
                         "before it left them."),
            (("1.2.4", "1.2.4b"), "A card goes at the end of the row whose last card is the highest one below it."),
            (("1.2.4a",), "If that row already holds 5 cards, the card would be its sixth: its owner takes those 5 cards "
                          "(their bull heads count against them) and the card starts the row again."),
            (("1.2.5",), "A card lower than the last card of every row fits nowhere: its owner takes a whole row of "
                         "their choice and the card starts that row. Only the lowest card of a trick can be too low, and "
                         "the choice is made after the whole trick has been turned over."),
        )),
        ("Scoring", (
            (("1.2.6",), "After the 10th trick the round ends, and the bull heads each player took in it are added to "
                         "their score."),
        )),
        ("The end", (
            (("1.3.1",), "Rounds are played one after another, all the cards reshuffled each time, until a round ends "
                         "with someone's score at the points limit (66). The lowest score wins."),
            (("1.3.1b",), "Players tied on the lowest score all win."),
        )),
        ("What you see", (
            (("1.5.1",), "You see your own hand, the rows, every card turned over this round (the cards played and the "
                         "cards taken), and everyone's score and bull heads this round; at a row choice, the whole trick."),
            (("1.5.2",), "You never see the other hands, a card someone has chosen before it is turned over, or the "
                         "cards set aside."),
            (("1.5.3",), "In a draft every card is taken face up, so everyone's hand is known; only the cards chosen for "
                         "a trick stay hidden until they are turned over."),
        )),
    ),
)

OPTIONS = {
    "mode": Option("Length", "A game goes on to the points limit, or lasts one round, or a set number of rounds.",
                   {"game": "to the points limit", "round": "one round", "rounds:2": "2 rounds", "rounds:3": "3 rounds",
                    "rounds:5": "5 rounds"}, ("1.3.2",)),
    "row_pick": Option("Too-low card", "When a card is lower than every row, its owner picks the row to take (the "
                       "usual rule), or the row with the fewest bull heads is taken for them (on a tie, the one with "
                       "fewer cards, then the lowest-numbered).",
                       {"player": "its owner picks the row", "min_bullheads": "the cheapest row is taken for them"},
                       ("1.2.5a",)),
    "end_score": Option("Points limit", "The game ends after the round in which a score reaches this limit (66 "
                        "unless you change it).", covers=("1.3.1a",)),
    "end_inclusive": Option("Reaching the limit ends the game", "Ticked (the usual rule): a score equal to the limit "
                            "ends the game; unticked: a score must go above it.", covers=("1.3.1a",)),
    "professional": Option("Professional deck", "For 2 to 6 players: only the cards from 1 to 10 times the players "
                           "plus 4 are used (44 cards for 4 players), exactly the cards dealt, so every card in play "
                           "is known.", covers=("1.4.1",)),
    "draft": Option("Draft the cards", "With the professional deck only: the cards are laid face up and the players "
                    "take them one at a time in turn, P0 first, until each has 10; the 4 left over start the rows, "
                    "lowest in row 1. Every round starts with a new draft.", covers=("1.4.2", "1.4.2a")),
}


VIEW = WebView(
    game="take5", kind="rows", script="take5.js", table=table, events=events, label=label, round_of=round_of,
    choices={"row_pick": list(t5_config.ROW_PICKS), "mode": ["game", "round", "rounds:2", "rounds:3", "rounds:5"]},
    bot_family=(({"mode": "game"}, "take5-game-"), ({}, "take5-round-")),
    guided_about="search guided by the {policy} policy (policy rollouts, value leaf): the ladder's strongest",
    browser={"bullheads": list(t5_state.BULL)},
    meta={"take5_bullheads": list(t5_state.BULL)},
    rules=RULES,
    options=OPTIONS,
    hint_reason=hint_reason,
    hint_cost=hint_cost,
)
