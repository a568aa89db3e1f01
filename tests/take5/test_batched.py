"""Batched engine == reference engine, step by step, for every player count and variant.

Each case runs B games at once in ``BatchedTake5`` (slot i seeded ``derive(base, i)``, every slot a
different seed) next to B reference games ``engine.new_game(config, seed)``, feeds both the same
random legal actions (drawn from the batched mask, which must equal the reference mask) and
compares at every step: the observation of the acting player, the mask, the acting player, the
rewards of every player, termination, scores, round penalties and rounds. Finished games are
replaced in their slot (same-step autoreset) and the new game is compared with a fresh reference
game of its seed, so autoreset is covered by every case. A difference names the seed, the step of
that game and the field.
"""
from __future__ import annotations

import numpy as np
import pytest

from fiveplay_env.core import seeding
from fiveplay_env.core.errors import IllegalActionError
from fiveplay_env.take5 import batched as bt
from fiveplay_env.take5 import engine as eng
from fiveplay_env.take5.batched import BatchedTake5, make_batched
from fiveplay_env.take5.config import Take5Config
from fiveplay_env.take5.observation import observe, observation_size
from fiveplay_env.take5.state import NUM_ACTIONS, OVER
from fiveplay_env.vector import random_actions
from tests.batched_replay import BatchedReplay, check_sampled_slots


class Replay(BatchedReplay):
    """Take 5's twins (``tests.batched_replay``): also scores, round penalties, rounds, final scores."""

    engine = eng
    batched_cls = BatchedTake5
    observe = staticmethod(observe)
    OVER = OVER

    def fields(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.env.scores, self.env.round_penalty, self.env.round

    def compare(self, i: int, s, fields) -> None:
        scores, pens, rounds = fields
        if scores[i].tolist() != s.scores:
            self.fail(i, "scores", scores[i].tolist(), s.scores)
        if pens[i].tolist() != s.round_pen:
            self.fail(i, "round_penalty", pens[i].tolist(), s.round_pen)
        if rounds[i] != s.round:
            self.fail(i, "round", rounds[i], s.round)

    def compare_outcome(self, i: int, s) -> None:
        if self.env.final_scores[i].tolist() != s.scores:
            self.fail(i, "final_scores", self.env.final_scores[i].tolist(), s.scores)


def _cases() -> list[tuple[str, Take5Config, int, int, bool]]:
    """(id, config, batch size, games to finish, slow)."""
    out = []
    for n in (2, 4, 10):
        out += [
            (f"n{n}-standard", Take5Config(num_players=n), 16, 40, n != 2),
            (f"n{n}-min_bullheads", Take5Config(num_players=n, row_pick="min_bullheads", mode="rounds:2"), 16, 64, n == 10),
            (f"n{n}-round", Take5Config(num_players=n, mode="round"), 32, 128, n == 10),
            (f"n{n}-rounds3", Take5Config(num_players=n, mode="rounds:3"), 16, 40, n == 10),
            # a low threshold, so that scores often land exactly on it: inclusive and exclusive differ
            (f"n{n}-exclusive", Take5Config(num_players=n, end_score=12, end_inclusive=False), 32, 96, False),
            (f"n{n}-inclusive12", Take5Config(num_players=n, end_score=12), 32, 96, False),
        ]
    for n in (2, 4, 6):
        out += [
            (f"n{n}-professional", Take5Config(num_players=n, professional=True, mode="rounds:2"), 16, 64, n == 6),
            (f"n{n}-draft", Take5Config(num_players=n, professional=True, draft=True, mode="rounds:2"), 16, 32, n == 6),
            (f"n{n}-draft-auto", Take5Config(num_players=n, professional=True, draft=True, mode="round",
                                             row_pick="min_bullheads"), 16, 48, False),
        ]
    out.append(("n3-pro-auto-exclusive", Take5Config(num_players=3, professional=True, row_pick="min_bullheads",
                                                      end_score=20, end_inclusive=False), 16, 48, False))
    return out


CASES = _cases()


def test_the_cases_cover_500_seeds_and_every_variant():
    assert sum(games for *_, games, _ in CASES) >= 500
    cfgs = [c for _, c, *_ in CASES]
    assert {c.num_players for c in cfgs} >= {2, 4, 10}
    assert {c.row_pick for c in cfgs} == {"player", "min_bullheads"}
    assert {"game", "round"} <= {c.mode for c in cfgs} and any(c.mode.startswith("rounds:") for c in cfgs)
    assert any(c.professional for c in cfgs) and any(c.draft for c in cfgs)
    assert any(not c.end_inclusive for c in cfgs)


@pytest.mark.parametrize(
    "cfg, batch, games",
    [pytest.param(c, b, g, id=i, marks=[pytest.mark.slow] if slow else []) for i, c, b, g, slow in CASES],
)
def test_batched_equals_reference_step_by_step(cfg, batch, games):
    rep = Replay(cfg, batch, base=1000 + cfg.num_players)
    rep.run(games, rng_seed=cfg.num_players)
    assert len(rep.seeds_seen) >= games  # every finished game had its own seed


def test_explicit_seeds_replay_the_reference_games():
    cfg = Take5Config(num_players=5)
    seeds = [0, 1, 2**64 - 1, 12345678901234567890]
    env = BatchedTake5(cfg, len(seeds), seed=7)
    env.reset(seed=7, seeds=seeds)
    assert env.seeds.tolist() == seeds
    rng = np.random.default_rng(0)
    refs = [eng.new_game(cfg, s) for s in seeds]
    for _ in range(60):
        np.testing.assert_array_equal(env.hands(), np.stack([r.hands for r in refs]))
        for i, r in enumerate(refs):
            assert env.row_lists(i) == r.rows
        a = random_actions(env.legal_action_mask, rng)
        env.step(a)
        for i, r in enumerate(refs):
            eng.step(cfg, r, int(a[i]))
    with pytest.raises(ValueError, match="seeds: expected 4 seeds"):
        env.reset(seed=0, seeds=[1, 2])
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=-1)


