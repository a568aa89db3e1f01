"""The run every learner shares (torch): the ``Learner`` protocol that ``experiments/train.py`` drives, and
``LearnerBase``, the bookkeeping each learner sits on instead of a copy of it.

    from fiveplay_env.agents.learned.algorithms.ppo import PPOConfig
    from fiveplay_env.agents.learned.trainer import make_learner
    learner = make_learner(PPOConfig(game="take5", config={"num_players": 4, "mode": "round"}))
    while learner.decisions < learner.cfg.total_decisions:
        stats = learner.train_update()          # one batch of experience and one update
    save_checkpoint(path, learner.state())      # ... later: make_learner(cfg, warm_start=False).load_state(...)

A learner is what an algorithm declares as its ``LEARNER`` (``fiveplay_env.agents.learned.algorithms``):
``LEARNER(cfg, device="cpu", warm_start=True)`` builds (or warm-starts, ``cfg.init_from``) the network
and everything its experience needs, and then satisfies ``Learner``:

| member                          | meaning                                                                 |
|---------------------------------|-------------------------------------------------------------------------|
| ``cfg``                         | the algorithm's config (``fiveplay_env.agents.learned.config.TrainConfig`` subclass) |
| ``model``                       | the network being trained (``fiveplay_env.agents.learned.nets``)         |
| ``train_update() -> stats``     | one update: experience, then the algorithm's step; floats, plus        |
|                                 | ``update``, ``decisions``, ``games``, ``finished``, ``return_by_kind``   |
| ``update_idx``, ``decisions``,  | the counters (updates made, learner decisions trained on, games        |
| ``games``, ``env_steps``        | finished, environment steps)                                            |
| ``lr_now()``                    | the scheduled learning rate (``lr_at``)                                  |
| ``throughput() -> dict``        | decisions per second of training time and each part's share            |
| ``state(args) -> payload``      | the checkpoint (``fiveplay_env.agents.learned.checkpoint``): the policy, the |
|                                 | optimizer, and every generator and buffer a resume needs                |
| ``load_state(ckpt)``            | continue from ``state()``'s payload bit-identically (same threads, same |
|                                 | machine); ``CheckpointError`` naming the field for another run's        |
| ``timers``, ``backend``,        | seconds per part (``collector.Timers``), the engine the experience      |
| ``game_config``, ``init``       | comes from, the canonical game config, the warm start's record          |
| ``schedule_progress``,          | hooks the run sets: the time budget's share spent (the learning rate    |
| ``should_stop``                 | then decays over time), "the budget is spent" (checked within a long    |
|                                 | update)                                                                  |
| ``close()``                     | release what the learner holds outside memory (the run calls it on      |
|                                 | every exit)                                                              |

``LearnerBase`` implements all of it but the experience: a learner subclasses it, builds its source
of experience, calls ``build_model``, and writes ``train_update`` (ending in ``finish_update``) and its
part of the checkpoint (``learner_state`` / ``load_learner_state``). It holds the run's numpy generator
(``derive(seed, 3)``), the network's seeded initialisation (``derive(seed, 1)`` inside
``torch.random.fork_rng``: the caller's global RNG is left alone) and warm start, the learning-rate
schedule, the counters, the recent returns, the checkpoint's common fields and resume checks.

Also here, for every learner: ``check_resumable`` (a checkpoint continues this run or a
``CheckpointError`` says which field differs), ``warm_start_from`` / ``init_source`` (``--init-from``),
``throughput_of``, the rows of ``curves.csv`` and ``updates.csv`` (``EVAL_COLUMNS``, ``eval_row``,
``UPDATE_COLUMNS``, ``update_row``) and the periodic evaluation (``evaluate_learner``).
"""
from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np
import torch

from fiveplay_env.agents.learned.checkpoint import CHECKPOINT_VERSION, KIND, check_matches
from fiveplay_env.agents.learned.collector import Timers
from fiveplay_env.agents.learned.config import TrainConfig
from fiveplay_env.agents.learned.defaults import obs_scale_for
from fiveplay_env.agents.learned.devices import cpu_state_dict, resolve_device
from fiveplay_env.agents.learned.nets import MaskedActorCritic, build_model
from fiveplay_env.core import seeding
from fiveplay_env.core.errors import CheckpointError

