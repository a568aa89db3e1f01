"""``fiveplay_env.core.seeding`` in JAX: the same SplitMix64 draws, on pairs of uint32 (no x64 mode).

The JAX engines replay the reference engines' games exactly (``chance="reference"``), so every shuffle
and every random first player must be the value ``core.seeding`` computes with uint64 numpy arithmetic.
JAX without ``jax_enable_x64`` has no 64-bit integers (and this module never turns x64 on), so a uint64
is carried as a **pair**: a uint32 array whose last axis has size 2, ``[..., 0]`` the high 32 bits and
``[..., 1]`` the low 32 bits. Additions carry, multiplications are built from 16-bit limbs, shifts move
bits between the halves; every function here is pure, jit- and vmap-able, and broadcasts over leading
axes (a batch of seeds is simply a ``[B, 2]`` array).

API (stable: the 5 Alive JAX engine shares this module):

| function                                      | returns (JAX arrays)         | equals (``core.seeding``)                      |
|-----------------------------------------------|------------------------------|------------------------------------------------|
| ``pair(x)``                                   | uint32 [..., 2]              | a uint32 / nonnegative int32 array as a pair   |
| ``from_uint64(x)`` / ``to_uint64(p)`` (host)  | numpy uint32 [..., 2] / uint64 | conversions of Python ints / numpy uint64   |
| ``add(a, b)``                                 | uint32 [..., 2]              | ``a + b`` modulo 2**64                         |
| ``mix(x)``                                    | uint32 [..., 2]              | ``mix``                                        |
| ``keys(seed, counter, n)``                    | uint32 [..., n, 2]           | ``keys(seeds, counters, n)``                   |
| ``permutation(seed, counter, n)``             | int32 [..., n]               | ``permutation`` / ``batch_permutation``        |
| ``batch_permutation(seeds, counters, width, sizes=None)`` | int32 [..., width] | ``fast_batch_permutation`` (with ``sizes``) |
| ``below(seed, counter, k)``                   | int32 [...]                  | ``below`` / ``batch_below``, k in 1..65536     |
| ``derive(base, index)``                       | uint32 [..., 2]              | ``derive`` / ``batch_derive``                  |
| ``sparse(fn, fraction)``                      | a function                   | (JAX only) ``fn`` run under ``vmap`` only where needed |

``seed``, ``counter``, ``base`` and ``index`` are pairs (``counter`` and ``index`` may also be given as
uint32 / nonnegative int32 arrays without the pair axis: ``pair`` lifts them). A permutation is the stable
argsort of the keys. Fast path (as ``fast_batch_permutation``'s): each key keeps the top bits of its high
half and carries its index in the low ``ceil(log2(width))`` bits, and these uint32 values are sorted as
plain integers (XLA sorts one integer array many times faster than several operands); a row where two
valid packed keys tie is ordered exactly, by (high half, low half, index), so equal keys keep index
order as numpy's stable argsort does. That exact sort runs only for
the tied rows (``sparse``: about one 104-card shuffle in 6,000). With ``sizes`` (int [...], each
0..width), the first ``sizes[i]`` entries of row i are ``permutation(seed_i, counter_i, sizes[i])`` and the
rest are the other indices in ascending order, exactly as ``fast_batch_permutation`` returns them (its
masked keys are the maximum uint64 and sort after every valid key, index order breaking ties).

Importing this module imports jax; without jax it raises ``ImportError`` naming the extra.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

try:
    import jax
    import jax.numpy as jnp
    from jax import lax
    from jax.custom_batching import custom_vmap
except ImportError as exc:  # pragma: no cover - exercised only without jax
    from fiveplay_env.core.extras import install_hint

    raise ImportError(f"the JAX engines need jax, of the 'jax' extra: {install_hint('jax')}") from exc

Array = Any  # a jax.Array (or anything jnp.asarray accepts)

_U32 = jnp.uint32
_M16 = 0xFFFF


def _c(x: int) -> tuple[np.uint32, np.uint32]:
    """A 64-bit constant as its (high, low) uint32 halves."""
    return np.uint32(x >> 32), np.uint32(x & 0xFFFFFFFF)


_GOLDEN = _c(0x9E3779B97F4A7C15)
_M1 = _c(0xBF58476D1CE4E5B9)
_M2 = _c(0x94D049BB133111EB)
_C = _c(0xD1B54A32D192ED03)
_DERIVE_HI = np.uint32(0x80000000)  # derive's counters are 2**63 + index


# --- sparse work under vmap -----------------------------------------------------------------------------
def sparse(fn: Callable[..., Any], fraction: float) -> Callable[..., Any]:
    """``g(need, *args, fallback) = fn(*args) if need else fallback`` (``fallback`` a pytree shaped like
    ``fn``'s output). Alone: a ``lax.cond``. Under ``vmap``: only the games whose ``need`` is True run
    ``fn``: they are gathered ``ceil(fraction * B)`` at a time (a ``while_loop`` takes more chunks when
    more games need it) and their results scattered over the fallbacks. ``fn`` must not close over
    arrays (build its constants from ``lax.iota``): ``custom_vmap`` rejects batched constants, which a
    ``lax.cond`` under ``vmap`` (Pgx's ``auto_reset``) makes of them."""
    cache: dict[Any, Any] = {}

    def make(in_tree: Any, n_in: int) -> Any:
        def run(*xs: Any) -> list[Any]:
            return jax.tree_util.tree_leaves(fn(*jax.tree_util.tree_unflatten(in_tree, list(xs))))

        @custom_vmap
        def g(need: Any, *leaves: Any) -> Any:
            return lax.cond(need, lambda: run(*leaves[:n_in]), lambda: list(leaves[n_in:]))

        @g.def_vmap
        def rule(axis_size: int, in_batched: Any, need: Any, *leaves: Any) -> Any:
            nb, lb = in_batched[0], in_batched[1:]
            need = need if nb else jnp.broadcast_to(need, (axis_size,))
            leaves = [x if b else jnp.broadcast_to(x, (axis_size,) + jnp.shape(x)) for x, b in zip(leaves, lb)]
            inputs, out = leaves[:n_in], list(leaves[n_in:])
            k = max(1, min(axis_size, int(np.ceil(fraction * axis_size))))

            def body(carry: Any) -> Any:
                out, todo = carry
                idx = jnp.nonzero(todo, size=k, fill_value=axis_size)[0]
                res = jax.vmap(run)(*[x.at[idx].get(mode="fill", fill_value=0) for x in inputs])
                out = [o.at[idx].set(r, mode="drop") for o, r in zip(out, res)]
                return out, todo.at[idx].set(False, mode="drop")

            out, _ = lax.while_loop(lambda c: c[1].any(), body, (out, need))
            return out, [True] * len(out)

        return g

    def call(need: Any, *args: Any) -> Any:
        in_leaves, in_tree = jax.tree_util.tree_flatten(args[:-1])
        out_leaves, out_tree = jax.tree_util.tree_flatten(args[-1])
        if in_tree not in cache:
            cache[in_tree] = make(in_tree, len(in_leaves))
        res = cache[in_tree](need, *in_leaves, *out_leaves)
        return jax.tree_util.tree_unflatten(out_tree, list(res))

    return call


# --- host conversions ----------------------------------------------------------------------------------
def from_uint64(x: int | np.ndarray) -> np.ndarray:
    """numpy uint32 [..., 2]: a Python int in 0..2**64-1 or a numpy integer array as (high, low) pairs."""
    a = np.asarray(x, dtype=np.uint64) if not isinstance(x, int) else np.array(x, dtype=np.uint64)
    return np.stack([(a >> np.uint64(32)).astype(np.uint32), (a & np.uint64(0xFFFFFFFF)).astype(np.uint32)], axis=-1)


def to_uint64(p: Array) -> np.ndarray:
    """numpy uint64 [...]: the values of pairs ``p`` (uint32 [..., 2], on any device)."""
    a = np.asarray(p, dtype=np.uint32)
    if a.shape[-1:] != (2,):
        raise ValueError(f"pair: expected a uint32 array whose last axis has size 2, got shape {a.shape}")
    return (a[..., 0].astype(np.uint64) << np.uint64(32)) | a[..., 1].astype(np.uint64)


# --- pair arithmetic (internally on (hi, lo) tuples of uint32 arrays) -----------------------------------
def _split(p: Array) -> tuple[Array, Array]:
    p = jnp.asarray(p, _U32)
    return p[..., 0], p[..., 1]


def _join(hi: Array, lo: Array) -> Array:
    return jnp.stack([hi, lo], axis=-1)


def pair(x: Array) -> Array:
    """uint32 [..., 2]: ``x`` as a pair. An array whose dtype is uint32 and whose last axis has size 2 is
    taken as a pair already; any other integer array (uint32, or int32 >= 0) gets high half 0.

    (A plain uint32 array of shape [..., 2] would be ambiguous: pass such counters as int32.)"""
    x = jnp.asarray(x)
    if x.dtype == _U32 and x.ndim >= 1 and x.shape[-1] == 2:
        return x
    if not jnp.issubdtype(x.dtype, jnp.integer):
        raise ValueError(f"pair: expected an integer array, got dtype {x.dtype}")
    lo = x.astype(_U32)
    return _join(jnp.zeros_like(lo), lo)


def _add(ah: Array, al: Array, bh: Array, bl: Array) -> tuple[Array, Array]:
    lo = al + bl
    carry = (lo < al).astype(_U32)
    return ah + bh + carry, lo


def add(a: Array, b: Array) -> Array:
    """uint32 [..., 2]: ``a + b`` modulo 2**64 (pairs, or integer arrays lifted by ``pair``)."""
    ah, al = _split(pair(a))
    bh, bl = _split(pair(b))
    return _join(*_add(ah, al, bh, bl))


def _mulhi32(a: Array, b: Array) -> Array:
    """The high 32 bits of the 64-bit product of two uint32 arrays (16-bit limbs: no 64-bit type)."""
    a0, a1 = a & _M16, a >> 16
    b0, b1 = b & _M16, b >> 16
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    mid = (p00 >> 16) + (p01 & _M16) + (p10 & _M16)  # < 3 * 2**16: no overflow
    return p11 + (p01 >> 16) + (p10 >> 16) + (mid >> 16)


def _mulc(h: Array, lo: Array, c: tuple[np.uint32, np.uint32]) -> tuple[Array, Array]:
    """(h, lo) * constant c modulo 2**64."""
    ch, cl = _U32(c[0]), _U32(c[1])
    return _mulhi32(lo, cl) + h * cl + lo * ch, lo * cl


def _shr(h: Array, lo: Array, s: int) -> tuple[Array, Array]:
    """Logical right shift by 0 < s < 32."""
    return h >> s, (lo >> s) | (h << (32 - s))


def _mix(h: Array, lo: Array) -> tuple[Array, Array]:
    h, lo = _add(h, lo, _U32(_GOLDEN[0]), _U32(_GOLDEN[1]))
    sh, sl = _shr(h, lo, 30)
    h, lo = _mulc(h ^ sh, lo ^ sl, _M1)
    sh, sl = _shr(h, lo, 27)
    h, lo = _mulc(h ^ sh, lo ^ sl, _M2)
    sh, sl = _shr(h, lo, 31)
    return h ^ sh, lo ^ sl


def mix(x: Array) -> Array:
    """uint32 [..., 2]: the SplitMix64 finaliser of ``seeding.mix`` on pairs."""
    return _join(*_mix(*_split(x)))


def _base(seed: Array, counter: Array) -> tuple[Array, Array]:
    """``mix(mix(seed) ^ mix(counter + C))`` as (hi, lo)."""
    sh, sl = _mix(*_split(pair(seed)))
    ch, cl = _split(pair(counter))
    ch, cl = _mix(*_add(ch, cl, _U32(_C[0]), _U32(_C[1])))
    return _mix(sh ^ ch, sl ^ cl)


def _keys(seed: Array, counter: Array, n: int) -> tuple[Array, Array]:
    bh, bl = _base(seed, counter)
    # arange(n) * GOLDEN from an iota, not a constant array: functions run by ``sparse`` must not close
    # over arrays (custom_vmap rejects batched constants under a vmapped lax.cond, as Pgx's auto_reset makes)
    th, tl = _mulc(jnp.zeros(n, _U32), lax.iota(_U32, n), _GOLDEN)
    return _mix(*_add(bh[..., None], bl[..., None], th, tl))


def keys(seed: Array, counter: Array, n: int) -> Array:
    """uint32 [..., n, 2]: ``seeding.keys`` for event ``counter`` of the games ``seed`` (pairs)."""
    return _join(*_keys(seed, counter, n))


def _check_n(name: str, n: object) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or int(n) < 1:
        raise ValueError(f"{name}: expected a static int >= 1, got {n!r}")
    return int(n)


def _exact_permutation(kh: Array, kl: Array, sizes: Array | None) -> Array:
    """The stable argsort of the 64-bit keys (kh, kl) [width] (masked keys: the maximum)."""
    width = kh.shape[-1]
    idx = jnp.arange(width, dtype=jnp.int32)
    if sizes is not None:
        invalid = idx >= sizes
        top = _U32(0xFFFFFFFF)
        kh = jnp.where(invalid, top, kh)
        kl = jnp.where(invalid, top, kl)
    # rank of key i: how many keys come before it in (high, low, index) order; elementwise [width, width]
    # comparisons compile in a fraction of the time of a three-operand sort (this path is rare anyway)
    hi_lt = kh[:, None] < kh[None, :]
    hi_eq = kh[:, None] == kh[None, :]
    lo_lt = kl[:, None] < kl[None, :]
    lo_eq = kl[:, None] == kl[None, :]
    before = hi_lt | (hi_eq & (lo_lt | (lo_eq & (idx[:, None] < idx[None, :]))))  # [j, i]: j before i
    rank = jnp.sum(before, axis=0, dtype=jnp.int32)
    return jnp.zeros(width, jnp.int32).at[rank].set(idx)


def _packed_permutation(kh: Array, kl: Array, sizes: Array | None) -> Array:
    """One row: the permutation from keys packed in one uint32 (top bits of the high half, index in the low
    bits), sorted as plain integers; rows where two valid packed keys tie take the exact argsort, sparse
    under vmap (about one deal in 6,000 at width 104)."""
    width = kh.shape[-1]
    bits = max(1, int(width - 1).bit_length())
    low = (1 << bits) - 1
    idx = jnp.arange(width, dtype=_U32)
    packed = (kh & _U32(~low & 0xFFFFFFFF)) | idx
    valid = None
    if sizes is not None:
        valid = idx < sizes.astype(_U32)
        packed = jnp.where(valid, packed, packed | _U32(~low & 0xFFFFFFFF))
    srt = jnp.sort(packed)
    high = srt >> bits
    same = high[1:] == high[:-1]
    if valid is not None:
        same = same & ((srt[1:] & low) < sizes.astype(_U32)) & ((srt[:-1] & low) < sizes.astype(_U32))
    fast = (srt & low).astype(jnp.int32)
    return _exact_sparse(same.any(), kh, kl, sizes, fast) if sizes is not None else \
        _exact_sparse_nosize(same.any(), kh, kl, fast)


_exact_sparse = sparse(_exact_permutation, 1e-3)
_exact_sparse_nosize = sparse(lambda kh, kl: _exact_permutation(kh, kl, None), 1e-3)


def batch_permutation(seeds: Array, counters: Array, width: int, sizes: Array | None = None) -> Array:
    """int32 [..., width]: ``seeding.fast_batch_permutation(seeds, counters, width, sizes)`` row by row.

    ``seeds`` / ``counters``: pairs (broadcast together); ``width``: a static int (up to 2**16);
    ``sizes``: optional int array of the batch shape, each 0..width (see the module docstring)."""
    width = _check_n("width", width)
    if width > 1 << 16:
        raise ValueError(f"width: expected at most 65536, got {width}")
    kh, kl = _keys(seeds, counters, width)
    lead = kh.shape[:-1]
    fn = _packed_permutation
    if sizes is None:
        f = lambda h, lo: fn(h, lo, None)  # noqa: E731
        args: tuple[Any, ...] = (kh, kl)
    else:
        f = fn
        args = (kh, kl, jnp.broadcast_to(jnp.asarray(sizes, jnp.int32), lead))
    for _ in lead:
        f = jax.vmap(f)
    return f(*args)


def permutation(seed: Array, counter: Array, n: int) -> Array:
    """int32 [..., n]: ``seeding.permutation(seed, counter, n)`` (a batch of seeds gives a batch of rows)."""
    return batch_permutation(seed, counter, n)


def _mod_small(h: Array, lo: Array, k: Array) -> Array:
    """(h * 2**32 + lo) % k for uint32 k in 1..65536, by 16-bit steps (each partial value < 2**32)."""
    r = h % k
    r = ((r << 16) | (lo >> 16)) % k
    return ((r << 16) | (lo & _M16)) % k


def below(seed: Array, counter: Array, k: Array | int) -> Array:
    """int32 [...]: ``seeding.below(seed, counter, k)``, an integer in 0..k-1; ``k`` (int, or an int array
    broadcasting with the seeds) must be 1..65536 (not checked inside jit)."""
    if isinstance(k, (int, np.integer)) and not 1 <= int(k) <= 65536:
        raise ValueError(f"k: expected 1..65536, got {k}")
    h, lo = _mix(*_base(seed, counter))
    return _mod_small(h, lo, jnp.asarray(k).astype(_U32)).astype(jnp.int32)


def derive(base: Array, index: Array) -> Array:
    """uint32 [..., 2]: ``seeding.derive(base, index)`` elementwise (``batch_derive``): the seed of game
    ``index`` (a pair or a nonnegative int array, below 2**63) of a run seeded ``base`` (a pair)."""
    ih, il = _split(pair(index))
    h, lo = _keys(base, _join(ih | _DERIVE_HI, il), 1)
    return _join(h[..., 0], lo[..., 0])


batch_derive = derive

__all__ = ["pair", "from_uint64", "to_uint64", "add", "mix", "keys", "permutation", "batch_permutation", "below",
           "derive", "batch_derive"]
