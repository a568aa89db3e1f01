"""The strength ladder: a seat-rotated round robin of every shipped agent of a game, as a README table.

Usage::

    fiveplay ladder --game take5 --games 504 --seed 0 --workers 2
    fiveplay ladder --game five_alive --games 280 --seed 0 --workers 2
    fiveplay ladder --game take5 --agents random take5-safest pretrained:take5-round-4p --config num_players=3 --games 24

In code: ``run(LadderSpec(game="take5", games=504))`` (``main(argv)`` parses the command line into a
``LadderSpec`` and calls ``run``).

Entrants (``ladder_agents``; ``--agents`` replaces them): ``random``, every heuristic of the game,
``ismcts:sims=200``, the shipped pretrained policies of the game trained for the ladder's player count
(``fiveplay_env.agents.learned.pretrained``; with none for it, those of the nearest count) and the policy-guided
search (``GUIDED``, when its policy is among them). The games are those of ``fiveplay_env.experiments.tournament`` (its ``run``):
with more entrants than seats the blocks cycle through every n-subset of the entrants, each deal
played from every seat, so the ladder is seat-balanced when ``--games`` is a multiple of
``n * C(entrants, n)`` (4 players, 9 entrants: 504, Take 5's shipped set; 8 entrants: 280, 5 Alive's; the
tournament says ``seat_balanced``).

Output: the tournament's run folder (``config.json``, ``games.csv``, ``summary.json``, plots) plus
``ladder.md``: a Markdown table (openskill rating mu +- sigma, win rate and the game's metrics with 95%
intervals, mean and max ms per decision, games) and the exact command, ready for the README.
"""
from __future__ import annotations

import argparse
import csv
import os
import shlex
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fiveplay_env.agents import games as games_mod
from fiveplay_env.agents import search
from fiveplay_env.experiments import rankings, runs, tournament

GUIDED = search.GUIDED  # the game's policy-guided search setting (``agents.search.GUIDED``)


def ladder_agents(game: str, num_players: int | None = None) -> list[str]:
    """Every shipped agent of ``game``: random, the heuristics, ``ismcts:sims=200``, the pretrained
    policies present in this install and the policy-guided search (when its policy is present).

    ``num_players``: of the pretrained policies only those trained for that many players, or, when none
    is, those trained for the nearest count (the higher on a tie): a 6-player ladder seats the 6-player
    policy, not the 4- and 10-player ones adapted (None: every policy)."""
    from fiveplay_env.agents.registry import known_agents

    names = [n for n in known_agents(game) if ":" not in n and n != "ismcts"]  # random + heuristics
    names.append("ismcts:sims=200")
    try:
        from fiveplay_env.agents.learned import pretrained
    except ImportError:  # pragma: no cover - torch-free installs still have the rest
        return names
    mine = pretrained.for_players(game, num_players)
    names += [f"pretrained:{n}" for n in mine]
    guided = guided_for(game, num_players)
    if guided and search.guided_prior(guided) in mine:
        names.append(guided)
    return names


def guided_for(game: str, num_players: int | None = None) -> str | None:
    """``GUIDED[game]`` for ``num_players`` players: its prior replaced by the shipped policy of the same
    family (``fiveplay_env.agents.learned.pretrained.family``: ``take5-game-4p`` -> ``take5-game-6p``) trained for the
    count nearest ``num_players`` among that family's installed policies (``pretrained.for_players``);
    else ``GUIDED[game]`` as it is (None for a game without one)."""
    setting = GUIDED.get(game)
    prior = search.guided_prior(setting) if setting else None
    if prior is None or num_players is None:
        return setting
    try:
        from fiveplay_env.agents.learned import pretrained
    except ImportError:  # pragma: no cover - torch-free installs
        return setting
    same = pretrained.for_players(game, num_players, of_family=pretrained.family(prior))
    if prior in same or not same:
        return setting
    return setting.replace(f"prior={prior}", f"prior={same[0]}", 1)