RECENT = 2000
"""Finished games' returns a learner keeps (``recent``; a checkpoint keeps the last 200)."""
LR_FLOOR = 0.05
"""The linear schedule's end: the learning rate decays to 5% of ``lr``, never below."""


@runtime_checkable
class Learner(Protocol):
    """What ``experiments/train.py`` drives (module docstring's table); ``LearnerBase`` implements it."""

    cfg: TrainConfig
    model: Any
    timers: Any
    backend: str
    game_config: dict[str, Any]
    init: dict[str, Any] | None
    update_idx: int
    decisions: int
    games: int
    env_steps: int
    schedule_progress: Callable[[], float] | None
    should_stop: Callable[[], bool] | None

    def train_update(self) -> dict[str, Any]: ...

    def lr_now(self) -> float: ...

    def throughput(self) -> dict[str, Any]: ...

    def state(self, args: dict[str, Any] | None = None) -> dict[str, Any]: ...

    def load_state(self, ckpt: dict[str, Any]) -> None: ...

    def close(self) -> None: ...


def lr_at(cfg: TrainConfig, spent: float) -> float:
    """The learning rate once ``spent`` (in [0, 1]) of the run is done: ``cfg.lr`` with
    ``lr_schedule="constant"``, else decayed linearly to ``LR_FLOOR`` of it."""
    if cfg.lr_schedule == "constant":
        return cfg.lr
    return cfg.lr * max(1.0 - min(spent, 1.0), LR_FLOOR)


