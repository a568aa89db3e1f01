"""Training throughput, torch trainer against the JAX path, in one process (CPU time and wall time).

    fiveplay jax-train-bench                    # Take 5, 4 players, one round, default settings
    fiveplay jax-train-bench --updates 2 --num-envs 32 --rollout-steps 8   # a quick look

Both trainers (``fiveplay_env.agents.learned.trainer.Trainer`` with ``backend`` "auto" and "jax") are built with the
same default settings and seed; after one warm-up update each (the JAX path compiles then: its compile
time is reported), they alternate ``--updates`` updates, and each phase (collection, update) is timed in
process CPU time and in wall time. Decisions per second are learner decisions trained on per CPU second
(wall time misleads on a loaded machine). The torch trainer's collection splits into engine, networks,
opponents and bookkeeping by its own timers; the JAX rollout, one compiled call, is split by timing its
pieces alone on the same batch: the engine stepping ``rollout_steps`` times (random legal actions, the
observation included), the learner network, the heuristic and the pool snapshots on the observations
that run recorded (each piece a ``lax.scan`` of its own). ``--sparse`` also times the PPO update with
the sparse first layer (``TrainConfig.sparse_input``) on the same batches; ``--jax-update`` the torch PPO
update against the same update written in JAX (``_update_in_jax``: how the one update implementation
was chosen). Writes ``--out`` as JSON.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from fiveplay_env.games import default_game


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m fiveplay_env.experiments.jax_train_bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default=default_game(), help="the game (default: the first built-in game)")
    ap.add_argument("--config", nargs="*", default=None, metavar="FIELD=VALUE",
                    help="game config (default: the game's quick preset at 4 players, GameDef.quick_config)")
    ap.add_argument("--updates", type=int, default=6, help="updates per trainer after the warm-up (default 6)")
    ap.add_argument("--num-envs", type=int, default=None, help="games side by side (default: the trainer's)")
    ap.add_argument("--rollout-steps", type=int, default=None, help="steps per rollout (default: the trainer's)")
    ap.add_argument("--sparse", action="store_true", help="also time the update with the sparse first layer")
    ap.add_argument("--jax-update", action="store_true",
                    help="also time the PPO update written in JAX against the torch update on the same batch")
    ap.add_argument("--no-pieces", action="store_true", help="skip the JAX rollout's split into pieces")
    ap.add_argument("--out", default="runs/jax_train_bench.json")
    return ap


class _Phases:
    """CPU and wall seconds of a trainer's ``collect`` and ``update`` (wrapped on the instance)."""

    def __init__(self, trainer: Any) -> None:
        self.cpu = {"collect": 0.0, "update": 0.0}
        self.wall = {"collect": 0.0, "update": 0.0}
        for name in ("collect", "update"):
            setattr(trainer, name, self._wrap(name, getattr(trainer, name)))

    def _wrap(self, name: str, fn: Any) -> Any:
        def run(*args: Any) -> Any:
            c, w = time.process_time(), time.perf_counter()
            out = fn(*args)
            self.cpu[name] += time.process_time() - c
            self.wall[name] += time.perf_counter() - w
            return out
        return run

    def reset(self) -> None:
        for d in (self.cpu, self.wall):
            for k in d:
                d[k] = 0.0


