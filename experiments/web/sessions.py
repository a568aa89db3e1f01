"""Games being played in the web app: one human seat, bots in the others, every step logged as public events.

``PlaySession`` holds one game (reference engine, the bots by registry name, the human's seat, the event
log and the actions so far, so a finished game is also a record). Bots move on the server until it is
the human's turn or the game is over; a bot that raises or returns an illegal action ends that game with
the error kept in ``error``. ``SessionStore`` holds many sessions at once, bounded (``max_games``),
evicting finished or idle ones first. Each session has its own lock: moves in one game are serialized,
different games run in parallel.
"""
from __future__ import annotations

import secrets
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from agents import games as games_mod
from agents.base import Agent
from agents.registry import make_agent
from experiments.web import views
from fiveplay_env import records
from fiveplay_env.core.config import from_kwargs
from fiveplay_env.core.errors import IllegalActionError

MAX_BOT_STEPS = 200_000  # a guard against a game that never ends while only bots play


class GameError(Exception):
    """A request this game cannot take: ``status`` is the HTTP code (400 bad, 409 not now)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class PlaySession:
    """One game: ``human`` plays seat ``seat``; ``bots[i]`` names the agent of every other seat, in order."""

    def __init__(self, game: str, config: Mapping[str, Any], seat: int, bots: Sequence[str], seed: int | None = None) -> None:
        if game not in games_mod.GAMES:
            raise GameError(400, f"game: expected one of {sorted(games_mod.GAMES)}, got {game!r}")
        self.adapter = games_mod.get_game(game)
        self.game = game
        if not isinstance(config, Mapping):
            raise GameError(400, f"config: expected an object of config fields, got {type(config).__name__}")
        try:
            self.config = from_kwargs(self.adapter.config_cls, dict(config))
        except (ValueError, TypeError) as e:
            raise GameError(400, f"config: {e}") from None
        n = self.config.num_players
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise GameError(400, f"seat: expected an integer in 0..{n - 1}, got {seat!r}")
        if not isinstance(bots, (list, tuple)) or len(bots) != n - 1:
            raise GameError(400, f"bots: expected a list of {n - 1} agent names (one per other seat), got {bots!r}")
        if seed is None:
            seed = secrets.randbits(62)
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise GameError(400, f"seed: expected an integer >= 0, got {seed!r}")
        self.seed = seed
        self.seat = seat
        self.names: list[str] = []
        self.agents: dict[int, Agent] = {}
        others = [q for q in range(n) if q != seat]
        for q, name in zip(others, bots):
            try:
                self.agents[q] = make_agent(name, game, seed=(seed + 1 + q) % (1 << 63))
            except (ValueError, TypeError) as e:
                raise GameError(400, f"bots[{others.index(q)}] (seat {q}): {e}") from None
        self.names = ["you" if q == seat else self.agents[q].name for q in range(n)]
        self.engine = self.adapter.new_engine(self.config, seed)
        self.actions: list[int] = []
        self.events: list[dict[str, Any]] = []
        self.error: str | None = None
        self.bot_seconds = 0.0
        self.lock = threading.Lock()
        self.id = uuid.uuid4().hex
        self.created = self.used = time.monotonic()
        for q, agent in self.agents.items():
            if agent.uses_engine:
                agent.observe_engine(self.engine, q)
        with self.lock:
            self._advance()

    # --- state ---------------------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.engine.is_over or self.error is not None

    def legal(self) -> list[int]:
        """The human's legal actions now ([] when it is not their turn)."""
        if self.over or self.engine.current_player != self.seat:
            return []
        return [int(a) for a in self.engine.legal_mask().nonzero()[0]]

    def snapshot(self, since: int = 0) -> dict[str, Any]:
        """What the human's browser gets: the table from their seat, the events from index ``since`` on,
        the seats, whose turn, the legal actions, the error (if a bot failed). Waits for a move in progress."""
        with self.lock:
            return self._snapshot(since)

    def _snapshot(self, since: int) -> dict[str, Any]:
        self.used = time.monotonic()
        since = max(0, min(since, len(self.events)))
        return {
            "id": self.id, "game": self.game, "seat": self.seat, "names": self.names,
            "config": records.config_dict(self.config), "view": views.view(self.game, self.config, self.engine.state, self.seat),
            "events": self.events[since:], "event_base": since, "event_count": len(self.events),
            "your_turn": bool(self.legal()), "legal": self.legal(), "over": self.over, "error": self.error,
            "steps": len(self.actions),
        }

    def record(self) -> dict[str, Any]:
        """The game so far as a record (``fiveplay_env.records``)."""
        with self.lock:
            return records.make_record(self.game, self.config, self.seed, self.actions, agents=self.names,
                                       engine=self.engine, meta={"source": "web", "human_seat": self.seat})

    # --- moves ---------------------------------------------------------------------------------------
    def act(self, action: Any) -> None:
        """The human plays ``action``; then the bots move until it is the human's turn again or the game ends.

        Raises ``GameError`` 400 for a malformed or illegal action (nothing changes), 409 when the game is
        over or it is not the human's turn."""
        if isinstance(action, bool) or not isinstance(action, int):
            raise GameError(400, f"action: expected an integer action id, got {action!r}")
        with self.lock:
            if self.error is not None:
                raise GameError(409, f"this game has ended with an error: {self.error}")
            if self.engine.is_over:
                raise GameError(409, "this game is over; start a new one")
            if self.engine.current_player != self.seat:
                raise GameError(409, f"not your turn: seat {self.engine.current_player} is to play")
            legal = self.legal()
            if action not in legal:
                raise GameError(400, f"illegal move: {self._label(action)} is not playable now; "
                                     f"legal: {[self._label(a) for a in legal]}")
            self._step(action)
            self._advance()

    def _label(self, action: int) -> str:
        if not 0 <= action < self.adapter.num_actions:
            return f"action {action}"
        return views.action_label(self.game, action)

    def _step(self, action: int) -> None:
        before = self.engine.state.clone()
        self.engine.step(action)
        self.actions.append(action)
        self.events.extend(views.step_events(self.game, self.config, before, action, self.engine.state))
        for q, agent in self.agents.items():  # search agents follow the public events of every step
            if agent.uses_engine:
                agent.observe_engine(self.engine, q)

    def _advance(self) -> None:
        """Bots move until the human's turn or the end; a failing bot ends the game with ``error``."""
        steps = 0
        while not self.engine.is_over and self.engine.current_player != self.seat:
            q = self.engine.current_player
            agent = self.agents[q]
            t0 = time.perf_counter()
            try:
                if agent.uses_engine:
                    agent.observe_engine(self.engine, q)
                mask = self.engine.legal_mask()
                action = agent.act(self.adapter.observe(self.engine, q), mask)
                action = int(action)
                if not 0 <= action < len(mask) or not mask[action]:
                    raise IllegalActionError(f"player_{q}", action, mask.nonzero()[0])
            except Exception as e:  # any bot failure ends this game only; the server keeps serving
                self.error = f"bot {agent.name!r} in seat {q} failed: {type(e).__name__}: {e}"
                self.events.append({"type": "error", "player": q, "text": self.error})
                return
            finally:
                self.bot_seconds += time.perf_counter() - t0
            self._step(action)
            steps += 1
            if steps > MAX_BOT_STEPS:
                self.error = f"the bots played {MAX_BOT_STEPS} steps without the game ending; stopped"
                self.events.append({"type": "error", "player": -1, "text": self.error})
                return


class SessionStore:
    """At most ``max_games`` sessions; when full, the least recently used finished (or idle for
    ``idle_s``) session is dropped to make room, else ``GameError`` 429."""

    def __init__(self, max_games: int = 64, idle_s: float = 3600.0) -> None:
        self.max_games = max_games
        self.idle_s = idle_s
        self._sessions: dict[str, PlaySession] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._sessions)

    def add(self, session: PlaySession) -> None:
        with self._lock:
            if len(self._sessions) >= self.max_games:
                now = time.monotonic()
                spare = [s for s in self._sessions.values() if s.over or now - s.used > self.idle_s]
                if not spare:
                    raise GameError(429, f"too many games at once (limit {self.max_games}); finish or delete one first")
                del self._sessions[min(spare, key=lambda s: s.used).id]
            self._sessions[session.id] = session

    def get(self, gid: str) -> PlaySession:
        s = self._sessions.get(gid)
        if s is None:
            raise GameError(404, f"no game with id {gid!r} (it may have ended and been dropped)")
        return s

    def delete(self, gid: str) -> None:
        with self._lock:
            if self._sessions.pop(gid, None) is None:
                raise GameError(404, f"no game with id {gid!r}")

    def ids(self) -> list[str]:
        return list(self._sessions)
