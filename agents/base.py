"""The Agent protocol and the information-set API of search agents.

Every agent of ``agents/`` is an ``Agent``:

    agent = SomeAgent(seed=0)          # owns its own np.random.Generator: no global randomness
    agent.reset()                      # between games (``reset(seed)`` also re-seeds the generator)
    a = agent.act(observation, mask)   # one decision: an int whose mask entry is 1
    acts = agent.act_batch(obs, masks) # [B, obs], [B, A] -> int64 [B]

``observation`` is the acting player's flat float32 observation vector (the documented layout of the
game's ``observation.py``), ``action_mask`` its int8 legal-action mask; both are exactly what the
PettingZoo environments hand an agent (``obs["observation"]``, ``obs["action_mask"]``).

Search agents (``uses_engine = True``) additionally need the game they are playing, but may only know
what their player knows. They get it through ``observe_engine(engine, player)``, called right before
each ``act`` of theirs and, optionally, after every step of the game (so that they can follow the public
events: who played what); the agent wraps the engine in an ``InformationSet`` and never touches the
engine otherwise. An ``InformationSet`` exposes the player's legal mask and observation, the last
public event, and ``sample(rng)``:
a *determinization*, i.e. a fresh engine in which every card the player cannot see is re-dealt at
random consistently with everything observed (the game's ``sample_world``) and future chance events
(later deals, reshuffles) are re-seeded from the agent's own generator. Before sampling, the hidden
cards are put into a canonical arrangement (``canonical_state``), so a determinization depends only on
the information set and the generator: two engines that differ only in cards the player cannot see give
identical samples, hence identical decisions (the no-leak test checks this).

A tournament (or any env loop) feeds search agents like this::

    engine = env.unwrapped.engine                     # AEC env: the engine it plays on
    if agent.uses_engine:
        agent.observe_engine(engine, player_index)
    action = agent.act(obs["observation"], obs["action_mask"])
    env.step(action)
    for seat, other in enumerate(agents):              # optional: let them follow public events
        if other.uses_engine:
            other.observe_engine(engine, seat)

Training runs seat search agents as opponents, one per game and seat (``fiveplay_env.agents.learned.engine_seats``);
to checkpoint such a run in the middle of games, an agent says what it carries between calls with
``get_state()`` (plain data: seed, generator state, per-game memory) and takes it back with
``set_state(state)``; an agent whose ``get_state()`` is None (the default) makes such a run refuse to resume.
"""
from __future__ import annotations

from abc import ABC, abstractmethod

from typing import Any

import numpy as np

from fiveplay_env import games
from fiveplay_env.core.seeding import CounterStream, uniforms

NOISE_LEN = 64
"""Random numbers per world for the search's rollout policy (reused cyclically)."""
WORLD_STRIDE = 1 << 12
"""Counters reserved for each world of a decision (``InformationSet.sample_at``): its determinization's draws
come first, its rollouts' random numbers (``world_noise``) use the last one."""


def world_noise(key: int, index: int, n: int) -> np.ndarray:
    """float64 [n]: the rollout random numbers of world ``index`` of the decision keyed ``key``."""
    return uniforms(key, index * WORLD_STRIDE + WORLD_STRIDE - 1, n)

