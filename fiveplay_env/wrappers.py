"""Opt-in wrappers: illegal-action penalties, dead steps skipped for libraries that need it (Tianshou),
and a Gymnasium single-agent view (one seat learns)."""
from fiveplay_env.core.dead_steps import SkipDeadSteps
from fiveplay_env.single_agent import SingleAgentEnv, register_agent_resolver
from fiveplay_env.core.wrappers import IllegalActionPenalty, IllegalActionPenaltyParallel

__all__ = ["IllegalActionPenalty", "IllegalActionPenaltyParallel", "SingleAgentEnv", "SkipDeadSteps",
           "register_agent_resolver"]
