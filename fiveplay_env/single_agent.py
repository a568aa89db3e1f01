"""A Gymnasium single-agent view of a multiplayer game: one seat learns, fixed agents play the others.

    from fiveplay_env.wrappers import SingleAgentEnv
    env = SingleAgentEnv("take5", opponents="take5-safest", seat="random", num_players=4, mode="round")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(env.action_masks())[0]))

    from sb3_contrib import MaskablePPO                 # trains on it unchanged
    MaskablePPO("MlpPolicy", env).learn(10_000)

Contract (``gymnasium.Env``):

| piece               | value                                                                         |
|---------------------|-------------------------------------------------------------------------------|
| ``observation_space`` | ``Box`` float32 [obs_dim]: the learner's ``obs["observation"]`` of the game's |
|                     | PettingZoo env (its documented layout)                                        |
| ``action_space``    | ``Discrete(A)``: the game's action codec                                      |
| ``action_masks()``  | bool [A]: the learner's legal actions now (what ``MaskablePPO`` asks for);     |
|                     | all False once the episode is over                                            |
| ``reset(seed=...)`` | a new game; the game's seed, the learner's seat (``seat="random"``) and the   |
|                     | opponents' seeds are drawn from Gymnasium's ``np_random``, so a seed fixes the |
|                     | whole episode                                                                 |
| ``step(a)``         | plays ``a`` for the learner, then the fixed agents until the learner must act  |
|                     | again or the game ends. ``reward``: the sum of the learner's rewards since its |
|                     | last action (rewards caused by other players' moves included). ``terminated``: |
|                     | the game is over for the learner (Take 5: the game ended; 5 Alive: the game   |
|                     | ended or the learner was eliminated). ``truncated``: the env's ``max_cycles`` |
| ``info``            | ``seat``, ``action_mask`` (int8) and the game env's infos for the learner     |

An illegal action raises ``IllegalActionError`` (nothing changes), as in the game envs; with
``illegal_action_penalty=X`` it ends the episode instead (``terminated``, reward X, ``info["illegal_action"]``),
for tools that send unmasked random actions (Gymnasium's ``check_env``). Opponents are agents with
``act(observation, action_mask) -> int`` (the ``fiveplay_env.agents.base.Agent`` protocol; search agents get
``observe_engine`` before each move) or registry names (``"random"``, ``"take5-safest"``, ``"ckpt:PATH"``;
resolved by the resolver the agents package registers: see ``register_agent_resolver``; this package
imports nothing from ``agents``). One opponent (name or agent) fills
every other seat; a list gives one per other seat, in seat order skipping the learner's.

If a game ends before the learner's first decision (possible only in exotic 5 Alive configs), ``reset``
starts another game, so every episode has at least one decision.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from fiveplay_env import games
from fiveplay_env.core import seeding

_MAX_EMPTY_GAMES = 100


AGENT_RESOLVERS = "fiveplay.agent_resolvers"
"""Entry-point group of agent-name resolvers: ``(name, game, seed) -> agent`` callables. The ``agents``
package declares ``fiveplay_env.agents.registry:make_agent`` there, so names work as soon as it is installed, without
this package importing it (layers import downwards only: ``docs/architecture.md``)."""

AgentResolver = Callable[[str, str, "int | None"], Any]
_resolver: AgentResolver | None = None


def register_agent_resolver(resolver: AgentResolver | None) -> None:
    """Resolve opponent names with ``resolver(name, game, seed)`` (``None``: back to the entry points).

    ``fiveplay_env.agents.registry`` registers its ``make_agent`` when imported; a project with its own agents may
    register another resolver (or declare one in the ``fiveplay.agent_resolvers`` entry-point group).
    """
    global _resolver
    if resolver is not None and not callable(resolver):
        raise ValueError(f"resolver: expected a callable (name, game, seed) -> agent, got {resolver!r}")
    _resolver = resolver


def _find_resolver() -> AgentResolver | None:
    if _resolver is not None:
        return _resolver
    from importlib.metadata import entry_points

    for ep in sorted(entry_points(group=AGENT_RESOLVERS), key=lambda e: e.name):
        try:
            loaded = ep.load()
        except ImportError:  # the distribution that declared it is only partly importable: try the next
            continue
        return _resolver if _resolver is not None else loaded  # loading it may register the package's own
    return None


def resolve_agent(spec: Any, game: str, seed: int | None) -> Any:
    """An agent object: ``spec`` itself if it has ``act``, else the name resolved by the registered
    resolver (``fiveplay_env.agents.registry.make_agent`` once the agents package is installed)."""
    if isinstance(spec, str):
        resolver = _find_resolver()
        if resolver is None:
            raise ValueError(
                f"opponents: agent names such as {spec!r} need a resolver; install the agents package "
                f"(pip install fiveplay-env), register one with register_agent_resolver, or pass agent objects"
            )
        return resolver(spec, game, seed)
    if not callable(getattr(spec, "act", None)):
        raise ValueError(f"opponents: expected agent names or objects with act(observation, action_mask), got {spec!r}")
    return spec


class UnsupportedRenderMode(ValueError, TypeError):
    """A render mode the env does not have. Also a ``TypeError``, the error SB3's ``make_vec_env`` expects
    when it tries ``render_mode="rgb_array"`` first and then falls back to the env's default."""