def test_batch_of_one_and_the_seed_of_each_slot():
    cfg = Take5Config(num_players=3, mode="round")
    env = BatchedTake5(cfg, 1, seed=99)
    ref = eng.new_game(cfg, seeding.derive(99, 0))
    rng = np.random.default_rng(3)
    finished = 0
    while finished < 3:
        np.testing.assert_array_equal(env.observe()[0], observe(cfg, ref, ref.current))
        a = random_actions(env.legal_action_mask, rng)
        env.step(a)
        eng.step(cfg, ref, int(a[0]))
        if ref.phase == OVER:
            finished += 1
            assert env.terminated[0]
            assert env.game_index[0] == finished and int(env.seeds[0]) == seeding.derive(99, finished)
            ref = eng.new_game(cfg, int(env.seeds[0]))


@pytest.mark.parametrize("n", range(1, 11))
def test_sorting_network_sorts_every_input(n):
    # 0-1 principle: a comparator network sorts every input iff it sorts every 0/1 input
    from fiveplay_env.take5.jax_engine import sorting_network
    net = sorting_network(n)
    bits = (np.arange(2**n)[:, None] >> np.arange(n)) & 1
    cols = [bits[:, i].copy() for i in range(n)]
    for i, j in net:
        cols[i], cols[j] = np.minimum(cols[i], cols[j]), np.maximum(cols[i], cols[j])
    out = np.stack(cols, axis=1)
    assert (np.diff(out, axis=1) >= 0).all()


def _snapshot(env: BatchedTake5) -> list[np.ndarray]:
    return [v.copy() for v in vars(env).values() if isinstance(v, np.ndarray)]


