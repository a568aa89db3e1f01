"""Measure the web app on 127.0.0.1: how long a bot's move takes to appear, and how many games it holds.

``python -m fiveplay_env.experiments.web.bench [--bots heuristic ismcts:sims=200] [--moves 10] [--games 500] [--game NAME]``

Starts the app (uvicorn, in a thread, on a free port of 127.0.0.1 only), then:

1. latency: for each ``--bots`` name and each game the app serves (``fiveplay_env.experiments.web.games.served``: the
   registered games, built-in first), a game of its quick preset (``GameDef.quick_preset``; Take 5: one
   round of 4 players) with the human in seat 0 and that bot in the others (``heuristic``: the game's best heuristic,
   ``AgentKit.baseline``); the human plays its first legal action ``--moves`` times. Reported: the median
   and max wall time from sending the move to the answer holding the bots' replies, per reply and per bot
   decision (the answer holds every bot move made before the human's next turn);
2. load: ``--clients`` threads open ``--games`` games of ``--game`` (default: ``games.default_game()``,
   its quick preset; random bots; one client id per game, so the per-client cap does not apply), all
   held at once, then make one move in each and read each back (it must be one step further). Reported:
   games held, failures, seconds, server RSS.

Prints one JSON object. Bounded: at most ``--games`` games, everything on 127.0.0.1.
"""
from __future__ import annotations

import argparse
import json
import resource
import socket
import statistics
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any


def _serve(max_games: int) -> tuple[Any, str]:
    import uvicorn

    from fiveplay_env.experiments.web.app import create_app

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app("runs", max_games=max_games, save_games=False), host="127.0.0.1",
                                           port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    return server, f"http://127.0.0.1:{port}"


def _config(game: str) -> dict[str, Any]:
    """The config a bench game of ``game`` is played with: the game's quick preset (``GameDef.quick_config``:
    short games), as the fields that differ from the defaults, and always ``num_players``."""
    from fiveplay_env.agents import games as games_mod

    g = games_mod.get_game(game)
    return g.quick_config(num_players=g.config_dict(g.make_config({}))["num_players"])


def bot_for(game: str, bot: str) -> str:
    """``bot`` for ``game``: ``heuristic`` is the game's best heuristic (``AgentKit.baseline``)."""
    from fiveplay_env.agents import games as games_mod

    return games_mod.kit(game).baseline if bot == "heuristic" else bot


def latency(url: str, bot: str, game: str, moves: int) -> dict[str, Any]:
    import httpx

    config = _config(game)
    bots = [bot] * (config["num_players"] - 1)
    with httpx.Client(base_url=url, timeout=600) as c:
        t0 = time.perf_counter()
        r = c.post("/api/games", json={"game": game, "config": config, "seat": 0, "bots": bots, "seed": 1})
        r.raise_for_status()
        snap = r.json()
        h = {"X-Game-Token": snap["token"]}
        per_reply, per_decision = [], []
        first = time.perf_counter() - t0
        for _ in range(moves):
            if snap["over"]:
                break
            steps = snap["steps"]
            t0 = time.perf_counter()
            snap = c.post(f"/api/games/{snap['id']}/act", json={"action": snap["legal"][0], "step": steps},
                          headers=h).json()
            while snap["pending"]:
                snap = c.post(f"/api/games/{snap['id']}/advance", json={"step": snap["steps"]}, headers=h).json()
            dt = time.perf_counter() - t0
            decisions = snap["steps"] - steps - 1  # the bots' moves in this answer
            per_reply.append(dt)
            if decisions:
                per_decision.append(dt / decisions)
        c.delete(f"/api/games/{snap['id']}", headers=h)
    return {"bot": bot, "game": game, "replies": len(per_reply), "first_answer_s": round(first, 4),
            "reply_median_s": round(statistics.median(per_reply), 4) if per_reply else None,
            "reply_max_s": round(max(per_reply), 4) if per_reply else None,
            "per_bot_decision_median_s": round(statistics.median(per_decision), 4) if per_decision else None}


def load(url: str, games: int, clients: int, game: str) -> dict[str, Any]:
    import httpx

    config = _config(game)
    failures: list[str] = []
    ids: list[tuple[str, str]] = []
    lock = threading.Lock()
    local = threading.local()
    clients_made: list[Any] = []

    def client() -> Any:
        if not hasattr(local, "c"):
            local.c = httpx.Client(base_url=url, timeout=120)
            with lock:
                clients_made.append(local.c)
        return local.c

    t0 = time.perf_counter()

    def open_one(i: int) -> None:
        c = client()
        r = c.post("/api/games", json={"game": game, "config": config, "seat": 0,
                                       "bots": ["random"] * (config["num_players"] - 1), "seed": i},
                   headers={"X-Client": f"bench{i}"})
        with lock:
            if r.status_code == 201:
                ids.append((r.json()["id"], r.json()["token"]))
            else:
                failures.append(f"open {r.status_code}: {r.text[:200]}")

    with ThreadPoolExecutor(clients) as ex:
        list(ex.map(open_one, range(games)))
    opened = time.perf_counter() - t0

    def move_one(game: tuple[str, str]) -> None:
        gid, h = game[0], {"X-Game-Token": game[1]}
        c = client()
        snap = c.get(f"/api/games/{gid}", headers=h).json()
        r = c.post(f"/api/games/{gid}/act", json={"action": snap["legal"][0], "step": snap["steps"]}, headers=h)
        back = c.get(f"/api/games/{gid}", headers=h)
        if r.status_code != 200 or back.status_code != 200 or back.json()["steps"] <= snap["steps"]:
            with lock:
                failures.append(f"move {r.status_code}/{back.status_code}")

    with ThreadPoolExecutor(clients) as ex:
        list(ex.map(move_one, ids))
    held = sum(client().get(f"/api/games/{gid}", headers={"X-Game-Token": tok}).status_code == 200 for gid, tok in ids)
    for c in clients_made:
        c.close()
    return {"game": game, "games_requested": games, "games_held": held, "failures": len(failures), "clients": clients,
            "open_s": round(opened, 2), "total_s": round(time.perf_counter() - t0, 2),
            "rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(prog="python -m fiveplay_env.experiments.web.bench", description=__doc__.split("\n")[0])
    ap.add_argument("--bots", nargs="+", default=["heuristic", "ismcts:sims=200"],
                    help="bots to time in every served game (heuristic: each game's best heuristic)")
    ap.add_argument("--moves", type=int, default=10, help="human moves per latency game")
    ap.add_argument("--games", type=int, default=500, help="games held at once in the load test (0: skip)")
    ap.add_argument("--clients", type=int, default=16, help="client threads in the load test")
    ap.add_argument("--game", default=None, help="the game of the load test (default: the first built-in game)")
    args = ap.parse_args(list(argv) if argv is not None else None)
    from fiveplay_env.experiments.web import games as web_views

    from fiveplay_env import games

    served = web_views.served()
    load_game = args.game or games.default_game()
    if load_game not in served:
        ap.error(f"--game: expected one of {served}, got {load_game!r}")
    server, url = _serve(max(args.games, 8))
    out: dict[str, Any] = {"url": url, "latency": []}
    try:
        for bot in args.bots:
            for game in served:
                out["latency"].append(latency(url, bot_for(game, bot), game, args.moves))
        if args.games:
            out["load"] = load(url, args.games, args.clients, load_game)
    finally:
        server.should_exit = True
    print(json.dumps(out, indent=1))
    return out


if __name__ == "__main__":
    main()
