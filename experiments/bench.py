"""Throughput benchmark: random legal play, decisions per second, median of several runs.

    python -m experiments.bench                    # everything, default sizes
    python -m experiments.bench --games take5 --players 4 --repeats 5 --seconds 2

Rows (every mode side by side in one run):
- ``engine``: the reference engine alone, acting player's mask only (card plays / decisions per s);
- ``engine+obs``: the reference engine producing the acting player's observation and mask;
- ``aec``: the AEC env through ``agent_iter`` / ``last`` / ``step`` (observations and masks);
- ``parallel``: the parallel env (Take 5); one decision per player that is not waiting;
- ``batched`` rows: the batched engines, B games at once, with and without observation encoding
  (Take 5 also with the compact uint8 observation of ``fiveplay_env.take5.compact``).
Random actions are drawn from the mask inside the timed loop. Quote ratios, not single times.
"""
from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np


def _median_rate(run: Callable[[float], tuple[int, float]], seconds: float, repeats: int) -> float:
    rates = []
    for _ in range(repeats):
        n, dt = run(seconds)
        rates.append(n / dt)
    return statistics.median(rates)


def _pick(mask: np.ndarray, rnd: random.Random) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[int(rnd.random() * len(legal))])


# --- reference engines -----------------------------------------------------------------------------
def _engine_runner(game: str, n: int, with_obs: bool) -> Callable[[float], tuple[int, float]]:
    eng, obs_mod, cfg = _game_modules(game, n)
    observe = obs_mod.observe
    new_game, legal_mask, step = eng.new_game, eng.legal_mask, eng.step

    def run(seconds: float) -> tuple[int, float]:
        rnd = random.Random(0)
        decisions, seed = 0, 0
        t0 = time.perf_counter()
        end = t0 + seconds
        while time.perf_counter() < end:
            s = new_game(cfg, seed)
            seed += 1
            while s.current >= 0:  # -1 once the game is over (both engines)
                mask = legal_mask(s)
                if with_obs:
                    observe(cfg, s, s.current)
                step(cfg, s, _pick(mask, rnd))
                decisions += 1
        return decisions, time.perf_counter() - t0
    return run


def _game_modules(game: str, n: int):
    if game == "take5":
        from fiveplay_env.take5 import engine, observation
        from fiveplay_env.take5.config import Take5Config
        return engine, observation, Take5Config(num_players=n)
    from fiveplay_env.five_alive import engine, observation  # type: ignore[no-redef]
    from fiveplay_env.five_alive.config import FiveAliveConfig
    return engine, observation, FiveAliveConfig(num_players=n)


# --- PettingZoo envs -----------------------------------------------------------------------------------
def _aec_runner(game: str, n: int) -> Callable[[float], tuple[int, float]]:
    import fiveplay_env
    env = fiveplay_env.make(game, num_players=n)

    def run(seconds: float) -> tuple[int, float]:
        rnd = random.Random(0)
        decisions, seed = 0, 0
        t0 = time.perf_counter()
        end = t0 + seconds
        while time.perf_counter() < end:
            env.reset(seed=seed)
            seed += 1
            for _agent in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                env.step(_pick(obs["action_mask"], rnd))
                decisions += 1
        return decisions, time.perf_counter() - t0
    return run


def _parallel_runner(n: int) -> Callable[[float], tuple[int, float]]:
    from fiveplay_env import take5_v0
    env = take5_v0.parallel_env(num_players=n)

    def run(seconds: float) -> tuple[int, float]:
        rnd = random.Random(0)
        decisions, seed = 0, 0
        t0 = time.perf_counter()
        end = t0 + seconds
        while time.perf_counter() < end:
            obs, _ = env.reset(seed=seed)
            seed += 1
            while env.agents:
                acts = {a: _pick(o["action_mask"], rnd) for a, o in obs.items()}
                decisions += sum(1 for a in acts.values() if a != 108)
                obs, *_ = env.step(acts)
        return decisions, time.perf_counter() - t0
    return run


# --- batched engines -------------------------------------------------------------------------------
def _batched_rate(game: str, n: int, b: int, with_obs: bool, seconds: float, repeats: int) -> float | None:
    try:
        if game == "take5":
            from fiveplay_env.take5.batched import bench_take5_batched as fn
        else:
            from fiveplay_env.five_alive.batched import bench_five_alive_batched as fn  # type: ignore
    except ImportError:
        return None
    return statistics.median(fn(n, b, with_obs, seconds) for _ in range(repeats))


