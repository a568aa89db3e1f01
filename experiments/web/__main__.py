"""``python -m experiments.web [--runs runs] [--host 127.0.0.1] [--port 8000] [--max-games 64]``."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m experiments.web",
                                 description="Local web app: play against the bots, replays, results of runs.")
    ap.add_argument("--runs", default="runs", help="the folder of run folders to browse and serve (default runs)")
    ap.add_argument("--host", default="127.0.0.1",
                    help="address to bind (default 127.0.0.1: this machine only; 0.0.0.0 exposes it to the network)")
    ap.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    ap.add_argument("--max-games", type=int, default=64, help="games held at once (default 64)")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(list(argv) if argv is not None else None)
    if not 0 < args.port < 65536:
        print(f"web: error: port: expected 1..65535, got {args.port}", file=sys.stderr)
        return 2
    if args.max_games < 1:
        print(f"web: error: max-games: expected an integer >= 1, got {args.max_games}", file=sys.stderr)
        return 2
    import uvicorn

    from experiments.web.app import create_app

    app = create_app(args.runs, max_games=args.max_games)
    print(f"fiveplay web app: http://{args.host}:{args.port}  (runs folder: {args.runs}; Ctrl-C to stop)", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())
