"""The 5 Alive rules compiled: one game's row of the batched state, stepped by plain scalar code (numba).

It reads like the reference engine (``fiveplay_env.five_alive.engine``): the acting seat plays a card or
BUSTs, the card takes effect (numbers, Reverse, Skip, the = cards, Draw 1/2 with reshuffles of the discard
pile, Hand In & Re-Deal, the Bomb and its answers), lives are lost, seats eliminated, rounds end and are
dealt again, and the game ends by the variant's rule or by ``max_steps``. The rules are written again
here, not shared with the reference, so that the two implementations check each other
(``fiveplay_env.testing``'s replay contract); they share the constants of ``state.py`` and the
counter-based randomness (``core.kernel_rng`` is ``core.seeding`` compiled), so every deal, reshuffle and
Re-Deal draws the reference's cards.

The state is the struct of arrays of ``fiveplay_env.five_alive.positions.SCHEMA`` (one row per game, in
the order of ``FIELDS``), the config the int64 vector ``P`` (``params``). A seat survives iff it has lives
left (a game whose last life is lost in teams or sudden death is over at once), so neither the survivors
nor the results of a game in progress are stored: an eliminated seat has lost (-1), every other seat is
undecided (0). The draw pile is a stack: ``draw[:dlen]``, the next card drawn ``draw[dlen - 1]`` (the
reference's ``draw`` list as it is).

How it is cut, for speed: a step is ``play_common`` (the common 90% of random play, whole, with its mask
row) or else ``play``; both allocate nothing and raise nothing, so they are compiled without numba's
reference counting (``_nrt=False``; with it, every call paid about 8 ns per array argument: numba's
pruning gives up on functions with several exits or raising paths). ``play`` does everything but the
random events: it returns ``SLOW`` (nothing changed) for a Re-Deal and for a Draw that may reshuffle,
which ``slow`` plays before ``play`` finishes the turn (``resume``), ``DEAL`` when the round is over and
a new deal is due (``deal``), ``GAME_OVER`` when the game ended (the slot then starts its next game:
``next_game``). ``step_all`` / ``start_all`` / ``mask_all`` run over the batch's B rows; a search steps
single worlds with ``step_one``. ``NUMBA_DISABLE_JIT=1`` runs this same code as Python (to debug a rule with pdb or prints).
"""
from __future__ import annotations

import numba as nb
import numpy as np

from fiveplay_env.core import kernel_rng
from fiveplay_env.five_alive.config import HAND_SIZE, LIVES, NUM_KINDS
from fiveplay_env.five_alive.state import (
    BOMB, BOMB_ANSWER, BUST, DRAW1, DRAW2, EQ0, EQ10, EQ21, MAX_TOTAL, N0, NUM_ACTIONS, NUM_NUMBERS, OVER, PLAY,
    REDEAL, REVERSE, SKIP,
)

FIELDS = ("hands", "hsize", "disc", "top", "draw", "dlen", "total", "dir", "cur", "phase", "lives", "bomber",
          "round", "counter", "nresh", "steps", "seed", "game_index", "rewards", "terminated", "truncated",
          "final_lives", "final_result", "final_win")
"""The order of the state tuple ``S`` (the schema's fields)."""

# params: the config as ints; the deck's counts per kind from COUNTS on
(N, DECK, TEAMS, SUDDEN, OPTIONAL, FREE_BUST, RESOLVES, EACH, RESHUFFLE, MAX_RESH, START_DEALER, KEEP_DIR,
 WILD_VALUE, SHARED, REWARD_RESULTS, REWARD_LIVES, MAX_STEPS, FIRST_RANDOM, COUNTS) = range(19)
NPARAMS = COUNTS + NUM_KINDS
MAX_CARDS = 256  # scratch size: the largest deck (config.MAX_DECK) and one

# what ``play`` asks of its caller
DONE, SLOW, DEAL, GAME_OVER = 0, 1, 2, 3
_ROUND = 4  # inside ``play``: the round ends (from seat ``rp``)


