"""GPU check: training throughput on a device for both games, and a short Take 5 learning curve.

    fiveplay gpu-check                       # cuda: throughput of both games, 10-minute curve
    fiveplay gpu-check --device cpu --seconds 2 --curve-minutes 0.2 --num-envs 64   # a dry run

A prepared, self-contained script for a machine with a GPU (device time is short: it runs once, prints
as it goes and writes everything to ``--out/gpu_check.json``):

1. throughput: for Take 5 (4 players, one round) and 5 Alive (4 players), a ``Trainer`` on ``--device``
   with ``--num-envs`` games side by side and ``--minibatch-size`` samples per gradient step (sizes that
   suit a GPU by default), trained for ``--seconds`` after one warm-up update; decisions per second and
   the share of time per part (engine, network, opponents, update, other), as ``fiveplay_env.experiments.train``
   reports them; with ``--compact-obs`` for Take 5 too (the observation decoded on the device);
2. a Take 5 learning curve of ``--curve-minutes`` minutes (``fiveplay_env.experiments.train`` with ``--device``,
   default settings otherwise, evaluation every ``--eval-interval`` updates against random and
   take5-safest): its ``curves.csv`` rows (decisions, training seconds, mean score, win rate).

Engines and heuristic opponents run on the CPU; the networks and the update run on the device.

3. with ``--jax`` (or ``--jax-only``, which skips 1 and 2): the JAX engines of every game that has one
   (``fiveplay_env.<game>.jax_engine``) on JAX's default device at each ``--jax-batch`` size (up to 2**20
   by default on a GPU): decisions per second of ``lax.scan`` over 64 steps of ``vmap``ped steps with
   same-step autoreset and random legal actions (``fiveplay_env.experiments.bench``'s protocol), compile time, bytes
   per game of the state; then the equality check on the device: ``chance="reference"`` games stepped
   there beside the reference engine, every mask, observation, reward and termination compared.

    fiveplay gpu-check --jax-only --jax-batch 64 --seconds 1 --jax-equal-steps 40   # CPU dry run
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

import fiveplay_env.games


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m fiveplay_env.experiments.gpu_check", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="cuda", choices=["auto", "cpu", "cuda"], help="device (default cuda)")
    ap.add_argument("--seconds", type=float, default=60.0, help="throughput measurement per case (default 60)")
    ap.add_argument("--num-envs", type=int, default=2048, help="games side by side (default 2048)")
    ap.add_argument("--minibatch-size", type=int, default=8192, help="samples per gradient step (default 8192)")
    ap.add_argument("--curve-minutes", type=float, default=10.0, help="Take 5 learning curve length, 0: none (default 10)")
    ap.add_argument("--eval-interval", type=int, default=10, help="updates between evaluations of the curve (default 10)")
    ap.add_argument("--eval-games", type=int, default=400, help="games per evaluation (default 400)")
    ap.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: all cores)")
    ap.add_argument("--out", default="runs/gpu_check", help="output folder (default runs/gpu_check)")
    ap.add_argument("--jax", action="store_true", help="also measure the JAX engines (part 3)")
    ap.add_argument("--jax-only", action="store_true", help="only the JAX engines (part 3: no torch needed)")
    ap.add_argument("--jax-batch", nargs="*", type=int, default=None,
                    help="JAX batch sizes (default 2**10 2**14 2**17 2**20 on a GPU, 64 1024 on a CPU)")
    ap.add_argument("--jax-games", nargs="*", default=None, choices=sorted(fiveplay_env.games.names()),
                    help="the games of part 3 (default: every game with a JAX engine)")
    ap.add_argument("--jax-equal-steps", type=int, default=300, help="steps of the on-device equality check (default 300)")
    ap.add_argument("--jax-compile-fast", action="store_true",
                    help="compile without LLVM's optimisations (short dry runs: the rates then understate)")
    return ap


def cases() -> list[tuple[str, str, dict[str, Any], bool]]:
    """The throughput rows: each built-in game at 4 players in its quick preset (``GameDef.quick_config``),
    and again with the compact observation where the game declares one."""
    from fiveplay_env import games

    out = []
    for g in games.BUILTIN:
        label = f"{g.name} 4p {g.quick_preset or 'default'}"
        out.append((g.name, label, g.quick_config(num_players=4), False))
        if g.compact is not None:
            out.append((g.name, label + ", compact obs", g.quick_config(num_players=4), True))
    return out


def throughput(game: str, config: dict[str, Any], compact: bool, device: str, num_envs: int, minibatch: int,
               seconds: float) -> dict[str, Any]:
    """Decisions per second of PPO training (default opponents and settings but the sizes) on ``device``."""
    import torch

    from fiveplay_env.agents.learned.algorithms.ppo import PPOConfig as TrainConfig
    from fiveplay_env.agents.learned.trainer import Trainer
    from fiveplay_env.experiments.train import best_heuristic

    cfg = TrainConfig(game=game, config=dict(config), opponents=[(best_heuristic(game), 2.0), ("self", 1.0), ("pool", 1.0)],
                      total_decisions=10 ** 12, num_envs=num_envs, minibatch_size=minibatch, compact_obs=compact)
    tr = Trainer(cfg, device=device)
    tr.train_update()  # warm-up (allocations, kernels)
    if tr.device.type == "cuda":
        torch.cuda.synchronize()
    d0, timers0 = tr.decisions, dict(tr.timers.as_dict())
    t0 = time.perf_counter()
    updates = 0
    while time.perf_counter() - t0 < seconds or updates == 0:
        tr.train_update()
        updates += 1
    if tr.device.type == "cuda":
        torch.cuda.synchronize()
    wall = time.perf_counter() - t0
    parts = {k: tr.timers.as_dict()[k] - timers0[k] for k in ("engine", "network", "opponents", "update", "other")}
    total = sum(parts.values())
    out = {"decisions": tr.decisions - d0, "updates": updates, "seconds": wall,
           "decisions_per_s": (tr.decisions - d0) / wall, "share": {k: v / total for k, v in parts.items()},
           "device": str(tr.device), "num_envs": num_envs, "minibatch_size": minibatch}
    if tr.device.type == "cuda":
        out["gpu"] = torch.cuda.get_device_name(tr.device)
        out["max_memory_gb"] = torch.cuda.max_memory_allocated(tr.device) / 2 ** 30
    return out


def jax_equality(game: str, config: dict[str, Any], batch: int, steps: int, seed: int = 0,
                 compiler_options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Step ``batch`` games of ``game``'s JAX engine (``chance="reference"``) on JAX's default device beside
    the reference engine for ``steps`` steps (finished games restart from their next seed): every mask,
    observation (acting seat), reward and termination is compared. Returns the counts; a difference
    raises ``AssertionError`` naming the game, the step and the field."""
    import importlib

    import jax
    import jax.numpy as jnp
    import numpy as np

    from fiveplay_env.core import jax_seeding as js
    from fiveplay_env.core import seeding

    mod = importlib.import_module(f"fiveplay_env.{game}.jax_engine")
    ref = importlib.import_module(f"fiveplay_env.{game}.engine")
    obs_mod = importlib.import_module(f"fiveplay_env.{game}.observation")
    env = mod.JaxEnv(chance="reference", **config)
    cfg = env.config
    init = jax.jit(jax.vmap(env.init_seeded), compiler_options=compiler_options)
    step = jax.jit(jax.vmap(env.step), compiler_options=compiler_options)
    index = list(range(batch))
    refs = [ref.new_game(cfg, seeding.derive(seed, i)) for i in index]
    state = init(jnp.asarray(js.from_uint64(np.array([r.seed for r in refs], np.uint64))))
    rng = np.random.default_rng(seed)
    compared = finished = 0
    for t in range(steps):
        mask, obs = np.asarray(state.legal_action_mask), np.asarray(state.observation)
        for i, s in enumerate(refs):
            if not np.array_equal(mask[i], ref.legal_mask(s).astype(bool)):
                raise AssertionError(f"{game} {cfg} seed {s.seed} step {t}: legal_action_mask differs")
            if not np.array_equal(obs[i], obs_mod.observe(cfg, s, s.current)):
                raise AssertionError(f"{game} {cfg} seed {s.seed} step {t}: observation differs")
        actions = np.array([rng.choice(np.flatnonzero(ref.legal_mask(s))) for s in refs], np.int32)
        state = step(state, jnp.asarray(actions))
        rewards, term = np.asarray(state.rewards), np.asarray(state.terminated)
        ended = []
        for i, s in enumerate(refs):
            r = ref.step(cfg, s, int(actions[i]))
            if rewards[i].tolist() != [float(x) for x in r] or bool(term[i]) != ref.is_over(s):
                raise AssertionError(f"{game} {cfg} seed {s.seed} step {t}: rewards or termination differ")
            if ref.is_over(s):
                ended.append(i)
        compared += batch
        if ended:
            finished += len(ended)
            for i in ended:
                index[i] += batch
                refs[i] = ref.new_game(cfg, seeding.derive(seed, index[i]))
            fresh = init(jnp.asarray(js.from_uint64(np.array([r.seed for r in refs], np.uint64))))
            keep = jnp.asarray(np.isin(np.arange(batch), ended))
            state = jax.tree_util.tree_map(lambda a, b: jnp.where(keep.reshape((-1,) + (1,) * (a.ndim - 1)), a, b),
                                           fresh, state)
    return {"game": game, "config": str(cfg), "decisions_compared": compared, "games_finished": finished,
            "device": str(jax.devices()[0])}


