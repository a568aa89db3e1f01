"""5 Alive's search rollouts compiled (numba): every (world, candidate) value of a decision in one call.

``evaluate(info, key, first, count, actions, params, facts)`` returns, bit for bit, what the Python
rollouts give (``fiveplay_env.agents.five_alive.rollouts``)::

    for i in range(count):
        j = first + i
        world = info.sample_at(key, j, facts)                      # world j of the decision
        noise = world_noise(key, j, NOISE_LEN).tolist()
        for s, a in enumerate(actions):
            out[i, s] = rollouts.simulate(world.clone(), a, info.player, noise, None, params)

for ``rollout=heuristic`` and ``rollout=random`` (``rollout=policy`` raises ``ValueError``: its rollouts
are a network's, played by the search itself). ``evaluator(info, key, params, facts)`` is the same as a
function of ``(first, count, actions)``, for a search that evaluates a decision's worlds in slices (what
they share is prepared once).

The worlds, one row each of the batched state's arrays (``positions.SCHEMA``), are drawn in compiled code
(``_draw_worlds``) from the canonical state (``info.canonical()``), making the draws of
``seeding.CounterStream(key, j * WORLD_STRIDE, ...)`` that ``sample_at`` makes, with ``kernel_rng``'s twins:
the same worlds, hands, draw pile and seed:
  * without beliefs (``facts`` None or empty, or the game's ``condition`` returning None),
    ``determinize._sample_recorded``'s and ``GameDef.engine_of_world``'s draws (``_recorded_row``);
  * with beliefs, ``determinize._sample_conditioned``'s (``_conditioned_row``: up to ``CONDITIONED_TRIES``
    shuffles of the hidden cards, each dealt to the slot demands of the conditioned state, then the free
    slots, the cards left the draw pile, kept if it keeps ``draw_cap``; then the two seed draws), and where
    no try met the beliefs (``sample_at``'s ``RuntimeError``) the world drawn without them from its own
    counters again. What the worlds share (the canonical row, the hidden cards, the demands of the recorded
    facts and of ``condition(config, canonical, facts)``) is prepared in Python once per ``evaluator``;
  * in Python by the game's sampler (``info.sample_at``), read into the rows (``load``: the schema's
    reading, in a few numpy calls, then ``positions.check_rules``), only where the worlds are not
    ``determinize``'s: a game definition with another ``sample_conditioned``, or a ``condition`` that
    returns something other than a ``determinize.Conditioned`` (the fallback, exact by construction).
Then one compiled call (``_evaluate``) does the rest: for each world its rollout numbers
(``kernel_rng.uniforms``: ``world_noise``), and for each candidate a copy of the world's row in a one-game
scratch state, the candidate and the rollout played by the kernel's own step (``kernel.play_common``,
else ``kernel.play`` with ``slow`` and ``deal`` where it asks for them: the rules are the kernel's, not
written again here), the rollout policy (``rollouts.simulate``'s: epsilon-greedy five-alive-attacker, Bomb
answers by the rule, the searcher's insured 0) and the score (``rollouts.score``) written here as scalar
code over the row. Nothing runs in Python per world or per step.

The rollout stops where the reference's does: the game over (by the rules or ``max_steps``), the round
changed (the new round is not dealt: nothing after it is read), or ``depth`` turns played (``GUARD``
without a depth), then scored with the round end estimated from the hand sizes. ``NUMBA_DISABLE_JIT=1``
runs the same code as Python, with the same values. ``tests/agents/test_compiled_five_alive.py`` checks
the equality in every config family. numba's cache (``cache=True``) does not notice a change of the
kernel's files (``five_alive/kernel.py``, ``core/kernel_rng.py``) that these functions call: after editing
one, delete the caches (``make clean``) or they keep the old rules.
"""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import numba as nb
import numpy as np

from fiveplay_env.agents.base import WORLD_STRIDE
from fiveplay_env.agents.five_alive.constants import BOMB_MEAN_CARDS, DRAW_ALERT_CARDS, EMERGENCY_ORDER, REDEAL_MARGIN
from fiveplay_env.agents.five_alive.rollouts import WIN_WEIGHT
from fiveplay_env.core import kernel_rng
from fiveplay_env.core.gamedef import SEED_BOUND
from fiveplay_env.five_alive import determinize, kernel, positions
from fiveplay_env.five_alive.config import NUM_KINDS
from fiveplay_env.five_alive.determinize import ALL_KINDS
from fiveplay_env.five_alive.kernel import DEAL, FREE_BUST, GAME_OVER, MAX_CARDS, N, SLOW, TEAMS
from fiveplay_env.five_alive.state import (
    BOMB, BOMB_ANSWER, BUST, DRAW1, DRAW2, MAX_TOTAL, N0, NUM_ACTIONS, NUM_NUMBERS, REDEAL, expand,
)

