"""``games.csv``: one row per game per seat, appended and flushed as each game finishes, checked on resume.

| piece              | contract                                                                            |
|--------------------|-------------------------------------------------------------------------------------|
| ``csv_columns``    | the columns of a game's ``games.csv`` (its metrics between ``placing`` and ``decisions``; |
|                    | format 2 ends with ``check``, the row's checksum)                                    |
| ``read_games``     | the complete games of a ``games.csv``: ``{game: rows by seat}``, each row checked    |
|                    | against the spec and schedule (``GamesFileError`` naming the line and the field); the |
|                    | rows of a game cut short by an interruption are left out                             |
| ``row_check``      | a row's checksum: SHA-256 of the run's ``spec_sha256`` and the row's values           |
| ``write_games``    | the file rewritten atomically with exactly these games (drops half-written ones)     |
| ``GamesAppender``  | appends one game's rows (with their checksums) in one write and flushes: an          |
|                    | interruption cuts at most that game                                                  |

What a resume checks, row by row: every field against what the spec and schedule say it must be
(game, deal, rotation, deal seed, seat, entrant, agent), every number in its range (the game's metrics
finite and within ``METRIC_BOUND``, times within ``SECONDS_BOUND``), the per-game values (``steps``,
``rounds``, ``truncated``) equal on every seat, and (format 2) the checksum: a value edited anywhere
in the row, or rows carried over from a ``config.json`` with other rules, no longer match it. The
checksum guards against edits and damage, not against forgery: anyone who reads the code can recompute it.
"""
from __future__ import annotations

import csv
import hashlib
import io
import math
import os
from collections.abc import Sequence
from typing import Any, TextIO

from fiveplay_env.core.gamedef import GameDef
from fiveplay_env.experiments import runs
from fiveplay_env.experiments.tournament.schedule import Schedule
from fiveplay_env.experiments.tournament.spec import FORMAT_VERSION, TournamentSpec

Rows = list[dict[str, str]]
"""The rows of one game, by seat, as ``games.csv`` holds them (strings)."""

FIXED = ("game", "deal", "rotation", "game_seed", "seat", "entrant", "agent", "win", "placing",
         "think_s", "think_max_s", "decisions", "steps", "rounds", "truncated", "check")
"""The columns every game has (the game's metrics are the others)."""
PER_GAME = ("steps", "rounds", "truncated")
"""Values of the game, the same on every seat's row."""
CHECK = "check"
METRIC_BOUND = 1e12
"""A game metric's largest magnitude (no game here comes near: scores and lives are small integers)."""
SECONDS_BOUND = 1e9
"""The largest thinking time accepted, in seconds."""


def csv_columns(game: GameDef, version: int = FORMAT_VERSION) -> list[str]:
    """The columns of ``games.csv`` for ``game`` (``version``: of the run folder's format)."""
    metrics = [m.name for m in game.metrics if m.name != "placing"]
    return ["game", "deal", "rotation", "game_seed", "seat", "entrant", "agent", "win", "placing", *metrics,
            "decisions", "think_s", "think_max_s", "steps", "rounds", "truncated", *([CHECK] if version >= 2 else [])]


def row_check(salt: str, values: Sequence[str]) -> str:
    """The checksum of a row: the first 16 hex digits of the SHA-256 of ``salt`` (the run's
    ``spec_sha256``) and the row's values as ``games.csv`` holds them (every column before ``check``)."""
    return hashlib.sha256("\x1f".join((salt, *values)).encode("utf-8", "surrogateescape")).hexdigest()[:16]


class GamesFileError(ValueError):
    """A row of ``games.csv`` that this tournament cannot have written (the message names the line)."""


def check_row(row: dict[str, str], line: int, spec: TournamentSpec, sched: Schedule, path: str,
              salt: str | None = None, columns: Sequence[str] = ()) -> tuple[int, int]:
    """(game, seat) of a ``games.csv`` row, after checking every field against the tournament's spec
    and schedule (and, with ``salt``, its checksum over ``columns``); ``GamesFileError`` naming the line
    and the field otherwise."""
    n = spec.players
    labels = spec.labels

    def bad(field: str, expected: str) -> GamesFileError:
        return GamesFileError(
            f"{path} line {line}: {field}: expected {expected}, got {row.get(field)!r}; the file was edited or "
            f"damaged: repair or delete that game's lines (deleted games are played again on --resume)")

    def as_int(field: str, lo: int, hi: int) -> int:
        try:
            v = int(row[field])
        except (TypeError, ValueError):
            raise bad(field, f"an integer in {lo}..{hi}") from None
        if not lo <= v <= hi:
            raise bad(field, f"an integer in {lo}..{hi}")
        return v

    def as_float(field: str, lo: float, hi: float) -> float:
        span = f"{lo}..{hi}" if max(abs(lo), abs(hi)) < 1e6 else f"{lo:g}..{hi:g}"
        try:
            v = float(row[field])
        except (TypeError, ValueError):
            raise bad(field, f"a number in {span}") from None
        if not (lo <= v <= hi) or math.isnan(v):  # inf and nan are outside every span
            raise bad(field, f"a number in {span}")
        return v

    g = as_int("game", 0, spec.games - 1)
    seat = as_int("seat", 0, n - 1)
    if as_int("deal", 0, spec.games) != g // n:
        raise bad("deal", f"{g // n} (game {g} // {n} players)")
    if as_int("rotation", 0, n - 1) != g % n:
        raise bad("rotation", f"{g % n} (game {g} % {n} players)")
    if row["game_seed"] != str(sched.game_seed(g)):
        raise bad("game_seed", f"{sched.game_seed(g)} (the tournament seed's seed of game {g})")
    e = sched.seating(g)[seat]
    if row["entrant"] != labels[e]:
        raise bad("entrant", f"{labels[e]!r} (the entrant the schedule seats there)")
    if row["agent"] != spec.agents[e]:
        raise bad("agent", f"{spec.agents[e]!r}")
    as_float("win", 0.0, 1.0)
    as_float("placing", 1.0, float(n))
    for field in ("think_s", "think_max_s"):
        as_float(field, 0.0, SECONDS_BOUND)
    for field in ("decisions", "steps", "rounds"):
        as_int(field, 0, 1 << 62)
    as_int("truncated", 0, 1)
    for field in row:
        if field not in FIXED:
            as_float(field, -METRIC_BOUND, METRIC_BOUND)  # the game's metrics
    if salt is not None and row.get(CHECK) != row_check(salt, [row[c] for c in columns if c != CHECK]):
        raise bad(CHECK, "the checksum of the row's values (this run's config.json and every other field of "
                         "the line)")
    return g, seat


