"""The games agents can play, by name: ``GAMES`` maps ``"take5"`` and ``"five_alive"`` to their adapters.

Each adapter (an ``agents.adapter.Game``) lives in ``agents/<game>/adapter.py``; ``get_game`` looks one up
with a clear error, ``game_of_engine`` finds the adapter of a reference engine. ``Game``, ``Metric`` and
``placings`` are re-exported from ``agents.adapter``; ``parse_config`` turns command-line
``field=value`` items into config values.
"""
from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import Any

from agents.adapter import SEED_BOUND, Game, Metric, placings
from agents.five_alive.adapter import GAME as FIVE_ALIVE
from agents.take5.adapter import GAME as TAKE5

GAMES: dict[str, Game] = {TAKE5.name: TAKE5, FIVE_ALIVE.name: FIVE_ALIVE}


def get_game(name: str) -> Game:
    """The adapter of game ``name``; ``ValueError`` listing the known games otherwise."""
    if not isinstance(name, str) or name not in GAMES:
        raise ValueError(f"game: expected one of {sorted(GAMES)}, got {name!r}")
    return GAMES[name]


def game_of_engine(engine: Any) -> Game:
    """The adapter whose engine class ``engine`` is an instance of."""
    for g in GAMES.values():
        if isinstance(engine, g.engine_cls):
            return g
    raise ValueError(
        f"engine: expected an engine of one of {sorted(GAMES)} ({[g.engine_cls.__name__ for g in GAMES.values()]}), "
        f"got {type(engine).__name__}"
    )


def parse_config(items: Sequence[str]) -> dict[str, Any]:
    """``["mode=round", "num_players=4"]`` -> ``{"mode": "round", "num_players": 4}``.

    Values are Python literals where they parse as one (ints, bools, tuples), else strings; ``true`` and
    ``false`` are accepted too. A malformed item raises ``ValueError``.
    """
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item or not item.split("=", 1)[0].strip():
            raise ValueError(f"config: expected items like 'field=value', got {item!r}")
        key, raw = (s.strip() for s in item.split("=", 1))
        low = raw.lower()
        if low in ("true", "false"):
            value: Any = low == "true"
        elif low in ("none", "null"):
            value = None
        else:
            try:
                value = ast.literal_eval(raw)
            except (ValueError, SyntaxError):
                value = raw
            if isinstance(value, list):
                value = tuple(value)
        out[key] = value
    return out


__all__ = ["GAMES", "Game", "Metric", "SEED_BOUND", "game_of_engine", "get_game", "parse_config", "placings"]