NOISE_LEN = 64
"""Random numbers per world (``fiveplay_env.agents.search.NOISE_LEN``, which a test keeps equal: this module
does not import the search, which imports it)."""
GUARD = 400
"""The rollout's length without a ``depth`` (the reference's guard: a round cannot last forever)."""
ARRAYS_KEPT = 8
"""World arrays kept, one set per (config, count), the last used."""

_EMERGENCY = np.array(EMERGENCY_ORDER, np.int64)
_STRIDE = np.uint64(WORLD_STRIDE)
_NOISE_AT = np.uint64(WORLD_STRIDE - 1)
_SEED_BOUND = np.uint64(SEED_BOUND)
_FLOAT_BOMB_MEAN = float(BOMB_MEAN_CARDS)
_FLOAT_REDEAL = float(REDEAL_MARGIN)
_WIN = float(WIN_WEIGHT)
_ROW_FIELDS = ("hands", "hsize", "disc", "top", "draw", "dlen", "total", "dir", "cur", "phase", "lives", "bomber",
               "round", "counter", "nresh", "steps", "seed", "game_index")


# --- the rollout policy (leaves over row b of the state) -------------------------------------------------

@nb.njit(cache=True, inline="always")
def _saver(hands, b, q, total):
    """``heuristics.saver_card``: the largest number >= 1 that fits, a 0, a wild card in ``EMERGENCY_ORDER``,
    else BUST."""
    v = min(NUM_NUMBERS - 1, MAX_TOTAL - total)
    while v > 0:
        if hands[b, q, v] > 0:
            return v
        v -= 1
    if hands[b, q, N0] > 0:
        return N0
    for i in range(_EMERGENCY.shape[0]):
        if hands[b, q, _EMERGENCY[i]] > 0:
            return _EMERGENCY[i]
    return BUST


@nb.njit(cache=True, inline="always")
def _attacker(hands, hsize, lives, b, q, n, teams, total):
    """``rollouts._attacker``: five-alive-attacker's card for seat q (opponents: the other survivors; teams:
    the other team's)."""
    cnt = 0
    size_sum = 0
    min_size = 1 << 30
    min_lives = 1 << 30
    for r in range(n):
        if r != q and lives[b, r] > 0 and (not teams or r % 2 != q % 2):
            cnt += 1
            hs = np.int64(hsize[b, r])
            size_sum += hs
            min_size = min(min_size, hs)
            min_lives = min(min_lives, np.int64(lives[b, r]))
    if cnt:
        mean_size = float(size_sum) / float(cnt)
        if hands[b, q, BOMB] > 0 and (min_lives <= 1 or mean_size <= _FLOAT_BOMB_MEAN):
            return BOMB
        if min_size <= DRAW_ALERT_CARDS:
            if hands[b, q, DRAW2] > 0:
                return DRAW2
            if hands[b, q, DRAW1] > 0:
                return DRAW1
        if hands[b, q, REDEAL] > 0 and float(hsize[b, q]) >= mean_size + _FLOAT_REDEAL:
            return REDEAL
    return _saver(hands, b, q, total)


@nb.njit(cache=True, inline="always")
def _random_legal(hands, b, q, total, free_bust, x):
    """The legal action at ``int(x * len(legal))`` of the ascending legal list (PLAY phase: ``legal_bits``);
    ``x = u / eps``."""
    room = MAX_TOTAL - total
    m = 0
    for k in range(NUM_KINDS):
        if hands[b, q, k] > 0 and (k >= NUM_NUMBERS or k <= room):
            m += 1
    bust = m == 0 or free_bust
    if bust:
        m += 1
    i = int(x * m)
    for k in range(NUM_KINDS):
        if hands[b, q, k] > 0 and (k >= NUM_NUMBERS or k <= room):
            if i == 0:
                return k
            i -= 1
    return BUST


# --- the one compiled call -------------------------------------------------------------------------------

