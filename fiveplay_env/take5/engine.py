"""The Take 5 reference engine: the rules of docs/rules.md section 1, one game at a time.

Rules are functions of ``(config, state, action)``; the state is a ``Take5State`` mutated in place.
Per-card logic runs on Python scalars and lists (faster than numpy on 4 rows of at most 5 cards);
hands, the seen-cards set and the draft pool are numpy arrays that observations and masks are cut from.

Decision order (the AEC order): in draft mode each round opens with the draft picks (seat order 0..n-1,
repeated, until each holds 10). Each trick, players 0..n-1 choose a card one after another without
seeing the choices already made; after the last choice all cards are revealed and placed in ascending
order. A too-low card with ``row_pick="player"`` stops the placement and asks its owner for a row
(actions 104..107); the rest of the trick is then placed.

``step`` returns each player's reward for that step: minus the bull heads taken in it.

Determinization (``sample_world``, ``canonical``) lives in ``fiveplay_env.take5.determinize``;
``sample_world`` is re-exported here.
"""
from __future__ import annotations

import numpy as np

from fiveplay_env.core import seeding
from fiveplay_env.core.config import show_value
from fiveplay_env.core.engine import BoundEngine
from fiveplay_env.core.errors import IllegalActionError, action_id
from fiveplay_env.take5.config import Take5Config
from fiveplay_env.take5.determinize import sample_world  # noqa: F401  (re-exported: the engine API)
from fiveplay_env.take5.state import (
    ACTION_ROW0, BULL, DRAFT, HAND_SIZE, NUM_ACTIONS, NUM_CARDS, NUM_ROWS, NUM_TRICKS, OVER, PLAY,
    ROW_CHOICE, ROW_LIMIT, Take5State,
)

_ROW_MASK = np.zeros(NUM_ACTIONS, np.int8)
_ROW_MASK[ACTION_ROW0:ACTION_ROW0 + NUM_ROWS] = 1
_ROW_MASK.setflags(write=False)


def new_game(config: Take5Config, seed: int | None = None) -> Take5State:
    """A new game, its first round dealt (or its draft opened). ``ValueError`` unless ``config`` is a
    ``Take5Config`` or ``seed`` is None or an int in 0..2**64-1."""
    if not isinstance(config, Take5Config):
        raise ValueError(f"config: expected a Take5Config (for example Take5Config(num_players=4) or "
                         f"take5_v0.make_config(...)), got {type(config).__name__} {show_value(config)}")
    n = config.num_players
    state = Take5State(
        num_players=n,
        seed=seeding.normalize_seed(seed),
        hands=np.zeros((n, NUM_ACTIONS), np.int8),
        scores=[0] * n,
    )
    _start_round(config, state)
    return state


def _start_round(config: Take5Config, state: Take5State) -> None:
    n = state.num_players
    deck = config.deck_size
    state.trick = 0
    state.hands[:] = 0
    state.hand_size = [0] * n
    state.pending = [-1] * n
    state.queue = []
    state.trick_cards = []
    state.seen[:] = 0
    state.taken = [[] for _ in range(n)]
    state.round_pen = [0] * n
    state.pool[:] = 0
    state.set_aside = []
    state.current = 0
    if config.draft:
        state.rows = []
        state.pool[:deck] = 1
        state.phase = DRAFT
        return
    perm = seeding.permutation(state.seed, state.counter, deck).tolist()
    state.counter += 1
    for p in range(n):
        hand = perm[HAND_SIZE * p: HAND_SIZE * (p + 1)]
        state.hands[p, hand] = 1
        state.hand_size[p] = HAND_SIZE
    starters = perm[HAND_SIZE * n: HAND_SIZE * n + NUM_ROWS]
    state.rows = [[c] for c in starters]
    state.seen[starters] = 1
    state.set_aside = sorted(perm[HAND_SIZE * n + NUM_ROWS:])
    state.phase = PLAY


def legal_mask(state: Take5State) -> np.ndarray:
    """int8 [109]: the acting player's legal actions (all zero once the game is over)."""
    phase = state.phase
    if phase == PLAY:
        return state.hands[state.current].copy()
    if phase == ROW_CHOICE:
        return _ROW_MASK.copy()
    if phase == DRAFT:
        return state.pool.copy()
    return np.zeros(NUM_ACTIONS, np.int8)


def legal_actions(state: Take5State) -> list[int]:
    return [int(a) for a in np.flatnonzero(legal_mask(state))]


