"""Game records: a compact, versioned record of one game, and its exact replay through the reference engine.

A record is one JSON object; a record file is JSON Lines (one record per line, so records of many games
concatenate into one file). Fields (format version 2; ``make_record`` writes it):

| field     | meaning                                                                             |
|-----------|-------------------------------------------------------------------------------------|
| format    | ``"fiveplay-record"``                                                               |
| version   | ``2`` (``RECORD_VERSION``); version 1 (the same without ``chain``) only when asked    |
| game      | a game of ``fiveplay_env.games`` (``"take5"``, ``"five_alive"``)                    |
| config    | every field of the game's config (``Take5Config`` / ``FiveAliveConfig`` ...)        |
| seed      | the game's seed, 0..2**64-1 (it fixes every deal and reshuffle)                     |
| agents    | who sat in each seat (names; informative only)                                      |
| actions   | every action id in the order the engine took them (all seats, row choices, answers) |
| chain     | (version 2) 8 hex digits per entry, one entry for the start and one after each action: the chained step hash below |
| final     | the game's outcome: ``summary(engine)`` of the last state (scores or lives, winners) |
| digest    | SHA-256 of the last state's exact contents (``state_digest``)                       |
| meta      | free-form extras (tournament game index, thinking time, ...); optional, an object   |

The chain: ``h[0] = SHA-256("fiveplay-record-v2", game, config, seed, start)`` and
``h[i + 1] = SHA-256(h[i], action i, state after action i)``, where a state enters as a cheap summary of
about 20 numbers that change as the game goes (``step_bytes``: the acting seat, the random-event counter,
hand sizes, scores or lives, T, ...); ``chain`` keeps the first 4 bytes of each ``h``. Since each entry depends on
every earlier one, ``replay`` finds the **first** step whose action (or the state it leads to) is not
the recorded game's: replacing one action by another legal one, removing or adding actions, or editing
the config or the seed are each reported at the step where the game first differs (entry 0: the start).
The chain detects edits, it does not authenticate: anyone can compute a new chain for an edited game.
A version-1 record has no chain: an edited action that stays legal shows only when a later action
becomes illegal or the ``final``/``digest`` check fails. So version 1 is read only when asked:
``allow_legacy=True`` (every reading function takes it; ``fiveplay replay --allow-legacy``), or after
``upgrade(record)``, which replays it once and writes it as version 2 (the chain of the game as it
replays: check that game before you trust it). Without the opt-in a version-1 record is a
``RecordError`` saying so. Its five_alive config predates ``max_steps`` and replays without it
(``max_steps=None``) unless it names one.

``replay(record)`` rebuilds the game from ``config`` and ``seed`` and applies every action through the
reference engine, so every intermediate state is exactly the original game's (the engines are
deterministic given their seed); it then checks ``final`` and ``digest``. Anything that does not replay
raises ``RecordError`` naming the record and the step: a wrong format or version, an unknown config
field, an illegal (edited) action, a chain entry, a final result or digest that differs.

Reading is bounded and total: every malformed input is a ``RecordError`` naming the line and the field
(never a ``TypeError``, ``RecursionError`` or ``MemoryError``): a file is read up to ``MAX_FILE_BYTES``,
a line up to ``MAX_LINE_CHARS``; what decoding a line would allocate is counted before it is decoded
(its values and its containers: the commas and the opening brackets outside strings, at most
``VALUES_PER_ACTION`` per allowed action plus ``HEADER_VALUES``, or a caller's ``max_values``, so a
caller's ``max_actions`` bounds the memory decoding takes, not only the list it yields: ``[[[...]]]``
nested 28 deep counts 28, not 1); JSON nested deeper than ``MAX_DEPTH``, an integer of more than
``MAX_INT_DIGITS`` digits, ``NaN``/``Infinity``, a repeated key, invalid UTF-8 or a lone surrogate in a
string are refused before or while the line is decoded; each field is type-checked (a ``game`` that is
not a string, a seed >= 2**64, ...).

What records need of each game (``GameHooks``: config and engine classes, ``summary``, the ``digest``
fields, ``step_bytes``) comes from its definition in ``fiveplay_env.games`` (``HOOKS`` is a view of it);
this module imports only the game table, never the agents.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fiveplay_env import games
from fiveplay_env.core import printable
from fiveplay_env.core.config import from_kwargs, show_value
from fiveplay_env.core.errors import IllegalActionError, action_id
from fiveplay_env.core.seeding import SEED_MAX

RECORD_FORMAT = "fiveplay-record"
RECORD_VERSION = 2
READ_VERSIONS = (2,)
"""The versions read by default: version 2 only (its chain finds an edited action at its step)."""
LEGACY_VERSIONS = (1,)
"""Versions read only when asked (``allow_legacy=True``, the command line's ``--allow-legacy``) or after
``upgrade``: a version-1 record has no chain, so an action edited into another legal one is caught only
when the game later breaks or its ``final``/``digest`` differ."""
REQUIRED_FIELDS = ("format", "version", "game", "config", "seed", "actions")
KNOWN_FIELDS = (*REQUIRED_FIELDS, "agents", "chain", "final", "digest", "meta")
CHAIN_TAG = 8  # hex digits kept of each chained hash (4 bytes)
MAX_FILE_BYTES = 256 << 20  # a file of records is read up to this size
MAX_LINE_CHARS = 64 << 20   # one record (a 1,000,000-step game is about 12 MB)
MAX_DEPTH = 32              # JSON nesting (a record needs 4: record, meta, an object, a list)
MAX_INT_DIGITS = 30         # any integer of a record fits (seeds: 20 digits)
MAX_ACTIONS = 10**7         # actions in one record (above any max_steps a game is likely to be given)
VALUES_PER_ACTION = 64      # JSON values a record may hold per action it may hold (thoughts in meta), counted
HEADER_VALUES = 4096        # before decoding (``parse_records``), plus this many for the header


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


class RecordTooLarge(RecordError):
    """A record over a size limit of the reader (``max_actions``, the values counted before decoding)."""


@dataclass(frozen=True)
class GameHooks:
    """What records need of one game: its config and engine classes, how to summarize a state, and the
    cheap digest of a state that enters the chain after each step (``step_bytes``)."""

    config_cls: type
    engine_cls: type
    summary: Callable[[Any], dict[str, Any]]
    digest_fields: Callable[[Any], Any]
    step_bytes: Callable[[Any], bytes]


def _hooks_of(g: Any) -> GameHooks:
    return GameHooks(g.config_cls, g.engine_cls, g.summary, g.digest_fields, g.chain_bytes)


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


def _chain_start(game: str, config_fields: Mapping[str, Any], seed: int, state: Any) -> bytes:
    """``h[0]``: the game, its config, its seed and its start (see the module docstring)."""
    head = json.dumps([RECORD_FORMAT, 2, game, dict(config_fields), int(seed)], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(head.encode() + b"\0" + hooks(game).step_bytes(state)).digest()


_ACTION_BYTES = [a.to_bytes(2, "little") for a in range(256)]  # every action id of both games (< 256)


def _chain_next(h: bytes, action: int, step_bytes: bytes) -> bytes:
    """``h[i + 1]`` from ``h[i]``, action i (2 bytes, little-endian) and the state after it."""
    return hashlib.sha256(h + _ACTION_BYTES[action] + step_bytes).digest()


def make_record(game: str, config: Any, seed: int, actions: Sequence[int], *, agents: Sequence[str] | None = None,
                engine: Any | None = None, meta: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The record (format version 2) of a played game, finished or not. The game is replayed from its
    config and seed to compute the chain (which also checks every action: ``RecordError`` naming the
    step otherwise). ``engine``: the game's engine now; its state must be the replay's last one
    (``ValueError`` otherwise: the actions are not that game's). Actions are ids in any form
    ``core.errors.action_id`` accepts (an int, a numpy integer, a 0-d integer array); anything else
    (a float, an array of shape (1,)) raises ``ValueError`` naming its index."""
    h = hooks(game)
    ids = []
    for i, a in enumerate(actions):
        v = action_id(a)
        if v is None:
            raise ValueError(f"actions[{i}]: expected an action id (an int, a numpy integer or a 0-d integer array), "
                             f"got {show_value(a)}")
        ids.append(v)
    fields = config_dict(config)
    replayed = h.engine_cls(config, seed)
    hv = _chain_start(game, fields, seed, replayed.state)
    tags = [hv[:CHAIN_TAG // 2].hex()]
    for i, a in enumerate(ids):
        _apply(replayed, a, i, "(new)")
        hv = _chain_next(hv, a, h.step_bytes(replayed.state))
        tags.append(hv[:CHAIN_TAG // 2].hex())
    final = replayed.state
    if engine is not None and state_digest(game, engine.state) != state_digest(game, final):
        raise ValueError("engine: expected the engine of the game these actions replay (its state differs from the "
                         "replay's last state)")
    rec: dict[str, Any] = {
        "format": RECORD_FORMAT, "version": RECORD_VERSION, "game": game, "config": fields,
        "seed": int(seed), "agents": list(agents) if agents is not None else [],
        "actions": ids, "chain": "".join(tags), "final": summary(game, final),
        "digest": state_digest(game, final),
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


# --- reading: bounded, and every failure a RecordError ---------------------------------------------------

_STRING = re.compile(r'"[^"]*"')  # a string once its escapes are gone: one character class, no backtracking stack


def _blank_strings(text: str) -> str:
    """JSON ``text`` without its strings: escaped backslashes, then escaped quotes removed (outside strings
    valid JSON has no backslash), so that every quote left opens or closes a string; then the strings."""
    return _STRING.sub("", text.replace("\\\\", "").replace('\\"', ""))


def json_depth(text: str) -> int:
    """How deep the arrays and objects of JSON ``text`` nest (brackets inside strings ignored), in a few
    linear passes of ``str`` methods and numpy whose memory is a small multiple of the text's, whatever
    the text holds (a regular expression with an alternation inside a repeat, ``"(?:[^"\\\\]|\\\\.)*"``,
    keeps a backtracking entry per character: about 120 bytes for each character of one long string).

    Escaped backslashes, then escaped quotes, are removed first (outside strings valid JSON has no
    backslash), so that every quote left opens or closes a string; the strings are then blanked and the
    depth is the running sum of the brackets left."""
    if "[" not in text and "{" not in text:
        return 0
    bare = _blank_strings(text)
    b = np.frombuffer(bare.encode("utf-8", "surrogatepass"), np.uint8)
    opens = (b == ord("[")) | (b == ord("{"))
    brackets = opens | (b == ord("]")) | (b == ord("}"))
    step = opens[brackets].astype(np.int8) * 2 - 1
    return int(np.cumsum(step, dtype=np.int32).max()) if step.size else 0


def _check_depth(line: str, where: str) -> None:
    """``RecordError`` if the JSON text nests arrays and objects deeper than ``MAX_DEPTH`` (``json_depth``:
    the decoder never sees a deep line)."""
    if line.count("[") + line.count("{") <= MAX_DEPTH:
        return
    depth = json_depth(line)
    if depth > MAX_DEPTH:
        raise RecordError(where, f"expected JSON nested at most {MAX_DEPTH} deep, got {depth} levels")


def _decode(line: str, where: str) -> Any:
    """One line's JSON, bounded: no integer longer than ``MAX_INT_DIGITS`` digits, no NaN or Infinity,
    no repeated key."""
    def parse_int(text: str) -> int:
        if len(text.lstrip("-")) > MAX_INT_DIGITS:
            raise RecordError(where, f"expected integers of at most {MAX_INT_DIGITS} digits, got one of "
                                     f"{len(text.lstrip('-'))} digits")
        return int(text)

    def parse_constant(name: str) -> Any:
        raise RecordError(where, f"expected JSON numbers, got {name}")

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in items:
            if k in out:
                raise RecordError(where, f"field {show_value(k)} appears twice in one object")
            out[k] = v
        return out

    if len(line) > MAX_LINE_CHARS:
        raise RecordError(where, f"expected a record of at most {MAX_LINE_CHARS:,} characters, got {len(line):,}")
    _check_depth(line, where)
    try:
        return json.loads(line, parse_int=parse_int, parse_constant=parse_constant, object_pairs_hook=pairs)
    except json.JSONDecodeError as e:
        raise RecordError(where, f"not valid JSON ({e.msg} at column {e.colno})") from None
    except (RecursionError, ValueError) as e:  # (a RecordError from the hooks passes through as itself)
        if isinstance(e, RecordError):
            raise
        raise RecordError(where, f"not valid JSON ({type(e).__name__}: {show_value(str(e))})") from None


def _check_strings(value: Any, where: str, path: str) -> None:
    """``RecordError`` naming the field if a string anywhere in ``value`` holds a lone surrogate (it would
    not encode to UTF-8: such a record could not be written back, shown or hashed). The nesting is
    bounded already (``MAX_DEPTH``)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise RecordError(where, f"{path or 'record'}: expected text, got a string with a lone surrogate "
                                     f"({show_value(value)})") from None
    elif isinstance(value, dict):
        for k, v in value.items():
            _check_strings(k, where, f"{path} key {show_value(k)}" if path else f"key {show_value(k)}")
            _check_strings(v, where, f"{path}.{k}" if path else str(k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            if type(v) is not int:  # (the actions: skipped cheaply)
                _check_strings(v, where, f"{path}[{i}]")


def json_units(text: str) -> int:
    """What decoding JSON ``text`` allocates, counted without decoding it: its values and containers (one
    more than the commas outside strings, plus the ``[`` and ``{`` outside strings). Each unit is one Python
    object of a few dozen bytes, so ``json_units`` bounds the memory of ``json.loads`` whatever the text
    nests (a list of 28 nested empty lists is 28 units, not 1)."""
    bare = _blank_strings(text)
    return bare.count(",") + bare.count("[") + bare.count("{") + 1


def values_limit(max_actions: int) -> int:
    """The JSON units (``json_units``) a record of at most ``max_actions`` actions may hold."""
    return VALUES_PER_ACTION * max_actions + HEADER_VALUES


def _check_values(line: str, where: str, max_actions: int, max_values: int | None = None) -> None:
    """``RecordTooLarge`` before decoding if ``line`` holds more JSON values and containers (``json_units``)
    than a record of at most ``max_actions`` actions may (``values_limit``), or than ``max_values``."""
    limit = values_limit(max_actions) if max_values is None else min(max_values, values_limit(max_actions))
    if line.count(",") + line.count("[") + line.count("{") < limit:  # (cheap, and an upper bound)
        return
    units = json_units(line)
    if units > limit:
        raise RecordTooLarge(where, f"expected at most {limit:,} JSON values and containers in a record (a record "
                                    f"of at most {max_actions} actions), got {units:,}; refused before decoding")


def parse_records(text: str, source: str = "<text>", *, max_actions: int = MAX_ACTIONS,
                  allow_legacy: bool = False, max_values: int | None = None) -> list[dict[str, Any]]:
    """Records from JSON Lines text (blank lines skipped); ``RecordError`` naming the line otherwise.

    Only the JSON and the header are checked here (bounded: see the module docstring); ``replay``
    checks the rest. ``max_actions``: the most actions a record may have (at most ``MAX_ACTIONS``),
    counted before each line is decoded; ``max_values``: at most this many JSON values and containers
    a line (``json_units``; default ``values_limit(max_actions)``); ``allow_legacy``: read version-1
    records too."""
    if not isinstance(text, str):
        raise RecordError(source, f"expected text, got {type(text).__name__}")
    max_actions = _check_max_actions(max_actions)
    if max_values is not None and (isinstance(max_values, bool) or not isinstance(max_values, int) or max_values < 1):
        raise ValueError(f"max_values: expected a positive integer, got {show_value(max_values)}")
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{source} line {i}"
        if len(line) > MAX_LINE_CHARS:
            raise RecordError(where, f"expected a record of at most {MAX_LINE_CHARS:,} characters, got {len(line):,}")
        _check_values(line, where, max_actions, max_values)
        rec = _decode(line, where)
        check_header(rec, where, max_actions=max_actions, allow_legacy=allow_legacy)
        _check_strings(rec, where, "")
        out.append(rec)
    if not out:
        raise RecordError(source, "expected at least one JSON line holding a record, got none")
    return out


def _check_max_actions(max_actions: Any) -> int:
    if isinstance(max_actions, bool) or not isinstance(max_actions, int) or not 1 <= max_actions <= MAX_ACTIONS:
        raise ValueError(f"max_actions: expected an integer in 1..{MAX_ACTIONS}, got {show_value(max_actions)}")
    return max_actions


def read_records(path: str, *, max_actions: int = MAX_ACTIONS, allow_legacy: bool = False) -> list[dict[str, Any]]:
    """The records of a JSON Lines file (see ``parse_records``): at most ``MAX_FILE_BYTES`` bytes of UTF-8."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise RecordError(path, f"cannot read the file ({e.strerror or e})") from None
    if len(data) > MAX_FILE_BYTES:
        raise RecordError(path, f"expected a file of at most {MAX_FILE_BYTES:,} bytes, got a larger one")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise RecordError(f"{path} line {line}", f"expected UTF-8 text, got the byte {data[e.start]:#04x} at "
                                                 f"offset {e.start}") from None
    return parse_records(text, path, max_actions=max_actions, allow_legacy=allow_legacy)


def check_header(rec: Any, where: str = "<record>", *, max_actions: int = MAX_ACTIONS,
                 allow_legacy: bool = False) -> None:
    """``RecordError`` unless ``rec`` is a record object of this format and a readable version with its
    required fields, each of the right type (``allow_legacy``: version 1 is readable too; at most
    ``max_actions`` actions)."""
    if not isinstance(rec, dict):
        raise RecordError(where, f"expected a JSON object, got {type(rec).__name__}")
    missing = [k for k in REQUIRED_FIELDS if k not in rec]
    if missing:
        raise RecordError(where, f"missing field {missing[0]!r} (a record has {list(REQUIRED_FIELDS)})")
    unknown = [k for k in rec if k not in KNOWN_FIELDS]
    if unknown:
        raise RecordError(where, f"unknown field {show_value(unknown[0])}: expected fields among {list(KNOWN_FIELDS)}")
    if rec["format"] != RECORD_FORMAT or not isinstance(rec["format"], str):
        raise RecordError(where, f"format: expected {RECORD_FORMAT!r}, got {show_value(rec['format'])}")
    version = rec["version"]
    if type(version) is int and version in LEGACY_VERSIONS and not allow_legacy:
        raise RecordError(where, f"version: a version-{version} record (no chain: an action edited into another "
                                 f"legal one is not caught at its step) is read only when asked: "
                                 f"allow_legacy=True (--allow-legacy), or upgrade it once with "
                                 f"fiveplay_env.records.upgrade; expected version {RECORD_VERSION}")
    if type(version) is not int or version not in READ_VERSIONS + LEGACY_VERSIONS:
        raise RecordError(where, f"version: expected one of {sorted(READ_VERSIONS + LEGACY_VERSIONS)} (version "
                                 f"{LEGACY_VERSIONS[0]} only with allow_legacy; this library writes version "
                                 f"{RECORD_VERSION}), got {show_value(version)}")
    if not isinstance(rec["game"], str) or rec["game"] not in HOOKS:
        raise RecordError(where, f"game: expected one of {sorted(HOOKS)}, got {show_value(rec['game'])}")
    if not isinstance(rec["config"], dict):
        raise RecordError(where, f"config: expected an object of config fields, got {type(rec['config']).__name__}")
    seed = rec["seed"]
    if type(seed) is not int or not 0 <= seed <= SEED_MAX:
        raise RecordError(where, f"seed: expected an integer in 0..2**64-1, got {show_value(seed)}")
    if not isinstance(rec["actions"], list):
        raise RecordError(where, f"actions: expected a list of action ids, got {type(rec['actions']).__name__}")
    if len(rec["actions"]) > max_actions:
        raise RecordTooLarge(where, f"actions: expected at most {max_actions} actions, got {len(rec['actions'])}")
    if "agents" in rec:
        _check_agents(rec["agents"], where)
    for name, kind in (("final", dict), ("meta", dict), ("digest", str)):
        if name in rec and not isinstance(rec[name], kind):
            raise RecordError(where, f"{name}: expected {'an object' if kind is dict else 'a string'}, got "
                                     f"{type(rec[name]).__name__}")
    if version == 1 and "chain" in rec:
        raise RecordError(where, "chain: a version-1 record has no chain (version 2 records do)")
    if version >= 2:
        chain = rec.get("chain")
        if not isinstance(chain, str) or len(chain) % CHAIN_TAG or not _HEX.fullmatch(chain):
            raise RecordError(where, f"chain: expected {CHAIN_TAG} hex digits per entry (one for the start and one per "
                                     f"action), got {show_value(chain)}")


_HEX = re.compile(r"[0-9a-f]*")


def _check_agents(agents: Any, where: str) -> None:
    """``RecordError`` unless ``agents`` is a list of printable names (``printable.is_printable``: no
    control, format or separator characters that would drive a terminal or forge a line when shown;
    agent names are outside the chain, so an edited one still verifies)."""
    if not isinstance(agents, list) or not all(isinstance(a, str) for a in agents):
        raise RecordError(where, f"agents: expected a list of names, got {printable.quote(show_value(agents))}")
    for i, a in enumerate(agents):
        if printable.is_printable(a):
            continue
        _check_strings(a, where, f"agents[{i}]")  # (a lone surrogate is named as such)
        raise RecordError(where, f"agents[{i}]: expected a printable name (no control characters), got "
                                 f"{printable.quote(a)}")


def record_config(rec: Mapping[str, Any], where: str = "<record>") -> Any:
    """The record's config object; ``RecordError`` naming the bad field otherwise. A version-1 record's
    config gets its game's ``record_v1_defaults`` (``GameDef``) for the fields it does not name."""
    h = hooks(rec["game"])
    fields = dict(rec["config"])
    if rec.get("version") == 1:
        fields = {**dict(games.get(rec["game"]).record_v1_defaults), **fields}
    try:
        return from_kwargs(h.config_cls, fields)
    except (ValueError, TypeError, OverflowError) as e:
        raise RecordError(where, f"config: {e}") from None


def _apply(engine: Any, action: Any, step: int, where: str) -> None:
    if isinstance(action, bool) or not isinstance(action, int):
        raise RecordError(where, f"action: expected an integer action id, got {show_value(action)}", step)
    if engine.is_over:
        raise RecordError(where, f"action {action}: the game is already over (the record has extra actions)", step)
    try:
        engine.step(action)
    except IllegalActionError as e:
        raise RecordError(where, f"action {action} is not legal here ({e})", step) from None


def iter_states(rec: Mapping[str, Any], where: str = "<record>", *,
                allow_legacy: bool = False) -> Iterator[tuple[int, int, Any]]:
    """Replay ``rec`` lazily: yields ``(step, action, engine)`` before each action (``action`` -1 and
    ``step`` = number of actions for the final state). The engine is live: clone it to keep a state.
    Raises ``RecordError`` (naming the step) at the first action that does not apply, and (version 2)
    at the first step where the game differs from the one the chain was made for. ``allow_legacy``: a
    version-1 record replays too (see the module docstring)."""
    check_header(rec, where, allow_legacy=allow_legacy)
    config = record_config(rec, where)
    game = rec["game"]
    h = hooks(game)
    engine = h.engine_cls(config, rec["seed"])
    actions = rec["actions"]
    chain: str | None = rec["chain"] if rec["version"] >= 2 else None
    if chain is not None:
        tags = bytes.fromhex(chain)  # (compared as bytes: no hex formatting per step)
        size = CHAIN_TAG // 2
        entries = len(tags) // size
        hv = _chain_start(game, config_dict(config), rec["seed"], engine.state)
        if hv[:size] != tags[:size]:
            raise RecordError(where, "chain: the game's start (its game, config, seed and deal) differs from the one "
                                     "the chain was made for: the header was edited")
        step_bytes, sha256 = h.step_bytes, hashlib.sha256
    for i, a in enumerate(actions):
        yield i, a, engine
        if chain is not None and i + 1 >= entries and not engine.is_over:  # (over: _apply says so)
            raise RecordError(where, f"action {show_value(a)}: the chain has no entry for this step: actions were "
                                     f"added (the recorded game had {entries - 1})", i)
        _apply(engine, a, i, where)
        if chain is not None:
            hv = sha256(hv + _ACTION_BYTES[a] + step_bytes(engine.state)).digest()  # _chain_next, inlined
            if hv[:size] != tags[(i + 1) * size:(i + 2) * size]:
                raise RecordError(where, f"action {a}: the game differs from the recorded one from this step on "
                                         f"(chain entry {i + 1}): this action or an earlier one was edited", i)
    if chain is not None and entries > len(actions) + 1:
        raise RecordError(where, f"actions: the record ends at step {len(actions)}, its chain goes on to step "
                                 f"{entries - 1}: actions were removed", len(actions))
    yield len(actions), -1, engine


def replay(rec: Mapping[str, Any], where: str = "<record>", *, keep_states: bool = False,
           allow_legacy: bool = False) -> "Replay":
    """Rebuild the game of ``rec`` through the reference engine and check its chain (version 2),
    ``final`` and ``digest``.

    ``keep_states``: keep a copy of every state (``Replay.states[i]``: before action i; the last: final);
    ``allow_legacy``: replay a version-1 record too. Raises ``RecordError`` naming the record and the step
    on any mismatch."""
    states: list[Any] = []
    engine: Any = None
    for _, _, engine in iter_states(rec, where, allow_legacy=allow_legacy):
        if keep_states:
            states.append(engine.state.clone())
    n = len(rec["actions"])
    game = rec["game"]
    got = summary(game, engine.state)
    if "final" in rec and rec["final"] != got:
        raise RecordError(where, f"final: the replay ends with {got}, the record says {show_value(rec['final'])}", n)
    if "digest" in rec and rec["digest"] != state_digest(game, engine.state):
        raise RecordError(where, "digest: the replayed final state differs from the recorded one", n)
    return Replay(record=dict(rec), engine=engine, states=states)


def upgrade(rec: Mapping[str, Any], where: str = "<record>") -> dict[str, Any]:
    """The version-2 record of the game a version-1 (or 2) record replays: replayed once (``final`` and
    ``digest`` checked, ``RecordError`` otherwise) and written again by ``make_record`` with its chain.
    The migration of the module docstring: the chain then certifies the game as it replays now, so
    check that game (its actions, ``final``) before trusting the upgraded record."""
    done = replay(rec, where, allow_legacy=True)
    config = record_config(rec, where)
    return make_record(rec["game"], config, rec["seed"], rec["actions"], agents=rec.get("agents"),
                       engine=done.engine, meta=rec.get("meta"))


@dataclass
class Replay:
    """A replayed record: the record, the final engine and (``keep_states``) every state in order."""

    record: dict[str, Any]
    engine: Any
    states: list[Any]
