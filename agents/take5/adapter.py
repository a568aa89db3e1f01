"""Take 5's definition for agents and tournaments: kept for old imports (0.2; removed in 0.3).
The definition is ``fiveplay_env.take5.GAME`` (results in ``fiveplay_env.take5.results``, determinization in
``fiveplay_env.take5.determinize``); what agents add to it is ``fiveplay_env.agents.take5.KIT``."""
from __future__ import annotations

from fiveplay_env.take5 import GAME
from fiveplay_env.take5.determinize import canonical, sample_world
from fiveplay_env.take5.results import results

__all__ = ["GAME", "canonical", "results", "sample_world"]
