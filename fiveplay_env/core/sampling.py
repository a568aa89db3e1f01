"""A cheap, exact batched sampler of uniformly random legal actions (random agents, benchmarks, tests).

``random_actions(mask, rng)`` draws one legal action per row of a [B, A] mask; the vector API
re-exports it (``fiveplay_env.vector.random_actions``).
"""
from __future__ import annotations

import numpy as np


def _pack_table() -> np.ndarray:
    """int64 [256 * 8]: for a word of eight 0/1 bytes, packed to one byte as ``(word * _PACK) >> 56``,
    entry ``packed * 8 + r`` is the position (0..7) of its r-th nonzero byte."""
    table = np.zeros((256, 8), np.int64)
    for bits in range(256):
        word = sum(((bits >> i) & 1) << (8 * i) for i in range(8))
        packed = ((word * int(_PACK)) & (2**64 - 1)) >> 56
        for r, pos in enumerate(i for i in range(8) if (bits >> i) & 1):
            table[packed, r] = pos
    return table.reshape(-1)


_PACK = np.uint64(0x0102040810204080)  # multiplies the 0/1 bytes of a word into its top byte, one bit each
_NTH = _pack_table()


def random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """int64 [B]: one legal action per row of ``mask`` ([B, A], nonzero = legal), uniformly at random.

    Exact and cheap (about 0.05 us per row of 109 on a 2-core machine, a third of the cost of an
    argmax over random noise, which is also slightly biased by ties): one uniform float per row picks
    the rank r of the action among the row's k legal ones; the rank is found through the counts of legal entries per 8-column word (a popcount), then
    inside the word by table. Raises ``ValueError`` for a mask that is not 2-d or a row with no legal
    action.
    """
    m = np.asarray(mask)
    if m.ndim != 2:
        raise ValueError(f"mask: expected a 2-d array [B, A], got shape {m.shape}")
    b, a = m.shape
    nw = (a + 7) // 8
    flags = np.empty((b, 8 * nw), np.uint8)
    flags[:, a:] = 0  # the padding of the last word
    np.not_equal(m, 0, out=flags[:, :a].view(np.bool_))
    words = flags.view(np.uint64)  # [b, nw]: 8 columns each, one byte per column
    # cum[w + 1, i]: legal entries of row i in words 0..w (column-major, so the running sum is nw adds)
    cum = np.zeros((nw + 1, b), np.uint8 if a < 256 else np.int64)
    cum[1:] = np.bitwise_count(words).T
    for w in range(2, nw + 1):
        cum[w] += cum[w - 1]
    k = cum[nw]
    if not k.all():
        raise ValueError(f"mask: row {int(np.flatnonzero(k == 0)[0])} has no legal action")
    r = np.minimum((rng.random(b) * k).astype(np.int64), k - 1)  # the rank, uniform in 0..k-1
    j = (cum[1:] <= r).sum(axis=0, dtype=np.intp)  # the word holding it
    ar = np.arange(b)
    r -= cum.reshape(-1)[j * b + ar]  # its rank inside that word
    packed = ((words.reshape(-1)[ar * nw + j] * _PACK) >> np.uint64(56)).astype(np.intp)
    return j * 8 + _NTH[packed * 8 + r]
