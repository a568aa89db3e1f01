"""5 Alive's adapter for agents and tournaments (the ``agents.adapter.Game`` contract).

Results per seat are ``win`` (winners share: 1/k each of k winners, except in teams where each member
of the winning team wins), ``placing`` (1 = winner; then by how late a player was eliminated, survivors
first, then by lives left) and ``lives`` (lives left at the end).

Determinization: ``canonical``, ``sample_world`` and ``condition`` (beliefs of the search agent's
opponent model about hidden hands) are ``fiveplay_env.five_alive.determinize``'s, re-exported here
with the names this module had (``sample``, ``Conditioned``, ``ALL_KINDS``, ``CANONICAL_SEED``).
"""
from __future__ import annotations

from typing import Any

from agents.adapter import Game, Metric, placings
from fiveplay_env import five_alive_v0
from fiveplay_env.five_alive import engine as faeng
from fiveplay_env.five_alive.config import FiveAliveConfig
from fiveplay_env.five_alive.determinize import (
    ALL_KINDS, CANONICAL_SEED, CONDITIONED_TRIES, Conditioned, canonical, condition, sample_world,
)
from fiveplay_env.five_alive.events import last_event
from fiveplay_env.five_alive.observation import observe
from fiveplay_env.five_alive.state import NUM_ACTIONS, OVER, FiveAliveState

sample = sample_world  # the adapter's former name for it

__all__ = ["GAME", "ALL_KINDS", "CANONICAL_SEED", "CONDITIONED_TRIES", "Conditioned", "canonical", "condition",
           "sample", "sample_world", "results", "public_event"]


def results(engine: faeng.FiveAliveEngine, elimination_turn: list[int | None]) -> dict[str, list[float]]:
    state = engine.state
    n = state.num_players
    win = list(state.winners) if state.phase == OVER else []
    teams = engine.config.variant == "teams"
    share = 1.0 if teams else (1.0 / len(win) if win else 0.0)
    big = 1 << 40
    keys = []
    for p in range(n):
        turn = elimination_turn[p]
        keys.append((0 if p in win else 1, -(turn if turn is not None else big), -state.lives[p]))
    return {
        "placing": [float(x) for x in placings(keys)],
        "lives": [float(v) for v in state.lives],
        "win": [share if p in win else 0.0 for p in range(n)],
    }


def public_event(state: FiveAliveState) -> dict[str, Any]:
    event = last_event(state)
    event["turns"] = state.turns
    return event


GAME = Game(
    name="five_alive",
    config_cls=FiveAliveConfig,
    engine_cls=faeng.FiveAliveEngine,
    num_actions=NUM_ACTIONS,
    env_module=five_alive_v0,
    observe_state=observe,
    canonical=canonical,
    sample_world=sample_world,
    results=results,
    metrics=(
        Metric("placing", True, "finishing place, 1 = winner, then by elimination order (later is better)"),
        Metric("lives", False, "lives left at the end (higher is better)"),
    ),
    alive=lambda state: state.alive,
    public_event=public_event,
    condition=condition,
)
"""5 Alive's adapter."""
