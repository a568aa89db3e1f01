"""The games in play: ``SessionStore`` holds the web app's sessions (``fiveplay_env.experiments.web.sessions.PlaySession``).

At most ``per_client`` per client (a client's own least recently used game is dropped to make room for its
next one), at most ``max_games`` in all. When the store is full a client's new game replaces its own least
recently used one; a client holding none replaces a game of another address only if that address holds
more than its share (``max_games`` over the addresses holding games), else it gets a 503 saying the server
is full. So no request drops a game of another client of its own address (the ``X-Client`` id is the
browser's own choice: 70 ids from one address are 70 clients, none of which owns the others' games), and
one address cannot use up the store for the others. A game idle for ``idle_s`` seconds expires. A client
is the pair (address, the browser's random ``X-Client`` id). A game is reached only with its id and its
secret token (``get``: an unknown id and a wrong token are the same 404).
"""
from __future__ import annotations

import secrets
import threading
import time

from fiveplay_env.experiments.web.sessions import GameError, PlaySession


class SessionStore:
    """The games in play (module docstring): ``max_games`` in all, ``per_client`` per client, idle ones
    expire after ``idle_s`` seconds."""

    def __init__(self, max_games: int = 64, per_client: int = 8, idle_s: float = 2 * 3600.0) -> None:
        self.max_games = max_games
        self.per_client = per_client
        self.idle_s = idle_s
        self._sessions: dict[str, PlaySession] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._sessions)

    def _expire(self) -> None:
        now = time.monotonic()
        for gid in [g for g, s in self._sessions.items() if now - s.used > self.idle_s]:
            del self._sessions[gid]

    def add(self, session: PlaySession) -> list[str]:
        """Hold ``session``, dropping games to make room (module docstring); returns the dropped ids.
        ``GameError`` 503 when the store is full and no game may be dropped for this client."""
        dropped = []
        with self._lock:
            self._expire()
            mine = [s for s in self._sessions.values() if s.client == session.client]
            while len(mine) >= self.per_client or (mine and len(self._sessions) >= self.max_games):
                old = min(mine, key=lambda s: s.used)
                mine.remove(old)
                dropped.append(old.id)
                del self._sessions[old.id]
            while len(self._sessions) >= self.max_games:
                victim = self._victim(session.client)
                if victim is None:
                    raise self.full()
                dropped.append(victim.id)
                del self._sessions[victim.id]
            self._sessions[session.id] = session
        return dropped

    def full(self) -> GameError:
        return GameError(503, f"this server holds its {self.max_games} games and none of them is yours to replace: "
                              f"finish or delete a game, or wait for idle games to expire "
                              f"(after {self.idle_s / 60:g} minutes)")

    def check_room(self, client: tuple[str, str]) -> None:
        """``GameError`` 503 now (before a game is built) if ``add`` would refuse a game of ``client``."""
        with self._lock:
            self._expire()
            if len(self._sessions) < self.max_games or any(s.client == client for s in self._sessions.values()):
                return
            if self._victim(client) is None:
                raise self.full()

    def _victim(self, asker: tuple[str, str]) -> PlaySession | None:
        """The game of another client to drop for ``asker``'s new one, or None. Never a game of the
        asker's own address (its clients cannot be told apart: their ids are their own choice); only of
        another address holding more than its share (``max_games`` over the addresses, at least 1): the
        one holding the most, its client holding the most, that client's least recently used."""
        by_addr: dict[str, list[PlaySession]] = {}
        for s in self._sessions.values():
            by_addr.setdefault(s.client[0], []).append(s)
        share = max(1, self.max_games // len(set(by_addr) | {asker[0]}))
        over = [a for a, g in by_addr.items() if a != asker[0] and len(g) > share]
        if not over:
            return None
        addr = max(over, key=lambda a: (len(by_addr[a]), -max(s.used for s in by_addr[a])))
        by_client: dict[tuple[str, str], list[PlaySession]] = {}
        for s in by_addr[addr]:
            by_client.setdefault(s.client, []).append(s)
        group = max(by_client.values(), key=lambda g: (len(g), -max(s.used for s in g)))
        return min(group, key=lambda s: s.used)

    def get(self, gid: str, token: str | None) -> PlaySession:
        """The session ``gid`` if ``token`` is its token; ``GameError`` 404 otherwise (an unknown id and
        a wrong token get the same answer)."""
        with self._lock:
            self._expire()
            s = self._sessions.get(gid)
        if s is None or not isinstance(token, str) or not secrets.compare_digest(s.token.encode(), token.encode()):
            raise GameError(404, "no game with this id and token (it may have expired; start a new one)")
        return s

    def delete(self, gid: str, token: str | None) -> None:
        s = self.get(gid, token)
        with self._lock:
            self._sessions.pop(s.id, None)

    def count(self, client: tuple[str, str] | None = None) -> int:
        """Games held (by ``client``, or in all)."""
        with self._lock:
            return sum(1 for s in self._sessions.values() if client is None or s.client == client)
