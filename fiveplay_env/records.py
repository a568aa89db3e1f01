"""Game records: a compact, versioned record of one game, and its exact replay through the reference engine.

A record is one JSON object; a record file is JSON Lines (one record per line, so records of many games
concatenate into one file). Fields (format version 1):

| field     | meaning                                                                             |
|-----------|-------------------------------------------------------------------------------------|
| format    | ``"fiveplay-record"``                                                               |
| version   | ``1`` (``RECORD_VERSION``); another version is refused                              |
| game      | a game of ``fiveplay_env.games`` (``"take5"``, ``"five_alive"``)                    |
| config    | every field of the game's config (``Take5Config`` / ``FiveAliveConfig`` ...)        |
| seed      | the game's seed (it fixes every deal and reshuffle)                                 |
| agents    | who sat in each seat (names; informative only)                                      |
| actions   | every action id in the order the engine took them (all seats, row choices, answers) |
| final     | the game's outcome: ``summary(engine)`` of the last state (scores or lives, winners) |
| digest    | SHA-256 of the last state's exact contents (``state_digest``)                       |
| meta      | free-form extras (tournament game index, thinking time, ...); optional              |

``replay(record)`` rebuilds the game from ``config`` and ``seed`` and applies every action through the
reference engine, so every intermediate state is exactly the original game's (the engines are
deterministic given their seed); it then checks ``final`` and ``digest``. Anything that does not replay
raises ``RecordError`` naming the record and the step: a wrong format or version, an unknown config
field, an illegal (edited) action, a final result or digest that differs.

What records need of each game (config and engine classes, ``summary``, the ``digest`` fields) comes
from its definition in ``fiveplay_env.games`` (``HOOKS`` is a view of it); this module imports only the
game table, never the agents.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fiveplay_env import games
from fiveplay_env.core.config import from_kwargs
from fiveplay_env.core.errors import IllegalActionError

RECORD_FORMAT = "fiveplay-record"
RECORD_VERSION = 1
REQUIRED_FIELDS = ("format", "version", "game", "config", "seed", "actions")
KNOWN_FIELDS = (*REQUIRED_FIELDS, "agents", "final", "digest", "meta")


class RecordError(ValueError):
    """A record that cannot be read or does not replay; the message names the record and the step.

    Attributes: ``step`` (the 0-based action index that failed, None for a header problem) and
    ``where`` (the record's place, e.g. ``"runs/x/records/game_000003.jsonl line 1"``).
    """

    def __init__(self, where: str, message: str, step: int | None = None) -> None:
        self.where = where
        self.step = step
        at = f", step {step}" if step is not None else ""
        super().__init__(f"record {where}{at}: {message}")


@dataclass(frozen=True)
class GameHooks:
    """What records need of one game (a view of its ``GameDef``): config and engine classes, how to
    summarize a state and which fields its digest covers."""

    config_cls: type
    engine_cls: type
    summary: Callable[[Any], dict[str, Any]]
    digest_fields: Callable[[Any], Any]


def _hooks_of(g: Any) -> GameHooks:
    return GameHooks(g.config_cls, g.engine_cls, g.summary, g.digest_fields)


HOOKS = games.GameMapping(_hooks_of)
"""Game name -> its ``GameHooks``: a live view of the game table (``fiveplay_env.games``)."""


def hooks(game: str) -> GameHooks:
    """The hooks of ``game``; ``ValueError`` listing the known games otherwise."""
    return _hooks_of(games.get(game))


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def config_dict(config: Any) -> dict[str, Any]:
    """A config dataclass as a JSON-friendly dict (tuples become lists)."""
    return {f.name: _plain(getattr(config, f.name)) for f in dataclasses.fields(config)}


def summary(game: str, state: Any) -> dict[str, Any]:
    """The outcome of ``state`` as plain data (Take 5: scores, rounds, winners; 5 Alive: lives, turns, winners)."""
    return hooks(game).summary(state)


def state_digest(game: str, state: Any) -> str:
    """SHA-256 (hex) of the state's exact contents (hands, piles, rows, scores, counters, ...)."""
    text = json.dumps(_plain(hooks(game).digest_fields(state)), separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def make_record(game: str, config: Any, seed: int, actions: Sequence[int], *, agents: Sequence[str] | None = None,
                engine: Any | None = None, meta: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The record of a played game. ``engine``: its final engine (``final`` and ``digest`` come from it);
    without it the game is replayed to compute them (which also checks the actions)."""
    if engine is None:
        engine = _rebuild(game, config, seed, actions, "(new)")
    rec: dict[str, Any] = {
        "format": RECORD_FORMAT, "version": RECORD_VERSION, "game": game, "config": config_dict(config),
        "seed": int(seed), "agents": list(agents) if agents is not None else [],
        "actions": [int(a) for a in actions], "final": summary(game, engine.state),
        "digest": state_digest(game, engine.state),
    }
    if meta:
        rec["meta"] = dict(meta)
    return rec


def dumps(record: Mapping[str, Any]) -> str:
    """One record as one JSON line (no trailing newline)."""
    return json.dumps(record, separators=(",", ":"))


def write_records(path: str, records: Iterable[Mapping[str, Any]]) -> None:
    """Write records to ``path`` as JSON Lines, atomically (a temporary file, then a rename)."""
    import os

    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        for r in records:
            f.write(dumps(r) + "\n")
    os.replace(tmp, path)


def parse_records(text: str, source: str = "<text>") -> list[dict[str, Any]]:
    """Records from JSON Lines text (blank lines skipped); ``RecordError`` naming the line otherwise.

    Only the JSON and the header are checked here; ``replay`` checks the rest."""
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{source} line {i}"
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            raise RecordError(where, f"not valid JSON ({e.msg} at column {e.colno})") from None
        check_header(rec, where)
        out.append(rec)
    if not out:
        raise RecordError(source, "expected at least one JSON line holding a record, got none")
    return out


def read_records(path: str) -> list[dict[str, Any]]:
    """The records of a JSON Lines file (see ``parse_records``)."""
    with open(path, encoding="utf-8") as f:
        return parse_records(f.read(), path)


def check_header(rec: Any, where: str = "<record>") -> None:
    """``RecordError`` unless ``rec`` is a record object of this format and version with its required fields."""
    if not isinstance(rec, dict):
        raise RecordError(where, f"expected a JSON object, got {type(rec).__name__}")
    missing = [k for k in REQUIRED_FIELDS if k not in rec]
    if missing:
        raise RecordError(where, f"missing field {missing[0]!r} (a record has {list(REQUIRED_FIELDS)})")
    unknown = [k for k in rec if k not in KNOWN_FIELDS]
    if unknown:
        raise RecordError(where, f"unknown field {unknown[0]!r}: expected fields among {list(KNOWN_FIELDS)}")
    if rec["format"] != RECORD_FORMAT:
        raise RecordError(where, f"format: expected {RECORD_FORMAT!r}, got {rec['format']!r}")
    if rec["version"] != RECORD_VERSION:
        raise RecordError(where, f"version: expected {RECORD_VERSION} (this library reads version {RECORD_VERSION}), "
                                 f"got {rec['version']!r}")
    if not isinstance(rec["game"], str) or rec["game"] not in HOOKS:
        raise RecordError(where, f"game: expected one of {sorted(HOOKS)}, got {rec['game']!r}")
    if not isinstance(rec["config"], dict):
        raise RecordError(where, f"config: expected an object of config fields, got {type(rec['config']).__name__}")
    if isinstance(rec["seed"], bool) or not isinstance(rec["seed"], int) or rec["seed"] < 0:
        raise RecordError(where, f"seed: expected an integer >= 0, got {rec['seed']!r}")
    if not isinstance(rec["actions"], list):
        raise RecordError(where, f"actions: expected a list of action ids, got {type(rec['actions']).__name__}")


def record_config(rec: Mapping[str, Any], where: str = "<record>") -> Any:
    """The record's config object; ``RecordError`` naming the bad field otherwise."""
    h = hooks(rec["game"])
    try:
        return from_kwargs(h.config_cls, rec["config"])
    except (ValueError, TypeError) as e:
        raise RecordError(where, f"config: {e}") from None


def _apply(engine: Any, action: Any, step: int, where: str) -> None:
    if isinstance(action, bool) or not isinstance(action, int):
        raise RecordError(where, f"action: expected an integer action id, got {action!r}", step)
    if engine.is_over:
        raise RecordError(where, f"action {action}: the game is already over (the record has extra actions)", step)
    try:
        engine.step(action)
    except IllegalActionError as e:
        raise RecordError(where, f"action {action} is not legal here ({e})", step) from None


def _rebuild(game: str, config: Any, seed: int, actions: Sequence[Any], where: str) -> Any:
    engine = hooks(game).engine_cls(config, seed)
    for i, a in enumerate(actions):
        _apply(engine, a, i, where)
    return engine


def iter_states(rec: Mapping[str, Any], where: str = "<record>") -> Iterator[tuple[int, int, Any]]:
    """Replay ``rec`` lazily: yields ``(step, action, engine)`` before each action (``action`` -1 and
    ``step`` = number of actions for the final state). The engine is live: clone it to keep a state.
    Raises ``RecordError`` (naming the step) at the first action that does not apply."""
    check_header(rec, where)
    config = record_config(rec, where)
    engine = hooks(rec["game"]).engine_cls(config, rec["seed"])
    for i, a in enumerate(rec["actions"]):
        yield i, a, engine
        _apply(engine, a, i, where)
    yield len(rec["actions"]), -1, engine


def replay(rec: Mapping[str, Any], where: str = "<record>", *, keep_states: bool = False) -> "Replay":
    """Rebuild the game of ``rec`` through the reference engine and check its ``final`` and ``digest``.

    ``keep_states``: keep a copy of every state (``Replay.states[i]``: before action i; the last: final).
    Raises ``RecordError`` naming the record and the step on any mismatch."""
    states: list[Any] = []
    engine: Any = None
    for _, _, engine in iter_states(rec, where):
        if keep_states:
            states.append(engine.state.clone())
    n = len(rec["actions"])
    game = rec["game"]
    got = summary(game, engine.state)
    if "final" in rec and rec["final"] != got:
        raise RecordError(where, f"final: the replay ends with {got}, the record says {rec['final']}", n)
    if "digest" in rec and rec["digest"] != state_digest(game, engine.state):
        raise RecordError(where, "digest: the replayed final state differs from the recorded one", n)
    return Replay(record=dict(rec), engine=engine, states=states)


@dataclass
class Replay:
    """A replayed record: the record, the final engine and (``keep_states``) every state in order."""

    record: dict[str, Any]
    engine: Any
    states: list[Any]
