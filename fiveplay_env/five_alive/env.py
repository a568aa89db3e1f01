"""The 5 Alive PettingZoo AEC environment over the reference engine (no rule logic here: only translation).

The acting agent is whoever's turn it is (or, with ``bomb_zero_optional``, the Bomb responder whose
answer is awaited). An eliminated player is terminated at once and leaves ``agents`` when stepped with
``None`` (PettingZoo's dead-step rule); with ``keep_eliminated=True`` it stays in ``agents`` instead
(not terminated, never selected, all-zero mask, ``alive`` False) until the game ends, for libraries that
need every agent present at every step (TorchRL's ``PettingZooWrapper``). When the game ends every
remaining agent is terminated. With ``max_cycles`` set, every agent is truncated once a player has made
that many decisions (each agent acts at most ``max_cycles`` times). A game that the engine ends at
``max_steps`` decisions (``engine.truncated``: no winner) truncates every remaining agent instead of
terminating it. Infos: ``info_of``; the nested ``event`` entry only with ``info_event=True``.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from fiveplay_env.core.aec import CardGameAEC
from fiveplay_env.core.config import config_of, from_kwargs
from fiveplay_env.five_alive import engine as eng
from fiveplay_env.five_alive import SPEC  # the game's facts, declared with its definition
from fiveplay_env.five_alive.config import FiveAliveConfig
from fiveplay_env.five_alive.events import event_info  # noqa: F401  (re-exported: it was defined here)
from fiveplay_env.five_alive.observation import gather_index, observation_high, observation_size, observe
from fiveplay_env.five_alive.render import render_text, table_image
from fiveplay_env.five_alive.state import NUM_ACTIONS, OVER, FiveAliveState

METADATA = {
    "name": "five_alive_v0",
    "render_modes": ["ansi", "human", "rgb_array"],
    "is_parallelizable": False,
    "render_fps": 1,
}
ENV_KEYS = ("render_mode", "info_event", "keep_eliminated")


def make_config(**kwargs: Any) -> FiveAliveConfig:
    """A validated ``FiveAliveConfig`` from keyword arguments (unknown keys raise ``ValueError``)."""
    return from_kwargs(FiveAliveConfig, kwargs, ignore=ENV_KEYS)


def info_of(state: FiveAliveState, player: int, event: dict[str, Any] | None = None) -> dict[str, Any]:
    """``infos[agent]``, the same keys and numeric types at every step, reset included (what TorchRL's
    ``PettingZooWrapper``, which builds its info spec at reset, and Tianshou's replay buffer need):

    | key          | type | meaning                                                                  |
    |--------------|------|--------------------------------------------------------------------------|
    | ``lives``    | int  | lives left (teams: the team's)                                           |
    | ``round``    | int  | rounds completed                                                         |
    | ``alive``    | bool | still in the game                                                        |
    | ``winner``   | bool | False until the game is over; then True for the winner(s)                |
    | ``event``    | dict | only when ``event`` is given (the env's ``info_event=True``): the last   |
    |              |      | resolved step (``event_info``, strings and per-seat lists; shared by all |
    |              |      | agents, read-only)                                                       |
    """
    info = {
        "lives": int(state.lives[player]),
        "round": int(state.round),
        "alive": bool(state.alive[player]),
        "winner": state.phase == OVER and player in state.winners,
    }
    if event is not None:
        info["event"] = event
    return info


class FiveAliveAEC(CardGameAEC):
    """5 Alive as an AEC environment; see ``fiveplay_env.five_alive_v0`` for the contracts."""

    spec_record = SPEC
    metadata = METADATA

    def __init__(self, render_mode: str | None = None, info_event: bool = False, keep_eliminated: bool = False,
                 **config: Any):
        for name, value in (("info_event", info_event), ("keep_eliminated", keep_eliminated)):
            if not isinstance(value, bool):
                raise ValueError(f"{name}: expected True or False, got {value!r}")
        cfg = config_of(FiveAliveConfig, config, ignore=ENV_KEYS)
        super().__init__(cfg, render_mode, observation_size(cfg.num_players), observation_high(cfg))
        self.info_event = info_event
        self._keep_eliminated = keep_eliminated
        self._gather = [gather_index(cfg.num_players, p) for p in range(cfg.num_players)]
        if cfg.max_cycles is not None:  # without it, a step is the shared step with no hook
            self._after_decision = self._count_decision

    def _new_engine(self, seed: int) -> eng.FiveAliveEngine:
        return eng.FiveAliveEngine(self.config, seed)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        p = self._index.get(agent) if self.engine is not None and agent.__class__ is str else None
        if p is None:
            p = self._player(agent, "observe()")  # raises the right error
        state = self.engine.state
        mask = eng.legal_mask(state) if p == state.current else self._zero_mask.copy()
        # observe(config, state, p) with its gather rows looked up once per env (it runs at every step)
        return {"observation": state.tab[self._gather[p]], "action_mask": mask}

    def _observe(self, engine: eng.FiveAliveEngine, player: int) -> np.ndarray:
        return observe(self.config, engine.state, player)

    def _info(self, engine: eng.FiveAliveEngine, player: int) -> dict[str, Any]:
        return info_of(engine.state, player, event_info(engine.state) if self.info_event else None)

    def _refresh_infos(self) -> None:
        state = self.engine.state
        event = event_info(state) if self.info_event else None  # one shared, read-only dict per step
        if state.ev_rare or state.phase == OVER:
            self.infos = {a: info_of(state, self._index[a], event) for a in self.agents}
            return
        # A common step changes only the event: the other entries are info_of's, written out (the
        # engine's lives, round and alive are Python ints and bools; no winner before the game is over).
        lives, alive, rnd, index = state.lives, state.alive, state.round, self._index
        infos = {}
        if event is None:
            for a in self.agents:  # (a plain loop: cheaper than a comprehension's closure here)
                p = index[a]
                infos[a] = {"lives": lives[p], "round": rnd, "alive": alive[p], "winner": False}
        else:
            for a in self.agents:
                p = index[a]
                infos[a] = {"lives": lives[p], "round": rnd, "alive": alive[p], "winner": False, "event": event}
        self.infos = infos

    def _alive(self, engine: eng.FiveAliveEngine) -> list[bool]:
        return engine.state.alive

    def _render_text(self, engine: eng.FiveAliveEngine) -> str:
        return render_text(engine.state, teams=self.config.teams)

    def _render_rgb(self, engine: eng.FiveAliveEngine) -> Any:
        return table_image(engine.state, teams=self.config.teams)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._decisions = [0] * self.config.num_players  # per seat, for max_cycles
        super().reset(seed=seed, options=options)

    def _game_over(self, engine: eng.FiveAliveEngine) -> None:
        if eng.truncated(engine.state):
            # the engine's max_steps ended the game unfinished: a truncation, not a termination
            alive, index = engine.state.alive, self._index
            for a in self.agents:
                if alive[index[a]]:
                    self.truncations[a] = True
                else:  # eliminated on this step: terminated as usual
                    self.terminations[a] = True
            return
        super()._game_over(engine)

    def _count_decision(self, agent: str) -> None:
        """PettingZoo's convention: max_cycles counts each agent's actions, so the game is truncated once
        a player has made max_cycles decisions (no one makes more; everyone makes about as many)."""
        seat = self._index[agent]
        self._decisions[seat] += 1
        if self._decisions[seat] >= self.config.max_cycles and not self.engine.is_over and self.agents:
            for a in self.agents:
                self.truncations[a] = True
            self._select()
