"""5 Alive constants, the action codec and the game state (docs/rules.md section 2).

Cards of one kind are identical, so a card is its kind (0..17) and every pile is counted per kind.

Action codec (one space for every decision; ``NUM_ACTIONS`` = 19):

| id | kind / meaning     | legal when (PLAY phase)                     | effect                                 |
|----|--------------------|---------------------------------------------|----------------------------------------|
| 0  | number 0           | held                                        | T += 0                                 |
| 1  | number 1           | held and T + 1 <= 21                        | T += 1                                 |
| .. | ...                | ...                                         | ...                                    |
| 7  | number 7           | held and T + 7 <= 21                        | T += 7                                 |
| 8  | Reverse            | held                                        | direction flips                        |
| 9  | =21                | held (also when T is already 21)            | T = 21                                 |
| 10 | Skip               | held                                        | the next survivor is skipped           |
| 11 | Pass Me By         | held                                        | none                                   |
| 12 | =0                 | held                                        | T = 0                                  |
| 13 | =10                | held                                        | T = 10                                 |
| 14 | Draw 1             | held                                        | every other survivor draws 1           |
| 15 | Draw 2             | held                                        | every other survivor draws 2           |
| 16 | Hand In & Re-Deal  | held                                        | hands re-dealt, T = 0                  |
| 17 | Bomb               | held                                        | others discard a 0 or lose a life; T=0 |
| 18 | BUST               | no card playable (always: voluntary bust)   | lose a life, T = 0                     |

Bomb answers (phase BOMB_ANSWER, only with ``bomb_zero_optional=True``): every other survivor answers
in turn order, reusing ids: **0** = discard one 0 (legal only for a responder holding one), **18**
(BUST) = lose a life (always legal; a responder without a 0 has only this one).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from fiveplay_env.core.layout import Layout, N, Piece
from fiveplay_env.five_alive.config import HAND_SIZE, KIND_KEYS, KIND_NAMES, LIVES, NUM_KINDS  # noqa: F401

# Kinds (= action ids 0..17).
N0, N1, N2, N3, N4, N5, N6, N7 = range(8)
REVERSE, EQ21, SKIP, PASS, EQ0, EQ10, DRAW1, DRAW2, REDEAL, BOMB = range(8, 18)
BUST = 18
NUM_ACTIONS = 19
ACTION_NAMES: tuple[str, ...] = (*KIND_NAMES, "BUST")
MAX_TOTAL = 21
NUM_NUMBERS = 8  # kinds 0..7 are the numbers 0..7 (a number card's kind is its value)

# Phases of the state machine.
PLAY, BOMB_ANSWER, OVER = 0, 1, 2
PHASE_NAMES = ("play", "bomb answer", "over")

WILD_BITS = sum(1 << k for k in range(NUM_NUMBERS, NUM_KINDS))
PLAYABLE_BITS: tuple[int, ...] = tuple(
    WILD_BITS | sum(1 << v for v in range(NUM_NUMBERS) if t + v <= MAX_TOTAL) for t in range(MAX_TOTAL + 1)
)
"""``PLAYABLE_BITS[T]``: bit k set iff a card of kind k may be played at total T (docs/rules.md 2.3.1)."""
BUST_BIT = 1 << BUST
ANSWER_BITS = (1 << N0) | BUST_BIT  # the two Bomb answers
ALL_KIND_BITS = (1 << NUM_KINDS) - 1  # every card kind (a fact that rules nothing out)

# --- the table: a float32 mirror of the numeric state, in absolute seats -------------------------------
# The engine keeps ``state.tab`` equal to ``build_table(state)`` after every change, so an observation is
# one gather (``observation.py`` derives it from the two layouts, piece by piece, by name).
TABLE = Layout((
    Piece("discard", NUM_KINDS, "cards of each kind in the discard pile"),
    Piece("top", NUM_KINDS, "one-hot kind of the discard pile's top card (all 0 when it has none)"),
    Piece("total", MAX_TOTAL + 1, "one-hot T = 0..21"),
    Piece("direction", 1, "1.0 clockwise (seat + 1), 0.0 counter-clockwise"),
    Piece("draw_pile", 1, "cards in the draw pile"),
    Piece("phase", 2, "one-hot play, bomb answer (both 0 once the game is over)"),
    Piece("turn", N, "one-hot absolute seat of the acting player"),
    Piece("lives", N, "lives left per seat"),
    Piece("hand_sizes", N, "cards in hand per seat"),
    Piece("hands", NUM_KINDS * N, "cards of each kind in each hand, seat-major (seat p at 18p)"),
))
"""The layout of ``state.tab`` (absolute seats), declared once; the offsets below are computed from it."""
TAB_DISCARD, TAB_TOP, TAB_TOTAL, TAB_DIRECTION, TAB_DRAW, TAB_PHASE, TAB_FIXED = (
    TABLE.start(name) for name in ("discard", "top", "total", "direction", "draw_pile", "phase", "turn"))
# TAB_FIXED is the end of the seat-independent part: then TAB_FIXED + 0n: n turn one-hot; + n: n lives;
# + 2n: n hand sizes; + 3n: n x 18 hands (seat-major)


def tab_offsets(n: int) -> tuple[int, int, int, int, int]:
    """(turn, lives, sizes, hands, total size) offsets of the per-seat pieces of the table."""
    sp = TABLE.spans(n)
    return sp["turn"][0], sp["lives"][0], sp["hand_sizes"][0], sp["hands"][0], TABLE.size(n)


@dataclass
class FiveAliveState:
    """One 5 Alive game, mutated in place by ``engine.step``.

    Fields (n = number of players, seats 0..n-1; K = 18 kinds):
        seed, counter: the game's seed and the random events used so far (``core.seeding``).
        round: rounds completed (0 during the first round).
        reshuffles: reshuffles of the discard pile in this round (``config.max_reshuffles`` bounds them).
        turns: decisions taken so far in the game (every step, Bomb answers included).
        phase: PLAY, BOMB_ANSWER or OVER.
        current: the acting player (-1 once the game is over).
        direction: +1 clockwise (seat + 1) or -1.
        total: the running total T, 0..21.
        hands: [n][K] cards of each kind in each hand (Python ints; eliminated players hold none).
        hand_size: [n] ``sum(hands[p])``.
        held: [n] bit k set iff ``hands[p][k] > 0`` (the mask is cut from it).
        draw: the draw pile as kinds; ``draw[-1]`` is the next card drawn (order hidden from everyone).
        discard: [K] cards of each kind in the discard pile (the cards played since the last shuffle).
        discard_size: ``sum(discard)``.
        top: kind of the discard pile's top card (the last card played or discarded onto it), -1 if none.
        lives: [n] lives left, 0..5 (teams: the team's lives, equal for both members' seats).
        alive: [n] still in the game (standard: lives > 0; teams and sudden death end the game instead).
        n_alive: ``sum(alive)``.
        bomber: the player whose Bomb is being answered (-1 otherwise).
        bomb_queue: responders still to answer, the next one first (a decision only with
            ``bomb_zero_optional``; the current responder is already popped).
        winners: the winning players once the game is over (teams: the winning team's seats).
        result: [n] each player's final result, +1 won / -1 lost, 0 while undecided (an eliminated
            player's -1 is decided at its elimination).
        free_bust: ``BUST_BIT`` if ``allow_voluntary_bust`` (BUST legal on every turn), else 0.
        known: [n] public knowledge about each hand: ``{allowed_bits: c}`` = "at least c of the cards in
            this hand are of kinds in allowed_bits" (from forced busts, Bomb answers; see
            ``five_alive.knowledge``). Cleared when hands are re-dealt.
        draw_cap: [n] for observer o, None or [K] upper bounds on the draw pile's kinds that o knows of
            (after a reshuffle it was exactly the reshuffled cards; a Re-Deal tells o which of its own
            cards went to other hands; ``five_alive.knowledge``). Used by ``five_alive.determinize``.
        tab: float32 mirror of the numeric state (layout above), kept in sync by the engine.
        ev_*: what the last step did (the event log: ``five_alive.events``).
    Invariants: for every kind, hands + draw pile + discard pile hold exactly ``deck_counts[k]`` cards;
    ``tab == build_table(state)``; a surviving player's hand is empty only at the end of a round.
    """

    num_players: int
    seed: int
    counter: int = 0
    round: int = 0
    reshuffles: int = 0
    turns: int = 0
    phase: int = PLAY
    current: int = 0
    direction: int = 1
    total: int = 0
    hands: list[list[int]] = field(default_factory=list)
    hand_size: list[int] = field(default_factory=list)
    held: list[int] = field(default_factory=list)
    draw: list[int] = field(default_factory=list)
    discard: list[int] = field(default_factory=lambda: [0] * NUM_KINDS)
    discard_size: int = 0
    top: int = -1
    lives: list[int] = field(default_factory=list)
    alive: list[bool] = field(default_factory=list)
    n_alive: int = 0
    bomber: int = -1
    bomb_queue: list[int] = field(default_factory=list)
    winners: list[int] = field(default_factory=list)
    result: list[int] = field(default_factory=list)
    free_bust: int = 0
    known: list[dict[int, int]] = field(default_factory=list)
    draw_cap: list[list[int] | None] = field(default_factory=list)
    tab: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    # What the last step did (reset at the start of each step).
    ev_player: int = -1
    ev_action: int = -1
    ev_answer: bool = False
    ev_rare: bool = False  # any of the lists below is non-empty
    ev_drawn: list[int] = field(default_factory=list)      # one entry per card drawn: the drawer
    ev_reshuffled: list[int] = field(default_factory=list)  # cards moved into the draw pile, per reshuffle
    ev_zeros: list[int] = field(default_factory=list)      # players who discarded a 0 to the Bomb
    ev_losses: list[int] = field(default_factory=list)     # one entry per life lost, per seat
    ev_elim: list[int] = field(default_factory=list)       # players eliminated
    ev_out: list[int] = field(default_factory=list)        # players who went out (the round ended)
    ev_settled: list[int] = field(default_factory=list)    # players whose result was decided
    ev_dealer: int = -1                                    # the new round's dealer, -1 if none

    def clone(self) -> "FiveAliveState":
        """An independent copy (lists and arrays copied; cheap: no deepcopy)."""
        return FiveAliveState(
            self.num_players, self.seed, self.counter, self.round, self.reshuffles, self.turns, self.phase, self.current,
            self.direction, self.total, [h[:] for h in self.hands], self.hand_size[:], self.held[:],
            self.draw[:], self.discard[:], self.discard_size, self.top, self.lives[:], self.alive[:],
            self.n_alive, self.bomber, self.bomb_queue[:], self.winners[:], self.result[:], self.free_bust,
            [d.copy() if d else {} for d in self.known],
            [c[:] if c is not None else None for c in self.draw_cap],
            self.tab.copy(), self.ev_player, self.ev_action, self.ev_answer, self.ev_rare,
            self.ev_drawn[:], self.ev_reshuffled[:], self.ev_zeros[:], self.ev_losses[:], self.ev_elim[:],
            self.ev_out[:], self.ev_settled[:], self.ev_dealer,
        )

    def hand(self, player: int) -> list[int]:
        """The player's hand as a sorted list of kinds (one entry per card)."""
        return [k for k in range(NUM_KINDS) for _ in range(self.hands[player][k])]

    def draw_counts(self) -> list[int]:
        """[K] cards of each kind in the draw pile."""
        counts = [0] * NUM_KINDS
        for k in self.draw:
            counts[k] += 1
        return counts

    def card_counts(self) -> list[int]:
        """[K] cards of each kind in hands, draw pile and discard pile together (== deck_counts)."""
        counts = self.draw_counts()
        for h in self.hands:
            for k in range(NUM_KINDS):
                counts[k] += h[k]
        for k in range(NUM_KINDS):
            counts[k] += self.discard[k]
        return counts

    def team_of(self, player: int) -> int:
        """Teams variant: 0 for seats 0, 2, 4 and 1 for seats 1, 3, 5."""
        return player % 2


