"""take5-safest in JAX, for opponents inside the JAX rollouts (``fiveplay_env.agents.take5.KIT.jax_heuristics``): equal,
decision by decision, to its batched numpy twin ``fiveplay_env.agents.take5.batch.safest_actions``
(``tests/learning/test_jax_train.py`` replays seeded games through both).

    act = safest(num_players)      # act(obs float32 [B, D], mask bool [B, A], key) -> int32 [B]

take5-safest ranks the legal cards by ``round(expected cost, 9)`` computed in float64. JAX runs without
64-bit floats here, so the costs are compared exactly instead, as integers: with u unseen cards and m
opponents every cost is ``N / (2 u**m)`` with an integer numerator (``C(m, k) a**k (u - a)**(m - k) (2 bull
heads + 3 k)`` for a card whose row needs k more cards, a of the unseen cards lying in its gap;
``2 b_min (u - b)**m`` for a too-low card, b unseen cards below it), so one row's costs compare by their
numerators (carried as two 16-bit limbs). Rounding to 9 decimals keeps that order and adds no ties as long
as distinct costs lie more than 1e-9 apart, which holds for ``2 u**m <= 2 * 104**4 < 1e9``: up to 4
opponents. With more players the rounding can merge distinct costs, so ``safest`` refuses (ValueError).
"""
from __future__ import annotations

from math import comb
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from fiveplay_env.agents.learned.jax.heuristics import Act
from fiveplay_env.take5.observation import HAND, ROW_STATS, SCORES, SEEN
from fiveplay_env.take5.state import ACTION_ROW0, BULLHEADS, HAND_SIZE, NUM_CARDS, NUM_ROWS, ROW_LIMIT

SAFEST_MAX_PLAYERS = 5
"""The most players the exact integer comparison of take5-safest's costs covers (see the module docstring)."""


def safest(num_players: int) -> Act:
    """The JAX take5-safest for ``num_players`` players (``ValueError`` beyond ``SAFEST_MAX_PLAYERS``)."""
    if not 2 <= num_players <= SAFEST_MAX_PLAYERS:
        raise ValueError(f"opponents: the JAX take5-safest is exact for 2..{SAFEST_MAX_PLAYERS} players (its costs "
                         f"compared as integers), got num_players={num_players}; train against it with "
                         f"--backend batched")
    return lambda obs, mask, key: safest_actions(obs, mask, num_players)


def _ipow(x: Any, e: Any, top: int) -> Any:
    """``x ** e`` elementwise for integer ``e`` in 0..top (int32 products)."""
    out = jnp.ones_like(x)
    for i in range(top):
        out = out * jnp.where(e > i, x, 1)
    return out