def _take5_compact_rate(n: int, b: int, seconds: float, repeats: int) -> float:
    """``bench_batched``'s loop for Take 5 with the compact observation (``observe_compact``, uint8,
    ``fiveplay_env.take5.compact``) encoded at every step into one reused buffer."""
    from fiveplay_env.take5.batched import BatchedTake5
    from fiveplay_env.take5.compact import layout
    from fiveplay_env.take5.config import Take5Config
    from fiveplay_env.vector import random_actions

    def once() -> float:
        engine = BatchedTake5(Take5Config(num_players=n), b, seed=0)
        buf = np.empty((b, layout(n, engine.config.end_score).size), np.uint8)
        rng = np.random.default_rng(0)
        for _ in range(3):
            engine.step(random_actions(engine.legal_action_mask, rng))
        steps, t0 = 0, time.perf_counter()
        now, deadline = t0, t0 + seconds
        while now < deadline:
            for _ in range(8):
                engine.step(random_actions(engine.legal_action_mask, rng))
                engine.observe_compact(out=buf)
            steps += 8
            now = time.perf_counter()
        return steps * b / (now - t0)
    return statistics.median(once() for _ in range(repeats))


def _bytes_per_game(game: str, n: int) -> float | None:
    """Memory the batched engine's state takes per game (arrays only, at B = 1,024)."""
    try:
        from fiveplay_env.vector import make_vec
        env = make_vec(game, 1024, seed=0, num_players=n)
    except ImportError:
        return None
    return float(env.engine.bytes_per_game())


def available_games() -> list[str]:
    import fiveplay_env
    return sorted(fiveplay_env.GAMES)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", nargs="*", default=None, help="take5 and/or five_alive (default: all)")
    ap.add_argument("--players", nargs="*", type=int, default=None,
                    help="player counts (default: take5 2 4 10; five_alive 2 4 6)")
    ap.add_argument("--seconds", type=float, default=1.0, help="length of one timed run")
    ap.add_argument("--repeats", type=int, default=3, help="runs per figure; the median is reported")
    ap.add_argument("--batch", nargs="*", type=int, default=[1, 64, 1024, 4096, 8192],
                    help="batch sizes for the batched engines")
    ap.add_argument("--no-batched", action="store_true", help="skip the batched engines")
    ap.add_argument("--out", type=Path, default=None, help="also write the results as JSON here")
    args = ap.parse_args(argv)
    if args.repeats < 1 or args.seconds <= 0:
        ap.error("--repeats must be >= 1 and --seconds > 0")
    games = args.games or available_games()
    unknown = [g for g in games if g not in available_games()]
    if unknown:
        ap.error(f"unknown game {unknown[0]!r}: expected one of {available_games()}")
    default_players = {"take5": [2, 4, 10], "five_alive": [2, 4, 6]}
    rows: list[dict] = []
    print(f"fiveplay benchmark: random legal play, median of {args.repeats} runs of {args.seconds:g} s "
          f"(python {platform.python_version()}, numpy {np.__version__}, {platform.machine()})")
    print(f"{'game':<11}{'players':>8}  {'what':<26}{'decisions/s':>14}")
    for game in games:
        for n in args.players or default_players[game]:
            cases: list[tuple[str, Callable[[], float | None]]] = [
                ("engine (mask only)", lambda: _median_rate(_engine_runner(game, n, False), args.seconds, args.repeats)),
                ("engine + obs + mask", lambda: _median_rate(_engine_runner(game, n, True), args.seconds, args.repeats)),
                ("AEC env", lambda: _median_rate(_aec_runner(game, n), args.seconds, args.repeats)),
            ]
            if game == "take5":
                cases.append(("parallel env", lambda: _median_rate(_parallel_runner(n), args.seconds, args.repeats)))
            if not args.no_batched:
                for b in args.batch:
                    for obs in (False, True):
                        cases.append((f"batched B={b}{' + obs' if obs else ''}",
                                      lambda b=b, obs=obs: _batched_rate(game, n, b, obs, args.seconds, args.repeats)))
                    if game == "take5":
                        cases.append((f"batched B={b} + compact obs",
                                      lambda b=b: _take5_compact_rate(n, b, args.seconds, args.repeats)))
            if not args.no_batched:
                mem = _bytes_per_game(game, n)
                if mem is not None:
                    rows.append({"game": game, "players": n, "what": "batched state bytes/game", "bytes": mem})
                    print(f"{game:<11}{n:>8}  {'batched state, bytes/game':<26}{mem:>14,.0f}", flush=True)
            for what, fn in cases:
                rate = fn()
                if rate is None:
                    continue
                rows.append({"game": game, "players": n, "what": what, "decisions_per_s": rate})
                print(f"{game:<11}{n:>8}  {what:<26}{rate:>14,.0f}", flush=True)
    result = {"seconds": args.seconds, "repeats": args.repeats, "rows": rows}
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
