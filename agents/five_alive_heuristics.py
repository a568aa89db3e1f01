"""Deprecated: moved to ``agents.five_alive.heuristics`` (0.2). This alias warns and will be removed in 0.3."""
from __future__ import annotations

import warnings

from agents.five_alive.heuristics import *  # noqa: F401,F403

warnings.warn("agents.five_alive_heuristics moved to agents.five_alive.heuristics; the old name will be removed in 0.3",
              DeprecationWarning, stacklevel=2)
