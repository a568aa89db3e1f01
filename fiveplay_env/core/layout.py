"""Observation layouts declared once, as data.

A layout is a tuple of named pieces, each with a size linear in the number of players n (``Size``:
``base + per_player * n``; ``N`` is n itself). Everything else is computed from it, so nothing can
disagree: the offsets (as numbers for a given n, or as expressions in n), the total size, a game's
``pieces()``, the slices a batched encoder writes, and the table a module docstring shows::

    from fiveplay_env.core.layout import N, Layout, Piece

    LAYOUT = Layout((
        Piece("hand", 104, "1 where the observer holds card id"),
        Piece("scores", N, "each player's score, relative seats"),
        Piece("others", 104 * (N - 1), "the other players' cards (draft only)", when="draft"),
    ))
    LAYOUT.spans(4)              # {"hand": (0, 104), "scores": (104, 4)}
    LAYOUT.size(4, draft=True)   # 420
    LAYOUT.start("scores")       # 104: the piece's offset, the same for every n
    LAYOUT.offset("others")      # Size(104, 1), written "104+n"
    print(LAYOUT.table())        # the markdown table: offset, size, piece, meaning

A piece with ``when="flag"`` exists only when the layout is asked for with ``flag=True``; such pieces
come after every unconditional one, so the offsets of the others never depend on a flag. A piece may
also say how its float values are coded as integers (``Code``), which is what a compact codec needs.

``parse_table(doc)`` reads a table in this format back from a docstring; the tests compare every
documented table with its layout (``Layout.check_table``).
"""
from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from typing import Union


@dataclass(frozen=True)
class Size:
    """A size or offset linear in the number of players n: ``base + per_player * n``.

    Sizes add, subtract and multiply by integers (``104 * (N - 1)``); ``size(n)`` evaluates one, and
    ``str(size)`` writes it the way the documented tables do (``"844+3n"``, ``"104(n-1)"``).
    """

    base: int = 0
    per_player: int = 0

    def __call__(self, num_players: int) -> int:
        return self.base + self.per_player * num_players

    def __add__(self, other: SizeLike) -> Size:
        o = as_size(other)
        return Size(self.base + o.base, self.per_player + o.per_player)

    __radd__ = __add__

    def __sub__(self, other: SizeLike) -> Size:
        o = as_size(other)
        return Size(self.base - o.base, self.per_player - o.per_player)

    def __mul__(self, k: int) -> Size:
        if isinstance(k, bool) or not isinstance(k, int):
            return NotImplemented
        return Size(self.base * k, self.per_player * k)

    __rmul__ = __mul__

    def __str__(self) -> str:
        a, b = self.base, self.per_player
        if b == 0:
            return str(a)
        term = "n" if b == 1 else f"{b}n"
        if a == 0:
            return term
        if a < 0 and a % b == 0 and b > 1:
            return f"{b}(n-{-a // b})"
        return f"{a}+{term}" if a > 0 else f"{term}-{-a}"


SizeLike = Union[Size, int]
N = Size(0, 1)
"""The number of players, as a ``Size``."""


def as_size(value: SizeLike) -> Size:
    """``value`` as a ``Size`` (an int is a constant); ``ValueError`` for anything else."""
    if isinstance(value, Size):
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"size: expected an int or a Size, got {value!r}")
    return Size(value, 0)


@dataclass(frozen=True)
class Code:
    """How a piece's float values are coded as small non-negative integers, exactly.

    Column i of the piece holds ``float32((code / div[i % len(div)]) * mul)``, where ``mul`` is
    ``1 / scale`` for the scale parameter named ``per`` (e.g. ``"end_score"``), or 1 without one. A
    ``binary`` piece holds 0/1 flags (``div`` 1, no scale): a compact codec may pack it as bits.
    """

    div: tuple[float, ...] = (1.0,)
    per: str | None = None
    binary: bool = False


