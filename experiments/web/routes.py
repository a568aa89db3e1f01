"""The web app's routes: each endpoint of ``fiveplay_env.experiments.web.app``'s table, as a method of ``Routes``.

A ``Routes`` holds what the endpoints share (the games in play, the bot rules, the replays, the runs
folder) and ``routes()`` lists them for Starlette. A handler reads its input through the bounded readers
of ``fiveplay_env.experiments.web.guards`` and does its work in a worker thread (``run_in_threadpool``: a bot's move
or a replay never blocks the server). The new-game panel's data (``/api/meta``) comes from the game table
and each game's web view (``fiveplay_env.experiments.web.games``): every registered game, in the table's order, with
its presets (``GameDef.presets``), choice lists, bot list and what its drawing code reads. A finished
game is saved as a record under the runs folder (``save``: ``web__<game>__0__<time>/records/game_<id>.jsonl``),
private to the client that played it unless shared (``fiveplay_env.experiments.web.saved``): the runs
listing, a run's details, replays by name and ``/files/`` show a web run folder's records only to their
owner; a share link (``POST /api/share``) gives read access to one saved game (``/api/replay?share=``).
"""
from __future__ import annotations

import datetime as _dt
import os
import re
import secrets
import threading
import time
from typing import Any

import numpy as np
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from fiveplay_env.agents import games as games_mod
from fiveplay_env.experiments import runs as runs_mod
from fiveplay_env.experiments.web import games as web_views
from fiveplay_env.experiments.web import rules_text
from fiveplay_env.experiments.web.bots import MAX_SIMS, MAX_TIME, BotError, BotPolicy
from fiveplay_env.experiments.web.guards import JSON, MAX_UPLOAD, int_param, json_body, safe_file
from fiveplay_env.experiments.web.replays import MAX_PAGE, Replays
from fiveplay_env.experiments.web.run_browser import list_runs, run_detail
from fiveplay_env.experiments.web.saved import PER_CLIENT, TOTAL, SavedGames, SavedRefused, is_web_run
from fiveplay_env.experiments.web.sessions import (GameError, PlaySession, bot_seeds, check_int, parse_seed,
                                      web_games)
from fiveplay_env.experiments.web.store import SessionStore
from fiveplay_env import records

