"""Throughput benchmark: random legal play, decisions per second, median of several runs.

    fiveplay bench                    # everything, default sizes
    fiveplay bench --games take5 --players 4 --repeats 5 --seconds 2

Rows (every mode side by side in one run):
- ``engine``: the reference engine alone, acting player's mask only (card plays / decisions per s);
- ``engine+obs``: the reference engine producing the acting player's observation and mask;
- ``aec``: the AEC env through ``agent_iter`` / ``last`` / ``step`` (observations and masks);
- ``parallel``: the parallel env (Take 5); one decision per player that is not waiting;
- ``batched`` rows: the batched engines, B games at once, with and without observation encoding
  (Take 5 also with the compact uint8 observation of ``fiveplay_env.take5.compact``).
- ``jax`` rows (the optional ``jax`` extra; written over any game's ``fiveplay_env.<game>.jax_engine``,
  so every game with a JAX engine gets them): at each ``--jax-batch`` size B, the numpy batched engine
  with observations (what ``make_vec`` returns at every step) beside the JAX engine (Pgx's protocol:
  ``vmap`` of a step with same-step autoreset, random legal actions drawn in JAX, the float observation
  in the state) as a Python loop of jitted steps and as ``lax.scan`` over 64 steps; the compile times of
  both and the bytes per game of the JAX state; and, when ``pgx`` is installed, Pgx's tic-tac-toe and
  Leduc hold'em on the same protocol (``pgx.experimental.auto_reset``), with the ratios of the same run.
- ``--options`` rows: what each rule option costs, per game with a JAX engine, at one batch size (the
  largest ``--jax-batch`` up to 4,096) and 4 players: the numpy batched engine with observations and the
  JAX engine (``lax.scan`` over 64 steps) under each option of ``OPTIONS`` alone, each beside the
  default rules as a ratio of the same run (below 1: the option slows the engine down), and the default
  rules measured again at the end (its ratio shows the run's drift: compare the options' ratios with it).
- ``--paired ROUNDS`` (the repeatable JAX figure; with ``--cpus`` to pin the process): the JAX section as
  paired rounds instead: per game and batch size, the JAX engine (``lax.scan`` over 64 steps), the numpy
  batched engine with observations and Pgx's two games are all compiled and warmed first, then each
  round runs one ``--seconds`` pass of each, the order rotated by one every round, and every ratio is
  taken within a round (passes seconds apart see the same machine): the median of the rounds' ratios
  with their range. JAX's passes on a shared CPU drift by more than the options cost (1.5-3x within a
  run was seen); a ratio of two passes run side by side moves much less.
Random actions are drawn from the mask inside the timed loop. Quote ratios, not single times.

    fiveplay bench --jax-only --paired 9 --cpus 0 --jax-batch 4096 --seconds 1
"""
from __future__ import annotations

import argparse
import json
import os
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


# --- JAX engines and Pgx ---------------------------------------------------------------------------------
def _jax_module(game: str):
    """The game's JAX engine module, or None (no jax installed, or the game has none yet)."""
    import importlib
    import importlib.util

    name = f"fiveplay_env.{game}.jax_engine"
    try:
        if importlib.util.find_spec("jax") is None or importlib.util.find_spec(name) is None:
            return None
        return importlib.import_module(name)
    except ImportError:
        return None


def _jax_random_legal(key, mask):
    """One legal action per row of ``mask`` (bool [B, A]), uniformly: the rank among the legal ones from one
    uniform per row, found through a running count (the same sampler for every JAX row, Pgx's included)."""
    import jax
    import jax.numpy as jnp

    u = jax.random.uniform(key, mask.shape[:-1])
    run = jax.lax.associative_scan(jnp.add, mask.astype(jnp.int32), axis=mask.ndim - 1)  # XLA's CPU cumsum is quadratic
    count = run[..., -1]
    r = jnp.minimum((u * count).astype(jnp.int32), count - 1)
    return jnp.argmax(run > r[..., None], axis=-1).astype(jnp.int32)