BITS = Code(binary=True)
"""The code of a piece of 0/1 flags."""
COUNT = Code()
"""The code of a piece of small integer counts (the value is the code)."""


@dataclass(frozen=True)
class Piece:
    """One named piece of a layout: its size (an int or a ``Size`` in n), what it means, the flag it
    depends on (``when``: present only when that flag is True) and how its values are coded."""

    name: str
    size: Size
    meaning: str
    when: str | None = None
    code: Code | None = None

    def __init__(self, name: str, size: SizeLike, meaning: str, when: str | None = None,
                 code: Code | None = None) -> None:
        if not re.fullmatch(r"[a-z][a-z0-9_]*", name or ""):
            raise ValueError(f"name: expected a lower-case identifier, got {name!r}")
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "size", as_size(size))
        object.__setattr__(self, "meaning", " ".join(meaning.split()))
        object.__setattr__(self, "when", when)
        object.__setattr__(self, "code", code)


@dataclass(frozen=True)
class Layout:
    """A flat observation as an ordered tuple of pieces (see the module docstring)."""

    pieces: tuple[Piece, ...]
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        names = [p.name for p in self.pieces]
        dup = sorted({x for x in names if names.count(x) > 1})
        if dup:
            raise ValueError(f"pieces: expected unique names, got duplicates {dup}")
        seen_flag = False
        for p in self.pieces:
            if p.when is not None:
                seen_flag = True
            elif seen_flag:
                raise ValueError(f"pieces: expected the conditional pieces last, got {p.name!r} after one")

    @property
    def flags(self) -> tuple[str, ...]:
        """The flags some piece depends on (``when``), in order."""
        out: list[str] = []
        for p in self.pieces:
            if p.when is not None and p.when not in out:
                out.append(p.when)
        return tuple(out)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.pieces)

    def piece(self, name: str) -> Piece:
        for p in self.pieces:
            if p.name == name:
                return p
        raise ValueError(f"piece: expected one of {list(self.names)}, got {name!r}")

    def present(self, **flags: bool) -> tuple[Piece, ...]:
        """The pieces present with these flags (unknown flags raise ``ValueError``)."""
        bad = sorted(set(flags) - set(self.flags))
        if bad:
            raise ValueError(f"flags: expected some of {list(self.flags)}, got {bad}")
        return tuple(p for p in self.pieces if p.when is None or flags.get(p.when, False))

    def offset(self, name: str) -> Size:
        """The piece's offset as an expression in n (every earlier piece counted)."""
        total = Size()
        for p in self.pieces:
            if p.name == name:
                return total
            total = total + p.size
        raise ValueError(f"piece: expected one of {list(self.names)}, got {name!r}")

    def start(self, name: str) -> int:
        """The piece's offset as a number; ``ValueError`` if it depends on the number of players."""
        off = self.offset(name)
        if off.per_player:
            raise ValueError(f"piece {name!r}: its offset depends on the number of players ({off}); use spans(n)")
        return off.base

    def spans(self, num_players: int, **flags: bool) -> dict[str, tuple[int, int]]:
        """Each present piece as ``(offset, size)`` for ``num_players`` (a new dict, in layout order)."""
        key = (num_players, tuple(sorted(flags.items())))
        spans = self._cache.get(key)
        if spans is None:
            out, pos = [], 0
            for p in self.present(**flags):
                size = p.size(num_players)
                if size < 0:
                    raise ValueError(f"num_players: piece {p.name!r} has size {size} for n = {num_players}")
                out.append((p.name, (pos, size)))
                pos += size
            spans = self._cache[key] = (tuple(out), pos)
        return dict(spans[0])

    def size(self, num_players: int, **flags: bool) -> int:
        """The observation's length for ``num_players``."""
        self.spans(num_players, **flags)
        return self._cache[(num_players, tuple(sorted(flags.items())))][1]

    def total(self, **flags: bool) -> Size:
        """The observation's length as an expression in n."""
        total = Size()
        for p in self.present(**flags):
            total = total + p.size
        return total

    def slices(self, num_players: int, **flags: bool) -> dict[str, slice]:
        """Each present piece as a ``slice`` of the flat observation (for batched encoders)."""
        return {name: slice(o, o + s) for name, (o, s) in self.spans(num_players, **flags).items()}

    def rows(self) -> list[tuple[str, str, str, str]]:
        """``(offset, size, piece, meaning)`` of every piece, as the documented table writes them."""
        return [(str(self.offset(p.name)), str(p.size), p.name, p.meaning) for p in self.pieces]

    def table(self, width: int = 72) -> str:
        """The markdown table of the layout (meanings wrapped at ``width``), as module docstrings show it."""
        rows = self.rows()
        w0 = max(len("offset"), *(len(r[0]) for r in rows))
        w1 = max(len("size"), *(len(r[1]) for r in rows))
        w2 = max(len("piece"), *(len(r[2]) for r in rows))
        lines = [f"| {'offset':<{w0}} | {'size':<{w1}} | {'piece':<{w2}} | {'meaning':<{width}} |",
                 f"|{'-' * (w0 + 2)}|{'-' * (w1 + 2)}|{'-' * (w2 + 2)}|{'-' * (width + 2)}|"]
        for off, size, name, meaning in rows:
            parts = textwrap.wrap(meaning, width) or [""]
            lines.append(f"| {off:<{w0}} | {size:<{w1}} | {name:<{w2}} | {parts[0]:<{width}} |")
            for part in parts[1:]:
                lines.append(f"| {'':<{w0}} | {'':<{w1}} | {'':<{w2}} | {part:<{width}} |")
        return "\n".join(lines)

    def check_table(self, doc: str) -> list[str]:
        """What differs between the table in ``doc`` (``parse_table``) and this layout; [] if nothing."""
        documented = parse_table(doc)
        want = self.rows()
        problems = []
        if [r[2] for r in documented] != [r[2] for r in want]:
            problems.append(f"pieces: documented {[r[2] for r in documented]}, declared {[r[2] for r in want]}")
        for got, exp in zip(documented, want):
            if got[2] != exp[2]:
                continue
            for i, what in enumerate(("offset", "size", "piece", "meaning")):
                if got[i] != exp[i]:
                    problems.append(f"{exp[2]}: documented {what} {got[i]!r}, declared {exp[i]!r}")
        return problems


