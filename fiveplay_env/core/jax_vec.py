"""The shell both JAX engines share: the Pgx-style env's plumbing, the host-side vector wrapper, a sampler.

A JAX engine (``fiveplay_env.take5.jax_engine``, ``fiveplay_env.five_alive.jax_engine``) writes its
game's rules; what does not depend on the game lives here, once:

| name          | what it is                                                                              |
|---------------|-----------------------------------------------------------------------------------------|
| ``JaxEnvBase`` | the Pgx v2 ``Env`` plumbing: the constructor's checks (config or fields, ``chance``, ``observation``), hashing by settings, ``id``, ``version``, ``num_players``, ``num_actions``, ``observation_size``, ``init_seeded``, ``legal_action_mask``, ``_key_seed`` |
| ``JaxVecBase`` | ``make_vec``'s host wrapper (the ``BatchedGame`` shape of ``fiveplay_env.vector``): run seeding, the jitted batched step and init, same-step autoreset, the action checks (``core.batched.BatchedActions``), ``observe``, ``info``, ``game_index``, ``seeds``, ``jax_state``, ``to_torch``, ``bytes_per_game`` |
| ``PgxState``, ``register_state`` | the fields of Pgx v2's ``State`` a game's ``State`` starts with, and its registration as a pytree |
| ``random_actions(key, mask)`` | a cheap uniform legal sampler (both engines re-export it) |
| ``action_input(action, num_actions)`` | a ``step``'s action as the engines read it: an integer in range, or the penalty (eagerly: a clear error for a non-integer) |

A game's env subclasses ``JaxEnvBase`` with the class attributes ``CONFIG`` (its config class), ``ID``,
``VERSION``, ``NUM_ACTIONS`` and ``OBSERVATIONS`` (the observation kinds it offers), sets ``_obs_size``
and writes ``_setup()`` (its part of the constructor), ``_fresh(seed)`` (a new game of a seed pair) and
``_mask(state)``. A game's vector wrapper subclasses ``JaxVecBase`` with the hooks of one game's step
(``_game_step_reference``, ``_game_step_jax``: the env's ``_step`` with the next game's seed or key),
``_finals`` (the finished games' outputs, computed on the device; ``FINALS`` names their dtype or
dtypes, each [B, n]) and ``_game_info`` (its entries of ``info()``); ``CONFIG`` is its config class
(``from_fields``: what its ``make_vec`` returns), and ``state_field`` makes a host property of a
``State`` field.

Importing this module imports jax; without jax it raises ``ImportError`` naming the extra.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

try:
    import jax
    import jax.numpy as jnp
    from jax import lax
except ImportError as exc:  # pragma: no cover - exercised only without jax
    from fiveplay_env.core.extras import install_hint

    raise ImportError(f"the JAX engines need jax, of the 'jax' extra: {install_hint('jax')}") from exc

from fiveplay_env.core import jax_seeding as js
from fiveplay_env.core import seeding
from fiveplay_env.core.batched import BatchedActions
from fiveplay_env.core.config import check_int, from_kwargs

S = TypeVar("S", bound="PgxState")

CHANCES = ("jax", "reference")
"""The ``chance`` settings of a JAX env: fresh draws from the step's key, or the reference's seed and counter."""


@dataclasses.dataclass(frozen=True)
class PgxState:
    """The fields every game's ``State`` starts with (Pgx v2's; each game's module docstring has the table);
    a game's ``State`` is a frozen dataclass subclass that adds its own fields after them."""

    current_player: Any
    observation: Any
    legal_action_mask: Any
    rewards: Any
    terminated: Any
    truncated: Any
    _step_count: Any

    ENV_ID = ""
    """The game's id (Pgx's ``State.env_id``): each game's ``State`` sets it."""

    @property
    def env_id(self) -> str:
        return self.ENV_ID

    def replace(self: S, **changes: Any) -> S:
        """A copy with ``changes`` (Pgx's ``State.replace``)."""
        return dataclasses.replace(self, **changes)


def register_state(cls: type) -> list[str]:
    """Register the dataclass ``cls`` as a pytree (every field a leaf) and return its field names."""
    fields = [f.name for f in dataclasses.fields(cls)]
    jax.tree_util.register_dataclass(cls, data_fields=fields, meta_fields=[])
    return fields


