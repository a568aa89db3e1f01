"""``games.csv``: one row per game per seat, appended and flushed as each game finishes, checked on resume.

| piece              | contract                                                                            |
|--------------------|-------------------------------------------------------------------------------------|
| ``csv_columns``    | the columns of a game's ``games.csv`` (its metrics between ``placing`` and ``decisions``) |
| ``read_games``     | the complete games of a ``games.csv``: ``{game: rows by seat}``, each row checked    |
|                    | against the spec and schedule (``GamesFileError`` naming the line and the field); the |
|                    | rows of a game cut short by an interruption are left out                             |
| ``write_games``    | the file rewritten atomically with exactly these games (drops half-written ones)     |
| ``GamesAppender``  | appends one game's rows in one write and flushes: an interruption cuts at most that  |
|                    | game                                                                                 |
"""
from __future__ import annotations

import csv
import io
import math
import os
from typing import Any, TextIO

from agents import games as games_mod
from experiments import runs
from experiments.tournament.schedule import Schedule
from experiments.tournament.spec import TournamentSpec

Rows = list[dict[str, str]]
"""The rows of one game, by seat, as ``games.csv`` holds them (strings)."""

FIXED = ("game", "deal", "rotation", "game_seed", "seat", "entrant", "agent", "win", "placing",
         "think_s", "think_max_s", "decisions", "steps", "rounds", "truncated")
"""The columns every game has (the game's metrics are the others)."""


def csv_columns(game: games_mod.Game) -> list[str]:
    """The columns of ``games.csv`` for ``game``."""
    metrics = [m.name for m in game.metrics if m.name != "placing"]
    return ["game", "deal", "rotation", "game_seed", "seat", "entrant", "agent", "win", "placing", *metrics,
            "decisions", "think_s", "think_max_s", "steps", "rounds", "truncated"]


class GamesFileError(ValueError):
    """A row of ``games.csv`` that this tournament cannot have written (the message names the line)."""


def check_row(row: dict[str, str], line: int, spec: TournamentSpec, sched: Schedule, path: str) -> tuple[int, int]:
    """(game, seat) of a ``games.csv`` row, after checking every field against the tournament's spec
    and schedule; ``GamesFileError`` naming the line and the field otherwise."""
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

    def as_float(field: str, lo: float = -math.inf, hi: float = math.inf) -> float:
        try:
            v = float(row[field])
        except (TypeError, ValueError):
            raise bad(field, f"a number in {lo}..{hi}") from None
        if not (lo <= v <= hi) or math.isnan(v):
            raise bad(field, f"a number in {lo}..{hi}")
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
        as_float(field, 0.0)
    for field in ("decisions", "steps", "rounds"):
        as_int(field, 0, 1 << 62)
    as_int("truncated", 0, 1)
    for field in row:
        if field not in FIXED:
            as_float(field)  # the game's metrics
    return g, seat


def read_games(path: str, spec: TournamentSpec, columns: list[str]) -> dict[int, Rows]:
    """The complete games of a ``games.csv``: {game: rows by seat}, each row checked against the
    tournament (``GamesFileError`` naming the first bad line). Rows of a game cut short by an
    interruption (fewer than ``players`` rows, or a last line without its newline) are left out."""
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
        g, seat = check_row(row, line, spec, sched, path)
        if seat in by_game.get(g, {}):
            raise GamesFileError(f"{path} line {line}: game {g} seat {seat} appears twice; delete one of them")
        by_game.setdefault(g, {})[seat] = row
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
    """Appends games to ``games.csv`` (``with GamesAppender(path, columns) as out: out.add(rows)``): each
    game's rows in one write, flushed, so an interruption cuts at most that game (``read_games`` drops
    it); ``add`` returns the rows as the file holds them (strings)."""

    def __init__(self, path: str, columns: list[str]) -> None:
        self.columns = columns
        self._f: TextIO = open(path, "a", encoding="utf-8", newline="")

    def add(self, rows: list[dict[str, Any]]) -> Rows:
        buf = io.StringIO()
        csv.DictWriter(buf, fieldnames=self.columns, lineterminator="\n").writerows(rows)
        self._f.write(buf.getvalue())  # one write per game: an interruption cuts at most this game
        self._f.flush()
        return [{k: str(v) for k, v in r.items()} for r in rows]

    def close(self) -> None:
        self._f.close()

    def __enter__(self) -> GamesAppender:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
