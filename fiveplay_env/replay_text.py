"""A recorded game as text, step by step: what ``fiveplay replay RECORD`` prints.

    from fiveplay_env import records, replay_text

    (rec,) = records.read_records("runs/tournament__take5__0__<time>/records/game_000000.jsonl")
    for block in replay_text.game_text(rec, viewer=None, to=None):   # from above, the whole game
        print(block)

The record is replayed through the reference engine (``records.iter_states``, which checks every
action); the text is the table before the first action, one line per step, and the table again at
each section's end (a trick of Take 5, a round of 5 Alive), then the final table. ``viewer``: a seat's
view (its own hand only, the other players' cards hidden until the game reveals them), or ``None``:
from above, every hand shown. ``to``: stop after that many actions.

The words come from the game's own ``render`` module (the file every game folder has: ``fiveplay_env/
<game>/render.py``), which may define:

| function                                   | returns                                                   |
|--------------------------------------------|-----------------------------------------------------------|
| ``table_text(state, viewer)``              | the table (``viewer=None``: from above, every hand)       |
| ``describe_step(before, action, after, viewer)`` | one step in words                                   |
| ``new_section(before, after)``             | whether the table is shown again after this step          |

A game whose render module lacks them (a third-party game) is shown with its ``render_text`` or its
outcome summary, and each step as ``player_K: action A``.
"""
from __future__ import annotations

import importlib
import inspect
import json
from collections.abc import Iterator, Mapping
from types import ModuleType
from typing import Any

from fiveplay_env import games, records


def render_module(game: str) -> ModuleType | None:
    """The ``render`` module beside ``game``'s engine (``fiveplay_env.take5.render``), or None."""
    package = games.get(game).engine_cls.__module__.rpartition(".")[0]
    try:
        return importlib.import_module(f"{package}.render")
    except ModuleNotFoundError:
        return None


def _call(fn: Any, *args: Any, config: Any = None) -> Any:
    """``fn(*args)``, passing ``teams=config.teams`` where ``fn`` takes it (5 Alive's team variant)."""
    if config is not None and "teams" in inspect.signature(fn).parameters:
        return fn(*args, teams=bool(getattr(config, "teams", False)))
    return fn(*args)


class _Words:
    """The game's words for a replay, with the fallbacks of the module docstring."""

    def __init__(self, game: str, config: Any) -> None:
        self.game, self.config = game, config
        self.mod = render_module(game)

    def table(self, state: Any, viewer: int | None) -> str:
        fn = getattr(self.mod, "table_text", None)
        if fn is not None:
            return _call(fn, state, viewer, config=self.config)
        fn = getattr(self.mod, "render_text", None)
        if fn is not None:
            return _call(fn, state, viewer, config=self.config)
        return json.dumps(records.summary(self.game, state))

    def step(self, before: Any, action: int, after: Any, viewer: int | None) -> str:
        fn = getattr(self.mod, "describe_step", None)
        if fn is not None:
            return fn(before, action, after, viewer)
        return f"player_{getattr(before, 'current', '?')}: action {action}"

    def new_section(self, before: Any, after: Any) -> bool:
        fn = getattr(self.mod, "new_section", None)
        return bool(fn(before, after)) if fn is not None else False


def check_viewer(rec: Mapping[str, Any], viewer: int | None) -> None:
    """``ValueError`` unless ``viewer`` is None or a seat of the record's game."""
    if viewer is None:
        return
    n = int(records.record_config(rec).num_players)
    if isinstance(viewer, bool) or not isinstance(viewer, int) or not 0 <= viewer < n:
        raise ValueError(f"--seat: expected a seat 0..{n - 1} of this {n}-player game, got {viewer!r}")


def game_text(rec: Mapping[str, Any], where: str = "<record>", *, viewer: int | None = None,
              to: int | None = None, allow_legacy: bool = False) -> Iterator[str]:
    """The game of ``rec`` as text blocks, in order (see the module docstring): the first table, then
    for each step its line (``"step N: ..."``) and, at a section's end, the table. Stops after ``to``
    actions (the table after the last step shown closes the text). ``RecordError`` at a step that does
    not replay; ``allow_legacy``: a version-1 record too (``records.iter_states``)."""
    check_viewer(rec, viewer)
    if to is not None and (isinstance(to, bool) or not isinstance(to, int) or to < 0):
        raise ValueError(f"--to: expected a number of actions >= 0, got {to!r}")
    words = _Words(rec["game"], records.record_config(rec, where))
    prev: tuple[Any, int] | None = None
    shown_last = False
    for i, action, engine in records.iter_states(rec, where, allow_legacy=allow_legacy):
        state = engine.state
        if prev is None:
            yield words.table(state, viewer)
        else:
            before, done = prev
            yield f"step {i}: {words.step(before, done, state, viewer)}"
            shown_last = words.new_section(before, state)
            if shown_last:
                yield words.table(state, viewer)
        if action < 0 or (to is not None and i >= to):
            if prev is not None and not shown_last:
                yield words.table(state, viewer)
            return
        prev = (state.clone(), action)