def _jax_protocol(env, b: int, compiler_options: dict | None = None) -> dict:
    """Jitted runners for ``env`` (Pgx's Env shape) at batch size ``b``: ``init``, ``loop`` (one step per
    call) and ``scan`` (64 steps per call) with same-step autoreset (the env's ``step_autoreset`` if it
    has one, else ``pgx.experimental.auto_reset``'s contract, which under ``vmap`` runs ``init`` for every
    game at every step) and random legal actions. ``compiler_options``: passed to ``jax.jit`` (dry runs
    lower XLA's optimisation level: compiling dominates them)."""
    import jax
    import jax.numpy as jnp

    step_ar = getattr(env, "step_autoreset", None)
    if step_ar is None:  # pgx.experimental.auto_reset's contract, written out (no pgx needed)
        def step_ar(state, action, key):
            k1, k2 = jax.random.split(key)
            state = state.replace(terminated=jnp.zeros_like(state.terminated), truncated=jnp.zeros_like(state.truncated),
                                  rewards=jnp.zeros_like(state.rewards))
            state = env.step(state, action, k1)
            done = state.terminated | state.truncated
            fresh = env.init(k2).replace(terminated=state.terminated, truncated=state.truncated, rewards=state.rewards)
            return jax.lax.cond(done, lambda: fresh, lambda: state)
    vstep = jax.vmap(step_ar)

    def one(carry):
        state, key = carry
        key, k1, k2 = jax.random.split(key, 3)
        action = _jax_random_legal(k1, state.legal_action_mask)
        return vstep(state, action, jax.random.split(k2, b)), key

    def scan(carry):
        return jax.lax.scan(lambda c, _: (one(c), None), carry, None, length=64)[0]

    def jit(f):
        return jax.jit(f, compiler_options=compiler_options)

    init = jit(lambda key: (jax.vmap(env.init)(jax.random.split(key, b)), key))
    return {"init": init, "loop": jit(one), "scan": jit(scan)}


def _jax_rates(env, b: int, seconds: float, repeats: int, compiler_options: dict | None = None) -> dict:
    """Decisions per second of ``env`` at batch size ``b`` (loop and scan), compile times, bytes per game."""
    import jax

    fns = _jax_protocol(env, b, compiler_options)
    carry = fns["init"](jax.random.key(0))
    jax.block_until_ready(carry)
    out = {"bytes": sum(x.nbytes for x in jax.tree_util.tree_leaves(carry[0])) / b}
    for name, steps in (("loop", 1), ("scan", 64)):
        fn = fns[name]
        t0 = time.perf_counter()
        carry = fn(carry)
        jax.block_until_ready(carry)
        out[f"compile_{name}"] = time.perf_counter() - t0  # the first call: tracing, compiling and one run
        rates = []
        for _ in range(repeats):
            rate, carry = _timed_pass(fn, carry, steps * b, seconds, 8 if steps == 1 else 1)
            rates.append(rate)
        out[name] = statistics.median(rates)
    return out


def _timed_pass(fn, carry, decisions_per_call: int, seconds: float, calls_per_sync: int = 1):
    """Call the jitted ``fn`` on ``carry`` until ``seconds`` have passed, waiting for the device every
    ``calls_per_sync`` calls; -> (decisions per second, the last carry)."""
    import jax

    calls, t0 = 0, time.perf_counter()
    while True:
        for _ in range(calls_per_sync):
            carry = fn(carry)
            calls += 1
        jax.block_until_ready(carry)
        dt = time.perf_counter() - t0
        if dt >= seconds:
            return calls * decisions_per_call / dt, carry


def _pgx_envs() -> dict:
    """Pgx's tic-tac-toe and Leduc hold'em by name, or nothing when ``pgx`` is not installed."""
    try:
        import pgx
    except ImportError:
        return {}
    return {"tic_tac_toe": pgx.make("tic_tac_toe"), "leduc_holdem": pgx.make("leduc_holdem")}


