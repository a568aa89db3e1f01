"""The 5 Alive rules compiled: one game's row of the batched state, stepped by plain scalar code (numba).

It reads like the reference engine (``fiveplay_env.five_alive.engine``): the acting seat plays a card or
BUSTs, the card takes effect (numbers, Reverse, Skip, the = cards, Draw 1/2 with reshuffles of the discard
pile, Hand In & Re-Deal, the Bomb and its answers), lives are lost, seats eliminated, rounds end and are
dealt again, and the game ends by the variant's rule or by ``max_steps``. The rules are written again
here, not shared with the reference, so that the two implementations check each other
(``fiveplay_env.testing``'s replay contract); they share the constants of ``state.py`` and the
counter-based randomness (``core.kernel_rng`` is ``core.seeding`` compiled), so every deal, reshuffle and
Re-Deal draws the reference's cards.

The state is the struct of arrays of ``fiveplay_env.five_alive.positions.SCHEMA`` (one row per game,
passed as the tuple ``S`` in the order of ``FIELDS``), the config the int64 vector ``P`` (``params``).
A seat survives iff it has lives left (a game whose last life is lost in teams or sudden death is over at
once), so neither the survivors nor the results of a game in progress are stored: an eliminated seat
has lost (-1), every other seat is undecided (0). The draw pile is a stack: ``draw[:dlen]``, the next card
drawn ``draw[dlen - 1]`` (the reference's ``draw`` list as it is). The batched engine (``batched.py``)
runs ``step_all`` / ``start_all`` / ``mask_all`` over its B rows; a search steps single worlds with
``step_one``. ``NUMBA_DISABLE_JIT=1`` runs this same code as Python (to debug a rule with pdb or prints).
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
(HANDS, HSIZE, DISC, TOP, DRAW, DLEN, TOTAL, DIR, CUR, PHASE, LIVES_, BOMBER, ROUND, COUNTER, NRESH, STEPS, SEED,
 GAME_INDEX, REWARDS, TERMINATED, TRUNCATED, FINAL_LIVES, FINAL_RESULT, FINAL_WIN) = range(len(FIELDS))

# params: the config as ints; the deck's counts per kind from COUNTS on
(N, DECK, TEAMS, SUDDEN, OPTIONAL, FREE_BUST, RESOLVES, EACH, RESHUFFLE, MAX_RESH, START_DEALER, KEEP_DIR,
 WILD_VALUE, SHARED, REWARD_RESULTS, REWARD_LIVES, MAX_STEPS, FIRST_RANDOM, COUNTS) = range(19)
NPARAMS = COUNTS + NUM_KINDS
MAX_CARDS = 256  # scratch size: the largest deck (config.MAX_DECK) and one


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


# --- seats -------------------------------------------------------------------------------------------------

@nb.njit(cache=True, inline="always")
def next_seat(S, P, b, seat):
    """The next surviving seat after ``seat`` in the current direction (``seat`` need not survive)."""
    lives = S[LIVES_]
    n = P[N]
    d = np.int64(S[DIR][b])
    s = (seat + d + n) % n
    while lives[b, s] == 0:
        s = (s + d + n) % n
    return s


@nb.njit(cache=True)
def turn_order(S, P, b, start, order):
    """``order[:m]``: the survivors in turn order, ``start`` first if it survives; returns m."""
    lives = S[LIVES_]
    n = P[N]
    d = np.int64(S[DIR][b])
    m = 0
    s = start
    for _ in range(n):
        if lives[b, s] > 0:
            order[m] = s
            m += 1
        s = (s + d + n) % n
    return m


@nb.njit(cache=True)
def survivors(S, P, b):
    lives = S[LIVES_]
    m = 0
    for q in range(P[N]):
        if lives[b, q] > 0:
            m += 1
    return m


# --- cards -------------------------------------------------------------------------------------------------

@nb.njit(cache=True, inline="always")
def remove_card(S, b, p, k):
    """One card of kind k from p's hand onto the discard pile (its new top card); p's new hand size."""
    hands, hsize, disc, top = S[HANDS], S[HSIZE], S[DISC], S[TOP]
    hands[b, p, k] -= 1
    hs = hsize[b, p] - 1
    hsize[b, p] = hs
    disc[b, k] += 1
    top[b] = k
    return hs


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
def deal(S, P, b, sc):
    """Gather and shuffle the whole deck (one random event); 10 cards to each survivor in seat order; the
    rest is the draw pile; T = 0, an empty discard pile, no Bomb pending."""
    hands, hsize, disc, top, draw, dlen, total = S[HANDS], S[HSIZE], S[DISC], S[TOP], S[DRAW], S[DLEN], S[TOTAL]
    phase, lives, bomber, counter, nresh, seed = S[PHASE], S[LIVES_], S[BOMBER], S[COUNTER], S[NRESH], S[SEED]
    keys, perm, cards = sc[0], sc[1], sc[2]
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
def new_game(S, P, b, sc):
    """Game b starts (its seed set): full lives, clockwise, the first deal, the first player."""
    lives, dir_, cur, round_, counter, steps, seed = S[LIVES_], S[DIR], S[CUR], S[ROUND], S[COUNTER], S[STEPS], S[SEED]
    n = P[N]
    for q in range(n):
        lives[b, q] = LIVES
    round_[b] = 0
    counter[b] = 0
    steps[b] = 0
    dir_[b] = 1
    deal(S, P, b, sc)
    if P[FIRST_RANDOM]:
        cur[b] = kernel_rng.below(seed[b], np.uint64(counter[b]), n)
        counter[b] += 1
    else:
        cur[b] = 0


@nb.njit(cache=True)
def reshuffle(S, P, b, sc):
    """The discard pile except its top card becomes the new draw pile (shuffled); False if it is empty."""
    disc, top, draw, dlen, counter, nresh, seed = S[DISC], S[TOP], S[DRAW], S[DLEN], S[COUNTER], S[NRESH], S[SEED]
    keys, perm, cards = sc[0], sc[1], sc[2]
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
def draw_one(S, P, b, q, sc):
    """q draws one card; False (nothing drawn) if the draw pile is empty and cannot be refilled."""
    hands, hsize, draw, dlen = S[HANDS], S[HSIZE], S[DRAW], S[DLEN]
    if dlen[b] == 0:
        if not P[RESHUFFLE] or S[NRESH][b] >= P[MAX_RESH] or not reshuffle(S, P, b, sc):
            return False
    j = dlen[b] - 1
    dlen[b] = j
    hands[b, q, draw[b, j]] += 1
    hsize[b, q] += 1
    return True


@nb.njit(cache=True)
def draws(S, P, b, p, count, sc):
    """Every other survivor draws ``count`` cards, in turn order from the seat after p (``draw_order``)."""
    order = sc[3]
    m = turn_order(S, P, b, next_seat(S, P, b, p), order) - 1  # the survivors after p, p (last) left out
    if P[EACH]:
        for i in range(m):
            for _ in range(count):
                if not draw_one(S, P, b, order[i], sc):
                    return
    else:
        for _ in range(count):
            for i in range(m):
                if not draw_one(S, P, b, order[i], sc):
                    return


@nb.njit(cache=True)
def redeal(S, P, b, p, sc):
    """Hand In & Re-Deal (p has cards left): every surviving hand gathered, shuffled, dealt one card at a
    time clockwise (seat + 1, whatever the direction) from the seat to p's left, p last in each pass."""
    hands, hsize, lives, counter, seed = S[HANDS], S[HSIZE], S[LIVES_], S[COUNTER], S[SEED]
    keys, perm, cards, order = sc
    n = P[N]
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


