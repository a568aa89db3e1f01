"""The 5 Alive reference engine: the rules of docs/rules.md section 2, one game at a time.

Rules are functions of ``(config, state, action)``; the state is a ``FiveAliveState`` mutated in place.
Per-card logic runs on Python ints and lists (several times faster than numpy scalars for one game);
``state.tab`` is a float32 mirror of the numeric state that every change writes through, so an
observation is a single gather (``observation.py``).

This module is the rules. As it resolves a step it records what happened in the event log
(``events``: ``last_event``, ``event_card``, re-exported here) and what became public about hidden
cards (``knowledge``: ``add_known``, re-exported); ``determinize`` samples the worlds a player cannot
tell apart (``sample_world``, re-exported here with Take 5's signature ``(config, state, player, rng)``).

Turn structure (the AEC order): the acting player plays one legal card or BUST (action table in
``state.py``). With ``bomb_zero_optional=True`` a Bomb hands the turn to every other surviving player,
in turn order, for its answer (0 = discard a 0, BUST = lose a life; a responder without a 0 has BUST
alone), so whose turn it is never reveals who holds a 0 (docs/rules.md 2.4). Then the Bomb sets T = 0 and
the turn passes from the bomber.

Random events, in the order they happen (each draws ``core.seeding`` with the state's counter, then
increments it), so a batched engine can replay a game from its seed:
  * deal (game start and every new round): ``permutation(seed, counter, D)`` of the D-card deck in
    canonical order (kinds ascending, ``deck_counts[k]`` copies of kind k): ``shuffled[i] =
    canonical[perm[i]]``. The j-th surviving player in ascending seat order gets ``shuffled[10j:10j+10]``;
    the rest is the draw pile, drawn in order ``shuffled[10m], shuffled[10m+1], ...`` (m survivors).
  * first player (game start, ``first_player="random"`` only): ``below(seed, counter, n)``.
  * reshuffle (a draw finds the draw pile empty, fewer than ``max_reshuffles`` reshuffles were made
    in this round, and the discard pile holds a card besides its top card): ``permutation`` of the
    discard pile minus its top card, kinds ascending; the new draw pile is drawn in the permuted order;
    the top card stays as the whole discard pile.
  * Hand In & Re-Deal: ``permutation`` of all the surviving hands' cards (the Re-Deal card already
    played), kinds ascending; card i goes to ``order[i % m]``, where order is the m survivors clockwise
    (seat + 1, whatever the current direction) starting with the player to P's left, P last.

Choices where docs/rules.md is silent (each a config field unless it has no consistent alternative):
  * Round-end losses in the standard and sudden-death variants are simultaneous, then eliminations
    follow. Bomb losses happen one responder at a time in turn order (docs/rules.md: "at once"), so the game can
    end in the middle of a Bomb. In teams the round end costs no life for cards left in hand: each
    player who went out costs the other team one life, in turn order from P (P first if among them, as
    for the dealer); the first team to reach 0 lives loses at once, so when players of both teams go
    out together with both teams on their last life, the side of the first of them wins.
  * Sudden death: survivors are those with lives left; after lives and hand sums, ``final_tiebreak``.
  * An eliminated player's hand goes to the discard pile beneath its top card (the last card played
    stays on top). If the pile has no top card yet (nothing played since the deal), it still has none.
  * The Bomb's answers go on the discard pile (a discarded 0 becomes its top card).
  * With ``first_player="random"`` the first round has no dealer; its starter is drawn.

Truncation (``config.max_steps``, not a rule): after the step that makes ``state.turns`` reach
``max_steps``, a game that has not ended by its rules ends there: phase OVER, no winner, the undecided
results stay 0 (so no win/loss reward at that step), ``truncated(state)`` is True. Only a truncation
ends a game without a winner (by the rules someone always survives, or a team or a sudden-death leader
wins).
"""
from __future__ import annotations

import numpy as np