def _jax_rows(games: list[str], players: list[int] | None, batches: list[int], seconds: float, repeats: int,
              rows: list[dict]) -> None:
    """The JAX section (see the module docstring); appends to ``rows`` and prints as it goes."""
    default_players = {"take5": [4], "five_alive": [4]}

    def emit(game: str, n: int | str, what: str, key: str, value: float, fmt: str = ",.0f") -> None:
        rows.append({"game": game, "players": n, "what": what, key: value})
        print(f"{game:<11}{n!s:>8}  {what:<26}{value:>14{fmt}}", flush=True)

    pgx_envs = _pgx_envs()
    pgx_rates: dict[tuple[str, int], float] = {}
    for b in batches:
        for name, penv in pgx_envs.items():
            r = _jax_rates(penv, b, seconds, repeats)
            pgx_rates[(name, b)] = r["scan"]
            emit("pgx", penv.num_players, f"{name} scan64 B={b}", "decisions_per_s", r["scan"])
    for game in games:
        mod = _jax_module(game)
        if mod is None:
            continue
        for n in players or default_players.get(game, [4]):
            env = mod.JaxEnv(num_players=n)
            for b in batches:
                base = _batched_rate(game, n, b, True, seconds, repeats)
                r = _jax_rates(env, b, seconds, repeats)
                if base is not None:
                    emit(game, n, f"numpy batched B={b} + obs", "decisions_per_s", base)
                emit(game, n, f"jax loop B={b}", "decisions_per_s", r["loop"])
                emit(game, n, f"jax scan64 B={b}", "decisions_per_s", r["scan"])
                if base:
                    emit(game, n, f"  ratio scan64/numpy B={b}", "ratio", r["scan"] / base, ".2f")
                for name in pgx_envs:
                    emit(game, n, f"  ratio scan64/{name} B={b}", "ratio", r["scan"] / pgx_rates[(name, b)], ".2f")
                emit(game, n, f"jax compile loop B={b}, s", "seconds", r["compile_loop"], ".1f")
                emit(game, n, f"jax compile scan B={b}, s", "seconds", r["compile_scan"], ".1f")
                emit(game, n, f"jax state bytes/game B={b}", "bytes", r["bytes"])


class _Runner:
    """One contestant of the paired protocol: ``run(seconds)`` -> decisions/s, state kept between calls
    (compiled once, stepped on from where the last pass stopped)."""

    def __init__(self, label: str, run: Callable[[float], float]) -> None:
        self.label, self.run = label, run


def _numpy_runner(game: str, n: int, b: int) -> _Runner:
    import fiveplay_env.games
    from fiveplay_env.core.batched import bench_batched

    engine = fiveplay_env.games.get(game).batched_factory()(b, 0, num_players=n)
    return _Runner(f"numpy batched B={b} + obs", lambda seconds: bench_batched(engine, True, seconds))


def _jax_runner(label: str, env, b: int) -> _Runner:
    """``lax.scan`` over 64 steps of ``_jax_protocol`` (compiled here, outside every timed pass)."""
    import jax

    fns = _jax_protocol(env, b)
    box = [fns["scan"](fns["init"](jax.random.key(0)))]
    jax.block_until_ready(box[0])

    def run(seconds: float) -> float:
        rate, box[0] = _timed_pass(fns["scan"], box[0], 64 * b, seconds)
        return rate
    return _Runner(label, run)


def _paired_passes(field: list[_Runner], seconds: float, rounds: int) -> dict[str, list[float]]:
    """Each runner's rate in each of ``rounds`` rounds (lists in round order): one pass of every runner per
    round, round k starting with runner k (mod len) so that no runner always runs first or after the same one."""
    rates: dict[str, list[float]] = {r.label: [] for r in field}
    for k in range(rounds):
        for r in field[k % len(field):] + field[:k % len(field)]:
            rates[r.label].append(r.run(seconds))
    return rates


