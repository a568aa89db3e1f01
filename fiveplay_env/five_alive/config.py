"""5 Alive configuration: every field of docs/rules.md section 2, frozen and validated.

Every [D] choice of docs/rules.md section 2 that has a meaningful alternative is a field here; its default is
the rule book's choice. Three [D] lines are consequences of the other rules with no consistent
alternative and are fixed (documented in ``fiveplay_env.five_alive.engine``): a responder whose Bomb
answer discards their last card has gone out; an eliminated player's hand goes to the discard pile
(beneath its top card, so the last card played stays on top); in teams a bust costs the buster's team
one life.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from fiveplay_env.core.config import check_bool, check_choice, check_int, set_fields, show_value

MIN_PLAYERS, MAX_PLAYERS = 2, 6
HAND_SIZE = 10
LIVES = 5

# Card kinds, in action-id order (docs/rules.md 2.1 table order): the numbers 0..7, then the ten wild kinds.
KIND_KEYS: tuple[str, ...] = (
    "n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7",
    "reverse", "eq21", "skip", "pass", "eq0", "eq10", "draw1", "draw2", "redeal", "bomb",
)
KIND_NAMES: tuple[str, ...] = (
    "0", "1", "2", "3", "4", "5", "6", "7",
    "Reverse", "=21", "Skip", "Pass Me By", "=0", "=10", "Draw 1", "Draw 2", "Hand In & Re-Deal", "Bomb",
)
NUM_KINDS = len(KIND_KEYS)  # 18
DEFAULT_DECK: tuple[int, ...] = (8, 8, 8, 8, 8, 4, 2, 1, 6, 5, 4, 4, 3, 2, 2, 2, 1, 1)  # 77 cards
MAX_RESHUFFLES = 1000  # the largest max_reshuffles
MAX_DECK = 255  # counts are stored in small ints and observations; far above any printed edition
DEFAULT_MAX_STEPS = 10_000
"""The default ``max_steps``: 27 times the longest of 78,000 random rule-book games (2 to 6 players, every
variant and preset: at most 367 decisions; measured with the batched engine and ``vector.random_actions``)."""
MAX_STEPS_LIMIT = 10**9  # the largest max_steps (the batched engine counts decisions in int32)

VARIANTS = ("standard", "sudden_death", "teams")
TEAM_SIZES = (4, 6)
FIRST_PLAYERS = ("random", "seat0")
DRAW_ORDERS = ("each", "round_robin")
EMPTY_DRAW_PILES = ("reshuffle", "skip")
NEW_ROUND_STARTS = ("after_dealer", "dealer")
NEW_ROUND_DIRECTIONS = ("clockwise", "keep")
FINAL_TIEBREAKS = ("turn_order", "shared")
REWARDS = ("win_loss", "lives", "win_loss+lives")


@dataclass(frozen=True)
class FiveAliveConfig:
    """The rules in force for one 5 Alive game (docs/rules.md section 2; defaults are the [D] choices).

    Attributes:
        num_players: 2..6 (``variant="teams"``: 4 or 6).
        variant: ``"standard"`` (last survivor wins), ``"sudden_death"`` (the game ends when the first
            player loses the 5th life; most lives wins, then the lowest sum of number cards in hand) or
            ``"teams"`` (seats 0, 2, 4 against 1, 3, 5, each team sharing 5 lives).
        first_player: who starts the first round: ``"random"`` (one seeded draw) or ``"seat0"``.
        allow_voluntary_bust: True makes BUST legal on every turn, not only when no card is playable.
        bomb_zero_optional: True: every Bomb responder answers as a step of their own, in turn order
            (discard a 0, or lose a life; one without a 0 has only the second), so the turns never
            reveal who holds a 0; False: a 0 is discarded automatically.
        deck_counts: how many cards of each kind the playing deck holds, in kind order (``KIND_KEYS``).
            Given as a sequence of 18 counts or as a mapping from kind key to count (kinds it does not
            name keep the docs/rules.md 2.1 count). Must hold at least 10 cards per player.
        bomb_last_card_resolves: True (docs/rules.md): a Bomb that was the bomber's last card is still
            answered (its losses happen) before the round ends; False: the round ends at once.
        draw_order: Draw 1 / Draw 2: ``"each"`` (in turn order from the next player, each drawer takes
            all their cards before the next) or ``"round_robin"`` (one card at a time around the table).
        empty_draw_pile: ``"reshuffle"`` (shuffle the discard pile except its top card into a new draw
            pile; draws that still find nothing are skipped) or ``"skip"`` (never reshuffle).
        max_reshuffles: at most this many reshuffles per round (0..1000); once they are spent, draws
            from an empty draw pile are skipped, as with ``"skip"``. This bound is what guarantees that
            every round ends whatever the deck: without it a deck rich in Draw cards (for example only
            Draw cards) recycles the discard pile into the hands forever and no round ends. With it
            every round ends within ``round_decision_bound`` card decisions (each card played leaves
            the hands, the draws are bounded, every BUST or Bomb loss costs a life), and every round
            costs a life unless all survivors go out at once (``rules_decision_bound``; ``max_steps``
            bounds the whole game). The default, 50, is far beyond what the rule book's deck reaches (at
            most 11 in one round, measured over 1,500 random 6-player games), so it never changes a
            game of the rule book's deck in practice.
        new_round_start: who starts a new round: ``"after_dealer"`` (the next survivor clockwise from
            the dealer) or ``"dealer"``.
        new_round_direction: ``"clockwise"`` (the direction resets) or ``"keep"``.
        tiebreak_wild_value: sudden death: what a wild card in hand adds to the hand's number sum in
            the tie-break (docs/rules.md: 0).
        final_tiebreak: sudden death, when lives and hand sums are both tied: ``"turn_order"`` (the first
            of them in turn order from the player whose action ended the game wins) or ``"shared"``
            (all of them win).
        reward: ``"win_loss"`` (+1 to the winner or winning team, -1 to everyone else; an eliminated
            player gets its -1 when eliminated), ``"lives"`` (-1 per life lost, at the step it is lost;
            in teams every member of the team), or ``"win_loss+lives"`` (both, summed).
        max_cycles: if set, the AEC env truncates every agent once a player has made this many decisions
            (PettingZoo's convention: each agent acts at most max_cycles times).
        max_steps: the most decisions a game may take (1..10**9, or None for no limit; default 10,000):
            a game that has not ended by its rules after ``max_steps`` decisions (every step: cards,
            BUSTs and Bomb answers) ends there, *truncated*: no winner, every undecided result stays 0
            (no reward), ``engine.truncated(state)`` is True. The reference engine, the batched engine
            (``terminated`` with ``info()["truncated"]``), the AEC env (``truncations``), records and
            tournaments (the ``truncated`` column) all end the game at the same step. No rule-book game
            comes near the default (the longest of 78,000 random ones: 367 decisions); it bounds the
            custom decks whose games could otherwise take millions of decisions (2 players, 255 Draw 1
            cards and ``max_reshuffles=1000``: about 2 million). ``max_decisions`` is the resulting bound.

    Bounds on a game's length (derived from the fields; ``tests/five_alive/test_five_alive_bounds_and_answers.py``
    checks them on random games of random configs): ``round_decision_bound`` per round and
    ``rules_decision_bound`` per game (None when the rules allow rounds that cost no life), and
    ``max_decisions``, the smaller of that and ``max_steps``.
    """

    num_players: int = 4
    variant: str = "standard"
    first_player: str = "random"
    allow_voluntary_bust: bool = False
    bomb_zero_optional: bool = False
    deck_counts: tuple[int, ...] = DEFAULT_DECK
    bomb_last_card_resolves: bool = True
    draw_order: str = "each"
    empty_draw_pile: str = "reshuffle"
    max_reshuffles: int = 50
    new_round_start: str = "after_dealer"
    new_round_direction: str = "clockwise"
    tiebreak_wild_value: int = 0
    final_tiebreak: str = "turn_order"
    reward: str = "win_loss"
    max_cycles: int | None = None
    max_steps: int | None = DEFAULT_MAX_STEPS

    def __post_init__(self) -> None:
        # each value is validated and stored as a plain Python value (numpy scalars are accepted)
        set_fields(self, num_players=check_int("num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS),
                   variant=check_choice("variant", self.variant, VARIANTS))
        if self.variant == "teams" and self.num_players not in TEAM_SIZES:
            raise ValueError(
                f"num_players: variant='teams' needs one of {list(TEAM_SIZES)} players, got {self.num_players}"
            )
        set_fields(
            self,
            first_player=check_choice("first_player", self.first_player, FIRST_PLAYERS),
            allow_voluntary_bust=check_bool("allow_voluntary_bust", self.allow_voluntary_bust),
            bomb_zero_optional=check_bool("bomb_zero_optional", self.bomb_zero_optional),
            deck_counts=_parse_deck(self.deck_counts, self.num_players),
            bomb_last_card_resolves=check_bool("bomb_last_card_resolves", self.bomb_last_card_resolves),
            draw_order=check_choice("draw_order", self.draw_order, DRAW_ORDERS),
            empty_draw_pile=check_choice("empty_draw_pile", self.empty_draw_pile, EMPTY_DRAW_PILES),
            max_reshuffles=check_int("max_reshuffles", self.max_reshuffles, 0, MAX_RESHUFFLES),
            new_round_start=check_choice("new_round_start", self.new_round_start, NEW_ROUND_STARTS),
            new_round_direction=check_choice("new_round_direction", self.new_round_direction, NEW_ROUND_DIRECTIONS),
            tiebreak_wild_value=check_int("tiebreak_wild_value", self.tiebreak_wild_value, 0, 21),
            final_tiebreak=check_choice("final_tiebreak", self.final_tiebreak, FINAL_TIEBREAKS),
            reward=check_choice("reward", self.reward, REWARDS),
            max_cycles=None if self.max_cycles is None else check_int("max_cycles", self.max_cycles, 1),
            max_steps=None if self.max_steps is None else check_int("max_steps", self.max_steps, 1, MAX_STEPS_LIMIT),
        )

    @property
    def deck_size(self) -> int:
        """Cards in the playing deck (77 with the docs/rules.md 2.1 table)."""
        return sum(self.deck_counts)

    @property
    def teams(self) -> bool:
        return self.variant == "teams"

    @property
    def life_losses_bound(self) -> int:
        """The most lives that can be lost in a game before it ends: teams 9 (4 + 4 and the last one),
        otherwise 5 per player (every player's five at most)."""
        return 2 * LIVES - 1 if self.variant == "teams" else LIVES * self.num_players

    @property
    def round_decision_bound(self) -> int:
        """The most card decisions (plays, and Bomb answers that discard a 0) in one round:
        ``D + R * (D - 1)`` for a D-card deck and R = ``max_reshuffles`` (0 with
        ``empty_draw_pile="skip"``). Each such decision takes one card out of the hands; cards enter the
        hands only from the deal and the draw pile (a Re-Deal moves them between hands), and the draw
        pile holds at most the D - 10m cards left after the deal plus D - 1 cards per reshuffle. The
        decisions that cost a life (BUST, a "lose a life" answer) come on top, at most
        ``life_losses_bound`` in the whole game."""
        d = self.deck_size
        r = self.max_reshuffles if self.empty_draw_pile == "reshuffle" else 0
        return d + r * (d - 1)

    @property
    def rules_decision_bound(self) -> int | None:
        """The most decisions a game can take by the rules alone (``max_steps`` aside), or None when the
        rules allow games of any length.

        A round ends when a survivor's hand is empty and costs a life (teams: someone went out, so the
        other team loses one; otherwise every survivor still holding cards loses one) unless every
        survivor goes out at once, which only a Bomb played as the bomber's last card can do (the others
        discarding their last card, a 0, to it): with ``bomb_last_card_resolves=True``, a Bomb and a 0 in
        the deck and ``variant != "teams"``, such rounds can repeat without end (None; the rule book's
        deck is one of these). Otherwise a game has at most L + 1 rounds (L = ``life_losses_bound``), so
        at most ``(L + 1) * round_decision_bound + L`` decisions."""
        counts = dict(zip(KIND_KEYS, self.deck_counts, strict=True))
        endless = (self.variant != "teams" and self.bomb_last_card_resolves
                   and counts["bomb"] > 0 and counts["n0"] > 0)
        if endless:
            return None
        lives = self.life_losses_bound
        return (lives + 1) * self.round_decision_bound + lives

    @property
    def max_decisions(self) -> int | None:
        """The most decisions a game under this config takes: ``max_steps`` or ``rules_decision_bound``,
        whichever is smaller (None only with ``max_steps=None`` and rules that allow endless games)."""
        rules = self.rules_decision_bound
        bounds = [b for b in (self.max_steps, rules) if b is not None]
        return min(bounds) if bounds else None


def _parse_deck(value: object, num_players: int) -> tuple[int, ...]:
    """``deck_counts`` as a tuple of 18 ints; raises ValueError naming the field."""
    if isinstance(value, np.ndarray):
        if value.ndim != 1:
            raise ValueError(f"deck_counts: expected {NUM_KINDS} counts, got an array of shape {value.shape}")
        value = list(value)
    if isinstance(value, Mapping):
        unknown = [k for k in value if not isinstance(k, str) or k not in KIND_KEYS]
        if unknown:
            raise ValueError(f"deck_counts: expected keys among {list(KIND_KEYS)}, got {unknown[0]!r}")
        counts = [value.get(k, d) for k, d in zip(KIND_KEYS, DEFAULT_DECK, strict=True)]
    elif isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        counts = list(value)
        if len(counts) != NUM_KINDS:
            raise ValueError(
                f"deck_counts: expected {NUM_KINDS} counts (kinds {list(KIND_KEYS)}), got {len(counts)}"
            )
    else:
        raise ValueError(
            f"deck_counts: expected a sequence of {NUM_KINDS} counts or a mapping kind -> count, got {show_value(value)}"
        )
    out = tuple(check_int(f"deck_counts[{KIND_KEYS[i]}]", c, 0, MAX_DECK) for i, c in enumerate(counts))
    total = sum(out)
    need = HAND_SIZE * num_players
    if total < need or total > MAX_DECK:
        raise ValueError(
            f"deck_counts: expected {need}..{MAX_DECK} cards in all (10 per player for {num_players} players), "
            f"got {total}"
        )
    return out


PRESETS: dict[str, FiveAliveConfig] = {
    "standard": FiveAliveConfig(),
    "two_player": FiveAliveConfig(num_players=2),
    "six_player": FiveAliveConfig(num_players=6),
    "sudden_death": FiveAliveConfig(variant="sudden_death"),
    "teams": FiveAliveConfig(variant="teams"),
    "teams_6": FiveAliveConfig(num_players=6, variant="teams"),
    "bomb_choice": FiveAliveConfig(bomb_zero_optional=True),
    "lives_reward": FiveAliveConfig(reward="lives"),
}
