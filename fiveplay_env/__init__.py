"""fiveplay: Take 5 and 5 Alive as exact, fast PettingZoo environments for multi-agent RL research.

    from fiveplay_env import take5_v0
    env = take5_v0.env(num_players=4)
"""
from __future__ import annotations

from typing import Any

from fiveplay_env import five_alive_v0, take5_v0
from fiveplay_env.core.errors import CheckpointError, IllegalActionError, ResetNeededError

__version__ = "0.2.0"  # the one place the version is written (pyproject.toml reads it)

GAMES = {"take5": take5_v0, "five_alive": five_alive_v0}


def make(game: str, parallel: bool = False, **config: Any):
    """An environment by game name: ``make("take5", num_players=4)``."""
    if game not in GAMES:
        raise ValueError(f"game: expected one of {sorted(GAMES)}, got {game!r}")
    mod = GAMES[game]
    if parallel:
        if not hasattr(mod, "parallel_env"):
            raise ValueError(f"parallel: {game} has no parallel env (it is turn-based); use parallel=False")
        return mod.parallel_env(**config)
    return mod.env(**config)


from fiveplay_env.registration import register_envs  # noqa: E402

register_envs()  # gymnasium.make("fiveplay/Take5-v0"), "fiveplay/FiveAlive-v0" (fiveplay_env.registration)

__all__ = ["take5_v0", "five_alive_v0", "make", "GAMES", "IllegalActionError", "ResetNeededError", "CheckpointError", "__version__"]
