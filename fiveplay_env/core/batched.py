"""The shell every batched engine shares: run seeding, the acting seats and masks, action checks, a benchmark.

A batched engine (``fiveplay_env.take5.batched``, ``fiveplay_env.five_alive.batched``) plays B games
of one game on numpy arrays. What does not depend on the game lives here, once:

- the run's seeding: slot i's k-th game is game ``i + k*B`` of the run, seeded
  ``seeding.derive(base_seed, i + k*B)``; ``reset(seed, seeds)`` starts or continues the run, and
  ``_next_games`` moves finished slots on (same-step autoreset);
- ``current_player``, ``legal_action_mask``, ``seeds`` and ``game_index``;
- the validation of a step's actions against the cached mask (``_check_actions``, ``_illegal``) and of
  ``observe``'s ``out`` (``_obs_out``): ``BatchedActions``, which the JAX engines' host wrapper
  (``core.jax_vec.JaxVecBase``) shares;
- ``bench_batched``: decisions per second under random legal play.

A subclass builds its state in ``__init__`` (the attributes listed below, then ``self.reset(seed)``)
and supplies the game: ``_new_games`` (start games whose seeds are set), ``_clear_results`` (its
finished-game outputs), ``_update_mask``, ``step`` and ``observe``; ``STATE`` names the arrays that
hold its games (and the last step's outputs), ``_bind_views`` rebuilds the views it keeps of them.

State, copies and pickling: ``get_state()`` returns the complete state of every game as a plain dict
(``base_seed``, the config's fingerprint and copies of the ``STATE`` arrays); ``set_state(state)`` puts
such a dict into an engine of the same game, batch size and config, so both engines then play exactly
the same games; checkpoints use them (``fiveplay_env.agents.learned.envs.engine_snapshot``). ``copy.deepcopy``,
``copy.copy`` and ``pickle`` give an independent engine that plays exactly the same games (the views are
rebuilt, never copied apart from the arrays they view).

``set_state`` trusts nothing it is given, in three stages, and a refused state changes nothing:

| stage    | what is checked                                                                          |
|----------|------------------------------------------------------------------------------------------|
| form     | a dict ``{"base_seed", "config", "arrays"}``; ``base_seed`` in 0..2**64-1; ``config`` equal to this engine's ``config_fingerprint`` (a state of another config with the same shapes is refused); exactly the ``STATE`` arrays, each of this engine's shape and dtype |
| contents | the game's ``_check_state``: every value in range and every game consistent with the config (cards conserved, hand sizes, rows, lives, phases, counters; see each engine's docstring), and ``_game_index`` (slot i holds game ``i + k*B``) |
| commit   | the copies replace the arrays, the views and the mask are rebuilt; if anything fails there the engine's attributes are put back as they were |

Each refusal is a ``ValueError`` naming the entry (``state['arrays']['_cur']: game 3: expected ...,
got ...``). A state without ``config`` (written before the fingerprint existed) is accepted when its
contents pass, and arrays named in ``STATE_ADDED`` that it lacks start at zero.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

import numpy as np

from fiveplay_env.core import seeding
from fiveplay_env.core.config import show_value
from fiveplay_env.core.errors import IllegalActionError
from fiveplay_env.core.sampling import random_actions

GAME_INDEX_MAX = 1 << 62
"""The largest ``game_index`` a state may hold: room for 2**62 more games before int64 would wrap."""
_ARRAYS = "state['arrays']"


def config_fingerprint(config: Any) -> str:
    """``"<ConfigClass>:<hex>"``: the config's class and a SHA-256 of its fields (as JSON). Two configs
    have the same fingerprint iff they have the same class and field values; ``get_state`` stores it and
    ``set_state`` compares it, so a state is never put into an engine of another config."""
    fields = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
    text = json.dumps([type(config).__name__, fields], sort_keys=True, separators=(",", ":"))
    return f"{type(config).__name__}:{hashlib.sha256(text.encode()).hexdigest()[:32]}"


def check_games(ok: np.ndarray, name: str, expected: str, got: Any) -> None:
    """Raise ``ValueError`` for the first game ``i`` where ``ok[i]`` (bool [B]) is False:
    ``state['arrays'][name]: game i: expected <expected>, got <got[i]>``. ``got``: an array (or a
    sequence) indexed by game, or a callable of the game index."""
    if ok.all():
        return
    i = int(np.flatnonzero(~ok)[0])
    value = got(i) if callable(got) else got[i]
    if isinstance(value, np.ndarray):
        value = value.tolist()
    elif isinstance(value, np.generic):
        value = value.item()
    raise ValueError(f"{_ARRAYS}[{name!r}]: game {i}: expected {expected}, got {show_value(value)}")


class BatchedActions:
    """The acting seats, the cached legal mask and the check of a step's actions: the members shared by
    every batched engine, numpy's (``BatchedGameBase``) and JAX's (``core.jax_vec.JaxVecBase``).

    The engine sets ``batch_size``, ``num_actions``, ``observation_size``, ``_arange_a`` and ``_cur``, and
    caches its mask with ``_set_mask`` after every step.
    """

    batch_size: int
    num_actions: int
    observation_size: int
    _arange_a: np.ndarray    # int64 [B]: b * num_actions, game b's first entry in the flat mask
    _cur: np.ndarray         # int [B]: the acting seat
    _mask: np.ndarray        # int8 [B, num_actions], read-only: the cached legal mask
    _mask_f: np.ndarray      # the same, flat

    @property
    def current_player(self) -> np.ndarray:
        """int32 [B]: the acting seat of each game."""
        return self._cur.astype(np.int32)

    @property
    def legal_action_mask(self) -> np.ndarray:
        """int8 [B, num_actions], read-only, a new array after every step: the acting seat's legal actions."""
        return self._mask

    def _set_mask(self, m: np.ndarray) -> None:
        """Cache ``m`` (int8 [B, num_actions], a new array) as the legal mask: read-only, and flat."""
        m.setflags(write=False)
        self._mask = m
        self._mask_f = m.reshape(-1)

    def _obs_out(self, out: np.ndarray | None) -> np.ndarray:
        """The array ``observe`` writes into: ``out`` after checking it (C-contiguous float32
        [B, observation_size]), or a new one."""
        B, size = self.batch_size, self.observation_size
        if out is None:
            return np.empty((B, size), np.float32)
        if not isinstance(out, np.ndarray) or out.dtype != np.float32 or out.shape != (B, size) \
                or not out.flags.c_contiguous:
            raise ValueError(f"out: expected a C-contiguous float32 array of shape ({B}, {size}), got "
                             f"{getattr(out, 'dtype', type(out).__name__)} {getattr(out, 'shape', '')}")
        return out

    def _check_actions(self, actions: np.ndarray | Sequence[int]) -> np.ndarray:
        """``actions`` as a private int64 [B] copy, after checking the shape, the dtype and each action
        against the cached mask; raises ``ValueError`` or ``IllegalActionError`` (via ``_illegal``)."""
        B = self.batch_size
        a = np.asarray(actions)
        if a.shape != (B,):
            raise ValueError(f"actions: expected an integer array of shape ({B},), got shape {a.shape}")
        if a.dtype.kind not in "iu":
            raise ValueError(f"actions: expected an integer dtype, got {a.dtype}")
        a = a.astype(np.int64)  # a private copy: the caller's array may change after the call
        inside = a.view(np.uint64) < self.num_actions  # negative ids wrap to huge unsigned values
        if not inside.all():
            self._illegal(int(np.flatnonzero(~inside)[0]), a)
        ok = self._mask_f[self._arange_a + a]
        if not ok.all():
            self._illegal(int(np.flatnonzero(ok == 0)[0]), a)
        return a

    def _illegal(self, i: int, a: np.ndarray) -> NoReturn:
        """Raise ``IllegalActionError`` for game ``i``'s action ``a[i]`` (its ``game_index`` attribute: i)."""
        err = IllegalActionError(f"player_{int(self._cur[i])} of game {i}", int(a[i]),
                                 np.flatnonzero(self._mask[i]))
        err.game_index = i  # type: ignore[attr-defined]
        raise err


