"""Take 5 constants, the action codec and the game state (docs/rules.md section 1).

Card ids are 0..103 for the cards numbered 1..104 (card number = id + 1).

Action codec (one space for every decision; ``NUM_ACTIONS`` = 109):

| id       | meaning                                                        |
|----------|----------------------------------------------------------------|
| 0..103   | play (or, in the draft, take) the card with number id + 1       |
| 104..107 | take row 0..3 (only when your card is lower than every row end) |
| 108      | wait: parallel env only, for a player with nothing to decide    |
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

NUM_CARDS = 104
HAND_SIZE = 10
NUM_ROWS = 4
ROW_LIMIT = 5  # a 6th card takes the row
NUM_TRICKS = HAND_SIZE
ACTION_ROW0 = 104
ACTION_WAIT = 108
NUM_ACTIONS = 109

# Phases of the state machine.
DRAFT, PLAY, ROW_CHOICE, OVER = 0, 1, 2, 3

# Where a card is in the batched engine's state (``positions.SCHEMA``'s ``loc``): 0..9 the seat holding it,
# or one of these. QUEUE and SEEN (the cards seen this round) are the highest codes, so "seen" is one test.
PENDING, POOL, ASIDE, OUT, QUEUE, SEEN = 10, 11, 12, 13, 15, 16
PHASE_NAMES = ("draft", "play", "row choice", "over")


def bullheads_of(number: int) -> int:
    """Bull heads on the card with this number (1..104), docs/rules.md 1.1: the first matching line applies."""
    if number == 55:
        return 7
    if number % 11 == 0:
        return 5
    if number % 10 == 0:
        return 3
    if number % 5 == 0:
        return 2
    return 1


BULLHEADS: np.ndarray = np.array([bullheads_of(i + 1) for i in range(NUM_CARDS)], dtype=np.int64)
"""``BULLHEADS[id]``: bull heads of card id (number id + 1)."""
BULLHEADS.setflags(write=False)
BULL: tuple[int, ...] = tuple(int(b) for b in BULLHEADS)  # the same, as Python ints for scalar code
TOTAL_BULLHEADS = int(BULLHEADS.sum())  # 171


def card_action(card_id: int) -> int:
    return card_id


def row_action(row: int) -> int:
    return ACTION_ROW0 + row


@dataclass
class Take5State:
    """One Take 5 game, mutated in place by ``engine.step``.

    Fields (n = number of players; card ids 0..103):
        seed: the game's seed; ``counter``: random events used so far (see ``core.seeding``).
        round: rounds completed (0 during the first round).
        trick: tricks completed in this round, 0..10.
        phase: DRAFT, PLAY, ROW_CHOICE or OVER.
        current: the acting player, -1 when the game is over.
        hands: int8 [n, 109]; ``hands[p, c] == 1`` iff player p holds card c (columns 104.. are 0, so
            ``hands[p]`` is also p's action mask while choosing a card).
        hand_size: cards each player holds (a chosen, unrevealed card is no longer in hand).
        pending: the card id each player chose this trick, -1 if not yet chosen.
        rows: the 4 rows as lists of card ids in placement order (1..5 cards each).
        queue: (card, player) pairs revealed this trick and not yet placed, ascending.
        trick_cards: card ids revealed this trick (empty until the trick is revealed).
        seen: int8 [104], cards revealed this round (row starters, played cards, so penalty piles too).
        taken: the cards each player took into their penalty pile this round.
        pool: int8 [109], the face-up draft pool (all 0 outside the draft).
        set_aside: the cards dealt to nobody this round (unseen by everyone).
        scores: penalty points of earlier rounds plus, once a round ends, that round.
        round_pen: penalty points taken in the current (or, once over, the last) round.
        view: float32 [n, observation size], every player's current observation, kept up to date by the
            engine once ``observation.observe`` has built it; None means "not built" (the engine
            then skips the upkeep, which is what search rollouts want).
    Invariant: every card of the deck is in exactly one of hands, pending, rows, taken, pool, set_aside.
    """

    num_players: int
    seed: int
    counter: int = 0
    round: int = 0
    trick: int = 0
    phase: int = PLAY
    current: int = 0
    hands: np.ndarray = field(default_factory=lambda: np.zeros((0, NUM_ACTIONS), np.int8))
    hand_size: list[int] = field(default_factory=list)
    pending: list[int] = field(default_factory=list)
    rows: list[list[int]] = field(default_factory=list)
    queue: list[tuple[int, int]] = field(default_factory=list)
    trick_cards: list[int] = field(default_factory=list)
    seen: np.ndarray = field(default_factory=lambda: np.zeros(NUM_CARDS, np.int8))
    taken: list[list[int]] = field(default_factory=list)
    pool: np.ndarray = field(default_factory=lambda: np.zeros(NUM_ACTIONS, np.int8))
    set_aside: list[int] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    round_pen: list[int] = field(default_factory=list)
    view: np.ndarray | None = None  # float32 [n, obs]: every player's observation (observation.py)

    def clone(self, view: bool = True) -> "Take5State":
        """An independent copy (arrays and lists copied; cheap: no deepcopy). ``view=False`` drops the
        observation buffer (rebuilt on demand), for simulations that never observe."""
        return Take5State(
            self.num_players, self.seed, self.counter, self.round, self.trick, self.phase,
            self.current, self.hands.copy(), self.hand_size[:], self.pending[:],
            [r[:] for r in self.rows], self.queue[:], self.trick_cards[:], self.seen.copy(),
            [t[:] for t in self.taken], self.pool.copy(), self.set_aside[:], self.scores[:],
            self.round_pen[:], self.view.copy() if view and self.view is not None else None,
        )

    def hand(self, player: int) -> list[int]:
        """Card ids in the player's hand, ascending."""
        return [int(c) for c in np.flatnonzero(self.hands[player, :NUM_CARDS])]

    def card_locations(self) -> dict[int, str]:
        """Where each card of the deck is (``"hand:p"``, ``"pending:p"``, ``"row:r"``, ``"taken:p"``,
        ``"pool"``, ``"set_aside"``); used by invariant tests."""
        loc: dict[int, str] = {}

        def put(c: int, where: str) -> None:
            if c in loc:
                raise AssertionError(f"card {c + 1} is both in {loc[c]} and {where}")
            loc[c] = where

        for p in range(self.num_players):
            for c in self.hand(p):
                put(c, f"hand:{p}")
            if self.pending[p] >= 0:
                put(self.pending[p], f"pending:{p}")
            for c in self.taken[p]:
                put(c, f"taken:{p}")
        for c, p in self.queue:
            put(c, f"pending:{p}")
        for r, row in enumerate(self.rows):
            for c in row:
                put(c, f"row:{r}")
        for c in np.flatnonzero(self.pool[:NUM_CARDS]):
            put(int(c), "pool")
        for c in self.set_aside:
            put(c, "set_aside")
        return loc