def random_actions(key: Any, mask: Any) -> Any:
    """int32 [...]: one legal action per row of ``mask`` (bool [..., A]), uniformly at random, from one
    uniform float per row (cheaper than Pgx's ``act_randomly``, a categorical draw over every action):
    the rank r of the action among the row's legal ones, found through a running count (an
    ``associative_scan``: XLA's CPU ``cumsum`` over a row is quadratic in its length)."""
    u = jax.random.uniform(key, mask.shape[:-1])
    run = lax.associative_scan(jnp.add, mask.astype(jnp.int32), axis=mask.ndim - 1)
    count = run[..., -1]
    r = jnp.minimum((u * count).astype(jnp.int32), count - 1)
    return jnp.argmax(run > r[..., None], axis=-1).astype(jnp.int32)


def action_input(action: Any, num_actions: int) -> tuple[Any, Any]:
    """``(a, ok)``: the action of a ``step`` as an int32 id in 0..num_actions-1 (0 when not ``ok``), and
    whether it was an integer in range (not ``ok``: the engine's illegal-action penalty). Nothing is
    wrapped or truncated: an integer is compared with the range in its own type before any cast.

    Eagerly (a Python or numpy value, or a concrete array) a non-integer raises ``ValueError`` naming
    the type (a bool, a float, a string: ``True``, ``22.7`` and ``"22"`` are not action ids), as does an
    array that is not a scalar; an integer out of range (``2**32 + a`` included) is the penalty. Under a
    transformation (``jit``, ``vmap``: a tracer) the type is fixed when it is traced: an integer is
    checked as above, a float or bool action is the penalty (a traced value cannot raise). JAX itself
    converts a 64-bit integer argument to int32 at a ``jit``/``vmap`` boundary unless ``jax_enable_x64``
    is set, before the engine sees it: pass int32 actions, or enable x64, for the range check to see the
    value you meant."""
    if isinstance(action, jax.core.Tracer):
        x = action
        if x.ndim != 0:
            raise ValueError(f"action: expected one action id (a scalar; vmap over games), got shape {tuple(x.shape)}")
        if not jnp.issubdtype(x.dtype, jnp.integer):
            return jnp.int32(0), jnp.bool_(False)
        ok = (x >= 0) & (x < num_actions) if jnp.issubdtype(x.dtype, jnp.signedinteger) else x < num_actions
        return jnp.where(ok, x, 0).astype(jnp.int32), ok
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer, np.ndarray, jax.Array)):
        raise ValueError(f"action: expected an integer action id in 0..{num_actions - 1}, got "
                         f"{type(action).__name__}")
    if isinstance(action, (np.ndarray, jax.Array)):
        if action.shape != ():
            raise ValueError(f"action: expected one action id (a scalar; vmap over games), got shape {action.shape}")
        if action.dtype == bool or not np.issubdtype(action.dtype, np.integer):
            raise ValueError(f"action: expected an integer action id in 0..{num_actions - 1}, got an array of "
                             f"{action.dtype}")
        action = np.asarray(action).item()
    v = int(action)
    if 0 <= v < num_actions:
        return jnp.int32(v), jnp.bool_(True)
    return jnp.int32(0), jnp.bool_(False)