from fiveplay_env.core import seeding
from fiveplay_env.core.config import show_value
from fiveplay_env.core.engine import BoundEngine
from fiveplay_env.core.errors import IllegalActionError, action_id
from fiveplay_env.five_alive import events, knowledge
from fiveplay_env.five_alive.determinize import sample_world  # noqa: F401  (re-exported: the engine API)
from fiveplay_env.five_alive.config import HAND_SIZE, LIVES, NUM_KINDS, FiveAliveConfig
from fiveplay_env.five_alive.events import event_card, last_event  # noqa: F401  (re-exported: the engine API)
from fiveplay_env.five_alive.knowledge import add_known  # noqa: F401  (re-exported: the engine API)
from fiveplay_env.five_alive.state import (  # noqa: F401  (ALL_KIND_BITS, refresh*: re-exported)
    ALL_KIND_BITS, ANSWER_BITS, BOMB, BOMB_ANSWER, BUST, BUST_BIT, DRAW1, DRAW2, EQ0, EQ10, EQ21, N0,
    NUM_ACTIONS, NUM_NUMBERS, OVER, PLAY, PLAYABLE_BITS, REDEAL, REVERSE, SKIP, TAB_DIRECTION,
    TAB_DISCARD, TAB_DRAW, TAB_FIXED, TAB_PHASE, TAB_TOP, TAB_TOTAL, FiveAliveState, build_table, refresh,
    refresh_hands,
)
from fiveplay_env.five_alive.state import expand as _expand

_SET_TOTAL = {EQ21: 21, EQ10: 10, EQ0: 0}

_MASKS: dict[int, np.ndarray] = {}
MASK_CACHE_SIZE = 16384
"""At most this many masks are cached (about 2 MB), the first ones met, which are the common ones (about
80% of the masks of random play); the others are cut from two small tables. A hand's bits take up to
2**19 values, so an unbounded cache would grow with every game played."""
_LOW_BITS = 10
# A mask is the sum of two rows of these tables, the low 10 bits' (columns 0..9) and the high bits'.
_MASK_LOW = np.array([[(b >> a) & 1 if a < _LOW_BITS else 0 for a in range(NUM_ACTIONS)]
                      for b in range(1 << _LOW_BITS)], np.int8)
_MASK_HIGH = np.array([[(b >> (a - _LOW_BITS)) & 1 if a >= _LOW_BITS else 0 for a in range(NUM_ACTIONS)]
                       for b in range(1 << (NUM_ACTIONS - _LOW_BITS))], np.int8)
_CANONICAL: dict[tuple[int, ...], list[int]] = {}
CANONICAL_CACHE_SIZE = 64  # canonical decks kept (one per deck_counts met; cleared when full)


def _new_mask(bits: int) -> np.ndarray:
    """A new writable int8 [19] mask with the given legal bits (not cached)."""
    return _MASK_LOW[bits & ((1 << _LOW_BITS) - 1)] + _MASK_HIGH[bits >> _LOW_BITS]


def _mask_of(bits: int) -> np.ndarray:
    """The read-only int8 [19] mask with the given legal bits (cached while the cache has room)."""
    m = _MASKS.get(bits)
    if m is None:
        m = _new_mask(bits)
        m.setflags(write=False)
        if len(_MASKS) < MASK_CACHE_SIZE:
            _MASKS[bits] = m
    return m


def _canonical(config: FiveAliveConfig) -> list[int]:
    deck = _CANONICAL.get(config.deck_counts)
    if deck is None:
        deck = [k for k in range(NUM_KINDS) for _ in range(config.deck_counts[k])]
        if len(_CANONICAL) >= CANONICAL_CACHE_SIZE:
            _CANONICAL.clear()
        _CANONICAL[config.deck_counts] = deck
    return deck


# --- setting up ---------------------------------------------------------------------------------------
def new_game(config: FiveAliveConfig, seed: int | None = None) -> FiveAliveState:
    """A new game, its first round dealt and its first player chosen (random events 0 and 1).
    ``ValueError`` unless ``config`` is a ``FiveAliveConfig`` or ``seed`` is None or an int in 0..2**64-1."""
    if not isinstance(config, FiveAliveConfig):
        raise ValueError(f"config: expected a FiveAliveConfig (for example FiveAliveConfig(num_players=4) or "
                         f"five_alive_v0.make_config(...)), got {type(config).__name__} {show_value(config)}")
    n = config.num_players
    state = FiveAliveState(
        num_players=n,
        seed=seeding.normalize_seed(seed),
        hands=[[0] * NUM_KINDS for _ in range(n)],
        hand_size=[0] * n,
        held=[0] * n,
        lives=[LIVES] * n,
        alive=[True] * n,
        n_alive=n,
        result=[0] * n,
        known=[{} for _ in range(n)],
        draw_cap=[None] * n,
        free_bust=BUST_BIT if config.allow_voluntary_bust else 0,
    )
    _deal(config, state)
    if config.first_player == "random":
        state.current = seeding.below(state.seed, state.counter, n)
        state.counter += 1
    else:
        state.current = 0
    state.tab = build_table(state)
    return state