class LearnerBase:
    """The bookkeeping of ``Learner`` (module docstring); a subclass supplies the experience.

    Class attributes a subclass sets: ``config_class`` (its algorithm's config), ``timer_class``
    (``Timers`` or a subclass with its own parts), ``throughput_parts`` (the timers' parts that make up
    training time), ``resume_settings`` (the config fields a resume must keep besides the game, the
    network and the algorithm), ``backend`` (unless an instance sets it).
    """

    config_class: ClassVar[type[TrainConfig]] = TrainConfig
    timer_class: ClassVar[type[Timers]] = Timers
    throughput_parts: ClassVar[tuple[str, ...]] = ("engine", "network", "opponents", "rollout", "update", "other")
    resume_settings: ClassVar[tuple[str, ...]] = ("seed", "opponents")
    backend: str = "reference-loop"

    def __init__(self, cfg: TrainConfig, device: str = "cpu") -> None:
        from fiveplay_env.agents import games

        if not isinstance(cfg, TrainConfig) or not cfg.algo:
            raise ValueError(f"config: expected an algorithm's config (a subclass of TrainConfig such as "
                             f"fiveplay_env.agents.learned.algorithms.ppo.PPOConfig), got {type(cfg).__name__}")
        if not isinstance(cfg, self.config_class):
            raise ValueError(f"config: expected a {self.config_class.__name__} for {type(self).__name__}, got "
                             f"{type(cfg).__name__} (algorithm {cfg.algo!r})")
        self.cfg = cfg
        self.device = resolve_device(device)
        self.timers = self.timer_class()
        self.schedule_progress: Callable[[], float] | None = None
        """The learning-rate schedule's progress in [0, 1] (None: decisions / ``total_decisions``); a
        time-budgeted run sets it to the share of its time spent."""
        self.should_stop: Callable[[], bool] | None = None
        """A callable saying the run's budget is spent (``experiments/train.py``: its time budget); a learner
        whose update is long (expit's games) checks it within the update and ends the update early."""
        self.rng = np.random.default_rng(seeding.derive(cfg.seed, 3))
        self.game_def = games.get_game(cfg.game)
        self.game_config = self.game_def.config_dict(self.game_def.make_config(cfg.config))
        self.update_idx = 0
        self.decisions = 0
        self.games = 0
        self.env_steps = 0
        self.recent: list[dict[str, float]] = []
        self.init: dict[str, Any] | None = None
        """Where a warm start's weights came from (``warm_start_from``; saved in checkpoints)."""

    # ------------------------------------------------------------------ the network

    def build_model(self, num_players: int, obs_dim: int, num_actions: int, warm_start: bool) -> MaskedActorCritic:
        """The learner's network (``self.model``) for these shapes: ``cfg.arch`` initialised from the run's seed
        (the same network for the same seed, whatever the algorithm), or ``cfg.init_from``'s weights when
        ``warm_start`` (a resume passes False and loads its own); on ``self.device``."""
        cfg = self.cfg
        self.n, self.D, self.A = int(num_players), int(obs_dim), int(num_actions)
        self.obs_scale = obs_scale_for(cfg.game, self.n, self.D)
        kwargs: dict[str, Any] = {"obs_dim": self.D, "num_actions": self.A, "hidden": list(cfg.hidden)}
        with torch.random.fork_rng(devices=[]):  # seeded initialisation without touching the caller's RNG
            torch.manual_seed(seeding.derive(cfg.seed, 1) & 0x7FFFFFFFFFFFFFFF)
            self.model = build_model(cfg.arch, kwargs, self.obs_scale)
        if cfg.init_from is not None and warm_start:
            self.init = warm_start_from(cfg.init_from, self.model, cfg.game, self.D, self.A, cfg.arch)
        self.model.to(self.device)  # initialised on the CPU: the same network whatever the device
        self.model.sparse_input = bool(cfg.sparse_input)
        return self.model

    def empty_network(self) -> MaskedActorCritic:
        """A network of the learner's shape (weights to be loaded), on the learner's device."""
        return build_model(self.cfg.arch, self.model.kwargs(), self.obs_scale).to(self.device)

    def policy_meta(self) -> dict[str, Any]:
        """What a checkpoint says about the current policy (``fiveplay_env.agents.learned.inference.load_policy``'s
        ``meta``): game, config, shapes, progress, training config."""
        return {"game": self.cfg.game, "config": self.game_config, "num_players": self.n, "obs_dim": self.D,
                "num_actions": self.A, "progress": self.progress(), "train_config": self.cfg.to_dict(),
                "path": None, "card": {}}

    def policy_agent(self, seed: int | None = 0, greedy: bool = True) -> Any:
        """The current network as a ``PolicyAgent`` in memory (``fiveplay_env.agents.learned.agent.policy_from_model``):
        a frozen copy on the CPU, as ``ckpt:`` would load it from a checkpoint written now (the same weights),
        so training goes on without changing what the agent plays."""
        from fiveplay_env.agents.learned.agent import policy_from_model

        copy = build_model(self.cfg.arch, self.model.kwargs(), self.obs_scale)
        copy.load_state_dict(cpu_state_dict(self.model))
        return policy_from_model(copy, self.policy_meta(), seed=seed, greedy=greedy)

    # ------------------------------------------------------------------ schedule and counters

    def lr_now(self) -> float:
        """The learning rate of the next update (``lr_at``: over decisions / ``total_decisions``, or over the
        time budget's ``schedule_progress``)."""
        spent = (self.schedule_progress() if self.schedule_progress is not None
                 else self.decisions / self.cfg.total_decisions)
        return lr_at(self.cfg, spent)

    def progress(self) -> dict[str, int]:
        """The counters as a checkpoint keeps them."""
        return {"update": self.update_idx, "decisions": self.decisions, "env_steps": self.env_steps,
                "games": self.games}

    def finish_update(self, stats: dict[str, Any], decisions: int, finished: Sequence[tuple[int, float]],
                      kinds: Sequence[str]) -> dict[str, Any]:
        """Count an update that trained on ``decisions`` learner decisions and saw ``finished`` games end
        (``(opponent kind index, learner return)``); returns ``stats`` with the counters and the mean
        return per opponent kind (``return_by_kind``)."""
        self.decisions += int(decisions)
        self.update_idx += 1
        self.recent.extend({"kind": float(k), "return": ret} for k, ret in finished)
        self.recent = self.recent[-RECENT:]
        by_kind: dict[str, list[float]] = {}
        for k, ret in finished:
            by_kind.setdefault(kinds[k], []).append(ret)
        stats.update(update=self.update_idx, decisions=self.decisions, games=self.games, finished=len(finished),
                     return_by_kind={k: float(np.mean(v)) for k, v in by_kind.items()})
        return stats

    def env_steps_all(self) -> int:
        """Every environment's steps (a vector env's steps times its games side by side)."""
        return self.env_steps

    def throughput(self, wall: float | None = None) -> dict[str, Any]:
        """Decisions of experience per second of training time (``throughput_parts``), each part's share."""
        return throughput_of(self.timers, self.throughput_parts, self.decisions, self.env_steps, self.env_steps_all())

    def close(self) -> None:
        """Nothing held outside memory here (a learner holding files, processes ... releases them)."""

    # ------------------------------------------------------------------ checkpoints

    def policy_payload(self) -> dict[str, Any]:
        """The current network as a policy-only checkpoint payload (``kind "fiveplay-policy"``, ``algo``; no
        trainer state: it plays, it does not resume)."""
        return {"kind": KIND, "version": CHECKPOINT_VERSION, "algo": self.cfg.algo, "game": self.cfg.game,
                "config": self.game_config, "num_players": self.n, "obs_dim": self.D, "num_actions": self.A,
                "model": {"arch": self.cfg.arch, "kwargs": self.model.kwargs(), "obs_scale": self.obs_scale,
                          "state_dict": cpu_state_dict(self.model)},
                "train_config": self.cfg.to_dict(), "progress": self.progress()}

    def learner_state(self) -> dict[str, Any]:
        """The learner's own part of the checkpoint's ``trainer`` (a subclass adds its buffers, games ...)."""
        return {}

    def load_learner_state(self, tr: dict[str, Any], ckpt: dict[str, Any]) -> None:
        """Restore ``learner_state``'s part from the checkpoint's ``trainer`` ``tr``."""

    def state(self, args: dict[str, Any] | None = None) -> dict[str, Any]:
        """The checkpoint payload (``fiveplay_env.agents.learned.checkpoint``): the policy, the optimizer, the
        run's ``args``, and under ``trainer`` the learner's state, the run's generator, timers and recent
        returns."""
        payload = self.policy_payload()
        payload.update({
            "backend": self.backend, "optimizer": self.algorithm.state_dict(), "args": dict(args or {}),
            "trainer": {**self.learner_state(), "rng_numpy": self.rng.bit_generator.state,
                        "timers": self.timers.as_dict(), "recent": self.recent[-200:]},
            **({"init": self.init} if self.init is not None else {}),
        })
        return payload

    def load_state(self, ckpt: dict[str, Any]) -> None:
        """Continue from a checkpoint ``state()`` wrote for this same configuration (``CheckpointError`` if
        not: ``check_resumable`` with ``resume_settings``, and the same engine)."""
        check_resumable(ckpt, self.cfg, self.game_config, self.D, self.A, self.model, self.resume_settings)
        check_matches(ckpt, "vector env (the games in progress were saved from it)", ckpt.get("backend"), self.backend)
        tr = ckpt["trainer"]
        try:
            self.model.load_state_dict(ckpt["model"]["state_dict"])
            self.algorithm.load_state_dict(ckpt["optimizer"])
            self.load_learner_state(tr, ckpt)
            self.rng.bit_generator.state = tr["rng_numpy"]
            for k, v in vars(self.timer_class(**tr["timers"])).items():
                setattr(self.timers, k, v)  # in place: the pieces that hold the timers keep them
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
        self.env_steps = int(prog["env_steps"])
        self.games = int(prog["games"])


