"""Take 5 observation encoder: what docs/rules.md 1.5 lets a player see, as one flat float32 array.

Layout for ``n`` players (``LAYOUT``, declared once below; the table is its ``LAYOUT.table()``, checked
by the tests); the size is ``848 + 3n``, plus ``104 (n - 1)`` with ``draft=True``. Seat-indexed pieces
are player-relative: index 0 is the observer, then the following seats in order.

| offset | size     | piece     | meaning                                                            |
|--------|----------|-----------|--------------------------------------------------------------------|
| 0      | 104      | hand      | 1 where the observer holds card id (number id+1)                   |
| 104    | 104      | seen      | 1 for every card revealed this round (row starters, played, taken) |
| 208    | 104      | trick     | cards revealed in the current trick (set while its cards are       |
|        |          |           | placed, i.e. visible during a row choice)                          |
| 312    | 104      | pool      | the face-up draft pool (draft phase only)                          |
| 416    | 416      | rows      | 104 columns per row r = 0..3, in row order: 1 where card id lies   |
|        |          |           | in row r                                                           |
| 832    | 12       | row_stats | 3 columns per row r = 0..3, in row order: last card number/104,    |
|        |          |           | length/5, bull heads/10                                            |
| 844    | n        | scores    | each player's score / end_score (relative seats)                   |
| 844+n  | n        | round_pen | each player's penalty this round / end_score (relative seats)      |
| 844+2n | n        | seat      | one-hot of the observer's absolute seat (AEC choice order, draft   |
|        |          |           | order)                                                             |
| 844+3n | 3        | phase     | one-hot: draft, play, row choice (all 0 once the game is over)     |
| 847+3n | 1        | tricks    | tricks completed this round / 10                                   |
| 848+3n | 104(n-1) | others    | ``draft=True`` only: 104 per other player (relative seats 1..n-1), |
|        |          |           | 1 where that player holds card id, its unrevealed choice of this   |
|        |          |           | trick included (every draft pick is public: docs/rules.md 1.5)     |

Hidden: other players' hands (except with ``draft=True``, where every pick was made face up), which
card each of them chose for the current trick until the trick is revealed, and the set-aside cards.

Speed: ``state.view`` caches every player's observation (float32 [n, size]). It is built with a
handful of whole-table numpy operations when first needed after public information changed (the
engine sets it to None then: once per trick, row choice or draft pick) and, while players choose
their cards, the engine only clears the played card in its owner's row; so ``observe`` is one row
copy. Search rollouts that never observe never pay for it.
"""
from __future__ import annotations

import numpy as np

from fiveplay_env.core.layout import BITS, Code, Layout, N, Piece
from fiveplay_env.take5.config import MAX_PLAYERS, MIN_PLAYERS, PROFESSIONAL_MAX_PLAYERS, Take5Config
from fiveplay_env.take5.state import (
    BULL, BULLHEADS, DRAFT, NUM_CARDS, NUM_ROWS, NUM_TRICKS, OVER, ROW_LIMIT, Take5State,
)

LAYOUT = Layout((
    Piece("hand", NUM_CARDS, "1 where the observer holds card id (number id+1)", code=BITS),
    Piece("seen", NUM_CARDS, "1 for every card revealed this round (row starters, played, taken)", code=BITS),
    Piece("trick", NUM_CARDS, "cards revealed in the current trick (set while its cards are placed, i.e. "
          "visible during a row choice)", code=BITS),
    Piece("pool", NUM_CARDS, "the face-up draft pool (draft phase only)", code=BITS),
    Piece("rows", NUM_ROWS * NUM_CARDS, "104 columns per row r = 0..3, in row order: 1 where card id lies in row r",
          code=BITS),
    Piece("row_stats", 3 * NUM_ROWS, "3 columns per row r = 0..3, in row order: last card number/104, length/5, "
          "bull heads/10", code=Code(div=(float(NUM_CARDS), float(ROW_LIMIT), 10.0))),
    Piece("scores", N, "each player's score / end_score (relative seats)", code=Code(per="end_score")),
    Piece("round_pen", N, "each player's penalty this round / end_score (relative seats)", code=Code(per="end_score")),
    Piece("seat", N, "one-hot of the observer's absolute seat (AEC choice order, draft order)", code=BITS),
    Piece("phase", 3, "one-hot: draft, play, row choice (all 0 once the game is over)", code=BITS),
    Piece("tricks", 1, "tricks completed this round / 10", code=Code(div=(float(NUM_TRICKS),))),
    Piece("others", NUM_CARDS * (N - 1), "``draft=True`` only: 104 per other player (relative seats 1..n-1), 1 "
          "where that player holds card id, its unrevealed choice of this trick included (every draft pick is "
          "public: docs/rules.md 1.5)", when="draft", code=BITS),
))
"""The observation layout (the table above), declared once: offsets, sizes, ``pieces()``, the compact
codec (``fiveplay_env.take5.compact``) and the batched encoder's slices are computed from it."""

