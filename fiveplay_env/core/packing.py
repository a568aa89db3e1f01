"""Small ints packed as bytes, cheaply (records' per-step chain hashes them)."""
from __future__ import annotations

import struct
from collections.abc import Sequence

_PACKS: dict[int, struct.Struct] = {}


def pack_ints(values: Sequence[int]) -> bytes:
    """Small ints as little-endian int64s (one ``struct.Struct`` per length, cached)."""
    st = _PACKS.get(len(values))
    if st is None:
        st = _PACKS[len(values)] = struct.Struct(f"<{len(values)}q")
    return st.pack(*values)
