"""The games in play: ``SessionStore`` holds the web app's sessions (``fiveplay_env.experiments.web.sessions.PlaySession``).

At most ``per_client`` per client (a client's own least recently used game is dropped to make room for its
next one), at most ``max_games`` in all. When the store is full a client's new game replaces, in this order:

1. a finished game whose record is saved (``session.saved`` names its run; the least recently used):
   nothing is lost, the record stays in the runs folder, listed for its owner
   (``fiveplay_env.experiments.web.saved``);
2. its own least recently used game, if it holds one;
3. a game of another address holding more than its share (``max_games`` over the addresses holding
   games): the address holding the most, its client holding the most, that client's least recently used;
4. a game of its own address idle for at least ``reclaim_s`` seconds (10 minutes by default; the least
   recently used of the client holding the most), so that clients of one address that stopped playing
   never lock the address out for the whole ``idle_s``;

else it gets a 503 saying the server is full and when a game becomes replaceable (a ``Retry-After``
header, at most ``reclaim_s``). So no request drops a game of another client of its own address that is
in play (the ``X-Client`` id is the browser's own choice: 70 ids from one address are 70 clients, none of
which owns the others' games), no finished game's record is ever lost to make room, and neither one
address nor one local process under many client ids can use up the store for longer than ``reclaim_s``
without playing. A game idle for ``idle_s`` seconds expires. A client is the pair (address, the
browser's random ``X-Client`` id). A game is reached only with its id and its secret token (``get``: an
unknown id and a wrong token are the same 404).
"""
from __future__ import annotations

import secrets
import threading
import time

from fiveplay_env.experiments.web.sessions import GameError, PlaySession

RECLAIM_S = 600.0
"""Seconds a game must be idle before a new client of its own address may replace it in a full store."""


def kept(session: PlaySession) -> bool:
    """Whether ``session`` is finished and its record saved (dropping it loses nothing)."""
    return session.over and isinstance(session.saved, dict) and "run" in session.saved


class SessionStore:
    """The games in play (module docstring): ``max_games`` in all, ``per_client`` per client, idle ones
    expire after ``idle_s`` seconds."""

    def __init__(self, max_games: int = 64, per_client: int = 8, idle_s: float = 2 * 3600.0,
                 reclaim_s: float = RECLAIM_S) -> None:
        self.max_games = max_games
        self.per_client = per_client
        self.idle_s = idle_s
        self.reclaim_s = reclaim_s
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
            while len(mine) >= self.per_client:
                old = min(mine, key=lambda s: s.used)
                mine.remove(old)
                dropped.append(old.id)
                del self._sessions[old.id]
            while len(self._sessions) >= self.max_games:
                victim = self._victim(session.client, mine)
                if victim is None:
                    raise self.full(session.client)
                if victim in mine:
                    mine.remove(victim)
                dropped.append(victim.id)
                del self._sessions[victim.id]
            self._sessions[session.id] = session
        return dropped

    def full(self, asker: tuple[str, str]) -> GameError:
        """The 503 of a full store, saying when a game of ``asker``'s address becomes replaceable."""
        now = time.monotonic()
        ours = [s.used for s in self._sessions.values() if s.client[0] == asker[0]]
        wait = max(1, int(self.reclaim_s - (now - min(ours)) + 1)) if ours else int(max(1.0, self.reclaim_s))
        wait = min(wait, int(max(1.0, self.reclaim_s)))
        return GameError(503, f"this server holds its {self.max_games} games and none of them may be replaced yet: "
                              f"finish or delete a game, or try again in {wait} s (a game idle for "
                              f"{self.reclaim_s / 60:g} minutes may be replaced by a new one)",
                         headers={"Retry-After": str(wait)})

    def check_room(self, client: tuple[str, str]) -> None:
        """``GameError`` 503 now (before a game is built) if ``add`` would refuse a game of ``client``."""
        with self._lock:
            self._expire()
            if len(self._sessions) < self.max_games or any(s.client == client for s in self._sessions.values()):
                return
            if self._victim(client) is None:
                raise self.full(client)

    def _victim(self, asker: tuple[str, str], mine: list[PlaySession] | None = None) -> PlaySession | None:
        """The game to drop for ``asker``'s new one in a full store, or None (module docstring): a
        finished game whose record is saved (the least recently used); else the asker's own least
        recently used (``mine``: its games); else a game of another address
        holding more than its share (``max_games`` over the addresses, at least 1): the one holding the
        most, its client holding the most, that client's least recently used; else a game of the asker's
        own address idle for ``reclaim_s`` seconds (the least recently used of its client holding the
        most). Never a game in play of the asker's own address (its clients cannot be told apart: their
        ids are their own choice)."""
        done = [s for s in self._sessions.values() if kept(s)]
        if done:
            return min(done, key=lambda s: s.used)
        if mine:
            return min(mine, key=lambda s: s.used)
        by_addr: dict[str, list[PlaySession]] = {}
        for s in self._sessions.values():
            by_addr.setdefault(s.client[0], []).append(s)
        share = max(1, self.max_games // len(set(by_addr) | {asker[0]}))
        over = [a for a, g in by_addr.items() if a != asker[0] and len(g) > share]
        if over:
            addr = max(over, key=lambda a: (len(by_addr[a]), -max(s.used for s in by_addr[a])))
            return self._lru_of_busiest(by_addr[addr])
        now = time.monotonic()
        idle = [s for s in by_addr.get(asker[0], []) if now - s.used >= self.reclaim_s]
        return self._lru_of_busiest(idle) if idle else None

    @staticmethod
    def _lru_of_busiest(games: list[PlaySession]) -> PlaySession:
        """Of ``games``, the least recently used of the client holding the most of them."""
        by_client: dict[tuple[str, str], list[PlaySession]] = {}
        for s in games:
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