# Offsets of the pieces that sit at the same place for every player count (the seat pieces follow SCORES).
HAND, SEEN, TRICK, POOL, ROWS, ROW_STATS, SCORES = (
    LAYOUT.start(name) for name in ("hand", "seen", "trick", "pool", "rows", "row_stats", "scores"))
ROW_STAT_DIVS: tuple[float, ...] = LAYOUT.piece("row_stats").code.div  # type: ignore[union-attr]
"""(104.0, 5.0, 10.0): a row's statistics are its last card number, length and bull heads over these."""
_END_DIV, _LEN_DIV, _BULL_DIV = ROW_STAT_DIVS


def observation_size(num_players: int, draft: bool = False) -> int:
    """``848 + 3n``, plus ``104 (n - 1)`` (the other players' public hands) with ``draft``."""
    return LAYOUT.size(num_players, draft=draft)


def players_of_size(size: int) -> tuple[int, bool]:
    """``(num_players, draft)`` of a Take 5 observation of ``size`` floats; ``ValueError`` if none has it."""
    for draft, hi in ((False, MAX_PLAYERS), (True, PROFESSIONAL_MAX_PLAYERS)):
        total = LAYOUT.total(draft=draft)
        n, rem = divmod(size - total.base, total.per_player)
        if not rem and MIN_PLAYERS <= n <= hi:
            return n, draft
    plain, draft_total = LAYOUT.total(draft=False), LAYOUT.total(draft=True)
    raise ValueError(f"observation: expected a Take 5 observation of {plain.base} + {plain.per_player}n floats "
                     f"(n = {MIN_PLAYERS}..{MAX_PLAYERS}), or {draft_total} with draft=True "
                     f"(n = {MIN_PLAYERS}..{PROFESSIONAL_MAX_PLAYERS}), got {size}")


def pieces(num_players: int, draft: bool = False) -> dict[str, tuple[int, int]]:
    """Each named piece as (offset, size): the table above, for code (``LAYOUT.spans``)."""
    return LAYOUT.spans(num_players, draft=draft)


def _public_hands(state: Take5State) -> np.ndarray:
    """float32 [n, 104]: each player's cards as the draft made them public: the hand and the
    unrevealed choice of this trick."""
    hands = state.hands[:, :NUM_CARDS].astype(np.float32)
    for q, c in enumerate(state.pending):
        if c >= 0:
            hands[q, c] = 1.0
    return hands


def observation_high(config: Take5Config) -> float:
    """An upper bound on every observation value for ``config`` (the observation space's ``high``).

    Every piece is 0/1 or at most 1, except a row's bull heads / 10 (at most 2.7: five cards of
    7 + 5 + 5 + 5 + 5) and the scores and round penalties / ``end_score``. A round's penalty is at most
    every bull head in play; a game of ``rounds:K`` has K rounds, and in ``mode="game"`` every score is
    below the threshold before the last round (at most ``end_score``, or ``end_score - 1`` when it is
    inclusive)."""
    per_round = int(BULLHEADS[:config.deck_size].sum())
    rounds = config.num_rounds
    if rounds is None:
        top = config.end_score - (1 if config.end_inclusive else 0) + per_round
    else:
        top = rounds * per_round
    row_bulls = sum(sorted(BULL, reverse=True)[:ROW_LIMIT]) / 10.0
    scores = np.nextafter(np.float32(top / config.end_score), np.float32(np.inf))  # float32 rounding, upwards
    return float(max(1.0, row_bulls, scores))


def _row_stats(row: list[int]) -> tuple[float, float, float]:
    b = 0
    for c in row:
        b += BULL[c]
    return ((row[-1] + 1) / _END_DIV, len(row) / _LEN_DIV, b / _BULL_DIV)


_AT: dict[tuple[int, bool], tuple[int, int, int, int, int, int, int]] = {}


def _at(n: int, draft: bool) -> tuple[int, int, int, int, int, int, int]:
    """Offsets of the pieces that move with n (scores, round_pen, seat, phase, tricks, others, size) for
    ``n`` players, from ``LAYOUT`` (cached; ``others`` is the size when there is no such piece)."""
    key = (n, draft)
    at = _AT.get(key)
    if at is None:
        sp = LAYOUT.spans(n, draft=draft)
        size = LAYOUT.size(n, draft=draft)
        at = _AT[key] = (sp["scores"][0], sp["round_pen"][0], sp["seat"][0], sp["phase"][0], sp["tricks"][0],
                         sp["others"][0] if "others" in sp else size, size)
    return at