@nb.njit(cache=True)
def _evaluate(W, S, P, key, first, player, actions, eps, rel, alpha, depth, insure, out):
    """``out[i, c]``: the rollout value of ``actions[c]`` in world i (row i of the state tuple ``W``, world
    ``first + i`` of the decision keyed ``key``), played in row 0 of the scratch state tuple ``S``."""
    (w_hands, w_hsize, w_disc, w_top, w_draw, w_dlen, w_total, w_dir, w_cur, w_phase, w_lives, w_bomber, w_round,
     w_counter, w_nresh, w_steps, w_seed, w_game_index) = W
    (hands, hsize, disc, top, draw, dlen, total, dir_, cur, phase, lives, bomber, round_, counter, nresh, steps,
     seed, game_index, rewards, terminated, truncated, final_lives, final_result, final_win) = S
    n = P[N]
    teams = P[TEAMS] != 0
    free_bust = P[FREE_BUST] != 0
    keys = np.empty(MAX_CARDS, np.uint64)
    perm = np.empty(MAX_CARDS, np.int64)
    cards = np.empty(MAX_CARDS, np.int64)
    order = np.empty(8, np.int64)
    mask = np.empty((1, NUM_ACTIONS), np.int8)
    noise = np.empty(NOISE_LEN, np.float64)
    lives0 = np.empty(n, np.int64)
    delta = np.empty(n, np.float64)
    guard = depth if depth > 0 else GUARD
    count = out.shape[0]
    for i in range(count):
        kernel_rng.uniforms(key, np.uint64(first + i) * _STRIDE + _NOISE_AT, noise)
        for c in range(actions.shape[0]):
            # row 0 <- world i
            for q in range(n):
                hsize[0, q] = w_hsize[i, q]
                lives[0, q] = w_lives[i, q]
                lives0[q] = w_lives[i, q]
                for k in range(NUM_KINDS):
                    hands[0, q, k] = w_hands[i, q, k]
            for k in range(NUM_KINDS):
                disc[0, k] = w_disc[i, k]
            for k in range(w_dlen[i]):
                draw[0, k] = w_draw[i, k]
            top[0] = w_top[i]
            dlen[0] = w_dlen[i]
            total[0] = w_total[i]
            dir_[0] = w_dir[i]
            cur[0] = w_cur[i]
            phase[0] = w_phase[i]
            bomber[0] = w_bomber[i]
            round_[0] = w_round[i]
            counter[0] = w_counter[i]
            nresh[0] = w_nresh[i]
            steps[0] = w_steps[i]
            seed[0] = w_seed[i]
            game_index[0] = w_game_index[i]
            # the candidate, then the rollout: a step is the kernel's (play_common, else play with slow and
            # deal as it asks); the game ends (GAME_OVER: no next game here) or a round ends (DEAL)
            a = actions[c]
            over = False
            r0 = np.int64(round_[0])
            k = 0
            turns = -1  # the candidate is not one of the rollout's turns
            while True:
                if not kernel.play_common(hands, hsize, disc, top, total, dir_, cur, phase, lives, steps, rewards,
                                          terminated, truncated, P, 0, a, mask):
                    ev = kernel.play(hands, hsize, disc, top, draw, dlen, total, dir_, cur, phase, lives, bomber,
                                     round_, nresh, steps, rewards, terminated, truncated, final_lives, final_result,
                                     final_win, P, 0, a, False, order)
                    if ev == SLOW:
                        kernel.slow(hands, hsize, disc, top, draw, dlen, total, dir_, cur, lives, counter, nresh,
                                    seed, P, 0, a, keys, perm, cards, order)
                        ev = kernel.play(hands, hsize, disc, top, draw, dlen, total, dir_, cur, phase, lives, bomber,
                                         round_, nresh, steps, rewards, terminated, truncated, final_lives,
                                         final_result, final_win, P, 0, a, True, order)
                    if ev == GAME_OVER:
                        over = True
                        break
                    if ev == DEAL:
                        if turns >= 0:
                            break  # the round changed: the rollout is over
                        kernel.deal(hands, hsize, disc, top, draw, dlen, total, phase, lives, bomber, counter, nresh,
                                    seed, P, 0, keys, perm, cards)
                        r0 = np.int64(round_[0])  # the candidate ended the round: the rollout plays the next one
                if turns < 0:
                    turns = guard
                    r0 = np.int64(round_[0])
                if turns == 0:
                    break
                turns -= 1
                q = np.int64(cur[0])
                tot = np.int64(total[0])
                if phase[0] == BOMB_ANSWER:
                    a = N0 if hands[0, q, N0] > 0 else BUST
                else:
                    u = noise[k % NOISE_LEN]
                    k += 1
                    if u < eps:
                        a = _random_legal(hands, 0, q, tot, free_bust, u / eps)
                    else:
                        if hands[0, q, BOMB] > 0 or hands[0, q, DRAW1] > 0 or hands[0, q, DRAW2] > 0 \
                                or hands[0, q, REDEAL] > 0:
                            a = _attacker(hands, hsize, lives, 0, q, n, teams, tot)
                        else:
                            a = _saver(hands, 0, q, tot)
                        if a == N0 and q == player and insure and hands[0, q, N0] == 1 and disc[0, BOMB] == 0:
                            # the searcher keeps its last 0 against the Bomb, spending a wild card if it has one
                            for e in range(_EMERGENCY.shape[0]):
                                if hands[0, q, _EMERGENCY[e]] > 0:
                                    a = _EMERGENCY[e]
                                    break
            # the score (rollouts.score)
            if over:
                result = np.int64(final_result[0, player])
            else:
                result = -1 if (lives[0, player] == 0 and not teams) else 0
            for q in range(n):
                delta[q] = float(np.int64(lives[0, q]) - lives0[q])
            if not over and np.int64(round_[0]) == r0:
                # stopped by the depth: every survivor but the fewest cards' loses a life (k tied: (k-1)/k each)
                low = 1 << 30
                for q in range(n):
                    if lives[0, q] > 0:
                        low = min(low, np.int64(hsize[0, q]))
                tied = 0
                for q in range(n):
                    if lives[0, q] > 0 and hsize[0, q] == low:
                        tied += 1
                for q in range(n):
                    if lives[0, q] > 0:
                        if hsize[0, q] == low:
                            delta[q] -= (tied - 1) / tied
                        else:
                            delta[q] -= 1.0
            if alpha:
                if result != 0:
                    out[i, c] = 1.0 if result > 0 else 0.0
                    continue
                left = lives0[player] + delta[player]
                mine = (left if left > 0.0 else 0.0) ** alpha  # max(0.0, left), as Python's max picks
                rivals = 0.0
                for q in range(n):
                    if q != player and lives0[q] > 0 and (not teams or q % 2 != player % 2):
                        left = lives0[q] + delta[q]
                        rivals += (left if left > 0.0 else 0.0) ** alpha
                        if teams:
                            break  # the other team, once
                tot_ = mine + rivals
                out[i, c] = mine / tot_ if tot_ > 0 else 0.0
                continue
            value = delta[player]
            m = 0
            others = 0.0
            for q in range(n):
                if q != player and lives0[q] > 0 and (not teams or q % 2 != player % 2):
                    m += 1
                    others += delta[q]
            if m and rel:
                value -= rel * others / m
            if over or result != 0:
                value += _WIN * result
            out[i, c] = value