def _deal(config: FiveAliveConfig, state: FiveAliveState) -> None:
    """Gather and shuffle the whole deck; 10 cards to each survivor; the rest is the draw pile; T = 0."""
    canonical = _canonical(config)
    perm = seeding.permutation(state.seed, state.counter, len(canonical)).tolist()
    state.counter += 1
    shuffled = list(map(canonical.__getitem__, perm))
    n = state.num_players
    pos = 0
    for p in range(n):
        h = [0] * NUM_KINDS
        bits = 0
        if state.alive[p]:
            for k in shuffled[pos:pos + HAND_SIZE]:
                h[k] += 1
                bits |= 1 << k
            pos += HAND_SIZE
            state.hand_size[p] = HAND_SIZE
        else:
            state.hand_size[p] = 0
        state.hands[p] = h
        state.held[p] = bits
    state.draw = shuffled[pos:][::-1]
    state.discard = [0] * NUM_KINDS
    state.discard_size = 0
    state.top = -1
    state.total = 0
    knowledge.forget_all(state)
    state.bomber = -1
    state.bomb_queue = []
    state.phase = PLAY
    state.reshuffles = 0


def from_position(
    config: FiveAliveConfig,
    hands: list[list[int]],
    *,
    current: int = 0,
    total: int = 0,
    direction: int = 1,
    draw: list[int] | None = None,
    discard: list[int] | None = None,
    lives: list[int] | None = None,
    seed: int = 0,
    counter: int = 2,
    round: int = 0,
) -> FiveAliveState:
    """A position built by hand (rule scenarios, analysis); the deck need not be complete.

    ``hands[p]`` lists p's cards as kinds (an eliminated player: lives 0 and an empty hand);
    ``draw`` lists the draw pile in the order it will be drawn (first drawn first); ``discard`` lists
    the discard pile from bottom to top (its last entry is the top card).
    """
    n = config.num_players
    if len(hands) != n:
        raise ValueError(f"hands: expected {n} hands, got {len(hands)}")
    lives = [int(v) for v in lives] if lives is not None else [LIVES] * n
    current, total, direction = int(current), int(total), int(direction)
    counts = []
    for h in hands:
        c = [0] * NUM_KINDS
        for k in h:
            c[k] += 1
        counts.append(c)
    disc = [0] * NUM_KINDS
    for k in discard or []:
        disc[k] += 1
    state = FiveAliveState(
        num_players=n, seed=seeding.normalize_seed(seed), counter=counter, round=round,
        current=current, direction=direction, total=total, hands=counts, hand_size=[0] * n,
        held=[0] * n, draw=list(reversed(draw or [])), discard=disc, top=discard[-1] if discard else -1,
        lives=lives, alive=[v > 0 for v in lives], result=[0 if v > 0 else -1 for v in lives],  # the eliminated: lost
        known=[{} for _ in range(n)],
        draw_cap=[None] * n, free_bust=BUST_BIT if config.allow_voluntary_bust else 0,
    )
    refresh(state)
    return state


# --- legality -----------------------------------------------------------------------------------------
def legal_bits(state: FiveAliveState) -> int:
    """The acting player's legal actions as a bit set (bit a = action a); 0 once the game is over."""
    phase = state.phase
    if phase == PLAY:
        bits = state.held[state.current] & PLAYABLE_BITS[state.total]
        return bits | BUST_BIT if bits == 0 else bits | state.free_bust
    if phase == BOMB_ANSWER:  # lose a life; discard a 0 only for a responder holding one
        return state.held[state.current] & ANSWER_BITS | BUST_BIT
    return 0


def legal_mask(state: FiveAliveState) -> np.ndarray:
    """int8 [19]: the acting player's legal actions (never all zero before the game is over)."""
    if state.phase == PLAY:
        bits = state.held[state.current] & PLAYABLE_BITS[state.total]
        bits = bits | BUST_BIT if bits == 0 else bits | state.free_bust
    else:
        bits = legal_bits(state)
    m = _MASKS.get(bits)
    if m is not None:
        return m.copy()
    if len(_MASKS) < MASK_CACHE_SIZE:
        return _mask_of(bits).copy()
    return _new_mask(bits)  # the cache is full: a new array, no copy needed


