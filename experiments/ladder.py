"""The strength ladder: a seat-rotated round robin of every shipped agent of a game, as a README table.

Usage::

    python -m experiments.ladder --game take5 --games 504 --seed 0 --workers 2
    python -m experiments.ladder --game five_alive --games 280 --seed 0 --workers 2
    python -m experiments.ladder --game take5 --agents random take5-safest pretrained:take5-round-4p --games 24

Entrants (``ladder_agents``; ``--agents`` replaces them): ``random``, every heuristic of the game,
``ismcts:sims=200``, every shipped pretrained policy of the game (``agents.learned.pretrained``) and the
policy-guided search (``GUIDED``). The games are those of ``experiments.tournament`` (its ``main``):
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
import os
import sys
from collections.abc import Sequence
from typing import Any

from experiments import runs

DEFAULT_CONFIG: dict[str, list[str]] = {"take5": ["num_players=4", "mode=game"], "five_alive": ["num_players=4"]}
GUIDED: dict[str, str] = {
    "take5": "ismcts:sims=160,prior=take5-game-4p,rollout=policy,depth=1,value=1",
    "five_alive": "ismcts:sims=100,prior=five-alive-4p,rollout=policy,depth=2,value=1,topk=2",
}
"""The policy-guided search setting of each game in the ladder (``agents.search``: the shipped policy
plays the rollouts and its value head ends them; in 5 Alive only its two most probable actions are
searched)."""


def ladder_agents(game: str) -> list[str]:
    """Every shipped agent of ``game``: random, the heuristics, ``ismcts:sims=200``, the pretrained
    policies present in this install and the policy-guided search (when its policy is present)."""
    from agents.registry import known_agents

    names = [n for n in known_agents(game) if ":" not in n and n != "ismcts"]  # random + heuristics
    names.append("ismcts:sims=200")
    try:
        from agents.learned import pretrained
    except ImportError:  # pragma: no cover - torch-free installs still have the rest
        return names
    mine = [n for n in pretrained.available() if pretrained.MODELS[n].game == game]
    names += [f"pretrained:{n}" for n in mine]
    guided = GUIDED.get(game)
    if guided and any(f"prior={n}" in guided for n in mine):
        names.append(guided)
    return names


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


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m experiments.ladder", description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("Usage::")[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", required=True, choices=["take5", "five_alive"], help="the game")
    ap.add_argument("--agents", nargs="+", metavar="NAME", help="entrants instead of every shipped agent")
    ap.add_argument("--config", nargs="*", metavar="FIELD=VALUE",
                    help="game config (default: take5 num_players=4 mode=game; five_alive num_players=4)")
    ap.add_argument("--games", type=int, default=504, help="games in all (default 504)")
    ap.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    ap.add_argument("--workers", type=int, default=1, help="processes playing games (default 1)")
    ap.add_argument("--out", default="runs", help="folder holding run folders (default runs)")
    ap.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    ap.add_argument("--quiet", action="store_true", help="print nothing")
    return ap


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run the ladder; returns the tournament summary plus ``ladder_md`` (the path of ``ladder.md``)."""
    from experiments import tournament

    argv = list(argv) if argv is not None else sys.argv[1:]
    args = build_parser().parse_args(argv)
    agents = args.agents or ladder_agents(args.game)
    if len(agents) < 2:
        raise ValueError(f"agents: expected at least 2 entrants, got {agents}")
    config = args.config if args.config is not None else DEFAULT_CONFIG[args.game]
    t_argv = ["--game", args.game, "--agents", *agents, "--config", *config, "--games", str(args.games),
              "--seed", str(args.seed), "--workers", str(args.workers), "--out", args.out, "--no-progress"]
    if args.no_plots:
        t_argv.append("--no-plots")
    if args.quiet:
        t_argv.append("--quiet")
    summary = tournament.main(t_argv)
    command = "python -m experiments.ladder " + " ".join(argv)
    path = os.path.join(summary["run_dir"], "ladder.md")
    runs.atomic_write(path, markdown(summary, command))
    summary["ladder_md"] = path
    if not args.quiet:
        print(f"ladder table: {path}", flush=True)
    return summary


def _cli() -> int:
    return runs.run_cli(main, "ladder", "every finished game is kept (resume the tournament with --resume)")


if __name__ == "__main__":
    sys.exit(_cli())
