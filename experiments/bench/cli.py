"""``fiveplay bench``'s command line (see ``fiveplay_env.experiments.bench`` for what it measures)."""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from fiveplay_env.experiments.bench.jax_rows import _jax_rows, _option_rows, _paired_rows
from fiveplay_env.experiments.bench.runners import (aec_runner, batched_rate, bytes_per_game, compact_rate, default_players,
                                       engine_runner, median_rate, parallel_runner)
from fiveplay_env import games as game_table


def _pin(ap: argparse.ArgumentParser, cpus: list[int]) -> None:
    """Pin this process to ``cpus`` (before JAX is imported, so that XLA's thread pool fits them)."""
    if not hasattr(os, "sched_setaffinity"):
        ap.error("--cpus: this platform cannot pin a process (Linux only); leave --cpus out")
    allowed = sorted(os.sched_getaffinity(0))
    if not cpus or any(c not in allowed for c in cpus):
        ap.error(f"--cpus: expected CPUs among {allowed}, got {cpus}")
    if "jax" in sys.modules:
        ap.error("--cpus: jax is already imported in this process; pin it from the command line (taskset)")
    os.sched_setaffinity(0, set(cpus))


def available_games() -> list[str]:
    """Every registered game (``fiveplay_env.games``)."""
    return game_table.names()


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=sys.modules[__package__].__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", nargs="*", default=None, help="games to measure (default: every registered game)")
    ap.add_argument("--players", nargs="*", type=int, default=None,
                    help="player counts (default: each game's fewest, 4 and most)")
    ap.add_argument("--seconds", type=float, default=1.0, help="length of one timed run")
    ap.add_argument("--repeats", type=int, default=3, help="runs per figure; the median is reported")
    ap.add_argument("--batch", nargs="*", type=int, default=[1, 64, 1024, 4096, 8192],
                    help="batch sizes for the batched engines")
    ap.add_argument("--no-batched", action="store_true", help="skip the batched engines")
    ap.add_argument("--jax-batch", nargs="*", type=int, default=[1, 256, 4096, 65536],
                    help="batch sizes of the JAX rows (default 1 256 4096 65536)")
    ap.add_argument("--jax-players", nargs="*", type=int, default=None, help="player counts of the JAX rows (default 4)")
    ap.add_argument("--no-jax", action="store_true", help="skip the JAX and Pgx rows")
    ap.add_argument("--jax-only", action="store_true", help="only the JAX and Pgx rows")
    ap.add_argument("--options", action="store_true",
                    help="also the cost of each rule option (numpy batched and JAX, one batch size, 4 players)")
    ap.add_argument("--paired", type=int, default=0, metavar="ROUNDS",
                    help="the JAX section as paired rounds: every contestant compiled first, then ROUNDS rounds of "
                         "one --seconds pass each in rotating order, ratios taken within a round (the repeatable "
                         "figure; replaces --repeats there)")
    ap.add_argument("--cpus", nargs="*", type=int, default=None, metavar="CPU",
                    help="pin the benchmark to these CPUs (Linux sched_setaffinity) before anything is imported; "
                         "XLA sizes its thread pool to them")
    ap.add_argument("--out", type=Path, default=None, help="also write the results as JSON here")
    args = ap.parse_args(argv)
    if args.repeats < 1 or args.seconds <= 0 or args.paired < 0:
        ap.error("--repeats must be >= 1, --seconds > 0 and --paired >= 0")
    if args.cpus is not None:
        _pin(ap, args.cpus)
    games = args.games or available_games()
    unknown = [g for g in games if g not in available_games()]
    if unknown:
        ap.error(f"unknown game {unknown[0]!r}: expected one of {available_games()}")
    rows: list[dict] = []
    protocol = (f"JAX rows: {args.paired} paired rounds" if args.paired and not args.no_jax else
                f"median of {args.repeats} runs")
    print(f"fiveplay benchmark: random legal play, {protocol} of {args.seconds:g} s "
          f"(python {platform.python_version()}, numpy {np.__version__}, {platform.machine()})")
    print(f"{'game':<11}{'players':>8}  {'what':<26}{'decisions/s':>14}")
    for game in ([] if args.jax_only else games):
        g = game_table.get(game)
        for n in args.players or default_players(game):
            cases: list[tuple[str, Callable[[], float | None]]] = [
                ("engine (mask only)", lambda: median_rate(engine_runner(game, n, False), args.seconds, args.repeats)),
                ("engine + obs + mask", lambda: median_rate(engine_runner(game, n, True), args.seconds, args.repeats)),
                ("AEC env", lambda: median_rate(aec_runner(game, n), args.seconds, args.repeats)),
            ]
            if g.parallel:
                cases.append(("parallel env", lambda: median_rate(parallel_runner(game, n), args.seconds, args.repeats)))
            if not args.no_batched:
                for b in args.batch:
                    for obs in (False, True):
                        cases.append((f"batched B={b}{' + obs' if obs else ''}",
                                      lambda b=b, obs=obs: batched_rate(game, n, b, obs, args.seconds, args.repeats)))
                    if g.compact is not None:
                        cases.append((f"batched B={b} + compact obs",
                                      lambda b=b: compact_rate(game, n, b, args.seconds, args.repeats)))
            if not args.no_batched:
                mem = bytes_per_game(game, n)
                if mem is not None:
                    rows.append({"game": game, "players": n, "what": "batched state bytes/game", "bytes": mem})
                    print(f"{game:<11}{n:>8}  {'batched state, bytes/game':<26}{mem:>14,.0f}", flush=True)
            for what, fn in cases:
                rate = fn()
                if rate is None:
                    continue
                rows.append({"game": game, "players": n, "what": what, "decisions_per_s": rate})
                print(f"{game:<11}{n:>8}  {what:<26}{rate:>14,.0f}", flush=True)
    if not args.no_jax and args.paired:
        _paired_rows(games, args.jax_players, args.jax_batch, args.seconds, args.paired, rows)
    elif not args.no_jax:
        _jax_rows(games, args.jax_players, args.jax_batch, args.seconds, args.repeats, rows)
    if args.options:
        sizes = [b for b in args.jax_batch if b <= 4096] or [min(args.jax_batch)]
        _option_rows(games, max(sizes), args.seconds, args.repeats, rows)
    result = {"seconds": args.seconds, "repeats": args.repeats, "rows": rows}
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2))
    return result