def _paired_rows(games: list[str], players: list[int] | None, batches: list[int], seconds: float, rounds: int,
                 rows: list[dict]) -> None:
    """The ``--paired`` protocol (see the module docstring): per game, player count and batch size, every
    contestant compiled first, then ``rounds`` rounds of one timed pass each, the order rotated by one
    from round to round; each ratio is taken within a round (the passes of a round ran seconds apart),
    and the median of the rounds' ratios is reported with their range."""
    pgx_envs = _pgx_envs()
    for game in games:
        mod = _jax_module(game)
        if mod is None:
            continue
        for n in players or [4]:
            for b in batches:
                jx = _jax_runner(f"jax scan64 B={b}", mod.JaxEnv(num_players=n), b)
                others = [_numpy_runner(game, n, b)] + [_jax_runner(f"pgx {name} scan64 B={b}", env, b)
                                                        for name, env in pgx_envs.items()]
                field = [jx] + others
                rates = _paired_passes(field, seconds, rounds)
                for r in field:
                    med = statistics.median(rates[r.label])
                    rows.append({"game": game, "players": n, "what": f"paired {r.label}", "decisions_per_s": med,
                                 "passes": rates[r.label]})
                    print(f"{game:<11}{n:>8}  {'paired ' + r.label:<44}{med:>14,.0f}  "
                          f"(passes {min(rates[r.label]):,.0f}..{max(rates[r.label]):,.0f})", flush=True)
                for r in others:
                    ratios = [a / o for a, o in zip(rates[jx.label], rates[r.label])]
                    med = statistics.median(ratios)
                    rows.append({"game": game, "players": n, "what": f"paired ratio jax/{r.label}", "ratio": med,
                                 "ratios": ratios})
                    print(f"{game:<11}{n:>8}  {'  ratio jax / ' + r.label:<44}{med:>14.2f}  "
                          f"(rounds {min(ratios):.2f}..{max(ratios):.2f})", flush=True)


# One option at a time against the default rules (the config fields are the game's own; ``observation`` is
# the JAX engine's constructor argument and the numpy engine's compact encoder).
OPTIONS: dict[str, list[tuple[str, dict]]] = {
    "take5": [("mode=round", {"mode": "round"}), ("row_pick=min_bullheads", {"row_pick": "min_bullheads"}),
              ("end_score=100", {"end_score": 100}), ("professional", {"professional": True}),
              ("professional + draft", {"professional": True, "draft": True}), ("compact observation", {"observation": "compact"})],
    "five_alive": [("sudden_death", {"variant": "sudden_death"}), ("teams", {"variant": "teams"}),
                   ("bomb_zero_optional", {"bomb_zero_optional": True}),
                   ("allow_voluntary_bust", {"allow_voluntary_bust": True}),
                   ("empty_draw_pile=skip", {"empty_draw_pile": "skip"})],
}


def _numpy_option_rate(game: str, fields: dict, b: int, seconds: float, repeats: int) -> float:
    """The numpy batched engine with observations under ``fields`` (``observation="compact"``: Take 5's
    uint8 encoder instead of the float one)."""
    import fiveplay_env.games
    from fiveplay_env.core.batched import bench_batched

    fields = dict(fields)
    if fields.pop("observation", None) == "compact":
        return _take5_compact_rate(4, b, seconds, repeats)
    factory = fiveplay_env.games.get(game).batched_factory()
    return statistics.median(bench_batched(factory(b, 0, num_players=4, **fields), True, seconds)
                             for _ in range(repeats))


def _option_rows(games: list[str], b: int, seconds: float, repeats: int, rows: list[dict]) -> None:
    """The ``--options`` section (see the module docstring); appends to ``rows`` and prints as it goes."""
    for game in games:
        mod = _jax_module(game)
        if mod is None or game not in OPTIONS:
            continue
        base_np = _numpy_option_rate(game, {}, b, seconds, repeats)
        base_jx = _jax_rates(mod.JaxEnv(num_players=4), b, seconds, repeats)["scan"]
        # the default rules once more at the end: how far the same measurement drifts within the run (JAX on
        # this kind of CPU varies more between passes than most options cost: read the ratios against it)
        cases = [("default rules", {}, False)] + [(lbl, f, True) for lbl, f in OPTIONS[game]] + [
            ("default rules, again", {}, True)]
        for label, fields, measure in cases:
            np_rate = _numpy_option_rate(game, fields, b, seconds, repeats) if measure else base_np
            jx_rate = (_jax_rates(mod.JaxEnv(num_players=4, **fields), b, seconds, repeats)["scan"] if measure
                       else base_jx)
            row = {"game": game, "players": 4, "what": f"option {label} B={b}", "numpy_decisions_per_s": np_rate,
                   "jax_decisions_per_s": jx_rate, "numpy_ratio": np_rate / base_np, "jax_ratio": jx_rate / base_jx}
            rows.append(row)
            print(f"{game:<11}{4:>8}  {('option ' + label):<26}{np_rate:>14,.0f} numpy ({row['numpy_ratio']:.2f}x)"
                  f"{jx_rate:>14,.0f} jax scan64 ({row['jax_ratio']:.2f}x)", flush=True)


