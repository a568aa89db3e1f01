"""The trainer: one run's pieces wired together (torch). ``experiments/train.py`` is its command line.

    from fiveplay_env.agents.learned.algorithms.ppo import PPOConfig
    from fiveplay_env.agents.learned.trainer import Trainer
    cfg = PPOConfig(game="take5", config={"num_players": 4, "mode": "round"},
                    opponents=[("take5-safest", 2.0), ("self", 1.0), ("pool", 1.0)], total_decisions=200_000)
    trainer = Trainer(cfg)
    while trainer.decisions < cfg.total_decisions:
        stats = trainer.train_update()          # one rollout + one update

| piece                                  | module                                                   |
|----------------------------------------|----------------------------------------------------------|
| settings                               | ``cfg``: an algorithm's config (``config``, ``algorithms``) |
| games, opponents, pool bookkeeping     | ``collector.Collector`` (numpy): the rollout's trajectories |
| the networks as the collector's policy | ``policy.NetworkPolicy`` (the learner, its pool snapshots) |
| returns                                | ``returns.gae``                                          |
| the update                             | ``algorithms.get_algorithm(cfg.algo).ALGORITHM`` (``PPO``) |
| checkpoints                            | ``state()`` / ``load_state()``: the ``checkpoint`` payload |

Every ``snapshot_interval`` updates a frozen copy of the network joins the opponent pool (the last
``pool_size`` kept). The learning rate is ``cfg.lr``, decayed linearly to 5% of it over
``total_decisions`` with ``lr_schedule="linear"`` (or over the share of a time budget spent, when the caller
sets ``schedule_progress``: a run with ``--max-minutes`` and no decision cap).

Every random choice comes from the run's own seeded generators: the network's initialisation
(``derive(seed, 1)``, inside ``torch.random.fork_rng``: the caller's global RNG is left alone), the
actions sampled with a ``torch.Generator`` (``derive(seed, 2)``), the slots' opponent draws and the
update's minibatches from one numpy generator (``derive(seed, 3)``), the opponents' own generators
(``derive(seed, 100 + kind)``). They are saved in checkpoints with the optimizer, the pool, the vector
env's games, the held-back transitions and the seated engine-using opponents' states (``get_state``:
seed, generator, per-game memory; an opponent without one makes the checkpoint refuse to resume), so a
resumed run continues exactly as the uninterrupted run would (same threads, same machine).

Devices. ``Trainer(cfg, device="cpu" | "cuda" | "auto")``: the engines, the opponents and the sampling
stay on the CPU; the networks (learner and pool) and the update run on the device
(``fiveplay_env.agents.learned.devices``). Each step sends the rows the networks play to the device and brings their
logits back; the update sends the rollout's batch to the device once and runs every epoch there.
Checkpoints always hold CPU tensors, so a run trained on a GPU loads anywhere.

``compact_obs`` (games that declare a compact observation, ``GameDef.compact``: Take 5's
``fiveplay_env.take5.compact``): the vector env hands the collector the compact uint8 observation;
rollouts keep it (21x smaller at 4 players) and torch decodes it exactly (``fiveplay_env.agents.learned.compact``)
for the networks, each step and once per rollout for the update; baseline
opponents get the float observation decoded by numpy. The networks, and so the checkpoints, are the same.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from fiveplay_env.agents.learned import returns
from fiveplay_env.agents.learned.algorithms import get_algorithm
from fiveplay_env.agents.learned.checkpoint import CHECKPOINT_VERSION, KIND, check_matches
from fiveplay_env.agents.learned.collector import Collector, Timers
from fiveplay_env.agents.learned.config import TrainConfig
from fiveplay_env.agents.learned.defaults import obs_scale_for
from fiveplay_env.agents.learned.devices import cpu_state_dict, resolve_device
from fiveplay_env.agents.learned.nets import MaskedActorCritic, build_model
from fiveplay_env.agents.learned.policy import NetworkPolicy, freeze, frozen_copy
from fiveplay_env.core import seeding
from fiveplay_env.core.errors import CheckpointError


class Trainer:
    """A training run: the network, the algorithm, the collector and its pool (see the module docstring).

    ``cfg`` is an algorithm's config (``PPOConfig`` ...); ``device`` where the networks run.
    """

    def __init__(self, cfg: TrainConfig, device: str = "cpu", warm_start: bool = True) -> None:
        from fiveplay_env.agents.registry import user_agent  # opponent names are the user's own: import paths allowed

        if not cfg.algo:
            raise ValueError(f"config: expected an algorithm's config (a subclass of TrainConfig such as "
                             f"fiveplay_env.agents.learned.algorithms.ppo.PPOConfig), got {type(cfg).__name__}")
        algorithm = get_algorithm(cfg.algo)
        self.cfg = cfg
        self.device = resolve_device(device)
        self.timers = Timers()
        self.schedule_progress: Callable[[], float] | None = None
        """The learning-rate schedule's progress in [0, 1] (None: decisions / ``total_decisions``); a
        time-budgeted run sets it to the share of its time spent."""
        self.rng = np.random.default_rng(seeding.derive(cfg.seed, 3))
        if cfg.backend == "jax":  # the rollouts compiled on the JAX engine (the optional jax extra)
            from fiveplay_env.agents.learned.jax.collector import JaxCollector

            self.collector: Any = JaxCollector(cfg, self.rng, user_agent, self.timers)
        else:
            self.collector = Collector(cfg, self.rng, user_agent, self.timers)
        col = self.collector
        self.game_config = self._canonical_config()
        self.obs_scale = obs_scale_for(cfg.game, col.n, col.D)
        self.decoder: Any = None
        if col.layout is not None:
            from fiveplay_env.agents.learned.compact import CompactDecoder

            self.decoder = CompactDecoder(col.layout, self.device)
        kwargs: dict[str, Any] = {"obs_dim": col.D, "num_actions": col.A, "hidden": list(cfg.hidden)}
        with torch.random.fork_rng(devices=[]):  # seeded initialisation without touching the caller's RNG
            torch.manual_seed(seeding.derive(cfg.seed, 1) & 0x7FFFFFFFFFFFFFFF)
            self.model: MaskedActorCritic = build_model(cfg.arch, kwargs, self.obs_scale)
        self.init: dict[str, Any] | None = None  # where a warm start's weights came from (saved in checkpoints)
        if cfg.init_from is not None and warm_start:  # a resume loads its own weights instead
            self.init = warm_start_from(cfg.init_from, self.model, cfg.game, col.D, col.A, cfg.arch)
        self.model.to(self.device)  # initialised on the CPU: the same network whatever the device
        self.model.sparse_input = bool(cfg.sparse_input)
        self.algorithm = algorithm.ALGORITHM(cfg, self.model, self.rng, self.device, self.decoder)
        self.gen = torch.Generator().manual_seed(seeding.derive(cfg.seed, 2) & 0x7FFFFFFFFFFFFFFF)
        self.policy = NetworkPolicy(self.model, col.pool, self.gen, self.device, self.decoder)
        self.update_idx = 0
        self.decisions = 0
        self.recent: list[dict[str, float]] = []

    # ------------------------------------------------------------------ what the pieces hold

    @property
    def env(self) -> Any:
        return self.collector.env

    @property
    def backend(self) -> str:
        return self.collector.backend

    @property
    def n(self) -> int:
        return self.collector.n

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

    @property
    def env_steps(self) -> int:
        return self.collector.env_steps

    @property
    def games(self) -> int:
        return self.collector.games

    def _canonical_config(self) -> dict[str, Any]:
        from fiveplay_env.agents import games as games_mod

        g = games_mod.get_game(self.cfg.game)
        return g.config_dict(g.make_config(self.cfg.config))

    def lr_now(self) -> float:
        cfg = self.cfg
        if cfg.lr_schedule == "constant":
            return cfg.lr
        spent = self.schedule_progress() if self.schedule_progress is not None else self.decisions / cfg.total_decisions
        return cfg.lr * max(1.0 - min(spent, 1.0), 0.05)

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
        self.decisions += int(roll["batch"]["act"].shape[0])
        self.update_idx += 1
        if "pool" in self.collector.kinds and self.update_idx % self.cfg.snapshot_interval == 0:
            self.add_snapshot()
        for k, ret in roll["finished"]:
            self.recent.append({"kind": float(k), "return": ret})
        self.recent = self.recent[-2000:]
        stats.update(update=self.update_idx, decisions=self.decisions, games=self.games,
                     finished=len(roll["finished"]))
        by_kind: dict[str, list[float]] = {}
        for k, ret in roll["finished"]:
            by_kind.setdefault(self.collector.kinds[k], []).append(ret)
        stats["return_by_kind"] = {k: float(np.mean(v)) for k, v in by_kind.items()}
        return stats

    def _empty_network(self) -> MaskedActorCritic:
        return build_model(self.cfg.arch, self.model.kwargs(), self.obs_scale).to(self.device)

    def add_snapshot(self) -> None:
        """Freeze a copy of the current network into the opponent pool (oldest dropped beyond ``pool_size``)."""
        self.collector.add_snapshot(frozen_copy(self.model, self._empty_network), self.update_idx)

    def throughput(self, wall: float | None = None) -> dict[str, float]:
        """Decisions of experience per second of collection + update time, and each part's share."""
        return throughput_of(self.timers, ("engine", "network", "opponents", "rollout", "update", "other"),
                             self.decisions, self.env_steps, self.env_steps * self.cfg.num_envs)

    # ------------------------------------------------------------------ checkpoints

    def state(self, args: dict[str, Any] | None = None) -> dict[str, Any]:
        """The checkpoint payload (see ``fiveplay_env.agents.learned.checkpoint``)."""
        col = self.collector
        st = col.state()
        trainer = {
            "pool": [{"update": u, "state_dict": cpu_state_dict(m)}
                     for u, m in zip(col.pool.updates, col.pool.items)],
            "env": st["env"],
            **{k: torch.from_numpy(st[k]) for k in ("obs", "mask", "cur", "slot_kind", "slot_snap", "learner_seat",
                                                    "ep_return")},
            "carry": {k: torch.from_numpy(v) for k, v in st["carry"].items()},
            "rng_numpy": self.rng.bit_generator.state, "rng_torch_sample": self.gen.get_state(),
            "agents_rng": st["agents_rng"], "engine_seats": st["engine_seats"],
            "timers": self.timers.as_dict(), "recent": self.recent[-200:],
        }
        return {
            "kind": KIND, "version": CHECKPOINT_VERSION, "algo": self.cfg.algo, "game": self.cfg.game,
            "config": self.game_config,
            "num_players": col.n, "obs_dim": col.D, "num_actions": col.A, "backend": self.backend,
            "model": {"arch": self.cfg.arch, "kwargs": self.model.kwargs(), "obs_scale": self.obs_scale,
                      "state_dict": cpu_state_dict(self.model)},
            "optimizer": self.algorithm.state_dict(),
            "train_config": self.cfg.to_dict(), "args": dict(args or {}),
            "progress": {"update": self.update_idx, "decisions": self.decisions, "env_steps": self.env_steps,
                         "games": self.games},
            "trainer": trainer,
            **({"init": self.init} if self.init is not None else {}),
        }

    def load_state(self, ckpt: dict[str, Any]) -> None:
        """Continue from a checkpoint ``state()`` wrote for this same configuration (``CheckpointError`` if not)."""
        col = self.collector
        check_resumable(ckpt, self.cfg, self.game_config, col.D, col.A, self.model, ("num_envs", "seed", "opponents"))
        check_matches(ckpt, "vector env (the games in progress were saved from it)", ckpt.get("backend"), self.backend)
        tr = ckpt["trainer"]
        try:
            self.model.load_state_dict(ckpt["model"]["state_dict"])
            self.algorithm.load_state_dict(ckpt["optimizer"])
            col.pool.items, col.pool.updates = [], []
            for item in tr["pool"]:
                snap = self._empty_network()
                snap.load_state_dict(item["state_dict"])
                col.pool.items.append(freeze(snap))
                col.pool.updates.append(int(item["update"]))
            arrays = {k: tr[k].numpy() for k in ("obs", "mask", "cur", "slot_kind", "slot_snap", "learner_seat",
                                                 "ep_return")}
            col.load_state({**tr, **arrays, "carry": {k: v.numpy() for k, v in tr["carry"].items()}},
                           str(ckpt.get("path")))
            self.rng.bit_generator.state = tr["rng_numpy"]
            self.gen.set_state(tr["rng_torch_sample"])
            for k, v in vars(Timers(**tr["timers"])).items():
                setattr(self.timers, k, v)  # in place: the collector keeps the same timers
            self.recent = list(tr["recent"])
        except CheckpointError:
            raise
        except (KeyError, RuntimeError, ValueError, TypeError) as exc:
            raise CheckpointError(f"checkpoint {ckpt.get('path')}: mismatched or damaged trainer state: "
                                  f"{type(exc).__name__}: {exc}") from exc
        self.init = ckpt.get("init")
        prog = ckpt["progress"]
        self.update_idx = int(prog["update"])
        self.decisions = int(prog["decisions"])
        col.env_steps = int(prog["env_steps"])
        col.games = int(prog["games"])


