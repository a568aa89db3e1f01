"""The game-generic vector API: shapes, dtypes, autoreset, seeding, errors, the sampler, the example."""
from __future__ import annotations

import re

import numpy as np
import pytest

from fiveplay_env import vector
from fiveplay_env.core import seeding
from fiveplay_env.core.errors import IllegalActionError
from fiveplay_env.take5 import engine as eng
from fiveplay_env.take5.config import Take5Config
from fiveplay_env.take5.observation import observe, observation_size
from fiveplay_env.vector import VecEnv, make_vec, random_actions


def test_shapes_dtypes_and_rewards_for_every_player():
    B, n = 12, 3
    env = make_vec("take5", B, seed=4, num_players=n, mode="round")
    assert isinstance(env, VecEnv) and isinstance(env.engine, vector.BatchedGame)
    assert (env.num_envs, env.num_players, env.num_actions, env.obs_dim) == (B, n, 109, observation_size(n))
    obs, mask, player = env.reset()
    assert obs.shape == (B, env.obs_dim) and obs.dtype == np.float32
    assert mask.shape == (B, 109) and mask.dtype == np.int8 and mask.any(axis=1).all()
    assert player.shape == (B,) and player.dtype == np.int32
    rng = np.random.default_rng(0)
    returns = np.zeros((B, n))
    finished: list[np.ndarray] = []
    taken_by_others = 0
    for _ in range(400):
        actions = random_actions(mask, rng)
        acting = player
        obs, mask, player, rewards, terminated, info = env.step(actions)
        assert rewards.shape == (B, n) and rewards.dtype == np.float32 and (rewards <= 0).all()
        assert terminated.shape == (B,) and terminated.dtype == bool
        assert set(info) >= {"seed", "final_scores", "scores", "round_penalty", "round"}
        assert info["seed"].shape == (B,) and info["final_scores"].shape == (B, n)
        others = np.ones((B, n), bool)
        others[np.arange(B), acting] = False
        taken_by_others += int((rewards[others] < 0).sum())
        returns += rewards
        # a game's return is minus its final score (single rounds: minus the bull heads taken)
        np.testing.assert_array_equal(returns[terminated], -info["final_scores"][terminated])
        finished.extend(returns[terminated])
        returns[terminated] = 0
    assert len(finished) > 50
    assert taken_by_others > 0  # rewards reach players other than the one who acted
    # 4 starters + 30 cards cannot all fit on 4 rows of at most 5: every round of 3 players gives bull heads
    assert all(r.sum() < 0 for r in finished)


def test_same_step_autoreset_and_replay_by_seed():
    B = 5
    env = make_vec("take5", B, seed=11, num_players=2, mode="round")
    obs, mask, player = env.reset()
    cfg = Take5Config(num_players=2, mode="round")
    refs = [eng.new_game(cfg, seeding.derive(11, i)) for i in range(B)]
    games = [0] * B
    rng = np.random.default_rng(1)
    while min(games) < 3:
        actions = random_actions(mask, rng)
        obs, mask, player, rewards, terminated, info = env.step(actions)
        for i in range(B):
            eng.step(cfg, refs[i], int(actions[i]))
            assert terminated[i] == (refs[i].phase == eng.OVER)
            if terminated[i]:
                games[i] += 1
                assert int(info["seed"][i]) == seeding.derive(11, i + games[i] * B)
                refs[i] = eng.new_game(cfg, int(info["seed"][i]))
            # same step: the returned observation is already the new game's
            np.testing.assert_array_equal(obs[i], observe(cfg, refs[i], refs[i].current))
            assert player[i] == refs[i].current


def test_reset_semantics_and_reuse_obs():
    env = make_vec("take5", 4, seed=3, num_players=4)
    first = env.reset()[0]
    np.testing.assert_array_equal(env.reset(seed=3)[0], first)  # the same run again
    assert env.engine.game_index.tolist() == [0, 1, 2, 3]
    env.reset()  # the next games of the run
    assert env.engine.game_index.tolist() == [4, 5, 6, 7]
    env2 = make_vec("take5", 4, seed=3, reuse_obs=True, num_players=4)
    o1 = env2.reset()[0]
    np.testing.assert_array_equal(o1, first)
    o2 = env2.step(random_actions(env2.reset(seed=3)[1], np.random.default_rng(0)))[0]
    assert o2 is o1  # one buffer, overwritten


def test_errors():
    with pytest.raises(ValueError, match=r"game: expected one of \['five_alive', 'take5'.*\], got 'uno'"):
        make_vec("uno", 4)
    with pytest.raises(ValueError, match="num_envs: expected an integer in 1..16777216, got 0"):
        make_vec("take5", 0)
    with pytest.raises(ValueError, match="unknown config field 'seats'"):
        make_vec("take5", 4, seats=4)
    with pytest.raises(ValueError, match="num_players"):
        make_vec("take5", 4, num_players=1)
    with pytest.raises(ValueError, match="professional"):
        make_vec("take5", 4, num_players=8, professional=True)
    env = make_vec("take5", 4, seed=0)
    _, mask, _ = env.reset()
    with pytest.raises(ValueError, match="actions: expected an integer array of shape"):
        env.step(np.zeros(5, np.int64))
    bad = random_actions(mask, np.random.default_rng(0))
    bad[2] = 107
    with pytest.raises(IllegalActionError, match="game 2"):
        env.step(bad)
    with pytest.raises(ValueError, match="register"):
        vector.register("x", "no_colon")


def test_register_dispatches_by_name(monkeypatch):
    monkeypatch.setitem(vector.REGISTRY, "take5_again", "fiveplay_env.take5.batched:make_batched")
    a = make_vec("take5_again", 3, seed=8, num_players=5)
    b = make_vec("take5", 3, seed=8, num_players=5)
    np.testing.assert_array_equal(a.reset()[0], b.reset()[0])


def test_random_actions_are_legal_and_uniform():
    rng = np.random.default_rng(0)
    mask = (rng.random((3000, 109)) < 0.1).astype(np.int8)
    mask[np.arange(3000), rng.integers(0, 109, 3000)] = 1
    a = random_actions(mask, rng)
    assert a.shape == (3000,) and (mask[np.arange(3000), a] == 1).all()
    # uniform over the legal ids of one row pattern
    m = np.zeros((60000, 109), bool)
    m[:, [0, 3, 50, 104, 108]] = True
    counts = np.bincount(random_actions(m, rng), minlength=109)[[0, 3, 50, 104, 108]]
    assert counts.sum() == 60000 and np.abs(counts - 12000).max() < 500  # about 4.5 standard deviations
    with pytest.raises(ValueError, match="row 1 has no legal action"):
        random_actions(np.array([[1, 0], [0, 0]], np.int8), rng)
    with pytest.raises(ValueError, match="2-d"):
        random_actions(np.ones(5, np.int8), rng)


@pytest.mark.slow
def test_the_docstring_example_runs(capsys):
    code = vector.__doc__.split("::\n", 1)[1].split("\nContract", 1)[0]
    exec(compile("\n".join(line[4:] for line in code.splitlines()), "vector-example", "exec"), {})
    out = capsys.readouterr().out
    games = int(out.split()[0])
    assert games > 1024  # single rounds of 4 players last about 44 steps: several per slot
