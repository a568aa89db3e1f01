"""5 Alive in the web app: the table as a seat sees it, each step's public event, the new-game panel's
choices and the rule book's card texts, drawn by ``static/five_alive.js`` (kind ``"pile"``).

``table(config, state, seat)``: total, top card, direction, lives, who is still in, hand sizes, the
piles' sizes; ``seat``'s own hand only (``seat=None``: every hand); never the draw pile's order.
``events(config, before, action, after)``: one ``play`` event with the engine's ``last_event`` fields, a
sentence (a Skip names the player passed over, a Reverse the new direction) and ``after``, the public
table after the step (total, top card, direction, lives, hand sizes, piles), for playing steps back one
by one. ``rules_extra(chapter)``: every card kind's explanation from section 2.4 ("Card effects").
"""
from __future__ import annotations

import re
from typing import Any

from fiveplay_env.experiments.web.games import WebView
from fiveplay_env.five_alive import config as fa_config
from fiveplay_env.five_alive import engine as fa_engine
from fiveplay_env.five_alive import render as fa_render
from fiveplay_env.five_alive import state as fa_state


def table(config: Any, s: fa_state.FiveAliveState, seat: int | None) -> dict[str, Any]:
    """The table of ``s`` as ``seat`` sees it (None: every hand); plain JSON-ready data."""
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


def events(config: Any, before: fa_state.FiveAliveState, action: int, after: fa_state.FiveAliveState) -> list[dict[str, Any]]:
    """What the step ``before --action--> after`` did, as one public event (module docstring)."""
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
             "after": public(after)}]


def public(s: fa_state.FiveAliveState) -> dict[str, Any]:
    """The public table after a step (what every player sees), for playing steps back one by one."""
    return {"total": s.total, "top": s.top, "direction": s.direction, "current": s.current,
            "phase": fa_state.PHASE_NAMES[s.phase], "lives": list(s.lives), "alive": list(s.alive),
            "hand_sizes": list(s.hand_size), "draw_size": len(s.draw), "discard_size": s.discard_size,
            "round": s.round}


def label(action: int) -> str:
    """An action id in words: the card kind's name or BUST."""
    return fa_state.ACTION_NAMES[action]


def round_of(s: fa_state.FiveAliveState) -> int:
    """The 0-based round a state belongs to (a finished game's last state belongs to its last round)."""
    return max(0, s.round - 1) if s.phase == fa_state.OVER else s.round


# --- the rule book's card texts -------------------------------------------------------------------------

def rules_extra(chapter: dict[str, Any]) -> dict[str, Any]:
    """``{"cards": {kind id: explanation}}`` from the chapter's section "Card effects"."""
    effects = next((s for s in chapter["sections"] if s["title"].lower() == "card effects"), None)
    return {"cards": {str(k): v for k, v in sorted(card_texts(effects).items())} if effects else {}}


def card_texts(section: dict[str, Any]) -> dict[int, str]:
    """Each card kind's explanation: the item of "Card effects" whose head names it."""
    out: dict[int, str] = {}
    items = [it for b in section["blocks"] if "list" in b for it in b["list"]]
    for it in items:
        text = re.sub(r"^\[[A-Z]\]\s*", "", it["text"])
        head, _, body = text.partition(":")
        names = [n.strip() for n in re.split(r"\s*/\s*|,\s*", head)]
        for kind, name in enumerate(fa_state.ACTION_NAMES[:fa_state.BUST]):
            if kind < fa_state.NUM_NUMBERS:
                if head.lower().startswith("a number"):
                    out[kind] = f"Number {name}: " + re.sub(r"\bv\b", name, body.strip())
            elif name in names:
                out[kind] = f"{name}: {_pick(body.strip(), names.index(name), len(names))}"
    return out


def _pick(text: str, i: int, k: int) -> str:
    """The text of an item that explains k cards at once ("Draw 1 / Draw 2: ... takes 1 / 2 cards",
    "=21, =10, =0: T is set to 21, 10 or 0") said for its i-th card alone."""
    if k == 1:
        return text
    slash = re.compile(r"\S+(?: / \S+){%d}" % (k - 1))
    text = slash.sub(lambda m: m.group(0).split(" / ")[i], text, count=1)
    words = r"[^\s,]+"
    listed = re.compile(rf"{words}(?:, {words}){{{k - 2}}} or {words}")
    text = listed.sub(lambda m: re.split(r", | or ", m.group(0))[i], text, count=1)
    text = re.sub(r"\b1 cards\b", "1 card", text)
    return text if text.endswith(".") else text + "."


VIEW = WebView(
    game="five_alive", kind="pile", script="five_alive.js", table=table, events=events, label=label,
    round_of=round_of,
    choices={"variant": list(fa_config.VARIANTS), "first_player": list(fa_config.FIRST_PLAYERS),
             "draw_order": list(fa_config.DRAW_ORDERS), "empty_draw_pile": list(fa_config.EMPTY_DRAW_PILES),
             "new_round_start": list(fa_config.NEW_ROUND_STARTS),
             "new_round_direction": list(fa_config.NEW_ROUND_DIRECTIONS),
             "final_tiebreak": list(fa_config.FINAL_TIEBREAKS), "reward": list(fa_config.REWARDS)},
    bot_family=(({}, "five-alive-"),),
    guided_about="search guided by the {policy} policy (its two best moves searched, value leaf)",
    browser={"kinds": list(fa_state.ACTION_NAMES)},
    meta={"five_alive_kinds": list(fa_state.ACTION_NAMES)},
    rules_chapter="2",
    rules_extra=rules_extra,
)
