"""The ``fiveplay`` command: one verb per experiment, and the game table.

    fiveplay games                                   # the games this install knows
    fiveplay games take5                             # one game: config fields, presets, metrics
    fiveplay agents take5                            # every agent name of a game, a line each
    fiveplay tournament --game take5 --agents take5-safest random random random --games 100
    fiveplay train --game take5 --config num_players=4 mode=round --max-minutes 5
    fiveplay replay runs/tournament__take5__0__*/records/game_000000.jsonl
    fiveplay VERB --help                             # VERB's own options
    fiveplay --version

``fiveplay VERB ARGS`` is ``python -m MODULE ARGS``: the verb's module parses ``ARGS`` with its own
parser (there is no copy of any option here) into its typed spec and calls its ``run``; the exit code,
the one-line errors and what a Ctrl-C keeps are the module's. The forwarding runs the module's own
``if __name__ == "__main__":`` block in the module as imported, with ``sys.argv`` set to
``["fiveplay VERB", *ARGS]``; ``python -m fiveplay_env.experiments VERB ARGS`` is the same command without the
console script. A verb whose optional packages are not installed exits 1 with one line naming the
missing package and the extra that provides it (``fiveplay_env.core.extras``).

| verb          | module                    | what                                                     |
|---------------|---------------------------|----------------------------------------------------------|
| ``games``     | (here)                    | the game table (``fiveplay_env.games``)                  |
| ``agents``    | (here)                    | every agent name a game accepts (``fiveplay_env.agents.registry``)    |
| ``replay``    | (here)                    | a record as text, checked (``fiveplay_env.replay_text``) |
| ``tournament``| ``fiveplay_env.experiments.tournament``| seat-rotated tournaments with intervals and ratings      |
| ``ladder``    | ``fiveplay_env.experiments.ladder``    | every shipped agent in one round robin                   |
| ``exploit``   | ``fiveplay_env.experiments.exploit``   | how much a fresh best response gains against an agent    |
| ``budget``    | ``fiveplay_env.experiments.budget``    | search strength as a function of its budget (curves)     |
| ``baselines`` | ``fiveplay_env.experiments.baselines`` | 5 Alive seat win rates, game length, ladders per count   |
| ``train``     | ``fiveplay_env.experiments.train``     | PPO self-play training (the ``train`` extra)             |
| ``curves``    | ``fiveplay_env.experiments.curves``    | training runs' learning curves side by side (wall time)  |
| ``rllib-train``| ``fiveplay_env.experiments.rllib_train``| RLlib training (the ``distributed`` extra)              |
| ``bench``     | ``fiveplay_env.experiments.bench``     | engine and environment throughput                        |
| ``ray-bench`` | ``fiveplay_env.experiments.ray_bench`` | tournaments and training on Ray                          |
| ``gpu-check`` | ``fiveplay_env.experiments.gpu_check`` | the trainer and the JAX engine on an accelerator         |
| ``ship``      | ``fiveplay_env.experiments.ship``      | model cards of the shipped policies                      |
| ``demo``      | ``fiveplay_env.experiments.demo``      | what ``make demo`` runs: a short training, two tournaments|
| ``web``       | ``fiveplay_env.experiments.web``       | the local web app (alias ``play``; the ``web`` extra)     |
| ``openspiel-compare`` | ``fiveplay_env.experiments.openspiel_compare`` | OpenSpiel's IS-MCTS against ours (``openspiel``) |
| ``jax-train-bench`` | ``fiveplay_env.experiments.jax_train_bench`` | the torch trainer against the JAX path, throughput  |
| ``bench-clients`` | ``fiveplay_env.experiments.bench_clients`` | MaskablePPO's throughput on our envs (``clients``)     |

The verbs' one-line descriptions are their modules' docstrings, read without importing them (so
``fiveplay --help`` and ``fiveplay games`` do not load torch or Ray).
"""
from __future__ import annotations

import argparse
import ast
import contextlib
import dataclasses
import importlib
import importlib.util
import json
import re
import sys
from collections.abc import Iterator, Sequence
from typing import Any

