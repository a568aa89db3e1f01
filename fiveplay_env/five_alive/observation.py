"""5 Alive observation encoder: what RULES.md 2.8 lets a player see, as one flat float32 array.

Layout for ``n`` players. Seats are relative to the observer: index 0 is the observer, then the next
seats clockwise (seat + 1, + 2, ...), so in teams the observer's teammates sit at even indices. Kinds
are in action-id order (numbers 0..7, Reverse, =21, Skip, Pass Me By, =0, =10, Draw 1, Draw 2,
Hand In & Re-Deal, Bomb). Values are exact small integers (counts) or 0/1 flags; scale them in your model.
The size is ``80 + 3n``:

| offset  | size | piece      | meaning                                                                 |
|---------|------|------------|-------------------------------------------------------------------------|
| 0       | 18   | hand       | cards of each kind in the observer's hand                               |
| 18      | 18   | discard    | cards of each kind in the discard pile: every card played (or discarded |
|         |      |            | to a Bomb, or from an eliminated hand) since the last shuffle           |
| 36      | 18   | top        | one-hot kind of the discard pile's top card (all 0 when it has none)    |
| 54      | 22   | total      | one-hot running total T = 0..21                                         |
| 76      | 1    | direction  | 1 clockwise (turn passes to relative seat 1), 0 counter-clockwise       |
| 77      | 1    | draw_pile  | cards in the draw pile                                                  |
| 78      | 2    | phase      | one-hot: play, bomb answer (both 0 once the game is over)               |
| 80      | n    | turn       | one-hot relative seat of the acting player                              |
| 80+n    | n    | lives      | lives left per relative seat (teams: that seat's team's lives)          |
| 80+2n   | n    | hand_sizes | cards in hand per relative seat (0 once eliminated)                     |

Other players' hands and the order of the draw pile never appear (a test re-deals them and checks).
The observation is one gather from ``state.tab``, the engine's float32 mirror of the state.
"""
from __future__ import annotations

import numpy as np

from fiveplay_env.five_alive.config import FiveAliveConfig
from fiveplay_env.five_alive.state import NUM_KINDS, TAB_FIXED, FiveAliveState, tab_offsets

HAND, DISCARD, TOP, TOTAL, DIRECTION, DRAW_PILE, PHASE, SEATS = 0, 18, 36, 54, 76, 77, 78, 80


def observation_size(num_players: int) -> int:
    return SEATS + 3 * num_players


def pieces(num_players: int) -> dict[str, tuple[int, int]]:
    """Each named piece as (offset, size): the table above, for code."""
    n = num_players
    return {
        "hand": (HAND, NUM_KINDS), "discard": (DISCARD, NUM_KINDS), "top": (TOP, NUM_KINDS),
        "total": (TOTAL, 22), "direction": (DIRECTION, 1), "draw_pile": (DRAW_PILE, 1), "phase": (PHASE, 2),
        "turn": (SEATS, n), "lives": (SEATS + n, n), "hand_sizes": (SEATS + 2 * n, n),
    }


def observation_high(config: FiveAliveConfig) -> float:
    """An upper bound on every observation value (the observation space's ``high``)."""
    return float(max(config.deck_size, 21))


_GATHER: dict[int, list[np.ndarray]] = {}


def gather_index(num_players: int, player: int) -> np.ndarray:
    """int64 [80 + 3n]: observation position i of ``player`` is ``state.tab[index[i]]`` (cached)."""
    n = num_players
    if n not in _GATHER:
        o_turn, o_lives, o_sizes, o_hands, _ = tab_offsets(n)
        rows = []
        for p in range(n):
            seats = [(p + i) % n for i in range(n)]
            idx = ([o_hands + NUM_KINDS * p + k for k in range(NUM_KINDS)] + list(range(TAB_FIXED))
                   + [o_turn + q for q in seats] + [o_lives + q for q in seats] + [o_sizes + q for q in seats])
            rows.append(np.array(idx, np.intp))
        _GATHER[n] = rows
    return _GATHER[n][player]


def observe(config: FiveAliveConfig, state: FiveAliveState, player: int) -> np.ndarray:
    """float32 [80 + 3n]: ``player``'s view of ``state`` (see the table in the module docstring)."""
    rows = _GATHER.get(state.num_players)
    if rows is None:
        gather_index(state.num_players, 0)
        rows = _GATHER[state.num_players]
    return state.tab[rows[player]]
