"""The batched 5 Alive engine: B games at once, stepped by the compiled rules (``fiveplay_env.five_alive.kernel``).

It plays exactly the games of the reference engine (``fiveplay_env.five_alive.engine``): the same decision
order (Bomb answers included), the same seeded shuffles, the same rewards and observations, checked step by
step by the replay contract of ``fiveplay_env.testing`` and ``tests/five_alive/test_five_alive_batched.py``
for every config family. The rules are the kernel's (plain scalar code over one game, numba), run over the
B games in one compiled loop per step; the state is the struct of arrays declared by ``positions.SCHEMA``;
the observations are ``encoders``'.

Interface (Pgx's shape, the ``BatchedGame`` protocol of ``fiveplay_env.vector``): after ``reset`` and after
every ``step``, for each game ``i`` of the batch

| attribute             | dtype, shape      | meaning                                                     |
|-----------------------|-------------------|-------------------------------------------------------------|
| ``current_player``    | int32 [B]         | the seat that acts next in game i (a Bomb responder during an answer) |
| ``legal_action_mask`` | int8 [B, 19]      | that seat's legal actions (= the reference's ``legal_mask``); read-only |
| ``rewards``           | float32 [B, n]    | every player's reward for the last step (``config.reward``)  |
| ``terminated``        | bool [B]          | game i ended at the last step (and was replaced, see Autoreset) |
| ``truncated``         | bool [B]          | of those, the games ended by ``max_steps`` (no winner; see Truncation) |
| ``final_lives``, ``final_result``, ``final_win`` | int32, int32, float32 [B, n] | the games that ended at |
|                       |                   | the last step (rows where ``terminated``): lives left, +1 won / -1 lost, win share |
| ``observe()``         | float32 [B, 80+3n] | the acting seat's observation, equal to ``observation.observe`` |
| ``lives``, ``alive``, ``result``, ``hand_sizes`` | [B, n] | the reference's ``lives``, ``alive``, ``result``, ``hand_size`` |
| ``round``, ``phase``, ``total``, ``direction``, ``counter``, ``reshuffles``, ``steps`` | [B] | as in ``FiveAliveState`` (``steps``: its ``turns``) |
| ``seeds``, ``game_index`` | uint64 / int64 [B] | the current game of each slot (see Seeding)             |
| ``field(name)``       | read-only view    | any array of the state (``schema``): what agents read (``hands``, ``hsize``, ``disc``, ...) |

``info()`` gathers them for the vector API: ``seed``, ``lives``, ``alive``, ``round``, and the finished
games' ``final_scores`` (= ``final_lives``, as the training code reads 5 Alive scores), ``final_result``
and ``final_win`` (1 / number of winners, or 1 for each member of the winning team), and ``truncated``.

Truncation (``config.max_steps``, as the reference engine): a game whose ``max_steps``-th decision did not
end it ends there: ``terminated[i]`` and ``truncated[i]``, ``final_result`` 0 for every undecided seat (-1
for the eliminated), ``final_win`` 0; the step's rewards are only what the step itself decided.

Autoreset: **same-step** (Gymnasium's ``AutoresetMode.SAME_STEP``, Pgx's ``auto_reset``): the step's
``rewards[i]``, ``terminated[i]`` and the ``final_*`` rows belong to the finished game, while slot i already
holds a new game (``current_player``, the mask and ``observe()`` are the new game's).

Seeding: ``BatchedFiveAlive(config, B, seed)`` starts game ``k`` of slot ``i`` with seed ``seeding.derive(seed,
i + k * B)``; ``engine.new_game(config, seeds[i])`` replays slot i's game alone. Every random event is the
reference's, in the same order: the deal, the first player, a reshuffle, a Re-Deal.

Positions: ``get_state`` / ``set_state`` (checked: the schema's form and bounds, then
``positions.check_rules``), ``load_states`` (reference states, read field by field as the schema declares),
``load`` (one reference state into one slot), ``gather`` (copies of games), ``redeal`` (every slot an
independent determinization for one seat: ``positions.redeal``, honouring the knowledge of the loaded
positions), ``observe_as`` (any seat's observation). States of the numpy engine
that came before the kernel (fields ``_hands``, ``_cur``, ...) are refused by the form check. The first
engine of a process compiles the kernel (once: numba caches it next to the source, ``cache=True``).
``max_cycles`` (the AEC env's per-agent truncation) is refused; ``max_steps`` applies.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from fiveplay_env.core.batched import bench_batched
from fiveplay_env.core.config import check_int, from_kwargs
from fiveplay_env.core.kernel_engine import KernelEngine
from fiveplay_env.five_alive import encoders, kernel, positions
from fiveplay_env.five_alive.config import FiveAliveConfig
from fiveplay_env.five_alive.observation import observation_size
from fiveplay_env.five_alive.state import NUM_ACTIONS, FiveAliveState


class BatchedFiveAlive(KernelEngine):
    """``batch_size`` 5 Alive games under one ``FiveAliveConfig``, stepped together by the compiled kernel.

    ``step(actions)`` takes one action per game (integers, shape [B]) for each game's ``current_player``.
    See the module docstring for the attributes, autoreset and seeding; the members every kernel engine
    shares are ``KernelEngine``'s.
    """

    SCHEMA = positions.SCHEMA
    KERNEL = kernel
    POSITIONS = positions

    def __init__(self, config: FiveAliveConfig, batch_size: int, seed: int | None = 0) -> None:
        if not isinstance(config, FiveAliveConfig):
            raise ValueError(f"config: expected a FiveAliveConfig, got {type(config).__name__}")
        if config.max_cycles is not None:
            raise ValueError(f"max_cycles: expected None (the batched engine has no per-agent truncation; "
                             f"max_steps applies), got {config.max_cycles}")
        self.config = config
        self.num_players = config.num_players
        self.num_actions = NUM_ACTIONS
        self.observation_size = observation_size(config.num_players)
        self._at = encoders.offsets(config.num_players)
        self._facts: list[positions.Facts | None] | None = None  # the loaded positions' knowledge (redeal)
        self._init_state(batch_size, seed)

    def _outputs(self) -> None:
        super()._outputs()
        st = self._st
        self.truncated = st["truncated"].copy()
        self.final_lives = st["final_lives"].astype(np.int32)
        self.final_result = st["final_result"].astype(np.int32)
        self.final_win = st["final_win"].copy()

    # ------------------------------------------------------------------ read-only views

    @property
    def lives(self) -> np.ndarray:
        """int32 [B, n]: lives left per seat (teams: the seat's team's lives)."""
        return self._st["lives"].astype(np.int32)

    @property
    def alive(self) -> np.ndarray:
        """bool [B, n]: the seats still in the game (those with lives left)."""
        return self._st["lives"] > 0

    @property
    def result(self) -> np.ndarray:
        """int32 [B, n]: -1 for an eliminated seat, 0 (undecided) for the others: a game in progress (the
        reference's ``result``; finished games' results are ``final_result``)."""
        return -(self._st["lives"] == 0).astype(np.int32)

    @property
    def hand_sizes(self) -> np.ndarray:
        """int32 [B, n]: cards in each hand (the reference's ``hand_size``)."""
        return self._st["hsize"].astype(np.int32)

    @property
    def phase(self) -> np.ndarray:
        """int32 [B]: PLAY or BOMB_ANSWER (``state.py`` codes; never OVER: finished games are replaced)."""
        return self._st["phase"].astype(np.int32)

    @property
    def total(self) -> np.ndarray:
        """int32 [B]: the running total T."""
        return self._st["total"].astype(np.int32)

    @property
    def direction(self) -> np.ndarray:
        """int32 [B]: +1 clockwise, -1 counter-clockwise."""
        return self._st["dir"].astype(np.int32)

    @property
    def reshuffles(self) -> np.ndarray:
        """int32 [B]: reshuffles of the discard pile in each game's current round."""
        return self._st["nresh"].astype(np.int32)

    @property
    def steps(self) -> np.ndarray:
        """int32 [B]: decisions taken in each current game (the reference's ``turns``)."""
        return self._st["steps"].copy()

    @property
    def counter(self) -> np.ndarray:
        """int32 [B]: random events used so far (the reference's ``counter``)."""
        return self._st["counter"].copy()

    def hands(self) -> np.ndarray:
        """int32 [B, n, 18]: cards of each kind in each hand (the reference's ``hands``)."""
        return self._st["hands"].astype(np.int32)

    def discard(self) -> np.ndarray:
        """int32 [B, 18]: cards of each kind in the discard pile (the reference's ``discard``)."""
        return self._st["disc"].astype(np.int32)

    def top(self) -> np.ndarray:
        """int32 [B]: kind of the discard pile's top card, -1 if none."""
        return self._st["top"].astype(np.int32)

    def draw_pile(self, i: int) -> list[int]:
        """Game i's draw pile as kinds in drawing order, the next card first (the reference's ``draw[::-1]``)."""
        return [int(k) for k in self._st["draw"][i, :self._st["dlen"][i]][::-1]]

    def info(self) -> dict[str, np.ndarray]:
        """Per-game extras (fresh arrays): ``seed``, ``lives``, ``alive`` and ``round`` of the current games,
        and for the games that just ended (rows where ``terminated``) ``final_scores`` (their lives left),
        ``final_result``, ``final_win`` and ``truncated`` (ended by ``max_steps``)."""
        return {"seed": self.seeds, "lives": self.lives, "alive": self.alive, "round": self.round,
                "final_scores": self.final_lives.copy(), "final_result": self.final_result.copy(),
                "final_win": self.final_win.copy(), "truncated": self.truncated.copy()}

    # ------------------------------------------------------------------ observations

    def observe(self, out: np.ndarray | None = None) -> np.ndarray:
        """float32 [B, 80 + 3n]: each game's acting seat's observation; row i equals
        ``observation.observe(config, state_i, current_player[i])`` of the reference engine. ``out``: an
        optional C-contiguous float32 [B, 80 + 3n] array to write into and return."""
        return self._observe(self._st["cur"], out)

    def observe_as(self, seats: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """float32 [B, 80 + 3n]: game i's observation of seat ``seats[i]`` (any seat, not only the acting
        one), equal to ``observation.observe(config, state_i, seats[i])``."""
        s = np.asarray(seats)
        if s.shape != (self.batch_size,) or s.dtype.kind not in "iu" or (
                s.size and (s.min() < 0 or s.max() >= self.num_players)):
            raise ValueError(f"seats: expected {self.batch_size} seats in 0..{self.num_players - 1}")
        return self._observe(s.astype(np.int64), out)

    def _observe(self, seats: np.ndarray, out: np.ndarray | None) -> np.ndarray:
        obs = self._obs_out(out)
        st = self._st
        encoders.observe(st["hands"], st["hsize"], st["disc"], st["top"], st["dlen"], st["total"], st["dir"],
                         st["cur"], st["phase"], st["lives"], seats, self._at, obs)
        return obs

    # ------------------------------------------------------------------ positions

    def step(self, actions: np.ndarray | Sequence[int], active: np.ndarray | None = None) -> np.ndarray:
        self._facts = None  # the kernel does not track the public knowledge
        return super().step(actions, active)

    step.__doc__ = KernelEngine.step.__doc__

    def reset(self, seed: int | None = None, seeds: Sequence[int] | np.ndarray | None = None) -> None:
        self._facts = None
        super().reset(seed, seeds)

    reset.__doc__ = KernelEngine.reset.__doc__

    def _commit(self, base: int, arrays: dict[str, np.ndarray]) -> None:
        facts = self._facts
        self._facts = None  # new positions (set_state, gather, reset): nothing recorded about them
        try:
            super()._commit(base, arrays)
        except BaseException:
            self._facts = facts
            raise

    def load_states(self, states: Sequence[Any]) -> None:
        super().load_states(states)
        known = {id(s): positions.facts_of(s) for s in states}  # one record per distinct position
        self._facts = [known[id(s)] for s in states]

    load_states.__doc__ = KernelEngine.load_states.__doc__ + """

        The positions' recorded public knowledge (``known``, ``draw_cap``) is kept for ``redeal`` until the
        next step or the next change of positions."""

    def redeal(self, player: int, rng: np.random.Generator) -> None:
        """Every slot (typically copies of one world of ``player``'s information set, from ``load_states``)
        becomes an independent determinization for ``player``, drawn as ``determinize.sample_world`` draws
        one (``positions.redeal``): the other survivors' hands and the draw pile re-dealt from the cards
        hidden from ``player``, honouring the public knowledge recorded in the positions loaded (none once the
        slots have been stepped: the kernel does not track it), and a fresh seed per slot."""
        player = check_int("player", player, 0, self.num_players - 1)
        positions.redeal(self._st, self._P, player, rng, self._facts)
        self._refresh()

    def load(self, i: int, state: FiveAliveState) -> None:
        """Put the reference state ``state`` (a game of this config, not over) into slot i: its seed, counter
        and decision count too, so its later random events and its truncation are the reference's; the slot
        keeps its game index. Checked as ``set_state`` checks a state (a hand-built position may hold part of
        the deck); ``ValueError`` naming the state's attribute (``state.hands``, ...) otherwise, and nothing
        changes."""
        i = check_int("i", i, 0, self.batch_size - 1)
        positions.check_states([state], self.config, name="state")
        try:
            one = self.SCHEMA.from_states([state], self._dim)
            self.SCHEMA.check_bounds(one, self._dim)
            positions.check_rules(one, self._P)
        except ValueError as e:
            raise ValueError(positions.as_state_field(str(e))) from None
        arrays = {name: a.copy() for name, a in self._st.items()}
        for name, a in one.items():
            if name != "game_index":
                arrays[name][i] = a[0]
        facts = self._facts
        self._commit(self.base_seed, arrays)
        facts = list(facts) if facts is not None else [None] * self.batch_size  # the other slots keep theirs
        facts[i] = positions.facts_of(state)
        self._facts = facts


def make_batched(num_envs: int, seed: int | None = 0, **config: Any) -> BatchedFiveAlive:
    """``BatchedFiveAlive(FiveAliveConfig(**config), num_envs, seed)``; unknown config keys raise
    ``ValueError`` naming the key. The factory ``fiveplay_env.vector.make_vec("five_alive", ...)`` calls."""
    return BatchedFiveAlive(from_kwargs(FiveAliveConfig, config), num_envs, seed)


def bench_five_alive_batched(num_players: int, batch_size: int, with_obs: bool, seconds: float) -> float:
    """Decisions per second of ``BatchedFiveAlive`` (standard rules, ``num_players`` seats, ``batch_size``
    games): random legal play, the actions drawn from the mask inside the timed loop; ``with_obs`` also
    encodes every step's observations (into one reused buffer)."""
    return bench_batched(BatchedFiveAlive(FiveAliveConfig(num_players=num_players), batch_size, seed=0),
                         with_obs, seconds)