# --- the worlds, drawn in compiled code (determinize._sample_recorded's and _sample_conditioned's twins) --

@nb.njit(cache=True, inline="always")
def _copy_row(C, W, i):
    """Row i of ``W`` <- the canonical state (row 0 of ``C``); ``game_index`` 0. The draw pile and the other
    survivors' hands are the sampler's to fill."""
    (c_hands, c_hsize, c_disc, c_top, c_draw, c_dlen, c_total, c_dir, c_cur, c_phase, c_lives, c_bomber, c_round,
     c_counter, c_nresh, c_steps, c_seed, c_game_index) = C
    (hands, hsize, disc, top, draw, dlen, total, dir_, cur, phase, lives, bomber, round_, counter, nresh, steps,
     seed, game_index) = W
    for q in range(hands.shape[1]):
        hsize[i, q] = c_hsize[0, q]
        lives[i, q] = c_lives[0, q]
        for k in range(NUM_KINDS):
            hands[i, q, k] = c_hands[0, q, k]
    for k in range(NUM_KINDS):
        disc[i, k] = c_disc[0, k]
    top[i] = c_top[0]
    total[i] = c_total[0]
    dir_[i] = c_dir[0]
    cur[i] = c_cur[0]
    phase[i] = c_phase[0]
    bomber[i] = c_bomber[0]
    round_[i] = c_round[0]
    counter[i] = c_counter[0]
    nresh[i] = c_nresh[0]
    steps[i] = c_steps[0]
    game_index[i] = 0