def legal_actions(state: FiveAliveState) -> list[int]:
    bits = legal_bits(state)
    return [a for a in range(NUM_ACTIONS) if (bits >> a) & 1]


def check_action(state: FiveAliveState, action: object) -> int:
    """``action`` as an int if it is legal for the acting player; else ``IllegalActionError``. An action
    id is an int, a numpy integer or a 0-d integer array (``core.errors.action_id``)."""
    if type(action) is not int:
        a = action_id(action)
        if a is None:
            raise IllegalActionError(_agent(state), action, legal_actions(state))
        action = a
    if not 0 <= action < NUM_ACTIONS or not (legal_bits(state) >> action) & 1:
        raise IllegalActionError(_agent(state), action, legal_actions(state))
    return action


def _agent(state: FiveAliveState) -> str:
    return f"player_{state.current}" if state.current >= 0 else "nobody (the game is over)"


# --- the step -----------------------------------------------------------------------------------------
def step(config: FiveAliveConfig, state: FiveAliveState, action: int) -> list[int]:
    """Apply the acting player's ``action``; return every player's reward for this step.

    Raises ``IllegalActionError`` (state untouched) if the action is not legal. Rewards follow
    ``config.reward``: win/loss results as they are decided, and/or -1 per life lost.
    """
    p = state.current
    if state.phase == PLAY and type(action) is int and 0 <= action < NUM_ACTIONS:  # the fast path
        bits = state.held[p] & PLAYABLE_BITS[state.total]
        bits = bits | BUST_BIT if bits == 0 else bits | state.free_bust
        a = action if (bits >> action) & 1 else check_action(state, action)
    else:
        a = check_action(state, action)
    # The event log (``events``): who acted and with what, written inline (every step pays for it).
    state.ev_player = p
    state.ev_action = a
    if state.ev_rare:
        events.clear(state)
    if state.phase == BOMB_ANSWER:
        state.ev_answer = True
        if a == N0:
            _discard_zero(state, p)
            _bomb_continue(config, state)
        elif not _lose_life(config, state, p):
            _bomb_continue(config, state)
    else:
        state.ev_answer = False
        if a == BUST:
            _bust(config, state, p)
        else:
            _play(config, state, p, a)
    state.turns += 1
    limit = config.max_steps
    if limit is not None and state.turns >= limit and state.phase != OVER:
        _truncate(state)
    n = state.num_players
    if not state.ev_rare:
        return [0] * n
    rewards = [0] * n
    mode = config.reward
    if mode != "win_loss":
        for q in state.ev_losses:
            rewards[q] -= 1
    if mode != "lives":
        for q in state.ev_settled:
            rewards[q] += state.result[q]
    return rewards


def next_survivor(state: FiveAliveState, seat: int) -> int:
    """The next surviving player after ``seat`` in the current direction (``seat`` need not survive)."""
    n = state.num_players
    d = state.direction
    alive = state.alive
    s = (seat + d) % n
    while not alive[s]:
        s = (s + d) % n
    return s


def turn_order(state: FiveAliveState, start: int) -> list[int]:
    """The survivors in turn order: ``start`` first if it survives, then the next ones in the direction."""
    order = [start] if state.alive[start] else []
    s = start
    for _ in range(state.num_players - 1):
        s = (s + state.direction) % state.num_players
        if state.alive[s]:
            order.append(s)
    return order


def _set_current(state: FiveAliveState, q: int) -> None:
    tab = state.tab
    tab[TAB_FIXED + state.current] = 0.0
    tab[TAB_FIXED + q] = 1.0
    state.current = q


def _set_total(state: FiveAliveState, t: int) -> None:
    tab = state.tab
    tab[TAB_TOTAL + state.total] = 0.0
    tab[TAB_TOTAL + t] = 1.0
    state.total = t


def _remove(state: FiveAliveState, p: int, k: int) -> int:
    """Take one card of kind k from p's hand onto the discard pile (it becomes the top card).
    Returns p's new hand size."""
    h = state.hands[p]
    c = h[k] - 1
    h[k] = c
    n = state.num_players
    tab = state.tab
    if c == 0:
        state.held[p] &= ~(1 << k)
    tab[TAB_FIXED + 3 * n + NUM_KINDS * p + k] = c
    hs = state.hand_size[p] - 1
    state.hand_size[p] = hs
    tab[TAB_FIXED + 2 * n + p] = hs
    disc = state.discard
    disc[k] += 1
    state.discard_size += 1
    tab[TAB_DISCARD + k] = disc[k]
    top = state.top
    if top != k:
        if top >= 0:
            tab[TAB_TOP + top] = 0.0
        tab[TAB_TOP + k] = 1.0
        state.top = k
    if state.known[p]:
        knowledge.card_left(state, p, k)
    return hs


