"""Take 5 PettingZoo environments over the reference engine (no rule logic here: only translation).

``Take5AEC``: the exact game as a sequence of decisions (``take5_v0.env``).
``Take5Parallel``: a native ``ParallelEnv`` where all players choose their card in one step; a row
choice (and, in the draft, each pick) is a step of its own in which one player decides and everyone
else's only legal action is WAIT (108) (``take5_v0.parallel_env``).
"""
from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from fiveplay_env.core import seeding, state_view
from fiveplay_env.core.aec import CardGameAEC, check_render_mode, make_spaces
from fiveplay_env.core.config import config_of, from_kwargs, show_value
from fiveplay_env.core.errors import IllegalActionError, ResetNeededError, action_id
from fiveplay_env.take5 import engine as eng
from fiveplay_env.take5 import SPEC  # the game's facts, declared with its definition
from fiveplay_env.take5.config import Take5Config
from fiveplay_env.take5.observation import observation_high, observation_size, observe
from fiveplay_env.take5.render import render_text, table_image
from fiveplay_env.take5.state import ACTION_WAIT, NUM_ACTIONS, PLAY, Take5State

METADATA = {
    "name": "take5_v0",
    "render_modes": ["ansi", "human", "rgb_array"],
    "is_parallelizable": True,
    "render_fps": 1,
}
ENV_KEYS = ("render_mode",)


def make_config(**kwargs: Any) -> Take5Config:
    """A validated ``Take5Config`` from keyword arguments (unknown keys raise ``ValueError``)."""
    return from_kwargs(Take5Config, kwargs, ignore=ENV_KEYS)


def info_of(state: Take5State, player: int) -> dict[str, Any]:
    """``infos[agent]`` in both envs, the same keys and numeric types at every step (reset and the
    last step included, as TorchRL's ``PettingZooWrapper``, which builds its info spec at reset, needs):

    | key               | type | meaning                                                          |
    |-------------------|------|------------------------------------------------------------------|
    | ``score``         | int  | bull heads taken so far (the final score at the last step)       |
    | ``round_penalty`` | int  | bull heads taken in the current round                            |
    | ``round``         | int  | the round number                                                 |
    | ``winner``        | bool | False until the game is over; then True for the lowest score     |
    |                   |      | (tied lowest scores share the win)                               |
    """
    return {
        "score": int(state.scores[player]),
        "round_penalty": int(state.round_pen[player]),
        "round": int(state.round),
        "winner": state.phase == eng.OVER and player in eng.winners(state),
    }


class Take5AEC(CardGameAEC):
    """Take 5 as an AEC environment; see ``fiveplay_env.take5_v0`` for the contracts."""

    spec_record = SPEC
    metadata = METADATA

    def __init__(self, render_mode: str | None = None, **config: Any):
        cfg = config_of(Take5Config, config, ignore=ENV_KEYS)
        super().__init__(cfg, render_mode, observation_size(cfg.num_players, cfg.draft), observation_high(cfg))

    def _new_engine(self, seed: int) -> eng.Take5Engine:
        return eng.Take5Engine(self.config, seed)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        p = self._player(agent, "observe()")
        state = self.engine.state
        mask = eng.legal_mask(state) if p == state.current else self._zero_mask.copy()
        return {"observation": observe(self.config, state, p), "action_mask": mask}

    def _observe(self, engine: eng.Take5Engine, player: int) -> np.ndarray:
        return observe(self.config, engine.state, player)

    def _info(self, engine: eng.Take5Engine, player: int) -> dict[str, Any]:
        return info_of(engine.state, player)

    def _infos_changed(self, engine: eng.Take5Engine) -> bool:
        # Scores, round penalties and the round change only when cards are placed: not while
        # players are still choosing (the common case), so skip rebuilding the info dicts then.
        s = engine.state
        return not (s.phase == PLAY and s.current > 0)

    def _render_text(self, engine: eng.Take5Engine) -> str:
        return render_text(engine.state)

    def _render_rgb(self, engine: eng.Take5Engine) -> Any:
        return table_image(engine.state)


