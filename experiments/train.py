"""Train a policy by self-play (PPO, or expert iteration with --algo expit); checkpoints, learning curves, resume.

Usage::

    fiveplay train --game take5 --config num_players=4 mode=round --max-minutes 5 [--algo ppo]
    fiveplay train --game take5 --config num_players=4 mode=round --total-decisions 2000000 --seed 0
    fiveplay train --resume runs/train__take5__0__20260101-120000 [--max-minutes 30]
    fiveplay train --algo expit --game take5 --config num_players=4 mode=round \
        --init-from pretrained:take5-round-4p --win-reward 3 --max-minutes 40
    fiveplay train --evaluate runs/train__take5__0__20260101-120000 --eval-games 2000 \
        --eval-baselines take5-safest random

From Python, the same run as data (``TrainSpec``; its options are the command line's, by field name)::

    from fiveplay_env.experiments.train import TrainSpec, run
    res = run(TrainSpec(settings={"game": "take5", "config": {"num_players": 4, "mode": "round"},
                                  "max_minutes": 5}))

The budget: ``--max-minutes M`` alone trains for M minutes (the whole command, evaluations and the last
checkpoint included; the learning rate decays over the time); ``--total-decisions N`` stops at N decisions
(default 200,000 when no time is given; with ``--max-minutes`` a cap only when given). The run ends with
one line saying what stopped it (the time, the decision cap, or Ctrl-C, which saves a checkpoint first)
and where the checkpoint is.

The trainer is ``fiveplay_env.agents.learned.trainer`` (read its docstring and ``fiveplay_env.agents.learned.collector``'s):
``--num-envs`` games side by side on the game's batched engine (or, for a game without one, a loop over
reference engines: said at start), rollouts of ``--rollout-steps`` steps, then one update of the
algorithm ``--algo`` (``fiveplay_env.agents.learned.algorithms``; ``ppo``, the default: ``--epochs`` passes of
minibatch PPO per rollout; ``expit``: games the batched search plays, guided by the current network, and
the network trained toward the search's choices and the games' outcomes, ``fiveplay_env.agents.learned.algorithms.expit``,
whose trainer replaces the collector: ``fiveplay_env.agents.learned.trainer.make_trainer``). The options are generated from the settings' dataclasses, declared once:
the algorithm's config (``fiveplay_env.agents.learned.config.TrainConfig`` and, for PPO,
``fiveplay_env.agents.learned.algorithms.ppo.PPOConfig``) and ``RunOptions`` below. Opponents are
``NAME[@WEIGHT]``: ``self`` (every seat the learner), ``pool`` (past snapshots of the learner) or any
agent name of ``fiveplay_env.agents.registry`` (``random``, ``take5-safest``, ``ckpt:PATH``, ``ismcts:sims=50`` ...),
drawn per game. Agents that need the engine (the search agent ``ismcts:...``, as an opponent or an
evaluation baseline) play on the reference-engine loop, one instance per game and seat
(``fiveplay_env.agents.learned.engine_seats``): ``--backend auto`` picks it, ``--backend batched`` is refused.
"Decisions" counts the learner's decisions used for training (the experience collected).

Output: ``<out>/train__<game>__<seed>__<time>/`` with

| file           | content                                                                          |
|----------------|----------------------------------------------------------------------------------|
| ``config.json``| the arguments and the resolved training configuration                            |
| ``checkpoint.pt`` | network, optimizer, configuration, step counts, opponent pool, RNG states and  |
|                | the games in progress, written atomically every ``--checkpoint-interval`` updates |
|                | and at the end (``fiveplay_env.agents.learned.checkpoint``); usable as the agent ``ckpt:RUN_DIR`` |
| ``curves.csv`` | periodic evaluation (every ``--eval-interval`` updates and at the end) against each |
|                | ``--eval-baselines`` agent: the learner (greedy) in one seat, that agent in the     |
|                | others, ``--eval-games`` duplicate-format games; mean score, the baselines' mean,  |
|                | their difference and the win rate, each with a 95% confidence interval           |
| ``curves.png`` | the same, drawn against decisions (bands: 95% intervals)                         |
| ``updates.csv``| per-update losses, entropy, KL, explained variance, learner returns per opponent  |
| ``summary.json``| final figures: throughput (decisions/s, share of time in engine, network,       |
|                | opponents, update), the last evaluation, paths                                    |
| ``tensorboard/``| TensorBoard event files: losses, entropy, KL, clip fraction, returns, throughput |
|                | and its shares, evaluation scores and win rates (``fiveplay_env.experiments.tracking``); on   |
|                | when the tensorboard package is installed (``--no-tensorboard``: off); ``--wandb`` |
|                | also logs to Weights & Biases                                                     |

``--device auto|cpu|cuda`` puts the networks and the update on a GPU (the engines stay on the CPU;
``fiveplay_env.agents.learned.devices``); checkpoints hold CPU tensors, so they load anywhere.

Interrupting (Ctrl-C) keeps the last checkpoint; ``--resume RUN_DIR`` continues from it exactly (same
threads). Settings that define the run cannot change on resume; ``--total-decisions``,
``--max-minutes``, ``--eval-interval``, ``--eval-games``, ``--checkpoint-interval``, ``--threads`` and
the output flags can. A missing, truncated, corrupt or mismatched checkpoint raises ``CheckpointError``.

(Over 450 lines: a quarter is this manual, the rest the one run loop with its files, checkpoints,
evaluations and budget, which read and write the same run state.)
"""
from __future__ import annotations

