"""A small, game-generic vector API for training: many games stepped at once, one action per game.

Self-play of random agents over 1,024 Take 5 games (4 players, one round each)::

    import numpy as np
    from fiveplay_env.vector import make_vec, random_actions

    env = make_vec("take5", 1024, seed=0, num_players=4, mode="round")
    obs, mask, player = env.reset()
    rng = np.random.default_rng(0)
    returns = np.zeros((env.num_envs, env.num_players), np.float32)  # running return of each game
    finished = []
    for _ in range(500):
        actions = random_actions(mask, rng)                  # one legal action per game
        obs, mask, player, rewards, terminated, info = env.step(actions)
        returns += rewards                                   # every player of every game
        finished.extend(returns[terminated].sum(axis=1))     # the games that ended at this step
        returns[terminated] = 0                              # their slots already hold new games
    print(len(finished), "games; bull heads taken per game:", -np.mean(finished))

Contract of the object ``make_vec`` returns (``VecEnv``; ``LoopVecEnv`` for the reference backend), for
B = ``num_envs`` games of n players, A actions and observations of ``obs_dim`` floats:

| call                 | returns                                                                   |
|----------------------|---------------------------------------------------------------------------|
| ``reset(seed=None)`` | ``obs`` float32 [B, obs_dim], ``mask`` int8 [B, A], ``current_player`` int32 [B] |
| ``step(actions)``    | ``obs``, ``mask``, ``current_player`` as above, then ``rewards`` float32 [B, n], ``terminated`` bool [B], ``info`` (a dict of per-game arrays) |

- ``obs[i]`` and ``mask[i]`` are for game i's acting player ``current_player[i]``, the only player who
  acts in game i at this step; ``actions`` holds one int per game (shape [B]), legal under ``mask``.
  The mask of every game always has a legal action.
- ``rewards[i, p]`` is player p's reward in game i for this step, for **every** player of every game,
  not only the one who acted (in Take 5 a trick is placed when its last card is chosen, so the bull
  heads it gives reach players other than the one who acted): in Take 5, minus the bull heads taken
  at this step, so a game's return is minus its final score.
- Autoreset is **same-step** (Gymnasium's ``AutoresetMode.SAME_STEP``): when game i ends at a step,
  ``terminated[i]`` is True and ``rewards[i]`` are that last step's, while ``obs[i]``, ``mask[i]`` and
  ``current_player[i]`` already belong to the new game started in slot i. There is no separate reset
  step. ``info["final_scores"][i]`` holds the finished game's final scores where ``terminated[i]``.
- Truncation: ``info["truncated"]`` (bool [B]) marks, among the games that ended at this step
  (``terminated``), those cut short by 5 Alive's ``max_steps`` (no winner, no final reward; a bootstrapping
  learner should not treat them as terminal). No rule-book game reaches the default, 10,000 decisions;
  Take 5 games always end by their rules (``truncated`` is all False).
- Seeding: slot i's k-th game is seeded ``core.seeding.derive(seed, i + k*B)``; ``info["seed"][i]`` is
  the seed of slot i's current game, with which it can be replayed alone by the game's reference
  engine (``fiveplay_env.take5.engine.new_game(config, seed)``). ``reset(seed)`` starts the run over;
  ``reset()`` moves every slot on to its next game (the first ``reset()`` of a new env shows the
  games ``make_vec`` started).
- Errors: a bad config value, or actions of the wrong shape or dtype, raise ``ValueError`` naming the
  field; an illegal action raises ``core.errors.IllegalActionError`` naming the game index, and
  changes nothing. ``num_envs`` is checked before anything is allocated: at most ``MAX_BATCH_SIZE``
  (16,777,216) games, and no more than this machine's memory holds (``check_memory``); either limit is
  a ``ValueError`` naming it.
- Arrays are new at every step, except ``obs`` when the env is made with ``reuse_obs=True``: then one
  buffer is overwritten at every step (faster for large batches; copy what you keep).

``info`` (Take 5): ``scores``, ``round_penalty`` (int32 [B, n]), ``round`` (int32 [B]) and ``seed``
(uint64 [B]) of the current games, ``final_scores`` (int32 [B, n]) and ``truncated`` (bool [B]).

5 Alive runs the same loop with ``make_vec("five_alive", 1024, seed=0, num_players=4)`` (any
``FiveAliveConfig`` field but ``max_cycles``): 19 actions, rewards +1 / -1 as each game is decided
(``reward="lives"``: -1 per life lost), and ``info`` holds ``seed``, ``lives``, ``alive`` and ``round`` of
the current games, and ``final_scores`` (lives left, int32 [B, n]), ``final_result`` (+1 / -1) and
``final_win`` (win shares) of the games that just ended, and ``truncated``.

Backends (``make_vec(..., backend=...)``), every one with the contract above:

| backend         | what steps the games                                                             |
|-----------------|----------------------------------------------------------------------------------|
| ``"numpy"``     | the game's batched engine (``REGISTRY``), no Python loop over games (the default) |
| ``"reference"`` | ``LoopVecEnv``: a Python loop over the game's reference engines, one per slot:   |
|                 | slower, exact (the engines of the PettingZoo envs and the search agents), and the |
|                 | only one exposing each slot's engine (``engines``, ``ended``) to agents that read it |

``LoopVecEnv``'s ``info`` holds ``seed``, ``final_scores`` (Take 5: final scores; 5 Alive: lives left;
float32 [B, n]) and ``final_win`` (win shares, float32 [B, n]) of the games that just ended.

Games are registered by name in ``REGISTRY`` (name -> ``"module:factory"``, imported on first use); a
factory is ``factory(num_envs, seed, **config)`` returning an engine with the ``BatchedGame`` shape.
``random_actions(mask, rng)`` is a cheap batched uniform sampler for random agents and benchmarks.
"""
from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from fiveplay_env import games
from fiveplay_env.core import seeding
from fiveplay_env.core.config import MAX_BATCH_SIZE, check_bool, check_int, from_kwargs
from fiveplay_env.core.errors import CheckpointError, IllegalActionError
from fiveplay_env.core.sampling import random_actions

