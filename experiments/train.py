"""Train a policy by self-play (PPO, or expert iteration with --algo expit); checkpoints, learning curves, resume.

Usage::

    fiveplay train --game take5 --config num_players=4 mode=round --max-minutes 5 [--algo ppo]
    fiveplay train --game take5 --config num_players=4 mode=round --total-decisions 2000000 --seed 0
    fiveplay train --resume runs/train__take5__0__20260101-120000 [--max-minutes 30]
    fiveplay train --algo expit --game take5 --config num_players=4 mode=round \
        --init-from pretrained:take5-round-4p --win-reward 3 --max-minutes 40
    fiveplay train --evaluate runs/train__take5__0__20260101-120000 --eval-games 2000 \
        --eval-baselines take5-safest random

From Python, the same run as typed data (``TrainSpec``: the algorithm's config and ``RunOptions``; no
command line in between)::

    from fiveplay_env.agents.learned.algorithms.ppo import PPOConfig
    from fiveplay_env.experiments.train import UNCAPPED, RunOptions, TrainSpec, run
    res = run(TrainSpec(PPOConfig(game="take5", config={"num_players": 4, "mode": "round"},
                                  total_decisions=UNCAPPED), RunOptions(max_minutes=5)))

The budget: ``--max-minutes M`` alone trains for M minutes (the whole command, evaluations and the last
checkpoint included; the learning rate decays over the time); ``--total-decisions N`` stops at N decisions
(default 200,000 when no time is given; with ``--max-minutes`` a cap only when given). The run ends with
one line saying what stopped it (the time, the decision cap, or Ctrl-C, which saves a checkpoint first)
and where the checkpoint is.

The run drives a learner (``fiveplay_env.agents.learned.run.Learner``: updates, counters, checkpoints), the
one ``--algo`` names (``fiveplay_env.agents.learned.algorithms``; ``fiveplay_env.agents.learned.trainer.make_learner``).
``ppo``, the default (``fiveplay_env.agents.learned.onpolicy``, read its docstring and
``fiveplay_env.agents.learned.collector``'s): ``--num-envs`` games side by side on the game's batched engine (or,
for a game without one, a loop over reference engines: said at start), rollouts of ``--rollout-steps``
steps, then ``--epochs`` passes of minibatch PPO per rollout; ``expit``: games the search plays, guided by
the current network, and the network trained toward the search's choices and the games' outcomes
(``fiveplay_env.agents.learned.algorithms.expit``); or an algorithm another package declares (entry point
``fiveplay.algorithms``). The options are generated from the settings' dataclasses, declared once: the
options every run shares (``fiveplay_env.agents.learned.config.TrainConfig``), the algorithm's own
(``PPOConfig``, ``ExpitConfig``: an option of another algorithm is an error naming both) and ``RunOptions``
below. Opponents are
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
import dataclasses
import json
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Any

from fiveplay_env.agents.learned.algorithms import config_class, config_from_dict, names
from fiveplay_env.agents.learned.config import TrainConfig, add_options, cli_defaults, from_cli, option
from fiveplay_env.agents.learned.defaults import best_heuristic  # noqa: F401 - re-exported (the default training opponent)
from fiveplay_env.agents.learned.run import EVAL_COLUMNS, UPDATE_COLUMNS, eval_row, evaluate_learner, update_row
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


def build_parser(algo: str = DEFAULT_ALGO, parser_cls: type[argparse.ArgumentParser] = argparse.ArgumentParser,
                 also: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The command line for algorithm ``algo``: ``--algo``, the options of its config's fields (shared
    ones, then its own group) and of ``RunOptions``, and the ``--resume`` / ``--evaluate`` modes; with
    ``also``, the other algorithms' options too (a resume's, checked once the run's algorithm is known)."""
    cls = config_class(algo)
    ap = parser_cls(
        prog="fiveplay train", description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("Usage::")[1], formatter_class=argparse.RawDescriptionHelpFormatter,
        argument_default=None)
    from fiveplay_env.agents.learned.config import GAME_GROUP, TrainConfig

    groups = {GAME_GROUP: ap.add_argument_group(GAME_GROUP)}
    groups[GAME_GROUP].add_argument("--algo", choices=names(),
                                    help=f"the learning algorithm (fiveplay_env.agents.learned.algorithms; default {DEFAULT_ALGO})")
    shared = {f.name for f in fields(TrainConfig)}
    common = [f for f in fields(cls) if f.name in shared]  # an algorithm may redeclare one (expit's opponents)
    add_options(ap, common, groups)
    add_options(ap, cls.own_fields(), groups)
    add_options(ap, fields(RunOptions), groups)
    have = {f.name for f in fields(cls)}
    for other in also:
        extra = [f for f in _own_fields_of(other) if f.name not in have]
        have |= {f.name for f in extra}
        add_options(ap, extra, groups)
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


