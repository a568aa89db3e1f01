"""A ``gymnasium.vector.VectorEnv`` over the batched engines: one learning seat per game, fixed agents
in the other seats, every game stepped at once.

    from fiveplay_env.vector_gym import GymVectorEnv
    env = GymVectorEnv("take5", 256, opponents="take5-safest", seed=0, num_players=4, mode="round")
    obs, info = env.reset()
    obs, rewards, terminated, truncated, info = env.step(env.sample_legal())  # one action per game

For Stable-Baselines3 (``MaskablePPO``) the same env is ``fiveplay_env.integrations.sb3.Sb3VecEnv``.

Contract, for B = ``num_envs`` games of the game's batched engine (``fiveplay_env.vector.make_vec``):

| piece                    | value                                                                  |
|--------------------------|------------------------------------------------------------------------|
| ``single_observation_space`` | ``Box`` float32 [obs_dim]: the learner's observation (the game's documented layout) |
| ``single_action_space``  | ``Discrete(A)``: the game's action codec                                |
| ``reset(seed=...)``      | ``obs`` float32 [B, obs_dim], ``info``; with a seed the run starts over |
| ``step(actions)``        | ``actions`` int [B], legal under ``action_masks()``; returns ``obs``, ``rewards`` float32 [B], ``terminated`` bool [B], ``truncated`` bool [B], ``info`` |
| ``action_masks()``       | bool [B, A]: the learner's legal actions in each game now               |
| ``info``                 | ``action_mask`` (bool [B, A], the same), ``seat`` (int [B], the learner's seat in each game now) |

- Every observation is one at which the learner must act: after the learner's action the fixed
  agents play (batched ``act_batch`` over the games where they are to act) until the learner must act
  again in every game.
- ``rewards[i]``: the learner's rewards since its last action (other players' moves included), as in
  ``SingleAgentEnv``. ``terminated[i]``: the learner's episode ended at this step: the game ended or,
  in 5 Alive, the learner was eliminated (then nothing later can reach it, so the slot moves on to
  its next game at once instead of playing the rest out unseen). ``truncated[i]``: the learner's game
  was cut short by a length bound (5 Alive's ``max_steps``: no winner, see the engine's Truncation);
  then ``terminated[i]`` is False (Gymnasium's convention: one of the two, never both). Take 5 games
  always end by their rules.
- Autoreset is **same-step** (``metadata["autoreset_mode"]`` is ``AutoresetMode.SAME_STEP``), the
  batched engines' own convention: where ``terminated[i]``, ``obs[i]`` already belongs to the next game
  (its learner's first decision). No final observation is given: the engine starts the next game
  within the same step, so a truncated game's last observation is the one of the learner's last
  decision (bootstrap from it, or treat truncation as an end). Rewards that reach the learner in a new game before its first
  decision are dropped, as in ``SingleAgentEnv.reset``.
- Seats: ``seat="random"`` draws the learner's seat of each new game from the env's generator
  (seeded by ``reset(seed)``); an int fixes it. Opponents: one agent (name or object with
  ``act_batch``) for every other seat, or a list of n-1 (per other seat, in seat order skipping the
  learner's). Search agents (``uses_engine``) need the reference engine and are refused.
- How games wait: the engine steps every game at once, so when some games are at the learner's turn
  while others still need the fixed agents, only the games that move are stepped (the engine's
  ``step(actions, active=...)``: the waiting games keep their state exactly; a test replays every game
  through the reference engine to prove the games are exact).
"""
from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from fiveplay_env.single_agent import check_seat, resolve_opponents
from fiveplay_env.vector import _factory



def _observation_box(game: str, engine: Any) -> spaces.Box:
    """The game env's observation ``Box`` (the same bounds as ``SingleAgentEnv``'s) when the game has a
    PettingZoo env of that name, else an unbounded one of the engine's size."""
    from fiveplay_env import games

    if game in games.table():
        return games.get(game).make_env(config=engine.config).observation_space("player_0")["observation"]
    return spaces.Box(-np.inf, np.inf, (engine.observation_size,), np.float32)