def encode(config: Take5Config, state: Take5State, player: int) -> np.ndarray:
    """float32 [observation_size]: ``player``'s observation, computed from scratch."""
    n = state.num_players
    o_scores, o_pen, o_seat, o_phase, o_tricks, o_others, size = _at(n, config.draft)
    obs = np.zeros(size, np.float32)
    obs[HAND:HAND + NUM_CARDS] = state.hands[player, :NUM_CARDS]
    obs[SEEN:SEEN + NUM_CARDS] = state.seen
    if state.trick_cards:
        obs[[TRICK + c for c in state.trick_cards]] = 1.0
    if state.phase == DRAFT:
        obs[POOL:POOL + NUM_CARDS] = state.pool[:NUM_CARDS]
    for r, row in enumerate(state.rows):
        obs[[ROWS + NUM_CARDS * r + c for c in row]] = 1.0
        obs[ROW_STATS + 3 * r:ROW_STATS + 3 * r + 3] = _row_stats(row)
    k = 1.0 / config.end_score
    rel = [(player + i) % n for i in range(n)]
    obs[o_scores:o_scores + n] = [state.scores[q] * k for q in rel]
    obs[o_pen:o_pen + n] = [state.round_pen[q] * k for q in rel]
    obs[o_seat + player] = 1.0
    if state.phase != OVER:
        obs[o_phase + state.phase] = 1.0
    obs[o_tricks] = state.trick / NUM_TRICKS
    if config.draft:
        pub = _public_hands(state)
        obs[o_others:] = pub[[(player + i) % n for i in range(1, n)]].reshape(-1)
    return obs


_GATHER: dict[int, np.ndarray] = {}


def _gather(n: int) -> np.ndarray:
    """Index matrix [n, 3n+4] that turns the absolute vector ``ext`` into each observer's pieces from
    ``scores`` to ``tricks`` (they are contiguous in ``LAYOUT``).

    ``ext`` = [scores (n), round penalties (n), 0.0, 1.0, phase one-hot (3), tricks]; row p picks the
    scores and penalties in p-relative seat order, a 1.0 at p's own seat (0.0 elsewhere), then the
    phase and tricks.
    """
    if n not in _GATHER:
        zero, one = 2 * n, 2 * n + 1
        _GATHER[n] = np.array([
            [(p + i) % n for i in range(n)] + [n + (p + i) % n for i in range(n)]
            + [one if q == p else zero for q in range(n)] + [2 * n + 2, 2 * n + 3, 2 * n + 4, 2 * n + 5]
            for p in range(n)
        ])
    return _GATHER[n]


def rebuild(config: Take5Config, state: Take5State) -> np.ndarray:
    """Compute ``state.view`` (every player's observation) with whole-table operations; return it."""
    n = state.num_players
    o_scores, _, _, _, o_tricks, o_others, size = _at(n, config.draft)
    view = np.empty((n, size), np.float32)
    view[:, HAND:HAND + NUM_CARDS] = state.hands[:, :NUM_CARDS]
    # the public pieces seen .. row_stats, the same for every observer, built once
    pub = np.zeros(SCORES - SEEN, np.float32)
    pub[0:NUM_CARDS] = state.seen
    phase = state.phase
    if phase == DRAFT:
        pub[POOL - SEEN:POOL - SEEN + NUM_CARDS] = state.pool[:NUM_CARDS]
    rows = state.rows
    idx = [TRICK - SEEN + c for c in state.trick_cards]
    idx += [ROWS - SEEN + NUM_CARDS * r + c for r in range(len(rows)) for c in rows[r]]
    if idx:
        pub[idx] = 1.0
    if rows:
        stats: list[float] = []
        for row in rows:
            stats += ((row[-1] + 1) / _END_DIV, len(row) / _LEN_DIV, sum([BULL[c] for c in row]) / _BULL_DIV)
        pub[ROW_STATS - SEEN:ROW_STATS - SEEN + 3 * NUM_ROWS] = stats
    view[:, SEEN:SCORES] = pub
    k = 1.0 / config.end_score
    ext = np.array([x * k for x in state.scores] + [x * k for x in state.round_pen]
                   + [0.0, 1.0, float(phase == 0), float(phase == 1), float(phase == 2), state.trick / NUM_TRICKS],
                   np.float32)
    view[:, o_scores:o_tricks + 1] = ext[_gather(n)]
    if config.draft:
        pub = _public_hands(state)
        others = np.array([[(p + i) % n for i in range(1, n)] for p in range(n)])
        view[:, o_others:] = pub[others].reshape(n, -1)
    state.view = view
    return view


def observe(config: Take5Config, state: Take5State, player: int) -> np.ndarray:
    """float32 [observation_size]: ``player``'s view of ``state`` (the table in the module docstring)."""
    view = state.view
    if view is None:
        view = rebuild(config, state)
    return view[player].copy()


__all__ = ["observe", "encode", "rebuild", "observation_size", "observation_high", "players_of_size", "pieces",
           "LAYOUT", "NUM_ROWS"]
