"""Tournaments between agents, with seats rotated, confidence intervals, win rates and openskill ratings.

Usage::

    python -m experiments.tournament --game take5 --agents take5-safest random random random \\
        --config mode=game --games 1000 --seed 0 --workers 1
    python -m experiments.tournament --resume runs/tournament__take5__0__20250101-120000

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
``--workers N > 1`` each worker process runs torch and OpenMP on one thread (``_one_thread``), so N
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
import csv
import io
import itertools
import json
import math
import multiprocessing as mp
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

from agents import games as games_mod
from agents.arena import play_game
from agents.base import Agent
from agents.registry import agent_fingerprint, make_agent
from experiments import runs
from fiveplay_env.core import seeding

FORMAT_VERSION = 1
AGENT_SEED_BASE = 1 << 40
MAX_SEATS = 16
Z95 = 1.959964

# --- schedule ------------------------------------------------------------------------------------------


def entrant_labels(names: Sequence[str]) -> list[str]:
    """Unique labels: the name, then ``name#2``, ``name#3`` for repeats."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return out


class Schedule:
    """Which entrant sits where in game g, and the game's seeds (see the module docstring)."""

    def __init__(self, num_entrants: int, num_players: int, seed: int) -> None:
        if num_entrants < num_players:
            raise ValueError(
                f"agents: expected at least {num_players} agents for {num_players} players (repeat a name to "
                f"seat several copies), got {num_entrants}"
            )
        self.n = num_players
        self.seed = seed
        self.groups = [list(c) for c in itertools.combinations(range(num_entrants), num_players)]

    @property
    def cycle(self) -> int:
        """Games after which every entrant has played every seat equally often."""
        return self.n * len(self.groups)

    def seating(self, g: int) -> list[int]:
        """Entrant index of each seat in game g."""
        block, rot = divmod(g, self.n)
        group = self.groups[block % len(self.groups)]
        return [group[(s + rot) % self.n] for s in range(self.n)]

    def game_seed(self, g: int) -> int:
        return seeding.derive(self.seed, g // self.n)

    def agent_seed(self, g: int, seat: int) -> int:
        return seeding.derive(self.seed, AGENT_SEED_BASE + g * MAX_SEATS + seat)


# --- playing (in worker processes) ---------------------------------------------------------------------

_W: dict[str, Any] = {}


def _one_thread() -> None:
    """One thread per worker process for the numeric libraries (torch, OpenMP, BLAS): ``--workers N``
    processes already use N cores, and a learned agent's torch spreading each forward pass over every
    core would oversubscribe them (each pass then waits for threads that other workers hold). An
    explicit ``OMP_NUM_THREADS`` (or ``MKL_NUM_THREADS``) in the environment is left as it is."""
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    torch = sys.modules.get("torch")  # not imported here: only learned agents need it
    if torch is not None:
        torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))


def _init_worker(spec: dict[str, Any], one_thread: bool = False) -> None:
    """Build the game, config and one agent per entrant, once per process (``one_thread``: a pool
    worker, see ``_one_thread``).

    A failure is kept and raised by ``_play`` instead: an exception in a pool initializer would make
    ``multiprocessing`` respawn the worker forever.
    """
    if one_thread:
        _one_thread()
    _W.clear()  # nothing of an earlier tournament in this process (its agents, or its set-up error)
    try:
        _setup_worker(spec)
    except Exception as e:  # re-raised in _play, in the parent, with its message
        _W["error"] = e


def _setup_worker(spec: dict[str, Any]) -> None:
    game = games_mod.get_game(spec["game"])
    _W["game"] = game
    _W["config"] = game.make_config(spec["config"])
    _W["schedule"] = Schedule(len(spec["agents"]), spec["players"], spec["seed"])
    _W["agents"] = [make_agent(name, spec["game"], seed=0, allow_import=True) for name in spec["agents"]]
    _W["labels"] = entrant_labels(spec["agents"])
    _W["names"] = list(spec["agents"])
    _W["record_dir"] = spec.get("record_dir")  # --record: one replayable record per game