class BatchedGameBase(BatchedActions, ABC):
    """B games of one game stepped together: the members every batched engine shares.

    The subclass's ``__init__`` sets the attributes annotated here (``base_seed`` excepted, which
    ``reset`` sets) before it calls ``reset``.
    """

    config: Any
    batch_size: int
    num_players: int
    num_actions: int
    observation_size: int
    base_seed: int
    rewards: np.ndarray      # float32 [B, n]: every player's reward for the last step
    terminated: np.ndarray   # bool [B]: the games that ended at the last step (already replaced)
    _arange: np.ndarray      # int64 [B]: 0..B-1, the slots
    _seeds: np.ndarray       # uint64 [B]: the seed of each slot's current game
    _game_index: np.ndarray  # int64 [B]: each slot's current game's index in the run
    _round: np.ndarray       # int [B]: rounds completed in each game

    STATE: tuple[str, ...] = ()
    """The attributes (numpy arrays) that hold the games' state and the last step's outputs; together
    with ``base_seed`` they are the whole state: everything else is the config, constant tables and
    views of these arrays (``_bind_views``). The legal mask is recomputed from them."""
    STATE_ADDED: tuple[str, ...] = ()
    """``STATE`` arrays added after states without a config fingerprint were written: such an older state
    may lack them, and they then start at zero."""

    # ------------------------------------------------------------------ the game's parts

    def _bind_views(self) -> None:
        """(Re)create the attributes that are views of the ``STATE`` arrays (flat aliases, the cached
        mask's flat view): after ``__init__`` built the arrays, after unpickling or ``set_state``."""
        self._mask_f = self._mask.reshape(-1)

    @abstractmethod
    def _new_games(self, g: np.ndarray) -> None:
        """Games ``g`` start from scratch; their seeds are set (``_seeds[g]``)."""

    @abstractmethod
    def _clear_results(self) -> None:
        """New all-zero arrays for the game's finished-game outputs (``final_scores``, ...)."""

    @abstractmethod
    def _update_mask(self) -> None:
        """Compute ``_mask`` (a new read-only array) and its flat view ``_mask_f`` for the acting seats."""

    def _check_state(self, arrays: dict[str, np.ndarray]) -> None:
        """Raise ``ValueError`` (``check_games``) unless ``arrays`` (private copies of every ``STATE`` array,
        of the right shapes and dtypes) hold games that satisfy every invariant of this engine's config.
        Must not change ``self``. Every game overrides it (this base checks nothing of its own)."""

    @abstractmethod
    def step(self, actions: np.ndarray | Sequence[int]) -> np.ndarray:
        """Apply one action per game; return ``rewards``."""

    @abstractmethod
    def observe(self, out: np.ndarray | None = None) -> np.ndarray:
        """float32 [B, observation_size]: each game's acting seat's observation."""

    # ------------------------------------------------------------------ public API

    def reset(self, seed: int | None = None, seeds: Sequence[int] | np.ndarray | None = None) -> None:
        """Start B new games.

        ``seed`` (an int in 0..2**64-1): start the run over with this base seed; slot i's k-th game is
        game ``i + k*B`` of the run, seeded ``derive(seed, i + k*B)``. ``seed=None``: keep the run going,
        every slot moves on to its next game (as if all had just finished), so nothing repeats; at
        construction ``seed=None`` draws a fresh base seed from OS entropy. ``seeds``: optional
        explicit seeds (one per slot) for the games started now; later games still derive from the
        base seed. Bad values raise ``ValueError`` before anything changes.
        """
        B = self.batch_size
        fresh = seed is not None or not hasattr(self, "base_seed")
        base = seeding.normalize_seed(seed) if fresh else self.base_seed
        explicit = None
        if seeds is not None:
            explicit = [seeding.normalize_seed(s) for s in seeds]
            if len(explicit) != B:
                raise ValueError(f"seeds: expected {B} seeds (one per game), got {len(explicit)}")
        self.base_seed = base
        if fresh:
            self._game_index[:] = self._arange
        else:
            self._game_index += B
        if explicit is None:
            self._seeds[:] = seeding.batch_derive(base, self._game_index)
        else:
            self._seeds[:] = np.array(explicit, dtype=np.uint64)
        self._new_games(self._arange)
        self.rewards = np.zeros((B, self.num_players), np.float32)
        self.terminated = np.zeros(B, bool)
        self._clear_results()
        self._update_mask()

    # ------------------------------------------------------------------ state, copies, pickling

    def get_state(self) -> dict[str, Any]:
        """The complete state of every game as plain data: ``{"base_seed": int, "config": the config's
        fingerprint (``config_fingerprint``), "arrays": {name: a copy of the array}}`` for the names in
        ``STATE``. ``set_state`` puts it back."""
        return {"base_seed": int(self.base_seed), "config": config_fingerprint(self.config),
                "arrays": {name: np.array(getattr(self, name), copy=True) for name in self.STATE}}

    def set_state(self, state: dict[str, Any]) -> None:
        """Put ``state`` (from ``get_state`` of an engine of the same game, batch size and config) into
        this engine. Its form, its config fingerprint and its contents are checked first (see the module
        docstring); a refused state raises ``ValueError`` naming the entry and changes nothing."""
        keys = {"base_seed", "config", "arrays"}
        if not isinstance(state, dict) or not ({"base_seed", "arrays"} <= set(state) <= keys):
            raise ValueError(f"state: expected a dict with keys {sorted(keys)} (from get_state()), "
                             f"got {sorted(map(str, state)) if isinstance(state, dict) else type(state).__name__}")
        legacy = "config" not in state
        if not legacy:
            want = config_fingerprint(self.config)
            if state["config"] != want:
                raise ValueError(f"state['config']: expected {want!r}, the fingerprint of this engine's config "
                                 f"(a state from an engine of the same game and config), got {show_value(state['config'])}")
        try:
            base = seeding.normalize_seed(state["base_seed"])
        except ValueError as e:
            raise ValueError(f"state['base_seed']: {e}") from None
        arrays = state["arrays"]
        need = set(self.STATE) - (set(self.STATE_ADDED) if legacy else set())
        if not isinstance(arrays, dict) or not (need <= set(arrays) <= set(self.STATE)):
            got = sorted(map(str, arrays)) if isinstance(arrays, dict) else type(arrays).__name__
            raise ValueError(f"{_ARRAYS}: expected the arrays {sorted(self.STATE)}, got {got}")
        new = {}
        for name in self.STATE:
            cur = getattr(self, name)
            if name not in arrays:  # an older state (no fingerprint) without an array added since
                new[name] = np.zeros_like(cur)
                continue
            val = arrays[name]
            if not isinstance(val, np.ndarray) or val.shape != cur.shape or val.dtype != cur.dtype:
                got = f"{val.dtype} {val.shape}" if isinstance(val, np.ndarray) else type(val).__name__
                raise ValueError(f"{_ARRAYS}[{name!r}]: expected a {cur.dtype} array of shape {cur.shape} "
                                 f"(an engine of this game, batch size and config), got {got}")
            new[name] = np.array(val, dtype=cur.dtype, order="C", copy=True)  # private: the caller's may change
        self._check_common(new)
        self._check_state(new)
        self._commit(base, new)

    # ------------------------------------------------------------------ positions: load and gather

    def load_states(self, states: Sequence[Any]) -> None:
        """Put one reference state per slot into this engine (``states[i]`` -> slot i, exactly
        ``batch_size`` of them, each a game of this config that is not over): slot i then plays that
        game on from there, its later deals and reshuffles drawn from the state's own ``seed`` and
        counter, as the reference engine would. For search (the worlds of a decision) and analysis.

        The positions are checked as ``set_state`` checks a state (the form of every field, then the
        game's invariants for every slot); a refused position raises ``ValueError`` naming the slot and
        the field, and nothing changes. Slot i holds game i of the run (``game_index``); the last
        step's outputs are cleared."""
        if not isinstance(states, Sequence) or isinstance(states, (str, bytes)):
            raise ValueError(f"states: expected a sequence of {self.batch_size} reference states, got "
                             f"{type(states).__name__}")
        if len(states) != self.batch_size:
            raise ValueError(f"states: expected {self.batch_size} states (one per slot), got {len(states)}")
        arrays = self._arrays_of_states(list(states))
        arrays["_game_index"] = self._arange.astype(np.int64).copy()
        self._check_common(arrays)
        self._check_state(arrays)
        self._commit(self.base_seed, arrays)

    def _arrays_of_states(self, states: list[Any]) -> dict[str, np.ndarray]:
        """Every ``STATE`` array (this engine's shapes and dtypes) for ``states``, one per slot;
        ``ValueError`` naming ``states[i].field`` for a value of the wrong form. The game's part of
        ``load_states`` (its invariants are then checked by ``_check_state``)."""
        raise ValueError(f"load_states: not available for {type(self).__name__}")

    def gather(self, source: "BatchedGameBase", index: np.ndarray | Sequence[int]) -> None:
        """Slot j becomes an exact copy of ``source``'s game ``index[j]`` (``source``: an engine of the same
        class and config, any batch size; ``index``: ``batch_size`` slot numbers of it, repeats
        allowed): the same cards, the same seed, so the same future. Slot j holds game j of the run;
        the last step's outputs are cleared. The search copies each loaded world once per candidate
        action this way (a trusted copy of checked games: nothing is checked again)."""
        if type(source) is not type(self) or source.config != self.config:
            raise ValueError(f"source: expected a {type(self).__name__} of the same config, got "
                             f"{type(source).__name__}")
        idx = np.asarray(index)
        if idx.shape != (self.batch_size,) or idx.dtype.kind not in "iu":
            raise ValueError(f"index: expected {self.batch_size} integer slot numbers, got shape {idx.shape}")
        if idx.size and (idx.min() < 0 or idx.max() >= source.batch_size):
            raise ValueError(f"index: expected slot numbers in 0..{source.batch_size - 1}")
        arrays = self._gather_arrays(source, idx.astype(np.int64))
        arrays["_game_index"] = self._arange.astype(np.int64).copy()
        self._commit(source.base_seed, arrays)
        self._clear_results()

    def _gather_arrays(self, source: "BatchedGameBase", idx: np.ndarray) -> dict[str, np.ndarray]:
        """``gather``'s arrays: each ``STATE`` array of ``source`` taken at ``idx`` along its batch axis
        (the leading one here; a game whose arrays are laid out otherwise overrides this). The outputs
        of the last step (``rewards``, ``terminated``) start cleared."""
        out = {name: np.ascontiguousarray(getattr(source, name)[idx]) for name in self.STATE}
        out["rewards"] = np.zeros_like(out["rewards"])
        out["terminated"] = np.zeros_like(out["terminated"])
        return out

    def _check_common(self, arrays: dict[str, np.ndarray]) -> None:
        """The checks every game shares: slot i holds game ``i + k*B`` of the run (k >= 0), and the
        last step's rewards are finite."""
        B = self.batch_size
        gi = arrays["_game_index"]
        check_games((gi >= 0) & (gi % B == self._arange) & (gi <= GAME_INDEX_MAX), "_game_index",
                    f"slot i + k * {B} (k >= 0, at most 2**62)", gi)
        check_games(np.isfinite(arrays["rewards"]).all(axis=1), "rewards", "finite rewards", arrays["rewards"])

    def _commit(self, base: int, arrays: dict[str, np.ndarray]) -> None:
        """Install checked arrays: the views and the mask follow; if anything fails, every attribute is put
        back as it was (the new arrays are private copies, so the old ones were never touched)."""
        old = dict(self.__dict__)
        try:
            self.base_seed = base
            for name, val in arrays.items():
                setattr(self, name, val)
            self._bind_views()
            self._update_mask()
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(old)
            raise

    def __getstate__(self) -> dict[str, Any]:
        # the views are left out: pickled or deep-copied apart from their arrays they would stop being views
        state = self.__dict__.copy()
        for name in self._view_names():
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._bind_views()

    def __copy__(self) -> "BatchedGameBase":
        """A shallow copy would share the games' arrays with this engine: a copy is always deep."""
        import copy

        return copy.deepcopy(self)

    def _view_names(self) -> list[str]:
        """The attributes ``_bind_views`` sets (found by running it on a throwaway namespace)."""
        probe = _ViewProbe(self)
        type(self)._bind_views(probe)  # type: ignore[arg-type]
        return sorted(probe.assigned)

    @property
    def round(self) -> np.ndarray:
        """int32 [B]: rounds completed in each game."""
        return self._round.astype(np.int32)

    @property
    def seeds(self) -> np.ndarray:
        """uint64 [B]: the seed of each slot's current game (``engine.new_game(config, seed)`` replays it)."""
        return self._seeds.copy()

    @property
    def game_index(self) -> np.ndarray:
        """int64 [B]: slot i holds game ``game_index[i]`` of the run (its seed: ``derive(base_seed, .)``)."""
        return self._game_index.copy()

    # ------------------------------------------------------------------ shared steps

    def _next_games(self, g: np.ndarray) -> None:
        """Slots ``g`` (their games just ended) move on to their next game of the run: index + B and its
        derived seed. The caller then starts the games."""
        self._game_index[g] += self.batch_size
        self._seeds[g] = seeding.batch_derive(self.base_seed, self._game_index[g])


