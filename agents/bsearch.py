"""The batched search agent (``bsearch``): today's determinized search, its worlds rolled out as one batch.

It is ``fiveplay_env.agents.search.SearchAgent`` (the same information-set discipline, worlds from
``InformationSet.sample``, the game's opponent model, common random numbers across candidates,
sequential halving, the same value of a rollout) with one change: the (world, candidate) pairs of a
round of sequential halving are not played one at a time in Python but **together**, in the game's
numpy batched engine. Per round of halving:

1. the round's K new worlds are drawn (and their opponent-model plans made) as ``ismcts`` draws them,
   then loaded into a batched engine of K slots (``load_states``: every position checked as
   ``set_state`` checks a state);
2. each world is copied once per surviving candidate into a second engine of K x A slots (``gather``),
   and each row plays its candidate;
3. all rows are rolled out together to the horizon: at every step one call of the game's vectorized
   rollout policy chooses every row's move (the batch heuristic, or with ``rollout=policy`` one forward
   pass of the policy for every row that chooses; Take 5 chooses every seat's card of a trick at once);
4. the values are summed per candidate, and the worse half of the candidates is dropped.

With the same seed, sims budget and rollout policy it draws the same worlds and random numbers as
``ismcts``, so its values are those ``ismcts`` computes (``tests/agents/test_bsearch.py``; with
``rollout=policy`` up to the last bits of the network's float sums, as batches of other sizes round
differently). Only the speed differs (``fiveplay_env.experiments.budget --profile`` and ``fiveplay_env.experiments.bench``).

The game's part is its kit's ``batch_search`` hooks (``fiveplay_env.agents.kit.BatchRollout``,
``agents/<game>/bsearch.py``); a game without them has no batched search.

Registry names: ``bsearch:worlds=64``, ``bsearch:sims=600``, ``bsearch:time=0.05``, with the keys of
``ismcts`` (``fiveplay_env.agents.search``) except ``alloc`` and ``cpuct`` (sequential halving only), and

| key     | meaning                                                                              |
|---------|--------------------------------------------------------------------------------------|
| worlds  | budget: K simulations per candidate action (K x k in all for k candidates), spent by  |
|         | sequential halving (instead of sims or time)                                          |
| time    | seconds per decision: the budget in simulations from the speed measured on this      |
|         | agent's earlier decisions (the first one probes with one world), a hard deadline too |
"""
from __future__ import annotations

import dataclasses

import math
import time as _time
from typing import Any

import numpy as np

from fiveplay_env.agents import games
from fiveplay_env.agents.base import InformationSet
from fiveplay_env.agents.search import NOISE_LEN, SearchAgent
from fiveplay_env.agents.search_params import MAX_SIMS, BatchSearchParams

MAX_ROWS = 8192
"""The most (world, candidate) rows of one batch: bounds a decision's memory whatever its budget."""