def _run_options(a: dict[str, Any]) -> RunOptions:
    """``RunOptions`` from resolved arguments."""
    return RunOptions(**{f.name: a[f.name] for f in fields(RunOptions)})


def check_run_options(opts: RunOptions) -> None:
    """``ValueError`` naming the first bad option of ``opts`` (as the command line spells it)."""
    for name in ("eval_games", "checkpoint_interval"):
        v = getattr(opts, name)
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{name.replace('_', '-')}: expected an integer >= 1, got {v!r}")
    runs.check_threads(opts.threads)
    v = opts.eval_interval
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise ValueError(f"eval-interval: expected an integer >= 0 (0: only at the end), got {v!r}")
    v = opts.max_minutes
    if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0):
        raise ValueError(f"max-minutes: expected a number > 0, got {v!r}")
    from fiveplay_env.agents.learned.devices import resolve_device

    resolve_device(opts.device)  # a missing GPU is said before anything runs


def _check_seed(seed: Any) -> None:
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed: expected an integer >= 0, got {seed!r}")


def _own_fields_of(algo: str) -> list[dataclasses.Field]:
    """The options algorithm ``algo`` adds to ``TrainConfig`` (none for one whose entry point fails to load:
    asking for that algorithm says why)."""
    try:
        return config_class(algo).own_fields()
    except ValueError:
        return []


def _parse(argv: Sequence[str], algo: str, every_algorithm: bool = False) -> argparse.Namespace:
    """``argv`` parsed with algorithm ``algo``'s options (``every_algorithm``: any algorithm's, for a resume
    whose algorithm the checkpoint says). An option of another algorithm is a ``ValueError`` naming the
    option and both algorithms (not argparse's "unrecognized arguments")."""
    argv = list(argv)
    if not every_algorithm:
        mine = {f.name for f in fields(config_class(algo))}
        for item in argv:
            name = item[2:].partition("=")[0].replace("-", "_") if item.startswith("--") else ""
            if not name or name in mine:
                continue
            owners = [o for o in names() if o != algo and name in {f.name for f in _own_fields_of(o)}]
            if owners:
                raise ValueError(f"{name}: not an option of algorithm {algo!r} (it is an option of "
                                 f"{', '.join(repr(o) for o in owners)}); --algo {algo} would not use it")
    return build_parser(algo, also=names() if every_algorithm else ()).parse_args(argv)


def _field_value(cls: type[TrainConfig], name: str, value: Any, resolved: dict[str, Any]) -> Any:
    """A config field's value from its command-line form (``from_cli`` for one field)."""
    f = next(f for f in fields(cls) if f.name == name)
    cli = f.metadata["cli"]
    if cli["parse"] is not None:
        return cli["parse"](value, resolved)
    if cli["flag"]:
        return bool(value)
    return tuple(value) if isinstance(value, list) else value


def _open_resume(run_dir: str) -> tuple[dict[str, Any], TrainConfig, RunOptions]:
    """The checkpoint of the run in ``run_dir``, its config (the algorithm it names) and its ``RunOptions``
    (the games in progress continue on the engine they were saved from)."""
    from fiveplay_env.agents.learned.checkpoint import CHECKPOINT_NAME, load_checkpoint

    if not os.path.isdir(run_dir):
        raise CheckpointError(f"checkpoint {os.path.join(run_dir, CHECKPOINT_NAME)}: missing: {run_dir!r} is not a folder")
    ckpt = load_checkpoint(os.path.join(run_dir, CHECKPOINT_NAME))
    saved = ckpt.get("args")
    if not isinstance(saved, dict) or not saved or not isinstance(ckpt.get("train_config"), dict):
        raise CheckpointError(f"checkpoint {ckpt['path']}: holds no training arguments: it cannot be resumed")
    algo = ckpt["algo"]
    try:
        cfg = config_from_dict(ckpt["train_config"], algo)
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(f"checkpoint {ckpt['path']}: its training config does not load: {exc}") from exc
    if cfg.backend == "auto":
        # the games in progress continue on the engine they were saved from, even if a batched engine has
        # been registered for the game since
        cfg.backend = {"reference-loop": "reference", "batched": "batched"}.get(ckpt.get("backend"), "auto")
    opts = RunOptions(**{f.name: saved[f.name] for f in fields(RunOptions) if f.name in saved})
    return ckpt, cfg, opts


