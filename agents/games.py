"""Per-game adapters: what agents and the tournament need to know about each game, in one place.

A ``Game`` bundles a game's config class, reference engine, observation encoder and determinization
(``sample_world``) behind one small interface, so that search agents and the tournament are written once
for both games. ``GAMES`` maps a name (``"take5"``, ``"five_alive"``) to its adapter; ``get_game`` looks
one up with a clear error.

Determinization contract (used by ``agents.base.InformationSet``):
    ``canonical_state(engine, player)``: a copy of the state in which the cards ``player`` cannot see
    are put in a canonical arrangement (sorted, dealt in seat order) that depends only on what the
    player knows; it is the input of ``sample_world``, whose output then depends only on the
    information set and the generator.
    ``sample_engine(config, canonical, player, rng)``: ``sample_world`` on it, with the game's seed
    (which fixes every later deal and reshuffle, so it is hidden information too) re-drawn from ``rng``.
"""
from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fiveplay_env.core.config import from_kwargs
from fiveplay_env.take5 import engine as t5eng
from fiveplay_env.take5 import observation as t5obs
from fiveplay_env.take5 import state as t5state
from fiveplay_env.take5.config import Take5Config

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
            the env's ``infos[agent]["event"]`` plus ``turns``, the decisions taken so far); None for a
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


def parse_config(items: Sequence[str]) -> dict[str, Any]:
    """``["mode=round", "num_players=4"]`` -> ``{"mode": "round", "num_players": 4}``.

    Values are Python literals where they parse as one (ints, bools, tuples), else strings; ``true`` and
    ``false`` are accepted too. A malformed item raises ``ValueError``.
    """
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item or not item.split("=", 1)[0].strip():
            raise ValueError(f"config: expected items like 'field=value', got {item!r}")
        key, raw = (s.strip() for s in item.split("=", 1))
        low = raw.lower()
        if low in ("true", "false"):
            value: Any = low == "true"
        elif low in ("none", "null"):
            value = None
        else:
            try:
                value = ast.literal_eval(raw)
            except (ValueError, SyntaxError):
                value = raw
            if isinstance(value, list):
                value = tuple(value)
        out[key] = value
    return out


def placings(keys: Sequence[Any]) -> list[int]:
    """Competition ranking: 1 + how many players have a strictly better (smaller) key."""
    return [1 + sum(1 for k in keys if k < mine) for mine in keys]


# --- Take 5 ---------------------------------------------------------------------------------------------

def _take5_canonical(config: Take5Config, state: t5state.Take5State, player: int) -> t5state.Take5State:
    """Hidden cards sorted and dealt in seat order: other hands, their unrevealed choices, set-aside."""
    canon = state.clone()
    if state.phase in (t5state.DRAFT, t5state.OVER):
        return canon  # the draft pool and every pick are public; nothing is hidden
    others = [q for q in range(state.num_players) if q != player]
    if config.draft:
        # Hands are public after a draft; only the choices made this trick are unknown.
        for q in others:
            if state.pending[q] >= 0:
                cards = sorted(state.hand(q) + [state.pending[q]])
                canon.hands[q, cards] = 1
                canon.hands[q, cards[0]] = 0
                canon.pending[q] = cards[0]
        return canon
    hidden = list(state.set_aside)
    for q in others:
        hidden.extend(state.hand(q))
        if state.pending[q] >= 0:
            hidden.append(state.pending[q])
    hidden.sort()
    pos = 0
    for q in others:
        canon.hands[q, :] = 0
        k = state.hand_size[q]
        canon.hands[q, hidden[pos:pos + k]] = 1
        pos += k
        if state.pending[q] >= 0:
            canon.pending[q] = hidden[pos]
            pos += 1
    canon.set_aside = hidden[pos:]
    return canon


def _take5_results(engine: t5eng.Take5Engine, elimination_turn: list[int | None]) -> dict[str, list[float]]:
    scores = list(engine.state.scores)
    win = t5eng.winners(engine.state)
    share = 1.0 / len(win)
    return {
        "score": [float(s) for s in scores],
        "placing": [float(p) for p in placings(scores)],
        "win": [share if p in win else 0.0 for p in range(len(scores))],
    }


def _take5_game() -> Game:
    from fiveplay_env import take5_v0

    return Game(
        name="take5",
        config_cls=Take5Config,
        engine_cls=t5eng.Take5Engine,
        num_actions=t5state.NUM_ACTIONS,
        env_module=take5_v0,
        observe_state=t5obs.observe,
        canonical=_take5_canonical,
        sample_world=t5eng.sample_world,
        results=_take5_results,
        metrics=(
            Metric("score", True, "final score: bull heads taken (lower is better)"),
            Metric("placing", True, "finishing place, 1 = lowest score (ties share the better place)"),
        ),
    )


# --- 5 Alive --------------------------------------------------------------------------------------------

def _five_alive_game() -> Game:
    from agents import five_alive_support as fas

    return fas.make_game(Game, Metric, placings)


GAMES: dict[str, Game] = {"take5": _take5_game(), "five_alive": _five_alive_game()}


def get_game(name: str) -> Game:
    """The adapter of game ``name``; ``ValueError`` listing the known games otherwise."""
    if name not in GAMES:
        raise ValueError(f"game: expected one of {sorted(GAMES)}, got {name!r}")
    return GAMES[name]


def game_of_engine(engine: Any) -> Game:
    """The adapter whose engine class ``engine`` is an instance of."""
    for g in GAMES.values():
        if isinstance(engine, g.engine_cls):
            return g
    raise ValueError(
        f"engine: expected an engine of one of {sorted(GAMES)} ({[g.engine_cls.__name__ for g in GAMES.values()]}), "
        f"got {type(engine).__name__}"
    )