def check_seat(seat: Any, num_players: int) -> int | str:
    """``seat`` if it is ``"random"`` or a seat in 0..n-1; ``ValueError`` otherwise."""
    n = num_players
    if seat != "random" and (isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n):
        raise ValueError(f"seat: expected 'random' or a seat in 0..{n - 1}, got {seat!r}")
    return seat


def resolve_opponents(opponents: Any, num_players: int, game: str) -> list[Any]:
    """The n-1 fixed agents of the seats other than the learner's, in seat order: one agent (name or
    object) for every seat, or a sequence of n-1; names resolved by ``resolve_agent``, seeded 0..n-2."""
    n = num_players
    if isinstance(opponents, (str, bytes)) or callable(getattr(opponents, "act", None)):
        specs: list[Any] = [opponents] * (n - 1)
    elif isinstance(opponents, Sequence):
        specs = list(opponents)
        if len(specs) != n - 1:
            raise ValueError(f"opponents: expected one agent or {n - 1} of them (one per other seat), got {len(specs)}")
    else:
        raise ValueError(f"opponents: expected an agent name, an agent, or a list of {n - 1}, got {opponents!r}")
    return [resolve_agent(s, game, seed=k) for k, s in enumerate(specs)]


class SingleAgentEnv(gymnasium.Env):
    """One learning seat against fixed agents (see the module docstring).

    Args:
        game: a name of ``fiveplay_env.games`` (``"take5"``, ``"five_alive"``).
        opponents: one agent (name or object) for every other seat, or a sequence of n-1 of them.
        seat: the learner's seat (0..n-1) or ``"random"`` (drawn at each reset).
        render_mode: ``None``, ``"ansi"``, ``"human"`` (text) or ``"rgb_array"`` (a picture of the table,
            ``uint8[480, 640, 3]``, for Gymnasium's ``RecordVideo``; needs Pillow: the ``render`` extra).
        illegal_action_penalty: ``None`` (raise on an illegal action) or the reward that ends the episode.
        **config: the game's config fields (``num_players``, ``mode`` ...).
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    def __init__(self, game: str, opponents: Any = "random", seat: int | str = "random",
                 render_mode: str | None = None, illegal_action_penalty: float | None = None, **config: Any) -> None:
        definition = games.get(game)  # ValueError listing the known games
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise UnsupportedRenderMode(
                f"render_mode: expected one of {[None, *self.metadata['render_modes']]}, got {render_mode!r}")
        if render_mode == "rgb_array":
            from fiveplay_env.core.picture import pillow

            try:
                pillow()
            except ImportError as e:  # (a TypeError too: SB3's make_vec_env then falls back to no render mode)
                raise UnsupportedRenderMode(str(e)) from None
        self.game = game
        try:
            self._env = definition.make_env(render_mode=render_mode, **config)
        except ValueError as e:  # a game env without this mode (a TypeError too: SB3 then falls back)
            if render_mode is not None and str(e).startswith("render_mode:"):
                raise UnsupportedRenderMode(f"{game}: {e}") from None
            raise
        self.render_mode = render_mode
        self.possible_agents = list(self._env.possible_agents)
        self.num_players = n = len(self.possible_agents)
        self.seat_option = check_seat(seat, n)
        if illegal_action_penalty is not None and (isinstance(illegal_action_penalty, bool) or
                                                   not isinstance(illegal_action_penalty, (int, float))):
            raise ValueError(f"illegal_action_penalty: expected None or a number, got {illegal_action_penalty!r}")
        self.illegal_action_penalty = illegal_action_penalty
        self._opponents = resolve_opponents(opponents, n, game)
        space = self._env.observation_space(self.possible_agents[0])
        self.observation_space = space["observation"]
        self.action_space = spaces.Discrete(space["action_mask"].shape[0])
        self.seat = 0 if seat == "random" else int(seat)
        self._by_seat: list[Any] = []
        self._mask = np.zeros(self.action_space.n, np.int8)
        self._done = True

    # --------------------------------------------------------------------------------------------

    @property
    def aec_env(self) -> Any:
        """The underlying PettingZoo AEC env (read-only use)."""
        return self._env

    def _seat_agents(self) -> None:
        it = iter(self._opponents)
        self._by_seat = [None if p == self.seat else next(it) for p in range(self.num_players)]

    def _advance(self) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the fixed agents until the learner must act or is done."""
        env = self._env
        learner = self.possible_agents[self.seat]
        engine = env.unwrapped.engine
        while True:
            agent = env.agent_selection
            obs, rew, term, trunc, info = env.last()
            if agent == learner:
                return obs, float(rew), bool(term), bool(trunc), info
            if term or trunc:
                env.step(None)
                continue
            p = self.possible_agents.index(agent)
            opp = self._by_seat[p]
            if getattr(opp, "uses_engine", False):
                opp.observe_engine(engine, p)
            env.step(int(opp.act(obs["observation"], obs["action_mask"])))

    def _out(self, obs: dict[str, np.ndarray], info: dict[str, Any], done: bool) -> tuple[np.ndarray, dict[str, Any]]:
        self._mask = np.zeros_like(obs["action_mask"]) if done else obs["action_mask"]
        self._done = done
        return (np.asarray(obs["observation"], np.float32),
                {**info, "seat": self.seat, "action_mask": self._mask.copy()})

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """A new game (see the module docstring); returns ``(observation, info)``."""
        super().reset(seed=seed)
        for _ in range(_MAX_EMPTY_GAMES):
            rng = self.np_random
            game_seed = int(rng.integers(0, 2**63))
            if self.seat_option == "random":
                self.seat = int(rng.integers(0, self.num_players))
            self._seat_agents()
            for k, opp in enumerate(self._opponents):
                if hasattr(opp, "reset"):
                    opp.reset(seed=seeding.derive(game_seed, k + 1))
            self._env.reset(seed=game_seed)
            obs, _, term, trunc, info = self._advance()
            if not (term or trunc):
                return self._out(obs, info, False)
        raise RuntimeError(f"reset: {_MAX_EMPTY_GAMES} games in a row ended before the learner's first decision")

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """The learner plays ``action``; then the others play until its next decision or the end."""
        if self._done:
            raise RuntimeError("step: the episode is over (or reset() was never called); call reset() first")
        # one integer (a size-1 integer array too, as vectorised code passes it); anything else goes to
        # the engine, which rejects it with an IllegalActionError naming it
        a = action.reshape(-1)[0] if isinstance(action, np.ndarray) and action.size == 1 and action.dtype.kind in "iu" \
            else action
        a = int(a) if isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_)) else a
        if self.illegal_action_penalty is not None:
            ok = type(a) is int and 0 <= a < self._mask.shape[0] and bool(self._mask[a])
            if not ok:
                obs = self._env.observe(self.possible_agents[self.seat])
                o, inf = self._out(obs, {"illegal_action": {"action": action}}, True)
                return o, float(self.illegal_action_penalty), True, False, inf
        self._env.step(a)  # raises IllegalActionError before changing anything
        obs, rew, term, trunc, info = self._advance()
        o, inf = self._out(obs, info, term or trunc)
        return o, rew, term, trunc, inf

    def action_masks(self) -> np.ndarray:
        """bool [A]: the learner's legal actions now (sb3-contrib's ``MaskablePPO`` calls this)."""
        return self._mask.astype(bool)

    def render(self) -> Any:
        return self._env.render()

    def close(self) -> None:
        self._env.close()