def read_games(path: str, spec: TournamentSpec, columns: list[str], salt: str | None = None) -> dict[int, Rows]:
    """The complete games of a ``games.csv``: {game: rows by seat}, each row checked against the
    tournament (and, with ``salt``, the run's ``spec_sha256``, against its checksum; ``GamesFileError``
    naming the first bad line). Rows of a game cut short by an interruption (fewer than ``players``
    rows, or a last line without its newline) are left out."""
    if not os.path.exists(path):
        return {}
    num_players = spec.players
    sched = spec.schedule()
    with open(path, encoding="utf-8", newline="") as f:
        try:
            text = f.read()
        except UnicodeDecodeError as exc:
            raise GamesFileError(f"{path}: not UTF-8 text ({exc}); the file was damaged") from None
    if text and not text.endswith("\n"):
        text = text[:text.rfind("\n") + 1]  # a half-written last line
    reader = csv.DictReader(io.StringIO(text))
    if reader.fieldnames is not None and list(reader.fieldnames) != columns:
        raise GamesFileError(f"{path} line 1: expected the columns {columns}, got {reader.fieldnames}")
    by_game: dict[int, dict[int, dict[str, str]]] = {}
    for row in reader:
        line = reader.line_num
        if None in row or any(row.get(c) is None for c in columns):
            raise GamesFileError(f"{path} line {line}: expected {len(columns)} fields, got a different number; "
                                 f"the file was edited or damaged: repair or delete that line")
        g, seat = check_row(row, line, spec, sched, path, salt, columns)
        seats = by_game.setdefault(g, {})
        if seat in seats:
            raise GamesFileError(f"{path} line {line}: game {g} seat {seat} appears twice; delete one of them")
        for other in seats.values():
            for field in PER_GAME:
                if row[field] != other[field]:
                    raise GamesFileError(
                        f"{path} line {line}: {field}: expected {other[field]!r} (as on the other rows of game {g}), "
                        f"got {row[field]!r}; the file was edited or damaged: repair or delete that game's lines")
            break
        seats[seat] = row
    return {g: [seats[s] for s in range(num_players)] for g, seats in sorted(by_game.items())
            if sorted(seats) == list(range(num_players))}


def write_games(path: str, columns: list[str], done: dict[int, Rows]) -> None:
    """``games.csv`` rewritten atomically: the header, then the rows of ``done`` in game order."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    w.writeheader()
    for g in sorted(done):
        w.writerows(done[g])
    runs.atomic_write(path, buf.getvalue())


class GamesAppender:
    """Appends games to ``games.csv`` (``with GamesAppender(path, columns, salt) as out: out.add(rows)``):
    each game's rows in one write, flushed, so an interruption cuts at most that game (``read_games``
    drops it); with ``salt`` (the run's ``spec_sha256``) each row gets its checksum (``row_check``) in the
    last column. ``add`` returns the rows as the file holds them (strings)."""

    def __init__(self, path: str, columns: list[str], salt: str | None = None) -> None:
        self.columns = columns
        self.salt = salt
        self._values = [c for c in columns if c != CHECK]
        self._f: TextIO = open(path, "a", encoding="utf-8", newline="")

    def add(self, rows: list[dict[str, Any]]) -> Rows:
        """Append one game's rows (each with every column but ``check``); the rows as written."""
        if any(len(r) != len(self._values) for r in rows):
            raise ValueError(f"rows: expected the columns {self._values}, got {[list(r) for r in rows]}")
        lines = []
        for r in rows:
            values = [str(r[c]) for c in self._values]
            if self.salt is not None:
                values.append(row_check(self.salt, values))
            lines.append(values)
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(lines)
        self._f.write(buf.getvalue())  # one write per game: an interruption cuts at most this game
        self._f.flush()
        return [dict(zip(self.columns, values)) for values in lines]

    def close(self) -> None:
        self._f.close()

    def __enter__(self) -> GamesAppender:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
