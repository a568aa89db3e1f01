"""Deprecated: split into ``fiveplay_env.agents.five_alive.adapter`` and ``fiveplay_env.agents.five_alive.rollouts`` (0.2).
This alias warns and will be removed in 0.3."""
from __future__ import annotations

import warnings

from fiveplay_env.agents.five_alive.adapter import ALL_KINDS, CANONICAL_SEED, Conditioned  # noqa: F401
from fiveplay_env.agents.five_alive.rollouts import (  # noqa: F401
    SPECIAL_BITS, WIN_WEIGHT, attacker_excludes, rollout_card,
)
from fiveplay_env.agents.five_alive.rollouts import observe as five_alive_observe  # noqa: F401
from fiveplay_env.agents.five_alive.rollouts import prepare as five_alive_prepare  # noqa: F401
from fiveplay_env.agents.five_alive.rollouts import simulate as five_alive_simulate  # noqa: F401

warnings.warn("fiveplay_env.agents.five_alive_support moved to fiveplay_env.agents.five_alive.adapter and fiveplay_env.agents.five_alive.rollouts; "
              "the old name will be removed in 0.3", DeprecationWarning, stacklevel=2)
