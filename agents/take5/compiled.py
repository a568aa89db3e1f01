"""Take 5's search in compiled code: a decision's worlds, the opponent model and the rollouts in one numba call.

``evaluate(info, key, first, count, actions, params, facts)`` returns float64 [count, len(actions)]: the value
of every candidate on worlds ``first .. first + count - 1`` of the decision keyed ``key``. It is exactly what
the search's Python path computes with the reference engine (``fiveplay_env.agents.search.python_values``):

- world j is ``info.sample_at(key, j)``: drawn here from the canonical state (``info.canonical()``) with the
  same counter-based draws ``determinize.sample_world`` and ``GameDef.engine_of_world`` make through a
  ``seeding.CounterStream`` (the seed, the shuffle of the hidden cards, the world's own seed; in a draft
  game one draw per unrevealed choice), so it is the same world;
- the opponent model is ``rollouts.prepare`` (take5-safest for every other player's card of the trick, from
  its own point of view; the same floating-point arithmetic, ``round(cost, 9)`` correctly rounded as Python
  rounds);
- every candidate is played on a copy of the world and rolled out as ``rollouts.simulate`` rolls out (the
  plan's cards, then epsilon-greedy take5-closest (``rollout=strong``: take5-safest) on the world's random
  numbers ``world_noise(key, j)``,
  the cheapest row, the cheapest draft card) to the end of the round or ``depth`` tricks, and scored as
  ``rollouts.score`` (``rel``, ``win``).

Two options exist here only (no Python twin; ``backend=python`` refuses them; checked by
``tests/agents/test_take5_compiled_options.py``): ``rollout=net``, every seat of the rollouts playing the best
card of a small per-card network (``card_features``, ``net_scores``; the shipped ``rollout-net.npz``, distilled
from a policy by ``distill.py``), and ``tree=1``, the searcher's card of the next trick chosen by an open-loop
node whose statistics last the whole decision (``_tree_pick``).

The rules are the kernel's (``fiveplay_env.take5.kernel.play``); nothing here re-states them.
``tests/agents/test_compiled_search.py`` checks the equality in every config family. Imports numba: loaded
only when a search first evaluates a Take 5 position.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import math

import numba as nb
import numpy as np

from fiveplay_env.agents.base import NOISE_LEN, WORLD_STRIDE
from fiveplay_env.core import kernel_rng
from fiveplay_env.take5 import kernel as K
from fiveplay_env.take5 import positions
from fiveplay_env.take5.state import (
    ACTION_ROW0, ASIDE, BULLHEADS, DRAFT, NUM_ACTIONS, NUM_CARDS, NUM_ROWS, PENDING, PLAY, POOL, QUEUE, ROW_CHOICE, ROW_LIMIT,
)

_BULL = BULLHEADS.astype(np.int64)
_COMB = np.array([[math.comb(m, k) for k in range(ROW_LIMIT + 1)] for m in range(11)], np.float64)
_SEED_MASK = np.uint64(2**63 - 1)  # below(key, c, 2**63): the draws of a world's seeds
_SPLIT = 134217729.0  # 2**27 + 1: Dekker's split of a double


@nb.njit(cache=True, inline="always")
def _seed_draw(key, counter):
    return kernel_rng.mix(kernel_rng.base(key, np.uint64(counter))) & _SEED_MASK


@nb.njit(cache=True)
def round9(x):
    """Python's ``round(x, 9)`` (correctly rounded) for 0 <= x < 2**20: the scaled value decides, except near a
    tie, where the exact product (Dekker's two-product) does, ties to even."""
    y = x * 1e9
    fl = math.floor(y)
    frac = y - fl
    if abs(frac - 0.5) > 1e-6:
        return (fl + 1.0) / 1e9 if frac > 0.5 else fl / 1e9
    b = 2e9
    p = x * b
    c = _SPLIT * x
    xh = c - (c - x)
    xl = x - xh
    c = _SPLIT * b
    bh = c - (c - b)
    bl = b - bh
    err = ((xh * bh - p) + xh * bl + xl * bh) + xl * bl  # x * 2e9 == p + err exactly
    d = (p - (2.0 * fl + 1.0)) + err
    if d > 0 or (d == 0 and fl % 2.0 == 1.0):
        fl += 1.0
    return fl / 1e9


@nb.njit(cache=True, inline="always")
def _copy(S, n, dst, src):
    """Slot ``dst`` becomes a copy of slot ``src`` (element loops: numba's slice copies cost more here)."""
    (loc, rows, rlen, rbull, pending, scores, rpen, phase, cur, trick, round_, counter, picks, seed, game_index,
     rewards, terminated, final_scores) = S
    for c in range(NUM_CARDS):
        loc[dst, c] = loc[src, c]
    for r in range(NUM_ROWS):
        rlen[dst, r] = rlen[src, r]
        rbull[dst, r] = rbull[src, r]
        for j in range(ROW_LIMIT):
            rows[dst, r, j] = rows[src, r, j]
    for q in range(n):
        pending[dst, q] = pending[src, q]
        scores[dst, q] = scores[src, q]
        rpen[dst, q] = rpen[src, q]
    phase[dst] = phase[src]
    cur[dst] = cur[src]
    trick[dst] = trick[src]
    round_[dst] = round_[src]
    counter[dst] = counter[src]
    picks[dst] = picks[src]
    seed[dst] = seed[src]


@nb.njit(cache=True)
def _determinize(S, P, b, player, key, c0, keys, perm, hidden, owner):
    """Slot b (a copy of the canonical state) becomes world ``c0 // WORLD_STRIDE``: ``sample_world``'s draws on
    counters c0, c0 + 1, ... then ``engine_of_world``'s seed."""
    loc, pending, phase, seed = S[0], S[4], S[7], S[13]
    n, deck = P[K.N], P[K.DECK]
    c = c0
    if phase[b] == DRAFT:  # nothing hidden: no draw but the seed
        seed[b] = _seed_draw(key, c)
        return
    if P[K.DRAFTING]:  # the hands are public: each unrevealed choice drawn from its owner's cards
        if phase[b] == PLAY:
            for q in range(n):
                p = pending[b, q]
                if q == player or p < 0:
                    continue
                m = 0
                for x in range(deck):
                    if loc[b, x] == q:
                        hidden[m] = x
                        m += 1
                hidden[m] = p
                m += 1
                pick = hidden[int(kernel_rng.mix(kernel_rng.base(key, np.uint64(c))) % np.uint64(m))]
                c += 1
                loc[b, p] = q
                loc[b, pick] = PENDING
                pending[b, q] = pick
        seed[b] = _seed_draw(key, c)
        return
    # the hidden cards, ascending; in the canonical state the i-th of them sits in the i-th place of the deal
    h = 0
    for x in range(deck):
        code = loc[b, x]
        if (code < n and code != player) or code == PENDING or code == ASIDE:
            hidden[h] = x
            owner[h] = -1
            h += 1
    for q in range(n):
        p = pending[b, q]
        if p >= 0 and loc[b, p] == PENDING:
            for i in range(h):
                if hidden[i] == p:
                    owner[i] = q
    c += 1  # sample_world's own seed draw (engine_of_world draws the one kept)
    kernel_rng.permutation(key, np.uint64(c), h, keys, perm)
    c += 1
    # place i gets card hidden[perm[i]]: write the places' codes first (a card may move to an earlier place)
    for i in range(h):
        keys[i] = np.uint64(loc[b, hidden[i]])
    for i in range(h):
        card = hidden[perm[i]]
        loc[b, card] = np.int8(keys[i])
        if owner[i] >= 0:
            pending[b, owner[i]] = card
    seed[b] = _seed_draw(key, c)


@nb.njit(cache=True, inline="always")
def _min_row_bulls(rbull, b):
    """The fewest bull heads on a row of game b."""
    min_b = 1 << 30
    for r in range(NUM_ROWS):
        min_b = min(min_b, int(rbull[b, r]))
    return min_b


@nb.njit(cache=True, inline="always")
def _unseen(loc, b, q, deck, cards, m, cum):
    """``cum[x]``: the cards below x that seat q has not seen (below the deck size, not seen this round, not in
    ``cards[:m]``, its hand, ascending); returns their number."""
    cum[0] = 0
    j = 0
    for x in range(deck):
        un = loc[b, x] < QUEUE and loc[b, x] != q
        if un:
            while j < m and cards[j] < x:
                j += 1
            if j < m and cards[j] == x:
                un = False
        cum[x + 1] = cum[x] + (1 if un else 0)
    for x in range(deck + 1, NUM_CARDS + 1):
        cum[x] = cum[deck]
    return cum[NUM_CARDS]


@nb.njit(cache=True, inline="always")
def _safest_parts(S, b, c, n, u, min_b, cum):
    """take5-safest's reading of card c for a seat whose unseen cards are ``cum`` (``u`` of them, ``_unseen``):
    ``(row, expected cost, gap, chance the row fills first, unseen share in the gap, unseen share below, need)``
    (row -1: below every row end; then the gap is 200 and the chance is that someone else plays lower)."""
    rows, rlen, rbull = S[1], S[2], S[3]
    opp = n - 1
    r = K.target_row(rows, rlen, b, c)
    if r < 0:
        q_ = cum[c] / u if u else 0.0
        stay = math.pow(1.0 - q_, float(opp))
        return r, float(min_b) * stay, 200, 1.0 - stay, 0.0, q_, 0
    end = rows[b, r, rlen[b, r] - 1]
    p = (cum[c] - cum[end + 1]) / u if u else 0.0
    need = ROW_LIMIT - int(rlen[b, r])
    if need < 0 or need > opp:
        prob = 0.0
    else:
        prob = _COMB[opp, need] * math.pow(p, float(need)) * math.pow(1.0 - p, float(opp - need))
    return r, prob * (float(rbull[b, r]) + 1.5 * need), c - end, prob, p, 0.0, need


@nb.njit(cache=True, inline="always")
def _safest_cost(S, b, c, n, u, min_b, cum):
    """take5-safest's ``(expected cost rounded as it rounds, gap)`` of card c."""
    r, e, gap, prob, p, q_, need = _safest_parts(S, b, c, n, u, min_b, cum)
    return round9(e), gap


@nb.njit(cache=True)
def _safest(S, b, q, n, deck, cards, m, cum):
    """take5-safest's card among ``cards[:m]`` (ascending) for seat q of game b (``heuristics.safest_card`` with
    the unseen cards of q's point of view: below the deck size, not seen this round, not its own)."""
    loc, rbull = S[0], S[3]
    u = _unseen(loc, b, q, deck, cards, m, cum)
    min_b = _min_row_bulls(rbull, b)
    best, best_e, best_gap = cards[0], math.inf, 1 << 30
    for i in range(m):
        c = cards[i]
        e, gap = _safest_cost(S, b, c, n, u, min_b, cum)
        if e < best_e or (e == best_e and gap < best_gap):
            best, best_e, best_gap = c, e, gap
    return best


@nb.njit(cache=True)
def _tree_pick(S, b, q, n, deck, cards, m, cum, root, tn, tw, tr, c, order, keys, gaps):
    """``tree=1``: the index in ``cards[:m]`` of the searcher's (seat q's) next card, chosen by UCB1 over the
    statistics ``tn[root, card]`` (visits), ``tw[root, card]`` (value sums) of this decision's simulations of
    candidate ``root``: an open-loop node (the searcher's own cards are the same in every world). Progressive
    widening: only the ``1 + floor(sqrt(visits) / 2)`` cards take5-safest ranks first are open; an unvisited open
    card is tried first (in rank order); the exploration term is ``c`` times the candidate's value range
    ``tr[root]`` (max - min)."""
    loc, rbull = S[0], S[3]
    total = 0.0
    for i in range(m):
        total += tn[root, cards[i]]
    allowed = 1 + int(math.sqrt(total) / 2.0)
    if allowed > m:
        allowed = m
    u = _unseen(loc, b, q, deck, cards, m, cum)
    min_b = _min_row_bulls(rbull, b)
    for i in range(m):
        keys[i], gaps[i] = _safest_cost(S, b, cards[i], n, u, min_b, cum)
        order[i] = i
    for i in range(allowed):  # selection sort of the first places by (cost, gap), as take5-safest ranks
        best = i
        for j in range(i + 1, m):
            x, y = order[j], order[best]
            if keys[x] < keys[y] or (keys[x] == keys[y] and (gaps[x] < gaps[y] or (gaps[x] == gaps[y] and x < y))):
                best = j
        order[i], order[best] = order[best], order[i]
    width = c * (tr[root, 1] - tr[root, 0]) if tr[root, 1] > tr[root, 0] else 0.0
    pick, pick_v = order[0], -math.inf
    for k in range(allowed):
        i = order[k]
        v = tn[root, cards[i]]
        if v == 0:
            return i
        ucb = tw[root, cards[i]] / v + width * math.sqrt(math.log(total) / v)
        if ucb > pick_v:
            pick, pick_v = i, ucb
    return pick


NET_FEATURES = 14
"""The rollout network's inputs per card (``card_features``)."""


@nb.njit(cache=True)
def card_features(S, b, q, n, deck, cards, m, cum, feats):
    """``feats[i, :NET_FEATURES]``: the rollout network's inputs (``rollout=net``) for card ``cards[i]`` of seat q's
    hand ``cards[:m]`` (ascending) in game b, from q's point of view (the rows, its hand, the unseen cards):

    | 0 | 1 if the card is below every row end (it takes a row)   | 7  | low: the unseen cards below it / unseen |
    | 1 | take5-safest's expected cost / 10                       | 8  | the card's bull heads / 7               |
    | 2 | safest's chance the row fills before it (low: that      | 9  | the card / 104                          |
    |   | someone else plays lower)                               | 10 | its rank in the hand / (m - 1)          |
    | 3 | its row's bull heads / 10 (low: the cheapest row's)     | 11 | the hand's size / 10                    |
    | 4 | the cards its row still takes before a 6th / 5          | 12 | own cards between the row end and it / 5|
    | 5 | the gap to its row's end / 104                          | 13 | the other players / 9                   |
    | 6 | the unseen cards in that gap / unseen                   |    |                                         |
    """
    loc, rows, rlen, rbull = S[0], S[1], S[2], S[3]
    u = _unseen(loc, b, q, deck, cards, m, cum)
    opp = n - 1
    min_b = _min_row_bulls(rbull, b)
    for i in range(m):
        c = cards[i]
        r, e, gap, prob, p, q_, need = _safest_parts(S, b, c, n, u, min_b, cum)
        for f in range(NET_FEATURES):
            feats[i, f] = 0.0
        feats[i, 1] = e / 10.0
        feats[i, 2] = prob
        if r < 0:
            feats[i, 0] = 1.0
            feats[i, 3] = float(min_b) / 10.0
            feats[i, 7] = q_
            feats[i, 12] = i / 5.0
        else:
            end = int(rows[b, r, rlen[b, r] - 1])
            own = 0
            for j in range(i):
                if cards[j] > end:
                    own += 1
            feats[i, 3] = float(rbull[b, r]) / 10.0
            feats[i, 4] = need / 5.0
            feats[i, 5] = gap / 104.0
            feats[i, 6] = p
            feats[i, 12] = own / 5.0
        feats[i, 8] = _BULL[c] / 7.0
        feats[i, 9] = c / 104.0
        feats[i, 10] = i / (m - 1) if m > 1 else 0.0
        feats[i, 11] = m / 10.0
        feats[i, 13] = opp / 9.0


@nb.njit(cache=True)
def net_scores(feats, m, W1, b1, w2, out):
    """``out[i]``: the rollout network's score of card i (``relu(W1 f + b1) . w2``) for the m cards of ``feats``."""
    H = W1.shape[0]
    for i in range(m):
        s = 0.0
        for h in range(H):
            z = b1[h]
            for f in range(NET_FEATURES):
                z += W1[h, f] * feats[i, f]
            if z > 0.0:
                s += w2[h] * z
        out[i] = s


@nb.njit(cache=True)
def _net_pick(S, b, q, n, deck, cards, m, cum, feats, W1, b1, w2, scores):
    """The index in ``cards[:m]`` of the rollout network's card for seat q (the first of equal scores)."""
    card_features(S, b, q, n, deck, cards, m, cum, feats)
    net_scores(feats, m, W1, b1, w2, scores)
    best = 0
    for i in range(1, m):
        if scores[i] > scores[best]:
            best = i
    return best


@nb.njit(cache=True)
def batch_features(S, P, games, feats, cards, sizes):
    """For each game ``games[k]`` in its PLAY phase: the acting seat's hand ``cards[k, :sizes[k]]`` (ascending)
    and its cards' ``card_features`` in ``feats[k]`` (distillation's samples, ``agents/take5/distill.py``)."""
    loc, phase, cur = S[0], S[7], S[8]
    n, deck = P[K.N], P[K.DECK]
    cum = np.empty(NUM_CARDS + 1, np.int64)
    for k in range(games.shape[0]):
        b = games[k]
        sizes[k] = 0
        if phase[b] != PLAY:
            continue
        q = cur[b]
        m = 0
        for c in range(NUM_CARDS):
            if loc[b, c] == q:
                cards[k, m] = c
                m += 1
        sizes[k] = m
        card_features(S, b, q, n, deck, cards[k], m, cum, feats[k])


@nb.njit(cache=True)
def _plan(S, P, b, player, plan, cards, cum):
    """``rollouts.prepare`` in game b: ``plan[q]`` the card of each other player yet to choose (-1 none); a player
    who already chose gets its card replaced in place."""
    loc, pending, phase = S[0], S[4], S[7]
    n, deck = P[K.N], P[K.DECK]
    for q in range(n):
        plan[q] = -1
    if phase[b] != PLAY:
        return
    for q in range(n):
        if q == player:
            continue
        chosen = pending[b, q]
        m = 0
        for x in range(NUM_CARDS):
            if loc[b, x] == q or x == chosen:
                cards[m] = x
                m += 1
        if m == 0:
            continue
        c = _safest(S, b, q, n, deck, cards, m, cum)
        if chosen >= 0:
            if c != chosen:
                loc[b, chosen] = q
                loc[b, c] = PENDING
                pending[b, q] = c
        else:
            plan[q] = c


@nb.njit(cache=True, inline="always")
def _closest(rows, rlen, rbull, b, hands, q, size, min_b):
    """``rollouts.rollout_card`` over ``hands[q, :size]`` (ascending): no take if avoidable, then the smallest gap;
    the lowest card among equals. Returns its index in the hand."""
    best, best_key = 0, 1 << 30
    for i in range(size):
        c = hands[q, i]
        r = K.target_row(rows, rlen, b, c)
        if r < 0:
            key = (min_b << 10) + 200
        else:
            key = (int(rbull[b, r]) << 10 if rlen[b, r] == ROW_LIMIT else 0) + (c - int(rows[b, r, rlen[b, r] - 1]))
        if key < best_key:
            best, best_key = i, key
    return best


@nb.njit(cache=True)
def _rollout(S, P, Pg, b, a, player, plan, noise, eps, rel, win, depth, mode, gains, order, hands, size, cum, net,
             feats, card_scores, tree, tn, tw, tr, tc, torder, tkeys, tgaps):
    """``rollouts.simulate`` of action ``a`` in game b (which it plays on); ``mode`` 0: take5-closest, 1:
    take5-safest (``rollout=strong``), 2: the rollout network ``net = (W1, b1, w2)`` (``rollout=net``).
    ``tree``: the searcher's card of the next trick is ``_tree_pick``'s (``tree=1``), and the statistics of
    candidate a learn this simulation's value."""
    (loc, rows, rlen, rbull, pending, scores, rpen, phase, cur, trick, round_, counter, picks, seed, game_index,
     rewards, terminated, final_scores) = S
    n = P[K.N]
    L = noise.shape[0]
    for q in range(n):
        gains[q] = 0.0
    ended = K.play(loc, rows, rlen, rbull, pending, rpen, phase, cur, trick, picks, rewards, terminated, P, b, a, order)
    for q in range(n):
        gains[q] += rewards[b, q]
    trick0 = trick[b]
    stop = trick0 + depth if depth else 1 << 30
    k = 0
    built = False
    child = -1
    while not ended and trick[b] < stop:
        ph = phase[b]
        if ph == PLAY:
            if not built:  # every hand, ascending (they only shrink from here to the round's end)
                for q in range(n):
                    size[q] = 0
                for c in range(NUM_CARDS):
                    q = loc[b, c]
                    if q < n:
                        hands[q, size[q]] = c
                        size[q] += 1
                built = True
            q = cur[b]
            if tree and q == player and trick[b] == trick0 + 1:
                i = _tree_pick(S, b, q, n, P[K.DECK], hands[q], size[q], cum, a, tn, tw, tr, tc, torder,
                               tkeys, tgaps)
                act = hands[q, i]
                child = act
            elif plan[q] >= 0 and trick[b] == trick0:
                act = plan[q]
                i = 0
                while hands[q, i] != act:
                    i += 1
            else:
                u = noise[k % L]
                k += 1
                if u < eps:
                    i = int(u / eps * size[q])
                elif mode == 1:  # take5-safest from q's point of view
                    act = _safest(S, b, q, n, P[K.DECK], hands[q], size[q], cum)
                    i = 0
                    while hands[q, i] != act:
                        i += 1
                elif mode == 2:
                    i = _net_pick(S, b, q, n, P[K.DECK], hands[q], size[q], cum, feats, net[0], net[1], net[2],
                                  card_scores)
                else:
                    min_b = _min_row_bulls(rbull, b)
                    i = _closest(rows, rlen, rbull, b, hands, q, size[q], min_b)
                act = hands[q, i]
            size[q] -= 1
            for x in range(i, size[q]):
                hands[q, x] = hands[q, x + 1]
        elif ph == ROW_CHOICE:
            act = ACTION_ROW0 + K.cheapest_row(rlen, rbull, b)
        else:  # DRAFT: the pool card with the fewest bull heads, then the lowest
            act, best = -1, 1 << 30
            for c in range(NUM_CARDS):
                if loc[b, c] == POOL and _BULL[c] * 128 + c < best:
                    act, best = c, _BULL[c] * 128 + c
        ended = K.play(loc, rows, rlen, rbull, pending, rpen, phase, cur, trick, picks, rewards, terminated, P, b,
                       act, order)
        for q in range(n):
            gains[q] += rewards[b, q]
    own = gains[player]
    value = own
    if n > 1 and rel:
        tot = 0.0
        for q in range(n):
            tot += gains[q]
        value -= rel * (tot - own) / (n - 1)
    if win and ended:  # the round is over: does the game end with it (the real config's rule)?
        top, low = 0, 1 << 30
        for q in range(n):
            sc = int(scores[b, q]) + int(rpen[b, q])
            top, low = max(top, sc), min(low, sc)
        if Pg[K.ROUNDS] >= 0:
            over = round_[b] + 1 >= Pg[K.ROUNDS]
        elif Pg[K.END_INCLUSIVE]:
            over = top >= Pg[K.END_SCORE]
        else:
            over = top > Pg[K.END_SCORE]
        if over and int(scores[b, player]) + int(rpen[b, player]) == low:
            ties = 0
            for q in range(n):
                if int(scores[b, q]) + int(rpen[b, q]) == low:
                    ties += 1
            value += win / ties
    if tree:
        if child >= 0:
            tn[a, child] += 1.0
            tw[a, child] += value
        tr[a, 0] = min(tr[a, 0], value)
        tr[a, 1] = max(tr[a, 1], value)
    return value


@nb.njit(cache=True)
def _evaluate(S, P, player, key, first, count, actions, noise_len, eps, rel, win, depth, model, mode, net, tree, tn, tw,
              tr, tc, out):
    n = P[K.N]
    keys = np.empty(NUM_CARDS, np.uint64)
    perm = np.empty(NUM_CARDS, np.int64)
    hidden = np.empty(NUM_CARDS, np.int64)
    owner = np.empty(NUM_CARDS, np.int64)
    cum = np.empty(NUM_CARDS + 1, np.int64)
    order = np.empty(10, np.int64)
    plan = np.empty(n, np.int64)
    gains = np.empty(n, np.float64)
    noise = np.empty(noise_len, np.float64)
    hands = np.empty((n, NUM_CARDS), np.int64)
    size = np.empty(n, np.int64)
    feats = np.empty((NUM_CARDS, NET_FEATURES), np.float64)
    card_scores = np.empty(NUM_CARDS, np.float64)
    torder = np.empty(NUM_CARDS, np.int64)
    tkeys = np.empty(NUM_CARDS, np.float64)
    tgaps = np.empty(NUM_CARDS, np.int64)
    for i in range(count):
        c0 = (first + i) * WORLD_STRIDE
        _copy(S, n, 1, 0)
        _determinize(S, P, 1, player, key, c0, keys, perm, hidden, owner)
        if model:
            _plan(S, P, 1, player, plan, hidden, cum)
        else:
            for q in range(n):
                plan[q] = -1
        kernel_rng.uniforms(key, np.uint64(c0 + WORLD_STRIDE - 1), noise)
        for s in range(actions.shape[0]):
            _copy(S, n, 2, 1)
            out[i, s] = _rollout(S, P, P, 2, actions[s], player, plan, noise, eps, rel, win, depth, mode, gains, order,
                                 hands, size, cum, net, feats, card_scores, tree, tn, tw, tr, tc,
                                 torder, tkeys, tgaps)


ROLLOUT_MODES = {"heuristic": 0, "random": 0, "strong": 1, "net": 2}
"""``rollout=`` -> ``_rollout``'s mode (``random`` is closest with eps 1)."""
NET_FILE = Path(__file__).with_name("rollout-net.npz")
"""The shipped rollout network (``rollout=net``), distilled from ``pretrained:take5-game-4p`` by ``distill.py``."""
MAX_NET_BYTES = 1 << 20
MAX_HIDDEN = 1024
_NO_NET = (np.zeros((1, NET_FEATURES)), np.zeros(1), np.zeros(1))
_NETS: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}


