"""Checkpoints from the reliability audit (issue 12): numpy values in the configs, permissions, contents
that disagree, malformed headers."""
from __future__ import annotations

import hashlib
import io
import json
import os

import numpy as np
import pytest
import torch

from fiveplay_env.agents.learned.checkpoint import MAGIC, load_checkpoint, save_checkpoint
from fiveplay_env.agents.learned.algorithms.ppo import PPOConfig
from fiveplay_env.agents.learned.trainer import Trainer
from fiveplay_env.core.errors import CheckpointError
from tests.learning.conftest import TAKE5_CFG


def _trainer_state(**overrides):
    kw = dict(game="take5", config=dict(TAKE5_CFG), opponents=[("random", 1.0)], total_decisions=100, num_envs=4,
              rollout_steps=8, hidden=(16,))
    kw.update(overrides)
    cfg = PPOConfig(**kw)
    return cfg, Trainer(cfg).state(args={"note": np.int64(3)})


def test_numpy_values_in_the_configs_are_normalised_and_the_checkpoint_loads(tmp_path):
    config = {k: (np.int64(v) if isinstance(v, int) and not isinstance(v, bool) else v) for k, v in TAKE5_CFG.items()}
    config["num_players"] = np.int64(TAKE5_CFG.get("num_players", 4))
    cfg, state = _trainer_state(config=config, lr=np.float64(3e-4), num_envs=np.int64(4), seed=np.uint32(7),
                                hidden=np.array([16]))
    assert type(cfg.lr) is float and type(cfg.num_envs) is int and type(cfg.seed) is int
    assert all(type(v) is not np.int64 for v in cfg.config.values())
    path = str(tmp_path / "checkpoint.pt")
    save_checkpoint(path, state)
    ckpt = load_checkpoint(path)
    assert ckpt["train_config"]["lr"] == 3e-4 and ckpt["args"]["note"] == 3


def test_game_configs_store_plain_python_values():
    from fiveplay_env.five_alive.config import FiveAliveConfig
    from fiveplay_env.take5.config import Take5Config

    t5 = Take5Config(num_players=np.int64(3), end_score=np.int32(50), professional=np.True_, mode=np.str_("round"))
    assert (type(t5.num_players), type(t5.end_score), type(t5.professional), type(t5.mode)) == (int, int, bool, str)
    fa = FiveAliveConfig(num_players=np.int8(3), bomb_zero_optional=np.bool_(True),
                         deck_counts=np.array([8] * 18), max_cycles=np.int64(9))
    assert type(fa.num_players) is int and type(fa.bomb_zero_optional) is bool and type(fa.max_cycles) is int
    assert fa.deck_counts == (8,) * 18 and all(type(c) is int for c in fa.deck_counts)


def test_a_checkpoint_gets_the_permissions_of_the_other_run_files(tmp_path):
    _, state = _trainer_state()
    old = os.umask(0o022)
    try:
        path = str(tmp_path / "checkpoint.pt")
        save_checkpoint(path, state)
        other = tmp_path / "other.csv"
        other.write_text("x")
    finally:
        os.umask(old)
    assert os.stat(path).st_mode & 0o777 == os.stat(other).st_mode & 0o777 == 0o644


def _rewrite(path: str, payload: dict) -> None:
    buf = io.BytesIO()
    torch.save(payload, buf)
    data = buf.getvalue()
    header = json.dumps({"format": 1, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()})
    with open(path, "wb") as f:
        f.write(MAGIC + header.encode() + b"\n" + data)


def test_a_checkpoint_whose_contents_disagree_is_refused_by_name(tmp_path):
    _, state = _trainer_state()
    path = str(tmp_path / "checkpoint.pt")
    save_checkpoint(path, state)
    good = load_checkpoint(path)
    good.pop("path")
    cases = [
        ({"num_players": good["num_players"] + 1}, "num_players"),
        ({"num_players": "4"}, "num_players"),
        ({"obs_dim": good["obs_dim"] + 3}, "obs_dim"),
        ({"config": {**good["config"], "num_players": 99}}, "game config is invalid"),
        ({"config": [1, 2]}, "game config"),
    ]
    weights = dict(good["model"]["state_dict"])
    name = next(iter(weights))
    weights[name] = torch.full_like(weights[name], float("nan"))
    cases.append(({"model": {**good["model"], "state_dict": weights}}, f"weight '{name}'"))
    for change, message in cases:
        _rewrite(path, {**good, **change})
        with pytest.raises(CheckpointError, match=message):
            load_checkpoint(path)


@pytest.mark.parametrize("size", ["12", 1.5, None, True, -1, [3]])
def test_a_header_with_a_non_integer_size_is_a_clear_error(tmp_path, size):
    path = str(tmp_path / "checkpoint.pt")
    with open(path, "wb") as f:
        f.write(MAGIC + json.dumps({"format": 1, "size": size, "sha256": "00"}).encode() + b"\n" + b"xyz")
    with pytest.raises(CheckpointError, match="size"):
        load_checkpoint(path)


@pytest.mark.parametrize("game, config", [("take5", {"num_players": 3}), ("five_alive", {"num_players": 4})])
def test_engine_snapshots_go_through_get_state_and_restore_the_same_games(game, config):
    from fiveplay_env.agents.learned.envs import engine_snapshot, make_training_env, restore_engine
    from fiveplay_env.vector import random_actions

    env = make_training_env(game, 5, 3, config, "batched")
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(30):
        env.step(random_actions(env.engine.legal_action_mask, rng))
    snap = engine_snapshot(env)
    assert snap["kind"] == "get_state"
    buf = io.BytesIO()
    torch.save(snap, buf)  # plain data: the weights-only loader reads it
    snap = torch.load(io.BytesIO(buf.getvalue()), weights_only=True)
    other = make_training_env(game, 5, 99, config, "batched")
    restore_engine(other, snap)
    for _ in range(100):
        a = random_actions(env.engine.legal_action_mask, rng)
        x, y = env.step(a), other.step(a)
        for u, v in zip(x[:5], y[:5], strict=True):
            np.testing.assert_array_equal(u, v)