import argparse
import contextlib
import csv
import json
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from fiveplay_env.agents.learned.algorithms import ALGORITHMS, config_class
from fiveplay_env.agents.learned.config import add_options, cli_defaults, from_cli, option
from fiveplay_env.agents.learned.defaults import best_heuristic  # noqa: F401 - re-exported (the default training opponent)
from fiveplay_env.experiments import runs
from fiveplay_env.core.errors import CheckpointError

RUN_GROUP = "evaluation, checkpoints, output"


def _devices() -> tuple[str, ...]:
    from fiveplay_env.agents.learned.devices import DEVICES

    return DEVICES


@dataclass
class RunOptions:
    """How a run is carried out rather than what it learns: evaluation, checkpoints, output, resources.
    Declared once, like the algorithms' configs: the command line is generated from these fields."""

    eval_interval: int = option(25, "updates between evaluations, 0: only at the end", metavar="U", group=RUN_GROUP)
    eval_games: int = option(400, "games per baseline per evaluation", group=RUN_GROUP)
    eval_baselines: list[str] | None = option(None, "agents to evaluate against (default: random and the game's best "
                                                    "heuristic)", nargs="+", metavar="NAME", group=RUN_GROUP,
                                              cli_default_text="")
    eval_sample: bool = option(False, "evaluate the sampled policy instead of the greedy one", flag=True,
                               group=RUN_GROUP, cli_default_text="")
    checkpoint_interval: int = option(10, "updates between checkpoints", metavar="U", group=RUN_GROUP)
    max_minutes: float | None = option(None, "the whole command's wall time, evaluations and the last checkpoint "
                                       "included: stop early enough to end within it; resume later",
                                       group=RUN_GROUP, cli_default_text="")
    threads: int = option(1, "torch threads (default 1; at most the cores you can spare)", group=RUN_GROUP,
                          cli_default_text="")
    device: str = option("auto", "where the networks and the update run: auto (default: cuda when a GPU is "
                                 "usable, else cpu), cpu or cuda (an error without a GPU); the engines always run "
                                 "on the CPU", choices=_devices, group=RUN_GROUP, cli_default_text="")
    tensorboard: bool | None = option(None, "write TensorBoard event files in RUN_DIR/tensorboard (default: on when "
                                            "the tensorboard package is installed)", boolean_optional=True,
                                      group=RUN_GROUP, cli_default_text="")
    wandb: bool = option(False, "also log to a Weights & Biases run (needs the wandb package; WANDB_MODE=offline "
                                "works)", flag=True, group=RUN_GROUP, cli_default_text="")
    wandb_project: str = option("fiveplay", "W&B project name", group=RUN_GROUP)
    out: str = option("runs", "folder holding run folders", group=RUN_GROUP)
    no_progress: bool = option(False, "no progress bar", flag=True, group=RUN_GROUP, cli_default_text="")
    quiet: bool = option(False, "print nothing (implies --no-progress)", flag=True, group=RUN_GROUP,
                         cli_default_text="")
    no_plots: bool = option(False, "skip curves.png", flag=True, group=RUN_GROUP, cli_default_text="")


DEFAULT_ALGO = "ppo"
UNCAPPED = 2**62
"""``total_decisions`` of a run whose budget is its time alone (``--max-minutes`` without ``--total-decisions``)."""
CLOCK: Callable[[], float] = time.time
"""The wall clock ``--max-minutes`` reads (one clock for the budget, the steps and the tail; a test swaps in a fake)."""
FIXED_ON_RESUME = ("eval_baselines", "eval_sample")  # they define the run's curves
RESUME_OVERRIDABLE = ("total_decisions", *(f.name for f in fields(RunOptions) if f.name not in FIXED_ON_RESUME))


def defaults(algo: str = DEFAULT_ALGO) -> dict[str, Any]:
    """Every setting's value when its option is not given: the algorithm's config, then ``RunOptions``."""
    return {"algo": algo, **cli_defaults(config_class(algo)), **cli_defaults(RunOptions)}


DEFAULTS: dict[str, Any] = defaults()
"""The defaults of a PPO run (``defaults("ppo")``)."""
EVAL_COLUMNS = ["update", "decisions", "env_steps", "train_seconds", "baseline", "games", "deals", "greedy",
                "score_name", "score_mean", "score_ci", "opp_score_mean", "opp_score_ci", "diff_mean", "diff_ci",
                "win_mean", "win_ci"]
UPDATE_COLUMNS = ["update", "decisions", "games", "samples", "lr", "policy_loss", "value_loss", "entropy",
                  "approx_kl", "clipfrac", "explained_variance", "returns"]


