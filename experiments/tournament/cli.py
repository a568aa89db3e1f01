"""Tournaments between agents, with seats rotated, confidence intervals, win rates and openskill ratings.

Usage::

    python -m fiveplay_env.experiments.tournament --game take5 --agents take5-safest random random random \\
        --config mode=game --games 1000 --seed 0 --workers 1
    python -m fiveplay_env.experiments.tournament --resume runs/tournament__take5__0__20250101-120000

Entrants are the ``--agents`` names, in order (registry names: ``random``, ``take5-safest``,
``ismcts:sims=200``, ...; a name given twice is two entrants, labelled ``name`` and ``name#2``).

Schedule: game g belongs to block ``g // n`` (n = players). Each block is one deal (seed
``derive(seed, block)``) played n times, once per rotation of the seating, so every entrant meets the
same cards from every seat (duplicate format: it removes most of the luck of the deal from
comparisons). With as many entrants as seats every block seats all of them; with more entrants the
blocks cycle through every n-subset of the entrants in order. Seats are exactly balanced when the
number of games is a multiple of ``n * subsets`` (reported as ``seat_balanced``). Agent seeds are
derived from the seed, the game and the seat, so every game is reproducible on its own and the
results do not depend on the number of workers (a ``time=`` search budget excepted). With
``--workers N > 1`` each worker process runs torch and OpenMP on one thread (``worker.one_thread``), so N
workers use N cores without oversubscribing them.

Figures per entrant: the mean of each game metric (Take 5: final score in bull heads and placing;
5 Alive: placing and lives left) with a 95% confidence interval (normal approximation,
mean +- 1.96 s / sqrt(N)), the win rate (a shared win counts 1/k to each of the k winners) with its
95% interval, an openskill rating (Plackett-Luce; games applied in game order, ranked by placing) as
mu +- sigma (the plot shows mu +- 1.96 sigma), the mean (and the longest) thinking time per decision,
and the number of games the figures rest on.

Output: ``<out>/tournament__<game>__<seed>__<time>/`` with ``config.json`` (what was asked),
``games.csv`` (one row per game per seat, written and flushed as each game finishes), ``summary.json``,
``records/game_NNNNNN.jsonl`` (``--record``: each game's replayable record, ``fiveplay_env.records``),
``ratings.png`` (ratings with intervals), ``head_to_head.png`` (how often the row entrant finished
ahead of the column entrant, ties half) and ``scores.png`` (mean of the first metric with intervals).
Interrupting (Ctrl-C) keeps every finished game; ``--resume RUN_DIR`` continues the same tournament,
dropping any half-written game and playing exactly the games still missing.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from fiveplay_env.agents import games as games_mod
from fiveplay_env.experiments import runs
from fiveplay_env.experiments.tournament import runner
from fiveplay_env.experiments.tournament.spec import RunOptions, TournamentSpec
from fiveplay_env.games import default_game


def build_parser() -> argparse.ArgumentParser:
    doc = __doc__ or ""
    ap = argparse.ArgumentParser(
        prog="python -m fiveplay_env.experiments.tournament",
        description=doc.split("\n\n")[0],
        epilog=doc.split("Usage::")[1] if "Usage::" in doc else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--game", choices=sorted(games_mod.GAMES), help="the game (default take5)")
    ap.add_argument("--agents", nargs="+", metavar="NAME", help="entrants by registry name, e.g. take5-safest random random random")
    ap.add_argument("--config", nargs="*", default=None, metavar="FIELD=VALUE", help="game config fields, e.g. mode=round row_pick=player")
    ap.add_argument("--players", type=int, help="players per game (default: the number of agents, capped at the game's maximum)")
    ap.add_argument("--games", type=int, help="games to play in all (default 100)")
    ap.add_argument("--seed", type=int, help="tournament seed (default 0)")
    ap.add_argument("--workers", type=int, default=1, help="processes playing games (default 1); with --ray, N > 1 "
                    "caps the Ray tasks running at once (and sizes a new local Ray instance)")
    ap.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                    help="play the games as Ray tasks (fiveplay_env.experiments.tournament.ray_tasks): no ADDRESS starts or joins a local "
                         "Ray instance; 'auto' or ray://host:port an existing cluster")
    ap.add_argument("--out", default="runs", help="folder holding run folders (default runs)")
    ap.add_argument("--resume", metavar="RUN_DIR", help="continue the tournament in RUN_DIR (its config.json rules)")
    ap.add_argument("--max-games", type=int, help="stop after this many newly played games (resume later)")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    ap.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    ap.add_argument("--record", action="store_true", default=None,
                    help="also write each game's replayable record to RUN_DIR/records/game_NNNNNN.jsonl (kept in "
                         "config.json: a resumed run records as it started)")
    ap.add_argument("--quiet", action="store_true", help="print nothing (implies --no-progress)")
    ap.add_argument("--allow-legacy", action="store_true",
                    help="with --resume: accept a format 1 run folder (written before the spec hash and row "
                         "checksums: its settings and rows cannot be verified)")
    return ap


def spec_from_args(args: argparse.Namespace) -> TournamentSpec:
    """The ``TournamentSpec`` of a new tournament's command line (``ValueError`` naming a bad value)."""
    if not args.agents:
        raise ValueError("agents: expected at least one agent name (--agents NAME ...)")
    return TournamentSpec(agents=tuple(args.agents), game=args.game or default_game(),
                          config=games_mod.parse_config(args.config or []), players=args.players,
                          games=100 if args.games is None else args.games, seed=0 if args.seed is None else args.seed,
                          record=bool(args.record))


def options_from_args(args: argparse.Namespace, argv: Sequence[str]) -> RunOptions:
    """The ``RunOptions`` of a command line (``argv``: recorded in a new run's ``config.json``)."""
    return RunOptions(out=args.out, workers=args.workers, ray=args.ray, max_games=args.max_games,
                      progress=not args.no_progress, plots=not args.no_plots, quiet=args.quiet, argv=tuple(argv),
                      allow_legacy=bool(args.allow_legacy))


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run (or resume) a tournament; returns the summary (see ``summarize``) plus ``run_dir``."""
    argv = list(argv) if argv is not None else sys.argv[1:]
    args = build_parser().parse_args(argv)
    options = options_from_args(args, argv)
    if args.resume:
        if args.config:
            raise ValueError("resume: --config cannot change a run's rules; leave it out")
        expect = {"game": args.game, "agents": args.agents, "players": args.players, "games": args.games,
                  "seed": args.seed, "record": args.record}
        return runner.resume(args.resume, options, expect)
    return runner.run(spec_from_args(args), options)


def cli() -> int:
    """``python -m fiveplay_env.experiments.tournament``: ``main`` with one-line errors and exit codes (``runs.run_cli``)."""
    return runs.run_cli(main, "tournament", "every finished game is kept (see --resume)")