_OVERRIDES: dict[str, str] = {}  # register(): factories that replace or add to the game table's


class _Registry(games.GameMapping):
    """Game name -> ``"module:factory"`` of its batched engine: the game table's ``batched`` fields
    (games without one are left out) and what ``register`` added."""

    def __getitem__(self, game: str) -> str:
        if game in _OVERRIDES:
            return _OVERRIDES[game]
        factory = super().__getitem__(game)
        if factory is None:
            raise KeyError(game)
        return factory

    def __iter__(self):  # type: ignore[override]
        return iter(sorted({*_OVERRIDES, *(n for n, g in games.table().items() if g.batched)}))

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __setitem__(self, game: str, factory: str) -> None:  # register()'s mapping form
        register(game, factory)

    def __delitem__(self, game: str) -> None:
        """Forget what ``register`` added for ``game`` (the table's own factory comes back)."""
        if game not in _OVERRIDES:
            raise KeyError(game)
        del _OVERRIDES[game]


REGISTRY = _Registry(lambda g: g.batched)
"""Game name -> ``"module:factory"`` of its batched engine (imported on first use): a live view of the
game table (``fiveplay_env.games``, each definition's ``batched`` field) plus ``register``'s additions."""

JAX_REGISTRY = games.GameMapping(lambda g: f"{g.jax_engine}:make_vec" if g.jax_engine else None)
"""Game name -> ``"module:factory"`` of its JAX engine (``backend="jax"``; the optional ``jax`` extra): the
game table's ``jax_engine`` fields (None for a game without one)."""


@runtime_checkable
class BatchedGame(Protocol):
    """What a game's batched engine offers the vector API (Pgx's shape, one action per game per step).

    After ``reset`` and after each ``step``: ``current_player`` int32 [B], ``legal_action_mask``
    int8 [B, A], ``rewards`` float32 [B, n], ``terminated`` bool [B]; ``observe(out=None)`` gives
    float32 [B, observation_size] for the acting players; ``info()`` a dict of per-game arrays with
    at least ``seed`` and ``final_scores``. Finished games are replaced in the same step.
    """

    batch_size: int
    num_players: int
    num_actions: int
    observation_size: int
    rewards: np.ndarray
    terminated: np.ndarray

    def reset(self, seed: int | None = None) -> None: ...
    def step(self, actions: np.ndarray) -> np.ndarray: ...
    def observe(self, out: np.ndarray | None = None) -> np.ndarray: ...
    def info(self) -> dict[str, np.ndarray]: ...
    @property
    def current_player(self) -> np.ndarray: ...
    @property
    def legal_action_mask(self) -> np.ndarray: ...