class GymVectorEnv(gymnasium.vector.VectorEnv):
    """One learning seat per game against fixed agents, over a batched engine (module docstring).

    Args:
        game: a name of ``fiveplay_env.games`` (``"take5"``, ``"five_alive"``).
        num_envs: B, the number of games.
        opponents: an agent name or object with ``act_batch`` for every other seat, or a list of n-1.
        seat: the learner's seat (0..n-1), or ``"random"`` (drawn for each new game).
        seed: the run's base seed (games and seats); ``reset(seed=...)`` starts over.
        **config: the game's config fields.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, game: str, num_envs: int, opponents: Any = "random", seat: int | str = "random",
                 seed: int | None = 0, **config: Any) -> None:
        factory = _factory(game)
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs: expected an integer >= 1, got {num_envs!r}")
        self.game = game
        self.engine = factory(int(num_envs), seed, **config)
        B, n = self.engine.batch_size, self.engine.num_players
        self.num_envs = B
        self.num_players = n
        self.seat_option = check_seat(seat, n)
        self.opponents = resolve_opponents(opponents, n, game)
        for opp in self.opponents:
            if getattr(opp, "uses_engine", False) or not callable(getattr(opp, "act_batch", None)):
                raise ValueError(f"opponents: expected agents with act_batch that do not search the engine, got {opp!r}")
        A = self.engine.num_actions
        self.single_observation_space = _observation_box(game, self.engine)
        self.single_action_space = spaces.Discrete(A)
        box = self.single_observation_space
        self.observation_space = spaces.Box(np.broadcast_to(box.low, (B, *box.shape)),
                                            np.broadcast_to(box.high, (B, *box.shape)), dtype=np.float32)
        self.action_space = spaces.MultiDiscrete(np.full(B, A))
        self._seats = np.zeros(B, np.int64)
        self._arange = np.arange(B)
        self._rng = np.random.default_rng(seed)
        self._started = False
        self._mask: np.ndarray | None = None
        self._terminated = np.zeros(B, bool)
        self._truncated = np.zeros(B, bool)
        self.trace: list[list[tuple[int, int]]] | None = None
        """Set to a list (reset fills it) to record every ``(game seed, action)`` applied in each slot:
        each game can then be replayed alone by the reference engine (the tests do)."""

    # ---------------------------------------------------------------------------------------------

    def _draw_seats(self, rows: np.ndarray) -> None:
        if self.seat_option == "random":
            self._seats[rows] = self._rng.integers(0, self.num_players, size=rows.size)
        else:
            self._seats[rows] = int(self.seat_option)

    def _alive(self) -> np.ndarray | None:
        alive = getattr(self.engine, "alive", None)
        return None if alive is None else np.asarray(alive)

    def _opponent_actions(self, rows: np.ndarray, obs: np.ndarray, mask: np.ndarray, cur: np.ndarray) -> np.ndarray:
        seats = self._seats[rows]
        k = cur[rows] - (cur[rows] > seats)  # opponent index: seat order skipping the learner's
        out = np.empty(rows.size, np.int64)
        for j, opp in enumerate(self.opponents):
            sel = np.flatnonzero(k == j)
            if sel.size:
                out[sel] = opp.act_batch(obs[rows[sel]], mask[rows[sel]])
        return out

    def _engine_step(self, actions: np.ndarray, waiting: np.ndarray) -> np.ndarray:
        """Step every game; games in ``waiting`` are put back as they were. Returns the rewards [B, n]."""
        engine = self.engine
        seeds = np.asarray(engine.seeds).copy() if self.trace is not None else None
        active = np.ones(self.num_envs, bool)
        active[waiting] = False
        rewards = engine.step(actions, active=active).copy()  # IllegalActionError: nothing changed
        if self.trace is not None and seeds is not None:
            moving = np.ones(self.num_envs, bool)
            moving[waiting] = False
            for i in np.flatnonzero(moving):
                self.trace[i].append((int(seeds[i]), int(actions[i])))
        terminated = engine.terminated.copy()
        truncated = np.array(getattr(engine, "truncated", np.zeros(self.num_envs, bool)), bool) & terminated
        self._terminated = terminated
        self._truncated = truncated
        return rewards

    def _play_others(self, acc: np.ndarray, ended: np.ndarray, cut: np.ndarray | None = None) -> None:
        """The fixed agents play until the learner must act in every game; rewards go to ``acc``
        while the learner's episode lasts (``ended`` False); ``cut`` marks the episodes that ended truncated."""
        engine = self.engine
        ar = self._arange
        while True:
            cur = np.asarray(engine.current_player, np.int64)
            alive = self._alive()
            learner_turn = cur == self._seats
            if alive is not None:
                learner_turn &= alive[ar, self._seats]
            if learner_turn.all():
                return
            rows = np.flatnonzero(~learner_turn)
            waiting = np.flatnonzero(learner_turn)
            mask = engine.legal_action_mask
            obs = engine.observe()
            actions = np.argmax(mask, axis=1).astype(np.int64)  # placeholders for the waiting games
            actions[rows] = self._opponent_actions(rows, obs, mask, cur)
            rewards = self._engine_step(actions, waiting)
            self._account(rewards, acc, ended, cut)

    def _account(self, rewards: np.ndarray, acc: np.ndarray, ended: np.ndarray,
                 cut: np.ndarray | None = None) -> None:
        live = ~ended
        acc[live] += rewards[self._arange, self._seats][live]
        alive = self._alive()
        if cut is not None:
            cut |= live & self._truncated
        ended |= self._terminated
        new = self._terminated
        if alive is not None:
            # The learner's elimination ends its episode. Nothing the others do afterwards can reach it,
            # so the slot moves on to its next game at once rather than playing the rest out unseen.
            out = ~alive[self._arange, self._seats] & ~self._terminated
            if out.any():
                ended |= out
                g = np.flatnonzero(out)
                self.engine.next_games(g)
                new = new | out
        rows = np.flatnonzero(new)
        if rows.size:
            self._draw_seats(rows)  # the slot's next game

    def _out(self) -> tuple[np.ndarray, dict[str, Any]]:
        mask = np.asarray(self.engine.legal_action_mask) != 0
        self._mask = mask
        return self.engine.observe(), {"action_mask": mask.copy(), "seat": self._seats.copy()}

    # --- Gymnasium API ---------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """New games in every slot (with ``seed``: the run, games and seats, starts over)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self.engine.reset(seed)
        elif self._started:
            self.engine.reset(None)
        self._started = True
        self._draw_seats(self._arange)
        if self.trace is not None:
            self.trace = [[] for _ in range(self.num_envs)]
        acc = np.zeros(self.num_envs, np.float32)
        self._play_others(acc, np.ones(self.num_envs, bool))
        return self._out()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """The learner's action in every game (int [B]); see the module docstring."""
        if not self._started:
            raise RuntimeError("step: call reset() first")
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) or a.dtype.kind not in "iu":
            raise ValueError(f"actions: expected an integer array of shape ({self.num_envs},), got {a.dtype} {a.shape}")
        acc = np.zeros(self.num_envs, np.float32)
        ended = np.zeros(self.num_envs, bool)
        cut = np.zeros(self.num_envs, bool)
        rewards = self._engine_step(a.astype(np.int64), np.empty(0, np.int64))
        self._account(rewards, acc, ended, cut)
        self._play_others(acc, ended, cut)
        obs, info = self._out()
        return obs, acc, ended & ~cut, cut, info

    def action_masks(self) -> np.ndarray:
        """bool [B, A]: the learner's legal actions in each game now."""
        if self._mask is None:
            raise RuntimeError("action_masks: call reset() first")
        return self._mask.copy()

    def sample_legal(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """int64 [B]: a uniformly random legal action per game (for smoke tests and baselines)."""
        from fiveplay_env.vector import random_actions

        return random_actions(self.action_masks(), rng if rng is not None else self._rng)