class Take5Parallel(ParallelEnv):
    """Take 5 as a native parallel environment; see ``fiveplay_env.take5_v0`` for the contracts."""

    metadata = METADATA

    def __init__(self, render_mode: str | None = None, **config: Any):
        cfg = config_of(Take5Config, config, ignore=ENV_KEYS)
        self.config = cfg
        self.render_mode = check_render_mode(render_mode)
        n = cfg.num_players
        self.possible_agents = SPEC.agents(n)
        self.agents: list[str] = []
        obs_space, act_space = make_spaces(observation_size(n, cfg.draft), NUM_ACTIONS, observation_high(cfg))
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._wait_mask = np.zeros(NUM_ACTIONS, np.int8)
        self._wait_mask[ACTION_WAIT] = 1
        self.engine: eng.Take5Engine | None = None
        self.seed_used: int | None = None
        self._episode_seeds = seeding.EpisodeSeeds()  # reset(): the next game of the last seed's stream

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    @property
    def state_space(self) -> spaces.Box:
        """The full state's space (``core.state_view``): every seat's observation bounds, in seat order."""
        return state_view.state_space(self.observation_spaces[self.possible_agents[0]]["observation"],
                                      self.config.num_players)

    def state(self) -> np.ndarray:
        """float32 [n * obs_dim]: every seat's observation, in seat order (``core.state_view``)."""
        engine = self.engine
        return state_view.full_state(lambda p: observe(self.config, engine.state, p), self.config.num_players, engine)

    def legal_mask(self, player: int) -> np.ndarray:
        """int8 [109]: what ``player`` may send this step (WAIT only if another player decides)."""
        state = self._state()
        if state.phase == eng.OVER:
            return np.zeros(NUM_ACTIONS, np.int8)
        if state.phase == PLAY:
            return state.hands[player].copy()
        return eng.legal_mask(state) if player == state.current else self._wait_mask.copy()

    def _state(self, call: str = "step()") -> Take5State:
        if self.engine is None:
            raise ResetNeededError(f"{call} before reset(): call reset() first")
        return self.engine.state

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        state = self._state()
        return {
            a: {"observation": observe(self.config, state, p), "action_mask": self.legal_mask(p)}
            for p, a in enumerate(self.possible_agents) if a in self.agents
        }

    def _infos(self) -> dict[str, dict[str, Any]]:
        state = self._state()
        return {a: info_of(state, p) for p, a in enumerate(self.possible_agents)}

    def reset(self, seed: int | None = None, options: dict | None = None):
        self.seed_used = self._episode_seeds.next(seed)
        self.engine = eng.Take5Engine(self.config, self.seed_used)
        self.agents = self.possible_agents[:]
        return self._observations(), self._infos()

    def check_actions(self, actions: dict[str, Any]) -> list[int]:
        """Every agent's action as an int, checked against its mask; else ``IllegalActionError`` (a
        missing or illegal action) or ``ValueError`` (not a dict, or an unknown agent's key)."""
        self._state()
        if not isinstance(actions, dict):
            raise ValueError(f"actions: expected a dict {{agent: action}} for {self.possible_agents}, "
                             f"got {show_value(actions)}")
        unknown = [a for a in actions if a not in self.possible_agents]
        if unknown:
            raise ValueError(f"actions: expected keys among {self.possible_agents}, got unknown agents {unknown}")
        out = []
        for p, agent in enumerate(self.possible_agents):
            if agent not in actions:
                raise IllegalActionError(agent, "(no action)", np.flatnonzero(self.legal_mask(p)))
            a = action_id(actions[agent])  # an int, a numpy integer or a 0-d integer array
            mask = self.legal_mask(p)
            if a is None or not 0 <= a < NUM_ACTIONS or not mask[a]:
                raise IllegalActionError(agent, actions[agent], np.flatnonzero(mask))
            out.append(a)
        return out

    def step(self, actions: dict[str, Any]):
        self._state()
        if not self.agents:
            raise ResetNeededError("step(): the game is over and every agent is done: call reset() to play again")
        acts = self.check_actions(actions)  # nothing changes unless every action is legal
        engine = self.engine
        state = engine.state
        n = self.config.num_players
        total = [0] * n
        if state.phase == PLAY:
            for p in range(n):
                for q, r in enumerate(engine.step(acts[p])):
                    total[q] += r
        else:
            total = engine.step(acts[state.current])
        rewards = {a: float(total[p]) for p, a in enumerate(self.possible_agents)}
        over = engine.is_over
        obs = self._observations()
        infos = self._infos()
        terminations = dict.fromkeys(self.possible_agents, over)
        truncations = dict.fromkeys(self.possible_agents, False)
        if over:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return obs, rewards, terminations, truncations, infos

    def render(self) -> Any:
        if self.render_mode is None:
            return None
        if self.render_mode == "rgb_array":  # the table, with the hand of the seat the engine asks next (state.current)
            if self.engine is None:
                from fiveplay_env.core.picture import message_image

                return message_image("take5_v0: call reset() first")
            return table_image(self.engine.state)
        text = render_text(self.engine.state) if self.engine else "take5_v0: call reset() first"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
