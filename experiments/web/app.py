"""The web app's HTTP interface (Starlette): pages, the play API, replays and the runs folder.

``create_app(runs_dir, max_games, ...)`` returns the ASGI app. Endpoints (JSON unless said otherwise;
every error is a JSON ``{"error": message}`` with a 4xx status, never a 500 for a malformed request):

| method, path                        | what                                                                |
|-------------------------------------|---------------------------------------------------------------------|
| GET /                               | the single-page app (Play, Replays, Results)                        |
| GET /static/FILE                    | its script and styles (package data)                                |
| GET /api/meta                       | games, config fields, defaults, presets, the bot list, the limits   |
| POST /api/games                     | ``{game, config, seat, bots, seed?}``: start a game -> its snapshot  |
|                                     | with its ``id`` and secret ``token``                               |
| GET /api/games/ID?since=N           | the game from the human's seat, events from index N on              |
| POST /api/games/ID/act              | ``{action, step, since?}``: the human's move; bots answer           |
| POST /api/games/ID/advance          | ``{step, since?}``: the bots go on after a ``pending`` answer        |
| POST /api/games/ID/hint             | ``{bot, step}``: what that bot would play from the human's seat      |
| GET /api/games/ID/record            | the finished game's record (JSON Lines); 409 while it is on         |
| DELETE /api/games/ID                | drop a game                                                         |
| GET /api/rules/GAME                 | the game's chapter of docs/rules.md as data (``rules_text``)        |
| GET /api/runs                       | run folders under the runs folder (kind, game, files, records)      |
| GET /api/runs/RUN                   | one run: config, summary, plots, curves, records                    |
| GET /api/replay?run=R&game=G        | the record ``R/records/G.jsonl`` (or ``?file=PATH&index=I``),      |
|   &start=K&count=N                  | replayed: frames K..K+N-1 (at most ``MAX_PAGE``), the round index  |
| POST /api/replay                    | ``{text, index?, start?, count?}``: the same for an uploaded record |
| GET /files/PATH                     | a file of the runs folder (plots); anything outside it is a 404     |

Every request for a game carries its token in the ``X-Game-Token`` header (an unknown id and a wrong
token are the same 404), and no endpoint lists games: a browser keeps its own games' ids and tokens.
A game's record and seed (which rebuild every hand) are served only once the game is over; the replay
viewer refuses an unfinished record. Finished games are saved as records under the runs folder
(``web__<game>__0__<time>/records/game_<id>.jsonl``; ``save_games=False`` turns it off).

Requests are checked before anything else (``Guard``): the ``Host`` header must name this machine (an
IP address, ``localhost``, or an ``allowed_hosts`` name: no DNS rebinding), an ``Origin`` or
``Sec-Fetch-Site`` header must say the request comes from this app's own page (no cross-site requests),
a body must be ``application/json``, declared and read within its limit (``MAX_BODY``, ``MAX_UPLOAD``;
the limit is enforced while reading, before the body is held whole), and JSON nested at most
``MAX_DEPTH`` deep with integers of at most ``MAX_DIGITS`` digits. Bots are vetted by
``experiments.web.bots`` (registry names, checkpoints inside the runs folder, capped search budgets, the
operator's ``--allow-agent`` names; never an import path), bot moves per request are capped
(``experiments.web.sessions``), replays are paged.
"""
from __future__ import annotations

import csv
import datetime as _dt
import hashlib
import ipaddress
import json
import math
import os
import re
import secrets
import threading
from collections import OrderedDict
from collections.abc import Sequence
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from agents import games as games_mod
from experiments import runs as runs_mod
from experiments.web import rules_text, views
from experiments.web.bots import MAX_SIMS, MAX_TIME, BotError, BotPolicy
from experiments.web.sessions import (MAX_SEED, THOUGHTS_KEY, GameError, PlaySession, SessionStore, bot_seeds, check_int,
                                      web_games)
from fiveplay_env import records
from fiveplay_env.five_alive import config as fa_config
from fiveplay_env.five_alive import state as fa_state
from fiveplay_env.five_alive.state import ACTION_NAMES as FA_ACTION_NAMES
from fiveplay_env.take5 import config as t5_config
from fiveplay_env.take5 import state as t5_state
from fiveplay_env.take5.state import BULL

