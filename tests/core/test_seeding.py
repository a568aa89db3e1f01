"""The counter-based randomness both engines share."""
from __future__ import annotations

import numpy as np
import pytest

from fiveplay_env.core import seeding


@pytest.mark.parametrize("seed, counter, n", [(0, 0, 104), (1, 7, 77), (2**64 - 1, 3, 10), (12345, 2**40, 1)])
def test_single_and_batched_draws_agree(seed, counter, n):
    single = seeding.permutation(seed, counter, n)
    batch = seeding.batch_permutation(np.array([seed, 99], np.uint64), np.array([counter, 0], np.uint64), n)
    np.testing.assert_array_equal(single, batch[0])
    assert sorted(single.tolist()) == list(range(n))
    b = seeding.batch_below(np.array([seed], np.uint64), np.array([counter], np.uint64), 6)
    assert seeding.below(seed, counter, 6) == int(b[0])


def test_draws_depend_on_seed_and_counter():
    p = seeding.permutation(1, 0, 104)
    assert not np.array_equal(p, seeding.permutation(2, 0, 104))
    assert not np.array_equal(p, seeding.permutation(1, 1, 104))
    firsts = [seeding.below(s, 0, 4) for s in range(4000)]
    counts = np.bincount(firsts, minlength=4)
    assert counts.min() > 850  # roughly uniform: 1000 expected each


def test_permutations_are_uniform_enough():
    pos = np.zeros((5, 5))
    for s in range(5000):
        for i, v in enumerate(seeding.permutation(s, 0, 5)):
            pos[i, v] += 1
    assert np.abs(pos - 1000).max() < 150


def test_derived_seeds_differ_and_normalize_checks_input():
    assert len({seeding.derive(7, i) for i in range(1000)}) == 1000
    assert seeding.normalize_seed(5) == 5
    assert 0 <= seeding.normalize_seed(None) < 2**64
    for bad in (-1, 2**64, 1.5, "3", True):
        with pytest.raises(ValueError, match="seed"):
            seeding.normalize_seed(bad)


def test_batch_derive_equals_derive_elementwise():
    index = np.array([0, 1, 2, 7, 4095, 2**40 + 3, 2**63 - 1], np.int64)
    for base in (0, 1, 12345, 2**64 - 1):
        batch = seeding.batch_derive(base, index)
        assert batch.dtype == np.uint64 and batch.shape == index.shape
        assert [int(v) for v in batch] == [seeding.derive(base, int(i)) for i in index]
    grid = seeding.batch_derive(9, np.arange(6).reshape(2, 3))  # any shape
    assert grid.shape == (2, 3) and int(grid[1, 2]) == seeding.derive(9, 5)


# --- the batched engines' fast shuffle -------------------------------------------------------------------

def test_fast_permutation_equals_batch_permutation(monkeypatch):
    rng = np.random.default_rng(0)
    seeds = rng.integers(0, 2**63, 3000, dtype=np.uint64)
    counters = rng.integers(0, 40, 3000)
    for n in (1, 24, 44, 54, 64, 104, 255, 256, 300):  # 300: past the packed path, the exact argsort
        np.testing.assert_array_equal(seeding.fast_batch_permutation(seeds, counters, n),
                                      seeding.batch_permutation(seeds, counters, n))
    # keys that agree in their top 56 bits take the exact (argsort) path
    real_keys = seeding.keys

    def tied_keys(s, c, n):
        k = real_keys(s, c, n)
        k[..., 5] = (k[..., 9] & np.uint64(~255 & (2**64 - 1))) | (k[..., 5] & np.uint64(255))
        return k

    monkeypatch.setattr(seeding, "keys", tied_keys)
    np.testing.assert_array_equal(seeding.fast_batch_permutation(seeds[:50], counters[:50], 104),
                                  seeding.batch_permutation(seeds[:50], counters[:50], 104))


