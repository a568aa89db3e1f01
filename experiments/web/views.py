"""What the browser is shown: a table as one seat sees it, and each step's public events.

``view(game, config, state, seat)`` is the table as ``seat`` may see it (``seat=None``: from above, every
hand); ``step_events(game, config, before, action, after)`` says what one step did, as every player saw
it; ``action_label(game, action)`` an action in words. These are the only place the web app turns a
state into data for the browser, so what a seat may see is decided here and nowhere else: each game's
web view (``fiveplay_env.experiments.web.games``: ``view(game)``) draws its own table, and a game without one gets
the generic view (its seat's own observation and legal actions, the public event of each step). Other
players' hands, their unrevealed choices and the order of hidden piles are never in a seat's view (tests
re-deal them and compare).
"""
from __future__ import annotations

from typing import Any

from fiveplay_env.experiments.web import games as web_views


def view(game: str, config: Any, state: Any, seat: int | None) -> dict[str, Any]:
    """The table of ``state`` as ``seat`` sees it (None: every hand); plain JSON-ready data."""
    return web_views.view(game).table(config, state, seat)


def step_events(game: str, config: Any, before: Any, action: int, after: Any) -> list[dict[str, Any]]:
    """What the step ``before --action--> after`` did, as public events (the game's web view says which)."""
    return web_views.view(game).events(config, before, action, after)


def action_label(game: str, action: int) -> str:
    """An action id in words (the game's web view's ``label``)."""
    return web_views.view(game).label(action)


def round_of(game: str, state: Any) -> int:
    """The 0-based round ``state`` belongs to (the replay's round index)."""
    return web_views.view(game).round_of(state)