def params(config) -> np.ndarray:
    """int64 [NPARAMS]: ``config`` as the kernel reads it (``MAX_STEPS`` -1 for no limit)."""
    p = np.zeros(NPARAMS, np.int64)
    p[N], p[DECK] = config.num_players, config.deck_size
    p[TEAMS], p[SUDDEN] = config.variant == "teams", config.variant == "sudden_death"
    p[OPTIONAL], p[FREE_BUST] = config.bomb_zero_optional, config.allow_voluntary_bust
    p[RESOLVES], p[EACH] = config.bomb_last_card_resolves, config.draw_order == "each"
    p[RESHUFFLE], p[MAX_RESH] = config.empty_draw_pile == "reshuffle", config.max_reshuffles
    p[START_DEALER], p[KEEP_DIR] = config.new_round_start == "dealer", config.new_round_direction == "keep"
    p[WILD_VALUE], p[SHARED] = config.tiebreak_wild_value, config.final_tiebreak == "shared"
    p[REWARD_RESULTS], p[REWARD_LIVES] = config.reward != "lives", config.reward != "win_loss"
    p[MAX_STEPS] = -1 if config.max_steps is None else config.max_steps
    p[FIRST_RANDOM] = config.first_player == "random"
    p[COUNTS:] = config.deck_counts
    return p


def state_tuple(st: dict) -> tuple:
    return tuple(st[name] for name in FIELDS)


def scratch() -> tuple:
    """The work arrays of one stepping loop: shuffle keys, a permutation, a multiset's cards, seats."""
    return (np.empty(MAX_CARDS, np.uint64), np.empty(MAX_CARDS, np.int64), np.empty(MAX_CARDS, np.int64),
            np.empty(8, np.int64))


# --- seats (leaves) ----------------------------------------------------------------------------------------

@nb.njit(cache=True, inline="always")
def next_seat(lives, dir_, n, b, seat):
    """The next surviving seat after ``seat`` in the current direction (``seat`` need not survive)."""
    d = np.int64(dir_[b])
    s = (seat + d + n) % n
    while lives[b, s] == 0:
        s = (s + d + n) % n
    return s


@nb.njit(cache=True, inline="always")
def turn_order(lives, dir_, n, b, start, order):
    """``order[:m]``: the survivors in turn order, ``start`` first if it survives; returns m."""
    d = np.int64(dir_[b])
    m = 0
    s = start
    for _ in range(n):
        if lives[b, s] > 0:
            order[m] = s
            m += 1
        s = (s + d + n) % n
    return m


@nb.njit(cache=True, inline="always")
def alive_bits(lives, n, b):
    bits = 0
    for q in range(n):
        if lives[b, q] > 0:
            bits |= 1 << q
    return bits


# --- cards (leaves) ----------------------------------------------------------------------------------------

@nb.njit(cache=True, inline="always")
def remove_card(hands, hsize, disc, top, b, p, k):
    """One card of kind k from p's hand onto the discard pile (its new top card); p's new hand size."""
    hands[b, p, k] -= 1
    hs = hsize[b, p] - 1
    hsize[b, p] = hs
    disc[b, k] += 1
    top[b] = k
    return hs


@nb.njit(cache=True, inline="always")
def draw_count(lives, n, b, k):
    """The cards a Draw card of kind k makes the other survivors draw (if the pile holds them)."""
    m = 0
    for q in range(n):
        if lives[b, q] > 0:
            m += 1
    return (1 if k == DRAW1 else 2) * (m - 1)


@nb.njit(cache=True, inline="always")
def draws_no_refill(hands, hsize, draw, dlen, lives, dir_, P, b, p, count, order):
    """Every other survivor draws ``count`` cards, in turn order from the seat after p (``draw_order``),
    from a pile that is not refilled (the drawing stops when it is empty)."""
    n = P[N]
    m = turn_order(lives, dir_, n, b, next_seat(lives, dir_, n, b, p), order) - 1  # p (last) left out
    for j in range(count * m):
        i = j // count if P[EACH] else j % m
        if dlen[b] == 0:
            return
        t = dlen[b] - 1
        dlen[b] = t
        q = order[i]
        hands[b, q, draw[b, t]] += 1
        hsize[b, q] += 1


# --- lives and the end of games (leaves) -------------------------------------------------------------------

