"""A compact Take 5 observation for training: the float observation's information in uint8, exactly.

The float observation (``fiveplay_env.take5.observation``, 848 + 3n float32 = 3,440 bytes at 4
players) is mostly 0/1 planes of 104 cards. The compact form keeps every value and costs
``136 + 6n`` bytes (160 at 4 players, 21x less); ``BatchedTake5.observe_compact()`` writes it for a
whole batch, and ``CompactTake5Layout.decode`` (numpy) or ``fiveplay_env.agents.learned.compact`` (torch, on the
network's device) turn it back into the float observation, equal bit for bit. The float observation
stays the default of every environment; the compact one is opt-in (``fiveplay_env.experiments.train --compact-obs``).

Layout for ``n`` players (P = the number of 104-wide 0/1 planes before ``row_stats``: 8 today,
``planes`` lists them; B = ceil(P / 8) bytes per card):

| bytes                | content                                                                      |
|----------------------|------------------------------------------------------------------------------|
| 0 .. 104B-1          | card c's bytes are B*c .. B*c+B-1: bit i of byte j is plane 8j+i at card c  |
|                      | (planes in observation order: hand, seen, trick, pool, rows 0..3)            |
| 104B .. 104B+2T-1    | T = size - ROW_STATS columns, one little-endian uint16 *code* each, for the   |
|                      | observation's columns ROW_STATS .. size-1 in order                           |

Codes and their float values (``value = float32((code / div) * mul)``, the float encoder's arithmetic):

| piece        | code                                  | div          | mul            |
|--------------|---------------------------------------|--------------|----------------|
| row_stats    | per row: last card number (0: none), length, bull heads | 104, 5, 10 | 1       |
| scores, round_pen | points (relative seats)          | 1            | 1 / end_score  |
| seat, phase  | 0 or 1 (one-hots)                     | 1            | 1              |
| tricks       | tricks completed this round           | 10           | 1              |

Everything is derived from the float layout's data (``observation.LAYOUT``: each piece's size and its
``Code``): the leading 0/1 pieces whose size is a multiple of 104 are the planes, every later piece is a
column of codes with its piece's divisor and scale, so a new 0/1 plane added before ``row_stats`` is
packed too; a piece without a code raises ``ValueError`` naming it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fiveplay_env.take5 import observation as obs_mod
from fiveplay_env.take5.state import NUM_CARDS

def _planes_and_tail(lay: Any, n: int) -> tuple[list[tuple[str, int]], list[tuple[str, int, Any]]]:
    """The float layout for ``n`` players split into packed planes [(name, size)] and coded tail columns
    [(name, size, code)], in layout order (the ``draft`` piece excluded: the codec has no draft form)."""
    planes: list[tuple[str, int]] = []
    tail: list[tuple[str, int, Any]] = []
    for piece in lay.present():
        size, code = piece.size(n), piece.code
        if code is None:
            raise ValueError(f"compact observation: no code for the observation piece {piece.name!r} "
                             f"(every piece of observation.LAYOUT needs a Code to be packed)")
        if not tail and code.binary and size % NUM_CARDS == 0:
            planes.append((piece.name, size))
        else:
            tail.append((piece.name, size, code))
    return planes, tail


BINARY_PIECES = tuple(name for name, _ in _planes_and_tail(obs_mod.LAYOUT, 2)[0])
"""The float observation's pieces packed as bits: hand, seen, trick, pool, rows."""


