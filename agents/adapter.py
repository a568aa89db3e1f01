"""Kept for old imports (0.2; removed in 0.3, see CHANGELOG.md): a game's adapter is now its definition,
``fiveplay_env.core.gamedef.GameDef`` (``fiveplay_env.games``), plus what agents add to it,
``fiveplay_env.agents.kit.AgentKit`` (``fiveplay_env.agents.games.kit``).

``Game`` is ``GameDef``; ``Metric``, ``placings`` and ``SEED_BOUND`` are re-exported from
``fiveplay_env.core.gamedef``. Determinization contract (``fiveplay_env.agents.base.InformationSet``):
``canonical_state(engine, player)`` puts the cards ``player`` cannot see in a canonical arrangement
that depends only on what the player knows; ``sample_engine(config, canonical, player, rng)`` draws a
world from it (the game's ``sample_world``) with the game's seed re-drawn from ``rng``.
"""
from __future__ import annotations

from fiveplay_env.core.gamedef import SEED_BOUND, GameDef, Metric, placings

Game = GameDef

__all__ = ["Game", "Metric", "SEED_BOUND", "placings"]
