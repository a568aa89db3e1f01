"""The self-play collector: games against an opponent mixture, producing trajectories (numpy only, no torch).

    collector = Collector(cfg, rng, make_agent)     # cfg: a TrainConfig; rng: the run's numpy Generator
    rollout = collector.collect(policy)             # policy: the networks, behind the ``Policy`` interface

``num_envs`` games run side by side in a vector env (``fiveplay_env.agents.learned.envs.make_training_env``: the game's
batched engine, or the reference-engine loop). When a game starts in a slot, the slot draws an
*opponent kind* from ``cfg.opponents`` (weights):

| kind      | seats                                                                                   |
|-----------|-----------------------------------------------------------------------------------------|
| ``self``  | every seat is the learner (all their decisions are training data)                        |
| ``pool``  | one random seat is the learner; the others are one past snapshot of the learner (a     |
|           | ``snapshot_interval``-spaced copy, the last ``pool_size`` kept; ``self`` while empty)   |
| any agent name (``take5-safest``, ``random``, ``ckpt:PATH`` ...) | one random seat is the learner, the others |
|           | are that agent (made by the ``make_agent`` resolver given), e.g. 3 copies of the heuristic |

Opponents act on the batch of their rows (``act_batch``), one instance per kind (agent seed
``derive(seed, 100 + kind)``). An agent that needs the engine (``uses_engine``: the search agent
``ismcts:...``) is seated once per (slot, seat) of each game it plays instead
(``fiveplay_env.agents.learned.engine_seats``), so such a run plays on the reference-engine loop (``backend="auto"``
picks it; ``"batched"`` is a ``ValueError`` naming the agent).

The learner and the pool snapshots are played through ``Policy.act`` (numpy in, numpy out): one call per
step for every row a network plays, the learner's rows first, so that a torch policy prepares the
observations once for all its networks (``fiveplay_env.agents.learned.policy.NetworkPolicy``).

Every decision of a learner seat is a transition. Its reward is the sum of that player's rewards
(scaled by ``reward_scale``) from this decision up to its next decision or the end of the game, so
rewards caused by the other players' moves count for the learner; a game's end is its terminal step
(Take 5 ``mode="game"``: the whole game to ``end_score``, so returns span every round). With
``win_reward`` w > 0 (the win option of the reward, in the same units as the scaled rewards) the last
decision of each learner seat in a game also earns ``w * (win share - 1/n)``: win shares as
``envs.outcome`` reads them (ties share), so the bonus sums to zero over the seats.

Carry-over: a trajectory's last decision of a rollout (its reward not yet complete) is held back
(``Rollout.pending``) and put in the first rows of the next rollout, where its reward completes; its
value bootstraps the returns of the decisions before it (``fiveplay_env.agents.learned.returns``).

``Rollout`` (R = n + rollout_steps rows: the n carried-over rows, one per seat, then one per step;
B = num_envs columns):

| array      | shape, dtype          | row r, slot i                                                    |
|------------|-----------------------|------------------------------------------------------------------|
| ``obs``    | [R, B, W] float32/uint8 | the learner's observation (W: obs_dim, or the compact width)   |
| ``mask``   | [R, B, A] bool        | its legal actions                                                |
| ``act``, ``logp``, ``val`` | [R, B] int64, float32, float32 | the action taken, its log-probability, the value |
| ``rew``    | [R, B] float32        | the reward earned from this decision to the seat's next one      |
| ``done``   | [R, B] bool           | the game ended before the seat's next decision                   |
| ``valid``  | [R, B] bool           | the row holds a learner decision                                 |
| ``seat``   | [R, B] int64          | the deciding seat (trajectories are (slot, seat) pairs)           |
| ``pending``| [R, B] bool           | held back for the next rollout (not trained on now)              |

``finished``: ``(kind, learner return)`` of each game that ended. ``state()`` / ``load_state()``: the
games in progress, the slots' draws, the held-back rows and the opponents' generators, as plain data.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

import numpy as np

from fiveplay_env.agents.learned import envs as envs_mod
from fiveplay_env.agents.learned.config import SPECIAL_KINDS, TrainConfig
from fiveplay_env.core import seeding

MakeAgent = Callable[..., Any]
"""``make_agent(name, game, seed=...)``: an agent from its registry name (``fiveplay_env.agents.registry.make_agent``)."""


class Policy(Protocol):
    """The networks the collector plays, as numpy in and out."""

    def act(self, obs: np.ndarray, mask: np.ndarray, learner: int,
            snapshots: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Decisions for the rows ``obs`` [m, W] / ``mask`` [m, A] (int8): the first ``learner`` rows are
        the learner's, row ``learner + j`` is played by pool snapshot ``snapshots[j]`` (an index into the
        collector's ``pool``). Returns ``(actions int64 [m], logp float32 [learner], value float32
        [learner])``: the learner's sampled actions' log-probabilities and value estimates."""
        ...


