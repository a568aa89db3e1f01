"""GPU check: training throughput on a device for both games, and a short Take 5 learning curve.

    python -m experiments.gpu_check                       # cuda: throughput of both games, 10-minute curve
    python -m experiments.gpu_check --device cpu --seconds 2 --curve-minutes 0.2 --num-envs 64   # a dry run

A prepared, self-contained script for a machine with a GPU (device time is short: it runs once, prints
as it goes and writes everything to ``--out/gpu_check.json``):

1. throughput: for Take 5 (4 players, one round) and 5 Alive (4 players), a ``Trainer`` on ``--device``
   with ``--num-envs`` games side by side and ``--minibatch-size`` samples per gradient step (sizes that
   suit a GPU by default), trained for ``--seconds`` after one warm-up update; decisions per second and
   the share of time per part (engine, network, opponents, update, other), as ``experiments.train``
   reports them; with ``--compact-obs`` for Take 5 too (the observation decoded on the device);
2. a Take 5 learning curve of ``--curve-minutes`` minutes (``experiments.train`` with ``--device``,
   default settings otherwise, evaluation every ``--eval-interval`` updates against random and
   take5-safest): its ``curves.csv`` rows (decisions, training seconds, mean score, win rate).

Engines and heuristic opponents run on the CPU; the networks and the update run on the device.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from typing import Any


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m experiments.gpu_check", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="cuda", choices=["auto", "cpu", "cuda"], help="device (default cuda)")
    ap.add_argument("--seconds", type=float, default=60.0, help="throughput measurement per case (default 60)")
    ap.add_argument("--num-envs", type=int, default=2048, help="games side by side (default 2048)")
    ap.add_argument("--minibatch-size", type=int, default=8192, help="samples per gradient step (default 8192)")
    ap.add_argument("--curve-minutes", type=float, default=10.0, help="Take 5 learning curve length, 0: none (default 10)")
    ap.add_argument("--eval-interval", type=int, default=10, help="updates between evaluations of the curve (default 10)")
    ap.add_argument("--eval-games", type=int, default=400, help="games per evaluation (default 400)")
    ap.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: all cores)")
    ap.add_argument("--out", default="runs/gpu_check", help="output folder (default runs/gpu_check)")
    return ap


CASES: list[tuple[str, str, dict[str, Any], bool]] = [
    ("take5", "take5 4p round", {"num_players": 4, "mode": "round"}, False),
    ("take5", "take5 4p round, compact obs", {"num_players": 4, "mode": "round"}, True),
    ("five_alive", "five_alive 4p", {"num_players": 4}, False),
]


def throughput(game: str, config: dict[str, Any], compact: bool, device: str, num_envs: int, minibatch: int,
               seconds: float) -> dict[str, Any]:
    """Decisions per second of PPO training (default opponents and settings but the sizes) on ``device``."""
    import torch

    from agents.learned.ppo import Trainer, TrainConfig
    from experiments.train import best_heuristic

    cfg = TrainConfig(game=game, config=dict(config), opponents=[(best_heuristic(game), 2.0), ("self", 1.0), ("pool", 1.0)],
                      total_decisions=10 ** 12, num_envs=num_envs, minibatch_size=minibatch, compact_obs=compact)
    tr = Trainer(cfg, device=device)
    tr.train_update()  # warm-up (allocations, kernels)
    if tr.device.type == "cuda":
        torch.cuda.synchronize()
    d0, timers0 = tr.decisions, dict(tr.timers.as_dict())
    t0 = time.perf_counter()
    updates = 0
    while time.perf_counter() - t0 < seconds or updates == 0:
        tr.train_update()
        updates += 1
    if tr.device.type == "cuda":
        torch.cuda.synchronize()
    wall = time.perf_counter() - t0
    parts = {k: tr.timers.as_dict()[k] - timers0[k] for k in ("engine", "network", "opponents", "update", "other")}
    total = sum(parts.values())
    out = {"decisions": tr.decisions - d0, "updates": updates, "seconds": wall,
           "decisions_per_s": (tr.decisions - d0) / wall, "share": {k: v / total for k, v in parts.items()},
           "device": str(tr.device), "num_envs": num_envs, "minibatch_size": minibatch}
    if tr.device.type == "cuda":
        out["gpu"] = torch.cuda.get_device_name(tr.device)
        out["max_memory_gb"] = torch.cuda.max_memory_allocated(tr.device) / 2 ** 30
    return out


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    args = build_parser().parse_args(list(argv) if argv is not None else None)
    import torch

    from agents.learned.ppo import resolve_device

    dev = resolve_device(args.device)  # a clear error without a GPU, before anything runs
    if args.threads:
        torch.set_num_threads(args.threads)
    os.makedirs(args.out, exist_ok=True)
    dest = os.path.join(args.out, "gpu_check.json")
    res: dict[str, Any] = {"device": str(dev), "torch": torch.__version__, "cuda": torch.version.cuda,
                           "threads": torch.get_num_threads(), "throughput": {}, "curve": None}

    def save() -> None:
        with open(dest + ".tmp", "w", encoding="utf-8") as f:
            json.dump(res, f, indent=2, default=float)
        os.replace(dest + ".tmp", dest)

    for game, label, config, compact in CASES:
        r = throughput(game, config, compact, str(dev), args.num_envs, args.minibatch_size, args.seconds)
        res["throughput"][label] = r
        sh = r["share"]
        print(f"{label:<30} {r['decisions_per_s']:>12,.0f} decisions/s on {r['device']} (engine {sh['engine']:.0%}, "
              f"network {sh['network']:.0%}, opponents {sh['opponents']:.0%}, update {sh['update']:.0%}, "
              f"other {sh['other']:.0%})", flush=True)
        save()
    if args.curve_minutes > 0:
        from experiments.train import main as train_main

        t = train_main(["--game", "take5", "--config", "num_players=4", "mode=round", "--device", str(dev.type),
                        "--num-envs", str(args.num_envs), "--minibatch-size", str(args.minibatch_size),
                        "--total-decisions", str(10 ** 10), "--max-minutes", str(args.curve_minutes),
                        "--eval-interval", str(args.eval_interval), "--eval-games", str(args.eval_games),
                        "--threads", str(torch.get_num_threads()), "--out", args.out, "--no-progress"])
        import csv

        with open(t["curves_csv"], encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        res["curve"] = {"run_dir": t["run_dir"], "throughput": t["throughput"],
                        "rows": [{k: r[k] for k in ("update", "decisions", "train_seconds", "baseline", "score_mean",
                                                    "win_mean", "diff_mean")} for r in rows]}
        save()
    print(f"gpu_check: {dest}")
    return res


if __name__ == "__main__":
    try:
        main()
    except ValueError as exc:
        print(f"gpu_check: error: {exc}", file=sys.stderr)
        sys.exit(2)
