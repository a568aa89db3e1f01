"""Kept for old imports (0.2; removed in 0.3, see CHANGELOG.md): the 5 Alive beliefs for the search agent's
opponent model (``condition``, ``sample_conditioned``, ``Conditioned``) moved to
``fiveplay_env.five_alive.determinize``.

The game's definition is ``fiveplay_env.five_alive.GAME`` (results in ``fiveplay_env.five_alive.results``,
determinization in ``fiveplay_env.five_alive.determinize``); ``GAME``, ``canonical``, ``results`` and
``public_event`` are re-exported here for old imports (0.2). What agents add is ``fiveplay_env.agents.five_alive.KIT``.
"""
from __future__ import annotations

from fiveplay_env.five_alive import GAME
from fiveplay_env.five_alive.determinize import (
    ALL_KINDS, CANONICAL_SEED, CONDITIONED_TRIES, Conditioned, canonical, condition, sample, sample_conditioned,
    sample_world,
)
from fiveplay_env.five_alive.results import public_event, results

__all__ = ["ALL_KINDS", "CANONICAL_SEED", "CONDITIONED_TRIES", "Conditioned", "GAME", "canonical", "condition",
           "public_event", "results", "sample", "sample_conditioned", "sample_world"]
