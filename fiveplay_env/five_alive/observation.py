"""5 Alive observation encoder: what docs/rules.md 2.8 lets a player see, as one flat float32 array.

Layout for ``n`` players. Seats are relative to the observer: index 0 is the observer, then the next
seats clockwise (seat + 1, + 2, ...), so in teams the observer's teammates sit at even indices. Kinds
are in action-id order (numbers 0..7, Reverse, =21, Skip, Pass Me By, =0, =10, Draw 1, Draw 2,
Hand In & Re-Deal, Bomb). Values are exact small integers (counts) or 0/1 flags; scale them in your model.
The size is ``80 + 3n``; the table is ``LAYOUT.table()`` of the layout declared once below (the tests
check that they agree):

| offset | size | piece      | meaning                                                                  |
|--------|------|------------|--------------------------------------------------------------------------|
| 0      | 18   | hand       | cards of each kind in the observer's hand                                |
| 18     | 18   | discard    | cards of each kind in the discard pile: every card played (or discarded  |
|        |      |            | to a Bomb, or from an eliminated hand) since the last shuffle            |
| 36     | 18   | top        | one-hot kind of the discard pile's top card (all 0 when it has none)     |
| 54     | 22   | total      | one-hot running total T = 0..21                                          |
| 76     | 1    | direction  | 1 clockwise (turn passes to relative seat 1), 0 counter-clockwise        |
| 77     | 1    | draw_pile  | cards in the draw pile                                                   |
| 78     | 2    | phase      | one-hot: play, bomb answer (both 0 once the game is over)                |
| 80     | n    | turn       | one-hot relative seat of the acting player                               |
| 80+n   | n    | lives      | lives left per relative seat (teams: that seat's team's lives)           |
| 80+2n  | n    | hand_sizes | cards in hand per relative seat (0 once eliminated)                      |

Other players' hands and the order of the draw pile never appear (a test re-deals them and checks).
The observation is one gather from ``state.tab``, the engine's float32 mirror of the state; the gather is
derived from the two layouts (``LAYOUT`` here, ``state.TABLE``) piece by piece, by name.
"""
from __future__ import annotations

import numpy as np

from fiveplay_env.core.layout import COUNT, Layout, N, Piece
from fiveplay_env.five_alive.config import FiveAliveConfig
from fiveplay_env.five_alive.state import MAX_TOTAL, NUM_KINDS, TABLE, FiveAliveState

LAYOUT = Layout((
    Piece("hand", NUM_KINDS, "cards of each kind in the observer's hand", code=COUNT),
    Piece("discard", NUM_KINDS, "cards of each kind in the discard pile: every card played (or discarded to a "
          "Bomb, or from an eliminated hand) since the last shuffle", code=COUNT),
    Piece("top", NUM_KINDS, "one-hot kind of the discard pile's top card (all 0 when it has none)", code=COUNT),
    Piece("total", MAX_TOTAL + 1, "one-hot running total T = 0..21", code=COUNT),
    Piece("direction", 1, "1 clockwise (turn passes to relative seat 1), 0 counter-clockwise", code=COUNT),
    Piece("draw_pile", 1, "cards in the draw pile", code=COUNT),
    Piece("phase", 2, "one-hot: play, bomb answer (both 0 once the game is over)", code=COUNT),
    Piece("turn", N, "one-hot relative seat of the acting player", code=COUNT),
    Piece("lives", N, "lives left per relative seat (teams: that seat's team's lives)", code=COUNT),
    Piece("hand_sizes", N, "cards in hand per relative seat (0 once eliminated)", code=COUNT),
))
"""The observation layout (the table above), declared once: offsets, sizes, ``pieces()``, the gather
from ``state.tab`` and the batched encoder's slices are computed from it."""

# Offsets of the pieces that sit at the same place for every player count; the seat pieces start at SEATS.
HAND, DISCARD, TOP, TOTAL, DIRECTION, DRAW_PILE, PHASE, SEATS = (
    LAYOUT.start(name) for name in ("hand", "discard", "top", "total", "direction", "draw_pile", "phase", "turn"))


def observation_size(num_players: int) -> int:
    """``80 + 3n``."""
    return LAYOUT.size(num_players)


def pieces(num_players: int) -> dict[str, tuple[int, int]]:
    """Each named piece as (offset, size): the table above, for code (``LAYOUT.spans``)."""
    return LAYOUT.spans(num_players)


def observation_high(config: FiveAliveConfig) -> float:
    """An upper bound on every observation value (the observation space's ``high``)."""
    return float(max(config.deck_size, 21))


_GATHER: dict[int, list[np.ndarray]] = {}


def gather_index(num_players: int, player: int) -> np.ndarray:
    """int64 [80 + 3n]: observation position i of ``player`` is ``state.tab[index[i]]`` (cached).

    Derived from the layouts by name: ``hand`` is the observer's row of the table's ``hands``; a piece
    of one value per seat (size n) is the table's piece of that name in observer-relative seat order;
    every other piece is the table's piece of that name as it is."""
    n = num_players
    if n not in _GATHER:
        tab = TABLE.spans(n)
        rows = []
        for p in range(n):
            idx: list[int] = []
            for piece in LAYOUT.pieces:
                if piece.name == "hand":
                    o = tab["hands"][0] + NUM_KINDS * p
                    idx += range(o, o + NUM_KINDS)
                elif piece.size == N:
                    o = tab[piece.name][0]
                    idx += [o + (p + i) % n for i in range(n)]
                else:
                    o, size = tab[piece.name]
                    if size != piece.size(n):
                        raise ValueError(f"observation piece {piece.name!r}: expected the table's size {size}, "
                                         f"got {piece.size(n)}")
                    idx += range(o, o + size)
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
