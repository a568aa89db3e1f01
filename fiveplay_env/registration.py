"""Gymnasium ids for the single-agent view of each game (``SingleAgentEnv``), registered when
``fiveplay_env`` is imported:

    import gymnasium, fiveplay_env  # noqa: F401   (or gymnasium.make("fiveplay_env:fiveplay/Take5-v0", ...))
    env = gymnasium.make("fiveplay/Take5-v0", opponents="take5-safest", num_players=4, mode="round")
    env = gymnasium.make("fiveplay/FiveAlive-v0", opponents="five-alive-attacker", num_players=4)

    from stable_baselines3.common.env_util import make_vec_env
    venv = make_vec_env("fiveplay/Take5-v0", n_envs=4, env_kwargs={"num_players": 4})

Keyword arguments are ``SingleAgentEnv``'s (``opponents``, ``seat``, ``render_mode``,
``illegal_action_penalty``) and the game's config fields.

One default differs from ``SingleAgentEnv``'s: ``illegal_action_penalty``. Gymnasium's and SB3's
``check_env`` (and any agent without masks) step unmasked random actions, so the registered ids end the
episode on an illegal action with a reward worse than any game result (``ILLEGAL_ACTION_PENALTY``:
-200 in Take 5, whose scores are bull heads; -10 in 5 Alive, whose results are +-1 and lives) and
``info["illegal_action"]``, instead of raising. Pass ``illegal_action_penalty=None`` to raise
``IllegalActionError`` as the class does, or your own value. Masked learners (``MaskablePPO``, which
reads ``action_masks()``) never send an illegal action.
"""
from __future__ import annotations

import gymnasium

ENTRY_POINT = "fiveplay_env.core.single_agent:SingleAgentEnv"

ILLEGAL_ACTION_PENALTY = {"take5": -200.0, "five_alive": -10.0}
"""The registered ids' default ``illegal_action_penalty`` per game (see the module docstring)."""

IDS = {"fiveplay/Take5-v0": "take5", "fiveplay/FiveAlive-v0": "five_alive"}
"""Gymnasium id -> game name."""


def register_envs() -> None:
    """Register every id of ``IDS`` with Gymnasium (once; later calls change nothing)."""
    for env_id, game in IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=ENTRY_POINT,
                               kwargs={"game": game, "illegal_action_penalty": ILLEGAL_ACTION_PENALTY[game]})
