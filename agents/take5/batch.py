"""take5-safest on whole batches of observations, with numpy and no Python loop over games.

``safest_actions(observations, masks)`` returns, row by row, exactly the action of
``fiveplay_env.agents.take5.heuristics.SafestAgent.act`` (checked decision by decision over many seeded games by
``tests/agents/test_take5_batch.py``): the agent's ``act_batch`` uses it, so training against the
heuristic and evaluating against it cost a few array operations per step instead of one Python
decode per game. It reads the observation's documented layout (``fiveplay_env.take5.observation``)
and the legal mask, nothing else.

| situation             | action (as ``SafestAgent``)                                                  |
|-----------------------|------------------------------------------------------------------------------|
| one legal action      | that action                                                                  |
| row choice            | 104 + the cheapest row (fewest bull heads, then fewer cards, then lowest)   |
| draft                 | the legal pool card with the fewest bull heads, then the lowest number       |
| play                  | the legal card of lowest ``round(expected cost, 9)``, then smallest gap      |
|                       | (200 for a too-low card), then lowest number (``expected_costs``)            |
"""
from __future__ import annotations

from math import comb

import numpy as np

from fiveplay_env.take5.observation import HAND, ROW_STATS, SCORES, SEEN, players_of_size
from fiveplay_env.take5.state import ACTION_ROW0, BULLHEADS, NUM_CARDS, NUM_ROWS, ROW_LIMIT

_PHASE_DRAFT, _PHASE_ROW = 0, 2
_IDS = np.arange(NUM_CARDS)
_BULL_F = BULLHEADS[:NUM_CARDS].astype(np.float64)


def _binomial_pmf_tables(opponents: int) -> np.ndarray:
    """``comb(opponents, k)`` for k = 0..ROW_LIMIT (0 beyond ``opponents``), float64."""
    return np.array([comb(opponents, k) if k <= opponents else 0 for k in range(ROW_LIMIT + 1)], np.float64)


