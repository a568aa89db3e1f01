"""Saved web games: whose each one is, who may read it, and how many one client keeps.

A finished web game is saved as a record in a web run folder of the runs folder
(``web__<game>__0__<time>/records/game_<id>.jsonl``, written by ``fiveplay_env.experiments.web.routes``)
with an access file beside it (``game_<id>.access.json``: its owner as a hash, when it was saved, and the
hash of its share token if it is shared). ``SavedGames`` keeps the index of those files in memory (read
once when the app starts) and answers:

- ``owns(rel, client)``: the client that played a game is the only one that lists it (``/api/runs``,
  ``/api/runs/RUN``) and replays it by name (``/api/replay?run=&game=`` or ``?file=``). A client is the
  pair (address, the browser's ``X-Client`` id), as for the games in play; requests without an id are
  their address's anonymous client. The owner is kept as ``sha256(address, id)``, never the id itself.
- ``share(rel, client)``: the owner makes a share link, an unguessable token (``secrets.token_urlsafe``,
  192 bits) that grants read access to that one saved game (``/api/replay?share=TOKEN``); sharing again
  replaces the token (the old link stops working), ``unshare`` revokes it. Only the token's hash is stored.
- ``private(rel)``: every record of a web run folder is private: one saved before owners were kept (no
  access file) is listed and replayed for nobody (``fiveplay replay`` or an upload still show it), and no
  file of a web run folder is served by ``/files/``. Records of other runs (tournaments, training) stay
  public: the operator made them.

Bounds (``room``): a client keeps at most ``per_client`` saved games; saving one more deletes that client's
own oldest saved games first (oldest-first eviction, never another client's). The server keeps at most
``total`` saved web games in all; past that a finished game is not saved and its snapshot's ``saved``
says so, naming the limit (no other client's game is deleted to make room).
"""
from __future__ import annotations

import hashlib
import json
import os
import secrets
import threading
import time
from dataclasses import dataclass

from fiveplay_env.experiments import runs as runs_mod

PER_CLIENT = 200
"""Saved web games one client keeps at most (its oldest are deleted to make room for a new one)."""
TOTAL = 10_000
"""Saved web games the server keeps at most in all (past that, finished games are not saved)."""
WEB_PREFIX = "web__"
"""How the names of the web app's run folders begin (``runs.new_run_dir(root, "web", ...)``)."""
ACCESS_SUFFIX = ".access.json"

Client = tuple[str, str]


def client_key(client: Client) -> str:
    """The owner key of a client (address, ``X-Client`` id): a hash, so access files never hold the id."""
    return hashlib.sha256(f"{client[0]}\n{client[1]}".encode("utf-8", "surrogatepass")).hexdigest()


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def is_web_run(name: str) -> bool:
    """Whether the run folder ``name`` is one the web app saves games in."""
    return name.startswith(WEB_PREFIX)


@dataclass
class Entry:
    """One saved game's access facts (its access file)."""

    owner: str
    saved: float
    share: str | None = None


class SavedRefused(Exception):
    """The server holds its ``total`` saved games: this one is not saved (the message names the limit)."""


