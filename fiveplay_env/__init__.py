"""fiveplay: Take 5 and 5 Alive as exact, fast PettingZoo environments for multi-agent RL research.

    from fiveplay_env import take5_v0
    env = take5_v0.env(num_players=4)

Every game (built-in or registered) is in the table ``fiveplay_env.games``; ``make(name, ...)`` builds
its environment and ``GAMES`` maps each name to its PettingZoo entry module.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from fiveplay_env._layout import install_sibling_finder

install_sibling_finder(Path(__file__).parent)  # a checkout: fiveplay_env.agents is ../agents (fiveplay_env._layout)

from fiveplay_env import five_alive_v0, games, take5_v0
from fiveplay_env.core.errors import CheckpointError, IllegalActionError, ResetNeededError

__version__ = "0.2.0"  # the one place the version is written (pyproject.toml reads it)

GAMES = games.GameMapping(lambda g: g.env)
"""Game name -> its PettingZoo entry module (``take5_v0`` ...): a live view of ``fiveplay_env.games``."""


def make(game: str, parallel: bool = False, **config: Any):
    """An environment by game name: ``make("take5", num_players=4)`` (``parallel=True``: the parallel env
    of a simultaneous game)."""
    return games.get(game).make_env(parallel=parallel, **config)


from fiveplay_env.registration import register_envs  # noqa: E402

register_envs()  # gymnasium.make("fiveplay/Take5-v0"), "fiveplay/FiveAlive-v0" (fiveplay_env.registration)

__all__ = ["take5_v0", "five_alive_v0", "games", "make", "GAMES", "IllegalActionError", "ResetNeededError",
           "CheckpointError", "__version__"]
