"""A hint in a player's terms: what the suggested move is expected to cost the player, and why.

A bot's own numbers are its own business (a search's value is relative to the other players and may count
a win bonus; a policy's are odds and training units), so a hint does not show them. ``explain(game, engine,
seat, action, legal, seed)`` asks the game's web view (``fiveplay_env.experiments.web.games``):

- ``hint_cost(config, state, seat, action, legal, rollouts) -> dict``: what ``action`` is expected to cost
  the player, in the game's own units (Take 5: the bull heads they take, now or by the end of the round;
  5 Alive: the chance to lose a life this round and the lives lost), with the cheapest other move's cost.
  ``rollouts(actions, depth=0)`` is ``{action: [end state, ...]}``: every action played out in the same ``WORLDS``
  determinized worlds of the seat's information set (``fiveplay_env.agents.base.InformationSet``: the hidden
  cards re-dealt, nothing else known) by the game's search rollouts (``AgentKit.rollout``: the search's
  opponent model and playout policy, to the end of the round or ``depth`` steps of it), so the costs of the moves are compared on
  common worlds; the view measures the player's own loss in each end state;
- ``hint_reason(config, state, seat, action) -> str``: why, in one short sentence computed from what the
  seat sees ("row 3 holds 2 bull heads, the fewest", "your 55 would be the 6th card of row 2").

Both see only the seat's information set (the no-leak tests re-deal the hidden cards and compare whole
hints), and the worlds are drawn from ``seed`` alone, so a hint repeats exactly. The rollouts stop once
``SECONDS`` have passed (``MIN_WORLDS`` at least; a safety bound of the hint's time budget; on a normal machine they take about a
tenth of a second to a third). A game whose view has neither hook gets ``{}`` (the bot's own numbers only).
"""
from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from fiveplay_env.agents import games as agent_games
from fiveplay_env.agents.base import InformationSet
from fiveplay_env.agents.kit import RANDOM_PLAYOUT
from fiveplay_env.agents.search import NOISE_LEN
from fiveplay_env.agents.search_params import SearchParams
from fiveplay_env.experiments.web import games as web_views

WORLDS = 32
"""Determinized worlds every legal move is played out in (the same worlds for every move)."""
MIN_WORLDS = 4
"""Worlds played out even past ``SECONDS``."""
SECONDS = 1.2
"""The time bound of one hint's rollouts, all calls together (a safety: a hint stays within its budget on a
loaded machine; ``MIN_WORLDS`` are played out in any case)."""


def rollouts_of(game: str, engine: Any, seat: int, seed: int, worlds: int = WORLDS,
                seconds: float = SECONDS) -> Callable[..., dict[int, list[Any]]]:
    """``rollouts(actions, depth=0) -> {action: [end state, ...]}`` for ``seat`` of ``engine`` (module
    docstring); ``depth``: the search's ``depth`` option (0: to the end of the round; Take 5: 1 ends the
    rollouts with the current trick)."""
    rollout = agent_games.kit(game).rollout or RANDOM_PLAYOUT
    stop = time.perf_counter() + seconds  # one bound for every call of this hint

    def run(actions: list[int], depth: int = 0) -> dict[int, list[Any]]:
        params = dataclasses.replace(SearchParams(), depth=int(depth))  # the search's default rollouts
        info = InformationSet(engine, seat)
        rng = np.random.default_rng(seed)
        out: dict[int, list[Any]] = {int(a): [] for a in actions}
        for k in range(worlds):
            world = info.sample(rng)
            plan = rollout.prepare(world, seat, params)
            noise = rng.random(NOISE_LEN).tolist()
            for a in out:
                w = world.clone()
                rollout.simulate(w, a, seat, noise, plan, params)
                out[a].append(w.state)
            if k + 1 >= MIN_WORLDS and time.perf_counter() > stop:
                break
        return out

    return run


def explain(game: str, engine: Any, seat: int, action: int, legal: list[int], seed: int) -> dict[str, Any]:
    """``{"cost": {...}, "reason": str}`` of the hint ``action`` for ``seat`` (module docstring); ``{}``
    for a game whose view has no hint hooks."""
    v = web_views.view(game)
    out: dict[str, Any] = {}
    config, state = engine.config, engine.state
    if v.hint_cost is not None:
        out["cost"] = v.hint_cost(config, state, seat, int(action), [int(a) for a in legal],
                                  rollouts_of(game, engine, seat, seed))
    if v.hint_reason is not None:
        out["reason"] = v.hint_reason(config, state, seat, int(action))
    return out


__all__ = ["MIN_WORLDS", "SECONDS", "WORLDS", "explain", "rollouts_of"]