def _play(g: int) -> list[dict[str, Any]]:
    """Play game g; one row per seat."""
    if "error" in _W:
        raise _W["error"]
    game = _W["game"]
    sched: Schedule = _W["schedule"]
    seating = sched.seating(g)
    agents: list[Agent] = []
    for seat, e in enumerate(seating):
        agent = _W["agents"][e]
        agent.reset(seed=sched.agent_seed(g, seat))
        agents.append(agent)
    rec = play_game(game, _W["config"], agents, sched.game_seed(g))
    if _W["record_dir"]:
        from fiveplay_env import records
        records.write_records(os.path.join(_W["record_dir"], f"game_{g:06d}.jsonl"), [records.make_record(
            game.name, _W["config"], rec.seed, rec.actions, agents=[_W["labels"][e] for e in seating],
            meta={"game": g, "truncated": rec.truncated})])
    rows = []
    for seat, e in enumerate(seating):
        row: dict[str, Any] = {
            "game": g, "deal": g // sched.n, "rotation": g % sched.n, "game_seed": rec.seed, "seat": seat,
            "entrant": _W["labels"][e], "agent": _W["names"][e],
            "win": rec.results["win"][seat], "placing": rec.results["placing"][seat],
        }
        for m in game.metrics:
            if m.name != "placing":
                row[m.name] = rec.results[m.name][seat]
        row.update(decisions=rec.decisions[seat], think_s=round(rec.think_s[seat], 6),
                   think_max_s=round(rec.think_max_s[seat], 6), steps=rec.steps,
                   rounds=rec.rounds, truncated=int(rec.truncated))
        rows.append(row)
    return rows


def csv_columns(game: games_mod.Game) -> list[str]:
    metrics = [m.name for m in game.metrics if m.name != "placing"]
    return ["game", "deal", "rotation", "game_seed", "seat", "entrant", "agent", "win", "placing", *metrics,
            "decisions", "think_s", "think_max_s", "steps", "rounds", "truncated"]


# --- files ---------------------------------------------------------------------------------------------


RESUME_KEYS = ("version", "game", "config", "players", "agents", "labels", "games", "seed")
"""The keys of ``config.json`` a resume needs."""


class GamesFileError(ValueError):
    """A row of ``games.csv`` that this tournament cannot have written (the message names the line)."""


def _check_row(row: dict[str, str], line: int, spec: dict[str, Any], sched: Schedule, path: str) -> tuple[int, int]:
    """(game, seat) of a ``games.csv`` row, after checking every field against the tournament's spec
    and schedule; ``GamesFileError`` naming the line and the field otherwise."""
    n = spec["players"]
    labels = spec.get("labels") or entrant_labels(spec["agents"])

    def bad(field: str, expected: str) -> GamesFileError:
        return GamesFileError(
            f"{path} line {line}: {field}: expected {expected}, got {row.get(field)!r}; the file was edited or "
            f"damaged: repair or delete that game's lines (deleted games are played again on --resume)")

    def as_int(field: str, lo: int, hi: int) -> int:
        try:
            v = int(row[field])
        except (TypeError, ValueError):
            raise bad(field, f"an integer in {lo}..{hi}") from None
        if not lo <= v <= hi:
            raise bad(field, f"an integer in {lo}..{hi}")
        return v

    def as_float(field: str, lo: float = -math.inf, hi: float = math.inf) -> float:
        try:
            v = float(row[field])
        except (TypeError, ValueError):
            raise bad(field, f"a number in {lo}..{hi}") from None
        if not (lo <= v <= hi) or math.isnan(v):
            raise bad(field, f"a number in {lo}..{hi}")
        return v

    g = as_int("game", 0, spec["games"] - 1)
    seat = as_int("seat", 0, n - 1)
    if as_int("deal", 0, spec["games"]) != g // n:
        raise bad("deal", f"{g // n} (game {g} // {n} players)")
    if as_int("rotation", 0, n - 1) != g % n:
        raise bad("rotation", f"{g % n} (game {g} % {n} players)")
    if row["game_seed"] != str(sched.game_seed(g)):
        raise bad("game_seed", f"{sched.game_seed(g)} (the tournament seed's seed of game {g})")
    e = sched.seating(g)[seat]
    if row["entrant"] != labels[e]:
        raise bad("entrant", f"{labels[e]!r} (the entrant the schedule seats there)")
    if row["agent"] != spec["agents"][e]:
        raise bad("agent", f"{spec['agents'][e]!r}")
    as_float("win", 0.0, 1.0)
    as_float("placing", 1.0, float(n))
    for field in ("think_s", "think_max_s"):
        as_float(field, 0.0)
    for field in ("decisions", "steps", "rounds"):
        as_int(field, 0, 1 << 62)
    as_int("truncated", 0, 1)
    for field in row:
        if field not in ("game", "deal", "rotation", "game_seed", "seat", "entrant", "agent", "win", "placing",
                         "think_s", "think_max_s", "decisions", "steps", "rounds", "truncated"):
            as_float(field)  # the game's metrics
    return g, seat


