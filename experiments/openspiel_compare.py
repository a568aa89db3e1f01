"""OpenSpiel's IS-MCTS against our ``ismcts``, at equal simulations and at equal milliseconds per decision.

    fiveplay openspiel-compare --game take5 --budgets 20 80 --minutes 5
    fiveplay openspiel-compare --game five_alive --budgets 5 20 --minutes 10
    fiveplay openspiel-compare --table runs/openspiel_compare/take5.json runs/openspiel_compare/five_alive.json

For each OpenSpiel budget B (``openspiel:ismcts:sims=B``, OpenSpiel's Python IS-MCTS with random
rollouts, ``fiveplay_env.agents.openspiel_agent``) two match-ups are played, head to head (2 players by default):

| match-up  | our agent                | how                                                             |
|-----------|--------------------------|-----------------------------------------------------------------|
| sims      | ``ismcts:sims=B``        | the same simulation budget per decision                         |
| ms        | ``ismcts:time=T``        | T = OpenSpiel's measured seconds per searched decision at B (the |
|           |                          | first ``--calibrate`` pairs of its sims match-up)               |

Games come in pairs: one deal (``--seed``, pair i) played twice with the seats swapped, so every cell
sees the same deals and both seats equally; the pair's mean is one sample of our win share (a tie
shares the win), and the interval is mean +- 1.96 standard errors over the pairs. A decision with a
single legal action is played without search by both agents and counted out of the timings
("searched decisions"); the sims columns are the simulations actually run per searched decision (our
sequential halving runs at least one world per surviving action and round, so at small budgets it
runs more than B).

Pairs are started round-robin over the cells, at most ``--workers`` at a time, until ``--pairs`` per
cell or until ``--minutes`` have passed (pairs already started finish; none is cut off, so no cell
keeps only its quicker games). Results go to ``--out`` (default ``runs/openspiel_compare/<game>.json``):
every pair, each cell's summary, the load average before and after and the command. Needs the
``openspiel`` extra (``pip install -e '.[openspiel]'``). A speed figure depends on the machine and on
what else runs on it; the load average is recorded for that reason.
"""
from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from fiveplay_env.agents.arena import Z95, mean_ci  # noqa: F401 - Z95: still read as openspiel_compare.Z95
from fiveplay_env.agents.games import get_game, parse_config
from fiveplay_env.core import seeding
from fiveplay_env.core.config import plain

DEFAULT_BUDGETS: tuple[int, ...] = (10, 40)
"""OpenSpiel's simulation budgets when ``--budgets`` gives none and the game's OpenSpiel form declares no
``COMPARE_BUDGETS`` of its own."""


def openspiel_games() -> list[str]:
    """The games that have an OpenSpiel form (``GameDef.openspiel``)."""
    from fiveplay_env import games

    return sorted(g.name for g in games.table().values() if g.openspiel)


def default_config(game: str) -> dict[str, Any]:
    """Head to head in the game's quick preset (``GameDef.quick_config``: Take 5 one round)."""
    return get_game(game).quick_config(num_players=2)


def default_budgets(game: str) -> tuple[int, ...]:
    """The game's OpenSpiel form's ``COMPARE_BUDGETS`` (about equal work per decision across games), or
    ``DEFAULT_BUDGETS``."""
    import importlib

    return tuple(getattr(importlib.import_module(get_game(game).openspiel), "COMPARE_BUDGETS", DEFAULT_BUDGETS))
MATCHES = ("sims", "ms")
_AGENT_SEED = 1 << 32


class _Timed:
    """An agent with a stopwatch: seconds and simulations over its searched decisions (more than one
    legal action); everything else is passed through."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.uses_engine = getattr(agent, "uses_engine", False)
        self.searched = 0
        self.seconds = 0.0
        self.sims = 0

    def observe_engine(self, engine: Any, player: int) -> None:
        self.agent.observe_engine(engine, player)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        t0 = time.perf_counter()
        action = self.agent.act(observation, action_mask)
        dt = time.perf_counter() - t0
        if np.count_nonzero(action_mask) > 1:
            self.searched += 1
            self.seconds += dt
            self.sims += int(getattr(self.agent, "last_stats", {}).get("sims", 0))
        return action


def play_pair(task: dict[str, Any]) -> dict[str, Any]:
    """Both games of one pair (the deal of pair ``task["pair"]``, seats swapped): our win share and
    score, and each side's searched decisions, seconds and simulations."""
    from fiveplay_env.agents.arena import play_game
    from fiveplay_env.agents.registry import make_agent

    game = get_game(task["game"])
    config = game.make_config(task["config"])
    deal = seeding.derive(task["seed"], task["pair"])
    out: dict[str, Any] = {"pair": task["pair"], "cell": task["cell"], "win": [], "score": [], "their_score": []}
    sides = {"ours": [0, 0.0, 0], "theirs": [0, 0.0, 0]}
    n = config.num_players
    for swap in (0, 1):
        seats = ["ours" if (q + swap) % 2 == 0 else "theirs" for q in range(n)]
        agents = [_Timed(make_agent(task[side], task["game"],
                                    seed=seeding.derive(task["seed"], _AGENT_SEED + 2 * task["pair"] + swap + 64 * q)))
                  for q, side in enumerate(seats)]
        rec = play_game(game, config, agents, deal)
        ours = [q for q in range(n) if seats[q] == "ours"]
        theirs = [q for q in range(n) if seats[q] == "theirs"]
        out["win"].append(float(np.mean([rec.results["win"][q] for q in ours])))
        out["score"].append(float(np.mean([rec.results[game.score][q] for q in ours])))
        out["their_score"].append(float(np.mean([rec.results[game.score][q] for q in theirs])))
        for q, side in enumerate(seats):
            s = sides[side]
            s[0] += agents[q].searched
            s[1] += agents[q].seconds
            s[2] += agents[q].sims
    out["sides"] = sides
    return out