def _resume_from_argv(argv: Sequence[str], run_dir: str
                      ) -> Callable[[TrainConfig, RunOptions], tuple[TrainConfig, RunOptions]]:
    """What the command line changes on resume: the options given (parsed with the saved algorithm's), each
    checked against the saved run (``RESUME_OVERRIDABLE`` change it; another must keep its saved value)."""

    def apply(cfg: TrainConfig, opts: RunOptions) -> tuple[TrainConfig, RunOptions]:
        args = _parse(argv, cfg.algo)
        if args.algo is not None and args.algo != cfg.algo:
            raise ValueError(f"algo: the run in {run_dir} was made with {cfg.algo!r}, got {args.algo!r}")
        given = {k: v for k, v in vars(args).items() if v is not None and k not in ("resume", "algo", "evaluate")}
        run_fields = {f.name for f in fields(RunOptions)}
        for k, v in given.items():
            if k in RESUME_OVERRIDABLE:
                if k in run_fields:
                    opts = dataclasses.replace(opts, **{k: v})
                else:
                    cfg = dataclasses.replace(cfg, **{k: v})
                continue
            saved = getattr(opts, k) if k in run_fields else getattr(cfg, k)
            new = v if k in run_fields else _field_value(type(cfg), k, v, {"game": cfg.game})
            if new != saved:
                raise ValueError(f"{k.replace('_', '-')}: the run in {run_dir} was made with {saved!r}, got {v!r}; "
                                 f"only {', '.join('--' + x.replace('_', '-') for x in RESUME_OVERRIDABLE)} may "
                                 f"change on resume")
        return cfg, opts

    return apply


def _resume(run_dir: str, overrides: Callable[[TrainConfig, RunOptions], tuple[TrainConfig, RunOptions]],
            argv: Sequence[str], started: float) -> dict[str, Any]:
    """Continue the run in ``run_dir`` (locked: one trainer per run folder) with ``overrides`` applied."""
    with contextlib.ExitStack() as stack:
        if os.path.isdir(run_dir):
            stack.enter_context(runs.RunLock(run_dir))
        ckpt, cfg, opts = _open_resume(run_dir)
        cfg, opts = overrides(cfg, opts)
        return _train(cfg, opts, stack, argv, started, ckpt=ckpt, run_dir=run_dir)


def _evaluate(path: str, opts: RunOptions, seed: int) -> dict[str, Any]:
    """``--evaluate``: ``evaluate_checkpoint`` with the run options' evaluation settings and threads."""
    import torch

    check_run_options(opts)
    _check_seed(seed)
    import fiveplay_env.agents.learned  # noqa: F401 - baselines may be ckpt: names
    prev = torch.get_num_threads()
    torch.set_num_threads(opts.threads)
    try:
        return evaluate_checkpoint(path, opts.eval_baselines, opts.eval_games, seed, greedy=not opts.eval_sample,
                                   quiet=bool(opts.quiet), device=opts.device)
    finally:
        torch.set_num_threads(prev)


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


def _cli_form(f: dataclasses.Field, value: Any) -> list[str]:
    """A setting as the command line spells it (``TrainSpec.to_argv``)."""
    opt, cli = "--" + f.name.replace("_", "-"), f.metadata.get("cli", {})
    if value is None:
        return []
    if cli.get("boolean_optional"):
        return [opt if value else "--no-" + f.name.replace("_", "-")]
    if cli.get("flag"):
        return [opt] if value else []
    if f.name == "config" and isinstance(value, dict):
        return [opt, *(f"{k}={v}" for k, v in value.items())]
    if f.name == "opponents":
        return [opt, *(n if w == 1 else f"{n}@{w:g}" for n, w in value)]
    if isinstance(value, (list, tuple)):
        return [opt, *map(str, value)]
    return [opt, str(value)]


