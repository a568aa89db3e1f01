"""Validation helpers for the frozen config dataclasses of both games.

Every check raises ``ValueError`` naming the field, the allowed values and what it got, and returns the
value as a plain Python object (numpy scalars such as ``np.int64(4)`` or ``np.True_`` are accepted and
converted), which the configs store: a config holds only Python ints, bools, strs and tuples, so it
saves to JSON and to weights-only checkpoints.
"""
from __future__ import annotations

import dataclasses
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

import numpy as np

C = TypeVar("C")

MAX_BATCH_SIZE = 1 << 24
"""The most games one batched engine holds (16,777,216): beyond it the arrays alone would take tens of
GB, so a larger ``batch_size`` (or ``make_vec``'s ``num_envs``) is refused before anything is allocated."""


def check_int(field: str, value: object, lo: int, hi: int | None = None) -> int:
    """An integer (not a bool; a numpy integer too) in ``lo..hi`` (``hi`` None: no upper bound), as an int."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{field}: expected an integer, got {show_value(value)}")
    v = int(value)
    if v < lo or (hi is not None and v > hi):
        rng = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise ValueError(f"{field}: expected an integer in {rng}, got {v}")
    return v


def check_bool(field: str, value: object) -> bool:
    """True or False (``np.bool_`` too), as a bool."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{field}: expected True or False, got {show_value(value)}")
    return bool(value)


def check_choice(field: str, value: object, choices: Iterable[str]) -> str:
    """One of the strings ``choices`` (a ``np.str_`` too), as a str."""
    choices = list(choices)
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{field}: expected one of {choices}, got {show_value(value)}")
    return str(value)


def show_value(value: object) -> str:
    """``repr`` of a bad value, cut short (an ndarray or a long string must not flood the message)."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def set_fields(obj: object, **values: Any) -> None:
    """Store validated values on a frozen dataclass (``__post_init__`` normalises its fields with it)."""
    for name, value in values.items():
        object.__setattr__(obj, name, value)


def plain(value: Any) -> Any:
    """``value`` with every numpy scalar or array inside it (dicts, lists, tuples) turned into Python
    objects (``np.int64(4)`` -> 4, arrays -> lists), for saving with JSON or a weights-only checkpoint."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, dict) and type(value) in (dict, OrderedDict):  # (a state_dict is an OrderedDict)
        return type(value)((plain(k), plain(v)) for k, v in value.items())
    if type(value) in (list, tuple):  # exactly: a named tuple or torch.Size is left as it is
        return type(value)(plain(v) for v in value)
    return value


def config_of(cls: type[C], kwargs: dict[str, Any], *, ignore: Iterable[str] = ()) -> C:
    """An env's config from its keyword arguments: ``config=`` (an instance of ``cls``, given alone) or
    the config fields themselves (``from_kwargs``). Giving both is refused (rather than one silently
    overriding the other), and so is a config of another class (the other game's). ``ValueError``."""
    if kwargs.get("config") is None:
        return from_kwargs(cls, {k: v for k, v in kwargs.items() if k != "config"}, ignore=ignore)
    config = kwargs["config"]
    if not isinstance(config, cls):
        raise ValueError(f"config: expected a {cls.__name__}, got {type(config).__name__}")
    others = sorted(k for k in kwargs if k != "config" and k not in set(ignore))
    if others:
        raise ValueError(f"config: expected either config= or the config fields as keyword arguments, not both: "
                         f"got config= and {others}")
    return config


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
