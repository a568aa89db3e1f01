"""5 Alive for agents: ``heuristics`` (the five-alive-* agents, ``batch``: five-alive-attacker on whole
batches, ``constants``: their tuning), ``rollouts`` (the search agent's opponent model and playouts), ``obs_adapt`` (observations of other player counts for a
trained network), ``jax_heuristics`` (five-alive-attacker in JAX). ``KIT`` is what the agents layer knows
about the game (``fiveplay_env.agents.kit.AgentKit``), beside its definition ``fiveplay_env.five_alive.GAME``. The
same file names as ``agents/take5/``."""
from __future__ import annotations

import numpy as np

from fiveplay_env.agents.five_alive import obs_adapt, rollouts
from fiveplay_env.agents.five_alive.heuristics import FIVE_ALIVE_HEURISTICS
from fiveplay_env.agents.kit import AgentKit, Rollout
from fiveplay_env.five_alive import observation as _obs

_SCALE_DIVISORS = {"hand": 4.0, "discard": 8.0, "draw_pile": 40.0, "lives": 5.0, "hand_sizes": 10.0}


def obs_scale(num_players: int, obs_dim: int) -> list[float]:
    """Per-feature multipliers that bring the observation to about [0, 1]: it holds raw counts
    (``fiveplay_env.five_alive.observation``), so hand and discard counts, the draw pile, lives and
    hand sizes are divided by their usual maxima."""
    scale = np.ones(obs_dim, np.float32)
    for name, (off, size) in _obs.pieces(num_players).items():
        if name in _SCALE_DIVISORS:
            scale[off:off + size] = 1.0 / _SCALE_DIVISORS[name]
    return scale.tolist()


KIT = AgentKit(
    game="five_alive",
    heuristics=FIVE_ALIVE_HEURISTICS,
    best_heuristic="five-alive-attacker",
    rollout=Rollout(rollouts.prepare, rollouts.simulate, rollouts.observe,
                    simulate_policy=rollouts.simulate_policy, leaf_value=True,
                    compiled="fiveplay_env.agents.five_alive.compiled:evaluator"),
    training={"reward_scale": 1.0, "gamma": 0.995, "eval_baselines": ["random", "five-alive-attacker"]},
    network="mlp",
    obs_scale=obs_scale,
    adapt_observation=obs_adapt.adapt_observation,
    jax_heuristics={"five-alive-attacker": "fiveplay_env.agents.five_alive.jax_heuristics:attacker"},
    # the shipped policy plays the rollouts and its value head ends them; only its two most probable
    # actions are searched (measured: README's ladder, docs/evaluation.md)
    guided="ismcts:sims=100,prior=five-alive-4p,rollout=policy,depth=2,value=1,topk=2",
)

__all__ = ["KIT", "obs_scale"]