@dataclass(frozen=True)
class CompactTake5Layout:
    """The compact layout for ``num_players`` and ``end_score`` (see the module docstring).

    Attributes: ``obs_size`` (the float observation's size), ``planes`` (names of the packed 0/1
    planes, ``rows0`` .. ``rows3`` for the rows piece), ``bytes_per_card``, ``tail_start`` (the float
    column where the tail starts: ``ROW_STATS``), ``tail_div`` / ``tail_mul`` (float64 [T]), ``size``
    (bytes per observation).
    """

    num_players: int
    end_score: int
    obs_size: int = field(init=False)
    planes: tuple[str, ...] = field(init=False)
    bytes_per_card: int = field(init=False)
    tail_start: int = field(init=False)
    tail_div: np.ndarray = field(init=False, repr=False)
    tail_mul: np.ndarray = field(init=False, repr=False)
    size: int = field(init=False)

    def __post_init__(self) -> None:
        n = int(self.num_players)
        if not 2 <= n <= 10:
            raise ValueError(f"num_players: expected 2..10, got {self.num_players!r}")
        if not (isinstance(self.end_score, int) and self.end_score >= 1):
            raise ValueError(f"end_score: expected an integer >= 1, got {self.end_score!r}")
        lay = obs_mod.LAYOUT
        scales = {"end_score": float(self.end_score)}
        plane_pieces, tail = _planes_and_tail(lay, n)
        planes: list[str] = []
        for name, size in plane_pieces:
            planes += [name] if size == NUM_CARDS else [f"{name}{r}" for r in range(size // NUM_CARDS)]
        div: list[float] = []
        mul: list[float] = []
        for name, size, code in tail:
            if code.per is not None and code.per not in scales:
                raise ValueError(f"compact observation: piece {name!r} is scaled by {code.per!r}, expected one of "
                                 f"{list(scales)}")
            m = 1.0 / scales[code.per] if code.per is not None else 1.0
            div += [float(code.div[i % len(code.div)]) for i in range(size)]
            mul += [m] * size
        pos = NUM_CARDS * len(planes) + len(div)
        tail_start = NUM_CARDS * len(planes)
        set_ = object.__setattr__
        set_(self, "obs_size", pos)
        set_(self, "planes", tuple(planes))
        set_(self, "bytes_per_card", -(-len(planes) // 8))
        set_(self, "tail_start", tail_start)
        set_(self, "tail_div", np.array(div, np.float64))
        set_(self, "tail_mul", np.array(mul, np.float64))
        set_(self, "size", NUM_CARDS * self.bytes_per_card + 2 * len(div))

    @property
    def card_bytes(self) -> int:
        """Bytes of the packed planes (``104 * bytes_per_card``); the uint16 codes follow."""
        return NUM_CARDS * self.bytes_per_card

    def plane_bit(self, name: str) -> tuple[int, int]:
        """``(byte, bit)`` of plane ``name`` within a card's bytes."""
        i = self.planes.index(name)
        return i // 8, i % 8

    def decode(self, compact: np.ndarray) -> np.ndarray:
        """float32 [..., obs_size]: the float observation(s) of uint8 [..., size] compact ones."""
        c = np.asarray(compact)
        if c.dtype != np.uint8 or c.shape[-1] != self.size:
            raise ValueError(f"compact: expected uint8 [..., {self.size}], got {c.dtype} {c.shape}")
        lead = c.shape[:-1]
        c = c.reshape(-1, self.size)
        m = c.shape[0]
        P = len(self.planes)
        bits = np.unpackbits(c[:, :self.card_bytes].reshape(m, NUM_CARDS, self.bytes_per_card), axis=2,
                             bitorder="little")[:, :, :P]                       # [m, 104, P]
        out = np.empty((m, self.obs_size), np.float32)
        out[:, :P * NUM_CARDS] = bits.transpose(0, 2, 1).reshape(m, P * NUM_CARDS)
        codes = np.ascontiguousarray(c[:, self.card_bytes:]).view("<u2").astype(np.float64)
        out[:, self.tail_start:] = (codes / self.tail_div) * self.tail_mul
        return out.reshape(*lead, self.obs_size)


_LAYOUTS: dict[tuple[int, int], CompactTake5Layout] = {}


def layout(num_players: int, end_score: int) -> CompactTake5Layout:
    """The (cached) compact layout for ``num_players`` and ``end_score``."""
    key = (int(num_players), int(end_score))
    if key not in _LAYOUTS:
        _LAYOUTS[key] = CompactTake5Layout(*key)
    return _LAYOUTS[key]


def layout_of(config: Any) -> CompactTake5Layout:
    """The compact layout under a ``Take5Config`` (``GameDef.compact``); ``ValueError`` for the draft,
    whose observation it does not encode."""
    if getattr(config, "draft", False):
        raise ValueError("compact: expected draft=False (the compact observation does not encode the draft), "
                         "got draft=True")
    return layout(config.num_players, config.end_score)


__all__ = ["CompactTake5Layout", "layout", "layout_of", "BINARY_PIECES"]