# --- lives and the end of games ----------------------------------------------------------------------------

@nb.njit(cache=True)
def end_game(S, P, b, winners):
    """Game b is over: the seats of the bit set ``winners`` win, every undecided seat loses (an eliminated
    seat lost when it was eliminated); the results and win shares are written to ``final_*``."""
    lives, phase, rewards, final_result, final_win = S[LIVES_], S[PHASE], S[REWARDS], S[FINAL_RESULT], S[FINAL_WIN]
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


@nb.njit(cache=True)
def hand_value(S, P, b, q):
    """Sudden-death tie-break: the number cards' sum, wild cards counting ``tiebreak_wild_value`` each."""
    hands = S[HANDS]
    v = 0
    for k in range(NUM_KINDS):
        v += hands[b, q, k] * (k if k < NUM_NUMBERS else P[WILD_VALUE])
    return v


@nb.njit(cache=True)
def end_sudden_death(S, P, b, actor, sc):
    """docs/rules.md 2.7: most lives, then the lowest hand value, then ``final_tiebreak`` (the first in turn
    order from the seat that acted at this step, or all of them)."""
    lives = S[LIVES_]
    order = sc[3]
    m = turn_order(S, P, b, actor, order)
    best, low = -1, 1 << 30
    for i in range(m):
        q = order[i]
        v = hand_value(S, P, b, q)
        if lives[b, q] > best or (lives[b, q] == best and v < low):
            best, low = lives[b, q], v
    winners = 0
    for i in range(m):
        q = order[i]
        if lives[b, q] == best and hand_value(S, P, b, q) == low:
            winners |= 1 << q
            if not P[SHARED]:
                break
    end_game(S, P, b, winners)