def test_illegal_actions_raise_naming_the_game_and_change_nothing():
    cfg = Take5Config(num_players=4)
    env = BatchedTake5(cfg, 6, seed=5)
    ref = eng.new_game(cfg, int(env.seeds[3]))
    rng = np.random.default_rng(0)
    for bad in (-1, NUM_ACTIONS, 104, 108):
        before = _snapshot(env)
        a = random_actions(env.legal_action_mask, rng)
        a[3] = bad
        with pytest.raises(IllegalActionError, match="game 3") as info:
            env.step(a)
        assert info.value.game_index == 3 and isinstance(info.value, ValueError)
        assert info.value.legal == np.flatnonzero(env.legal_action_mask[3]).tolist()
        for x, y in zip(before, _snapshot(env)):
            np.testing.assert_array_equal(x, y)
    # a card that is not in the acting player's hand
    a = random_actions(env.legal_action_mask, rng)
    a[3] = int(np.flatnonzero(env.legal_action_mask[3] == 0)[0])
    with pytest.raises(IllegalActionError, match=f"player_0 of game 3.*got {a[3]}"):
        env.step(a)
    # and the games go on exactly as before
    a = random_actions(env.legal_action_mask, rng)
    env.step(a)
    eng.step(cfg, ref, int(a[3]))
    np.testing.assert_array_equal(env.observe()[3], observe(cfg, ref, ref.current))


def test_bad_actions_and_configs_raise_value_errors():
    env = BatchedTake5(Take5Config(num_players=2), 4, seed=0)
    with pytest.raises(ValueError, match=r"actions: expected an integer array of shape \(4,\), got shape \(3,\)"):
        env.step(np.zeros(3, np.int64))
    with pytest.raises(ValueError, match=r"shape \(4,\), got shape \(4, 1\)"):
        env.step(np.zeros((4, 1), np.int64))
    with pytest.raises(ValueError, match="integer dtype, got float64"):
        env.step(np.zeros(4))
    with pytest.raises(ValueError, match="integer dtype, got bool"):
        env.step(np.zeros(4, bool))
    with pytest.raises(ValueError, match="out: expected a C-contiguous float32 array of shape"):
        env.observe(out=np.zeros((4, 10), np.float32))
    with pytest.raises(ValueError, match="config: expected a Take5Config"):
        BatchedTake5({"num_players": 4}, 4)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="batch_size: expected an integer in 1..16777216, got 0"):
        BatchedTake5(Take5Config(), 0)
    with pytest.raises(ValueError, match="num_players"):
        make_batched(4, num_players=11)
    with pytest.raises(ValueError, match="row_pick"):
        make_batched(4, row_pick="cheapest")
    with pytest.raises(ValueError, match="mode"):
        make_batched(4, mode="rounds:0")
    with pytest.raises(ValueError, match="unknown config field 'players'"):
        make_batched(4, players=4)


def test_observe_into_a_buffer_and_state_is_compact():
    cfg = Take5Config(num_players=4)
    env = BatchedTake5(cfg, 32, seed=1)
    buf = np.full((32, observation_size(4)), 7.0, np.float32)
    assert env.observe(out=buf) is buf
    np.testing.assert_array_equal(buf, env.observe())
    assert env.bytes_per_game() < 400
    mask = env.legal_action_mask
    assert mask.dtype == np.int8 and mask.shape == (32, NUM_ACTIONS) and not mask.flags.writeable


def test_benchmark_function_runs():
    assert bt.bench_take5_batched(4, 16, True, 0.05) > 0


@pytest.mark.slow
@pytest.mark.parametrize("cfg", [Take5Config(num_players=2, row_pick="min_bullheads", mode="round"),
                                 Take5Config(num_players=10)], ids=["n2-auto-round", "n10"])
def test_a_large_batch_matches_on_sampled_slots(cfg):
    """B = 20,000: flat indices into the [4, B] row buffers exceed int16; 100 sampled slots are compared."""
    check_sampled_slots(Replay, cfg, 20_000, 100)