def _pin(ap: argparse.ArgumentParser, cpus: list[int]) -> None:
    """Pin this process to ``cpus`` (before JAX is imported, so that XLA's thread pool fits them)."""
    if not hasattr(os, "sched_setaffinity"):
        ap.error("--cpus: this platform cannot pin a process (Linux only); leave --cpus out")
    allowed = sorted(os.sched_getaffinity(0))
    if not cpus or any(c not in allowed for c in cpus):
        ap.error(f"--cpus: expected CPUs among {allowed}, got {cpus}")
    if "jax" in sys.modules:
        ap.error("--cpus: jax is already imported in this process; pin it from the command line (taskset)")
    os.sched_setaffinity(0, set(cpus))


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
    ap.add_argument("--jax-batch", nargs="*", type=int, default=[1, 256, 4096, 65536],
                    help="batch sizes of the JAX rows (default 1 256 4096 65536)")
    ap.add_argument("--jax-players", nargs="*", type=int, default=None, help="player counts of the JAX rows (default 4)")
    ap.add_argument("--no-jax", action="store_true", help="skip the JAX and Pgx rows")
    ap.add_argument("--jax-only", action="store_true", help="only the JAX and Pgx rows")
    ap.add_argument("--options", action="store_true",
                    help="also the cost of each rule option (numpy batched and JAX, one batch size, 4 players)")
    ap.add_argument("--paired", type=int, default=0, metavar="ROUNDS",
                    help="the JAX section as paired rounds: every contestant compiled first, then ROUNDS rounds of "
                         "one --seconds pass each in rotating order, ratios taken within a round (the repeatable "
                         "figure; replaces --repeats there)")
    ap.add_argument("--cpus", nargs="*", type=int, default=None, metavar="CPU",
                    help="pin the benchmark to these CPUs (Linux sched_setaffinity) before anything is imported; "
                         "XLA sizes its thread pool to them")
    ap.add_argument("--out", type=Path, default=None, help="also write the results as JSON here")
    args = ap.parse_args(argv)
    if args.repeats < 1 or args.seconds <= 0 or args.paired < 0:
        ap.error("--repeats must be >= 1, --seconds > 0 and --paired >= 0")
    if args.cpus is not None:
        _pin(ap, args.cpus)
    games = args.games or available_games()
    unknown = [g for g in games if g not in available_games()]
    if unknown:
        ap.error(f"unknown game {unknown[0]!r}: expected one of {available_games()}")
    default_players = {"take5": [2, 4, 10], "five_alive": [2, 4, 6]}
    rows: list[dict] = []
    protocol = (f"JAX rows: {args.paired} paired rounds" if args.paired and not args.no_jax else
                f"median of {args.repeats} runs")
    print(f"fiveplay benchmark: random legal play, {protocol} of {args.seconds:g} s "
          f"(python {platform.python_version()}, numpy {np.__version__}, {platform.machine()})")
    print(f"{'game':<11}{'players':>8}  {'what':<26}{'decisions/s':>14}")
    for game in ([] if args.jax_only else games):
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
    if not args.no_jax and args.paired:
        _paired_rows(games, args.jax_players, args.jax_batch, args.seconds, args.paired, rows)
    elif not args.no_jax:
        _jax_rows(games, args.jax_players, args.jax_batch, args.seconds, args.repeats, rows)
    if args.options:
        sizes = [b for b in args.jax_batch if b <= 4096] or [min(args.jax_batch)]
        _option_rows(games, max(sizes), args.seconds, args.repeats, rows)
    result = {"seconds": args.seconds, "repeats": args.repeats, "rows": rows}
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
