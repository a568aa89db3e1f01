"""The Take 5 rules compiled: one game's row of the batched state, stepped by plain scalar code (numba).

It reads like the reference engine (``fiveplay_env.take5.engine``): a card is played, the trick is
revealed once every seat chose, the cards are placed in ascending order (a 6th card takes the row, a card
below every row end takes a row: the owner's choice with ``row_pick="player"``, the cheapest otherwise), the
round ends after 10 tricks and the game at the threshold. The rules are written again here, not shared
with the reference, so that the two implementations check each other (``fiveplay_env.testing``'s replay
contract); they share the constants of ``state.py`` and the counter-based randomness (``core.kernel_rng``
is ``core.seeding`` compiled).

The state is the struct of arrays of ``fiveplay_env.take5.positions.SCHEMA`` (one row per game, passed as
the tuple ``S`` in the order of ``FIELDS``), the config the int64 vector ``P`` (``params``). The batched
engine (``batched.py``) runs ``step_all`` / ``start_all`` / ``mask_all`` over its B rows; a search steps
single worlds with ``step_one``. ``NUMBA_DISABLE_JIT=1`` runs this same code as Python (to debug a rule
with pdb or prints; every engine test passes that way too, only slower).
"""
from __future__ import annotations

import numba as nb
import numpy as np

from fiveplay_env.core import kernel_rng
from fiveplay_env.take5.state import (  # noqa: F401 (the location codes: the kernel's, re-exported)
    ACTION_ROW0, ASIDE, BULLHEADS, DRAFT, HAND_SIZE, NUM_ACTIONS, NUM_CARDS, NUM_ROWS, NUM_TRICKS, OUT, PENDING,
    PLAY, POOL, QUEUE, ROW_CHOICE, ROW_LIMIT, SEEN,
)


FIELDS = ("loc", "rows", "rlen", "rbull", "pending", "scores", "rpen", "phase", "cur", "trick", "round",
          "counter", "picks", "seed", "game_index", "rewards", "terminated", "final_scores")
"""The order of the state tuple ``S`` (the schema's fields)."""

# params: the config as ints
N, DECK, PLAYER_ROWS, DRAFTING, ROUNDS, END_SCORE, END_INCLUSIVE, NPARAMS = range(8)

_BULL = BULLHEADS.astype(np.int8)


def params(config) -> np.ndarray:
    """int64 [NPARAMS]: ``config`` as the kernel reads it (``ROUNDS`` -1 for ``mode="game"``)."""
    p = np.zeros(NPARAMS, np.int64)
    p[N], p[DECK] = config.num_players, config.deck_size
    p[PLAYER_ROWS], p[DRAFTING] = config.row_pick == "player", config.draft
    p[ROUNDS] = -1 if config.num_rounds is None else config.num_rounds
    p[END_SCORE], p[END_INCLUSIVE] = config.end_score, config.end_inclusive
    return p


def state_tuple(st: dict) -> tuple:
    return tuple(st[name] for name in FIELDS)


@nb.njit(cache=True)
def start_round(loc, rows, rlen, rbull, pending, rpen, phase, cur, trick, counter, picks, seed, P, b, keys, perm):
    """A new round of game b: the deal (one shuffle, the counter + 1) or, with ``draft``, the open pool."""
    n, deck = P[N], P[DECK]
    trick[b] = 0
    cur[b] = 0
    for q in range(n):
        rpen[b, q] = 0
        pending[b, q] = -1
    for r in range(NUM_ROWS):
        rlen[b, r] = 0
        rbull[b, r] = 0
        for j in range(ROW_LIMIT):
            rows[b, r, j] = -1
    for c in range(NUM_CARDS):
        loc[b, c] = OUT if c >= deck else (POOL if P[DRAFTING] else ASIDE)
    if P[DRAFTING]:
        phase[b] = DRAFT
        picks[b] = 0
        return
    kernel_rng.permutation(seed[b], np.uint64(counter[b]), deck, keys, perm)
    counter[b] += 1
    for j in range(HAND_SIZE * n):
        loc[b, perm[j]] = j // HAND_SIZE
    for r in range(NUM_ROWS):
        c = perm[HAND_SIZE * n + r]
        loc[b, c] = SEEN
        rows[b, r, 0] = c
        rlen[b, r] = 1
        rbull[b, r] = _BULL[c]
    phase[b] = PLAY


@nb.njit(cache=True)
def new_game(loc, rows, rlen, rbull, pending, scores, rpen, phase, cur, trick, round_, counter, picks, seed, P, b,
             keys, perm):
    """Game b starts (its seed set): no score, no round, the first deal."""
    for q in range(P[N]):
        scores[b, q] = 0
    round_[b] = 0
    counter[b] = 0
    start_round(loc, rows, rlen, rbull, pending, rpen, phase, cur, trick, counter, picks, seed, P, b, keys, perm)


