"""The JAX collector: the contract of ``fiveplay_env.agents.learned.collector.Collector`` with every step compiled.

    collector = JaxCollector(cfg, rng, make_agent, timers)   # cfg.backend == "jax"
    rollout = collector.collect(policy)                      # a collector.Rollout (numpy views, no copy)

One rollout is one call of a jitted function: a ``lax.scan`` over ``rollout_steps`` steps of the
``num_envs`` games of the game's JAX engine (``fiveplay_env.<game>.jax_engine``, ``chance="reference"``:
the very games of the numpy batched engine for the same seed) in which, at every step,

| who acts                  | how (all inside the scan)                                                     |
|---------------------------|-------------------------------------------------------------------------------|
| the learner's seats       | the learner network's JAX forward (``fiveplay_env.agents.learned.jax.nets``), a Gumbel-max  |
|                           | sample, its log-probability and value                                         |
| a ``pool`` game's others  | the game's snapshot: rows grouped by snapshot, each group's network run on     |
|                           | chunks of its rows (a loop whose trip count is the chunks needed that step)   |
| an agent kind's others    | the JAX heuristic (``fiveplay_env.agents.learned.jax.heuristics``), skipped at a step where  |
|                           | no game needs it                                                              |

and the rewards are attributed as the numpy collector attributes them: each learner seat's reward, scaled,
goes to its latest decision; a game's end marks the learner seats' last decisions done and adds the win
option ``win_reward * (win share - 1/n)``; a trajectory's unfinished last decision is held back and
carried into the next rollout. New games draw their opponent kind, learner seat and snapshot from the
collector's JAX key (the numpy collector draws them from the run's numpy generator: the same distribution,
another stream). The returns (``fiveplay_env.agents.learned.returns.gae``), the update and the pool's bookkeeping are
the numpy collector's and the torch trainer's, unchanged: this class only replaces how a ``Rollout`` is
made. ``tests/learning/test_jax_train.py`` holds the rollouts equal to the numpy collector's for the same
games, seats and actions.

Opponents: ``self``, ``pool`` and the agents of ``heuristics.JAX_AGENTS``; anything else, a compact
observation or a game without a JAX engine is a ``ValueError`` naming it. The engine is the game table's
(``fiveplay_env.games``, ``GameDef.jax_engine``: ``engine_factory``), used through the interface both JAX
engines share (``make_vec(num_envs, seed, chance="reference", **config)``, its ``state``, ``_index``,
``_base``, ``_key`` and the jitted ``_vstep(state, index, base, key, actions) -> (state, index, key,
final)``), so a game whose JAX engine lands with that interface trains on this path unchanged.
"""
from __future__ import annotations

import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from fiveplay_env.agents.learned.collector import Rollout, SnapshotPool, Timers
from fiveplay_env.agents.learned.config import SPECIAL_KINDS, TrainConfig
from fiveplay_env.agents.learned.jax import heuristics as heur
from fiveplay_env.agents.learned.jax import nets as jnets
from fiveplay_env.core import seeding

POOL_CHUNK = 32
"""Rows per snapshot forward pass when the pool's games act."""
COMPILER_OPTIONS: dict[str, Any] | None = None
"""XLA options of the collector's compiled functions (``jax.jit``'s ``compiler_options``; tests lower the
optimisation level: compiling dominates their short runs)."""
_JITTED: dict[tuple[Any, ...], Any] = {}
"""The compiled rollout and draw functions by what they depend on (``JaxCollector._static``): collectors of
the same settings (a resumed run, the tests) share one compile."""
_CALLED: set[Any] = set()
"""The compiled rollouts called at least once in this process (a first call's time is its compile)."""


def engine_factory(game: str) -> Any:
    """The ``make_vec`` of ``game``'s JAX engine, read from the game table (``fiveplay_env.games``: the
    ``GameDef.jax_engine`` module); a ``ValueError`` naming the games that have one when ``game`` has none
    (its ``jax_engine`` is None, or the module it names is not there yet)."""
    import importlib.util

    from fiveplay_env import games, vector

    def present(module: str | None) -> bool:
        try:
            return module is not None and importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:
            return False

    module = games.get(game).jax_engine  # an unknown game: the table's ValueError
    if not present(module):
        have = [g for g in games.names() if present(games.get(g).jax_engine)]
        why = "its GameDef.jax_engine is None" if module is None else f"its JAX engine module {module} is not installed"
        raise ValueError(f"backend 'jax': expected a game with a JAX engine {have}, got {game!r} ({why}); "
                         "train it with backend 'auto'")
    return vector._factory(game, "jax")


