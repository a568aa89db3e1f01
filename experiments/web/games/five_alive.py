"""5 Alive in the web app: the table as a seat sees it, each step's public event, the new-game panel's
choices and words, and the rules for players (each card explained), drawn by ``static/five_alive.js``
(kind ``"pile"``).

``table(config, state, seat)``: total, top card, direction, lives, who is still in, hand sizes, the
piles' sizes; ``seat``'s own hand only (``seat=None``: every hand); never the draw pile's order.
``events(config, before, action, after)``: one ``play`` event with the engine's ``last_event`` fields, a
sentence (a Skip names the player passed over, a Reverse the new direction) and ``after``, the public
table after the step (total, top card, direction, lives, hand sizes, piles), for playing steps back one
by one. ``RULES``, ``CARDS`` and ``OPTIONS``: the rules as players read them (``rules_text``).
"""
from __future__ import annotations

from typing import Any

from fiveplay_env.experiments.web.games import Option, PlayerRules, WebView
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
        skipped = fa_engine.next_survivor(after, ev["player"])  # the survivor the Skip passed over (the engine's rule)
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


# --- hints in a player's terms (fiveplay_env.experiments.web.hints) -----------------------------------------

_SET_TO = {fa_state.EQ21: 21, fa_state.EQ0: 0, fa_state.EQ10: 10}


def _lives(n: float | int) -> str:
    return f"{n} li{'fe' if n == 1 else 'ves'}"


def hint_cost(config: Any, s: fa_state.FiveAliveState, seat: int, action: int, legal: list[int],
              rollouts: Any) -> dict[str, Any]:
    """What ``action`` is expected to cost ``seat``: the chance to lose a life by the end of this round and
    the lives lost on average, from the search's rollouts of every legal move on common worlds; with the
    move least likely to cost a life (``others``)."""
    ends = rollouts(legal)
    lost = {a: [max(0, s.lives[seat] - e.lives[seat]) for e in ends[a]] for a in legal}
    chance = {a: sum(1 for x in v if x > 0) / max(1, len(v)) for a, v in lost.items()}
    mean = {a: sum(v) / max(1, len(v)) for a, v in lost.items()}
    p, m = chance[action], mean[action]
    if p == 0:
        text = "you should keep all your lives this round"
    else:
        text = f"about {round(p * 100)}% chance to lose a life this round"
        if m >= p + 0.05:
            text += f", {m:.1f} lives on average"
    rest = sorted((chance[a], mean[a], a) for a in legal if a != action)
    others = [{"action": a, "label": label(a), "value": round(c, 2), "lives": round(x, 2)} for c, x, a in rest[:3]]
    if rest:
        c, _, a = rest[0]
        text += f" ({label(a)}: {round(c * 100)}%)"
    return {"value": round(p, 2), "lives": round(m, 2), "unit": "chance to lose a life", "when": "this round",
            "text": text, "others": others, "worlds": len(ends[action])}