def _give(state: FiveAliveState, q: int, k: int) -> None:
    """One card of kind k into q's hand."""
    h = state.hands[q]
    c = h[k] + 1
    h[k] = c
    n = state.num_players
    tab = state.tab
    if c == 1:
        state.held[q] |= 1 << k
    tab[TAB_FIXED + 3 * n + NUM_KINDS * q + k] = c
    hs = state.hand_size[q] + 1
    state.hand_size[q] = hs
    tab[TAB_FIXED + 2 * n + q] = hs


# T after a simple card: -1 keeps T (numbers add their value instead).
_SIMPLE_TOTAL = (-1,) * NUM_NUMBERS + (-1, 21, -1, -1, 0, 10)  # Reverse, =21, Skip, Pass, =0, =10


def _play(config: FiveAliveConfig, state: FiveAliveState, p: int, k: int) -> None:
    """P plays a card of kind k (docs/rules.md 2.3.3, 2.4), then the turn ends (2.3.4-5).

    The common case (a number or a simple wild card that is not P's last card) is written out inline
    (it is most of all steps); Draw, Re-Deal, Bomb and a last card go through ``_play_special``.
    """
    # The card leaves P's hand for the top of the discard pile (as ``_remove``, inlined).
    n = state.num_players
    tab = state.tab
    h = state.hands[p]
    c = h[k] - 1
    h[k] = c
    if c == 0:
        state.held[p] &= ~(1 << k)
    o_sizes = TAB_FIXED + 2 * n
    tab[o_sizes + n + NUM_KINDS * p + k] = c
    hs = state.hand_size[p] - 1
    state.hand_size[p] = hs
    tab[o_sizes + p] = hs
    disc = state.discard
    c = disc[k] + 1
    disc[k] = c
    state.discard_size += 1
    tab[TAB_DISCARD + k] = c
    top = state.top
    if top != k:
        if top >= 0:
            tab[TAB_TOP + top] = 0.0
        tab[TAB_TOP + k] = 1.0
        state.top = k
    if state.known[p]:
        knowledge.card_left(state, p, k)
    if k >= DRAW1 or hs == 0:
        _play_special(config, state, p, k, hs)
        return
    t = state.total
    nt = t + k if k < NUM_NUMBERS else _SIMPLE_TOTAL[k]
    if nt >= 0 and nt != t:
        tab[TAB_TOTAL + t] = 0.0
        tab[TAB_TOTAL + nt] = 1.0
        state.total = nt
    d = state.direction
    if k == REVERSE:
        d = -d
        state.direction = d
        tab[TAB_DIRECTION] = 1.0 if d == 1 else 0.0
    alive = state.alive
    q = (p + d) % n
    while not alive[q]:
        q = (q + d) % n
    if k == SKIP:  # the next survivor is skipped (with 2 survivors: P again)
        q = (q + d) % n
        while not alive[q]:
            q = (q + d) % n
    tab[TAB_FIXED + p] = 0.0
    tab[TAB_FIXED + q] = 1.0
    state.current = q


def _play_special(config: FiveAliveConfig, state: FiveAliveState, p: int, k: int, hs: int) -> None:
    """The rest of ``_play`` for Draw 1/2, Re-Deal, Bomb, and any card that was P's last (hs == 0)."""
    if k < NUM_NUMBERS:
        _set_total(state, state.total + k)
    elif k == REVERSE:
        state.direction = -state.direction
        state.tab[TAB_DIRECTION] = 1.0 if state.direction == 1 else 0.0
    elif k == EQ21 or k == EQ10 or k == EQ0:
        _set_total(state, _SET_TOTAL[k])
    elif k == DRAW1 or k == DRAW2:
        _draws(config, state, p, 1 if k == DRAW1 else 2)
    elif k == REDEAL:
        if hs > 0:  # the Re-Deal as P's last card: nothing to re-deal, the round ends below
            _redeal(state, p)
        _set_total(state, 0)
    elif k == BOMB:
        if hs > 0 or config.bomb_last_card_resolves:
            state.bomber = p
            state.bomb_queue = turn_order(state, next_survivor(state, p))[:-1]  # everyone but P, in turn order
            events.note(state)
            _bomb_continue(config, state)
            return
        _set_total(state, 0)
    # Skip and Pass Me By: no effect here (a last card passes no turn)
    if hs == 0:
        _round_end(config, state, p)
        return
    _set_current(state, next_survivor(state, p))


