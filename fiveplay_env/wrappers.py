"""Opt-in wrappers: illegal-action penalties (and, with the training extra, single-agent views)."""
from fiveplay_env.core.wrappers import IllegalActionPenalty, IllegalActionPenaltyParallel

__all__ = ["IllegalActionPenalty", "IllegalActionPenaltyParallel"]