def read_games(path: str, spec: dict[str, Any], columns: list[str]) -> dict[int, list[dict[str, str]]]:
    """The complete games of a ``games.csv``: {game: rows by seat}, each row checked against the
    tournament (``GamesFileError`` naming the first bad line). Rows of a game cut short by an
    interruption (fewer than ``players`` rows, or a last line without its newline) are left out."""
    if not os.path.exists(path):
        return {}
    num_players = spec["players"]
    sched = Schedule(len(spec["agents"]), num_players, spec["seed"])
    with open(path, encoding="utf-8", newline="") as f:
        try:
            text = f.read()
        except UnicodeDecodeError as exc:
            raise GamesFileError(f"{path}: not UTF-8 text ({exc}); the file was damaged") from None
    if text and not text.endswith("\n"):
        text = text[:text.rfind("\n") + 1]  # a half-written last line
    reader = csv.DictReader(io.StringIO(text))
    if reader.fieldnames is not None and list(reader.fieldnames) != columns:
        raise GamesFileError(f"{path} line 1: expected the columns {columns}, got {reader.fieldnames}")
    by_game: dict[int, dict[int, dict[str, str]]] = {}
    for row in reader:
        line = reader.line_num
        if None in row or any(row.get(c) is None for c in columns):
            raise GamesFileError(f"{path} line {line}: expected {len(columns)} fields, got a different number; "
                                 f"the file was edited or damaged: repair or delete that line")
        g, seat = _check_row(row, line, spec, sched, path)
        if seat in by_game.get(g, {}):
            raise GamesFileError(f"{path} line {line}: game {g} seat {seat} appears twice; delete one of them")
        by_game.setdefault(g, {})[seat] = row
    return {g: [seats[s] for s in range(num_players)] for g, seats in sorted(by_game.items())
            if sorted(seats) == list(range(num_players))}


def _write_games_file(path: str, columns: list[str], done: dict[int, list[dict[str, str]]]) -> None:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    w.writeheader()
    for g in sorted(done):
        w.writerows(done[g])
    runs.atomic_write(path, buf.getvalue())


# --- statistics ------------------------------------------------------------------------------------------


def mean_ci(values: Sequence[float]) -> dict[str, Any]:
    """Mean with a 95% normal-approximation interval (None where it is undefined)."""
    n = len(values)
    if n == 0:
        return {"mean": None, "ci95": None, "n": 0}
    m = sum(values) / n
    if n < 2:
        return {"mean": m, "ci95": None, "n": n}
    var = sum((v - m) ** 2 for v in values) / (n - 1)
    half = Z95 * math.sqrt(var / n)
    return {"mean": m, "ci95": [m - half, m + half], "half_width": half, "n": n}