@nb.njit(cache=True)
def _recorded_row(hands, draw, dlen, seed, i, key, base, others, need, cards, d, has_cap, cap, dem_q, dem_bits,
                  dem_slots, set_bits, slack0, keys, perm, left, slack, taken):
    """Row i's hidden cards as ``determinize._sample_recorded`` deals them from ``CounterStream(key, base)``:
    the hidden cards ``cards`` shuffled by the stream's second draw, the draw pile filled first while every
    fact stays satisfiable, then the demanded hand slots, tightest first, then the free ones in seat order;
    its seed the stream's third draw (``GameDef.engine_of_world``; the first, the sampler's own seed, is
    overwritten by it). False if the deal failed (never: the canonical state's hidden cards satisfy its
    facts)."""
    m = cards.shape[0]
    kernel_rng.permutation(key, base + np.uint64(1), m, keys, perm)
    for s in range(slack0.shape[0]):
        slack[s] = slack0[s]
    taken[:] = 0
    dl = 0
    nleft = 0
    for j in range(m):
        k = cards[perm[j]]
        ok = dl < d and (not has_cap or taken[k] < cap[k])
        if ok:
            for s in range(set_bits.shape[0]):
                if (set_bits[s] >> k) & 1 and slack[s] <= 0:
                    ok = False
                    break
        if ok:
            draw[i, dl] = k
            dl += 1
            taken[k] += 1
            for s in range(set_bits.shape[0]):
                if (set_bits[s] >> k) & 1:
                    slack[s] -= 1
        else:
            left[nleft] = k
            nleft += 1
    if dl != d:
        return False
    dlen[i] = dl
    for t in range(others.shape[0]):
        for k in range(NUM_KINDS):
            hands[i, others[t], k] = 0
    for t in range(dem_q.shape[0]):  # the demanded slots, tightest first
        q, allowed, slots = dem_q[t], dem_bits[t], dem_slots[t]
        kept = 0
        for j in range(nleft):
            k = left[j]
            if slots and (allowed >> k) & 1:
                hands[i, q, k] += 1
                slots -= 1
            else:
                left[kept] = k
                kept += 1
        if slots:
            return False
        nleft = kept
    pos = 0
    for t in range(others.shape[0]):  # then the free slots, in seat order
        for j in range(pos, pos + need[t]):
            hands[i, others[t], left[j]] += 1
        pos += need[t]
    seed[i] = np.uint64(kernel_rng.below(key, base + np.uint64(2), _SEED_BOUND))
    return True


@nb.njit(cache=True)
def _conditioned_row(hands, draw, dlen, seed, i, key, base, others, size, cards, has_cap, cap, dem_q, dem_bits,
                     dem_slots, tries, keys, perm, deck, left, need, counts):
    """Row i's hidden cards as ``determinize._sample_conditioned`` deals them from ``CounterStream(key,
    base)``: per try the hidden cards shuffled again (in place: the stream's next draw), dealt by
    ``_deal_hands`` (the demanded slots of the recorded facts and the beliefs, tightest first, then each
    hand's free slots in seat order, the cards left the draw pile), kept if the draw pile keeps
    ``draw_cap``; then the sampler's seed (a draw) and ``GameDef.engine_of_world``'s (the next, the kept one).
    False if no try met the beliefs (``RuntimeError`` in Python: the row is then drawn without them). ``dem_q``:
    the demands' players as indices into ``others`` (``size``, their hand sizes)."""
    m = cards.shape[0]
    for j in range(m):
        deck[j] = cards[j]
    for t in range(tries):
        kernel_rng.permutation(key, base + np.uint64(t), m, keys, perm)  # rng.shuffle(cards)
        for j in range(m):
            left[j] = deck[perm[j]]
        for j in range(m):
            deck[j] = left[j]
        for r in range(others.shape[0]):
            need[r] = size[r]
            for k in range(NUM_KINDS):
                hands[i, others[r], k] = 0
        nleft = m
        ok = True
        for d in range(dem_q.shape[0]):  # the demanded slots, tightest first
            r, allowed, slots = dem_q[d], dem_bits[d], dem_slots[d]
            q = others[r]
            kept = 0
            for j in range(nleft):
                k = left[j]
                if slots and (allowed >> k) & 1:
                    hands[i, q, k] += 1
                    slots -= 1
                    need[r] -= 1
                else:
                    left[kept] = k
                    kept += 1
            if slots:
                ok = False
                break
            nleft = kept
        if not ok:
            continue
        pos = 0
        for r in range(others.shape[0]):  # then the free slots, in seat order
            for j in range(pos, pos + need[r]):
                hands[i, others[r], left[j]] += 1
            pos += need[r]
        if has_cap:
            counts[:] = 0
            for j in range(pos, nleft):
                counts[left[j]] += 1
            for k in range(NUM_KINDS):
                if counts[k] > cap[k]:
                    ok = False
            if not ok:
                continue
        for j in range(pos, nleft):
            draw[i, j - pos] = left[j]
        dlen[i] = nleft - pos
        seed[i] = np.uint64(kernel_rng.below(key, base + np.uint64(t + 2), _SEED_BOUND))
        return True
    return False