from fiveplay_env.core import extras
from fiveplay_env.core.printable import escape

PROG = "fiveplay"

VERBS: dict[str, str] = {
    "tournament": "fiveplay_env.experiments.tournament",
    "ladder": "fiveplay_env.experiments.ladder",
    "exploit": "fiveplay_env.experiments.exploit",
    "budget": "fiveplay_env.experiments.budget",
    "baselines": "fiveplay_env.experiments.baselines",
    "train": "fiveplay_env.experiments.train",
    "curves": "fiveplay_env.experiments.curves",
    "rllib-train": "fiveplay_env.experiments.rllib_train",
    "bench": "fiveplay_env.experiments.bench",
    "ray-bench": "fiveplay_env.experiments.ray_bench",
    "gpu-check": "fiveplay_env.experiments.gpu_check",
    "ship": "fiveplay_env.experiments.ship",
    "demo": "fiveplay_env.experiments.demo",
    "web": "fiveplay_env.experiments.web",
    "openspiel-compare": "fiveplay_env.experiments.openspiel_compare",
    "jax-train-bench": "fiveplay_env.experiments.jax_train_bench",
    "bench-clients": "fiveplay_env.experiments.bench_clients",
}
"""Each forwarding verb and the module ``python -m`` would run for it."""

NEEDS: dict[str, tuple[str, ...]] = {
    "tournament": ("filelock", "openskill", "tqdm"),
    "ladder": ("filelock", "openskill", "tqdm", "torch"),
    "exploit": ("filelock", "openskill", "tqdm", "torch"),
    "budget": ("filelock", "openskill", "tqdm", "torch"),
    "baselines": ("filelock", "openskill", "tqdm", "torch"),
    "train": ("filelock", "tqdm", "torch"),
    "curves": ("matplotlib",),
    "rllib-train": ("ray", "torch", "filelock"),   # (the 'distributed' extra has them all)
    "ray-bench": ("ray", "torch", "filelock", "openskill"),
    "gpu-check": ("torch",),
    "ship": ("torch", "filelock", "openskill"),
    "demo": ("filelock", "openskill", "tqdm", "torch"),
    "web": ("starlette", "uvicorn"),
    "openspiel-compare": ("pyspiel",),
    "jax-train-bench": ("jax", "torch"),
    "bench-clients": ("torch", "sb3_contrib", "stable_baselines3"),
}
"""The optional packages each verb cannot run without (``bench`` needs none). They are looked up (not
imported) before the verb runs, so that a core-only install hears of every missing extra at once, in
one line with the install form for a checkout and for a wheel (``extras.missing_line``); ``--help``
skips the check. A package a run needs only for some arguments (OpenSpiel's agents, torch for a
``ckpt:`` opponent of a tournament) is reported when it is imported, in the same form."""

OWN_PACKAGES = ("fiveplay_env", "agents", "experiments")
"""This project's top-level packages (a missing one is a broken install, not a missing extra)."""

ALIASES: dict[str, tuple[str, ...]] = {"web": ("play",)}
"""Other names of a verb."""


# --- the modules' own command lines ---------------------------------------------------------------------


def main_module(module: str) -> str:
    """The module whose ``__main__`` block ``python -m module`` runs: ``module`` itself, or a package's
    ``__main__`` submodule. ``ValueError`` naming the module if it cannot be found."""
    try:
        spec = importlib.util.find_spec(module)
    except ImportError as exc:
        raise ValueError(f"{module}: expected an importable module, got {exc}") from None
    if spec is None:
        raise ValueError(f"{module}: expected an importable module, found none")
    return f"{module}.__main__" if spec.submodule_search_locations is not None else module


