"""Clipped PPO (torch): ``epochs`` passes of minibatch SGD with Adam over each rollout.

    from fiveplay_env.agents.learned.algorithms.ppo import PPOConfig, PPOLearner
    cfg = PPOConfig(game="take5", config={"num_players": 4, "mode": "round"},
                    opponents=[("take5-safest", 2.0), ("self", 1.0), ("pool", 1.0)], total_decisions=200_000)
    learner = PPOLearner(cfg)                   # the on-policy learner (onpolicy.py) with this update

Per minibatch (CleanRL's ``ppo.py`` update, over masked logits):

    ratio  = exp(logp(a) - logp_old(a))
    A      = (A - mean A) / (std A + 1e-8)                       (normalised per minibatch)
    L_pi   = mean(max(-A ratio, -A clip(ratio, 1 - clip, 1 + clip)))
    L_v    = 0.5 mean((V - R)^2)
    H      = mean over rows of the entropy over the legal actions
    loss   = L_pi + vf_coef L_v - ent_coef H                    (gradients clipped to max_grad_norm)

The network's parameter-free preparation (``prepare``: the Take 5 card features) runs once per rollout
on the device, not per minibatch; the batch goes to the device once. Minibatches are drawn by a
permutation from the run's numpy generator; a last minibatch of fewer than 2 samples is skipped.
Statistics: ``policy_loss``, ``value_loss``, ``entropy``, ``approx_kl``, ``clipfrac`` (means over the
minibatches), ``explained_variance``, ``samples``, ``lr``.

The run around the update (rollouts, returns, the pool, checkpoints) is ``PPOLearner``:
``fiveplay_env.agents.learned.onpolicy.OnPolicyLearner`` with ``PPO`` as its update. ``PPOConfig`` is
``OnPolicyConfig`` (the shared run options and the rollouts') plus PPO's own options below.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import torch

from fiveplay_env.agents.learned.config import option
from fiveplay_env.agents.learned.devices import to_cpu
from fiveplay_env.agents.learned.onpolicy import OnPolicyConfig, OnPolicyLearner
from fiveplay_env.agents.learned.returns import explained_variance

GROUP = "PPO"


@dataclass
class PPOConfig(OnPolicyConfig):
    """A PPO run: ``OnPolicyConfig`` (the run's options and the rollouts') plus PPO's hyperparameters (see the
    module docstring)."""

    algo: ClassVar[str] = "ppo"

    epochs: int = option(2, "PPO passes per rollout", lo=1, group=GROUP)
    minibatch_size: int = option(2048, "samples per gradient step", lo=1, group=GROUP)
    clip: float = option(0.2, "PPO clip range", lo=0.0, hi=10.0, group=GROUP)
    ent_coef: float = option(0.01, "entropy bonus", lo=-1.0, hi=10.0, group=GROUP)
    vf_coef: float = option(0.5, "value-loss weight", lo=0.0, hi=100.0, group=GROUP)
    max_grad_norm: float = option(0.5, "gradient clipping", lo=0.0, hi=1e9, open_lo=True, group=GROUP)


class PPO:
    """The PPO update of ``model`` (see the module docstring); its Adam optimizer is its state."""

    def __init__(self, cfg: PPOConfig, model: torch.nn.Module, rng: np.random.Generator, device: torch.device,
                 decoder: Any = None) -> None:
        self.cfg = cfg
        self.model = model
        self.rng = rng
        self.device = device
        self.decoder = decoder
        self.optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr, eps=1e-5)

    def update(self, batch: dict[str, np.ndarray], lr: float) -> dict[str, float]:
        """``epochs`` passes of clipped PPO over ``batch`` at learning rate ``lr``; loss statistics."""
        cfg = self.cfg
        N = batch["act"].shape[0]
        if N == 0:
            return {"samples": 0}
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        dev = self.device
        t = {k: torch.from_numpy(v).to(dev) for k, v in batch.items()}  # to the device once per rollout
        with torch.no_grad():
            obs_t = t["obs"] if self.decoder is None else self.decoder(t["obs"])
            prep = self.model.prepare(obs_t, t["mask"])  # parameter-free: once per rollout, not per minibatch
        self.model.train()
        stats = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "approx_kl": 0.0, "clipfrac": 0.0}
        count = 0
        mb = min(cfg.minibatch_size, N)
        for _ in range(cfg.epochs):
            perm = self.rng.permutation(N)
            for start in range(0, N, mb):
                idx = torch.from_numpy(perm[start:start + mb]).to(dev)
                if idx.numel() < 2:
                    continue
                logits, value = self.model.head({k: v[idx] for k, v in prep.items()}, t["mask"][idx])
                logp_all = torch.log_softmax(logits, dim=1)
                logp = logp_all.gather(1, t["act"][idx][:, None]).squeeze(1)
                probs = logp_all.exp()
                entropy = -(probs * torch.where(t["mask"][idx], logp_all, torch.zeros_like(logp_all))).sum(1).mean()
                adv = t["adv"][idx]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                ratio = torch.exp(logp - t["logp"][idx])
                pg = torch.max(-adv * ratio, -adv * ratio.clamp(1 - cfg.clip, 1 + cfg.clip)).mean()
                vloss = 0.5 * (value - t["ret"][idx]).pow(2).mean()
                loss = pg + cfg.vf_coef * vloss - cfg.ent_coef * entropy
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), cfg.max_grad_norm)
                self.optimizer.step()
                with torch.no_grad():
                    log_ratio = logp - t["logp"][idx]
                    stats["approx_kl"] += float(((ratio - 1) - log_ratio).mean())
                    stats["clipfrac"] += float(((ratio - 1).abs() > cfg.clip).float().mean())
                stats["policy_loss"] += float(pg.detach())
                stats["value_loss"] += float(vloss.detach())
                stats["entropy"] += float(entropy.detach())
                count += 1
        out = {k: v / max(count, 1) for k, v in stats.items()}
        out["explained_variance"] = explained_variance(batch["ret"], batch["val"])
        out["samples"] = N
        out["lr"] = lr
        return out

    def state_dict(self) -> dict[str, Any]:
        """The optimizer's state, on the CPU (a checkpoint's ``optimizer``)."""
        return to_cpu(self.optimizer.state_dict())

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.optimizer.load_state_dict(state)


class PPOLearner(OnPolicyLearner):
    """A PPO run: the on-policy learner with the ``PPO`` update (``fiveplay_env.agents.learned.onpolicy``)."""

    config_class = PPOConfig
    update_class = PPO


CONFIG = PPOConfig
ALGORITHM = PPO
LEARNER = PPOLearner
