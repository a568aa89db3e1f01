"""The JAX == reference harness: a batch of JAX games next to reference games, compared at every step.

``JaxReplay`` runs B games of a game's JAX engine (``chance="reference"``: slot i's game is the
reference's ``new_game(config, derive(base, i))``, its deal computed in JAX from the same seed) next to
B reference games, feeds both the same random legal actions (drawn from the reference mask, which must
equal the JAX mask) and compares at every step: the acting player, the mask, the acting player's
observation, rewards, termination and the game's own fields (``compare``); every ``all_players_every``
steps also every player's observation (``observe`` of each seat). A finished reference game is replaced
by the next game of the slot, and the JAX slot is restarted with ``init_seeded`` of its seed (the jitted
functions are shared through ``jitted``: one compile per config for the whole test session; the number of
traces is counted, so a test can assert that nothing retraced).
"""
from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

jax = __import__("jax")
jnp = jax.numpy

from fiveplay_env.core import jax_seeding as js  # noqa: E402
from fiveplay_env.core import seeding  # noqa: E402

_CACHE: dict[Any, dict[str, Any]] = {}
# The tests run few steps of many configs: compile time dominates, and LLVM's optimisations halve it
COMPILE_FAST = {"xla_backend_optimization_level": 0, "xla_llvm_disable_expensive_passes": True}
TRACES: dict[Any, dict[str, int]] = {}