@dataclass
class Timers:
    """Seconds spent per part of training (see ``Trainer.throughput``)."""

    engine: float = 0.0     # env.step + observations
    network: float = 0.0    # learner and snapshot forward passes while collecting
    opponents: float = 0.0  # baseline agents' act_batch
    update: float = 0.0     # the algorithm's update (forward, backward, optimizer)
    other: float = 0.0      # bookkeeping while collecting
    rollout: float = 0.0    # the JAX collector's compiled rollouts (engine, networks and opponents in one call)
    compile: float = 0.0    # the JAX collector's first rollout of a process: tracing and compiling (not throughput)
    eval: float = 0.0       # periodic evaluation (not part of collection)

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


@dataclass
class SnapshotPool:
    """Past snapshots of the learner (opaque to the collector: what the policy plays them with) and the
    update each was taken at; the oldest are dropped beyond ``capacity``."""

    capacity: int
    items: list[Any] = field(default_factory=list)
    updates: list[int] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.items)

    def add(self, snapshot: Any, update: int) -> int:
        """Append ``snapshot`` (taken at ``update``) and drop the oldest beyond ``capacity``; returns how
        many were dropped (the callers shift the pool indices of the games in progress by it)."""
        self.items.append(snapshot)
        self.updates.append(int(update))
        drop = max(0, len(self.items) - self.capacity)
        if drop:
            self.items = self.items[drop:]
            self.updates = self.updates[drop:]
        return drop


@dataclass
class Rollout:
    """One rollout's trajectories (see the module docstring's table)."""

    obs: np.ndarray
    mask: np.ndarray
    act: np.ndarray
    logp: np.ndarray
    val: np.ndarray
    rew: np.ndarray
    done: np.ndarray
    valid: np.ndarray
    seat: np.ndarray
    pending: np.ndarray
    finished: list[tuple[int, float]]

    def batch(self, adv: np.ndarray) -> dict[str, np.ndarray]:
        """The training samples (valid rows not held back), flat: ``obs``, ``mask``, ``act``, ``logp``,
        ``val``, ``adv`` (``adv`` [R, B]: the advantages) and ``ret`` (``adv + val``)."""
        train = self.valid & ~self.pending
        return {"obs": self.obs[train], "mask": self.mask[train], "act": self.act[train], "logp": self.logp[train],
                "val": self.val[train], "adv": adv[train], "ret": adv[train] + self.val[train]}