def test_fast_permutations_of_varying_sizes_equal_permutation():
    rng = np.random.default_rng(0)
    m = 400
    seeds = rng.integers(0, 2**64 - 1, m, dtype=np.uint64, endpoint=True)
    counters = rng.integers(0, 50, m).astype(np.int32)
    for width in (1, 7, 77, 255, 256, 300):
        sizes = rng.integers(1, width + 1, m)
        perm = seeding.fast_batch_permutation(seeds, counters, width, sizes)
        full = seeding.fast_batch_permutation(seeds, counters, width)
        for i in range(m):
            k = int(sizes[i])
            np.testing.assert_array_equal(perm[i, :k], seeding.permutation(int(seeds[i]), int(counters[i]), k))
            np.testing.assert_array_equal(full[i], seeding.permutation(int(seeds[i]), int(counters[i]), width))
            assert sorted(perm[i].tolist()) == list(range(width))


def test_fast_permutations_with_tied_or_maximal_keys_take_the_exact_path(monkeypatch):
    rng = np.random.default_rng(1)
    seeds = rng.integers(0, 2**63, 60, dtype=np.uint64)
    counters = rng.integers(0, 9, 60)
    sizes = rng.integers(12, 40, 60)
    real_keys = seeding.keys
    high = np.uint64(~255 & (2**64 - 1))

    def odd_keys(s, c, n):
        k = real_keys(s, c, n)
        k[..., 5] = (k[..., 9] & high) | (k[..., 5] & np.uint64(255))  # top 56 bits tied
        k[..., 3] = np.uint64(2**64 - 1)  # a valid key equal to the mask value
        k[..., 11] = high  # top bits all ones, low bits zero
        return k

    monkeypatch.setattr(seeding, "keys", odd_keys)
    perm = seeding.fast_batch_permutation(seeds, counters, 40, sizes)
    for i in range(60):
        k = int(sizes[i])
        expected = np.argsort(odd_keys(seeds[i:i + 1], counters[i:i + 1], k)[0], kind="stable")
        np.testing.assert_array_equal(perm[i, :k], expected)


def _games(env, resets, parallel: bool):
    """The first observation of each game after ``resets`` (a list of seeds or None), each game played to
    its end by the first legal action."""
    firsts = []
    for seed in resets:
        if parallel:
            obs, _ = env.reset(seed=seed)
            firsts.append(np.concatenate([obs[a]["observation"] for a in sorted(obs)]))
            while env.agents:
                obs, *_ = env.step({a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in obs.items()})
        else:
            env.reset(seed=seed)
            firsts.append(np.concatenate([env.observe(a)["observation"] for a in env.possible_agents]))
            for agent in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    return firsts


@pytest.mark.parametrize("make, parallel", [("take5_v0.parallel_env", True), ("take5_v0.env", False),
                                            ("five_alive_v0.env", False)])
def test_reset_without_a_seed_moves_on_to_the_seeded_streams_next_game(make, parallel):
    """Gymnasium's reset contract: after ``reset(seed=s)``, ``reset()`` gives the next game of the stream
    that ``s`` starts (a new deal, the same for every env seeded ``s``), not fresh OS entropy; a seeded
    reset starts the stream over; an env never seeded draws its stream from entropy."""
    import importlib

    mod, _, fn = make.partition(".")
    factory = getattr(importlib.import_module(f"fiveplay_env.{mod}"), fn)
    a = _games(factory(num_players=3), [7, None, None, 7, None], parallel)
    b = _games(factory(num_players=3), [7, None, None], parallel)
    for x, y in zip(a[:3], b):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a[0], a[1]) and not np.array_equal(a[1], a[2])  # new deals
    np.testing.assert_array_equal(a[3], a[0])
    np.testing.assert_array_equal(a[4], a[1])
    c = _games(factory(num_players=3), [None, None], parallel)
    d = _games(factory(num_players=3), [None], parallel)
    assert not np.array_equal(c[0], d[0]) and not np.array_equal(c[0], c[1])