def register(game: str, factory: str) -> None:
    """Add (or replace) a game: ``factory`` is ``"module:function"``, the function taking
    ``(num_envs, seed, **config)`` and returning a ``BatchedGame``."""
    if not isinstance(game, str) or not isinstance(factory, str) or ":" not in factory:
        raise ValueError(f"register: expected a game name and a 'module:function' factory, got {game!r}, {factory!r}")
    _OVERRIDES[game] = factory


def _factory(game: str, backend: str = "numpy") -> Any:
    if game not in REGISTRY:
        raise ValueError(f"game: expected one of {sorted(REGISTRY)}, got {game!r}")
    if backend == "numpy":
        module, func = REGISTRY[game].split(":")
        return getattr(importlib.import_module(module), func)
    if importlib.util.find_spec("jax") is None:
        from fiveplay_env.core.extras import install_hint

        raise ImportError(f"backend='jax': the JAX engines need jax, of the 'jax' extra: {install_hint('jax')}")
    have = sorted(g for g, f in JAX_REGISTRY.items() if f and importlib.util.find_spec(f.split(":")[0]) is not None)
    if game not in have:
        raise ValueError(f"backend='jax': expected a game with a JAX engine ({have}), got {game!r}")
    module, func = JAX_REGISTRY[game].split(":")
    return getattr(importlib.import_module(module), func)


class VecEnv:
    """``num_envs`` games of one kind stepped together; see the module docstring for the contract."""

    def __init__(self, game: str, engine: BatchedGame, reuse_obs: bool = False, compact_obs: bool = False) -> None:
        if compact_obs and not hasattr(engine, "observe_compact"):
            raise ValueError(f"compact_obs: expected a game with a compact observation (take5), got {game!r}")
        self.game = game
        self.compact_obs = bool(compact_obs)
        self.engine = engine
        self.num_envs: int = engine.batch_size
        self.num_players: int = engine.num_players
        self.num_actions: int = engine.num_actions
        self.obs_dim: int = engine.observation_size
        self._buf = np.empty((self.num_envs, self.obs_dim), np.float32) if reuse_obs else None
        self._fresh = True  # the engine's first games are not yet observed: reset() just shows them

    def _obs(self) -> np.ndarray:
        if self.compact_obs:
            return self.engine.observe_compact()  # type: ignore[attr-defined]
        return self.engine.observe(out=self._buf)

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Start ``num_envs`` new games: with ``seed``, the run starts over from that base seed; without,
        every slot moves on to its next game of the run (nothing repeats).
        Returns ``(obs [B, obs_dim] float32, mask [B, A] int8, current_player [B] int32)``.
        The first ``reset()`` of a new env shows its first games (``derive(seed, i)``) as they are."""
        if seed is not None or not self._fresh:
            self.engine.reset(seed)
        self._fresh = False
        return self._obs(), self.engine.legal_action_mask, self.engine.current_player

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                                  dict[str, np.ndarray]]:
        """One action per game (int [B]). Returns ``(obs, mask, current_player, rewards [B, n] float32,
        terminated [B] bool, info)``; slots whose game ended hold a new game already (same-step)."""
        rewards = self.engine.step(actions)
        self._fresh = False
        return (self._obs(), self.engine.legal_action_mask, self.engine.current_player, rewards,
                self.engine.terminated, self.engine.info())


BACKENDS = ("numpy", "reference", "jax")
"""The backends ``make_vec`` knows (see the module docstring)."""


def make_vec(game: str, num_envs: int, seed: int | None = 0, reuse_obs: bool = False, compact_obs: bool = False,
             backend: str = "numpy", **config: Any) -> "VecEnv | LoopVecEnv":
    """``num_envs`` games of ``game`` (a name in ``REGISTRY``: "take5", ...) under the game's config
    fields ``**config`` (unknown keys and bad values raise ``ValueError`` naming the field). ``seed``:
    the run's base seed (None: fresh OS entropy). Call ``reset()`` for the first observations.
    ``compact_obs=True`` (Take 5, ``backend="numpy"``): ``obs`` is the compact uint8 observation of
    ``fiveplay_env.take5.compact`` instead of the float one (``obs_dim`` stays the float size).
    ``backend``: one of ``BACKENDS`` ("numpy": the batched engine, the default; "reference": the
    reference engines in a Python loop, ``LoopVecEnv``; "jax": the game's JAX engine,
    ``fiveplay_env.<game>.jax_engine.make_vec``, the optional ``jax`` extra, with the same contract and,
    seeded alike, the very same games; arrays come back to the host as numpy, the device state is
    ``env.engine.jax_state``)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend: expected one of {list(BACKENDS)}, got {backend!r}")
    factory = reference_game(game) if backend == "reference" else _factory(game, backend)  # an unknown game first
    check_int("num_envs", num_envs, 1, MAX_BATCH_SIZE)
    check_bool("reuse_obs", reuse_obs)
    check_bool("compact_obs", compact_obs)
    if backend == "reference":
        if compact_obs:
            raise ValueError("compact_obs: expected backend 'numpy' (the compact observation is the batched "
                             "engine's), got backend 'reference'")
        return LoopVecEnv(game, num_envs, seed, reuse_obs=reuse_obs, **config)
    if backend == "numpy":  # (a JAX probe would compile the engine)
        check_memory(factory, num_envs, seed, config)
    return VecEnv(game, factory(num_envs, seed, **config), reuse_obs=reuse_obs, compact_obs=compact_obs)