@nb.njit(cache=True, inline="always")
def end_game(lives, phase, rewards, final_result, final_win, P, b, winners):
    """Game b is over: the seats of the bit set ``winners`` win, every undecided seat loses (an eliminated
    seat lost when it was eliminated); the results and win shares are written to ``final_*``."""
    n = P[N]
    count = 0
    for q in range(n):
        count += (winners >> q) & 1
    share = 1.0 if P[TEAMS] else 1.0 / max(count, 1)
    for q in range(n):
        won = (winners >> q) & 1
        final_win[b, q] = share if won else 0.0
        if not P[TEAMS] and lives[b, q] == 0:
            final_result[b, q] = -1  # eliminated: decided already
            continue
        r = 1 if won else -1
        final_result[b, q] = r
        if P[REWARD_RESULTS]:
            rewards[b, q] += r
    phase[b] = OVER


@nb.njit(cache=True, inline="always")
def sudden_death_winners(hands, lives, dir_, P, b, actor, order):
    """docs/rules.md 2.7: most lives, then the lowest hand value (number cards' sum, wild cards counting
    ``tiebreak_wild_value``), then ``final_tiebreak`` (the first in turn order from the seat that acted at
    this step, or all of them): the winners' bit set."""
    n = P[N]
    m = turn_order(lives, dir_, n, b, actor, order)
    best, low, winners = -1, 1 << 30, 0
    for i in range(m):
        q = order[i]
        v = 0
        for k in range(NUM_KINDS):
            v += hands[b, q, k] * (k if k < NUM_NUMBERS else P[WILD_VALUE])
        if lives[b, q] > best or (lives[b, q] == best and v < low):
            best, low, winners = lives[b, q], v, 1 << q
        elif lives[b, q] == best and v == low and P[SHARED]:
            winners |= 1 << q
    return winners


@nb.njit(cache=True, inline="always")
def eliminate(hands, hsize, disc, rewards, P, b, q):
    """q is out (docs/rules.md 2.6): its hand goes to the discard pile beneath the top card; it has lost."""
    for k in range(NUM_KINDS):
        disc[b, k] += hands[b, q, k]
        hands[b, q, k] = 0
    hsize[b, q] = 0
    if P[REWARD_RESULTS]:
        rewards[b, q] -= 1.0


@nb.njit(cache=True, inline="always")
def after_eliminations(hands, lives, dir_, P, b, actor, order):
    """The winners' bit set if eliminations just ended the game (sudden death, or one survivor left),
    else -1."""
    if P[SUDDEN]:
        return sudden_death_winners(hands, lives, dir_, P, b, actor, order)
    bits = alive_bits(lives, P[N], b)
    return bits if (bits & (bits - 1)) == 0 else -1


@nb.njit(cache=True, inline="always")
def lose_life(hands, hsize, disc, dir_, lives, rewards, P, b, q, actor, order):
    """q (teams: q's team) loses one life; eliminations follow. Returns the winners' bit set if that ended
    the game (the caller then ends it: ``end_game``), else -1."""
    n = P[N]
    if P[TEAMS]:
        for m in range(q % 2, n, 2):
            lives[b, m] -= 1
            if P[REWARD_LIVES]:
                rewards[b, m] -= 1.0
        return alive_bits(lives, n, b) if lives[b, q] == 0 else -1  # the other team
    lives[b, q] -= 1
    if P[REWARD_LIVES]:
        rewards[b, q] -= 1.0
    if lives[b, q] > 0:
        return -1
    eliminate(hands, hsize, disc, rewards, P, b, q)
    return after_eliminations(hands, lives, dir_, P, b, actor, order)


# --- the step (one leaf) -----------------------------------------------------------------------------------