def is_legal(state: Take5State, action: int) -> bool:
    phase = state.phase
    if phase == PLAY:
        return 0 <= action < NUM_CARDS and state.hands[state.current, action] == 1
    if phase == ROW_CHOICE:
        return ACTION_ROW0 <= action < ACTION_ROW0 + NUM_ROWS
    if phase == DRAFT:
        return 0 <= action < NUM_CARDS and state.pool[action] == 1
    return False


def check_action(state: Take5State, action: object) -> int:
    """``action`` as an int if it is legal for the acting player; else ``IllegalActionError``. An action
    id is an int, a numpy integer or a 0-d integer array (``core.errors.action_id``)."""
    a = action_id(action)
    if a is None:
        raise IllegalActionError(_agent(state), action, legal_actions(state))
    if not is_legal(state, a):
        raise IllegalActionError(_agent(state), action, legal_actions(state))
    return a


def _agent(state: Take5State) -> str:
    return f"player_{state.current}" if state.current >= 0 else "nobody (the game is over)"


def step(config: Take5Config, state: Take5State, action: int) -> list[int]:
    """Apply the acting player's ``action``; return every player's reward for this step.

    Raises ``IllegalActionError`` (state untouched) if the action is not legal.
    """
    phase = state.phase
    p = state.current
    # Fast path for the common case (a plain int card in the player's hand); anything else is
    # checked, and rejected with its reason, by check_action.
    if phase == PLAY and type(action) is int and 0 <= action < NUM_CARDS and state.hands[p, action]:
        a = action
    else:
        a = check_action(state, action)
    n = state.num_players
    rewards = [0] * n
    if phase == PLAY:
        state.hands[p, a] = 0
        state.hand_size[p] -= 1
        state.pending[p] = a
        if p + 1 < n:
            state.current = p + 1
            view = state.view
            if view is not None:
                view[p, a] = 0.0  # nothing public changed: keep the cached observations
            return rewards
        _reveal(state)
        _place(config, state, rewards)
    elif phase == ROW_CHOICE:
        card, owner = state.queue.pop(0)
        _take_row(config, state, owner, a - ACTION_ROW0, card, rewards)
        _place(config, state, rewards)
    else:  # DRAFT
        state.pool[a] = 0
        state.hands[p, a] = 1
        state.hand_size[p] += 1
        if state.hand_size[n - 1] < HAND_SIZE:
            state.current = (p + 1) % n
        else:
            starters = [int(c) for c in np.flatnonzero(state.pool[:NUM_CARDS])]
            state.pool[:] = 0
            state.rows = [[c] for c in starters]
            state.seen[starters] = 1
            state.phase = PLAY
            state.current = 0
    state.view = None  # public information changed: re-encode on the next observe
    return rewards


def _reveal(state: Take5State) -> None:
    """All chosen cards are revealed at once and queued for placement in ascending order."""
    order = sorted((c, p) for p, c in enumerate(state.pending))
    state.queue = order
    state.trick_cards = [c for c, _ in order]
    state.seen[state.trick_cards] = 1
    state.pending = [-1] * state.num_players


def target_row(rows: list[list[int]], card: int) -> int:
    """The row ``card`` goes on: the one whose last card is the highest below it; -1 if too low."""
    best, best_end = -1, -1
    for r in range(NUM_ROWS):
        end = rows[r][-1]
        if best_end < end < card:
            best, best_end = r, end
    return best


def cheapest_row(rows: list[list[int]]) -> int:
    """``row_pick="min_bullheads"``: fewest bull heads, then fewer cards, then the lowest index."""
    return min(range(NUM_ROWS), key=lambda r: (sum(BULL[c] for c in rows[r]), len(rows[r]), r))


def _take_row(config: Take5Config, state: Take5State, player: int, r: int, card: int, rewards: list[int]) -> None:
    row = state.rows[r]
    pts = 0
    for c in row:
        pts += BULL[c]
    state.taken[player].extend(row)
    state.round_pen[player] += pts
    rewards[player] -= pts
    state.rows[r] = [card]


def _place(config: Take5Config, state: Take5State, rewards: list[int]) -> None:
    """Place queued cards in order until the queue is empty or a player must choose a row."""
    rows = state.rows
    queue = state.queue
    while queue:
        card, owner = queue[0]
        r = target_row(rows, card)
        if r < 0:
            if config.row_pick == "player":
                state.phase = ROW_CHOICE
                state.current = owner
                return
            _take_row(config, state, owner, cheapest_row(rows), card, rewards)
        elif len(rows[r]) == ROW_LIMIT:
            _take_row(config, state, owner, r, card, rewards)
        else:
            rows[r].append(card)
        queue.pop(0)
    _end_trick(config, state)


