"""Each game's web view, found by the game's name as the agents layer finds a kit (``fiveplay_env.agents.games.kit``).

A web view (``WebView``) is what the web app knows of one game beyond its ``GameDef``: how a state becomes
data for the browser (the one place that decides what a seat may see), the public events of a step, an
action in words, the new-game panel's choice lists, the shipped-policy family its bot picker prefers,
and which drawing code of the browser shows it. The panel's presets are the game's own
(``GameDef.presets``, labelled by ``GameDef.preset_label``, its ``quick_preset`` first: the default). ``view(name)`` finds it:

1. a view registered in this process with ``register_view`` (a third-party game's),
2. the module ``fiveplay_env.experiments.web.games.<name>`` (one per built-in game, named after it): its ``VIEW``,
3. otherwise ``generic_view(name)``: seats, whose turn, the seat's legal actions (by id) and its own
   observation, each step's public event text (``GameDef.public_event``), the outcome once the game is
   over (``GameDef.summary``), drawn by the browser's generic code. So every game of the table
   (``fiveplay_env.games``) is served, with no file here; ``served()`` lists them in the table's order.

| field           | what                                                                                     |
|-----------------|------------------------------------------------------------------------------------------|
| ``game``        | the game's name in ``fiveplay_env.games``                                                |
| ``kind``        | the browser's drawing code for it: ``"generic"`` (``static/app.js``), or the kind a       |
|                 | script registers (``registerView(kind, ...)`` in ``static/<script>``)                    |
| ``script``      | that script's file name in ``static/`` (None for ``"generic"``)                          |
| ``table``       | ``(config, state, seat) -> dict``: the table as ``seat`` sees it (None: from above)      |
| ``events``      | ``(config, before, action, after) -> [dict]``: what the step did, as every player saw it |
| ``label``       | ``(action) -> str``: an action id in words                                               |
| ``round_of``    | ``(state) -> int``: the 0-based round a state belongs to (the replay's round index)      |
| ``choices``     | ``{config field: [values]}``: the fields the new-game panel offers as a list              |
| ``bot_family``  | ``((config match, family), ...)``: the shipped-policy family (``pretrained.family``) the   |
|                 | picker prefers, the first whose match fields all equal the config's (``{}``: any)        |
| ``guided_about``| the bot picker's line about the game's guided search (``{policy}``: its prior)           |
| ``browser``     | data the drawing code reads (``/api/meta``: ``games[name].view``)                        |
| ``meta``        | fields of ``/api/meta`` itself (the pages' first version read them there)                |
| ``rules``       | its rules for players (``PlayerRules``: what the rules panel, the rules page and the card |
|                 | explanations show; None: ``GameDef.describe``); the developer's rule book is docs/rules.md|
| ``options``     | ``{config field: Option}``: the new-game panel's words for the optional rules (the rules   |
|                 | text's "Options" section is made of the same words)                                      |
| ``hint_reason`` | ``(config, state, seat, action) -> str``: why a move, in a short sentence a player reads, |
|                 | from what ``seat`` sees (None: no reason beyond the bot's numbers)                       |
| ``hint_cost``   | ``(config, state, seat, action, legal, rollouts) -> dict``: what a move is expected to    |
|                 | cost the player, in the game's units (``text``, ``value``, ``unit``, ``when``, ``others``: |
|                 | the cheapest other move); ``rollouts(actions)``: each action's end states in common       |
|                 | worlds of the seat's information set (``fiveplay_env.experiments.web.hints``)           |
"""
from __future__ import annotations

import importlib
import importlib.util
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fiveplay_env import games as _table
from fiveplay_env.core.config import plain

_SCRIPT_RE = re.compile(r"^[a-z][a-z0-9_]*\.js$")
GENERIC = "generic"
"""The kind drawn by ``static/app.js`` itself: any game."""


@dataclass(frozen=True)
class Option:
    """An optional rule as the new-game panel offers it (one config field), in a player's words.

    ``label``: the panel's name for it; ``rule``: what it does, one or two sentences (the rules text's line
    for it); ``values``: each choice's words (a list in the panel; empty for a number or a yes/no box);
    ``covers``: the rule book items it says (``rules_text.book_items``: checked by the tests)."""

    label: str
    rule: str
    values: Mapping[Any, str] = field(default_factory=dict)
    covers: tuple[str, ...] = ()


