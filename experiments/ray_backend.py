"""Moved: the Ray backend of the tournament is ``fiveplay_env.experiments.tournament.ray_tasks`` (``RayBackend``).

This module re-exports its names (``RayPool`` is ``RayBackend``) and warns once on import; it is removed
in 0.3 (CHANGELOG.md).
"""
from __future__ import annotations

import warnings

from fiveplay_env.experiments.tournament.ray_tasks import (BATCHES_PER_SLOT, DEFAULT_MAX_BATCH, RayBackend, RayPool, connect,
                                              default_batch_size)

warnings.warn("fiveplay_env.experiments.ray_backend moved to fiveplay_env.experiments.tournament.ray_tasks (RayPool is now RayBackend, "
              "built from a WorkerJob); this alias will be removed in 0.3", DeprecationWarning, stacklevel=2)

__all__ = ["BATCHES_PER_SLOT", "DEFAULT_MAX_BATCH", "RayBackend", "RayPool", "connect", "default_batch_size"]
