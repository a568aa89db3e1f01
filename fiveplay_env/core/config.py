"""Validation helpers for the frozen config dataclasses of both games.

Every check raises ``ValueError`` naming the field, the allowed values and what it got.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

C = TypeVar("C")


def check_int(field: str, value: object, lo: int, hi: int | None = None) -> int:
    """An integer (not a bool) in ``lo..hi`` (``hi`` None: no upper bound)."""
    if isinstance(value, bool) or not isinstance(value, (int,)) and not _is_np_int(value):
        raise ValueError(f"{field}: expected an integer, got {value!r}")
    v = int(value)  # type: ignore[arg-type]
    if v < lo or (hi is not None and v > hi):
        rng = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise ValueError(f"{field}: expected an integer in {rng}, got {v}")
    return v


def check_bool(field: str, value: object) -> bool:
    if not isinstance(value, (bool,)) and type(value).__name__ != "bool_":
        raise ValueError(f"{field}: expected True or False, got {value!r}")
    return bool(value)


def check_choice(field: str, value: object, choices: Iterable[object]) -> Any:
    choices = list(choices)
    if value not in choices:
        raise ValueError(f"{field}: expected one of {choices}, got {value!r}")
    return value


def _is_np_int(value: object) -> bool:
    return type(value).__module__ == "numpy" and "int" in type(value).__name__


def from_kwargs(cls: type[C], kwargs: Mapping[str, Any], *, ignore: Iterable[str] = ()) -> C:
    """Build config ``cls`` from keyword arguments, rejecting unknown keys by name.

    Keys in ``ignore`` (env-level options such as ``render_mode``) are skipped.
    """
    names = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    skip = set(ignore)
    unknown = [k for k in kwargs if k not in names and k not in skip]
    if unknown:
        raise ValueError(
            f"unknown config field {unknown[0]!r}: expected one of {sorted(names + list(skip))}"
        )
    return cls(**{k: v for k, v in kwargs.items() if k in names})
