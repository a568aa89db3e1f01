"""Deprecated: moved to ``agents.take5.heuristics`` (0.2). This alias warns and will be removed in 0.3."""
from __future__ import annotations

import warnings

from agents.take5.heuristics import *  # noqa: F401,F403

warnings.warn("agents.take5_heuristics moved to agents.take5.heuristics; the old name will be removed in 0.3",
              DeprecationWarning, stacklevel=2)
