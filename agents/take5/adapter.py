"""Take 5's adapter for agents and tournaments (the ``agents.adapter.Game`` contract).

Results per seat: ``score`` (final score: bull heads taken), ``placing`` (1 = lowest score, ties share
the better place) and ``win`` (the k players with the lowest score share the win, 1/k each).

Determinization: the hidden cards (other hands, their unrevealed choices of the current trick, the
set-aside cards) are sorted and dealt in seat order (``canonical``), then re-dealt at random by
``sample_world``; both are ``fiveplay_env.take5.determinize``'s, re-exported here.
"""
from __future__ import annotations

from agents.adapter import Game, Metric, placings
from fiveplay_env import take5_v0
from fiveplay_env.take5 import engine as t5eng
from fiveplay_env.take5 import observation as t5obs
from fiveplay_env.take5 import state as t5state
from fiveplay_env.take5.config import Take5Config
from fiveplay_env.take5.determinize import canonical, sample_world

__all__ = ["GAME", "canonical", "sample_world", "results"]


def results(engine: t5eng.Take5Engine, elimination_turn: list[int | None]) -> dict[str, list[float]]:
    scores = list(engine.state.scores)
    win = t5eng.winners(engine.state)
    share = 1.0 / len(win)
    return {
        "score": [float(s) for s in scores],
        "placing": [float(p) for p in placings(scores)],
        "win": [share if p in win else 0.0 for p in range(len(scores))],
    }


GAME = Game(
    name="take5",
    config_cls=Take5Config,
    engine_cls=t5eng.Take5Engine,
    num_actions=t5state.NUM_ACTIONS,
    env_module=take5_v0,
    observe_state=t5obs.observe,
    canonical=canonical,
    sample_world=sample_world,
    results=results,
    metrics=(
        Metric("score", True, "final score: bull heads taken (lower is better)"),
        Metric("placing", True, "finishing place, 1 = lowest score (ties share the better place)"),
    ),
)
"""Take 5's adapter."""
