"""Ship a trained policy as package data: evaluate it, export it with its model card, redo the table.

Usage::

    fiveplay ship --run runs/train__take5__1__20261201-024055 --name take5-game-4p \\
        --eval-games 400 --eval-baselines random take5-safest

Writes ``agents/learned/pretrained/<NAME>.pt`` (``fiveplay_env.agents.learned.pretrained.export_policy``: the network
only, no optimizer or trainer state) with its model card: the exact training command (the run's
``config.json``), the wall time of the run (from its start to its last checkpoint, on the machine it
ran on), the decisions trained on, and its strength measured here (greedy, against each baseline, the
policy in one seat and copies of the baseline in the others, ``--eval-games`` duplicate-format games:
``fiveplay_env.experiments.train.evaluate_checkpoint``). Then rewrites ``agents/learned/pretrained/README.md`` from
the cards of every shipped file.

In code: ``run(ShipSpec(run="runs/train__...", name="take5-game-4p"))`` (``main(argv)`` parses the
command line into a ``ShipSpec``).
"""
from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


MACHINE = "the 2-core development machine, torch 1 thread, the other core busy with other work"


def train_minutes(run_dir: str) -> float | None:
    """The run's training time in minutes (collection and update, evaluations excluded, summed over
    resumed sessions): the last ``train_seconds`` of its ``curves.csv``, or None without one."""
    import csv

    path = os.path.join(run_dir, "curves.csv")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    return round(float(rows[-1]["train_seconds"]) / 60.0, 1) if rows else None