def summarize(spec: dict[str, Any], done: dict[int, list[dict[str, str]]]) -> dict[str, Any]:
    """The summary of the finished games (entrants, ratings, head-to-head); a pure function of the rows."""
    from openskill.models import PlackettLuce

    game = games_mod.get_game(spec["game"])
    labels = entrant_labels(spec["agents"])
    idx = {lab: i for i, lab in enumerate(labels)}
    n = spec["players"]
    metric_names = [m.name for m in game.metrics]
    per: list[dict[str, list[float]]] = [{"win": [], **{m: [] for m in metric_names}} for _ in labels]
    think = [0.0] * len(labels)
    think_max = [0.0] * len(labels)
    decisions = [0] * len(labels)
    seat_wins = [[0.0] * n for _ in labels]
    seat_games = [[0] * n for _ in labels]
    ahead = [[0.0] * len(labels) for _ in labels]
    met = [[0] * len(labels) for _ in labels]
    model = PlackettLuce()
    ratings = [model.rating(name=lab) for lab in labels]
    truncated = 0
    for g in sorted(done):
        rows = done[g]
        es = [idx[r["entrant"]] for r in rows]
        places = [float(r["placing"]) for r in rows]
        truncated += int(rows[0]["truncated"])
        for seat, (e, r) in enumerate(zip(es, rows)):
            per[e]["win"].append(float(r["win"]))
            for m in metric_names:
                per[e][m].append(float(r[m]))
            think[e] += float(r["think_s"])
            think_max[e] = max(think_max[e], float(r["think_max_s"]))
            decisions[e] += int(r["decisions"])
            seat_wins[e][seat] += float(r["win"])
            seat_games[e][seat] += 1
        for a in range(n):
            for b in range(n):
                if a != b:
                    ea, eb = es[a], es[b]
                    met[ea][eb] += 1
                    ahead[ea][eb] += 1.0 if places[a] < places[b] else 0.5 if places[a] == places[b] else 0.0
        new = model.rate([[ratings[e]] for e in es], ranks=places)
        for e, team in zip(es, new):
            ratings[e] = team[0]
    entrants = []
    for i, lab in enumerate(labels):
        entrants.append({
            "entrant": lab,
            "agent": spec["agents"][i],
            "games": len(per[i]["win"]),
            "win_rate": mean_ci(per[i]["win"]),
            "metrics": {m: mean_ci(per[i][m]) for m in metric_names},
            "rating": {"mu": ratings[i].mu, "sigma": ratings[i].sigma, "ordinal": ratings[i].ordinal(),
                       "ci95": [ratings[i].mu - Z95 * ratings[i].sigma, ratings[i].mu + Z95 * ratings[i].sigma]},
            "ms_per_decision": 1000.0 * think[i] / decisions[i] if decisions[i] else None,
            "max_ms_per_decision": 1000.0 * think_max[i],
            "decisions": decisions[i],
            "win_rate_by_seat": [seat_wins[i][s] / seat_games[i][s] if seat_games[i][s] else None for s in range(n)],
            "games_by_seat": seat_games[i],
        })
    sched = Schedule(len(labels), n, spec["seed"])
    return {
        "game": spec["game"],
        "config": spec["config"],
        "players": n,
        "seed": spec["seed"],
        "games_planned": spec["games"],
        "games_completed": len(done),
        "complete": len(done) == spec["games"],
        "seat_balanced": len(done) % sched.cycle == 0 and all(len(set(e["games_by_seat"])) == 1 for e in entrants),
        "truncated_games": truncated,
        "metrics": [{"name": m.name, "lower_is_better": m.lower_is_better, "meaning": m.meaning} for m in game.metrics],
        "entrants": entrants,
        "head_to_head": {
            "labels": labels,
            "ahead_rate": [[ahead[i][j] / met[i][j] if met[i][j] else None for j in range(len(labels))]
                           for i in range(len(labels))],
            "games": met,
        },
    }