_HEADER = ("offset", "size", "piece", "meaning")


def parse_table(doc: str) -> list[tuple[str, str, str, str]]:
    """The ``offset | size | piece | meaning`` markdown table of ``doc`` as rows of stripped cells; a row
    with no offset and no piece continues the previous row's meaning. ``ValueError`` if ``doc`` has no
    such table."""
    rows: list[list[str]] = []
    inside = False
    for line in doc.splitlines():
        s = line.strip()
        if not s.startswith("|"):
            if inside:
                break
            continue
        cells = [c.strip() for c in s.strip("|").split("|")]
        if not inside:
            if tuple(c.lower() for c in cells) == _HEADER:
                inside = True
            continue
        if set("".join(cells)) <= set("-: "):
            continue  # the separator row
        if len(cells) != 4:
            raise ValueError(f"table row: expected 4 cells, got {len(cells)} in {line!r}")
        if not cells[0] and not cells[2] and rows:
            rows[-1][3] = f"{rows[-1][3]} {cells[3]}".strip()
            if cells[1]:
                rows[-1][1] = f"{rows[-1][1]} {cells[1]}".strip()
            continue
        rows.append(cells)
    if not inside:
        raise ValueError("doc: expected a markdown table with the columns offset | size | piece | meaning")
    return [(a, b, c, " ".join(d.split())) for a, b, c, d in rows]


__all__ = ["Size", "N", "as_size", "Code", "BITS", "COUNT", "Piece", "Layout", "parse_table"]