def make_trainer(cfg: TrainConfig, device: str = "cpu", warm_start: bool = True) -> Any:
    """The run of ``cfg``: its algorithm's own ``TRAINER`` when the algorithm module defines one (``expit``),
    else ``Trainer`` (the collector's rollouts; PPO)."""
    if not cfg.algo:
        return Trainer(cfg, device=device, warm_start=warm_start)  # Trainer says what is wrong
    cls = getattr(get_algorithm(cfg.algo), "TRAINER", None) or Trainer
    return cls(cfg, device=device, warm_start=warm_start)


def throughput_of(timers: Any, parts: tuple[str, ...], decisions: int, env_steps: int,
                  env_steps_all: int) -> dict[str, Any]:
    """A run's throughput: decisions (and ``env_steps_all``, every env's steps) per second of the time in
    ``parts`` of ``timers``, each part's share, and the evaluation's seconds apart."""
    total = sum(getattr(timers, k) for k in parts)
    shares = {k: (getattr(timers, k) / total if total > 0 else float("nan")) for k in parts}
    return {"decisions": decisions, "env_steps": env_steps, "seconds": total,
            "decisions_per_s": decisions / total if total > 0 else float("nan"),
            "env_steps_per_s": env_steps_all / total if total > 0 else float("nan"),
            "share": shares, "eval_seconds": timers.eval}


