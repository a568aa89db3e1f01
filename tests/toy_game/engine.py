"""The toy game's reference engine, observation, determinization and results (see the package docstring).

Actions: id b (0..7) bids the card b + 1. Observation (float32): every player's remaining cards
(relative seat order, the observer first: ``n * K``), the prize in play (one-hot, ``K``), the prizes
already played (``K``), and the scores / total prize value (``n``, relative order).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fiveplay_env.core import seeding
from fiveplay_env.core.engine import BoundEngine
from fiveplay_env.core.errors import IllegalActionError
from fiveplay_env.core.spec import GameSpec
from tests.toy_game.config import MAX_CARDS, MAX_PLAYERS, MIN_PLAYERS, ToyBidConfig

NUM_ACTIONS = MAX_CARDS
PLAY, OVER = 0, 1
SPEC = GameSpec("toybid_v0", MIN_PLAYERS, MAX_PLAYERS, NUM_ACTIONS, version=0)


@dataclass
class ToyBidState:
    num_players: int
    cards: int
    seed: int
    prizes: list[int]                      # prize values in deal order (hidden beyond ``turn``)
    hands: np.ndarray                      # int8 [n, K]: 1 = bid card still held
    pending: list[int] = field(default_factory=list)   # this turn's bids (card index), -1 = not yet
    scores: list[int] = field(default_factory=list)
    turn: int = 0
    current: int = 0
    phase: int = PLAY
    round: int = 0

    def clone(self) -> "ToyBidState":
        return ToyBidState(self.num_players, self.cards, self.seed, list(self.prizes), self.hands.copy(),
                           list(self.pending), list(self.scores), self.turn, self.current, self.phase, self.round)


def new_game(config: ToyBidConfig, seed: int | None = None) -> ToyBidState:
    n, k = config.num_players, config.cards
    s = seeding.normalize_seed(seed)
    prizes = [int(v) + 1 for v in seeding.permutation(s, 0, k)]
    return ToyBidState(n, k, s, prizes, np.ones((n, k), np.int8), [-1] * n, [0] * n)


def legal_mask(state: ToyBidState) -> np.ndarray:
    mask = np.zeros(NUM_ACTIONS, np.int8)
    if state.phase != OVER:
        mask[:state.cards] = state.hands[state.current]
    return mask


def step(config: ToyBidConfig, state: ToyBidState, action: int) -> list[int]:
    if state.phase == OVER:
        raise IllegalActionError(f"player_{state.current}", action, [])
    a = int(action) if isinstance(action, (int, np.integer)) and not isinstance(action, bool) else -1
    if not 0 <= a < state.cards or not state.hands[state.current, a]:
        raise IllegalActionError(f"player_{state.current}", action, np.flatnonzero(legal_mask(state)))
    p = state.current
    state.hands[p, a] = 0
    state.pending[p] = a
    rewards = [0] * state.num_players
    if p < state.num_players - 1:
        state.current = p + 1
        return rewards
    top = max(state.pending)
    winners = [q for q, b in enumerate(state.pending) if b == top]
    if len(winners) == 1:
        rewards[winners[0]] = state.prizes[state.turn]
        state.scores[winners[0]] += state.prizes[state.turn]
    state.pending = [-1] * state.num_players
    state.turn += 1
    state.current = 0
    if state.turn == state.cards:
        state.phase, state.current, state.round = OVER, -1, 1
    return rewards


def winners(state: ToyBidState) -> list[int]:
    best = max(state.scores)
    return [p for p, s in enumerate(state.scores) if s == best]


class ToyBidEngine(BoundEngine[ToyBidConfig, ToyBidState]):
    __slots__ = ()
    _new_game = staticmethod(new_game)
    _legal_mask = staticmethod(legal_mask)
    _step = staticmethod(step)
    _over = OVER
    _config_cls = ToyBidConfig
    _state_cls = ToyBidState


def observation_size(config: ToyBidConfig) -> int:
    return config.num_players * config.cards + 2 * config.cards + config.num_players


def observe(config: ToyBidConfig, state: ToyBidState, player: int) -> np.ndarray:
    n, k = state.num_players, state.cards
    order = [(player + i) % n for i in range(n)]
    held = state.hands.astype(np.float32)
    for q in range(n):  # a bid not yet revealed is still "held" as far as the others can tell
        if state.pending[q] >= 0 and q != player:
            held[q, state.pending[q]] = 1.0
    prize = np.zeros(k, np.float32)
    played = np.zeros(k, np.float32)
    if state.phase != OVER:
        prize[state.prizes[state.turn] - 1] = 1.0
    for v in state.prizes[:state.turn]:
        played[v - 1] = 1.0
    total = k * (k + 1) / 2
    scores = np.array([state.scores[q] / total for q in order], np.float32)
    return np.concatenate([held[order].reshape(-1), prize, played, scores])


def canonical(config: ToyBidConfig, state: ToyBidState, player: int) -> ToyBidState:
    """Hidden: the others' unrevealed bids (each put back as its owner's lowest card) and the order
    of the prizes still to come (sorted)."""
    c = state.clone()
    for q in range(state.num_players):
        if q != player and c.pending[q] >= 0:
            c.hands[q, c.pending[q]] = 1
            low = int(np.flatnonzero(c.hands[q])[0])
            c.hands[q, low] = 0
            c.pending[q] = low
    if state.phase != OVER:
        c.prizes = c.prizes[:state.turn + 1] + sorted(c.prizes[state.turn + 1:])
    return c


def sample_world(config: ToyBidConfig, state: ToyBidState, player: int, rng: np.random.Generator) -> ToyBidState:
    """The others' unrevealed bids re-drawn from their cards, the prizes to come reshuffled."""
    w = state.clone()
    for q in range(state.num_players):
        if q != player and w.pending[q] >= 0:
            w.hands[q, w.pending[q]] = 1
            choices = np.flatnonzero(w.hands[q])
            b = int(choices[rng.integers(len(choices))])
            w.hands[q, b] = 0
            w.pending[q] = b
    if state.phase != OVER:
        rest = w.prizes[state.turn + 1:]
        w.prizes = w.prizes[:state.turn + 1] + [rest[i] for i in rng.permutation(len(rest))]
    return w


def summary(state: ToyBidState) -> dict[str, Any]:
    over = state.phase == OVER
    return {"over": over, "rounds": state.round, "scores": list(state.scores),
            "winners": winners(state) if over else []}


def digest_fields(state: ToyBidState) -> Any:
    return [state.seed, state.prizes, state.hands.tolist(), state.pending, state.scores, state.turn,
            state.current, state.phase]


def render_text(state: ToyBidState) -> str:
    prize = state.prizes[state.turn] if state.phase != OVER else "-"
    return f"toybid turn {state.turn}: prize {prize}, scores {state.scores}"