def jax_part(batches: Sequence[int] | None, seconds: float, equal_steps: int, res: dict[str, Any], save: Any,
             compile_fast: bool = False, games: Sequence[str] | None = None) -> None:
    """Part 3 (see the module docstring): throughput rows and the equality checks, into ``res["jax"]``."""
    import jax

    from fiveplay_env.experiments.bench.jax_rows import _jax_module, _jax_rates

    gpu = jax.default_backend() != "cpu"
    batches = list(batches or ([2 ** 10, 2 ** 14, 2 ** 17, 2 ** 20] if gpu else [64, 1024]))
    out: dict[str, Any] = {"backend": jax.default_backend(), "devices": [str(d) for d in jax.devices()],
                           "jax": jax.__version__, "throughput": [], "equality": []}
    res["jax"] = out
    opts = {"xla_backend_optimization_level": 0, "xla_llvm_disable_expensive_passes": True} if compile_fast else None
    for game in (games if games else fiveplay_env.games.names()):
        mod = _jax_module(game)
        if mod is None:
            continue
        env = mod.JaxEnv(num_players=4)
        for b in batches:
            r = _jax_rates(env, b, seconds, 1, opts)
            row = {"game": game, "players": 4, "batch": b, "decisions_per_s": r["scan"], "loop_decisions_per_s": r["loop"],
                   "compile_scan_s": r["compile_scan"], "bytes_per_game": r["bytes"]}
            out["throughput"].append(row)
            print(f"jax {game:<11} B={b:<8} {r['scan']:>14,.0f} decisions/s (scan64; loop {r['loop']:,.0f}), "
                  f"compile {r['compile_scan']:.1f}s, {r['bytes']:,.0f} bytes/game", flush=True)
            save()
        for config in ({"num_players": 4},):
            e = jax_equality(game, config, 64, equal_steps, compiler_options=opts)
            out["equality"].append(e)
            print(f"jax {game:<11} equal to the reference on {e['device']}: {e['decisions_compared']:,} decisions, "
                  f"{e['games_finished']} games ({e['config']})", flush=True)
            save()


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    args = build_parser().parse_args(list(argv) if argv is not None else None)
    if args.jax_only:
        os.makedirs(args.out, exist_ok=True)
        dest = os.path.join(args.out, "gpu_check.json")
        res: dict[str, Any] = {}

        def save_only() -> None:
            with open(dest + ".tmp", "w", encoding="utf-8") as f:
                json.dump(res, f, indent=2, default=float)
            os.replace(dest + ".tmp", dest)

        jax_part(args.jax_batch, args.seconds, args.jax_equal_steps, res, save_only, args.jax_compile_fast, args.jax_games)
        print(f"gpu_check: {dest}")
        return res
    import torch

    from fiveplay_env.agents.learned.devices import resolve_device

    dev = resolve_device(args.device)  # a clear error without a GPU, before anything runs
    if args.threads:
        torch.set_num_threads(args.threads)
    os.makedirs(args.out, exist_ok=True)
    dest = os.path.join(args.out, "gpu_check.json")
    res: dict[str, Any] = {"device": str(dev), "torch": torch.__version__, "cuda": torch.version.cuda,
                           "threads": torch.get_num_threads(), "throughput": {}, "curve": None}

    def save() -> None:
        with open(dest + ".tmp", "w", encoding="utf-8") as f:
            json.dump(res, f, indent=2, default=float)
        os.replace(dest + ".tmp", dest)

    for game, label, config, compact in cases():
        r = throughput(game, config, compact, str(dev), args.num_envs, args.minibatch_size, args.seconds)
        res["throughput"][label] = r
        sh = r["share"]
        print(f"{label:<30} {r['decisions_per_s']:>12,.0f} decisions/s on {r['device']} (engine {sh['engine']:.0%}, "
              f"network {sh['network']:.0%}, opponents {sh['opponents']:.0%}, update {sh['update']:.0%}, "
              f"other {sh['other']:.0%})", flush=True)
        save()
    if args.curve_minutes > 0:
        from fiveplay_env.agents.learned.algorithms.ppo import PPOConfig
        from fiveplay_env.experiments.train import RunOptions, TrainSpec
        from fiveplay_env.experiments.train import run as train_run

        game = fiveplay_env.games.default_game()
        t = train_run(TrainSpec(
            PPOConfig(game=game, config=dict(fiveplay_env.games.get(game).quick_config(num_players=4)),
                      num_envs=args.num_envs, minibatch_size=args.minibatch_size, total_decisions=10 ** 10),
            RunOptions(device=str(dev.type), max_minutes=args.curve_minutes, eval_interval=args.eval_interval,
                       eval_games=args.eval_games, threads=torch.get_num_threads(), out=args.out,
                       no_progress=True)))
        import csv

        with open(t["curves_csv"], encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        res["curve"] = {"run_dir": t["run_dir"], "throughput": t["throughput"],
                        "rows": [{k: r[k] for k in ("update", "decisions", "train_seconds", "baseline", "score_mean",
                                                    "win_mean", "diff_mean")} for r in rows]}
        save()
    if args.jax:
        jax_part(args.jax_batch, args.seconds, args.jax_equal_steps, res, save, args.jax_compile_fast, args.jax_games)
    print(f"gpu_check: {dest}")
    return res


if __name__ == "__main__":
    try:
        main()
    except ValueError as exc:
        print(f"gpu_check: error: {exc}", file=sys.stderr)
        sys.exit(2)
