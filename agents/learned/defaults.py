"""What the learner knows about each game, one function per fact (numpy only: no torch, no registry).

| function               | the fact                                                                       |
|------------------------|--------------------------------------------------------------------------------|
| ``game_defaults``      | training defaults: ``reward_scale``, ``gamma``, the evaluation baselines        |
| ``best_heuristic``     | the strongest heuristic (the default training opponent)                         |
| ``default_arch``       | the network a game trains with unless told otherwise (``fiveplay_env.agents.learned.nets``)  |
| ``obs_scale_for``      | per-feature multipliers bringing an observation to roughly [0, 1]               |
| ``score_info``         | how a game's per-seat score reads (``ScoreInfo``: name, lower is better)        |
| ``game_facts``         | ``(num_players, observation size)`` of a config: what a checkpoint is checked against |
| ``check_compact_obs``  | whether a game and config have a compact observation (``GameDef.compact``;      |
|                        | ``ValueError`` if not)                                                          |
| ``compact_layout``     | the compact observation's layout for a vector env of the game                   |
| ``adapt_observation``  | an observation of another player count, as a policy trained for k players reads |
|                        | it (the kit's ``adapt_observation``)                                            |

Everything else in ``fiveplay_env.agents.learned`` is written once for every game and asks these functions, which
read the game's declared facts (``GameDef``, ``AgentKit``) and never its name.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fiveplay_env.agents import games


def game_defaults(game: str, config: dict[str, Any]) -> dict[str, Any]:
    """Per-game training defaults: ``reward_scale``, ``gamma`` and the baselines to evaluate against (the
    game's kit, ``fiveplay_env.agents.games.kit(game).training``)."""
    return dict(games.kit(game).training)


def best_heuristic(game: str) -> str:
    """The strongest heuristic of a game (its kit's ``baseline``): the default training opponent."""
    return games.kit(game).baseline


def default_arch(game: str) -> str:
    """The architecture a game trains with unless told otherwise (its kit's ``network``)."""
    return games.kit(game).network


def obs_scale_for(game: str, num_players: int, obs_dim: int) -> list[float] | None:
    """Per-feature multipliers that bring a game's observation to roughly [0, 1] (None: as it is): the
    kit's ``obs_scale`` (5 Alive: its raw counts divided by their usual maxima)."""
    return games.kit(game).obs_scale(num_players, obs_dim)


@dataclass(frozen=True)
class ScoreInfo:
    """How a game's per-seat score reads: its name and whether lower is better."""

    name: str
    lower_is_better: bool


def score_info(game: str) -> ScoreInfo:
    """The game's score metric (``GameDef.score``): Take 5 ``score`` (final bull heads, lower is better),
    5 Alive ``lives`` (left at the end, higher is better)."""
    m = games.get_game(game).score_metric
    return ScoreInfo(m.name, m.lower_is_better)


def game_facts(game: str, config: dict[str, Any]) -> tuple[int, int] | None:
    """``(num_players, observation size)`` of ``game`` under ``config`` (``ValueError`` if the config is
    invalid or the game unknown)."""
    g = games.get_game(game)
    cfg = g.make_config(config)
    return cfg.num_players, g.observation_size(cfg)


def check_compact_obs(game: str, config: dict[str, Any]) -> None:
    """``ValueError`` unless ``game`` under ``config`` has a compact observation: the game declares one
    (``GameDef.compact``: Take 5's ``fiveplay_env.take5.compact``) and its layout accepts the config (Take 5:
    not with a draft)."""
    g = games.get_game(game)
    if g.compact is None:
        have = [name for name, other in games.GAMES.items() if other.compact]
        raise ValueError(f"compact_obs: expected game {' or '.join(map(repr, have)) or 'none'} (the games that declare "
                         f"a compact observation, GameDef.compact), got {game!r}")
    try:
        cfg = g.make_config(config)
    except ValueError:
        return  # a bad config is named where the game is built
    try:
        g.compact_layout(cfg)
    except ValueError as exc:
        raise ValueError(f"compact_obs: {str(exc).removeprefix('compact: ')}") from exc


def compact_layout(game: str, env: Any) -> Any:
    """The compact observation's layout (``GameDef.compact_layout``) of the games of ``env``, a batched vector
    env made with ``compact_obs=True``."""
    g = games.get_game(game)
    check_compact_obs(game, {})
    return g.compact_layout(env.engine.config)


def adapt_observation(game: str, obs: np.ndarray, num_players: int, obs_dim: int) -> np.ndarray:
    """Observations ``obs`` [B, D] as a policy trained for ``num_players`` players (observations of
    ``obs_dim`` floats) reads them: observations of another width through the game's kit
    (``AgentKit.adapt_observation``: Take 5 and 5 Alive adapt other player counts, ``ValueError`` for a
    width the game never has); anything else as it is (the network's shape check then names a mismatch)."""
    adapt = games.kit(game).adapt_observation
    if adapt is not None and obs.ndim == 2 and obs.shape[1] != obs_dim:
        return adapt(obs, int(num_players))
    return obs


def __getattr__(name: str) -> Any:
    """An observation adapter that moved to its game's kit module (``adapt_take5_observation``,
    ``five_alive_seat_map``, ``adapt_five_alive_observation``: ``agents/<game>/obs_adapt.py``), by name."""
    import importlib

    for game in games.GAMES:
        adapt = games.kit(game).adapt_observation
        mod = importlib.import_module(adapt.__module__) if adapt is not None else None
        if mod is not None and name in getattr(mod, "__all__", ()):
            return getattr(mod, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
