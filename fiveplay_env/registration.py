"""Gymnasium ids for the single-agent view of each game (``SingleAgentEnv``), registered when
``fiveplay_env`` is imported (one per game of ``fiveplay_env.games`` that declares a ``gym_id``, games
registered later included):

    import gymnasium, fiveplay_env  # noqa: F401
    env = gymnasium.make("fiveplay/Take5-v0", opponents="take5-safest", num_players=4, mode="round")
    env = gymnasium.make("fiveplay/FiveAlive-v0", opponents="five-alive-attacker", num_players=4)

    # without importing fiveplay_env: an id's "module:" prefix imports the module first (gymnasium 1.x);
    # gymnasium < 1.0 also registers the ids on its own import (entry point gymnasium.envs: gymnasium_plugin)
    env = gymnasium.make("fiveplay_env:fiveplay/Take5-v0", opponents="take5-safest")

    from stable_baselines3.common.env_util import make_vec_env
    venv = make_vec_env("fiveplay/Take5-v0", n_envs=4, env_kwargs={"num_players": 4})

Keyword arguments are ``SingleAgentEnv``'s (``opponents``, ``seat``, ``render_mode``,
``illegal_action_penalty``) and the game's config fields.

One default differs from ``SingleAgentEnv``'s: ``illegal_action_penalty``. Gymnasium's and SB3's
``check_env`` (and any agent without masks) step unmasked random actions, so the registered ids end the
episode on an illegal action with a reward worse than any game result (the game definition's
``illegal_action_penalty``: -200 in Take 5, whose scores are bull heads; -10 in 5 Alive, whose results
are +-1 and lives) and ``info["illegal_action"]``, instead of raising. Pass ``illegal_action_penalty=None``
to raise ``IllegalActionError`` as the class does, or your own value. Masked learners (``MaskablePPO``,
which reads ``action_masks()``) never send an illegal action.
"""
from __future__ import annotations

# the registry module itself, not the names gymnasium's __init__ re-exports: gymnasium < 1.0 runs its
# entry-point plugins (gymnasium_plugin) from inside its own import, before those names exist
from gymnasium.envs.registration import register as _gym_register
from gymnasium.envs.registration import registry as _gym_registry

from fiveplay_env import games
from fiveplay_env.core.gamedef import GameDef

ENTRY_POINT = "fiveplay_env.single_agent:SingleAgentEnv"


class _ById(games.GameMapping):
    """``{gym id: value}`` over the games that declare a Gymnasium id (a live view)."""

    def __getitem__(self, env_id: str) -> object:
        for g in games.table().values():
            if g.gym_id == env_id:
                return self._view(g)
        raise KeyError(env_id)

    def __iter__(self):  # type: ignore[override]
        return iter(sorted(g.gym_id for g in games.table().values() if g.gym_id))

    def __len__(self) -> int:
        return sum(1 for g in games.table().values() if g.gym_id)


IDS = _ById(lambda g: g.name)
"""Gymnasium id -> game name (a live view of the table)."""

ILLEGAL_ACTION_PENALTY = games.GameMapping(lambda g: g.illegal_action_penalty)
"""The registered ids' default ``illegal_action_penalty`` per game (see the module docstring)."""


def _register(game: GameDef) -> None:
    if game.gym_id and game.gym_id not in _gym_registry:
        _gym_register(id=game.gym_id, entry_point=ENTRY_POINT,
                      kwargs={"game": game.name, "illegal_action_penalty": game.illegal_action_penalty})


_registered = False


def register_envs() -> None:
    """Register the Gymnasium id of every game in the table, now and as games join (once; later calls
    change nothing)."""
    global _registered
    if not _registered:
        _registered = True
        games.on_register(_register)


def gymnasium_plugin() -> None:
    """The ``gymnasium.envs`` entry point (``pyproject.toml``): gymnasium < 1.0 calls it on ``import
    gymnasium``, so ``gymnasium.make("fiveplay/Take5-v0")`` works with no ``import fiveplay_env``.
    Gymnasium 1.x no longer reads that group; there, ``gymnasium.make("fiveplay_env:fiveplay/Take5-v0")``
    imports the package first (the ``module:`` prefix of an id), or ``import fiveplay_env`` does it."""
    register_envs()
