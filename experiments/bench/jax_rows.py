"""The JAX rows of the benchmark (``fiveplay bench``; see ``fiveplay_env.experiments.bench``): every game whose
``GameDef.jax_engine`` names a JAX engine, beside the numpy batched engine and Pgx's games; the paired
protocol (``--paired``) and the rule options (``--options``, from each game's presets)."""
from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from fiveplay_env.experiments.bench.runners import batched_rate, compact_rate, default_players
from fiveplay_env import games

def _jax_module(game: str):
    """The game's JAX engine module (``GameDef.jax_engine``), or None (no jax installed, or the game has none)."""
    import importlib
    import importlib.util

    name = games.get(game).jax_engine
    if name is None:
        return None
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
        for n in players or [default_players(game)[1]]:
            env = mod.JaxEnv(num_players=n)
            for b in batches:
                base = batched_rate(game, n, b, True, seconds, repeats)
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
    from fiveplay_env.core.batched import bench_batched

    engine = games.get(game).batched_factory()(b, 0, num_players=n)
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
        for n in players or [default_players(game)[1]]:
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


def options_of(game: str) -> list[tuple[str, dict]]:
    """One option at a time against the default rules: every preset of the game (``GameDef.presets``) as the
    config fields it changes, the player count aside (the options run at 4 players), and the compact
    observation when the game declares one (``observation``: the JAX engine's constructor argument and the
    numpy engine's compact encoder)."""
    g = games.get(game)
    default = g.config_dict(g.make_config({}))
    out: list[tuple[str, dict]] = []
    seen: list[dict] = [{}]
    for name, preset in g.presets.items():
        fields = {k: v for k, v in g.config_dict(preset).items() if v != default.get(k) and k != "num_players"}
        if fields not in seen:
            seen.append(fields)
            out.append((name, fields))
    if g.compact is not None:
        out.append(("compact observation", {"observation": "compact"}))
    return out


def _numpy_option_rate(game: str, fields: dict, b: int, seconds: float, repeats: int) -> float:
    """The numpy batched engine with observations under ``fields`` (``observation="compact"``: the game's
    compact uint8 encoder instead of the float one)."""
    from fiveplay_env.core.batched import bench_batched

    fields = dict(fields)
    if fields.pop("observation", None) == "compact":
        return compact_rate(game, 4, b, seconds, repeats)
    factory = games.get(game).batched_factory()
    return statistics.median(bench_batched(factory(b, 0, num_players=4, **fields), True, seconds)
                             for _ in range(repeats))


def _option_rows(games: list[str], b: int, seconds: float, repeats: int, rows: list[dict]) -> None:
    """The ``--options`` section (see the module docstring); appends to ``rows`` and prints as it goes."""
    for game in games:
        mod = _jax_module(game)
        if mod is None:
            continue
        base_np = _numpy_option_rate(game, {}, b, seconds, repeats)
        base_jx = _jax_rates(mod.JaxEnv(num_players=4), b, seconds, repeats)["scan"]
        # the default rules once more at the end: how far the same measurement drifts within the run (JAX on
        # this kind of CPU varies more between passes than most options cost: read the ratios against it)
        cases = [("default rules", {}, False)] + [(lbl, f, True) for lbl, f in options_of(game)] + [
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