# --- what every run checks ----------------------------------------------------------------------------

def check_resumable(ckpt: dict[str, Any], cfg: TrainConfig, game_config: dict[str, Any], obs_dim: int,
                    num_actions: int, model: MaskedActorCritic, settings: Sequence[str]) -> None:
    """``CheckpointError`` naming the field unless ``ckpt`` continues a run of this configuration: the same
    game and rules, shapes, architecture and network, algorithm (older checkpoints: PPO's), a trainer state
    beside the policy, and the same training ``settings`` (the learner's ``resume_settings``)."""
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
    shape (its game config may differ: a 4-player ``round`` policy can start a 4-player ``game`` run), and
    any algorithm may start from any algorithm's policy; ``CheckpointError`` naming the file and the field
    otherwise. Returns the record checkpoints keep (``init``): the spec, the file's fingerprint, the
    decisions the policy had been trained on.
    """
    from fiveplay_env.agents.fingerprint import file_fingerprint
    from fiveplay_env.agents.learned.checkpoint import load_checkpoint

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


def throughput_of(timers: Any, parts: Sequence[str], decisions: int, env_steps: int,
                  env_steps_all: int) -> dict[str, Any]:
    """A run's throughput: decisions (and ``env_steps_all``, every env's steps) per second of the time in
    ``parts`` of ``timers``, each part's share, and the evaluation's seconds apart."""
    total = sum(getattr(timers, k) for k in parts)
    shares = {k: (getattr(timers, k) / total if total > 0 else float("nan")) for k in parts}
    return {"decisions": decisions, "env_steps": env_steps, "seconds": total,
            "decisions_per_s": decisions / total if total > 0 else float("nan"),
            "env_steps_per_s": env_steps_all / total if total > 0 else float("nan"),
            "share": shares, "eval_seconds": timers.eval}


# --- curves and the periodic evaluation ---------------------------------------------------------------

EVAL_COLUMNS = ["update", "decisions", "env_steps", "train_seconds", "baseline", "games", "deals", "greedy",
                "score_name", "score_mean", "score_ci", "opp_score_mean", "opp_score_ci", "diff_mean", "diff_ci",
                "win_mean", "win_ci"]
"""The columns of a run's ``curves.csv`` (one row per evaluation and baseline)."""
UPDATE_COLUMNS = ["update", "decisions", "games", "samples", "lr", "policy_loss", "value_loss", "entropy",
                  "approx_kl", "clipfrac", "explained_variance", "returns"]