@dataclass(frozen=True)
class PlayerRules:
    """A game's rules written for players: one source for the rules panel, the rules page and the card
    explanations (``fiveplay_env.experiments.web.rules_text``).

    ``sections``: ``((title, ((covers, sentence), ...)), ...)`` in the order a player reads them (set-up,
    a turn, scoring, the end, ...): each sentence says the rule book items named in ``covers``
    (``rules_text.book_items``; a test checks that every item of the book's player sections is said);
    ``cards``: ``((kinds, covers, sentence), ...)``: what a card does, in one or two sentences, shown where
    the card is seen and as the section ``cards_title``; ``options_title``: the heading of the optional
    rules, made of the view's ``options`` (the new-game panel's words)."""

    title: str
    intro: str
    sections: tuple[tuple[str, tuple[tuple[tuple[str, ...], str], ...]], ...]
    cards: tuple[tuple[tuple[int, ...], tuple[str, ...], str], ...] = ()
    cards_title: str = "What each card does"
    options_title: str = "Options of the new-game panel"


@dataclass(frozen=True)
class WebView:
    """One game's web view (see the module docstring for the fields)."""

    game: str
    table: Callable[[Any, Any, int | None], dict[str, Any]]
    events: Callable[[Any, Any, int, Any], list[dict[str, Any]]]
    label: Callable[[int], str]
    kind: str = GENERIC
    script: str | None = None
    round_of: Callable[[Any], int] = lambda state: 0
    choices: Mapping[str, list[str]] = field(default_factory=dict)
    bot_family: tuple[tuple[Mapping[str, Any], str], ...] = ()
    guided_about: str = "search guided by the {policy} policy"
    browser: Mapping[str, Any] = field(default_factory=dict)
    meta: Mapping[str, Any] = field(default_factory=dict)
    rules: PlayerRules | None = None
    options: Mapping[str, Option] = field(default_factory=dict)
    hint_reason: Callable[[Any, Any, int, int], str] | None = None
    hint_cost: Callable[[Any, Any, int, int, list[int], Callable[[list[int]], dict[int, list[Any]]]],
                        dict[str, Any]] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.kind, str) or not self.kind.isidentifier():
            raise ValueError(f"WebView.kind: expected an identifier such as 'generic', got {self.kind!r}")
        if (self.kind == GENERIC) != (self.script is None):
            raise ValueError(f"WebView.script: expected a script for kind {self.kind!r} (and none for "
                             f"{GENERIC!r}), got {self.script!r}")
        if self.script is not None and not _SCRIPT_RE.match(self.script):
            raise ValueError(f"WebView.script: expected a file name such as 'mygame.js' in static/, got {self.script!r}")
        for match, family in self.bot_family:
            if not isinstance(match, Mapping) or not isinstance(family, str):
                raise ValueError(f"WebView.bot_family: expected (config match, family) pairs, got {(match, family)!r}")

    @staticmethod
    def presets(game: Any) -> list[dict[str, Any]]:
        """The new-game panel's presets: ``GameDef.presets``, its ``quick_preset`` first (the panel's default:
        a short game), each ``{id, label, config}``; a game without presets gets its default config."""
        named = dict(game.presets) or {"default": game.config_cls()}
        order = sorted(named, key=lambda n: n != game.quick_preset)  # stable: the rest in the game's order
        return [{"id": n, "label": game.preset_label(n) if n in game.presets else "Default rules",
                 "config": game.config_dict(named[n])} for n in order]

    def family(self, config: Mapping[str, Any]) -> str | None:
        """The shipped-policy family the bot picker prefers under ``config`` (None: none)."""
        for match, fam in self.bot_family:
            if all(config.get(k) == v for k, v in match.items()):
                return fam
        return None

    def about(self) -> dict[str, Any]:
        """What ``/api/meta`` tells the browser's drawing code (``games[name].view``), with the new-game
        panel's words for the options (``options``: ``{field: {label, rule, values}}``)."""
        options = {f: {"label": o.label, "rule": o.rule, "values": {str(k): v for k, v in o.values.items()}}
                   for f, o in self.options.items()}
        return dict(self.browser, kind=self.kind, script=self.script, options=options,
                    bot_family=[[dict(m), f] for m, f in self.bot_family])


