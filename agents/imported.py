"""Users' own agents by import path: ``make_agent("mypkg.mybots:CleverBot", game, seed)``.

``"module.path:attr.path"`` names an ``Agent`` subclass, any class whose instances have
``act(observation, action_mask) -> int``, or a factory function returning such an object. It is called
with the keyword arguments it accepts among ``seed`` (the agent's seed) and ``game`` (``"take5"`` or
``"five_alive"``). The module is imported in the process that asks for the agent, so tournament worker
processes (``--workers N``) import it too: it must be importable there (installed, or on
``PYTHONPATH``; spawned workers also inherit the parent's ``sys.path``).

Objects that are not ``agents.base.Agent`` instances are wrapped in ``ProtocolAgent``, which supplies
what the tools call and the object lacks (``reset``, ``act_batch`` as a loop over ``act``). Errors are
``ValueError``s that say what was wrong: the module cannot be imported (with the import error), the
attribute is missing, the object is not callable, or what it returns has no ``act``.
"""
from __future__ import annotations

import importlib
import inspect
import re
from typing import Any

import numpy as np

from agents.base import Agent

IMPORT_PATH = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
"""What an import-path agent name looks like: ``package.module:Attribute`` (dotted on both sides)."""


class ProtocolAgent(Agent):
    """An object with ``act(observation, action_mask)`` seen as an ``Agent``: ``act`` and, where the
    object has them, ``act_batch``, ``reset``, ``observe_engine``, ``uses_engine``, ``get_state`` and
    ``set_state`` are its own."""

    def __init__(self, inner: Any, seed: int | None = None) -> None:
        super().__init__(seed)
        self.inner = inner
        self.uses_engine = bool(getattr(inner, "uses_engine", False))

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.inner.act(observation, action_mask))

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if callable(getattr(self.inner, "act_batch", None)):
            return np.asarray(self.inner.act_batch(observations, masks), np.int64)
        return super().act_batch(observations, masks)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if callable(getattr(self.inner, "reset", None)):
            try:
                self.inner.reset(seed=seed)
            except TypeError:  # a reset() without a seed parameter
                self.inner.reset()

    def observe_engine(self, engine: Any, player: int) -> None:
        if callable(getattr(self.inner, "observe_engine", None)):
            self.inner.observe_engine(engine, player)

    def get_state(self) -> dict[str, Any] | None:
        return self.inner.get_state() if callable(getattr(self.inner, "get_state", None)) else None

    def set_state(self, state: dict[str, Any]) -> None:
        if callable(getattr(self.inner, "set_state", None)):
            self.inner.set_state(state)
        else:
            super().set_state(state)


def is_import_path(name: str) -> bool:
    """Whether ``name`` looks like ``module.path:Attribute``."""
    return bool(IMPORT_PATH.match(name))


def load_agent(name: str, game: str, seed: int | None) -> Agent:
    """The agent that the import path ``name`` (``module:attr``) makes for ``game`` (see the module
    docstring); ``ValueError`` naming the problem otherwise."""
    module_name, _, attr_path = name.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise ValueError(f"agent {name!r}: cannot import module {module_name!r} ({e}); expected an importable "
                         f"'module:Attribute' (installed, or on PYTHONPATH)") from e
    obj: Any = module
    for part in attr_path.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"agent {name!r}: module {module_name!r} has no attribute {attr_path!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise ValueError(f"agent {name!r}: expected an Agent class or a factory, got {type(obj).__name__} {obj!r}")
    kwargs: dict[str, Any] = {}
    try:
        params = inspect.signature(obj).parameters
    except (TypeError, ValueError):
        params = {}
    var_kw = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    if "seed" in params or var_kw:
        kwargs["seed"] = seed
    if "game" in params or var_kw:
        kwargs["game"] = game
    try:
        made = obj(**kwargs)
    except TypeError as e:
        raise ValueError(f"agent {name!r}: calling {attr_path}({', '.join(kwargs)}) failed ({e}); expected a class "
                         f"or factory taking (optionally) seed= and game=") from e
    if not callable(getattr(made, "act", None)):
        raise ValueError(f"agent {name!r}: expected an object with act(observation, action_mask) -> int, "
                         f"got {type(made).__name__}")
    return made if isinstance(made, Agent) else ProtocolAgent(made, seed)