@nb.njit(cache=True)
def alive_bits(S, P, b):
    lives = S[LIVES_]
    bits = 0
    for q in range(P[N]):
        if lives[b, q] > 0:
            bits |= 1 << q
    return bits


@nb.njit(cache=True)
def eliminate(S, P, b, q):
    """q is out (docs/rules.md 2.6): its hand goes to the discard pile beneath the top card; it has lost."""
    hands, hsize, disc, rewards = S[HANDS], S[HSIZE], S[DISC], S[REWARDS]
    for k in range(NUM_KINDS):
        disc[b, k] += hands[b, q, k]
        hands[b, q, k] = 0
    hsize[b, q] = 0
    if P[REWARD_RESULTS]:
        rewards[b, q] -= 1.0


@nb.njit(cache=True)
def lose_life(S, P, b, q, actor, sc):
    """q (teams: q's team) loses one life; eliminations and the end of the game follow. True if over."""
    lives, rewards = S[LIVES_], S[REWARDS]
    n = P[N]
    if P[TEAMS]:
        for m in range(q % 2, n, 2):
            lives[b, m] -= 1
            if P[REWARD_LIVES]:
                rewards[b, m] -= 1.0
        if lives[b, q] == 0:
            end_game(S, P, b, alive_bits(S, P, b))  # the other team
            return True
        return False
    lives[b, q] -= 1
    if P[REWARD_LIVES]:
        rewards[b, q] -= 1.0
    if lives[b, q] > 0:
        return False
    eliminate(S, P, b, q)
    if P[SUDDEN]:
        end_sudden_death(S, P, b, actor, sc)
        return True
    if survivors(S, P, b) <= 1:
        end_game(S, P, b, alive_bits(S, P, b))
        return True
    return False


# --- rounds ------------------------------------------------------------------------------------------------

@nb.njit(cache=True)
def round_end(S, P, b, p, actor, sc):
    """docs/rules.md 2.5 (p: the seat whose turn it was): losses, eliminations, then a new round dealt by
    the first seat in turn order from p that went out."""
    hsize, lives, rewards, dir_, cur, round_ = S[HSIZE], S[LIVES_], S[REWARDS], S[DIR], S[CUR], S[ROUND]
    order = sc[3]
    n = P[N]
    m = turn_order(S, P, b, p, order)
    dealer = -1
    outs = 0
    for i in range(m):
        if hsize[b, order[i]] == 0:
            outs |= 1 << i
            if dealer < 0:
                dealer = order[i]
    if P[TEAMS]:  # each seat that went out costs the other team a life (lose_life leaves ``order`` be)
        for i in range(m):
            if (outs >> i) & 1 and lose_life(S, P, b, (order[i] + 1) % n, actor, sc):
                return
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
                    eliminate(S, P, b, q)
            if P[SUDDEN]:
                end_sudden_death(S, P, b, actor, sc)
                return
            if survivors(S, P, b) <= 1:
                end_game(S, P, b, alive_bits(S, P, b))
                return
    round_[b] += 1
    deal(S, P, b, sc)
    if not P[KEEP_DIR]:
        dir_[b] = 1
    cur[b] = dealer if P[START_DEALER] else next_seat(S, P, b, dealer)


