"""Networks mask illegal actions; the Take 5 features agree with the heuristic; the reference-loop vector
env equals the batched engine; engine snapshots restore games exactly."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from fiveplay_env.vector import make_vec, random_actions
from tests.learning.conftest import TAKE5_CFG


def _states(num: int = 64, steps: int = 17, seed: int = 0):
    env = make_vec("take5", num, seed=seed, **TAKE5_CFG)
    obs, mask, _ = env.reset()
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        obs, mask, *_ = env.step(random_actions(mask, rng))
    return obs, mask


@pytest.mark.parametrize("arch", ["mlp", "take5"])
def test_illegal_actions_get_no_probability(arch):
    from fiveplay_env.agents.learned.nets import ILLEGAL_LOGIT, build_model
    from fiveplay_env.agents.learned.policy import sample_actions

    obs, mask = _states()
    net = build_model(arch, {"obs_dim": obs.shape[1], "num_actions": mask.shape[1], "hidden": [32]})
    logits, value = net(torch.from_numpy(obs.copy()), torch.from_numpy(mask.copy()))
    m = torch.from_numpy(mask.copy()).bool()
    assert value.shape == (obs.shape[0],)
    assert torch.all(logits[~m] == ILLEGAL_LOGIT) and torch.all(logits[m] > ILLEGAL_LOGIT / 2)
    p = torch.softmax(logits, 1)
    assert torch.all(p[~m] == 0) and torch.allclose(p.sum(1), torch.ones(obs.shape[0]))
    gen = torch.Generator().manual_seed(0)
    for _ in range(5):
        a = sample_actions(logits, gen)
        assert m[torch.arange(len(a)), a].all()
    with pytest.raises(ValueError, match="obs"):
        net(torch.zeros(2, 5), torch.zeros(2, mask.shape[1]))


def test_take5_features_match_the_safest_heuristic():
    from fiveplay_env.agents.learned.nets import build_model
    from fiveplay_env.agents.take5.heuristics import decode, expected_costs

    obs, mask = _states(num=32, steps=9)
    net = build_model("take5", {"obs_dim": obs.shape[1], "num_actions": mask.shape[1]})
    feats, hand = net.features(torch.from_numpy(obs))
    for i in range(obs.shape[0]):
        v = decode(obs[i])
        if v.phase != 1:
            continue
        ours = feats[i, v.hand, 11].numpy() * 10.0      # the expected-cost feature
        theirs = np.array(expected_costs(v.hand, v.rows, v.unseen, v.n - 1))
        np.testing.assert_allclose(ours, theirs, rtol=1e-3, atol=1e-3)
        assert np.array_equal(np.flatnonzero(hand[i].numpy()), v.hand)


def test_reference_loop_equals_the_batched_engine_and_snapshots_restore():
    from fiveplay_env.agents.learned.envs import LoopVecEnv, engine_snapshot, make_training_env, restore_engine

    B = 12
    fast = make_training_env("take5", B, 4, TAKE5_CFG, "batched")
    slow = LoopVecEnv("take5", B, 4, **TAKE5_CFG)
    o1, m1, c1 = fast.reset(4)
    o2, m2, c2 = slow.reset(4)
    rng = np.random.default_rng(0)
    snaps = None
    for t in range(120):
        assert np.array_equal(o1, o2) and np.array_equal(m1, m2) and np.array_equal(c1, c2)
        a = random_actions(m1, rng)
        o1, m1, c1, r1, t1, i1 = fast.step(a)
        o2, m2, c2, r2, t2, i2 = slow.step(a)
        assert np.array_equal(r1, r2) and np.array_equal(t1, t2)
        if t1.any():
            assert np.array_equal(i1["final_scores"][t1], i2["final_scores"][t2])
        if t == 30:
            snaps = (engine_snapshot(fast), engine_snapshot(slow), o1.copy(), rng.bit_generator.state)
    # restore both at step 31 into fresh envs and replay: the same games continue
    fast2 = make_training_env("take5", B, 4, TAKE5_CFG, "batched")
    slow2 = LoopVecEnv("take5", B, 4, **TAKE5_CFG)
    slow2.reset(4)
    restore_engine(fast2, snaps[0])
    restore_engine(slow2, snaps[1])
    rng.bit_generator.state = snaps[3]
    ref = make_training_env("take5", B, 4, TAKE5_CFG, "batched")
    ref.reset(4)
    rng_ref = np.random.default_rng(0)
    mk = ref.engine.legal_action_mask
    for _ in range(31):
        _, mk, *_ = ref.step(random_actions(mk, rng_ref))
    assert rng_ref.bit_generator.state == rng.bit_generator.state
    mask = fast2.engine.legal_action_mask
    for _ in range(60):
        a = random_actions(mask, rng)
        a_ref = random_actions(mk, rng_ref)
        assert np.array_equal(a, a_ref)
        x = fast2.step(a)
        y = slow2.step(a)
        z = ref.step(a_ref)
        for u, v in zip(x[:5], z[:5]):
            assert np.array_equal(u, v)
        for u, v in zip(y[:5], z[:5]):
            assert np.array_equal(u, v)
        mask, mk = x[1], z[1]


@pytest.mark.parametrize("game,config", [("take5", {"num_players": 3, "mode": "round"}),
                                         ("five_alive", {"num_players": 4, "variant": "teams"}),
                                         ("five_alive", {"num_players": 3, "max_steps": 40})])
def test_the_vector_apis_reference_backend_equals_the_numpy_one(game, config):
    """``make_vec(..., backend="reference")`` (``LoopVecEnv``) keeps the vector API's contract: the same
    games, rewards, autoresets, seeds and final scores as the batched engine, and the same ``reset``
    semantics (with a seed: the run over; without: every slot's next game)."""
    B = 5
    fast = make_vec(game, B, seed=9, **config)
    slow = make_vec(game, B, seed=9, backend="reference", **config)
    assert slow.backend == "reference-loop" and (slow.num_envs, slow.num_players, slow.num_actions, slow.obs_dim) == \
        (fast.num_envs, fast.num_players, fast.num_actions, fast.obs_dim)
    rng = np.random.default_rng(0)
    for phase in ("first", "reset()", "reset(9)"):
        if phase == "first":
            a, b = fast.reset(), slow.reset()
        elif phase == "reset()":
            a, b = fast.reset(), slow.reset()
        else:
            a, b = fast.reset(9), slow.reset(9)
        for u, v in zip(a, b, strict=True):
            np.testing.assert_array_equal(u, v)
        ended = truncated = 0
        for _ in range(150):
            act = random_actions(a[1], rng)
            a, b = fast.step(act), slow.step(act)
            for u, v in zip(a[:5], b[:5], strict=True):
                np.testing.assert_array_equal(u, v)
            t = a[4]
            np.testing.assert_array_equal(a[5]["seed"], b[5]["seed"])
            np.testing.assert_array_equal(a[5]["final_scores"][t], b[5]["final_scores"][t])
            np.testing.assert_array_equal(a[5]["truncated"] & t, b[5]["truncated"])  # max_steps: the same games cut short
            truncated += int(b[5]["truncated"].sum())
            ended += int(t.sum())
        assert ended > 0
        assert (truncated > 0) == ("max_steps" in config)
    np.testing.assert_array_equal(fast.engine.game_index, slow.game_index)


def test_the_reference_backend_errors_and_reuse_obs():
    import re

    import fiveplay_env.games

    with pytest.raises(ValueError, match=re.escape("backend: expected one of ['numpy', 'reference', 'jax'], got 'gpu'")):
        make_vec("take5", 4, backend="gpu")
    with pytest.raises(ValueError, match=re.escape(f"game: expected one of {sorted(fiveplay_env.games.names())}, got 'uno'")):
        make_vec("uno", 4, backend="reference")
    with pytest.raises(ValueError, match="num_envs"):
        make_vec("take5", 0, backend="reference")
    with pytest.raises(ValueError, match="compact_obs: expected backend 'numpy'"):
        make_vec("take5", 4, backend="reference", compact_obs=True)
    with pytest.raises(ValueError, match="unknown config field 'seats'"):
        make_vec("take5", 4, backend="reference", seats=4)
    env = make_vec("take5", 3, seed=1, backend="reference", reuse_obs=True, num_players=4)
    o1, mask, _ = env.reset()
    o2 = env.step(random_actions(mask, np.random.default_rng(0)))[0]
    assert o2 is o1  # one buffer, overwritten
    from fiveplay_env.core.errors import IllegalActionError

    _, mask, _ = env.reset()
    bad = random_actions(mask, np.random.default_rng(2))
    bad[1] = 107  # a row choice while cards are to be played
    before = env.get_state()
    with pytest.raises(IllegalActionError, match="game 1"):
        env.step(bad)
    after = env.get_state()
    assert all(np.array_equal(x, y) for x, y in zip(before["history"], after["history"]))  # nothing moved


def test_the_vector_api_imports_no_agents():
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    code = ("import sys; from fiveplay_env.vector import make_vec; "
            "e = make_vec('five_alive', 2, seed=0, backend='reference', num_players=3); e.reset(); "
            "print(sorted(m for m in sys.modules if m == 'agents' or m.startswith('agents.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True, cwd=root,
                         env={**os.environ, "PYTHONPATH": root})
    assert out.stdout.strip() == "[]"
