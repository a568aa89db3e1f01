"""Bots built ahead: the costly first build of a web game's bots done when the app starts, not in a request.

A new game's first request builds its bots and lets them move within the request's bot budget
(``fiveplay_env.experiments.web.sessions.MAX_BOT_SECONDS``, the build counted in it). Cold, the first build
of a policy-guided bot imports torch, reads the network's file and compiles the search's kernels: seconds
that would all fall in one player's request. ``Warmer`` does that work once in a background thread when the
app starts (``create_app(warm_bots=True)``; the command line does): for every game served, every shipped
policy and guided search of the bot list (``BotPolicy.catalogue``) is made once and takes one decision on a
new game, with a short deadline. What stays warm is what Python and the libraries keep: modules imported,
files in the page cache, compiled kernels; no agent is kept (each game makes its own, seeded by its deal).

``done`` is set when it has finished (``seconds``: how long it took; ``failed``: the names that could not be
made, by kind of error: a missing optional extra is not an error of the app).
"""
from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from fiveplay_env.agents import games as games_mod
from fiveplay_env.experiments.web.bots import BotPolicy
from fiveplay_env.experiments.web.sessions import move_deadline

WARM_GROUPS = ("Shipped policies", "Guided search")
"""The bot list's groups built ahead (the others build in microseconds)."""
WARM_DEADLINE = 0.2
"""The deadline of a warm-up decision (seconds): enough to compile and run a search, not to think."""


class Warmer:
    """Builds the costly bots of ``games`` once, ahead (module docstring)."""

    def __init__(self, policy: BotPolicy, games: Sequence[str]) -> None:
        self.policy = policy
        self.games = list(games)
        self.done = threading.Event()
        self.seconds: float | None = None
        self.failed: dict[str, str] = {}
        self._thread: threading.Thread | None = None

    def names(self, game: str) -> list[str]:
        """The bot names of ``game`` built ahead."""
        return [e["name"] for e in self.policy.catalogue(game) if e.get("group") in WARM_GROUPS]

    def start(self) -> "Warmer":
        """Run ``warm`` in a daemon thread (the server answers meanwhile; a request that needs a bot not
        yet warm builds it itself, inside its budget)."""
        self._thread = threading.Thread(target=self.warm, name="fiveplay-web-warm", daemon=True)
        self._thread.start()
        return self

    def warm(self) -> None:
        t0 = time.perf_counter()
        try:
            for game in self.games:
                g = games_mod.get_game(game)
                config = g.config_cls()
                for name in self.names(game):
                    try:
                        agent = self.policy.make(name, game, 0)
                        engine = g.new_engine(config, 0)
                        seat = engine.current_player
                        move_deadline(agent, WARM_DEADLINE)
                        if agent.uses_engine:
                            agent.observe_engine(engine, seat)
                        agent.act(g.observe(engine, seat), engine.legal_mask())
                    except Exception as e:  # noqa: BLE001 - warming is best effort: the request will say what fails
                        self.failed[name] = type(e).__name__
        finally:
            self.seconds = time.perf_counter() - t0
            self.done.set()