class JaxEnvBase:
    """The plumbing of a game's Pgx v2 ``Env`` (see the module docstring).

    ``Env(config=None, *, chance="jax", observation="float", illegal_action_penalty=-1.0, **fields)``:
    ``config`` an instance of ``CONFIG`` or None (then ``CONFIG(**fields)``; unknown or bad fields raise ``ValueError`` naming the
    field, as the reference validates them); ``chance`` one of ``CHANCES``, ``observation`` one of
    ``OBSERVATIONS``; then the game's ``_setup()``. The object is hashable by its settings (``_key``), so it
    can be a static argument.
    """

    CONFIG: type
    ID: str
    VERSION: str
    NUM_ACTIONS: int
    OBSERVATIONS: tuple[str, ...]
    _obs_size: int

    def __init__(self, config: Any = None, *, chance: str = "jax", observation: str = "float",
                 illegal_action_penalty: float = -1.0, **fields: Any) -> None:
        cls = self.CONFIG
        if config is None:
            config = from_kwargs(cls, fields)
        elif fields:
            raise ValueError(f"config: expected a {cls.__name__} or config fields, got both (fields {sorted(fields)})")
        if not isinstance(config, cls):
            raise ValueError(f"config: expected a {cls.__name__}, got {type(config).__name__}")
        if chance not in CHANCES:
            raise ValueError(f"chance: expected one of {CHANCES}, got {chance!r}")
        if observation not in self.OBSERVATIONS:
            raise ValueError(f"observation: expected one of {self.OBSERVATIONS}, got {observation!r}")
        self.config = config
        self.chance = chance
        self.observation_kind = observation
        self.illegal_action_penalty = float(illegal_action_penalty)
        self.n: int = config.num_players
        self._setup()

    def _setup(self) -> None:
        """The game's part of the constructor (its constants, its checks of the settings together)."""
        raise NotImplementedError

    def _key(self) -> tuple[Any, ...]:
        """The settings that make two envs equal (and their hash)."""
        return (type(self), self.config, self.chance, self.observation_kind, self.illegal_action_penalty)

    def __hash__(self) -> int:
        return hash(self._key())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, JaxEnvBase) and self._key() == other._key()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.config}, chance={self.chance!r}, observation={self.observation_kind!r})"

    @property
    def id(self) -> str:
        return self.ID

    @property
    def version(self) -> str:
        return self.VERSION

    @property
    def num_players(self) -> int:
        return self.n

    @property
    def num_actions(self) -> int:
        return self.NUM_ACTIONS

    @property
    def observation_size(self) -> int:
        """Floats in the float observation (``observation.observation_size``)."""
        return self._obs_size

    def _fresh(self, seed: Any) -> Any:
        """A new game of ``seed`` (a uint32 pair): the game's ``init`` and ``init_seeded`` call it."""
        raise NotImplementedError

    def _mask(self, state: Any) -> Any:
        """bool [NUM_ACTIONS]: the acting seat's legal actions (all True once the game is over)."""
        raise NotImplementedError

    def init_seeded(self, seed: Any) -> Any:
        """The reference engine's game ``new_game(config, seed)``: ``seed`` a uint32 pair
        (``jax_seeding.from_uint64(s)``). Needs ``chance="reference"`` (its later draws follow the seed)."""
        if self.chance != "reference":
            raise ValueError("init_seeded: expected an env made with chance='reference' (the later draws follow "
                             f"the seed), got chance={self.chance!r}")
        return self._fresh(jnp.asarray(seed, jnp.uint32))

    def legal_action_mask(self, state: Any) -> Any:
        """bool [NUM_ACTIONS]: the acting seat's legal actions (all True once the game is over, Pgx's
        convention)."""
        return self._mask(state)

    def _key_seed(self, key: Any) -> Any:
        """A uint32 pair drawn from ``key`` (a typed key or a raw uint32 [2] key)."""
        return jax.random.bits(key, (2,), jnp.uint32)


def state_field(name: str, doc: str) -> property:
    """A read-only property of a ``JaxVecBase``: the batched ``State``'s field ``name`` on the host."""
    return property(lambda self: np.asarray(getattr(self.state, name)), doc=doc)