def hint_reason(config: Any, s: fa_state.FiveAliveState, seat: int, action: int) -> str:
    """Why ``action``, from what ``seat`` sees: what the card does to the total or to the others, what it
    keeps for later, or why nothing can be played."""
    t = s.total
    hand = s.hands[seat]
    name = label(action)
    if s.phase == fa_state.BOMB_ANSWER:
        if action == fa_state.N0:
            return "throwing away a 0 answers the Bomb: you keep your life"
        return "you hold no 0 to answer the Bomb: you lose a life"
    if action == fa_state.BUST:
        return f"none of your cards can be played on {t}: you lose a life"
    if s.hand_size[seat] == 1:
        return "your last card: you go out and everyone still holding cards loses a life"
    fits = [k for k in range(fa_state.NUM_NUMBERS) if hand[k] and t + k <= fa_state.MAX_TOTAL]
    if action < fa_state.NUM_NUMBERS:
        why = f"the total goes from {t} to {t + action}"
        kept = [label(k) for k in range(fa_state.NUM_NUMBERS, fa_state.NUM_KINDS) if hand[k]]
        if kept:
            why += f", keeping your {' and '.join(kept[:2])}{' and more' if len(kept) > 2 else ''} for later"
        return why
    if not fits:
        lead = f"none of your numbers fits on {t}, so "
    else:
        lead = ""
    if action in _SET_TO:
        return lead + f"{name} makes the total {_SET_TO[action]} (from {t})"
    if action in (fa_state.REVERSE, fa_state.SKIP, fa_state.PASS):
        return lead + f"{name} passes the turn on without raising the total ({t})"
    others = [q for q in range(s.num_players) if q != seat and s.alive[q]]
    if action in (fa_state.DRAW1, fa_state.DRAW2):
        k = 1 if action == fa_state.DRAW1 else 2
        return lead + f"{name}: every other player still in takes {k} card{'s' if k > 1 else ''}; you hold {s.hand_size[seat]}"
    if action == fa_state.BOMB:
        return lead + f"Bomb: each of the {len(others)} other players still in without a 0 loses a life"
    if action == fa_state.REDEAL:
        fewest = min((s.hand_size[q] for q in others), default=0)
        return lead + (f"everyone hands in their cards and they are dealt again: you hold {s.hand_size[seat]}, "
                       f"the fewest of the others {fewest}")
    return lead + f"{name} is played"


# --- the rules for players ---------------------------------------------------------------------------------
# Written for the table ("the total", P0.., no engine words); each sentence names the rule book items it says
# (docs/rules.md, numbered by rules_text.book_items), and tests/web/test_player_rules.py checks that every item
# of the book's player sections is said here or in OPTIONS. CARDS: per card kind, the explanation shown where the
# card is seen (the hand, the last card played, the rules).

CARDS = (
    (tuple(range(8)), ("2.4.1",), "A number card adds its number to the total (a 0 adds nothing, but it is the "
                                  "answer to a Bomb)."),
    ((8,), ("2.4.4",), "Reverse: the direction of play turns round, and the next player in the new direction plays. "
                       "With two players left it hands the turn to the other player, like Pass Me By."),
    ((9,), ("2.4.6",), "=21: the total becomes 21 (it may be played even at 21)."),
    ((10,), ("2.4.5",), "Skip: the next player misses their turn and the one after plays; with two players left, you "
                        "play again."),
    ((11,), ("2.4.3",), "Pass Me By: nothing happens; the turn passes on as usual."),
    ((12,), ("2.4.6",), "=0: the total becomes 0."),
    ((13,), ("2.4.6",), "=10: the total becomes 10, up or down."),
    ((14,), ("2.4.2",), "Draw 1: every other player still in takes 1 card from the draw pile."),
    ((15,), ("2.4.2",), "Draw 2: every other player still in takes 2 cards from the draw pile."),
    ((16,), ("2.4.7",), "Hand In & Re-Deal: everyone still in, you too, hands in all their cards; they are shuffled "
                        "and dealt one at a time, starting with the player on your left and going clockwise, you last, "
                        "until none is left. The total becomes 0 and the turn passes on; played as your last card, it "
                        "simply makes you go out."),
    ((17,), ("2.4.8", "2.4.8c"), "Bomb: every other player still in, in turn order, throws away one 0 (done for "
                                 "them); each one without a 0 loses a life. Then the total becomes 0 and the turn passes "
                                 "on. A player whose 0 was their last card has gone out."),
)

