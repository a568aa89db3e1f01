"""Deprecated: moved to ``fiveplay_env.agents.five_alive.heuristics`` (0.2). This alias warns and will be removed in 0.3."""
from __future__ import annotations

import warnings

from fiveplay_env.agents.five_alive.heuristics import *  # noqa: F401,F403

warnings.warn("fiveplay_env.agents.five_alive_heuristics moved to fiveplay_env.agents.five_alive.heuristics; the old name will be removed in 0.3",
              DeprecationWarning, stacklevel=2)