def build_parser(algo: str = DEFAULT_ALGO, parser_cls: type[argparse.ArgumentParser] = argparse.ArgumentParser
                 ) -> argparse.ArgumentParser:
    """The command line for algorithm ``algo``: ``--algo``, the options of its config's fields (shared
    ones, then its own group) and of ``RunOptions``, and the ``--resume`` / ``--evaluate`` modes."""
    cls = config_class(algo)
    ap = parser_cls(
        prog="fiveplay train", description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("Usage::")[1], formatter_class=argparse.RawDescriptionHelpFormatter,
        argument_default=None)
    from fiveplay_env.agents.learned.config import GAME_GROUP, TrainConfig

    groups = {GAME_GROUP: ap.add_argument_group(GAME_GROUP)}
    groups[GAME_GROUP].add_argument("--algo", choices=sorted(ALGORITHMS),
                                    help=f"the learning algorithm (fiveplay_env.agents.learned.algorithms; default {DEFAULT_ALGO})")
    shared = {f.name for f in fields(TrainConfig)}
    common = [f for f in fields(cls) if f.name in shared]  # an algorithm may redeclare one (expit's opponents)
    add_options(ap, common, groups)
    add_options(ap, cls.own_fields(), groups)
    add_options(ap, fields(RunOptions), groups)
    r = groups[RUN_GROUP]
    r.add_argument("--resume", metavar="RUN_DIR", help="continue the run in RUN_DIR from its checkpoint")
    r.add_argument("--evaluate", metavar="CKPT",
                   help="no training: evaluate a checkpoint (file or run folder) against each --eval-baselines agent "
                        "over --eval-games duplicate-format games (seed --seed); writes evaluation__*.json beside it")
    return ap


def _algo_given(argv: Sequence[str]) -> str | None:
    """The ``--algo`` of ``argv`` (None if not given); ``ValueError`` listing the known ones for another."""
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--algo")
    algo = pre.parse_known_args(list(argv))[0].algo
    if algo is not None:
        config_class(algo)  # ValueError: "algo: expected one of [...]"
    return algo


# --- files ------------------------------------------------------------------------------------------------

def _read_csv(path: str) -> list[dict[str, str]]:
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _rewrite_csv(path: str, columns: list[str], rows: list[dict[str, Any]]) -> None:
    import io

    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n", extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)
    runs.atomic_write(path, buf.getvalue())


def _append_csv(path: str, columns: list[str], rows: list[dict[str, Any]]) -> None:
    new = not os.path.exists(path)
    with open(path, "a", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns, lineterminator="\n", extrasaction="ignore")
        if new:
            w.writeheader()
        w.writerows(rows)
        f.flush()


def plot_curves(csv_path: str, png_path: str, title: str) -> str | None:
    """Draw ``curves.csv``: per baseline, the learner's mean score and win rate against decisions with
    95% bands (and the baselines' mean score, dashed). Returns the PNG path (None without data)."""
    rows = _read_csv(csv_path)
    if not rows:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    baselines = list(dict.fromkeys(r["baseline"] for r in rows))
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    score_name = rows[0]["score_name"]
    lower = score_name == "score"
    for k, b in enumerate(baselines):
        rs = [r for r in rows if r["baseline"] == b]
        x = [float(r["decisions"]) for r in rs]
        color = f"C{k}"
        for ax, key, label in ((axes[0], "score", f"learner vs {b}"), (axes[1], "win", f"learner vs {b}")):
            m = [float(r[f"{key}_mean"]) for r in rs]
            c = [0.0 if math.isnan(float(r[f"{key}_ci"])) else float(r[f"{key}_ci"]) for r in rs]
            ax.plot(x, m, color=color, marker="o", ms=3, label=label)
            ax.fill_between(x, [a - e for a, e in zip(m, c)], [a + e for a, e in zip(m, c)], color=color, alpha=0.2)
        om = [float(r["opp_score_mean"]) for r in rs]
        oc = [0.0 if math.isnan(float(r["opp_score_ci"])) else float(r["opp_score_ci"]) for r in rs]
        axes[0].plot(x, om, color=color, ls="--", label=f"{b} (its mean, same games)")
        axes[0].fill_between(x, [a - e for a, e in zip(om, oc)], [a + e for a, e in zip(om, oc)], color=color, alpha=0.08)
    n_games = rows[-1]["games"]
    seats = int(rows[-1]["games"]) // max(int(rows[-1]["deals"]), 1)
    axes[1].axhline(1.0 / seats, color="grey", ls=":", lw=1, label=f"equal share (1/{seats})")
    axes[0].set_title(f"mean {score_name} per game ({'lower' if lower else 'higher'} is better), {n_games} games")
    axes[1].set_title(f"win rate (ties shared), {n_games} games")
    for ax in axes:
        ax.set_xlabel("learner decisions trained on")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    try:
        return runs.save_figure(fig, png_path, dpi=110)
    finally:
        plt.close(fig)


# --- run setup --------------------------------------------------------------------------------------------

