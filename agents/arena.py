"""Play one game between agents through the game's PettingZoo AEC environment.

``play_game(game, config, agents, seed)`` seats ``agents[i]`` as ``player_i``, plays the game to its end
(or the env's truncation), feeding search agents their information set (``observe_engine``) before each
of their decisions and after every step, and returns a ``GameRecord`` with every seat's results and thinking time.
``mean_ci`` is the one 95% interval of a mean that every report of games uses (tournaments, evaluation,
experiments).
"""
from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from fiveplay_env.agents.base import Agent
from fiveplay_env.core.gamedef import GameDef as Game


@dataclass
class GameRecord:
    """One finished game.

    Attributes:
        seed: the game's seed.
        results: ``{metric: [per seat]}`` from the game adapter (``win`` = win share, ties share;
            ``placing`` = 1 for the best; plus the game's metrics, e.g. Take 5 ``score``).
        decisions: decisions each seat took.
        think_s: seconds each seat's agent spent in ``act``.
        think_max_s: each seat's longest single decision, in seconds.
        steps: decisions in the game, all seats.
        rounds: rounds played.
        truncated: True if the env truncated the game before its end.
        actions: every action the engine took, in order (all seats): with the seed and config, the
            game's exact replay (``fiveplay_env.records``).
    """

    seed: int
    results: dict[str, list[float]]
    decisions: list[int]
    think_s: list[float]
    think_max_s: list[float]
    steps: int
    rounds: int
    truncated: bool = False
    actions: list[int] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


Z95 = 1.959964
"""The two-sided 95% quantile of the standard normal distribution."""


def mean_ci(values: Sequence[float]) -> dict[str, Any]:
    """Mean of independent samples with its 95% normal-approximation interval, mean +- Z95 s / sqrt(n):
    ``{"mean", "ci95": [low, high], "half_width", "n"}`` as plain floats; ``mean`` is None without
    samples, ``ci95`` and ``half_width`` are None with fewer than two."""
    n = len(values)
    if n == 0:
        return {"mean": None, "ci95": None, "half_width": None, "n": 0}
    m = float(sum(values) / n)
    if n < 2:
        return {"mean": m, "ci95": None, "half_width": None, "n": n}
    var = sum((v - m) ** 2 for v in values) / (n - 1)
    half = float(Z95 * math.sqrt(var / n))
    return {"mean": m, "ci95": [m - half, m + half], "half_width": half, "n": n}


def play_game(game: Game, config: Any, agents: Sequence[Agent], seed: int) -> GameRecord:
    """Play one game of ``game`` under ``config`` with ``agents[i]`` in seat i; see the module docstring.

    Raises ``ValueError`` if the number of agents differs from ``config.num_players``.
    """
    n = config.num_players
    if len(agents) != n:
        raise ValueError(f"agents: expected {n} agents (one per seat), got {len(agents)}")
    env = game.env.env(config=config)
    env.reset(seed=seed)
    engine = env.unwrapped.engine
    index = {a: i for i, a in enumerate(env.possible_agents)}
    decisions = [0] * n
    think = [0.0] * n
    think_max = [0.0] * n
    elim: list[int | None] = [None] * n
    steps = 0
    actions: list[int] = []
    truncated = False
    perf = time.perf_counter
    watchers = [q for q in range(n) if agents[q].uses_engine]
    for q in watchers:
        agents[q].observe_engine(engine, q)
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            truncated = truncated or trunc  # the env's max_cycles, or the engine's max_steps (over, no winner)
            env.step(None)
            continue
        p = index[name]
        agent = agents[p]
        t0 = perf()
        if agent.uses_engine:
            agent.observe_engine(engine, p)
        action = agent.act(obs["observation"], obs["action_mask"])
        dt = perf() - t0
        think[p] += dt
        if dt > think_max[p]:
            think_max[p] = dt
        decisions[p] += 1
        env.step(action)
        actions.append(int(action))
        steps += 1
        for q in watchers:  # search agents follow the public events of every step
            t1 = perf()
            agents[q].observe_engine(engine, q)
            think[q] += perf() - t1
        alive = game.alive(engine.state)
        if alive is not None:
            for q in range(n):
                if not alive[q] and elim[q] is None:
                    elim[q] = steps
    results = game.results(engine, elim)
    return GameRecord(seed=seed, results=results, decisions=decisions, think_s=think, think_max_s=think_max, steps=steps,
                      rounds=int(game.summary(engine.state).get("rounds", 0)), truncated=truncated, actions=actions)
