"""The on-policy learner (torch): self-play rollouts from the collector, their returns, one update on each.

    from fiveplay_env.agents.learned.algorithms.ppo import PPOConfig, PPOLearner
    learner = PPOLearner(PPOConfig(game="take5", config={"num_players": 4, "mode": "round"},
                                   opponents=[("take5-safest", 2.0), ("self", 1.0), ("pool", 1.0)]))
    while learner.decisions < learner.cfg.total_decisions:
        stats = learner.train_update()          # one rollout + one update

``OnPolicyLearner`` is ``fiveplay_env.agents.learned.run.LearnerBase`` (the run's bookkeeping) plus the
experience of an on-policy algorithm; an algorithm subclasses it naming its update (``update_class``:
``ALGORITHM(cfg, model, rng, device, decoder)`` with ``update(batch, lr) -> stats``, ``state_dict()``,
``load_state_dict(state)``), as PPO does (``fiveplay_env.agents.learned.algorithms.ppo.PPOLearner``), and
its config subclasses ``fiveplay_env.agents.learned.config.OnPolicyConfig`` (the rollouts' options:
games side by side, rollout length, GAE lambda, the snapshot pool; the collector reads them).

| piece                                  | module                                                   |
|----------------------------------------|----------------------------------------------------------|
| games, opponents, pool bookkeeping     | ``collector.Collector`` (numpy): the rollout's trajectories |
| the networks as the collector's policy | ``policy.NetworkPolicy`` (the learner, its pool snapshots) |
| returns                                | ``returns.gae``                                          |
| the update                             | ``update_class`` (``PPO``)                               |
| checkpoints                            | ``run.LearnerBase.state`` plus ``learner_state``: the pool, the games in progress |

Every ``snapshot_interval`` updates a frozen copy of the network joins the opponent pool (the last
``pool_size`` kept).

Every random choice comes from the run's own seeded generators: the network's initialisation
(``derive(seed, 1)``), the actions sampled with a ``torch.Generator`` (``derive(seed, 2)``), the slots'
opponent draws and the update's minibatches from one numpy generator (``derive(seed, 3)``), the
opponents' own generators (``derive(seed, 100 + kind)``). They are saved in checkpoints with the
optimizer, the pool, the vector env's games, the held-back transitions and the seated engine-using
opponents' states (``get_state``: seed, generator, per-game memory; an opponent without one makes the
checkpoint refuse to resume), so a resumed run continues exactly as the uninterrupted run would (same
threads, same machine).

Devices. ``device="cpu" | "cuda" | "auto"``: the engines, the opponents and the sampling stay on the CPU;
the networks (learner and pool) and the update run on the device (``fiveplay_env.agents.learned.devices``).
Each step sends the rows the networks play to the device and brings their logits back; the update sends
the rollout's batch to the device once and runs every epoch there. Checkpoints always hold CPU tensors,
so a run trained on a GPU loads anywhere.

``compact_obs`` (games that declare a compact observation, ``GameDef.compact``: Take 5's
``fiveplay_env.take5.compact``): the vector env hands the collector the compact uint8 observation;
rollouts keep it (21x smaller at 4 players) and torch decodes it exactly (``fiveplay_env.agents.learned.compact``)
for the networks, each step and once per rollout for the update; baseline opponents get the float
observation decoded by numpy. The networks, and so the checkpoints, are the same.
"""
from __future__ import annotations

import time
from typing import Any, ClassVar

import numpy as np
import torch

from fiveplay_env.agents.learned import returns
from fiveplay_env.agents.learned.collector import Collector
from fiveplay_env.agents.learned.config import OnPolicyConfig, TrainConfig
from fiveplay_env.agents.learned.devices import cpu_state_dict
from fiveplay_env.agents.learned.nets import MaskedActorCritic
from fiveplay_env.agents.learned.policy import NetworkPolicy, freeze, frozen_copy
from fiveplay_env.agents.learned.run import LearnerBase
from fiveplay_env.core import seeding