def _resolved(args: argparse.Namespace, algo: str = DEFAULT_ALGO) -> dict[str, Any]:
    """The arguments with defaults filled in (``None`` = not given on the command line)."""
    out = {}
    for k, v in defaults(algo).items():
        given = getattr(args, k, None)
        out[k] = v if given is None else given
    return out


def _train_config(a: dict[str, Any]) -> Any:
    """The algorithm's config (``a["algo"]``) from resolved arguments."""
    return from_cli(config_class(a.get("algo", DEFAULT_ALGO)), a)


def _check_run_args(a: dict[str, Any]) -> None:
    for name in ("eval_games", "checkpoint_interval"):
        v = a[name]
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{name.replace('_', '-')}: expected an integer >= 1, got {v!r}")
    runs.check_threads(a["threads"])
    if a["eval_interval"] < 0:
        raise ValueError(f"eval-interval: expected an integer >= 0 (0: only at the end), got {a['eval_interval']}")
    if a["max_minutes"] is not None and not a["max_minutes"] > 0:
        raise ValueError(f"max-minutes: expected a number > 0, got {a['max_minutes']}")
    if a["seed"] < 0:
        raise ValueError(f"seed: expected an integer >= 0, got {a['seed']}")
    from fiveplay_env.agents.learned.devices import resolve_device

    resolve_device(a["device"])  # a missing GPU is said before anything runs


def _load_resume(args: argparse.Namespace, argv: Sequence[str]) -> tuple[str, dict[str, Any], dict[str, Any]]:
    from fiveplay_env.agents.learned.checkpoint import CHECKPOINT_NAME, load_checkpoint

    run_dir = args.resume
    if not os.path.isdir(run_dir):
        raise CheckpointError(f"checkpoint {os.path.join(run_dir, CHECKPOINT_NAME)}: missing: {run_dir!r} is not a folder")
    ckpt = load_checkpoint(os.path.join(run_dir, CHECKPOINT_NAME))
    saved = ckpt.get("args")
    if not isinstance(saved, dict) or not saved:
        raise CheckpointError(f"checkpoint {ckpt['path']}: holds no training arguments: it cannot be resumed")
    algo = saved.get("algo", DEFAULT_ALGO)  # runs saved before --algo existed are PPO runs
    if args.algo is not None and args.algo != algo:
        raise ValueError(f"algo: the run in {run_dir} was made with {algo!r}, got {args.algo!r}")
    args = build_parser(algo).parse_args(list(argv))  # the saved algorithm's options
    a = defaults(algo)
    a.update(saved)
    a["algo"] = algo
    given = {k: v for k, v in vars(args).items() if v is not None and k not in ("resume", "algo")}
    for k, v in given.items():
        if k in RESUME_OVERRIDABLE:
            a[k] = v
        elif k in saved and saved[k] != v and not (k == "config" and _same_config(saved[k], v)):
            raise ValueError(f"{k.replace('_', '-')}: the run in {run_dir} was made with {saved[k]!r}, got {v!r}; "
                             f"only {', '.join('--' + x.replace('_', '-') for x in RESUME_OVERRIDABLE)} may change on resume")
    if a.get("backend", "auto") == "auto":
        # the games in progress continue on the engine they were saved from, even if a batched engine has
        # been registered for the game since
        a["backend"] = {"reference-loop": "reference", "batched": "batched"}.get(ckpt.get("backend"), "auto")
    return run_dir, a, ckpt


def _same_config(a: Any, b: Any) -> bool:
    from fiveplay_env.agents.games import parse_config

    try:
        return parse_config(a or []) == parse_config(b or [])
    except ValueError:
        return False


def _eval_row(trainer: Any, res: dict[str, Any], train_seconds: float) -> dict[str, Any]:
    return {"update": trainer.update_idx, "decisions": trainer.decisions, "env_steps": trainer.env_steps,
            "train_seconds": round(train_seconds, 3), "baseline": res["baseline"], "games": res["games"],
            "deals": res["deals"], "greedy": int(res["greedy"]), "score_name": res["score_name"],
            "score_mean": res["score"][0], "score_ci": res["score"][1], "opp_score_mean": res["opp_score"][0],
            "opp_score_ci": res["opp_score"][1], "diff_mean": res["diff"][0], "diff_ci": res["diff"][1],
            "win_mean": res["win"][0], "win_ci": res["win"][1]}


# --- main -------------------------------------------------------------------------------------------------

