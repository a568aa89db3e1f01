"""The same ``experiments/bench/runners.py`` measurements over several code trees, in one run, alternating.

    git worktree add /tmp/old d62615d
    python -m fiveplay_env.experiments.bench_trees --trees /tmp/old . --case aec:five_alive:4 --rounds 9 --cpu-time

Each measurement runs in a fresh subprocess whose ``PYTHONPATH`` is one tree (so ``fiveplay_env`` is
that tree's), while the benchmark functions are always loaded from one file, this tree's
``experiments/bench/runners.py`` by default: every tree is measured by the same code. Rounds alternate the
order of the trees (A B, B A, ...); the report gives each tree's median rate, the ratio of medians to
the first tree, and the median of the per-round ratios (paired: the trees of one round ran seconds
apart, under the same machine load). ``--cpu-time`` times the loops in the process's CPU time rather
than wall time, which other processes' load disturbs less. Quote ratios, not single rates.

Cases are ``kind:game:players``: ``engine`` (mask only), ``engine+obs``, ``aec``, ``parallel`` (a simultaneous game),
``batched-B`` / ``batched-B+obs`` (B games at once) and ``compact-B`` (the game's compact observation).
The loops read the game from each tree's ``fiveplay_env.games``; a fact an older tree does not declare
(``compact``) makes that case fail for it.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

_CHILD = r'''
import importlib.util, json, sys, time, types
bench_file, kind, game, n, seconds, cpu = sys.argv[1:7]
n, seconds = int(n), float(seconds)
spec = importlib.util.spec_from_file_location("bench_under_test", bench_file)
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
if cpu == "cpu":  # time the loops in this process's CPU time
    bench.time = types.SimpleNamespace(perf_counter=time.process_time)
    try:  # the batched engines' shared loop (not in every tree)
        import fiveplay_env.core.batched as core_batched
        core_batched.time = bench.time
    except ImportError:
        pass
if kind in ("engine", "engine+obs", "aec", "parallel"):
    run = {"engine": lambda: bench.engine_runner(game, n, False), "engine+obs": lambda: bench.engine_runner(game, n, True),
           "aec": lambda: bench.aec_runner(game, n), "parallel": lambda: bench.parallel_runner(game, n)}[kind]()
    run(min(0.3, seconds))  # warm-up (caches, first imports)
    k, dt = run(seconds)
    rate = k / dt
elif kind.startswith("batched-"):
    b, obs = kind[len("batched-"):].partition("+obs")[:2]
    rate = bench.batched_rate(game, n, int(b), bool(obs), seconds, 1)
elif kind.startswith("compact-"):
    rate = bench.compact_rate(game, n, int(kind[len("compact-"):]), seconds, 1)
else:
    sys.exit(f"case kind: expected engine, engine+obs, aec, parallel, batched-B[+obs] or compact-B, got {kind!r}")
import fiveplay_env
print(json.dumps({"rate": rate, "package": fiveplay_env.__file__}))
'''


@dataclass(frozen=True)
class TreesSpec:
    """What to measure: ``trees`` (code trees, the first is the reference of the ratios), ``cases``
    (``kind:game:players``), ``rounds``, ``seconds`` per measurement, ``cpu_time``, and the ``bench``
    file whose functions measure every tree."""

    trees: tuple[str, ...]
    cases: tuple[str, ...] = ("aec:five_alive:4",)
    rounds: int = 7
    seconds: float = 1.0
    cpu_time: bool = False
    bench: str = field(default_factory=lambda: str(Path(__file__).with_name("bench") / "runners.py"))

    def __post_init__(self) -> None:
        if len(self.trees) < 1:
            raise ValueError("trees: expected at least one code tree")
        for t in self.trees:
            if not (Path(t) / "fiveplay_env" / "__init__.py").is_file():
                raise ValueError(f"trees: expected folders holding fiveplay_env/, got {t!r}")
        for c in self.cases:
            if len(c.split(":")) != 3:
                raise ValueError(f"cases: expected kind:game:players, got {c!r}")
        if self.rounds < 1 or self.seconds <= 0:
            raise ValueError(f"rounds, seconds: expected >= 1 and > 0, got {self.rounds}, {self.seconds}")


def _measure(spec: TreesSpec, tree: str, case: str) -> float:
    kind, game, n = case.split(":")
    env = dict(os.environ, PYTHONPATH=str(Path(tree).resolve()))
    out = subprocess.run([sys.executable, "-c", _CHILD, spec.bench, kind, game, n, str(spec.seconds),
                          "cpu" if spec.cpu_time else "wall"], env=env, cwd=tree, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"{tree} {case}: the measurement failed:\n{out.stderr[-2000:]}")
    got = json.loads(out.stdout.strip().splitlines()[-1])
    if not Path(got["package"]).resolve().is_relative_to(Path(tree).resolve()):
        raise RuntimeError(f"{tree}: measured {got['package']}, not this tree's fiveplay_env")
    return float(got["rate"])


def run(spec: TreesSpec) -> dict:
    """Measure every case on every tree, alternating; print and return the figures."""
    results: dict = {"spec": {**spec.__dict__}, "cases": {}}
    ref = spec.trees[0]
    for case in spec.cases:
        rates: dict[str, list[float]] = {t: [] for t in spec.trees}
        for r in range(spec.rounds):
            for t in (spec.trees if r % 2 == 0 else spec.trees[::-1]):
                rates[t].append(_measure(spec, t, case))
        rows = {}
        for t in spec.trees:
            med = statistics.median(rates[t])
            paired = statistics.median(x / y for x, y in zip(rates[t], rates[ref]))
            rows[t] = {"median": med, "ratio": med / statistics.median(rates[ref]), "paired_ratio": paired,
                       "rates": rates[t]}
            print(f"{case:<26} {t:<24} {med:>12,.0f}/s  ratio {rows[t]['ratio']:.3f}  paired {paired:.3f}  "
                  f"runs {[round(x) for x in rates[t]]}", flush=True)
        results["cases"][case] = rows
    return results


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trees", nargs="+", required=True, help="code trees (folders holding fiveplay_env/); the first is the reference")
    ap.add_argument("--case", nargs="+", default=["aec:five_alive:4"], help="kind:game:players (see above)")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--seconds", type=float, default=1.0, help="length of one timed loop")
    ap.add_argument("--cpu-time", action="store_true", help="time the loops in CPU time instead of wall time")
    ap.add_argument("--bench", default=None, help="the runners.py whose functions measure every tree (default: this tree's)")
    ap.add_argument("--out", type=Path, default=None, help="also write the figures as JSON here")
    a = ap.parse_args(argv)
    try:
        spec = TreesSpec(tuple(a.trees), tuple(a.case), a.rounds, a.seconds, a.cpu_time,
                         **({"bench": a.bench} if a.bench else {}))
    except ValueError as e:
        ap.error(str(e))
    out = run(spec)
    if a.out:
        a.out.parent.mkdir(parents=True, exist_ok=True)
        a.out.write_text(json.dumps(out, indent=2))
    return out


if __name__ == "__main__":
    main(sys.argv[1:])
