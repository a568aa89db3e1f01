"""Search speed on the same decisions: simulations per millisecond of several searches, side by side.

``fiveplay bench --search`` (or ``python -m fiveplay_env.experiments.search_bench``) plays ``--games`` games of a game
with the game's best heuristic in every seat but seat 0; at each of seat 0's decisions every search of
``--specs`` decides on the same information set (in turn, the order rotating from decision to decision),
timed with ``time.process_time`` (CPU time: a busy second core does not count; each search first makes one
untimed decision, so imports, loading compiled code and reading a prior are not counted), and the first spec's
choice is played. It reports per search: decisions, simulations, CPU ms per decision, simulations per
ms, the ratio to the first spec, and where the time went (the search's ``profile`` shares). Searches
with the same seed and ``sims`` budget and the same rollout policy search the same worlds with the
same random numbers (world j of a decision is drawn from the decision's key and j alone, in either
backend), so the ratio is the speed-up at equal work, and the compiled and Python backends make the
same decisions.

Default: ``ismcts`` on the reference engine (``backend=python``) and compiled (where the game has a
compiled search), with the heuristic rollouts, then the guided search (``GUIDED``'s settings), and where
the game has a rollout network (``rollout=net``, Take 5) the policy's rollouts in Python (``rollout=policy``
with ``GUIDED``'s prior) beside the network distilled from it in the compiled rollouts, all at ``sims=200``.
"""
from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from typing import Any

from fiveplay_env.agents import games
from fiveplay_env.agents.registry import make_agent
from fiveplay_env.games import default_game

DEFAULT_SIMS = 200


def default_specs(game: str, sims: int = DEFAULT_SIMS) -> list[str]:
    """The search on both backends with the heuristic rollouts, and with the game's guided search's policy
    rollouts."""
    from fiveplay_env.agents.search import GUIDED, guided_prior

    out = [f"ismcts:sims={sims},backend=python"]
    if games.kit(game).search.compiled is not None:
        out.append(f"ismcts:sims={sims},backend=compiled")
    guided = GUIDED.get(game)
    if guided is not None:
        opts = ",".join(o for o in guided.partition(":")[2].split(",") if not o.startswith(("sims=", "time=")))
        out.append(f"ismcts:sims={sims},{opts}")
        prior = guided_prior(guided)
        if games.kit(game).search.net and prior is not None:  # the policy's rollouts: in Python, and distilled
            out += [f"ismcts:sims={sims},prior={prior},rollout=policy", f"ismcts:sims={sims},rollout=net"]
    return out


def run(game: str, config: dict[str, Any], specs: Sequence[str], num_games: int = 2, seed: int = 0) -> dict[str, Any]:
    """Time every spec on seat 0's decisions of ``num_games`` games; see the module docstring."""
    g = games.get_game(game)
    cfg = g.make_config(config)
    n = cfg.num_players
    base = games.kit(game).baseline
    searches = [make_agent(s, game, seed=seed + 1) for s in specs]
    warm = g.new_engine(cfg, seed=seed)  # one untimed decision each: imports, compiled code loaded, a prior read
    p0 = warm.current_player
    for a in searches:
        a.observe_engine(warm, p0)
        a.act(g.observe(warm, p0), warm.legal_mask())
        a.profile = {}
    cpu = [0.0] * len(specs)
    env = g.env.env(config=cfg)
    decisions = 0
    for k in range(num_games):
        env.reset(seed=seed + k)
        engine = env.unwrapped.engine
        others = [make_agent(base, game, seed=seed + 100 + q) for q in range(n)]
        for a in searches:
            a.reset(seed=seed + 1 + k)
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            p = env.possible_agents.index(name)
            if p != 0:
                env.step(others[p].act(obs["observation"], obs["action_mask"]))
                continue
            chosen = None
            order = list(range(len(searches)))
            shift = decisions % len(order)
            for i in order[shift:] + order[:shift]:
                a = searches[i]
                t0 = time.process_time()
                a.observe_engine(engine, 0)
                act = a.act(obs["observation"], obs["action_mask"])
                cpu[i] += time.process_time() - t0
                if i == 0:
                    chosen = act
            decisions += 1
            env.step(chosen)
    rows = []
    for spec, a, t in zip(specs, searches, cpu):
        prof = a.profile or {}
        sims = prof.get("sims", 0.0)
        searched = prof.get("decisions", 0.0)
        total = prof.get("total", 0.0) or 1.0
        rows.append({"spec": spec, "decisions": decisions, "searched": int(searched), "sims": int(sims),
                     "cpu_ms_per_decision": 1e3 * t / max(decisions, 1),
                     "sims_per_ms": sims / (1e3 * t) if t else 0.0,
                     "shares": {k: round(v / total, 3) for k, v in prof.items()
                                if k not in ("decisions", "sims", "total")}})
    ref = rows[0]["sims_per_ms"] or 1.0
    for r in rows:
        r["ratio"] = r["sims_per_ms"] / ref
    return {"game": game, "config": dict(config), "games": num_games, "seed": seed, "rows": rows}


def report(result: dict[str, Any]) -> str:
    lines = [f"search speed, {result['game']} {result['config']}, seat 0 of {result['games']} games "
             f"(seed {result['seed']}), CPU time on the same decisions",
             f"{'search':64s} {'sims':>7s} {'ms/dec':>7s} {'sims/ms':>8s} {'ratio':>6s}"]
    for r in result["rows"]:
        lines.append(f"{r['spec'][:64]:64s} {r['sims']:7d} {r['cpu_ms_per_decision']:7.2f} {r['sims_per_ms']:8.2f} "
                     f"{r['ratio']:6.2f}")
        lines.append("    " + ", ".join(f"{k} {v:.0%}" for k, v in r["shares"].items()))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default=default_game(), help="the game (default: the first built-in game)")
    ap.add_argument("--config", nargs="*", default=[], metavar="KEY=VALUE", help="config values (default: 4 players)")
    ap.add_argument("--specs", nargs="*", default=None, help="search agent names; the first is the reference")
    ap.add_argument("--sims", type=int, default=DEFAULT_SIMS, help="the default specs' budget")
    ap.add_argument("--games", type=int, default=2, help="games to play (seat 0's decisions are timed)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="also write the result as JSON here")
    ap.add_argument("--threads", type=int, default=1,
                    help="torch threads for the policy networks (default 1: CPU time per decision on one core)")
    args = ap.parse_args(argv)
    if not 1 <= args.threads <= 256:
        ap.error(f"--threads: expected 1..256, got {args.threads}")
    try:
        import torch
    except ImportError:  # pragma: no cover - searches without a prior need no torch
        pass
    else:
        torch.set_num_threads(args.threads)
    if not 1 <= args.games <= 1000:
        ap.error(f"--games: expected 1..1000, got {args.games}")
    config: dict[str, Any] = {"num_players": 4}
    for item in args.config:
        key, sep, value = item.partition("=")
        if not sep:
            ap.error(f"--config: expected KEY=VALUE, got {item!r}")
        config[key] = json.loads(value) if value[:1].isdigit() or value in ("true", "false") else value
    specs = args.specs or default_specs(args.game, args.sims)
    result = run(args.game, config, specs, args.games, args.seed)
    print(report(result))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=1)
    return result


if __name__ == "__main__":
    main()
