"""``GameDef``: everything the layers above the engine need to know about one game, in one frozen record.

Each game's package exports one (``fiveplay_env/<game>/__init__.py``: ``GAME``) and the table
``fiveplay_env.games`` lists them; environments, the vector API, records, the arena, tournaments,
search, training, the web app and the command line look a game up there instead of knowing it by name.
A third-party game is a package with its own ``GAME`` registered through the table (``games.register``)
or the entry-point group ``fiveplay.games`` (see ``fiveplay_env.games``).

What a definition holds (the callables are plain functions of the game's config and state):

| field                  | what                                                                          |
|------------------------|-------------------------------------------------------------------------------|
| ``name``, ``title``    | the table key (``"take5"``) and the name people read (``"Take 5"``)           |
| ``spec``               | ``GameSpec``: env name, players range, number of actions, version             |
| ``config_cls``         | the frozen, validated config dataclass; ``presets``: named configs            |
| ``engine_cls``         | the reference engine (``core.engine.BoundEngine``): ``Engine(config, seed)``   |
| ``observe_state``      | ``(config, state, player) -> float32[obs]``: what one player sees             |
| ``observation_size``   | ``(config) -> int``                                                           |
| ``env_module``         | import path of the PettingZoo entry module (``env()``, ``raw_env``, and        |
|                        | ``parallel_env()`` for a simultaneous game), imported on first use            |
| ``batched``            | ``"module:factory"`` of a numpy batched engine (``factory(num_envs, seed,      |
|                        | **config)``), or None: the vector API then loops over reference engines       |
| ``jax_engine``         | import path of the JAX engine module (the optional ``jax`` extra), or None    |
| ``gym_id``             | the Gymnasium id of the single-agent view; ``illegal_action_penalty`` its       |
|                        | default reward for an illegal action                                          |
| ``summary``            | ``(state) -> dict``: the outcome as plain data (records' ``final``)            |
| ``digest_fields``      | ``(state) -> plain data``: every field of the state, for records' digests     |
| ``step_bytes``         | ``(state) -> bytes`` (optional): a cheap summary of the state (a few ints that |
|                        | change as the game goes) chained into a record's per-step hash; without it     |
|                        | the chain hashes ``digest_fields`` (exact, slower)                            |
| ``results``            | ``(engine, elimination_turn) -> {metric: [per seat]}`` plus ``win`` (shares)   |
|                        | and ``placing``; ``metrics`` describes the game's own figures; ``score`` names  |
|                        | the metric reported as "the score" of a seat                                  |
| ``canonical``          | ``(config, state, player) -> state``: hidden cards in a canonical arrangement  |
|                        | that depends only on what ``player`` knows (the input of ``sample_world``)     |
| ``sample_world``       | ``(config, state, player, rng) -> state``: a determinization                  |
| ``condition``          | ``(config, canonical, facts) -> conditioned | None`` (optional): beliefs about  |
|                        | hidden hands ({player: bit set of the kinds its hand may hold}) recorded on  |
|                        | the canonical state; ``sample_conditioned(config, conditioned, player, rng)``  |
|                        | draws a world honouring them (``RuntimeError``: none found)                    |
| ``alive``              | ``(state) -> list[bool] | None``: players still in (None: nobody is eliminated) |
| ``truncated``          | ``(state) -> bool``: a finished game was cut short by a length bound (5 Alive's |
|                        | ``max_steps``: no winner) rather than ended by its rules (default: never)      |
| ``public_event``       | ``(state) -> dict | None``: what the last step did, as every player saw it     |
| ``describe``, ``history`` | a paragraph and the version history, for the documentation                |
| ``dynamics``           | ``"simultaneous"`` (every player moves at once: a native parallel env) or      |
|                        | ``"sequential"`` (one player at a time)                                       |
| ``wait_action``        | the parallel env's action of a player with nothing to decide (simultaneous     |
|                        | games whose players do not all decide at every step), or None                 |
| ``reward_bounds``      | ``(config) -> (low, high)``: bounds of one player's reward at one env step     |
| ``preset_labels``      | ``{preset: label}``: what people read for each of ``presets`` (menus, docs)    |
| ``compact``            | ``"module:factory"`` of a compact observation layout (``factory(config)``:     |
|                        | ``.size``, ``.decode(uint8[B, size]) -> float32[B, obs]``), or None            |
| ``quick_preset``       | the preset a quick comparison plays (short games: benchmarks of clients, JAX    |
|                        | training, OpenSpiel head to head), or None: the default config                |
| ``record_v1_defaults`` | config fields added after records' version 1, with the value that replays a    |
|                        | version-1 record as it was played (``fiveplay_env.records``)                  |
| ``openspiel``          | import path of the game's OpenSpiel form (the ``openspiel`` extra: a module     |
|                        | with ``GAME_NAME`` and ``load(config)``), or None                             |
"""
from __future__ import annotations