def _outcome(final: Any, n: int, lower_is_better: bool) -> Any:
    """float32 [B, n]: the win share of each seat of the games that ended, as ``fiveplay_env.agents.learned.envs.outcome``
    reads it (``final``: the engine's ``_vstep`` report: a tuple whose last entry is the engine's win shares
    (5 Alive: ``(lives, result, share)``), or the final scores (Take 5): the best score wins, ties share)."""
    if isinstance(final, tuple):
        return final[-1].astype(jnp.float32)
    fs = final.astype(jnp.int32)
    best = fs.min(axis=1, keepdims=True) if lower_is_better else fs.max(axis=1, keepdims=True)
    win = (fs == best).astype(jnp.float32)
    return win / win.sum(axis=1, keepdims=True)


class JaxCollector:
    """Self-play games of ``cfg`` on the JAX engine (see the module docstring); ``rng`` is unused (the draws
    come from a JAX key derived from ``cfg.seed``), kept for the numpy collector's signature."""

    def __init__(self, cfg: TrainConfig, rng: np.random.Generator, make_agent: Any = None,
                 timers: Timers | None = None) -> None:
        from fiveplay_env.agents.learned.defaults import score_info

        self.cfg = cfg
        self.rng = rng
        self.timers = timers if timers is not None else Timers()
        self.kinds = [name for name, _ in cfg.opponents]
        if cfg.compact_obs:
            raise ValueError("compact_obs: expected False with backend 'jax' (the observations stay on the device)")
        for name in self.kinds:  # before the engine is built (and compiled)
            if name not in SPECIAL_KINDS and name not in heur.JAX_AGENTS:
                heur.heuristic(name, 0)  # its ValueError names the agents there are
        self.lower_is_better = score_info(cfg.game).lower_is_better
        self.vec = engine_factory(cfg.game)(cfg.num_envs, cfg.seed, chance="reference", **cfg.config)
        self.backend = "jax"
        self.n = n = self.vec.num_players
        self.A = self.vec.num_actions
        self.D = self.vec.observation_size
        self.layout = None
        self.agents: dict[int, Any] = {}
        self.engine_seats = None
        self._heur = {k: heur.heuristic(name, n) for k, name in enumerate(self.kinds) if name not in SPECIAL_KINDS}
        w = np.array([wt for _, wt in cfg.opponents], np.float64)
        self.kind_p = w / w.sum()
        self.kind_is_pool = np.array([name == "pool" for name in self.kinds])
        self.kind_is_self = np.array([name == "self" for name in self.kinds])
        self.pool = SnapshotPool(cfg.pool_size)
        self.env_steps = 0
        self.games = 0
        self._spec: jnets.NetSpec | None = None
        self._pool_cache: tuple[tuple[int, ...], Any] | None = None
        B = cfg.num_envs
        key = jax.random.key(seeding.derive(cfg.seed, 4) & 0x7FFFFFFF)
        key, sub = jax.random.split(key)
        z = lambda shape, dt: jnp.zeros(shape, dt)  # noqa: E731
        cs = {
            "env": self.vec.state, "index": self.vec.run_carry["index"], "base": self.vec.run_carry["base"],
            "env_key": self.vec.run_carry["key"],
            "slot_kind": z(B, jnp.int32), "slot_snap": jnp.full(B, -1, jnp.int32), "learner_seat": z((B, n), bool),
            "ep_return": z((B, n), jnp.float32), "key": key,
            "carry": {"obs": z((n, B, self.D), jnp.float32), "mask": z((n, B, self.A), bool), "act": z((n, B), jnp.int32),
                      "logp": z((n, B), jnp.float32), "val": z((n, B), jnp.float32), "rew": z((n, B), jnp.float32),
                      "valid": z((n, B), bool)},
        }
        self.cs = self._assign_jit(cs, sub, jnp.ones(B, bool), jnp.int32(0))

    # ------------------------------------------------------------------ draws

    def _assign(self, cs: dict[str, Any], key: Any, slots: Any, pool_len: Any) -> dict[str, Any]:
        """New games in the slots ``slots`` (bool [B]): each draws its opponent kind, learner seat and snapshot."""
        B, n = self.cfg.num_envs, self.n
        k1, k2, k3 = jax.random.split(key, 3)
        kinds = jax.random.categorical(k1, jnp.log(jnp.asarray(self.kind_p, jnp.float32)), shape=(B,)).astype(jnp.int32)
        seats = jax.random.randint(k2, (B,), 0, n, jnp.int32)
        snaps = jax.random.randint(k3, (B,), 0, jnp.maximum(pool_len, 1), jnp.int32)
        is_pool = jnp.asarray(self.kind_is_pool)[kinds]
        everyone = jnp.asarray(self.kind_is_self)[kinds] | (is_pool & (pool_len == 0))
        ls = everyone[:, None] | (jnp.arange(n)[None, :] == seats[:, None])
        snap = jnp.where(is_pool & (pool_len > 0), snaps, -1)
        return {**cs, "slot_kind": jnp.where(slots, kinds, cs["slot_kind"]),
                "slot_snap": jnp.where(slots, snap, cs["slot_snap"]),
                "learner_seat": jnp.where(slots[:, None], ls, cs["learner_seat"])}

    def _jitted(self, name: str, fn: Any, **kw: Any) -> Any:
        cfg = self.cfg
        key = (name, cfg.game, tuple(sorted(cfg.config.items())), cfg.num_envs, cfg.rollout_steps, tuple(self.kinds),
               tuple(self.kind_p), cfg.reward_scale, cfg.win_reward, cfg.pool_size, repr(COMPILER_OPTIONS))
        if key not in _JITTED:
            _JITTED[key] = jax.jit(fn, compiler_options=COMPILER_OPTIONS, **kw)
        return _JITTED[key]

    @property
    def _assign_jit(self) -> Any:
        return self._jitted("assign", self._assign)

    # ------------------------------------------------------------------ the pool

    def add_snapshot(self, snapshot: Any, update: int) -> None:
        """Put ``snapshot`` (a frozen torch network) into the pool, as ``Collector.add_snapshot``: the oldest
        dropped beyond capacity, the slots playing a dropped one moved to a kept one."""
        drop = self.pool.add(snapshot, update)
        if drop:
            s = self.cs["slot_snap"]
            self.cs = {**self.cs, "slot_snap": jnp.where(s >= 0, jnp.maximum(s - drop, 0), s)}

    def _pool_params(self, like: dict[str, np.ndarray]) -> Any:
        """The pool's parameters stacked on a leading axis of ``pool_size`` (zeros where no snapshot is)."""
        ids = tuple(id(m) for m in self.pool.items)
        if self._pool_cache is not None and self._pool_cache[0] == ids:
            return self._pool_cache[1]
        P = self.cfg.pool_size
        stacked = {k: np.zeros((P, *v.shape), np.float32) for k, v in like.items()}
        for i, m in enumerate(self.pool.items):
            for k, v in jnets.params_of(m.state_dict()).items():
                stacked[k][i] = v
        out = {k: jnp.asarray(v) for k, v in stacked.items()}
        self._pool_cache = (ids, out)
        return out

    # ------------------------------------------------------------------ the rollout

    def _pool_actions(self, spec: jnets.NetSpec, pool: Any, obs: Any, mask: Any, snap: Any, gumbel: Any) -> Any:
        """int32 [B]: the actions of the rows ``snap >= 0`` (the snapshot index playing each), by chunks of
        ``POOL_CHUNK`` rows of one snapshot (the other rows' entries are 0)."""
        B = obs.shape[0]
        P = self.cfg.pool_size
        c = min(POOL_CHUNK, B)
        grouped = jnp.argsort(jnp.where(snap >= 0, snap, P), stable=True).astype(jnp.int32)
        counts = (snap[:, None] == jnp.arange(P)[None, :]).sum(axis=0).astype(jnp.int32)
        starts = jnp.cumsum(counts) - counts
        chunks = (counts + c - 1) // c
        ends = jnp.cumsum(chunks)
        padded = jnp.concatenate([grouped, jnp.full(c, B, jnp.int32)])

        def body(i: Any, acts: Any) -> Any:
            p = jnp.searchsorted(ends, i, side="right").astype(jnp.int32)
            start = starts[p] + (i - (ends[p] - chunks[p])) * c
            rows = lax.dynamic_slice(padded, (start,), (c,))
            ok = start + jnp.arange(c) < starts[p] + counts[p]
            safe = jnp.where(ok, rows, 0)
            params = jax.tree_util.tree_map(lambda x: x[p], pool)
            logits, _ = jnets.forward(spec, params, obs[safe], mask[safe])
            a = jnp.argmax(logits + gumbel[safe], axis=1).astype(jnp.int32)
            return acts.at[jnp.where(ok, rows, B)].set(a, mode="drop")

        return lax.fori_loop(0, ends[-1], body, jnp.zeros(B, jnp.int32))

    def _rollout(self, spec: jnets.NetSpec, cs: dict[str, Any], learner: Any, pool: Any,
                 pool_len: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        cfg, n = self.cfg, self.n
        B, T = cfg.num_envs, cfg.rollout_steps
        R = n + T
        vstep = self.vec.jit_step
        scale = jnp.float32(cfg.reward_scale)
        seats = jnp.arange(n, dtype=jnp.int32)
        barange = jnp.arange(B)
        kind_is_pool = jnp.asarray(self.kind_is_pool)
        carry = cs["carry"]
        rew0 = jnp.zeros((R, B), jnp.float32).at[:n].set(carry["rew"])
        last0 = jnp.where(carry["valid"].T, seats[None, :], -1)              # [B, n]

        def step(c: dict[str, Any], t: Any) -> tuple[dict[str, Any], dict[str, Any]]:
            st = c["env"]
            obs, mask, cur = st.observation, st.legal_action_mask, st.current_player
            key, k_net, k_pool, k_opp, k_new = jax.random.split(c["key"], 5)
            is_learner = c["learner_seat"][barange, cur]
            logits, value = jnets.forward(spec, learner, obs, mask)
            a_l, logp = jnets.sample(logits, k_net)
            actions = jnp.where(is_learner, a_l, 0)
            kind = c["slot_kind"]
            if self.kind_is_pool.any():
                snap = jnp.where(~is_learner & kind_is_pool[kind], c["slot_snap"], -1)
                g = jax.random.gumbel(k_pool, mask.shape, jnp.float32)
                a_p = self._pool_actions(spec, pool, obs, mask, snap, g)
                actions = jnp.where(snap >= 0, a_p, actions)
            for k, act in self._heur.items():
                rows = ~is_learner & (kind == k)
                a_h = lax.cond(rows.any(), lambda: act(obs, mask, jax.random.fold_in(k_opp, k)),
                               lambda: jnp.zeros(B, jnp.int32))
                actions = jnp.where(rows, a_h, actions)
            nst, index, env_key, final = vstep(st, c["index"], cs["base"], c["env_key"], actions)
            rewards, term = nst.rewards, nst.terminated
            row = n + t
            last = jnp.where(is_learner[:, None] & (seats[None, :] == cur[:, None]), row, c["last"])
            has = last >= 0
            idx = jnp.where(has, last, R)
            rew = c["rew"].at[idx, barange[:, None]].add(rewards * scale, mode="drop")
            ep = c["ep_return"] + rewards
            if cfg.win_reward:
                bonus = jnp.float32(cfg.win_reward) * (_outcome(final, n, self.lower_is_better) - jnp.float32(1.0 / n))
                rew = rew.at[jnp.where(has & term[:, None], last, R), barange[:, None]].add(bonus, mode="drop")
            done = c["done"].at[jnp.where(has & term[:, None], last, R), barange[:, None]].set(True, mode="drop")
            ls = c["learner_seat"]
            fin_ret = jnp.where(ls, ep, 0).sum(axis=1) / jnp.maximum(ls.sum(axis=1), 1)
            out = {"obs": jnp.where(is_learner[:, None], obs, 0.0), "mask": mask & is_learner[:, None],
                   "act": jnp.where(is_learner, a_l, 0), "logp": jnp.where(is_learner, logp, 0.0),
                   "val": jnp.where(is_learner, value, 0.0), "valid": is_learner,
                   "seat": jnp.where(is_learner, cur, 0), "fin": term, "fin_kind": kind, "fin_ret": fin_ret,
                   "actions": actions}
            nc = {**c, "env": nst, "index": index, "env_key": env_key, "key": key, "rew": rew, "done": done,
                  "last": jnp.where(term[:, None], -1, last), "ep_return": jnp.where(term[:, None], 0.0, ep)}
            nc = self._assign(nc, k_new, term, pool_len)
            out["slot_kind"], out["learner_seat"] = nc["slot_kind"], nc["learner_seat"]
            return nc, out

        c0 = {**{k: cs[k] for k in ("env", "index", "env_key", "key", "slot_kind", "slot_snap", "learner_seat",
                                    "ep_return")},
              "rew": rew0, "done": jnp.zeros((R, B), bool), "last": last0}
        c, ys = lax.scan(step, c0, jnp.arange(T, dtype=jnp.int32))
        cat = lambda a, b: jnp.concatenate([a, b], axis=0)  # noqa: E731
        roll = {"obs": cat(carry["obs"], ys["obs"]), "mask": cat(carry["mask"], ys["mask"]),
                "act": cat(carry["act"], ys["act"]), "logp": cat(carry["logp"], ys["logp"]),
                "val": cat(carry["val"], ys["val"]), "rew": c["rew"], "done": c["done"],
                "valid": cat(carry["valid"], ys["valid"]),
                "seat": cat(jnp.broadcast_to(seats[:, None], (n, B)), ys["seat"])}
        last = c["last"]                                                     # [B, n]
        has = last >= 0
        pend = jnp.zeros((R, B), bool).at[jnp.where(has, last, R), barange[:, None]].set(True, mode="drop")
        roll["pending"] = pend
        src = jnp.maximum(last, 0).T                                         # [n, B]
        take = lambda a: a[src, barange[None, :]]  # noqa: E731 - the row each (seat, slot) holds back
        hv = has.T
        new_carry = {"obs": jnp.where(hv[..., None], take(roll["obs"]), 0.0),
                     "mask": take(roll["mask"]) & hv[..., None], "act": jnp.where(hv, take(roll["act"]), 0),
                     "logp": jnp.where(hv, take(roll["logp"]), 0.0), "val": jnp.where(hv, take(roll["val"]), 0.0),
                     "rew": jnp.where(hv, take(roll["rew"]), 0.0), "valid": hv}
        ncs = {**cs, **{k: c[k] for k in ("env", "index", "env_key", "key", "slot_kind", "slot_snap", "learner_seat",
                                          "ep_return")}, "carry": new_carry}
        extra = {k: ys[k] for k in ("fin", "fin_kind", "fin_ret", "actions", "slot_kind", "learner_seat")}
        return ncs, {**roll, **extra}

    @property
    def _rollout_jit(self) -> Any:
        return self._jitted("rollout", self._rollout, static_argnums=0)

    def collect(self, policy: Any) -> Rollout:
        """One rollout of ``rollout_steps`` steps played by ``policy.model`` (a torch network of
        ``fiveplay_env.agents.learned.nets``, read as JAX parameters) and the pool (see the module docstring)."""
        t0 = time.perf_counter()
        spec, learner = self.net_inputs(policy.model)
        pool = self._pool_params(learner)
        fn = self._rollout_jit
        first = fn not in _CALLED
        self.cs, out = fn(spec, self.cs, {k: jnp.asarray(v) for k, v in learner.items()}, pool,
                          jnp.int32(len(self.pool)))
        roll = self.to_rollout(out)
        if first:  # the compile: timed apart (Timers.compile), not part of the throughput
            _CALLED.add(fn)
            self.timers.compile += time.perf_counter() - t0
        else:
            self.timers.rollout += time.perf_counter() - t0
        return roll

    def net_inputs(self, model: Any) -> tuple[jnets.NetSpec, dict[str, np.ndarray]]:
        """The JAX spec and parameters of a torch network."""
        spec = jnets.NetSpec.of(model)
        if self._spec is None:
            self._spec = spec
        return spec, jnets.params_of(model.state_dict())

    def to_rollout(self, out: dict[str, Any]) -> Rollout:
        """The rollout's arrays as a ``collector.Rollout`` of numpy arrays (views of the JAX CPU buffers)."""
        h = {k: np.asarray(v) for k, v in out.items()}
        fin = h["fin"]
        t, b = np.nonzero(fin)
        finished = [(int(k), float(r)) for k, r in zip(h["fin_kind"][t, b], h["fin_ret"][t, b])]
        self.env_steps += self.cfg.rollout_steps
        self.games += int(fin.sum())
        self.last_extra = {k: h[k] for k in ("actions", "slot_kind", "learner_seat", "fin")}
        return Rollout(obs=h["obs"], mask=h["mask"], act=h["act"].astype(np.int64), logp=h["logp"], val=h["val"],
                       rew=h["rew"], done=h["done"], valid=h["valid"], seat=h["seat"].astype(np.int64),
                       pending=h["pending"], finished=finished)

    # ------------------------------------------------------------------ checkpoints

    def state(self) -> dict[str, Any]:
        """The collector's part of a checkpoint, with the numpy collector's keys (``Trainer.state`` packs
        them): ``env`` holds the JAX games (every ``State`` leaf, the slots' game indices, the keys)."""
        from fiveplay_env.agents.learned import envs as envs_mod

        cs = self.cs
        leaves = {f"env.{i}": np.asarray(x) for i, x in enumerate(jax.tree_util.tree_leaves(cs["env"]))}
        env = {**leaves, "index": np.asarray(cs["index"]), "env_key": np.asarray(jax.random.key_data(cs["env_key"])),
               "key": np.asarray(jax.random.key_data(cs["key"]))}
        st = cs["env"]
        return {
            "env": {"kind": "jax", "state": envs_mod._pack(env, "jax")},
            "obs": np.asarray(st.observation).copy(), "mask": np.asarray(st.legal_action_mask).copy(),
            "cur": np.asarray(st.current_player).astype(np.int64),
            "slot_kind": np.asarray(cs["slot_kind"]).astype(np.int64),
            "slot_snap": np.asarray(cs["slot_snap"]).astype(np.int64),
            "learner_seat": np.asarray(cs["learner_seat"]).copy(), "ep_return": np.asarray(cs["ep_return"]).copy(),
            "carry": {k: np.asarray(v).copy() for k, v in cs["carry"].items()},
            "agents_rng": {}, "engine_seats": None,
        }

    def load_state(self, st: dict[str, Any], where: str) -> None:
        """Continue from ``state()`` of a collector of the same configuration (``CheckpointError`` if not)."""
        from fiveplay_env.agents.learned import envs as envs_mod
        from fiveplay_env.core.errors import CheckpointError

        snap = st["env"]
        if not isinstance(snap, dict) or snap.get("kind") != "jax":
            raise CheckpointError(f"checkpoint {where}: expected the JAX collector's games (backend 'jax')")
        env = envs_mod._unpack(snap["state"])
        cs = self.cs
        leaves, treedef = jax.tree_util.tree_flatten(cs["env"])
        if len([k for k in env if k.startswith("env.")]) != len(leaves):
            raise CheckpointError(f"checkpoint {where}: the JAX engine's state has changed since it was saved")
        new = []
        for i, cur in enumerate(leaves):
            saved = np.asarray(env[f"env.{i}"])
            if saved.shape != cur.shape or saved.dtype != cur.dtype:
                raise CheckpointError(f"checkpoint {where}: the JAX engine's state field {i} has shape "
                                      f"{saved.shape} {saved.dtype}, this run expects {cur.shape} {cur.dtype}")
            new.append(jnp.asarray(saved))
        carry = {k: jnp.asarray(np.asarray(v).astype(cs["carry"][k].dtype)) for k, v in st["carry"].items()}
        self.cs = {**cs, "env": jax.tree_util.tree_unflatten(treedef, new), "index": jnp.asarray(env["index"]),
                   "env_key": jax.random.wrap_key_data(jnp.asarray(env["env_key"])),
                   "key": jax.random.wrap_key_data(jnp.asarray(env["key"])),
                   "slot_kind": jnp.asarray(st["slot_kind"], jnp.int32), "slot_snap": jnp.asarray(st["slot_snap"], jnp.int32),
                   "learner_seat": jnp.asarray(st["learner_seat"], bool),
                   "ep_return": jnp.asarray(st["ep_return"], jnp.float32), "carry": carry}


__all__ = ["JaxCollector", "POOL_CHUNK", "engine_factory"]