def _source(module: str) -> tuple[str, str]:
    """``(source, file name)`` of a module, read without importing it."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.loader is None or not hasattr(spec.loader, "get_source"):
        raise ValueError(f"{module}: expected a module with Python source, found none")
    source = spec.loader.get_source(module)  # type: ignore[union-attr]
    if source is None:
        raise ValueError(f"{module}: expected a module with Python source, found none")
    return source, spec.origin or module


def main_block(module: str) -> ast.Module:
    """The body of ``module``'s top-level ``if __name__ == "__main__":`` block, as a module to compile
    (``ValueError`` if it has none: it is not a command)."""
    source, _ = _source(module)
    for node in ast.parse(source).body:
        if (isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and isinstance(node.test.left, ast.Name)
                and node.test.left.id == "__name__" and len(node.test.comparators) == 1
                and isinstance(node.test.comparators[0], ast.Constant) and node.test.comparators[0].value == "__main__"):
            return ast.Module(body=node.body, type_ignores=[])
    raise ValueError(f"{module}: expected an 'if __name__ == \"__main__\":' block (a command), found none")


def summary(module: str) -> str:
    """The head of a module's (or package's) docstring (its first sentence up to a colon, semicolon or
    full stop, reST quotes dropped), read without importing it."""
    source, _ = _source(module)
    doc = " ".join((ast.get_docstring(ast.parse(source)) or "").split("\n\n")[0].split())
    return re.split(r"[:;]\s|\.(?:\s|$)", doc.replace("``", ""), maxsplit=1)[0].strip()


def forward(verb: str, argv: Sequence[str]) -> int:
    """``python -m VERBS[verb] *argv``, in this process: the module is imported as usual, then its own
    ``__main__`` block runs in it with ``sys.argv = ["fiveplay VERB", *argv]``. Returns the exit code
    (``SystemExit`` from the block becomes its code: an argparse usage error is 2, ``--help`` 0)."""
    if verb not in VERBS:
        raise ValueError(f"{PROG}: expected one of the verbs {sorted(VERBS)}, got {verb!r}")
    if not {"-h", "--help"} & set(argv):
        line = extras.missing_line(NEEDS.get(verb, ()), "this command")
        if line is not None:
            print(f"{PROG} {verb}: error: {line}", file=sys.stderr)
            return 1
    name = main_module(VERBS[verb])
    code = compile(main_block(name), _source(name)[1], "exec")
    saved = sys.argv
    sys.argv = [f"{PROG} {verb}", *argv]
    try:
        module = importlib.import_module(name)  # importing it may need an optional package too
        with _prog_renamed(f"python -m {VERBS[verb]}", f"{PROG} {verb}"):
            exec(code, vars(module))
    except SystemExit as exc:
        return _exit_code(exc.code)
    except ImportError as exc:  # an optional package missing: one line, no traceback
        own = (exc.name or "").split(".")[0] in OWN_PACKAGES
        if own or not (isinstance(exc, ModuleNotFoundError) or exc.name or " extra" in str(exc)):
            raise  # a broken install of this project, not an optional package: the traceback says where
        said = extras.missing(exc, "this command") if isinstance(exc, ModuleNotFoundError) else exc
        print(f"{PROG} {verb}: error: {said}".replace("\n", " "), file=sys.stderr)
        return 1
    finally:
        sys.argv = saved
    return 0


@contextlib.contextmanager
def _prog_renamed(old: str, new: str) -> Iterator[None]:
    """While the block runs, a parser built with ``prog=old`` (the modules that name themselves
    ``python -m MODULE`` in their usage line) is named ``new``: ``fiveplay VERB --help`` and its usage
    errors say ``fiveplay VERB``. Parsers without a ``prog`` take ``sys.argv[0]``, set by ``forward``."""
    init = argparse.ArgumentParser.__init__

    def renamed(self: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        if self.prog == old:
            self.prog = new

    argparse.ArgumentParser.__init__ = renamed  # type: ignore[method-assign]
    try:
        yield
    finally:
        argparse.ArgumentParser.__init__ = init  # type: ignore[method-assign]


def _exit_code(code: Any) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)  # sys.exit("message") prints it and exits 1
    return 1


# --- fiveplay games -------------------------------------------------------------------------------------


def game_facts(game: Any) -> dict[str, Any]:
    """One game of the table as plain data: what ``fiveplay games`` prints."""
    config = game.config_cls()
    return {
        "name": game.name, "title": game.title, "players": [game.spec.min_players, game.spec.max_players],
        "actions": game.num_actions, "observation_size": int(game.observation_size(config)),
        "gym_id": game.gym_id, "env_module": game.env_module, "batched": game.batched,
        "jax_engine": game.jax_engine, "jax_engine_here": _exists(game.jax_engine), "env_name": game.spec.name, "version": game.spec.version,
        "config": game.config_dict(config),
        "presets": {name: game.config_dict(c) if dataclasses.is_dataclass(c) else dict(c)
                    for name, c in game.presets.items()},
        "metrics": [{"name": m.name, "lower_is_better": m.lower_is_better, "meaning": m.meaning} for m in game.metrics],
        "score": game.score,
    }


def _exists(module: str | None) -> bool:
    """Whether a module named by a definition is in this install (found, not imported)."""
    if not module:
        return False
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:
        return False


def _jax(f: dict[str, Any]) -> str:
    if not f["jax_engine"]:
        return "-"
    return f["jax_engine"] + (" (the jax extra)" if f["jax_engine_here"] else " (named, not in this version)")


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    rows = [[escape(x, 120) for x in r] for r in rows]  # (a plug-in's strings: printable, one line each)
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = lambda r: "  ".join(str(x).ljust(w) for x, w in zip(r, widths)).rstrip()  # noqa: E731
    return "\n".join([line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def games_text(facts: Sequence[dict[str, Any]]) -> str:
    """The game table as aligned columns."""
    rows = [[f["name"], f["title"], "{}-{}".format(*f["players"]), str(f["actions"]), str(f["observation_size"]),
             f["gym_id"] or "-", "yes" if f["batched"] else "no", "yes" if f["jax_engine_here"] else "no"] for f in facts]
    return _table(["name", "title", "players", "actions", "observation", "gymnasium id", "batched", "jax"], rows)


def game_text(f: dict[str, Any]) -> str:
    """One game in detail: its facts, config fields with defaults, presets and metrics."""
    out = [f"{f['name']}: {f['title']}",
           f"  players {f['players'][0]}-{f['players'][1]}, Discrete({f['actions']}) actions, "
           f"float32[{f['observation_size']}] observation (default config)",
           f"  env module {f['env_module']}; Gymnasium id {f['gym_id'] or '-'}; batched engine {f['batched'] or '-'}; "
           f"JAX engine {_jax(f)}", "", "config fields (defaults; --config FIELD=VALUE):"]
    out += [f"  {k} = {v!r}" for k, v in f["config"].items()]
    if f["presets"]:
        out += ["", "presets (the fields each one changes):"]
        for name, values in f["presets"].items():
            changed = {k: v for k, v in values.items() if f["config"].get(k) != v}
            out.append(f"  {name}: " + (" ".join(f"{k}={v}" for k, v in changed.items()) or "the defaults"))
    out += ["", f"metrics (score: {f['score']}):"]
    out += [f"  {m['name']} ({'lower' if m['lower_is_better'] else 'higher'} is better): {m['meaning']}"
            for m in f["metrics"]]
    return "\n".join(escape(line, 400) for line in out)


def games_command(args: argparse.Namespace) -> int:
    from fiveplay_env import games

    try:
        chosen = [games.get(n) for n in args.names] if args.names else [games.table()[n] for n in sorted(games.table())]
    except (KeyError, ValueError) as exc:
        print(f"{PROG} games: error: {escape(exc.args[0] if exc.args else exc)}", file=sys.stderr)
        return 2
    facts = [game_facts(g) for g in chosen]
    if args.json:
        print(json.dumps(facts, indent=2))
    elif args.names:
        print("\n\n".join(game_text(f) for f in facts))
    else:
        print(games_text(facts))
    return 0


# --- fiveplay agents ------------------------------------------------------------------------------------


def agents_text(game: str) -> str:
    """Every agent name ``game`` accepts, a line each (``fiveplay_env.agents.registry.catalogue``)."""
    from fiveplay_env.agents.registry import catalogue

    rows = catalogue(game)
    width = max(len(r["name"]) for r in rows)
    lines = [f"{game}: agent names for --agents, --opponents, --eval-baselines ({len(rows)} kinds)"]
    for r in rows:
        needs = f" [the {r['needs']} extra]" if r["needs"] else ""
        lines.append(f"  {r['name'].ljust(width)}  {r['what']}{needs}")
    return "\n".join(escape(line, 400) for line in lines)  # (plug-in names and texts: printable, one line each)


def agents_command(args: argparse.Namespace) -> int:
    from fiveplay_env import games

    try:
        names = args.names or sorted(games.table())
        for n in names:
            games.get(n)
    except (KeyError, ValueError) as exc:
        print(f"{PROG} agents: error: {escape(exc.args[0] if exc.args else exc)}", file=sys.stderr)
        return 2
    if args.json:
        from fiveplay_env.agents.registry import catalogue

        print(json.dumps({n: catalogue(n) for n in names}, indent=2))
    else:
        print("\n\n".join(agents_text(n) for n in names))
    return 0


# --- fiveplay replay ------------------------------------------------------------------------------------


def replay_command(args: argparse.Namespace) -> int:
    """Replay every record of a file (or the ``--index`` one) through the reference engine, checking each
    step, the result and the digest: a line per game, then (unless ``--verify-only``) the game as text
    (``fiveplay_env.replay_text``: the table, a line per step, the table at each trick or round end; from
    above or ``--seat K``'s view; ``--to N`` stops after N actions; ``--step`` waits for Enter between
    steps at a terminal). A record that does not replay exactly is a one-line error naming it and the
    step (exit 2)."""
    from fiveplay_env import records, replay_text

    try:
        recs = records.read_records(args.path, allow_legacy=args.allow_legacy)
        if args.index is not None:
            if not 0 <= args.index < len(recs):
                raise ValueError(f"--index: expected 0..{len(recs) - 1} ({len(recs)} records in {args.path}), "
                                 f"got {args.index}")
            chosen = [(args.index, recs[args.index])]
        else:
            chosen = list(enumerate(recs))
        pause = args.step and sys.stdin.isatty() and sys.stdout.isatty()
        for i, rec in chosen:
            where = f"{args.path} record {i}"
            done = records.replay(rec, where, keep_states=args.states, allow_legacy=args.allow_legacy)
            agents = ", ".join(escape(a, 200) for a in rec.get("agents") or ()) or "agents not recorded"
            print(f"record {i}: {rec['game']}, seed {rec['seed']}, {len(rec['actions'])} actions ({agents}): "
                  f"replays exactly; final {json.dumps(rec.get('final', records.summary(rec['game'], done.engine.state)))}")
            if args.states:
                for step, state in enumerate(done.states):
                    print(f"  state {step}: {json.dumps(records.summary(rec['game'], state))}")
            if args.verify_only or args.states:
                continue
            seen = "from above (every hand)" if args.seat is None else f"as player_{args.seat} sees it"
            print(f"--- the game {seen}" + (f", to step {args.to}" if args.to is not None else "") + " ---")
            for block in replay_text.game_text(rec, where, viewer=args.seat, to=args.to, allow_legacy=args.allow_legacy):
                print(block, flush=pause)
                if pause and block.startswith("step ") and _wait() == "q":
                    break
    except (ValueError, OSError) as exc:  # RecordError is a ValueError
        if isinstance(exc, BrokenPipeError):
            raise
        print(f"{PROG} replay: error: {escape(exc)}", file=sys.stderr)
        return 2
    return 0


def _wait() -> str:
    """``--step``: wait for Enter (``q`` then Enter stops); end of input stops too."""
    try:
        return input("  [Enter: next step, q: stop] ").strip().lower()[:1]
    except EOFError:
        return "q"


# --- the command ----------------------------------------------------------------------------------------


def version() -> str:
    import fiveplay_env

    return fiveplay_env.__version__


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser: ``--version`` and one subparser per verb. A forwarding verb's subparser has
    no options of its own (its arguments pass through untouched to its module's parser)."""
    ap = argparse.ArgumentParser(prog=PROG, description="Take 5 and 5 Alive: tournaments, training, "
                                 "evaluation, benchmarks and the web app, from one command.",
                                 epilog=f"'{PROG} VERB --help' shows a verb's options. "
                                        f"'{PROG} VERB ...' is 'python -m MODULE ...' (the module is in each line above).")
    ap.add_argument("--version", action="version", version=f"{PROG} {version()}")
    sub = ap.add_subparsers(dest="verb", metavar="VERB", required=True)
    g = sub.add_parser("games", help="the game table: name, players, actions, observation, engines",
                       description="The games of the table (fiveplay_env.games): the built-in ones and those "
                                   "registered by installed distributions (entry points 'fiveplay.games').")
    g.add_argument("names", nargs="*", metavar="GAME", help="show these games in detail")
    g.add_argument("--json", action="store_true", help="print the facts as JSON")
    ag = sub.add_parser("agents", help="every agent name a game accepts, a line each (heuristics, searches and "
                                       "their keys, shipped policies, checkpoints, your own bot)",
                        description="The agent names of fiveplay_env.agents.registry for each game: what --agents, --opponents "
                                    "and --eval-baselines accept.")
    ag.add_argument("names", nargs="*", metavar="GAME", help="only these games (default: every game)")
    ag.add_argument("--json", action="store_true", help="print the names as JSON")
    r = sub.add_parser("replay", help="show a recorded game as text, trick by trick or move by move, and check "
                                      "that it replays exactly (a tournament's --record files, the web app's games)",
                       description="Replay each record of a JSON Lines file through the reference engine, checking "
                                   "every step, the result and the final digest (fiveplay_env.records), and show "
                                   "the game as text: the table, a line per step, the table after each trick "
                                   "(Take 5) or round (5 Alive).")
    r.add_argument("path", metavar="RECORDS.jsonl", help="a records file (RUN_DIR/records/game_NNNNNN.jsonl)")
    r.add_argument("--index", type=int, default=None, help="only this record of the file (0-based)")
    r.add_argument("--seat", type=int, default=None, metavar="K",
                   help="show the game as player_K sees it (its own hand only; default: from above, every hand)")
    r.add_argument("--to", type=int, default=None, metavar="N", help="stop after N actions (the table there)")
    r.add_argument("--step", action="store_true", help="wait for Enter after each step (at a terminal)")
    r.add_argument("--verify-only", action="store_true", help="only check the records: one line per game")
    r.add_argument("--allow-legacy", action="store_true",
                   help="read version-1 records too (they have no chain: an edited action that stays legal is "
                        "caught only if the game later breaks or its result differs)")
    r.add_argument("--states", action="store_true",
                   help="check, and print the outcome summary after every step instead of the game as text")
    for verb, module in VERBS.items():
        sub.add_parser(verb, aliases=list(ALIASES.get(verb, ())), add_help=False,
                       help=f"{summary(module)} (python -m {module})")
    return ap


def canonical_verb(verb: str) -> str:
    for name, aliases in ALIASES.items():
        if verb in aliases:
            return name
    return verb


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``fiveplay ARGV``; returns the exit code (the console script exits with it)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = build_parser()
    try:
        args, rest = ap.parse_known_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error (argparse printed it)
        return _exit_code(exc.code)
    verb = canonical_verb(args.verb)
    if verb in BUILT_IN:
        if rest:
            print(f"{PROG} {verb}: error: unrecognized arguments: {' '.join(rest)}", file=sys.stderr)
            return 2
        return BUILT_IN[verb](args)
    # everything after the verb goes to the module's parser, in order (parse_known_args keeps it so)
    return forward(verb, argv[argv.index(args.verb) + 1:])


BUILT_IN = {"games": games_command, "agents": agents_command, "replay": replay_command}
"""The verbs this module runs itself (the others forward to ``VERBS``)."""


def console() -> None:
    """The ``fiveplay`` console script. A reader that closes the pipe early (``fiveplay replay ... | head``)
    ends the command quietly, as ``head`` expects: no traceback (exit 141, a shell's code for SIGPIPE)."""
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        _quiet_stdout()
        sys.exit(141)
    sys.exit(code)


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's final flush of a closed pipe raises nothing."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
