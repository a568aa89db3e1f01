"""``SkipDeadSteps``: an AEC wrapper that steps eliminated players' dead steps itself.

PettingZoo's rule is that a terminated agent is selected once more and must be stepped with ``None``
before it leaves ``agents``. Loops written for that (``for agent in env.agent_iter()``) are fine with it,
but some libraries are not: Tianshou's ``PettingZooEnv`` ends the whole episode as soon as the next
selected agent is terminated, so every 5 Alive episode would stop, silently, at the first elimination.

With this wrapper the selected agent is always one who has a decision to make, until the game is over
(then every remaining agent is terminated or truncated, as usual, and the wrapper steps nothing):

    from fiveplay_env import five_alive_v0
    from fiveplay_env.wrappers import SkipDeadSteps
    env = SkipDeadSteps(five_alive_v0.env(num_players=4))

Rewards are kept: ``rewards`` holds, for **every** possible agent (eliminated ones included), the sum of
its rewards over the wrapped step and the dead steps it triggered, so summing ``rewards`` over an
episode gives each player's full return (5 Alive win/loss: +1 for the winner, -1 for every other player,
including those eliminated early). ``last()`` and ``_cumulative_rewards`` are the wrapped env's.
Games where nobody is eliminated before the end (Take 5) pass through unchanged.
"""
from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper


class SkipDeadSteps(BaseWrapper):
    """Steps the dead steps of eliminated agents itself (see the module docstring)."""

    def __init__(self, env: AECEnv) -> None:
        if not isinstance(env, AECEnv):
            raise ValueError(f"env: expected a PettingZoo AECEnv, got {type(env).__name__}")
        super().__init__(env)
        self._step_rewards: dict[str, float] = {}

    @property
    def rewards(self) -> dict[str, float]:  # type: ignore[override]
        """Every possible agent's reward for the last wrapped step, dead steps included."""
        return self._step_rewards

    def _game_over(self) -> bool:
        env = self.env
        return all(env.terminations.get(a, False) or env.truncations.get(a, False) for a in env.agents)

    def _skip(self, acc: dict[str, float]) -> None:
        env = self.env
        while env.agents and not self._game_over():
            agent = env.agent_selection
            if not (env.terminations[agent] or env.truncations[agent]):
                return
            env.step(None)
            for a, r in env.rewards.items():
                acc[a] += r

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.env.reset(seed=seed, options=options)
        acc = dict.fromkeys(self.env.possible_agents, 0.0)
        for a, r in self.env.rewards.items():
            acc[a] += r
        self._skip(acc)
        self._step_rewards = acc

    def step(self, action: Any) -> None:
        env = self.env
        env.step(action)
        acc = dict.fromkeys(env.possible_agents, 0.0)
        for a, r in env.rewards.items():
            acc[a] += r
        self._skip(acc)
        self._step_rewards = acc