def markdown(summary: dict[str, Any], command: str) -> str:
    """The ladder table (best rating first) and the command that made it."""
    metric_names = [m["name"] for m in summary["metrics"]]
    lower = {m["name"]: m["lower_is_better"] for m in summary["metrics"]}

    def ci(c: dict[str, Any], pct: bool = False) -> str:
        if c["mean"] is None:
            return "-"
        k = 100.0 if pct else 1.0
        hw = c.get("half_width")
        return f"{k * c['mean']:.1f}" + ("%" if pct else "") + (f" ± {k * hw:.1f}" if hw is not None else "")

    head = (["#", "agent", "rating (mu ± sigma)", "win rate (95% CI)"]
            + [f"{m} ({'lower' if lower[m] else 'higher'} better)" for m in metric_names]
            + ["ms/decision (max)", "games"])
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    order = sorted(summary["entrants"], key=lambda e: -e["rating"]["mu"])
    for rank, e in enumerate(order, 1):
        ms = e["ms_per_decision"]
        row = ([str(rank), f"`{e['entrant']}`", f"{e['rating']['mu']:.2f} ± {e['rating']['sigma']:.2f}",
                ci(e["win_rate"], pct=True)] + [ci(e["metrics"][m]) for m in metric_names]
               + ["-" if ms is None else f"{ms:.2f} ({e['max_ms_per_decision']:.0f})", str(e["games"])])
        lines.append("| " + " | ".join(row) + " |")
    n = summary["players"]
    cfg = ", ".join(f"{k}={v}" for k, v in sorted(summary["config"].items()))
    note = (f"{summary['game']} ({cfg}); {summary['games_completed']} of {summary['games_planned']} games, "
            f"{n} players per game, seats rotated{'' if summary['seat_balanced'] else ' (not seat-balanced)'}; "
            f"parity win rate {100.0 / n:.0f}%.")
    return "\n".join([note, "", *lines, "", f"Command: `{command}`", ""])


def head_to_heads(games_csv: str, names: Sequence[str]) -> list[tuple[list[int], list[float]]]:
    """The games of a tournament's ``games.csv`` as ``fiveplay_env.experiments.rankings`` games: for each game, the
    entrants' indices in ``names`` (by seat) and their placings (rows of other entrants are skipped)."""
    index = {n: i for i, n in enumerate(names)}
    by_game: dict[str, list[tuple[int, int, float]]] = {}
    with open(games_csv, encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            if row["entrant"] not in index:
                continue
            by_game.setdefault(row["game"], []).append((int(row["seat"]), index[row["entrant"]], float(row["placing"])))
    out = []
    for rows in by_game.values():
        rows.sort()
        out.append(([r[1] for r in rows], [r[2] for r in rows]))
    return out


@dataclass(frozen=True)
class LadderSpec:
    """A ladder (see the module docstring); validated on construction (``ValueError`` naming the field).

    Attributes:
        game: the game (a key of ``fiveplay_env.agents.games.GAMES``).
        agents: the entrants (None: ``ladder_agents(game)``, every shipped agent); at least 2.
        config: game config fields (None: the game's default config).
        games: games in all; seed: the tournament seed; workers: processes playing games.
        out: the folder holding run folders; plots: write the PNG plots.
        progress: show a progress bar of the games played on stderr.
        quiet: print nothing (no progress bar either).
    """

    game: str
    agents: tuple[str, ...] | None = None
    config: Mapping[str, Any] | None = None
    games: int = 504
    seed: int = 0
    workers: int = 1
    out: str = "runs"
    plots: bool = True
    progress: bool = True
    quiet: bool = False

    def __post_init__(self) -> None:
        games_mod.get_game(self.game)
        if self.agents is not None:
            if isinstance(self.agents, str):
                raise ValueError(f"agents: expected a sequence of agent names, got the string {self.agents!r}")
            agents = tuple(self.agents)
            if len(agents) < 2:
                raise ValueError(f"agents: expected at least 2 entrants, got {list(agents)}")
            object.__setattr__(self, "agents", agents)
        if self.config is not None and not isinstance(self.config, Mapping):
            raise ValueError(f"config: expected a mapping of config fields to values, got {self.config!r}")

    def tournament(self) -> tournament.TournamentSpec:
        """The tournament this ladder plays."""
        config = self.config_or_default()
        agents = (self.agents if self.agents is not None
                  else tuple(ladder_agents(self.game, config.get("num_players"))))
        if len(agents) < 2:
            raise ValueError(f"agents: expected at least 2 entrants, got {list(agents)}")
        return tournament.TournamentSpec(agents=agents, game=self.game, config=config,
                                         games=self.games, seed=self.seed)

    def config_or_default(self) -> dict[str, Any]:
        if self.config is not None:
            return dict(self.config)
        game = games_mod.get_game(self.game)
        return game.config_dict(game.make_config())  # the game's default config

    def to_argv(self) -> list[str]:
        """The ``python -m fiveplay_env.experiments.ladder`` arguments of this spec."""
        argv = ["--game", self.game]
        if self.agents is not None:
            argv += ["--agents", *self.agents]
        if self.config is not None:
            argv += ["--config", *(f"{k}={v}" for k, v in self.config.items())]
        argv += ["--games", str(self.games), "--seed", str(self.seed), "--workers", str(self.workers), "--out", self.out]
        return (argv + (["--no-plots"] if not self.plots else []) + (["--no-progress"] if not self.progress else [])
                + (["--quiet"] if self.quiet else []))


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m fiveplay_env.experiments.ladder", description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("Usage::")[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", required=True, choices=sorted(games_mod.GAMES), help="the game")
    ap.add_argument("--agents", nargs="+", metavar="NAME", help="entrants instead of every shipped agent")
    ap.add_argument("--config", nargs="*", metavar="FIELD=VALUE",
                    help="game config (default: take5 num_players=4 mode=game; five_alive num_players=4; another game: "
                         "its default players)")
    ap.add_argument("--games", type=int, default=504, help="games in all (default 504)")
    ap.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    ap.add_argument("--workers", type=int, default=1, help="processes playing games (default 1)")
    ap.add_argument("--out", default="runs", help="folder holding run folders (default runs)")
    ap.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    ap.add_argument("--quiet", action="store_true", help="print nothing (implies --no-progress)")
    return ap