class BatchSearchAgent(SearchAgent):
    """The batched search (see the module docstring); needs ``observe_engine``."""

    name = "bsearch"
    label = "bsearch"
    check_pairs = 256  # the reference-world path under a deadline: batches of a useful size between clock looks

    def __init__(self, seed: int | None = None, game: str | None = None, params: BatchSearchParams | None = None,
                 allow_import: bool = False) -> None:
        if not isinstance(game, str):
            raise ValueError(f"game: expected a game's name, got {game!r}")
        params = params or BatchSearchParams()
        hooks = games.kit(game).batch_search
        if hooks is None:
            raise ValueError(f"bsearch: {game!r} has no batched search hooks (its kit's batch_search); "
                             f"use ismcts")
        if params.rollout == "policy" and not hooks.policy:
            raise ValueError(f"rollout=policy: not available for bsearch in {game!r}")
        if params.value and not hooks.leaf_value:
            raise ValueError(f"value=1: not available for bsearch in {game!r}")
        super().__init__(seed=seed, game=game, params=params, allow_import=allow_import)
        self._hooks = hooks
        self._engines: dict[int, Any] = {}
        self._config: Any = None
        self._rate: float | None = None  # simulations per second, measured on earlier decisions
        self._base_engine: Any = None
        self._params_given = self.params  # as named; a decision's own copy replaces self.params

    # --- the budget -------------------------------------------------------------------------------
    def _halving(self, info: InformationSet, actions: list[int]) -> int:
        worlds = self._params_given.worlds
        if worlds is not None:  # this decision's sims: worlds x its candidates (the params are frozen)
            self.params = dataclasses.replace(self._params_given, worlds=None, sims=min(MAX_SIMS, worlds * len(actions)))
        t0 = _time.perf_counter()
        if self._dealt(info):
            return self._batched_halving(info, actions)
        best = super()._halving(info, actions)
        spent = _time.perf_counter() - t0
        sims = self.last_stats.get("sims", 0)
        if sims >= 4 * len(actions) and spent > 0:  # a batch big enough to say how fast batches run
            rate = sims / spent
            self._rate = rate if self._rate is None else 0.7 * self._rate + 0.3 * rate
        return best

    def _time_budget(self, info: InformationSet, actions: list[int], sums: dict[int, float],
                     visits: dict[int, int], start: float) -> tuple[int, int]:
        if self._rate is None:  # the first decision: one world on every action, as ismcts
            return super()._time_budget(info, actions, sums, visits, start)
        return max(len(actions), int(self._rate * self.params.time * 0.9)), 0

    def _chunk(self, per_action: int, timed: bool) -> int:
        """Every world of a round in one batch (half of them at a time under a deadline)."""
        return per_action if not timed else max(1, per_action // 2)

    # --- the worlds dealt in the batched engine (the fast path) -----------------------------------
    def _dealt(self, info: InformationSet) -> bool:
        """Whether this decision's worlds are dealt in the batched engine (the game's ``deal`` and ``plan``
        hooks; beliefs of the opponent model about hidden hands need the reference sampling instead)."""
        hooks = self._hooks
        if hooks.deal is None or hooks.plan is None:
            return False
        return not (self.params.model == "heuristic" and self._memory.get("facts"))

    def _batched_halving(self, info: InformationSet, actions: list[int]) -> int:
        """Sequential halving as ``ismcts`` allocates it, every round's worlds dealt and rolled out in the
        batched engine: one world of the information set is loaded (checked as ``set_state`` checks a
        state), copied into M slots and re-dealt there (``deal``: M independent determinizations), the
        opponent model plans all of them at once (``plan``), and the M worlds x S survivors roll out as one
        batch (at most ``MAX_ROWS`` rows a batch). With ``time=`` each round gets its share of the time left
        and the batch size follows the speed measured so far. Under a hard ``deadline`` (``SearchAgent.deadline``:
        the web app's per-move bound) the batches are sized to the time left and the search stops at the first
        look at the clock past it, playing the best candidate on the worlds evaluated so far."""
        p = self.params
        player = info.player
        start = _time.perf_counter()
        k = len(actions)
        rounds = max(1, math.ceil(math.log2(k)))
        sums = dict.fromkeys(actions, 0.0)
        visits = dict.fromkeys(actions, 0)
        survivors = actions[:]
        sims = 0
        limit = self._limit(start)  # the time budget's or the hard ``deadline``'s, whichever comes first
        timed = p.time is not None
        hard = self.deadline is not None
        base = self._base(info)
        guide = self._guide() if p.prior is not None else None
        late = False
        for rnd in range(rounds):
            if len(survivors) == 1 or late:
                break
            S = len(survivors)
            cap = max(1, MAX_ROWS // S)
            per_action = None if timed else max(1, int(p.sims) // (rounds * S))
            round_end = None if limit is None else \
                _time.perf_counter() + (limit - _time.perf_counter()) / (rounds - rnd) if timed else limit
            done = 0
            while True:
                now = _time.perf_counter()
                if per_action is not None and done >= per_action:
                    break
                if limit is not None and now >= limit and (done or not timed or rnd):
                    late = True  # past the decision's limit: stop with the worlds evaluated so far
                    break
                if timed and done and now >= round_end:
                    break
                m = cap if per_action is None else min(per_action - done, cap)
                if limit is not None:  # as many worlds as the time left to this round allows
                    fit = 2 if self._rate is None else int(self._rate * max(0.0, round_end - now) / S)
                    m = min(m, max(1, fit))
                t0 = _time.perf_counter()
                vals = self._round_values(base, m, survivors, player, guide, limit if hard else None)
                spent = _time.perf_counter() - t0
                if vals is None:  # the hard deadline passed inside the batch: its worlds count for nothing
                    late = True
                    break
                if spent > 0 and m * S >= 8:
                    rate = m * S / spent
                    self._rate = rate if self._rate is None else 0.7 * self._rate + 0.3 * rate
                tot = vals.sum(axis=0)
                for j, a in enumerate(survivors):
                    sums[a] += float(tot[j])
                    visits[a] += m
                sims += m * S
                done += m
            if done:  # every survivor evaluated on the same worlds: compare the sums
                survivors.sort(key=lambda a: -sums[a])
                survivors = survivors[:max(1, math.ceil(len(survivors) / 2))]
        best = survivors[0]
        self.last_stats = {"sims": sims, "seconds": _time.perf_counter() - start, "actions": k}
        self._visits, self._sums = visits, sums
        return best

    def _base(self, info: InformationSet) -> Any:
        """A one-slot engine holding one world of ``info`` (its hidden cards are re-dealt in every copy)."""
        world = info.sample(self.rng)
        config = world.config
        if self._base_engine is None or self._base_engine.config != config:
            self._base_engine = self._hooks.engine(config, 1)
        self._base_engine.load_states([world.state])
        return self._base_engine

    def _round_values(self, base: Any, m: int, survivors: list[int], player: int, guide: Any,
                      deadline: float | None = None) -> np.ndarray | None:
        """float [m, S]: the values of ``survivors`` on m new worlds (the rows of a world share its random
        numbers: common random numbers across the candidates)."""
        t0 = _time.perf_counter()
        S = len(survivors)
        config = base.config
        worlds = self._engine(config, m)
        worlds.gather(base, np.zeros(m, np.int64))
        self._hooks.deal(worlds, player, self.rng)
        plans = self._hooks.plan(worlds, player, self.params)
        noise = self.rng.random((m, NOISE_LEN))
        rows = np.repeat(np.arange(m, dtype=np.int64), S)
        big = self._engine(config, m * S)
        big.gather(worlds, rows)
        t1 = _time.perf_counter()
        acts = np.tile(np.asarray(survivors, np.int64), m)
        out = rollout(self._hooks, big, rows, plans, noise[rows], acts, player, self.params, guide, deadline)
        if self.profile is not None:
            self._add("determinize", t1 - t0)
            self._add("rollouts", _time.perf_counter() - t1)
        return None if out is None else out.reshape(m, S)

    # --- the batched rollouts ---------------------------------------------------------------------
    def _engine(self, config: Any, size: int) -> Any:
        if config is not self._config:
            self._engines = {}
            self._config = config
        eng = self._engines.get(size)
        if eng is None:
            if len(self._engines) >= 16:  # a few sizes recur (worlds x survivors): keep the last 16
                self._engines.pop(next(iter(self._engines)))
            eng = self._engines[size] = self._hooks.engine(config, size)
        return eng

    def _values(self, pairs: list[tuple[tuple[Any, list[float], Any], int]], player: int) -> list[float]:
        """The rollout values of ``(world, action)`` pairs, all in one batch (the worlds in order of
        first appearance, each loaded once and copied for each of its candidates)."""
        if not pairs:
            return []
        t0 = _time.perf_counter() if self.profile is not None else 0.0
        order: dict[int, int] = {}
        worlds: list[tuple[Any, list[float], Any]] = []
        rows = np.empty(len(pairs), np.int64)
        for r, (w, _) in enumerate(pairs):
            j = order.get(id(w))
            if j is None:
                j = order[id(w)] = len(worlds)
                worlds.append(w)
            rows[r] = j
        config = worlds[0][0].config
        src = self._engine(config, len(worlds))
        src.load_states([w[0].state for w in worlds])
        big = self._engine(config, len(pairs))
        big.gather(src, rows)
        noise = np.asarray([w[1] for w in worlds], np.float64)[rows]
        plans = [w[2] for w in worlds]
        actions = np.fromiter((a for _, a in pairs), np.int64, len(pairs))
        guide = self._guide() if self.params.prior is not None else None
        out = rollout(self._hooks, big, rows, plans, noise, actions, player, self.params, guide)
        if self.profile is not None:
            self._add("rollouts", _time.perf_counter() - t0)
        return out.tolist()


def rollout(hooks: Any, engine: Any, worlds: np.ndarray, plans: list[Any], noise: np.ndarray, actions: np.ndarray,
            player: int, params: Any, guide: Any, deadline: float | None = None) -> np.ndarray | None:
    """Roll every row of ``engine`` out from its candidate ``actions[r]`` to the game's horizon with the
    game's batched hooks (``fiveplay_env.agents.kit.BatchRollout``); returns each row's value for ``player`` (None if
    the ``perf_counter`` time ``deadline`` passed first: the batch is abandoned, as one unfinished world)."""
    R = engine.batch_size
    ctx, rewards = hooks.begin(engine, worlds, plans, noise, actions, player, params)
    gains = np.asarray(rewards, np.float64).copy()
    values = np.zeros(R)
    active = np.ones(R, bool)
    done = hooks.stop(engine, ctx)
    while True:
        fin = np.flatnonzero(done & active)
        if fin.size:
            values[fin] = hooks.value(engine, ctx, fin, gains[fin], player, params, guide)
            active[fin] = False
        if not active.any():
            return values
        if deadline is not None and _time.perf_counter() > deadline:
            return None
        step = hooks.act(engine, ctx, active, guide)
        r = engine.step(step)
        gains[active] += r[active]
        done = hooks.stop(engine, ctx)


def make_bsearch(spec: str, game: str, seed: int | None) -> BatchSearchAgent:
    """``bsearch[:k=v,...]`` -> the agent (``ValueError`` naming a bad key or value)."""
    return BatchSearchAgent(seed=seed, game=game, params=BatchSearchParams.parse(spec))


__all__ = ["BatchSearchAgent", "BatchSearchParams", "NOISE_LEN", "make_bsearch", "rollout"]
