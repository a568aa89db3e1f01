"""The one table of games: every layer above the engines finds a game here, by name.

    from fiveplay_env import games
    games.names()                 # ['five_alive', 'take5']
    g = games.get("take5")        # a GameDef (fiveplay_env.core.gamedef)
    env = g.make_env(num_players=4)

Built-in games are ``BUILTIN``: each game package's ``GAME``. Another game joins in
one of two ways, and then works in every tool that takes a game name (envs, ``make_vec``, records,
the arena, tournaments, search, training, the web app, the ``--game`` options):

- ``games.register(MY_GAME)`` in the process that uses it, or
- an entry point in the group ``fiveplay.games`` of the distribution that ships it (read on first
  lookup, so tournament worker processes find it too)::

      [project.entry-points."fiveplay.games"]
      mygame = "mypkg.mygame:GAME"

An entry point that fails to load is reported by a warning naming it and skipped; so is one whose game
clashes with a game already in the table: the same name (a built-in game is never replaced by a
plug-in), or a name that looks like one (the same letters once case, ``_`` and ``-`` are set aside, or
a name that is not plain ASCII: a Cyrillic ``а`` in ``tаke5``). ``register`` refuses a name that is
already taken (``register(..., replace=True)`` replaces it on purpose). A warning shows the plug-in's
strings escaped (``fiveplay_env.core.printable``): they reach a terminal.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from fiveplay_env.core.gamedef import GameDef
from fiveplay_env.core.printable import escape, quote
from fiveplay_env.five_alive import GAME as FIVE_ALIVE
from fiveplay_env.take5 import GAME as TAKE5

ENTRY_POINT_GROUP = "fiveplay.games"
BUILTIN: tuple[GameDef, ...] = (TAKE5, FIVE_ALIVE)
"""The built-in games (each game package's ``GAME``)."""

_TABLE: dict[str, GameDef] = {}
_entry_points_read = False
_LISTENERS: list[Callable[[GameDef], None]] = []


def on_register(listener: Callable[[GameDef], None]) -> None:
    """Call ``listener(game)`` for every game in the table now and for every game that joins later
    (``fiveplay_env.registration`` uses it to give each game its Gymnasium id)."""
    _LISTENERS.append(listener)
    for g in list(_TABLE.values()):
        listener(g)


def _add(game: GameDef) -> None:
    _TABLE[game.name] = game
    for listener in _LISTENERS:
        listener(game)


def register(game: GameDef, *, replace: bool = False) -> GameDef:
    """Add ``game`` to the table (``ValueError`` if its name is taken, unless ``replace``); returns it."""
    if not isinstance(game, GameDef):
        raise ValueError(f"register: expected a GameDef (fiveplay_env.core.gamedef), got {type(game).__name__}")
    if game.name in _TABLE and _TABLE[game.name] is not game and not replace:
        raise ValueError(f"register: a game named {game.name!r} is already registered "
                         f"(pass replace=True to replace it)")
    _add(game)
    return game


def unregister(name: str) -> None:
    """Remove a game added by ``register`` (built-in games stay)."""
    if name in _builtin_names():
        raise ValueError(f"unregister: {name!r} is a built-in game")
    _TABLE.pop(name, None)


def _builtin_names() -> set[str]:
    return {g.name for g in BUILTIN}


def _load_builtin() -> None:
    for g in BUILTIN:
        if g.name not in _TABLE:
            _add(g)


def _skeleton(name: str) -> str:
    """What a name looks like: case, ``_`` and ``-`` set aside (``Take_5`` and ``take5`` look alike)."""
    return name.casefold().replace("_", "").replace("-", "")


def clash(name: str) -> str | None:
    """Why a plug-in's game called ``name`` may not join the table (None if it may): a name taken, one
    that looks like a name in the table, or one that is not plain ASCII (it could pass for another)."""
    if name in _TABLE:
        kind = "a built-in game" if name in _builtin_names() else "another game"
        return f"its name {quote(name)} is taken by {kind}"
    if not name.isascii():
        return f"its name {ascii(name)} is not plain ASCII (it could pass for another game's name)"
    twin = next((n for n in _TABLE if _skeleton(n) == _skeleton(name)), None)
    if twin is not None:
        return f"its name {quote(name)} looks like the name of the game {twin!r}"
    return None


def _load_entry_points() -> None:
    global _entry_points_read
    if _entry_points_read:
        return
    _entry_points_read = True
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        label = f"fiveplay.games entry point {quote(ep.name)} ({escape(ep.value, 200)})"
        try:
            g = ep.load()
        except Exception as e:  # a broken third-party package must not break the built-in games
            warnings.warn(f"{label} failed to load: {type(e).__name__}: {escape(e, 300)}", RuntimeWarning,
                          stacklevel=3)
            continue
        if not isinstance(g, GameDef):
            warnings.warn(f"{label}: expected a GameDef, got {escape(type(g).__name__, 80)}; skipped",
                          RuntimeWarning, stacklevel=3)
            continue
        if _TABLE.get(g.name) is g:
            continue
        why = clash(g.name)
        if why is not None:
            warnings.warn(f"{label}: skipped: {why}; expected a name of its own", RuntimeWarning, stacklevel=3)
            continue
        _add(g)


def table() -> dict[str, GameDef]:
    """Every known game by name (a copy)."""
    _load_entry_points()
    return dict(_TABLE)


def names() -> list[str]:
    """The known game names, sorted."""
    return sorted(table())


def default_game() -> str:
    """The game a tool plays when none is named: the first built-in game."""
    return BUILTIN[0].name


def get(name: Any) -> GameDef:
    """The game called ``name``; ``ValueError`` listing the known games otherwise."""
    if isinstance(name, str) and name in _TABLE:
        return _TABLE[name]
    _load_entry_points()
    if not isinstance(name, str) or name not in _TABLE:
        raise ValueError(f"game: expected one of {sorted(_TABLE)}, got {quote(name) if isinstance(name, str) else type(name).__name__}")
    return _TABLE[name]


def of_engine(engine: Any) -> GameDef:
    """The game whose reference engine class ``engine`` is an instance of."""
    for g in table().values():
        if isinstance(engine, g.engine_cls):
            return g
    raise ValueError(f"engine: expected an engine of one of {names()}, got {type(engine).__name__}")


class GameMapping(Mapping[str, Any]):
    """A read-only live view of the table, ``name -> view(GameDef)`` (new registrations show up)."""

    def __init__(self, view: Any = None) -> None:
        self._view = view or (lambda g: g)

    def __getitem__(self, name: str) -> Any:
        try:
            return self._view(get(name))
        except ValueError:
            raise KeyError(name) from None

    def __iter__(self) -> Iterator[str]:
        return iter(names())

    def __len__(self) -> int:
        return len(table())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({names()})"


_load_builtin()
