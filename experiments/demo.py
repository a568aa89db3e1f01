"""The main job of ``make demo``: a short training run, then a tournament on each game.

1. PPO self-play trains a Take 5 policy for about two minutes (``experiments/train.py``).
2. Take 5 (4 players, single rounds): the trained policy, two heuristics, the search agent at a small
   budget and a random agent, seats rotated (``experiments/tournament.py``).
3. 5 Alive (4 players): two heuristics, the search agent and a random agent.
Leaderboards are printed as tables; every run folder under ``runs/`` holds the config, one CSV row
per game and seat, a summary JSON and PNG plots (ratings, head-to-head win rates, learning curves).

    python -m experiments.demo                 # about 5 minutes on a 2-core machine
    python -m experiments.demo --quick         # about 1 minute: smaller everything
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def _banner(text: str) -> None:
    print("\n" + "=" * 78 + f"\n{text}\n" + "=" * 78, flush=True)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=0, help="seed of every part (default 0)")
    ap.add_argument("--out", type=Path, default=Path("runs"), help="folder for the run folders (default runs)")
    ap.add_argument("--quick", action="store_true", help="a one-minute version (smaller training and tournaments)")
    ap.add_argument("--train-minutes", type=float, default=None, help="training time limit (default 2, quick 0.3)")
    ap.add_argument("--workers", type=int, default=2, help="processes per tournament (default 2)")
    args = ap.parse_args(argv)
    if args.workers < 1:
        ap.error("--workers must be >= 1")
    minutes = args.train_minutes if args.train_minutes is not None else (0.3 if args.quick else 2.0)
    if minutes <= 0:
        ap.error("--train-minutes must be > 0")
    take5_games = 40 if args.quick else 200        # multiples of 4 seats x 5 entrant subsets
    five_alive_games = 16 if args.quick else 200  # multiples of 4 seats (4 entrants)
    decisions = 150_000 if args.quick else 1_500_000  # about the time limit's worth on 2 cores
    sims = 20 if args.quick else 60
    out = str(args.out)
    t0 = time.time()

    from experiments import train, tournament

    _banner(f"1/3  Training a Take 5 policy by PPO self-play (about {minutes:g} min)")
    trained = train.main([
        "--game", "take5", "--config", "num_players=4", "mode=round",
        "--total-decisions", str(decisions), "--max-minutes", str(minutes),
        "--eval-interval", "10", "--eval-games", "96",
        "--seed", str(args.seed), "--out", out,
    ])
    policy = trained["agent"]

    _banner("2/3  Take 5 tournament: trained policy vs heuristics, search and random")
    t5 = tournament.main([
        "--game", "take5", "--config", "mode=round", "--players", "4",
        "--agents", policy, "take5-safest", "take5-dumphigh", f"ismcts:sims={sims}", "random",
        "--games", str(take5_games), "--seed", str(args.seed), "--workers", str(args.workers), "--out", out,
    ])

    _banner("3/3  5 Alive tournament: heuristics vs search and random")
    fa = tournament.main([
        "--game", "five_alive", "--players", "4",
        "--agents", "five-alive-attacker", "five-alive-saver", f"ismcts:sims={sims}", "random",
        "--games", str(five_alive_games), "--seed", str(args.seed), "--workers", str(args.workers), "--out", out,
    ])

    _banner(f"Done in {time.time() - t0:.0f} s. Results:")
    print(f"  training run (checkpoint, learning curves curves.png): {trained['run_dir']}")
    print(f"  Take 5 tournament (games.csv, summary.json, *.png):     {t5['run_dir']}")
    print(f"  5 Alive tournament (games.csv, summary.json, *.png):    {fa['run_dir']}")
    return {"train": trained, "take5": t5, "five_alive": fa}


if __name__ == "__main__":
    main(sys.argv[1:])
