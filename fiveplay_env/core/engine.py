"""``BoundEngine``: a game's config and state held together, the object environments and search agents hold.

Each game's reference engine is a set of module functions on a plain state (``new_game(config, seed)``,
``legal_mask(state)``, ``step(config, state, action)``); its engine class (``Take5Engine``,
``FiveAliveEngine``) binds them to one config and one state. The binding is the same for every game,
so it is written once here; a game's class names its functions and its OVER phase code as class
attributes and inherits the rest.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Generic, Protocol, TypeVar

import numpy as np

from fiveplay_env.core.config import show_value


class GameState(Protocol):
    """What ``BoundEngine`` reads of a game state."""

    current: int  # the acting seat (-1 once the game is over)
    phase: int

    def clone(self) -> Any: ...


C = TypeVar("C")  # the game's config class
S = TypeVar("S", bound=GameState)  # the game's state class
E = TypeVar("E", bound="BoundEngine[Any, Any]")


class BoundEngine(Generic[C, S]):
    """A config and a state together; ``clone()`` is cheap (the state's own ``clone``, no deepcopy).

    ``Engine(config, seed)`` starts a game (``new_game``); ``Engine(config, state=s)`` wraps the state
    ``s`` (not copied). ``ValueError`` unless ``config`` is the game's config class and ``s`` (when
    given) a state of that game with ``config.num_players`` players: a state's contents are the
    caller's to keep right (the reference states are plain mutable data; the batched engines, which
    take states from files, check everything in ``set_state``). A subclass sets ``_config_cls``,
    ``_state_cls``, ``_new_game``, ``_legal_mask`` and ``_step`` (its module functions, as
    ``staticmethod``) and ``_over`` (its phase code of a finished game), and declares ``__slots__ = ()``
    so that its instances stay two slots, as snapshots and search clones expect.
    """

    __slots__ = ("config", "state")

    _config_cls: ClassVar[type]
    _state_cls: ClassVar[type]
    _new_game: ClassVar[Callable[[Any, int | None], Any]]
    _legal_mask: ClassVar[Callable[[Any], np.ndarray]]
    _step: ClassVar[Callable[[Any, Any, int], list[int]]]
    _over: ClassVar[int]

    config: C
    state: S

    def __init__(self, config: C, seed: int | None = None, state: S | None = None) -> None:
        config_cls = getattr(self, "_config_cls", None)
        if config_cls is not None and not isinstance(config, config_cls):
            raise ValueError(f"config: expected a {config_cls.__name__}, got {type(config).__name__}")
        state_cls = getattr(self, "_state_cls", None)
        if state is not None and state_cls is not None:
            n = config.num_players  # type: ignore[attr-defined]
            if not isinstance(state, state_cls) or state.num_players != n:  # type: ignore[attr-defined]
                raise ValueError(f"state: expected a {state_cls.__name__} of {n} players, got "
                                 f"{type(state).__name__} {show_value(state)}")
        self.config = config
        self.state = state if state is not None else self._new_game(config, seed)

    @property
    def current_player(self) -> int:
        """The acting seat (the state's ``current``: -1 once the game is over)."""
        return self.state.current

    @property
    def is_over(self) -> bool:
        """Whether the game has ended (its phase is OVER)."""
        return self.state.phase == self._over

    def legal_mask(self) -> np.ndarray:
        """The acting seat's legal actions (the game's ``legal_mask(state)``)."""
        return self._legal_mask(self.state)

    def step(self, action: int) -> list[int]:
        """Apply the acting seat's ``action`` (the game's ``step``); returns every seat's reward."""
        return self._step(self.config, self.state, action)

    def clone(self: E) -> E:
        """An independent copy of the game, of the same class (the config is shared: it is frozen). The
        copy skips ``__init__``'s checks: both halves come from an engine that passed them."""
        other = object.__new__(type(self))
        other.config = self.config
        other.state = self.state.clone()
        return other
