"""Counter-based randomness shared by the reference and the batched engines.

Every random event of a game (a shuffle, a random first player) is a pure function of the game's seed
and a counter that the game state carries. The reference engine (one game) and the batched engine (many
games at once) call the same functions here, so the same seed gives the same game in both, any game of
a batch can be replayed alone, and cloning a state copies two integers instead of a generator.

The generator is SplitMix64 (Steele, Lea and Flood 2014) applied to ``(seed, counter, index)``:
``keys = mix(mix(seed) ^ mix(counter + C)) + index * GOLDEN)``; a shuffle of ``n`` items is the stable
argsort of ``n`` such keys. All arithmetic is on uint64 arrays, where numpy wraps silently.
"""
from __future__ import annotations

from typing import Any

import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_C = np.uint64(0xD1B54A32D192ED03)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)
SEED_MAX = 2**64 - 1


def mix(x: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser over a uint64 array (elementwise)."""
    z = x + _GOLDEN
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


def normalize_seed(seed: int | None) -> int:
    """A seed as a Python int in 0..2**64-1; ``None`` draws fresh OS entropy."""
    if seed is None:
        return int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed: expected an int in 0..2**64-1 or None, got {seed!r}")
    s = int(seed)
    if s < 0 or s > SEED_MAX:
        raise ValueError(f"seed: expected an int in 0..2**64-1 or None, got {s}")
    return s


_STEPS: dict[int, np.ndarray] = {}


def _steps(n: int) -> np.ndarray:
    """``arange(n) * GOLDEN`` as uint64, cached (read-only)."""
    st = _STEPS.get(n)
    if st is None:
        st = np.arange(n, dtype=np.uint64) * _GOLDEN
        st.setflags(write=False)
        _STEPS[n] = st
    return st


def keys(seeds: np.ndarray, counters: np.ndarray, n: int) -> np.ndarray:
    """uint64 keys of shape ``seeds.shape + (n,)`` for event ``counters`` of games ``seeds``."""
    s = np.asarray(seeds, dtype=np.uint64)
    c = np.asarray(counters, dtype=np.uint64)
    base = mix(mix(s) ^ mix(c + _C))
    return mix(base[..., None] + _steps(n))


_MASK = 2**64 - 1


def _mix_int(x: int) -> int:
    """``mix`` on one Python int (the same value as the uint64 array version; faster for one game)."""
    z = (x + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def _base_int(seed: int, counter: int) -> int:
    return _mix_int(_mix_int(seed) ^ _mix_int((counter + 0xD1B54A32D192ED03) & _MASK))


def permutation(seed: int, counter: int, n: int) -> np.ndarray:
    """A permutation of ``range(n)`` (int64) for event ``counter`` of the game with ``seed``."""
    k = mix(np.uint64(_base_int(seed, counter)) + _steps(n))
    return np.argsort(k, kind="stable")


def batch_permutation(seeds: np.ndarray, counters: np.ndarray, n: int) -> np.ndarray:
    """Row ``i`` equals ``permutation(seeds[i], counters[i], n)``; shape ``(B, n)``."""
    return np.argsort(keys(seeds, counters, n), axis=-1, kind="stable")


_PACK_BITS = 8  # low bits of a packed key that carry its index: rows of up to 256 keys
_PACK_MAX = 1 << _PACK_BITS
_LOW = np.uint64(_PACK_MAX - 1)
_HIGH = np.uint64(~(_PACK_MAX - 1) & _MASK)
_U64MAX = np.uint64(_MASK)


def fast_batch_permutation(seeds: np.ndarray, counters: np.ndarray, width: int,
                           sizes: np.ndarray | None = None) -> np.ndarray:
    """int64 [m, width]: the batched engines' shuffles, equal to ``batch_permutation`` and several times faster.

    Without ``sizes``, row i equals ``batch_permutation(seeds, counters, width)[i]``. With ``sizes``
    (int [m], each 0..width), the first ``sizes[i]`` entries of row i equal ``permutation(seeds[i],
    counters[i], sizes[i])`` and the rest are the other indices: one call shuffles piles of different
    sizes, as ``permutation`` is the stable argsort of ``keys(seed, counter, size)``, whose first
    entries do not depend on ``size``, so row i sorts its first ``sizes[i]`` of ``width`` keys with the
    others pushed to the end.

    Fast path (width <= 256): each key keeps its top 56 bits and carries its index in the low 8, and
    the packed keys are sorted by value, which numpy does several times faster than an argsort. Masked
    keys get all-ones top bits and so sort after every valid key (a valid key with all-ones top bits
    still comes first: its index is lower). The order is the argsort's wherever the top 56 bits of a
    row's valid keys differ; rows where two agree (about one shuffle in 10**14) are argsorted exactly.
    """
    k = keys(seeds, counters, width)
    invalid = None if sizes is None else np.arange(width) >= np.asarray(sizes)[:, None]
    if width > _PACK_MAX:  # the indices do not fit in the low bits: the exact argsort
        if invalid is not None:
            k[invalid] = _U64MAX
        return np.argsort(k, axis=1, kind="stable")
    k &= _HIGH
    k |= np.arange(width, dtype=np.uint64)
    if invalid is not None:
        np.bitwise_or(k, _HIGH, out=k, where=invalid)
    k.sort(axis=1)
    high = k >> np.uint64(_PACK_BITS)
    same = high[:, 1:] == high[:, :-1]
    if invalid is not None:
        same &= ~invalid[:, 1:]  # only pairs of valid keys (the valid ones come first)
    k &= _LOW
    perm = k.view(np.int64)  # the indices, < 256: the same bits as int64
    if same.any():
        tie = same.any(axis=1)
        # the keys of the rare tied rows are drawn again rather than kept for every row: no copy
        exact = keys(np.asarray(seeds)[tie], np.asarray(counters)[tie], width)
        if invalid is not None:
            exact[invalid[tie]] = _U64MAX  # stable: a valid key equal to the maximum stays first
        perm[tie] = np.argsort(exact, axis=1, kind="stable")
    return perm


def below(seed: int, counter: int, k: int) -> int:
    """An integer in ``0..k-1`` for event ``counter`` of the game with ``seed``."""
    return _mix_int(_base_int(seed, counter)) % k


def batch_below(seeds: np.ndarray, counters: np.ndarray, k: np.ndarray | int) -> np.ndarray:
    """Elementwise ``below``: int64 of shape ``seeds.shape``."""
    v = keys(seeds, counters, 1)[..., 0] % np.asarray(k, dtype=np.uint64)
    return v.astype(np.int64)


def uniforms(seed: int, counter: int, n: int) -> np.ndarray:
    """float64 [n] in [0, 1): the top 53 bits of the keys of event ``counter`` of ``seed``, scaled (the search's
    per-world random numbers; ``kernel_rng.uniforms`` computes the same in compiled code)."""
    k = mix(np.uint64(_base_int(seed, counter)) + _steps(n))
    return (k >> np.uint64(11)).astype(np.float64) * (1.0 / 9007199254740992.0)


class CounterStream:
    """A stand-in for ``numpy.random.Generator`` whose i-th draw is a pure function of ``(key, start + i)``.

    It offers the few methods the games' determinizations call (``integers``, ``permutation``, ``shuffle``,
    ``random``), each one draw: ``integers(k)`` / ``integers(0, k)`` is ``below(key, c, k)``, ``permutation(n)``
    is ``permutation(key, c, n)``, ``shuffle(x)`` puts ``x`` in the order of ``permutation(key, c, len(x))``,
    ``random()`` is ``uniforms(key, c, 1)[0]``. So a world drawn through it can be drawn again, by index, in
    compiled code that makes the same calls in the same order (``kernel_rng``); at most ``limit`` draws
    (``RuntimeError`` beyond: the caller's counter range is used up)."""

    __slots__ = ("key", "counter", "end")

    def __init__(self, key: int, start: int, limit: int) -> None:
        self.key, self.counter, self.end = int(key), int(start), int(start) + int(limit)

    def _next(self) -> int:
        c = self.counter
        if c >= self.end:
            raise RuntimeError("CounterStream: its counter range is used up")
        self.counter = c + 1
        return c

    def integers(self, low: int, high: int | None = None) -> int:
        lo, hi = (0, low) if high is None else (low, high)
        if not 0 < hi - lo <= 2**63:
            raise ValueError(f"CounterStream.integers: expected a range of 1..2**63 values, got {lo}..{hi}")
        return int(lo) + below(self.key, self._next(), int(hi - lo))

    def permutation(self, n: int) -> np.ndarray:
        return permutation(self.key, self._next(), int(n))

    def shuffle(self, x: Any) -> None:
        order = permutation(self.key, self._next(), len(x))
        x[:] = [x[i] for i in order] if isinstance(x, list) else np.asarray(x)[order]

    def random(self) -> float:
        return float(uniforms(self.key, self._next(), 1)[0])


_DERIVE = np.uint64(2**63)  # derive's counters live above 2**63, away from the games' event counters


def derive(seed: int, index: int) -> int:
    """A child seed: game ``index`` of a run seeded ``seed`` (used for batches and tournaments)."""
    return int(keys(np.array([seed], dtype=np.uint64), np.array([int(_DERIVE) + index], dtype=np.uint64), 1)[0, 0])


class EpisodeSeeds:
    """The seeds of one env's successive games, as Gymnasium's ``reset`` contract has them:
    ``next(s)`` (a ``reset(seed=s)``) starts the stream over and its game has seed ``s``; ``next(None)``
    moves on to the stream's next game, ``derive(s, k)`` for the k-th unseeded reset since, so a seeded
    env's later episodes are reproducible too; an env never seeded starts its stream from OS entropy."""

    def __init__(self) -> None:
        self.base: int | None = None
        self.index = 0

    def next(self, seed: int | None) -> int:
        if seed is not None or self.base is None:
            self.base, self.index = normalize_seed(seed), 0
            return self.base
        self.index += 1
        return derive(self.base, self.index)


def batch_derive(base: int, index: np.ndarray) -> np.ndarray:
    """uint64 of ``index``'s shape: ``derive(base, index[j])`` for every j, in one vectorised call (the
    batched engines seed their slots with it). ``index`` must hold 0..2**63-1 (unchecked: hot path)."""
    idx = np.asarray(index, dtype=np.uint64)
    return keys(np.full(idx.shape, base, dtype=np.uint64), _DERIVE + idx, 1)[..., 0]
