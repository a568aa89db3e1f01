"""The networks as the collector and the evaluation play them (torch): sampling, snapshots, the policy.

``NetworkPolicy(model, pool, gen, device, decoder)`` is the collector's ``Policy``
(``fiveplay_env.agents.learned.collector``): numpy rows in, actions (and the learner's log-probabilities and values)
out. It prepares the observations once (``model.prepare``: the parameter-free part, e.g. the Take 5
card features) for every row a network plays, then runs the learner's head on the learner's rows and
each pool snapshot's head on the rows it plays. The networks and the preparation run on ``device``;
logits come back to the CPU and are sampled there with the trainer's ``torch.Generator`` (Gumbel-max over
the masked logits), so a seed gives the same stream on any device. With ``decoder`` (a compact
observation: ``fiveplay_env.agents.learned.compact``) the rows are decoded on the device first.

``network_actor(model, gen, greedy)``: ``act(obs, mask) -> actions`` for the evaluation (greedy: the
argmax; else sampled with ``gen``). ``frozen_copy(model, build)``: a snapshot for the pool.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from fiveplay_env.agents.learned.devices import model_device


def sample_actions(logits: torch.Tensor, gen: torch.Generator | None, greedy: bool = False) -> torch.Tensor:
    """int64 [B]: argmax of the masked logits, plus Gumbel noise from ``gen`` unless ``greedy``."""
    if greedy:
        return logits.argmax(dim=1)
    u = torch.rand(logits.shape, generator=gen).clamp_(1e-12, 1.0 - 1e-7)
    return (logits - torch.log(-torch.log(u))).argmax(dim=1)


def frozen_copy(model: torch.nn.Module, build: Callable[[], torch.nn.Module]) -> torch.nn.Module:
    """A copy of ``model`` (``build()`` makes an empty one of the same shape) in eval mode, without gradients."""
    snap = build()
    snap.load_state_dict(model.state_dict())
    return freeze(snap)


def freeze(model: torch.nn.Module) -> torch.nn.Module:
    """``model`` in eval mode with every parameter's ``requires_grad`` off (a pool snapshot)."""
    model.eval()
    for p in model.parameters():
        p.requires_grad_(False)
    return model


class NetworkPolicy:
    """The learner network and its pool's snapshots as the collector's ``Policy`` (module docstring).

    Args:
        model: the learner's network (``fiveplay_env.agents.learned.nets``).
        pool: the collector's ``SnapshotPool``; its items are networks of the learner's architecture.
        gen: the generator actions are sampled with (on the CPU).
        device: where the networks run.
        decoder: the compact observation's torch decoder, or None for float observations.
    """

    def __init__(self, model: torch.nn.Module, pool: Any, gen: torch.Generator, device: torch.device,
                 decoder: Any = None) -> None:
        self.model = model
        self.pool = pool
        self.gen = gen
        self.device = device
        self.decoder = decoder

    def net_obs(self, obs: np.ndarray) -> torch.Tensor:
        """Observations (float32, or compact uint8) as the network's float32 input on the device."""
        t = torch.from_numpy(np.ascontiguousarray(obs)).to(self.device)
        return t if self.decoder is None else self.decoder(t)

    def act(self, obs: np.ndarray, mask: np.ndarray, learner: int,
            snapshots: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        m = obs.shape[0]
        dev = self.device
        actions = np.zeros(m, np.int64)
        logp_np = np.zeros(0, np.float32)
        value_np = np.zeros(0, np.float32)
        # one parameter-free preparation (the Take 5 features) for every row a network plays: the
        # learner's and the pool snapshots'; then each network's head on its rows
        mk_all = torch.from_numpy(mask).to(dev).bool()
        with torch.no_grad():
            prep = self.model.prepare(self.net_obs(obs), mk_all)
        if learner:
            mk = mk_all[:learner]
            with torch.no_grad():
                lp = prep if learner == m else {k: v[:learner] for k, v in prep.items()}
                logits, value = self.model.head(lp, mk)
                logits, value = logits.cpu(), value.cpu()  # sampled on the CPU: the same stream on any device
                a = sample_actions(logits, self.gen)
                logp = torch.log_softmax(logits, dim=1).gather(1, a[:, None]).squeeze(1)
            actions[:learner] = a.numpy()
            logp_np, value_np = logp.numpy(), value.numpy()
        if m > learner:
            for s in np.unique(snapshots):
                j = np.flatnonzero(snapshots == s)
                pj = torch.from_numpy(learner + j).to(dev)
                with torch.no_grad():
                    lg, _ = self.pool.items[s].head({k: v[pj] for k, v in prep.items()}, mk_all[pj])
                    actions[learner + j] = sample_actions(lg.cpu(), self.gen).numpy()
        return actions, logp_np, value_np


def network_actor(model: torch.nn.Module, gen: torch.Generator,
                  greedy: bool) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """``act(obs, mask) -> int64 actions`` of ``model`` where it is (greedy, or sampled with ``gen``)."""
    dev = model_device(model)  # the network stays where it is; observations go to it

    def act(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            logits, _ = model(torch.from_numpy(obs).to(dev), torch.from_numpy(mask).to(dev))
        return sample_actions(logits.cpu(), gen, greedy).numpy()

    return act