def check_resumable(ckpt: dict[str, Any], cfg: TrainConfig, game_config: dict[str, Any], obs_dim: int,
                    num_actions: int, model: MaskedActorCritic, settings: tuple[str, ...]) -> None:
    """``CheckpointError`` naming the field unless ``ckpt`` continues a run of this configuration: the same
    game and rules, shapes, architecture and network, algorithm (older checkpoints: PPO's), a trainer state
    beside the policy, and the same training ``settings`` (the algorithm's own: what a resume must keep)."""
    check_matches(ckpt, "game", ckpt["game"], cfg.game)
    check_matches(ckpt, "game config", ckpt["config"], game_config)
    check_matches(ckpt, "observation size", ckpt["obs_dim"], obs_dim)
    check_matches(ckpt, "number of actions", ckpt["num_actions"], num_actions)
    check_matches(ckpt, "architecture", ckpt["model"]["arch"], cfg.arch)
    try:
        saved_kwargs = build_model(ckpt["model"]["arch"], ckpt["model"]["kwargs"]).kwargs()
    except (TypeError, ValueError) as exc:
        raise CheckpointError(f"checkpoint {ckpt.get('path')}: mismatched network: {exc}") from exc
    check_matches(ckpt, "network shape", saved_kwargs, model.kwargs())
    if "trainer" not in ckpt or "optimizer" not in ckpt:
        raise CheckpointError(f"checkpoint {ckpt.get('path')}: holds a policy only (no trainer state): "
                              f"it cannot be resumed")
    check_matches(ckpt, "algorithm", ckpt.get("algo", "ppo"), cfg.algo)  # older checkpoints: PPO's
    saved_cfg = ckpt.get("train_config", {})
    want = cfg.to_dict()
    for key in settings:
        check_matches(ckpt, f"training setting {key}", saved_cfg.get(key), want[key])