def evaluate_checkpoint(path: str, baselines: Sequence[str] | None = None, games: int = 2000, seed: int = 0,
                        greedy: bool = True, quiet: bool = False, device: str = "cpu") -> dict[str, Any]:
    """Evaluate a checkpoint (file or run folder) against each baseline: the learner in one seat, n-1
    copies of the baseline in the others, ``games`` duplicate-format games (``fiveplay_env.agents.learned.evaluation``).

    Returns ``{"checkpoint", "game", "config", "games", "seed", "greedy", "results": {baseline: {...}}}`` and
    writes it to ``evaluation__<games>__<seed>.json`` in the checkpoint's folder."""
    from fiveplay_env.agents.learned.defaults import game_defaults
    from fiveplay_env.agents.learned.evaluation import evaluate
    from fiveplay_env.agents.learned.inference import load_policy
    from fiveplay_env.agents.registry import user_agent as make_agent  # the command line's names: import paths allowed

    model, meta = load_policy(path, device)
    game, config = meta["game"], meta["config"]
    baselines = list(baselines or game_defaults(game, config)["eval_baselines"])
    say = (lambda *x: None) if quiet else (lambda *x: print(*x, flush=True))
    out: dict[str, Any] = {"checkpoint": meta["path"], "game": game, "config": config, "progress": meta["progress"],
                           "games": games, "seed": seed, "greedy": greedy, "results": {}}
    backend = meta.get("train_config", {}).get("backend", "auto")
    for b in baselines:
        t0 = time.perf_counter()
        res = evaluate(model, game, config, b, games, seed, greedy=greedy, backend=backend, make_agent=make_agent)
        res = {k: v for k, v in res.items() if k != "per_game"}
        res["seconds"] = round(time.perf_counter() - t0, 2)
        out["results"][b] = res
        say(f"{game}: learner vs {meta['num_players'] - 1} x {b}, {res['games']} games ({res['deals']} deals x "
            f"{meta['num_players']} seats): {res['score_name']} {res['score'][0]:.3f} +- {res['score'][1]:.3f}, "
            f"theirs {res['opp_score'][0]:.3f} +- {res['opp_score'][1]:.3f}, difference {res['diff'][0]:+.3f} +- "
            f"{res['diff'][1]:.3f}; win rate {res['win'][0]:.3f} +- {res['win'][1]:.3f}")
    dest = os.path.join(os.path.dirname(os.path.abspath(meta["path"])), f"evaluation__{games}__{seed}.json")
    runs.atomic_write(dest, json.dumps(out, indent=2, default=float) + "\n")
    out["file"] = dest
    return out


class _RaisingParser(argparse.ArgumentParser):
    """The parser of ``run(spec)``: a bad value raises ``ValueError`` (a library call), not ``SystemExit``."""

    def error(self, message: str):  # type: ignore[override]
        raise ValueError(f"train: {message}")


@dataclass(frozen=True)
class TrainSpec:
    """One training command as data (``run(spec)``; the command line builds one too).

    ``algo``: the learning algorithm (``fiveplay_env.agents.learned.algorithms``); ``settings``: the options by field
    name (the algorithm's config fields and ``RunOptions``'s, as ``fiveplay train --help`` lists them with
    dashes): values in their command-line form (``config``: ``["num_players=4", "mode=round"]`` or a dict),
    an option left out takes its default. ``resume``: a run folder to continue (only the options of
    ``RESUME_OVERRIDABLE`` may change); ``evaluate``: a checkpoint to evaluate instead of training."""

    algo: str = DEFAULT_ALGO
    settings: dict[str, Any] = field(default_factory=dict)
    resume: str | None = None
    evaluate: str | None = None

    def __post_init__(self) -> None:
        config_class(self.algo)  # ValueError: "algo: expected one of [...]"
        if not isinstance(self.settings, dict):
            raise ValueError(f"settings: expected a dict of option values, got {type(self.settings).__name__}")
        known = defaults(self.algo)
        unknown = sorted(k for k in self.settings if k not in known or k == "algo")
        if unknown:
            raise ValueError(f"settings: unknown option {unknown[0]!r} for algo {self.algo!r}; expected some of "
                             f"{sorted(k for k in known if k != 'algo')}")
        if self.resume is not None and self.evaluate is not None:
            raise ValueError("evaluate: expected either evaluate or resume, got both")

    def to_argv(self) -> list[str]:
        """The equivalent ``fiveplay train`` arguments (what the run records as its command)."""
        flags = {f.name: f.metadata.get("cli", {}) for cls in (config_class(self.algo), RunOptions)
                 for f in fields(cls)}
        out = ["--algo", self.algo] if self.algo != DEFAULT_ALGO else []
        for name, value in self.settings.items():
            opt, cli = "--" + name.replace("_", "-"), flags.get(name, {})
            if value is None:
                continue
            if name == "config" and isinstance(value, dict):
                value = [f"{k}={v}" for k, v in value.items()]
            if cli.get("boolean_optional"):
                out.append(opt if value else "--no-" + name.replace("_", "-"))
            elif cli.get("flag"):
                out.extend([opt] if value else [])
            elif isinstance(value, (list, tuple)):
                out.extend([opt, *map(str, value)])
            else:
                out.extend([opt, str(value)])
        if self.resume is not None:
            out.extend(["--resume", self.resume])
        if self.evaluate is not None:
            out.extend(["--evaluate", self.evaluate])
        return out


