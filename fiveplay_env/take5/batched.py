"""The batched Take 5 engine: B games at once on numpy arrays with a leading batch axis.

It plays exactly the games of the reference engine (``fiveplay_env.take5.engine``): the same decision
order, the same seeded deals, the same rewards and observations, checked step by step by
``tests/take5/test_batched.py``. It shares only the config, the constants of ``state.py`` and the
counter-based randomness of ``core.seeding`` with the reference; the rule logic is written again, on
arrays, so that the two implementations check each other (docs/architecture.md). There is no Python
loop over games: the loops run over the cards of one trick, the 4 rows or the comparators of a
sorting network, each step a few numpy operations on all the games concerned.

Interface (Pgx's shape): after ``reset`` and after every ``step``, for each game ``i`` of the batch

| attribute             | dtype, shape        | meaning                                                   |
|-----------------------|---------------------|-----------------------------------------------------------|
| ``current_player``    | int32 [B]           | the seat that acts next in game i (0..n-1, always valid)  |
| ``legal_action_mask`` | int8 [B, 109]       | that seat's legal actions (= the reference's ``legal_mask``); read-only |
| ``rewards``           | float32 [B, n]      | every player's reward for the last step: minus the bull heads taken |
| ``terminated``        | bool [B]            | game i ended at the last step (and was replaced, see Autoreset) |
| ``final_scores``      | int32 [B, n]        | the final scores of the games that ended at the last step (rows where ``terminated``) |
| ``observe()``         | float32 [B, size] | the acting seat's observation, equal to ``observation.observe`` |
| ``scores``, ``round_penalty`` | int32 [B, n] | the reference's ``scores`` and ``round_pen``             |
| ``round``, ``trick``, ``phase`` | [B]       | rounds completed, tricks completed this round, DRAFT/PLAY/ROW_CHOICE |
| ``seeds``, ``game_index`` | uint64 / int64 [B] | the current game of each slot (see Seeding)            |

Decision order (the reference's AEC order): with ``draft`` each round opens with the draft picks, seat
order 0..n-1 repeated; each trick seats 0..n-1 choose a card in turn; after the last choice the trick
is revealed and placed in ascending order; a too-low card with ``row_pick="player"`` makes its owner
choose a row (actions 104..107) as a separate step, after which the rest of the trick is placed.

Autoreset: **same-step** (Gymnasium's ``AutoresetMode.SAME_STEP``, Pgx's ``auto_reset``). When game i
ends at a step, that step's ``rewards[i]`` and ``terminated[i] = True`` belong to the finished game and
``final_scores[i]`` holds its final scores, while slot i already holds a new game: ``current_player``,
``legal_action_mask`` and ``observe()`` are the new game's. Every slot always has a legal action.

Seeding: ``BatchedTake5(config, B, seed)`` starts game ``k`` of slot ``i`` (k = 0, 1, ...) with seed
``seeding.derive(seed, i + k * B)``; ``i + k * B`` is its ``game_index``. ``seeds[i]`` is the seed of
slot i's current game and ``engine.new_game(config, seeds[i])`` replays it alone with the reference
engine (same actions, same game). ``reset(seed)`` starts the run over, ``reset()`` moves every slot to
its next game, ``reset(seed, seeds=...)`` sets the new games' seeds explicitly. Each deal is the
reference's: row i of ``seeding.batch_permutation(seeds, counters, deck_size)`` (computed by
``seeding.fast_batch_permutation``, equal and faster), the counter advancing once per deal as there.

State (struct of arrays, the per-row fields feature-major ``[4, B]`` so that the rows of a subset of
games are gathered with one-dimensional indexing; n players):

| array         | dtype, shape   | meaning                                                           |
|---------------|----------------|-------------------------------------------------------------------|
| ``loc``       | int8 [B, 109]  | columns 0..103: where card id is: 0..n-1 in that seat's hand, PENDING (chosen, unrevealed), POOL (draft), ASIDE, OUT (not in play), QUEUE (revealed, waiting for a row choice), SEEN (in a row or a penalty pile). Columns 104..107 hold ROWPICK and 108 OUT, so the legal mask is ``loc == target`` (the seat, POOL or ROWPICK) in one operation |
| ``rkey``      | int64 [4, B]   | ``last card << 32 | (r * B + b + 1)`` for row r of game b (-1 << 32 while the rows are empty, in the draft): the card's row is the largest key below ``card << 32``, and its low bits index the row buffers |
| ``rlen``, ``rbull`` | int8 [4, B] | row length (0 in the draft) and bull heads                     |
| ``rows``      | int8 [4, B, 5] | row cards in placement order; slots at or beyond the length are stale |
| ``pending``   | int8 [n, B]    | the card each seat chose this trick (valid for seats < current, and during a row choice) |
| ``scores``, ``rpen`` | int32 [B, n] | the reference's ``scores`` and ``round_pen``                 |
| ``phase``, ``cur``, ``trick`` | int8 [B] | as in ``Take5State``                                    |
| ``round``, ``counter``, ``picks`` | int32, int32, int16 [B] | rounds completed, deals made, draft picks made this round |
| ``seeds``, ``game_index`` | uint64, int64 [B] | see Seeding                                            |

The observation's ``seen`` is ``loc >= QUEUE``; the rows piece is read from ``rows``.

Invariants (what ``set_state`` checks of every game, ``_check_state``; t = tricks completed, c = the
acting seat, p = picks): the phase is PLAY, or DRAFT (``draft`` only, t = 0) or ROW_CHOICE
(``row_pick="player"`` only); every card is in exactly one place: seat q holds 10 - t - (q < c) cards
in PLAY, 10 - t - 1 during a row choice, p // n + (q < p % n) in the draft; c cards are PENDING (in PLAY,
``pending[q]`` for q < c, distinct), n are QUEUE during a row choice (all of ``pending``, its lowest card
below every row end and owned by c), deck - p are in the POOL in the draft, deck - 10n - 4 ASIDE, and
4 + n t are SEEN; each row holds 1..5 SEEN cards, ascending, its ``rkey`` and ``rbull`` those of its cards
(the draft: empty rows); the round penalties add up to the bull heads of the SEEN cards outside the
rows; scores are >= 0, below the end threshold (``mode="game"``), and add up to between 10n - 16 and
171 points per round completed; ``round`` < K (``rounds:K``), ``counter`` = round + 1 (0 with
``draft``), ``picks`` 10n after the draft (0 without one); the last step's penalties are 0..171.

``pub`` (uint8 [B, 109], derived, not part of ``STATE``): each card's public bits of the compact
observation (``fiveplay_env.take5.compact``: seen, trick, pool, rows 0..3) in ``loc``'s layout
(columns 104..108 stay 0; a card's flat position is the same in both), built by the first
``observe_compact()`` and from then on kept up to date by ``step`` where cards move (a trick revealed
or queued for a row choice, a card placed, a row taken, a draft pick, a new deal), so that a compact
observation's card bytes are those bytes or'ed with the acting seat's hand. Engines that never encode
compactly never pay for it; ``set_state``, copies and pickles drop it (rebuilt on the next
``observe_compact``).
``bytes_per_game()``: 343 bytes at 4 players, 109 of them the cached legal mask (397 at 10 players).

Speed (2-core machine, 4 players, B = 4,096, random legal play drawn from the mask by
``vector.random_actions``): about 5 million decisions/s of CPU time without observations and 1.2
million with them; see ``bench_take5_batched`` at the bottom of this file. With ``observe_compact``
at every step, about 0.68x the rate without observations (measured as a ratio, on a busy machine).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from fiveplay_env.core import seeding
from fiveplay_env.core.batched import BatchedGameBase, bench_batched, check_games
from fiveplay_env.core.config import MAX_BATCH_SIZE, check_int, from_kwargs, show_value
from fiveplay_env.take5.config import Take5Config
from fiveplay_env.take5.observation import LAYOUT, ROW_STAT_DIVS, ROW_STATS, ROWS, TRICK, observation_size
from fiveplay_env.take5.state import (
    ACTION_ROW0, BULLHEADS, DRAFT, HAND_SIZE, NUM_ACTIONS, NUM_CARDS, NUM_ROWS, NUM_TRICKS, PHASE_NAMES, PLAY,
    ROW_CHOICE, ROW_LIMIT, TOTAL_BULLHEADS,
)

# Location codes of ``loc`` (hands are the seat numbers 0..9). QUEUE and SEEN, the cards a player has
# seen this round, are the highest codes a card can have, so the observation's ``seen`` is one test.
PENDING, POOL, ASIDE, OUT, ROWPICK, QUEUE, SEEN = 10, 11, 12, 13, 14, 15, 16

_BULL8 = BULLHEADS.astype(np.int8)
_SLOTS = np.arange(ROW_LIMIT, dtype=np.int8)
# compact-observation card bits (fiveplay_env.take5.compact: bit i is plane i of _COMPACT_PLANES)
_HAND_BIT, _SEEN_BIT, _TRICK_BIT, _POOL_BIT, _ROW0_BIT = 1, 2, 4, 8, 16
_R = np.arange(NUM_ROWS, dtype=np.int16)
_ROW_PUB = ((_ROW0_BIT << _R) | _SEEN_BIT).astype(np.uint8)  # a card in row r: seen, and row r's bit
# Row statistics of the observation by table, each entry computed as the reference computes it
# (a Python float, then float32): last card number / 104 from ekey, length / 5, bull heads / 10.
_END_F = np.array([(e + 1) / ROW_STAT_DIVS[0] for e in range(-1, NUM_CARDS)], np.float32)  # index: last card + 1
_LEN_F = np.array([x / ROW_STAT_DIVS[1] for x in range(ROW_LIMIT + 1)], np.float32)
_BULL_F = np.array([x / ROW_STAT_DIVS[2] for x in range(64)], np.float32)
_OBS_BLOCK = 1024  # games per block of observe(): 3.5 MB of observations at 4 players


def sorting_network(n: int) -> list[tuple[int, int]]:
    """Comparators (i, j), i < j, of Batcher's odd-even merge sort for ``n`` keys: applying
    ``(x[i], x[j]) = (min, max)`` in order sorts any ``n`` keys (the network for the next power of
    two, without the comparators that touch the missing keys, which would sit at the top)."""
    size = 1
    while size < n:
        size *= 2
    comps: list[tuple[int, int]] = []

    def merge(lo: int, hi: int, r: int) -> None:
        step = r * 2
        if step < hi - lo:
            merge(lo, hi, step)
            merge(lo + r, hi, step)
            comps.extend((i, i + r) for i in range(lo + r, hi - r, step))
        else:
            comps.append((lo, lo + r))

    def sort(lo: int, hi: int) -> None:
        if hi - lo >= 1:
            mid = lo + (hi - lo) // 2
            sort(lo, mid)
            sort(mid + 1, hi)
            merge(lo, hi, 1)

    sort(0, size - 1)
    return [(i, j) for i, j in comps if j < n]


# The deals' fast shuffle lives in ``core.seeding`` (shared with 5 Alive); this name stays for its callers.
batch_permutation = seeding.fast_batch_permutation


class BatchedTake5(BatchedGameBase):
    """``batch_size`` Take 5 games under one ``Take5Config``, stepped together.

    ``step(actions)`` takes one action per game (integers, shape [B]) for each game's
    ``current_player``. See the module docstring for the attributes, autoreset and seeding; the
    members every batched engine shares (seeding, masks, action checks) are ``BatchedGameBase``'s.
    """

    def __init__(self, config: Take5Config, batch_size: int, seed: int | None = 0) -> None:
        if not isinstance(config, Take5Config):
            raise ValueError(f"config: expected a Take5Config, got {type(config).__name__}")
        self.config = config
        self.batch_size = B = check_int("batch_size", batch_size, 1, MAX_BATCH_SIZE)
        self.num_players = n = config.num_players
        self.num_actions = NUM_ACTIONS
        self.observation_size = observation_size(n, config.draft)
        self._deck = config.deck_size
        self._k = config.num_rounds
        self._player_rows = config.row_pick == "player"
        self._draft = config.draft
        self._net = sorting_network(n)
        self._arange = np.arange(B)
        self._seats8 = np.arange(n, dtype=np.int8)
        self._seats64 = np.arange(n, dtype=np.int64)[:, None]
        # the deal: perm[j] goes to seat j // 10 for j < 10n, then starts row j - 10n, then is set aside
        codes = np.full(self._deck, ASIDE, np.int8)
        codes[:HAND_SIZE * n] = np.repeat(self._seats8, HAND_SIZE)
        codes[HAND_SIZE * n:HAND_SIZE * n + NUM_ROWS] = SEEN
        self._deal_codes = codes
        blank = np.full(NUM_ACTIONS, OUT, np.int8)
        blank[:self._deck] = POOL if self._draft else ASIDE
        blank[ACTION_ROW0:ACTION_ROW0 + NUM_ROWS] = ROWPICK
        self._blank_loc = blank
        # state (see the module docstring)
        self._loc = np.zeros((B, NUM_ACTIONS), np.int8)
        # rkey[r, b] = last card of row r << 32 | (r * B + b + 1), or -1 << 32 while the rows are empty
        # (the draft): ordered by last card, and its low bits are the row's position in the buffers.
        # The row arrays are views of flat buffers one slot longer ("_b"), starting at slot 1:
        # position r * B + b + 1 of a buffer is row r of game b, so rkey's low bits index them directly
        # (int64, numpy's index type, so indexing needs no conversion).
        self._shift = 32
        self._low_mask = (1 << 32) - 1
        self._rkey_b = np.zeros(NUM_ROWS * B + 1, np.int64)
        self._rlen_b = np.zeros(NUM_ROWS * B + 1, np.int8)
        self._rbull_b = np.zeros(NUM_ROWS * B + 1, np.int8)
        self._rows_b = np.zeros((NUM_ROWS * B + 1) * ROW_LIMIT, np.int8)
        self._pending = np.full((n, B), -1, np.int8)
        self._scores = np.zeros((B, n), np.int32)
        self._rpen = np.zeros((B, n), np.int32)
        self._phase = np.zeros(B, np.int8)
        self._cur = np.zeros(B, np.int8)
        self._trick = np.zeros(B, np.int8)
        self._round = np.zeros(B, np.int32)
        self._counter = np.zeros(B, np.int32)
        self._picks = np.zeros(B, np.int16)
        self._seeds = np.zeros(B, np.uint64)
        self._game_index = np.zeros(B, np.int64)
        # step outputs; the penalties of the step are summed per seat in ``_pen`` [B, n]
        self._pen = np.zeros((B, n), np.int32)
        self.rewards: np.ndarray = np.zeros((B, n), np.float32)
        self.terminated: np.ndarray = np.zeros(B, bool)
        self.final_scores: np.ndarray = np.zeros((B, n), np.int32)
        self._mask = np.zeros((B, NUM_ACTIONS), np.int8)
        self._bind_views()
        self._row_offsets = (np.arange(NUM_ROWS) * B + 1)[:, None]
        # the public bits of a card in the row at each buffer position (position 0 unused)
        self._row_bits = np.concatenate([[0], np.repeat(_ROW_PUB, B)]).astype(np.uint8)
        self._arange_a = self._arange * NUM_ACTIONS
        # observation tables: relative seats and the seat / phase / trick tail, by table lookup
        self._rel = np.array([[(p + i) % n for i in range(n)] for p in range(n)])  # seat of relative seat i
        self._arange_n = np.repeat(self._arange * n, n)  # [B * n]: b * n, n times (game b's first scores entry)
        # seat one-hot, phase one-hot and tricks completed, per (seat, phase, tricks): as compact codes
        # (fiveplay_env.take5.compact: one-hots 0/1, tricks as a count) and as the float observation's values
        tail_codes = np.zeros((n, 4, NUM_TRICKS + 1, n + 4), np.uint16)
        for p in range(n):
            for ph in range(3):
                for t in range(NUM_TRICKS + 1):
                    tail_codes[p, ph, t, p] = 1
                    tail_codes[p, ph, t, n + ph] = 1
                    tail_codes[p, ph, t, n + 3] = t
        self._tail_codes = tail_codes.reshape(-1, n + 4)
        tail = self._tail_codes.astype(np.float64)
        tail[:, n + 3] /= NUM_TRICKS  # tricks / 10, as the reference encoder computes it
        self._tail = tail.astype(np.float32)
        self._obs_rowbase: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # per block size
        self._obs_at = LAYOUT.slices(n, draft=config.draft)  # each observation piece's columns
        self.reset(seed)

    STATE = ("_loc", "_rkey_b", "_rlen_b", "_rbull_b", "_rows_b", "_pending", "_scores", "_rpen", "_phase",
             "_cur", "_trick", "_round", "_counter", "_picks", "_seeds", "_game_index", "_pen", "rewards",
             "terminated", "final_scores")

    def _bind_views(self) -> None:
        B = self.batch_size
        self._pub: np.ndarray | None = None  # derived compact-observation bits: rebuilt when next needed
        self._pub_f: np.ndarray | None = None
        # the row arrays are views of the "_b" buffers (see above)
        self._rkey = self._rkey_b[1:].reshape(NUM_ROWS, B)
        self._rlen = self._rlen_b[1:].reshape(NUM_ROWS, B)
        self._rbull = self._rbull_b[1:].reshape(NUM_ROWS, B)
        self._rows = self._rows_b[ROW_LIMIT:].reshape(NUM_ROWS, B, ROW_LIMIT)
        # flat views (all arrays are C-contiguous): scatter and gather by flat index are the cheapest
        self._loc_f = self._loc.reshape(-1)
        self._pending_f = self._pending.reshape(-1)
        self._scores_f = self._scores.reshape(-1)
        self._rpen_f = self._rpen.reshape(-1)
        self._pen_f = self._pen.reshape(-1)
        self._mask_f = self._mask.reshape(-1)

    def _check_state(self, a: dict[str, np.ndarray]) -> None:
        """The invariants of the module docstring, for every game of ``a`` (``set_state``'s arrays)."""
        B, n, D = self.batch_size, self.num_players, self._deck
        g = self._arange
        seats = np.arange(n)
        i64 = np.int64
        phase, cur, trick = a["_phase"].astype(i64), a["_cur"].astype(i64), a["_trick"].astype(i64)
        picks, rnd, counter = a["_picks"].astype(i64), a["_round"].astype(i64), a["_counter"].astype(i64)
        allowed = [PLAY] + ([DRAFT] if self._draft else []) + ([ROW_CHOICE] if self._player_rows else [])
        check_games(np.isin(phase, allowed), "_phase", f"one of {allowed} ({', '.join(PHASE_NAMES[x] for x in allowed)})",
                    phase)
        draft, play, rc = phase == DRAFT, phase == PLAY, phase == ROW_CHOICE
        check_games((cur >= 0) & (cur < n), "_cur", f"a seat in 0..{n - 1}", cur)
        check_games((trick >= 0) & (trick < NUM_TRICKS) & (~draft | (trick == 0)), "_trick",
                    f"0..{NUM_TRICKS - 1} tricks completed (0 in the draft)", trick)
        full = HAND_SIZE * n
        if self._draft:
            ok = np.where(draft, (picks >= 0) & (picks < full) & (cur == picks % n), picks == full)
            check_games(ok, "_picks", f"0..{full - 1} picks with _cur == picks % {n} in the draft, {full} after it",
                        lambda i: f"{picks[i]} picks, seat {cur[i]} acting")
        else:
            check_games(picks == 0, "_picks", "0 (no draft)", picks)
        ok = rnd >= 0
        if self._k is not None:
            ok &= rnd < self._k
        check_games(ok, "_round", f"0..{self._k - 1} rounds completed" if self._k else "rounds completed >= 0", rnd)
        want = np.zeros(B, i64) if self._draft else rnd + 1
        check_games(counter == want, "_counter", "0 (the draft deals nothing)" if self._draft else
                    "rounds completed + 1 (one deal per round)", lambda i: f"{counter[i]} after {rnd[i]} rounds")
        scores, rpen = a["_scores"].astype(i64), a["_rpen"].astype(i64)
        check_games((scores >= 0).all(axis=1), "_scores", "scores >= 0", scores)
        if self._k is None:
            end = self.config.end_score
            top = scores.max(axis=1)
            check_games(top < end if self.config.end_inclusive else top <= end, "_scores",
                        f"every score {'below' if self.config.end_inclusive else 'at most'} {end} (the game would have ended)",
                        scores)
        total = scores.sum(axis=1)
        check_games((total >= rnd * (10 * n - 16)) & (total <= rnd * TOTAL_BULLHEADS), "_scores",
                    f"{10 * n - 16}..{TOTAL_BULLHEADS} points in all per round completed",
                    lambda i: f"{scores[i].tolist()} after {rnd[i]} rounds")
        check_games((rpen >= 0).all(axis=1), "_rpen", "round penalties >= 0", rpen)
        pen = a["_pen"]
        check_games(((pen >= 0) & (pen <= TOTAL_BULLHEADS)).all(axis=1), "_pen", f"0..{TOTAL_BULLHEADS}", pen)
        rew = a["rewards"]
        check_games(((rew >= -TOTAL_BULLHEADS) & (rew <= 0)).all(axis=1), "rewards",
                    f"-{TOTAL_BULLHEADS}..0 (minus the bull heads of a step)", rew)
        check_games((a["final_scores"] >= 0).all(axis=1), "final_scores", "scores >= 0", a["final_scores"])
        # where every card is
        loc = a["_loc"]
        check_games((loc[:, D:NUM_CARDS] == OUT).all(axis=1) & (loc[:, ACTION_ROW0:ACTION_ROW0 + NUM_ROWS] == ROWPICK)
                    .all(axis=1) & (loc[:, NUM_ACTIONS - 1] == OUT), "_loc",
                    f"OUT ({OUT}) in columns {D}..103 and 108, ROWPICK ({ROWPICK}) in 104..107", lambda i: loc[i, D:])
        cards = loc[:, :D].astype(i64)
        codes = ((cards >= 0) & (cards < n)) | np.isin(cards, [PENDING, POOL, ASIDE, QUEUE, SEEN])
        check_games(codes.all(axis=1), "_loc", f"card codes 0..{n - 1} (a hand), PENDING, POOL, ASIDE, QUEUE or SEEN",
                    lambda i: sorted(set(cards[i].tolist())))
        cnt = np.bincount((cards + (g * 32)[:, None]).reshape(-1), minlength=32 * B).reshape(B, 32)
        hand_want = np.where(draft[:, None], picks[:, None] // n + (seats < (picks % n)[:, None]),
                             HAND_SIZE - trick[:, None] - np.where(rc[:, None], 1, seats < cur[:, None]))
        check_games((cnt[:, :n] == hand_want).all(axis=1), "_loc",
                    "hands of 10 - tricks - (seat < acting seat) cards (the draft: picks made)",
                    lambda i: f"hands of {cnt[i, :n].tolist()} cards, expected {hand_want[i].tolist()}")
        for code, label, want in (
                (PENDING, "PENDING", np.where(play, cur, 0)), (QUEUE, "QUEUE", np.where(rc, n, 0)),
                (POOL, "POOL", np.where(draft, D - picks, 0)), (ASIDE, "ASIDE", np.full(B, D - full - NUM_ROWS)),
                (SEEN, "SEEN", np.where(draft, 0, NUM_ROWS + n * trick))):
            check_games(cnt[:, code] == want, "_loc", f"the number of {label} cards the phase and trick imply",
                        lambda i, c=code, w=want: f"{cnt[i, c]} {label} cards, expected {w[i]}")
        # the chosen cards
        pend = a["_pending"].astype(i64)  # [n, B]
        check_games(((pend >= -1) & (pend < D)).all(axis=0), "_pending", f"card ids -1..{D - 1}", pend.T)
        need = rc[None, :] | (play[None, :] & (seats[:, None] < cur[None, :]))  # [n, B]
        p0 = np.maximum(pend, 0)
        where_ = loc[g[None, :], p0]
        ok = ~need | ((pend >= 0) & (where_ == np.where(rc, QUEUE, PENDING)[None, :]))
        check_games(ok.all(axis=0), "_pending", "the PENDING card of each seat that chose (all QUEUE in a row choice)",
                    pend.T)
        dup = np.bincount((g[None, :] * NUM_CARDS + p0)[need], minlength=B * NUM_CARDS).reshape(B, NUM_CARDS)
        check_games(dup.max(axis=1) <= 1, "_pending", "distinct chosen cards", pend.T)
        # the rows
        rkey = a["_rkey_b"][1:].reshape(NUM_ROWS, B)
        rlen = a["_rlen_b"][1:].reshape(NUM_ROWS, B).astype(i64)
        rbull = a["_rbull_b"][1:].reshape(NUM_ROWS, B).astype(i64)
        rows = a["_rows_b"][ROW_LIMIT:].reshape(NUM_ROWS, B, ROW_LIMIT).astype(i64)
        empty = (rlen == 0).all(axis=0) & (rbull == 0).all(axis=0) & (rkey == -1 << self._shift).all(axis=0)
        check_games(~draft | empty, "_rlen_b", "empty rows (length 0, no bull heads, key -1 << 32) in the draft",
                    rlen.T)
        check_games(draft | ((rlen >= 1) & (rlen <= ROW_LIMIT)).all(axis=0), "_rlen_b", f"rows of 1..{ROW_LIMIT} cards",
                    rlen.T)
        live = (np.arange(ROW_LIMIT) < rlen[:, :, None]) & ~draft[None, :, None]  # [4, B, 5]
        check_games((~live | ((rows >= 0) & (rows < D))).all(axis=(0, 2)), "_rows_b", f"card ids 0..{D - 1} in the rows",
                    lambda i: rows[:, i].tolist())
        rc_ = np.where(live, rows, 0)
        check_games((~live | (loc[g[None, :, None], rc_] == SEEN)).all(axis=(0, 2)), "_rows_b", "SEEN cards in the rows",
                    lambda i: rows[:, i].tolist())
        check_games((~live[:, :, 1:] | (rows[:, :, 1:] > rows[:, :, :-1])).all(axis=(0, 2)), "_rows_b",
                    "ascending rows", lambda i: [rows[r, i, :rlen[r, i]].tolist() for r in range(NUM_ROWS)])
        dup = np.bincount((g[None, :, None] * NUM_CARDS + rc_)[live], minlength=B * NUM_CARDS).reshape(B, NUM_CARDS)
        check_games(dup.max(axis=1) <= 1, "_rows_b", "each card in one row at most", lambda i: rows[:, i].tolist())
        last = np.take_along_axis(rc_, np.maximum(rlen - 1, 0)[:, :, None], axis=2)[:, :, 0]  # [4, B]
        key = (last << self._shift) + (np.arange(NUM_ROWS)[:, None] * B + g[None, :] + 1)
        check_games(draft | (rkey == key).all(axis=0), "_rkey_b", "last card << 32 | (row * B + game + 1) for each row",
                    rkey.T)
        bulls = np.where(live, BULLHEADS[rc_], 0).sum(axis=2)
        check_games(draft | (rbull == bulls).all(axis=0), "_rbull_b", "the bull heads of each row's cards", rbull.T)
        seen_bull = np.where(cards == SEEN, BULLHEADS[:D], 0).sum(axis=1)
        check_games(rpen.sum(axis=1) == seen_bull - np.where(draft, 0, bulls.sum(axis=0)), "_rpen",
                    "round penalties adding up to the bull heads taken (SEEN cards outside the rows)",
                    lambda i: f"{rpen[i].tolist()} ({seen_bull[i] - bulls[:, i].sum()} bull heads taken)")
        if self._player_rows and rc.any():  # a row choice: the lowest card is too low, and its owner chooses
            low = pend.argmin(axis=0)
            lowest = pend.min(axis=0)
            ends = np.where(live.any(axis=2), last, NUM_CARDS).min(axis=0)
            check_games(~rc | ((cur == low) & (lowest < ends)), "_cur",
                        "the owner of a too-low card (below every row end) during a row choice",
                        lambda i: f"seat {cur[i]}, the lowest card {lowest[i]} (seat {low[i]}), row ends {last[:, i].tolist()}")

    # ------------------------------------------------------------------ public API (reset, current_player,
    # legal_action_mask, seeds and game_index: BatchedGameBase)

    def _clear_results(self) -> None:
        """``final_scores``: zeros, as no game of the new run has ended yet."""
        self.final_scores = np.zeros((self.batch_size, self.num_players), np.int32)

    @property
    def scores(self) -> np.ndarray:
        """int32 [B, n]: penalty points of the rounds completed (the reference's ``scores``)."""
        return self._scores.copy()

    @property
    def round_penalty(self) -> np.ndarray:
        """int32 [B, n]: penalty points taken in the current round (the reference's ``round_pen``)."""
        return self._rpen.copy()

    @property
    def trick(self) -> np.ndarray:
        """int32 [B]: tricks completed in the current round."""
        return self._trick.astype(np.int32)

    @property
    def phase(self) -> np.ndarray:
        """int8 [B]: DRAFT, PLAY or ROW_CHOICE (``state.py`` codes; never OVER: finished games are replaced)."""
        return self._phase.copy()

    def hands(self) -> np.ndarray:
        """int8 [B, n, 109]: ``hands[i, p, c] == 1`` iff seat p of game i holds card c (the reference's ``hands``)."""
        B, n = self.batch_size, self.num_players
        h = np.zeros((B, n, NUM_ACTIONS), np.int8)
        np.equal(self._loc[:, None, :NUM_CARDS], self._seats8[None, :, None], out=h[:, :, :NUM_CARDS])
        return h

    def row_lists(self, i: int) -> list[list[int]]:
        """Game i's rows as lists of card ids in placement order (the reference's ``rows``; [] in the draft)."""
        if self._phase[i] == DRAFT:
            return []
        return [[int(c) for c in self._rows[r, i, :self._rlen[r, i]]] for r in range(NUM_ROWS)]

    def info(self) -> dict[str, np.ndarray]:
        """Per-game extras (fresh arrays): ``scores``, ``round_penalty``, ``round`` and ``seed`` of the
        current games, ``final_scores`` (rows where ``terminated``) of the games that just ended, and
        ``truncated`` (all False: a Take 5 game always ends by its rules; the key is the vector API's)."""
        return {"scores": self.scores, "round_penalty": self.round_penalty, "round": self.round,
                "seed": self.seeds, "final_scores": self.final_scores.copy(),
                "truncated": np.zeros(self.batch_size, bool)}  # Take 5 games always end: never truncated

    def bytes_per_game(self) -> float:
        """Bytes of game state per game (the cached legal mask included; step outputs and the
        observation tables excluded)."""
        arrays = (self._loc, self._rows, self._rkey, self._rlen, self._rbull, self._pending, self._scores, self._rpen,
                  self._phase, self._cur, self._trick, self._round, self._counter, self._picks,
                  self._seeds, self._game_index, self._mask)
        return sum(a.nbytes for a in arrays) / self.batch_size

    # ------------------------------------------------------------------ positions (load_states, gather)

    def _arrays_of_states(self, states: list[Any]) -> dict[str, np.ndarray]:
        """``load_states``' arrays: each ``Take5State`` (a game of this config, not over) as the batched
        layout; the form of each field is checked here, the game's invariants by ``_check_state``."""
        from fiveplay_env.take5.state import OVER, Take5State  # the reference's state class

        B, n, D = self.batch_size, self.num_players, self._deck
        loc = np.tile(self._blank_loc, (B, 1))
        loc[:, :D] = ASIDE
        pending = np.full((n, B), -1, np.int8)
        rows = np.zeros((NUM_ROWS, B, ROW_LIMIT), np.int8)
        rlen = np.zeros((NUM_ROWS, B), np.int8)
        rbull = np.zeros((NUM_ROWS, B), np.int8)
        last = np.full((NUM_ROWS, B), -1, np.int64)
        scores = np.zeros((B, n), np.int32)
        rpen = np.zeros((B, n), np.int32)
        small = {k: np.zeros(B, np.int64) for k in ("phase", "current", "trick", "round", "counter", "picks")}
        seeds = np.zeros(B, np.uint64)

        def card_list(i: int, name: str, value: Any, limit: int) -> list[int]:
            if not isinstance(value, (list, tuple)) or len(value) > limit or not all(
                    isinstance(c, (int, np.integer)) and not isinstance(c, (bool, np.bool_)) and 0 <= c < D
                    for c in value):
                raise ValueError(f"states[{i}].{name}: expected at most {limit} card ids in 0..{D - 1}, "
                                 f"got {show_value(value)}")
            return [int(c) for c in value]

        for i, s in enumerate(states):
            if not isinstance(s, Take5State) or s.num_players != n:
                raise ValueError(f"states[{i}]: expected a Take5State of {n} players, got {show_value(s)}")
            if s.phase == OVER:
                raise ValueError(f"states[{i}]: expected a game that is not over, got one that is over")
            for key, value in (("phase", s.phase), ("current", s.current), ("trick", s.trick), ("round", s.round),
                               ("counter", s.counter)):
                if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)) \
                        or not 0 <= value < 2**31:
                    raise ValueError(f"states[{i}].{key}: expected an integer in 0..2**31-1, got {show_value(value)}")
                small[key][i] = value
            for key, arr, shape in (("hands", s.hands, (n, NUM_ACTIONS)), ("pool", s.pool, (NUM_ACTIONS,))):
                if not isinstance(arr, np.ndarray) or arr.shape != shape or not np.isin(arr, (0, 1)).all():
                    raise ValueError(f"states[{i}].{key}: expected 0/1 entries of shape {shape}, got {show_value(arr)}")
            for key, value in (("scores", s.scores), ("round_pen", s.round_pen)):
                if not isinstance(value, (list, tuple)) or len(value) != n or not all(
                        isinstance(v, (int, np.integer)) and 0 <= v < 2**31 for v in value):
                    raise ValueError(f"states[{i}].{key}: expected {n} integers >= 0, got {show_value(value)}")
            scores[i] = s.scores
            rpen[i] = s.round_pen
            try:
                seeds[i] = seeding.normalize_seed(s.seed)
            except ValueError as e:
                raise ValueError(f"states[{i}].{e}") from None
            held = np.flatnonzero(s.hands[:, :D].any(axis=0) if n else [])
            owner = s.hands[:, :D].argmax(axis=0)
            if (s.hands[:, :D].sum(axis=0) > 1).any() or s.hands[:, D:].any():
                raise ValueError(f"states[{i}].hands: expected each card of 0..{D - 1} in one hand at most")
            loc[i, held] = owner[held]
            for c in card_list(i, "set_aside", s.set_aside, D):
                loc[i, c] = ASIDE
            loc[i, np.flatnonzero(s.pool[:D])] = POOL
            for p_, t in enumerate(s.taken if isinstance(s.taken, list) and len(s.taken) == n else [None] * n):
                for c in card_list(i, "taken", t, D):
                    loc[i, c] = SEEN
            if not isinstance(s.rows, list) or len(s.rows) not in (0, NUM_ROWS):
                raise ValueError(f"states[{i}].rows: expected {NUM_ROWS} rows (none in the draft), got {show_value(s.rows)}")
            for r, row in enumerate(s.rows):
                cards = card_list(i, f"rows[{r}]", row, ROW_LIMIT)
                loc[i, cards] = SEEN
                rows[r, i, :len(cards)] = cards
                rlen[r, i] = len(cards)
                rbull[r, i] = int(BULLHEADS[cards].sum()) if cards else 0
                last[r, i] = cards[-1] if cards else -1
            if s.phase == ROW_CHOICE:
                if not isinstance(s.queue, list) or len(s.queue) != n:
                    raise ValueError(f"states[{i}].queue: expected the {n} revealed cards of the trick during a "
                                     f"row choice, got {show_value(s.queue)}")
                for entry in s.queue:
                    if not (isinstance(entry, tuple) and len(entry) == 2 and 0 <= entry[1] < n):
                        raise ValueError(f"states[{i}].queue: expected (card, player) pairs, got {show_value(s.queue)}")
                    c = card_list(i, "queue", [entry[0]], 1)[0]
                    loc[i, c] = QUEUE
                    pending[int(entry[1]), i] = c
            else:
                chosen = s.pending if isinstance(s.pending, list) and len(s.pending) == n else None
                if chosen is None:
                    raise ValueError(f"states[{i}].pending: expected {n} entries, got {show_value(s.pending)}")
                for q, c in enumerate(chosen):
                    if c != -1:
                        c = card_list(i, "pending", [c], 1)[0]
                        loc[i, c] = PENDING
                        pending[q, i] = c
            if s.phase == DRAFT:
                small["picks"][i] = int(s.hands[:, :D].sum())
            elif self._draft:
                small["picks"][i] = HAND_SIZE * n
        idx = self._row_offsets + self._arange  # [4, B] buffer positions
        rkey = np.where(rlen > 0, (last << self._shift) + idx, -1 << self._shift)
        out: dict[str, np.ndarray] = {}
        flat = {"_rkey_b": rkey, "_rlen_b": rlen, "_rbull_b": rbull}
        for name, val in flat.items():
            buf = np.zeros_like(getattr(self, name))
            buf[1:] = val.reshape(-1)
            out[name] = buf
        rows_b = np.zeros_like(self._rows_b)
        rows_b[ROW_LIMIT:] = rows.reshape(-1)
        out.update({"_loc": loc, "_rows_b": rows_b, "_pending": pending, "_scores": scores, "_rpen": rpen,
                    "_phase": small["phase"].astype(np.int8), "_cur": small["current"].astype(np.int8),
                    "_trick": small["trick"].astype(np.int8), "_round": small["round"].astype(np.int32),
                    "_counter": small["counter"].astype(np.int32), "_picks": small["picks"].astype(np.int16),
                    "_seeds": seeds, "_game_index": self._arange.astype(np.int64),
                    "_pen": np.zeros((B, n), np.int32), "rewards": np.zeros((B, n), np.float32),
                    "terminated": np.zeros(B, bool), "final_scores": np.zeros((B, n), np.int32)})
        return out

    def _gather_arrays(self, source: BatchedGameBase, idx: np.ndarray) -> dict[str, np.ndarray]:
        """``gather`` for Take 5's layout: the per-row arrays are feature-major (``[4, B]``, ``[n, B]``)
        and each row key's low bits hold the row's buffer position, recomputed for the new slots."""
        B = self.batch_size
        src: Any = source
        out = {name: np.ascontiguousarray(getattr(src, name)[idx]) for name in
               ("_loc", "_scores", "_rpen", "_phase", "_cur", "_trick", "_round", "_counter", "_picks", "_seeds")}
        out["_pending"] = np.ascontiguousarray(src._pending[:, idx])
        pos = self._row_offsets + self._arange
        key = src._rkey[:, idx]
        live = key != (-1 << self._shift)
        rkey = np.where(live, ((key >> self._shift) << self._shift) + pos, key)
        for name, val in (("_rkey_b", rkey), ("_rlen_b", src._rlen[:, idx]), ("_rbull_b", src._rbull[:, idx])):
            buf = np.zeros_like(getattr(self, name))
            buf[1:] = val.reshape(-1)
            out[name] = buf
        rows_b = np.zeros_like(self._rows_b)
        rows_b[ROW_LIMIT:] = src._rows[:, idx].reshape(-1)
        out["_rows_b"] = rows_b
        n = self.num_players
        out.update({"_game_index": self._arange.astype(np.int64), "_pen": np.zeros((B, n), np.int32),
                    "rewards": np.zeros((B, n), np.float32), "terminated": np.zeros(B, bool),
                    "final_scores": np.zeros((B, n), np.int32)})
        return out

    def observe_as(self, seats: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """float32 [B, observation_size]: game i's observation of seat ``seats[i]`` (any seat, not only the
        acting one), equal to ``observation.observe(config, state_i, seats[i])`` in the play phase (a
        search's policy rollouts read every player's view of a trick at once). Outside the play phase the
        acting seat's observation is returned for that game whatever ``seats`` says."""
        s = np.asarray(seats)
        if s.shape != (self.batch_size,) or s.dtype.kind not in "iu" or (s.size and (s.min() < 0 or s.max() >= self.num_players)):
            raise ValueError(f"seats: expected {self.batch_size} seats in 0..{self.num_players - 1}")
        cur = self._cur
        try:
            self._cur = np.where(self._phase == PLAY, s, cur).astype(np.int8)
            return self.observe(out)
        finally:
            self._cur = cur

    # ------------------------------------------------------------------ step

    def step(self, actions: np.ndarray | Sequence[int]) -> np.ndarray:
        """Apply one action per game; return ``rewards`` (float32 [B, n], every player of every game).

        Also updates ``terminated``, ``final_scores``, ``current_player`` and ``legal_action_mask``;
        finished games are replaced at once (same-step autoreset). Raises ``ValueError`` if
        ``actions`` is not an integer array of shape [B], and ``IllegalActionError`` (naming the
        first game whose action is illegal) if any action is illegal; in both cases nothing changes.
        """
        a = self._check_actions(actions)
        B = self.batch_size
        self._pen.fill(0)
        self.terminated = np.zeros(B, bool)
        if self._player_rows or self._draft:
            # The subsets are taken before anything moves: a game must be stepped once only, and a
            # resolved trick may start a new round (a draft, in draft mode) or a row choice.
            phase = self._phase
            play = np.flatnonzero(phase == PLAY)
            rc = np.flatnonzero(phase == ROW_CHOICE) if self._player_rows else None
            if self._draft:
                dr = np.flatnonzero(phase == DRAFT)
                if dr.size:
                    self._draft_pick(dr, a[dr])
            done = self._play(play, a[play]) if play.size else play
            if rc is not None and rc.size:
                self._resolve(done, rc, a[rc] - ACTION_ROW0)
            elif done.size:
                self._resolve(done, None, None)
        else:
            done = self._play(self._arange, a)
            if done.size:
                self._resolve(done, None, None)
        rewards = np.empty((B, self.num_players), np.float32)
        np.subtract(0, self._pen, out=rewards, dtype=np.float32)  # 0 - x: no -0.0 for 0
        self.rewards = rewards
        self._update_mask()
        return rewards

    def _play(self, g: np.ndarray, a: np.ndarray) -> np.ndarray:
        """Games ``g`` (card play) choose card ``a``; return the games whose last seat just chose."""
        cur = self._cur[g]
        self._loc_f[g * NUM_ACTIONS + a] = PENDING
        self._pending_f[cur.astype(np.intp) * self.batch_size + g] = a
        cur += 1
        self._cur[g] = cur
        return g[cur == self.num_players]

    def _resolve(self, done: np.ndarray, rc: np.ndarray | None, rows: np.ndarray | None) -> None:
        """Resolve tricks: ``done`` games have just revealed theirs; ``rc`` games resume theirs after the
        owner of the too-low card chose row ``rows`` (104 + row was the action). With
        ``row_pick="player"``, revealed tricks whose lowest card is too low stop for a row choice."""
        g = done if rc is None else np.concatenate([done, rc])
        m, nd = g.size, done.size
        pend = self._pending.take(g, axis=1)  # [n, m]
        key = pend.astype(np.int64)
        key <<= 4
        key += self._seats64  # card * 16 + seat: the cards are distinct, so this sorts by card
        ks = list(key)
        for i, j in self._net:
            ks[i], ks[j] = np.minimum(ks[i], ks[j]), np.maximum(ks[i], ks[j])
        key = np.stack(ks)  # [n, m], ascending
        loc_idx = pend + g * NUM_ACTIONS  # [n, m] flat positions of the tricks' cards (in pub too)
        pub_f = self._pub_f
        forced = None
        if rc is not None:
            forced = np.full(m, -1, np.intp)
            forced[nd:] = rows
        if self._player_rows and nd:
            # too low: no row ends below the lowest card
            low = ~(self._rkey.take(done, axis=1) < ((key[0, :nd] >> 4) << self._shift)).any(axis=0)
            if low.any():
                lo = np.flatnonzero(low)
                q = done[lo]
                self._phase[q] = ROW_CHOICE
                self._cur[q] = key[0, lo] & 15
                queued = loc_idx.take(lo, axis=1)
                self._loc_f[queued] = QUEUE
                if pub_f is not None:
                    pub_f[queued] = _SEEN_BIT | _TRICK_BIT
                keep = np.flatnonzero(np.concatenate([~low, np.ones(m - nd, bool)]))
                g, key, loc_idx = g[keep], key.take(keep, axis=1), loc_idx.take(keep, axis=1)
                if forced is not None:
                    forced = forced[keep]
                if not g.size:
                    return
        self._loc_f[loc_idx] = SEEN
        if pub_f is not None:
            pub_f[loc_idx] = _SEEN_BIT  # the row bits follow as the cards are placed
        if rc is not None:
            self._phase[rc] = PLAY
        self._place_trick(g, key, forced)
        # this step's penalties (all from this placement) join the round penalties before the round may end
        self._rpen += self._pen
        self._end_trick(g)

    def _place_trick(self, g: np.ndarray, key: np.ndarray, forced: np.ndarray | None) -> None:
        """Place the sorted tricks of games ``g`` (``key``: card * 16 + owner, [n, m], ascending).

        ``forced[j] >= 0``: the lowest card of game j takes that row (a row choice). Otherwise a
        too-low lowest card takes the cheapest row (``row_pick="min_bullheads"``). Cards after the
        lowest are never too low: the lowest card of the trick already ends a row.

        ``rkey`` (see ``__init__``) makes finding a card's row cheap: the row is the one whose key is
        the largest below ``cs = card << 32``, i.e. whose ``cs - key`` is the smallest positive, which
        is the minimum of ``cs - key`` read as unsigned (the negative ones wrap to huge values); the
        low bits of that key are the row's position in the row buffers (``r * B + game + 1``).
        """
        B, n = self.batch_size, self.num_players
        cards = key >> 4
        cs = cards << self._shift  # [n, m]
        bull = _BULL8[cards]
        pen_idx = key & 15
        pen_idx += g * n  # [n, m] flat index into pen (owner of each card)
        takes = np.empty(cards.shape, np.int8)  # bull heads each card's owner takes, added at the end
        rkey, rkey_b, low_mask = self._rkey, self._rkey_b, self._low_mask
        rlen_b, rbull_b, rows_b = self._rlen_b, self._rbull_b, self._rows_b
        pub_g = g * NUM_ACTIONS if self._pub_f is not None else None  # the games' first positions in pub
        for k in range(n):
            c = cs[k]
            d = c - rkey.take(g, axis=1)  # [4, m]: positive for the rows ending below the card
            dmin = np.minimum.reduce(d.view(np.uint64), axis=0).view(np.int64)  # negative: too low
            fi = (c - dmin) & low_mask  # the row's position in the buffers
            ln = None
            if k == 0:
                force = None
                if forced is not None:
                    force = forced >= 0
                    fi = np.where(force, forced * B + g + 1, fi)
                elif not self._player_rows:
                    low = dmin < 0
                    if low.any():  # automatic pick: fewest bull heads, then fewer cards, then lowest index
                        ck = self._rbull.take(g, axis=1).astype(np.int16) * 64 + self._rlen.take(g, axis=1) * 8 + _R[:, None]
                        cheap = np.minimum(np.minimum(ck[0], ck[1]), np.minimum(ck[2], ck[3])) & 7
                        fi = np.where(low, cheap.astype(np.intp) * B + g + 1, fi)
                        force = low
                if force is not None:
                    ln = rlen_b[fi]
                    full = (ln == ROW_LIMIT) | force
                    ln[full] = 0
            if ln is None:
                ln = rlen_b[fi]
                full = ln == ROW_LIMIT
                ln %= ROW_LIMIT  # a full row is taken: the card starts it again
            if pub_g is not None:
                self._pub_place(pub_g, fi, full, cards[k], force is not None if k == 0 else False)
            b = rbull_b[fi]
            taken = takes[k]
            np.multiply(b, full, out=taken)  # a full (or chosen) row goes to the card's owner
            rows_b[fi * ROW_LIMIT + ln] = cards[k]
            rlen_b[fi] = ln + 1
            b -= taken
            b += bull[k]
            rbull_b[fi] = b
            rkey_b[fi] = c + fi
        self._pen_f[pen_idx] += takes  # one (game, seat) per entry: no repeated index

    def _pub_place(self, pub_g: np.ndarray, fi: np.ndarray, full: np.ndarray, cards: np.ndarray,
                   forced: bool) -> None:
        """``pub`` before card ``cards[j]`` of the game whose pub row starts at ``pub_g[j]`` goes to the row
        at buffer position ``fi[j]`` (``full``: the row is taken first): a taken row's cards keep only
        their seen bit, the card gets its row's bit. Called while the row buffers still hold the rows as
        they were. ``forced``: a taken row may be shorter than 5 (a chosen or cheapest row), else a
        taken row is a full one."""
        pub_f = self._pub_f
        t = np.flatnonzero(full)
        if t.size:
            ft = fi[t]
            old = self._rows_b[(ft * ROW_LIMIT)[:, None] + _SLOTS]                  # [t, 5] card ids
            pos = pub_g[t][:, None] + old
            if forced:
                pos = pos[_SLOTS < self._rlen_b[ft][:, None]]
            pub_f[pos] = _SEEN_BIT
        pub_f[pub_g + cards] = self._row_bits.take(fi)

    def _public_bytes(self, g: np.ndarray) -> np.ndarray:
        """uint8 [m, 109]: ``pub`` of games ``g`` computed from ``loc`` and the rows (see the module
        docstring): seen (QUEUE or SEEN), trick (QUEUE: a trick waiting for a row choice), pool (the
        draft's pool) and the bit of the row each card lies in; 0 in columns 104..108, whose ``loc``
        codes (ROWPICK, OUT) are none of these."""
        loc = self._loc[g]
        pub = np.greater_equal(loc, np.int8(QUEUE)).view(np.uint8) * np.uint8(_SEEN_BIT)
        pub |= (loc == QUEUE).view(np.uint8) * np.uint8(_TRICK_BIT)
        if self._draft:
            pub |= (loc == POOL).view(np.uint8) * np.uint8(_POOL_BIT)
        rows = self._rows[:, g]                                                      # [4, m, 5]
        live = _SLOTS < self._rlen[:, g, None]
        for r in range(NUM_ROWS):
            i, j = np.nonzero(live[r])
            pub[i, rows[r, i, j]] |= np.uint8(_ROW0_BIT << r)
        return pub

    def _end_trick(self, g: np.ndarray) -> None:
        """The tricks of games ``g`` are over: the next trick (seat 0 leads), or the end of the round."""
        t = self._trick[g] + 1
        self._trick[g] = t
        self._cur[g] = 0
        ended = g[t == NUM_TRICKS]
        if ended.size:
            self._end_round(ended)

    def _end_round(self, g: np.ndarray) -> None:
        """Round penalties join the scores; finished games are replaced, the others deal a new round."""
        scores = self._scores.take(g, axis=0) + self._rpen.take(g, axis=0)
        self._scores[g] = scores
        rnd = self._round[g] + 1
        self._round[g] = rnd
        if self._k is not None:
            over = rnd >= self._k
        else:
            top = scores.max(axis=1)
            over = top >= self.config.end_score if self.config.end_inclusive else top > self.config.end_score
        if over.any():
            fin = g[over]
            self.terminated[fin] = True
            self.final_scores[fin] = scores[over]
            self._next_games(fin)  # same-step autoreset: slot i's next game is game i + k*B of the run
            self._scores[fin] = 0
            self._round[fin] = 0
            self._counter[fin] = 0
        self._start_round(g)

    def _draft_pick(self, g: np.ndarray, a: np.ndarray) -> None:
        """Draft: the acting seat takes card ``a`` from the pool; after 10n picks the 4 cards left start
        the rows in ascending order and card play begins with seat 0."""
        n = self.num_players
        p = self._cur[g]
        self._loc_f[g * NUM_ACTIONS + a] = p
        if self._pub_f is not None:
            self._pub_f[g * NUM_ACTIONS + a] = 0  # out of the pool, into a hand
        picks = self._picks[g] + 1
        self._picks[g] = picks
        fin = picks == HAND_SIZE * n
        self._cur[g] = np.where(fin, 0, (p + 1) % n)
        e = g[fin]
        if e.size:
            starters = np.nonzero(self._loc[e, :NUM_CARDS] == POOL)[1].reshape(e.size, NUM_ROWS)
            self._set_rows(e, starters)
            self._loc_f[(e * NUM_ACTIONS)[:, None] + starters] = SEEN
            self._phase[e] = PLAY
            if self._pub is not None:
                self._pub[e] = self._public_bytes(e)

    # ------------------------------------------------------------------ new games and rounds

    def _new_games(self, g: np.ndarray) -> None:
        """Games ``g`` start (their seeds already set): no score, no round, the first deal (or draft)."""
        self._scores[g] = 0
        self._round[g] = 0
        self._counter[g] = 0
        self._start_round(g)

    def _set_rows(self, g: np.ndarray, starters: np.ndarray) -> None:
        """Games ``g`` get rows of one card each: ``starters[:, r]`` (int [m, 4]) starts row r. (The
        caller marks the starters SEEN in ``loc``.)"""
        st = starters.T  # [4, m]
        idx = self._row_offsets + g  # [4, m] buffer positions of the games' rows
        self._rows_b[idx * ROW_LIMIT] = st
        self._rkey_b[idx] = (st.astype(self._rkey.dtype) << self._shift) + idx
        self._rlen_b[idx] = 1
        self._rbull_b[idx] = _BULL8[st]

    def _start_round(self, g: np.ndarray) -> None:
        """``engine._start_round`` for games ``g``: one shuffle (counter + 1) and the deal, or the draft."""
        n = self.num_players
        self._trick[g] = 0
        self._cur[g] = 0
        self._rpen[g] = 0
        self._loc[g] = self._blank_loc
        if self._draft:
            self._phase[g] = DRAFT
            self._picks[g] = 0
            self._rkey[:, g] = -1 << self._shift  # empty rows: the observation's row statistics are 0, as the reference's
            self._rlen[:, g] = 0
            self._rbull[:, g] = 0
            if self._pub is not None:
                self._pub[g] = self._public_bytes(g)
            return
        perm = seeding.fast_batch_permutation(self._seeds[g], self._counter[g], self._deck)
        self._counter[g] += 1
        dealt = HAND_SIZE * n + NUM_ROWS  # the rest stays ASIDE, as blank_loc has it
        self._loc_f[(g * NUM_ACTIONS)[:, None] + perm[:, :dealt]] = self._deal_codes[:dealt]  # hands, SEEN starters
        starters = perm[:, HAND_SIZE * n:HAND_SIZE * n + NUM_ROWS]
        self._set_rows(g, starters)
        self._phase[g] = PLAY
        if self._pub is not None:  # a new deal: the row starters are the only public cards
            self._pub[g] = 0
            self._pub_f[(g * NUM_ACTIONS)[:, None] + starters] = _ROW_PUB

    # ------------------------------------------------------------------ mask and observation

    def _update_mask(self) -> None:
        """The acting seat's legal actions: its hand (PLAY), the pool (DRAFT) or rows 104..107
        (ROW_CHOICE): ``loc == target`` with target the seat, POOL or ROWPICK."""
        target = self._cur
        if self._draft or self._player_rows:
            target = target.copy()
            if self._draft:
                target[self._phase == DRAFT] = POOL
            if self._player_rows:
                target[self._phase == ROW_CHOICE] = ROWPICK
        m = np.empty((self.batch_size, NUM_ACTIONS), np.int8)
        np.equal(self._loc, target[:, None], out=m)
        self._set_mask(m)

    def observe(self, out: np.ndarray | None = None) -> np.ndarray:
        """float32 [B, observation_size]: each game's acting seat's observation; row i equals
        ``observation.observe(config, state_i, current_player[i])`` of the reference engine.

        ``out``: an optional C-contiguous float32 [B, observation_size] array to write into and return (a
        training loop can reuse one buffer); by default a new array."""
        B = self.batch_size
        obs = self._obs_out(out)
        # Blocks of games small enough for the cache: the pieces are written in several passes, and
        # a block's passes then meet in the cache instead of going to memory each time.
        for lo in range(0, B, _OBS_BLOCK):
            self._observe_block(obs[lo:lo + _OBS_BLOCK], lo)
        return obs

    def _observe_block(self, obs: np.ndarray, lo: int) -> None:
        """``observe`` for games lo .. lo + len(obs) - 1, written into ``obs`` (a C-contiguous block)."""
        nb, size = obs.shape
        n = self.num_players
        sl = slice(lo, lo + nb)
        loc = self._loc[sl, :NUM_CARDS]
        cur = self._cur[sl]
        phase = self._phase[sl]
        at = self._obs_at
        np.equal(loc, cur[:, None], out=obs[:, at["hand"]])
        np.greater_equal(loc, np.int8(QUEUE), out=obs[:, at["seen"]])  # seen: QUEUE or SEEN
        # trick, pool and rows (contiguous) are sparse: zeros, then their few ones
        obs[:, TRICK:ROW_STATS] = 0
        if self._player_rows:  # a trick waits only during a row choice
            rc = np.flatnonzero(phase == ROW_CHOICE)
            if rc.size:
                obs[rc, at["trick"]] = loc[rc] == QUEUE
        if self._draft:  # the pool exists only in the draft
            dr = np.flatnonzero(phase == DRAFT)
            if dr.size:
                obs[dr, at["pool"]] = loc[dr] == POOL
        # rows: 1 at ROWS + 104 r + card for the cards in row r; a stale slot (at or beyond the row's
        # length) writes to column ROW_STATS instead, which the row statistics overwrite just after
        base = self._obs_rowbase.get(nb)
        if base is None:
            ar = np.arange(nb, dtype=np.int64) * size
            base = self._obs_rowbase[nb] = (ar[None, :, None] + (ROWS + NUM_CARDS * _R.astype(np.int64))[:, None, None],
                                            (ar + ROW_STATS)[None, :, None])
        idx = self._rows[:, sl] + base[0]  # [4, nb, 5]
        np.copyto(idx, base[1], where=np.arange(ROW_LIMIT, dtype=np.int8) >= self._rlen[:, sl, None])
        obs.reshape(-1)[idx.reshape(-1)] = 1.0
        stats = obs[:, at["row_stats"]].view()
        stats.shape = (nb, NUM_ROWS, 3)  # a view: raises rather than copying
        stats[:, :, 0] = _END_F[(self._rkey[:, sl] >> self._shift) + 1].T
        stats[:, :, 1] = _LEN_F[self._rlen[:, sl]].T
        stats[:, :, 2] = _BULL_F[self._rbull[:, sl]].T
        # scores and round penalties by relative seat, as the reference: (points * (1 / end_score)) as float32
        flat, row = self._tail_index(sl)
        k = 1.0 / self.config.end_score
        obs[:, at["scores"]] = self._scores_f.take(flat) * k
        obs[:, at["round_pen"]] = self._rpen_f.take(flat) * k
        # seat one-hot, phase one-hot and tricks / 10 (contiguous), by table
        obs[:, at["seat"].start:at["tricks"].stop] = self._tail.take(row, axis=0)
        if self._draft:  # the other players' public hands: their cards and their unrevealed choices
            pend = self._pending[:, sl]  # [n, nb]
            others = at["others"].start
            for i in range(1, n):
                q = (cur.astype(np.int64) + i) % n
                held = loc == q[:, None].astype(np.int8)
                pq = pend[q, np.arange(nb)].astype(np.int64)
                # seats before the acting one have chosen in this trick (``_pending`` keeps stale cards)
                has = np.flatnonzero((phase == PLAY) & (q < cur) & (pq >= 0))
                held[has, pq[has]] = True
                obs[:, others + NUM_CARDS * (i - 1):others + NUM_CARDS * i] = held


    # ------------------------------------------------------------------ compact observation

    def observe_compact(self, out: np.ndarray | None = None) -> np.ndarray:
        """uint8 [B, 136 + 6n]: each game's acting seat's observation in the compact form of
        ``fiveplay_env.take5.compact`` (``compact.layout(n, end_score).decode`` gives ``observe()``
        exactly). ``out``: an optional C-contiguous uint8 array of that shape to write into.
        Not for ``draft=True`` configs (``ValueError``): their observation also holds the other players'
        public hands, which the compact form does not encode."""
        from fiveplay_env.take5 import compact

        if self.config.draft:
            raise ValueError("observe_compact: expected draft=False: the compact observation does not cover the "
                             "draft's public hands (the 'others' piece); use observe()")
        lay = compact.layout(self.num_players, self.config.end_score)
        if lay.planes != _COMPACT_PLANES:
            raise ValueError(f"observe_compact: this encoder packs the planes {_COMPACT_PLANES}, the observation "
                             f"layout now has {lay.planes}")
        B = self.batch_size
        if out is None:
            cobs = np.empty((B, lay.size), np.uint8)
        else:
            if not isinstance(out, np.ndarray) or out.dtype != np.uint8 or out.shape != (B, lay.size) \
                    or not out.flags.c_contiguous:
                raise ValueError(f"out: expected a C-contiguous uint8 array of shape ({B}, {lay.size}), got "
                                 f"{getattr(out, 'dtype', type(out).__name__)} {getattr(out, 'shape', '')}")
            cobs = out
        if self._pub is None:  # from now on step keeps it up to date
            self._pub = self._public_bytes(self._arange)
            self._pub_f = self._pub.reshape(-1)
        # blocks 4x the float observation's: a compact block is small (160 bytes a game at 4 players), so
        # fewer, larger passes cost less than cache misses would
        for lo in range(0, B, 4 * _OBS_BLOCK):
            self._observe_compact_block(cobs[lo:lo + 4 * _OBS_BLOCK], lo, lay)
        return cobs

    def _tail_index(self, sl: slice) -> tuple[np.ndarray, np.ndarray]:
        """For games ``sl``: the flat ``scores`` / ``rpen`` positions of each relative seat ([m, n]) and the
        row of the ``_tail`` / ``_tail_codes`` tables (seat, phase, tricks) of the acting seat ([m]).
        ``take()`` rather than fancy indexing: several times faster on these small int8-indexed gathers."""
        n = self.num_players
        cur = self._cur[sl]
        flat = self._rel.take(cur, axis=0)
        f = flat.reshape(-1)  # a view: the [m, n] result is contiguous
        f += self._arange_n[sl.start * n:sl.stop * n]  # one flat pass: adding b * n as [m, 1] costs 4x more
        row = cur.astype(np.intp)
        row *= 4
        row += self._phase[sl]
        row *= NUM_TRICKS + 1
        row += self._trick[sl]
        return flat, row

    def _observe_compact_block(self, cobs: np.ndarray, lo: int, lay: Any) -> None:
        nb = cobs.shape[0]
        sl = slice(lo, lo + nb)
        cur = self._cur[sl]
        # a card's byte: its public bits (``pub``) | the hand bit. The hand is the legal mask unless a seat
        # may be choosing a row (its mask is then rows 104..107). pub, loc and the mask share the [B, 109]
        # layout: the or is one pass over contiguous memory, then one copy of the card columns (the two
        # passes cost less than one 2-D or into cobs).
        if self._draft or self._player_rows:
            card = np.equal(self._loc[sl], cur[:, None]).view(np.uint8)  # the hand (columns >= 104: 0)
            card |= self._pub[sl]
        else:
            card = np.bitwise_or(self._pub[sl], self._mask[sl].view(np.uint8))
        cobs[:, :NUM_CARDS] = card[:, :NUM_CARDS]
        # the codes: one per float column from the layout's tail_start on, so a piece's code columns
        # are its float columns shifted by tail_start
        codes = cobs[:, lay.card_bytes:].view("<u2")  # [nb, 12 + 3n + 4]
        at, t = self._obs_at, lay.tail_start
        # row statistics one column at a time: a [nb, 4] write from the feature-major rows would
        # run numpy's inner loop over 4 values per game, a column's over all the games
        end = self._rkey[:, sl] >> self._shift
        end += 1
        rlen, rbull = self._rlen[:, sl], self._rbull[:, sl]
        rs = at["row_stats"].start - t
        for r in range(NUM_ROWS):
            codes[:, rs + 3 * r] = end[r]
            codes[:, rs + 3 * r + 1] = rlen[r]
            codes[:, rs + 3 * r + 2] = rbull[r]
        fl, row = self._tail_index(sl)
        sc, rp = at["scores"], at["round_pen"]
        codes[:, sc.start - t:sc.stop - t] = self._scores_f.take(fl)
        codes[:, rp.start - t:rp.stop - t] = self._rpen_f.take(fl)
        codes[:, at["seat"].start - t:at["tricks"].stop - t] = self._tail_codes.take(row, axis=0)


_COMPACT_PLANES = ("hand", "seen", "trick", "pool", "rows0", "rows1", "rows2", "rows3")


def make_batched(num_envs: int, seed: int | None = 0, **config: Any) -> BatchedTake5:
    """``BatchedTake5(Take5Config(**config), num_envs, seed)``; unknown config keys raise ``ValueError``
    naming the key. The factory ``fiveplay_env.vector.make_vec("take5", ...)`` calls."""
    return BatchedTake5(from_kwargs(Take5Config, config), num_envs, seed)


def bench_take5_batched(num_players: int, batch_size: int, with_obs: bool, seconds: float) -> float:
    """Decisions per second of ``BatchedTake5`` (standard rules, ``num_players`` seats, ``batch_size``
    games): random legal play, the actions drawn from the mask with ``vector.random_actions`` inside
    the timed loop; ``with_obs`` also encodes every step's observations (into one reused buffer).
    Runs for about ``seconds`` after a short warm-up; one decision = one game's action in one step."""
    return bench_batched(BatchedTake5(Take5Config(num_players=num_players), batch_size, seed=0), with_obs, seconds)
