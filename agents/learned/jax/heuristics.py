"""The best heuristics in JAX, for opponents inside the JAX rollouts: each equal, decision by decision, to its
batched numpy twin (``tests/learning/test_jax_train.py`` replays seeded games through both).

    act = heuristic("take5-safest", num_players)      # act(obs float32 [B, D], mask bool [B, A]) -> int32 [B]

| name                   | numpy twin                                | here                                   |
|------------------------|-------------------------------------------|----------------------------------------|
| ``take5-safest``       | ``agents.take5.batch.safest_actions``     | ``safest_actions`` (2..5 players)      |
| ``five-alive-attacker``| ``agents.five_alive.batch.attacker_actions`` | ``attacker_actions``                |
| ``random``             | a uniform legal action                    | ``random_actions`` (its own key stream) |

take5-safest ranks the legal cards by ``round(expected cost, 9)`` computed in float64. JAX runs without
64-bit floats here, so the costs are compared exactly instead, as integers: with u unseen cards and m
opponents every cost is ``N / (2 u**m)`` with an integer numerator (``C(m, k) a**k (u - a)**(m - k) (2 bull
heads + 3 k)`` for a card whose row needs k more cards, a of the unseen cards lying in its gap;
``2 b_min (u - b)**m`` for a too-low card, b unseen cards below it), so one row's costs compare by their
numerators (carried as two 16-bit limbs). Rounding to 9 decimals keeps that order and adds no ties as long
as distinct costs lie more than 1e-9 apart, which holds for ``2 u**m <= 2 * 104**4 < 1e9``: up to 4
opponents. With more players the rounding can merge distinct costs, so ``heuristic`` refuses (ValueError).
"""
from __future__ import annotations

from collections.abc import Callable
from math import comb
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

Act = Callable[[Any, Any, Any], Any]
"""``act(obs float32 [B, D], mask bool [B, A], key) -> int32 [B]`` (the key is used by ``random`` only)."""

SAFEST_MAX_PLAYERS = 5
"""The most players the exact integer comparison of take5-safest's costs covers (see the module docstring)."""


def heuristic(name: str, num_players: int) -> Act:
    """The JAX agent ``name`` for ``num_players`` players (``ValueError`` naming the ones there are)."""
    if name == "take5-safest":
        if not 2 <= num_players <= SAFEST_MAX_PLAYERS:
            raise ValueError(f"opponents: the JAX take5-safest is exact for 2..{SAFEST_MAX_PLAYERS} players (its costs "
                             f"compared as integers), got num_players={num_players}; train against it with "
                             f"--backend batched")
        return lambda obs, mask, key: safest_actions(obs, mask, num_players)
    if name == "five-alive-attacker":
        return lambda obs, mask, key: attacker_actions(obs, mask, num_players)
    if name == "random":
        return lambda obs, mask, key: random_actions(key, mask)
    raise ValueError(f"opponents: --backend jax plays self, pool and the agents {sorted(JAX_AGENTS)}, got {name!r}")


JAX_AGENTS = ("take5-safest", "five-alive-attacker", "random")


def random_actions(key: Any, mask: Any) -> Any:
    """int32 [B]: a uniform legal action per row (Gumbel-max over the mask)."""
    g = jax.random.gumbel(key, mask.shape, jnp.float32)
    return jnp.argmax(jnp.where(mask, g, -jnp.inf), axis=1).astype(jnp.int32)


# --- take5-safest -----------------------------------------------------------------------------------------

def _ipow(x: Any, e: Any, top: int) -> Any:
    """``x ** e`` elementwise for integer ``e`` in 0..top (int32 products)."""
    out = jnp.ones_like(x)
    for i in range(top):
        out = out * jnp.where(e > i, x, 1)
    return out


def safest_actions(obs: Any, mask: Any, n: int) -> Any:
    """int32 [B]: ``agents.take5.batch.safest_actions`` for Take 5 observations of ``n`` players (2..5)."""
    from fiveplay_env.take5.observation import HAND, ROW_STATS, SCORES, SEEN
    from fiveplay_env.take5.state import ACTION_ROW0, BULLHEADS, HAND_SIZE, NUM_CARDS, NUM_ROWS, ROW_LIMIT

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