def leaderboard(summary: dict[str, Any]) -> str:
    """The summary as a text table, best rating first."""
    metric_names = [m["name"] for m in summary["metrics"]]
    head = ["#", "entrant", "games", "win rate (95% CI)"] + [f"{m} (95% CI)" for m in metric_names] + [
        "rating mu +- sigma", "ms/dec (max)"]
    rows = []
    order = sorted(summary["entrants"], key=lambda e: -e["rating"]["mu"])

    def fmt(ci: dict[str, Any], pct: bool = False) -> str:
        if ci["mean"] is None:
            return "-"
        k = 100.0 if pct else 1.0
        unit = "%" if pct else ""
        hw = ci.get("half_width")
        return f"{k * ci['mean']:.1f}{unit}" + (f" +- {k * hw:.1f}" if hw is not None else "")

    for rank, e in enumerate(order, 1):
        ms = e["ms_per_decision"]
        rows.append([str(rank), e["entrant"], str(e["games"]), fmt(e["win_rate"], pct=True)]
                    + [fmt(e["metrics"][m]) for m in metric_names]
                    + [f"{e['rating']['mu']:.2f} +- {e['rating']['sigma']:.2f}",
                       "-" if ms is None else f"{ms:.2f} ({e['max_ms_per_decision']:.0f})"])
    widths = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
    line = lambda r: "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
    game = games_mod.get_game(summary["game"])
    defaults = game.config_dict(game.make_config())
    changed = {k: v for k, v in summary["config"].items() if defaults.get(k) != v or k == "num_players"}
    title = (f"{summary['game']} {json.dumps(changed, sort_keys=True)} (other rules: defaults) - "
             f"{summary['games_completed']} of "
             f"{summary['games_planned']} games, {summary['players']} players, seats rotated"
             f"{'' if summary['seat_balanced'] else ' (not yet balanced)'}")
    return "\n".join([title, line(head), line(["-" * w for w in widths]), *map(line, rows)])


# --- plots ------------------------------------------------------------------------------------------------