@nb.njit(cache=True, error_model="numpy", _nrt=False)
def play(hands, hsize, disc, top, draw, dlen, total, dir_, cur, phase, lives, bomber, round_, nresh, steps,
         rewards, terminated, truncated, final_lives, final_result, final_win, P, b, a, resume, order):
    """Game b plays action ``a`` (legal: the engine checked it); the step's rewards go to ``rewards[b]``.
    Returns DONE, or what the caller must do: SLOW (nothing changed: ``slow`` plays the card's random part,
    then ``play(..., resume=True)`` the rest), DEAL (the round is over: ``deal``), GAME_OVER (the game ended,
    its outputs written: ``next_game``). No call inside (see the module docstring)."""
    n = P[N]
    for q in range(n):
        rewards[b, q] = 0.0
    terminated[b] = False
    truncated[b] = False
    p = np.int64(cur[b])
    ev = DONE
    rp = p         # the seat from which the round ends (ev == _ROUND)
    cont = -1      # the Bomb's answers resume after this seat
    loser = -1     # the seat losing a life (a BUST, or a Bomb answered without a 0)
    winners = -1   # the game is over: its winners
    if resume:  # ``slow`` played card a (a Draw or a Re-Deal, not a Bomb or a Skip)
        if hsize[b, p] == 0:
            ev = _ROUND
        else:
            cur[b] = next_seat(lives, dir_, n, b, p)
    elif phase[b] == BOMB_ANSWER:
        if a == N0:
            remove_card(hands, hsize, disc, top, b, p, N0)
        else:
            loser = p
        cont = p
    elif a == BUST:  # p plays nothing: a life lost, T = 0, the turn passes
        total[b] = 0
        loser = p
    else:  # p plays a card of kind a (docs/rules.md 2.3.3, 2.4); then the turn ends (2.3.4-5)
        if a == REDEAL and hsize[b, p] > 1:
            return SLOW
        if (a == DRAW1 or a == DRAW2) and P[RESHUFFLE] and nresh[b] < P[MAX_RESH] \
                and dlen[b] < draw_count(lives, n, b, a):
            return SLOW  # the pile may be reshuffled
        hs = remove_card(hands, hsize, disc, top, b, p, a)
        if a < NUM_NUMBERS:
            total[b] += a
        elif a == REVERSE:
            dir_[b] = -dir_[b]
        elif a == EQ21:
            total[b] = 21
        elif a == EQ10:
            total[b] = 10
        elif a == EQ0 or a == REDEAL:  # a Re-Deal here is the last card: nothing to re-deal
            total[b] = 0
        elif a == DRAW1 or a == DRAW2:
            draws_no_refill(hands, hsize, draw, dlen, lives, dir_, P, b, p, 1 if a == DRAW1 else 2, order)
        elif a == BOMB:
            if hs > 0 or P[RESOLVES]:
                bomber[b] = p
                cont = p
            else:
                total[b] = 0
        if cont < 0:
            if hs == 0:
                ev = _ROUND
            else:
                q = next_seat(lives, dir_, n, b, p)
                if a == SKIP:  # the next survivor is skipped (with 2 survivors: p again)
                    q = next_seat(lives, dir_, n, b, q)
                cur[b] = q
    if loser >= 0:
        winners = lose_life(hands, hsize, disc, dir_, lives, rewards, P, b, loser, p, order)
        if winners < 0 and cont < 0:
            cur[b] = next_seat(lives, dir_, n, b, p)
    if cont >= 0 and winners < 0:
        # Resolve the Bomb's answers in turn order from the seat after ``cont`` until one needs a decision
        # (``bomb_zero_optional``), the game ends, or the bomber's seat comes round; then T = 0 and the
        # turn passes from the bomber (or the round ends).
        bp = np.int64(bomber[b])
        q = next_seat(lives, dir_, n, b, cont)
        asked = False
        while q != bp:
            if P[OPTIONAL]:  # every responder answers as a step of its own, 0 or not
                phase[b] = BOMB_ANSWER
                cur[b] = q
                asked = True
                break
            if hands[b, q, N0] > 0:
                remove_card(hands, hsize, disc, top, b, q, N0)
            else:
                winners = lose_life(hands, hsize, disc, dir_, lives, rewards, P, b, q, p, order)
                if winners >= 0:
                    break
            q = next_seat(lives, dir_, n, b, q)
        if not asked and winners < 0:
            bomber[b] = -1
            phase[b] = PLAY
            total[b] = 0
            cur[b] = next_seat(lives, dir_, n, b, bp)
            for s in range(n):
                if lives[b, s] > 0 and hsize[b, s] == 0:
                    ev = _ROUND
                    rp = bp
    if ev == _ROUND:
        # docs/rules.md 2.5 (rp: the seat whose turn it was): losses, eliminations, then a new round dealt by
        # the first seat in turn order from rp that went out
        m = turn_order(lives, dir_, n, b, rp, order)
        dealer = -1
        outs = 0
        for i in range(m):
            if hsize[b, order[i]] == 0:
                outs |= 1 << i
                if dealer < 0:
                    dealer = order[i]
        if P[TEAMS]:  # each seat that went out costs the other team a life
            for i in range(m):
                if (outs >> i) & 1:
                    q = (order[i] + 1) % n
                    for t in range(q % 2, n, 2):
                        lives[b, t] -= 1
                        if P[REWARD_LIVES]:
                            rewards[b, t] -= 1.0
                    if lives[b, q] == 0:
                        winners = alive_bits(lives, n, b)
                        break
        else:
            dead = 0
            for i in range(m):  # simultaneous losses, then eliminations
                q = order[i]
                if hsize[b, q] > 0:
                    lives[b, q] -= 1
                    if P[REWARD_LIVES]:
                        rewards[b, q] -= 1.0
                    if lives[b, q] == 0:
                        dead |= 1 << q
            if dead:
                for q in range(n):
                    if (dead >> q) & 1:
                        eliminate(hands, hsize, disc, rewards, P, b, q)
                winners = after_eliminations(hands, lives, dir_, P, b, p, order)
        if winners < 0:
            round_[b] += 1
            if not P[KEEP_DIR]:
                dir_[b] = 1
            cur[b] = dealer if P[START_DEALER] else next_seat(lives, dir_, n, b, dealer)
            ev = DEAL
    if winners >= 0:
        end_game(lives, phase, rewards, final_result, final_win, P, b, winners)
        ev = GAME_OVER
    steps[b] += 1
    if ev != GAME_OVER:
        if P[MAX_STEPS] < 0 or steps[b] < P[MAX_STEPS]:
            return ev
        truncated[b] = True  # max_steps: no winner, the undecided results stay 0
        for q in range(n):
            final_result[b, q] = -1 if (lives[b, q] == 0 and not P[TEAMS]) else 0
            final_win[b, q] = 0.0
    terminated[b] = True
    for q in range(n):
        final_lives[b, q] = lives[b, q]
    return GAME_OVER


