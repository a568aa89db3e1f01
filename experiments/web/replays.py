"""Replays: a finished game's record checked once, then served a page of frames at a time.

``check_record(text, where, index)`` reads the ``index``-th record of a record file's text and replays
it through the reference engine: it must be finished (a record of a game in progress would show every
hand), hold at most ``MAX_REPLAY_STEPS`` actions and end with its recorded result and digest; it also
builds the round index (the first frame of each round, by the game's web view's ``round_of``).
``replay_page(item, start, count)`` draws frames ``start .. start+count-1`` (at most ``MAX_PAGE``): the
table from above (every hand) and each step's public events, through ``fiveplay_env.experiments.web.views``, and the
bots' thoughts where the record has them. ``Replays`` keeps checked records by content hash
(``ReplayCache``, bounded in bytes: ``CACHE_BYTES``), so paging through a long game replays its record
once, and reads record files of the runs folder (``record_file``: inside it only, at most ``MAX_UPLOAD``
bytes).

Memory is bounded before and after decoding: a record is decoded only if its JSON values and containers
(``records.json_units``) are at most ``MAX_UPLOAD_UNITS`` (a few dozen bytes each, so decoding one costs
at most about 70 MB whatever it nests), at most ``CHECKS_AT_ONCE`` records are checked at once (the others
wait up to ``CHECK_WAIT_S``, then get a 503), and the cache keeps only what paging needs (``slim``: the
header, the actions, the chain, and the bots' thoughts each kept as its compact JSON text; never the
rest of ``meta``), counted in bytes (``size_of``); a record larger than the whole cache is served, not
kept. A ``MemoryError`` is a 503 saying the server is busy, never a 500.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import threading
from collections import OrderedDict
from typing import Any

from fiveplay_env.experiments.web import views
from fiveplay_env.experiments.web.guards import MAX_UPLOAD, safe_file
from fiveplay_env.experiments.web.sessions import MAX_SEED, THOUGHTS_KEY, GameError
from fiveplay_env import records
from fiveplay_env.records import json_depth

MAX_REPLAY_STEPS = 20_000
"""Actions in a record the replay viewer replays at most."""
MAX_PAGE = 200
"""Replay frames per answer at most (the viewer fetches pages as it goes)."""
UNITS_PER_ACTION = 48
"""JSON values and containers a record may hold per action it may hold (a web game with a bot in every
other seat keeps its thoughts in about 27 a step)."""
MAX_UPLOAD_UNITS = UNITS_PER_ACTION * MAX_REPLAY_STEPS + records.HEADER_VALUES
"""JSON values and containers (``records.json_units``) one record may hold to be decoded here."""
CACHE_BYTES = 64 << 20
"""What the replay cache may hold in all (bytes, as ``size_of`` counts them)."""
CHECKS_AT_ONCE = 2
"""Records decoded and checked at the same time at most (each may take up to about 70 MB while decoded)."""
CHECK_WAIT_S = 20.0
"""How long a record check waits for its turn before the answer is a 503."""
_NAME_RE = re.compile(r"^[A-Za-z0-9_.+-]{1,200}$")
_SLIM_FIELDS = ("format", "version", "game", "config", "seed", "agents", "actions", "chain", "final", "digest")


def size_of(value: Any) -> int:
    """About how many bytes ``value`` (plain JSON data: dicts, lists, strings, numbers) holds, itself and
    everything inside it (``sys.getsizeof`` summed; shared small ints counted each time: an upper bound)."""
    size = sys.getsizeof(value)
    if isinstance(value, dict):
        size += sum(size_of(k) + size_of(v) for k, v in value.items())
    elif isinstance(value, (list, tuple)):
        if value and all(type(v) is int for v in value):  # (the actions: ints of 28 bytes at most)
            size += 32 * len(value)
        else:
            size += sum(size_of(v) for v in value)
    return size


class ReplayCache:
    """Checked records by content hash, bounded in bytes (``max_bytes``, as ``size_of`` counts the items;
    least recently used dropped first; an item larger than the whole cache is not kept)."""

    def __init__(self, max_bytes: int = CACHE_BYTES) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[str, tuple[dict[str, Any], int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    @property
    def bytes(self) -> int:
        """The bytes held now."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            got = self._items.get(key)
            if got is None:
                return None
            self._items.move_to_end(key)
            return got[0]

    def put(self, key: str, item: dict[str, Any]) -> bool:
        """Keep ``item`` (dropping the least recently used to make room); False if it is too large to keep."""
        size = size_of(item)
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            if size > self.max_bytes:
                return False
            while self._items and self._bytes + size > self.max_bytes:
                _, (_, dropped) = self._items.popitem(last=False)
                self._bytes -= dropped
            self._items[key] = (item, size)
            self._bytes += size
            return True


def slim(rec: dict[str, Any]) -> dict[str, Any]:
    """What replaying and paging need of a checked record: its header fields, actions and chain, and
    ``meta``'s seat of the human player only (its thoughts are kept apart by ``check_record``)."""
    out = {k: rec[k] for k in _SLIM_FIELDS if k in rec}
    meta = rec.get("meta") if isinstance(rec.get("meta"), dict) else {}
    seat = meta.get("human_seat")
    out["meta"] = {"human_seat": seat} if type(seat) is int else {}
    return out