def summarize(cell: dict[str, Any], pairs: list[dict[str, Any]]) -> dict[str, Any]:
    """A cell's figures from its pairs."""
    tot = {side: [sum(p["sides"][side][i] for p in pairs) for i in range(3)] for side in ("ours", "theirs")}

    def per(side: str, i: int, scale: float) -> float | None:
        return scale * tot[side][i] / tot[side][0] if tot[side][0] else None

    return {**cell, "pairs": len(pairs), "games": 2 * len(pairs),
            "our_win_share": mean_ci([float(np.mean(p["win"])) for p in pairs]),
            "our_score": mean_ci([float(np.mean(p["score"])) for p in pairs]),
            "their_score": mean_ci([float(np.mean(p["their_score"])) for p in pairs]),
            "our_ms": per("ours", 1, 1000.0), "their_ms": per("theirs", 1, 1000.0),
            "our_sims": per("ours", 2, 1.0), "their_sims": per("theirs", 2, 1.0),
            "searched": {side: tot[side][0] for side in tot}}


def _load() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:  # pragma: no cover - no load average on this system
        return []


def run(game: str, config: dict[str, Any], budgets: Sequence[int], pairs: int, minutes: float, workers: int,
        seed: int, calibrate: int, quiet: bool = False) -> dict[str, Any]:
    """Play the cells (see the module docstring); returns the results (not written)."""
    from fiveplay_env.agents.registry import make_agent

    get_game(game).make_config(config)  # a bad config fails here, not in a worker
    make_agent("openspiel:ismcts", game, seed=0)  # and so do a missing extra and a game without an OpenSpiel form
    if pairs < 1 or calibrate < 1 or calibrate > pairs or workers < 1 or not minutes > 0:
        raise ValueError(f"expected pairs >= calibrate >= 1, workers >= 1 and minutes > 0, got pairs={pairs}, "
                         f"calibrate={calibrate}, workers={workers}, minutes={minutes}")
    if not budgets or any(isinstance(b, bool) or not isinstance(b, int) or b < 1 for b in budgets):
        raise ValueError(f"budgets: expected simulation counts >= 1, got {list(budgets)}")
    cells = {(m, b): {"match": m, "budget": b, "theirs": f"openspiel:ismcts:sims={b}",
                      "ours": f"ismcts:sims={b}" if m == "sims" else None} for b in budgets for m in MATCHES}
    done: dict[tuple[str, int], list[dict[str, Any]]] = {key: [] for key in cells}
    started = time.time()
    deadline = started + 60.0 * minutes
    load_before = _load()
    ctx = mp.get_context("spawn")

    def task(key: tuple[str, int], i: int) -> dict[str, Any]:
        c = cells[key]
        return {"game": game, "config": config, "seed": seed, "pair": i, "cell": list(key),
                "ours": c["ours"], "theirs": c["theirs"]}

    def play(queue: list[tuple[tuple[str, int], int]], pool: Any) -> None:
        queue = queue[::-1]
        running: list[Any] = []
        while queue or running:
            while queue and len(running) < workers and time.time() < deadline:
                key, i = queue.pop()
                running.append(pool.apply_async(play_pair, (task(key, i),)))
            if not running:
                break
            running[0].wait(0.2)
            for r in [r for r in running if r.ready()]:
                running.remove(r)
                res = r.get()
                done[tuple(res["cell"])].append(res)  # type: ignore[index]
                if not quiet:
                    print(f"  {res['cell'][0]:>4} B={res['cell'][1]:<4} pair {res['pair']:>3}: ours win "
                          f"{np.mean(res['win']):.2f}  ({time.time() - started:.0f} s)", flush=True)

    with ctx.Pool(workers) as pool:
        # calibration: the first pairs of each sims cell give OpenSpiel's seconds per searched decision
        play([(("sims", b), i) for i in range(calibrate) for b in budgets], pool)
        for b in budgets:
            s = summarize(cells[("sims", b)], done[("sims", b)])
            if s["their_ms"] is None:
                raise RuntimeError(f"calibration: OpenSpiel searched no decision at B={b} in {calibrate} pairs")
            cells[("ms", b)]["ours"] = f"ismcts:time={s['their_ms'] / 1000.0:.4g}"
            cells[("ms", b)]["calibrated_ms"] = s["their_ms"]
        rest: list[tuple[tuple[str, int], int]] = []
        for i in range(pairs):
            for b in budgets:
                rest.append((("ms", b), i))
                if i >= calibrate:
                    rest.append((("sims", b), i))
        play(rest, pool)
    for key in done:
        done[key].sort(key=lambda p: p["pair"])
    return {"game": game, "config": plain(config), "budgets": list(budgets), "seed": seed, "workers": workers,
            "calibrate": calibrate, "wall_s": round(time.time() - started, 1), "load_before": load_before,
            "load_after": _load(), "cpus": os.cpu_count(), "command": "python -m fiveplay_env.experiments.openspiel_compare "
            + " ".join(sys.argv[1:]), "cells": [summarize(cells[k], done[k]) for k in cells],
            "pairs": {f"{k[0]}:{k[1]}": done[k] for k in cells}}