RULES = PlayerRules(
    title="5 Alive",
    intro="Lay cards on a shared running total that must never go above 21. If you cannot play you lose one of your "
          "5 lives, and when a player empties their hand everyone still holding cards loses one. Lose all five and "
          "you are out; the last player left wins.",
    sections=(
        ("The cards", (
            (("2.1.1",), "A deck of 77 cards: the numbers 0 to 4 (8 of each), 5 (4 cards), 6 (2) and 7 (1), and 30 "
                         "special cards: Reverse (6), =21 (5), Skip (4), Pass Me By (4), =0 (3), =10 (2), Draw 1 (2), "
                         "Draw 2 (2), Hand In & Re-Deal (1) and Bomb (1). Each player also has 5 lives, which are "
                         "never shuffled in."),
            (("2.1.2",), "Another edition's deck can be played with other counts of each card (at least 10 cards per "
                         "player, at most 255 in all)."),
        )),
        ("Setting up", (
            (("2.2.1",), "Everyone starts with 5 lives. The total starts at 0 and play goes clockwise: P0, P1, P2, ..."),
            (("2.2.2",), "Each player gets 10 cards; the rest is the face-down draw pile."),
            (("2.2.3",), "The printed rules let the oldest player start; here the first player is drawn at random."),
        )),
        ("Your turn", (
            (("2.3.1",), "A special card may always be played. A number may be played only if it keeps the total at 21 "
                         "or below: at 21 only a 0 fits, and =21 may be played even at 21."),
            (("2.3.3",), "You play exactly one card onto the discard pile, and it takes effect."),
            (("2.3.2",), "If none of your cards may be played, you bust: you lose a life, keep your hand, the total "
                         "goes back to 0, and the turn passes on."),
            (("2.3.5",), "Then the turn passes to the next player still in, in the current direction (after a Skip, "
                         "to the one after)."),
            (("2.3.4",), "Going out: once a card has fully taken effect (a Bomb after all its answers), if a player has "
                         "no card left, the round ends at once."),
        )),
        ("The end of a round", (
            (("2.5.1", "2.5.1a"), "When someone goes out, every other player still holding cards loses a life, all at "
                                  "the same time."),
            (("2.5.2",), "The player who went out deals the next round (if several went out at once: the player whose "
                         "card ended the round, if among them, otherwise the first of them in turn order). All 77 cards "
                         "are shuffled, everyone still in gets 10, and the total is 0."),
            (("2.5.3", "2.5.3a"), "Play goes clockwise again and the player after the dealer starts. The first round "
                                  "has no dealer: its first player is drawn at random."),
        )),
        ("Lives and winning", (
            (("2.3.6", "2.6.1"), "A player who loses their fifth life is out at once; when one player (or none) is "
                                 "left, the game is over, even in the middle of a round."),
            (("2.6.1a", "2.6.1b"), "Their cards go onto the discard pile, under its top card, so the last card played "
                                   "stays on top."),
            (("2.4.8d",), "A Bomb's lives are lost one player at a time, in turn order, so a game can end in the "
                          "middle of a Bomb; the thrown-away 0s go onto the discard pile, the last one on top."),
            (("2.6.2",), "The last player left wins. Outside teams your own card never costs you a life, so someone "
                         "always survives; in teams a Bomb or a bust can cost your own team its last life, and then "
                         "your team loses."),
        )),
        ("Variants", (
            (("2.7.1",), "Sudden death: the game ends as soon as any player loses a fifth life. The player with the "
                         "most lives left wins; a tie goes to the lowest sum of the number cards left in hand."),
            (("2.7.1a",), "In that sum a special card counts 0 (an option below changes it)."),
            (("2.7.1b",), "If players are still tied, the first of them in turn order from the player who ended the "
                          "game wins."),
            (("2.7.2",), "Teams: 4 or 6 players in two teams sitting alternately, P0, P2, P4 against P1, P3, P5. Each "
                         "team shares one set of 5 lives; each player has their own hand. When a player goes out, the "
                         "other team loses a life, and nobody loses a life for cards left in hand. A Bomb costs a team "
                         "one life for each of its players without a 0."),
            (("2.7.2a", "2.7.2b"), "A bust costs the buster's team a life; a team that loses its last life loses the "
                                   "game."),
            (("2.7.2c",), "If several players go out at once, each costs the other team a life in turn, and the first "
                          "team to reach 0 lives loses."),
        )),
        ("What you see", (
            (("2.8.1",), "You see your own hand, the total, the direction, whose turn it is, everyone's lives and "
                         "number of cards, the size of the draw pile, and every card played since the last shuffle."),
            (("2.8.2",), "You never see the other hands or the order of the draw pile."),
        )),
    ),
    cards=CARDS,
)

