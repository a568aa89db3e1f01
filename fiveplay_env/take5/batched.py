"""The batched Take 5 engine: B games at once, stepped by the compiled rules (``fiveplay_env.take5.kernel``).

It plays exactly the games of the reference engine (``fiveplay_env.take5.engine``): the same decision
order, the same seeded deals, the same rewards and observations, checked step by step by the replay
contract of ``fiveplay_env.testing`` for every preset and config family. The rules are the kernel's
(plain scalar code over one game, numba), run over the B games in one compiled loop per step; the state
is the struct of arrays declared by ``positions.SCHEMA``; the observations are ``encoders``'.

Interface (Pgx's shape): after ``reset`` and after every ``step``, for each game ``i`` of the batch

| attribute             | dtype, shape        | meaning                                                   |
|-----------------------|---------------------|-----------------------------------------------------------|
| ``current_player``    | int32 [B]           | the seat that acts next in game i (0..n-1, always valid)  |
| ``legal_action_mask`` | int8 [B, 109]       | that seat's legal actions (= the reference's ``legal_mask``); read-only |
| ``rewards``           | float32 [B, n]      | every player's reward for the last step: minus the bull heads taken |
| ``terminated``        | bool [B]            | game i ended at the last step (and was replaced, see Autoreset) |
| ``final_scores``      | int32 [B, n]        | the final scores of the games that ended at the last step (rows where ``terminated``) |
| ``observe()``         | float32 [B, size]   | the acting seat's observation, equal to ``observation.observe`` |
| ``observe_compact()`` | uint8 [B, 136 + 6n] | the same in ``compact``'s form (not with ``draft``)       |
| ``scores``, ``round_penalty`` | int32 [B, n] | the reference's ``scores`` and ``round_pen``             |
| ``round``, ``trick``, ``phase`` | [B]       | rounds completed, tricks completed this round, DRAFT/PLAY/ROW_CHOICE |
| ``seeds``, ``game_index`` | uint64 / int64 [B] | see Seeding                                            |
| ``field(name)``       | read-only view      | any array of the state (``schema``): what agents read (``loc``, ``rows``, ``rlen``, ``rbull``, ``pending``, ...) |

Decision order (the reference's AEC order): with ``draft`` each round opens with the draft picks, seat
order 0..n-1 repeated; each trick seats 0..n-1 choose a card in turn; after the last choice the trick
is revealed and placed in ascending order; a too-low card with ``row_pick="player"`` makes its owner
choose a row (actions 104..107) as a separate step, after which the rest of the trick is placed.

Autoreset: **same-step** (Gymnasium's ``AutoresetMode.SAME_STEP``, Pgx's ``auto_reset``). When game i
ends at a step, that step's ``rewards[i]`` and ``terminated[i] = True`` belong to the finished game and
``final_scores[i]`` holds its final scores, while slot i already holds a new game.

Seeding: ``BatchedTake5(config, B, seed)`` starts game ``k`` of slot ``i`` (k = 0, 1, ...) with seed
``seeding.derive(seed, i + k * B)``; ``engine.new_game(config, seeds[i])`` replays slot i's game alone
with the reference engine. Each deal is the reference's ``seeding.permutation(seed, counter, deck)``.

Positions: ``get_state`` / ``set_state`` (checked: the schema's form and bounds, then
``positions.check_rules``), ``load_states`` (reference states, read field by field as the schema
declares), ``gather`` (copies of games), ``redeal`` (every slot an independent determinization for one
seat: ``positions.redeal``) and ``replace_choice``. The first engine of a process compiles the kernel
(about 10-20 s, once: numba caches it next to the source, ``cache=True``); later processes load it.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from fiveplay_env.core.batched import bench_batched
from fiveplay_env.core.config import from_kwargs
from fiveplay_env.core.kernel_engine import KernelEngine
from fiveplay_env.take5 import encoders, kernel, positions
from fiveplay_env.take5.config import Take5Config
from fiveplay_env.take5.observation import observation_size
from fiveplay_env.take5.state import DRAFT, NUM_ACTIONS, NUM_CARDS, NUM_ROWS

PENDING, POOL, ASIDE, OUT, QUEUE, SEEN = (kernel.PENDING, kernel.POOL, kernel.ASIDE, kernel.OUT, kernel.QUEUE,
                                          kernel.SEEN)


class BatchedTake5(KernelEngine):
    """``batch_size`` Take 5 games under one ``Take5Config``, stepped together by the compiled kernel.

    ``step(actions)`` takes one action per game (integers, shape [B]) for each game's
    ``current_player``. See the module docstring for the attributes, autoreset and seeding; the
    members every kernel engine shares are ``KernelEngine``'s.
    """

    SCHEMA = positions.SCHEMA
    KERNEL = kernel
    POSITIONS = positions

    def __init__(self, config: Take5Config, batch_size: int, seed: int | None = 0) -> None:
        if not isinstance(config, Take5Config):
            raise ValueError(f"config: expected a Take5Config, got {type(config).__name__}")
        self.config = config
        self.num_players = config.num_players
        self.num_actions = NUM_ACTIONS
        self.observation_size = observation_size(config.num_players, config.draft)
        self._at = encoders.offsets(config.num_players, config.draft)
        self._init_state(batch_size, seed)

    def _outputs(self) -> None:
        super()._outputs()
        self.final_scores = self._st["final_scores"].copy()

    # ------------------------------------------------------------------ read-only views

    @property
    def scores(self) -> np.ndarray:
        """int32 [B, n]: penalty points of the rounds completed (the reference's ``scores``)."""
        return self._st["scores"].copy()

    @property
    def round_penalty(self) -> np.ndarray:
        """int32 [B, n]: penalty points taken in the current round (the reference's ``round_pen``)."""
        return self._st["rpen"].astype(np.int32)

    @property
    def trick(self) -> np.ndarray:
        """int32 [B]: tricks completed in the current round."""
        return self._st["trick"].astype(np.int32)

    @property
    def phase(self) -> np.ndarray:
        """int8 [B]: DRAFT, PLAY or ROW_CHOICE (``state.py`` codes; never OVER: finished games are replaced)."""
        return self._st["phase"].copy()

    def hands(self) -> np.ndarray:
        """int8 [B, n, 109]: ``hands[i, p, c] == 1`` iff seat p of game i holds card c (the reference's ``hands``)."""
        B, n = self.batch_size, self.num_players
        h = np.zeros((B, n, NUM_ACTIONS), np.int8)
        np.equal(self._st["loc"][:, None, :], np.arange(n, dtype=np.int8)[None, :, None], out=h[:, :, :NUM_CARDS])
        return h

    def row_lists(self, i: int) -> list[list[int]]:
        """Game i's rows as lists of card ids in placement order (the reference's ``rows``; [] in the draft)."""
        st = self._st
        if st["phase"][i] == DRAFT:
            return []
        return [[int(c) for c in st["rows"][i, r, :st["rlen"][i, r]]] for r in range(NUM_ROWS)]

    def info(self) -> dict[str, np.ndarray]:
        """Per-game extras (fresh arrays): ``scores``, ``round_penalty``, ``round`` and ``seed`` of the
        current games, ``final_scores`` (rows where ``terminated``) of the games that just ended, and
        ``truncated`` (all False: a Take 5 game always ends by its rules; the key is the vector API's)."""
        return {"scores": self.scores, "round_penalty": self.round_penalty, "round": self.round,
                "seed": self.seeds, "final_scores": self.final_scores.copy(),
                "truncated": np.zeros(self.batch_size, bool)}

    # ------------------------------------------------------------------ observations

    def observe(self, out: np.ndarray | None = None) -> np.ndarray:
        """float32 [B, observation_size]: each game's acting seat's observation; row i equals
        ``observation.observe(config, state_i, current_player[i])`` of the reference engine. ``out``: an
        optional C-contiguous float32 [B, observation_size] array to write into and return."""
        return self._observe(self._st["cur"], out)

    def observe_as(self, seats: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """float32 [B, observation_size]: game i's observation of seat ``seats[i]`` (any seat, not only the
        acting one), equal to ``observation.observe(config, state_i, seats[i])`` (a search's policy rollouts
        read every player's view of a trick at once)."""
        s = np.asarray(seats)
        if s.shape != (self.batch_size,) or s.dtype.kind not in "iu" or (s.size and (s.min() < 0 or s.max() >= self.num_players)):
            raise ValueError(f"seats: expected {self.batch_size} seats in 0..{self.num_players - 1}")
        return self._observe(s.astype(np.int64), out)

    def _observe(self, seats: np.ndarray, out: np.ndarray | None) -> np.ndarray:
        obs = self._obs_out(out)
        st = self._st
        encoders.observe(st["loc"], st["rows"], st["rlen"], st["rbull"], st["pending"], st["scores"], st["rpen"],
                         st["phase"], st["trick"], seats, self._P, self._at, obs)
        return obs

    def observe_compact(self, out: np.ndarray | None = None) -> np.ndarray:
        """uint8 [B, 136 + 6n]: each game's acting seat's observation in the compact form of
        ``fiveplay_env.take5.compact`` (``compact.layout(n, end_score).decode`` gives ``observe()``
        exactly). ``out``: an optional C-contiguous uint8 array of that shape to write into.
        Not for ``draft=True`` configs (``ValueError``): their observation also holds the other players'
        public hands, which the compact form does not encode."""
        from fiveplay_env.take5 import compact

        if self.config.draft:
            raise ValueError("observe_compact: expected draft=False: the compact observation does not cover the "
                             "draft's public hands (the 'others' piece); use observe()")
        lay = compact.layout(self.num_players, self.config.end_score)
        if lay.planes != _COMPACT_PLANES:
            raise ValueError(f"observe_compact: this encoder packs the planes {_COMPACT_PLANES}, the observation "
                             f"layout now has {lay.planes}")
        B = self.batch_size
        if out is None:
            cobs = np.empty((B, lay.size), np.uint8)
        else:
            if not isinstance(out, np.ndarray) or out.dtype != np.uint8 or out.shape != (B, lay.size) \
                    or not out.flags.c_contiguous:
                raise ValueError(f"out: expected a C-contiguous uint8 array of shape ({B}, {lay.size}), got "
                                 f"{getattr(out, 'dtype', type(out).__name__)} {getattr(out, 'shape', '')}")
            cobs = out
        st = self._st
        encoders.observe_compact(st["loc"], st["rows"], st["rlen"], st["rbull"], st["scores"], st["rpen"],
                                 st["phase"], st["trick"], st["cur"], self._P, cobs[:, :lay.card_bytes],
                                 cobs[:, lay.card_bytes:].view("<u2"))
        return cobs

    # ------------------------------------------------------------------ positions

    def redeal(self, player: int, rng: np.random.Generator) -> None:
        """Every slot (copies of one world of ``player``'s information set) becomes an independent
        determinization for ``player`` (``positions.redeal``: ``determinize.sample_world``'s distribution)."""
        positions.redeal(self._st, self._P, int(player), rng)

    def replace_choice(self, games: np.ndarray, seat: int, cards: np.ndarray) -> None:
        """``seat``'s hidden choice of this trick becomes ``cards`` in games ``games`` (``positions.replace_choice``)."""
        positions.replace_choice(self._st, games, int(seat), cards)
        self._refresh()


_COMPACT_PLANES = ("hand", "seen", "trick", "pool", "rows0", "rows1", "rows2", "rows3")


def make_batched(num_envs: int, seed: int | None = 0, **config: Any) -> BatchedTake5:
    """``BatchedTake5(Take5Config(**config), num_envs, seed)``; unknown config keys raise ``ValueError``
    naming the key. The factory ``fiveplay_env.vector.make_vec("take5", ...)`` calls."""
    return BatchedTake5(from_kwargs(Take5Config, config), num_envs, seed)


def bench_take5_batched(num_players: int, batch_size: int, with_obs: bool, seconds: float) -> float:
    """Decisions per second of ``BatchedTake5`` (standard rules, ``num_players`` seats, ``batch_size``
    games): random legal play, the actions drawn from the mask inside the timed loop; ``with_obs`` also
    encodes every step's observations (into one reused buffer)."""
    return bench_batched(BatchedTake5(Take5Config(num_players=num_players), batch_size, seed=0), with_obs, seconds)