# --- the reference backend ----------------------------------------------------------------------------------

def _never_truncated(state: Any) -> bool:
    return False


@dataclass(frozen=True)
class ReferenceGame:
    """What ``LoopVecEnv`` needs of a game's reference engine.

    Attributes:
        config_cls: the frozen config dataclass (built with ``core.config.from_kwargs``).
        engine_cls: the reference engine (``engine_cls(config, seed)``: ``current_player``,
            ``legal_mask()``, ``step(action) -> rewards``, ``is_over``, ``state``).
        num_actions: size of the action space.
        observe: ``(config, state, player) -> float32 [obs_dim]``.
        final: ``(engine) -> (scores, win shares)`` of a finished game, one float per seat (Take 5:
            final scores; 5 Alive: lives left; the win shared by the winners).
        truncated: ``(state) -> bool``: the finished game was cut short by a length bound (5 Alive's
            ``max_steps``), not ended by its rules.
    """

    config_cls: type
    engine_cls: type
    num_actions: int
    observe: Callable[[Any, Any, int], np.ndarray]
    final: Callable[[Any], tuple[list[float], list[float]]]
    truncated: Callable[[Any], bool] = _never_truncated


SEARCH_HOOK = "fiveplay_env.agents.games:compile_search"
"""``module:function`` that ``compile_kernels`` calls with each game's name after its engine: the agents
layer's compiled search code of the game (its kit's). Named, not imported: this layer never imports the
agents, and an install without them skips it."""


def _compile_search(name: str) -> None:
    import importlib

    module, _, attr = SEARCH_HOOK.partition(":")
    try:
        hook = getattr(importlib.import_module(module), attr)
    except ModuleNotFoundError as e:
        if e.name is None or not module.startswith(e.name):
            raise
        return  # the envs installed without the agents
    hook(name)


def compile_kernels(games_: Sequence[str] | None = None, processes: int = 1) -> dict[str, float]:
    """Compile (or load from numba's cache) every compiled kernel of the batched engines ahead of use: each
    game's engine is built, stepped, observed, copied and checked once, then the agents' compiled search of
    the game, if it has one (``SEARCH_HOOK``). Returns the seconds each game took (about 1 s a game once
    cached). ``processes`` > 1: the games side by side in that many fresh processes (numba compiles on one
    core). ``make test`` calls it before its worker processes start, so that they load the kernels instead of
    compiling them side by side."""
    import time

    from fiveplay_env import games as table

    names = list(games_) if games_ is not None else [n for n in table.names() if table.get(n).batched]
    if processes > 1 and len(names) > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(min(processes, len(names)), mp_context=multiprocessing.get_context("spawn")) as pool:
            parts = list(pool.map(compile_kernels, [[n] for n in names]))
        return {k: v for part in parts for k, v in part.items()}
    out = {}
    for name in names:
        t0 = time.perf_counter()
        game = table.get(name)
        engine = _factory(name)(4, 0)
        rng = np.random.default_rng(0)
        for _ in range(3):
            engine.step(random_actions(engine.legal_action_mask, rng))
        engine.observe()
        if hasattr(engine, "observe_compact") and game.compact:
            engine.observe_compact()
        engine.set_state(engine.get_state())
        states = [game.new_engine(engine.config, s).state for s in range(4)]
        engine.load_states(states)
        if hasattr(engine, "redeal"):
            engine.redeal(0, rng)
        if hasattr(engine, "observe_as"):
            engine.observe_as(np.zeros(4, np.int64))
        _compile_search(name)
        out[name] = time.perf_counter() - t0
    return out


