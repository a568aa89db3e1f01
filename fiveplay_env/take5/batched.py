"""The batched Take 5 engine: B games at once on numpy arrays with a leading batch axis.

It plays exactly the games of the reference engine (``fiveplay_env.take5.engine``): the same decision
order, the same seeded deals, the same rewards and observations, checked step by step by
``tests/take5/test_batched.py``. It shares only the config, the constants of ``state.py`` and the
counter-based randomness of ``core.seeding`` with the reference; the rule logic is written again, on
arrays, so that the two implementations check each other (DESIGN.md section 2).

Shape (Pgx's): after ``reset`` and after every ``step``, for each game ``i`` of the batch

| attribute           | dtype, shape     | meaning                                                   |
|---------------------|------------------|-----------------------------------------------------------|
| ``current_player``  | int32 [B]        | the seat that acts next in game i (0..n-1; always valid)  |
| ``legal_action_mask`` | int8 [B, 109]  | that player's legal actions (the reference's ``legal_mask``; read-only) |
| ``rewards``         | float32 [B, n]   | every player's reward for the last step: minus bull heads taken |
| ``terminated``      | bool [B]         | game i ended at the last step (and was replaced, see below) |
| ``observe()``       | float32 [B, 848+3n] | the acting player's observation, identical to ``observation.observe`` |
| ``scores``, ``round_penalty`` | int32 [B, n] | as ``Take5State.scores`` / ``round_pen``           |
| ``seeds``           | uint64 [B]       | the seed of the game now in each slot                     |

Decision order (the reference's AEC order): with ``draft`` each round opens with the draft picks, seat
order 0..n-1 repeated; each trick players 0..n-1 choose a card in turn; after the last choice the trick
is revealed and placed in ascending order; a too-low card with ``row_pick="player"`` makes its owner
choose a row (actions 104..107) as a separate step, then the rest of the trick is placed.

Autoreset: **same-step** (Gymnasium's ``AutoresetMode.SAME_STEP``, Pgx's ``auto_reset``). When game i
ends at a step, that step's ``rewards[i]`` and ``terminated[i] = True`` belong to the finished game,
its final scores are in ``final_scores[i]``, and slot i already holds a new game: ``current_player``,
``legal_action_mask`` and ``observe()`` are the new game's. So every slot always has a legal action.

Seeding: ``BatchedTake5(config, B, seed)`` starts game ``k`` of slot ``i`` (k = 0, 1, ...) with
``seeding.derive(seed, i + k * B)``, its *game index* (``game_index``); ``seeds[i]`` is the seed of
slot i's current game, and ``engine.new_game(config, seeds[i])`` replays it alone with the reference
engine (same actions, same game). ``reset(seeds=...)`` may set the first games' seeds explicitly.

State layout (one row per game; W = 105 columns per card table, the last one a scratch column):

| array      | dtype, shape      | meaning                                                          |
|------------|-------------------|------------------------------------------------------------------|
| ``loc``    | int8 [B, 105]     | where each card is: 0..n-1 hand of that seat, PENDING (chosen, unrevealed), QUEUE (revealed, awaiting a row choice), ROW0..ROW0+3, TAKEN, POOL (draft), ASIDE (set aside), OUT (not in play); column 104 is scratch |
| ``rows``   | int8 [B, 4, 5]    | row cards in placement order; unused slots hold 104 (the scratch column) |
| ``row_end``, ``row_len``, ``row_bull`` | int8 [B, 4] | last card (-1 in the draft), length (0 in the draft), bull heads |
| ``pending``| int8 [B, n]       | the card each seat chose this trick (meaningful for seats < current and during a row choice) |
| ``scores``, ``round_pen`` | int32 / int16 [B, n] | as in ``Take5State``                            |
| ``phase``, ``current``, ``trick`` | int8 [B] | as in ``Take5State``                                      |
| ``round``, ``counter``, ``picks`` | int32 / int32 / int16 [B] | rounds completed, random events used, draft picks made this round |
| ``seeds``, ``game_index`` | uint64 / int64 [B] | see Seeding                                           |

``seen`` (cards revealed this round) is exactly ``QUEUE <= loc <= TAKEN``, so it needs no array of its own.
``bytes_per_game()`` reports the memory this takes (about 230 bytes at 4 players, plus the cached
109-byte mask).
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from fiveplay_env.core import seeding
from fiveplay_env.core.config import check_int
from fiveplay_env.core.errors import IllegalActionError
from fiveplay_env.take5.config import Take5Config
from fiveplay_env.take5.observation import observation_size
from fiveplay_env.take5.state import (
    ACTION_ROW0, BULLHEADS, DRAFT, HAND_SIZE, NUM_ACTIONS, NUM_CARDS, NUM_ROWS, NUM_TRICKS, PLAY,
    ROW_CHOICE, ROW_LIMIT,
)

# Card location codes in ``loc`` (hands are the seat numbers 0..9). QUEUE..TAKEN are contiguous: they
# are exactly the cards a player has seen this round, so the observation's ``seen`` is one range test.
PENDING, QUEUE, ROW0, TAKEN, POOL, ASIDE, OUT = 10, 11, 12, 16, 17, 18, 19
SCRATCH = NUM_CARDS  # column 104 of ``loc``: where the unused row slots point, so scatters need no mask
W = NUM_CARDS + 1
_NO_CARD = -100  # a mask target no location code equals (used for row-choice games)

_BULL8 = BULLHEADS.astype(np.int8)
_BULL16 = BULLHEADS.astype(np.int16)
_ROW_CODES = np.arange(ROW0, ROW0 + NUM_ROWS, dtype=np.int8)


def _derive_batch(base: int, index: np.ndarray) -> np.ndarray:
    """uint64 [m]: ``seeding.derive(base, index[j])`` for every j (the same formula, vectorised)."""
    idx = np.asarray(index, dtype=np.uint64)
    base_arr = np.full(idx.shape, base, dtype=np.uint64)
    return seeding.keys(base_arr, np.uint64(2**63) + idx, 1)[..., 0]


class BatchedTake5:
    """``batch_size`` Take 5 games under one ``Take5Config``, stepped together.

    ``step(actions)`` takes one action per game (int [B]) for each game's ``current_player`` and
    applies all of them; it raises ``ValueError`` for a wrong shape or dtype and
    ``IllegalActionError`` (naming the first offending game index) for an illegal action, in both
    cases before anything changes. See the module docstring for the attributes, the autoreset mode
    and the seeding.
    """

    def __init__(self, config: Take5Config, batch_size: int, seed: int | None = 0) -> None:
        if not isinstance(config, Take5Config):
            raise ValueError(f"config: expected a Take5Config, got {type(config).__name__}")
        self.config = config
        self.batch_size = B = check_int("batch_size", batch_size, 1)
        self.num_players = n = config.num_players
        self.num_actions = NUM_ACTIONS
        self.observation_size = observation_size(n)
        self._deck = config.deck_size
        self._k = config.num_rounds
        self._player_rows = config.row_pick == "player"
        self._draft = config.draft
        self._arange = np.arange(B)
        self._seat_range = np.arange(n, dtype=np.int16)
        # The deal: perm[j] goes to seat j // 10 for j < 10n, then starts row j - 10n, then is set aside.
        codes = np.full(self._deck, ASIDE, np.int8)
        codes[:HAND_SIZE * n] = np.repeat(np.arange(n, dtype=np.int8), HAND_SIZE)
        codes[HAND_SIZE * n:HAND_SIZE * n + NUM_ROWS] = _ROW_CODES
        self._deal_codes = codes
        blank = np.full(W, OUT, np.int8)
        blank[:self._deck] = POOL if self._draft else ASIDE
        blank[SCRATCH] = OUT
        self._blank_loc = blank
        # state
        self._loc = np.zeros((B, W), np.int8)
        self._rows = np.full((B, NUM_ROWS, ROW_LIMIT), SCRATCH, np.int8)
        self._row_end = np.zeros((B, NUM_ROWS), np.int8)
        self._row_len = np.zeros((B, NUM_ROWS), np.int8)
        self._row_bull = np.zeros((B, NUM_ROWS), np.int8)
        self._pending = np.full((B, n), -1, np.int8)
        self._scores = np.zeros((B, n), np.int32)
        self._round_pen = np.zeros((B, n), np.int16)
        self._phase = np.zeros(B, np.int8)
        self._cur = np.zeros(B, np.int8)
        self._trick = np.zeros(B, np.int8)
        self._round = np.zeros(B, np.int32)
        self._counter = np.zeros(B, np.int32)
        self._picks = np.zeros(B, np.int16)
        self._seeds = np.zeros(B, np.uint64)
        self._game_index = np.zeros(B, np.int64)
        # flat views (the arrays are contiguous): scatter/gather by flat index is the cheapest fancy indexing
        self._loc_f = self._loc.reshape(-1)
        self._rows_f = self._rows.reshape(-1)
        self._end_f = self._row_end.reshape(-1)
        self._len_f = self._row_len.reshape(-1)
        self._bull_f = self._row_bull.reshape(-1)
        self._pending_f = self._pending.reshape(-1)
        self._pen_f = self._round_pen.reshape(-1)
        # outputs of the last step
        self._rew = np.zeros((B, n), np.int16)
        self.rewards: np.ndarray = np.zeros((B, n), np.float32)
        self.terminated: np.ndarray = np.zeros(B, bool)
        self.final_scores: np.ndarray = np.zeros((B, n), np.int32)
        self._mask = np.zeros((B, NUM_ACTIONS), np.int8)
        self.reset(seed)

    # ------------------------------------------------------------------ public API

    def reset(self, seed: int | None = None, seeds: Sequence[int] | np.ndarray | None = None) -> None:
        """Start B new games. ``seed``: the run's base seed (None: fresh entropy); slot i's k-th game is
        seeded ``derive(seed, i + k*B)``. ``seeds``: optional explicit seeds for the first games (uint64-
        representable ints, length B); later games of each slot still derive from ``seed``."""
        B = self.batch_size
        self.base_seed = seeding.normalize_seed(seed)
        self._game_index[:] = self._arange
        if seeds is None:
            self._seeds[:] = _derive_batch(self.base_seed, self._game_index)
        else:
            vals = [seeding.normalize_seed(s) for s in seeds]
            if len(vals) != B:
                raise ValueError(f"seeds: expected {B} seeds (one per game), got {len(vals)}")
            self._seeds[:] = np.array(vals, dtype=np.uint64)
        self._new_games(self._arange)
        self.rewards = np.zeros((B, self.num_players), np.float32)
        self.terminated = np.zeros(B, bool)
        self.final_scores = np.zeros((B, self.num_players), np.int32)
        self._update_mask()

    @property
    def current_player(self) -> np.ndarray:
        """int32 [B]: the acting seat of each game."""
        return self._cur.astype(np.int32)

    @property
    def legal_action_mask(self) -> np.ndarray:
        """int8 [B, 109] (read-only; a new array after every step): the acting player's legal actions."""
        return self._mask

    @property
    def seeds(self) -> np.ndarray:
        """uint64 [B]: the seed of each slot's current game (``engine.new_game(config, seed)`` replays it)."""
        return self._seeds.copy()

    @property
    def game_index(self) -> np.ndarray:
        """int64 [B]: each slot's current game is game ``game_index[i]`` of the run (seed ``derive(base_seed, .)``)."""
        return self._game_index.copy()

    @property
    def scores(self) -> np.ndarray:
        """int32 [B, n]: penalty points of the rounds completed (the reference's ``scores``)."""
        return self._scores.copy()

    @property
    def round_penalty(self) -> np.ndarray:
        """int32 [B, n]: penalty points taken in the current round (the reference's ``round_pen``)."""
        return self._round_pen.astype(np.int32)

    @property
    def round(self) -> np.ndarray:
        """int32 [B]: rounds completed in each game."""
        return self._round.copy()

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
        np.equal(self._loc[:, None, :NUM_CARDS], np.arange(n, dtype=np.int8)[None, :, None], out=h[:, :, :NUM_CARDS])
        return h

    def row_lists(self, i: int) -> list[list[int]]:
        """Game i's rows as lists of card ids in placement order (the reference's ``rows``; [] in the draft)."""
        if self._phase[i] == DRAFT:
            return []
        return [[int(c) for c in self._rows[i, r, :self._row_len[i, r]]] for r in range(NUM_ROWS)]

    def info(self) -> dict[str, np.ndarray]:
        """Per-game extras: ``scores``, ``round_penalty``, ``round``, ``seed`` of the current games and
        ``final_scores`` (valid where ``terminated``) of the games that ended at the last step."""
        return {"scores": self.scores, "round_penalty": self.round_penalty, "round": self.round,
                "seed": self.seeds, "final_scores": self.final_scores.copy()}

    def bytes_per_game(self) -> float:
        """Memory of the game state per game, in bytes (the cached mask included, outputs excluded)."""
        arrays = (self._loc, self._rows, self._row_end, self._row_len, self._row_bull, self._pending,
                  self._scores, self._round_pen, self._phase, self._cur, self._trick, self._round,
                  self._counter, self._picks, self._seeds, self._game_index, self._mask)
        return sum(a.nbytes for a in arrays) / self.batch_size

    # ------------------------------------------------------------------ step

    def step(self, actions: np.ndarray | Sequence[int]) -> np.ndarray:
        """Apply one action per game; return ``rewards`` (float32 [B, n], every player of every game).

        Also updates ``terminated``, ``final_scores``, ``current_player``, ``legal_action_mask``; finished
        games are replaced at once (same-step autoreset). Raises ``ValueError`` for actions that are not
        an integer array of shape [B], ``IllegalActionError`` for an illegal action (state untouched).
        """
        a = self._check_actions(actions)
        B, n = self.batch_size, self.num_players
        rew = self._rew
        rew.fill(0)
        self.terminated = np.zeros(B, bool)
        phase = self._phase
        if self._player_rows or self._draft:
            # the subsets are taken before anything moves: a finished row choice may start a new round
            # (a draft, in draft mode) and must not be stepped twice
            play_idx = np.flatnonzero(phase == PLAY)
            rc = np.flatnonzero(phase == ROW_CHOICE) if self._player_rows else play_idx[:0]
            dr = np.flatnonzero(phase == DRAFT) if self._draft else play_idx[:0]
            if play_idx.size:
                self._play(play_idx, a[play_idx])
            if rc.size:
                self._row_choice(rc, a[rc])
            if dr.size:
                self._draft_pick(dr, a[dr])
        else:
            self._play(self._arange, a)
        self.rewards = rew.astype(np.float32)
        self._update_mask()
        return self.rewards

    def _check_actions(self, actions: np.ndarray | Sequence[int]) -> np.ndarray:
        B = self.batch_size
        a = np.asarray(actions)
        if a.shape != (B,):
            raise ValueError(f"actions: expected an integer array of shape ({B},), got shape {a.shape}")
        if a.dtype.kind not in "iu":
            raise ValueError(f"actions: expected an integer dtype, got {a.dtype}")
        a = a.astype(np.int64, copy=False)
        inside = (a >= 0) & (a < NUM_ACTIONS)
        ok = inside.copy()
        ok[inside] = self._mask.reshape(-1)[self._arange[inside] * NUM_ACTIONS + a[inside]] == 1
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            err = IllegalActionError(f"player_{int(self._cur[i])} of game {i}", int(a[i]),
                                     np.flatnonzero(self._mask[i]))
            err.game_index = i  # type: ignore[attr-defined]
            raise err
        return a

    def _play(self, g: np.ndarray, a: np.ndarray) -> None:
        """Games ``g`` (PLAY phase) choose card ``a``; the games whose last seat chose resolve the trick."""
        n = self.num_players
        cur = self._cur[g]
        self._loc_f[g * W + a] = PENDING
        self._pending_f[g * n + cur] = a
        cur += 1
        done = cur == n
        cur[done] = 0  # the reference's current after a trick without a row choice (fixed below otherwise)
        self._cur[g] = cur
        r = g[done]
        if r.size:
            self._reveal(r)

    def _sorted_trick(self, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """int16 [m, n] cards of the trick of games ``g`` in ascending order, and their owners."""
        key = self._pending[g].astype(np.int16) * 16 + self._seat_range
        key.sort(axis=1)
        return key >> 4, key & 15

    def _reveal(self, g: np.ndarray) -> None:
        """All cards of the trick are revealed; place them, unless the lowest one needs a row choice."""
        cards, owners = self._sorted_trick(g)
        c0 = cards[:, 0]
        ends = self._row_end[g]
        low = (ends > c0[:, None]).all(axis=1)  # no row ends below the lowest card
        if self._player_rows:
            if low.any():
                q = g[low]
                self._phase[q] = ROW_CHOICE
                self._cur[q] = owners[low, 0]
                self._loc[q[:, None], cards[low]] = QUEUE
                keep = ~low
                g, cards, owners = g[keep], cards[keep], owners[keep]
                if not g.size:
                    return
            self._place_rest(g, cards, owners, 0, None)
        else:
            self._place_rest(g, cards, owners, 0, low if low.any() else None)
        self._end_trick(g)

    def _row_choice(self, g: np.ndarray, a: np.ndarray) -> None:
        """The owner of the too-low card takes row ``a - 104``; then the rest of the trick is placed."""
        cards, owners = self._sorted_trick(g)
        r = (a - ACTION_ROW0).astype(np.int64)
        self._place(g, cards[:, 0], owners[:, 0], r, np.ones(g.size, bool))
        self._phase[g] = PLAY
        self._place_rest(g, cards, owners, 1, None)
        self._end_trick(g)

    def _place_rest(self, g: np.ndarray, cards: np.ndarray, owners: np.ndarray, k0: int,
                    low: np.ndarray | None) -> None:
        """Place trick positions k0..n-1 in order. ``low`` (automatic row pick only): games whose card
        k0 == 0 is too low and takes the cheapest row. Cards after the lowest are never too low: the
        lowest card of the trick already ends a row."""
        n = self.num_players
        for k in range(k0, n):
            c = cards[:, k]
            ends = self._row_end[g]
            below = np.where(ends < c[:, None], ends, -1)
            r = below.argmax(axis=1)
            take = self._len_f[g * NUM_ROWS + r] == ROW_LIMIT
            if low is not None and k == 0:
                # fewest bull heads, then fewer cards, then the lowest index (engine.cheapest_row)
                key = self._row_bull[g].astype(np.int16) * 64 + self._row_len[g] * 8 + np.arange(NUM_ROWS, dtype=np.int16)
                r = np.where(low, key.argmin(axis=1), r)
                take |= low
            self._place(g, c, owners[:, k], r, take)

    def _place(self, g: np.ndarray, c: np.ndarray, owner: np.ndarray, r: np.ndarray, take: np.ndarray) -> None:
        """Card ``c`` of seat ``owner`` goes on row ``r`` of games ``g``; where ``take``, the owner first
        takes that row's cards (their bull heads are the owner's penalty) and ``c`` alone becomes the row."""
        n = self.num_players
        fr = g * NUM_ROWS + r
        ln = self._len_f[fr]
        bull = self._bull_f[fr]
        if take.any():
            t = np.flatnonzero(take)
            gt, frt = g[t], fr[t]
            pts = bull[t].astype(np.int16)
            po = gt * n + owner[t]
            self._pen_f[po] += pts
            self._rew.reshape(-1)[po] -= pts
            # the row's cards go to the penalty pile (unused slots point at the scratch column)
            self._loc[gt[:, None], self._rows.reshape(-1, ROW_LIMIT)[frt]] = TAKEN
            self._rows.reshape(-1, ROW_LIMIT)[frt, 1:] = SCRATCH
            ln = np.where(take, 0, ln)
            bull = np.where(take, 0, bull)
        self._rows_f[fr * ROW_LIMIT + ln] = c
        self._len_f[fr] = ln + 1
        self._bull_f[fr] = bull + _BULL8[c]
        self._end_f[fr] = c
        self._loc_f[g * W + c] = ROW0 + r

    def _end_trick(self, g: np.ndarray) -> None:
        """The trick of games ``g`` is over: next trick (seat 0 leads), or the end of the round."""
        t = self._trick[g] + 1
        self._trick[g] = t
        self._cur[g] = 0
        ended = g[t == NUM_TRICKS]
        if ended.size:
            self._end_round(ended)

    def _end_round(self, g: np.ndarray) -> None:
        self._scores[g] += self._round_pen[g]
        rnd = self._round[g] + 1
        self._round[g] = rnd
        if self._k is not None:
            over = rnd >= self._k
        else:
            top = self._scores[g].max(axis=1)
            over = top >= self.config.end_score if self.config.end_inclusive else top > self.config.end_score
        if over.any():
            fin = g[over]
            self.terminated[fin] = True
            self.final_scores[fin] = self._scores[fin]
            # same-step autoreset: slot i's next game is game i + k*B of the run
            self._game_index[fin] += self.batch_size
            self._seeds[fin] = _derive_batch(self.base_seed, self._game_index[fin])
            self._new_games(fin)
            g = g[~over]
        if g.size:
            self._start_round(g)

    def _draft_pick(self, g: np.ndarray, a: np.ndarray) -> None:
        """Draft: the acting seat takes card ``a`` from the pool; after 10n picks the 4 cards left start
        the rows in ascending order and card play begins with seat 0."""
        n = self.num_players
        p = self._cur[g]
        self._loc_f[g * W + a] = p
        picks = self._picks[g] + 1
        self._picks[g] = picks
        fin = picks == HAND_SIZE * n
        self._cur[g] = np.where(fin, 0, (p + 1) % n)
        e = g[fin]
        if e.size:
            starters = np.nonzero(self._loc[e, :NUM_CARDS] == POOL)[1].reshape(e.size, NUM_ROWS)
            self._set_rows(e, starters)
            self._phase[e] = PLAY

    # ------------------------------------------------------------------ new games and rounds

    def _new_games(self, g: np.ndarray) -> None:
        self._scores[g] = 0
        self._round[g] = 0
        self._counter[g] = 0
        self._start_round(g)

    def _set_rows(self, g: np.ndarray, starters: np.ndarray) -> None:
        """Each game of ``g`` gets rows of one card each: ``starters[:, r]`` starts row r."""
        self._rows[g] = SCRATCH
        self._rows[g, :, 0] = starters
        self._row_end[g] = starters
        self._row_len[g] = 1
        self._row_bull[g] = _BULL8[starters]
        self._loc[g[:, None], starters] = _ROW_CODES

    def _start_round(self, g: np.ndarray) -> None:
        """engine._start_round for games ``g``: one shuffle (counter + 1) and the deal, or the draft."""
        n = self.num_players
        self._trick[g] = 0
        self._cur[g] = 0
        self._round_pen[g] = 0
        self._pending[g] = -1
        self._loc[g] = self._blank_loc
        if self._draft:
            self._phase[g] = DRAFT
            self._picks[g] = 0
            self._rows[g] = SCRATCH
            self._row_end[g] = -1  # so the observation's row statistics are 0 like the reference's empty rows
            self._row_len[g] = 0
            self._row_bull[g] = 0
            return
        perm = seeding.batch_permutation(self._seeds[g], self._counter[g], self._deck)
        self._counter[g] += 1
        self._loc[g[:, None], perm] = self._deal_codes
        self._set_rows(g, perm[:, HAND_SIZE * n:HAND_SIZE * n + NUM_ROWS])
        self._phase[g] = PLAY

    # ------------------------------------------------------------------ mask and observation

    def _update_mask(self) -> None:
        """The acting seat's legal actions: its hand (PLAY), the pool (DRAFT) or rows 104..107 (ROW_CHOICE)."""
        B = self.batch_size
        target = self._cur
        if self._draft or self._player_rows:
            target = target.copy()
            if self._draft:
                target[self._phase == DRAFT] = POOL
            if self._player_rows:
                rc = self._phase == ROW_CHOICE
                target[rc] = _NO_CARD
        m = np.empty((B, NUM_ACTIONS), np.int8)
        np.equal(self._loc[:, :NUM_CARDS], target[:, None], out=m[:, :NUM_CARDS])
        if self._player_rows:
            m[:, ACTION_ROW0:ACTION_ROW0 + NUM_ROWS] = rc[:, None]
        else:
            m[:, ACTION_ROW0:ACTION_ROW0 + NUM_ROWS] = 0
        m[:, NUM_ACTIONS - 1] = 0
        m.setflags(write=False)
        self._mask = m

    def observe(self, out: np.ndarray | None = None) -> np.ndarray:
        """float32 [B, 848 + 3n]: each game's acting player's observation, row i equal to
        ``observation.observe(config, state_i, current_player[i])`` of the reference engine.

        ``out``: an optional float32 [B, 848 + 3n] C-contiguous array to write into (and return), so a
        training loop can reuse one buffer."""
        B, n = self.batch_size, self.num_players
        size = self.observation_size
        if out is None:
            obs = np.empty((B, size), np.float32)
        else:
            if not isinstance(out, np.ndarray) or out.dtype != np.float32 or out.shape != (B, size) \
                    or not out.flags.c_contiguous:
                raise ValueError(f"out: expected a C-contiguous float32 array of shape ({B}, {size}), got "
                                 f"{getattr(out, 'dtype', type(out).__name__)} {getattr(out, 'shape', '')}")
            obs = out
        loc = self._loc[:, :NUM_CARDS]
        cur = self._cur
        np.equal(loc, cur[:, None], out=obs[:, 0:104])  # hand
        np.less_equal(loc.view(np.uint8) - np.uint8(QUEUE), np.uint8(TAKEN - QUEUE), out=obs[:, 104:208])  # seen
        if self._player_rows:
            np.equal(loc, np.int8(QUEUE), out=obs[:, 208:312])  # a trick is queued only during a row choice
        else:
            obs[:, 208:312] = 0
        if self._draft:
            np.equal(loc, np.int8(POOL), out=obs[:, 312:416])  # the pool exists only during the draft
        else:
            obs[:, 312:416] = 0
        rows = obs[:, 416:832].view()
        rows.shape = (B, NUM_ROWS, NUM_CARDS)  # a view (raises rather than copying)
        np.equal(loc[:, None, :], _ROW_CODES[None, :, None], out=rows)
        stats = np.empty((B, NUM_ROWS, 3), np.float64)  # float64 then float32: the reference's rounding
        stats[:, :, 0] = (self._row_end + 1) / 104.0
        stats[:, :, 1] = self._row_len / 5.0
        stats[:, :, 2] = self._row_bull / 10.0
        obs[:, 832:844] = stats.reshape(B, 12)
        base = 844
        k = 1.0 / self.config.end_score
        seats = cur[:, None].astype(np.int64) + self._seat_range
        seats %= n
        flat = self._arange[:, None] * n + seats
        obs[:, base:base + n] = self._scores.reshape(-1)[flat] * k
        obs[:, base + n:base + 2 * n] = self._pen_f[flat] * k
        # seat: one-hot of the observer's absolute seat (the observer is the acting seat)
        np.equal(self._seat_range[None, :], cur[:, None], out=obs[:, base + 2 * n:base + 3 * n])
        np.equal(self._phase[:, None], np.arange(3, dtype=np.int8)[None, :], out=obs[:, base + 3 * n:base + 3 * n + 3])
        obs[:, base + 3 * n + 3] = self._trick / NUM_TRICKS
        return obs


def make_batched(num_envs: int, seed: int | None = 0, **config: Any) -> BatchedTake5:
    """``BatchedTake5(Take5Config(**config), num_envs, seed)``, rejecting unknown config keys by name
    (the factory ``fiveplay_env.vector.make_vec("take5", ...)`` uses)."""
    from fiveplay_env.core.config import from_kwargs

    return BatchedTake5(from_kwargs(Take5Config, config), num_envs, seed)


def bench_take5_batched(num_players: int, batch_size: int, with_obs: bool, seconds: float) -> float:
    """Decisions per second of ``BatchedTake5`` at this size: random legal play, the actions drawn from
    the mask with ``vector.random_actions`` inside the timed loop; ``with_obs`` also encodes every
    step's observations (into one reused buffer). Runs for about ``seconds`` after one warm-up step."""
    from fiveplay_env.vector import random_actions

    env = BatchedTake5(Take5Config(num_players=num_players), batch_size, seed=0)
    rng = np.random.default_rng(0)
    buf = np.empty((batch_size, env.observation_size), np.float32)
    env.step(random_actions(env.legal_action_mask, rng))
    steps = 0
    t0 = time.perf_counter()
    deadline = t0 + seconds
    while True:
        for _ in range(10):
            env.step(random_actions(env.legal_action_mask, rng))
            if with_obs:
                env.observe(out=buf)
        steps += 10
        now = time.perf_counter()
        if now >= deadline:
            break
    return steps * batch_size / (now - t0)