@nb.njit(cache=True)
def _draw_worlds(C, W, key, first, others, need, cards, d, has_cap, cap, dem_q, dem_bits, dem_slots, set_bits,
                 slack0, c_size, c_dem_q, c_dem_bits, c_dem_slots, tries, fell):
    """Rows 0..count-1 of ``W``: worlds ``first + i`` of the decision keyed ``key``, drawn from the canonical
    state (row 0 of ``C``) as ``InformationSet.sample_at(key, first + i, facts)`` draws them. With beliefs
    (``tries`` > 0: ``c_dem_*`` the slot demands of the conditioned state, ``c_size`` the other survivors'
    hand sizes), ``_conditioned_row``; where no try met them (``fell[i]`` set), and without beliefs,
    ``_recorded_row`` from the world's counters again. Returns -1, or the first world whose recorded deal
    failed (never: the canonical state's hidden cards satisfy its facts)."""
    hands, draw, dlen, seed = W[0], W[4], W[5], W[16]
    m = cards.shape[0]
    keys = np.empty(max(m, 1), np.uint64)
    perm = np.empty(max(m, 1), np.int64)
    left = np.empty(max(m, 1), np.int64)
    deck = np.empty(max(m, 1), np.int64)
    slack = np.empty(slack0.shape[0], np.int64)
    taken = np.empty(NUM_KINDS, np.int64)
    cneed = np.empty(others.shape[0], np.int64)
    for i in range(hands.shape[0]):
        _copy_row(C, W, i)
        base = np.uint64(first + i) * _STRIDE
        fell[i] = False
        if tries > 0:
            if _conditioned_row(hands, draw, dlen, seed, i, key, base, others, c_size, cards, has_cap, cap,
                                c_dem_q, c_dem_bits, c_dem_slots, tries, keys, perm, deck, left, cneed, taken):
                continue
            fell[i] = True
        if not _recorded_row(hands, draw, dlen, seed, i, key, base, others, need, cards, d, has_cap, cap, dem_q,
                             dem_bits, dem_slots, set_bits, slack0, keys, perm, left, slack, taken):
            return i
    return -1


# --- the Python side: worlds in, values out --------------------------------------------------------------

_ARRAYS: OrderedDict[tuple[Any, int], tuple[dict[str, np.ndarray], tuple[np.ndarray, ...]]] = OrderedDict()
_SCRATCH: dict[Any, tuple[tuple[np.ndarray, ...], np.ndarray]] = {}


def _rows(config: Any, count: int) -> tuple[dict[str, np.ndarray], tuple[np.ndarray, ...]]:
    """The schema's arrays for ``count`` worlds of ``config`` and the tuple of their row fields (kept: the
    last ``ARRAYS_KEPT`` (config, count) used; filled and read within one call)."""
    k = (config, count)
    got = _ARRAYS.get(k)
    if got is None:
        arrays = positions.SCHEMA.allocate(count, positions.dims(config))
        got = _ARRAYS[k] = (arrays, tuple(arrays[name] for name in _ROW_FIELDS))
        while len(_ARRAYS) > ARRAYS_KEPT:
            _ARRAYS.popitem(last=False)
    else:
        _ARRAYS.move_to_end(k)
    return got


def _scratch(config: Any) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """The one-game scratch state (the schema's arrays, its order) and the kernel's params of ``config``."""
    got = _SCRATCH.get(config)
    if got is None:
        if len(_SCRATCH) >= ARRAYS_KEPT:
            _SCRATCH.clear()
        arrays = positions.SCHEMA.allocate(1, positions.dims(config))
        got = _SCRATCH[config] = (tuple(arrays[name] for name in positions.SCHEMA.names), kernel.params(config))
    return got