MAX_BODY = 64 * 1024
"""The largest body of a game request (bytes)."""
MAX_UPLOAD = 8 * 1024 * 1024
"""The largest body of a record upload (bytes)."""
MAX_DEPTH = 32
"""JSON nesting allowed in a request body (and in an uploaded record line)."""
MAX_DIGITS = 25
"""Digits allowed in one JSON integer of a request."""
MAX_REPLAY_STEPS = 20_000
"""Actions in a record the replay viewer replays at most."""
MAX_PAGE = 200
"""Replay frames per answer at most (the viewer fetches pages as it goes)."""
CHOICES: dict[str, dict[str, list[str]]] = {
    "take5": {"row_pick": list(t5_config.ROW_PICKS), "mode": ["game", "round", "rounds:2", "rounds:3", "rounds:5"]},
    "five_alive": {"variant": list(fa_config.VARIANTS), "first_player": list(fa_config.FIRST_PLAYERS),
                   "draw_order": list(fa_config.DRAW_ORDERS), "empty_draw_pile": list(fa_config.EMPTY_DRAW_PILES),
                   "new_round_start": list(fa_config.NEW_ROUND_STARTS),
                   "new_round_direction": list(fa_config.NEW_ROUND_DIRECTIONS),
                   "final_tiebreak": list(fa_config.FINAL_TIEBREAKS), "reward": list(fa_config.REWARDS)},
}
"""The config fields the advanced options offer as a choice list (the rest: a number, a checkbox or text)."""
PRESETS: dict[str, list[dict[str, Any]]] = {
    "take5": [
        {"id": "round4", "label": "One round, 4 players", "config": {"num_players": 4, "mode": "round"}},
        {"id": "game4", "label": "Full game to 66, 4 players", "config": {"num_players": 4, "mode": "game"}},
        {"id": "duel", "label": "Duel: one round, 2 players", "config": {"num_players": 2, "mode": "round"}},
        {"id": "crowd", "label": "Crowd: one round, 7 players", "config": {"num_players": 7, "mode": "round"}},
        {"id": "pro", "label": "Professional (every card known), 4 players", "config": {"num_players": 4, "mode": "round", "professional": True}},
        {"id": "draft", "label": "Professional draft, 3 players", "config": {"num_players": 3, "mode": "round", "professional": True, "draft": True}},
    ],
    "five_alive": [
        {"id": "standard4", "label": "Standard, 4 players", "config": {"num_players": 4}},
        {"id": "duel", "label": "Duel, 2 players", "config": {"num_players": 2}},
        {"id": "sudden", "label": "Sudden death, 4 players", "config": {"num_players": 4, "variant": "sudden_death"}},
        {"id": "teams", "label": "Teams, 4 players (you and P2 against P1 and P3)", "config": {"num_players": 4, "variant": "teams"}},
        {"id": "six", "label": "Six players", "config": {"num_players": 6}},
    ],
}
"""The new-game panel's presets (a config each; everything else is under "advanced")."""
STATIC_DIR = str(resources.files("experiments.web") / "static")
TOKEN_HEADER = "x-game-token"
CLIENT_HEADER = "x-client"
_CLIENT_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_NAME_RE = re.compile(r"^[A-Za-z0-9_.+-]{1,200}$")
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"), (b"x-frame-options", b"DENY"),
    (b"content-security-policy", b"default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
                                 b"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"),
]


class JSON(JSONResponse):
    """JSON as ASCII (a lone surrogate in a string cannot break the encoding)."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def _error(status: int, message: str) -> JSON:
    return JSON({"error": message}, status_code=status)


# --- request checks -----------------------------------------------------------------------------------

def host_name(host: str) -> str:
    """The host name of a ``Host`` header (``[::1]:8000`` -> ``::1``, ``a.b:80`` -> ``a.b``), lower case."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class Guard:
    """ASGI middleware: the ``Host`` and cross-site checks of the module docstring, and the security
    headers of every answer. ``allowed_hosts``: host names served besides IP addresses and ``localhost``."""

    def __init__(self, app: ASGIApp, allowed_hosts: Sequence[str] = ()) -> None:
        self.app = app
        self.allowed = {h.strip().lower() for h in allowed_hosts if h and h.strip()}

    def host_ok(self, host: str) -> bool:
        name = host_name(host)
        if not name:
            return False
        if name in self.allowed or name == "localhost" or name.endswith(".localhost"):
            return True
        try:
            ipaddress.ip_address(name)
            return True
        except ValueError:
            return False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        host = headers.get("host", "")

        async def send_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message = dict(message, headers=list(message.get("headers", [])) + SECURITY_HEADERS)
            await send(message)

        problem = None
        if not self.host_ok(host):
            problem = (421, f"Host: this server does not answer for {host_name(host)[:60]!r}; expected an IP address, "
                            f"localhost or a name given with --allowed-host")
        elif scope["path"].startswith(("/api/", "/files/")):
            origin = headers.get("origin")
            site = headers.get("sec-fetch-site")
            if origin is not None and origin.lower() not in (f"http://{host}".lower(), f"https://{host}".lower()):
                problem = (403, f"Origin: expected a request from this app's own page (http://{host}), got "
                                f"{origin[:80]!r}: cross-site requests are refused")
            elif site is not None and site not in ("same-origin", "none"):
                problem = (403, f"Sec-Fetch-Site: expected same-origin, got {site[:40]!r}: cross-site requests are refused")
        if problem is not None:
            await _error(*problem)(scope, receive, send_headers)
            return
        await self.app(scope, receive, send_headers)