class SavedGames:
    """The index of saved web games under ``runs_root`` (module docstring). ``rel`` names a record by its
    path relative to the runs folder, ``RUN/records/game_ID.jsonl``."""

    def __init__(self, runs_root: str, per_client: int = PER_CLIENT, total: int = TOTAL) -> None:
        self.runs_root = runs_root
        self.per_client = per_client
        self.total = total
        self._entries: dict[str, Entry] = {}
        self._shares: dict[str, str] = {}
        self._lock = threading.RLock()
        self._load()

    # --- the index ------------------------------------------------------------------------------------
    def _load(self) -> None:
        if not os.path.isdir(self.runs_root):
            return
        for run in os.listdir(self.runs_root):
            rec_dir = os.path.join(self.runs_root, run, "records")
            if not is_web_run(run) or os.path.islink(os.path.join(self.runs_root, run)) or not os.path.isdir(rec_dir):
                continue
            for f in os.listdir(rec_dir):
                if not f.endswith(ACCESS_SUFFIX):
                    continue
                rel = f"{run}/records/{f[:-len(ACCESS_SUFFIX)]}.jsonl"
                try:
                    with open(os.path.join(rec_dir, f), encoding="utf-8") as fh:
                        data = json.loads(fh.read(4096))
                    entry = Entry(str(data["owner"]), float(data["saved"]), data.get("share"))
                except (OSError, ValueError, KeyError, TypeError):
                    continue  # an unreadable access file: the record is private to nobody
                if os.path.isfile(os.path.join(self.runs_root, rel)):
                    self._entries[rel] = entry
                    if isinstance(entry.share, str):
                        self._shares[entry.share] = rel

    def _write(self, rel: str, entry: Entry) -> None:
        data = {"owner": entry.owner, "saved": entry.saved, "share": entry.share}
        runs_mod.atomic_write(self._access_path(rel), json.dumps(data) + "\n")

    def _access_path(self, rel: str) -> str:
        return os.path.join(self.runs_root, rel[:-len(".jsonl")] + ACCESS_SUFFIX)

    def __len__(self) -> int:
        return len(self._entries)

    def count(self, client: Client) -> int:
        """Saved games ``client`` owns."""
        key = client_key(client)
        with self._lock:
            return sum(1 for e in self._entries.values() if e.owner == key)

    # --- saving ---------------------------------------------------------------------------------------
    def room(self, client: Client) -> list[str]:
        """Make room for one more saved game of ``client``: delete its own oldest beyond ``per_client - 1``
        (returns their ``rel``); ``SavedRefused`` when the server holds ``total`` saved games and this
        client's own do not make room."""
        key = client_key(client)
        with self._lock:
            mine = sorted((e.saved, rel) for rel, e in self._entries.items() if e.owner == key)
            gone = [rel for _, rel in mine[:max(0, len(mine) - (self.per_client - 1))]]
            if len(self._entries) - len(gone) >= self.total:
                raise SavedRefused(f"not saved: the server keeps at most {self.total} saved web games and holds them "
                                   f"all (delete old run folders, or download this game's record now)")
            for rel in gone:
                self._remove(rel)
            return gone

    def add(self, rel: str, client: Client) -> None:
        """Record that ``client`` owns the saved game ``rel`` (writes its access file)."""
        entry = Entry(client_key(client), time.time())
        with self._lock:
            self._write(rel, entry)
            self._entries[rel] = entry

    def _remove(self, rel: str) -> None:
        entry = self._entries.pop(rel, None)
        if entry is not None and entry.share:
            self._shares.pop(entry.share, None)
        for path in (os.path.join(self.runs_root, rel), self._access_path(rel)):
            try:
                os.remove(path)
            except OSError:
                pass

    # --- reading --------------------------------------------------------------------------------------
    @staticmethod
    def run_of(rel: str) -> str:
        return rel.replace("\\", "/").split("/", 1)[0]

    def private(self, rel: str) -> bool:
        """Whether the file ``rel`` (relative to the runs folder) is in a web run folder."""
        return is_web_run(self.run_of(rel))

    def owns(self, rel: str, client: Client) -> bool:
        """Whether ``client`` saved the game ``rel``."""
        with self._lock:
            entry = self._entries.get(rel)
        return entry is not None and secrets.compare_digest(entry.owner, client_key(client))

    def readable(self, rel: str, client: Client) -> bool:
        """Whether ``client`` may list and replay ``rel`` by name: any record outside web run folders, its
        own inside them."""
        return not self.private(rel) or self.owns(rel, client)

    def visible_records(self, run: str, records: list[str], client: Client) -> list[str]:
        """Of a run's ``records`` (paths relative to the run folder), those ``client`` may see."""
        return [r for r in records if self.readable(f"{run}/{r}", client)]

    # --- share links ----------------------------------------------------------------------------------
    def share(self, rel: str, client: Client) -> str | None:
        """A new share token for ``rel`` if ``client`` owns it (replacing any earlier one), else None."""
        with self._lock:
            if not self.owns(rel, client):
                return None
            entry = self._entries[rel]
            token = secrets.token_urlsafe(24)
            if entry.share:
                self._shares.pop(entry.share, None)
            old, entry.share = entry.share, _token_hash(token)
            try:
                self._write(rel, entry)
            except runs_mod.RunFolderError:
                entry.share = old
                raise
            self._shares[entry.share] = rel
            return token

    def unshare(self, rel: str, client: Client) -> bool:
        """Revoke ``rel``'s share link if ``client`` owns it; False if it does not."""
        with self._lock:
            if not self.owns(rel, client):
                return False
            entry = self._entries[rel]
            if entry.share:
                self._shares.pop(entry.share, None)
                entry.share = None
                self._write(rel, entry)
            return True

    def shared(self, token: str | None) -> str | None:
        """The saved game a share token grants, or None."""
        if not isinstance(token, str) or not 16 <= len(token) <= 64:
            return None
        with self._lock:
            return self._shares.get(_token_hash(token))
