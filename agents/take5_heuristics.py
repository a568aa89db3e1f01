"""Deprecated: moved to ``fiveplay_env.agents.take5.heuristics`` (0.2). This alias warns and will be removed in 0.3."""
from __future__ import annotations

import warnings

from fiveplay_env.agents.take5.heuristics import *  # noqa: F401,F403

warnings.warn("fiveplay_env.agents.take5_heuristics moved to fiveplay_env.agents.take5.heuristics; the old name will be removed in 0.3",
              DeprecationWarning, stacklevel=2)