@dataclass(frozen=True)
class TrainSpec:
    """One training command as data: ``run(spec)`` trains, resumes or evaluates as it says, through the same
    run as the command line (no command line in between).

    ``train``: a new run's settings, its algorithm's config (``PPOConfig(...)``, ``ExpitConfig(...)``: the
    config's class names the algorithm; a budget of time alone: ``total_decisions=UNCAPPED`` with
    ``RunOptions(max_minutes=...)``). ``run``: how the run is carried out (``RunOptions``; None: its
    defaults). ``resume``: a run folder to continue instead (no ``train``: the run keeps its own; ``run``
    given: its options replace the saved ones but ``FIXED_ON_RESUME``, which must match; None: the saved
    ones); ``total_decisions``: a resumed run's new decision cap. ``evaluate``: a checkpoint to evaluate
    instead (``run``'s ``eval_*`` options and threads, ``eval_seed``)."""

    train: TrainConfig | None = None
    run: RunOptions | None = None
    resume: str | None = None
    total_decisions: int | None = None
    evaluate: str | None = None
    eval_seed: int = 0

    def __post_init__(self) -> None:
        if self.resume is not None and self.evaluate is not None:
            raise ValueError("evaluate: expected either evaluate or resume, got both")
        if self.run is not None and not isinstance(self.run, RunOptions):
            raise ValueError(f"run: expected RunOptions or None, got {type(self.run).__name__}")
        if self.total_decisions is not None and self.resume is None:
            raise ValueError("total_decisions: a new decision cap of a resumed run (expected resume= with it); "
                             "a new run's cap is its config's total_decisions")
        if self.resume is not None or self.evaluate is not None:
            if self.train is not None:
                what = "a resumed run keeps its own config" if self.resume is not None else "evaluate trains nothing"
                raise ValueError(f"train: expected None with {'resume' if self.resume is not None else 'evaluate'} "
                                 f"({what}), got a {type(self.train).__name__}")
            return
        if not isinstance(self.train, TrainConfig) or not self.train.algo:
            raise ValueError(f"train: expected an algorithm's config such as PPOConfig(...) or ExpitConfig(...), "
                             f"got {type(self.train).__name__}")

    def to_argv(self) -> list[str]:
        """The equivalent ``fiveplay train`` arguments: what the run records as its command (``config.json``'s
        ``argv``, a shipped policy's model card). Settings equal to their defaults are left out."""
        out: list[str] = []
        if self.train is not None:
            cfg = self.train
            if cfg.algo != DEFAULT_ALGO:
                out += ["--algo", cfg.algo]
            base = type(cfg)(game=cfg.game, config=cfg.config)
            for f in fields(cfg):
                value = getattr(cfg, f.name)
                if f.name == "game" or (f.name == "config" and value) or value != getattr(base, f.name):
                    if not (f.name == "total_decisions" and value >= UNCAPPED):
                        out += _cli_form(f, value)
        if self.resume is not None:
            out += ["--resume", self.resume]
            if self.total_decisions is not None:
                out += ["--total-decisions", str(self.total_decisions)]
        if self.evaluate is not None:
            out += ["--evaluate", self.evaluate, *(["--seed", str(self.eval_seed)] if self.eval_seed else [])]
        if self.run is not None:
            base_opts = RunOptions()
            for f in fields(RunOptions):
                value = getattr(self.run, f.name)
                if value != getattr(base_opts, f.name):
                    out += _cli_form(f, value)
        return out


