"""Opt-in wrappers: illegal-action penalties, and a Gymnasium single-agent view (one seat learns)."""
from fiveplay_env.core.single_agent import SingleAgentEnv, register_agent_resolver
from fiveplay_env.core.wrappers import IllegalActionPenalty, IllegalActionPenaltyParallel

__all__ = ["IllegalActionPenalty", "IllegalActionPenaltyParallel", "SingleAgentEnv", "register_agent_resolver"]