def _bust(config: FiveAliveConfig, state: FiveAliveState, p: int) -> None:
    """P plays nothing (docs/rules.md 2.3.2): loses a life (teams: the team), keeps the hand, T = 0, the turn
    passes. A forced bust tells everyone that no card in P's hand is playable at T."""
    if not config.allow_voluntary_bust:
        knowledge.busted(state, p)
    _set_total(state, 0)
    if _lose_life(config, state, p):
        return
    _set_current(state, next_survivor(state, p))


def _draws(config: FiveAliveConfig, state: FiveAliveState, p: int, count: int) -> None:
    """Every other survivor draws ``count`` cards, in turn order from the next player."""
    events.note(state)
    order = turn_order(state, next_survivor(state, p))[:-1]  # the survivors after P, P (last) left out
    if config.draw_order == "each":
        for q in order:
            for _ in range(count):
                if not _draw_one(config, state, q):
                    return
    else:
        for _ in range(count):
            for q in order:
                if not _draw_one(config, state, q):
                    return


def _draw_one(config: FiveAliveConfig, state: FiveAliveState, q: int) -> bool:
    """q draws one card; False (nothing drawn) if the draw pile is empty and cannot be refilled."""
    if not state.draw:
        if config.empty_draw_pile == "skip" or state.reshuffles >= config.max_reshuffles \
                or not _reshuffle(state):
            return False
    k = state.draw.pop()
    _give(state, q, k)
    state.tab[TAB_DRAW] = len(state.draw)
    events.drew(state, q)
    return True


def _reshuffle(state: FiveAliveState) -> bool:
    """The discard pile except its top card becomes the new (shuffled) draw pile; False if empty."""
    counts = state.discard[:]
    top = state.top
    if top >= 0:
        counts[top] -= 1
    size = sum(counts)
    if size == 0:
        return False
    canonical = _expand(counts)
    perm = seeding.permutation(state.seed, state.counter, size).tolist()
    state.counter += 1
    state.draw = [canonical[i] for i in reversed(perm)]  # draw[-1] = canonical[perm[0]] is drawn first
    disc = [0] * NUM_KINDS
    if top >= 0:
        disc[top] = 1
    state.discard = disc
    state.discard_size = 1 if top >= 0 else 0
    tab = state.tab
    tab[TAB_DISCARD:TAB_DISCARD + NUM_KINDS] = disc
    tab[TAB_DRAW] = size
    knowledge.reshuffled(state, counts)
    events.reshuffled(state, size)
    state.reshuffles += 1
    return True


def _redeal(state: FiveAliveState, p: int) -> None:
    """Hand In & Re-Deal (P has cards left): all surviving hands gathered, shuffled, dealt one at a
    time clockwise (seat + 1, whatever the current direction) from the player to P's left, P last in
    each pass (docs/rules.md 2.4)."""
    n = state.num_players
    order = [q for q in ((p + i) % n for i in range(1, n + 1)) if state.alive[q]]
    m = len(order)
    hands = state.hands
    gathered = [sum(c) for c in zip(*(hands[q] for q in order), strict=True)]
    knowledge.before_redeal(state, order, gathered)  # what each survivor learns about the draw pile
    canonical = _expand(gathered)
    size = len(canonical)
    perm = seeding.permutation(state.seed, state.counter, size).tolist()
    state.counter += 1
    new = [[0] * NUM_KINDS for _ in range(m)]
    bits = [0] * m
    for i, j in enumerate(perm):
        k = canonical[j]
        new[i % m][k] += 1
        bits[i % m] |= 1 << k
    tab = state.tab
    base = TAB_FIXED + 3 * n
    for i, q in enumerate(order):
        h = new[i]
        hands[q] = h
        hs = size // m + (1 if i < size % m else 0)
        state.hand_size[q] = hs
        state.held[q] = bits[i]
        tab[base + NUM_KINDS * q:base + NUM_KINDS * (q + 1)] = h
        tab[TAB_FIXED + 2 * n + q] = hs
    knowledge.forget_hands(state)
    events.note(state)


