"""The web app's HTTP interface (Starlette): pages, the play API, replays and the runs folder.

``create_app(runs_dir, max_games, ...)`` returns the ASGI app. Endpoints (JSON unless said otherwise;
every error is a JSON ``{"error": message}`` with a 4xx status, never a 500 for a malformed request):

| method, path                        | what                                                                |
|-------------------------------------|---------------------------------------------------------------------|
| GET /                               | the single-page app (Play, Replays, Results)                        |
| GET /static/FILE                    | its script and styles (package data)                                |
| GET /api/meta                       | the games (each: title, defaults, presets, choices, the bot list,   |
|                                     | its web view's kind, script and data), the limits                   |
| POST /api/games                     | ``{game, config, seat, bots, seed?}``: start a game -> its snapshot  |
|                                     | with its ``id`` and secret ``token``                               |
| GET /api/games/ID?since=N           | the game from the human's seat, events from index N on              |
| POST /api/games/ID/act              | ``{action, step, since?}``: the human's move; bots answer           |
| POST /api/games/ID/advance          | ``{step, since?}``: the bots go on after a ``pending`` answer        |
| POST /api/games/ID/hint             | ``{bot, step}``: what that bot would play from the human's seat      |
| GET /api/games/ID/record            | the finished game's record (JSON Lines); 409 while it is on         |
| DELETE /api/games/ID                | drop a game                                                         |
| GET /api/rules/GAME                 | the game's rules for players as data (``rules_text``)               |
| GET /api/runs                       | run folders under the runs folder (kind, game, files, records); of  |
|                                     | the web app's run folders only the requesting client's saved games  |
| GET /api/runs/RUN                   | one run: config, summary, plots, curves, records (the same rule)    |
| GET /api/replay?run=R&game=G        | the record ``R/records/G.jsonl`` (or ``?file=PATH&index=I``, or     |
|   &start=K&count=N                  | ``?share=TOKEN``), replayed: frames K..K+N-1 (at most ``MAX_PAGE``),|
|                                     | the round index; a saved web game only for its owner or its link    |
| POST /api/replay                    | ``{text, index?, start?, count?}``: the same for an uploaded record |
| POST /api/share                     | ``{run, game}``: a share link's token for one of the client's saved |
|                                     | games (``?share=TOKEN`` replays it; a new one replaces the old)     |
| DELETE /api/share                   | ``{run, game}``: revoke that game's share link                      |
| GET /files/PATH                     | a file of the runs folder (plots); anything outside it, or in a web |
|                                     | run folder, is a 404                                                |

Every request for a game carries its token in the ``X-Game-Token`` header (an unknown id and a wrong
token are the same 404), and no endpoint lists games: a browser keeps its own games' ids and tokens.
A game's record and seed (which rebuild every hand) are served only once the game is over; the replay
viewer refuses an unfinished record. Finished games are saved as records under the runs folder
(``web__<game>__0__<time>/records/game_<id>.jsonl``; ``save_games=False`` turns it off), private to the
client that played them (the pair address, ``X-Client`` id) unless shared, at most ``saved_per_client``
per client (its oldest deleted first) and ``saved_total`` in all (``fiveplay_env.experiments.web.saved``).

Requests are checked before anything else (``fiveplay_env.experiments.web.guards``: ``Guard``): the ``Host`` header
must name this machine (an IP address, ``localhost``, or an ``allowed_hosts`` name: no DNS rebinding), an
``Origin`` or ``Sec-Fetch-Site`` header must say the request comes from this app's own page (no
cross-site requests), a body must be ``application/json``, declared and read within its limit
(``MAX_BODY``, ``MAX_UPLOAD``; the limit is enforced while reading, before the body is held whole), and
JSON nested at most ``MAX_DEPTH`` deep with integers of at most ``MAX_DIGITS`` digits. Bots are vetted by
``fiveplay_env.experiments.web.bots`` (registry names, checkpoints inside the runs folder, capped search budgets, the
operator's ``--allow-agent`` names; never an import path), bot moves per request are capped
(``fiveplay_env.experiments.web.sessions``), replays are paged (``fiveplay_env.experiments.web.replays``).

The pieces, one job each: ``guards`` (the HTTP checks and bounded readers), ``routes`` (the endpoints),
``sessions`` (the games in play), ``store`` (which games are held), ``saved`` (who may read a saved game),
``bots`` (which bots a request may name), ``warm`` (the costly bots built ahead), ``replays`` (checked
records, paged), ``run_browser`` (the Results pages' data), ``views`` and ``games`` (what the browser is shown of
each game: its own web view or the generic one), ``rules_text`` (the rules for players). ``create_app`` only
wires them.
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from importlib import resources

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp

from fiveplay_env.experiments.web import games as web_views
from fiveplay_env.experiments.web.bots import BotError, BotPolicy
from fiveplay_env.experiments.web.guards import (MAX_BODY, MAX_DEPTH, MAX_DIGITS, MAX_UPLOAD, SECURITY_HEADERS, JSON, Guard, error,
                                    host_name, json_body, json_depth, parse_json, read_body, safe_file)
from fiveplay_env.experiments.web.replays import MAX_PAGE, MAX_REPLAY_STEPS, ReplayCache, check_record, replay_page
from fiveplay_env.experiments.web.routes import CLIENT_HEADER, TOKEN_HEADER, Routes
from fiveplay_env.experiments.web.run_browser import list_runs, run_detail
from fiveplay_env.experiments.web.sessions import GameError
from fiveplay_env.experiments.web.saved import PER_CLIENT as SAVED_PER_CLIENT
from fiveplay_env.experiments.web.saved import TOTAL as SAVED_TOTAL
from fiveplay_env.experiments.web.store import RECLAIM_S, SessionStore
from fiveplay_env.experiments.web.warm import Warmer

STATIC_DIR = str(resources.files("fiveplay_env.experiments.web") / "static")
"""The page, its scripts and styles (package data)."""


async def _game_error(request: Request, exc: Exception) -> Response:
    if isinstance(exc, BotError):
        return error(400, str(exc))
    assert isinstance(exc, GameError)
    answer = error(exc.status, exc.message)
    answer.headers.update(exc.headers)
    return answer


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return error(exc.status_code, str(exc.detail))


async def _server_error(request: Request, exc: Exception) -> Response:  # a bug, not a bad request
    if isinstance(exc, MemoryError):  # (the server is short of memory: the request may work later)
        return error(503, "the server is short of memory now: try again later")
    return error(500, f"internal error ({type(exc).__name__}); the server keeps serving")


def create_app(runs_dir: str = "runs", max_games: int = 64, *, per_client: int = 8,
               allow_agents: Sequence[str] = (), allowed_hosts: Sequence[str] = (), save_games: bool = True,
               idle_s: float = 2 * 3600.0, reclaim_s: float = RECLAIM_S, saved_per_client: int = SAVED_PER_CLIENT,
               saved_total: int = SAVED_TOTAL, warm_bots: bool = False) -> ASGIApp:
    """The ASGI app serving the runs under ``runs_dir``, at most ``max_games`` games at once
    (``per_client`` per client, idle ones dropped after ``idle_s`` seconds, replaceable by a new client of
    their address in a full store after ``reclaim_s``: ``fiveplay_env.experiments.web.store``).
    ``allow_agents``: bot names the operator allows besides the registry's (``--allow-agent``);
    ``allowed_hosts``: host names it answers for besides IP addresses and localhost; ``save_games``: write
    finished games as records, at most ``saved_per_client`` per client (its oldest deleted first) and
    ``saved_total`` in all (``fiveplay_env.experiments.web.saved``); ``warm_bots``: build the costly bots
    once ahead, in a background thread (``fiveplay_env.experiments.web.warm``: ``app.state.warm``), so that
    a new game answers within its budget from the first one."""
    store = SessionStore(max_games=max_games, per_client=per_client, idle_s=idle_s, reclaim_s=reclaim_s)
    runs_root = os.path.abspath(runs_dir)
    policy = BotPolicy(runs_root, list(allow_agents))
    routes = Routes(store, policy, runs_root, runs_dir, STATIC_DIR, save_games=save_games,
                    saved_per_client=saved_per_client, saved_total=saved_total)
    app = Starlette(routes=routes.routes(), exception_handlers={GameError: _game_error, BotError: _game_error,
                                                                HTTPException: _http_error, Exception: _server_error})
    app.state.store = store
    app.state.runs_dir = runs_root
    app.state.policy = policy
    app.state.saved = routes.saved
    app.state.warm = Warmer(policy, web_views.served()).start() if warm_bots else None
    guarded = Guard(app, allowed_hosts)
    guarded.state = app.state  # type: ignore[attr-defined]
    return guarded


__all__ = ["CLIENT_HEADER", "JSON", "MAX_BODY", "MAX_DEPTH", "MAX_DIGITS", "MAX_PAGE", "MAX_REPLAY_STEPS",
           "MAX_UPLOAD", "SECURITY_HEADERS", "STATIC_DIR", "TOKEN_HEADER", "Guard", "ReplayCache", "check_record",
           "create_app", "host_name", "json_body", "json_depth", "list_runs", "parse_json", "read_body",
           "replay_page", "run_detail", "safe_file"]