@nb.njit(cache=True, inline="always")
def write_mask(loc, phase, cur, b, mask):
    """Row b of the legal mask: the acting seat's hand (play), the pool (draft) or rows 104..107."""
    ph = phase[b]
    if ph == ROW_CHOICE:
        for a in range(NUM_ACTIONS):
            mask[b, a] = 1 if ACTION_ROW0 <= a < ACTION_ROW0 + NUM_ROWS else 0
        return
    target = POOL if ph == DRAFT else cur[b]
    for c in range(NUM_CARDS):
        mask[b, c] = loc[b, c] == target
    for a in range(NUM_CARDS, NUM_ACTIONS):
        mask[b, a] = 0


@nb.njit(cache=True, inline="always")
def _order(pending, n, b, order):
    """``order[:n]``: the seats of the trick by ascending card (insertion sort of at most 10)."""
    for i in range(n):
        j = i
        while j > 0 and pending[b, order[j - 1]] > pending[b, i]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = i


@nb.njit(cache=True, inline="always")
def target_row(rows, rlen, b, card):
    """The row ``card`` goes on: the one whose last card is the highest below it; -1 if too low."""
    best, best_end = -1, -1
    for r in range(NUM_ROWS):
        end = rows[b, r, rlen[b, r] - 1]
        if best_end < end < card:
            best, best_end = r, end
    return best


@nb.njit(cache=True, inline="always")
def cheapest_row(rlen, rbull, b):
    """Fewest bull heads, then fewer cards, then the lowest index."""
    best, key = 0, 1 << 30
    for r in range(NUM_ROWS):
        k = int(rbull[b, r]) * 64 + int(rlen[b, r]) * 8 + r  # int(): exact under NUMBA_DISABLE_JIT too
        if k < key:
            best, key = r, k
    return best


@nb.njit(cache=True, inline="always")
def _take(rows, rlen, rbull, rpen, rewards, b, owner, r, card):
    """``owner`` takes row r (its bull heads join the round penalty) and ``card`` starts it again."""
    pts = rbull[b, r]
    rpen[b, owner] += pts
    rewards[b, owner] -= pts
    rows[b, r, 0] = card
    for j in range(1, ROW_LIMIT):
        rows[b, r, j] = -1
    rlen[b, r] = 1
    rbull[b, r] = _BULL[card]


@nb.njit(cache=True, inline="always")
def _place_trick(loc, rows, rlen, rbull, pending, rpen, rewards, n, b, forced, order):
    """Place the trick's cards in ascending order; ``forced`` >= 0: the lowest card takes that row."""
    _order(pending, n, b, order)
    for i in range(n):
        q = order[i]
        c = pending[b, q]
        loc[b, c] = SEEN
        r = target_row(rows, rlen, b, c)
        if i == 0 and forced >= 0:
            _take(rows, rlen, rbull, rpen, rewards, b, q, forced, c)
        elif r < 0:
            _take(rows, rlen, rbull, rpen, rewards, b, q, cheapest_row(rlen, rbull, b), c)
        elif rlen[b, r] == ROW_LIMIT:
            _take(rows, rlen, rbull, rpen, rewards, b, q, r, c)
        else:
            rows[b, r, rlen[b, r]] = c
            rlen[b, r] += 1
            rbull[b, r] += _BULL[c]
    for q in range(n):
        pending[b, q] = -1


@nb.njit(cache=True)
def _end_round(loc, rows, rlen, rbull, pending, scores, rpen, phase, cur, trick, round_, counter, picks, seed, game_index, rewards, terminated, final_scores, P, b, base_seed, batch, keys, perm):
    """The round's penalties join the scores; a finished game moves its slot on to its next game."""
    n = P[N]
    top = 0
    for q in range(n):
        scores[b, q] += rpen[b, q]
        top = max(top, scores[b, q])
    round_[b] += 1
    if P[ROUNDS] >= 0:
        over = round_[b] >= P[ROUNDS]
    elif P[END_INCLUSIVE]:
        over = top >= P[END_SCORE]
    else:
        over = top > P[END_SCORE]
    if over:
        terminated[b] = True
        for q in range(n):
            final_scores[b, q] = scores[b, q]
        game_index[b] += batch  # same-step autoreset: slot i's next game is game i + k*B of the run
        seed[b] = kernel_rng.derive(base_seed, game_index[b])
        new_game(loc, rows, rlen, rbull, pending, scores, rpen, phase, cur, trick, round_, counter, picks, seed, P, b,
                 keys, perm)
    else:
        start_round(loc, rows, rlen, rbull, pending, rpen, phase, cur, trick, counter, picks, seed, P, b, keys, perm)


