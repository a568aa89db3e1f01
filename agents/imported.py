"""Users' own agents by import path: ``make_agent("mypkg.mybots:CleverBot", game, seed, allow_import=True)``.

An import path runs code (importing a module runs it), so the registry accepts one only where the caller
opts in (``make_agent(..., allow_import=True)``: the command-line tools and a user's own library calls;
never a network-facing path such as the web app). Even then only agents are called, and only after a
check:

| ``module.path:attr.path`` names ...                   | accepted                                        |
|-------------------------------------------------------|-------------------------------------------------|
| an ``Agent`` subclass, or any class with ``act``       | yes: instantiated                                |
| a function decorated with ``@agent_factory``           | yes: called                                      |
| a function annotated ``-> SomeAgentClass``             | yes: called                                      |
| anything else (a built-in such as ``os:abort``, a     | no: ``ValueError`` naming the path and the kind |
| plain function such as ``tempfile:mkdtemp``, a value, | of object (never its value), nothing is called  |
| an abstract class, a private ``_name``)               |                                                 |

The class or factory is called with the keyword arguments it accepts among ``seed`` (the agent's seed)
and ``game`` (``"take5"`` or ``"five_alive"``); what it returns must have ``act(observation,
action_mask) -> int``. The module is imported in the process that asks for the agent, so tournament
worker processes (``--workers N``) import it too: it must be importable there (installed, or on
``PYTHONPATH``; spawned workers also inherit the parent's ``sys.path``).

Objects that are not ``fiveplay_env.agents.base.Agent`` instances are wrapped in ``ProtocolAgent``, which supplies
what the tools call and the object lacks (``reset``, ``act_batch`` as a loop over ``act``). Errors are
``ValueError``s that say what was wrong: the module cannot be imported (with the import error), the
attribute is missing or private, the object is not an agent class or factory (its kind, e.g.
``builtin_function_or_method``), or what it returns has no ``act``.
"""
from __future__ import annotations

import importlib
import inspect
import re
import typing
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from fiveplay_env.agents.base import Agent

IMPORT_PATH = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
"""What an import-path agent name looks like: ``package.module:Attribute`` (dotted on both sides)."""

F = TypeVar("F", bound=Callable[..., Any])
_MISSING = object()


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


FACTORY_MARK = "__fiveplay_agent_factory__"


def agent_factory(fn: F) -> F:
    """Mark ``fn`` as a factory of agents, so that an import path may name it (see the module docstring)::

        @agent_factory
        def make_bot(seed, game):
            return MyBot(seed)
    """
    if not inspect.isfunction(fn):
        raise ValueError(f"agent_factory: expected a function, got a {type(fn).__name__}")
    setattr(fn, FACTORY_MARK, True)
    return fn


def _is_agent_class(obj: Any) -> bool:
    return inspect.isclass(obj) and callable(getattr(obj, "act", None))


def _returns_agent(fn: Any) -> bool:
    """Whether ``fn`` is marked ``@agent_factory`` or annotated to return an agent class."""
    if getattr(fn, FACTORY_MARK, False) is True:
        return True
    try:
        ret = typing.get_type_hints(fn).get("return")
    except Exception:  # noqa: BLE001 - an annotation that does not resolve is no agent annotation
        return False
    return _is_agent_class(ret)


def check_agent_object(name: str, obj: Any) -> None:
    """``ValueError`` unless ``obj`` (what the import path ``name`` found) may be called to make an agent:
    a concrete class with ``act``, or a function marked ``@agent_factory`` or annotated ``-> AgentClass``.
    The message names the path and the kind of object, never its value."""
    kind = type(obj).__name__
    if inspect.isclass(obj):
        if not callable(getattr(obj, "act", None)):
            raise ValueError(f"agent {name!r}: expected an Agent class or a factory, got a class without "
                             f"act(observation, action_mask)")
        if inspect.isabstract(obj):
            raise ValueError(f"agent {name!r}: expected an Agent class or a factory, got an abstract class "
                             f"(it does not implement act)")
        return
    if inspect.isfunction(obj) and _returns_agent(obj):
        return
    what = "a function that is not marked as an agent factory" if inspect.isfunction(obj) else f"a {kind}"
    raise ValueError(f"agent {name!r}: expected an Agent class or a factory (a class with act(observation, "
                     f"action_mask), or a function decorated with @fiveplay_env.agents.imported.agent_factory or annotated "
                     f"to return an agent class), got {what}; nothing was called")


def load_agent(name: str, game: str, seed: int | None) -> Agent:
    """The agent that the import path ``name`` (``module:attr``) makes for ``game`` (see the module
    docstring); ``ValueError`` naming the problem otherwise. The registry calls this only for a caller
    that allowed import paths (``make_agent(..., allow_import=True)``)."""
    if not is_import_path(name):
        raise ValueError(f"agent {name!r}: expected an import path 'module.path:Attribute'")
    module_name, _, attr_path = name.partition(":")
    parts = attr_path.split(".")
    if any(part.startswith("_") for part in parts):
        raise ValueError(f"agent {name!r}: expected a public attribute (no part starting with '_'), got "
                         f"{attr_path!r}; nothing was imported")
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise ValueError(f"agent {name!r}: cannot import module {module_name!r} ({e}); expected an importable "
                         f"'module:Attribute' (installed, or on PYTHONPATH)") from e
    obj: Any = module
    for part in parts:
        obj = inspect.getattr_static(obj, part, _MISSING)  # static: no property or module __getattr__ runs
        if obj is _MISSING:
            raise ValueError(f"agent {name!r}: module {module_name!r} has no attribute {attr_path!r}")
    check_agent_object(name, obj)
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
                         f"got a {type(made).__name__}")
    return made if isinstance(made, Agent) else ProtocolAgent(made, seed)
