"""MaskablePPO (sb3-contrib) throughput: the one-game ``SingleAgentEnv`` against the batched
``Sb3VecEnv`` (``fiveplay_env.vector_gym``), same machine, same run.

    fiveplay bench-clients                       # both games, default sizes
    fiveplay bench-clients --games take5 --num-envs 256 --timesteps 16384

Two rows per game and env: ``collect`` (the env alone, random legal learner actions: learner
decisions per second, the fixed agents' moves included in the time) and ``maskable_ppo``
(``MaskablePPO.learn``: environment steps per second, rollouts and the gradient updates included;
one update epoch, the same batch size for both envs). One learner decision = one timestep. Needs the
``clients`` and ``train`` extras.
"""
from __future__ import annotations

import argparse
import json
import time
from typing import Any

import numpy as np

def settings(game: str) -> tuple[dict[str, Any], str]:
    """A game's config (its quick preset at 4 players: ``GameDef.quick_config``) and the opponents' agent
    (its kit's best heuristic)."""
    from fiveplay_env.agents import games as games_mod

    return games_mod.get_game(game).quick_config(num_players=4), games_mod.kit(game).baseline


def _games() -> list[str]:
    from fiveplay_env import games

    return [g.name for g in games.BUILTIN]


def _collect_single(game: str, cfg: dict[str, Any], opponent: str, seconds: float) -> float:
    from fiveplay_env.wrappers import SingleAgentEnv

    env = SingleAgentEnv(game, opponents=opponent, **cfg)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        _, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        steps += 1
        if term or trunc:
            env.reset()
    return steps / (time.perf_counter() - t0)


def _collect_vector(game: str, cfg: dict[str, Any], opponent: str, num_envs: int, seconds: float) -> float:
    from fiveplay_env.vector_gym import GymVectorEnv

    env = GymVectorEnv(game, num_envs, opponents=opponent, seed=0, **cfg)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        env.step(env.sample_legal(rng))
        steps += num_envs
    return steps / (time.perf_counter() - t0)


def _ppo(env: Any, n_steps: int, timesteps: int) -> float:
    from sb3_contrib import MaskablePPO

    model = MaskablePPO("MlpPolicy", env, n_steps=n_steps, batch_size=min(512, n_steps * getattr(env, "num_envs", 1)),
                        n_epochs=1, seed=0, verbose=0)
    model.learn(n_steps * getattr(env, "num_envs", 1))  # warm-up: one rollout and one update
    t0 = time.perf_counter()
    model.learn(timesteps, reset_num_timesteps=True)
    return model.num_timesteps / (time.perf_counter() - t0)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", nargs="+", default=_games(), choices=_games())
    ap.add_argument("--num-envs", type=int, default=128, help="games of the batched env (default 128)")
    ap.add_argument("--timesteps", type=int, default=8192, help="MaskablePPO timesteps per env (default 8192)")
    ap.add_argument("--seconds", type=float, default=3.0, help="length of each collect run (default 3)")
    ap.add_argument("--rollout", type=int, default=2048,
                    help="timesteps per MaskablePPO rollout, for both envs (default 2048)")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args(argv)
    if args.num_envs < 1 or args.timesteps < 1 or args.seconds <= 0 or args.rollout < args.num_envs:
        raise ValueError("num-envs, timesteps, seconds: expected positive values; rollout: at least num-envs")
    import importlib

    import torch

    importlib.import_module("fiveplay_env.agents.registry")  # registers the opponent names' resolver
    from fiveplay_env.integrations.sb3 import Sb3VecEnv
    from fiveplay_env.wrappers import SingleAgentEnv

    torch.set_num_threads(1)
    results: dict[str, Any] = {"num_envs": args.num_envs, "timesteps": args.timesteps, "rows": []}
    for game in args.games:
        cfg, opp = settings(game)
        rows = [
            ("collect", "SingleAgentEnv", _collect_single(game, cfg, opp, args.seconds)),
            ("collect", f"GymVectorEnv B={args.num_envs}", _collect_vector(game, cfg, opp, args.num_envs, args.seconds)),
            ("maskable_ppo", "SingleAgentEnv", _ppo(SingleAgentEnv(game, opponents=opp, **cfg), args.rollout, args.timesteps)),
            ("maskable_ppo", f"Sb3VecEnv B={args.num_envs}",
             _ppo(Sb3VecEnv(game, args.num_envs, opponents=opp, seed=0, **cfg), args.rollout // args.num_envs, args.timesteps)),
        ]
        for kind, env_name, rate in rows:
            results["rows"].append({"game": game, "kind": kind, "env": env_name, "steps_per_s": round(rate, 1)})
            if not args.json:
                print(f"{game:11s} {kind:13s} {env_name:22s} {rate:12,.0f} steps/s", flush=True)
    if args.json:
        print(json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    main()
