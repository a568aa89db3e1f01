"""``python -m fiveplay_env.experiments.web [--runs runs] [--host 127.0.0.1] [--port 8000] [--max-games 64] [--per-client 8]
[--allow-agent NAME ...] [--allowed-host NAME ...] [--no-save]``."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m fiveplay_env.experiments.web",
                                 description="Local web app: play against the bots, replays, results of runs.")
    ap.add_argument("--runs", default="runs", help="the folder of run folders to browse and serve, where played "
                                                   "games are saved and checkpoint bots are read (default runs)")
    ap.add_argument("--host", default="127.0.0.1",
                    help="address to bind (default 127.0.0.1: this machine only; 0.0.0.0 exposes it to the network)")
    ap.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    ap.add_argument("--max-games", type=int, default=64, help="games held at once in all (default 64)")
    ap.add_argument("--per-client", type=int, default=8, help="games held at once per client (default 8)")
    ap.add_argument("--idle-minutes", type=float, default=120.0, help="a game idle this long expires (default 120)")
    ap.add_argument("--reclaim-minutes", type=float, default=10.0,
                    help="when the server is full, a game idle this long may be replaced by a new client of its "
                         "address (default 10)")
    ap.add_argument("--saved-per-client", type=int, default=200,
                    help="finished games kept per client (its oldest are deleted first; default 200)")
    ap.add_argument("--saved-total", type=int, default=10_000,
                    help="finished games kept in all (past that, games are not saved; default 10000)")
    ap.add_argument("--allow-agent", action="append", default=[], metavar="NAME",
                    help="a bot name players may choose besides the registry's (repeatable): your own agent's "
                         "import path, an rllib:PATH, a checkpoint outside --runs. Requests can never name such "
                         "bots otherwise")
    ap.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                    help="a host name the server answers for besides IP addresses and localhost (repeatable; "
                         "needed to reach it by a DNS name)")
    ap.add_argument("--no-save", action="store_true", help="do not save finished games as records under --runs")
    ap.add_argument("--no-warm", action="store_true",
                    help="do not build the shipped policies and guided searches ahead when the server starts (then a "
                         "new game's first request builds them, inside its time budget)")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(list(argv) if argv is not None else None)
    if not 0 < args.port < 65536:
        print(f"web: error: port: expected 1..65535, got {args.port}", file=sys.stderr)
        return 2
    for name in ("max_games", "per_client"):
        if getattr(args, name) < 1:
            print(f"web: error: {name.replace('_', '-')}: expected an integer >= 1, got {getattr(args, name)}",
                  file=sys.stderr)
            return 2
    if not args.idle_minutes > 0:
        print(f"web: error: idle-minutes: expected a number > 0, got {args.idle_minutes}", file=sys.stderr)
        return 2
    from fiveplay_env.agents.registry import make_agent
    from fiveplay_env.experiments.web.sessions import web_games

    for name in args.allow_agent:  # the operator's names are checked now, as the other tools check theirs
        try:
            for game in web_games():
                try:
                    make_agent(name, game, seed=0, allow_import=True)
                    break
                except ValueError:
                    if game == web_games()[-1]:
                        raise
        except ValueError as e:
            print(f"web: error: allow-agent {name!r}: {e}", file=sys.stderr)
            return 2
    try:
        import uvicorn

        from fiveplay_env.experiments.web.app import create_app
    except ModuleNotFoundError as exc:  # the web extra: name it and how to install it
        from fiveplay_env.core.extras import missing

        print(f"web: error: {missing(exc, 'the web app')}", file=sys.stderr)
        return 1

    app = create_app(args.runs, max_games=args.max_games, per_client=args.per_client, allow_agents=args.allow_agent,
                     allowed_hosts=args.allowed_host + ([args.host] if args.host not in ("0.0.0.0", "::") else []),
                     save_games=not args.no_save, idle_s=args.idle_minutes * 60,
                     reclaim_s=args.reclaim_minutes * 60, saved_per_client=args.saved_per_client,
                     saved_total=args.saved_total, warm_bots=not args.no_warm)
    print(f"fiveplay web app: http://{args.host}:{args.port}  (runs folder: {args.runs}; Ctrl-C to stop)", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())
