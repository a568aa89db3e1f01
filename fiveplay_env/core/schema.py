"""A batched engine's state declared once: fields with dtype, shape, bounds and meaning.

A compiled batched engine (``fiveplay_env.core.kernel_engine``) keeps B games as a struct of arrays, one
array per ``Field``, its leading axis the game. Everything that handles those arrays is generated from the
``Schema``, not written per game:

- ``allocate``: zeroed arrays of the declared dtypes and shapes (dimensions such as ``n`` resolved from
  the config's ``dims``);
- ``check_form`` / ``check_bounds``: ``set_state``'s first two stages (the exact set of fields, each a
  numpy array of its dtype and shape; every value inside its declared bounds), each refusal a
  ``ValueError`` naming the field and the first game that breaks it;
- ``from_states``: ``load_states`` from reference positions (each field declares how it is read off a
  reference state: ``Field.of``);
- ``gather``: games copied between engines (rows taken along the leading axis);
- ``table``: the markdown table of the docs (field, dtype, shape, bounds, meaning);
- ``bytes_per_game``.

Bounds are inclusive and may name a dimension (``"n-1"``, ``"deck"``, ``"deck-1"``: a dimension name, an
optional ``+``/``-`` integer); ``None`` leaves a side unchecked (floats, seeds). What the bounds cannot
say (cards conserved, rows ascending, ...) each game checks in its positions module, against the rules.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fiveplay_env.core.config import show_value

_ARRAYS = "state['arrays']"
_BOUND = re.compile(r"^([a-z_][a-z0-9_]*)\s*(?:([+-])\s*(\d+))?$")
Dims = Mapping[str, int]
Bound = int | float | str | None


def resolve(value: int | str, dims: Dims) -> int:
    """A shape entry or a bound: an int, or a dimension name with an optional ``+k`` / ``-k``."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value  # type: ignore[return-value]
    m = _BOUND.match(str(value))
    if not m or m.group(1) not in dims:
        raise ValueError(f"schema: expected an int or one of the dimensions {sorted(dims)} (+/- k), got {value!r}")
    k = int(m.group(3) or 0)
    return int(dims[m.group(1)]) + (k if m.group(2) == "+" else -k)


@dataclass(frozen=True)
class Field:
    """One array of the state: ``name``, numpy ``dtype``, per-game ``shape`` (ints or dimension names), the
    inclusive bounds ``lo`` / ``hi`` of every value (None: unchecked), its ``meaning``, and ``of(state,
    dims)``: its value for one reference state (``load_states``), or None for a field that a load clears
    (the last step's outputs). ``output``: one of the last step's outputs (``gather`` and a load clear it)."""

    name: str
    dtype: str
    shape: tuple[int | str, ...]
    lo: Bound
    hi: Bound
    meaning: str
    of: Callable[[Any, Dims], Any] | None = None
    output: bool = False


def check_games(ok: np.ndarray, name: str, expected: str, got: Any) -> None:
    """Raise ``ValueError`` for the first game ``i`` where ``ok[i]`` (bool [B]) is False:
    ``state['arrays'][name]: game i: expected <expected>, got <got[i]>``. ``got``: an array (or a
    sequence) indexed by game, or a callable of the game index."""
    ok = np.asarray(ok)
    if ok.all():
        return
    i = int(np.flatnonzero(~ok)[0])
    value = got(i) if callable(got) else got[i]
    if isinstance(value, np.ndarray):
        value = value.tolist()
    elif isinstance(value, np.generic):
        value = value.item()
    raise ValueError(f"{_ARRAYS}[{name!r}]: game {i}: expected {expected}, got {show_value(value)}")


