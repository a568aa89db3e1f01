"""The web app's HTTP interface (Starlette): pages, the play API, replays and the runs folder.

``create_app(runs_dir, max_games)`` returns the ASGI app. Endpoints (JSON unless said otherwise; every
error is a JSON ``{"error": message}`` with a 4xx status, never a 500 for a malformed request):

| method, path                        | what                                                              |
|-------------------------------------|-------------------------------------------------------------------|
| GET /                               | the single-page app (Play, Replays, Results)                      |
| GET /static/FILE                    | its scripts and styles (package data)                             |
| GET /api/meta                       | games, their config fields and defaults, agent names, card tables |
| GET /api/games                      | the games in progress (ids)                                       |
| POST /api/games                     | ``{game, config, seat, bots, seed?}``: start a game -> snapshot    |
| GET /api/games/ID?since=N           | the game from the human's seat, events from index N on            |
| POST /api/games/ID/act              | ``{action}``: the human's move; bots answer -> snapshot           |
| GET /api/games/ID/record            | the game so far as a record (JSON Lines text)                     |
| DELETE /api/games/ID                | drop a game                                                       |
| GET /api/runs                       | run folders under the runs folder (kind, game, files, records)    |
| GET /api/runs/RUN                   | one run: config, summary (leaderboard), plots, curves, records    |
| GET /api/replay?file=PATH&index=I   | the I-th record of runs file PATH, replayed: every frame          |
| POST /api/replay?index=I            | the same for an uploaded record file (the request body, <= 8 MB)  |
| GET /files/PATH                     | a file of the runs folder (plots); anything outside it is a 404   |
"""
from __future__ import annotations

import csv
import json
import os
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from agents import games as games_mod
from agents.registry import known_agents
from experiments.web import views
from experiments.web.sessions import GameError, PlaySession, SessionStore
from fiveplay_env import records
from fiveplay_env.five_alive import config as fa_config
from fiveplay_env.five_alive.state import ACTION_NAMES as FA_ACTION_NAMES
from fiveplay_env.take5 import config as t5_config
from fiveplay_env.take5.state import BULL

MAX_UPLOAD = 8 * 1024 * 1024
MAX_REPLAY_STEPS = 100_000
CHOICES: dict[str, dict[str, list[str]]] = {
    "take5": {"row_pick": list(t5_config.ROW_PICKS), "mode": ["game", "round", "rounds:2", "rounds:3", "rounds:5"]},
    "five_alive": {"variant": list(fa_config.VARIANTS), "first_player": list(fa_config.FIRST_PLAYERS),
                   "draw_order": list(fa_config.DRAW_ORDERS), "empty_draw_pile": list(fa_config.EMPTY_DRAW_PILES),
                   "new_round_start": list(fa_config.NEW_ROUND_STARTS),
                   "new_round_direction": list(fa_config.NEW_ROUND_DIRECTIONS),
                   "final_tiebreak": list(fa_config.FINAL_TIEBREAKS), "reward": list(fa_config.REWARDS)},
}
"""The config fields the Play form offers as a choice list (the rest: a number, a checkbox or text)."""
STATIC_DIR = str(resources.files("experiments.web") / "static")


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def safe_file(root: str, rel: str) -> str | None:
    """The real path of file ``rel`` inside folder ``root``, or None if it is not a file inside it
    (absolute paths, ``..``, links leading out, NUL bytes are all refused)."""
    if not rel or "\x00" in rel or os.path.isabs(rel) or rel.startswith(("/", "\\")):
        return None
    base = os.path.realpath(root)
    full = os.path.realpath(os.path.join(base, rel))
    if os.path.commonpath([base, full]) != base or full == base:
        return None
    return full


