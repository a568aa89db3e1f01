"""The 5 Alive baselines: first-player advantage, game length and a seat-balanced ladder, per player count.

Usage::

    fiveplay baselines --players 2 3 4 5 6 --selfplay-games 600 --ladder-cycles 1 --seed 0 --workers 2
    fiveplay baselines --players 2 3 --selfplay-games 12 --ladder-cycles 1 --search ismcts:sims=4

In code: ``run(BaselinesSpec(players=(2, 3, 4, 5, 6)))`` (``main(argv)`` parses the command line into a
``BaselinesSpec`` and calls ``run``).

For each player count n (5 Alive, standard rules otherwise):

1. **Seat win rates**: ``selfplay_games`` games of n copies of ``random`` and n copies of the game's
   best heuristic (``fiveplay_env.agents.games.kit(game).baseline``) each, through ``fiveplay_env.experiments.tournament``; the
   win rate of each *seat* (config ``first_player=seat0``: seat 0 starts the first round; later rounds
   start after the dealer, as the rules say) with its 95% interval (a shared win counts 1/k), next to
   parity 1/n.
2. **Game length**: decisions per game (every seat's) and rounds per game, mean with 95% interval, from
   the same self-play games.
3. **Ladder**: the shipped agents (``random``, every heuristic, the shipped 5 Alive policy trained for
   n players, else for the nearest count, its observation adapted to n players by ``fiveplay_env.agents.learned``
   when that differs, and the search at a small budget, ``search``) in ``fiveplay_env.experiments.ladder`` (its ``run``), with
   ``ladder_cycles`` times ``n * C(entrants, n)`` games: every n-subset of the entrants, every deal from
   every seat, so the ladder is seat-balanced.

Output: ``<out>/baselines__five_alive__<seed>__<time>/`` with ``baselines.md`` (the tables and the exact
command), ``baselines.json`` (every figure) and each tournament's run folder inside ``runs/``.
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import os
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fiveplay_env.agents import games as games_mod
from fiveplay_env.experiments import ladder, runs, tournament
from fiveplay_env.experiments.tournament.stats import mean_ci

GAME = "five_alive"


def default_agents(search: str, num_players: int | None = None) -> tuple[str, ...]:
    """The ladder's entrants: random, every heuristic of 5 Alive, the shipped 5 Alive policies (when
    present: those trained for ``num_players``, else for the nearest count, ``fiveplay_env.experiments.ladder.
    ladder_agents``; None: every one) and ``search``."""
    names = [n for n in ladder.ladder_agents(GAME, num_players) if not n.startswith("ismcts")]
    return tuple(names + [search])


@dataclass(frozen=True)
class BaselinesSpec:
    """The baselines run (see the module docstring); validated on construction (``ValueError`` naming
    the field).

    Attributes:
        players: the player counts (each in 5 Alive's 2..6).
        selfplay_games: self-play games per agent and player count (rounded up to a multiple of n: every
            deal from every seat).
        ladder_cycles: seat-balanced cycles (``n * C(entrants, n)`` games each) of the ladder per count.
        search: the search entrant of the ladder (small budget).
        agents: the ladder's entrants (None: ``default_agents(search)``).
        seed, workers, out, quiet: the tournaments' seed, processes, the folder of run folders, print nothing.
    """

    players: tuple[int, ...] = (2, 3, 4, 5, 6)
    selfplay_games: int = 600
    ladder_cycles: int = 1
    search: str = "ismcts:sims=50"
    agents: tuple[str, ...] | None = None
    seed: int = 0
    workers: int = 1
    out: str = "runs"
    quiet: bool = False

    def __post_init__(self) -> None:
        game = games_mod.get_game(GAME)
        if isinstance(self.players, (int, str)) or not self.players:
            raise ValueError(f"players: expected a sequence of player counts, got {self.players!r}")
        object.__setattr__(self, "players", tuple(self.players))
        lo, hi = game.spec.min_players, game.spec.max_players
        for n in self.players:
            if isinstance(n, bool) or not isinstance(n, int) or not lo <= n <= hi:
                raise ValueError(f"players: expected player counts in {lo}..{hi}, got {n!r}")
        for key in ("selfplay_games", "ladder_cycles"):
            v = getattr(self, key)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError(f"{key}: expected an integer >= 0, got {v!r}")
        if self.agents is not None:
            if isinstance(self.agents, str) or len(self.agents) < 2:
                raise ValueError(f"agents: expected at least 2 agent names, got {self.agents!r}")
            object.__setattr__(self, "agents", tuple(self.agents))

    def entrants(self, num_players: int | None = None) -> tuple[str, ...]:
        """The ladder's entrants at ``num_players`` players (None: of every count)."""
        return self.agents if self.agents is not None else default_agents(self.search, num_players)

    def to_argv(self) -> list[str]:
        """The ``python -m fiveplay_env.experiments.baselines`` arguments of this spec."""
        argv = ["--players", *map(str, self.players), "--selfplay-games", str(self.selfplay_games),
                "--ladder-cycles", str(self.ladder_cycles), "--search", self.search]
        if self.agents is not None:
            argv += ["--agents", *self.agents]
        argv += ["--seed", str(self.seed), "--workers", str(self.workers), "--out", self.out]
        return argv + (["--quiet"] if self.quiet else [])


def seat_figures(games_csv: str, n: int) -> dict[str, Any]:
    """Per-seat win rates and game lengths of a tournament's ``games.csv`` (``n`` players)."""
    wins: list[list[float]] = [[] for _ in range(n)]
    steps: dict[str, float] = {}
    rounds: dict[str, float] = {}
    truncated: dict[str, int] = {}
    with open(games_csv, encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            wins[int(row["seat"])].append(float(row["win"]))
            steps[row["game"]] = float(row["steps"])
            rounds[row["game"]] = float(row["rounds"])
            truncated[row["game"]] = int(row["truncated"])
    return {"seat_win_rate": [mean_ci(w) for w in wins], "decisions": mean_ci(list(steps.values())),
            "rounds": mean_ci(list(rounds.values())), "games": len(steps), "truncated": sum(truncated.values())}


def _ci(c: dict[str, Any], pct: bool = False, digits: int = 1) -> str:
    if c["mean"] is None:
        return "-"
    k = 100.0 if pct else 1.0
    hw = c.get("half_width")
    return f"{k * c['mean']:.{digits}f}" + ("%" if pct else "") + (f" ± {k * hw:.{digits}f}" if hw is not None else "")


def markdown(out: dict[str, Any]) -> str:
    """The seat table, the length table and each ladder, with the command."""
    counts = [int(n) for n in out["players"]]
    width = max(counts)
    lines = ["Seat win rates in self-play (first_player=seat0: seat 0 starts the first round; 95% intervals; a shared win counts 1/k):", "",
             "| players | agent | games | parity | " + " | ".join(f"seat {s}" for s in range(width)) + " |",
             "|" + "|".join("---" for _ in range(4 + width)) + "|"]
    for n in counts:
        for agent, fig in out["selfplay"][str(n)].items():
            cells = [_ci(c, pct=True) for c in fig["seat_win_rate"]] + [""] * (width - n)
            lines.append(f"| {n} | `{agent}` | {fig['games']} | {100.0 / n:.1f}% | " + " | ".join(cells) + " |")
    lines += ["", "Game length in self-play (mean with 95% interval):", "",
              "| players | agent | decisions per game | rounds per game | truncated |", "|---|---|---|---|---|"]
    for n in counts:
        for agent, fig in out["selfplay"][str(n)].items():
            lines.append(f"| {n} | `{agent}` | {_ci(fig['decisions'])} | {_ci(fig['rounds'], digits=2)} | "
                         f"{fig['truncated']} |")
    lad = {n: out["ladders"][str(n)] for n in counts if str(n) in out["ladders"]}
    if lad:
        names = list(dict.fromkeys(e["entrant"] for n in lad for e in lad[n]["entrants"]))
        key = {e["entrant"]: -e["rating"]["mu"] for e in lad[max(lad, key=lambda n: (n == 4, n))]["entrants"]}
        names.sort(key=lambda e: key.get(e, 0.0))
        lines += ["", "Seat-balanced ladders: win rate (95% interval) per player count, parity in the header "
                  "(full tables with ratings and rankings below):", "",
                  "| agent | " + " | ".join(f"{n} players ({100.0 / n:.0f}%)" for n in lad) + " |",
                  "|" + "|".join("---" for _ in range(1 + len(lad))) + "|"]
        for name in names:
            cells = []
            for n in lad:
                e = next((x for x in lad[n]["entrants"] if x["entrant"] == name), None)
                cells.append("-" if e is None else _ci(e["win_rate"], pct=True))
            lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
        lines.append("| games | " + " | ".join(str(lad[n]["games"]) for n in lad) + " |")
    for n in counts:
        md = out["ladders"].get(str(n))
        if md:
            lines += ["", f"Ladder, {n} players:", "", md["table"].strip()]
    lines += ["", f"Command: `{out['command']}`", ""]
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m fiveplay_env.experiments.baselines", description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("Usage::")[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", type=int, nargs="+", default=[2, 3, 4, 5, 6], help="player counts (default 2..6)")
    ap.add_argument("--selfplay-games", type=int, default=600, help="self-play games per agent and count (default 600)")
    ap.add_argument("--ladder-cycles", type=int, default=1, help="seat-balanced ladder cycles per count (default 1)")
    ap.add_argument("--search", default="ismcts:sims=50", help="the ladder's search entrant (default ismcts:sims=50)")
    ap.add_argument("--agents", nargs="+", metavar="NAME", help="ladder entrants instead of the shipped agents")
    ap.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    ap.add_argument("--workers", type=int, default=1, help="processes playing games (default 1)")
    ap.add_argument("--out", default="runs", help="folder holding run folders (default runs)")
    ap.add_argument("--quiet", action="store_true", help="print nothing but the tables")
    return ap


def run(spec: BaselinesSpec, argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Play every tournament of ``spec``; returns (and writes) the figures, with ``run_dir`` and
    ``baselines_md``. ``argv``: the command line recorded (None: ``spec.to_argv()``)."""
    kit = games_mod.kit(GAME)
    per_count = {n: spec.entrants(n) for n in spec.players}
    entrants = tuple(dict.fromkeys(a for n in spec.players for a in per_count[n]))
    for name in entrants:
        tournament.TournamentSpec(agents=(name, name), game=GAME, config={"num_players": 2}, games=1).check_agents()
    argv = list(argv) if argv is not None else spec.to_argv()
    run_dir = runs.new_run_dir(spec.out, "baselines", GAME, spec.seed)
    sub = os.path.join(run_dir, "runs")
    say = (lambda *a: None) if spec.quiet else (lambda *a: print(*a, flush=True))
    out: dict[str, Any] = {"game": GAME, "players": list(spec.players), "ladder_agents": list(entrants),
                           "command": "python -m fiveplay_env.experiments.baselines " + shlex.join(argv),
                           "provenance": runs.provenance("fiveplay_env.experiments.baselines", argv), "selfplay": {}, "ladders": {}}
    runs.write_config(run_dir, {k: out[k] for k in ("game", "players", "ladder_agents", "command", "provenance")})
    opts = tournament.RunOptions(out=sub, workers=spec.workers, progress=False, plots=False, quiet=True)
    for n in spec.players:
        out["selfplay"][str(n)] = {}
        if spec.selfplay_games:
            games = n * math.ceil(spec.selfplay_games / n)
            for agent in dict.fromkeys(["random", kit.baseline]):
                say(f"baselines: {n} players, {games} self-play games of {agent}")
                s = tournament.run(tournament.TournamentSpec(agents=(agent,) * n, game=GAME, config={"num_players": n, "first_player": "seat0"},
                                                             games=games, seed=spec.seed), opts)
                fig = seat_figures(os.path.join(s["run_dir"], "games.csv"), n)
                fig["run_dir"] = s["run_dir"]
                out["selfplay"][str(n)][agent] = fig
        seated = per_count[n]
        if spec.ladder_cycles and len(seated) >= n:
            games = spec.ladder_cycles * n * math.comb(len(seated), n)
            say(f"baselines: {n} players, ladder of {len(seated)} entrants, {games} games")
            lspec = ladder.LadderSpec(game=GAME, agents=seated, config={"num_players": n}, games=games,
                                      seed=spec.seed, workers=spec.workers, out=sub, plots=False, quiet=True)
            s = ladder.run(lspec)
            with open(s["ladder_md"], encoding="utf-8") as f:
                table = f.read()
            out["ladders"][str(n)] = {"table": table, "run_dir": s["run_dir"], "games": s["games_completed"],
                                      "entrants": [{"entrant": e["entrant"], "win_rate": e["win_rate"],
                                                    "rating": e["rating"], "ms_per_decision": e["ms_per_decision"]}
                                                   for e in s["entrants"]]}
    text = markdown(out)
    out["run_dir"] = run_dir
    out["baselines_md"] = os.path.join(run_dir, "baselines.md")
    runs.atomic_write(out["baselines_md"], text)
    runs.atomic_write(os.path.join(run_dir, "baselines.json"), json.dumps(out, indent=2) + "\n")
    print(text, flush=True)
    return out


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Parse the command line into a ``BaselinesSpec`` and ``run`` it."""
    argv = list(argv) if argv is not None else sys.argv[1:]
    a = build_parser().parse_args(argv)
    spec = BaselinesSpec(players=tuple(a.players), selfplay_games=a.selfplay_games, ladder_cycles=a.ladder_cycles,
                         search=a.search, agents=tuple(a.agents) if a.agents else None, seed=a.seed,
                         workers=a.workers, out=a.out, quiet=a.quiet)
    return run(spec, argv)


def _cli() -> int:
    return runs.run_cli(main, "baselines", "every finished tournament is kept in the run folder")


if __name__ == "__main__":
    sys.exit(_cli())