OPTIONS = {
    "variant": Option("Variant", "Standard (the last player left wins), sudden death or teams: see Variants.",
                      {"standard": "standard", "sudden_death": "sudden death", "teams": "teams"}),
    "first_player": Option("First player", "Who starts the first round: a player drawn at random (the usual rule "
                           "here), or P0.", {"random": "drawn at random", "seat0": "P0"}, ("2.2.3",)),
    "allow_voluntary_bust": Option("Bust any time", "Ticked: you may choose to bust (and lose a life) even when you "
                                   "could play.", covers=("2.3.2a",)),
    "bomb_zero_optional": Option("Answer a Bomb yourself", "Ticked: after a Bomb every other player answers in turn, "
                                 "throwing away a 0 or losing a life (without a 0, losing a life is the only answer), "
                                 "so the answers never show who holds a 0. Unticked (the usual rule): your 0 is "
                                 "thrown away for you.", covers=("2.4.8a",)),
    "bomb_last_card_resolves": Option("A Bomb as the last card is answered", "Ticked (the usual rule): a Bomb played "
                                      "as someone's last card is answered first, its lives lost, and then the round "
                                      "ends. Unticked: the round ends at once, with no answers.", covers=("2.4.8b",)),
    "draw_order": Option("Drawing order", "For Draw 1 and Draw 2, starting with the next player in the current "
                         "direction: each player draws all their cards before the next (the usual rule), or one card "
                         "at a time around the table.",
                         {"each": "each player all at once", "round_robin": "one card at a time around the table"},
                         ("2.4.2a",)),
    "empty_draw_pile": Option("Empty draw pile", "When the draw pile runs out, the discard pile (all but its top "
                              "card) is shuffled into a new draw pile (the usual rule), or no new pile is made; draws "
                              "with nothing to draw are skipped.",
                              {"reshuffle": "shuffle the discard pile in", "skip": "skip the draws"}, ("2.4.9",)),
    "max_reshuffles": Option("New draw piles per round", "At most this many new draw piles in one round (50 unless "
                             "you change it); after that, draws from an empty pile are skipped, so every round ends.",
                             covers=("2.4.10",)),
    "new_round_start": Option("Who starts a round", "The player after the dealer (the usual rule), or the dealer.",
                              {"after_dealer": "the player after the dealer", "dealer": "the dealer"}, ("2.5.3",)),
    "new_round_direction": Option("Direction in a new round", "Clockwise again (the usual rule), or the direction "
                                  "the last round ended with.",
                                  {"clockwise": "clockwise", "keep": "as the last round ended"}, ("2.5.3",)),
    "tiebreak_wild_value": Option("Sudden death: special cards count", "In a sudden-death tie, what each special card "
                                  "left in hand adds to the sum (0 unless you change it).", covers=("2.7.1a",)),
    "final_tiebreak": Option("Sudden death: still tied", "If players are still tied: the first of them in turn order "
                             "from the player who ended the game wins (the usual rule), or they all win.",
                             {"turn_order": "first in turn order", "shared": "they all win"}, ("2.7.1b",)),
    "reward": Option("Learning bots' reward", "How a learning bot is scored while it trains; it does not change the "
                     "game.", {"win_loss": "winning or losing", "lives": "lives lost", "win_loss+lives": "both"}),
    "max_steps": Option("Move limit", "A safety net: a game still on after this many moves is stopped (a game with "
                        "the usual deck never gets near it)."),
}


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
    rules=RULES,
    options=OPTIONS,
    hint_reason=hint_reason,
    hint_cost=hint_cost,
)