TOKEN_HEADER = "x-game-token"
CLIENT_HEADER = "x-client"
_CLIENT_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class Routes:
    """The endpoints over one runs folder (``runs_root``, shown to the browser as ``runs_dir``)."""

    def __init__(self, store: SessionStore, policy: BotPolicy, runs_root: str, runs_dir: str, static_dir: str,
                 save_games: bool = True, saved_per_client: int = PER_CLIENT, saved_total: int = TOTAL) -> None:
        self.store = store
        self.policy = policy
        self.runs_root = runs_root
        self.runs_dir = runs_dir
        self.static_dir = static_dir
        self.save_games = save_games
        self.replays = Replays(runs_root)
        self.saved = SavedGames(runs_root, saved_per_client, saved_total)
        self._web_dirs: dict[str, str] = {}
        self._save_lock = threading.Lock()

    def routes(self) -> list[Any]:
        return [
            Route("/", self.index),
            Route("/api/meta", self.meta),
            Route("/api/games", self.games_new, methods=["POST"]),
            Route("/api/games/{gid}", self.games_get, methods=["GET"]),
            Route("/api/games/{gid}", self.games_delete, methods=["DELETE"]),
            Route("/api/games/{gid}/act", self.games_act, methods=["POST"]),
            Route("/api/games/{gid}/advance", self.games_advance, methods=["POST"]),
            Route("/api/games/{gid}/hint", self.games_hint, methods=["POST"]),
            Route("/api/games/{gid}/record", self.games_record, methods=["GET"]),
            Route("/api/rules/{game}", self.rules),
            Route("/api/runs", self.runs),
            Route("/api/runs/{run}", self.run_get),
            Route("/api/replay", self.replay_get, methods=["GET"]),
            Route("/api/replay", self.replay_post, methods=["POST"]),
            Route("/api/share", self.share_post, methods=["POST"]),
            Route("/api/share", self.share_delete, methods=["DELETE"]),
            Route("/files/{path:path}", self.files),
            Mount("/static", app=StaticFiles(directory=self.static_dir), name="static"),
        ]

    # --- saving finished games ------------------------------------------------------------------------
    def save(self, session: PlaySession) -> None:
        """Write a finished game's record under the runs folder, owned by the client that played it
        (``session.saved`` says where, or why not: the saved-games bounds of ``fiveplay_env.experiments.web.saved``)."""
        if not self.save_games or session.error is not None:
            return
        try:
            with self._save_lock:
                run_dir = self._web_dirs.get(session.game)
                if run_dir is None or not os.path.isdir(run_dir):
                    run_dir = runs_mod.new_run_dir(self.runs_root, "web", session.game, 0)
                    runs_mod.write_config(run_dir, {"kind": "web", "game": session.game,
                                                    "created": _dt.datetime.now().isoformat(timespec="seconds"),
                                                    "about": "games played in the web app (one record per game)"})
                    self._web_dirs[session.game] = run_dir
                try:
                    self.saved.room(session.client)  # (deletes this client's own oldest beyond its bound)
                except SavedRefused as e:
                    session.saved = {"error": str(e)}
                    return
                os.makedirs(os.path.join(run_dir, "records"), exist_ok=True)
                name = f"game_{session.id}"
                runs_mod.atomic_write(os.path.join(run_dir, "records", name + ".jsonl"),
                                      records.dumps(session._record()) + "\n")
                self.saved.add(f"{os.path.basename(run_dir)}/records/{name}.jsonl", session.client)
            session.saved = {"run": os.path.basename(run_dir), "game": name}
        except (OSError, ValueError) as e:
            session.saved = {"error": f"the record was not saved ({type(e).__name__})"}

    # --- pages and the new-game panel's data ---------------------------------------------------------
    async def index(self, request: Request) -> Response:
        with open(os.path.join(self.static_dir, "index.html"), encoding="utf-8") as f:
            return HTMLResponse(f.read())

    def game_meta(self, name: str) -> dict[str, Any]:
        """One game's entry of ``/api/meta``: title, defaults, choices, presets, bots, player counts and
        its web view (the drawing code's kind, script and data)."""
        g = games_mod.get_game(name)
        v = web_views.view(name)
        return {"title": g.title, "defaults": records.config_dict(g.config_cls()), "choices": dict(v.choices),
                "presets": v.presets(g), "bots": self.policy.catalogue(name),
                "players": [g.spec.min_players, g.spec.max_players], "dynamics": g.dynamics, "view": v.about()}

    async def meta(self, request: Request) -> Response:
        out: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        for name in web_views.served():
            out[name] = await run_in_threadpool(self.game_meta, name)
            extra.update(web_views.view(name).meta)
        return JSON({"games": out, **extra, "runs_dir": self.runs_dir, "saving": self.save_games,
                     "limits": {"sims": MAX_SIMS, "time": MAX_TIME, "games_per_client": self.store.per_client,
                                "replay_page": MAX_PAGE}})

    # --- games ----------------------------------------------------------------------------------------
    @staticmethod
    def client_of(request: Request) -> tuple[str, str]:
        host = request.client.host if request.client else ""
        cid = request.headers.get(CLIENT_HEADER, "")
        return host, cid if _CLIENT_RE.match(cid) else ""

    def session_of(self, request: Request) -> PlaySession:
        return self.store.get(request.path_params["gid"], request.headers.get(TOKEN_HEADER))

    @staticmethod
    def _policy_names(name: str) -> list[str]:
        from fiveplay_env.agents.registry import nested_names

        try:
            return nested_names(name)
        except ValueError:
            return [name]

    def _fits(self, agent: Any, name: str, game: str, config: Any, seat: int) -> None:
        """A policy (or a search's prior) that cannot read this game's observations is refused now, not
        at its first move."""
        g = games_mod.get_game(game)
        obs = g.observe(g.new_engine(config, 0), seat)[None]
        mask = np.ones((1, g.num_actions), np.int8)
        nets = [agent] if hasattr(agent, "evaluate") else []
        for inner in self._policy_names(name)[1:]:
            nets.append(self.policy.make(inner, game, 0))
        for net in nets:
            try:
                net.evaluate(obs, mask)
            except ValueError as e:
                raise BotError(f"{str(e)[:300]}") from None

    def start_game(self, body: dict[str, Any], client: tuple[str, str]) -> PlaySession:
        """A new game from a request's body; the time its bots take to build counts in the request's bot
        budget (``PlaySession(spent=...)``; ``fiveplay_env.experiments.web.warm`` builds them ahead)."""
        t0 = time.perf_counter()
        game = body.get("game")
        config = PlaySession.make_config(game, body.get("config", {}))
        n = config.num_players
        seat = check_int("seat", body.get("seat", 0), 0, n - 1)
        bots = body.get("bots")
        if not isinstance(bots, list) or len(bots) != n - 1:
            got = f"a list of {len(bots)}" if isinstance(bots, list) else type(bots).__name__
            raise GameError(400, f"bots: expected a list of {n - 1} agent names (one per other seat), got {got}")
        seed = body.get("seed")
        seed = secrets.randbits(63) if seed is None else parse_seed(seed)
        others = [q for q in range(n) if q != seat]
        seeds = bot_seeds(seed, others)
        agents = {}
        for i, (q, name) in enumerate(zip(others, bots)):
            try:
                agents[q] = self.policy.make(name, game, seeds[q])
                self._fits(agents[q], self.policy.resolve(name, game).make_name, game, config, q)
            except BotError as e:
                raise GameError(400, f"bots[{i}] (seat {q}): {e}") from None
        return PlaySession(game, config, seat, agents, seed, client=client, on_over=self.save,
                           spent=time.perf_counter() - t0)

    async def games_new(self, request: Request) -> Response:
        body = await json_body(request, fields=("game", "config", "seat", "bots", "seed"))
        client = self.client_of(request)
        self.store.check_room(client)  # a full server says so before any bot is built or moves
        session = await run_in_threadpool(self.start_game, body, client)
        dropped = self.store.add(session)
        snap = await run_in_threadpool(session.snapshot)
        return JSON(dict(snap, token=session.token, dropped=dropped), status_code=201)

    async def games_get(self, request: Request) -> Response:
        s = self.session_of(request)
        return JSON(await run_in_threadpool(s.snapshot, int_param(request, "since", 0)))

    @staticmethod
    def _since(body: dict[str, Any], default: int) -> int:
        since = body.get("since")
        return default if since is None else check_int("since", since, 0, 10**9)

    async def games_act(self, request: Request) -> Response:
        s = self.session_of(request)
        body = await json_body(request, fields=("action", "step", "since"))
        if "action" not in body:
            raise GameError(400, "action: missing; expected {\"action\": <action id>, \"step\": <the snapshot's steps>}")
        if "step" not in body:
            raise GameError(400, "step: missing; expected the snapshot's \"steps\" (a repeated move is then answered, "
                                 "not played twice)")
        since = self._since(body, len(s.events))
        played = await run_in_threadpool(s.act, body["action"], body["step"])
        return JSON(dict(await run_in_threadpool(s.snapshot, since), repeat=not played))

    async def games_advance(self, request: Request) -> Response:
        s = self.session_of(request)
        body = await json_body(request, fields=("step", "since"))
        since = self._since(body, len(s.events))
        await run_in_threadpool(s.advance, body.get("step"))
        return JSON(await run_in_threadpool(s.snapshot, since))

    async def games_hint(self, request: Request) -> Response:
        s = self.session_of(request)
        body = await json_body(request, fields=("bot", "step"))
        name = body.get("bot")
        try:
            self.policy.resolve(name, s.game)
        except BotError as e:
            raise GameError(400, f"bot: {e}") from None

        def make(seed: int) -> Any:
            try:
                return self.policy.make(name, s.game, seed)
            except BotError as e:
                raise GameError(400, f"bot: {e}") from None

        return JSON(await run_in_threadpool(s.hint, make, body.get("step")))

    async def games_record(self, request: Request) -> Response:
        s = self.session_of(request)
        rec = await run_in_threadpool(s.record)
        return Response(records.dumps(rec) + "\n", media_type="application/x-ndjson")

    async def games_delete(self, request: Request) -> Response:
        s = self.session_of(request)
        self.store.delete(s.id, request.headers.get(TOKEN_HEADER))
        return JSON({"deleted": s.id})

    # --- rules, runs, replays, files ------------------------------------------------------------------
    async def rules(self, request: Request) -> Response:  # the rule book's chapter of a game (rules_text)
        game = request.path_params["game"]
        if game not in web_games():
            raise GameError(404, f"no rules for {game[:40]!r}: expected one of {web_games()}")
        return JSON(await run_in_threadpool(rules_text.rules, game))

    def _visible(self, run: dict[str, Any], client: tuple[str, str]) -> dict[str, Any] | None:
        """A run as ``client`` may see it: a web run folder with only its own saved games (None if none)."""
        if not is_web_run(run["name"]):
            return run
        mine = self.saved.visible_records(run["name"], run["records"], client)
        return dict(run, records=mine) if mine else None

    async def runs(self, request: Request) -> Response:
        client = self.client_of(request)
        runs = [r for r in await run_in_threadpool(list_runs, self.runs_root) if self._visible(r, client) is not None]
        return JSON({"runs_dir": self.runs_dir, "runs": [self._visible(r, client) for r in runs]})

    async def run_get(self, request: Request) -> Response:
        name = request.path_params["run"]
        info = self._visible(await run_in_threadpool(run_detail, self.runs_root, name), self.client_of(request))
        if info is None:
            raise GameError(404, f"no run called {name[:80]!r} under the runs folder")
        return JSON(info)

    def _real_rel(self, rel: str) -> str | None:
        """The path of file ``rel`` of the runs folder, relative to it, links resolved (None if outside)."""
        path = safe_file(self.runs_root, rel)
        if path is None:
            return None
        return os.path.relpath(path, os.path.realpath(self.runs_root)).replace(os.sep, "/")

    def _readable(self, rel: str, client: tuple[str, str]) -> str:
        """``rel`` if ``client`` may read that record by name; 404 (the same as a missing file) otherwise."""
        real = self._real_rel(rel)
        if real is not None and not self.saved.readable(real, client):
            raise GameError(404, f"no record file {rel[:100]!r} under the runs folder")
        return rel

    def _shared_game(self, body: dict[str, Any]) -> str:
        run, game = body.get("run"), body.get("game")
        if not isinstance(run, str) or not isinstance(game, str):
            raise GameError(400, "expected {\"run\": RUN, \"game\": GAME}: the names a finished game's \"saved\" gives")
        return self.replays.record_path(run, game, None)

    async def share_post(self, request: Request) -> Response:
        """``{run, game}`` (a saved game of this client) -> ``{share}``: a new share token for it."""
        body = await json_body(request, fields=("run", "game"))
        rel = self._shared_game(body)
        token = await run_in_threadpool(self.saved.share, rel, self.client_of(request))
        if token is None:
            raise GameError(404, "no saved game of yours with this run and game")
        return JSON({"share": token, "run": body["run"], "game": body["game"],
                     "replay": f"/api/replay?share={token}"})

    async def share_delete(self, request: Request) -> Response:
        """``{run, game}``: revoke that saved game's share link."""
        body = await json_body(request, fields=("run", "game"))
        rel = self._shared_game(body)
        if not await run_in_threadpool(self.saved.unshare, rel, self.client_of(request)):
            raise GameError(404, "no saved game of yours with this run and game")
        return JSON({"unshared": True})

    @staticmethod
    def _page(request: Request) -> tuple[int, int]:
        return int_param(request, "start", 0), int_param(request, "count", 100, MAX_PAGE)

    async def replay_get(self, request: Request) -> Response:
        q = request.query_params
        if q.get("share") is not None:  # a share link: read access to one saved game
            rel = self.saved.shared(q.get("share"))
            if rel is None or (q.get("run"), q.get("game"), q.get("file")) != (None, None, None):
                raise GameError(404, "no shared game with this link (it may have been revoked or deleted)")
        else:
            rel = self._readable(self.replays.record_path(q.get("run"), q.get("game"), q.get("file")),
                                 self.client_of(request))
        text = self.replays.record_file(rel)
        index = int_param(request, "index", 0)
        start, count = self._page(request)
        return JSON(await run_in_threadpool(self.replays.page, text, rel, index, start, count))

    async def replay_post(self, request: Request) -> Response:
        body = await json_body(request, MAX_UPLOAD, fields=("text", "index", "start", "count"))
        text = body.get("text")
        if not isinstance(text, str):
            raise GameError(400, f"text: expected the record file's text (a string), got {type(text).__name__}")
        index = check_int("index", body.get("index", 0), 0, 10**6)
        start = check_int("start", body.get("start", 0), 0, 10**9)
        count = check_int("count", body.get("count", 100), 1, MAX_PAGE)
        return JSON(await run_in_threadpool(self.replays.page, text, "upload", index, start, count))

    async def files(self, request: Request) -> Response:
        rel = request.path_params["path"]
        path = safe_file(self.runs_root, rel)
        real = self._real_rel(rel)
        if path is None or not os.path.isfile(path) or (real is not None and self.saved.private(real)):
            raise GameError(404, f"no file {rel[:100]!r} under the runs folder")
        return FileResponse(path)
