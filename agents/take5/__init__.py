"""Take 5 for agents: ``heuristics`` (the take5-* agents, ``batch``: take5-safest on whole batches),
``rollouts`` (the search agent's opponent model and playouts). ``KIT`` is what the agents layer knows
about the game (``agents.kit.AgentKit``), beside its definition ``fiveplay_env.take5.GAME``. The same
file names as ``agents/five_alive/``."""
from agents.kit import AgentKit, BatchRollout, Rollout
from agents.take5 import bsearch, rollouts
from agents.take5.heuristics import TAKE5_HEURISTICS

KIT = AgentKit(
    game="take5",
    heuristics=TAKE5_HEURISTICS,
    best_heuristic="take5-safest",
    rollout=Rollout(rollouts.prepare, rollouts.simulate, simulate_policy=rollouts.simulate_policy, leaf_value=True),
    batch_search=BatchRollout(bsearch.make_engine, bsearch.begin, bsearch.act, bsearch.stop, bsearch.value,
                              policy=True, leaf_value=True, deal=bsearch.deal, plan=bsearch.plan),
    # rewards are bull heads (tens per game): scaled by 0.1; a round's return is undiscounted
    training={"reward_scale": 0.1, "gamma": 1.0, "eval_baselines": ["random", "take5-safest"]},
    network="take5",
)

__all__ = ["KIT"]