def load(states: Sequence[Any], arrays: dict[str, np.ndarray], P: np.ndarray) -> None:
    """``arrays`` (the schema's, ``len(states)`` rows) <- the reference states, field by field as the schema
    reads them (``positions.SCHEMA.from_states``, which a test keeps equal), a few numpy calls for all the
    rows instead of its checks per state and value (about 6 instead of 370 us a world); then the rules'
    compiled check (``positions.check_rules``). The states are worlds of the game's own sampler."""
    a = arrays
    a["hands"][:] = [s.hands for s in states]
    a["hsize"][:] = [s.hand_size for s in states]
    a["disc"][:] = [s.discard for s in states]
    a["lives"][:] = [s.lives for s in states]
    draw = a["draw"]
    for i, s in enumerate(states):
        draw[i, :len(s.draw)] = s.draw
    for name, attr in _SCALARS:
        a[name][:] = [getattr(s, attr) for s in states]
    a["dlen"][:] = [len(s.draw) for s in states]
    a["seed"][:] = np.array([s.seed for s in states], np.uint64)
    a["game_index"][:] = 0
    positions.check_rules(a, P)


_SCALARS = (("top", "top"), ("total", "total"), ("dir", "direction"), ("cur", "current"), ("phase", "phase"),
            ("bomber", "bomber"), ("round", "round"), ("counter", "counter"), ("nresh", "reshuffles"),
            ("steps", "turns"))


def _recorded(info: Any, canon: Any = None) -> tuple[Any, ...]:
    """``_draw_worlds``' arguments after the key and ``first`` for ``info``'s worlds without beliefs: the
    canonical state (``info.canonical()``, or ``canon``) as one row, and what ``determinize._sample_recorded``
    computes before its shuffle (the other survivors, the hidden cards, the slot demands of the recorded
    facts, the draw pile's caps and the slack of each fact set), the same for every world."""
    canon = info.canonical() if canon is None else canon
    config = info.config
    player = info.player
    carr = positions.SCHEMA.allocate(1, positions.dims(config))
    load([canon], carr, kernel.params(config))
    others = [q for q in range(canon.num_players) if q != player and canon.alive[q]]
    pool = canon.draw_counts()  # determinize._hidden
    for q in others:
        for k in range(NUM_KINDS):
            pool[k] += canon.hands[q][k]
    demands = determinize.slot_demands(canon.known, others)
    sets = sorted({a for _, _, a, _ in demands})
    slack = [sum(pool[k] for k in range(NUM_KINDS) if (a >> k) & 1) - sum(s for _, _, b, s in demands if b & a == b)
             for a in sets]
    need = [canon.hand_size[q] - sum(s for _, r, _, s in demands if r == q) for q in others]
    cap = canon.draw_cap[player]
    i64 = np.int64
    return (tuple(carr[name] for name in _ROW_FIELDS), np.array(others, i64), np.array(need, i64),
            np.array(expand(pool), i64), i64(len(canon.draw)), cap is not None,
            np.array(cap if cap is not None else [0] * NUM_KINDS, i64),
            np.array([q for _, q, _, _ in demands], i64), np.array([a for _, _, a, _ in demands], i64),
            np.array([s for _, _, _, s in demands], i64), np.array(sets, i64), np.array(slack, i64))


_EMPTY = np.zeros(0, np.int64)
UNCONDITIONED = (_EMPTY, _EMPTY, _EMPTY, _EMPTY, np.int64(0))
"""``_draw_worlds``' belief arguments for worlds without beliefs (no conditioned try)."""


