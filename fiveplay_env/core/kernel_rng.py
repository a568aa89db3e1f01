"""``core.seeding``'s counter-based randomness as numba functions, for the compiled kernels.

Each function returns what its numpy twin in ``core.seeding`` returns for the same arguments (SplitMix64
over ``(seed, counter, index)``; a shuffle is the stable argsort of its keys), so a kernel deals the
reference engine's cards. ``tests/engines/test_kernels.py`` checks them against ``core.seeding``.
Imported only by the kernels (it imports numba).
"""
from __future__ import annotations

import warnings

import numba as nb
import numpy as np

if nb.config.DISABLE_JIT:  # run as Python (debugging): numpy warns where uint64 arithmetic wraps, as it must here
    warnings.filterwarnings("ignore", r"overflow encountered in scalar", RuntimeWarning, __name__)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_C = np.uint64(0xD1B54A32D192ED03)
_DERIVE = np.uint64(2**63)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)


@nb.njit(cache=True, inline="always")
def mix(x: np.uint64) -> np.uint64:
    z = x + _GOLDEN
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@nb.njit(cache=True, inline="always")
def base(seed: np.uint64, counter: np.uint64) -> np.uint64:
    """The event's base key: ``mix(seed) ^ mix(counter + C)``, mixed."""
    return mix(mix(seed) ^ mix(counter + _C))


_HIGH = np.uint64(0xFFFFFFFFFFFFFF00)
_LOW = np.uint64(0xFF)
_EIGHT = np.uint64(8)
_SHIFT56 = np.uint64(56)


@nb.njit(cache=True)
def permutation(seed: np.uint64, counter: np.uint64, n: int, keys: np.ndarray, out: np.ndarray) -> None:
    """``out[:n]`` = ``seeding.permutation(seed, counter, n)`` (``keys``: uint64 scratch of >= n; n <= 256).

    As ``seeding.fast_batch_permutation``: each key keeps its top 56 bits and carries its index in the low 8,
    and the packed keys are sorted in place, which is the stable argsort wherever the top 56 bits of two keys
    differ; the rare shuffle where two agree (about one in 10**14) is argsorted exactly."""
    b = base(seed, counter)
    for i in range(n):
        keys[i] = (mix(b + np.uint64(i) * _GOLDEN) & _HIGH) | np.uint64(i)
    # a bucket sort by the top 8 bits (the keys are uniform: about n / 256 a bucket), then insertion sorts
    cnt = np.zeros(257, np.int64)
    for i in range(n):
        cnt[(keys[i] >> _SHIFT56) + np.uint64(1)] += 1
    for j in range(256):
        cnt[j + 1] += cnt[j]
    k = np.empty(n, np.uint64)
    for i in range(n):
        top = keys[i] >> _SHIFT56
        k[cnt[top]] = keys[i]
        cnt[top] += 1
    for i in range(1, n):
        x = k[i]
        j = i
        while j > 0 and k[j - 1] > x:
            k[j] = k[j - 1]
            j -= 1
        k[j] = x
    tie = False
    for i in range(1, n):
        if (k[i] >> _EIGHT) == (k[i - 1] >> _EIGHT):
            tie = True
    if tie:
        for i in range(n):
            keys[i] = mix(b + np.uint64(i) * _GOLDEN)
        order = np.argsort(keys[:n], kind="mergesort")
        for i in range(n):
            out[i] = order[i]
        return
    for i in range(n):
        out[i] = np.int64(k[i] & _LOW)


@nb.njit(cache=True)
def below(seed: np.uint64, counter: np.uint64, k: int) -> int:
    """``seeding.below(seed, counter, k)``: an integer in 0..k-1."""
    return int(mix(base(seed, counter)) % np.uint64(k))


_S11 = np.uint64(11)
_UNIT = 1.0 / 9007199254740992.0


@nb.njit(cache=True)
def uniforms(seed: np.uint64, counter: np.uint64, out: np.ndarray) -> None:
    """``out[:]`` = ``seeding.uniforms(seed, counter, len(out))``: floats in [0, 1)."""
    b = base(seed, counter)
    for i in range(out.shape[0]):
        out[i] = float(mix(b + np.uint64(i) * _GOLDEN) >> _S11) * _UNIT


@nb.njit(cache=True, inline="always")
def derive(seed: np.uint64, index: np.int64) -> np.uint64:
    """``seeding.derive(seed, index)``: the seed of game ``index`` of a run."""
    return mix(base(seed, _DERIVE + np.uint64(index)))


__all__ = ["base", "below", "derive", "mix", "permutation", "uniforms"]
