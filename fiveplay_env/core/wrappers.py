"""Opt-in wrappers shared by both games.

The environments raise ``IllegalActionError`` on an illegal action and leave the state untouched.
Tools that send unmasked random actions (some of ``pettingzoo.test``, naive baselines) can wrap the
env instead: an illegal action then ends the episode, with ``penalty`` for the offender and 0 for the
others, and ``infos[agent]["illegal_action"]`` says what happened.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import BaseParallelWrapper, BaseWrapper

from fiveplay_env.core.errors import action_id


def _is_legal(action: Any, mask: np.ndarray) -> bool:
    a = action_id(action)  # the envs' own rule for what an action id is
    return a is not None and 0 <= a < len(mask) and bool(mask[a])


class IllegalActionPenalty(BaseWrapper):
    """AEC: an illegal action gives its agent ``penalty`` and terminates every agent."""

    def __init__(self, env: AECEnv, penalty: float = -1.0):
        super().__init__(env)
        self.penalty = float(penalty)

    def step(self, action: Any) -> None:
        base = self.env.unwrapped
        agent = base.agent_selection
        if base.terminations[agent] or base.truncations[agent]:
            self.env.step(action)
            return
        if _is_legal(action, base.engine.legal_mask()):
            self.env.step(action)
            return
        for a in base.agents:
            base.rewards[a] = self.penalty if a == agent else 0.0
        base._cumulative_rewards[agent] = 0.0
        base._accumulate_rewards()
        base._rewards_dirty = True
        note = {"agent": agent, "action": action}
        for a in base.agents:
            base.terminations[a] = True
            base.infos[a] = {**base.infos[a], "illegal_action": note}
        base._select()


class IllegalActionPenaltyParallel(BaseParallelWrapper):
    """Parallel: an illegal action by any agent gives it ``penalty`` and ends the episode for all.

    The wrapped env must offer ``legal_mask(player)``.
    """

    def __init__(self, env: ParallelEnv, penalty: float = -1.0):
        super().__init__(env)
        self.penalty = float(penalty)

    def step(self, actions: dict[str, Any]):
        base = self.env.unwrapped
        bad = [a for p, a in enumerate(base.possible_agents)
               if a in base.agents and not _is_legal(actions.get(a), base.legal_mask(p))]
        if not bad:
            return self.env.step(actions)
        agents = base.possible_agents
        obs = base._observations()
        rewards = {a: (self.penalty if a in bad else 0.0) for a in agents}
        note = {"agents": bad, "actions": {a: actions.get(a) for a in bad}}
        infos = {a: {**i, "illegal_action": note} for a, i in base._infos().items()}
        base.agents = []
        return obs, rewards, dict.fromkeys(agents, True), dict.fromkeys(agents, False), infos
