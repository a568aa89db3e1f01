"""TorchRL's ``PettingZooWrapper`` over our envs, with the one setting it needs said up front.

    from fiveplay_env.integrations.torchrl import torchrl_env

    env = torchrl_env("take5", num_players=4, parallel=True)     # or the AEC form (parallel=False)
    env = torchrl_env("five_alive", num_players=4)               # keep_eliminated=True is set for you
    td = env.rollout(300, break_when_any_done=False)

TorchRL's wrapper runs on the envs as they are (``PettingZooWrapper(env, use_mask=True)``), with one
exception: its AEC form reads every possible agent's rewards and infos at every step, while PettingZoo
removes an eliminated player from ``agents`` after its dead step, so on plain 5 Alive TorchRL fails at
the first elimination, deep inside its random policy ("invalid multinomial distribution"). An env
constructed with ``keep_eliminated=True`` keeps eliminated players in ``agents`` (never selected,
all-zero mask) until the game ends. ``torchrl_env(game, ...)`` sets it for the games that eliminate
players, and ``check_env(env)`` (which ``torchrl_env`` calls on an env you built) refuses an env
without it, saying so: ``ValueError: five_alive (AEC) under TorchRL: pass keep_eliminated=True ...``.

Needs ``torchrl`` (the ``clients`` extra); without it an ``ImportError`` names the extra.
"""
from __future__ import annotations

from typing import Any

from fiveplay_env import games
from fiveplay_env.core.aec import CardGameAEC


def eliminates(env: Any) -> bool:
    """Whether this AEC env's game can eliminate players (its env class tells which seats are alive)."""
    base = getattr(env, "unwrapped", env)
    return isinstance(base, CardGameAEC) and type(base)._alive is not CardGameAEC._alive


def check_env(env: Any) -> None:
    """``ValueError`` if TorchRL's ``PettingZooWrapper`` cannot run ``env`` as built: an AEC env of a game
    that eliminates players, without ``keep_eliminated=True``."""
    base = getattr(env, "unwrapped", env)
    if eliminates(base) and not getattr(base, "_keep_eliminated", False):
        name = base.metadata.get("name", type(base).__name__)
        raise ValueError(f"{name} (AEC) under TorchRL: pass keep_eliminated=True (e.g. "
                         f"{name}.env(num_players={base.config.num_players}, keep_eliminated=True), or "
                         f"torchrl_env(...), which sets it): TorchRL reads every agent's rewards and infos at "
                         f"every step, and without it an eliminated player leaves agents (PettingZoo's rule), "
                         f"which TorchRL cannot follow")


def torchrl_env(env_or_game: Any, *, parallel: bool = False, seed: int | None = None, use_mask: bool = True,
                **config: Any) -> Any:
    """A TorchRL ``PettingZooWrapper`` over ``env_or_game``: an env you built (checked by ``check_env``),
    or a game's name and its config (``parallel=True``: the parallel env, where the game has one; an
    eliminating game's AEC env gets ``keep_eliminated=True`` unless you pass it). ``seed``, ``use_mask``:
    the wrapper's own arguments."""
    try:
        from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    except ModuleNotFoundError as exc:
        from fiveplay_env.core import extras

        raise extras.missing(exc, "fiveplay_env.integrations.torchrl") from exc
    if isinstance(env_or_game, str):
        game = games.get(env_or_game)
        if parallel:
            env = game.make_env(parallel=True, **config)
        else:
            env = game.make_env(**config)
            if eliminates(env) and "keep_eliminated" not in config:
                env = game.make_env(keep_eliminated=True, **config)
    else:
        if config or parallel:
            raise ValueError("torchrl_env: config fields and parallel= go with a game's name, not with an env "
                             f"(got an env and {sorted(config) + (['parallel'] if parallel else [])})")
        env = env_or_game
    check_env(env)
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="PettingZoo in TorchRL is tested using version")
        return PettingZooWrapper(env, use_mask=use_mask, seed=seed)
