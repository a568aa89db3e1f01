"""Train PPO with Ray RLlib on Take 5 or 5 Alive (locally or on a Ray cluster); learning curves, checkpoints.

Usage::

    fiveplay rllib-train --game take5 --config num_players=4 mode=round \\
        --opponents random --max-minutes 20 --num-env-runners 1
    fiveplay rllib-train --game five_alive --config num_players=3 --iterations 50
    fiveplay rllib-train --game take5 --address auto --num-env-runners 64 ...   # on a cluster

The env, module and config are ``fiveplay_env.integrations.rllib`` (read its docstring): a masked PPO module
shared by every learning seat. ``--opponents NAME ...`` (registry names: ``random``, ``take5-safest``,
``ckpt:PATH``, ``rllib:PATH`` ...; one name for every other seat, or one per other seat) puts fixed agents
in the other seats and one learning seat (random each game); without it every seat is the learner
(self-play). Every ``--eval-every`` iterations (and at the end) the greedy policy plays ``--eval-games``
games against ``--eval-opponent`` in every other seat, seats rotated, with fixed seeds: its mean return
(the env's reward: Take 5 minus the bull heads taken, 5 Alive +1 win / -1 loss) with a 95% interval.

Output: ``<out>/rllib_train__<game>__<seed>__<time>/`` with ``config.json`` (arguments), ``curves.csv``
(per iteration: time, env steps, sampling throughput, the training episodes' mean return, evaluations),
``curves.png``, ``checkpoint/`` (``algo.save``, replaced at each ``--checkpoint-every`` and at the end;
an agent as ``rllib:RUN_DIR``) and ``summary.json``. Ctrl-C stops after saving a checkpoint.

Ray: ``--address`` None starts a local Ray instance (``--num-cpus`` CPUs), ``auto`` or ``ray://host:port``
joins a cluster. Sampling runs in ``--num-env-runners`` actors (0: in the driver), each with
``--envs-per-runner`` games; the update runs in the driver (one learner).
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import os
import shutil
import sys
import time
from collections.abc import Sequence
from typing import Any

import fiveplay_env.games
from fiveplay_env.experiments import runs

COLUMNS = ["iteration", "time_s", "env_steps", "sample_s", "env_steps_per_s", "episodes", "train_return_mean",
           "eval_return_mean", "eval_return_ci95", "eval_games"]


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m fiveplay_env.experiments.rllib_train", description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("Usage::")[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", choices=sorted(fiveplay_env.games.names()),
                    default=fiveplay_env.games.default_game(), help="the game (default: the first built-in game)")
    ap.add_argument("--config", nargs="*", default=[], metavar="FIELD=VALUE", help="game config, e.g. num_players=4 mode=round")
    ap.add_argument("--opponents", nargs="+", metavar="NAME", help="fixed agents in the other seats (default: self-play)")
    ap.add_argument("--iterations", type=int, default=None, help="PPO iterations (default: until --max-minutes, else 10)")
    ap.add_argument("--max-minutes", type=float, default=None, help="the whole command's wall time (Ray's start, evaluations and the last save included): stop early enough to end within it")
    ap.add_argument("--num-env-runners", type=int, default=0, help="sampling actors (default 0: sample in the driver)")
    ap.add_argument("--envs-per-runner", type=int, default=1, help="games per env runner (default 1)")
    ap.add_argument("--address", default=None, help="Ray address: none (local instance), 'auto' or ray://host:port")
    ap.add_argument("--num-cpus", type=int, default=None, help="CPUs of a new local Ray instance (default: all)")
    ap.add_argument("--train-batch", type=int, default=4000, help="env steps per iteration (default 4000)")
    ap.add_argument("--minibatch-size", type=int, default=500, help="PPO minibatch (default 500)")
    ap.add_argument("--epochs", type=int, default=4, help="PPO epochs per iteration (default 4)")
    ap.add_argument("--lr", type=float, default=3e-4, help="learning rate (default 3e-4)")
    ap.add_argument("--gamma", type=float, default=1.0, help="discount (default 1.0: episodes are short)")
    ap.add_argument("--hidden", type=int, nargs="+", default=[256, 256], help="MLP layer sizes (default 256 256)")
    ap.add_argument("--eval-every", type=int, default=5, help="iterations between evaluations, 0: only at the end (default 5)")
    ap.add_argument("--eval-games", type=int, default=200, help="games per evaluation (default 200)")
    ap.add_argument("--eval-opponent", default="random", help="agent in the other seats at evaluation (default random)")
    ap.add_argument("--checkpoint-every", type=int, default=10, help="iterations between checkpoints (default 10)")
    ap.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    ap.add_argument("--out", default="runs", help="folder holding run folders (default runs)")
    ap.add_argument("--no-plots", action="store_true", help="skip curves.png")
    ap.add_argument("--quiet", action="store_true", help="print nothing")
    return ap


def _check(args: argparse.Namespace) -> dict[str, Any]:
    from fiveplay_env.agents import games as games_mod

    for name in ("num_env_runners",):
        if getattr(args, name) < 0:
            raise ValueError(f"{name.replace('_', '-')}: expected an integer >= 0, got {getattr(args, name)}")
    for name in ("envs_per_runner", "train_batch", "minibatch_size", "epochs", "eval_games", "checkpoint_every"):
        if getattr(args, name) < 1:
            raise ValueError(f"{name.replace('_', '-')}: expected an integer >= 1, got {getattr(args, name)}")
    if args.iterations is not None and args.iterations < 1:
        raise ValueError(f"iterations: expected an integer >= 1, got {args.iterations}")
    if args.max_minutes is not None and not args.max_minutes > 0:
        raise ValueError(f"max-minutes: expected a number > 0, got {args.max_minutes}")
    if args.eval_every < 0:
        raise ValueError(f"eval-every: expected an integer >= 0, got {args.eval_every}")
    if args.minibatch_size > args.train_batch:
        raise ValueError(f"minibatch-size: expected at most --train-batch ({args.train_batch}), got {args.minibatch_size}")
    game = games_mod.get_game(args.game)
    cfg = games_mod.parse_config(args.config)
    game.make_config(cfg)  # validates every field
    return cfg


def evaluate(module: Any, game: str, env_config: dict[str, Any], opponent: str, games: int, seed: int) -> dict[str, Any]:
    """The greedy policy of ``module`` in one seat (rotated over the games), ``opponent`` in the others:
    its mean return over ``games`` games with a 95% interval (the env's reward, as in training)."""
    import numpy as np

    from fiveplay_env.agents.rllib_agent import RLlibAgent
    from fiveplay_env.core import seeding
    from fiveplay_env.integrations.rllib import FiveplayMultiAgentEnv

    agent = RLlibAgent(module, seed=0, greedy=True)
    envs = [FiveplayMultiAgentEnv({"game": game, "opponents": opponent, "seat": 0, **env_config})]
    n = len(envs[0].possible_agents)
    envs += [FiveplayMultiAgentEnv({"game": game, "opponents": opponent, "seat": s, **env_config}) for s in range(1, n)]
    returns = []
    for g in range(games):
        env = envs[g % n]
        obs, _ = env.reset(seed=seeding.derive(seed, g // n))  # the same deal from every seat
        total = 0.0
        while True:
            acting = [a for a, o in obs.items() if o["action_mask"].any()]
            if not acting:
                break
            o = obs[acting[0]]
            action = agent.act(o["observations"], o["action_mask"].astype(np.int8))
            obs, rew, term, trunc, _ = env.step({acting[0]: action})
            total += sum(rew.values())
            if term["__all__"] or trunc["__all__"]:
                break
        returns.append(total)
    m = float(np.mean(returns))
    half = 1.959964 * float(np.std(returns, ddof=1)) / math.sqrt(len(returns)) if len(returns) > 1 else float("nan")
    return {"mean": m, "ci95": [m - half, m + half], "half_width": half, "games": len(returns)}


def plot_curves(rows: list[dict[str, Any]], path: str, title: str) -> str | None:
    """curves.png: training and evaluation mean return against env steps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    x = [r["env_steps"] for r in rows]
    tr = [r["train_return_mean"] if r["train_return_mean"] != "" else float("nan") for r in rows]
    ax.plot(x, tr, label="training episodes (mean return)", alpha=0.7)
    ev = [r for r in rows if r["eval_return_mean"] != ""]
    if ev:
        ax.errorbar([r["env_steps"] for r in ev], [r["eval_return_mean"] for r in ev],
                    yerr=[r["eval_return_ci95"] for r in ev], fmt="o-", capsize=3, label="evaluation, greedy (95% CI)")
    ax.set_xlabel("env steps sampled")
    ax.set_ylabel("mean return of the learner")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    try:
        return runs.save_figure(fig, path, dpi=110, bbox_inches="tight")
    finally:
        plt.close(fig)


def _save(algo: Any, run_dir: str) -> str:
    """``algo.save`` into ``checkpoint/``, replacing the previous one only once the new one is complete."""
    final = os.path.join(run_dir, "checkpoint")
    tmp, old = final + ".tmp", final + ".old"
    shutil.rmtree(tmp, ignore_errors=True)
    algo.save(os.path.abspath(tmp))
    if os.path.exists(final):
        os.replace(final, old)
    os.replace(tmp, final)
    shutil.rmtree(old, ignore_errors=True)
    return final


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Train (see the module docstring); returns the summary (also ``summary.json``) with ``run_dir``."""
    started = time.time()  # --max-minutes counts the whole command: Ray's start, evaluations, the last save
    args = build_parser().parse_args(list(argv) if argv is not None else None)
    env_config = _check(args)
    say = (lambda *a: None) if args.quiet else (lambda *a: print(*a, flush=True))
    iterations = args.iterations if args.iterations is not None else (None if args.max_minutes else 10)

    from fiveplay_env.integrations.rllib import ppo_config

    opponents: Any = None
    if args.opponents:
        opponents = args.opponents[0] if len(args.opponents) == 1 else list(args.opponents)
    config = ppo_config(args.game, env_config=env_config, opponents=opponents, num_env_runners=args.num_env_runners,
                        hidden=args.hidden, seed=args.seed)
    config = (config.env_runners(num_envs_per_env_runner=args.envs_per_runner)
              .training(train_batch_size_per_learner=args.train_batch, minibatch_size=args.minibatch_size,
                        num_epochs=args.epochs, lr=args.lr, gamma=args.gamma))
    run_dir = runs.new_run_dir(args.out, "rllib_train", args.game, args.seed)
    with runs.RunLock(run_dir):
        return _train(args, argv, run_dir, config, env_config, opponents, iterations, say, started)


def _train(args: argparse.Namespace, argv: Sequence[str] | None, run_dir: str, config: Any,
           env_config: dict[str, Any], opponents: Any, iterations: int | None, say: Any,
           started: float | None = None) -> dict[str, Any]:
    """``main`` once the run folder exists (and is locked); ``started``: when the command began."""
    import ray

    from fiveplay_env.integrations.rllib import MODULE_ID

    spec = {k2: v for k2, v in vars(args).items()}
    spec.update(env_config=env_config, argv=list(argv) if argv is not None else sys.argv[1:], ray=ray.__version__,
                provenance=runs.provenance("fiveplay_env.experiments.rllib_train", argv))
    runs.write_config(run_dir, spec)
    owns = False
    if not ray.is_initialized():
        kw: dict[str, Any] = {"include_dashboard": False}
        if args.address:
            kw["address"] = args.address
        elif args.num_cpus:
            kw["num_cpus"] = args.num_cpus
        ray.init(**kw)
        owns = True
    algo = config.build_algo()
    say(f"rllib_train: PPO on {args.game} {env_config} "
        f"({'self-play' if opponents is None else f'vs {opponents}'}), {args.num_env_runners} env runners -> {run_dir}")
    csv_path = os.path.join(run_dir, "curves.csv")
    rows: list[dict[str, Any]] = []
    t0 = time.time()
    budget = runs.WallBudget(args.max_minutes, start=started)
    it = 0
    interrupted = False
    last_eval: dict[str, Any] | None = None
    save_s = 0.0  # the last checkpoint's cost, kept back from --max-minutes with the final evaluation
    with open(csv_path, "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        f.flush()
        try:
            while True:
                if iterations is not None and it >= iterations:
                    break
                if not budget.allows():
                    break
                t_iter = time.time()
                res = algo.train()
                budget.step_took(time.time() - t_iter)
                it += 1
                er = res.get("env_runners", {})
                steps = int(res.get("num_env_steps_sampled_lifetime", er.get("num_env_steps_sampled_lifetime", 0)))
                sampled = float(er.get("num_env_steps_sampled", 0))
                sample_s = float(res.get("timers", {}).get("env_runner_sampling_timer", float("nan")))
                ret = er.get("episode_return_mean")
                row: dict[str, Any] = {
                    "iteration": it, "time_s": round(time.time() - t0, 2), "env_steps": steps,
                    "sample_s": round(sample_s, 4),
                    "env_steps_per_s": round(sampled / sample_s, 1) if sample_s and sample_s == sample_s else "",
                    "episodes": int(er.get("num_episodes", 0)),
                    "train_return_mean": "" if ret is None or ret != ret else round(float(ret), 4),
                    "eval_return_mean": "", "eval_return_ci95": "", "eval_games": ""}
                final = (iterations is not None and it >= iterations) or not budget.allows()
                if (args.eval_every and it % args.eval_every == 0) or final:
                    t_eval = time.time()
                    last_eval = evaluate(algo.get_module(MODULE_ID), args.game, env_config, args.eval_opponent,
                                         args.eval_games, args.seed)
                    budget.tail_took(time.time() - t_eval + save_s)
                    row.update(eval_return_mean=round(last_eval["mean"], 4),
                               eval_return_ci95=round(last_eval["half_width"], 4), eval_games=last_eval["games"])
                w.writerow(row)
                f.flush()
                rows.append(row)
                say(f"iter {it}: {steps} steps, {row['env_steps_per_s']} steps/s sampling, train return "
                    f"{row['train_return_mean']}" + (f", eval vs {args.eval_opponent} {row['eval_return_mean']} "
                                                     f"+- {row['eval_return_ci95']}" if row["eval_games"] != "" else ""))
                if it % args.checkpoint_every == 0:
                    t_save = time.time()
                    _save(algo, run_dir)
                    save_s = time.time() - t_save
        except KeyboardInterrupt:
            interrupted = True
    ckpt = _save(algo, run_dir)
    algo.stop()
    if owns:
        ray.shutdown()
    plot = None if args.no_plots else plot_curves(rows, os.path.join(run_dir, "curves.png"),
                                                  f"RLlib PPO on {args.game} {env_config}")
    summary = {"run_dir": run_dir, "iterations": it, "seconds": round(time.time() - t0, 1),
               "env_steps": rows[-1]["env_steps"] if rows else 0, "last_eval": last_eval, "checkpoint": ckpt,
               "agent_name": f"rllib:{run_dir}", "plot": plot, "interrupted": interrupted}
    runs.atomic_write(os.path.join(run_dir, "summary.json"), json.dumps(summary, indent=2) + "\n")
    say(f"results: {run_dir} (agent: rllib:{run_dir})")
    if interrupted:
        raise KeyboardInterrupt
    return summary


def _cli() -> int:
    return runs.run_cli(main, "rllib_train", "the last checkpoint is kept")


if __name__ == "__main__":
    sys.exit(_cli())