def jitted(env: Any) -> dict[str, Any]:
    """The jitted batched functions of ``env`` (cached by env; each counts its traces in ``TRACES[env]``)."""
    if env in _CACHE:
        return _CACHE[env]
    counts = TRACES.setdefault(env, {})

    def counted(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def f(*args: Any) -> Any:
            counts[name] = counts.get(name, 0) + 1
            return fn(*args)
        return jax.jit(f, compiler_options=COMPILE_FAST)

    fns = {
        "init": counted("init", jax.vmap(env.init_seeded)),
        "step": counted("step", jax.vmap(env.step)),
        "observe_all": counted("observe_all", jax.vmap(lambda s: jax.vmap(lambda p: env.observe(s, p))(
            jnp.arange(env.num_players)))),
    }
    if hasattr(env, "observe_compact") and not env.config.draft:
        fns["compact"] = counted("compact", jax.vmap(env.observe_compact))
    _CACHE[env] = fns
    return fns


class JaxReplay:
    """B JAX games and their reference twins (see the module docstring). A game's subclass sets
    ``engine`` (the reference module), ``observe`` (the reference encoder) and ``OVER``, and may override
    ``compare`` (the game's own fields, read from the batched JAX state) and ``check_extra`` (more
    observations, e.g. the compact one)."""

    engine: ModuleType
    observe: Callable[..., np.ndarray]
    OVER: int

    def __init__(self, env: Any, batch: int, base: int, all_players_every: int = 7) -> None:
        self.env, self.cfg, self.base, self.batch = env, env.config, base, batch
        self.fns = jitted(env)
        self.index = list(range(batch))  # the game index of each slot (game k of slot i: i + k * batch)
        self.refs = [self.engine.new_game(self.cfg, seeding.derive(base, i)) for i in range(batch)]
        self.state = self.fns["init"](jnp.asarray(js.from_uint64(np.array([r.seed for r in self.refs], np.uint64))))
        self.steps = [0] * batch
        self.games = 0
        self.every = all_players_every
        self.t = 0

    def where(self, i: int) -> str:
        return f"{self.cfg} seed {self.refs[i].seed} (slot {i}), step {self.steps[i]}"

    def fail(self, i: int, field: str, got: object, expected: object) -> None:
        raise AssertionError(f"{self.where(i)}: {field} {got} != reference {expected}")

    def compare(self, i: int, s: Any, st: Any) -> None:
        """The game's own fields of slot i (``st``: the JAX state as numpy arrays)."""

    def check_extra(self, st: Any) -> None:
        """More comparisons of the whole batch (``st``: the JAX state as numpy arrays)."""

    def check(self) -> None:
        st = jax.tree_util.tree_map(np.asarray, self.state)
        all_obs = np.asarray(self.fns["observe_all"](self.state)) if self.t % self.every == 0 else None
        for i, s in enumerate(self.refs):
            if st.current_player[i] != s.current:
                self.fail(i, "current_player", st.current_player[i], s.current)
            ref_mask = self.engine.legal_mask(s).astype(bool)
            if not np.array_equal(st.legal_action_mask[i], ref_mask):
                raise AssertionError(f"{self.where(i)}: legal_action_mask differs at ids "
                                     f"{np.flatnonzero(st.legal_action_mask[i] != ref_mask).tolist()}")
            self._same_obs(i, "observation", st.observation[i], self.observe(self.cfg, s, s.current))
            if all_obs is not None:
                for p in range(self.cfg.num_players):
                    self._same_obs(i, f"observation of player {p}", all_obs[i, p], self.observe(self.cfg, s, p))
            self.compare(i, s, st)
        self.check_extra(st)

    def _same_obs(self, i: int, what: str, got: np.ndarray, ref: np.ndarray) -> None:
        if got.shape != ref.shape or not np.array_equal(got.view(np.uint32), ref.astype(np.float32).view(np.uint32)):
            bad = np.flatnonzero(got != ref) if got.shape == ref.shape else []
            raise AssertionError(f"{self.where(i)}: {what} differs at offsets {list(bad)[:12]}: "
                                 f"jax {got[bad][:12] if len(bad) else got.shape}, reference "
                                 f"{ref[bad][:12] if len(bad) else ref.shape}")

    def step(self, rng: np.random.Generator) -> None:
        actions = np.array([rng.choice(np.flatnonzero(self.engine.legal_mask(s))) for s in self.refs], np.int32)
        self.state = self.fns["step"](self.state, jnp.asarray(actions))
        rewards, term = np.asarray(self.state.rewards), np.asarray(self.state.terminated)
        term = term | np.asarray(self.state.truncated)  # a game ended by a step limit is over too
        ended = []
        for i, s in enumerate(self.refs):
            ref_rewards = self.engine.step(self.cfg, s, int(actions[i]))
            if rewards[i].tolist() != [float(r) for r in ref_rewards]:
                self.fail(i, "rewards", rewards[i].tolist(), ref_rewards)
            over = s.phase == self.OVER
            if bool(term[i]) != over:
                self.fail(i, "terminated or truncated", bool(term[i]), over)
            self.steps[i] += 1
            if over:
                self.compare_outcome(i, s)
                ended.append(i)
        if ended:
            self.games += len(ended)
            for i in ended:
                self.index[i] += self.batch
                self.refs[i] = self.engine.new_game(self.cfg, seeding.derive(self.base, self.index[i]))
                self.steps[i] = 0
            seeds = js.from_uint64(np.array([r.seed for r in self.refs], np.uint64))
            fresh = self.fns["init"](jnp.asarray(seeds))
            keep = jnp.asarray(np.isin(np.arange(self.batch), ended))
            self.state = jax.tree_util.tree_map(
                lambda a, b: jnp.where(keep.reshape((-1,) + (1,) * (a.ndim - 1)), a, b), fresh, self.state)
        self.t += 1

    def compare_outcome(self, i: int, s: Any) -> None:
        """Slot i's game just ended (the JAX state still holds it: ``step`` does not autoreset)."""

    def run(self, games: int, rng_seed: int, max_steps: int = 100_000) -> None:
        """Until ``games`` games have finished."""
        rng = np.random.default_rng(rng_seed)
        for _ in range(max_steps):
            self.check()
            if self.games >= games:
                return
            self.step(rng)
        raise AssertionError("the games did not finish")
