"""The game adapter contract: what agents and tournaments need to know about a game, behind one interface.

A ``Game`` bundles a game's config class, reference engine, observation encoder and determinization
(``sample_world``), so that the search agent, the arena and the tournament are written once for every
game. Each game provides its adapter as ``agents/<game>/adapter.py`` (``GAME``); ``agents.games``
collects them (``GAMES``, ``get_game``).

Determinization contract (used by ``agents.base.InformationSet``):
    ``canonical_state(engine, player)``: a copy of the state in which the cards ``player`` cannot see
    are put in a canonical arrangement (sorted, dealt in seat order) that depends only on what the
    player knows; it is the input of ``sample_world``, whose output then depends only on the
    information set and the generator.
    ``sample_engine(config, canonical, player, rng)``: ``sample_world`` on it, with the game's seed
    (which fixes every later deal and reshuffle, so it is hidden information too) re-drawn from ``rng``.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fiveplay_env.core.config import from_kwargs

SEED_BOUND = 2**63  # re-drawn world seeds lie in 0..2**63-1


@dataclass(frozen=True)
class Metric:
    """A per-player figure of a finished game: its name, whether lower is better, and what it means."""

    name: str
    lower_is_better: bool
    meaning: str


@dataclass(frozen=True)
class Game:
    """One game's adapter (see the module docstring).

    Attributes:
        name: ``"take5"`` or ``"five_alive"``.
        config_cls: the frozen config dataclass.
        engine_cls: the reference engine class (``Engine(config, seed)``, ``Engine(config, state=...)``).
        num_actions: size of the action space.
        env_module: the PettingZoo entry module (``take5_v0`` ...).
        observe_state: ``(config, state, player) -> float32[obs]``.
        canonical: ``(config, state, player) -> state`` (see the module docstring).
        sample_world: the game's ``sample_world(config, state, player, rng) -> state``.
        results: ``(engine, elimination_turn) -> {metric: [per player]}`` plus ``"win"``, ``"placing"``.
        metrics: the figures ``results`` reports besides ``win`` and ``placing``.
        alive: ``(state) -> list[bool] | None``: players still in the game (None: nobody is eliminated).
        public_event: ``(state) -> dict | None``: what the last step did, as every player saw it (5 Alive:
            the engine's ``last_event`` plus ``turns``, the decisions taken so far); None for a
            game without such events (Take 5).
        condition: ``(config, canonical, facts) -> state | None``: the canonical state with extra beliefs
            about hidden hands (``facts``: {player: kinds that player's hand may hold}) added for
            ``sample_world`` to honour; None if the beliefs cannot be honoured (then they are ignored).
    """

    name: str
    config_cls: type
    engine_cls: type
    num_actions: int
    env_module: Any
    observe_state: Callable[[Any, Any, int], np.ndarray]
    canonical: Callable[[Any, Any, int], Any]
    sample_world: Callable[[Any, Any, int, np.random.Generator], Any]
    results: Callable[[Any, list[int | None]], dict[str, list[float]]]
    metrics: tuple[Metric, ...]
    alive: Callable[[Any], list[bool] | None] = field(default=lambda state: None)
    public_event: Callable[[Any], dict[str, Any] | None] = field(default=lambda state: None)
    condition: Callable[[Any, Any, dict[int, int]], Any] = field(default=lambda config, state, facts: None)

    def make_config(self, values: Mapping[str, Any] | None = None) -> Any:
        """A validated config from field values (unknown fields or bad values raise ``ValueError``)."""
        return from_kwargs(self.config_cls, dict(values or {}))

    def config_dict(self, config: Any) -> dict[str, Any]:
        """The config as a JSON-friendly dict (tuples become lists)."""
        out = {}
        for f in dataclasses.fields(config):
            v = getattr(config, f.name)
            out[f.name] = list(v) if isinstance(v, tuple) else v
        return out

    def new_engine(self, config: Any, seed: int) -> Any:
        return self.engine_cls(config, seed)

    def observe(self, engine: Any, player: int) -> np.ndarray:
        return self.observe_state(engine.config, engine.state, player)

    def canonical_state(self, engine: Any, player: int) -> Any:
        return self.canonical(engine.config, engine.state, player)

    def sample_engine(self, config: Any, canonical: Any, player: int, rng: np.random.Generator) -> Any:
        world = self.sample_world(config, canonical, player, rng)
        world.seed = int(rng.integers(SEED_BOUND))  # later deals and reshuffles are unknown too
        return self.engine_cls(config, state=world)



def placings(keys: Sequence[Any]) -> list[int]:
    """Competition ranking: 1 + how many players have a strictly better (smaller) key."""
    return [1 + sum(1 for k in keys if k < mine) for mine in keys]