def card_of_run(run_dir: str, evaluation: dict[str, Any], note: str = "", machine: str = MACHINE) -> dict[str, Any]:
    """The model card of a training run folder and an ``evaluate_checkpoint`` result. ``wall_minutes``:
    from the run's start to its last checkpoint (pauses between resumed sessions included);
    ``train_minutes``: the training time itself (``train_minutes``)."""
    with open(os.path.join(run_dir, "config.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    argv = [a for a in cfg["argv"]]
    created = cfg.get("created") or cfg["provenance"]["created"]  # runs before 0.2 / from experiments.runs
    started = _dt.datetime.fromisoformat(created).timestamp()
    wall = (os.path.getmtime(os.path.join(run_dir, "checkpoint.pt")) - started) / 60.0
    strength = {}
    for b, r in evaluation["results"].items():
        strength[b] = {"games": r["games"], "win": [round(r["win"][0], 4), round(r["win"][1], 4)],
                       "score": [round(r["score"][0], 3), round(r["score"][1], 3)],
                       "opp_score": [round(r["opp_score"][0], 3), round(r["opp_score"][1], 3)],
                       "score_name": r["score_name"]}
    return {"command": "python -m fiveplay_env.experiments.train " + " ".join(argv), "wall_minutes": round(wall, 1),
            "train_minutes": train_minutes(run_dir),
            "decisions": int(evaluation["progress"]["decisions"]), "config": evaluation["config"],
            "strength": strength, "eval_seed": evaluation["seed"], "note": note, "machine": machine}


def readme() -> str:
    """The README of the shipped policies, from their cards."""
    from fiveplay_env.agents.learned import pretrained

    lines = ["# Shipped policies (`pretrained:NAME`)", "",
             "Load by name anywhere an agent name is accepted, e.g. `make_agent(\"pretrained:take5-game-4p\", \"take5\")` "
             "or `python -m fiveplay_env.experiments.tournament --agents pretrained:take5-game-4p take5-safest ...`. "
             "Made with `python -m fiveplay_env.experiments.ship` (this table too); see `agents/learned/pretrained/__init__.py`.", "",
             "| name | game, config | decisions | training time | strength (greedy; policy in 1 seat, baseline in the others; "
             "win rate and mean score with 95% CI) | training command |", "|---|---|---|---|---|---|"]
    cards = {n: pretrained.model_card(n) for n in pretrained.available()}  # each loads its policy file: once
    for name, c in cards.items():
        spec = pretrained.MODELS[name]
        st = "; ".join(f"vs {b}: win {100 * s['win'][0]:.1f}% ± {100 * s['win'][1]:.1f}, {s['score_name']} "
                       f"{s['score'][0]:.2f} ± {s['score'][1]:.2f} (theirs {s['opp_score'][0]:.2f}), {s['games']} games"
                       for b, s in c.get("strength", {}).items())
        cfg = ", ".join(f"{k}={v}" for k, v in sorted(c.get("config", {}).items()) if k in ("num_players", "mode", "end_score"))
        took = (f"{c['train_minutes']} min ({c.get('wall_minutes', 0)} min wall)" if c.get("train_minutes") is not None
                else f"{c.get('wall_minutes', 0)} min wall")
        lines.append(f"| `{name}` | {spec.game}, {cfg} | {c.get('decisions', 0):,} | {took} | {st} | "
                     f"`{c.get('command', '')}` |")
    notes = [f"- `{n}`: {c['note']}" for n, c in cards.items() if c.get("note")]
    machines = [f"- `{n}`: {c.get('machine', 'not recorded')}" for n, c in cards.items()]
    first = [f"`{n}`" for n, c in cards.items() if c.get("train_minutes") is None]
    lines += ["", "Training time is collection and update (evaluations excluded, summed over resumed sessions); wall "
              "time runs from the run's start to its last checkpoint. Where they ran:", "", *machines]
    if first:
        lines += ["", f"{', '.join(first)}: trained under the trainer's first defaults (trunk 256 x 256, 4 epochs of "
                  "1,024-sample minibatches): to reproduce with today's trainer, add "
                  "`--hidden 256 256 --epochs 4 --minibatch-size 1024` to its command."]
    lines += [*([""] + notes if notes else []), ""]
    return "\n".join(lines)


def source_checkout(here: str) -> str:
    """The repository root holding the package-data folder ``here``; ``ValueError`` when ``here`` is not in a
    source checkout (an installed wheel: shipping would rewrite files of the installed package, which pip
    owns and the next install replaces)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(here))))
    if not (os.path.isfile(os.path.join(root, "pyproject.toml")) and os.path.isdir(os.path.join(root, "agents"))):
        raise ValueError("ship: expected a source checkout of fiveplay (pip install -e . from the repository): "
                         "this install's shipped policies are an installed package's files; train and load "
                         "your policy with ckpt:RUN_DIR instead")
    return root


@dataclass(frozen=True)
class ShipSpec:
    """What to ship (see the module docstring); validated on construction (``ValueError`` naming the field).

    Attributes:
        run: the training run folder; name: the shipped name (a key of ``fiveplay_env.agents.learned.pretrained.MODELS``).
        eval_games: evaluation games per baseline; eval_baselines: baselines (None: the game's);
        seed: the evaluation seed; note: a remark for the card; machine: where it was trained, for the card.
    """

    run: str
    name: str
    eval_games: int = 400
    eval_baselines: tuple[str, ...] | None = None
    seed: int = 12345
    note: str = ""
    machine: str = MACHINE

    def __post_init__(self) -> None:
        from fiveplay_env.agents.learned import pretrained

        if self.name not in pretrained.MODELS:
            raise ValueError(f"name: expected one of {sorted(pretrained.MODELS)}, got {self.name!r}")
        if isinstance(self.eval_games, bool) or not isinstance(self.eval_games, int) or self.eval_games < 1:
            raise ValueError(f"eval-games: expected an integer >= 1, got {self.eval_games!r}")
        if not os.path.isdir(self.run):
            raise ValueError(f"run: expected a training run folder, got {self.run!r}")
        if self.eval_baselines is not None:
            object.__setattr__(self, "eval_baselines", tuple(self.eval_baselines))


def run(spec: ShipSpec) -> dict[str, Any]:
    """Evaluate, export and rewrite the README of the shipped policies; the model card.

    The evaluation is ``fiveplay_env.experiments.train.evaluate_checkpoint`` (the trainer's own)."""
    from fiveplay_env.agents.learned import pretrained
    from fiveplay_env.experiments.train import evaluate_checkpoint

    source_checkout(pretrained.HERE)
    baselines = list(spec.eval_baselines) if spec.eval_baselines is not None else None
    ev = evaluate_checkpoint(spec.run, baselines, spec.eval_games, spec.seed, quiet=True)
    card = card_of_run(spec.run, ev, spec.note, spec.machine)
    out = os.path.join(pretrained.HERE, pretrained.MODELS[spec.name].file)
    size = pretrained.export_policy(spec.run, out, card)
    with open(os.path.join(pretrained.HERE, "README.md"), "w", encoding="utf-8") as f:
        f.write(readme())
    print(f"ship: {spec.name} <- {spec.run} ({size} bytes): {json.dumps(card['strength'])}", flush=True)
    return card


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Parse the command line into a ``ShipSpec`` and ``run`` it."""
    from fiveplay_env.agents.learned import pretrained

    ap = argparse.ArgumentParser(prog="python -m fiveplay_env.experiments.ship", description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", required=True, help="the training run folder")
    ap.add_argument("--name", required=True, choices=sorted(pretrained.MODELS), help="the shipped name")
    ap.add_argument("--eval-games", type=int, default=400, help="evaluation games per baseline (default 400)")
    ap.add_argument("--eval-baselines", nargs="+", default=None, help="baselines (default: the game's)")
    ap.add_argument("--seed", type=int, default=12345, help="evaluation seed (default 12345)")
    ap.add_argument("--note", default="", help="a remark for the card")
    ap.add_argument("--machine", default=MACHINE, help="where it was trained, for the card")
    args = ap.parse_args(list(argv) if argv is not None else None)
    return run(ShipSpec(run=args.run, name=args.name, eval_games=args.eval_games,
                        eval_baselines=tuple(args.eval_baselines) if args.eval_baselines else None, seed=args.seed,
                        note=args.note, machine=args.machine))


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
