"""What the learner knows about each game, one function per fact (numpy only: no torch, no registry).

| function               | the fact                                                                       |
|------------------------|--------------------------------------------------------------------------------|
| ``game_defaults``      | training defaults: ``reward_scale``, ``gamma``, the evaluation baselines        |
| ``best_heuristic``     | the strongest heuristic (the default training opponent)                         |
| ``default_arch``       | the network a game trains with unless told otherwise (``agents.learned.nets``)  |
| ``obs_scale_for``      | per-feature multipliers bringing an observation to roughly [0, 1]               |
| ``score_info``         | how a game's per-seat score reads (``ScoreInfo``: name, lower is better)        |
| ``game_facts``         | ``(num_players, observation size)`` of a config: what a checkpoint is checked against |
| ``check_compact_obs``  | whether a game and config have a compact observation (``ValueError`` if not)    |
| ``compact_layout``     | the compact observation's layout for a vector env of the game                   |
| ``adapt_observation``  | an observation of another player count, as a policy trained for k players reads it |

Everything else in ``agents.learned`` is written once for every game and asks these functions.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from agents import games


def game_defaults(game: str, config: dict[str, Any]) -> dict[str, Any]:
    """Per-game training defaults: ``reward_scale``, ``gamma`` and the baselines to evaluate against (the
    game's kit, ``agents.games.kit(game).training``)."""
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
    """``ValueError`` unless ``game`` under ``config`` has a compact observation (Take 5 without a draft:
    ``fiveplay_env.take5.compact``)."""
    if game != "take5":
        raise ValueError(f"compact_obs: expected game 'take5' (the compact observation is Take 5's), got {game!r}")
    if config.get("draft"):
        raise ValueError("compact_obs: expected draft=False (the compact observation does not encode the "
                         "draft's public hands), got config draft=True")


def compact_layout(game: str, env: Any) -> Any:
    """The compact observation's layout (``fiveplay_env.take5.compact.CompactTake5Layout``) of the games of
    ``env``, a batched vector env made with ``compact_obs=True``."""
    check_compact_obs(game, {})
    from fiveplay_env.take5.compact import layout

    return layout(env.num_players, int(env.engine.config.end_score))


def adapt_take5_observation(obs: np.ndarray, n: int, k: int) -> np.ndarray:
    """Take 5 observations ``[B, 848 + 3n + ...]`` of n players rewritten for a k-player network: scores,
    round penalties (relative seats: self first) kept for self and the next k-1 seats or zero-padded;
    the seat one-hot mapped to ``min(seat, k-1)``; phase and tricks kept; with ``draft=True``, the other
    players' public hands (the trailing ``others`` piece) are dropped, as the shipped policies were
    trained without a draft."""
    from fiveplay_env.take5 import observation as t5obs

    S = t5obs.SCORES
    if n == k:
        size = t5obs.observation_size(k)
        return obs if obs.shape[1] == size else obs[:, :size]  # a draft's trailing public hands dropped
    B = obs.shape[0]
    out = np.zeros((B, t5obs.observation_size(k)), np.float32)
    out[:, :S] = obs[:, :S]
    m = min(n, k)
    out[:, S:S + m] = obs[:, S:S + m]                     # scores
    out[:, S + k:S + k + m] = obs[:, S + n:S + n + m]     # round penalties
    seat = obs[:, S + 2 * n:S + 3 * n].argmax(axis=1)
    out[np.arange(B), S + 2 * k + np.minimum(seat, k - 1)] = 1.0
    out[:, S + 3 * k:] = obs[:, S + 3 * n:S + 3 * n + 4]  # phase (3), tricks (1); a draft's public hands dropped
    return out


def five_alive_seat_map(n: int, k: int) -> list[tuple[int, int]]:
    """``(seat in n, seat in k)`` pairs of relative seats that a k-player 5 Alive network reads from an
    n-player observation: the observer and the next seats clockwise at the front, the previous seats
    counter-clockwise at the back (so the neighbours on both sides keep their places); with n < k the
    seats in between are left empty (zero: they read as eliminated players), with n > k the seats
    farthest away are dropped."""
    ahead = min(n, k // 2 + 1) if n > k else n // 2 + 1
    behind = min(n - ahead, k - ahead)
    return [(i, i) for i in range(ahead)] + [(n - j, k - j) for j in range(behind, 0, -1)]


def adapt_five_alive_observation(obs: np.ndarray, n: int, k: int) -> np.ndarray:
    """5 Alive observations ``[B, 80 + 3n]`` of n players rewritten for a k-player network: the
    seat-independent part kept, each per-seat piece (turn, lives, hand sizes) through
    ``five_alive_seat_map``."""
    from fiveplay_env.five_alive import observation as faobs

    S = faobs.SEATS
    if n == k:
        return obs
    out = np.zeros((obs.shape[0], faobs.observation_size(k)), np.float32)
    out[:, :S] = obs[:, :S]
    for piece in range(3):  # turn, lives, hand_sizes
        for i, j in five_alive_seat_map(n, k):
            out[:, S + piece * k + j] = obs[:, S + piece * n + i]
    return out


def adapt_observation(game: str, obs: np.ndarray, num_players: int, obs_dim: int) -> np.ndarray:
    """Observations ``obs`` [B, D] as a policy trained for ``num_players`` players (observations of
    ``obs_dim`` floats) reads them: Take 5 observations of another player count (or with a draft's
    public hands) through ``adapt_take5_observation`` (``ValueError`` for a size no Take 5 observation
    has), 5 Alive observations of another player count through ``adapt_five_alive_observation``;
    anything else as it is (the network's shape check then names a mismatch)."""
    if game == "take5" and obs.ndim == 2 and obs.shape[1] != obs_dim:
        from fiveplay_env.take5 import observation as t5obs

        n, _ = t5obs.players_of_size(obs.shape[1])  # ValueError for a size no Take 5 observation has
        return adapt_take5_observation(obs, n, int(num_players))
    if game == "five_alive" and obs.ndim == 2 and obs.shape[1] != obs_dim:
        from fiveplay_env.five_alive import observation as faobs

        extra = obs.shape[1] - faobs.SEATS
        if extra <= 0 or extra % 3:
            raise ValueError(f"five_alive observation: expected 80 + 3n floats, got {obs.shape[1]}")
        return adapt_five_alive_observation(obs, extra // 3, int(num_players))
    return obs