def run(spec: TrainSpec) -> dict[str, Any]:
    """Train (or resume, or evaluate) as ``spec`` says; returns what ``main`` returns. The spec goes
    through the command line's own parser (``spec.to_argv()``), so both check and default every option
    alike; a bad value raises ``ValueError`` naming the option."""
    argv = spec.to_argv()
    return _run(build_parser(spec.algo, parser_cls=_RaisingParser).parse_args(argv), argv, CLOCK())


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Train (or resume) a policy from command-line arguments; returns ``run_dir``, ``checkpoint``,
    ``agent`` (its ``ckpt:`` name), ``decisions``, ``updates``, ``throughput``, ``evaluations`` (the last
    one per baseline), ``seconds``. With ``--evaluate CKPT`` only evaluates (see ``evaluate_checkpoint``)."""
    started = CLOCK()  # --max-minutes counts the whole command, evaluations included
    argv = list(argv) if argv is not None else sys.argv[1:]
    algo = _algo_given(argv)
    return _run(build_parser(algo or DEFAULT_ALGO).parse_args(argv), argv, started)


def _run(args: argparse.Namespace, argv: Sequence[str], started: float) -> dict[str, Any]:
    import torch

    if args.evaluate:
        if args.resume:
            raise ValueError("evaluate: expected either --evaluate or --resume, got both")
        a = _resolved(args, args.algo or DEFAULT_ALGO)
        _check_run_args(a)
        import fiveplay_env.agents.learned  # noqa: F401 - baselines may be ckpt: names
        prev = torch.get_num_threads()
        torch.set_num_threads(a["threads"])
        try:
            return evaluate_checkpoint(args.evaluate, args.eval_baselines, a["eval_games"], a["seed"],
                                       greedy=not a["eval_sample"], quiet=bool(a["quiet"]), device=a["device"])
        finally:
            torch.set_num_threads(prev)

    with contextlib.ExitStack() as stack:
        if args.resume and os.path.isdir(args.resume):
            stack.enter_context(runs.RunLock(args.resume))  # one trainer per run folder
        return _train(args, argv, stack, started)


def _train(args: argparse.Namespace, argv: Sequence[str], stack: contextlib.ExitStack,
           started: float | None = None) -> dict[str, Any]:
    """``main`` without ``--evaluate``; a resumed run folder is locked by the caller, a new one here.
    ``started``: when the command began (``--max-minutes`` counts from it; None: now)."""
    import torch

    import fiveplay_env.agents.learned  # noqa: F401 - registers ckpt: names (opponents and baselines may use them)
    from fiveplay_env.agents.learned.checkpoint import CHECKPOINT_NAME, save_checkpoint
    from fiveplay_env.agents.learned.defaults import game_defaults
    from fiveplay_env.agents.learned.evaluation import evaluate
    from fiveplay_env.agents.learned.trainer import make_trainer

    if args.resume:
        run_dir, a, ckpt = _load_resume(args, argv)
    else:
        a, ckpt = _resolved(args, args.algo or DEFAULT_ALGO), None
        if a["max_minutes"] is not None and args.total_decisions is None:
            a["total_decisions"] = UNCAPPED  # --max-minutes is the budget; a decision count only caps when given
    _check_run_args(a)
    cfg = _train_config(a)
    baselines = a["eval_baselines"] or game_defaults(cfg.game, cfg.config)["eval_baselines"]
    from fiveplay_env.agents.registry import user_agent as make_agent  # the command line's names: import paths allowed

    for b in baselines:
        make_agent(b, cfg.game, seed=0)  # a bad name fails before anything runs
    from fiveplay_env.agents.learned.engine_seats import engine_agent_names
    from fiveplay_env.agents.learned.envs import has_batched_engine, resolve_backend

    engine_opponents = engine_agent_names(cfg.game, [n for n, _ in cfg.opponents], make_agent)
    resolve_backend(cfg.game, cfg.backend, engine_agent_names(cfg.game, baselines, make_agent))  # --backend batched: said now
    quiet = bool(a["quiet"])
    say = (lambda *x: None) if quiet else (lambda *x: print(*x, flush=True))
    prev_threads = torch.get_num_threads()
    torch.set_num_threads(a["threads"])
    try:
        trainer = make_trainer(cfg, device=a["device"], warm_start=ckpt is None)  # a resume loads its own weights
        if ckpt is not None:
            trainer.load_state(ckpt)
        else:
            run_dir = runs.new_run_dir(a["out"], "train", cfg.game, cfg.seed)
            stack.enter_context(runs.RunLock(run_dir))
        saved_args = {k: v for k, v in a.items()}
        meta = {"args": saved_args, "train_config": cfg.to_dict(), "backend": trainer.backend,
                "argv": list(argv), "provenance": runs.provenance("fiveplay_env.experiments.train", argv)}
        if ckpt is None:
            runs.write_config(run_dir, meta)
        ckpt_path = os.path.join(run_dir, CHECKPOINT_NAME)
        curves_csv = os.path.join(run_dir, "curves.csv")
        updates_csv = os.path.join(run_dir, "updates.csv")
        # rows written after the checkpoint belong to the part being redone
        upto = trainer.update_idx
        _rewrite_csv(curves_csv, EVAL_COLUMNS, [r for r in _read_csv(curves_csv) if int(r["update"]) <= upto])
        _rewrite_csv(updates_csv, UPDATE_COLUMNS, [r for r in _read_csv(updates_csv) if int(r["update"]) <= upto])
        if trainer.backend != "batched" and engine_opponents and has_batched_engine(cfg.game):
            say(f"train: opponents {engine_opponents} use the engine (observe_engine); training on the "
                f"reference-engine loop (exact, slower)")
        elif trainer.backend != "batched" and not has_batched_engine(cfg.game):
            say(f"train: {cfg.game} has no batched engine registered; training on the reference-engine loop "
                f"(exact, slower)")
        say(f"train: {cfg.game} {cfg.config} opponents {cfg.opponents} -> {run_dir}"
            + (f" (resumed at update {trainer.update_idx}, {trainer.decisions} decisions)" if ckpt is not None else "")
            + (f" (warm start from {cfg.init_from}: {trainer.init['decisions']} decisions)"
               if ckpt is None and trainer.init is not None else ""))
        title = f"{cfg.game} {cfg.config}, opponents {[n for n, _ in cfg.opponents]}, seed {cfg.seed}"
        from fiveplay_env.experiments.tracking import RunLogger

        logger = RunLogger(run_dir, tensorboard=a["tensorboard"], wandb=bool(a["wandb"]), config=meta,
                           name=os.path.basename(os.path.abspath(run_dir)), project=a["wandb_project"])
        last_eval: dict[str, Any] = {}
        eval_seed = cfg.seed + 7919  # the same deals at every evaluation: curves compare like with like

        budget = runs.WallBudget(a["max_minutes"], start=started, clock=CLOCK)
        if hasattr(trainer, "work_dir"):  # expit: its prior's files inside the run folder, removed on every exit
            trainer.work_dir = os.path.join(run_dir, "work")
            trainer.should_stop = lambda: not budget.allows()
            stack.callback(trainer.close)
        timed = a["max_minutes"] is not None and cfg.total_decisions >= UNCAPPED
        if timed and cfg.lr_schedule == "linear":
            trainer.schedule_progress = budget.spent  # the learning rate decays over the time budget
        tail = {"eval": 0.0, "checkpoint": 0.0}  # the end-of-run costs --max-minutes keeps back

        def run_eval() -> None:
            t0, c0 = time.perf_counter(), CLOCK()
            rows = []
            for b in baselines:
                res = evaluate(trainer.model, cfg.game, cfg.config, b, a["eval_games"], eval_seed,
                               greedy=not a["eval_sample"], backend=cfg.backend, make_agent=make_agent)
                rows.append(_eval_row(trainer, res, trainer.throughput()["seconds"]))
                last_eval[b] = {k: v for k, v in res.items() if k != "per_game"}
                logger.log_eval(trainer.decisions, b, res)
            trainer.timers.eval += time.perf_counter() - t0
            _append_csv(curves_csv, EVAL_COLUMNS, rows)
            if not a["no_plots"]:
                plot_curves(curves_csv, os.path.join(run_dir, "curves.png"), title)
            tail["eval"] = CLOCK() - c0
            budget.tail_took(tail["eval"] + tail["checkpoint"])

        def checkpoint() -> None:
            t0 = CLOCK()
            save_checkpoint(ckpt_path, trainer.state(args=saved_args))
            tail["checkpoint"] = CLOCK() - t0
            budget.tail_took(tail["eval"] + tail["checkpoint"])

        if trainer.update_idx == 0 and not _read_csv(curves_csv):
            run_eval()
        if budget.over():
            say(f"train: one evaluation ({tail['eval']:.0f} s) takes the whole --max-minutes budget; the run makes "
                f"one update and ends late (lower --eval-games or raise --max-minutes)")
        bar = None
        if not (quiet or a["no_progress"]):
            from tqdm import tqdm

            if timed:  # the bar is the time budget: tqdm's remaining time is the time left
                bar = tqdm(total=round(budget.seconds), initial=min(round(budget.elapsed()), round(budget.seconds)),
                           unit="s", dynamic_ncols=True, bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} s "
                           "[{elapsed}<{remaining}{postfix}]")
            else:
                bar = tqdm(total=cfg.total_decisions, initial=min(trainer.decisions, cfg.total_decisions),
                           unit="dec", unit_scale=True, dynamic_ncols=True)
        t_start = CLOCK()
        evaluated_at = trainer.update_idx
        saved_at = trainer.update_idx if ckpt is not None else -1
        stopped = "decisions"
        try:
            while True:
                if trainer.decisions >= cfg.total_decisions:
                    stopped = "decisions"
                    break
                if not budget.allows():
                    stopped = "time"
                    break
                before = trainer.decisions
                t_update = CLOCK()
                st = trainer.train_update()
                budget.step_took(CLOCK() - t_update)
                _append_csv(updates_csv, UPDATE_COLUMNS, [{
                    **{k: st.get(k) for k in UPDATE_COLUMNS if k != "returns"},
                    "returns": json.dumps({k: round(v, 4) for k, v in st["return_by_kind"].items()})}])
                logger.log_update(trainer.decisions, st, trainer.throughput())
                if a["eval_interval"] and trainer.update_idx % a["eval_interval"] == 0:
                    run_eval()
                    evaluated_at = trainer.update_idx
                if trainer.update_idx % a["checkpoint_interval"] == 0:
                    checkpoint()
                    saved_at = trainer.update_idx
                if bar is not None:
                    if timed:
                        bar.update(min(round(budget.elapsed()), bar.total) - bar.n)
                    else:
                        bar.update(min(trainer.decisions, cfg.total_decisions) - min(before, cfg.total_decisions))
                    post = {"upd": trainer.update_idx, "ent": f"{st.get('entropy', float('nan')):.2f}"}
                    if timed:
                        post = {"dec": _short(trainer.decisions), **post}
                    for b, r in last_eval.items():
                        post[b[:14]] = f"{r['diff'][0]:+.2f}" if r["lower_is_better"] else f"{r['win'][0]:.2f}"
                    bar.set_postfix(post, refresh=False)
        except KeyboardInterrupt:  # Ctrl-C: keep what was learned (a checkpoint now), skip the evaluation
            stopped = "interrupted"
        finally:
            if bar is not None:
                bar.close()
            logger.flush()
        if evaluated_at != trainer.update_idx and stopped != "interrupted":
            run_eval()
        if saved_at != trainer.update_idx:
            checkpoint()
        thr = trainer.throughput()
        results = {
            "run_dir": run_dir, "checkpoint": ckpt_path, "agent": f"ckpt:{run_dir}", "game": cfg.game,
            "config": trainer.game_config, "backend": trainer.backend, "updates": trainer.update_idx,
            "decisions": trainer.decisions, "env_steps": trainer.env_steps, "games": trainer.games,
            "complete": trainer.decisions >= cfg.total_decisions, "stopped": stopped,
            "seconds_this_session": round(CLOCK() - t_start, 2),
            "throughput": thr, "evaluations": last_eval, "curves_csv": curves_csv,
            "curves_png": os.path.join(run_dir, "curves.png") if not a["no_plots"] else None,
        }
        logger.close()
        results["tensorboard"] = os.path.join(run_dir, "tensorboard") if os.path.isdir(os.path.join(run_dir, "tensorboard")) else None
        runs.atomic_write(os.path.join(run_dir, "summary.json"), json.dumps(results, indent=2, default=float) + "\n")
        sh = thr["share"]
        say(f"train: {trainer.decisions} decisions in {trainer.update_idx} updates; "
            f"{thr['decisions_per_s']:.0f} decisions/s (engine {sh['engine']:.0%}, network {sh['network']:.0%}, "
            f"opponents {sh['opponents']:.0%}, " + (f"search {sh['search']:.0%}, " if sh.get("search") else "")
            + (f"JAX rollouts {sh['rollout']:.0%}, " if sh["rollout"] else "")
            + f"update {sh['update']:.0%}, other {sh['other']:.0%})"
            + (f"; the JAX rollout's compile {trainer.timers.compile:.0f} s not counted" if trainer.timers.compile else ""))
        for b, r in last_eval.items():
            say(f"  vs {b}: {r['score_name']} {r['score'][0]:.2f} +- {r['score'][1]:.2f} (theirs "
                f"{r['opp_score'][0]:.2f}; difference {r['diff'][0]:+.2f} +- {r['diff'][1]:.2f}), "
                f"win rate {r['win'][0]:.3f} +- {r['win'][1]:.3f} over {r['games']} games")
        say(stop_line(stopped, results, cfg.total_decisions, a["max_minutes"], budget.elapsed()))
        return results
    finally:
        torch.set_num_threads(prev_threads)


def _short(n: int) -> str:
    return f"{n / 1e6:.2f}M" if n >= 1_000_000 else f"{n / 1e3:.0f}k" if n >= 10_000 else str(n)


STOP_REASONS = ("time", "decisions", "interrupted")
"""What ends a training run, as ``summary.json``'s ``stopped`` says it."""


def stop_line(stopped: str, results: dict[str, Any], total_decisions: int, max_minutes: float | None,
              elapsed: float) -> str:
    """The one line a run ends with: what stopped it and where its checkpoint is (and how to go on)."""
    done = f"{results['decisions']:,} decisions in {results['updates']} updates, {elapsed / 60:.1f} min"
    why = {"time": f"the time budget (--max-minutes {max_minutes:g})" if max_minutes is not None else "the time budget",
           "decisions": f"the decision cap (--total-decisions {total_decisions:,})",
           "interrupted": "Ctrl-C"}[stopped]
    more = "" if stopped == "decisions" else f"; to go on: fiveplay train --resume {results['run_dir']}"
    return f"train: stopped by {why} after {done}; checkpoint {results['checkpoint']}{more}"


def _cli() -> int:
    out: dict[str, Any] = {}

    def go() -> None:
        out.update(main() or {})

    rc = runs.run_cli(go, "train", "the last checkpoint is kept (see --resume)")
    return 130 if rc == 0 and out.get("stopped") == "interrupted" else rc


if __name__ == "__main__":
    sys.exit(_cli())
