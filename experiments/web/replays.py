"""Replays: a finished game's record checked once, then served a page of frames at a time.

``check_record(text, where, index)`` reads the ``index``-th record of a record file's text and replays
it through the reference engine: it must be finished (a record of a game in progress would show every
hand), hold at most ``MAX_REPLAY_STEPS`` actions and end with its recorded result and digest; it also
builds the round index (the first frame of each round, by the game's web view's ``round_of``).
``replay_page(item, start, count)`` draws frames ``start .. start+count-1`` (at most ``MAX_PAGE``): the
table from above (every hand) and each step's public events, through ``fiveplay_env.experiments.web.views``, and the
bots' thoughts where the record has them. ``Replays`` keeps a few checked records by content hash
(``ReplayCache``), so paging through a long game replays its record once, and reads record files of the
runs folder (``record_file``: inside it only, at most ``MAX_UPLOAD`` bytes).
"""
from __future__ import annotations

import hashlib
import os
import re
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
_NAME_RE = re.compile(r"^[A-Za-z0-9_.+-]{1,200}$")


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


def check_record(text: str, where: str, index: int) -> dict[str, Any]:
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


class Replays:
    """The replay endpoints' work: records of the runs folder ``runs_root`` or uploaded, checked once
    (a cache of ``cache_size`` by content hash), served a page at a time."""

    def __init__(self, runs_root: str, cache_size: int = 16) -> None:
        self.runs_root = runs_root
        self.cache = ReplayCache(cache_size)

    def page(self, text: str, where: str, index: int, start: int, count: int) -> dict[str, Any]:
        """Frames ``start .. start+count-1`` of the ``index``-th record of ``text`` (``replay_page``)."""
        key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest() + f":{index}"
        item = self.cache.get(key)
        if item is None:
            item = check_record(text, where, index)
            self.cache.put(key, item)
        return replay_page(item, start, count)

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
