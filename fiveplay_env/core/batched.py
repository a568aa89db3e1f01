"""What every batched engine shares, the compiled ones (``core.kernel_engine.KernelEngine``) and the JAX ones'
host wrapper (``core.jax_vec.JaxVecBase``): the acting seats, the cached legal mask and the check of a step's
actions (``BatchedActions``), and ``bench_batched``: decisions per second under random legal play.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

import numpy as np

from fiveplay_env.core.errors import IllegalActionError
from fiveplay_env.core.sampling import random_actions


class BatchedActions:
    """The acting seats, the cached legal mask and the check of a step's actions: the members shared by
    every batched engine, the compiled ones (``KernelEngine``) and JAX's (``core.jax_vec.JaxVecBase``).

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
        bad = self._first_illegal(a)
        if bad >= 0:
            self._illegal(bad, a)
        return a

    def _first_illegal(self, a: np.ndarray) -> int:
        """The first game whose action (int64 [B]) is outside 0..A-1, else the first whose action is not in
        its mask row; -1 if none."""
        inside = a.view(np.uint64) < self.num_actions  # negative ids wrap to huge unsigned values
        if not inside.all():
            return int(np.flatnonzero(~inside)[0])
        ok = self._mask_f[self._arange_a + a]
        return int(np.flatnonzero(ok == 0)[0]) if not ok.all() else -1

    def _illegal(self, i: int, a: np.ndarray) -> NoReturn:
        """Raise ``IllegalActionError`` for game ``i``'s action ``a[i]`` (its ``game_index`` attribute: i)."""
        err = IllegalActionError(f"player_{int(self._cur[i])} of game {i}", int(a[i]),
                                 np.flatnonzero(self._mask[i]))
        err.game_index = i  # type: ignore[attr-defined]
        raise err


def bench_batched(engine: Any, with_obs: bool, seconds: float,
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
    for _ in range(3):  # the warm-up: a compiled engine's first calls compile or load its kernels
        engine.step(random_actions(engine.legal_action_mask, rng))
        if with_obs:
            observe()
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
