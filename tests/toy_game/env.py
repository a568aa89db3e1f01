"""The toy game's PettingZoo entry module: ``env()`` (AEC), ``raw_env`` and ``parallel_env()``."""
from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import ParallelEnv

from fiveplay_env.core.aec import CardGameAEC
from fiveplay_env.core.config import config_of
from tests.toy_game import engine as eng
from tests.toy_game.config import ToyBidConfig

METADATA = {"name": "toybid_v0", "render_modes": ["ansi", "human"], "is_parallelizable": True, "render_fps": 1}


class ToyBidAEC(CardGameAEC):
    spec_record = eng.SPEC
    metadata = METADATA

    def __init__(self, render_mode: str | None = None, **config: Any) -> None:
        cfg = config_of(ToyBidConfig, config, ignore=("render_mode",))
        super().__init__(cfg, render_mode, eng.observation_size(cfg), 1.0)

    def _new_engine(self, seed: int) -> eng.ToyBidEngine:
        return eng.ToyBidEngine(self.config, seed)

    def _observe(self, engine: eng.ToyBidEngine, player: int):
        return eng.observe(self.config, engine.state, player)

    def _info(self, engine: eng.ToyBidEngine, player: int) -> dict[str, Any]:
        return {"score": engine.state.scores[player], "turn": engine.state.turn}

    def _render_text(self, engine: eng.ToyBidEngine) -> str:
        return eng.render_text(engine.state)


raw_env = ToyBidAEC


def env(**kwargs: Any) -> ToyBidAEC:
    return ToyBidAEC(**kwargs)


class ToyBidParallel(ParallelEnv):
    """Every player bids at once: one step is one turn (the bids are applied in seat order, as the AEC
    env takes them); every player's mask is its hand."""

    metadata = METADATA

    def __init__(self, render_mode: str | None = None, **config: Any) -> None:
        self._aec = ToyBidAEC(render_mode=render_mode, **config)
        self.config = self._aec.config
        self.render_mode = render_mode
        self.possible_agents = list(self._aec.possible_agents)
        self.agents: list[str] = []
        self.observation_spaces = self._aec.observation_spaces
        self.action_spaces = self._aec.action_spaces

    def observation_space(self, agent: str):
        return self.observation_spaces[agent]

    def action_space(self, agent: str):
        return self.action_spaces[agent]

    def _obs(self) -> dict[str, dict[str, np.ndarray]]:
        st = self._aec.engine.state
        out = {}
        for p, a in enumerate(self.possible_agents):
            mask = np.zeros(eng.NUM_ACTIONS, np.int8)
            if st.phase != eng.OVER:
                mask[:st.cards] = st.hands[p]
            out[a] = {"observation": eng.observe(self.config, st, p), "action_mask": mask}
        return out

    def reset(self, seed: int | None = None, options: dict | None = None):
        self._aec.reset(seed=seed)
        self.agents = list(self.possible_agents)
        return self._obs(), {a: {} for a in self.agents}

    def step(self, actions: dict[str, Any]):
        engine = self._aec.engine
        missing = [a for a in self.agents if a not in actions]
        if missing:
            raise ValueError(f"actions: expected one action per live agent, missing {missing}")
        for a in actions:  # every bid is checked before any is applied
            if a not in self.agents:
                raise ValueError(f"actions: unknown agent {a!r}")
            mask = self._obs()[a]["action_mask"]
            b = actions[a]
            if not isinstance(b, (int, np.integer)) or not 0 <= int(b) < len(mask) or not mask[int(b)]:
                from fiveplay_env.core.errors import IllegalActionError
                raise IllegalActionError(a, b, np.flatnonzero(mask))
        rewards = dict.fromkeys(self.agents, 0.0)
        for p, a in enumerate(self.possible_agents):
            for q, r in enumerate(engine.step(int(actions[a]))):
                rewards[self.possible_agents[q]] += float(r)
        done = engine.is_over
        obs = self._obs()
        term = dict.fromkeys(self.agents, done)
        trunc = dict.fromkeys(self.agents, False)
        infos = {a: {"score": engine.state.scores[p]} for p, a in enumerate(self.possible_agents)}
        if done:
            self.agents = []
        return obs, rewards, term, trunc, infos

    def render(self) -> str | None:
        return self._aec.render()

    def state(self) -> np.ndarray:
        return self._aec.state()


def parallel_env(**kwargs: Any) -> ToyBidParallel:
    return ToyBidParallel(**kwargs)