def make_plots(summary: dict[str, Any], run_dir: str) -> list[str]:
    """ratings.png, head_to_head.png and scores.png in ``run_dir`` (matplotlib, Agg); their paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    ents = sorted(summary["entrants"], key=lambda e: e["rating"]["mu"])
    labels = [e["entrant"] for e in ents]
    h = 1.0 + 0.45 * len(labels)

    def save(fig: Any, name: str) -> None:
        try:
            paths.append(runs.save_figure(fig, os.path.join(run_dir, name), dpi=110, bbox_inches="tight"))
        finally:
            plt.close(fig)

    title = f"{summary['game']}: {summary['games_completed']} games, {summary['players']} players"
    fig, ax = plt.subplots(figsize=(7.5, h))
    mu = [e["rating"]["mu"] for e in ents]
    err = [Z95 * e["rating"]["sigma"] for e in ents]
    ax.errorbar(mu, range(len(ents)), xerr=err, fmt="o", capsize=4)
    ax.set_yticks(range(len(ents)), labels)
    ax.set_xlabel("openskill rating mu (Plackett-Luce), bars: +- 1.96 sigma")
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    save(fig, "ratings.png")

    h2h = summary["head_to_head"]
    order = [h2h["labels"].index(lab) for lab in labels[::-1]]
    mat = [[h2h["ahead_rate"][i][j] for j in order] for i in order]
    fig, ax = plt.subplots(figsize=(2.0 + 0.9 * len(order), 1.5 + 0.8 * len(order)))
    data = [[float("nan") if v is None else v for v in row] for row in mat]
    im = ax.imshow(data, vmin=0.0, vmax=1.0, cmap="RdYlGn")
    names = [h2h["labels"][i] for i in order]
    ax.set_xticks(range(len(names)), names, rotation=45, ha="right")
    ax.set_yticks(range(len(names)), names)
    for a in range(len(names)):
        for b in range(len(names)):
            if data[a][b] == data[a][b]:
                ax.text(b, a, f"{data[a][b]:.2f}", ha="center", va="center", fontsize=8)
    ax.set_title("head to head: row finished ahead of column (ties 1/2)")
    fig.colorbar(im, ax=ax, fraction=0.046)
    save(fig, "head_to_head.png")

    metric = summary["metrics"][0]
    fig, ax = plt.subplots(figsize=(7.5, h))
    vals = [e["metrics"][metric["name"]] for e in ents]
    means = [v["mean"] if v["mean"] is not None else float("nan") for v in vals]
    errs = [v.get("half_width") or 0.0 for v in vals]
    ax.barh(range(len(ents)), means, xerr=errs, capsize=4, color="tab:blue", alpha=0.7)
    ax.set_yticks(range(len(ents)), labels)
    ax.set_xlabel(f"mean {metric['name']} ({'lower' if metric['lower_is_better'] else 'higher'} is better), 95% CI")
    ax.set_title(title)
    save(fig, "scores.png")
    return paths


# --- the run -------------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m experiments.tournament",
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("Usage::")[1] if "Usage::" in __doc__ else None,
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
                    help="play the games as Ray tasks (experiments.ray_backend): no ADDRESS starts or joins a local "
                         "Ray instance; 'auto' or ray://host:port an existing cluster")
    ap.add_argument("--out", default="runs", help="folder holding run folders (default runs)")
    ap.add_argument("--resume", metavar="RUN_DIR", help="continue the tournament in RUN_DIR (its config.json rules)")
    ap.add_argument("--max-games", type=int, help="stop after this many newly played games (resume later)")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    ap.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    ap.add_argument("--record", action="store_true",
                    help="also write each game's replayable record to RUN_DIR/records/game_NNNNNN.jsonl")
    ap.add_argument("--quiet", action="store_true", help="print nothing (implies --no-progress)")
    return ap


def _spec_from_args(args: argparse.Namespace) -> dict[str, Any]:
    game_name = args.game or "take5"
    game = games_mod.get_game(game_name)
    if not args.agents:
        raise ValueError("agents: expected at least one agent name (--agents NAME ...)")
    cfg_values = games_mod.parse_config(args.config or [])
    n_cfg = cfg_values.get("num_players")
    if args.players is not None and n_cfg is not None and n_cfg != args.players:
        raise ValueError(f"players: --players {args.players} disagrees with config num_players={n_cfg}")
    players = args.players if args.players is not None else n_cfg
    if players is None:
        players = len(args.agents)  # more entrants than seats: give --players
    cfg_values["num_players"] = players
    config = game.make_config(cfg_values)  # validates every field
    games = 100 if args.games is None else args.games
    if isinstance(games, bool) or games < 1:
        raise ValueError(f"games: expected an integer >= 1, got {games}")
    seed = 0 if args.seed is None else args.seed
    seeding.normalize_seed(seed)
    for name in args.agents:
        make_agent(name, game_name, seed=0, allow_import=True)  # validates every name before anything runs
    Schedule(len(args.agents), players, seed)  # validates the number of agents
    return {"version": FORMAT_VERSION, "game": game_name, "config": game.config_dict(config), "players": players,
            "agents": list(args.agents), "labels": entrant_labels(args.agents), "games": games, "seed": seed}


def fingerprints(names: Sequence[str]) -> dict[str, str]:
    """{name: fingerprint} of the entrants that load saved state (``ckpt:`` checkpoints ...)."""
    out = {}
    for name in dict.fromkeys(names):
        fp = agent_fingerprint(name)
        if fp is not None:
            out[name] = fp
    return out


def _load_resume(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    run_dir = args.resume
    spec = runs.read_config(run_dir, RESUME_KEYS, what="tournament run")
    given = {"game": args.game, "agents": args.agents, "players": args.players, "games": args.games, "seed": args.seed}
    for key, value in given.items():
        if value is not None and value != spec[key]:
            raise ValueError(f"resume: --{key} {value!r} disagrees with the run's {key}={spec[key]!r}; "
                             f"leave it out to continue the run as configured")
    if args.config:
        raise ValueError("resume: --config cannot change a run's rules; leave it out")
    now = fingerprints(spec["agents"])
    for name, fp in (spec.get("fingerprints") or {}).items():
        if now.get(name) != fp:
            raise ValueError(
                f"resume: {name} changed since the tournament started (it was {fp}, it is now "
                f"{now.get(name, 'missing')}): its games so far were played by another policy. Restore that "
                f"file, or start a new tournament")
    return run_dir, spec


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run (or resume) a tournament; returns the summary (see ``summarize``) plus ``run_dir``."""
    args = build_parser().parse_args(list(argv) if argv is not None else None)
    if args.workers < 1:
        raise ValueError(f"workers: expected an integer >= 1, got {args.workers}")
    if args.ray is None and args.workers > 4 * (os.cpu_count() or 1):
        raise ValueError(f"workers: expected at most {4 * (os.cpu_count() or 1)} processes on this machine "
                         f"({os.cpu_count()} cores), got {args.workers}")
    if args.max_games is not None and args.max_games < 0:
        raise ValueError(f"max-games: expected an integer >= 0, got {args.max_games}")
    say = (lambda *a: None) if args.quiet else (lambda *a: print(*a, flush=True))
    if args.resume:
        run_dir, spec = _load_resume(args)
    else:
        spec = _spec_from_args(args)
        spec["fingerprints"] = fingerprints(spec["agents"])
        run_dir = runs.new_run_dir(args.out, "tournament", spec["game"], spec["seed"])
        spec["argv"] = list(argv) if argv is not None else sys.argv[1:]
        spec["provenance"] = runs.provenance("experiments.tournament", argv)
    with runs.RunLock(run_dir):  # one writer per run folder: a second --resume is refused, naming this one
        if not args.resume:
            runs.write_config(run_dir, spec)
        return _run(args, run_dir, spec, say)


