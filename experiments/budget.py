"""Budget curves: a search agent's strength against a fixed field as a function of its budget.

Usage::

    fiveplay budget --game take5 --sims 25 50 100 200 --games 400 --workers 2
    fiveplay budget --game five_alive --field ismcts:sims=200 --sims 50 100 200 --games 200
    fiveplay budget --game take5 --series "ismcts:sims={sims}" --sims 4 8 --games 8 --no-plots
    fiveplay budget --game take5 --profile --sims 160 --profile-games 4
    fiveplay budget --together curves.png runs/budget__take5__.../budget.json runs/budget__five_alive__.../budget.json

In code: ``run(BudgetSpec(game="take5", sims=(25, 50, 100)))`` (``main(argv)`` parses the command line
into a ``BudgetSpec`` and calls ``run``).

Method: each *series* is a search setting with ``{sims}`` in place of its budget (default: the plain
search ``ismcts:sims={sims}`` and the policy-guided search of ``fiveplay_env.experiments.ladder.GUIDED`` when its
policy is installed). For each series and each ``sims`` value, one tournament of
``fiveplay_env.experiments.tournament`` (its ``run``): the search agent against n-1 copies of ``field`` (default:
the game's best heuristic), every deal from every seat (``games`` is rounded up to a multiple of n), so
each point is seat-balanced. Per point:

| column             | meaning                                                                           |
|--------------------|-----------------------------------------------------------------------------------|
| ``win_rate``       | the search agent's win rate (a shared win counts 1/k), with its 95% Wilson interval |
| ``score``          | its mean score (the game's score metric) with a 95% normal interval               |
| ``ms_per_decision``| the tournament's own measurement: time in ``act`` (and ``observe_engine``) per     |
|                    | decision of the search agent (``time.perf_counter``)                              |
| ``cpu_ms_per_decision`` | the same scaled by the run's CPU share: CPU seconds (``os.times``, this process  |
|                    | and its workers) over ``workers x`` wall seconds, at most 1: an estimate of CPU    |
|                    | time per decision that discounts waiting for a busy machine                       |

Output: ``<out>/budget__<game>__<seed>__<time>/`` with ``budget.csv``, ``budget.json``, ``budget.md``
(the table, parity and the exact command), ``budget.png`` (win rate against simulations and against ms
per decision, log scale, with the intervals; needs matplotlib: the ``experiments`` extra) and every
tournament's run folder inside ``runs/``.

``--profile``: instead of the curves, where a search decision spends its time: for each series at each
``sims``, ``profile_games`` games (the search agent's seat rotating) through ``fiveplay_env.agents.arena.play_game``
with the search agent's ``profile`` hook on (``fiveplay_env.agents.search``: determinization, prior network, network
inside the rollouts, rollouts, allocation), as shares of the decision time and ms per decision, written
to ``profile.md`` and ``profile.json``.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import re
import shlex
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fiveplay_env.agents import games as games_mod
from fiveplay_env.agents import search
from fiveplay_env.experiments import ladder, runs, tournament
from fiveplay_env.experiments.tournament.stats import Z95

PROFILE_KEYS = ("observe", "determinize", "prepare", "prior", "network", "rollouts", "tree")
"""The parts of a search decision's time (``fiveplay_env.agents.search``'s ``profile`` table), in report order."""


def wilson(p: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``p`` observed over ``n`` trials (``ValueError`` for
    n < 1 or p outside 0..1)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n: expected an integer >= 1, got {n!r}")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p: expected a proportion in 0..1, got {p!r}")
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def default_series(game: str, num_players: int | None = None) -> tuple[str, ...]:
    """The plain search, and the game's guided search for ``num_players`` (``fiveplay_env.experiments.ladder.guided_for``:
    its prior the policy of that count when one is shipped) when its policy is installed, each with
    ``{sims}`` for its budget."""
    series = ["ismcts:sims={sims}"]
    guided = ladder.guided_for(game, num_players)
    if guided:
        try:
            from fiveplay_env.agents.learned import pretrained

            have = pretrained.available()
        except ImportError:  # pragma: no cover - torch-free installs
            have = []
        if search.guided_prior(guided) in have:
            series.append(re.sub(r"sims=\d+", "sims={sims}", guided))
    return tuple(series)


@dataclass(frozen=True)
class BudgetSpec:
    """Budget curves (see the module docstring); validated on construction (``ValueError`` naming the field).

    Attributes:
        game: the game; config: game config fields (None: the game's default config).
        field: the fixed opponents (n-1 copies; None: the game's best heuristic).
        series: search settings with ``{sims}`` (None: ``default_series(game)``).
        sims: the budgets (simulations per decision), each >= 1.
        games: games per point (rounded up to a multiple of the player count).
        seed, workers, out, plots, quiet: the tournaments' seed and processes, the folder of run folders,
            the PNG plot, print nothing.
        profile: measure where the time goes instead (``profile_games`` games per series and budget).
    """

    game: str
    config: Mapping[str, Any] | None = None
    field: str | None = None
    series: tuple[str, ...] | None = None
    sims: tuple[int, ...] = (25, 50, 100, 200)
    games: int = 200
    seed: int = 0
    workers: int = 1
    out: str = "runs"
    plots: bool = True
    quiet: bool = False
    profile: bool = False
    profile_games: int = 4

    def __post_init__(self) -> None:
        games_mod.get_game(self.game)
        if self.config is not None and not isinstance(self.config, Mapping):
            raise ValueError(f"config: expected a mapping of config fields to values, got {self.config!r}")
        if isinstance(self.sims, (int, str)) or not self.sims:
            raise ValueError(f"sims: expected a sequence of budgets, got {self.sims!r}")
        object.__setattr__(self, "sims", tuple(self.sims))
        for s in self.sims:
            if isinstance(s, bool) or not isinstance(s, int) or s < 1:
                raise ValueError(f"sims: expected integers >= 1, got {s!r}")
        if self.series is not None:
            if isinstance(self.series, str) or not self.series:
                raise ValueError(f"series: expected a sequence of search settings, got {self.series!r}")
            object.__setattr__(self, "series", tuple(self.series))
            for t in self.series:
                if "{sims}" not in t:
                    raise ValueError(f"series: expected '{{sims}}' in each setting (e.g. 'ismcts:sims={{sims}}'), got {t!r}")
        for key in ("games", "profile_games", "workers"):
            v = getattr(self, key)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{key}: expected an integer >= 1, got {v!r}")

    def config_or_default(self) -> dict[str, Any]:
        return ladder.LadderSpec(game=self.game, config=self.config).config_or_default()

    @property
    def num_players(self) -> int:
        game = games_mod.get_game(self.game)
        return int(game.make_config(self.config_or_default()).num_players)

    def field_or_default(self) -> str:
        return self.field if self.field is not None else games_mod.kit(self.game).baseline

    def series_or_default(self) -> tuple[str, ...]:
        return self.series if self.series is not None else default_series(self.game, self.num_players)

    def points(self) -> list[tuple[str, int, str]]:
        """``(series, sims, agent name)`` of every point, series by series."""
        return [(t, s, t.replace("{sims}", str(s))) for t in self.series_or_default() for s in self.sims]

    def to_argv(self) -> list[str]:
        """The ``python -m fiveplay_env.experiments.budget`` arguments of this spec."""
        argv = ["--game", self.game]
        if self.config is not None:
            argv += ["--config", *(f"{k}={v}" for k, v in self.config.items())]
        if self.field is not None:
            argv += ["--field", self.field]
        if self.series is not None:
            argv += ["--series", *self.series]
        argv += ["--sims", *map(str, self.sims), "--games", str(self.games), "--seed", str(self.seed),
                 "--workers", str(self.workers), "--out", self.out]
        if self.profile:
            argv += ["--profile", "--profile-games", str(self.profile_games)]
        return argv + (["--no-plots"] if not self.plots else []) + (["--quiet"] if self.quiet else [])


def _cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def point(spec: BudgetSpec, agent: str) -> dict[str, Any]:
    """One point: ``agent`` against n-1 copies of the field, seat-rotated; the figures of the module
    docstring's table."""
    n = spec.num_players
    fld = spec.field_or_default()
    games = n * math.ceil(spec.games / n)
    tspec = tournament.TournamentSpec(agents=(agent,) + (fld,) * (n - 1), game=spec.game,
                                      config=spec.config_or_default(), games=games, seed=spec.seed)
    cpu0, wall0 = _cpu_seconds(), time.perf_counter()
    s = tournament.run(tspec, tournament.RunOptions(out=os.path.join(spec.out, "runs"), workers=spec.workers,
                                                    progress=False, plots=False, quiet=True))
    cpu, wall = _cpu_seconds() - cpu0, time.perf_counter() - wall0
    share = min(1.0, cpu / (spec.workers * wall)) if wall > 0 else 1.0
    e = next(x for x in s["entrants"] if x["entrant"] == tspec.labels[0])
    score = games_mod.get_game(spec.game).score
    win = float(e["win_rate"]["mean"])
    lo, hi = wilson(win, int(e["games"]))
    sc = e["metrics"][score]
    ms = e["ms_per_decision"]
    return {"agent": agent, "field": fld, "games": int(e["games"]), "win_rate": win, "win_lo": lo, "win_hi": hi,
            "score": sc["mean"], "score_half_width": sc.get("half_width"), "ms_per_decision": ms,
            "cpu_ms_per_decision": None if ms is None else ms * share, "cpu_share": share,
            "max_ms_per_decision": e["max_ms_per_decision"], "decisions": e["decisions"],
            "seat_balanced": s["seat_balanced"], "run_dir": s["run_dir"]}


CSV_COLUMNS = ("series", "sims", "agent", "field", "games", "win_rate", "win_lo", "win_hi", "score",
               "score_half_width", "ms_per_decision", "cpu_ms_per_decision", "cpu_share", "max_ms_per_decision",
               "decisions", "seat_balanced", "run_dir")


def to_csv(rows: Sequence[Mapping[str, Any]]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(CSV_COLUMNS), extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow(r)
    return buf.getvalue()


def markdown(out: dict[str, Any]) -> str:
    """The points as a Markdown table, with parity and the command."""
    n = out["players"]
    cfg = ", ".join(f"{k}={v}" for k, v in sorted(out["config"].items()) if k in ("num_players", "mode"))
    lines = [f"{out['game']} ({cfg}): each search setting against {n - 1} x `{out['field']}`, seats rotated; "
             f"parity {100.0 / n:.0f}%.", "",
             f"| search | sims | games | win rate (95% Wilson) | {out['score']} (95% CI) | ms/decision | "
             "CPU ms/decision (est.) |", "|---|---|---|---|---|---|---|"]
    for r in out["points"]:
        sc = "-" if r["score"] is None else f"{r['score']:.2f}" + (
            f" ± {r['score_half_width']:.2f}" if r["score_half_width"] is not None else "")
        ms = "-" if r["ms_per_decision"] is None else f"{r['ms_per_decision']:.2f}"
        cpu = "-" if r["cpu_ms_per_decision"] is None else f"{r['cpu_ms_per_decision']:.2f}"
        lines.append(f"| `{r['series']}` | {r['sims']} | {r['games']} | {100 * r['win_rate']:.1f}% "
                     f"[{100 * r['win_lo']:.1f}, {100 * r['win_hi']:.1f}] | {sc} | {ms} | {cpu} |")
    return "\n".join([*lines, "", f"Command: `{out['command']}`", ""])


def plot(out: dict[str, Any], path: str) -> str:
    """``budget.png``: win rate against sims and against ms per decision (log x), per series."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        from fiveplay_env.core.extras import install_hint

        raise ValueError(f"the budget plot needs matplotlib: {install_hint('experiments')} "
                         f"(or --no-plots)") from exc
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for series in dict.fromkeys(r["series"] for r in out["points"]):
        rows = [r for r in out["points"] if r["series"] == series]
        y = [100 * r["win_rate"] for r in rows]
        err = [[100 * (r["win_rate"] - r["win_lo"]) for r in rows], [100 * (r["win_hi"] - r["win_rate"]) for r in rows]]
        for ax, xs in ((axes[0], [r["sims"] for r in rows]), (axes[1], [r["ms_per_decision"] or 0.0 for r in rows])):
            ax.errorbar(xs, y, yerr=err, marker="o", capsize=3, label=series.replace("{sims}", "N"))
    for ax, label in ((axes[0], "simulations per decision"), (axes[1], "ms per decision (measured)")):
        ax.axhline(100.0 / out["players"], color="grey", linestyle="--", linewidth=1, label="parity")
        ax.set_xscale("log")
        ax.set_xlabel(label)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(f"win rate (%) vs {out['players'] - 1} x {out['field']}")
    axes[1].legend(fontsize=7, loc="best")
    fig.suptitle(f"{out['game']}: budget curves ({out['points'][0]['games']} games per point)", fontsize=10)
    fig.tight_layout()
    return runs.save_figure(fig, path)


def plot_together(outs: Sequence[Mapping[str, Any]], path: str) -> str:
    """One figure of several runs' curves (``budget.json`` of each, e.g. one per game): a panel per run,
    win rate against CPU ms per decision (log x), every series of the run in its panel."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(outs), figsize=(6 * len(outs), 4.4), squeeze=False)
    for ax, out in zip(axes[0], outs):
        for series in dict.fromkeys(r["series"] for r in out["points"]):
            rows = [r for r in out["points"] if r["series"] == series]
            y = [100 * r["win_rate"] for r in rows]
            err = [[100 * (r["win_rate"] - r["win_lo"]) for r in rows],
                   [100 * (r["win_hi"] - r["win_rate"]) for r in rows]]
            xs = [r.get("cpu_ms_per_decision") or r["ms_per_decision"] or 0.0 for r in rows]
            ax.errorbar(xs, y, yerr=err, marker="o", capsize=3, label=series.replace("{sims}", "N"))
            for x, yy, r in zip(xs, y, rows):
                ax.annotate(str(r["sims"]), (x, yy), textcoords="offset points", xytext=(3, 3), fontsize=6)
        ax.axhline(100.0 / out["players"], color="grey", linestyle="--", linewidth=1, label="parity")
        ax.set_xscale("log")
        ax.set_xlabel("CPU ms per decision (labels: sims)")
        ax.set_ylabel(f"win rate (%) vs {out['players'] - 1} x {out['field']}")
        ax.set_title(f"{out['game']} ({out['points'][0]['games']} games per point)", fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6, loc="lower right")
    fig.tight_layout()
    return runs.save_figure(fig, path)


def profile_point(spec: BudgetSpec, agent: str) -> dict[str, Any]:
    """Where ``agent``'s decisions spend their time over ``spec.profile_games`` games against the field
    (its seat rotating): ms per decision and the share of each part (``PROFILE_KEYS``)."""
    from fiveplay_env.agents.arena import play_game
    from fiveplay_env.agents.registry import make_agent
    from fiveplay_env.core import seeding

    game = games_mod.get_game(spec.game)
    config = game.make_config(spec.config_or_default())
    n = config.num_players
    from fiveplay_env.experiments.tournament.worker import one_thread

    one_thread()  # torch on one thread, as in the tournaments' workers (a forward pass per decision)
    searcher = make_agent(agent, spec.game, seed=0, allow_import=True)
    if not hasattr(searcher, "profile"):
        raise ValueError(f"profile: expected a search agent (ismcts:...), got {agent!r}")
    others = [make_agent(spec.field_or_default(), spec.game, seed=0, allow_import=True) for _ in range(n - 1)]
    prof: dict[str, float] = {}
    searcher.profile = prof
    cpu = 0.0
    for g in range(spec.profile_games):
        seat = g % n
        seats = others[:seat] + [searcher] + others[seat:]
        for i, a in enumerate(seats):
            a.reset(seed=seeding.derive(spec.seed, 1000 * g + i))
        c0 = time.process_time()
        play_game(game, config, seats, seeding.derive(spec.seed, g // n))
        cpu += time.process_time() - c0
    total = prof.get("total", 0.0)
    decisions = int(prof.get("decisions", 0))
    return {"agent": agent, "games": spec.profile_games, "decisions": decisions,
            "sims_per_decision": prof.get("sims", 0.0) / decisions if decisions else None,
            "ms_per_decision": 1000.0 * total / decisions if decisions else None,
            "shares": {k: (prof.get(k, 0.0) / total if total else None) for k in PROFILE_KEYS},
            "seconds": {k: prof.get(k, 0.0) for k in (*PROFILE_KEYS, "total")},
            "game_cpu_seconds": cpu}


def profile_markdown(out: dict[str, Any]) -> str:
    lines = [f"{out['game']}: where a search decision's time goes ({out['profile_games']} games per row against "
             f"{out['players'] - 1} x `{out['field']}`; shares of the searcher's time, `time.perf_counter`):", "",
             "| search | decisions | sims/decision | ms/decision | " + " | ".join(PROFILE_KEYS) + " |",
             "|" + "|".join("---" for _ in range(4 + len(PROFILE_KEYS))) + "|"]
    for r in out["profile"]:
        shares = ["-" if r["shares"][k] is None else f"{100 * r['shares'][k]:.1f}%" for k in PROFILE_KEYS]
        ms = "-" if r["ms_per_decision"] is None else f"{r['ms_per_decision']:.2f}"
        sims = "-" if r["sims_per_decision"] is None else f"{r['sims_per_decision']:.0f}"
        lines.append(f"| `{r['agent']}` | {r['decisions']} | {sims} | {ms} | " + " | ".join(shares) + " |")
    return "\n".join([*lines, "", f"Command: `{out['command']}`", ""])


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m fiveplay_env.experiments.budget", description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("Usage::")[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", required=True, choices=sorted(games_mod.GAMES), help="the game")
    ap.add_argument("--config", nargs="*", metavar="FIELD=VALUE",
                    help="game config (default: take5 num_players=4 mode=game; five_alive num_players=4)")
    ap.add_argument("--field", help="the fixed opponents (n-1 copies; default: the game's best heuristic)")
    ap.add_argument("--series", nargs="+", metavar="SETTING", help="search settings with {sims} (default: plain and guided)")
    ap.add_argument("--sims", type=int, nargs="+", default=[25, 50, 100, 200], help="budgets (default 25 50 100 200)")
    ap.add_argument("--games", type=int, default=200, help="games per point (default 200)")
    ap.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    ap.add_argument("--workers", type=int, default=1, help="processes playing games (default 1)")
    ap.add_argument("--out", default="runs", help="folder holding run folders (default runs)")
    ap.add_argument("--no-plots", action="store_true", help="skip the PNG plot")
    ap.add_argument("--quiet", action="store_true", help="print only the table")
    ap.add_argument("--profile", action="store_true", help="measure where a decision's time goes instead")
    ap.add_argument("--profile-games", type=int, default=4, help="games per profiled setting (default 4)")
    return ap


def run(spec: BudgetSpec, argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Play every point (or, with ``spec.profile``, profile every setting); returns (and writes) the
    figures with ``run_dir``. ``argv``: the command line recorded (None: ``spec.to_argv()``)."""
    from fiveplay_env.agents.registry import make_agent

    pts = spec.points()
    for _, _, name in pts:
        make_agent(name, spec.game, seed=0, allow_import=True)  # a bad setting fails before anything runs
    make_agent(spec.field_or_default(), spec.game, seed=0, allow_import=True)
    argv = list(argv) if argv is not None else spec.to_argv()
    run_dir = runs.new_run_dir(spec.out, "budget", spec.game, spec.seed)
    say = (lambda *a: None) if spec.quiet else (lambda *a: print(*a, flush=True))
    out: dict[str, Any] = {"game": spec.game, "config": spec.config_or_default(), "players": spec.num_players,
                           "field": spec.field_or_default(), "series": list(spec.series_or_default()),
                           "sims": list(spec.sims), "games": spec.games, "seed": spec.seed,
                           "score": games_mod.get_game(spec.game).score,
                           "command": "python -m fiveplay_env.experiments.budget " + shlex.join(argv),
                           "provenance": runs.provenance("fiveplay_env.experiments.budget", argv)}
    runs.write_config(run_dir, dict(out))
    if spec.profile:
        out["profile_games"] = spec.profile_games
        out["profile"] = []
        for _, _, name in pts:
            say(f"budget: profiling {name}")
            out["profile"].append(profile_point(spec, name))
        text = profile_markdown(out)
        runs.atomic_write(os.path.join(run_dir, "profile.md"), text)
        runs.atomic_write(os.path.join(run_dir, "profile.json"), json.dumps(out, indent=2) + "\n")
        print(text, flush=True)
        out["run_dir"] = run_dir
        return out
    inner = BudgetSpec(**{**spec.__dict__, "out": run_dir})
    out["points"] = []
    for series, sims, name in pts:
        say(f"budget: {name} vs {spec.num_players - 1} x {spec.field_or_default()}")
        r = point(inner, name)
        r.update(series=series, sims=sims)
        out["points"].append(r)
        runs.atomic_write(os.path.join(run_dir, "budget.csv"), to_csv(out["points"]))
    text = markdown(out)
    runs.atomic_write(os.path.join(run_dir, "budget.md"), text)
    if spec.plots:
        out["plot"] = plot(out, os.path.join(run_dir, "budget.png"))
    runs.atomic_write(os.path.join(run_dir, "budget.json"), json.dumps(out, indent=2) + "\n")
    print(text, flush=True)
    out["run_dir"] = run_dir
    return out


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Parse the command line into a ``BudgetSpec`` and ``run`` it."""
    argv = list(argv) if argv is not None else sys.argv[1:]
    if argv[:1] == ["--together"]:  # budget --together OUT.png RUN.json ...: one figure of finished runs
        if len(argv) < 3:
            raise ValueError("--together: expected OUT.png and at least one budget.json")
        outs = []
        for name in argv[2:]:
            with open(name, encoding="utf-8") as f:
                outs.append(json.load(f))
        return {"plot": plot_together(outs, argv[1])}
    a = build_parser().parse_args(argv)
    spec = BudgetSpec(game=a.game, config=games_mod.parse_config(a.config) if a.config is not None else None,
                      field=a.field, series=tuple(a.series) if a.series else None, sims=tuple(a.sims), games=a.games,
                      seed=a.seed, workers=a.workers, out=a.out, plots=not a.no_plots, quiet=a.quiet,
                      profile=a.profile, profile_games=a.profile_games)
    return run(spec, argv)


def _cli() -> int:
    return runs.run_cli(main, "budget", "every finished point's tournament is kept in the run folder")


if __name__ == "__main__":
    sys.exit(_cli())