def _fmt(ci: dict[str, Any], pct: bool = False) -> str:
    if ci["mean"] is None:
        return "-"
    half = math.inf if ci["half_width"] is None else ci["half_width"]  # one pair: no interval
    if pct:
        return f"{100 * ci['mean']:.0f}% ± {100 * half:.0f}"
    return f"{ci['mean']:.1f} ± {half:.1f}"


def table(results: Sequence[dict[str, Any]]) -> str:
    """The Markdown table of one or more result files."""
    lines = ["| game | OpenSpiel | matched on | ours | games | our win share | score: ours, OpenSpiel "
             "| ms per searched decision: ours, OpenSpiel | sims per searched decision: ours, OpenSpiel |",
             "|---|---|---|---|---|---|---|---|---|"]
    notes: dict[str, str] = {}
    for res in results:
        g = get_game(res["game"])
        metric = {m.name: m for m in g.metrics}[g.score]
        notes[g.title] = f"{g.title}: {g.score}, {metric.meaning}"
        cfg = ", ".join(f"{k}={v}" for k, v in res["config"].items())
        for c in res["cells"]:
            ms = (f"{c['our_ms']:.0f}, {c['their_ms']:.0f}" if c["our_ms"] is not None and c["their_ms"] is not None
                  else "-")
            sims = (f"{c['our_sims']:.0f}, {c['their_sims']:.0f}" if c["our_sims"] is not None
                    and c["their_sims"] is not None else "-")
            lines.append(f"| {g.title} ({cfg}) | `{c['theirs']}` | {c['match']} | `{c['ours']}` | {c['games']} | "
                         f"{_fmt(c['our_win_share'], pct=True)} | {g.score} {_fmt(c['our_score'])}, "
                         f"{_fmt(c['their_score'])} "
                         f"| {ms} | {sims} |")
    return "\n".join(lines) + "\n\nScores: " + "; ".join(notes.values()) + "."


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m fiveplay_env.experiments.openspiel_compare",
                                 description="OpenSpiel's IS-MCTS against our ismcts at equal simulations and "
                                             "equal milliseconds per decision (see the module docstring)")
    ap.add_argument("--game", choices=openspiel_games(), help="the game to play")
    ap.add_argument("--config", nargs="*", default=None, help="config fields, field=value (default: head to head, "
                    "Take 5 mode=round)")
    ap.add_argument("--budgets", nargs="+", type=int, default=None,
                    help="OpenSpiel simulation budgets (default: the game's OpenSpiel form's COMPARE_BUDGETS)")
    ap.add_argument("--pairs", type=int, default=200, help="at most this many pairs (2 games) per cell [200]")
    ap.add_argument("--minutes", type=float, default=5.0, help="start no pair after this many minutes [5]")
    ap.add_argument("--workers", type=int, default=2, help="processes [2]")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--calibrate", type=int, default=2, help="pairs of the sims cell that time OpenSpiel [2]")
    ap.add_argument("--out", default=None, help="result file [runs/openspiel_compare/<game>.json]")
    ap.add_argument("--table", nargs="+", metavar="RESULT", default=None,
                    help="print the Markdown table of these result files and exit")
    ap.add_argument("--quiet", action="store_true")
    return ap


def main(argv: Sequence[str] | None = None) -> dict[str, Any] | str:
    args = build_parser().parse_args(argv)
    if args.table:
        results = []
        for path in args.table:
            with open(path, encoding="utf-8") as fh:
                results.append(json.load(fh))
        text = table(results)
        print(text)
        return text
    if args.game is None:
        raise SystemExit(f"--game: expected one of {openspiel_games()} (or --table FILES)")
    config = parse_config(args.config) if args.config is not None else default_config(args.game)
    budgets = args.budgets or list(default_budgets(args.game))
    res = run(args.game, config, budgets, args.pairs, args.minutes, args.workers, args.seed, args.calibrate,
              args.quiet)
    out = args.out or os.path.join("runs", "openspiel_compare", f"{args.game}.json")
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(res, fh, indent=1)
    print(table([res]))
    print(f"wrote {out} ({res['wall_s']} s, load average {res['load_before']} -> {res['load_after']} "
          f"on {res['cpus']} CPUs)")
    return res


if __name__ == "__main__":
    main()