def reference_game(game: str) -> ReferenceGame:
    """The reference-engine facts of ``game``, from its definition in ``fiveplay_env.games``
    (``ValueError`` naming the known games otherwise); the one place ``LoopVecEnv`` learns about a game."""
    g = games.get(game)

    def final(engine: Any) -> tuple[list[float], list[float]]:
        res = g.results(engine, [None] * engine.state.num_players)
        return [float(x) for x in res[g.score]], [float(x) for x in res["win"]]

    return ReferenceGame(g.config_cls, g.engine_cls, g.num_actions, g.observe_state, final, g.truncated)


class LoopVecEnv:
    """The vector-API contract (the module docstring) over ``num_envs`` reference engines, stepped in a
    Python loop: ``make_vec(game, B, seed, backend="reference", **config)``.

    ``info()`` holds ``seed`` [B], ``final_scores`` [B, n] (Take 5: scores; 5 Alive: lives; valid where
    ``terminated``), ``final_win`` [B, n] (win shares of the finished games) and ``truncated`` [B] (of
    the games that ended at this step, those cut short by a length bound: 5 Alive's ``max_steps``).
    ``engines[i]`` is slot i's game in progress (a new one as soon as a game ends) and, after a step,
    ``ended`` maps each slot whose game that step finished to the finished game's engine.
    ``get_state()`` / ``set_state(state)``: the games in progress as plain data (each game's seed and
    the actions played so far, replayed on restore).
    """

    backend = "reference-loop"

    def __init__(self, game: str, num_envs: int, seed: int | None = 0, *, reuse_obs: bool = False,
                 **config: Any) -> None:
        self.game = game
        self.ref = reference_game(game)
        self.config = from_kwargs(self.ref.config_cls, config)
        self.num_envs = int(num_envs)
        if self.num_envs < 1:
            raise ValueError(f"num_envs: expected an integer >= 1, got {num_envs!r}")
        self.num_players = self.config.num_players
        self.num_actions = self.ref.num_actions
        probe = self.ref.engine_cls(self.config, 0)
        self.obs_dim = int(self.ref.observe(probe.config, probe.state, probe.current_player).shape[0])
        self.engines: list[Any] = []
        self.history: list[list[int]] = []  # actions of each slot's current game (for snapshots)
        self.ended: dict[int, Any] = {}  # slot -> the engine of the game the last step finished there
        self.base_seed = seeding.normalize_seed(seed)
        self.game_index = np.zeros(self.num_envs, np.int64)
        self.seeds = np.zeros(self.num_envs, np.uint64)
        self._final = np.zeros((self.num_envs, self.num_players), np.float32)
        self._final_win = np.zeros((self.num_envs, self.num_players), np.float32)
        self._buf = np.empty((self.num_envs, self.obs_dim), np.float32) if reuse_obs else None
        self._fresh = True  # reset() without a seed starts the constructor's games

    def _new(self, i: int, seed: int) -> None:
        self.seeds[i] = np.uint64(seed)
        self.engines[i] = self.ref.engine_cls(self.config, int(seed))
        self.history[i] = []

    def reset(self, seed: int | None = None, seeds: Any = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Start ``num_envs`` games: with ``seed``, the run starts over (slot i's k-th game has seed
        ``derive(seed, i + k*B)``); without, every slot moves on to its next game of the run (the first
        ``reset()`` starts the games of the constructor's seed). ``seeds``: explicit seeds of the
        games started now."""
        B = self.num_envs
        if seeds is not None and len(seeds) != B:
            raise ValueError(f"seeds: expected {B} seeds (one per game), got {len(seeds)}")
        if seed is not None or self._fresh:
            if seed is not None:
                self.base_seed = seeding.normalize_seed(seed)
            self.game_index = np.arange(B, dtype=np.int64)
        else:
            self.game_index = self.game_index + B
        self._fresh = False
        self.engines = [None] * B
        self.history = [[] for _ in range(B)]
        self.ended = {}
        for i in range(B):
            self._new(i, seeds[i] if seeds is not None else seeding.derive(self.base_seed, int(self.game_index[i])))
        return self._outputs()

    def _outputs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        obs = self._buf if self._buf is not None else np.empty((self.num_envs, self.obs_dim), np.float32)
        mask = np.empty((self.num_envs, self.num_actions), np.int8)
        cur = np.empty(self.num_envs, np.int32)
        observe = self.ref.observe
        for i, e in enumerate(self.engines):
            p = e.current_player
            cur[i] = p
            obs[i] = observe(e.config, e.state, p)
            mask[i] = e.legal_mask()
        return obs, mask, cur

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                                  dict[str, np.ndarray]]:
        """One action per game (int [B]); see the module docstring. An illegal action raises
        ``IllegalActionError`` (with ``game_index``) before any game moves."""
        a = np.asarray(actions)
        B, n = self.num_envs, self.num_players
        if a.shape != (B,) or a.dtype.kind not in "iu":
            raise ValueError(f"actions: expected an integer array of shape ({B},), got {a.dtype} {a.shape}")
        if self._fresh:
            self.reset()
        # check every action first, so an illegal one changes nothing
        for i, e in enumerate(self.engines):
            m = e.legal_mask()
            if not (0 <= a[i] < self.num_actions) or not m[a[i]]:
                err = IllegalActionError(f"player_{e.current_player} of game {i}", int(a[i]), np.flatnonzero(m))
                err.game_index = i  # type: ignore[attr-defined]
                raise err
        rewards = np.zeros((B, n), np.float32)
        term = np.zeros(B, bool)
        trunc = np.zeros(B, bool)
        final, truncated = self.ref.final, self.ref.truncated
        self.ended = {}
        for i, e in enumerate(self.engines):
            r = e.step(int(a[i]))
            self.history[i].append(int(a[i]))
            rewards[i] = r
            if e.is_over:
                term[i] = True
                trunc[i] = bool(truncated(e.state))
                self._final[i], self._final_win[i] = final(e)
                self.ended[i] = e
                self.game_index[i] += B
                self._new(i, seeding.derive(self.base_seed, int(self.game_index[i])))
        obs, mask, cur = self._outputs()
        info = {"seed": self.seeds.copy(), "final_scores": self._final.copy(), "final_win": self._final_win.copy(),
                "truncated": trunc}
        return obs, mask, cur, rewards, term, info

    def get_state(self) -> dict[str, Any]:
        """The games in progress as plain data: base seed, game counters, seeds and each game's actions."""
        return {"base_seed": self.base_seed, "game_index": self.game_index.copy(), "seeds": self.seeds.copy(),
                "history": [np.asarray(h, np.int16) for h in self.history]}

    def set_state(self, state: dict[str, Any]) -> None:
        """Restore ``get_state()``'s games (replayed from their seeds); ``CheckpointError`` if the number
        of slots differs."""
        B = self.num_envs
        if len(state["history"]) != B:
            raise CheckpointError(f"cannot restore the games: expected {B} slots, the checkpoint has {len(state['history'])}")
        self.base_seed = state["base_seed"]
        self.engines = [None] * B
        self.history = [[] for _ in range(B)]
        self.ended = {}
        for i in range(B):
            self._new(i, int(state["seeds"][i]))
            for a in state["history"][i].tolist():
                self.engines[i].step(int(a))
            self.history[i] = [int(a) for a in state["history"][i].tolist()]
        self.game_index = state["game_index"].copy()
        self._fresh = False


def physical_memory() -> int | None:
    """This machine's memory in bytes (None where the OS does not say)."""
    import os

    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return None


def check_memory(factory: Any, num_envs: int, seed: int | None, config: dict[str, Any]) -> None:
    """``ValueError`` before anything large is allocated if ``num_envs`` games would not fit in this
    machine's memory: a one-game engine of the same config (which also checks the config) gives the bytes
    of a game's state (``bytes_per_game``) and of its observation, and the estimate, ``num_envs`` times
    the state plus two observations (the one returned and the encoder's), must stay below the machine's
    memory (``physical_memory``). A lower bound: the step's temporaries come on top."""
    probe = factory(1, seed if seed is not None else 0, **config)
    per_game = float(getattr(probe, "bytes_per_game", lambda: 0.0)()) + 2 * 4 * int(probe.observation_size)
    need = num_envs * per_game
    have = physical_memory()
    if have is not None and need > have:
        raise ValueError(f"num_envs: expected at most {int(have // per_game):,} games on this machine "
                         f"({have / 2**30:.1f} GiB of memory; about {per_game:,.0f} bytes a game for its state "
                         f"and observations), got {num_envs:,} (about {need / 2**30:,.1f} GiB)")

