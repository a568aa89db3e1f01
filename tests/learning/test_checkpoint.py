"""Checkpoints: missing, empty, truncated, corrupt or mismatched files raise a clear CheckpointError."""
from __future__ import annotations

import os
import shutil

import pytest

from fiveplay_env.core.errors import CheckpointError
from tests.learning.conftest import TAKE5_CFG, tiny_args


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A small trainer's checkpoint file (no training needed to test the file format)."""
    from fiveplay_env.agents.learned.checkpoint import save_checkpoint
    from fiveplay_env.agents.learned.algorithms.ppo import PPOConfig
    from fiveplay_env.agents.learned.trainer import Trainer

    cfg = PPOConfig(game="take5", config=dict(TAKE5_CFG), opponents=[("random", 1.0)], total_decisions=100,
                      num_envs=4, rollout_steps=8, hidden=(16,))
    path = str(tmp_path_factory.mktemp("ckpt") / "checkpoint.pt")
    save_checkpoint(path, Trainer(cfg).state(args={}))
    return path, cfg


def _write(path: str, data: bytes) -> str:
    with open(path, "wb") as f:
        f.write(data)
    return path


def test_round_trip_and_atomic_write(saved):
    from fiveplay_env.agents.learned.checkpoint import load_checkpoint

    path, _ = saved
    ck = load_checkpoint(path)
    assert ck["game"] == "take5" and ck["progress"]["update"] == 0 and ck["path"] == path
    assert not [f for f in os.listdir(os.path.dirname(path)) if f.startswith(".tmp")]


@pytest.mark.parametrize("damage, message", [
    ("missing", "missing"),
    ("empty", "empty"),
    ("not_ours", "not a fiveplay checkpoint"),
    ("truncated", "truncated"),
    ("cut_header", "header"),
    ("flipped", "corrupt"),
    ("appended", "corrupt"),
])
def test_damaged_files_raise_a_clear_error(saved, tmp_path, damage, message):
    from fiveplay_env.agents.learned.checkpoint import load_checkpoint

    path, _ = saved
    raw = open(path, "rb").read()
    bad = str(tmp_path / "bad.pt")
    if damage == "missing":
        bad = str(tmp_path / "nowhere.pt")
    elif damage == "empty":
        _write(bad, b"")
    elif damage == "not_ours":
        _write(bad, b"PK\x03\x04 a zip file, maybe a plain torch.save")
    elif damage == "truncated":
        _write(bad, raw[: len(raw) // 2])
    elif damage == "cut_header":
        _write(bad, raw[:30])
    elif damage == "flipped":
        mid = len(raw) - 1000
        _write(bad, raw[:mid] + bytes([raw[mid] ^ 0xFF]) + raw[mid + 1:])
    elif damage == "appended":
        _write(bad, raw + b"extra")
    with pytest.raises(CheckpointError, match=message) as info:
        load_checkpoint(bad)
    assert bad in str(info.value)  # the message names the file


def test_mismatched_checkpoints(saved, tmp_path):
    import fiveplay_env.agents.learned  # noqa: F401
    from fiveplay_env.agents.learned.checkpoint import load_checkpoint
    from fiveplay_env.agents.learned.algorithms.ppo import PPOConfig
    from fiveplay_env.agents.learned.trainer import Trainer
    from fiveplay_env.agents.registry import make_agent

    path, cfg = saved
    with pytest.raises(CheckpointError, match="game"):
        make_agent("ckpt:" + path, "five_alive", seed=0)          # a Take 5 policy for 5 Alive
    other = PPOConfig(**{**cfg.to_dict(), "config": {"num_players": 5, "mode": "round"},
                           "opponents": [("random", 1.0)], "hidden": (16,)})
    with pytest.raises(CheckpointError, match="mismatched game config"):
        Trainer(other).load_state(load_checkpoint(path))           # resume into another configuration
    wider = PPOConfig(**{**cfg.to_dict(), "opponents": [("random", 1.0)], "hidden": (32,)})
    with pytest.raises(CheckpointError, match="network shape"):
        Trainer(wider).load_state(load_checkpoint(path))
    with pytest.raises(ValueError, match="ckpt name"):
        make_agent("ckpt:" + path + "?fast", "take5", seed=0)


def test_resume_refuses_a_missing_or_damaged_checkpoint(tmp_path):
    from fiveplay_env.experiments.train import main

    empty_run = tmp_path / "train__take5__0__x"
    empty_run.mkdir()
    with pytest.raises(CheckpointError, match="missing"):
        main(["--resume", str(empty_run), "--quiet"])
    with pytest.raises(CheckpointError, match="missing"):
        main(["--resume", str(tmp_path / "no_such_run"), "--quiet"])
    _write(str(empty_run / "checkpoint.pt"), b"FIVEPLAY-CHECKPOINT\n{\"format\": 1, \"size\": 99999, \"sha256\": \"0\"}\nabc")
    with pytest.raises(CheckpointError, match="truncated"):
        main(["--resume", str(empty_run), "--quiet"])


def test_resume_refuses_changed_settings(tmp_path):
    from fiveplay_env.experiments.train import main

    r = main(tiny_args(str(tmp_path), total=200, extra=["--eval-interval", "0", "--no-plots"]))
    copy = str(tmp_path / "copy")
    shutil.copytree(r["run_dir"], copy)
    with pytest.raises(ValueError, match="num-envs"):
        main(["--resume", copy, "--num-envs", "32", "--quiet"])
    with pytest.raises(ValueError, match="seed"):
        main(["--resume", copy, "--seed", "5", "--quiet"])
