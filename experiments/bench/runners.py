"""The benchmark's loops over the reference engines, the PettingZoo envs and the numpy batched engines
(``fiveplay bench``; see ``fiveplay_env.experiments.bench``), written over ``GameDef`` (``fiveplay_env.games``): any
registered game is measured with its own engine, env and batched engine.

This module imports nothing of ``experiments`` (``fiveplay_env.experiments.bench_trees`` loads it by file path to
measure other code trees with the same loops) and reads a declared fact a tree may lack with a default.
"""
from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable

import numpy as np

from fiveplay_env import games


def median_rate(run: Callable[[float], tuple[int, float]], seconds: float, repeats: int) -> float:
    """The median of ``repeats`` runs' decisions per second."""
    rates = []
    for _ in range(repeats):
        n, dt = run(seconds)
        rates.append(n / dt)
    return statistics.median(rates)


def default_players(game: str) -> list[int]:
    """The player counts measured by default: the game's fewest, 4 (or the nearest allowed) and most."""
    spec = games.get(game).spec
    lo, hi = spec.min_players, spec.max_players
    return sorted({lo, min(max(4, lo), hi), hi})


def _pick(mask: np.ndarray, rnd: random.Random) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[int(rnd.random() * len(legal))])


def _timed_games(play: Callable[[int, random.Random], int]) -> Callable[[float], tuple[int, float]]:
    """A runner: ``run(seconds)`` plays games seeded 0, 1, ... (``play(seed, rnd)`` -> its decisions, the
    random moves drawn from ``rnd``) until ``seconds`` have passed; -> (decisions, seconds taken)."""

    def run(seconds: float) -> tuple[int, float]:
        rnd = random.Random(0)
        decisions, seed = 0, 0
        t0 = time.perf_counter()
        end = t0 + seconds
        while time.perf_counter() < end:
            decisions += play(seed, rnd)
            seed += 1
        return decisions, time.perf_counter() - t0
    return run


# --- reference engines -----------------------------------------------------------------------------
def engine_runner(game: str, n: int, with_obs: bool) -> Callable[[float], tuple[int, float]]:
    """The reference engine's module functions (``BoundEngine``'s ``_new_game``, ``_legal_mask``,
    ``_step``) in a loop of games, the acting player's mask (and, ``with_obs``, observation) each step."""
    g = games.get(game)
    cfg = g.make_config({"num_players": n})
    cls = g.engine_cls
    observe, new_game, legal_mask, step = g.observe_state, cls._new_game, cls._legal_mask, cls._step

    def play(seed: int, rnd: random.Random) -> int:
        s, decisions = new_game(cfg, seed), 0
        while s.current >= 0:  # -1 once the game is over (every engine)
            mask = legal_mask(s)
            if with_obs:
                observe(cfg, s, s.current)
            step(cfg, s, _pick(mask, rnd))
            decisions += 1
        return decisions
    return _timed_games(play)


# --- PettingZoo envs -----------------------------------------------------------------------------------
def aec_runner(game: str, n: int) -> Callable[[float], tuple[int, float]]:
    """The AEC env through ``agent_iter`` / ``last`` / ``step``."""
    env = games.get(game).make_env(num_players=n)

    def play(seed: int, rnd: random.Random) -> int:
        env.reset(seed=seed)
        decisions = 0
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(_pick(obs["action_mask"], rnd))
            decisions += 1
        return decisions
    return _timed_games(play)


def parallel_runner(game: str, n: int) -> Callable[[float], tuple[int, float]]:
    """The parallel env of a simultaneous game; one decision per player that is not waiting
    (``GameDef.wait_action``)."""
    g = games.get(game)
    if not g.parallel:
        raise ValueError(f"parallel: {game} has no parallel env (its dynamics are sequential)")
    env = g.make_env(parallel=True, num_players=n)
    wait = getattr(g, "wait_action", None)

    def play(seed: int, rnd: random.Random) -> int:
        obs, _ = env.reset(seed=seed)
        decisions = 0
        while env.agents:
            acts = {a: _pick(o["action_mask"], rnd) for a, o in obs.items()}
            decisions += sum(1 for a in acts.values() if a != wait)
            obs, *_ = env.step(acts)
        return decisions
    return _timed_games(play)


# --- batched engines -------------------------------------------------------------------------------
def batched_rate(game: str, n: int, b: int, with_obs: bool, seconds: float, repeats: int) -> float | None:
    """The numpy batched engine (``GameDef.batched``) at ``b`` games, or None when the game has none."""
    from fiveplay_env.core.batched import bench_batched

    factory = games.get(game).batched_factory()
    if factory is None:
        return None
    return statistics.median(bench_batched(factory(b, 0, num_players=n), with_obs, seconds)
                             for _ in range(repeats))


def compact_rate(game: str, n: int, b: int, seconds: float, repeats: int) -> float | None:
    """``bench_batched``'s loop with the game's compact observation (``GameDef.compact``, uint8, the batched
    engine's ``observe_compact``) encoded at every step into one reused buffer; None without one."""
    from fiveplay_env.core.batched import bench_batched

    g = games.get(game)
    factory = g.batched_factory()
    if getattr(g, "compact", None) is None or factory is None:
        return None

    def once() -> float:
        engine = factory(b, 0, num_players=n)
        buf = np.empty((b, g.compact_layout(engine.config).size), np.uint8)
        return bench_batched(engine, True, seconds, observe=lambda: engine.observe_compact(out=buf))
    return statistics.median(once() for _ in range(repeats))


def bytes_per_game(game: str, n: int) -> float | None:
    """Memory the batched engine's state takes per game (arrays only, at B = 1,024)."""
    factory = games.get(game).batched_factory()
    if factory is None:
        return None
    return float(factory(1024, 0, num_players=n).bytes_per_game())
