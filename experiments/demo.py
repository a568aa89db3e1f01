"""The main job of ``make demo``: a short training run, then a tournament on each game.

1. PPO self-play trains a Take 5 policy for about two minutes (``experiments/train.py``).
2. Take 5 (4 players, single rounds): the trained policy, two heuristics, the search agent at a small
   budget and a random agent, seats rotated (``fiveplay_env.experiments.tournament``).
3. 5 Alive (4 players): two heuristics, the search agent and a random agent.
At the end both leaderboards are printed sorted by win rate (``leaderboard``: the sort key is in the
header, the openskill rating beside it with what it measures); every run folder under ``runs/`` holds
the config, one CSV row per game and seat, a summary JSON and PNG plots (ratings, head-to-head win
rates, learning curves).

    fiveplay demo                 # about 5 minutes on a 2-core machine (make demo)
    fiveplay demo --quick         # about 1 minute: smaller everything

In code: ``run(DemoSpec(quick=True))`` (``main(argv)`` parses the command line into a ``DemoSpec``).
"""
from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


RATING_MEANING = ("rating: openskill mu +- sigma (Plackett-Luce over every game's full placing, so finishing "
                  "second counts too; it can order two entrants unlike the win rate)")


def leaderboard(summary: dict[str, Any]) -> str:
    """A tournament's summary as a table sorted by win rate (ties: rating), every metric beside it, the
    sort key, each metric's direction and the rating's meaning in the header."""
    metrics = [m["name"] for m in summary.get("metrics", [])]

    def ci(c: dict[str, Any], pct: bool = False) -> str:
        if c.get("mean") is None:
            return "-"
        k, unit, hw = (100.0, "%", c.get("half_width")) if pct else (1.0, "", c.get("half_width"))
        return f"{k * c['mean']:.1f}{unit}" + (f" +- {k * hw:.1f}" if hw is not None else "")

    def key(e: dict[str, Any]) -> tuple[float, float]:
        return (-(e["win_rate"]["mean"] or 0.0), -e["rating"]["mu"])

    head = ["#", "entrant", "win rate (95% CI)", *[f"{m} (95% CI)" for m in metrics], "rating", "games"]
    rows = []
    for rank, e in enumerate(sorted(summary["entrants"], key=key), 1):
        rows.append([str(rank), e["entrant"], ci(e["win_rate"], pct=True), *[ci(e["metrics"][m]) for m in metrics],
                     f"{e['rating']['mu']:.1f} +- {e['rating']['sigma']:.1f}", str(e["games"])])
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    line = lambda r: "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))  # noqa: E731
    better = "".join(f"; {m['name']}: {'lower' if m['lower_is_better'] else 'higher'} is better"
                     for m in summary.get("metrics", []))
    title = (f"{summary['game']}, {summary['players']} players, {summary['games_completed']} games: sorted by win "
             f"rate{better}")
    return "\n".join([title, f"  ({RATING_MEANING})", line(head), line(["-" * w for w in widths]), *map(line, rows)])


def _banner(text: str) -> None:
    print("\n" + "=" * 78 + f"\n{text}\n" + "=" * 78, flush=True)


@dataclass(frozen=True)
class DemoSpec:
    """The demo's settings; validated on construction (``ValueError`` naming the field).

    Attributes:
        seed: the seed of every part; out: the folder for the run folders.
        quick: a one-minute version (smaller training and tournaments).
        train_minutes: the training time limit (None: 2, quick 0.3); workers: processes per tournament.
    """

    seed: int = 0
    out: str = "runs"
    quick: bool = False
    train_minutes: float | None = None
    workers: int = 2

    def __post_init__(self) -> None:
        if isinstance(self.workers, bool) or not isinstance(self.workers, int) or self.workers < 1:
            raise ValueError(f"--workers must be >= 1 (expected an integer >= 1, got {self.workers!r})")
        if self.train_minutes is not None and not self.train_minutes > 0:
            raise ValueError(f"--train-minutes must be > 0 (expected a number > 0, got {self.train_minutes!r})")

    @property
    def minutes(self) -> float:
        return self.train_minutes if self.train_minutes is not None else (0.3 if self.quick else 2.0)


def run(spec: DemoSpec) -> dict[str, Any]:
    """Train, then play both tournaments; ``{"train": ..., "take5": ..., "five_alive": ...}``, the
    training result (``fiveplay_env.experiments.train.run``) and the two tournament summaries."""
    from fiveplay_env.agents.learned.algorithms.ppo import PPOConfig
    from fiveplay_env.experiments import tournament, train

    minutes = spec.minutes
    take5_games = 40 if spec.quick else 200        # multiples of 4 seats x 5 entrant subsets
    five_alive_games = 16 if spec.quick else 200  # multiples of 4 seats (4 entrants)
    decisions = 150_000 if spec.quick else 1_500_000  # about the time limit's worth on 2 cores
    sims = 20 if spec.quick else 60
    out = str(spec.out)
    t0 = time.time()

    _banner(f"1/3  Training a Take 5 policy by PPO self-play (about {minutes:g} min)")
    trained = train.run(train.TrainSpec(
        PPOConfig(game="take5", config={"num_players": 4, "mode": "round"}, total_decisions=decisions,
                  seed=spec.seed),
        train.RunOptions(max_minutes=minutes, eval_interval=10, eval_games=96, out=out)))
    policy = trained["agent"]
    options = tournament.RunOptions(out=out, workers=spec.workers)

    _banner("2/3  Take 5 tournament: trained policy vs heuristics, search and random")
    t5 = tournament.run(tournament.TournamentSpec(
        agents=(policy, "take5-safest", "take5-dumphigh", f"ismcts:sims={sims}", "random"), game="take5",
        config={"mode": "round"}, players=4, games=take5_games, seed=spec.seed), options)

    _banner("3/3  5 Alive tournament: heuristics vs search and random")
    fa = tournament.run(tournament.TournamentSpec(
        agents=("five-alive-attacker", "five-alive-saver", f"ismcts:sims={sims}", "random"), game="five_alive",
        players=4, games=five_alive_games, seed=spec.seed), options)

    _banner(f"Done in {time.time() - t0:.0f} s. Leaderboards, sorted by win rate:")
    print(leaderboard(t5) + "\n\n" + leaderboard(fa) + "\n")
    print(f"  training run (checkpoint, learning curves curves.png): {trained['run_dir']}")
    print(f"  Take 5 tournament (games.csv, summary.json, *.png):     {t5['run_dir']}")
    print(f"  5 Alive tournament (games.csv, summary.json, *.png):    {fa['run_dir']}")
    return {"train": trained, "take5": t5, "five_alive": fa}


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Parse the command line into a ``DemoSpec`` and ``run`` it (a bad value: a usage error, exit 2)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=0, help="seed of every part (default 0)")
    ap.add_argument("--out", type=Path, default=Path("runs"), help="folder for the run folders (default runs)")
    ap.add_argument("--quick", action="store_true", help="a one-minute version (smaller training and tournaments)")
    ap.add_argument("--train-minutes", type=float, default=None, help="training time limit (default 2, quick 0.3)")
    ap.add_argument("--workers", type=int, default=2, help="processes per tournament (default 2)")
    args = ap.parse_args(list(argv) if argv is not None else None)
    try:
        spec = DemoSpec(seed=args.seed, out=str(args.out), quick=args.quick, train_minutes=args.train_minutes,
                        workers=args.workers)
    except ValueError as exc:
        ap.error(str(exc))
    return run(spec)


if __name__ == "__main__":
    main(sys.argv[1:])