class JaxVecBase(BatchedActions):
    """``num_envs`` games on a JAX engine with the ``BatchedGame`` shape of ``fiveplay_env.vector``: numpy
    arrays on the host, same-step autoreset, slot i's k-th game seeded ``seeding.derive(seed, i + k*B)``
    (``chance="reference"``: the very games of the numpy batched engine); with ``chance="jax"`` the
    draws come from a key derived from the seed instead. One jitted call per step; the state stays on
    the device (``jax_state``), and ``to_torch`` hands a device array to torch without a copy (DLPack).

    After ``reset`` and every ``step``: ``current_player`` int32 [B], ``legal_action_mask`` int8 [B, A]
    (read-only), ``rewards`` float32 [B, n], ``terminated`` bool [B] (a truncated game's slot reports it
    too: the slot moves on to its next game) and ``truncated`` bool [B].

    ``__init__(config, num_envs, seed, make_env, compiler_options)``: ``make_env()`` builds the game's
    ``JaxEnvBase`` (after ``num_envs`` is checked); ``compiler_options`` go to ``jax.jit``.
    """

    CONFIG: type
    """The game's config class (``from_fields``)."""
    FINALS: Any = np.int32
    """The dtype of the finished-game output ``_finals`` returns (an array [B, n]), or a tuple of dtypes (a
    tuple of such arrays); zeros after ``reset``. ``_vstep`` reports it as it is: the JAX collector
    (``fiveplay_env.agents.learned.jax.collector``) reads a tuple's last entry as win shares, an array as scores."""

    def __init__(self, config: Any, num_envs: int, seed: int | None, make_env: Callable[[], JaxEnvBase],
                 compiler_options: dict[str, Any] | None) -> None:
        self.config = config
        self.batch_size = B = check_int("num_envs", num_envs, 1)
        self.env = env = make_env()
        self.num_players = env.num_players
        self.num_actions = env.num_actions
        self.observation_size = env.observation_size
        self._arange = np.arange(B)
        self._arange_a = self._arange * self.num_actions
        chance = env.chance

        def vstep(states: Any, index: Any, base: Any, key: Any, actions: Any) -> tuple[Any, ...]:
            key, sub = jax.random.split(key)
            nxt_index = js.add(index, jnp.uint32(B))
            if chance == "reference":
                st, final = jax.vmap(self._game_step_reference)(states, actions, js.derive(base, nxt_index))
            else:
                st, final = jax.vmap(self._game_step_jax)(states, actions, jax.random.split(sub, B))
            ended = st.terminated | st.truncated
            index = jnp.where(ended[:, None], nxt_index, index)
            return st, index, key, self._finals(st, ended, final)

        def vinit(index: Any, base: Any, key: Any) -> tuple[Any, Any]:
            if chance == "reference":
                return jax.vmap(env.init_seeded)(js.derive(base, index)), key
            key, sub = jax.random.split(key)
            return jax.vmap(env.init)(jax.random.split(sub, B)), key

        self._compiler_options = compiler_options
        self._vstep = self._jit(vstep)
        self._vinit = self._jit(vinit)
        self._observe = self._jit(jax.vmap(env.observe))
        self.reset(seed)

    @classmethod
    def from_fields(cls, num_envs: int, seed: int | None = 0, *, chance: str = "reference",
                    observation: str = "float", compiler_options: dict[str, Any] | None = None,
                    **fields: Any) -> Any:
        """``cls(CONFIG(**fields), num_envs, seed, ...)``: what each game's ``make_vec`` returns; unknown config
        keys raise ``ValueError`` naming the key."""
        return cls(from_kwargs(cls.CONFIG, fields), num_envs, seed, chance=chance, observation=observation,
                   compiler_options=compiler_options)

    def _jit(self, f: Callable[..., Any]) -> Callable[..., Any]:
        return jax.jit(f, compiler_options=self._compiler_options)

    # --- the game's hooks -----------------------------------------------------------------------
    def _game_step_reference(self, state: Any, action: Any, new_seed: Any) -> tuple[Any, Any]:
        """One game's step (``chance="reference"``); a game that ends restarts as game ``new_seed`` (a
        pair). Returns the new state and what ``_finals`` reads of the finished game."""
        raise NotImplementedError

    def _game_step_jax(self, state: Any, action: Any, key: Any) -> tuple[Any, Any]:
        """One game's step (``chance="jax"``), its draws and a new game's from ``key``."""
        raise NotImplementedError

    def _finals(self, state: Any, ended: Any, final: Any) -> Any:
        """The finished-game output (as ``FINALS`` says) from the batched step's ``final``; ``ended`` (bool
        [B]): the games that ended. By default ``final`` as it is."""
        return final

    def _game_info(self) -> dict[str, np.ndarray]:
        """The game's entries of ``info()``."""
        raise NotImplementedError

    # --- BatchedGame ----------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> None:
        """``seed``: start the run over (slot i's first game: ``derive(seed, i)``); None: every slot moves on
        to its next game of the run (at construction None draws a fresh base seed)."""
        B, n = self.batch_size, self.num_players
        fresh = seed is not None or not hasattr(self, "base_seed")
        if fresh:
            self.base_seed = seeding.normalize_seed(seed)
            index = js.from_uint64(np.arange(B, dtype=np.uint64))
            self._key = jax.random.key(self.base_seed & 0x7FFFFFFF)
        else:
            index = js.from_uint64(js.to_uint64(self._index) + np.uint64(B))
        self._index = jnp.asarray(index)
        self._base = jnp.asarray(js.from_uint64(self.base_seed))
        self.state, self._key = self._vinit(self._index, self._base, self._key)
        self._fin = self._host_finals(self.FINALS, lambda dtype: np.zeros((B, n), dtype))
        self._pull()
        self.rewards = np.zeros((B, n), np.float32)
        self.terminated = np.zeros(B, bool)
        self.truncated = np.zeros(B, bool)

    @staticmethod
    def _host_finals(spec: Any, f: Callable[[Any], np.ndarray]) -> Any:
        """``f`` of ``spec``, or of each of its entries when it is a tuple (``FINALS``' form)."""
        return tuple(f(x) for x in spec) if isinstance(spec, tuple) else f(spec)

    @property
    def jit_step(self) -> Callable[..., Any]:
        """The jitted batched step ``(state, index, base, key, actions) -> (state, index, key, finals)``, with
        same-step autoreset: what a jitted training loop scans over (``agents.learned.jax.collector``)."""
        return self._vstep

    @property
    def run_carry(self) -> dict[str, Any]:
        """The run's counters the jitted step carries beside the state: ``index`` (each slot's game index),
        ``base`` (the base seed) and ``key`` (the chance key), as JAX arrays."""
        return {"index": self._index, "base": self._base, "key": self._key}

    def _pull(self) -> None:
        self._set_mask(np.asarray(self.state.legal_action_mask).view(np.int8))
        self._cur = np.asarray(self.state.current_player)

    def step(self, actions: np.ndarray) -> np.ndarray:
        """One action per game (int [B]); returns ``rewards`` (float32 [B, n]). Raises ``ValueError`` for a
        bad shape or dtype and ``IllegalActionError`` naming the game with an illegal action (as the numpy
        batched engines: the first out of range, else the first not in the mask); nothing changes then."""
        a = self._check_actions(actions)
        self.state, self._index, self._key, fin = self._vstep(self.state, self._index, self._base, self._key,
                                                               jnp.asarray(a, jnp.int32))
        self.rewards = np.asarray(self.state.rewards)
        self.truncated = np.asarray(self.state.truncated)
        self.terminated = np.asarray(self.state.terminated) | self.truncated
        self._fin = self._host_finals(fin, np.asarray)
        self._pull()
        return self.rewards

    def _host(self, obs: Any, out: np.ndarray | None) -> np.ndarray:
        """``obs`` (a device array [B, observation_size]) on the host: into ``out`` (checked as the numpy
        batched engines check it) or as a writable array."""
        obs = np.asarray(obs)
        if out is None:
            return obs.copy() if not obs.flags.writeable else obs
        out = self._obs_out(out)
        out[...] = obs
        return out

    def observe(self, out: np.ndarray | None = None) -> np.ndarray:
        """float32 [B, observation_size]: each game's acting seat's observation (``observation.observe``);
        ``out``: a C-contiguous float32 array of that shape to write it into."""
        if self.env.observation_kind == "float":
            return self._host(self.state.observation, out)
        return self._host(self._observe(self.state, self.state.current_player), out)

    def info(self) -> dict[str, np.ndarray]:
        """Per-game extras (fresh arrays): ``seed``, ``round`` and the game's (see its class docstring)."""
        return {"seed": self.seeds, "round": self.round, **self._game_info()}

    round = state_field("round", "int32 [B]: rounds completed in each game.")

    @property
    def game_index(self) -> np.ndarray:
        """int64 [B]: slot i holds game ``game_index[i]`` of the run."""
        return js.to_uint64(self._index).astype(np.int64)

    @property
    def seeds(self) -> np.ndarray:
        """uint64 [B]: the seed of each slot's current game (``chance="reference"``: ``engine.new_game(config,
        seed)`` replays it; with ``chance="jax"`` the draws do not follow it)."""
        return seeding.batch_derive(self.base_seed, self.game_index)

    @property
    def jax_state(self) -> Any:
        """The batched ``State`` on the device (a new one after every step)."""
        return self.state

    def to_torch(self, array: Any) -> Any:
        """A torch tensor sharing ``array``'s memory (DLPack; same device, no copy)."""
        import torch

        return torch.utils.dlpack.from_dlpack(array)

    def bytes_per_game(self) -> float:
        """Bytes of game state per game (the ``State`` arrays, the observation and mask included, and the
        slot's game index)."""
        leaves = jax.tree_util.tree_leaves(self.state)
        return (sum(x.nbytes for x in leaves) + self._index.nbytes) / self.batch_size


__all__ = ["CHANCES", "JaxEnvBase", "JaxVecBase", "PgxState", "random_actions", "register_state", "state_field"]