def run(spec: LadderSpec, argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run the ladder; returns the tournament summary plus ``ladder_md`` (the path of ``ladder.md``).
    ``argv``: the command line the table names (None: the one ``spec.to_argv()`` gives)."""
    summary = tournament.run(spec.tournament(), tournament.RunOptions(
        out=spec.out, workers=spec.workers, progress=spec.progress, plots=spec.plots, quiet=spec.quiet))
    command = "python -m fiveplay_env.experiments.ladder " + (" ".join(argv) if argv is not None else shlex.join(spec.to_argv()))
    path = os.path.join(summary["run_dir"], "ladder.md")
    text = markdown(summary, command)
    names = [e["entrant"] for e in sorted(summary["entrants"], key=lambda e: -e["rating"]["mu"])]
    played = head_to_heads(os.path.join(summary["run_dir"], "games.csv"), names)
    if played:
        text += ("\nGame-theoretic rankings from the same games (Nash averaging and alpha-Rank, "
                 "`fiveplay_env.experiments.rankings`):\n\n" + rankings.report(names, played, seed=spec.seed) + "\n")
    runs.atomic_write(path, text)
    summary["ladder_md"] = path
    if not spec.quiet:
        print(f"ladder table: {path}", flush=True)
    return summary


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Parse the command line into a ``LadderSpec`` and ``run`` it."""
    argv = list(argv) if argv is not None else sys.argv[1:]
    args = build_parser().parse_args(argv)
    spec = LadderSpec(game=args.game, agents=tuple(args.agents) if args.agents else None,
                      config=games_mod.parse_config(args.config) if args.config is not None else None,
                      games=args.games, seed=args.seed, workers=args.workers, out=args.out, plots=not args.no_plots,
                      progress=not args.no_progress, quiet=args.quiet)
    return run(spec, argv)


def _cli() -> int:
    return runs.run_cli(main, "ladder", "every finished game is kept (resume the tournament with --resume)")


if __name__ == "__main__":
    sys.exit(_cli())
