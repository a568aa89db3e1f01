"""PettingZoo bookkeeping shared by both games' AEC environments.

``CardGameAEC`` turns a game engine into a ``pettingzoo.AECEnv`` with no wrapper stack: the checks
(legality, order) are done once, inside the engine, which raises ``IllegalActionError`` before it
changes anything. A game's env subclass supplies the engine and a few hooks; no rule logic lives here.

Engine interface the subclass's ``_new_engine`` must return (duck-typed):
    current_player: int      the acting player, -1 once the game is over
    is_over: bool
    legal_mask() -> int8[A]  the acting player's legal actions
    step(action) -> list     every player's reward for this step (raises IllegalActionError)
Hooks: ``_observe(engine, player) -> float32[obs]``, ``_info(engine, player) -> dict``,
``_alive(engine) -> list[bool] | None`` (players still in the game; None: nobody is ever eliminated;
an eliminated player is terminated at once, unless the subclass sets ``_keep_eliminated``),
``_render_text(engine) -> str``, ``_render_rgb(engine) -> uint8[H, W, 3]`` (``render_mode="rgb_array"``:
a picture of the table as the acting player sees it, drawn with Pillow: ``fiveplay_env.core.picture``;
``"human"`` prints the text picture, as PettingZoo's classic card games do); optional: ``_game_over(engine)`` (the flags of the step that ended
the game: every agent terminated by default) and ``_after_decision(agent)``, an attribute (None: no
call) run after each step on which ``agent`` acted (for example to count decisions for ``max_cycles``).
"""
from __future__ import annotations

from abc import ABCMeta, abstractmethod
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from fiveplay_env.core import seeding, state_view
from fiveplay_env.core.config import show_value
from fiveplay_env.core.errors import ResetNeededError
from fiveplay_env.core.spec import GameSpec

RENDER_MODES = ("ansi", "human", "rgb_array")
"""``ansi``: the table as text (returned); ``human``: that text printed; ``rgb_array``: a picture of the
table, ``uint8[480, 640, 3]`` (Pillow: the ``render`` extra)."""


def check_render_mode(render_mode: object, modes: Any = RENDER_MODES) -> str | None:
    """``render_mode`` if it is None or one of ``modes`` (an env's ``metadata["render_modes"]``);
    ``ValueError`` naming the field otherwise (Pillow's absence for ``rgb_array``: ``ImportError``)."""
    if render_mode is not None and render_mode not in modes:
        raise ValueError(f"render_mode: expected one of {[None, *modes]}, got {render_mode!r}")
    if render_mode == "rgb_array":
        from fiveplay_env.core.picture import pillow

        pillow()  # missing Pillow is said now, at construction, not at the first frame
    return render_mode  # type: ignore[return-value]


def make_spaces(obs_size: int, num_actions: int, obs_high: float = 1.0) -> tuple[spaces.Dict, spaces.Discrete]:
    """The observation space (dict of ``observation`` and int8 ``action_mask``) and action space."""
    obs_space = spaces.Dict({
        "observation": spaces.Box(0.0, obs_high, (obs_size,), np.float32),
        "action_mask": spaces.Box(0, 1, (num_actions,), np.int8),
    })
    return obs_space, spaces.Discrete(num_actions)


