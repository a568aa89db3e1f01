"""5 Alive observations of the batched state, compiled.

``observe`` writes, for each game b, seat ``seats[b]``'s float observation, equal to the reference encoder's
(``observation.observe``: the layout ``observation.LAYOUT``, exact small integers and 0/1 flags, so equal
bit for bit). It reads the state arrays of ``positions.SCHEMA`` and nothing else.
"""
from __future__ import annotations

import numba as nb
import numpy as np

from fiveplay_env.five_alive.config import NUM_KINDS
from fiveplay_env.five_alive.observation import DIRECTION, DISCARD, DRAW_PILE, HAND, LAYOUT, PHASE, SEATS, TOP, TOTAL
from fiveplay_env.five_alive.state import PLAY


def offsets(n: int) -> np.ndarray:
    """int64 [3]: the offsets of the turn, lives and hand_sizes pieces."""
    sp = LAYOUT.spans(n)
    assert sp["turn"][0] == SEATS
    return np.array([sp["turn"][0], sp["lives"][0], sp["hand_sizes"][0]], np.int64)


@nb.njit(cache=True)
def observe(hands, hsize, disc, top, dlen, total, dir_, cur, phase, lives, seats, at, out):
    """``out[b]`` = seat ``seats[b]``'s observation of game b (seats relative to it: index 0 is the seat)."""
    n = hands.shape[1]
    turn, lv, hs = at[0], at[1], at[2]
    for b in range(hands.shape[0]):
        s = seats[b]
        o = out[b]
        for k in range(NUM_KINDS):
            o[HAND + k] = hands[b, s, k]
            o[DISCARD + k] = disc[b, k]
            o[TOP + k] = 0.0
        for t in range(TOTAL, DIRECTION):
            o[t] = 0.0
        if top[b] >= 0:
            o[TOP + top[b]] = 1.0
        o[TOTAL + total[b]] = 1.0
        o[DIRECTION] = 1.0 if dir_[b] == 1 else 0.0
        o[DRAW_PILE] = dlen[b]
        play = phase[b] == PLAY
        o[PHASE] = 1.0 if play else 0.0
        o[PHASE + 1] = 0.0 if play else 1.0
        for i in range(n):
            q = (s + i) % n
            o[turn + i] = 1.0 if q == cur[b] else 0.0
            o[lv + i] = lives[b, q]
            o[hs + i] = hsize[b, q]


__all__ = ["observe", "offsets"]