class _Refused(ValueError):
    pass


def _json_int(s: str) -> int:
    digits = len(s.lstrip("-"))
    if digits > MAX_DIGITS:
        raise _Refused(f"an integer of {digits} digits: expected at most {MAX_DIGITS}")
    return int(s)


def _json_float(s: str) -> float:
    if len(s) > 64:
        raise _Refused(f"a number of {len(s)} characters: expected at most 64")
    x = float(s)
    if not math.isfinite(x):
        raise _Refused(f"the number {s[:30]}: expected a finite number")
    return x


def _json_constant(s: str) -> Any:
    raise _Refused(f"{s}: expected a finite number")


json_depth = records.json_depth
"""How deep JSON text nests (``fiveplay_env.records.json_depth``: linear time, memory a small multiple of
the text's whatever it holds)."""


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _Refused(f"the key {k[:40]!r} appears twice in one object: expected each key once")
        out[k] = v
    return out


def parse_json(text: str, what: str, max_depth: int = MAX_DEPTH) -> Any:
    """JSON ``text`` with the limits of the module docstring; ``GameError`` 400 naming ``what`` otherwise."""
    depth = json_depth(text)
    if depth > max_depth:
        raise GameError(400, f"{what}: expected JSON nested at most {max_depth} deep, got {depth}")
    try:
        return json.loads(text, parse_int=_json_int, parse_float=_json_float, parse_constant=_json_constant,
                          object_pairs_hook=_no_repeats)
    except _Refused as e:
        raise GameError(400, f"{what}: {e}") from None
    except json.JSONDecodeError as e:
        raise GameError(400, f"{what}: expected a JSON object, got invalid JSON ({e.msg} at column {e.colno})") from None
    except (ValueError, RecursionError) as e:
        raise GameError(400, f"{what}: expected a JSON object, got invalid JSON ({type(e).__name__})") from None


