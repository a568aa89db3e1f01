"""Standard training logs: TensorBoard event files and an optional Weights & Biases run.

    logger = RunLogger(run_dir, tensorboard=None, wandb=False, config=cfg_dict, name="train__take5__0__...")
    logger.log_update(decisions, stats, throughput)     # after each PPO update
    logger.log_eval(decisions, baseline, result)        # after each evaluation against a baseline
    logger.close()

Both sinks get the same scalars, against the learner's decisions trained on (the x axis of
``curves.csv``):

| tag                                   | value                                                        |
|---------------------------------------|--------------------------------------------------------------|
| ``loss/policy``, ``loss/value``       | clipped-PPO policy loss, value loss (means over minibatches) |
| ``loss/entropy``, ``loss/approx_kl``, ``loss/clipfrac`` | policy entropy, approximate KL to the rollout policy, fraction of clipped ratios |
| ``loss/explained_variance``           | of the value function on the rollout                         |
| ``train/lr``, ``train/samples``, ``train/games`` | learning rate, samples in the update, games finished so far |
| ``returns/<kind>``                    | mean learner return of the games that ended, per opponent kind |
| ``throughput/decisions_per_s``        | decisions per second of collection + update time             |
| ``throughput/share_<part>``           | share of that time in engine, network, opponents, update, other |
| ``eval/<baseline>/score``, ``.../opp_score``, ``.../diff``, ``.../win`` | the evaluation's means (as ``curves.csv``) |

TensorBoard (``torch.utils.tensorboard``, which needs the ``tensorboard`` package of the ``train``
extra) writes to ``RUN_DIR/tensorboard``: ``tensorboard --logdir runs`` shows every run. ``tensorboard=None``
means "on when the package is installed". W&B is opt-in (``wandb=True``); the package is imported only
then, and a missing one raises ``ValueError`` saying how to install it. Set ``WANDB_MODE=offline`` to
log without an account (the run is kept under ``RUN_DIR/wandb``).
"""
from __future__ import annotations

import importlib
import importlib.util
import math
import os
from typing import Any

TB_FOLDER = "tensorboard"
UPDATE_TAGS = {"policy_loss": "loss/policy", "value_loss": "loss/value", "entropy": "loss/entropy",
               "approx_kl": "loss/approx_kl", "clipfrac": "loss/clipfrac",
               "explained_variance": "loss/explained_variance", "lr": "train/lr", "samples": "train/samples",
               "games": "train/games"}


def tensorboard_available() -> bool:
    """Whether ``torch.utils.tensorboard`` can write event files here (the ``tensorboard`` package)."""
    return importlib.util.find_spec("tensorboard") is not None and importlib.util.find_spec("torch") is not None


class RunLogger:
    """Scalars of a training run to TensorBoard and/or W&B (see the module docstring).

    Args:
        run_dir: the run folder (``RUN_DIR/tensorboard`` and ``RUN_DIR/wandb`` go in it).
        tensorboard: True (``ValueError`` when the package is missing), False, or None (when installed).
        wandb: start a W&B run (``ValueError`` when the package is missing).
        config: the run's configuration (W&B's ``config``).
        name: the run's name (W&B's run name and id, so a resumed run continues the same W&B run).
        project: the W&B project.
    """

    def __init__(self, run_dir: str, tensorboard: bool | None = None, wandb: bool = False,
                 config: dict[str, Any] | None = None, name: str | None = None, project: str = "fiveplay") -> None:
        self.run_dir = run_dir
        self.tb: Any = None
        self.wb: Any = None
        if tensorboard is None:
            tensorboard = tensorboard_available()
        if tensorboard:
            if not tensorboard_available():
                raise ValueError("tensorboard: expected the tensorboard package (pip install -e '.[train]' or "
                                 "pip install tensorboard), it is not installed; use --no-tensorboard")
            from torch.utils.tensorboard import SummaryWriter

            self.tb = SummaryWriter(log_dir=os.path.join(run_dir, TB_FOLDER))
        if wandb:
            try:
                wb = importlib.import_module("wandb")
            except ImportError as exc:
                raise ValueError("wandb: expected the wandb package for --wandb (pip install -e '.[wandb]' or "
                                 "pip install wandb), it is not installed") from exc
            rid = (name or os.path.basename(os.path.abspath(run_dir))).replace("/", "_")
            self.wb = wb.init(project=project, name=name or rid, id=rid, resume="allow", dir=run_dir,
                              config=config or {})

    @property
    def tensorboard_dir(self) -> str | None:
        """Where the event files go (None without TensorBoard)."""
        return os.path.join(self.run_dir, TB_FOLDER) if self.tb is not None else None

    def _scalars(self, step: int, values: dict[str, float]) -> None:
        clean = {k: float(v) for k, v in values.items() if v is not None and math.isfinite(float(v))}
        if self.tb is not None:
            for k, v in clean.items():
                self.tb.add_scalar(k, v, global_step=int(step))
        if self.wb is not None and clean:
            self.wb.log({**clean, "decisions": int(step)}, step=int(step))

    def log_update(self, step: int, stats: dict[str, Any], throughput: dict[str, Any]) -> None:
        """One PPO update's statistics (``Trainer.train_update``) and the throughput so far."""
        values: dict[str, float] = {tag: stats[k] for k, tag in UPDATE_TAGS.items() if isinstance(stats.get(k), (int, float))}
        for kind, ret in (stats.get("return_by_kind") or {}).items():
            values[f"returns/{kind}"] = ret
        values["throughput/decisions_per_s"] = throughput.get("decisions_per_s", float("nan"))
        for part, share in (throughput.get("share") or {}).items():
            values[f"throughput/share_{part}"] = share
        self._scalars(step, values)

    def log_eval(self, step: int, baseline: str, result: dict[str, Any]) -> None:
        """One evaluation against ``baseline`` (``fiveplay_env.agents.learned.evaluation.evaluate``'s result)."""
        self._scalars(step, {f"eval/{baseline}/{k}": result[k][0] for k in ("score", "opp_score", "diff", "win")})

    def flush(self) -> None:
        if self.tb is not None:
            self.tb.flush()

    def close(self) -> None:
        """Flush and close both sinks (safe to call twice)."""
        if self.tb is not None:
            self.tb.close()
            self.tb = None
        if self.wb is not None:
            self.wb.finish()
            self.wb = None