def _pieces(trainer: Any) -> dict[str, float]:
    """CPU seconds per rollout of the JAX rollout's pieces, each compiled and timed alone (see the docstring)."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    from fiveplay_env.agents.learned.jax import nets as jnets

    col = trainer.collector
    cfg = col.cfg
    T = cfg.rollout_steps
    spec, params = col.net_inputs(trainer.model)
    params = {k: jnp.asarray(v) for k, v in params.items()}
    pool = col._pool_params(params)
    cs = col.cs

    def engine(st: Any, index: Any, key: Any) -> Any:
        def body(c: Any, _: Any) -> Any:
            st, index, key = c
            key, k = jax.random.split(key)
            mask = st.legal_action_mask
            a = jnp.argmax(jnp.where(mask, jax.random.gumbel(k, mask.shape), -jnp.inf), axis=1).astype(jnp.int32)
            st, index, _, _ = col.vec.jit_step(st, index, cs["base"], cs["env_key"], a)
            return (st, index, key), (st.observation, st.legal_action_mask)
        return lax.scan(body, (st, index, key), None, length=T)[1]

    def over(fn: Any) -> Any:
        return jax.jit(lambda xs: lax.scan(lambda c, x: (c, fn(*x)), 0, xs)[1])

    B = cfg.num_envs
    snap = jnp.where(jnp.arange(B) % 4 == 0, jnp.arange(B) % max(len(col.pool), 1), -1)
    fns = {
        "network": over(lambda o, m: jnets.sample(jnets.forward(spec, params, o, m)[0], jax.random.key(0))[0]),
        "opponents": over(lambda o, m: sum(act(o, m, jax.random.key(1)) for act in col._heur.values())),
        "pool": over(lambda o, m: col._pool_actions(spec, pool, o, m, snap, jnp.zeros(m.shape, jnp.float32))),
    }
    eng = jax.jit(engine)
    xs = jax.block_until_ready(eng(cs["env"], cs["index"], jax.random.key(0)))
    out = {}
    for name, f in [("engine", lambda: eng(cs["env"], cs["index"], jax.random.key(0))),
                    *[(k, (lambda f=f: f(xs))) for k, f in fns.items()]]:
        jax.block_until_ready(f())  # compile
        best = []
        for _ in range(3):
            c = time.process_time()
            jax.block_until_ready(f())
            best.append(time.process_time() - c)
        out[name] = sorted(best)[1]
    return out


def _update_in_jax(trainer: Any, batch: dict[str, Any], reps: int = 3) -> dict[str, float]:
    """CPU seconds of the PPO update on ``batch``: the torch update (``trainer.algorithm``, on a copy) against
    the same update written in JAX for this measurement only (the clipped loss of
    ``fiveplay_env.agents.learned.algorithms.ppo`` through ``fiveplay_env.agents.learned.jax.nets.forward``, gradient clipping and Adam,
    every minibatch of an epoch in one ``lax.scan``; the remainder minibatch dropped), the median of ``reps``
    runs each after a compile; per sample, so the dropped remainder does not count."""
    import copy

    import jax
    import jax.numpy as jnp
    from jax import lax

    from fiveplay_env.agents.learned.jax import nets as jnets

    cfg = trainer.cfg
    model = trainer.model
    spec = jnets.NetSpec.of(model)
    params = {k: jnp.asarray(v) for k, v in jnets.params_of(model.state_dict()).items()}
    trainable = {k for k in params if k.endswith((".w", ".b"))}
    N = batch["act"].shape[0]
    mb = min(cfg.minibatch_size, N)
    steps = N // mb
    data = {k: jnp.asarray(batch[k]) for k in ("obs", "mask", "act", "logp", "adv", "ret")}
    data["mask"] = data["mask"].astype(bool)

    def loss(w: Any, fixed: Any, d: Any) -> Any:
        logits, value = jnets.forward(spec, {**w, **fixed}, d["obs"], d["mask"])
        lp_all = jax.nn.log_softmax(logits, axis=1)
        lp = jnp.take_along_axis(lp_all, d["act"][:, None].astype(jnp.int32), axis=1)[:, 0]
        ent = -(jnp.exp(lp_all) * jnp.where(d["mask"], lp_all, 0.0)).sum(1).mean()
        adv = (d["adv"] - d["adv"].mean()) / (d["adv"].std(ddof=1) + 1e-8)
        ratio = jnp.exp(lp - d["logp"])
        pg = jnp.maximum(-adv * ratio, -adv * jnp.clip(ratio, 1 - cfg.clip, 1 + cfg.clip)).mean()
        return pg + cfg.vf_coef * 0.5 * ((value - d["ret"]) ** 2).mean() - cfg.ent_coef * ent

    def epoch(state: Any, perm: Any) -> Any:
        def step(st: Any, idx: Any) -> Any:
            w, m, v, t = st
            g = jax.grad(loss)(w, fixed, jax.tree_util.tree_map(lambda x: x[idx], data))
            norm = jnp.sqrt(sum(jnp.sum(x * x) for x in jax.tree_util.tree_leaves(g)))
            g = jax.tree_util.tree_map(lambda x: x * jnp.minimum(1.0, cfg.max_grad_norm / (norm + 1e-6)), g)
            t = t + 1
            m = jax.tree_util.tree_map(lambda a, b: 0.9 * a + 0.1 * b, m, g)
            v = jax.tree_util.tree_map(lambda a, b: 0.999 * a + 0.001 * b * b, v, g)
            w = jax.tree_util.tree_map(lambda p, a, b: p - cfg.lr * (a / (1 - 0.9 ** t)) / (jnp.sqrt(b / (1 - 0.999 ** t))
                                                                                           + 1e-8), w, m, v)
            return (w, m, v, t), None
        return lax.scan(step, state, perm.reshape(steps, mb))[0]

    fixed = {k: v for k, v in params.items() if k not in trainable}
    w0 = {k: v for k, v in params.items() if k in trainable}
    zeros = jax.tree_util.tree_map(jnp.zeros_like, w0)
    run_epoch = jax.jit(epoch)
    rng = np.random.default_rng(0)

    def jax_update() -> Any:
        st = (w0, zeros, zeros, jnp.float32(0))
        for _ in range(cfg.epochs):
            st = run_epoch(st, jnp.asarray(rng.permutation(N)[:steps * mb], jnp.int32))
        return jax.block_until_ready(st)

    def torch_update() -> None:
        copy.deepcopy(trainer.algorithm).update(batch, trainer.lr_now())

    out: dict[str, float] = {"samples": float(N), "minibatches_jax": float(steps * cfg.epochs)}
    c = time.process_time()
    jax_update()
    out["jax_compile_cpu_s"] = time.process_time() - c
    for name, f, n_s in (("torch", torch_update, N), ("jax", jax_update, steps * mb)):
        ts = []
        for _ in range(reps):
            c = time.process_time()
            f()
            ts.append(time.process_time() - c)
        out[f"{name}_cpu_s"] = float(np.median(ts))
        out[f"{name}_us_per_sample_epoch"] = 1e6 * out[f"{name}_cpu_s"] / (n_s * cfg.epochs)
    out["jax_over_torch"] = out["jax_us_per_sample_epoch"] / out["torch_us_per_sample_epoch"]
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    import torch

    from fiveplay_env.agents.games import get_game, parse_config
    from fiveplay_env.agents.learned.algorithms.ppo import PPOConfig
    from fiveplay_env.agents.learned.config import default_opponents, parse_opponents
    from fiveplay_env.agents.learned.trainer import Trainer

    torch.set_num_threads(1)
    kw: dict[str, Any] = {"game": args.game, "config": (parse_config(args.config) if args.config is not None
                                     else get_game(args.game).quick_config(num_players=4)),
                          "opponents": parse_opponents(default_opponents(args.game)), "total_decisions": 10 ** 12}
    if args.num_envs:
        kw["num_envs"] = args.num_envs
    if args.rollout_steps:
        kw["rollout_steps"] = args.rollout_steps
    res: dict[str, Any] = {"load_average": os.getloadavg(), "settings": {k: str(v) for k, v in kw.items()}}
    trainers = {"torch": Trainer(PPOConfig(**kw)), "jax": Trainer(PPOConfig(**kw, backend="jax"))}
    phases = {k: _Phases(t) for k, t in trainers.items()}
    for name, tr in trainers.items():
        c, w = time.process_time(), time.perf_counter()
        tr.train_update()
        res[f"{name}_warmup"] = {"cpu_s": time.process_time() - c, "wall_s": time.perf_counter() - w}
        print(f"{name}: warm-up update {res[f'{name}_warmup']}", flush=True)
    timers0 = {k: dict(vars(t.timers)) for k, t in trainers.items()}
    dec0 = {k: t.decisions for k, t in trainers.items()}
    for p in phases.values():
        p.reset()
    sparse_cpu = dense_cpu = 0.0
    for i in range(args.updates):
        for name, tr in trainers.items():
            tr.train_update()
        if args.sparse:  # the same batch through a copy of the torch model, dense then sparse first layer
            tr = trainers["torch"]
            batch = tr.collect()["batch"]
            for sparse in (False, True):
                import copy

                algo = copy.deepcopy(tr.algorithm)
                algo.model.sparse_input = sparse
                c = time.process_time()
                algo.update(batch, tr.lr_now())
                if sparse:
                    sparse_cpu += time.process_time() - c
                else:
                    dense_cpu += time.process_time() - c
        print(f"round {i + 1}/{args.updates}", flush=True)
    for name, tr in trainers.items():
        p = phases[name]
        d = tr.decisions - dec0[name]
        cpu = p.cpu["collect"] + p.cpu["update"]
        tm = {k: getattr(tr.timers, k) - timers0[name][k] for k in timers0[name]}
        res[name] = {"decisions": d, "cpu": dict(p.cpu), "wall": dict(p.wall), "decisions_per_cpu_s": d / cpu,
                     "decisions_per_wall_s": d / (p.wall["collect"] + p.wall["update"]),
                     "update_share_cpu": p.cpu["update"] / cpu, "timers_wall": tm}
    res["ratio_cpu"] = res["jax"]["decisions_per_cpu_s"] / res["torch"]["decisions_per_cpu_s"]
    if args.sparse:
        res["sparse_update_cpu_ratio"] = sparse_cpu / dense_cpu
    if args.jax_update:
        res["update_torch_vs_jax"] = _update_in_jax(trainers["jax"], trainers["jax"].collect()["batch"])
    if not args.no_pieces:
        pieces = _pieces(trainers["jax"])
        per = res["jax"]["cpu"]["collect"] / args.updates
        res["jax_rollout_pieces_cpu_s"] = pieces
        res["jax_rollout_cpu_s"] = per
    res["load_average_end"] = os.getloadavg()
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(res, f, indent=2, default=float)
    print(json.dumps(res, indent=2, default=float))
    return res


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    return run(build_parser().parse_args(argv))


if __name__ == "__main__":
    main(sys.argv[1:])
    sys.exit(0)