def _discard_zero(state: FiveAliveState, q: int) -> None:
    _remove(state, q, N0)
    events.zero_discarded(state, q)


def _bomb_continue(config: FiveAliveConfig, state: FiveAliveState) -> None:
    """Resolve Bomb answers in turn order until one needs a decision, the game ends, or all are done;
    then T = 0 and the turn ends for the bomber."""
    queue = state.bomb_queue
    while queue:
        q = queue.pop(0)
        if config.bomb_zero_optional:
            # Every responder answers as a step of its own, 0 or not (docs/rules.md 2.4): the sequence of
            # public turns is the same whoever holds a 0, so it reveals nothing.
            if state.phase != BOMB_ANSWER:
                state.phase = BOMB_ANSWER
                state.tab[TAB_PHASE] = 0.0
                state.tab[TAB_PHASE + 1] = 1.0
            _set_current(state, q)
            return
        if state.hands[q][N0] > 0:
            _discard_zero(state, q)
        else:
            knowledge.no_zero(state, q)
            if _lose_life(config, state, q):
                return
    bomber = state.bomber
    state.bomber = -1
    if state.phase == BOMB_ANSWER:
        state.phase = PLAY
        state.tab[TAB_PHASE] = 1.0
        state.tab[TAB_PHASE + 1] = 0.0
    _set_total(state, 0)
    for q in range(state.num_players):
        if state.alive[q] and state.hand_size[q] == 0:
            _round_end(config, state, bomber)
            return
    _set_current(state, next_survivor(state, bomber))


# --- lives, eliminations, round and game end ---------------------------------------------------------
def _lose_life(config: FiveAliveConfig, state: FiveAliveState, q: int) -> bool:
    """q (teams: q's team) loses one life; eliminations and game end follow at once.
    Returns True if the game is over."""
    events.note(state)
    n = state.num_players
    tab = state.tab
    if config.variant == "teams":
        for m in range(q % 2, n, 2):
            state.lives[m] -= 1
            tab[TAB_FIXED + n + m] = state.lives[m]
            events.life_lost(state, m)
        if state.lives[q] == 0:
            _end_game(state, [m for m in range(n) if m % 2 != q % 2])
            return True
        return False
    state.lives[q] -= 1
    tab[TAB_FIXED + n + q] = state.lives[q]
    events.life_lost(state, q)
    if state.lives[q] > 0:
        return False
    _eliminate(state, q)
    if config.variant == "sudden_death":
        _end_sudden_death(config, state)
        return True
    if state.n_alive <= 1:
        _end_game(state, [m for m in range(n) if state.alive[m]])
        return True
    return False


def _eliminate(state: FiveAliveState, q: int) -> None:
    """q is out of the game (docs/rules.md 2.6); their hand goes to the discard pile beneath its top card."""
    n = state.num_players
    tab = state.tab
    state.alive[q] = False
    state.n_alive -= 1
    h = state.hands[q]
    disc = state.discard
    for k in range(NUM_KINDS):
        if h[k]:
            disc[k] += h[k]
            tab[TAB_DISCARD + k] = disc[k]
    state.discard_size += state.hand_size[q]
    state.hands[q] = [0] * NUM_KINDS
    state.hand_size[q] = 0
    state.held[q] = 0
    tab[TAB_FIXED + 3 * n + NUM_KINDS * q:TAB_FIXED + 3 * n + NUM_KINDS * (q + 1)] = 0.0
    tab[TAB_FIXED + 2 * n + q] = 0.0
    knowledge.forget(state, q)
    state.result[q] = -1
    events.eliminated(state, q)


def _end_game(state: FiveAliveState, winners: list[int]) -> None:
    """The game is over: ``winners`` win, every undecided player loses."""
    tab = state.tab
    if state.current >= 0:
        tab[TAB_FIXED + state.current] = 0.0
    tab[TAB_PHASE] = 0.0
    tab[TAB_PHASE + 1] = 0.0
    state.phase = OVER
    state.current = -1
    state.bomber = -1
    state.bomb_queue = []
    state.winners = sorted(winners)
    for q in range(state.num_players):
        if state.result[q] == 0:
            state.result[q] = 1 if q in winners else -1
            events.settled(state, q)
    events.note(state)