def _end_trick(config: Take5Config, state: Take5State) -> None:
    state.trick += 1
    state.trick_cards = []
    if state.trick < NUM_TRICKS:
        state.phase = PLAY
        state.current = 0
        return
    n = state.num_players
    for p in range(n):
        state.scores[p] += state.round_pen[p]
    state.round += 1
    if game_over(config, state):
        state.phase = OVER
        state.current = -1
    else:
        _start_round(config, state)


def game_over(config: Take5Config, state: Take5State) -> bool:
    """Whether the game ends with the round just finished (``mode`` and ``end_score`` rules)."""
    k = config.num_rounds
    if k is not None:
        return state.round >= k
    top = max(state.scores)
    return top >= config.end_score if config.end_inclusive else top > config.end_score


def is_over(state: Take5State) -> bool:
    return state.phase == OVER


def winners(state: Take5State) -> list[int]:
    """Players with the lowest score (ties share the win); meaningful once the game is over."""
    low = min(state.scores)
    return [p for p, s in enumerate(state.scores) if s == low]


class Take5Engine(BoundEngine[Take5Config, Take5State]):
    """A config and a state together: the object the environments and search agents hold.

    ``Take5Engine(config, seed)`` starts a game; ``step(action)`` returns the step's rewards;
    ``clone()`` is cheap (no deepcopy).
    """

    __slots__ = ()

    # the binding (current_player, is_over, legal_mask, step, clone) is BoundEngine's, on these
    _config_cls = Take5Config
    _state_cls = Take5State
    _new_game = staticmethod(new_game)
    _legal_mask = staticmethod(legal_mask)
    _step = staticmethod(step)
    _over = OVER


def from_position(
    config: Take5Config,
    hands: list[list[int]],
    rows: list[list[int]],
    *,
    scores: list[int] | None = None,
    round_pen: list[int] | None = None,
    taken: list[list[int]] | None = None,
    round: int = 0,
    seed: int = 0,
) -> Take5State:
    """A state at the start of a trick, set up by hand from card *numbers* (1..104).

    ``hands``: each player's cards (all hands the same size k, 1..10; the trick index is 10 - k).
    ``rows``: the 4 rows (1..5 cards each, in placement order). ``taken``: cards already in each
    player's penalty pile this round (their bull heads are *not* added: pass ``round_pen`` too).
    Every other card of the deck is set aside. Used by the rule tests and to study positions.
    Raises ``ValueError`` for a malformed position.
    """
    n = config.num_players
    if len(hands) != n:
        raise ValueError(f"hands: expected {n} hands, got {len(hands)}")
    sizes = {len(h) for h in hands}
    if len(sizes) != 1 or not 1 <= next(iter(sizes)) <= HAND_SIZE:
        raise ValueError(f"hands: expected hands of one size in 1..{HAND_SIZE}, got sizes {sorted(sizes)}")
    if len(rows) != NUM_ROWS or any(not 1 <= len(r) <= ROW_LIMIT for r in rows):
        raise ValueError(f"rows: expected {NUM_ROWS} rows of 1..{ROW_LIMIT} cards, got {rows}")
    taken = taken or [[] for _ in range(n)]
    every = [c for h in hands for c in h] + [c for r in rows for c in r] + [c for t in taken for c in t]
    deck = config.deck_size
    bad = [c for c in every if not 1 <= c <= deck]
    if bad:
        raise ValueError(f"cards: expected numbers in 1..{deck}, got {bad}")
    if len(set(every)) != len(every):
        dup = sorted({c for c in every if every.count(c) > 1})
        raise ValueError(f"cards: each card may appear once, got duplicates {dup}")
    state = Take5State(num_players=n, seed=seeding.normalize_seed(seed),
                       hands=np.zeros((n, NUM_ACTIONS), np.int8), scores=list(scores or [0] * n))
    _start_round(config, state)  # resets the round fields; the deal is then overwritten
    state.phase = PLAY
    state.pool[:] = 0
    state.round = round
    state.hands[:] = 0
    for p, h in enumerate(hands):
        state.hands[p, [c - 1 for c in h]] = 1
    state.hand_size = [len(h) for h in hands]
    state.trick = HAND_SIZE - len(hands[0])
    state.rows = [[c - 1 for c in r] for r in rows]
    state.taken = [[c - 1 for c in t] for t in taken]
    state.round_pen = list(round_pen or [0] * n)
    state.seen[:] = 0
    state.seen[[c - 1 for c in every if not any(c in h for h in hands)]] = 1
    used = set(every)
    state.set_aside = [c - 1 for c in range(1, deck + 1) if c not in used]
    state.view = None
    return state