import dataclasses
import importlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np

from fiveplay_env.core.config import from_kwargs, plain
from fiveplay_env.core.spec import GameSpec

DYNAMICS = ("simultaneous", "sequential")
"""The values of ``GameDef.dynamics``."""

SEED_BOUND = 2**63
"""Re-drawn world seeds (``GameDef.sample_engine``) lie in 0..2**63-1."""


@dataclass(frozen=True)
class Metric:
    """A per-player figure of a finished game: its name, whether lower is better, and what it means."""

    name: str
    lower_is_better: bool
    meaning: str


def placings(keys: Sequence[Any]) -> list[int]:
    """Competition ranking: 1 + how many players have a strictly better (smaller) key."""
    return [1 + sum(1 for k in keys if k < mine) for mine in keys]


def _no_elimination(state: Any) -> None:
    return None


def _never_truncated(state: Any) -> bool:
    return False


def _no_event(state: Any) -> None:
    return None


def _import(path: str) -> Any:
    """``"module"`` or ``"module:attribute"`` (a path written by a game's author, never user input)."""
    module, _, attr = path.partition(":")
    mod = importlib.import_module(module)
    return getattr(mod, attr) if attr else mod


@dataclass(frozen=True)
class GameDef:
    """One game, as every layer above its engine sees it (see the module docstring for the fields)."""

    name: str
    title: str
    spec: GameSpec
    config_cls: type
    engine_cls: type
    observe_state: Callable[[Any, Any, int], np.ndarray]
    observation_size: Callable[[Any], int]
    env_module: str
    summary: Callable[[Any], dict[str, Any]]
    digest_fields: Callable[[Any], Any]
    results: Callable[[Any, list[int | None]], dict[str, list[float]]]
    metrics: tuple[Metric, ...]
    score: str
    canonical: Callable[[Any, Any, int], Any]
    sample_world: Callable[[Any, Any, int, np.random.Generator], Any]
    presets: Mapping[str, Any] = field(default_factory=dict)
    batched: str | None = None
    jax_engine: str | None = None
    gym_id: str | None = None
    illegal_action_penalty: float = -1.0
    step_bytes: Callable[[Any], bytes] | None = None
    condition: Callable[[Any, Any, dict[int, int]], Any] | None = None
    sample_conditioned: Callable[[Any, Any, int, np.random.Generator], Any] | None = None
    alive: Callable[[Any], list[bool] | None] = _no_elimination
    public_event: Callable[[Any], dict[str, Any] | None] = _no_event
    truncated: Callable[[Any], bool] = _never_truncated
    describe: str = ""
    history: tuple[tuple[int, str], ...] = ()
    dynamics: str = "sequential"
    wait_action: int | None = None
    reward_bounds: Callable[[Any], tuple[float, float]] | None = None
    preset_labels: Mapping[str, str] = field(default_factory=dict)
    compact: str | None = None
    openspiel: str | None = None
    quick_preset: str | None = None
    record_v1_defaults: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise ValueError(f"GameDef.name: expected an identifier such as 'take5', got {self.name!r}")
        if not dataclasses.is_dataclass(self.config_cls):
            raise ValueError(f"GameDef.config_cls: expected a (frozen) config dataclass, got {self.config_cls!r}")
        names = [m.name for m in self.metrics]
        if self.score not in names:
            raise ValueError(f"GameDef.score: expected one of the metrics {names}, got {self.score!r}")
        if (self.condition is None) != (self.sample_conditioned is None):
            raise ValueError("GameDef: expected condition and sample_conditioned together (or neither)")
        if self.dynamics not in DYNAMICS:
            raise ValueError(f"GameDef.dynamics: expected one of {list(DYNAMICS)}, got {self.dynamics!r}")
        unknown = sorted(set(self.preset_labels) - set(self.presets))
        if unknown:
            raise ValueError(f"GameDef.preset_labels: expected labels of presets {sorted(self.presets)}, "
                             f"got labels for {unknown}")
        if self.quick_preset is not None and self.quick_preset not in self.presets:
            raise ValueError(f"GameDef.quick_preset: expected one of the presets {sorted(self.presets)}, "
                             f"got {self.quick_preset!r}")
        for key in ("batched", "compact"):
            value = getattr(self, key)
            if value is not None and ":" not in value:
                raise ValueError(f"GameDef.{key}: expected 'module:factory', got {value!r}")

    # --- configs ---------------------------------------------------------------------------------
    @property
    def num_actions(self) -> int:
        """Size of the action space (and of every action mask)."""
        return self.spec.num_actions

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

    def chain_bytes(self, state: Any) -> bytes:
        """``step_bytes(state)``, or the state's full ``digest_fields`` as JSON for a game without it."""
        if self.step_bytes is not None:
            return self.step_bytes(state)
        return json.dumps(plain(self.digest_fields(state)), separators=(",", ":")).encode()

    @property
    def score_metric(self) -> Metric:
        """The ``Metric`` named by ``score``."""
        return next(m for m in self.metrics if m.name == self.score)

    # --- engines ---------------------------------------------------------------------------------
    def new_engine(self, config: Any, seed: int | None) -> Any:
        return self.engine_cls(config, seed)

    def observe(self, engine: Any, player: int) -> np.ndarray:
        return self.observe_state(engine.config, engine.state, player)

    def canonical_state(self, engine: Any, player: int) -> Any:
        return self.canonical(engine.config, engine.state, player)

    def sample_engine(self, config: Any, canonical: Any, player: int, rng: np.random.Generator) -> Any:
        """A determinization as an engine: ``sample_world`` on the canonical state, with the game's seed
        (which fixes every later deal and reshuffle, so it is hidden too) re-drawn from ``rng``."""
        return self.engine_of_world(config, self.sample_world(config, canonical, player, rng), rng)

    def engine_of_world(self, config: Any, world: Any, rng: np.random.Generator) -> Any:
        """A sampled world as an engine, its seed re-drawn from ``rng`` (later deals are unknown too)."""
        world.seed = int(rng.integers(SEED_BOUND))
        return self.engine_cls(config, state=world)

    # --- environments ----------------------------------------------------------------------------
    @property
    def env(self) -> ModuleType:
        """The PettingZoo entry module (imported on first use)."""
        return _import(self.env_module)

    @property
    def parallel(self) -> bool:
        """Whether the game has a native parallel env (``dynamics == "simultaneous"``)."""
        return self.dynamics == "simultaneous"

    def preset_label(self, name: str) -> str:
        """The label people read for preset ``name`` (its name with spaces when none is declared)."""
        return self.preset_labels.get(name) or name.replace("_", " ").capitalize()

    def quick_config(self, **fields: Any) -> dict[str, Any]:
        """The config fields by which ``quick_preset`` differs from the default config (none without one),
        ``fields`` on top: ``quick_config(num_players=2)`` -> ``{"num_players": 2, "mode": "round"}``."""
        default = self.config_dict(self.make_config({}))
        preset = self.config_dict(self.presets[self.quick_preset]) if self.quick_preset else default
        out = dict(fields)
        for k, v in preset.items():
            if v != default[k]:
                out.setdefault(k, v)
        return out

    def compact_layout(self, config: Any) -> Any:
        """The compact observation layout under ``config``, or None when the game declares none."""
        return _import(self.compact)(config) if self.compact else None

    def reward_range(self, config: Any) -> tuple[float, float] | None:
        """``reward_bounds(config)``, or None when the game declares none."""
        return self.reward_bounds(config) if self.reward_bounds is not None else None

    def make_env(self, parallel: bool = False, **config: Any) -> Any:
        """The AEC env (or, ``parallel=True``, the parallel env) under ``config``."""
        mod = self.env
        if parallel:
            if not self.parallel:
                raise ValueError(f"parallel: {self.name} has no parallel env (it is turn-based); use parallel=False")
            return mod.parallel_env(**config)
        return mod.env(**config)

    def batched_factory(self) -> Callable[..., Any] | None:
        """The batched engine's factory, or None when the game has none."""
        return _import(self.batched) if self.batched else None
