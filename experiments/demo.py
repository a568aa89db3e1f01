"""The main job of ``make demo``: a short random-vs-random Take 5 game, rendered, with a results line.

Usage: ``python -m experiments.demo [--seed N] [--players N]``
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from fiveplay_env import take5_v0


def play_take5(seed: int, players: int, show: bool = True) -> dict:
    env = take5_v0.env(num_players=players, mode="round", render_mode="ansi")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    state = env.unwrapped.engine.state
    if show:
        print(env.render())
    return {"scores": list(state.scores), "winners": [p for p in range(players) if state.scores[p] == min(state.scores)]}


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--players", type=int, default=4)
    args = ap.parse_args(argv)
    res = play_take5(args.seed, args.players)
    print("results: take5 (one round, random agents) scores " +
          ", ".join(f"player_{p}={s}" for p, s in enumerate(res["scores"])) +
          "; winner(s): " + ", ".join(f"player_{p}" for p in res["winners"]))
    return res


if __name__ == "__main__":
    main(sys.argv[1:])
