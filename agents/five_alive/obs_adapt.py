"""5 Alive observations as a network trained for another player count reads them (``fiveplay_env.agents.five_alive.KIT``'s
``adapt_observation``; the shipped policies play 2..6 players this way, ``fiveplay_env.agents.learned.pretrained``)."""
from __future__ import annotations

import numpy as np

from fiveplay_env.five_alive import observation as faobs


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
    S = faobs.SEATS
    if n == k:
        return obs
    out = np.zeros((obs.shape[0], faobs.observation_size(k)), np.float32)
    out[:, :S] = obs[:, :S]
    for piece in range(3):  # turn, lives, hand_sizes
        for i, j in five_alive_seat_map(n, k):
            out[:, S + piece * k + j] = obs[:, S + piece * n + i]
    return out


def adapt_observation(obs: np.ndarray, num_players: int) -> np.ndarray:
    """Observations ``obs`` [B, 80 + 3n] of any 5 Alive player count as a network trained for
    ``num_players`` players reads them (``ValueError`` for a size no 5 Alive observation has)."""
    extra = obs.shape[1] - faobs.SEATS
    if extra <= 0 or extra % 3:
        raise ValueError(f"five_alive observation: expected 80 + 3n floats, got {obs.shape[1]}")
    return adapt_five_alive_observation(obs, extra // 3, int(num_players))


__all__ = ["adapt_five_alive_observation", "adapt_observation", "five_alive_seat_map"]