@nb.njit(cache=True)
def bomb_continue(S, P, b, last, actor, sc):
    """Resolve the Bomb's answers in turn order from the seat after ``last`` (the bomber, or the responder
    who just answered) until one needs a decision (``bomb_zero_optional``), the game ends, or the bomber's
    seat comes round; then T = 0 and the turn passes from the bomber (or the round ends)."""
    hands, hsize, lives, total, cur, phase, bomber = S[HANDS], S[HSIZE], S[LIVES_], S[TOTAL], S[CUR], S[PHASE], S[BOMBER]
    bp = np.int64(bomber[b])
    q = next_seat(S, P, b, last)
    while q != bp:
        if P[OPTIONAL]:  # every responder answers as a step of its own, 0 or not
            phase[b] = BOMB_ANSWER
            cur[b] = q
            return
        if hands[b, q, N0] > 0:
            remove_card(S, b, q, N0)
        elif lose_life(S, P, b, q, actor, sc):
            return
        q = next_seat(S, P, b, q)
    bomber[b] = -1
    phase[b] = PLAY
    total[b] = 0
    for s in range(P[N]):
        if lives[b, s] > 0 and hsize[b, s] == 0:
            round_end(S, P, b, bp, actor, sc)
            return
    cur[b] = next_seat(S, P, b, bp)


# --- the step ----------------------------------------------------------------------------------------------

@nb.njit(cache=True)
def play(S, P, b, p, k, sc):
    """p plays a card of kind k (docs/rules.md 2.3.3, 2.4); then the turn ends (2.3.4-5)."""
    total, dir_, cur, bomber = S[TOTAL], S[DIR], S[CUR], S[BOMBER]
    hs = remove_card(S, b, p, k)
    if k < NUM_NUMBERS:
        total[b] += k
    elif k == REVERSE:
        dir_[b] = -dir_[b]
    elif k == EQ21:
        total[b] = 21
    elif k == EQ10:
        total[b] = 10
    elif k == EQ0:
        total[b] = 0
    elif k == DRAW1 or k == DRAW2:
        draws(S, P, b, p, 1 if k == DRAW1 else 2, sc)
    elif k == REDEAL:
        if hs > 0:  # as the last card there is nothing to re-deal: the round ends below
            redeal(S, P, b, p, sc)
        total[b] = 0
    elif k == BOMB:
        if hs > 0 or P[RESOLVES]:
            bomber[b] = p
            bomb_continue(S, P, b, p, p, sc)
            return
        total[b] = 0
    if hs == 0:
        round_end(S, P, b, p, p, sc)
        return
    q = next_seat(S, P, b, p)
    if k == SKIP:  # the next survivor is skipped (with 2 survivors: p again)
        q = next_seat(S, P, b, q)
    cur[b] = q


@nb.njit(cache=True)
def step_one(S, P, b, a, base_seed, batch, sc):
    """Game b plays action ``a`` (legal: the engine checked it); the step's rewards go to ``rewards[b]``.
    A game that ends moves its slot on to its next game (same-step autoreset)."""
    total, cur, phase, lives, steps, seed, game_index = S[TOTAL], S[CUR], S[PHASE], S[LIVES_], S[STEPS], S[SEED], S[GAME_INDEX]
    rewards, terminated, truncated = S[REWARDS], S[TERMINATED], S[TRUNCATED]
    final_lives, final_result, final_win = S[FINAL_LIVES], S[FINAL_RESULT], S[FINAL_WIN]
    n = P[N]
    for q in range(n):
        rewards[b, q] = 0.0
    terminated[b] = False
    truncated[b] = False
    p = np.int64(cur[b])
    if phase[b] == BOMB_ANSWER:
        if a == N0:
            remove_card(S, b, p, N0)
            bomb_continue(S, P, b, p, p, sc)
        elif not lose_life(S, P, b, p, p, sc):
            bomb_continue(S, P, b, p, p, sc)
    elif a == BUST:  # p plays nothing: a life lost, T = 0, the turn passes
        total[b] = 0
        if not lose_life(S, P, b, p, p, sc):
            cur[b] = next_seat(S, P, b, p)
    else:
        play(S, P, b, p, a, sc)
    steps[b] += 1
    if phase[b] != OVER:
        if P[MAX_STEPS] < 0 or steps[b] < P[MAX_STEPS]:
            return
        truncated[b] = True  # max_steps: no winner, the undecided results stay 0
        for q in range(n):
            final_result[b, q] = -1 if (lives[b, q] == 0 and not P[TEAMS]) else 0
            final_win[b, q] = 0.0
    terminated[b] = True
    for q in range(n):
        final_lives[b, q] = lives[b, q]
    game_index[b] += batch  # same-step autoreset: slot i's next game is game i + k*B of the run
    seed[b] = kernel_rng.derive(base_seed, game_index[b])
    new_game(S, P, b, sc)