class Agent(ABC):
    """Base class of every agent: seeded by its own Generator, one decision per ``act`` call.

    Subclasses implement ``act``; ``act_batch`` defaults to a loop over ``act``.

    Attributes:
        name: the registry name the agent was made from (e.g. ``"take5-safest"``), for tables.
        uses_engine: True for search agents, which need ``observe_engine`` before each ``act``.
        rng: the agent's own ``np.random.Generator``.
    """

    name: str = "agent"
    uses_engine: bool = False

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Forget per-game memory before a new game; a given ``seed`` also re-seeds the generator."""
        if seed is not None:
            self.seed = seed
            self.rng = np.random.default_rng(seed)

    @abstractmethod
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """One legal action (an int with ``action_mask[a] == 1``) for this observation."""

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """int64 [B]: ``act`` on each row of ``observations`` [B, obs] and ``masks`` [B, A]."""
        observations, masks = check_batch(observations, masks)
        return np.array([self.act(o, m) for o, m in zip(observations, masks)], dtype=np.int64)

    def observe_engine(self, engine: Any, player: int) -> None:
        """Search agents: the engine and their seat, before each of their decisions and optionally
        after every step (ignored by other agents)."""

    def get_state(self) -> dict[str, Any] | None:
        """Engine-using agents: everything the agent carries from one call to the next (its seed, its
        generator's state, its per-game memory) as plain data (dicts, lists, numbers, strings), so that
        a training run seating it in games in progress can be checkpointed and resumed exactly
        (``fiveplay_env.agents.learned.engine_seats``); None (the default) when the agent cannot say it: such a run
        then refuses to resume."""
        return None

    def set_state(self, state: dict[str, Any]) -> None:
        """Become exactly the agent that returned ``state`` from ``get_state``."""
        raise NotImplementedError(f"{type(self).__name__}: set_state needs a get_state that returns the agent's state")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, seed={self.seed!r})"


def check_batch(observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Validate a batch: 2-D arrays with the same number of rows and a legal action in every mask."""
    obs = np.asarray(observations)
    m = np.asarray(masks)
    if obs.ndim != 2 or m.ndim != 2:
        raise ValueError(f"act_batch: expected observations [B, obs] and masks [B, A], got shapes {obs.shape} and {m.shape}")
    if obs.shape[0] != m.shape[0]:
        raise ValueError(f"act_batch: expected as many masks as observations, got {m.shape[0]} and {obs.shape[0]}")
    if m.shape[0] and not m.any(axis=1).all():
        bad = int(np.flatnonzero(~m.any(axis=1))[0])
        raise ValueError(f"act_batch: expected every mask to have a legal action, row {bad} has none")
    return obs, m


def check_mask(action_mask: np.ndarray) -> np.ndarray:
    """The legal action ids of a mask; ``ValueError`` if there is none."""
    legal = np.flatnonzero(action_mask)
    if len(legal) == 0:
        raise ValueError("action_mask: expected at least one legal action (a 1), got an all-zero mask")
    return legal


class InformationSet:
    """What ``player`` may know about the game ``engine`` is playing: a search agent's only view of it.

    The engine is held privately; the public methods reveal only the player's observation and mask,
    and determinizations drawn through the game's ``sample_world`` (see the module docstring).
    """

    __slots__ = ("_game", "_engine", "player", "_canonical", "_conditioned")

    def __init__(self, engine: Any, player: int) -> None:
        self._game = games.of_engine(engine)
        n = engine.config.num_players
        if not isinstance(player, (int, np.integer)) or not 0 <= int(player) < n:
            raise ValueError(f"player: expected a seat in 0..{n - 1}, got {player!r}")
        self._engine = engine
        self.player = int(player)
        self._canonical: Any = None
        self._conditioned: dict[tuple[tuple[int, int], ...], Any] = {}

    @property
    def game(self) -> Any:
        """The game's definition (``fiveplay_env.core.gamedef.GameDef``: name, config helpers, sizes)."""
        return self._game

    @property
    def config(self) -> Any:
        """The rules in force (public)."""
        return self._engine.config

    def is_acting(self) -> bool:
        """Whether ``player`` is the one to act now."""
        return self._engine.current_player == self.player

    def legal_mask(self) -> np.ndarray:
        """int8 [A]: the player's legal actions (all zero if another player acts)."""
        if not self.is_acting():
            return np.zeros(self._game.num_actions, np.int8)
        return self._engine.legal_mask()

    def observation(self) -> np.ndarray:
        """float32 [obs]: the player's observation (the env's ``obs["observation"]``)."""
        return self._game.observe(self._engine, self.player)

    def public_event(self) -> dict[str, Any] | None:
        """What the last step did, as every player saw it (5 Alive: the env's ``infos`` event plus
        ``turns``, the number of decisions so far); None for games without events (Take 5)."""
        return self._game.public_event(self._engine.state)

    def sample_at(self, key: int, index: int, facts: dict[int, int] | None = None) -> Any:
        """World ``index`` of the decision keyed ``key``: ``sample`` drawing from a ``seeding.CounterStream`` on
        counters ``index * WORLD_STRIDE`` onwards instead of a generator, so any world can be drawn again, in
        any order, alone or in compiled code (the search's worlds; ``world_noise`` gives its random numbers).
        It depends on the information set, ``key``, ``index`` and ``facts`` alone: a world whose beliefs no
        conditioned deal met (``CONDITIONED_TRIES``) is drawn without them from its own counters again, and
        that failure is not remembered for the other worlds (as ``sample``'s generator path does)."""
        start, span = index * WORLD_STRIDE, WORLD_STRIDE - 1
        if facts and self._game.condition is not None:
            cond = self._condition(facts)
            if cond is not None:
                rng = CounterStream(key, start, span)
                try:
                    world = self._game.sample_conditioned(self._engine.config, cond, self.player, rng)
                    return self._game.engine_of_world(self._engine.config, world, rng)
                except RuntimeError:
                    pass
        return self._game.sample_engine(self._engine.config, self._canon(), self.player,
                                        CounterStream(key, start, span))  # type: ignore[arg-type]

    def _canon(self) -> Any:
        if self._canonical is None:
            self._canonical = self._game.canonical_state(self._engine, self.player)
        return self._canonical

    def _condition(self, facts: dict[int, int]) -> Any:
        """The game's ``condition`` of the canonical state under ``facts`` (None: no deal can meet them), once
        per set of facts."""
        key = tuple(sorted(facts.items()))
        if key not in self._conditioned:
            self._conditioned[key] = self._game.condition(self._engine.config, self._canon(), facts)
        return self._conditioned[key]

    def canonical(self) -> Any:
        """A copy of the canonical state (``GameDef.canonical``: the hidden cards in an arrangement that
        depends only on what the player knows): the input a compiled search draws its worlds from."""
        if self._canonical is None:
            self._canonical = self._game.canonical_state(self._engine, self.player)
        return self._canonical.clone()

    def sample(self, rng: np.random.Generator, facts: dict[int, int] | None = None) -> Any:
        """A determinization: a new engine whose unseen cards are re-dealt and whose future chance
        events are re-seeded, both from ``rng``; it depends only on this information set and ``rng``.

        ``facts`` ({player: bit set of the card kinds that player's hand may hold}) are extra beliefs
        the caller holds about hidden hands (e.g. inferred from public plays with an opponent model);
        worlds honour them where the game supports it (5 Alive) and ignore them where no deal can.
        """
        if self._canonical is None:
            self._canonical = self._game.canonical_state(self._engine, self.player)
        config = self._engine.config
        game = self._game
        if facts and game.condition is not None:
            key = tuple(sorted(facts.items()))
            if key not in self._conditioned:
                self._conditioned[key] = game.condition(config, self._canonical, facts)
            cond = self._conditioned[key]
            if cond is not None:
                try:
                    world = game.sample_conditioned(config, cond, self.player, rng)
                    return game.engine_of_world(config, world, rng)
                except RuntimeError:  # no deal satisfies the beliefs: forget them for this decision
                    self._conditioned[key] = None
        return game.sample_engine(config, self._canonical, self.player, rng)


class SearchAgentBase(Agent):
    """Base of the search agents (``uses_engine = True``): ``observe_engine`` keeps the seat's
    ``InformationSet`` for the next decision, and ``take_information_set`` hands it to ``act``, once.

    Subclasses that do more in ``observe_engine`` still store the set in ``self._info``; ``label`` names
    the agent in the errors.
    """

    uses_engine = True
    label = "search agent"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self._info: InformationSet | None = None

    def observe_engine(self, engine: Any, player: int) -> None:
        """Take the information set of ``player`` in ``engine`` for the next ``act``."""
        self._info = InformationSet(engine, player)

    def take_information_set(self, action_mask: np.ndarray) -> tuple[np.ndarray, InformationSet | None]:
        """The legal actions of ``action_mask`` and the information set of this decision, or None for it
        when only one action is legal (nothing to search). The set is used up: each decision needs its own
        ``observe_engine``. ``ValueError`` if there was none, or if the mask is not the one of the engine
        given to ``observe_engine``."""
        legal = check_mask(action_mask)
        info, self._info = self._info, None
        if len(legal) == 1:
            return legal, None
        if info is None:
            raise ValueError(f"{self.label}: expected observe_engine(engine, player) before act(): a search "
                             "agent needs its information set (see fiveplay_env.agents.base)")
        if not np.array_equal(np.flatnonzero(info.legal_mask()), legal):
            raise ValueError(f"{self.label}: the action mask does not match the engine given to observe_engine")
        return legal, info
