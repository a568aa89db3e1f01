"""Train a policy by PPO self-play against an opponent pool; checkpoints, learning curves, resume.

Usage::

    python -m experiments.train --game take5 --config num_players=4 mode=round \\
        --opponents take5-safest@2 self pool --total-decisions 2000000 --seed 0
    python -m experiments.train --resume runs/train__take5__0__20260101-120000 [--total-decisions 4000000]
    python -m experiments.train --evaluate runs/train__take5__0__20260101-120000 --eval-games 2000 \
        --eval-baselines take5-safest random

The method is ``agents.learned.ppo`` (read its docstring): ``--num-envs`` games side by side on the
game's batched engine (or, for a game without one, a loop over reference engines: said at start),
rollouts of ``--rollout-steps`` steps, ``--epochs`` passes of minibatch PPO per rollout. Opponents are
``NAME[@WEIGHT]``: ``self`` (every seat the learner), ``pool`` (past snapshots of the learner) or any
agent name of ``agents.registry`` (``random``, ``take5-safest``, ``ckpt:PATH``, ``ismcts:sims=50`` ...),
drawn per game. Agents that need the engine (the search agent ``ismcts:...``, as an opponent or an
evaluation baseline) play on the reference-engine loop, one instance per game and seat
(``agents.learned.engine_seats``): ``--backend auto`` picks it, ``--backend batched`` is refused.
"Decisions" counts the learner's decisions used for training (the experience collected).

Output: ``<out>/train__<game>__<seed>__<time>/`` with

| file           | content                                                                          |
|----------------|----------------------------------------------------------------------------------|
| ``config.json``| the arguments and the resolved training configuration                            |
| ``checkpoint.pt`` | network, optimizer, configuration, step counts, opponent pool, RNG states and  |
|                | the games in progress, written atomically every ``--checkpoint-interval`` updates |
|                | and at the end (``agents.learned.checkpoint``); usable as the agent ``ckpt:RUN_DIR`` |
| ``curves.csv`` | periodic evaluation (every ``--eval-interval`` updates and at the end) against each |
|                | ``--eval-baselines`` agent: the learner (greedy) in one seat, that agent in the     |
|                | others, ``--eval-games`` duplicate-format games; mean score, the baselines' mean,  |
|                | their difference and the win rate, each with a 95% confidence interval           |
| ``curves.png`` | the same, drawn against decisions (bands: 95% intervals)                         |
| ``updates.csv``| per-update losses, entropy, KL, explained variance, learner returns per opponent  |
| ``summary.json``| final figures: throughput (decisions/s, share of time in engine, network,       |
|                | opponents, update), the last evaluation, paths                                    |
| ``tensorboard/``| TensorBoard event files: losses, entropy, KL, clip fraction, returns, throughput |
|                | and its shares, evaluation scores and win rates (``experiments.tracking``); on   |
|                | when the tensorboard package is installed (``--no-tensorboard``: off); ``--wandb`` |
|                | also logs to Weights & Biases                                                     |

``--device auto|cpu|cuda`` puts the networks and the update on a GPU (the engines stay on the CPU;
``agents.learned.ppo``); checkpoints hold CPU tensors, so they load anywhere.

Interrupting (Ctrl-C) keeps the last checkpoint; ``--resume RUN_DIR`` continues from it exactly (same
threads). Settings that define the run cannot change on resume; ``--total-decisions``,
``--max-minutes``, ``--eval-interval``, ``--eval-games``, ``--checkpoint-interval``, ``--threads`` and
the output flags can. A missing, truncated, corrupt or mismatched checkpoint raises ``CheckpointError``.
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
from collections.abc import Sequence
from typing import Any

from experiments import runs
from fiveplay_env.core.errors import CheckpointError

RESUME_OVERRIDABLE = ("total_decisions", "max_minutes", "eval_interval", "eval_games", "checkpoint_interval",
                      "threads", "no_progress", "quiet", "no_plots", "out", "device", "tensorboard", "wandb",
                      "wandb_project")
DEFAULTS: dict[str, Any] = {
    "game": "take5", "config": [], "opponents": None, "total_decisions": 200_000, "num_envs": 512,
    "rollout_steps": 32, "epochs": 2, "minibatch_size": 2048, "lr": 3e-4, "lr_schedule": "linear",
    "gamma": None, "gae_lambda": 0.95, "clip": 0.2, "ent_coef": 0.01, "vf_coef": 0.5, "max_grad_norm": 0.5,
    "reward_scale": None, "win_reward": 0.0, "arch": None, "hidden": [128, 128], "snapshot_interval": 10,
    "pool_size": 8,
    "seed": 0, "eval_interval": 25, "eval_games": 400, "eval_baselines": None, "eval_sample": False,
    "checkpoint_interval": 10, "threads": 1, "backend": "auto", "out": "runs", "max_minutes": None,
    "no_progress": False, "quiet": False, "no_plots": False, "device": "auto", "tensorboard": None,
    "wandb": False, "wandb_project": "fiveplay", "compact_obs": False,
}
EVAL_COLUMNS = ["update", "decisions", "env_steps", "train_seconds", "baseline", "games", "deals", "greedy",
                "score_name", "score_mean", "score_ci", "opp_score_mean", "opp_score_ci", "diff_mean", "diff_ci",
                "win_mean", "win_ci"]
UPDATE_COLUMNS = ["update", "decisions", "games", "samples", "lr", "policy_loss", "value_loss", "entropy",
                  "approx_kl", "clipfrac", "explained_variance", "returns"]


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m experiments.train", description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("Usage::")[1], formatter_class=argparse.RawDescriptionHelpFormatter,
        argument_default=None)
    d = DEFAULTS
    g = ap.add_argument_group("game and opponents")
    g.add_argument("--game", choices=["take5", "five_alive"], help=f"the game (default {d['game']})")
    g.add_argument("--config", nargs="*", metavar="FIELD=VALUE", help="game config fields, e.g. num_players=4 mode=round")
    g.add_argument("--opponents", nargs="+", metavar="NAME[@W]",
                   help="opponent kinds with weights: self, pool, or agent names (default: the game's best "
                        "heuristic@2 self pool)")
    g.add_argument("--backend", choices=["auto", "batched", "reference"],
                   help="vector env: the batched engine, a loop over reference engines, or auto (default)")
    g.add_argument("--compact-obs", action="store_const", const=True,
                   help="take5: collect the compact uint8 observation (fiveplay_env.take5.compact) and decode it "
                        "in torch (21x less rollout memory; the same training)")
    p = ap.add_argument_group("PPO")
    p.add_argument("--total-decisions", type=int, metavar="N", help=f"learner decisions to train on (default {d['total_decisions']})")
    p.add_argument("--num-envs", type=int, metavar="B", help=f"games played side by side (default {d['num_envs']})")
    p.add_argument("--rollout-steps", type=int, metavar="T", help=f"vector-env steps per rollout (default {d['rollout_steps']})")
    p.add_argument("--epochs", type=int, help=f"PPO passes per rollout (default {d['epochs']})")
    p.add_argument("--minibatch-size", type=int, help=f"samples per gradient step (default {d['minibatch_size']})")
    p.add_argument("--lr", type=float, help=f"Adam learning rate (default {d['lr']})")
    p.add_argument("--lr-schedule", choices=["constant", "linear"], help="learning-rate schedule (default linear decay)")
    p.add_argument("--gamma", type=float, help="discount (default: 1.0 for take5, 0.995 for five_alive)")
    p.add_argument("--gae-lambda", type=float, help=f"GAE lambda (default {d['gae_lambda']})")
    p.add_argument("--clip", type=float, help=f"PPO clip range (default {d['clip']})")
    p.add_argument("--ent-coef", type=float, help=f"entropy bonus (default {d['ent_coef']})")
    p.add_argument("--vf-coef", type=float, help=f"value-loss weight (default {d['vf_coef']})")
    p.add_argument("--max-grad-norm", type=float, help=f"gradient clipping (default {d['max_grad_norm']})")
    p.add_argument("--reward-scale", type=float, help="reward multiplier (default: 0.1 for take5, 1 for five_alive)")
    p.add_argument("--win-reward", type=float, metavar="W",
                   help="win option of the reward: at a game's end each seat also gets W * (win share - 1/n) "
                        "(default 0: the game's own rewards only)")
    p.add_argument("--arch", choices=["mlp", "take5"], help="network (default: take5 for take5, mlp otherwise)")
    p.add_argument("--hidden", type=int, nargs="+", metavar="H", help="trunk layer sizes (default 128 128)")
    p.add_argument("--snapshot-interval", type=int, metavar="U", help=f"updates between pool snapshots (default {d['snapshot_interval']})")
    p.add_argument("--pool-size", type=int, help=f"snapshots kept in the pool (default {d['pool_size']})")
    p.add_argument("--seed", type=int, help=f"run seed (default {d['seed']})")
    r = ap.add_argument_group("evaluation, checkpoints, output")
    r.add_argument("--eval-interval", type=int, metavar="U", help=f"updates between evaluations, 0: only at the end (default {d['eval_interval']})")
    r.add_argument("--eval-games", type=int, help=f"games per baseline per evaluation (default {d['eval_games']})")
    r.add_argument("--eval-baselines", nargs="+", metavar="NAME", help="agents to evaluate against (default: random and the game's best heuristic)")
    r.add_argument("--eval-sample", action="store_const", const=True, help="evaluate the sampled policy instead of the greedy one")
    r.add_argument("--checkpoint-interval", type=int, metavar="U", help=f"updates between checkpoints (default {d['checkpoint_interval']})")
    r.add_argument("--max-minutes", type=float, help="stop (with a checkpoint) after this much wall time; resume later")
    r.add_argument("--threads", type=int, help="torch threads (default 1; at most the cores you can spare)")
    r.add_argument("--device", choices=["auto", "cpu", "cuda"],
                   help="where the networks and the update run: auto (default: cuda when a GPU is usable, else "
                        "cpu), cpu or cuda (an error without a GPU); the engines always run on the CPU")
    r.add_argument("--tensorboard", action=argparse.BooleanOptionalAction, default=None,
                   help="write TensorBoard event files in RUN_DIR/tensorboard (default: on when the tensorboard "
                        "package is installed)")
    r.add_argument("--wandb", action="store_const", const=True,
                   help="also log to a Weights & Biases run (needs the wandb package; WANDB_MODE=offline works)")
    r.add_argument("--wandb-project", help="W&B project name (default fiveplay)")
    r.add_argument("--out", help="folder holding run folders (default runs)")
    r.add_argument("--resume", metavar="RUN_DIR", help="continue the run in RUN_DIR from its checkpoint")
    r.add_argument("--evaluate", metavar="CKPT",
                   help="no training: evaluate a checkpoint (file or run folder) against each --eval-baselines agent "
                        "over --eval-games duplicate-format games (seed --seed); writes evaluation__*.json beside it")
    r.add_argument("--no-progress", action="store_const", const=True, help="no progress bar")
    r.add_argument("--quiet", action="store_const", const=True, help="print nothing (implies --no-progress)")
    r.add_argument("--no-plots", action="store_const", const=True, help="skip curves.png")
    return ap


def best_heuristic(game: str) -> str:
    """The strongest heuristic of a game (by the project's tournaments): the default training opponent."""
    return {"take5": "take5-safest", "five_alive": "five-alive-attacker"}.get(game, "random")


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

def _resolved(args: argparse.Namespace) -> dict[str, Any]:
    """The arguments with defaults filled in (``None`` = not given on the command line)."""
    out = {}
    for k, v in DEFAULTS.items():
        given = getattr(args, k, None)
        out[k] = v if given is None else given
    return out


def _train_config(a: dict[str, Any]) -> Any:
    from agents.games import parse_config
    from agents.learned.ppo import TrainConfig, parse_opponents

    cfg_values = parse_config(a["config"] or [])
    opponents = a["opponents"] or [f"{best_heuristic(a['game'])}@2", "self", "pool"]
    return TrainConfig(
        game=a["game"], config=cfg_values, opponents=parse_opponents(opponents),
        total_decisions=a["total_decisions"], seed=a["seed"], num_envs=a["num_envs"],
        rollout_steps=a["rollout_steps"], epochs=a["epochs"], minibatch_size=a["minibatch_size"], lr=a["lr"],
        lr_schedule=a["lr_schedule"], gamma=a["gamma"], gae_lambda=a["gae_lambda"], clip=a["clip"],
        ent_coef=a["ent_coef"], vf_coef=a["vf_coef"], max_grad_norm=a["max_grad_norm"],
        reward_scale=a["reward_scale"], win_reward=a["win_reward"], arch=a["arch"], hidden=tuple(a["hidden"]),
        snapshot_interval=a["snapshot_interval"], pool_size=a["pool_size"], backend=a["backend"],
        compact_obs=bool(a["compact_obs"]))


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
    from agents.learned.ppo import resolve_device

    resolve_device(a["device"])  # a missing GPU is said before anything runs


def _load_resume(args: argparse.Namespace) -> tuple[str, dict[str, Any], dict[str, Any]]:
    from agents.learned.checkpoint import CHECKPOINT_NAME, load_checkpoint

    run_dir = args.resume
    if not os.path.isdir(run_dir):
        raise CheckpointError(f"checkpoint {os.path.join(run_dir, CHECKPOINT_NAME)}: missing: {run_dir!r} is not a folder")
    ckpt = load_checkpoint(os.path.join(run_dir, CHECKPOINT_NAME))
    saved = ckpt.get("args")
    if not isinstance(saved, dict) or not saved:
        raise CheckpointError(f"checkpoint {ckpt['path']}: holds no training arguments: it cannot be resumed")
    a = dict(DEFAULTS)
    a.update(saved)
    given = {k: v for k, v in vars(args).items() if v is not None and k != "resume"}
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
    from agents.games import parse_config

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
    copies of the baseline in the others, ``games`` duplicate-format games (``agents.learned.ppo.evaluate``).

    Returns ``{"checkpoint", "game", "config", "games", "seed", "greedy", "results": {baseline: {...}}}`` and
    writes it to ``evaluation__<games>__<seed>.json`` in the checkpoint's folder."""
    from agents.learned.agent import load_policy
    from agents.learned.ppo import evaluate, game_defaults

    model, meta = load_policy(path, device)
    game, config = meta["game"], meta["config"]
    baselines = list(baselines or game_defaults(game, config)["eval_baselines"])
    say = (lambda *x: None) if quiet else (lambda *x: print(*x, flush=True))
    out: dict[str, Any] = {"checkpoint": meta["path"], "game": game, "config": config, "progress": meta["progress"],
                           "games": games, "seed": seed, "greedy": greedy, "results": {}}
    backend = meta.get("train_config", {}).get("backend", "auto")
    for b in baselines:
        t0 = time.perf_counter()
        res = evaluate(model, game, config, b, games, seed, greedy=greedy, backend=backend)
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


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Train (or resume) a policy; returns ``run_dir``, ``checkpoint``, ``agent`` (its ``ckpt:`` name),
    ``decisions``, ``updates``, ``throughput``, ``evaluations`` (the last one per baseline), ``seconds``.
    With ``--evaluate CKPT`` only evaluates (see ``evaluate_checkpoint``)."""
    args = build_parser().parse_args(list(argv) if argv is not None else None)
    import torch

    if args.evaluate:
        if args.resume:
            raise ValueError("evaluate: expected either --evaluate or --resume, got both")
        a = _resolved(args)
        _check_run_args(a)
        import agents.learned  # noqa: F401 - baselines may be ckpt: names
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
        return _train(args, argv, stack)


def _train(args: argparse.Namespace, argv: Sequence[str] | None, stack: contextlib.ExitStack) -> dict[str, Any]:
    """``main`` without ``--evaluate``; a resumed run folder is locked by the caller, a new one here."""
    import torch

    import agents.learned  # noqa: F401 - registers ckpt: names (opponents and baselines may use them)
    from agents.learned.checkpoint import CHECKPOINT_NAME, save_checkpoint
    from agents.learned.ppo import Trainer, evaluate, game_defaults

    if args.resume:
        run_dir, a, ckpt = _load_resume(args)
    else:
        a, ckpt = _resolved(args), None
    _check_run_args(a)
    cfg = _train_config(a)
    baselines = a["eval_baselines"] or game_defaults(cfg.game, cfg.config)["eval_baselines"]
    from agents.registry import make_agent

    for b in baselines:
        make_agent(b, cfg.game, seed=0, allow_import=True)  # a bad name fails before anything runs
    from agents.learned.engine_seats import engine_agent_names
    from agents.learned.envs import has_batched_engine, resolve_backend

    engine_opponents = engine_agent_names(cfg.game, [n for n, _ in cfg.opponents])
    resolve_backend(cfg.game, cfg.backend, engine_agent_names(cfg.game, baselines))  # --backend batched: said now
    quiet = bool(a["quiet"])
    say = (lambda *x: None) if quiet else (lambda *x: print(*x, flush=True))
    prev_threads = torch.get_num_threads()
    torch.set_num_threads(a["threads"])
    try:
        trainer = Trainer(cfg, device=a["device"])
        if ckpt is not None:
            trainer.load_state(ckpt)
        else:
            run_dir = runs.new_run_dir(a["out"], "train", cfg.game, cfg.seed)
            stack.enter_context(runs.RunLock(run_dir))
        saved_args = {k: v for k, v in a.items()}
        meta = {"args": saved_args, "train_config": cfg.to_dict(), "backend": trainer.backend,
                "argv": list(argv) if argv is not None else sys.argv[1:],
                "provenance": runs.provenance("experiments.train", argv)}
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
            + (f" (resumed at update {trainer.update_idx}, {trainer.decisions} decisions)" if ckpt is not None else ""))
        title = f"{cfg.game} {cfg.config}, opponents {[n for n, _ in cfg.opponents]}, seed {cfg.seed}"
        from experiments.tracking import RunLogger

        logger = RunLogger(run_dir, tensorboard=a["tensorboard"], wandb=bool(a["wandb"]), config=meta,
                           name=os.path.basename(os.path.abspath(run_dir)), project=a["wandb_project"])
        last_eval: dict[str, Any] = {}
        eval_seed = cfg.seed + 7919  # the same deals at every evaluation: curves compare like with like

        def run_eval() -> None:
            t0 = time.perf_counter()
            rows = []
            for b in baselines:
                res = evaluate(trainer.model, cfg.game, cfg.config, b, a["eval_games"], eval_seed,
                               greedy=not a["eval_sample"], backend=cfg.backend)
                rows.append(_eval_row(trainer, res, trainer.throughput()["seconds"]))
                last_eval[b] = {k: v for k, v in res.items() if k != "per_game"}
                logger.log_eval(trainer.decisions, b, res)
            trainer.timers.eval += time.perf_counter() - t0
            _append_csv(curves_csv, EVAL_COLUMNS, rows)
            if not a["no_plots"]:
                plot_curves(curves_csv, os.path.join(run_dir, "curves.png"), title)

        def checkpoint() -> None:
            save_checkpoint(ckpt_path, trainer.state(args=saved_args))

        if trainer.update_idx == 0 and not _read_csv(curves_csv):
            run_eval()
        bar = None
        if not (quiet or a["no_progress"]):
            from tqdm import tqdm

            bar = tqdm(total=cfg.total_decisions, initial=min(trainer.decisions, cfg.total_decisions), unit="dec",
                       unit_scale=True, dynamic_ncols=True)
        t_start = time.time()
        deadline = t_start + 60 * a["max_minutes"] if a["max_minutes"] else None
        evaluated_at = trainer.update_idx
        saved_at = trainer.update_idx if ckpt is not None else -1
        try:
            while trainer.decisions < cfg.total_decisions and (deadline is None or time.time() < deadline):
                before = trainer.decisions
                st = trainer.train_update()
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
                    bar.update(min(trainer.decisions, cfg.total_decisions) - min(before, cfg.total_decisions))
                    post = {"upd": trainer.update_idx, "ent": f"{st.get('entropy', float('nan')):.2f}"}
                    for b, r in last_eval.items():
                        post[b[:14]] = f"{r['diff'][0]:+.2f}" if r["lower_is_better"] else f"{r['win'][0]:.2f}"
                    bar.set_postfix(post, refresh=False)
        finally:
            if bar is not None:
                bar.close()
            logger.flush()
        if evaluated_at != trainer.update_idx:
            run_eval()
        if saved_at != trainer.update_idx:
            checkpoint()
        thr = trainer.throughput()
        results = {
            "run_dir": run_dir, "checkpoint": ckpt_path, "agent": f"ckpt:{run_dir}", "game": cfg.game,
            "config": trainer.game_config, "backend": trainer.backend, "updates": trainer.update_idx,
            "decisions": trainer.decisions, "env_steps": trainer.env_steps, "games": trainer.games,
            "complete": trainer.decisions >= cfg.total_decisions, "seconds_this_session": round(time.time() - t_start, 2),
            "throughput": thr, "evaluations": last_eval, "curves_csv": curves_csv,
            "curves_png": os.path.join(run_dir, "curves.png") if not a["no_plots"] else None,
        }
        logger.close()
        results["tensorboard"] = os.path.join(run_dir, "tensorboard") if os.path.isdir(os.path.join(run_dir, "tensorboard")) else None
        runs.atomic_write(os.path.join(run_dir, "summary.json"), json.dumps(results, indent=2, default=float) + "\n")
        sh = thr["share"]
        say(f"train: {trainer.decisions} decisions in {trainer.update_idx} updates; "
            f"{thr['decisions_per_s']:.0f} decisions/s (engine {sh['engine']:.0%}, network {sh['network']:.0%}, "
            f"opponents {sh['opponents']:.0%}, update {sh['update']:.0%}, other {sh['other']:.0%})")
        for b, r in last_eval.items():
            say(f"  vs {b}: {r['score_name']} {r['score'][0]:.2f} +- {r['score'][1]:.2f} (theirs "
                f"{r['opp_score'][0]:.2f}; difference {r['diff'][0]:+.2f} +- {r['diff'][1]:.2f}), "
                f"win rate {r['win'][0]:.3f} +- {r['win'][1]:.3f} over {r['games']} games")
        say(f"results: {run_dir}" + ("" if results["complete"] else f" (to continue: python -m experiments.train --resume {run_dir})"))
        return results
    finally:
        torch.set_num_threads(prev_threads)


def _cli() -> int:
    return runs.run_cli(main, "train", "the last checkpoint is kept (see --resume)")


if __name__ == "__main__":
    sys.exit(_cli())