def load_net(path: str | Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(W1 [H, NET_FEATURES], b1 [H], w2 [H])`` float64 from a rollout network's ``.npz`` (``distill.save``);
    ``ValueError`` naming the file and what was expected for anything else (no pickles are read)."""
    path = Path(path)
    what = f"rollout network {path.name}"
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ValueError(f"{what}: expected a readable .npz file ({exc.strerror})") from None
    if size > MAX_NET_BYTES:
        raise ValueError(f"{what}: expected at most {MAX_NET_BYTES} bytes, got {size}")
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: np.asarray(z[k]) for k in ("W1", "b1", "w2")}
    except (OSError, ValueError, KeyError, EOFError) as exc:
        raise ValueError(f"{what}: expected an .npz with float arrays W1, b1, w2 ({type(exc).__name__})") from None
    W1, b1, w2 = arrays["W1"], arrays["b1"], arrays["w2"]
    if W1.ndim != 2 or W1.shape[1] != NET_FEATURES or not 1 <= W1.shape[0] <= MAX_HIDDEN:
        raise ValueError(f"{what}: expected W1 of shape [H, {NET_FEATURES}] with 1 <= H <= {MAX_HIDDEN}, "
                         f"got {list(W1.shape)}")
    H = W1.shape[0]
    if b1.shape != (H,) or w2.shape != (H,):
        raise ValueError(f"{what}: expected b1 and w2 of shape [{H}], got {list(b1.shape)} and {list(w2.shape)}")
    out = []
    for name, a in (("W1", W1), ("b1", b1), ("w2", w2)):
        if a.dtype.kind not in "fiu" or not np.isfinite(a).all():
            raise ValueError(f"{what}: expected finite numbers in {name}")
        out.append(np.ascontiguousarray(a, np.float64))
    return out[0], out[1], out[2]


def rollout_net() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The shipped rollout network (``NET_FILE``), loaded once per process."""
    key = str(NET_FILE)
    if key not in _NETS:
        _NETS[key] = load_net(NET_FILE)
    return _NETS[key]


def evaluator(info: Any, key: int, params: Any, facts: dict[int, int] | None) -> Callable[[int, int, Sequence[int]], np.ndarray]:
    """``values(first, count, actions)`` -> float64 [count, len(actions)]: the candidates' values on worlds
    first..first+count-1 of the decision keyed ``key`` (see the module docstring). Heuristic or random
    rollouts only (``rollout=policy`` plays its network outside compiled code). ``facts`` are ignored (no
    Take 5 deal can honour them, as ``InformationSet.sample`` ignores them). Each evaluator has its own arrays
    (the canonical state, the world, the rollout), so evaluators in several threads do not meet."""
    if params.rollout not in ROLLOUT_MODES:
        raise ValueError(f"rollout={params.rollout}: not a compiled rollout (expected one of {sorted(ROLLOUT_MODES)})")
    config = info.config
    dims = positions.dims(config)
    st = positions.SCHEMA.allocate(3, dims)
    canonical = info.canonical()
    one = positions.SCHEMA.from_states([canonical], dims)
    for name in K.FIELDS:
        st[name][0] = one[name][0]
    S, P = K.state_tuple(st), K.params(config)
    player, k = np.int64(info.player), np.uint64(key)
    eps, rel, win, depth = float(params.eps), float(params.rel), float(params.win), np.int64(params.depth)
    model = params.model == "heuristic"
    mode = np.int64(ROLLOUT_MODES.get(params.rollout, 0))
    net = rollout_net() if params.rollout == "net" else _NO_NET
    tree = bool(params.tree) and canonical.phase != DRAFT
    shape = (NUM_ACTIONS, NUM_CARDS) if tree else (1, 1)
    tn, tw = np.zeros(shape), np.zeros(shape)  # the open-loop node's statistics, kept for the whole decision
    tr = np.empty((shape[0], 2))
    tr[:, 0], tr[:, 1] = math.inf, -math.inf
    c = float(params.c)

    def values(first: int, count: int, actions: Sequence[int]) -> np.ndarray:
        out = np.empty((int(count), len(actions)), np.float64)
        _evaluate(S, P, player, k, np.int64(first), np.int64(count), np.asarray(actions, np.int64), NOISE_LEN, eps,
                  rel, win, depth, model, mode, net, tree, tn, tw, tr, c, out)
        return out

    return values


def evaluate(info: Any, key: int, first: int, count: int, actions: Sequence[int], params: Any,
             facts: dict[int, int] | None) -> np.ndarray:
    """``evaluator(info, key, params, facts)(first, count, actions)``: one call's worth."""
    return evaluator(info, key, params, facts)(first, count, actions)


def warm() -> None:
    """Compile (or load from numba's cache) the evaluator: one tiny evaluation (``vector.compile_kernels``)."""
    from fiveplay_env.agents.base import InformationSet
    from fiveplay_env.agents.search_params import SearchParams
    from fiveplay_env.take5 import GAME

    engine = GAME.new_engine(GAME.config_cls(num_players=3), seed=0)
    first = [int(np.flatnonzero(engine.legal_mask())[0])]
    for rollout in ("heuristic", "net"):
        evaluate(InformationSet(engine, 0), 1, 0, 1, first, SearchParams(rollout=rollout), None)
    from fiveplay_env.take5.batched import BatchedTake5  # distillation's samples (read-only engine views)

    eng = BatchedTake5(engine.config, 1, 0)
    batch_features(tuple(eng.field(name) for name in K.FIELDS), K.params(engine.config), np.zeros(1, np.int64),
                   np.zeros((1, 10, NET_FEATURES)), np.zeros((1, 10), np.int64), np.zeros(1, np.int64))


__all__ = ["NET_FEATURES", "NET_FILE", "batch_features", "card_features", "evaluate", "evaluator", "load_net",
           "net_scores", "rollout_net", "round9", "warm"]