def bench_batched(engine: BatchedGameBase, with_obs: bool, seconds: float,
                  observe: Callable[[], Any] | None = None) -> float:
    """Decisions per second of ``engine`` (a fresh one: it is stepped): random legal play, the actions
    drawn from the mask with ``core.sampling.random_actions`` inside the timed loop; ``with_obs`` also encodes
    every step's observations (into one reused buffer; ``observe``: another encoding, called once a step
    instead, e.g. a compact one into the caller's buffer). Runs for about ``seconds`` after a short
    warm-up; one decision = one game's action in one step."""
    batch_size = engine.batch_size
    rng = np.random.default_rng(0)
    if with_obs and observe is None:
        buf = np.empty((batch_size, engine.observation_size), np.float32)

        def observe() -> Any:
            return engine.observe(out=buf)
    for _ in range(3):
        engine.step(random_actions(engine.legal_action_mask, rng))
    steps = 0
    t0 = time.perf_counter()
    deadline = t0 + seconds
    now = t0
    while now < deadline:
        for _ in range(8):  # several steps per clock read
            engine.step(random_actions(engine.legal_action_mask, rng))
            if with_obs:
                observe()
        steps += 8
        now = time.perf_counter()
    return steps * batch_size / (now - t0)


class _ViewProbe:
    """Stands in for an engine while ``_bind_views`` runs, to learn which attributes it sets."""

    def __init__(self, engine: Any) -> None:
        object.__setattr__(self, "_engine", engine)
        object.__setattr__(self, "assigned", set())

    def __getattr__(self, name: str) -> Any:
        return getattr(object.__getattribute__(self, "_engine"), name)

    def __setattr__(self, name: str, value: Any) -> None:
        object.__getattribute__(self, "assigned").add(name)
