"""An approximate best response by search (``BestResponseSearch``): IS-MCTS that knows the fixed
opponents' policy, the search half of ``fiveplay_env.experiments.exploit``'s exploitability estimate."""
from __future__ import annotations

import math
import time as _time
from collections.abc import Callable
from typing import Any

import numpy as np

from fiveplay_env.agents import games
from fiveplay_env.agents.base import Agent, SearchAgentBase


class BestResponseSearch(SearchAgentBase):
    """An approximate best response by search: IS-MCTS that knows the fixed opponents' policy.

    In the spirit of approximate best response (Timbers et al. 2022, "Approximate exploitability:
    learning a best response"): the responder plays against opponents that all follow one known policy
    (``opponent``: a factory ``seed -> Agent``, e.g. a registry name made into agents by the caller), and
    it plans with that knowledge. Each simulation of a decision:

    1. draws a world through the responder's ``InformationSet`` (``sample``: the cards it cannot see
       re-dealt, later chance re-seeded);
    2. plays it forward: at every opponent decision the model's copy for that seat chooses from that
       seat's *own* observation of the world (a search opponent also gets ``observe_engine`` of the
       world), i.e. the opponents' actions are sampled from their policy; at the responder's decisions
       in the tree, UCB1 (``c`` times the range of the values seen) over the legal actions of a node
       keyed by the responder's observation and mask (single-observer IS-MCTS: one node per
       information set it can tell apart); the first decision outside the tree adds a node, the later
       ones follow ``rollout`` (an ``Agent``, default uniform random);
    3. scores the end of the game for the responder (``objective="win"``: its win share, ties shared;
       ``"return"``: its rewards minus the mean of the others'), or after ``horizon`` decisions (all
       seats; ``objective="return"`` only), and backs the value up the nodes visited.

    The root's most visited action is played. The values and the tree are built anew for each decision.
    Hidden choices the opponents made *before* the decision (Take 5: cards already chosen for the
    current trick) come from the game's determinization, not from their policy, so at such decisions
    the response is approximate even with unlimited simulations; where the responder acts before any
    hidden opponent choice (the toy game's first seat) the simulations sample exactly the opponents'
    behaviour, and enough of them reach the exact best response (``tests/experiments/test_best_response.py``).

    | argument   | meaning                                                                      |
    |------------|------------------------------------------------------------------------------|
    | opponent   | ``seed -> Agent``: the fixed policy of every other seat (one copy per seat)  |
    | game       | the game's name                                                              |
    | sims       | simulations per decision (>= 1)                                              |
    | c          | UCB1 exploration, times the range of the values seen [1.0]                   |
    | rollout    | ``seed -> Agent`` for the responder's own moves outside the tree [random]    |
    | objective  | ``"win"`` or ``"return"`` [win]                                              |
    | horizon    | decisions (all seats) per simulation, None = to the end of the game [None]   |
    """

    name = "ismcts-br"
    label = "ismcts-br"

    def __init__(self, opponent: Callable[[int], Agent], game: str, seed: int | None = None, sims: int = 200,
                 c: float = 1.0, rollout: Callable[[int], Agent] | None = None, objective: str = "win",
                 horizon: int | None = None) -> None:
        super().__init__(seed)
        if not callable(opponent):
            raise ValueError(f"opponent: expected a factory seed -> Agent, got {opponent!r}")
        if isinstance(sims, bool) or not isinstance(sims, (int, np.integer)) or sims < 1:
            raise ValueError(f"sims: expected an integer >= 1, got {sims!r}")
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not 0.0 <= c <= 100.0:
            raise ValueError(f"c: expected a number in 0.0..100.0, got {c!r}")
        if objective not in ("win", "return"):
            raise ValueError(f"objective: expected 'win' or 'return', got {objective!r}")
        if horizon is not None and (isinstance(horizon, bool) or not isinstance(horizon, (int, np.integer))
                                    or horizon < 1):
            raise ValueError(f"horizon: expected an integer >= 1 or None (the end of the game), got {horizon!r}")
        if horizon is not None and objective == "win":
            raise ValueError("horizon: expected objective='return' with a horizon (a cut-off game has no winner)")
        self.game = game
        self._game = games.get_game(game)
        self.sims, self.c, self.objective = int(sims), float(c), objective
        self.horizon = None if horizon is None else int(horizon)
        self._make_opponent = opponent
        self._opponents: dict[int, Agent] = {}
        from fiveplay_env.agents.random_agent import RandomAgent  # lazy: the registry's module imports this one

        self._rollout_agent = (rollout or (lambda sd: RandomAgent(sd)))(0)
        self.last_stats: dict[str, Any] = {}

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._info = None
        self._rollout_agent.reset(seed=int(self.rng.integers(2**31)))
        for q, agent in self._opponents.items():
            agent.reset(seed=int(self.rng.integers(2**31)) + q)

    def _opponent(self, seat: int) -> Agent:
        agent = self._opponents.get(seat)
        if agent is None:
            agent = self._make_opponent(int(self.rng.integers(2**31)) + seat)
            self._opponents[seat] = agent
        return agent

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal, info = self.take_information_set(action_mask)
        if info is None:
            return int(legal[0])
        start = _time.perf_counter()
        tree: dict[bytes, dict[str, Any]] = {}
        bounds = [math.inf, -math.inf]
        root = self._key(np.asarray(observation), np.asarray(action_mask))
        for _ in range(self.sims):
            path: list[tuple[dict[str, Any], int]] = []
            v = self._simulate(info.sample(self.rng), info.player, tree, path, bounds)
            bounds[0], bounds[1] = min(bounds[0], v), max(bounds[1], v)
            for node, a in path:
                node["N"] += 1
                node["n"][a] += 1
                node["w"][a] += v
        node = tree.get(root)
        self.last_stats = {"sims": self.sims, "seconds": _time.perf_counter() - start, "nodes": len(tree)}
        if node is None:  # pragma: no cover - the root is always the first node of a simulation
            return int(legal[0])
        return int(max((int(a) for a in legal), key=lambda a: (node["n"][a], node["w"][a])))

    @staticmethod
    def _key(observation: np.ndarray, mask: np.ndarray) -> bytes:
        return np.asarray(observation, np.float32).tobytes() + np.asarray(mask, np.int8).tobytes()

    def _select(self, node: dict[str, Any], legal: np.ndarray, bounds: list[float]) -> int:
        untried = [int(a) for a in legal if node["n"][a] == 0]
        if untried:
            return untried[int(self.rng.integers(len(untried)))]
        span = bounds[1] - bounds[0] if bounds[1] > bounds[0] else 1.0
        logn = math.log(max(node["N"], 1))
        n, w = node["n"], node["w"]
        return max((int(a) for a in legal), key=lambda a: w[a] / n[a] + self.c * span * math.sqrt(logn / n[a]))

    def _simulate(self, world: Any, player: int, tree: dict[bytes, dict[str, Any]],
                  path: list[tuple[dict[str, Any], int]], bounds: list[float]) -> float:
        game = self._game
        n = world.config.num_players
        returns = [0.0] * n
        in_tree = True
        steps = 0
        while not world.is_over and (self.horizon is None or steps < self.horizon):
            p = world.current_player
            mask = world.legal_mask()
            obs = game.observe(world, p)
            if p == player:
                legal = np.flatnonzero(mask)
                if in_tree:
                    key = self._key(obs, mask)
                    node = tree.get(key)
                    if node is None:
                        size = len(mask)
                        node = tree[key] = {"N": 0, "n": np.zeros(size, np.int64), "w": np.zeros(size)}
                        in_tree = False  # one new node per simulation; the rest is the rollout
                    a = self._select(node, legal, bounds)
                    path.append((node, a))
                else:
                    a = int(self._rollout_agent.act(obs, mask))
            else:
                opp = self._opponent(p)
                if opp.uses_engine:
                    opp.observe_engine(world, p)
                a = int(opp.act(obs, mask))
            for q, r in enumerate(world.step(a)):
                returns[q] += r
            steps += 1
        if world.is_over and self.objective == "win":
            return float(game.results(world, [None] * n)["win"][player])
        others = [returns[q] for q in range(n) if q != player]
        return returns[player] - (sum(others) / len(others) if others else 0.0)


__all__ = ["BestResponseSearch"]
