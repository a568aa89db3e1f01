"""Tianshou (2.x) over the fiveplay AEC environments: ``tianshou_env(game, **config)``.

    from tianshou.env import DummyVectorEnv
    from fiveplay_env.integrations.tianshou import tianshou_env
    envs = DummyVectorEnv([lambda: tianshou_env("five_alive", num_players=4) for _ in range(8)])

It is Tianshou's own recipe (``tianshou.env.PettingZooEnv(aec_env)``) with one addition:
``fiveplay_env.wrappers.SkipDeadSteps`` under it, because Tianshou ends an episode when the next
selected agent is terminated, and in 5 Alive an eliminated player is selected once more (PettingZoo's
dead step) long before the game ends. With it, episodes run to the end of the game and the per-agent
reward vectors Tianshou sums give each player's full return (eliminated players included). Infos have
the same keys and shapes at every step (the games' ``info_of``), as Tianshou's replay buffer needs.
"""
from __future__ import annotations

from typing import Any

from fiveplay_env.core.dead_steps import SkipDeadSteps


def tianshou_env(game: str, **config: Any) -> Any:
    """A ``tianshou.env.PettingZooEnv`` playing ``game`` (``"take5"`` or ``"five_alive"``) under the
    game's config fields ``**config`` (and ``render_mode``). Raises ``ImportError`` without Tianshou,
    naming the extra that installs it."""
    try:
        from tianshou.env.pettingzoo_env import PettingZooEnv
    except ModuleNotFoundError as exc:
        from fiveplay_env.core import extras

        raise extras.missing(exc, "fiveplay_env.integrations.tianshou") from exc

    from fiveplay_env import make

    return PettingZooEnv(SkipDeadSteps(make(game, **config)))