class CardGameAEC(AECEnv, metaclass=ABCMeta):
    """Shared AEC machinery; see the module docstring for what a subclass provides."""

    spec_record: GameSpec
    metadata: dict[str, Any]

    def __init__(self, config: Any, render_mode: str | None, obs_size: int, obs_high: float = 1.0):
        super().__init__()
        self.config = config
        self.render_mode = check_render_mode(render_mode, self.metadata.get("render_modes", RENDER_MODES))
        n = config.num_players
        self.possible_agents = self.spec_record.agents(n)
        self.agents = self.possible_agents[:]
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space, act_space = make_spaces(obs_size, self.spec_record.num_actions, obs_high)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._zero_mask = np.zeros(self.spec_record.num_actions, np.int8)
        self.engine: Any = None
        self.seed_used: int | None = None
        self._episode_seeds = seeding.EpisodeSeeds()  # reset(): the next game of the last seed's stream
        self.rewards = {}
        self._cumulative_rewards = {}
        self.terminations = {}
        self.truncations = {}
        self.infos = {}
        self._rewards_dirty = False
        self._after_decision: Callable[[str], None] | None = None  # a subclass's per-decision hook (max_cycles)
        self._keep_eliminated = False  # a subclass may keep eliminated players in agents until the game ends

    # --- hooks ---------------------------------------------------------------------------------
    @abstractmethod
    def _new_engine(self, seed: int) -> Any:
        """A new game engine seeded with ``seed``."""

    @abstractmethod
    def _observe(self, engine: Any, player: int) -> np.ndarray:
        """``player``'s observation vector."""

    @abstractmethod
    def _info(self, engine: Any, player: int) -> dict[str, Any]:
        """``player``'s infos dict."""

    def _alive(self, engine: Any) -> list[bool] | None:
        return None

    @abstractmethod
    def _render_text(self, engine: Any) -> str:
        """The text picture of the table."""

    def _render_rgb(self, engine: Any) -> Any:
        """The picture of the table (``render_mode="rgb_array"``); a game without one says so."""
        raise NotImplementedError(f"{self.metadata['name']}: render_mode='rgb_array' is not drawn for this game")

    # --- PettingZoo API ------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    @property
    def state_space(self) -> spaces.Box:
        """The full state's space (``core.state_view``): every seat's observation bounds, in seat order."""
        if getattr(self, "_state_space", None) is None:
            obs = self.observation_spaces[self.possible_agents[0]]["observation"]
            self._state_space = state_view.state_space(obs, len(self.possible_agents))
        return self._state_space

    def state(self) -> np.ndarray:
        """float32 [n * obs_dim]: every seat's observation, in seat order (``core.state_view``)."""
        return state_view.full_state(lambda p: self._observe(self.engine, p), len(self.possible_agents), self.engine)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.seed_used = self._episode_seeds.next(seed)
        self.engine = self._new_engine(self.seed_used)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._rewards_dirty = False
        self._alive_seen: list[bool] | None = None  # the engine's alive list when last scanned (step)
        self._alive_count = -1
        self._refresh_infos()
        self._select()

    def _player(self, agent: object, call: str) -> int:
        """``agent``'s seat; ``ResetNeededError`` before ``reset()``, ``ValueError`` for an unknown agent."""
        if self.engine is None:
            raise ResetNeededError(f"{call} before reset(): call reset() first")
        p = self._index.get(agent) if isinstance(agent, str) else None
        if p is None:
            raise ValueError(f"agent: expected one of {self.possible_agents}, got {show_value(agent)}")
        return p

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``AECEnv.last``, written out (it runs at every step): the selected agent's
        observation (None with ``observe=False``), cumulative reward, termination, truncation and infos."""
        if self.engine is None:
            raise ResetNeededError("last() before reset(): call reset() first")
        if not self.agents:
            raise ResetNeededError("last(): the game is over and every agent is done: call reset() to play again")
        agent = self.agent_selection
        return (self.observe(agent) if observe else None, self._cumulative_rewards[agent],
                self.terminations[agent], self.truncations[agent], self.infos[agent])

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        p = self._player(agent, "observe()")
        engine = self.engine
        mask = engine.legal_mask() if p == engine.current_player else self._zero_mask.copy()
        return {"observation": self._observe(engine, p), "action_mask": mask}

    def step(self, action: Any) -> None:
        if self.engine is None:
            raise ResetNeededError("step() before reset(): call reset() first")
        if not self.agents:
            raise ResetNeededError("step(): the game is over and every agent is done: call reset() to play again")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            self._select()
            return
        engine = self.engine
        rewards = engine.step(action)  # raises IllegalActionError before changing anything
        self._cumulative_rewards[agent] = 0.0
        if any(rewards):
            idx = self._index
            self.rewards = {a: float(rewards[idx[a]]) for a in self.agents}
            self._accumulate_rewards()
            self._rewards_dirty = True
        elif self._rewards_dirty:
            self._clear_rewards()
            self._rewards_dirty = False
        if self._infos_changed(engine):
            self._refresh_infos()
        alive = self._alive(engine)
        if engine.is_over:
            self._game_over(engine)
        elif alive is not None and not self._keep_eliminated and (
                alive is not self._alive_seen or alive.count(True) != self._alive_count):
            # someone was eliminated (survivors only decrease), or the engine's state was replaced
            self._alive_seen, self._alive_count = alive, alive.count(True)
            for a in self.agents:
                if not alive[self._index[a]]:
                    self.terminations[a] = True
        self._select()
        if self._after_decision is not None:
            self._after_decision(agent)
        if self.render_mode == "human":
            self.render()

    def _game_over(self, engine: Any) -> None:
        """The step that ended the game: every remaining agent is terminated (subclasses may truncate
        some instead, for a game ended unfinished)."""
        for a in self.agents:
            self.terminations[a] = True

    def _infos_changed(self, engine: Any) -> bool:
        """Whether infos must be rebuilt after a step (subclasses may narrow this for speed)."""
        return True

    def _refresh_infos(self) -> None:
        engine = self.engine
        self.infos = {a: self._info(engine, self._index[a]) for a in self.agents}

    def _select(self) -> None:
        """Dead agents step first (PettingZoo's rule); otherwise the engine's acting player."""
        terms, truncs = self.terminations, self.truncations
        if True in terms.values() or True in truncs.values():  # (C-level scans: usually nobody is done)
            for a in self.agents:
                if terms[a] or truncs[a]:
                    self.agent_selection = a
                    return
        cur = self.engine.current_player
        self.agent_selection = self.possible_agents[cur] if cur >= 0 else (self.agents[0] if self.agents else self.possible_agents[0])

    def _was_dead_step(self, action: Any) -> None:
        if action is not None:
            raise ValueError(f"{self.agent_selection} is done: expected action None, got {action!r}")
        agent = self.agent_selection
        for d in (self.terminations, self.truncations, self.rewards, self._cumulative_rewards, self.infos):
            del d[agent]
        self.agents.remove(agent)
        self._clear_rewards()

    def render(self) -> Any:
        if self.render_mode is None:
            import gymnasium
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi', 'human' or "
                                  "'rgb_array'")
            return None
        if self.render_mode == "rgb_array":
            if self.engine is None:
                from fiveplay_env.core.picture import message_image

                return message_image(f"{self.metadata['name']}: call reset() first")
            return self._render_rgb(self.engine)
        if self.engine is None:
            text = f"{self.metadata['name']}: call reset() first"
        else:
            text = self._render_text(self.engine)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
