"""Take 5 observation encoder: what RULES.md 1.5 lets a player see, as one flat float32 array.

Layout for ``n`` players (player-relative seats: index 0 is the observer, then the next seats in
order); the size is ``848 + 3n``:

| offset      | size | piece        | meaning                                                              |
|-------------|------|--------------|----------------------------------------------------------------------|
| 0           | 104  | hand         | 1 where the observer holds card id (number id+1)                     |
| 104         | 104  | seen         | 1 for every card revealed this round (row starters, played, taken)   |
| 208         | 104  | trick        | cards revealed in the current trick (set only while a row is chosen) |
| 312         | 104  | pool         | the face-up draft pool (draft phase only)                            |
| 416         | 416  | rows         | row r occupies 416+104r..: 1 where card id lies in row r             |
| 832         | 12   | row_stats    | per row r at 832+3r: last card number/104, length/5, bull heads/10   |
| 844         | n    | scores       | each player's score / end_score                                      |
| 844+n       | n    | round_pen    | each player's penalty in this round / end_score                      |
| 844+2n      | n    | chosen       | 1 if that player has already chosen a card this trick                |
| 844+3n      | 3    | phase        | one-hot: draft, play, row choice                                     |
| 847+3n      | 1    | tricks       | tricks completed this round / 10                                     |

Other players' hands, their unrevealed choices and the set-aside cards never appear.
"""
from __future__ import annotations

import numpy as np

from fiveplay_env.take5.config import Take5Config
from fiveplay_env.take5.state import BULL, DRAFT, NUM_CARDS, NUM_ROWS, NUM_TRICKS, OVER, Take5State

HAND, SEEN, TRICK, POOL, ROWS, ROW_STATS, SCORES = 0, 104, 208, 312, 416, 832, 844


def observation_size(num_players: int) -> int:
    return SCORES + 3 * num_players + 4


def pieces(num_players: int) -> dict[str, tuple[int, int]]:
    """Each named piece as (offset, size): the table above, for code."""
    n = num_players
    return {
        "hand": (HAND, 104), "seen": (SEEN, 104), "trick": (TRICK, 104), "pool": (POOL, 104),
        "rows": (ROWS, 416), "row_stats": (ROW_STATS, 12), "scores": (SCORES, n),
        "round_pen": (SCORES + n, n), "chosen": (SCORES + 2 * n, n), "phase": (SCORES + 3 * n, 3),
        "tricks": (SCORES + 3 * n + 3, 1),
    }


def _public(config: Take5Config, state: Take5State) -> np.ndarray:
    """The public block (seen .. tricks, absolute seats), cached on the state until it changes.

    Layout: [0:740) = obs[104:844) (seen, trick, pool, rows, row_stats); then scores (n) and round
    penalties (n) by absolute seat; then the phase one-hot (3) and tricks (1).
    """
    n = state.num_players
    pub = np.zeros(SCORES - SEEN + 2 * n + 4, np.float32)
    pub[0:NUM_CARDS] = state.seen
    if state.trick_cards:
        pub[[TRICK - SEEN + c for c in state.trick_cards]] = 1.0
    phase = state.phase
    if phase == DRAFT:
        pub[POOL - SEEN:POOL - SEEN + NUM_CARDS] = state.pool[:NUM_CARDS]
    rows = state.rows
    if rows:
        pub[[ROWS - SEEN + NUM_CARDS * r + c for r in range(NUM_ROWS) for c in rows[r]]] = 1.0
        stats: list[float] = []
        for row in rows:
            b = 0
            for c in row:
                b += BULL[c]
            stats += ((row[-1] + 1) / 104.0, len(row) / 5.0, b / 10.0)
        pub[ROW_STATS - SEEN:ROW_STATS - SEEN + 12] = stats
    k = 1.0 / config.end_score
    base = SCORES - SEEN
    pub[base:base + 2 * n] = [s * k for s in state.scores] + [r * k for r in state.round_pen]
    if phase != OVER:
        pub[base + 2 * n + phase] = 1.0
    pub[base + 2 * n + 3] = state.trick / NUM_TRICKS
    state.public_cache = pub
    return pub


_REL: dict[int, list[np.ndarray]] = {}
_CHOSEN: dict[int, list[list[np.ndarray]]] = {}


def _tables(n: int) -> tuple[list[np.ndarray], list[list[np.ndarray]]]:
    """Per observer p: the gather index of its seat-relative tail; per (p, number chosen): the chosen piece."""
    if n not in _REL:
        base = SCORES - SEEN
        rel = []
        for p in range(n):
            seats = [(p + i) % n for i in range(n)]
            rel.append(np.array([base + q for q in seats] + [base + n + q for q in seats]
                                + [base + 2 * n + j for j in range(4)]))
        chosen = [[np.array([1.0 if (p + i) % n < m else 0.0 for i in range(n)], np.float32)
                   for m in range(n + 1)] for p in range(n)]
        _REL[n], _CHOSEN[n] = rel, chosen
    return _REL[n], _CHOSEN[n]


def observe(config: Take5Config, state: Take5State, player: int) -> np.ndarray:
    """float32 [848 + 3n]: ``player``'s view of ``state`` (see the table in the module docstring)."""
    n = state.num_players
    pub = state.public_cache
    if pub is None:
        pub = _public(config, state)
    rel, chosen = _tables(n)
    obs = np.empty(SCORES + 3 * n + 4, np.float32)
    obs[HAND:HAND + NUM_CARDS] = state.hands[player, :NUM_CARDS]
    obs[SEEN:SCORES] = pub[:SCORES - SEEN]
    tail = pub[rel[player]]
    obs[SCORES:SCORES + 2 * n] = tail[:2 * n]
    # Only during card play have some players chosen: exactly seats 0..current-1 (the AEC order).
    obs[SCORES + 2 * n:SCORES + 3 * n] = chosen[player][state.current if state.phase == 1 else 0]
    obs[SCORES + 3 * n:] = tail[2 * n:]
    return obs