@nb.njit(cache=True, error_model="numpy", _nrt=False)
def play_common(hands, hsize, disc, top, total, dir_, cur, phase, lives, steps, rewards, terminated, truncated, P,
                b, a, mask):
    """The common steps, whole (about 90% of random play), with the mask row after them: a number or a
    simple wild card (Reverse, = 21/10/0, Skip, Pass) that is not the seat's last, or a BUST that costs no
    last life, at a step that does not reach ``max_steps``. False (nothing changed) for any other step.

    Written for numba's reference-count pruning, which removes the counts of a function's array arguments
    only when it has no call inside, one return, and every array is used on every path to it (hence the
    bare ``.shape`` lines at the end): otherwise each call costs about 8 ns per array."""
    p = np.int64(cur[b])
    n = P[N]
    max_steps = P[MAX_STEPS]
    ok = phase[b] == PLAY and (max_steps < 0 or steps[b] + 1 < max_steps) and (
        (a < DRAW1 and hsize[b, p] > 1) or (a == BUST and lives[b, p] > 1))
    if ok:
        for q in range(n):
            rewards[b, q] = 0.0
        terminated[b] = False
        truncated[b] = False
        if a == BUST:  # a life lost (teams: the team's), T = 0
            teams = P[TEAMS]
            for q in range(p % 2 if teams else p, n if teams else p + 1, 2 if teams else 1):
                lives[b, q] -= 1
                if P[REWARD_LIVES]:
                    rewards[b, q] = -1.0
            total[b] = 0
        else:
            hands[b, p, a] -= 1
            hsize[b, p] -= 1
            disc[b, a] += 1
            top[b] = a
            if a < NUM_NUMBERS:
                total[b] += a
            elif a == REVERSE:
                dir_[b] = -dir_[b]
            elif a == EQ21:
                total[b] = 21
            elif a == EQ10:
                total[b] = 10
            elif a == EQ0:
                total[b] = 0
        d = np.int64(dir_[b])
        q = (p + d + n) % n
        while lives[b, q] == 0:
            q = (q + d + n) % n
        if a == SKIP:
            q = (q + d + n) % n
            while lives[b, q] == 0:
                q = (q + d + n) % n
        cur[b] = q
        steps[b] += 1
        room = MAX_TOTAL - total[b]
        some = 0
        for k in range(NUM_KINDS):
            m = 1 if hands[b, q, k] > 0 and (k >= NUM_NUMBERS or k <= room) else 0
            mask[b, k] = m
            some |= m
        mask[b, BUST] = 1 if (some == 0 or P[FREE_BUST]) else 0
    hands.shape, hsize.shape, disc.shape, top.shape, total.shape, dir_.shape, cur.shape, phase.shape  # noqa: B018
    lives.shape, steps.shape, rewards.shape, terminated.shape, truncated.shape, P.shape, mask.shape  # noqa: B018
    return ok


