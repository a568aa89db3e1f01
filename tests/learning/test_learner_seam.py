"""One learner seam (``fiveplay_env.agents.learned.run``): both learners satisfy ``Learner``; an algorithm
added by another package through the ``fiveplay.algorithms`` entry point trains, checkpoints and resumes
through ``fiveplay train`` like the built-ins; checkpoints are ``"fiveplay-policy"`` naming their algorithm,
and the shipped ``"fiveplay-ppo"`` files still load and play.

This module is also the third-party package of the test: ``CONFIG`` and ``LEARNER`` below are what an
entry point ``toy = tests.learning.test_learner_seam`` would declare."""
from __future__ import annotations

import importlib.metadata
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pytest
import torch

from fiveplay_env.agents.learned.config import option
from fiveplay_env.agents.learned.devices import to_cpu
from fiveplay_env.agents.learned.onpolicy import OnPolicyConfig, OnPolicyLearner
from tests.learning.conftest import TAKE5_CFG

# --- a third party's algorithm: REINFORCE with a value baseline, on the shared on-policy learner ----------


@dataclass
class ToyConfig(OnPolicyConfig):
    algo: ClassVar[str] = "toy"

    vf_coef: float = option(0.5, "value-loss weight", lo=0.0, hi=10.0, group="toy")


class Reinforce:
    """One gradient step per rollout: -logp(a) A + vf_coef (V - R)^2 / 2."""

    def __init__(self, cfg: ToyConfig, model: torch.nn.Module, rng: np.random.Generator, device: Any,
                 decoder: Any = None) -> None:
        self.cfg, self.model = cfg, model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)

    def update(self, batch: dict[str, np.ndarray], lr: float) -> dict[str, float]:
        t = {k: torch.from_numpy(v) for k, v in batch.items()}
        logits, value = self.model(t["obs"], t["mask"])
        logp = torch.log_softmax(logits, 1).gather(1, t["act"][:, None]).squeeze(1)
        loss = -(logp * t["adv"]).mean() + self.cfg.vf_coef * 0.5 * (value - t["ret"]).pow(2).mean()
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return {"samples": int(t["act"].shape[0]), "lr": lr, "policy_loss": float(loss.detach())}

    def state_dict(self) -> dict[str, Any]:
        return to_cpu(self.optimizer.state_dict())

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.optimizer.load_state_dict(state)


class ToyLearner(OnPolicyLearner):
    config_class = ToyConfig
    update_class = Reinforce


CONFIG = ToyConfig
ALGORITHM = Reinforce
LEARNER = ToyLearner

# --- the tests ------------------------------------------------------------------------------------------


@pytest.fixture
def toy_installed(monkeypatch):
    """The ``fiveplay.algorithms`` entry points as if a package declaring ``toy`` (this module) and a broken
    ``ghost`` were installed."""
    real = importlib.metadata.entry_points
    fake = [importlib.metadata.EntryPoint("toy", __name__, "fiveplay.algorithms"),
            importlib.metadata.EntryPoint("ghost", "no_such_package_anywhere.algo", "fiveplay.algorithms"),
            importlib.metadata.EntryPoint("ppo", "no_such_package_anywhere.ppo", "fiveplay.algorithms")]

    def entry_points(**kw):
        if kw.get("group") == "fiveplay.algorithms":
            return fake
        return real(**kw)

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)


def test_an_entry_point_algorithm_trains_checkpoints_and_resumes(toy_installed, tmp_path):
    from fiveplay_env.agents.learned import algorithms
    from fiveplay_env.agents.learned.checkpoint import load_checkpoint
    from fiveplay_env.experiments.train import main

    assert algorithms.names() == ["expit", "ghost", "ppo", "toy"]
    assert algorithms.get_algorithm("toy").LEARNER is ToyLearner
    assert algorithms.get_algorithm("ppo").__name__.endswith("algorithms.ppo")  # a built-in name stays built in
    with pytest.raises(ValueError, match=r"^algo: the fiveplay.algorithms entry point 'ghost' .* failed to load"):
        algorithms.get_algorithm("ghost")
    with pytest.raises(ValueError, match=r"^algo: expected one of \['expit', 'ghost', 'ppo', 'toy'\], got 'a2c'"):
        algorithms.get_algorithm("a2c")
    common = ["--quiet", "--no-plots", "--no-tensorboard"]
    args = ["--algo", "toy", "--config", "num_players=4", "mode=round", "--opponents", "random", "self",
            "--num-envs", "4", "--rollout-steps", "8", "--hidden", "16", "--vf-coef", "0.25", "--total-decisions", "40",
            "--eval-interval", "0", "--eval-games", "4", "--eval-baselines", "random", "--out", str(tmp_path), *common]
    first = main(args)
    ck = load_checkpoint(first["checkpoint"])
    assert (ck["kind"], ck["algo"], ck["train_config"]["vf_coef"]) == ("fiveplay-policy", "toy", 0.25)
    more = main(["--resume", first["run_dir"], "--total-decisions", "80", *common])
    assert more["decisions"] >= 80 and load_checkpoint(more["checkpoint"])["algo"] == "toy"
    with pytest.raises(ValueError, match=r"^epochs: not an option of algorithm 'toy' \(it is an option of 'ppo'"):
        main([*args, "--epochs", "2"])


def test_both_learners_are_learners():
    from fiveplay_env.agents.learned.algorithms.expit import ExpitConfig, ExpitLearner
    from fiveplay_env.agents.learned.algorithms.ppo import PPOConfig, PPOLearner
    from fiveplay_env.agents.learned.run import Learner
    from fiveplay_env.agents.learned.trainer import make_learner

    ppo = make_learner(PPOConfig(config=dict(TAKE5_CFG), num_envs=2, hidden=(8,)))
    expit = make_learner(ExpitConfig(config=dict(TAKE5_CFG), hidden=(8,), search="bsearch:worlds=2"))
    assert type(ppo) is PPOLearner and type(expit) is ExpitLearner
    assert isinstance(ppo, Learner) and isinstance(expit, Learner)
    # the same seed, the same initial network, whatever the algorithm
    assert all(torch.equal(a, b) for a, b in zip(ppo.model.state_dict().values(), expit.model.state_dict().values()))
    assert ppo.state()["kind"] == expit.policy_payload()["kind"] == "fiveplay-policy"


def test_the_shipped_fiveplay_ppo_policies_still_load_and_play():
    from fiveplay_env.agents import games
    from fiveplay_env.agents.arena import play_game
    from fiveplay_env.agents.learned import pretrained
    from fiveplay_env.agents.learned.checkpoint import load_checkpoint
    from fiveplay_env.agents.registry import make_agent

    ck = load_checkpoint(pretrained.path_of("take5-game-4p"))  # take5-round-4p is expit's, "fiveplay-policy", now
    assert ck["kind"] == "fiveplay-ppo" and ck["algo"] == "ppo"  # the old kind: no algo recorded, PPO's
    g = games.get_game("take5")
    agents = [make_agent("pretrained:take5-game-4p", "take5", seed=0),
              *(make_agent("random", "take5", seed=s) for s in (1, 2, 3))]
    assert play_game(g, g.make_config(TAKE5_CFG), agents, seed=0).decisions[0] > 0
