"""five-alive-attacker on whole batches of observations, with numpy and no Python loop over games.

``attacker_actions(observations, masks)`` returns, row by row, exactly the action of
``fiveplay_env.agents.five_alive.heuristics.AttackerAgent.act`` (checked decision by decision over many seeded games
by ``tests/agents/test_five_alive_batch.py``); the agent's ``act_batch`` uses it, so training and
evaluation against the heuristic cost a few array operations per step. The rules are those of
``attacker_card`` and ``saver_card`` (read their docstrings), on the observation's documented layout.
"""
from __future__ import annotations

import numpy as np

from fiveplay_env.agents.five_alive.constants import (
    BOMB_MEAN_CARDS, DRAW_ALERT_CARDS, EMERGENCY_ORDER, REDEAL_MARGIN,
)
from fiveplay_env.five_alive.observation import HAND, PHASE, SEATS, TOTAL
from fiveplay_env.five_alive.state import (
    BOMB, BUST, DRAW1, DRAW2, MAX_TOTAL, N0, NUM_KINDS, NUM_NUMBERS, REDEAL,
)

_NUMS = np.arange(NUM_NUMBERS)


def attacker_actions(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """int64 [B]: five-alive-attacker's action for each row of ``observations`` [B, 80 + 3n] and
    ``masks`` [B, 19] (``ValueError`` if the observation size is not a 5 Alive one)."""
    obs = np.asarray(observations)
    legal = np.asarray(masks) != 0
    B = obs.shape[0]
    n, rem = divmod(obs.shape[1] - SEATS, 3)
    if rem or not 2 <= n <= 6:
        raise ValueError(f"observation: expected a 5 Alive observation of size 80 + 3n (n = 2..6), got shape {obs.shape}")
    out = np.empty(B, np.int64)
    if B == 0:
        return out
    first_legal = legal.argmax(axis=1)
    hand = np.rint(obs[:, HAND:HAND + NUM_KINDS]).astype(np.int64) > 0
    total = obs[:, TOTAL:TOTAL + MAX_TOTAL + 1].argmax(axis=1)
    lives = np.rint(obs[:, SEATS + n:SEATS + 2 * n]).astype(np.int64)
    sizes = np.rint(obs[:, SEATS + 2 * n:SEATS + 3 * n]).astype(np.int64)
    # saver: the largest number >= 1 that fits, else a 0, else the first wild card held, else BUST
    fits = hand[:, :NUM_NUMBERS] & (total[:, None] + _NUMS[None, :] <= MAX_TOTAL)
    fits[:, N0] = False
    any_num = fits.any(axis=1)
    largest = NUM_NUMBERS - 1 - fits[:, ::-1].argmax(axis=1)
    wild = hand[:, list(EMERGENCY_ORDER)]
    first_wild = np.array(EMERGENCY_ORDER)[wild.argmax(axis=1)]
    saver = np.where(any_num, largest, np.where(hand[:, N0], N0, np.where(wild.any(axis=1), first_wild, BUST)))
    # attacker's special cards (opponents: relative seats 1..n-1 with lives left)
    opp = lives[:, 1:] > 0
    count = opp.sum(axis=1)
    has_opp = count > 0
    mean_size = np.where(opp, sizes[:, 1:], 0).sum(axis=1) / np.maximum(count, 1)
    min_lives = np.where(opp, lives[:, 1:], 1 << 30).min(axis=1)
    min_size = np.where(opp, sizes[:, 1:], 1 << 30).min(axis=1)
    bomb = has_opp & hand[:, BOMB] & ((min_lives <= 1) | (mean_size <= BOMB_MEAN_CARDS))
    alert = has_opp & (min_size <= DRAW_ALERT_CARDS)
    draw2 = alert & hand[:, DRAW2]
    draw1 = alert & ~hand[:, DRAW2] & hand[:, DRAW1]
    redeal = has_opp & hand[:, REDEAL] & (sizes[:, 0] >= mean_size + REDEAL_MARGIN)
    a = np.where(bomb, BOMB, np.where(draw2, DRAW2, np.where(draw1, DRAW1, np.where(redeal, REDEAL, saver))))
    # the observation and mask disagree (never with the env): the first legal card, else BUST
    rows = np.arange(B)
    bad = ~legal[rows, a]
    if bad.any():
        cards = legal[:, :BUST]
        a = np.where(bad, np.where(cards.any(axis=1), cards.argmax(axis=1), BUST), a)
    # Bomb answer: discard a 0 if legal, else the first legal action
    answer = (obs[:, PHASE] <= 0.5) & (obs[:, PHASE + 1] > 0.5)
    a = np.where(answer, np.where(legal[:, N0], N0, first_legal), a)
    out[:] = np.where(legal.sum(axis=1) == 1, first_legal, a)
    return out