def init_source(spec: str) -> str:
    """The checkpoint file a warm start's ``spec`` names: ``pretrained:NAME`` (a shipped policy),
    ``ckpt:PATH`` or a plain checkpoint file or run folder. ``ValueError`` for an unknown shipped name."""
    from fiveplay_env.agents.learned.agent import parse_ckpt_name
    from fiveplay_env.agents.learned.checkpoint import resolve_path
    from fiveplay_env.agents.learned.pretrained import path_of

    prefix, sep, rest = spec.partition(":")
    if sep and prefix == "pretrained":
        return path_of(parse_ckpt_name(rest)[0])
    if sep and prefix == "ckpt":
        return resolve_path(parse_ckpt_name(rest)[0])
    return resolve_path(spec)


def warm_start_from(spec: str, model: MaskedActorCritic, game: str, obs_dim: int, num_actions: int,
                    arch: str) -> dict[str, Any]:
    """Load the weights of the policy ``spec`` names (``init_source``) into ``model``, a fresh run's network.

    The policy must be for the same game, observation size, number of actions, architecture and network
    shape (its game config may differ: a 4-player ``round`` policy can start a 4-player ``game`` run);
    ``CheckpointError`` naming the file and the field otherwise. Returns the record checkpoints keep
    (``init``): the spec, the file's fingerprint, the decisions the policy had been trained on.
    """
    from fiveplay_env.agents.learned.checkpoint import load_checkpoint
    from fiveplay_env.agents.fingerprint import file_fingerprint

    try:
        file = init_source(spec)
    except ValueError as exc:
        raise ValueError(f"init_from: {exc}") from exc
    ckpt = load_checkpoint(file)
    check_matches(ckpt, "game", ckpt["game"], game)
    check_matches(ckpt, "observation size", ckpt["obs_dim"], obs_dim)
    check_matches(ckpt, "number of actions", ckpt["num_actions"], num_actions)
    check_matches(ckpt, "architecture", ckpt["model"].get("arch"), arch)
    try:
        saved_kwargs = build_model(ckpt["model"]["arch"], ckpt["model"]["kwargs"]).kwargs()
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(f"checkpoint {ckpt.get('path')}: mismatched network: {exc}") from exc
    check_matches(ckpt, "network shape (--hidden)", saved_kwargs, model.kwargs())
    try:
        model.load_state_dict(ckpt["model"]["state_dict"])
    except (RuntimeError, KeyError) as exc:
        raise CheckpointError(f"checkpoint {ckpt.get('path')}: mismatched or damaged weights: {exc}") from exc
    progress = ckpt.get("progress") or {}
    return {"from": spec, "fingerprint": file_fingerprint(file), "decisions": int(progress.get("decisions", 0))}