def _conditioned(info: Any, canon: Any, facts: dict[int, int] | None) -> tuple[Any, ...] | None:
    """``_draw_worlds``' belief arguments (after ``_recorded``'s) for ``info.sample_at(key, j, facts)``: the
    other survivors' hand sizes, the slot demands of the conditioned state (``condition``: the recorded
    facts and the beliefs; ``slot_demands``, their players as indices into the other survivors) and
    ``CONDITIONED_TRIES``; ``UNCONDITIONED`` where ``sample_at`` draws every world without beliefs (no
    facts, a game without ``condition``, or ``condition`` returning None). None where the worlds are not
    ``determinize._sample_conditioned``'s (another ``sample_conditioned``, a state that is not a
    ``Conditioned``): the game's sampler then draws them in Python."""
    game = info.game
    if not facts or game.condition is None:
        return UNCONDITIONED
    cond = game.condition(info.config, canon.clone(), facts)
    if cond is None:
        return UNCONDITIONED
    if game.sample_conditioned is not determinize.sample_conditioned or type(cond) is not determinize.Conditioned:
        return None
    state = cond.state
    others = [q for q in range(state.num_players) if q != info.player and state.alive[q]]  # determinize._hidden
    demands = determinize.slot_demands(state.known, others)
    i64 = np.int64
    return (np.array([state.hand_size[q] for q in others], i64),
            np.array([others.index(q) for _, q, _, _ in demands], i64),
            np.array([a for _, _, a, _ in demands], i64), np.array([s for _, _, _, s in demands], i64),
            i64(determinize.CONDITIONED_TRIES))


def evaluator(info: Any, key: int, params: Any, facts: dict[int, int] | None
              ) -> Callable[[int, int, Sequence[int]], np.ndarray]:
    """``values(first, count, actions)``: ``evaluate(info, key, first, count, actions, params, facts)``, with
    what the decision's worlds share (the canonical state's sampling data, the beliefs' slot demands)
    prepared once."""
    if params.rollout == "policy":
        raise ValueError("rollout=policy: the compiled rollouts play the heuristic and random rollouts only")
    config = info.config
    player = np.int64(info.player)
    ukey = np.uint64(key)
    S, P = _scratch(config)
    rates = (float(params.eps), float(params.rel), float(params.alpha), np.int64(params.depth), bool(params.insure))
    canon = info.canonical()
    beliefs = _conditioned(info, canon, facts)
    recorded = None if beliefs is None else _recorded(info, canon) + beliefs

    def values(first: int, count: int, actions: Sequence[int]) -> np.ndarray:
        count = int(count)
        acts = np.asarray(list(actions), np.int64)
        out = np.empty((count, len(acts)), np.float64)
        if count == 0 or len(acts) == 0:
            return out
        arrays, W = _rows(config, count)
        if recorded is None:  # the game's own sampler, in Python
            load([info.sample_at(key, first + i, facts).state for i in range(count)], arrays, P)
        elif _draw_worlds(recorded[0], W, ukey, np.int64(first), *recorded[1:],
                          np.empty(count, np.bool_)) >= 0:  # pragma: no cover
            raise RuntimeError("sample_world: the recorded public knowledge is inconsistent")
        _evaluate(W, S, P, ukey, np.int64(first), player, acts, *rates, out)
        return out

    return values


def evaluate(info: Any, key: int, first: int, count: int, actions: Sequence[int], params: Any,
             facts: dict[int, int] | None) -> np.ndarray:
    """float64 [count, len(actions)]: the rollout value of each candidate ``actions[c]`` in each world
    ``first + i`` of the decision keyed ``key`` (``info.sample_at(key, first + i, facts)``), equal bit for bit
    to ``rollouts.simulate`` on that world with its ``world_noise`` (the module docstring). ``params``: a
    ``SearchParams`` with ``rollout`` ``heuristic`` or ``random`` (``ValueError`` for ``policy``). The worlds
    are drawn in compiled code too, with or without ``facts`` (by the game's sampler in Python only for a
    game definition whose conditioned sampler is not ``determinize``'s). A search that asks for several slices
    of one decision's worlds calls ``evaluator`` once instead."""
    return evaluator(info, key, params, facts)(first, count, actions)


def warm() -> None:
    """Compile (or load from numba's cache) the compiled calls once, on a 2-player game, with and without
    beliefs: ``vector.compile_kernels`` calls it before ``make test``'s workers start."""
    from fiveplay_env.agents.base import InformationSet
    from fiveplay_env.agents.search_params import SearchParams
    from fiveplay_env.five_alive.config import FiveAliveConfig
    from fiveplay_env.five_alive.engine import FiveAliveEngine

    engine = FiveAliveEngine(FiveAliveConfig(num_players=2), seed=0)
    info = InformationSet(engine, engine.current_player)
    actions = [int(a) for a in np.flatnonzero(engine.legal_mask())][:2]
    evaluate(info, 1, 0, 2, actions, SearchParams(sims=1), None)
    evaluate(info, 1, 0, 2, actions, SearchParams(sims=1), {1 - info.player: ALL_KINDS})


__all__ = ["NOISE_LEN", "evaluate", "evaluator", "load", "warm"]
