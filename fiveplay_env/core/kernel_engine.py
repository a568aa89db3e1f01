"""The shell of a compiled batched engine: B games of one game as a struct of arrays stepped by its kernel.

A game supplies a ``Schema`` (``core.schema``: every state array, declared once) and a kernel (numba
functions over one game's row of those arrays, run over the B rows in compiled loops); this class does
what does not depend on the game, once:

- the run's seeding: slot i's k-th game is game ``i + k*B`` of the run, seeded
  ``seeding.derive(base_seed, i + k*B)``; ``reset(seed, seeds)`` starts or continues the run, and the
  kernel moves finished slots on by the same rule (same-step autoreset);
- ``current_player``, ``legal_action_mask`` (a new read-only array after every step), ``seeds``,
  ``game_index``, ``rewards`` and ``terminated`` (fresh arrays after every step);
- the check of a step's actions against the mask (``BatchedActions``, shared with the JAX engines);
- ``get_state`` / ``set_state`` (form and bounds from the schema, then the game's rules:
  ``_check_rules``), ``load_states`` (the schema's ``from_states``), ``gather``, copies and pickling.

``set_state`` trusts nothing it is given, in three stages, and a refused state changes nothing:

| stage    | what is checked                                                                          |
|----------|------------------------------------------------------------------------------------------|
| form     | a dict ``{"base_seed", "config", "arrays"}``; ``base_seed`` in 0..2**64-1; ``config`` equal to this engine's ``config_fingerprint``; exactly the schema's arrays, each of its dtype and shape |
| contents | every value inside its field's declared bounds (the schema), then the game's rules (``_check_rules``: cards conserved, hand sizes, phases, ...), and slot i holding game ``i + k*B`` |
| commit   | the copies replace the arrays and the mask is recomputed; if that fails the engine is put back as it was |

Each refusal is a ``ValueError`` naming the entry (``state['arrays']['cur']: game 3: expected ...,
got ...``). States of the numpy engines that came before the kernels (fields named ``_loc``, ...) are
refused by the form check, with the list of the fields expected.
"""
from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import numba as nb
import numpy as np

from fiveplay_env.core import seeding
from fiveplay_env.core.batched import BatchedActions
from fiveplay_env.core.config import MAX_BATCH_SIZE, check_int, show_value
from fiveplay_env.core.schema import Field, Schema, check_games

GAME_INDEX_MAX = 1 << 62
"""The largest ``game_index`` a state may hold: room for 2**62 more games before int64 would wrap."""


def config_fingerprint(config: Any) -> str:
    """``"<ConfigClass>:<hex>"``: the config's class and a SHA-256 of its fields (as JSON). Two configs
    have the same fingerprint iff they have the same class and field values; ``get_state`` stores it and
    ``set_state`` compares it, so a state is never put into an engine of another config."""
    fields = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
    text = json.dumps([type(config).__name__, fields], sort_keys=True, separators=(",", ":"))
    return f"{type(config).__name__}:{hashlib.sha256(text.encode()).hexdigest()[:32]}"


def run_fields() -> list[Field]:
    """The fields every kernel engine's schema ends with: the run's bookkeeping and the step's outputs."""
    return [
        Field("seed", "uint64", (), None, None, "the seed of the slot's current game",
              of=lambda s, d: np.uint64(s.seed)),
        Field("game_index", "int64", (), 0, GAME_INDEX_MAX, "the slot's current game's index in the run "
              "(slot i holds game i + k*B)"),
        Field("rewards", "float32", ("n",), None, None, "every player's reward for the last step", output=True),
        Field("terminated", "bool", (), 0, 1, "the game ended at the last step (the slot already holds the "
              "next game)", output=True),
    ]


@nb.njit(cache=True)
def _first_illegal(actions: np.ndarray, mask: np.ndarray) -> int:
    """The first game whose action is outside 0..A-1, else the first whose action is not in its mask row (the
    order of ``BatchedActions._check_actions``); -1 if none."""
    A = mask.shape[1]
    for b in range(actions.shape[0]):
        if actions[b] < 0 or actions[b] >= A:
            return b
    for b in range(actions.shape[0]):
        if mask[b, actions[b]] == 0:
            return b
    return -1