@nb.njit(cache=True)
def write_mask(S, P, b, mask):
    """Row b of the legal mask: the held kinds playable at T, BUST when none is (always with
    ``allow_voluntary_bust``); during a Bomb's answers, BUST and 0 if the responder holds one."""
    hands, total, cur, phase = S[HANDS], S[TOTAL], S[CUR], S[PHASE]
    p = cur[b]
    if phase[b] == PLAY:
        room = MAX_TOTAL - total[b]
        some = 0
        for k in range(NUM_KINDS):
            ok = 1 if hands[b, p, k] > 0 and (k >= NUM_NUMBERS or k <= room) else 0
            mask[b, k] = ok
            some |= ok
        mask[b, BUST] = 1 if (some == 0 or P[FREE_BUST]) else 0
        return
    for k in range(NUM_ACTIONS):
        mask[b, k] = 0
    mask[b, N0] = 1 if hands[b, p, N0] > 0 else 0
    mask[b, BUST] = 1


@nb.njit(cache=True)
def step_all(S, P, actions, base_seed, mask):
    """Every game b plays ``actions[b]``; the mask rows follow.

    A number or a simple wild card that is not the seat's last card (most decisions) is played here, on
    the arrays unpacked once (a call that passes the state tuple costs a reference count per array);
    every other step goes through ``step_one``."""
    (hands, hsize, disc, top, draw, dlen, total, dir_, cur, phase, lives, bomber, round_, counter, nresh, steps,
     seed, game_index, rewards, terminated, truncated, final_lives, final_result, final_win) = S
    B = hands.shape[0]
    n = P[N]
    max_steps = P[MAX_STEPS]
    free_bust = P[FREE_BUST]
    sc = (np.empty(MAX_CARDS, np.uint64), np.empty(MAX_CARDS, np.int64), np.empty(MAX_CARDS, np.int64),
          np.empty(8, np.int64))
    for b in range(B):
        a = actions[b]
        p = np.int64(cur[b])
        if (a < DRAW1 and phase[b] == PLAY and hsize[b, p] > 1
                and (max_steps < 0 or steps[b] + 1 < max_steps)):
            for q in range(n):
                rewards[b, q] = 0.0
            terminated[b] = False
            truncated[b] = False
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
        elif (a == BUST and phase[b] == PLAY and lives[b, p] > 1
              and (max_steps < 0 or steps[b] + 1 < max_steps)):  # a BUST that ends nothing
            terminated[b] = False
            truncated[b] = False
            for q in range(n):
                rewards[b, q] = 0.0
            for q in range(p % 2 if P[TEAMS] else p, n if P[TEAMS] else p + 1, 2 if P[TEAMS] else 1):
                lives[b, q] -= 1
                if P[REWARD_LIVES]:
                    rewards[b, q] = -1.0
            total[b] = 0
            d = np.int64(dir_[b])
            q = (p + d + n) % n
            while lives[b, q] == 0:
                q = (q + d + n) % n
            cur[b] = q
            steps[b] += 1
        else:
            step_one(S, P, b, a, base_seed, B, sc)
        # the mask (write_mask, inline)
        p = np.int64(cur[b])
        if phase[b] == PLAY:
            room = MAX_TOTAL - total[b]
            some = 0
            for k in range(NUM_KINDS):
                ok = 1 if hands[b, p, k] > 0 and (k >= NUM_NUMBERS or k <= room) else 0
                mask[b, k] = ok
                some |= ok
            mask[b, BUST] = 1 if (some == 0 or free_bust) else 0
        else:
            write_mask(S, P, b, mask)


@nb.njit(cache=True)
def start_all(S, P, games):
    """Games ``games`` start (their seeds set)."""
    sc = (np.empty(MAX_CARDS, np.uint64), np.empty(MAX_CARDS, np.int64), np.empty(MAX_CARDS, np.int64),
          np.empty(8, np.int64))
    for b in games:
        new_game(S, P, b, sc)


@nb.njit(cache=True)
def mask_all(S, P, mask):
    for b in range(S[0].shape[0]):
        write_mask(S, P, b, mask)


__all__ = ["FIELDS", "MAX_CARDS", "NPARAMS", "mask_all", "params", "scratch", "start_all", "state_tuple",
           "step_all", "step_one"]