class Schema:
    """The fields of one game's batched state (see the module docstring)."""

    def __init__(self, game: str, fields: Sequence[Field]) -> None:
        self.game = game
        self.fields = tuple(fields)
        self.names = tuple(f.name for f in self.fields)
        if len(set(self.names)) != len(self.names):
            raise ValueError(f"schema {game}: duplicate field names")
        self._by_name = {f.name: f for f in self.fields}

    def __getitem__(self, name: str) -> Field:
        return self._by_name[name]

    def shape(self, name: str, batch: int, dims: Dims) -> tuple[int, ...]:
        return (batch, *(resolve(s, dims) for s in self._by_name[name].shape))

    def allocate(self, batch: int, dims: Dims) -> dict[str, np.ndarray]:
        """Zeroed arrays for ``batch`` games."""
        return {f.name: np.zeros(self.shape(f.name, batch, dims), f.dtype) for f in self.fields}

    def check_form(self, arrays: Any, batch: int, dims: Dims) -> dict[str, np.ndarray]:
        """Private C-contiguous copies of ``arrays`` after checking it holds exactly the fields, each a numpy
        array of the field's dtype and shape; ``ValueError`` naming the entry otherwise."""
        if not isinstance(arrays, dict) or set(arrays) != set(self.names):
            got = sorted(map(str, arrays)) if isinstance(arrays, dict) else type(arrays).__name__
            raise ValueError(f"{_ARRAYS}: expected the arrays {sorted(self.names)} (the {self.game} state schema), "
                             f"got {show_value(got)}")
        out = {}
        for f in self.fields:
            val, shape = arrays[f.name], self.shape(f.name, batch, dims)
            if not isinstance(val, np.ndarray) or val.shape != shape or val.dtype != np.dtype(f.dtype):
                got = f"{val.dtype} {val.shape}" if isinstance(val, np.ndarray) else type(val).__name__
                raise ValueError(f"{_ARRAYS}[{f.name!r}]: expected a {f.dtype} array of shape {shape} (an engine of "
                                 f"this game, batch size and config), got {got}")
            out[f.name] = np.array(val, order="C", copy=True)
        return out

    def check_bounds(self, arrays: Mapping[str, np.ndarray], dims: Dims) -> None:
        """Every value of every field inside its declared bounds (floats: finite too)."""
        for f in self.fields:
            a = arrays[f.name]
            flat = a.reshape(a.shape[0], -1)
            ok = np.ones(a.shape[0], bool)
            if a.dtype.kind == "f":
                ok &= np.isfinite(flat).all(axis=1)
            lo = None if f.lo is None else resolve(f.lo, dims)
            hi = None if f.hi is None else resolve(f.hi, dims)
            if lo is not None:
                ok &= (flat >= lo).all(axis=1)
            if hi is not None:
                ok &= (flat <= hi).all(axis=1)
            if not ok.all():
                check_games(ok, f.name, f"values in {self.bounds_text(f, dims)}", lambda i: a[i])

    def from_states(self, states: Sequence[Any], dims: Dims) -> dict[str, np.ndarray]:
        """The arrays of one reference state per game (``Field.of``; outputs start at zero). ``ValueError``
        naming ``states[i].<field>`` for a value that does not fit its field's shape or dtype range."""
        out = self.allocate(len(states), dims)
        for f in self.fields:
            if f.of is None:
                continue
            arr = out[f.name]
            info = np.iinfo(arr.dtype) if arr.dtype.kind in "iu" else None
            for i, s in enumerate(states):
                try:
                    v = f.of(s, dims)
                    if info is not None and type(v) is int:  # a scalar: no array to build
                        if not info.min <= v <= info.max:
                            raise ValueError
                    else:
                        v = np.asarray(v)
                        if info is not None and v.size and (v.dtype.kind not in "iub" or v.min() < info.min
                                                            or v.max() > info.max):
                            raise ValueError
                    arr[i] = v
                except (ValueError, TypeError, IndexError, OverflowError, AttributeError):
                    raise ValueError(f"states[{i}].{f.name}: expected values in {self.bounds_text(f, dims)} of shape "
                                     f"{arr.shape[1:]}") from None
        return out

    def gather(self, arrays: Mapping[str, np.ndarray], index: np.ndarray) -> dict[str, np.ndarray]:
        """The games ``index`` of ``arrays`` (copies; outputs cleared)."""
        out = {}
        for f in self.fields:
            a = np.ascontiguousarray(arrays[f.name][index])
            if f.output:
                a[...] = 0
            out[f.name] = a
        return out

    def bytes_per_game(self, dims: Dims, outputs: bool = False) -> int:
        """Bytes of one game's state (the last step's outputs only with ``outputs``)."""
        return sum(int(np.prod(self.shape(f.name, 1, dims))) * np.dtype(f.dtype).itemsize
                   for f in self.fields if outputs or not f.output)

    @staticmethod
    def bounds_text(f: Field, dims: Dims | None = None) -> str:
        """``lo..hi`` as declared (``0..n-1``), or with ``dims`` as numbers (``0..3``)."""
        def show(v: Bound, inf: str) -> str:
            return inf if v is None else str(resolve(v, dims) if dims is not None else v)
        if f.lo is None and f.hi is None:
            return "any finite value" if np.dtype(f.dtype).kind == "f" else "any value"
        return f"{show(f.lo, '-inf')}..{show(f.hi, 'inf')}"

    def table(self) -> str:
        """The markdown table of the fields (the engines' docstrings and docs/architecture.md show it)."""
        lines = ["| field | dtype | shape (per game) | bounds | meaning |", "|---|---|---|---|---|"]
        for f in self.fields:
            shape = "[" + ", ".join(map(str, f.shape)) + "]" if f.shape else "scalar"
            lines.append(f"| `{f.name}` | {f.dtype} | {shape} | {self.bounds_text(f)} | {f.meaning} |")
        return "\n".join(lines)


__all__ = ["Field", "Schema", "check_games", "resolve"]