class KernelEngine(BatchedActions):
    """B games of one game, stepped by its compiled kernel (see the module docstring).

    A subclass sets ``SCHEMA`` and the game's ``KERNEL`` and ``POSITIONS`` modules (below); its ``__init__``
    sets ``config``, ``num_players``, ``num_actions`` and ``observation_size`` and calls
    ``_init_state(batch_size, seed)``.
    """

    SCHEMA: Schema
    config: Any
    num_players: int
    base_seed: int

    # ------------------------------------------------------------------ the game's parts

    KERNEL: ModuleType
    """The game's ``kernel`` module: ``params(config)`` (the config as the kernel's int64 vector),
    ``start_all(S, P, games)``, ``step_all(S, P, actions, base_seed, mask)``, ``mask_all(S, P, mask)``."""
    POSITIONS: ModuleType
    """The game's ``positions`` module: ``dims(config)``, ``check_rules(arrays, P)`` (every rule a state of
    this config satisfies; ``ValueError`` naming the field and game), ``check_states(states, config)``."""

    def _dims(self) -> dict[str, int]:
        return self.POSITIONS.dims(self.config)

    def _k_start(self, st: dict[str, np.ndarray], g: np.ndarray) -> None:
        """Games ``g`` start (their seeds set)."""
        self.KERNEL.start_all(self._tuple(st), self._P, g)

    def _k_step(self, st: dict[str, np.ndarray], actions: np.ndarray, mask: np.ndarray) -> None:
        """One action per game, autoreset included, the new mask written."""
        self.KERNEL.step_all(self._tuple(st), self._P, actions, np.uint64(self.base_seed), mask)

    def _k_mask(self, st: dict[str, np.ndarray], mask: np.ndarray) -> None:
        self.KERNEL.mask_all(self._tuple(st), self._P, mask)

    def _check_rules(self, arrays: dict[str, np.ndarray]) -> None:
        """Raise ``ValueError`` unless every game of ``arrays`` (checked for form and bounds) satisfies the
        rules' invariants for this config. Must not change ``self``."""
        self.POSITIONS.check_rules(arrays, self._P)

    def _check_positions(self, states: Sequence[Any]) -> None:
        """The game's check of reference states before they are read (their class, not over)."""
        self.POSITIONS.check_states(states, self.config)

    def _tuple(self, st: dict[str, np.ndarray]) -> tuple[np.ndarray, ...]:
        """``st``'s arrays in the schema's order, the form the kernels take (cached while ``st`` is the state)."""
        cached = self.__dict__.get("_S")
        if cached is None or cached[0] is not st:
            cached = self._S = (st, tuple(st[name] for name in self.SCHEMA.names))
        return cached[1]

    def _first_illegal(self, a: np.ndarray) -> int:
        """``BatchedActions._first_illegal``, compiled (20 -> 1 us a step at B=16)."""
        return int(_first_illegal(a, self._mask))

    def _outputs(self) -> None:
        """Fresh public copies of the last step's outputs (a subclass adds its own, e.g. final scores)."""
        st = self._st
        self.rewards = st["rewards"].copy()
        self.terminated = st["terminated"].copy()

    # ------------------------------------------------------------------ construction

    def _init_state(self, batch_size: int, seed: int | None) -> None:
        self.batch_size = B = check_int("batch_size", batch_size, 1, MAX_BATCH_SIZE)
        self._P = self.KERNEL.params(self.config)
        self._dim = self._dims()
        self._st = self.SCHEMA.allocate(B, self._dim)
        self._arange = np.arange(B)
        self._arange_a = self._arange * self.num_actions
        self.reset(seed)

    @property
    def schema(self) -> Schema:
        return self.SCHEMA

    @property
    def STATE(self) -> tuple[str, ...]:  # noqa: N802 - the name the older engines and the tests use
        """The state's array names (the schema's fields)."""
        return self.SCHEMA.names

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
        st = self._st
        self.base_seed = base
        if fresh:
            st["game_index"][:] = self._arange
        else:
            st["game_index"] += B
        if explicit is None:
            st["seed"][:] = seeding.batch_derive(base, st["game_index"])
        else:
            st["seed"][:] = np.array(explicit, dtype=np.uint64)
        for f in self.SCHEMA.fields:
            if f.output:
                st[f.name][...] = 0
        self._k_start(st, self._arange.astype(np.int64))
        self._refresh()

    def step(self, actions: np.ndarray | Sequence[int], active: np.ndarray | None = None) -> np.ndarray:
        """Apply one action per game (``current_player``'s); return ``rewards`` (float32 [B, n]).

        Finished games are replaced at once (same-step autoreset): ``terminated`` and the game's outputs
        describe the finished game, the mask and observations the new one. ``active`` (bool [B], optional):
        only those games move; the others keep their state exactly (their actions are not read, their
        outputs are zero), for callers whose games wait on different things (``vector_gym``). Raises
        ``ValueError`` if ``actions`` (or ``active``) is not an array of shape [B], and
        ``IllegalActionError`` (naming the first game whose action is illegal) if any action is illegal;
        in both cases nothing changes."""
        B = self.batch_size
        waiting = None
        if active is not None:
            act = np.asarray(active)
            if act.shape != (B,) or act.dtype != np.bool_:
                raise ValueError(f"active: expected a bool array of shape ({B},), got {getattr(act, 'dtype', '')} "
                                 f"{act.shape}")
            waiting = np.flatnonzero(~act)
            if waiting.size:
                actions = np.array(actions, copy=True)
                if actions.shape == (B,) and actions.dtype.kind in "iu":
                    actions[waiting] = self._mask[waiting].argmax(axis=1)  # any legal move: undone below
        a = self._check_actions(actions)
        st = self._st
        saved = None
        if waiting is not None and waiting.size:
            saved = {f.name: st[f.name][waiting] for f in self.SCHEMA.fields if not f.output}
        mask = np.empty((B, self.num_actions), np.int8)
        self._k_step(st, a, mask)
        if saved is not None:
            for name, rows in saved.items():
                st[name][waiting] = rows
            for f in self.SCHEMA.fields:
                if f.output:
                    st[f.name][waiting] = 0
            mask[waiting] = self._mask[waiting]
        self._set_mask(mask)
        self._outputs()
        return self.rewards

    def next_games(self, games: np.ndarray | Sequence[int]) -> None:
        """Slots ``games`` move on to their next game of the run at once (game index + B, its derived seed, a
        new deal), as if their games had just ended: a learner eliminated early needs no more of its game."""
        g = np.unique(np.asarray(games, np.int64))
        if g.size and (g[0] < 0 or g[-1] >= self.batch_size):
            raise ValueError(f"games: expected slot numbers in 0..{self.batch_size - 1}")
        st = self._st
        st["game_index"][g] += self.batch_size
        st["seed"][g] = seeding.batch_derive(self.base_seed, st["game_index"][g])
        self._k_start(st, g)
        self._refresh()

    @property
    def current_player(self) -> np.ndarray:
        """int32 [B]: the acting seat of each game."""
        return self._st["cur"].astype(np.int32)

    @property
    def _cur(self) -> np.ndarray:  # BatchedActions' error messages read it
        return self._st["cur"]

    @property
    def seeds(self) -> np.ndarray:
        """uint64 [B]: the seed of each slot's current game (``engine.new_game(config, seed)`` replays it)."""
        return self._st["seed"].copy()

    @property
    def game_index(self) -> np.ndarray:
        """int64 [B]: slot i holds game ``game_index[i]`` of the run (its seed: ``derive(base_seed, .)``)."""
        return self._st["game_index"].copy()

    @property
    def round(self) -> np.ndarray:
        """int32 [B]: rounds completed in each game."""
        return self._st["round"].astype(np.int32)

    def field(self, name: str) -> np.ndarray:
        """A read-only view of the state array ``name`` (a field of ``schema``): what agents read."""
        if name not in self.SCHEMA.names:
            raise ValueError(f"field: expected one of {list(self.SCHEMA.names)}, got {show_value(name)}")
        v = self._st[name].view()
        v.setflags(write=False)
        return v

    def bytes_per_game(self) -> float:
        """Bytes of game state per game: the schema's fields (the last step's outputs excluded) and the
        cached legal mask."""
        return float(self.SCHEMA.bytes_per_game(self._dim) + self.num_actions)

    # ------------------------------------------------------------------ state, copies, pickling

    def get_state(self) -> dict[str, Any]:
        """The complete state of every game as plain data: ``{"base_seed": int, "config": the config's
        fingerprint, "arrays": {field: a copy}}`` for the schema's fields. ``set_state`` puts it back."""
        return {"base_seed": int(self.base_seed), "config": config_fingerprint(self.config),
                "arrays": {name: arr.copy() for name, arr in self._st.items()}}

    def set_state(self, state: dict[str, Any]) -> None:
        """Put ``state`` (from ``get_state`` of an engine of the same game, batch size and config) into this
        engine, after the checks of the module docstring; a refused state raises ``ValueError`` naming the
        entry and changes nothing."""
        keys = {"base_seed", "config", "arrays"}
        if not isinstance(state, dict) or not ({"base_seed", "arrays"} <= set(state) <= keys):
            raise ValueError(f"state: expected a dict with keys {sorted(keys)} (from get_state()), "
                             f"got {sorted(map(str, state)) if isinstance(state, dict) else type(state).__name__}")
        want = config_fingerprint(self.config)
        if "config" in state and state["config"] != want:
            raise ValueError(f"state['config']: expected {want!r}, the fingerprint of this engine's config "
                             f"(a state from an engine of the same game and config), got {show_value(state['config'])}")
        try:
            base = seeding.normalize_seed(state["base_seed"])
        except ValueError as e:
            raise ValueError(f"state['base_seed']: {e}") from None
        arrays = self.SCHEMA.check_form(state["arrays"], self.batch_size, self._dim)
        if "config" not in state:
            raise ValueError(f"state['config']: expected {want!r}, the fingerprint of this engine's config, got "
                             f"none (a state without its config's fingerprint is not loaded)")
        self._check(arrays)
        self._commit(base, arrays)

    def load_states(self, states: Sequence[Any]) -> None:
        """Put one reference state per slot into this engine (``states[i]`` -> slot i, exactly
        ``batch_size`` of them, each a game of this config that is not over): slot i then plays that
        game on from there, its later deals drawn from the state's own ``seed`` and counter, as the
        reference engine would. For search (the worlds of a decision) and analysis.

        Each position is read field by field as the schema declares (``Field.of``) and checked as
        ``set_state`` checks a state; a refused position raises ``ValueError`` naming the slot and the
        field, and nothing changes. Slot i holds game i of the run; the last step's outputs are cleared."""
        if not isinstance(states, Sequence) or isinstance(states, (str, bytes)):
            raise ValueError(f"states: expected a sequence of {self.batch_size} reference states, got "
                             f"{type(states).__name__}")
        if len(states) != self.batch_size:
            raise ValueError(f"states: expected {self.batch_size} states (one per slot), got {len(states)}")
        self._check_positions(states)
        arrays = self.SCHEMA.from_states(list(states), self._dim)
        arrays["game_index"][:] = self._arange
        self._check(arrays)
        self._commit(self.base_seed, arrays)

    def gather(self, source: "KernelEngine", index: np.ndarray | Sequence[int]) -> None:
        """Slot j becomes an exact copy of ``source``'s game ``index[j]`` (``source``: an engine of the same
        class and config, any batch size; ``index``: ``batch_size`` slot numbers of it, repeats allowed):
        the same cards, the same seed, so the same future. Slot j holds game j of the run; the last
        step's outputs are cleared. (A trusted copy of checked games: nothing is checked again.)"""
        if type(source) is not type(self) or source.config != self.config:
            raise ValueError(f"source: expected a {type(self).__name__} of the same config, got "
                             f"{type(source).__name__}")
        idx = np.asarray(index)
        if idx.shape != (self.batch_size,) or idx.dtype.kind not in "iu":
            raise ValueError(f"index: expected {self.batch_size} integer slot numbers, got shape {idx.shape}")
        if idx.size and (idx.min() < 0 or idx.max() >= source.batch_size):
            raise ValueError(f"index: expected slot numbers in 0..{source.batch_size - 1}")
        arrays = self.SCHEMA.gather(source._st, idx.astype(np.int64))
        arrays["game_index"][:] = self._arange
        self._commit(source.base_seed, arrays)

    def _check(self, arrays: dict[str, np.ndarray]) -> None:
        self.SCHEMA.check_bounds(arrays, self._dim)
        gi = arrays["game_index"]
        B = self.batch_size
        check_games(gi % B == self._arange, "game_index", f"slot i + k * {B} (k >= 0, at most 2**62)", gi)
        self._check_rules(arrays)

    def _commit(self, base: int, arrays: dict[str, np.ndarray]) -> None:
        """Install checked arrays and recompute the mask; if that fails, put everything back."""
        old = dict(self.__dict__)
        try:
            self.base_seed = base
            self._st = arrays
            self._refresh()
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(old)
            raise

    def _refresh(self) -> None:
        mask = np.empty((self.batch_size, self.num_actions), np.int8)
        self._k_mask(self._st, mask)
        self._set_mask(mask)
        self._outputs()

    def __copy__(self) -> "KernelEngine":
        """A shallow copy would share the games' arrays with this engine: a copy is always deep."""
        return copy.deepcopy(self)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state.pop("_mask_f", None)
        state.pop("_S", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._mask_f = self._mask.reshape(-1)


__all__ = ["GAME_INDEX_MAX", "KernelEngine", "config_fingerprint", "run_fields"]
