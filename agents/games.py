"""The games agents can play, by name, and what the agents layer knows of each.

``GAMES`` is a live view of the game table ``fiveplay_env.games`` (name -> ``GameDef``: config,
engine, observation, determinization, results and metrics); ``get_game`` looks one up with a clear
error, ``game_of_engine`` finds the definition of a reference engine. ``kit(name)`` is the game's
``fiveplay_env.agents.kit.AgentKit`` (heuristics, best heuristic, search hooks, training defaults): the built-in
games' ``agents/<game>/__init__.py: KIT``, kits registered with ``register_kit`` or through the
entry-point group ``fiveplay.agent_kits``, and for any other game ``fiveplay_env.agents.kit.default_kit``.
``Metric`` and ``placings`` are re-exported from ``fiveplay_env.core.gamedef``; ``parse_config`` turns
command-line ``field=value`` items into config values.
"""
from __future__ import annotations

import ast
import importlib
import warnings
from collections.abc import Sequence
from typing import Any

from fiveplay_env.core.printable import escape, quote
from fiveplay_env.agents.five_alive import KIT as FIVE_ALIVE_KIT
from fiveplay_env.agents.kit import AgentKit, default_kit
from fiveplay_env.agents.take5 import KIT as TAKE5_KIT
from fiveplay_env import games as _table
from fiveplay_env.core.gamedef import SEED_BOUND, GameDef, Metric, placings

GAMES = _table.GameMapping()
"""Game name -> ``GameDef``: a live view of ``fiveplay_env.games``."""

KIT_ENTRY_POINT_GROUP = "fiveplay.agent_kits"
BUILTIN_KITS: tuple[AgentKit, ...] = (TAKE5_KIT, FIVE_ALIVE_KIT)
"""The built-in games' kits (each agents game package's ``KIT``)."""

_KITS: dict[str, AgentKit] = {}
_kit_entry_points_read = False


def get_game(name: str) -> GameDef:
    """The definition of game ``name``; ``ValueError`` listing the known games otherwise."""
    return _table.get(name)


def game_of_engine(engine: Any) -> GameDef:
    """The definition whose engine class ``engine`` is an instance of."""
    return _table.of_engine(engine)


def register_kit(k: AgentKit, *, replace: bool = False) -> AgentKit:
    """Add the agents-layer kit of a game (``ValueError`` if one is there already, unless ``replace``)."""
    if not isinstance(k, AgentKit):
        raise ValueError(f"register_kit: expected an AgentKit (fiveplay_env.agents.kit), got {type(k).__name__}")
    if k.game in _KITS and _KITS[k.game] is not k and not replace:
        raise ValueError(f"register_kit: game {k.game!r} has a kit already (pass replace=True to replace it)")
    _KITS[k.game] = k
    return k


def _load_kits() -> None:
    global _kit_entry_points_read
    if _kit_entry_points_read:
        return
    _kit_entry_points_read = True
    for k in BUILTIN_KITS:
        _KITS.setdefault(k.game, k)
    from importlib.metadata import entry_points

    for ep in entry_points(group=KIT_ENTRY_POINT_GROUP):
        try:
            k = ep.load()
        except Exception as e:  # a broken third-party package must not break the built-in games
            warnings.warn(f"{KIT_ENTRY_POINT_GROUP} entry point {quote(ep.name)} ({escape(ep.value, 200)}) failed to "
                          f"load: {type(e).__name__}: {escape(e, 300)}", RuntimeWarning, stacklevel=3)
            continue
        if isinstance(k, AgentKit):
            if k.game in _KITS and _KITS[k.game] is not k:
                warnings.warn(f"{KIT_ENTRY_POINT_GROUP} entry point {quote(ep.name)}: skipped: the game "
                              f"{quote(k.game)} has a kit already; expected a kit for a game of its own",
                              RuntimeWarning, stacklevel=3)
                continue
            _KITS[k.game] = k
        else:
            warnings.warn(f"{KIT_ENTRY_POINT_GROUP} entry point {quote(ep.name)}: expected an AgentKit, got "
                          f"{escape(type(k).__name__, 80)}; skipped", RuntimeWarning, stacklevel=3)


def kit(game: str) -> AgentKit:
    """The agents-layer kit of ``game`` (a game of the table; ``ValueError`` otherwise)."""
    if game in _KITS:
        return _KITS[game]
    get_game(game)  # validates the name
    _load_kits()
    return _KITS.get(game) or default_kit(game)


def compile_search(game: str) -> None:
    """Compile (or load from numba's cache) ``game``'s compiled search, if its kit has one: the ``warm()`` of
    the module of its ``Rollout.compiled`` (``fiveplay_env.vector.compile_kernels`` calls this, by name)."""
    path = getattr(kit(game).search, "compiled", None)
    if path:
        warm = getattr(importlib.import_module(path.partition(":")[0]), "warm", None)
        if warm is not None:
            warm()


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


__all__ = ["GAMES", "Metric", "SEED_BOUND", "compile_search", "game_of_engine", "get_game", "kit", "parse_config",
           "placings", "register_kit"]
