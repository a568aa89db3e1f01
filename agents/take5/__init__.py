"""Take 5 for agents: ``heuristics`` (the take5-* agents, ``batch``: take5-safest on whole batches),
``rollouts`` (the search agent's opponent model and playouts), ``compiled`` (the same search in compiled
code: worlds, opponent model and rollouts in numba), ``obs_adapt`` (observations of other player counts for a trained network), ``nets`` (the ``take5``
network; torch) and ``jax_nets`` (its JAX forward), ``jax_heuristics`` (take5-safest in JAX). ``KIT`` is
what the agents layer knows about the game (``fiveplay_env.agents.kit.AgentKit``), beside its definition
``fiveplay_env.take5.GAME``. The same file names as ``agents/five_alive/``."""
from fiveplay_env.agents.kit import AgentKit, Rollout
from fiveplay_env.agents.take5 import obs_adapt, rollouts
from fiveplay_env.agents.take5.heuristics import TAKE5_HEURISTICS

KIT = AgentKit(
    game="take5",
    heuristics=TAKE5_HEURISTICS,
    best_heuristic="take5-safest",
    rollout=Rollout(rollouts.prepare, rollouts.simulate, simulate_policy=rollouts.simulate_policy, leaf_value=True,
                    compiled="fiveplay_env.agents.take5.compiled:evaluator", net=True, tree=True),
    # rewards are bull heads (tens per game): scaled by 0.1; a round's return is undiscounted
    training={"reward_scale": 0.1, "gamma": 1.0, "eval_baselines": ["random", "take5-safest"]},
    network="take5",
    networks={"take5": "fiveplay_env.agents.take5.nets:Take5ActorCritic"},  # the name checkpoints record: keep it
    adapt_observation=obs_adapt.adapt_observation,
    jax_heuristics={"take5-safest": "fiveplay_env.agents.take5.jax_heuristics:safest"},
    # the shipped policy's three most probable cards, searched by the compiled search with take5-safest in the
    # rollouts: 39.6% [36.6, 42.6] of 1,000 games against 3 x ismcts:sims=200 at 23 ms a decision (the
    # policy-rollout search it replaces: 37.3% at about 40-85 ms; docs/evaluation.md, "The compiled search")
    guided="ismcts:sims=1000,prior=take5-game-4p,topk=3,rollout=strong",
)

__all__ = ["KIT"]