def safest_actions(obs: Any, mask: Any, n: int) -> Any:
    """int32 [B]: ``fiveplay_env.agents.take5.batch.safest_actions`` for Take 5 observations of ``n`` players (2..5)."""
    i32 = jnp.int32
    B = obs.shape[0]
    legal = mask.astype(bool)
    phase_v = obs[:, SCORES + 3 * n:SCORES + 3 * n + 3]
    phase = jnp.where(phase_v.max(axis=1) > 0.5, phase_v.argmax(axis=1), -1)
    count = legal.sum(axis=1)
    first = jnp.argmax(legal, axis=1).astype(i32)
    stats = obs[:, ROW_STATS:ROW_STATS + 3 * NUM_ROWS].reshape(B, NUM_ROWS, 3)
    ends = jnp.rint(stats[:, :, 0] * 104.0).astype(i32) - 1
    lens = jnp.rint(stats[:, :, 1] * 5.0).astype(i32)
    bulls = jnp.rint(stats[:, :, 2] * 10.0).astype(i32)
    rows = jnp.arange(NUM_ROWS, dtype=i32)
    # row choice: the cheapest row by (bull heads, length, index)
    row_pick = ACTION_ROW0 + jnp.argmin(bulls * 64 + lens * 8 + rows, axis=1).astype(i32)
    # draft: fewest bull heads, then the lowest number, among the legal pool cards
    ids = jnp.arange(NUM_CARDS, dtype=i32)
    bull = jnp.asarray(BULLHEADS[:NUM_CARDS].astype(np.int32))
    draft_pick = jnp.argmin(jnp.where(legal[:, :NUM_CARDS], bull * 128 + ids, 1 << 30), axis=1).astype(i32)
    # play: the legal cards (at most a hand), in id order
    opp = n - 1
    known = (obs[:, HAND:HAND + NUM_CARDS] > 0.5) | (obs[:, SEEN:SEEN + NUM_CARDS] > 0.5)
    unseen = (~known).astype(i32)
    u = unseen.sum(axis=1)[:, None]
    cum = jnp.concatenate([jnp.zeros((B, 1), i32), jax.lax.associative_scan(jnp.add, unseen, axis=1)], axis=1)
    lcards = legal[:, :NUM_CARDS]
    cards = jnp.argsort(~lcards, axis=1, stable=True)[:, :HAND_SIZE].astype(i32)
    valid = jnp.take_along_axis(lcards, cards, axis=1)
    below_c = jnp.take_along_axis(cum, cards, axis=1)
    below = ends[:, None, :] < cards[:, :, None]
    trow = jnp.argmax(jnp.where(below, ends[:, None, :], -2), axis=2)
    tend = jnp.take_along_axis(ends, trow, axis=1)
    ok = below.any(axis=2)
    tlen = jnp.take_along_axis(lens, trow, axis=1)
    tbull = jnp.take_along_axis(bulls, trow, axis=1)
    lo = jnp.take_along_axis(cum, jnp.clip(tend + 1, 0, NUM_CARDS), axis=1)
    has_u = u > 0
    uu = jnp.where(has_u, u, 1)
    a = jnp.where(has_u, below_c - lo, 0)
    b = jnp.where(has_u, below_c, 0)
    need = ROW_LIMIT - tlen
    coef = jnp.asarray(np.array([comb(opp, k) if k <= opp else 0 for k in range(ROW_LIMIT + 1)], np.int32))
    valid_need = (need >= 0) & (need <= opp)
    nk = jnp.clip(need, 0, opp)
    big_ok = _ipow(a, nk, opp) * _ipow(uu - a, opp - nk, opp)                # <= u**m < 2**27
    small_ok = jnp.where(valid_need, coef[jnp.clip(need, 0, ROW_LIMIT)] * (2 * tbull + 3 * need), 0)
    min_bulls = bulls.min(axis=1)[:, None]
    big_low = _ipow(uu - b, jnp.full_like(b, opp), opp)
    small_low = 2 * jnp.broadcast_to(min_bulls, b.shape)
    big = jnp.where(ok, big_ok, big_low)
    small = jnp.where(ok, small_ok, small_low)
    # numerator = big * small as (hi, lo) 16-bit limbs: exact in int32
    lo_full = (big & 0xFFFF) * small
    hi = (big >> 16) * small + (lo_full >> 16)
    lo16 = lo_full & 0xFFFF
    gap = jnp.where(ok, cards - tend, 200)
    top = jnp.int32(2 ** 30)
    key_hi = jnp.where(valid, hi, top)
    tie = valid & (key_hi == key_hi.min(axis=1, keepdims=True))
    key_lo = jnp.where(tie, lo16, top)
    tie = tie & (key_lo == key_lo.min(axis=1, keepdims=True))
    gap2 = jnp.where(tie, gap, top)
    tie = tie & (gap2 == gap2.min(axis=1, keepdims=True))
    play_pick = jnp.take_along_axis(cards, jnp.argmax(tie, axis=1)[:, None], axis=1)[:, 0]
    out = first
    out = jnp.where((phase == 2) & (count > 1), row_pick, out)
    out = jnp.where((phase == 0) & (count > 1), draft_pick, out)
    play = (phase != 2) & (phase != 0) & (count > 1) & lcards.any(axis=1)
    return jnp.where(play, play_pick, out).astype(i32)


__all__ = ["SAFEST_MAX_PLAYERS", "safest", "safest_actions"]