_VIEWS: dict[str, WebView] = {}


def register_view(v: WebView, *, replace: bool = False) -> WebView:
    """Add the web view of a game (``ValueError`` if it has one already, unless ``replace``)."""
    if not isinstance(v, WebView):
        raise ValueError(f"register_view: expected a WebView (fiveplay_env.experiments.web.games), got {type(v).__name__}")
    if v.game in _VIEWS and _VIEWS[v.game] is not v and not replace:
        raise ValueError(f"register_view: game {v.game!r} has a web view already (pass replace=True to replace it)")
    _VIEWS[v.game] = v
    return v


def view(name: str) -> WebView:
    """The web view of game ``name`` (a game of the table; ``ValueError`` listing them otherwise)."""
    _table.get(name)  # a game of the table now (its name an identifier: GameDef checks it); ValueError otherwise
    if name in _VIEWS:
        return _VIEWS[name]
    module = f"{__name__}.{name}"
    if importlib.util.find_spec(module) is not None:
        found = getattr(importlib.import_module(module), "VIEW", None)
        if not isinstance(found, WebView) or found.game != name:
            raise ValueError(f"{module}.VIEW: expected the WebView of {name!r}, got {found!r}")
    else:
        found = generic_view(name)
    return _VIEWS.setdefault(name, found)


def served() -> list[str]:
    """Every game of the table, in its order (the built-in games first): the new-game panel's list."""
    return list(_table.table())


# --- the generic view ------------------------------------------------------------------------------

def generic_view(name: str) -> WebView:
    """The view of a game without one of its own (module docstring): nothing but what the ``GameDef``
    declares. A seat sees its own observation (``GameDef.observe_state``: by the env contract, exactly
    what that seat may see) and its legal actions; another seat's move is told by the public event only.
    The definition is looked up at each call (a game registered again with ``replace=True`` is followed)."""
    _table.get(name)

    def engine(config: Any, state: Any) -> Any:
        return _table.get(name).engine_cls(config, state=state)

    def winners(e: Any) -> list[int]:
        win = _table.get(name).results(e, [None] * e.config.num_players)["win"]
        return [p for p, w in enumerate(win) if w > 0]

    def label(action: int) -> str:
        return f"action {int(action)}"

    def table(config: Any, state: Any, seat: int | None) -> dict[str, Any]:
        e = engine(config, state)
        over = bool(e.is_over)
        out: dict[str, Any] = {"game": name, "num_players": config.num_players, "over": over,
                               "current": -1 if over else int(e.current_player), "winners": [], "outcome": None,
                               "actions": {}, "observation": None}
        game = _table.get(name)
        if over:
            out["winners"] = winners(e)
            out["outcome"] = plain(game.summary(state))
        if seat is not None:
            obs = np.asarray(game.observe_state(config, state, seat), dtype=np.float64)
            out["observation"] = [round(float(x), 4) for x in obs.ravel()]
            if not over and e.current_player == seat:
                out["actions"] = {str(int(a)): label(int(a)) for a in np.flatnonzero(e.legal_mask())}
        return out

    def events(config: Any, before: Any, action: int, after: Any) -> list[dict[str, Any]]:
        player = int(engine(config, before).current_player)
        public = _table.get(name).public_event(after)
        text = public.get("text") if isinstance(public, dict) else None
        ev: dict[str, Any] = {"type": "move", "player": player,
                              "text": text if isinstance(text, str) else f"P{player} has moved"}
        if public is not None:
            ev["public"] = plain(public)
        out = [ev]
        e = engine(config, after)
        if e.is_over:
            win = winners(e)
            out.append({"type": "game_over", "winners": win,
                        "text": "game over: " + (", ".join(f"P{w}" for w in win) or "nobody") + " won"})
        return out

    return WebView(game=name, table=table, events=events, label=label)


__all__ = ["GENERIC", "Option", "PlayerRules", "WebView", "generic_view", "register_view", "served", "view"]