def run(spec: TrainSpec) -> dict[str, Any]:
    """Train (or resume, or evaluate) as ``spec`` says; returns what ``main`` returns. The spec's typed
    settings go to the run directly (checked as the command line's are: a bad value raises ``ValueError``
    naming the option)."""
    started = CLOCK()
    argv = spec.to_argv()
    if spec.evaluate is not None:
        return _evaluate(spec.evaluate, spec.run or RunOptions(), spec.eval_seed)
    if spec.resume is not None:
        def overrides(cfg: TrainConfig, opts: RunOptions) -> tuple[TrainConfig, RunOptions]:
            if spec.total_decisions is not None:
                cfg = dataclasses.replace(cfg, total_decisions=spec.total_decisions)
            if spec.run is None:
                return cfg, opts
            default = RunOptions()
            for k in FIXED_ON_RESUME:
                new = getattr(spec.run, k)
                if new != getattr(opts, k) and new != getattr(default, k):
                    raise ValueError(f"{k}: the run in {spec.resume} was made with {getattr(opts, k)!r}, got "
                                     f"{new!r}; it defines the run's curves and cannot change on resume")
            return cfg, dataclasses.replace(spec.run, **{k: getattr(opts, k) for k in FIXED_ON_RESUME})

        return _resume(spec.resume, overrides, argv, started)
    with contextlib.ExitStack() as stack:
        return _train(spec.train, spec.run or RunOptions(), stack, argv, started)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Train (or resume) a policy from command-line arguments; returns ``run_dir``, ``checkpoint``,
    ``agent`` (its ``ckpt:`` name), ``decisions``, ``updates``, ``throughput``, ``evaluations`` (the last
    one per baseline), ``seconds``. With ``--evaluate CKPT`` only evaluates (see ``evaluate_checkpoint``)."""
    started = CLOCK()  # --max-minutes counts the whole command, evaluations included
    argv = list(argv) if argv is not None else sys.argv[1:]
    given = _algo_given(argv)
    algo = given or DEFAULT_ALGO
    resuming = any(a == "--resume" or a.startswith("--resume=") for a in argv)
    # a resume without --algo takes every algorithm's options here; the run's own are checked once its
    # checkpoint says which algorithm made it
    args = _parse(argv, algo, every_algorithm=resuming and given is None)
    if args.resume and args.evaluate:
        raise ValueError("evaluate: expected either --evaluate or --resume, got both")
    if args.resume:
        return _resume(args.resume, _resume_from_argv(argv, args.resume), argv, started)
    if args.evaluate:
        a = _resolved(args, algo)
        return _evaluate(args.evaluate, _run_options(a), a["seed"])
    a = _resolved(args, algo)
    if a["max_minutes"] is not None and args.total_decisions is None:
        a["total_decisions"] = UNCAPPED  # --max-minutes is the budget; a decision count only caps when given
    opts = _run_options(a)
    check_run_options(opts)  # the run's options are said before the config's
    with contextlib.ExitStack() as stack:
        return _train(_train_config(a), opts, stack, argv, started)


def _train(cfg: TrainConfig, opts: RunOptions, stack: contextlib.ExitStack, argv: Sequence[str],
           started: float | None = None, ckpt: dict[str, Any] | None = None,
           run_dir: str | None = None) -> dict[str, Any]:
    """The run: ``cfg``'s learner (``fiveplay_env.agents.learned.trainer.make_learner``) trained under ``opts``,
    with its files, evaluations, checkpoints and budget; a new run folder, or ``run_dir`` continued from
    ``ckpt`` (locked by the caller). ``started``: when the command began (``--max-minutes`` counts from it;
    None: now). ``argv``: the command recorded in a new run's ``config.json``."""
    import torch

    import fiveplay_env.agents.learned  # noqa: F401 - registers ckpt: names (opponents and baselines may use them)
    from fiveplay_env.agents.learned.checkpoint import CHECKPOINT_NAME, save_checkpoint
    from fiveplay_env.agents.learned.defaults import game_defaults
    from fiveplay_env.agents.learned.trainer import make_learner

    check_run_options(opts)
    baselines = opts.eval_baselines or game_defaults(cfg.game, cfg.config)["eval_baselines"]
    from fiveplay_env.agents.registry import user_agent as make_agent  # the command line's names: import paths allowed

    for b in baselines:
        make_agent(b, cfg.game, seed=0)  # a bad name fails before anything runs
    from fiveplay_env.agents.learned.engine_seats import engine_agent_names
    from fiveplay_env.agents.learned.envs import has_batched_engine, resolve_backend

    engine_opponents = engine_agent_names(cfg.game, [n for n, _ in cfg.opponents], make_agent)
    resolve_backend(cfg.game, cfg.backend, engine_agent_names(cfg.game, baselines, make_agent))  # --backend batched: said now
    quiet = bool(opts.quiet)
    say = (lambda *x: None) if quiet else (lambda *x: print(*x, flush=True))
    prev_threads = torch.get_num_threads()
    torch.set_num_threads(opts.threads)
    try:
        learner = make_learner(cfg, device=opts.device, warm_start=ckpt is None)  # a resume loads its own weights
        if ckpt is not None and run_dir is not None:
            learner.load_state(ckpt)
        else:
            run_dir = runs.new_run_dir(opts.out, "train", cfg.game, cfg.seed)
            stack.enter_context(runs.RunLock(run_dir))
        saved_args = {"algo": cfg.algo, **dataclasses.asdict(opts)}
        meta = {"args": saved_args, "train_config": cfg.to_dict(), "backend": learner.backend,
                "argv": list(argv), "provenance": runs.provenance("fiveplay_env.experiments.train", argv)}
        if ckpt is None:
            runs.write_config(run_dir, meta)
        ckpt_path = os.path.join(run_dir, CHECKPOINT_NAME)
        curves_csv = os.path.join(run_dir, "curves.csv")
        updates_csv = os.path.join(run_dir, "updates.csv")
        # rows written after the checkpoint belong to the part being redone
        upto = learner.update_idx
        _rewrite_csv(curves_csv, EVAL_COLUMNS, [r for r in _read_csv(curves_csv) if int(r["update"]) <= upto])
        _rewrite_csv(updates_csv, UPDATE_COLUMNS, [r for r in _read_csv(updates_csv) if int(r["update"]) <= upto])
        if learner.backend != "batched" and engine_opponents and has_batched_engine(cfg.game):
            say(f"train: opponents {engine_opponents} use the engine (observe_engine); training on the "
                f"reference-engine loop (exact, slower)")
        elif learner.backend != "batched" and not has_batched_engine(cfg.game):
            say(f"train: {cfg.game} has no batched engine registered; training on the reference-engine loop "
                f"(exact, slower)")
        say(f"train: {cfg.game} {cfg.config} opponents {cfg.opponents} -> {run_dir}"
            + (f" (resumed at update {learner.update_idx}, {learner.decisions} decisions)" if ckpt is not None else "")
            + (f" (warm start from {cfg.init_from}: {learner.init['decisions']} decisions)"
               if ckpt is None and learner.init is not None else ""))
        title = f"{cfg.game} {cfg.config}, opponents {[n for n, _ in cfg.opponents]}, seed {cfg.seed}"
        from fiveplay_env.experiments.tracking import RunLogger

        logger = RunLogger(run_dir, tensorboard=opts.tensorboard, wandb=bool(opts.wandb), config=meta,
                           name=os.path.basename(os.path.abspath(run_dir)), project=opts.wandb_project)
        last_eval: dict[str, Any] = {}
        eval_seed = cfg.seed + 7919  # the same deals at every evaluation: curves compare like with like

        budget = runs.WallBudget(opts.max_minutes, start=started, clock=CLOCK)
        learner.should_stop = lambda: not budget.allows()
        stack.callback(learner.close)  # whatever the learner holds outside memory, on every exit
        timed = opts.max_minutes is not None and cfg.total_decisions >= UNCAPPED
        if timed and cfg.lr_schedule == "linear":
            learner.schedule_progress = budget.spent  # the learning rate decays over the time budget
        tail = {"eval": 0.0, "checkpoint": 0.0}  # the end-of-run costs --max-minutes keeps back

        def run_eval() -> None:
            c0 = CLOCK()
            results = evaluate_learner(learner, baselines, opts.eval_games, eval_seed, greedy=not opts.eval_sample,
                                       make_agent=make_agent)
            rows = []
            for b, res in zip(baselines, results):
                rows.append(eval_row(learner, res, learner.throughput()["seconds"]))
                last_eval[b] = {k: v for k, v in res.items() if k != "per_game"}
                logger.log_eval(learner.decisions, b, res)
            _append_csv(curves_csv, EVAL_COLUMNS, rows)
            if not opts.no_plots:
                plot_curves(curves_csv, os.path.join(run_dir, "curves.png"), title)
            tail["eval"] = CLOCK() - c0
            budget.tail_took(tail["eval"] + tail["checkpoint"])

        def checkpoint() -> None:
            t0 = CLOCK()
            save_checkpoint(ckpt_path, learner.state(args=saved_args))
            tail["checkpoint"] = CLOCK() - t0
            budget.tail_took(tail["eval"] + tail["checkpoint"])

        if learner.update_idx == 0 and not _read_csv(curves_csv):
            run_eval()
        if budget.over():
            say(f"train: one evaluation ({tail['eval']:.0f} s) takes the whole --max-minutes budget; the run makes "
                f"one update and ends late (lower --eval-games or raise --max-minutes)")
        bar = None
        if not (quiet or opts.no_progress):
            from tqdm import tqdm

            if timed:  # the bar is the time budget: tqdm's remaining time is the time left
                bar = tqdm(total=round(budget.seconds), initial=min(round(budget.elapsed()), round(budget.seconds)),
                           unit="s", dynamic_ncols=True, bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} s "
                           "[{elapsed}<{remaining}{postfix}]")
            else:
                bar = tqdm(total=cfg.total_decisions, initial=min(learner.decisions, cfg.total_decisions),
                           unit="dec", unit_scale=True, dynamic_ncols=True)
        t_start = CLOCK()
        evaluated_at = learner.update_idx
        saved_at = learner.update_idx if ckpt is not None else -1
        stopped = "decisions"
        try:
            while True:
                if learner.decisions >= cfg.total_decisions:
                    stopped = "decisions"
                    break
                if not budget.allows():
                    stopped = "time"
                    break
                before = learner.decisions
                t_update = CLOCK()
                st = learner.train_update()
                budget.step_took(CLOCK() - t_update)
                _append_csv(updates_csv, UPDATE_COLUMNS, [update_row(st)])
                logger.log_update(learner.decisions, st, learner.throughput())
                if opts.eval_interval and learner.update_idx % opts.eval_interval == 0:
                    run_eval()
                    evaluated_at = learner.update_idx
                if learner.update_idx % opts.checkpoint_interval == 0:
                    checkpoint()
                    saved_at = learner.update_idx
                if bar is not None:
                    if timed:
                        bar.update(min(round(budget.elapsed()), bar.total) - bar.n)
                    else:
                        bar.update(min(learner.decisions, cfg.total_decisions) - min(before, cfg.total_decisions))
                    post = {"upd": learner.update_idx, "ent": f"{st.get('entropy', float('nan')):.2f}"}
                    if timed:
                        post = {"dec": _short(learner.decisions), **post}
                    for b, r in last_eval.items():
                        post[b[:14]] = f"{r['diff'][0]:+.2f}" if r["lower_is_better"] else f"{r['win'][0]:.2f}"
                    bar.set_postfix(post, refresh=False)
        except KeyboardInterrupt:  # Ctrl-C: keep what was learned (a checkpoint now), skip the evaluation
            stopped = "interrupted"
        finally:
            if bar is not None:
                bar.close()
            logger.flush()
        if evaluated_at != learner.update_idx and stopped != "interrupted":
            run_eval()
        if saved_at != learner.update_idx:
            checkpoint()
        thr = learner.throughput()
        results = {
            "run_dir": run_dir, "checkpoint": ckpt_path, "agent": f"ckpt:{run_dir}", "game": cfg.game,
            "config": learner.game_config, "backend": learner.backend, "updates": learner.update_idx,
            "decisions": learner.decisions, "env_steps": learner.env_steps, "games": learner.games,
            "complete": learner.decisions >= cfg.total_decisions, "stopped": stopped,
            "seconds_this_session": round(CLOCK() - t_start, 2),
            "throughput": thr, "evaluations": last_eval, "curves_csv": curves_csv,
            "curves_png": os.path.join(run_dir, "curves.png") if not opts.no_plots else None,
        }
        logger.close()
        results["tensorboard"] = os.path.join(run_dir, "tensorboard") if os.path.isdir(os.path.join(run_dir, "tensorboard")) else None
        runs.atomic_write(os.path.join(run_dir, "summary.json"), json.dumps(results, indent=2, default=float) + "\n")
        sh = thr["share"]
        say(f"train: {learner.decisions} decisions in {learner.update_idx} updates; "
            f"{thr['decisions_per_s']:.0f} decisions/s (engine {sh['engine']:.0%}, network {sh['network']:.0%}, "
            f"opponents {sh['opponents']:.0%}, " + (f"search {sh['search']:.0%}, " if sh.get("search") else "")
            + (f"JAX rollouts {sh['rollout']:.0%}, " if sh["rollout"] else "")
            + f"update {sh['update']:.0%}, other {sh['other']:.0%})"
            + (f"; the JAX rollout's compile {learner.timers.compile:.0f} s not counted" if learner.timers.compile else ""))
        for b, r in last_eval.items():
            say(f"  vs {b}: {r['score_name']} {r['score'][0]:.2f} +- {r['score'][1]:.2f} (theirs "
                f"{r['opp_score'][0]:.2f}; difference {r['diff'][0]:+.2f} +- {r['diff'][1]:.2f}), "
                f"win rate {r['win'][0]:.3f} +- {r['win'][1]:.3f} over {r['games']} games")
        say(stop_line(stopped, results, cfg.total_decisions, opts.max_minutes, budget.elapsed()))
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