def _run(args: argparse.Namespace, run_dir: str, spec: dict[str, Any], say: Any) -> dict[str, Any]:
    """Play the missing games of the tournament in ``run_dir`` (locked by the caller) and summarise."""
    game = games_mod.get_game(spec["game"])
    columns = csv_columns(game)
    csv_path = os.path.join(run_dir, "games.csv")
    done = read_games(csv_path, spec, columns)
    done = {g: rows for g, rows in done.items() if g < spec["games"]}
    _write_games_file(csv_path, columns, done)  # drops half-written games, keeps the header
    pending = [g for g in range(spec["games"]) if g not in done]
    if args.max_games is not None:
        pending = pending[:args.max_games]
    wspec = spec
    if args.record:
        wspec = {**spec, "record_dir": os.path.join(run_dir, "records")}
        os.makedirs(wspec["record_dir"], exist_ok=True)
    say(f"tournament: {spec['game']} {spec['agents']} - {len(done)} games done, {len(pending)} to play -> {run_dir}")
    interrupted = False
    t0 = time.time()
    with open(csv_path, "a", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns, lineterminator="\n")
        bar = None
        if not (args.no_progress or args.quiet):
            from tqdm import tqdm

            bar = tqdm(total=spec["games"], initial=len(done), unit="game", dynamic_ncols=True)
        pool = None
        try:
            if args.ray is not None and pending:
                from experiments.ray_backend import RayPool

                pool = RayPool(wspec, address=args.ray, max_tasks=args.workers if args.workers > 1 else None)
                results = pool.imap_unordered(pending)
            elif args.workers == 1 or len(pending) <= 1:
                _init_worker(wspec)
                results = map(_play, pending)
            else:
                pool = mp.get_context("spawn").Pool(args.workers, initializer=_init_worker, initargs=(wspec, True))
                results = pool.imap_unordered(_play, pending, chunksize=1)
            for rows in results:
                buf = io.StringIO()
                csv.DictWriter(buf, fieldnames=columns, lineterminator="\n").writerows(rows)
                f.write(buf.getvalue())  # one write per game: an interruption cuts at most this game
                f.flush()
                done[rows[0]["game"]] = [{k: str(v) for k, v in r.items()} for r in rows]
                if bar is not None:
                    bar.update(1)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            if pool is not None:
                pool.terminate()
                pool.join()
            if bar is not None:
                bar.close()
    elapsed = time.time() - t0
    summary = summarize(spec, done)
    summary["run_dir"] = run_dir
    summary["seconds_this_session"] = round(elapsed, 3)
    summary["interrupted"] = interrupted
    summary["plots"] = make_plots(summary, run_dir) if not args.no_plots and done else []
    runs.atomic_write(os.path.join(run_dir, "summary.json"), json.dumps(summary, indent=2) + "\n")
    say(leaderboard(summary))
    if summary["plots"]:
        say(f"plots: {', '.join(summary['plots'])}")
    say(f"results: {run_dir} ({len(done)} of {spec['games']} games, {elapsed:.1f} s this session)")
    if not summary["complete"]:
        say(f"to continue: python -m experiments.tournament --resume {run_dir}")
    if interrupted:
        raise KeyboardInterrupt
    return summary


def _cli() -> int:
    return runs.run_cli(main, "tournament", "every finished game is kept (see --resume)")


if __name__ == "__main__":
    sys.exit(_cli())
