"""``core.jax_seeding`` (uint32 pairs, no x64) equals ``core.seeding`` (uint64 numpy) on many draws."""
from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from fiveplay_env.core import jax_seeding as js  # noqa: E402
from fiveplay_env.core import seeding  # noqa: E402

RNG = np.random.default_rng(2024)
# seeds over the whole uint64 range, the extremes included
SEEDS = np.concatenate([RNG.integers(0, 2**64 - 1, 300, dtype=np.uint64, endpoint=True),
                        np.array([0, 1, 2**32 - 1, 2**32, 2**63, 2**64 - 1], np.uint64)])
COUNTERS = np.concatenate([RNG.integers(0, 60, 280), RNG.integers(0, 2**40, 26, dtype=np.int64)]).astype(np.uint64)

# jitted once per shape (eager dispatch of the many small uint32 ops would cost more than the checks)
_perm = jax.jit(js.batch_permutation, static_argnums=2)
_keys = jax.jit(js.keys, static_argnums=2)
_below = jax.jit(js.below)
_derive = jax.jit(js.derive)


def test_x64_stays_off_and_pairs_round_trip():
    assert not jax.config.jax_enable_x64
    p = js.from_uint64(SEEDS)
    assert p.dtype == np.uint32 and p.shape == (SEEDS.size, 2)
    np.testing.assert_array_equal(js.to_uint64(jnp.asarray(p)), SEEDS)
    assert js.to_uint64(js.from_uint64(2**64 - 1)) == np.uint64(2**64 - 1)
    with pytest.raises(ValueError, match="last axis"):
        js.to_uint64(np.zeros(3, np.uint32))


def test_add_and_mix_equal_uint64_arithmetic():
    a, b = SEEDS, RNG.integers(0, 2**64 - 1, SEEDS.size, dtype=np.uint64, endpoint=True)
    with np.errstate(over="ignore"):
        expected = a + b
    np.testing.assert_array_equal(js.to_uint64(jax.jit(js.add)(js.from_uint64(a), js.from_uint64(b))), expected)
    np.testing.assert_array_equal(js.to_uint64(jax.jit(js.mix)(js.from_uint64(a))), seeding.mix(a))
    small = np.array([0, 5, 2**31 - 1], np.int32)  # int arrays are lifted to pairs
    np.testing.assert_array_equal(js.to_uint64(js.add(js.from_uint64(a[:3]), small)), a[:3] + small.astype(np.uint64))


def test_keys_equal_seeding_keys():
    got = js.to_uint64(_keys(js.from_uint64(SEEDS), js.from_uint64(COUNTERS), 104))
    np.testing.assert_array_equal(got, seeding.keys(SEEDS, COUNTERS, 104))


@pytest.mark.parametrize("n", [104, 300])
def test_permutation_equals_seeding_permutation(n):
    perm = np.asarray(_perm(js.from_uint64(SEEDS), js.from_uint64(COUNTERS), n))
    assert perm.dtype == np.int32 and perm.shape == (SEEDS.size, n)
    np.testing.assert_array_equal(perm, seeding.fast_batch_permutation(SEEDS, COUNTERS, n))
    i = int(RNG.integers(SEEDS.size))  # one game alone (no batch axis)
    single = _perm(js.from_uint64(int(SEEDS[i])), js.from_uint64(int(COUNTERS[i])), n)
    np.testing.assert_array_equal(np.asarray(single), seeding.permutation(int(SEEDS[i]), int(COUNTERS[i]), n))


@pytest.mark.parametrize("width", [7, 256])
def test_permutation_with_sizes_equals_fast_batch_permutation(width):
    sizes = RNG.integers(0, width + 1, SEEDS.size)
    got = np.asarray(_perm(js.from_uint64(SEEDS), js.from_uint64(COUNTERS), width, jnp.asarray(sizes)))
    np.testing.assert_array_equal(got, seeding.fast_batch_permutation(SEEDS, COUNTERS, width, sizes))


def test_tied_and_maximal_keys_sort_as_the_stable_argsort(monkeypatch):
    """Keys that agree in their top bits, or that equal the masked value, keep index order."""
    real = js._keys

    def odd(seed, counter, n):
        h, lo = real(seed, counter, n)
        h = h.at[..., 5].set(h[..., 9]).at[..., 3].set(0xFFFFFFFF)
        lo = lo.at[..., 5].set(lo[..., 9]).at[..., 3].set(0xFFFFFFFF)
        return h, lo

    monkeypatch.setattr(js, "_keys", odd)
    s, c = js.from_uint64(SEEDS[:40]), js.from_uint64(COUNTERS[:40])
    sizes = RNG.integers(4, 30, 40)
    perm = np.asarray(jax.jit(js.batch_permutation, static_argnums=2)(s, c, 30, jnp.asarray(sizes)))
    k = js.to_uint64(jax.jit(lambda a, b: jnp.stack(odd(a, b, 30), axis=-1))(s, c))
    for i in range(40):
        kk = k[i].copy()
        kk[sizes[i]:] = np.uint64(2**64 - 1)
        np.testing.assert_array_equal(perm[i], np.argsort(kk, kind="stable"))


def test_below_and_derive_equal_seeding():
    s, c = js.from_uint64(SEEDS), js.from_uint64(COUNTERS)
    for k in (1, 2, 6, 10, 77, 1000, 65536):
        np.testing.assert_array_equal(np.asarray(_below(s, c, np.uint32(k))), seeding.batch_below(SEEDS, COUNTERS, k))
    ks = RNG.integers(1, 11, SEEDS.size)
    np.testing.assert_array_equal(np.asarray(_below(s, c, jnp.asarray(ks))),
                                  [seeding.below(int(a), int(b), int(k)) for a, b, k in zip(SEEDS, COUNTERS, ks)])
    with pytest.raises(ValueError, match="k"):
        js.below(s, c, 0)
    index = np.array([0, 1, 7, 4095, 2**31 + 5, 2**40 + 3, 2**63 - 1], np.uint64)
    for base in (0, 12345, 2**64 - 1):
        got = js.to_uint64(_derive(js.from_uint64(base), js.from_uint64(index)))
        assert [int(v) for v in got] == [seeding.derive(base, int(i)) for i in index]
    small = np.arange(5, dtype=np.int32)
    got = js.to_uint64(_derive(js.from_uint64(9), small))
    np.testing.assert_array_equal(got, seeding.batch_derive(9, small))


def test_jit_and_vmap_give_the_same_draws():
    s, c = js.from_uint64(SEEDS[:64]), js.from_uint64(COUNTERS[:64])
    f = jax.jit(jax.vmap(lambda a, b: js.permutation(a, b, 104)))
    np.testing.assert_array_equal(np.asarray(f(s, c)), seeding.fast_batch_permutation(SEEDS[:64], COUNTERS[:64], 104))
    g = jax.jit(lambda a, b: js.below(a, b, 6))
    np.testing.assert_array_equal(np.asarray(g(s, c)), seeding.batch_below(SEEDS[:64], COUNTERS[:64], 6))