# --- five-alive-attacker ----------------------------------------------------------------------------------

def attacker_actions(obs: Any, mask: Any, n: int) -> Any:
    """int32 [B]: ``agents.five_alive.batch.attacker_actions`` for 5 Alive observations of ``n`` players."""
    from agents.five_alive.constants import BOMB_MEAN_CARDS, DRAW_ALERT_CARDS, EMERGENCY_ORDER, REDEAL_MARGIN
    from fiveplay_env.five_alive.observation import HAND, PHASE, SEATS, TOTAL
    from fiveplay_env.five_alive.state import (
        BOMB, BUST, DRAW1, DRAW2, MAX_TOTAL, N0, NUM_KINDS, NUM_NUMBERS, REDEAL,
    )

    i32 = jnp.int32
    legal = mask.astype(bool)
    first = jnp.argmax(legal, axis=1).astype(i32)
    hand = jnp.rint(obs[:, HAND:HAND + NUM_KINDS]).astype(i32) > 0
    total = jnp.argmax(obs[:, TOTAL:TOTAL + MAX_TOTAL + 1], axis=1).astype(i32)
    lives = jnp.rint(obs[:, SEATS + n:SEATS + 2 * n]).astype(i32)
    sizes = jnp.rint(obs[:, SEATS + 2 * n:SEATS + 3 * n]).astype(i32)
    nums = jnp.arange(NUM_NUMBERS, dtype=i32)
    fits = hand[:, :NUM_NUMBERS] & (total[:, None] + nums[None, :] <= MAX_TOTAL)
    fits = fits.at[:, N0].set(False)
    any_num = fits.any(axis=1)
    largest = NUM_NUMBERS - 1 - jnp.argmax(fits[:, ::-1], axis=1).astype(i32)
    order = jnp.asarray(np.array(EMERGENCY_ORDER, np.int32))
    wild = hand[:, order]
    first_wild = order[jnp.argmax(wild, axis=1)]
    saver = jnp.where(any_num, largest, jnp.where(hand[:, N0], N0, jnp.where(wild.any(axis=1), first_wild, BUST)))
    opp = lives[:, 1:] > 0
    count = opp.sum(axis=1)
    has_opp = count > 0
    size_sum = jnp.where(opp, sizes[:, 1:], 0).sum(axis=1)
    cnt = jnp.maximum(count, 1)
    big = jnp.int32(1 << 30)
    min_lives = jnp.where(opp, lives[:, 1:], big).min(axis=1)
    min_size = jnp.where(opp, sizes[:, 1:], big).min(axis=1)
    # mean comparisons by cross-multiplication (the constants are whole numbers of cards: exact, as in float64)
    bomb = has_opp & hand[:, BOMB] & ((min_lives <= 1) | (size_sum <= int(BOMB_MEAN_CARDS) * cnt))
    alert = has_opp & (min_size <= DRAW_ALERT_CARDS)
    draw2 = alert & hand[:, DRAW2]
    draw1 = alert & ~hand[:, DRAW2] & hand[:, DRAW1]
    redeal = has_opp & hand[:, REDEAL] & (sizes[:, 0] * cnt >= size_sum + int(REDEAL_MARGIN) * cnt)
    a = jnp.where(bomb, BOMB, jnp.where(draw2, DRAW2, jnp.where(draw1, DRAW1, jnp.where(redeal, REDEAL, saver))))
    bad = ~jnp.take_along_axis(legal, a[:, None], axis=1)[:, 0]
    cards = legal[:, :BUST]
    a = jnp.where(bad, jnp.where(cards.any(axis=1), jnp.argmax(cards, axis=1), BUST), a)
    answer = (obs[:, PHASE] <= 0.5) & (obs[:, PHASE + 1] > 0.5)
    a = jnp.where(answer, jnp.where(legal[:, N0], N0, first), a)
    return jnp.where(legal.sum(axis=1) == 1, first, a).astype(i32)


__all__ = ["JAX_AGENTS", "SAFEST_MAX_PLAYERS", "attacker_actions", "heuristic", "random_actions", "safest_actions"]