@nb.njit(cache=True, inline="always")
def write_mask(hands, total, cur, phase, free_bust, b, mask):
    """Row b of the legal mask: the held kinds playable at T, BUST when none is (always with
    ``allow_voluntary_bust``); during a Bomb's answers, BUST and 0 if the responder holds one."""
    p = cur[b]
    if phase[b] == PLAY:
        room = MAX_TOTAL - total[b]
        some = 0
        for k in range(NUM_KINDS):
            ok = 1 if hands[b, p, k] > 0 and (k >= NUM_NUMBERS or k <= room) else 0
            mask[b, k] = ok
            some |= ok
        mask[b, BUST] = 1 if (some == 0 or free_bust) else 0
        return
    for k in range(NUM_ACTIONS):
        mask[b, k] = 0
    mask[b, N0] = 1 if hands[b, p, N0] > 0 else 0
    mask[b, BUST] = 1


# --- the random events (not leaves: called only when they happen) ------------------------------------------

@nb.njit(cache=True)
def expand(counts, out):
    """``out[:size]``: the multiset ``counts`` [18] as its kinds in ascending order; returns size."""
    size = 0
    for k in range(NUM_KINDS):
        for _ in range(counts[k]):
            out[size] = k
            size += 1
    return size


@nb.njit(cache=True)
def deal(hands, hsize, disc, top, draw, dlen, total, phase, lives, bomber, counter, nresh, seed, P, b, keys, perm,
         cards):
    """Gather and shuffle the whole deck (one random event); 10 cards to each survivor in seat order; the
    rest is the draw pile; T = 0, an empty discard pile, no Bomb pending."""
    n, D = P[N], P[DECK]
    expand(P[COUNTS:], cards)
    kernel_rng.permutation(seed[b], np.uint64(counter[b]), D, keys, perm)
    counter[b] += 1
    pos = 0
    for p in range(n):
        for k in range(NUM_KINDS):
            hands[b, p, k] = 0
        if lives[b, p] > 0:
            for j in range(pos, pos + HAND_SIZE):
                hands[b, p, cards[perm[j]]] += 1
            pos += HAND_SIZE
            hsize[b, p] = HAND_SIZE
        else:
            hsize[b, p] = 0
    left = D - pos
    for j in range(left):  # the reference's ``shuffled[pos:][::-1]``: the next card drawn last
        draw[b, j] = cards[perm[D - 1 - j]]
    dlen[b] = left
    for k in range(NUM_KINDS):
        disc[b, k] = 0
    top[b] = -1
    total[b] = 0
    bomber[b] = -1
    phase[b] = PLAY
    nresh[b] = 0


@nb.njit(cache=True)
def new_game(hands, hsize, disc, top, draw, dlen, total, dir_, cur, phase, lives, bomber, round_, counter, nresh,
             steps, seed, P, b, keys, perm, cards):
    """Game b starts (its seed set): full lives, clockwise, the first deal, the first player."""
    n = P[N]
    for q in range(n):
        lives[b, q] = LIVES
    round_[b] = 0
    counter[b] = 0
    steps[b] = 0
    dir_[b] = 1
    deal(hands, hsize, disc, top, draw, dlen, total, phase, lives, bomber, counter, nresh, seed, P, b, keys, perm,
         cards)
    if P[FIRST_RANDOM]:
        cur[b] = kernel_rng.below(seed[b], np.uint64(counter[b]), n)
        counter[b] += 1
    else:
        cur[b] = 0