def _truncate(state: FiveAliveState) -> None:
    """``max_steps`` decisions were taken and the game goes on: it ends here, with no winner; every
    undecided result stays 0 (see the module docstring)."""
    tab = state.tab
    if state.current >= 0:
        tab[TAB_FIXED + state.current] = 0.0
    tab[TAB_PHASE] = 0.0
    tab[TAB_PHASE + 1] = 0.0
    state.phase = OVER
    state.current = -1
    state.bomber = -1
    state.bomb_queue = []
    state.winners = []
    events.note(state)


def truncated(state: FiveAliveState) -> bool:
    """Whether the game ended by the ``max_steps`` truncation (over, with no winner)."""
    return state.phase == OVER and not state.winners


def hand_value(config: FiveAliveConfig, state: FiveAliveState, q: int) -> int:
    """Sudden-death tie-break: the sum of number cards in q's hand, wild cards counting
    ``tiebreak_wild_value`` each."""
    h = state.hands[q]
    return (sum(v * h[v] for v in range(NUM_NUMBERS))
            + config.tiebreak_wild_value * sum(h[NUM_NUMBERS:]))


def _end_sudden_death(config: FiveAliveConfig, state: FiveAliveState) -> None:
    """docs/rules.md 2.7: most lives, then lowest hand value, then ``final_tiebreak``."""
    cands = [q for q in turn_order(state, state.ev_player) if state.lives[q] > 0]
    best = max(state.lives[q] for q in cands)
    cands = [q for q in cands if state.lives[q] == best]
    low = min(hand_value(config, state, q) for q in cands)
    cands = [q for q in cands if hand_value(config, state, q) == low]
    _end_game(state, cands if config.final_tiebreak == "shared" else cands[:1])


def _round_end(config: FiveAliveConfig, state: FiveAliveState, p: int) -> None:
    """docs/rules.md 2.5 (P = the player whose turn it was): losses, eliminations, then a new round."""
    events.note(state)
    n = state.num_players
    order = turn_order(state, p)
    out = [q for q in order if state.hand_size[q] == 0]
    events.went_out(state, out)
    if config.variant == "teams":
        for q in out:  # each player going out costs the other team one life
            if _lose_life(config, state, (q + 1) % n):
                return
    else:
        losers = [q for q in order if state.hand_size[q] > 0]
        tab = state.tab
        for q in losers:  # simultaneous losses, then eliminations
            state.lives[q] -= 1
            tab[TAB_FIXED + n + q] = state.lives[q]
            events.life_lost(state, q)
        dead = [q for q in losers if state.lives[q] == 0]
        for q in dead:
            _eliminate(state, q)
        if dead:
            if config.variant == "sudden_death":
                _end_sudden_death(config, state)
                return
            if state.n_alive <= 1:
                _end_game(state, [m for m in range(n) if state.alive[m]])
                return
    _new_round(config, state, out[0])


def _new_round(config: FiveAliveConfig, state: FiveAliveState, dealer: int) -> None:
    """The player who went out deals: all cards reshuffled, 10 to each survivor, T = 0 (docs/rules.md 2.5)."""
    state.round += 1
    events.dealt(state, dealer)
    _deal(config, state)
    if config.new_round_direction == "clockwise":
        state.direction = 1
    state.current = dealer if config.new_round_start == "dealer" else next_survivor(state, dealer)
    state.tab = build_table(state)


# --- queries ------------------------------------------------------------------------------------------
def is_over(state: FiveAliveState) -> bool:
    return state.phase == OVER


def winners(state: FiveAliveState) -> list[int]:
    """The winning players once the game is over (teams: the winning team's seats); [] before."""
    return state.winners[:]


class FiveAliveEngine(BoundEngine[FiveAliveConfig, FiveAliveState]):
    """A config and a state together: the object the environment and search agents hold.

    ``FiveAliveEngine(config, seed)`` starts a game; ``step(action)`` returns the step's rewards;
    ``clone()`` is cheap (no deepcopy).
    """

    __slots__ = ()

    # the binding (current_player, is_over, legal_mask, step, clone) is BoundEngine's, on these
    _config_cls = FiveAliveConfig
    _state_cls = FiveAliveState
    _new_game = staticmethod(new_game)
    _legal_mask = staticmethod(legal_mask)
    _step = staticmethod(step)
    _over = OVER
