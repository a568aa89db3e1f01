"""Warm start (``TrainConfig.init_from``, ``--init-from``): a fresh run starts from a policy's weights."""
from __future__ import annotations

import pytest
import torch

from fiveplay_env.core.errors import CheckpointError
from tests.learning.conftest import TAKE5_CFG, tiny_args


def _cfg(**kw):
    from fiveplay_env.agents.learned.algorithms.ppo import PPOConfig

    base = dict(game="take5", config=dict(TAKE5_CFG), opponents=[("random", 1.0)], total_decisions=100,
                num_envs=4, rollout_steps=8, hidden=(16,))
    return PPOConfig(**{**base, **kw})


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    """A small policy's checkpoint whose weights differ from any fresh initialisation."""
    from fiveplay_env.agents.learned.checkpoint import save_checkpoint
    from fiveplay_env.agents.learned.trainer import Trainer

    tr = Trainer(_cfg(seed=3))
    with torch.no_grad():
        for p in tr.model.parameters():
            p.add_(0.5)
    tr.decisions = 1234
    path = str(tmp_path_factory.mktemp("src") / "checkpoint.pt")
    save_checkpoint(path, tr.state(args={}))
    return path, {k: v.clone() for k, v in tr.model.state_dict().items()}


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_a_fresh_run_starts_from_the_policy_and_records_it(source):
    from fiveplay_env.agents.fingerprint import file_fingerprint
    from fiveplay_env.agents.learned.trainer import Trainer

    path, weights = source
    cold = Trainer(_cfg(seed=0))
    assert not _same(cold.model.state_dict(), weights) and cold.init is None and "init" not in cold.state()
    for spec in (path, "ckpt:" + path):
        warm = Trainer(_cfg(seed=0, init_from=spec))
        assert _same(warm.model.state_dict(), weights)
        assert warm.init == {"from": spec, "fingerprint": file_fingerprint(path), "decisions": 1234}
        assert warm.state()["init"] == warm.init
    # another game config with the same observation: a round policy starts a game-mode run
    game_mode = Trainer(_cfg(config={"num_players": 4, "mode": "game"}, init_from=path))
    assert _same(game_mode.model.state_dict(), weights)
    # the caller may ask for no warm start (a resume loads its own weights)
    assert not _same(Trainer(_cfg(seed=0, init_from=path), warm_start=False).model.state_dict(), weights)


def test_a_shipped_policy_starts_a_run():
    from fiveplay_env.agents.learned.checkpoint import load_checkpoint
    from fiveplay_env.agents.learned.pretrained import path_of
    from fiveplay_env.agents.learned.trainer import Trainer

    tr = Trainer(_cfg(hidden=(128, 128), init_from="pretrained:take5-round-4p"))
    assert _same(tr.model.state_dict(), load_checkpoint(path_of("take5-round-4p"))["model"]["state_dict"])
    assert tr.init["decisions"] > 0 and tr.init["from"] == "pretrained:take5-round-4p"


def test_mismatched_or_unknown_policies_are_refused_by_name(source, tmp_path):
    from fiveplay_env.agents.learned.trainer import Trainer

    path, _ = source
    with pytest.raises(CheckpointError, match=r"network shape \(--hidden\)"):
        Trainer(_cfg(hidden=(32,), init_from=path))
    with pytest.raises(CheckpointError, match="observation size"):
        Trainer(_cfg(config={"num_players": 6, "mode": "round"}, init_from=path))
    with pytest.raises(CheckpointError, match="game"):
        Trainer(_cfg(game="five_alive", config={"num_players": 4}, init_from=path))
    with pytest.raises(ValueError, match="init_from: .*no-such-policy"):
        Trainer(_cfg(init_from="pretrained:no-such-policy"))
    with pytest.raises(CheckpointError, match="missing"):
        Trainer(_cfg(init_from=str(tmp_path / "nothing.pt")))
    with pytest.raises(ValueError, match="init_from: expected"):
        _cfg(init_from="  ")


def test_the_command_line_warm_start_survives_a_resume(source, tmp_path):
    from fiveplay_env.agents.learned.checkpoint import load_checkpoint
    from fiveplay_env.experiments.train import main

    path, weights = source
    extra = ["--eval-interval", "0", "--no-plots", "--hidden", "16", "--init-from", path]
    r = main(tiny_args(str(tmp_path), total=200, extra=extra))
    ck = load_checkpoint(r["run_dir"] + "/checkpoint.pt")
    assert ck["init"]["from"] == path and ck["init"]["decisions"] == 1234
    trained = ck["model"]["state_dict"]
    assert not _same(trained, weights)  # trained on from the source
    with pytest.raises(ValueError, match="init-from"):
        main(["--resume", r["run_dir"], "--init-from", "pretrained:take5-round-4p", "--quiet"])
    r2 = main(["--resume", r["run_dir"], "--total-decisions", "400", "--quiet"])
    ck2 = load_checkpoint(r2["run_dir"] + "/checkpoint.pt")
    assert ck2["init"] == ck["init"] and ck2["progress"]["decisions"] > ck["progress"]["decisions"]