def build_table(state: FiveAliveState) -> np.ndarray:
    """float32: the table (layout above) computed from scratch from the state's other fields."""
    n = state.num_players
    top = [0.0] * NUM_KINDS
    if state.top >= 0:
        top[state.top] = 1.0
    total = [0.0] * (MAX_TOTAL + 1)
    total[state.total] = 1.0
    phase = [0.0, 0.0]
    turn = [0.0] * n
    if state.phase != OVER:
        phase[state.phase] = 1.0
        turn[state.current] = 1.0
    values = [*state.discard, *top, *total, 1.0 if state.direction == 1 else 0.0, len(state.draw), *phase,
              *turn, *state.lives, *state.hand_size]
    for h in state.hands:
        values += h
    return np.array(values, np.float32)


def expand(counts: list[int]) -> list[int]:
    """A multiset given per kind as its canonical list (kinds ascending, one entry per card)."""
    return [k for k in range(NUM_KINDS) for _ in range(counts[k])]


def bits_of(hand: list[int]) -> int:
    """The held bits of a hand: bit k set iff it holds a card of kind k."""
    bits = 0
    for k in range(NUM_KINDS):
        if hand[k]:
            bits |= 1 << k
    return bits


def refresh_hands(state: FiveAliveState) -> None:
    """Recompute ``hand_size`` and ``held`` from ``hands`` (for code that edits hands directly)."""
    for p, h in enumerate(state.hands):
        state.hand_size[p] = sum(h)
        state.held[p] = bits_of(h)


def refresh(state: FiveAliveState) -> None:
    """Recompute every derived field (hand sizes, held bits, discard size, table) from the primary
    ones. Hand-built scenarios (tests) and re-dealt worlds (``determinize``) set hands, piles, T,
    lives... and then call this."""
    refresh_hands(state)
    state.discard_size = sum(state.discard)
    state.n_alive = sum(state.alive)
    state.tab = build_table(state)