@nb.njit(cache=True, inline="always")
def play(loc, rows, rlen, rbull, pending, rpen, phase, cur, trick, picks, rewards, terminated, P, b, a, order):
    """Game b plays action ``a`` (legal: the engine checked it), up to the end of a trick; returns True when that
    was the round's last trick (the caller then ends the round: ``_end_round``, which deals). No call inside:
    numba then keeps no reference counts on the arrays, which would cost more than the move."""
    n = P[N]
    for q in range(n):
        rewards[b, q] = 0.0
    terminated[b] = False
    ph = phase[b]
    if ph == DRAFT:
        p = cur[b]
        loc[b, a] = p
        picks[b] += 1
        if picks[b] < HAND_SIZE * n:
            cur[b] = (p + 1) % n
            return False
        r = 0
        for c in range(NUM_CARDS):  # the 4 cards left start the rows, ascending
            if loc[b, c] == POOL:
                loc[b, c] = SEEN
                rows[b, r, 0] = c
                rlen[b, r] = 1
                rbull[b, r] = _BULL[c]
                r += 1
        phase[b] = PLAY
        cur[b] = 0
        return False
    if ph == PLAY:
        p = cur[b]
        loc[b, a] = PENDING
        pending[b, p] = a
        if p + 1 < n:
            cur[b] = p + 1
            return False
        forced = -1
        if P[PLAYER_ROWS]:  # the lowest card too low: its owner chooses a row first
            low, owner = NUM_CARDS, 0
            for q in range(n):
                if pending[b, q] < low:
                    low, owner = pending[b, q], q
            if target_row(rows, rlen, b, low) < 0:
                for q in range(n):
                    loc[b, pending[b, q]] = QUEUE
                phase[b] = ROW_CHOICE
                cur[b] = owner
                return False
    else:  # ROW_CHOICE
        forced = a - ACTION_ROW0
        phase[b] = PLAY
    _place_trick(loc, rows, rlen, rbull, pending, rpen, rewards, n, b, forced, order)
    trick[b] += 1
    cur[b] = 0
    return trick[b] == NUM_TRICKS


@nb.njit(cache=True)
def step_one(loc, rows, rlen, rbull, pending, scores, rpen, phase, cur, trick, round_, counter, picks, seed, game_index, rewards, terminated, final_scores, P, b, a, base_seed, batch, keys, perm, order):
    """Game b plays action ``a`` (legal: the engine checked it); rewards are written to ``rewards[b]``. The
    state arrays come first, in ``FIELDS`` order (``step_one(*state_tuple(st), P, ...)``); ``batch``: the
    slots of the run (a finished game's slot moves on to game index + batch)."""
    if play(loc, rows, rlen, rbull, pending, rpen, phase, cur, trick, picks, rewards, terminated, P, b, a, order):
        _end_round(loc, rows, rlen, rbull, pending, scores, rpen, phase, cur, trick, round_, counter, picks, seed, game_index, rewards, terminated, final_scores, P, b, base_seed, batch, keys, perm)


@nb.njit(cache=True)
def step_all(S, P, actions, base_seed, mask):
    """Every game b plays ``actions[b]``; the mask rows follow."""
    (loc, rows, rlen, rbull, pending, scores, rpen, phase, cur, trick, round_, counter, picks, seed, game_index, rewards, terminated, final_scores) = S
    B = loc.shape[0]
    keys = np.empty(NUM_CARDS, np.uint64)
    perm = np.empty(NUM_CARDS, np.int64)
    order = np.empty(10, np.int64)
    n = P[N]
    for b in range(B):
        a = actions[b]
        p = cur[b]
        if phase[b] == PLAY and p + 1 < n:  # the common move, written out here: a call costs more than it does
            for q in range(n):
                rewards[b, q] = 0.0
            terminated[b] = False
            loc[b, a] = PENDING
            pending[b, p] = a
            cur[b] = p + 1
            for c in range(NUM_CARDS):
                mask[b, c] = loc[b, c] == p + 1
            for c in range(NUM_CARDS, NUM_ACTIONS):
                mask[b, c] = 0
            continue
        if play(loc, rows, rlen, rbull, pending, rpen, phase, cur, trick, picks, rewards, terminated, P, b, a, order):
            _end_round(loc, rows, rlen, rbull, pending, scores, rpen, phase, cur, trick, round_, counter, picks, seed, game_index, rewards, terminated, final_scores, P, b, base_seed, B, keys, perm)
        write_mask(loc, phase, cur, b, mask)


@nb.njit(cache=True)
def start_all(S, P, games):
    """Games ``games`` start (their seeds set)."""
    (loc, rows, rlen, rbull, pending, scores, rpen, phase, cur, trick, round_, counter, picks, seed, game_index, rewards, terminated, final_scores) = S
    keys = np.empty(NUM_CARDS, np.uint64)
    perm = np.empty(NUM_CARDS, np.int64)
    for b in games:
        new_game(loc, rows, rlen, rbull, pending, scores, rpen, phase, cur, trick, round_, counter, picks, seed, P, b,
                 keys, perm)


@nb.njit(cache=True)
def mask_all(S, P, mask):
    loc, phase, cur = S[0], S[7], S[8]
    for b in range(loc.shape[0]):
        write_mask(loc, phase, cur, b, mask)


__all__ = ["ASIDE", "FIELDS", "OUT", "PENDING", "POOL", "QUEUE", "SEEN", "mask_all", "params", "start_all",
           "state_tuple", "step_all", "step_one"]