@nb.njit(cache=True)
def next_game(hands, hsize, disc, top, draw, dlen, total, dir_, cur, phase, lives, bomber, round_, counter, nresh,
              steps, seed, game_index, P, b, base_seed, batch, keys, perm, cards):
    """Same-step autoreset: slot b's next game is game index + ``batch`` of the run."""
    game_index[b] += batch
    seed[b] = kernel_rng.derive(base_seed, game_index[b])
    new_game(hands, hsize, disc, top, draw, dlen, total, dir_, cur, phase, lives, bomber, round_, counter, nresh,
             steps, seed, P, b, keys, perm, cards)


@nb.njit(cache=True)
def reshuffle(disc, top, draw, dlen, counter, nresh, seed, b, keys, perm, cards):
    """The discard pile except its top card becomes the new draw pile (shuffled); False if it is empty."""
    t = top[b]
    if t >= 0:
        disc[b, t] -= 1
    size = expand(disc[b], cards)
    if size == 0:
        if t >= 0:
            disc[b, t] += 1
        return False
    kernel_rng.permutation(seed[b], np.uint64(counter[b]), size, keys, perm)
    counter[b] += 1
    for j in range(size):  # the reference's ``reversed(perm)``: cards[perm[0]] is drawn first
        draw[b, j] = cards[perm[size - 1 - j]]
    dlen[b] = size
    for k in range(NUM_KINDS):
        disc[b, k] = 0
    if t >= 0:
        disc[b, t] = 1
    nresh[b] += 1
    return True


@nb.njit(cache=True)
def slow(hands, hsize, disc, top, draw, dlen, total, dir_, cur, lives, counter, nresh, seed, P, b, a, keys, perm,
         cards, order):
    """The random part of a step ``play`` returned SLOW for: the acting seat plays a Re-Deal (not its last
    card: every surviving hand gathered, shuffled, dealt one card at a time clockwise, seat + 1 whatever the
    direction, from the seat to its left, itself last in each pass), or a Draw card whose draws may empty
    the pile (the other survivors draw in turn order from the next seat, ``draw_order``; an empty pile is
    reshuffled while ``max_reshuffles`` allows). ``play(..., resume=True)`` then ends the turn."""
    n = P[N]
    p = np.int64(cur[b])
    remove_card(hands, hsize, disc, top, b, p, a)
    if a == REDEAL:
        m = 0
        for i in range(1, n + 1):
            q = (p + i) % n
            if lives[b, q] > 0:
                order[m] = q
                m += 1
        size = 0
        for k in range(NUM_KINDS):  # the gathered cards, kinds ascending
            c = 0
            for i in range(m):
                c += hands[b, order[i], k]
                hands[b, order[i], k] = 0
            for _ in range(c):
                cards[size] = k
                size += 1
        kernel_rng.permutation(seed[b], np.uint64(counter[b]), size, keys, perm)
        counter[b] += 1
        for i in range(size):
            hands[b, order[i % m], cards[perm[i]]] += 1
        for i in range(m):
            hsize[b, order[i]] = size // m + (1 if i < size % m else 0)
        total[b] = 0
        return
    count = 1 if a == DRAW1 else 2
    m = turn_order(lives, dir_, n, b, next_seat(lives, dir_, n, b, p), order) - 1  # p (last) left out
    for j in range(count * m):
        i = j // count if P[EACH] else j % m
        if dlen[b] == 0:
            if not P[RESHUFFLE] or nresh[b] >= P[MAX_RESH] or not reshuffle(disc, top, draw, dlen, counter, nresh,
                                                                             seed, b, keys, perm, cards):
                return
        t = dlen[b] - 1
        dlen[b] = t
        q = order[i]
        hands[b, q, draw[b, t]] += 1
        hsize[b, q] += 1


# --- over the batch ----------------------------------------------------------------------------------------