"""The columns of a run's ``updates.csv`` (one row per update; an algorithm's other statistics go to the logger)."""


def eval_row(learner: Learner, res: dict[str, Any], train_seconds: float) -> dict[str, Any]:
    """The ``curves.csv`` row of one evaluation result (``fiveplay_env.agents.learned.evaluation.evaluate``)."""
    return {"update": learner.update_idx, "decisions": learner.decisions, "env_steps": learner.env_steps,
            "train_seconds": round(train_seconds, 3), "baseline": res["baseline"], "games": res["games"],
            "deals": res["deals"], "greedy": int(res["greedy"]), "score_name": res["score_name"],
            "score_mean": res["score"][0], "score_ci": res["score"][1], "opp_score_mean": res["opp_score"][0],
            "opp_score_ci": res["opp_score"][1], "diff_mean": res["diff"][0], "diff_ci": res["diff"][1],
            "win_mean": res["win"][0], "win_ci": res["win"][1]}


def update_row(stats: dict[str, Any]) -> dict[str, Any]:
    """The ``updates.csv`` row of ``train_update``'s statistics."""
    return {**{k: stats.get(k) for k in UPDATE_COLUMNS if k != "returns"},
            "returns": json.dumps({k: round(v, 4) for k, v in stats["return_by_kind"].items()})}


def evaluate_learner(learner: Learner, baselines: Sequence[str], games: int, seed: int, greedy: bool = True,
                     make_agent: Callable[..., Any] | None = None) -> list[dict[str, Any]]:
    """One evaluation of the learner's network against each baseline (``evaluation.evaluate``: the learner
    in one seat, the baseline in the others, ``games`` duplicate-format games from ``seed``, on the engine
    the run's config names); the results, in ``baselines``' order. Its time goes to ``timers.eval``."""
    import time

    from fiveplay_env.agents.learned.evaluation import evaluate

    t0 = time.perf_counter()
    cfg = learner.cfg
    out = [evaluate(learner.model, cfg.game, cfg.config, b, games, seed, greedy=greedy, backend=cfg.backend,
                    make_agent=make_agent) for b in baselines]
    learner.timers.eval += time.perf_counter() - t0
    return out


__all__ = ["EVAL_COLUMNS", "Learner", "LearnerBase", "UPDATE_COLUMNS", "check_resumable", "eval_row",
           "evaluate_learner", "init_source", "lr_at", "throughput_of", "update_row", "warm_start_from"]