def safest_actions(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """int64 [B]: take5-safest's action for each row of ``observations`` [B, size] and ``masks``
    [B, 109] (``ValueError`` if the observation size is not a Take 5 one)."""
    obs = np.asarray(observations)
    legal = np.asarray(masks) != 0
    if obs.ndim != 2:
        raise ValueError(f"observation: expected a batch of Take 5 observations [B, size], got shape {obs.shape}")
    B, size = obs.shape
    n, _ = players_of_size(size)  # ValueError naming the sizes a Take 5 observation has
    out = np.empty(B, np.int64)
    if B == 0:
        return out
    phase_v = obs[:, SCORES + 3 * n:SCORES + 3 * n + 3]
    phase = np.where(phase_v.max(axis=1) > 0.5, phase_v.argmax(axis=1), -1)
    count = legal.sum(axis=1)
    out[:] = legal.argmax(axis=1)  # the one legal action; the first legal one when no card is legal in play
    stats = obs[:, ROW_STATS:ROW_STATS + 3 * NUM_ROWS].astype(np.float64).reshape(B, NUM_ROWS, 3)
    ends = np.rint(stats[:, :, 0] * 104.0).astype(np.int64) - 1       # last card id of each row
    lens = np.rint(stats[:, :, 1] * 5.0).astype(np.int64)
    bulls = np.rint(stats[:, :, 2] * 10.0).astype(np.int64)
    # row choice: the cheapest row by (bull heads, length, index)
    rc = np.flatnonzero((phase == _PHASE_ROW) & (count > 1))
    if rc.size:
        key = bulls[rc] * 64 + lens[rc] * 8 + np.arange(NUM_ROWS)
        out[rc] = ACTION_ROW0 + key.argmin(axis=1)
    # draft: fewest bull heads, then the lowest number, among the legal pool cards
    dr = np.flatnonzero((phase == _PHASE_DRAFT) & (count > 1))
    if dr.size:
        key = np.where(legal[dr, :NUM_CARDS], BULLHEADS[:NUM_CARDS] * 128 + _IDS, 1 << 30)
        out[dr] = key.argmin(axis=1)
    # play
    pl = np.flatnonzero((phase != _PHASE_ROW) & (phase != _PHASE_DRAFT) & (count > 1)
                        & legal[:, :NUM_CARDS].any(axis=1))
    if pl.size:
        out[pl] = _safest_cards(obs[pl], legal[pl, :NUM_CARDS], ends[pl], lens[pl], bulls[pl], n - 1)
    return out


def _safest_cards(obs: np.ndarray, hand: np.ndarray, ends: np.ndarray, lens: np.ndarray, bulls: np.ndarray,
                  opponents: int) -> np.ndarray:
    """The play-phase choice for rows with a legal card (``hand`` [m, 104] bool: the legal cards).

    Costs are computed for the legal cards only (at most 10 a row, gathered in id order), not the
    whole 104-card grid: the same numbers at a tenth of the work."""
    known = (obs[:, HAND:HAND + NUM_CARDS] > 0.5) | (obs[:, SEEN:SEEN + NUM_CARDS] > 0.5)
    return safest_cards_known(known, hand, ends, lens, bulls, opponents)


def safest_cards_known(known: np.ndarray, hand: np.ndarray, ends: np.ndarray, lens: np.ndarray, bulls: np.ndarray,
                       opponents: int) -> np.ndarray:
    """take5-safest's card for each row from what its player knows (``known`` bool [m, 104]: its own hand and
    every public card; the rest is unseen), its ``hand`` [m, 104] bool (at least one card a row) and the
    rows' ends, lengths and bull heads [m, 4]: the batched search's opponent model reads it on the
    engine's arrays, without building observations."""
    m = known.shape[0]
    unseen = ~known
    u = unseen.sum(axis=1).astype(np.float64)[:, None]                    # [m, 1]
    cum = np.zeros((m, NUM_CARDS + 1), np.int64)
    np.cumsum(unseen, axis=1, out=cum[:, 1:])                             # cum[k] = unseen ids < k
    k = int(hand.sum(axis=1).max())
    cards = np.argsort(~hand, axis=1, kind="stable")[:, :k]              # [m, k] legal cards in id order first
    valid = np.take_along_axis(hand, cards, axis=1)
    below_c = np.take_along_axis(cum, cards, axis=1)                      # bisect_left(unseen, c)
    # target row: the largest row end below the card (-1: too low)
    below = ends[:, None, :] < cards[:, :, None]                          # [m, k, 4]
    cand = np.where(below, ends[:, None, :], -2)
    trow = cand.argmax(axis=2)
    tend = np.take_along_axis(ends, trow, axis=1)                          # [m, k]
    ok = below.any(axis=2)
    tlen = np.take_along_axis(lens, trow, axis=1)
    tbull = np.take_along_axis(bulls, trow, axis=1).astype(np.float64)
    lo = np.take_along_axis(cum, np.clip(tend + 1, 0, NUM_CARDS), axis=1)  # bisect_right(unseen, end)
    safe_u = np.where(u > 0, u, 1.0)
    p = np.where(u > 0, (below_c - lo) / safe_u, 0.0)
    need = ROW_LIMIT - tlen
    coef = _binomial_pmf_tables(opponents)[np.clip(need, 0, ROW_LIMIT)]
    valid_need = (need >= 0) & (need <= opponents)
    # the same arithmetic as _tail_probability: comb * p ** k * (1 - p) ** (m - k), in that order
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):  # masked out by valid_need
        prob = np.where(valid_need, coef * p ** need.astype(np.float64) * (1.0 - p) ** (opponents - need).astype(np.float64), 0.0)
    cost_ok = prob * (tbull + 1.5 * need)
    q = np.where(u > 0, below_c / safe_u, 0.0)
    min_bulls = bulls.min(axis=1).astype(np.float64)[:, None]
    cost_low = min_bulls * (1.0 - q) ** float(opponents)
    cost = np.where(ok, cost_ok, cost_low)
    gap = np.where(ok, cards - tend, 200)
    key1 = np.where(valid, _py_round9(cost), np.inf)
    best = key1.min(axis=1, keepdims=True)
    tie = valid & (key1 == best)
    gap2 = np.where(tie, gap, 1 << 30)
    tie &= gap2 == gap2.min(axis=1, keepdims=True)
    return np.take_along_axis(cards, tie.argmax(axis=1)[:, None], axis=1)[:, 0]   # the lowest number among ties


def _py_round9(x: np.ndarray) -> np.ndarray:
    """``round(v, 9)`` of Python for every element (correctly rounded, as the scalar agent does)."""
    r = np.round(x, 9)
    # numpy rounds by scaling, which can differ from Python's correctly rounded result in the last place
    # near a tie; redo those few elements with Python's round
    near = np.abs(x * 1e9 - np.floor(x * 1e9) - 0.5) < 1e-6
    if near.any():
        idx = np.nonzero(near)
        r[idx] = [round(float(v), 9) for v in x[idx]]
    return r