@nb.njit(cache=True)
def step_all(S, P, actions, base_seed, mask):
    """Every game b plays ``actions[b]``; the mask rows follow."""
    (hands, hsize, disc, top, draw, dlen, total, dir_, cur, phase, lives, bomber, round_, counter, nresh, steps,
     seed, game_index, rewards, terminated, truncated, final_lives, final_result, final_win) = S
    B = hands.shape[0]
    free_bust = P[FREE_BUST]
    keys = np.empty(MAX_CARDS, np.uint64)
    perm = np.empty(MAX_CARDS, np.int64)
    cards = np.empty(MAX_CARDS, np.int64)
    order = np.empty(8, np.int64)
    for b in range(B):
        a = actions[b]
        if play_common(hands, hsize, disc, top, total, dir_, cur, phase, lives, steps, rewards, terminated, truncated,
                       P, b, a, mask):
            continue
        ev = play(hands, hsize, disc, top, draw, dlen, total, dir_, cur, phase, lives, bomber, round_, nresh, steps,
                  rewards, terminated, truncated, final_lives, final_result, final_win, P, b, a, False, order)
        if ev != DONE:
            if ev == SLOW:
                slow(hands, hsize, disc, top, draw, dlen, total, dir_, cur, lives, counter, nresh, seed, P, b, a, keys,
                     perm, cards, order)
                ev = play(hands, hsize, disc, top, draw, dlen, total, dir_, cur, phase, lives, bomber, round_, nresh,
                          steps, rewards, terminated, truncated, final_lives, final_result, final_win, P, b, a, True,
                          order)
            if ev == DEAL:
                deal(hands, hsize, disc, top, draw, dlen, total, phase, lives, bomber, counter, nresh, seed, P, b,
                     keys, perm, cards)
            elif ev == GAME_OVER:
                next_game(hands, hsize, disc, top, draw, dlen, total, dir_, cur, phase, lives, bomber, round_, counter,
                          nresh, steps, seed, game_index, P, b, base_seed, B, keys, perm, cards)
        write_mask(hands, total, cur, phase, free_bust, b, mask)


@nb.njit(cache=True)
def step_one(S, P, b, a, base_seed, batch, sc):
    """Game b of the state tuple ``S`` plays action ``a`` (legal); ``batch``: the slots of the run (a
    finished game's slot moves on to game index + batch); ``sc``: ``scratch()``."""
    (hands, hsize, disc, top, draw, dlen, total, dir_, cur, phase, lives, bomber, round_, counter, nresh, steps,
     seed, game_index, rewards, terminated, truncated, final_lives, final_result, final_win) = S
    keys, perm, cards, order = sc
    ev = play(hands, hsize, disc, top, draw, dlen, total, dir_, cur, phase, lives, bomber, round_, nresh, steps,
              rewards, terminated, truncated, final_lives, final_result, final_win, P, b, a, False, order)
    if ev == SLOW:
        slow(hands, hsize, disc, top, draw, dlen, total, dir_, cur, lives, counter, nresh, seed, P, b, a, keys, perm,
             cards, order)
        ev = play(hands, hsize, disc, top, draw, dlen, total, dir_, cur, phase, lives, bomber, round_, nresh, steps,
                  rewards, terminated, truncated, final_lives, final_result, final_win, P, b, a, True, order)
    if ev == DEAL:
        deal(hands, hsize, disc, top, draw, dlen, total, phase, lives, bomber, counter, nresh, seed, P, b, keys, perm,
             cards)
    elif ev == GAME_OVER:
        next_game(hands, hsize, disc, top, draw, dlen, total, dir_, cur, phase, lives, bomber, round_, counter, nresh,
                  steps, seed, game_index, P, b, base_seed, batch, keys, perm, cards)


@nb.njit(cache=True)
def start_all(S, P, games):
    """Games ``games`` start (their seeds set)."""
    (hands, hsize, disc, top, draw, dlen, total, dir_, cur, phase, lives, bomber, round_, counter, nresh, steps,
     seed, game_index, rewards, terminated, truncated, final_lives, final_result, final_win) = S
    keys = np.empty(MAX_CARDS, np.uint64)
    perm = np.empty(MAX_CARDS, np.int64)
    cards = np.empty(MAX_CARDS, np.int64)
    for b in games:
        new_game(hands, hsize, disc, top, draw, dlen, total, dir_, cur, phase, lives, bomber, round_, counter, nresh,
                 steps, seed, P, b, keys, perm, cards)


@nb.njit(cache=True)
def mask_all(S, P, mask):
    hands, total, cur, phase = S[0], S[6], S[8], S[9]
    for b in range(hands.shape[0]):
        write_mask(hands, total, cur, phase, P[FREE_BUST], b, mask)


__all__ = ["DEAL", "DONE", "FIELDS", "GAME_OVER", "MAX_CARDS", "NPARAMS", "SLOW", "mask_all", "params", "play",
           "scratch", "start_all", "state_tuple", "step_all", "step_one"]