def check_record(text: str, where: str, index: int) -> dict[str, Any]:
    """The ``index``-th record of ``text``, replayed and checked: finished, at most ``MAX_REPLAY_STEPS``
    actions, its result and digest as recorded; with its round index. ``GameError`` 4xx otherwise."""
    depth = max((json_depth(line) for line in text.splitlines() if line.strip()), default=0)
    if depth > 64:
        raise GameError(422, f"{where}: expected records nested at most 64 deep, got {depth}")
    try:
        recs = records.parse_records(text, where, max_actions=MAX_REPLAY_STEPS, max_values=MAX_UPLOAD_UNITS)
    except records.RecordTooLarge as e:
        raise GameError(413, str(e)) from None
    except records.RecordError as e:
        raise GameError(422, str(e)) from None
    except (ValueError, TypeError, RecursionError, OverflowError) as e:
        raise GameError(422, f"{where}: not a readable record ({type(e).__name__}: {str(e)[:200]})") from None
    if index >= len(recs):
        raise GameError(404, f"index: the file holds {len(recs)} record(s), got index {index}")
    rec = recs[index]
    del recs  # (the other records of the file are not kept)
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
            r = views.round_of(rec["game"], engine.state)
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
    total = len(rec["actions"]) + 1
    kept = {}  # each step's thoughts as compact JSON text (a few objects, not one per value)
    for k, t in (thoughts["steps"].items() if thoughts else ()):
        if isinstance(t, dict) and k.isdigit() and len(k) <= 9 and int(k) < total:
            kept[k] = json.dumps(t, separators=(",", ":"))
    return {"rec": slim(rec), "where": where, "total": total, "rounds": rounds, "thoughts": kept}


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
            if t is not None:
                frame["thoughts"] = json.loads(t)
            frames.append(frame)
        before = (state.clone(), action) if start <= step + 1 < end else None
    meta = rec.get("meta") if isinstance(rec.get("meta"), dict) else {}
    seed = rec["seed"]  # as text, like the snapshot's: a browser's numbers are exact only up to 2**53
    return {"game": game, "config": rec["config"], "seed": None if seed is None else str(seed), "agents": rec.get("agents", []),
            "final": rec.get("final"), "total_frames": total, "start": start, "frames": frames,
            "rounds": item["rounds"], "has_thoughts": bool(item["thoughts"]),
            "human_seat": meta.get("human_seat") if isinstance(meta.get("human_seat"), int) else None}


class Replays:
    """The replay endpoints' work: records of the runs folder ``runs_root`` or uploaded, checked once
    (``ReplayCache``, bounded in bytes, by content hash), served a page at a time."""

    def __init__(self, runs_root: str, cache_bytes: int = CACHE_BYTES, checks_at_once: int = CHECKS_AT_ONCE,
                 check_wait_s: float = CHECK_WAIT_S) -> None:
        self.runs_root = runs_root
        self.cache = ReplayCache(cache_bytes)
        self._checks = threading.BoundedSemaphore(checks_at_once)
        self.check_wait_s = check_wait_s

    def page(self, text: str, where: str, index: int, start: int, count: int) -> dict[str, Any]:
        """Frames ``start .. start+count-1`` of the ``index``-th record of ``text`` (``replay_page``);
        ``GameError`` 503 when the server has no room to check it now (module docstring)."""
        key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest() + f":{index}"
        try:
            item = self.cache.get(key)
            if item is None:
                if not self._checks.acquire(timeout=self.check_wait_s):
                    raise GameError(503, f"the server is checking {CHECKS_AT_ONCE} other records: try again in a moment")
                try:
                    item = check_record(text, where, index)
                finally:
                    self._checks.release()
                self.cache.put(key, item)
            return replay_page(item, start, count)
        except MemoryError:
            raise GameError(503, "the server is short of memory for this record now: try again later, or replay "
                                 "it with `fiveplay replay`") from None

    @staticmethod
    def record_path(run: str | None, game: str | None, file: str | None) -> str:
        """The record file a query names, relative to the runs folder: ``RUN/records/GAME.jsonl`` for
        ``run`` and ``game`` (names of the runs folder, 404 otherwise), else ``file``."""
        if run is not None or game is not None:
            run, game = run or "", game or ""
            if not _NAME_RE.match(run) or not _NAME_RE.match(game) or ".." in run or ".." in game:
                raise GameError(404, "no such recorded game (expected run=RUN&game=GAME, names of the runs folder)")
            return f"{run}/records/{game}.jsonl"
        return file or ""

    def record_file(self, rel: str) -> str:
        """The text of the record file ``rel`` of the runs folder; 404 unless it is a file inside it, 413
        if it is larger than ``MAX_UPLOAD``."""
        path = safe_file(self.runs_root, rel)
        if path is None or not os.path.isfile(path):
            raise GameError(404, f"no record file {rel[:100]!r} under the runs folder")
        if os.path.getsize(path) > MAX_UPLOAD:
            raise GameError(413, f"record file {rel[:100]!r}: expected at most {MAX_UPLOAD} bytes")
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read(MAX_UPLOAD + 1)
