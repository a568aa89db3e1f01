"""five-alive-attacker in JAX, for opponents inside the JAX rollouts (``fiveplay_env.agents.five_alive.KIT.jax_heuristics``):
equal, decision by decision, to its batched numpy twin ``fiveplay_env.agents.five_alive.batch.attacker_actions``
(``tests/learning/test_jax_train.py`` replays seeded games through both).

    act = attacker(num_players)    # act(obs float32 [B, D], mask bool [B, A], key) -> int32 [B]
"""
from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np

from fiveplay_env.agents.five_alive.constants import BOMB_MEAN_CARDS, DRAW_ALERT_CARDS, EMERGENCY_ORDER, REDEAL_MARGIN
from fiveplay_env.agents.learned.jax.heuristics import Act
from fiveplay_env.five_alive.observation import HAND, PHASE, SEATS, TOTAL
from fiveplay_env.five_alive.state import BOMB, BUST, DRAW1, DRAW2, MAX_TOTAL, N0, NUM_KINDS, NUM_NUMBERS, REDEAL


def attacker(num_players: int) -> Act:
    """The JAX five-alive-attacker for ``num_players`` players."""
    return lambda obs, mask, key: attacker_actions(obs, mask, num_players)


def attacker_actions(obs: Any, mask: Any, n: int) -> Any:
    """int32 [B]: ``fiveplay_env.agents.five_alive.batch.attacker_actions`` for 5 Alive observations of ``n`` players."""
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


__all__ = ["attacker", "attacker_actions"]
