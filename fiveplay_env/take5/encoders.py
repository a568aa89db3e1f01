"""Take 5 observations of the batched state, compiled: the float observation and the compact one.

``observe`` writes, for each game b, seat ``seats[b]``'s observation, equal to the reference encoder's
(``observation.encode``: the layout ``observation.LAYOUT``, the same float arithmetic, so equal bit for
bit); ``observe_compact`` writes the compact form of ``compact.CompactTake5Layout`` (``decode`` gives the
float observation back exactly). Both read the state arrays of ``positions.SCHEMA`` and nothing else.
"""
from __future__ import annotations

import numba as nb
import numpy as np

from fiveplay_env.take5.kernel import DRAFTING, END_SCORE, N, POOL, QUEUE
from fiveplay_env.take5.observation import HAND, LAYOUT, POOL as POOL_AT, ROW_STAT_DIVS, ROW_STATS, ROWS, SEEN, TRICK
from fiveplay_env.take5.state import DRAFT, NUM_CARDS, NUM_ROWS, NUM_TRICKS, PLAY

_END_DIV, _LEN_DIV, _BULL_DIV = ROW_STAT_DIVS


def offsets(n: int, draft: bool) -> np.ndarray:
    """int64 [6]: the offsets of scores, round_pen, seat, phase, tricks and others (the size without it)."""
    sp = LAYOUT.spans(n, draft=draft)
    size = LAYOUT.size(n, draft=draft)
    return np.array([sp["scores"][0], sp["round_pen"][0], sp["seat"][0], sp["phase"][0], sp["tricks"][0],
                     sp["others"][0] if "others" in sp else size], np.int64)


@nb.njit(cache=True)
def observe(loc, rows, rlen, rbull, pending, scores, rpen, phase, trick, seats, P, at, out):
    """``out[b]`` = seat ``seats[b]``'s float observation of game b."""
    n = P[N]
    k = 1.0 / P[END_SCORE]
    for b in range(loc.shape[0]):
        s = seats[b]
        o = out[b]
        o[:] = 0.0
        ph = phase[b]
        for c in range(NUM_CARDS):
            code = loc[b, c]
            if code == s:
                o[HAND + c] = 1.0
            if code >= QUEUE:
                o[SEEN + c] = 1.0
                if code == QUEUE:
                    o[TRICK + c] = 1.0
            elif code == POOL and ph == DRAFT:
                o[POOL_AT + c] = 1.0
        for r in range(NUM_ROWS):
            ln = rlen[b, r]
            if ln == 0:
                continue
            for j in range(ln):
                o[ROWS + NUM_CARDS * r + int(rows[b, r, j])] = 1.0
            o[ROW_STATS + 3 * r] = (int(rows[b, r, ln - 1]) + 1) / _END_DIV
            o[ROW_STATS + 3 * r + 1] = ln / _LEN_DIV
            o[ROW_STATS + 3 * r + 2] = rbull[b, r] / _BULL_DIV
        for i in range(n):
            q = (s + i) % n
            o[at[0] + i] = scores[b, q] * k
            o[at[1] + i] = rpen[b, q] * k
        o[at[2] + s] = 1.0
        o[at[3] + ph] = 1.0
        o[at[4]] = trick[b] / NUM_TRICKS
        if P[DRAFTING]:
            for i in range(1, n):
                q = (s + i) % n
                base = at[5] + NUM_CARDS * (i - 1)  # int8 values are int()-ed in sums: NUMBA_DISABLE_JIT
                for c in range(NUM_CARDS):
                    if loc[b, c] == q:
                        o[base + c] = 1.0
                if ph == PLAY and pending[b, q] >= 0:
                    o[base + int(pending[b, q])] = 1.0


@nb.njit(cache=True)
def observe_compact(loc, rows, rlen, rbull, scores, rpen, phase, trick, cur, P, cards, codes):
    """``cards[b]`` (uint8 [104]) and ``codes[b]`` (uint16 [12 + 3n + 4]): game b's acting seat's compact
    observation (``compact.CompactTake5Layout``: bits hand 1, seen 2, trick 4, pool 8, row r 16 << r)."""
    n = P[N]
    for b in range(loc.shape[0]):
        s = cur[b]
        ph = phase[b]
        for c in range(NUM_CARDS):
            code = loc[b, c]
            v = 0
            if code == s:
                v = 1
            elif code >= QUEUE:
                v = 2 if code > QUEUE else 6
            elif code == POOL and ph == DRAFT:
                v = 8
            cards[b, c] = v
        for r in range(NUM_ROWS):
            ln = rlen[b, r]
            for j in range(ln):
                cards[b, rows[b, r, j]] |= 16 << r
            codes[b, 3 * r] = int(rows[b, r, ln - 1]) + 1 if ln else 0
            codes[b, 3 * r + 1] = ln
            codes[b, 3 * r + 2] = rbull[b, r]
        t = 3 * NUM_ROWS
        for i in range(n):
            q = (s + i) % n
            codes[b, t + i] = scores[b, q]
            codes[b, t + n + i] = rpen[b, q]
            codes[b, t + 2 * n + i] = 1 if i == s else 0
        for x in range(3):
            codes[b, t + 3 * n + x] = 1 if x == ph else 0
        codes[b, t + 3 * n + 3] = trick[b]


__all__ = ["observe", "observe_compact", "offsets"]