class OnPolicyLearner(LearnerBase):
    """A run of an on-policy algorithm (module docstring): the collector's rollouts, GAE, ``update_class``."""

    config_class: ClassVar[type[TrainConfig]] = OnPolicyConfig
    update_class: ClassVar[Any] = None
    """The algorithm's update (``PPO``): set by the algorithm's subclass."""
    resume_settings: ClassVar[tuple[str, ...]] = ("num_envs", "seed", "opponents")

    def __init__(self, cfg: OnPolicyConfig, device: str = "cpu", warm_start: bool = True) -> None:
        from fiveplay_env.agents.registry import user_agent  # opponent names are the user's own: import paths allowed

        super().__init__(cfg, device)
        if self.update_class is None:
            raise ValueError(f"{type(self).__name__}: expected an update_class (the algorithm's update, e.g. PPO)")
        if cfg.backend == "jax":  # the rollouts compiled on the JAX engine (the optional jax extra)
            from fiveplay_env.agents.learned.jax.collector import JaxCollector

            self.collector: Any = JaxCollector(cfg, self.rng, user_agent, self.timers)
        else:
            self.collector = Collector(cfg, self.rng, user_agent, self.timers)
        col = self.collector
        self.decoder: Any = None
        if col.layout is not None:
            from fiveplay_env.agents.learned.compact import CompactDecoder

            self.decoder = CompactDecoder(col.layout, self.device)
        self.build_model(col.n, col.D, col.A, warm_start)
        self.algorithm = self.update_class(cfg, self.model, self.rng, self.device, self.decoder)
        self.gen = torch.Generator().manual_seed(seeding.derive(cfg.seed, 2) & 0x7FFFFFFFFFFFFFFF)
        self.policy = NetworkPolicy(self.model, col.pool, self.gen, self.device, self.decoder)

    # ------------------------------------------------------------------ what the collector holds

    @property
    def env(self) -> Any:
        return self.collector.env

    @property
    def backend(self) -> str:  # type: ignore[override]
        return self.collector.backend

    @property
    def obs(self) -> np.ndarray:
        """The current observations of the games in progress (float32, or the compact uint8 form)."""
        return self.collector.obs

    @property
    def layout(self) -> Any:
        """The compact observation's layout (None without ``compact_obs``)."""
        return self.collector.layout

    @property
    def pool(self) -> list[MaskedActorCritic]:
        """The opponent pool's networks, oldest first."""
        return self.collector.pool.items

    @property  # type: ignore[override]
    def env_steps(self) -> int:
        return self.collector.env_steps if hasattr(self, "collector") else 0

    @env_steps.setter
    def env_steps(self, value: int) -> None:
        if hasattr(self, "collector"):
            self.collector.env_steps = value

    @property  # type: ignore[override]
    def games(self) -> int:
        return self.collector.games if hasattr(self, "collector") else 0

    @games.setter
    def games(self, value: int) -> None:
        if hasattr(self, "collector"):
            self.collector.games = value

    def env_steps_all(self) -> int:
        return self.env_steps * self.cfg.num_envs

    # ------------------------------------------------------------------ one update

    def collect(self) -> dict[str, Any]:
        """One rollout (``Collector.collect``) and its returns (``returns.gae``): the training ``batch``
        (``Rollout.batch``) and the ``finished`` games' ``(kind, learner return)``."""
        self.model.eval()
        roll = self.collector.collect(self.policy)
        t0 = time.perf_counter()
        adv = returns.gae(roll, self.cfg.gamma, self.cfg.gae_lambda)
        batch = roll.batch(adv)
        self.timers.other += time.perf_counter() - t0
        return {"batch": batch, "finished": roll.finished}

    def update(self, batch: dict[str, np.ndarray]) -> dict[str, float]:
        """The algorithm's update on ``batch`` at the scheduled learning rate; its statistics."""
        return self.algorithm.update(batch, self.lr_now())

    def train_update(self) -> dict[str, Any]:
        """Collect one rollout, update on it, maybe snapshot into the pool; returns statistics."""
        roll = self.collect()
        t0 = time.perf_counter()
        stats = self.update(roll["batch"])
        self.timers.update += time.perf_counter() - t0
        stats = self.finish_update(stats, int(roll["batch"]["act"].shape[0]), roll["finished"], self.collector.kinds)
        if "pool" in self.collector.kinds and self.update_idx % self.cfg.snapshot_interval == 0:
            self.add_snapshot()
        return stats

    def add_snapshot(self) -> None:
        """Freeze a copy of the current network into the opponent pool (oldest dropped beyond ``pool_size``)."""
        self.collector.add_snapshot(frozen_copy(self.model, self.empty_network), self.update_idx)

    # ------------------------------------------------------------------ checkpoints

    def learner_state(self) -> dict[str, Any]:
        """The pool, the vector env's games, the held-back transitions, the sampling generator, the seated
        engine-using opponents."""
        col = self.collector
        st = col.state()
        return {
            "pool": [{"update": u, "state_dict": cpu_state_dict(m)}
                     for u, m in zip(col.pool.updates, col.pool.items)],
            "env": st["env"],
            **{k: torch.from_numpy(st[k]) for k in ("obs", "mask", "cur", "slot_kind", "slot_snap", "learner_seat",
                                                    "ep_return")},
            "carry": {k: torch.from_numpy(v) for k, v in st["carry"].items()},
            "rng_torch_sample": self.gen.get_state(),
            "agents_rng": st["agents_rng"], "engine_seats": st["engine_seats"],
        }

    def load_learner_state(self, tr: dict[str, Any], ckpt: dict[str, Any]) -> None:
        col = self.collector
        col.pool.items, col.pool.updates = [], []
        for item in tr["pool"]:
            snap = self.empty_network()
            snap.load_state_dict(item["state_dict"])
            col.pool.items.append(freeze(snap))
            col.pool.updates.append(int(item["update"]))
        arrays = {k: tr[k].numpy() for k in ("obs", "mask", "cur", "slot_kind", "slot_snap", "learner_seat",
                                             "ep_return")}
        col.load_state({**tr, **arrays, "carry": {k: v.numpy() for k, v in tr["carry"].items()}},
                       str(ckpt.get("path")))
        self.gen.set_state(tr["rng_torch_sample"])


__all__ = ["OnPolicyConfig", "OnPolicyLearner"]  # OnPolicyConfig: re-exported from config