class Collector:
    """Self-play games of ``cfg`` against its opponent mixture (see the module docstring).

    Args:
        cfg: the run's settings (``num_envs``, ``rollout_steps``, ``opponents``, ``reward_scale``,
            ``win_reward``, ``pool_size``, ``backend``, ``compact_obs``, ``seed``).
        rng: the run's numpy generator (opponent kinds, seats and snapshots are drawn from it).
        make_agent: the resolver of opponent names (``fiveplay_env.agents.registry.make_agent``).
        timers: where the time goes (a new ``Timers`` if None).
    """

    def __init__(self, cfg: TrainConfig, rng: np.random.Generator, make_agent: MakeAgent,
                 timers: Timers | None = None) -> None:
        from fiveplay_env.agents.learned.engine_seats import EngineSeats

        self.cfg = cfg
        self.rng = rng
        self.timers = timers if timers is not None else Timers()
        self.kinds = [name for name, _ in cfg.opponents]
        # opponents acting on observations (one instance per kind, act_batch); those that need the engine
        # (uses_engine: the search agent) are seated per (slot, seat) by engine_seats, on the reference loop
        self.agents: dict[int, Any] = {}
        engine_kinds: dict[int, str] = {}
        for k, name in enumerate(self.kinds):
            if name not in SPECIAL_KINDS:
                agent = make_agent(name, cfg.game, seed=seeding.derive(cfg.seed, 100 + k))
                if agent.uses_engine:
                    engine_kinds[k] = name
                else:
                    self.agents[k] = agent
        self.env = envs_mod.make_training_env(cfg.game, cfg.num_envs, cfg.seed, cfg.config, cfg.backend,
                                              compact_obs=cfg.compact_obs, engine_agents=list(engine_kinds.values()))
        self.engine_seats = EngineSeats(self.env, cfg.game, engine_kinds, make_agent) if engine_kinds else None
        self.kind_is_engine = np.array([k in engine_kinds for k in range(len(self.kinds))])
        self.backend = getattr(self.env, "backend", "batched")
        self.n = self.env.num_players
        self.A = self.env.num_actions
        self.D = self.env.obs_dim
        # the observation as the collector keeps it: float32 [D], or the compact uint8 form (decoded by the
        # policy for its networks, and by numpy here for the baseline opponents)
        self.layout: Any = None
        self.obs_width, self.obs_dtype = self.D, np.float32
        if cfg.compact_obs:
            from fiveplay_env.agents.learned.defaults import compact_layout

            self.layout = compact_layout(cfg.game, self.env)
            self.obs_width, self.obs_dtype = self.layout.size, np.uint8
        w = np.array([wt for _, wt in cfg.opponents], np.float64)
        self.kind_p = w / w.sum()
        self.kind_is_pool = np.array([name == "pool" for name in self.kinds])
        self.has_pool = bool(self.kind_is_pool.any())
        self.pool = SnapshotPool(cfg.pool_size)
        self.env_steps = 0
        self.games = 0
        B, n = cfg.num_envs, self.n
        self.obs, self.mask, self.cur = self.env.reset(cfg.seed)
        self.slot_kind = np.zeros(B, np.int64)
        self.slot_snap = np.full(B, -1, np.int64)
        self.learner_seat = np.zeros((B, n), bool)
        self.ep_return = np.zeros((B, n), np.float64)
        self.carry = self._empty_carry()
        self._assign(np.arange(B))

    # ------------------------------------------------------------------ slots and seats

    def _empty_carry(self) -> dict[str, np.ndarray]:
        B, n = self.cfg.num_envs, self.n
        return {"obs": np.zeros((n, B, self.obs_width), self.obs_dtype), "mask": np.zeros((n, B, self.A), bool),
                "act": np.zeros((n, B), np.int64), "logp": np.zeros((n, B), np.float32),
                "val": np.zeros((n, B), np.float32), "rew": np.zeros((n, B), np.float32),
                "valid": np.zeros((n, B), bool)}

    def _assign(self, slots: np.ndarray) -> None:
        """New games in ``slots``: draw each one's opponent kind, learner seat(s) and snapshot."""
        if slots.size == 0:
            return
        n = self.n
        kinds = self.rng.choice(len(self.kinds), size=slots.size, p=self.kind_p)
        seats = self.rng.integers(0, n, size=slots.size)
        snaps = self.rng.integers(0, max(len(self.pool), 1), size=slots.size)
        self.slot_kind[slots] = kinds
        self.learner_seat[slots] = False
        self.slot_snap[slots] = -1
        for j, (i, k) in enumerate(zip(slots, kinds)):
            name = self.kinds[k]
            if name == "self" or (name == "pool" and not len(self.pool)):
                self.learner_seat[i] = True
            else:
                self.learner_seat[i, seats[j]] = True
                if name == "pool":
                    self.slot_snap[i] = snaps[j]
        if self.engine_seats is not None:
            self._seat_engine_agents(slots)

    def _seat_engine_agents(self, slots: np.ndarray) -> None:
        """Seat (or clear) the engine-using opponents of the new games in ``slots`` (engine_seats)."""
        from fiveplay_env.agents.learned.engine_seats import seat_seed

        es, n = self.engine_seats, self.n
        for i in slots.tolist():
            k = int(self.slot_kind[i])
            if not self.kind_is_engine[k]:
                es.clear(i)
                continue
            seats = np.flatnonzero(~self.learner_seat[i]).tolist()
            base, game = seeding.derive(self.cfg.seed, 100 + k), int(self.env.game_index[i])
            es.start(i, k, seats, [seat_seed(base, game, q, n) for q in seats])

    def add_snapshot(self, snapshot: Any, update: int) -> None:
        """Put ``snapshot`` (taken at ``update``) into the pool; the oldest are dropped beyond its capacity."""
        drop = self.pool.add(snapshot, update)
        if drop:
            # slots playing a dropped snapshot keep a valid index (their game finishes against another copy)
            self.slot_snap = np.where(self.slot_snap >= 0, np.maximum(self.slot_snap - drop, 0), self.slot_snap)

    # ------------------------------------------------------------------ collection

    def collect(self, policy: Policy) -> Rollout:
        """One rollout of ``rollout_steps`` vector-env steps (see the module docstring)."""
        cfg, n, B = self.cfg, self.n, self.cfg.num_envs
        T = cfg.rollout_steps
        R = n + T
        A = self.A
        buf_obs = np.zeros((R, B, self.obs_width), self.obs_dtype)
        buf_mask = np.zeros((R, B, A), bool)
        buf_act = np.zeros((R, B), np.int64)
        buf_logp = np.zeros((R, B), np.float32)
        buf_val = np.zeros((R, B), np.float32)
        buf_rew = np.zeros((R, B), np.float32)
        buf_done = np.zeros((R, B), bool)
        buf_valid = np.zeros((R, B), bool)
        buf_seat = np.zeros((R, B), np.int64)
        last_row = np.full((B, n), -1, np.int64)
        c = self.carry
        buf_obs[:n], buf_mask[:n], buf_act[:n] = c["obs"], c["mask"], c["act"]
        buf_logp[:n], buf_val[:n], buf_rew[:n], buf_valid[:n] = c["logp"], c["val"], c["rew"], c["valid"]
        buf_seat[:n] = np.arange(n)[:, None]
        cs, ci = np.nonzero(c["valid"])
        last_row[ci, cs] = cs
        arangeB = np.arange(B)
        finished: list[tuple[int, float]] = []  # (kind, learner return) of games that ended
        tm = self.timers
        perf = time.perf_counter
        for t in range(T):
            row = n + t
            t0 = perf()
            obs, mask, cur = self.obs, self.mask, self.cur
            actions = np.zeros(B, np.int64)
            is_learner = self.learner_seat[arangeB, cur]
            li = np.flatnonzero(is_learner)
            t1 = perf()
            tm.other += t1 - t0
            # every row a network plays in one call: the learner's, then the pool snapshots'
            oi = np.flatnonzero(~is_learner)
            kinds = self.slot_kind[oi]
            pool_rows = oi[self.kind_is_pool[kinds]] if self.has_pool and oi.size else oi[:0]
            ni = np.concatenate([li, pool_rows]) if pool_rows.size else li
            if ni.size:
                a_net, logp, value = policy.act(obs[ni], mask[ni], li.size, self.slot_snap[pool_rows])
                actions[ni] = a_net
            if li.size:
                buf_obs[row, li] = obs[li]
                buf_mask[row, li] = mask[li] != 0
                buf_act[row, li] = a_net[:li.size]
                buf_logp[row, li] = logp
                buf_val[row, li] = value
                buf_valid[row, li] = True
                buf_seat[row, li] = cur[li]
                last_row[li, cur[li]] = row
            t2 = perf()
            tm.network += t2 - t1
            if oi.size:
                for k in np.unique(kinds):
                    if self.kinds[k] in SPECIAL_KINDS:
                        continue
                    sel = oi[kinds == k]
                    t3 = perf()
                    if self.kind_is_engine[k]:
                        actions[sel] = self.engine_seats.act(sel, cur[sel], obs[sel], mask[sel])
                    else:
                        o = obs[sel] if self.layout is None else self.layout.decode(obs[sel])
                        actions[sel] = self.agents[k].act_batch(o, mask[sel])
                    tm.opponents += perf() - t3
            t4 = perf()
            self.obs, self.mask, self.cur, rewards, term, info = self.env.step(actions)
            t5 = perf()
            tm.engine += t5 - t4
            if self.engine_seats is not None:  # engine-using opponents follow every step
                self.engine_seats.after_step(term)
                t5b = perf()
                tm.opponents += t5b - t5
                t5 = t5b
            self.env_steps += 1
            self.ep_return += rewards
            has = last_row >= 0
            if has.any():
                hi, hs = np.nonzero(has)
                buf_rew[last_row[hi, hs], hi] += rewards[hi, hs] * cfg.reward_scale
            if term.any():
                ti = np.flatnonzero(term)
                if cfg.win_reward:  # win option: + win_reward * (win share - 1/n) on each seat's last decision
                    _, wins = envs_mod.outcome(cfg.game, info, ti, self.ep_return)
                    bonus = cfg.win_reward * (wins - 1.0 / n)
                    for j, i in enumerate(ti):
                        seats = np.flatnonzero(last_row[i] >= 0)
                        buf_rew[last_row[i, seats], i] += bonus[j, seats]
                for i in ti:
                    seats = np.flatnonzero(self.learner_seat[i])
                    rows = last_row[i, seats]
                    ok = rows >= 0
                    buf_done[rows[ok], i] = True
                    finished.append((int(self.slot_kind[i]), float(self.ep_return[i, seats].mean())))
                last_row[ti] = -1
                self.ep_return[ti] = 0.0
                self.games += ti.size
                self._assign(ti)
            tm.other += perf() - t5
        t0 = perf()
        # held back: each trajectory's last decision whose game has not ended
        pend = np.zeros((R, B), bool)
        pi, ps = np.nonzero(last_row >= 0)
        pend[last_row[pi, ps], pi] = True
        carry = self._empty_carry()
        pr = last_row[pi, ps]
        carry["obs"][ps, pi] = buf_obs[pr, pi]
        carry["mask"][ps, pi] = buf_mask[pr, pi]
        carry["act"][ps, pi] = buf_act[pr, pi]
        carry["logp"][ps, pi] = buf_logp[pr, pi]
        carry["val"][ps, pi] = buf_val[pr, pi]
        carry["rew"][ps, pi] = buf_rew[pr, pi]
        carry["valid"][ps, pi] = True
        self.carry = carry
        tm.other += perf() - t0
        return Rollout(obs=buf_obs, mask=buf_mask, act=buf_act, logp=buf_logp, val=buf_val, rew=buf_rew,
                       done=buf_done, valid=buf_valid, seat=buf_seat, pending=pend, finished=finished)

    # ------------------------------------------------------------------ checkpoints

    def state(self) -> dict[str, Any]:
        """The collector's part of a checkpoint (numpy arrays and plain data): the games in progress
        (``env``, ``engine_snapshot``), the current observations, each slot's draws, the episode returns,
        the held-back rows, the opponents' generator states and the seated engine-using agents."""
        return {
            "env": envs_mod.engine_snapshot(self.env),
            "obs": self.obs.copy(), "mask": np.asarray(self.mask).copy(), "cur": np.asarray(self.cur).astype(np.int64),
            "slot_kind": self.slot_kind.copy(), "slot_snap": self.slot_snap.copy(),
            "learner_seat": self.learner_seat.copy(), "ep_return": self.ep_return.copy(),
            "carry": {k: v.copy() for k, v in self.carry.items()},
            "agents_rng": {str(k): _rng_state(a) for k, a in self.agents.items()},
            "engine_seats": self.engine_seats.state() if self.engine_seats is not None else None,
        }

    def load_state(self, st: dict[str, Any], where: str) -> None:
        """Continue from ``state()`` (its arrays as numpy arrays), saved by a collector of the same
        configuration; ``where`` names the checkpoint in errors (``CheckpointError``, ``KeyError`` ...)."""
        envs_mod.restore_engine(self.env, st["env"])
        self.obs = st["obs"].copy()
        self.mask = st["mask"].copy()
        self.cur = st["cur"].astype(np.int32)
        self.slot_kind = st["slot_kind"].copy()
        self.slot_snap = st["slot_snap"].copy()
        self.learner_seat = st["learner_seat"].copy()
        self.ep_return = st["ep_return"].copy()
        self.carry = {k: v.copy() for k, v in st["carry"].items()}
        for k, rs in st["agents_rng"].items():
            if int(k) in self.agents and rs is not None:
                self.agents[int(k)].rng.bit_generator.state = rs
        if self.engine_seats is not None:
            expected = {i: (int(self.slot_kind[i]), np.flatnonzero(~self.learner_seat[i]).tolist())
                        for i in range(self.cfg.num_envs) if self.kind_is_engine[self.slot_kind[i]]}
            self.engine_seats.load_state(st.get("engine_seats"), expected, where)


def _rng_state(agent: Any) -> dict[str, Any] | None:
    rng = getattr(agent, "rng", None)
    return rng.bit_generator.state if isinstance(rng, np.random.Generator) else None