async def read_body(request: Request, limit: int) -> bytes:
    """The request's body, at most ``limit`` bytes: a larger declared ``Content-Length`` is refused before
    reading, and reading stops as soon as the limit is passed (413)."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit() or len(declared) > 18:
            raise GameError(400, "Content-Length: expected a number of bytes")
        if int(declared) > limit:
            raise GameError(413, f"body: expected at most {limit} bytes, got {declared} (declared)")
    buf = bytearray()
    async for chunk in request.stream():
        buf += chunk
        if len(buf) > limit:
            raise GameError(413, f"body: expected at most {limit} bytes, got more")
    return bytes(buf)


async def json_body(request: Request, limit: int = MAX_BODY, fields: Sequence[str] | None = None) -> dict[str, Any]:
    """The request's JSON object body (``Content-Type: application/json``), with the limits of the module
    docstring; ``fields``: the keys it may have."""
    ctype = request.headers.get("content-type", "")
    media, _, params = ctype.partition(";")
    if media.strip().lower() != "application/json":
        raise GameError(415, f"Content-Type: expected application/json, got {media.strip()[:60]!r}")
    charset = params.strip().lower()
    if charset and charset.replace(" ", "") not in ("charset=utf-8", "charset=\"utf-8\""):
        raise GameError(415, f"Content-Type: expected charset=utf-8, got {charset[:40]!r}")
    body = await read_body(request, limit)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise GameError(400, "body: expected a JSON object in UTF-8") from None
    data = parse_json(text or "null", "body")
    if not isinstance(data, dict):
        raise GameError(400, f"body: expected a JSON object, got {type(data).__name__}")
    if fields is not None:
        unknown = [k for k in data if k not in fields]
        if unknown:
            raise GameError(400, f"unknown field {unknown[0][:40]!r}: expected among {list(fields)}")
    return data


def _int_param(request: Request, name: str, default: int, hi: int = 10**9) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not re.fullmatch(r"\d{1,10}", raw):
        raise GameError(400, f"{name}: expected an integer in 0..{hi}, got {raw[:30]!r}")
    return check_int(name, int(raw), 0, hi)


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


# --- runs ---------------------------------------------------------------------------------------------

def _read_json(path: str) -> Any:
    try:
        if os.path.getsize(path) > MAX_UPLOAD:
            return None
        with open(path, encoding="utf-8") as f:
            text = f.read()
        return json.loads(text) if json_depth(text) <= 64 else None
    except (OSError, ValueError, RecursionError):
        return None


def _run_info(runs_dir: str, name: str) -> dict[str, Any]:
    path = os.path.join(runs_dir, name)
    files = sorted(os.listdir(path))
    rec_dir = os.path.join(path, "records")
    recs = sorted(f for f in os.listdir(rec_dir) if f.endswith(".jsonl")) if os.path.isdir(rec_dir) else []
    recs = [f"records/{f}" for f in recs] + [f for f in files if f.endswith(".jsonl")]
    config = _read_json(os.path.join(path, "config.json"))
    config = config if isinstance(config, dict) else {}
    parts = name.split("__")
    return {
        "name": name, "kind": parts[0] if len(parts) > 1 else "run",
        "game": config.get("game") if isinstance(config.get("game"), str) else (parts[1] if len(parts) > 2 else None),
        "created": parts[3] if len(parts) > 3 else None,
        "files": [f for f in files if os.path.isfile(os.path.join(path, f))],
        "plots": [f for f in files if f.endswith(".png")], "records": recs,
        "checkpoint": os.path.isfile(os.path.join(path, "checkpoint.pt")),
    }


def list_runs(runs_dir: str) -> list[dict[str, Any]]:
    """Every folder directly under ``runs_dir`` that holds a ``config.json`` or ``summary.json``, newest first."""
    if not os.path.isdir(runs_dir):
        return []
    out = []
    for name in sorted(os.listdir(runs_dir), key=lambda n: (n.split("__")[3] if n.count("__") >= 3 else "", n),
                       reverse=True):
        path = os.path.join(runs_dir, name)
        if os.path.isdir(path) and not os.path.islink(path) and \
                any(os.path.isfile(os.path.join(path, f)) for f in ("config.json", "summary.json")):
            out.append(_run_info(runs_dir, name))
    return out


def run_detail(runs_dir: str, name: str) -> dict[str, Any]:
    path = safe_file(runs_dir, name)
    if path is None or not os.path.isdir(path) or os.path.dirname(path) != os.path.realpath(runs_dir):
        raise GameError(404, f"no run called {name[:80]!r} under the runs folder")
    info = _run_info(runs_dir, os.path.basename(path))
    info["config"] = _read_json(os.path.join(path, "config.json"))
    info["summary"] = _read_json(os.path.join(path, "summary.json"))
    curves = os.path.join(path, "curves.csv")
    if os.path.isfile(curves) and os.path.getsize(curves) <= MAX_UPLOAD:
        with open(curves, encoding="utf-8", errors="replace") as f:
            info["curves"] = list(csv.DictReader(f))[-1000:]
    return info


# --- replays -------------------------------------------------------------------------------------------

def _round_of(state: Any) -> int:
    """The 0-based round a state belongs to (a finished game's last state belongs to its last round)."""
    over = state.phase == (t5_state.OVER if isinstance(state, t5_state.Take5State) else fa_state.OVER)
    return max(0, state.round - 1) if over else state.round


class ReplayCache:
    """Checked records by content hash (a few, least recently used dropped), so paging is cheap."""

    def __init__(self, size: int = 16) -> None:
        self.size = size
        self._items: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            item = self._items.get(key)
            if item is not None:
                self._items.move_to_end(key)
            return item

    def put(self, key: str, item: dict[str, Any]) -> None:
        with self._lock:
            self._items[key] = item
            while len(self._items) > self.size:
                self._items.popitem(last=False)


def _check_record(text: str, where: str, index: int) -> dict[str, Any]:
    """The ``index``-th record of ``text``, replayed and checked: finished, at most ``MAX_REPLAY_STEPS``
    actions, its result and digest as recorded; with its round index. ``GameError`` 4xx otherwise."""
    depth = max((json_depth(line) for line in text.splitlines() if line.strip()), default=0)
    if depth > 64:
        raise GameError(422, f"{where}: expected records nested at most 64 deep, got {depth}")
    try:
        recs = records.parse_records(text, where, max_actions=MAX_REPLAY_STEPS)
    except records.RecordTooLarge as e:
        raise GameError(413, str(e)) from None
    except records.RecordError as e:
        raise GameError(422, str(e)) from None
    except (ValueError, TypeError, RecursionError, OverflowError) as e:
        raise GameError(422, f"{where}: not a readable record ({type(e).__name__}: {str(e)[:200]})") from None
    if index >= len(recs):
        raise GameError(404, f"index: the file holds {len(recs)} record(s), got index {index}")
    rec = recs[index]
    where = f"{where} record {index}"
    if isinstance(rec.get("actions"), list) and len(rec["actions"]) > MAX_REPLAY_STEPS:
        raise GameError(413, f"{where}: expected at most {MAX_REPLAY_STEPS} actions, got {len(rec['actions'])}")
    seed = rec.get("seed")
    if isinstance(seed, int) and not isinstance(seed, bool) and not 0 <= seed <= MAX_SEED:
        raise GameError(422, f"{where}: seed: expected an integer in 0..2**64-1, got an integer of {seed.bit_length()} bits")
    try:
        rounds: list[dict[str, int]] = []
        engine = None
        for step, _, engine in records.iter_states(rec, where):
            r = _round_of(engine.state)
            if not rounds or rounds[-1]["round"] != r:
                rounds.append({"round": r, "frame": step})
        records.replay(rec, where)  # the final result and digest must match the record
    except records.RecordError as e:
        raise GameError(422, str(e)) from None
    except (ValueError, TypeError, KeyError, IndexError, OverflowError, AttributeError, RecursionError) as e:
        raise GameError(422, f"{where}: does not replay ({type(e).__name__}: {str(e)[:200]})") from None
    if engine is None or not engine.is_over:
        raise GameError(422, f"{where}: an unfinished game: the replay viewer shows finished games only (a record "
                             f"of a game in progress would show every hand)")
    meta = rec.get("meta") if isinstance(rec.get("meta"), dict) else {}
    thoughts = meta.get(THOUGHTS_KEY)
    if not (isinstance(thoughts, dict) and thoughts.get("version") == 1 and isinstance(thoughts.get("steps"), dict)):
        thoughts = None
    return {"rec": rec, "where": where, "total": len(rec["actions"]) + 1, "rounds": rounds,
            "thoughts": thoughts["steps"] if thoughts else {}}


def replay_page(item: dict[str, Any], start: int, count: int) -> dict[str, Any]:
    """Frames ``start .. start+count-1`` of a checked record: the table from above (every hand) and each
    step's events (and the bots' thoughts where the record has them)."""
    rec, total = item["rec"], item["total"]
    if start >= total:
        raise GameError(416, f"start: the replay has frames 0..{total - 1}, got {start}")
    count = max(1, min(count, MAX_PAGE))
    end = min(total, start + count)
    game = rec["game"]
    frames: list[dict[str, Any]] = []
    before = None
    for step, action, engine in records.iter_states(rec, item["where"]):
        if step >= end:
            break
        config, state = engine.config, engine.state
        if step == 0 and start == 0:
            frames.append({"step": 0, "player": None, "action": None, "label": "start", "events": [],
                           "view": views.view(game, config, state, None)})
        elif before is not None:
            b_state, b_action = before
            frame = {"step": step, "player": b_state.current, "action": b_action,
                     "label": views.action_label(game, b_action),
                     "events": views.step_events(game, config, b_state, b_action, state),
                     "view": views.view(game, config, state, None)}
            t = item["thoughts"].get(str(step - 1))
            if isinstance(t, dict):
                frame["thoughts"] = t
            frames.append(frame)
        before = (state.clone(), action) if start <= step + 1 < end else None
    meta = rec.get("meta") if isinstance(rec.get("meta"), dict) else {}
    return {"game": game, "config": rec["config"], "seed": rec["seed"], "agents": rec.get("agents", []),
            "final": rec.get("final"), "total_frames": total, "start": start, "frames": frames,
            "rounds": item["rounds"], "has_thoughts": bool(item["thoughts"]),
            "human_seat": meta.get("human_seat") if isinstance(meta.get("human_seat"), int) else None}


# --- the app -------------------------------------------------------------------------------------------

def create_app(runs_dir: str = "runs", max_games: int = 64, *, per_client: int = 8,
               allow_agents: Sequence[str] = (), allowed_hosts: Sequence[str] = (), save_games: bool = True,
               idle_s: float = 2 * 3600.0) -> ASGIApp:
    """The ASGI app serving the runs under ``runs_dir``, at most ``max_games`` games at once
    (``per_client`` per client, idle ones dropped after ``idle_s`` seconds). ``allow_agents``: bot names
    the operator allows besides the registry's (``--allow-agent``); ``allowed_hosts``: host names it
    answers for besides IP addresses and localhost; ``save_games``: write finished games as records."""
    store = SessionStore(max_games=max_games, per_client=per_client, idle_s=idle_s)
    runs_root = os.path.abspath(runs_dir)
    policy = BotPolicy(runs_root, list(allow_agents))
    cache = ReplayCache()
    web_dirs: dict[str, str] = {}
    save_lock = threading.Lock()

    def save(session: PlaySession) -> None:
        """Write a finished game's record under the runs folder (``session.saved`` says where)."""
        if not save_games or session.error is not None:
            return
        try:
            with save_lock:
                run_dir = web_dirs.get(session.game)
                if run_dir is None or not os.path.isdir(run_dir):
                    run_dir = runs_mod.new_run_dir(runs_root, "web", session.game, 0)
                    runs_mod.write_config(run_dir, {"kind": "web", "game": session.game,
                                                    "created": _dt.datetime.now().isoformat(timespec="seconds"),
                                                    "about": "games played in the web app (one record per game)"})
                    web_dirs[session.game] = run_dir
            os.makedirs(os.path.join(run_dir, "records"), exist_ok=True)
            name = f"game_{session.id}"
            runs_mod.atomic_write(os.path.join(run_dir, "records", name + ".jsonl"), records.dumps(session._record()) + "\n")
            session.saved = {"run": os.path.basename(run_dir), "game": name}
        except (OSError, ValueError) as e:
            session.saved = {"error": f"the record was not saved ({type(e).__name__})"}

    def client_of(request: Request) -> tuple[str, str]:
        host = request.client.host if request.client else ""
        cid = request.headers.get(CLIENT_HEADER, "")
        return host, cid if _CLIENT_RE.match(cid) else ""

    def session_of(request: Request) -> PlaySession:
        return store.get(request.path_params["gid"], request.headers.get(TOKEN_HEADER))

    async def index(request: Request) -> Response:
        with open(os.path.join(STATIC_DIR, "index.html"), encoding="utf-8") as f:
            return HTMLResponse(f.read())

    async def meta(request: Request) -> Response:
        out = {}
        for name in web_games():
            g = games_mod.get_game(name)
            defaults = records.config_dict(g.config_cls())
            out[name] = {"defaults": defaults, "choices": CHOICES[name], "presets": PRESETS[name],
                         "bots": await run_in_threadpool(policy.catalogue, name),
                         "players": [g.spec.min_players, g.spec.max_players]}
        return JSON({"games": out, "take5_bullheads": list(BULL), "five_alive_kinds": list(FA_ACTION_NAMES),
                     "runs_dir": runs_dir, "saving": save_games,
                     "limits": {"sims": MAX_SIMS, "time": MAX_TIME, "games_per_client": per_client,
                                "replay_page": MAX_PAGE}})

    def _fits(agent: Any, name: str, game: str, config: Any, seat: int) -> None:
        """A policy (or a search's prior) that cannot read this game's observations is refused now, not
        at its first move."""
        g = games_mod.get_game(game)
        engine = g.new_engine(config, 0)
        import numpy as np

        obs = g.observe(engine, seat)[None]
        mask = np.ones((1, g.num_actions), np.int8)
        nets = [agent] if hasattr(agent, "evaluate") else []
        for inner in policy_names(name, game)[1:]:
            nets.append(policy.make(inner, game, 0))
        for net in nets:
            try:
                net.evaluate(obs, mask)
            except ValueError as e:
                raise BotError(f"{str(e)[:300]}") from None

    def policy_names(name: str, game: str) -> list[str]:
        from agents.registry import nested_names

        try:
            return nested_names(name)
        except ValueError:
            return [name]

    def start_game(body: dict[str, Any], client: tuple[str, str]) -> PlaySession:
        game = body.get("game")
        config = PlaySession.make_config(game, body.get("config", {}))
        n = config.num_players
        seat = check_int("seat", body.get("seat", 0), 0, n - 1)
        bots = body.get("bots")
        if not isinstance(bots, list) or len(bots) != n - 1:
            got = f"a list of {len(bots)}" if isinstance(bots, list) else type(bots).__name__
            raise GameError(400, f"bots: expected a list of {n - 1} agent names (one per other seat), got {got}")
        seed = body.get("seed")
        seed = secrets.randbits(63) if seed is None else check_int("seed", seed, 0, MAX_SEED)
        others = [q for q in range(n) if q != seat]
        seeds = bot_seeds(seed, others)
        agents = {}
        for i, (q, name) in enumerate(zip(others, bots)):
            try:
                agents[q] = policy.make(name, game, seeds[q])
                _fits(agents[q], policy.resolve(name, game).make_name, game, config, q)
            except BotError as e:
                raise GameError(400, f"bots[{i}] (seat {q}): {e}") from None
        return PlaySession(game, config, seat, agents, seed, client=client, on_over=save)

    async def games_new(request: Request) -> Response:
        body = await json_body(request, fields=("game", "config", "seat", "bots", "seed"))
        client = client_of(request)
        store.check_room(client)  # a full server says so before any bot is built or moves
        session = await run_in_threadpool(start_game, body, client)
        dropped = store.add(session)
        snap = await run_in_threadpool(session.snapshot)
        return JSON(dict(snap, token=session.token, dropped=dropped), status_code=201)

    async def games_get(request: Request) -> Response:
        s = session_of(request)
        return JSON(await run_in_threadpool(s.snapshot, _int_param(request, "since", 0)))

    def _since(body: dict[str, Any], default: int) -> int:
        since = body.get("since")
        return default if since is None else check_int("since", since, 0, 10**9)

    async def games_act(request: Request) -> Response:
        s = session_of(request)
        body = await json_body(request, fields=("action", "step", "since"))
        if "action" not in body:
            raise GameError(400, "action: missing; expected {\"action\": <action id>, \"step\": <the snapshot's steps>}")
        if "step" not in body:
            raise GameError(400, "step: missing; expected the snapshot's \"steps\" (a repeated move is then answered, "
                                 "not played twice)")
        since = _since(body, len(s.events))
        played = await run_in_threadpool(s.act, body["action"], body["step"])
        return JSON(dict(await run_in_threadpool(s.snapshot, since), repeat=not played))

    async def games_advance(request: Request) -> Response:
        s = session_of(request)
        body = await json_body(request, fields=("step", "since"))
        since = _since(body, len(s.events))
        await run_in_threadpool(s.advance, body.get("step"))
        return JSON(await run_in_threadpool(s.snapshot, since))

    async def games_hint(request: Request) -> Response:
        s = session_of(request)
        body = await json_body(request, fields=("bot", "step"))
        name = body.get("bot")
        try:
            policy.resolve(name, s.game)
        except BotError as e:
            raise GameError(400, f"bot: {e}") from None

        def make(seed: int) -> Any:
            try:
                return policy.make(name, s.game, seed)
            except BotError as e:
                raise GameError(400, f"bot: {e}") from None

        return JSON(await run_in_threadpool(s.hint, make, body.get("step")))

    async def games_record(request: Request) -> Response:
        s = session_of(request)
        rec = await run_in_threadpool(s.record)
        return Response(records.dumps(rec) + "\n", media_type="application/x-ndjson")

    async def games_delete(request: Request) -> Response:
        s = session_of(request)
        store.delete(s.id, request.headers.get(TOKEN_HEADER))
        return JSON({"deleted": s.id})

    async def rules(request: Request) -> Response:  # the rule book's chapter of a game (experiments.web.rules_text)
        game = request.path_params["game"]
        if game not in web_games():
            raise GameError(404, f"no rules for {game[:40]!r}: expected one of {web_games()}")
        return JSON(await run_in_threadpool(rules_text.rules, game))

    async def runs(request: Request) -> Response:
        return JSON({"runs_dir": runs_dir, "runs": await run_in_threadpool(list_runs, runs_root)})

    async def run_get(request: Request) -> Response:
        return JSON(await run_in_threadpool(run_detail, runs_root, request.path_params["run"]))

    def _replay(text: str, where: str, index: int, start: int, count: int) -> dict[str, Any]:
        key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest() + f":{index}"
        item = cache.get(key)
        if item is None:
            item = _check_record(text, where, index)
            cache.put(key, item)
        return replay_page(item, start, count)

    def _page(request: Request) -> tuple[int, int]:
        return _int_param(request, "start", 0), _int_param(request, "count", 100, MAX_PAGE)

    async def replay_get(request: Request) -> Response:
        q = request.query_params
        if "run" in q or "game" in q:
            run, game = q.get("run", ""), q.get("game", "")
            if not _NAME_RE.match(run) or not _NAME_RE.match(game) or ".." in run or ".." in game:
                raise GameError(404, "no such recorded game (expected run=RUN&game=GAME, names of the runs folder)")
            rel = f"{run}/records/{game}.jsonl"
        else:
            rel = q.get("file", "")
        path = safe_file(runs_root, rel)
        if path is None or not os.path.isfile(path):
            raise GameError(404, f"no record file {rel[:100]!r} under the runs folder")
        if os.path.getsize(path) > MAX_UPLOAD:
            raise GameError(413, f"record file {rel[:100]!r}: expected at most {MAX_UPLOAD} bytes")
        index = _int_param(request, "index", 0)
        start, count = _page(request)
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read(MAX_UPLOAD + 1)
        return JSON(await run_in_threadpool(_replay, text, rel, index, start, count))

    async def replay_post(request: Request) -> Response:
        body = await json_body(request, MAX_UPLOAD, fields=("text", "index", "start", "count"))
        text = body.get("text")
        if not isinstance(text, str):
            raise GameError(400, f"text: expected the record file's text (a string), got {type(text).__name__}")
        index = check_int("index", body.get("index", 0), 0, 10**6)
        start = check_int("start", body.get("start", 0), 0, 10**9)
        count = check_int("count", body.get("count", 100), 1, MAX_PAGE)
        return JSON(await run_in_threadpool(_replay, text, "upload", index, start, count))

    async def files(request: Request) -> Response:
        rel = request.path_params["path"]
        path = safe_file(runs_root, rel)
        if path is None or not os.path.isfile(path):
            raise GameError(404, f"no file {rel[:100]!r} under the runs folder")
        return FileResponse(path)

    async def game_error(request: Request, exc: Exception) -> Response:
        if isinstance(exc, BotError):
            return _error(400, str(exc))
        assert isinstance(exc, GameError)
        return _error(exc.status, exc.message)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return _error(exc.status_code, str(exc.detail))

    async def server_error(request: Request, exc: Exception) -> Response:  # a bug, not a bad request
        return _error(500, f"internal error ({type(exc).__name__}); the server keeps serving")

    routes = [
        Route("/", index),
        Route("/api/meta", meta),
        Route("/api/games", games_new, methods=["POST"]),
        Route("/api/games/{gid}", games_get, methods=["GET"]),
        Route("/api/games/{gid}", games_delete, methods=["DELETE"]),
        Route("/api/games/{gid}/act", games_act, methods=["POST"]),
        Route("/api/games/{gid}/advance", games_advance, methods=["POST"]),
        Route("/api/games/{gid}/hint", games_hint, methods=["POST"]),
        Route("/api/games/{gid}/record", games_record, methods=["GET"]),
        Route("/api/rules/{game}", rules),
        Route("/api/runs", runs),
        Route("/api/runs/{run}", run_get),
        Route("/api/replay", replay_get, methods=["GET"]),
        Route("/api/replay", replay_post, methods=["POST"]),
        Route("/files/{path:path}", files),
        Mount("/static", app=StaticFiles(directory=STATIC_DIR), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={GameError: game_error, BotError: game_error,
                                                       HTTPException: http_error, Exception: server_error})
    app.state.store = store
    app.state.runs_dir = runs_root
    app.state.policy = policy
    guarded = Guard(app, allowed_hosts)
    guarded.state = app.state  # type: ignore[attr-defined]
    return guarded