def _int_param(request: Request, name: str, default: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise GameError(400, f"{name}: expected an integer >= 0, got {raw!r}") from None
    if value < 0:
        raise GameError(400, f"{name}: expected an integer >= 0, got {value}")
    return value


async def _json_body(request: Request) -> dict[str, Any]:
    body = await request.body()
    if len(body) > MAX_UPLOAD:
        raise GameError(413, f"body: expected at most {MAX_UPLOAD} bytes, got {len(body)}")
    try:
        data = json.loads(body or b"null")
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise GameError(400, f"body: expected a JSON object, got invalid JSON ({e})") from None
    if not isinstance(data, dict):
        raise GameError(400, f"body: expected a JSON object, got {type(data).__name__}")
    return data


# --- runs ---------------------------------------------------------------------------------------------

def _read_json(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _run_info(runs_dir: str, name: str) -> dict[str, Any]:
    path = os.path.join(runs_dir, name)
    files = sorted(os.listdir(path))
    rec_dir = os.path.join(path, "records")
    recs = sorted(f for f in os.listdir(rec_dir) if f.endswith(".jsonl")) if os.path.isdir(rec_dir) else []
    recs = [f"records/{f}" for f in recs] + [f for f in files if f.endswith(".jsonl")]
    config = _read_json(os.path.join(path, "config.json")) or {}
    parts = name.split("__")
    return {
        "name": name, "kind": parts[0] if len(parts) > 1 else "run",
        "game": config.get("game") or (parts[1] if len(parts) > 2 else None),
        "created": config.get("created"), "files": [f for f in files if os.path.isfile(os.path.join(path, f))],
        "plots": [f for f in files if f.endswith(".png")], "records": recs,
    }


def list_runs(runs_dir: str) -> list[dict[str, Any]]:
    """Every folder directly under ``runs_dir`` that holds a ``config.json`` or ``summary.json``, newest first."""
    if not os.path.isdir(runs_dir):
        return []
    out = []
    for name in sorted(os.listdir(runs_dir), reverse=True):
        path = os.path.join(runs_dir, name)
        if os.path.isdir(path) and any(os.path.isfile(os.path.join(path, f)) for f in ("config.json", "summary.json")):
            out.append(_run_info(runs_dir, name))
    return out


def run_detail(runs_dir: str, name: str) -> dict[str, Any]:
    path = safe_file(runs_dir, name)
    if path is None or not os.path.isdir(path) or os.path.dirname(path) != os.path.realpath(runs_dir):
        raise GameError(404, f"no run called {name!r} under the runs folder")
    info = _run_info(runs_dir, os.path.basename(path))
    info["config"] = _read_json(os.path.join(path, "config.json"))
    info["summary"] = _read_json(os.path.join(path, "summary.json"))
    curves = os.path.join(path, "curves.csv")
    if os.path.isfile(curves):
        with open(curves, encoding="utf-8") as f:
            info["curves"] = list(csv.DictReader(f))[-200:]
    return info


# --- replays -------------------------------------------------------------------------------------------

def replay_frames(rec: dict[str, Any], where: str) -> dict[str, Any]:
    """Every frame of a record's replay: the table from above (every hand) and the step's events."""
    if isinstance(rec.get("actions"), list) and len(rec["actions"]) > MAX_REPLAY_STEPS:
        raise GameError(413, f"record {where}: expected at most {MAX_REPLAY_STEPS} actions, got {len(rec['actions'])}")
    game = rec["game"]
    frames: list[dict[str, Any]] = []
    before = None
    config = None
    for step, action, engine in records.iter_states(rec, where):
        config = engine.config
        state = engine.state
        if before is None:
            frames.append({"step": 0, "player": None, "action": None, "label": "start", "events": [],
                           "view": views.view(game, config, state, None)})
        else:
            b_state, b_action = before
            frames.append({"step": step, "player": b_state.current, "action": b_action,
                           "label": views.action_label(game, b_action),
                           "events": views.step_events(game, config, b_state, b_action, state),
                           "view": views.view(game, config, state, None)})
        before = (state.clone(), action)
    records.replay(rec, where)  # the final result and digest must match the record
    return {"game": game, "config": rec["config"], "seed": rec["seed"], "agents": rec.get("agents", []),
            "final": rec.get("final"), "frames": frames}


# --- the app -------------------------------------------------------------------------------------------

def create_app(runs_dir: str = "runs", max_games: int = 64) -> Starlette:
    """The ASGI app serving the runs under ``runs_dir`` and at most ``max_games`` games at once."""
    store = SessionStore(max_games=max_games)
    runs_root = os.path.abspath(runs_dir)

    async def index(request: Request) -> Response:
        with open(os.path.join(STATIC_DIR, "index.html"), encoding="utf-8") as f:
            return HTMLResponse(f.read())

    async def meta(request: Request) -> Response:
        out = {}
        for name, g in games_mod.GAMES.items():
            defaults = records.config_dict(g.config_cls())
            out[name] = {"defaults": defaults, "choices": CHOICES[name], "agents": known_agents(name),
                         "players": [2, 10] if name == "take5" else [2, 6]}
        return JSONResponse({"games": out, "take5_bullheads": list(BULL), "five_alive_kinds": list(FA_ACTION_NAMES),
                             "runs_dir": runs_root})

    async def games_list(request: Request) -> Response:
        return JSONResponse({"games": store.ids(), "limit": store.max_games})

    async def games_new(request: Request) -> Response:
        body = await _json_body(request)
        unknown = [k for k in body if k not in ("game", "config", "seat", "bots", "seed")]
        if unknown:
            raise GameError(400, f"unknown field {unknown[0]!r}: expected game, config, seat, bots, seed")
        session = await run_in_threadpool(PlaySession, body.get("game"), body.get("config", {}), body.get("seat", 0),
                                          body.get("bots"), body.get("seed"))
        store.add(session)
        return JSONResponse(await run_in_threadpool(session.snapshot), status_code=201)

    async def games_get(request: Request) -> Response:
        s = store.get(request.path_params["gid"])
        return JSONResponse(await run_in_threadpool(s.snapshot, _int_param(request, "since", 0)))

    async def games_act(request: Request) -> Response:
        s = store.get(request.path_params["gid"])
        body = await _json_body(request)
        if "action" not in body:
            raise GameError(400, "action: missing; expected {\"action\": <action id>}")
        since = len(s.events)
        await run_in_threadpool(s.act, body["action"])
        return JSONResponse(await run_in_threadpool(s.snapshot, since))

    async def games_record(request: Request) -> Response:
        s = store.get(request.path_params["gid"])
        return PlainTextResponse(records.dumps(await run_in_threadpool(s.record)) + "\n", media_type="application/x-ndjson")

    async def games_delete(request: Request) -> Response:
        store.delete(request.path_params["gid"])
        return JSONResponse({"deleted": request.path_params["gid"]})

    async def runs(request: Request) -> Response:
        return JSONResponse({"runs_dir": runs_root, "runs": await run_in_threadpool(list_runs, runs_root)})

    async def run_get(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(run_detail, runs_root, request.path_params["run"]))

    def _replay_text(text: str, where: str, index: int) -> dict[str, Any]:
        try:
            recs = records.parse_records(text, where)
            if index >= len(recs):
                raise GameError(404, f"index: the file holds {len(recs)} record(s), got index {index}")
            return replay_frames(recs[index], f"{where} record {index}")
        except records.RecordError as e:
            raise GameError(422, str(e)) from None

    async def replay_get(request: Request) -> Response:
        rel = request.query_params.get("file", "")
        path = safe_file(runs_root, rel)
        if path is None or not os.path.isfile(path):
            raise GameError(404, f"no record file {rel!r} under the runs folder")
        index = _int_param(request, "index", 0)
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read(MAX_UPLOAD + 1)
        return JSONResponse(await run_in_threadpool(_replay_text, text, rel, index))

    async def replay_post(request: Request) -> Response:
        body = await request.body()
        if len(body) > MAX_UPLOAD:
            raise GameError(413, f"upload: expected at most {MAX_UPLOAD} bytes, got {len(body)}")
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            raise GameError(400, "upload: expected a UTF-8 JSON Lines record file") from None
        index = _int_param(request, "index", 0)
        return JSONResponse(await run_in_threadpool(_replay_text, text, "upload", index))

    async def files(request: Request) -> Response:
        rel = request.path_params["path"]
        path = safe_file(runs_root, rel)
        if path is None or not os.path.isfile(path):
            raise GameError(404, f"no file {rel!r} under the runs folder")
        return FileResponse(path)

    async def game_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, GameError)
        return _error(exc.status, exc.message)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return _error(exc.status_code, str(exc.detail))

    routes = [
        Route("/", index),
        Route("/api/meta", meta),
        Route("/api/games", games_list, methods=["GET"]),
        Route("/api/games", games_new, methods=["POST"]),
        Route("/api/games/{gid}", games_get, methods=["GET"]),
        Route("/api/games/{gid}", games_delete, methods=["DELETE"]),
        Route("/api/games/{gid}/act", games_act, methods=["POST"]),
        Route("/api/games/{gid}/record", games_record, methods=["GET"]),
        Route("/api/runs", runs),
        Route("/api/runs/{run}", run_get),
        Route("/api/replay", replay_get, methods=["GET"]),
        Route("/api/replay", replay_post, methods=["POST"]),
        Route("/files/{path:path}", files),
        Mount("/static", app=StaticFiles(directory=STATIC_DIR), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={GameError: game_error, HTTPException: http_error})
    app.state.store = store
    app.state.runs_dir = runs_root
    return app
