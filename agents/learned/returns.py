"""Returns of the collector's trajectories: GAE(gamma, lambda) along each (slot, seat) pair (numpy only).

    adv = gae(rollout, gamma, lam)         # float32 [R, B]; the value targets are adv + rollout.val

A rollout's rows (``fiveplay_env.agents.learned.collector.Rollout``) interleave the trajectories of a slot's seats;
row r's successor on its trajectory is the next valid row of the same (slot, seat). Walking the rows
newest first:

    delta_t = rew_t + gamma * V_{t+1} * (1 - done_t) - V_t
    A_t     = delta_t + gamma * lam * A_{t+1} * (1 - done_t)

A held-back row (``pending``: its reward is not complete yet) gets no advantage of its own (0, it is
trained on in the next rollout) but its value bootstraps the rows before it; a trajectory with no
later row in this rollout bootstraps from 0 (its last row is the held-back one, or its game ended).

``explained_variance(returns, values)``: how much of the returns' variance the value head explains (the
updates' diagnostic, PPO's and expert iteration's).
"""
from __future__ import annotations

from typing import Any

import numpy as np


def explained_variance(returns: np.ndarray, values: np.ndarray) -> float:
    """``1 - Var(returns - values) / Var(returns)``; NaN when the returns do not vary."""
    var = float(np.var(returns))
    return float(1 - np.var(returns - values) / var) if var > 0 else float("nan")


def gae(rollout: Any, gamma: float, lam: float) -> np.ndarray:
    """float32 [R, B]: the advantages of ``rollout`` (``valid``, ``seat``, ``val``, ``rew``, ``done``,
    ``pending`` [R, B]) by GAE(``gamma``, ``lam``) along each (slot, seat) trajectory."""
    valid, seat, val, rew, done, pend = (rollout.valid, rollout.seat, rollout.val, rollout.rew, rollout.done,
                                         rollout.pending)
    R, B = valid.shape
    n = int(seat.max()) + 1 if seat.size else 1
    adv = np.zeros((R, B), np.float32)
    next_val = np.zeros((B, n), np.float32)
    next_adv = np.zeros((B, n), np.float32)
    for r in range(R - 1, -1, -1):
        i = np.flatnonzero(valid[r])
        if not i.size:
            continue
        s = seat[r, i]
        v = val[r, i]
        p = pend[r, i]
        notdone = (~done[r, i]).astype(np.float32)
        delta = rew[r, i] + gamma * next_val[i, s] * notdone - v
        a = delta + gamma * lam * next_adv[i, s] * notdone
        a = np.where(p, 0.0, a).astype(np.float32)
        adv[r, i] = a
        next_val[i, s] = v
        next_adv[i, s] = a
    return adv
