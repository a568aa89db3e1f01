"""The batched 5 Alive engine: B games at once on numpy arrays with a leading batch axis.

It plays exactly the games of the reference engine (``fiveplay_env.five_alive.engine``): the same
decision order (Bomb answers included), the same seeded shuffles, the same rewards and observations,
checked step by step by ``tests/five_alive/test_five_alive_batched.py``. It shares only the config, the
constants of ``state.py`` and the counter-based randomness of ``core.seeding`` with the reference; the
rules are written again, on arrays, so that the two implementations check each other
(docs/architecture.md). There is no Python loop over games: loops run over the players (a Bomb's responders, a
round end's teams), over the cards of one Draw, or over the rounds of a sort, each pass a few numpy
operations on all the games concerned.

Interface (Pgx's shape, the ``BatchedGame`` protocol of ``fiveplay_env.vector``): after ``reset`` and
after every ``step``, for each game ``i`` of the batch

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
| ``lives``, ``alive``, ``result`` | [B, n] | the reference's ``lives``, ``alive``, ``result``             |
| ``round``, ``phase``, ``total``, ``direction``, ``counter`` | [B] | as in ``FiveAliveState``          |
| ``seeds``, ``game_index`` | uint64 / int64 [B] | the current game of each slot (see Seeding)             |

``info()`` gathers them for the vector API: ``seed``, ``lives``, ``alive``, ``round``, and the finished
games' ``final_scores`` (= ``final_lives``, as the training code reads 5 Alive scores), ``final_result``
and ``final_win`` (1 / number of winners, or 1 for each member of the winning team), and ``truncated``.

Truncation (``config.max_steps``, as the reference engine): a game whose ``max_steps``-th decision did
not end it ends there. Its slot reports ``terminated[i] = True`` (the slot moves on to its next game, as
for any ended game) and ``truncated[i] = True``; ``final_lives`` are its lives, ``final_result`` 0 for
every undecided seat (-1 for the eliminated) and ``final_win`` 0 (no winner); the step's rewards are
only what the step itself decided. No rule-book game reaches the default (10,000 decisions).

Autoreset: **same-step** (Gymnasium's ``AutoresetMode.SAME_STEP``, Pgx's ``auto_reset``). When game i
ends at a step, that step's ``rewards[i]`` and ``terminated[i] = True`` belong to the finished game and
the ``final_*`` rows hold its outcome, while slot i already holds a new game: ``current_player``,
``legal_action_mask`` and ``observe()`` are the new game's. Every slot always has a legal action.

Seeding: ``BatchedFiveAlive(config, B, seed)`` starts game ``k`` of slot ``i`` (k = 0, 1, ...) with seed
``seeding.derive(seed, i + k * B)``; ``i + k * B`` is its ``game_index`` (the rule of the Take 5 batched
engine and of the vector API). ``engine.new_game(config, seeds[i])`` replays slot i's game alone.
Every random event is the reference's, in the same order, each advancing the game's counter once: the
deal (``permutation`` of the deck in canonical order), the first player (``below(seed, counter, n)``),
a reshuffle (``permutation`` of the discard pile minus its top card, kinds ascending) and a Re-Deal
(``permutation`` of the gathered hands, kinds ascending). Events whose size differs between games use
the first ``size`` of ``width`` keys of each game with the rest masked out (``sizes`` of
``seeding.fast_batch_permutation``): the first keys of ``seeding.keys`` do not depend on their count,
so this is each game's own permutation.

State (struct of arrays; n players, K = 18 kinds, KP = 19: the hands and the discard pile carry a
19th column, always 0, where a BUST's "card" lands, so one indexed update serves every action):

| array          | dtype, shape       | meaning                                                        |
|----------------|--------------------|----------------------------------------------------------------|
| ``_hands``     | uint8 [B, n, KP]   | cards of each kind in each hand (0 for an eliminated seat)     |
| ``_hsize``     | int16 [B, n]       | hand sizes                                                     |
| ``_disc``      | uint8 [B, KP]      | cards of each kind in the discard pile                         |
| ``_top``       | int8 [B]           | kind of the discard pile's top card, -1 if none                |
| ``_drawq``     | uint8 [B, D]       | the draw pile in drawing order: ``_drawq[i, _dptr[i]:_dend[i]]``, first drawn first (D = deck size) |
| ``_dptr``, ``_dend`` | int16 [B]    | the draw pile's bounds in ``_drawq``                            |
| ``_total``     | int64 [B]          | the running total T                                            |
| ``_dirbit``    | int64 [B]          | 1 clockwise (direction +1), 0 counter-clockwise                |
| ``_cur``       | int64 [B]          | the acting seat                                                |
| ``_phase``     | int64 [B]          | PLAY or BOMB_ANSWER (OVER only inside a step: finished games are replaced) |
| ``_abits``     | int64 [B]          | bit s set iff seat s survives (indexes the next-seat tables)    |
| ``_alive``     | bool [B, n]        | the same as flags                                              |
| ``_lives``, ``_result`` | int8 [B, n] | lives left (teams: the team's), +1 won / -1 lost / 0 undecided |
| ``_bomber``, ``_bcur`` | int8 [B]   | a Bomb being answered: the bomber and the last responder handled (-1 otherwise) |
| ``_actor``     | int8 [B]           | who acted at the current step (the sudden-death tie-break starts there) |
| ``_round``, ``_counter`` | int32 [B] | rounds completed, random events used                          |
| ``_nresh``     | int16 [B]          | reshuffles in this round (``max_reshuffles`` bounds them)       |
| ``_steps``     | int32 [B]          | decisions taken in the game (the reference's ``turns``; ``max_steps`` bounds them) |
| ``_seeds``, ``_game_index`` | uint64, int64 [B] | see Seeding                                          |

Invariants (what ``set_state`` and ``load`` check of every game, ``_check_state``): column 18 of the
hands and the discard pile is 0; per kind, the hands, the draw pile (``_drawq[_dptr:_dend]``, kinds
0..17, 0 <= ptr <= end <= D) and the discard pile together hold at most ``deck_counts[k]`` cards
(exactly that many in every game dealt by the engine; a position loaded by hand may hold part of the
deck, which is whole again at the next deal); ``_hsize`` is each hand's size; ``_alive`` matches
``_abits``; at least two survivors (teams and sudden death: everyone); lives 1..5 for survivors (one
count per team in teams), 0 for the eliminated, whose hands are empty and results -1 (0 for the
others); the top card is a kind the discard pile holds (-1: none); T 0..21, the direction bit 0 or 1;
the acting seat survives and holds a card; the phase is PLAY (no bomber, ``_bcur`` -1, every survivor
holds a card) or, with ``bomb_zero_optional``, BOMB_ANSWER (a surviving bomber other than the acting
responder, ``_bcur`` the responder, the top card a Bomb or a 0); ``_actor`` a seat; rounds and the
counter >= 0 (the counter below 2**31 - 16); reshuffles 0..``max_reshuffles`` (0 with
``empty_draw_pile="skip"``); decisions 0..``max_steps`` - 1; the step outputs in range (rewards
finite, final lives 0..5, results -1..1, win shares 0..1, ``truncated`` only where ``terminated``).

``bytes_per_game()``: 289 bytes at 4 players (241 at 2, 337 at 6), 77 of them the draw pile and 19
the cached mask.

A step: every game's action goes through one vectorised "common" update (the card leaves the hand for
the discard pile, T and the direction by table, the next seat by table), which is the whole step for
numbers and simple wild cards that are not the player's last card (about 86% of decisions in random
play). The other games (BUST, Draw, Re-Deal, Bomb, Bomb answers, a last card) continue on their own
subset through functions that mirror the reference's (``_lose_life``, ``_draws``, ``_redeal``,
``_bomb_continue``, ``_round_end``, ...), each on arrays of the games concerned.

``max_cycles`` (the AEC env's per-agent truncation) is refused; ``max_steps`` applies (see Truncation).

Speed (busy 2-core machine, 4 players, random legal play drawn from the mask by
``vector.random_actions``, ``experiments/bench``): about 2.1 million decisions/s without observations
and 1.7 million with them at B = 4,096 (0.8 / 0.7 million at 1,024; 2.8 / 1.8 million at 8,192); the
reference engine alone plays about 0.1 million. Most of a step is the rare games' stages (about 14% of
the games, 85% of the time at B = 4,096): Bomb answers, Re-Deals and deals (their shuffles), draws.
"""
from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from typing import Any

import numpy as np

from fiveplay_env.core import seeding
from fiveplay_env.core.batched import BatchedGameBase, bench_batched, check_games
from fiveplay_env.core.config import MAX_BATCH_SIZE, check_int, from_kwargs, show_value
from fiveplay_env.five_alive.config import HAND_SIZE, LIVES, NUM_KINDS, FiveAliveConfig
from fiveplay_env.five_alive.observation import DIRECTION, LAYOUT, TOP, TOTAL, observation_size
from fiveplay_env.five_alive.state import (
    BOMB, BOMB_ANSWER, BUST, DRAW1, DRAW2, EQ0, EQ10, EQ21, MAX_TOTAL, N0, NUM_ACTIONS, NUM_NUMBERS, OVER,
    PLAY, PLAYABLE_BITS, REDEAL, REVERSE, SKIP, FiveAliveState,
)

K = NUM_KINDS          # 18 card kinds
KP = NUM_KINDS + 1     # hand / discard columns: the 19th (BUST's id) is always 0
NT = MAX_TOTAL + 1     # 22 values of T

# --- tables of the common update, indexed by T and the action ------------------------------------------
_PLAYTAB = np.zeros((NT, NUM_ACTIONS), bool)
"""``_PLAYTAB[t, k]``: kind k may be played at T = t (column BUST is False: BUST is decided apart)."""
for _t in range(NT):
    for _k in range(K):
        _PLAYTAB[_t, _k] = bool((PLAYABLE_BITS[_t] >> _k) & 1)

_NEW_TOTAL = np.zeros(NT * NUM_ACTIONS, np.int64)
"""``_NEW_TOTAL[t * 19 + a]``: T after action a at T = t as the common update applies it. A Bomb keeps T
until its answers are resolved (``_bomb_finish`` sets 0); a Re-Deal and a BUST set 0 at once. A Bomb
answer uses the same table (answer 0 adds 0; answer BUST is restored by the rare path)."""
for _t in range(NT):
    for _a in range(NUM_ACTIONS):
        if _a < NUM_NUMBERS:
            _v = _t + _a if _t + _a <= MAX_TOTAL else _t  # unreachable when illegal
        elif _a == EQ21:
            _v = 21
        elif _a == EQ10:
            _v = 10
        elif _a in (EQ0, REDEAL, BUST):
            _v = 0
        else:
            _v = _t
        _NEW_TOTAL[_t * NUM_ACTIONS + _a] = _v

_FLIP = np.zeros(NUM_ACTIONS, np.int64)
_FLIP[REVERSE] = 1  # XORed into the direction bit
_RARE = np.zeros(NUM_ACTIONS, bool)
_RARE[[DRAW1, DRAW2, REDEAL, BOMB, BUST]] = True  # always leave the common path
_CARD = np.ones(NUM_ACTIONS, np.uint8)
_CARD[BUST] = 0  # how many cards the action takes from the hand (a Bomb answer 0 takes one 0: 1)
_ANSWER_ROW = np.zeros(NUM_ACTIONS, bool)
_ANSWER_ROW[[N0, BUST]] = True
_EMPTY = np.zeros(0, np.int64)
_ONES = np.ones(NUM_ACTIONS, np.float32)


def _next_seat(bits: int, d: int, s: int, n: int) -> int:
    """The next surviving seat after ``s`` in direction ``d`` (``s`` itself if no other survives)."""
    for i in range(1, n + 1):
        t = (s + d * i) % n
        if (bits >> t) & 1:
            return t
    return s


def _tables(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(NEXT [2**n * 2 * n], STEP [2**n * 2 * 19 * n], POS [2 * n * n]) as flat int64 tables.

    ``NEXT[(bits * 2 + dirbit) * n + s]``: the next survivor after seat s; ``STEP[((bits * 2 + dirbit)
    * 19 + a) * n + s]``: who acts after s plays action a (Skip: the survivor after the next);
    ``POS[(dirbit * n + start) * n + s]``: s's place in turn order from ``start``."""
    nb = 1 << n
    nxt = np.zeros((nb, 2, n), np.int64)
    step = np.zeros((nb, 2, NUM_ACTIONS, n), np.int64)
    pos = np.zeros((2, n, n), np.int64)
    for bits in range(nb):
        for db in range(2):
            d = 1 if db else -1
            for s in range(n):
                q = _next_seat(bits, d, s, n)
                nxt[bits, db, s] = q
                step[bits, db, :, s] = q
                step[bits, db, SKIP, s] = _next_seat(bits, d, q, n)
    for db in range(2):
        d = 1 if db else -1
        for st in range(n):
            for s in range(n):
                pos[db, st, s] = ((s - st) * d) % n
    return nxt.reshape(-1), step.reshape(-1), pos.reshape(-1)


def _canonical(counts: np.ndarray, size: np.ndarray, width: int) -> np.ndarray:
    """int64 [m, width]: each row's multiset (``counts`` [m, K] per kind, ``size`` [m] cards) as its
    kinds in ascending order (the reference's ``_expand``); positions at or beyond the size hold K."""
    m = counts.shape[0]
    out = np.full(m * width, K, np.int64)
    kinds = np.repeat(np.tile(np.arange(K), m), counts.reshape(-1))
    start = np.cumsum(size) - size  # each row's first card in ``kinds``
    out[np.arange(kinds.size) + np.repeat(np.arange(m) * width - start, size)] = kinds
    return out.reshape(m, width)


class BatchedFiveAlive(BatchedGameBase):
    """``batch_size`` 5 Alive games under one ``FiveAliveConfig``, stepped together.

    ``step(actions)`` takes one action per game (integers, shape [B]) for each game's
    ``current_player``. See the module docstring for the attributes, autoreset and seeding; the
    members every batched engine shares (seeding, masks, action checks) are ``BatchedGameBase``'s.
    """

    def __init__(self, config: FiveAliveConfig, batch_size: int, seed: int | None = 0) -> None:
        if not isinstance(config, FiveAliveConfig):
            raise ValueError(f"config: expected a FiveAliveConfig, got {type(config).__name__}")
        if config.max_cycles is not None:
            raise ValueError(f"max_cycles: expected None (the batched engine has no truncation), "
                             f"got {config.max_cycles}")
        self.config = config
        self.batch_size = B = check_int("batch_size", batch_size, 1, MAX_BATCH_SIZE)
        self.num_players = n = config.num_players
        self.num_actions = NUM_ACTIONS
        self.observation_size = observation_size(n)
        self._obs_at = LAYOUT.slices(n)  # each observation piece's columns
        self._max_steps = config.max_steps
        self._deck = D = config.deck_size
        self._teams = config.variant == "teams"
        self._sudden = config.variant == "sudden_death"
        self._optional = config.bomb_zero_optional
        self._free_bust = config.allow_voluntary_bust
        self._resolves = config.bomb_last_card_resolves
        self._each = config.draw_order == "each"
        self._reshuffles = config.empty_draw_pile == "reshuffle"
        self._max_resh = config.max_reshuffles
        self._reward_results = config.reward != "lives"
        self._reward_lives = config.reward != "win_loss"
        self._canon = np.array([k for k in range(K) for _ in range(config.deck_counts[k])], np.uint8)
        self._next_t, self._step_t, self._pos_t = _tables(n)
        self._seats = np.arange(n, dtype=np.int64)
        self._seat_bits = 1 << self._seats
        self._all_bits = (1 << n) - 1
        self._rel = np.array([[(p + i) % n for i in range(n)] for p in range(n)], np.int64)
        self._arange = np.arange(B, dtype=np.int64)
        self._bn0 = self._arange * n  # game b's first row of the [B * n, KP] hands
        self._bk0 = self._arange * KP
        self._arange_a = self._arange * NUM_ACTIONS
        self._arange_n = self._bn0[:, None]
        # state (see the module docstring)
        self._hands = np.zeros((B, n, KP), np.uint8)
        self._hsize = np.zeros((B, n), np.int16)
        self._disc = np.zeros((B, KP), np.uint8)
        self._top = np.full(B, -1, np.int8)
        self._drawq = np.zeros((B, D), np.uint8)
        self._dptr = np.zeros(B, np.int16)
        self._dend = np.zeros(B, np.int16)
        self._total = np.zeros(B, np.int64)
        self._dirbit = np.ones(B, np.int64)
        self._cur = np.zeros(B, np.int64)
        self._phase = np.zeros(B, np.int64)
        self._abits = np.zeros(B, np.int64)
        self._alive = np.ones((B, n), bool)
        self._lives = np.zeros((B, n), np.int8)
        self._result = np.zeros((B, n), np.int8)
        self._bomber = np.full(B, -1, np.int8)
        self._bcur = np.full(B, -1, np.int8)
        self._actor = np.zeros(B, np.int8)
        self._round = np.zeros(B, np.int32)
        self._nresh = np.zeros(B, np.int16)
        self._counter = np.zeros(B, np.int32)
        self._steps = np.zeros(B, np.int32)
        self._seeds = np.zeros(B, np.uint64)
        self._game_index = np.zeros(B, np.int64)
        # step outputs
        self.rewards: np.ndarray = np.zeros((B, n), np.float32)
        self.terminated: np.ndarray = np.zeros(B, bool)
        self.truncated: np.ndarray = np.zeros(B, bool)
        self.final_lives: np.ndarray = np.zeros((B, n), np.int32)
        self.final_result: np.ndarray = np.zeros((B, n), np.int32)
        self.final_win: np.ndarray = np.zeros((B, n), np.float32)
        self._mask = np.zeros((B, NUM_ACTIONS), np.int8)
        self._bind_views()
        self.reset(seed)

    STATE = ("_hands", "_hsize", "_disc", "_top", "_drawq", "_dptr", "_dend", "_total", "_dirbit", "_cur",
             "_phase", "_abits", "_alive", "_lives", "_result", "_bomber", "_bcur", "_actor", "_round", "_nresh",
             "_counter", "_steps", "_seeds", "_game_index", "rewards", "terminated", "truncated", "final_lives",
             "final_result", "final_win")
    STATE_ADDED = ("_steps", "truncated")

    def _bind_views(self) -> None:
        # flat views (all arrays are C-contiguous): scatter and gather by flat index are the cheapest
        B, n = self.batch_size, self.num_players
        self._hands_f = self._hands.reshape(-1)
        self._hands_rows = self._hands.reshape(B * n, KP)
        self._hsize_f = self._hsize.reshape(-1)
        self._disc_f = self._disc.reshape(-1)
        self._drawq_f = self._drawq.reshape(-1)
        self._lives_f = self._lives.reshape(-1)
        self._result_f = self._result.reshape(-1)
        self._alive_f = self._alive.reshape(-1)
        self._mask_f = self._mask.reshape(-1)

    # ------------------------------------------------------------------ public API (reset, current_player,
    # legal_action_mask, seeds and game_index: BatchedGameBase)

    def _clear_results(self) -> None:
        """``final_lives``, ``final_result``, ``final_win`` and ``truncated``: zeros, as no game of the new run
        has ended yet."""
        B, n = self.batch_size, self.num_players
        self.truncated = np.zeros(B, bool)
        self.final_lives = np.zeros((B, n), np.int32)
        self.final_result = np.zeros((B, n), np.int32)
        self.final_win = np.zeros((B, n), np.float32)

    @property
    def lives(self) -> np.ndarray:
        """int32 [B, n]: lives left per seat (teams: the seat's team's lives)."""
        return self._lives.astype(np.int32)

    @property
    def alive(self) -> np.ndarray:
        """bool [B, n]: the seats still in the game."""
        return self._alive.copy()

    @property
    def result(self) -> np.ndarray:
        """int32 [B, n]: +1 won, -1 lost (an eliminated seat), 0 undecided (the reference's ``result``)."""
        return self._result.astype(np.int32)

    @property
    def phase(self) -> np.ndarray:
        """int32 [B]: PLAY or BOMB_ANSWER (``state.py`` codes; never OVER: finished games are replaced)."""
        return self._phase.astype(np.int32)

    @property
    def total(self) -> np.ndarray:
        """int32 [B]: the running total T."""
        return self._total.astype(np.int32)

    @property
    def direction(self) -> np.ndarray:
        """int32 [B]: +1 clockwise, -1 counter-clockwise."""
        return (2 * self._dirbit - 1).astype(np.int32)

    @property
    def reshuffles(self) -> np.ndarray:
        """int32 [B]: reshuffles of the discard pile in each game's current round (the reference's
        ``reshuffles``)."""
        return self._nresh.astype(np.int32)

    @property
    def steps(self) -> np.ndarray:
        """int32 [B]: decisions taken in each current game (the reference's ``turns``; ``max_steps``
        truncates a game when it reaches that many)."""
        return self._steps.copy()

    @property
    def counter(self) -> np.ndarray:
        """int32 [B]: random events used so far (the reference's ``counter``)."""
        return self._counter.copy()

    def hands(self) -> np.ndarray:
        """int32 [B, n, 18]: cards of each kind in each hand (the reference's ``hands``)."""
        return self._hands[:, :, :K].astype(np.int32)

    def discard(self) -> np.ndarray:
        """int32 [B, 18]: cards of each kind in the discard pile (the reference's ``discard``)."""
        return self._disc[:, :K].astype(np.int32)

    def top(self) -> np.ndarray:
        """int32 [B]: kind of the discard pile's top card, -1 if none."""
        return self._top.astype(np.int32)

    def draw_pile(self, i: int) -> list[int]:
        """Game i's draw pile as kinds in drawing order, the next card first (the reference's
        ``draw[::-1]``)."""
        return [int(k) for k in self._drawq[i, self._dptr[i]:self._dend[i]]]

    def load(self, i: int, state: FiveAliveState) -> None:
        """Put a copy of the reference state ``state`` (a game of this config, not over) into slot i:
        its seed, counter and decision count too, so its later random events and its truncation are the
        reference's. For positions built by hand (``engine.from_position``) and analysis; when the game
        ends, slot i moves on to its next game of the run as usual. The position is checked as
        ``set_state`` checks a state (the module docstring's invariants; a hand-built position may hold
        part of the deck) and a Bomb's pending answers must be the survivors after the responder, in
        turn order, up to the bomber; ``ValueError`` naming the field (``state.hands``, ...) otherwise,
        and nothing changes."""
        B, n = self.batch_size, self.num_players
        i = check_int("i", i, 0, B - 1)
        if not isinstance(state, FiveAliveState) or state.num_players != n:
            raise ValueError(f"state: expected a FiveAliveState of {n} players, got {show_value(state)}")
        if state.phase == OVER:
            raise ValueError("state: expected a game that is not over, got one that is over")
        slot = self._slot_arrays(i, state)
        try:
            self._check_state(slot)
        except ValueError as e:
            raise ValueError(_as_state_field(str(e))) from None
        for name, val in slot.items():
            getattr(self, name)[i] = val[0]
        self._update_mask()

    def _arrays_of_states(self, states: list[Any]) -> dict[str, np.ndarray]:
        """``load_states``' arrays: ``_slot_arrays`` of each state (the form of every field, the Bomb's
        pending answers), stacked; the invariants are then checked for all slots at once. States of the
        plain form (``_plain_arrays``) are stacked field by field instead, with the same result."""
        n = self.num_players
        out = self._plain_arrays(states)
        if out is None:
            parts = []
            for i, s in enumerate(states):
                if not isinstance(s, FiveAliveState) or s.num_players != n:
                    raise ValueError(f"states[{i}]: expected a FiveAliveState of {n} players, got {show_value(s)}")
                if s.phase == OVER:
                    raise ValueError(f"states[{i}]: expected a game that is not over, got one that is over")
                try:
                    parts.append(self._slot_arrays(i, s))
                except ValueError as e:
                    raise ValueError(f"states[{i}].{str(e).removeprefix('state.')}") from None
            out = {name: np.concatenate([p[name] for p in parts]) for name in self.STATE}
        for name in ("rewards", "terminated", "truncated", "final_lives", "final_result", "final_win"):
            out[name] = np.zeros_like(out[name])
        out["_actor"] = out["_cur"].astype(out["_actor"].dtype)
        return out

    _PLAIN_INTS = ("seed", "counter", "round", "reshuffles", "turns", "phase", "current", "direction", "total",
                   "top", "bomber")

    def _plain_arrays(self, states: list[Any]) -> dict[str, np.ndarray] | None:
        """``_slot_arrays`` of every state at once, one numpy call per field (a search loads thousands of
        worlds a second), for states of the plain form: ``FiveAliveState`` objects of this player count in
        the PLAY phase (no Bomb being answered), every field a Python ``int`` (``bool`` for ``alive``) or a
        list of them of the right length, each value within what its array holds (the ranges of
        ``_slot_arrays``). None when any state is of another form: the per-state path then stacks them, or
        names the field it refuses. The invariants are checked afterwards either way."""
        n, K_, D, m = self.num_players, NUM_KINDS, self._deck, len(states)
        if m != self.batch_size or any(type(s) is not FiveAliveState for s in states):
            return None
        if any(s.num_players != n or s.phase != PLAY or s.bomber != -1 or s.bomb_queue != [] for s in states):
            return None
        scal = {f: [getattr(s, f) for s in states] for f in self._PLAIN_INTS}
        hands = [s.hands for s in states]
        rows = list(chain.from_iterable(hands))
        flat = {f: [getattr(s, f) for s in states] for f in ("hand_size", "lives", "result", "alive", "discard")}
        draws = [s.draw for s in states]
        if (set(map(type, chain.from_iterable(scal.values()))) != {int}
                or set(map(type, hands)) != {list} or set(map(len, hands)) != {n}
                or set(map(type, rows)) != {list} or set(map(len, rows)) != {K_}
                or set(map(type, chain.from_iterable(rows))) != {int}
                or set(map(type, draws)) != {list} or max(map(len, draws)) > D
                or not set(map(type, chain.from_iterable(draws))) <= {int}):
            return None
        for f, size in (("hand_size", n), ("lives", n), ("result", n), ("alive", n), ("discard", K_)):
            v = flat[f]
            if set(map(type, v)) != {list} or set(map(len, v)) != {size} or \
                    set(map(type, chain.from_iterable(v))) != ({bool} if f == "alive" else {int}):
                return None
        try:
            sc = {f: np.array(v, np.int64) for f, v in scal.items() if f != "seed"}
            seeds = np.array(scal["seed"], np.uint64)
            hand = np.array(rows, np.int64).reshape(m, n, K_)
            arr = {f: np.array(v, np.int64) for f, v in flat.items() if f != "alive"}
        except OverflowError:  # an int beyond int64 (uint64 for the seed): the per-state path names it
            return None
        lens = np.fromiter(map(len, draws), np.int64, m)
        cards = np.fromiter(chain.from_iterable(d[::-1] for d in draws), np.int64, int(lens.sum()))
        bounds = ((hand, 0, 255), (arr["hand_size"], 0, 32767), (arr["discard"], 0, 255), (sc["top"], -1, K_ - 1),
                  (cards, 0, K_ - 1), (sc["total"], -2**62, 2**62), (sc["current"], 0, n - 1),
                  (arr["lives"], -128, 127), (arr["result"], -128, 127), (sc["direction"], -1, 1),
                  (sc["round"], 0, 2**31 - 1), (sc["reshuffles"], 0, 32767), (sc["counter"], 0, 2**31 - 1),
                  (sc["turns"], 0, 2**31 - 1))
        if any(a.size and (a.min() < lo or a.max() > hi) for a, lo, hi in bounds) or (sc["direction"] == 0).any():
            return None
        drawq = self._drawq.copy()  # beyond each pile's end: the slot's own bytes, as _slot_arrays keeps them
        first = np.repeat(np.cumsum(lens) - lens, lens)
        drawq[np.repeat(self._arange, lens), np.arange(cards.size) - first] = cards
        alive = np.array(flat["alive"], bool)
        seats = self._seat_bits
        values = {"_hands": np.concatenate([hand, np.zeros((m, n, 1), np.int64)], axis=2), "_hsize": arr["hand_size"],
                  "_disc": np.concatenate([arr["discard"], np.zeros((m, 1), np.int64)], axis=1),
                  "_top": sc["top"], "_drawq": drawq, "_dptr": np.zeros(m, np.int64), "_dend": lens,
                  "_total": sc["total"], "_dirbit": (sc["direction"] > 0).astype(np.int64), "_cur": sc["current"],
                  "_phase": sc["phase"], "_abits": (alive * seats).sum(axis=1), "_alive": alive,
                  "_lives": arr["lives"], "_result": arr["result"], "_bomber": np.full(m, -1), "_bcur": np.full(m, -1),
                  "_round": sc["round"], "_nresh": sc["reshuffles"], "_counter": sc["counter"], "_steps": sc["turns"],
                  "_seeds": seeds}
        out = {}
        for name in self.STATE:
            cur = getattr(self, name)
            out[name] = values[name].astype(cur.dtype) if name in values else cur.copy()
        return out

    def _slot_arrays(self, i: int, state: FiveAliveState) -> dict[str, np.ndarray]:
        """``state`` as one game's arrays (leading axis 1) in ``STATE``'s dtypes, the slot's outputs kept;
        ``ValueError`` naming the field for a value of the wrong form or one its array cannot hold."""
        n, D = self.num_players, self._deck

        def ints(field: str, value: Any, shape: tuple[int, ...], lo: int, hi: int) -> np.ndarray:
            flags = field == "alive"  # bools there, integers (numpy's too) everywhere else
            try:
                arr = np.array(value, dtype=object)
                ok = arr.shape == shape and all(
                    isinstance(v, (bool, np.bool_)) if flags else
                    isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in arr.flat)
            except (ValueError, TypeError):
                ok = False
            if not ok:
                raise ValueError(f"state.{field}: expected integers of shape {shape}, got {show_value(value)}")
            out = arr.astype(np.int64) if arr.size else np.zeros(shape, np.int64)
            if out.size and (out.min() < lo or out.max() > hi):
                raise ValueError(f"state.{field}: expected integers in {lo}..{hi}, got {show_value(value)}")
            return out

        draw = ints("draw", state.draw, (len(state.draw),) if isinstance(state.draw, list) else (-1,), 0, K - 1)
        if draw.size > D:
            raise ValueError(f"state.draw: expected a draw pile of at most {D} cards (the deck), got {draw.size}")
        answering = state.phase == BOMB_ANSWER
        current = int(ints("current", state.current, (), 0, n - 1))
        alive = ints("alive", state.alive, (n,), 0, 1).astype(bool)
        bomber = int(ints("bomber", state.bomber, (), -1, n - 1))
        direction = int(ints("direction", state.direction, (), -1, 1))
        if direction == 0:
            raise ValueError("state.direction: expected +1 or -1, got 0")
        queue = ints("bomb_queue", state.bomb_queue, (len(state.bomb_queue),) if isinstance(state.bomb_queue, list)
                     else (-1,), 0, n - 1).tolist()
        if answering:  # the batched engine finds the responders left from the current one, in turn order
            want, s = [], current
            for _ in range(n):
                s = (s + direction) % n
                if s == bomber:
                    break
                if alive[s]:
                    want.append(s)
            if queue != want:
                raise ValueError(f"state.bomb_queue: expected the survivors after player {current} in turn order up "
                                 f"to the bomber {bomber}, {want}, got {queue}")
        elif queue or bomber != -1:
            raise ValueError(f"state.bomber: expected -1 and an empty bomb_queue outside a Bomb's answers, got "
                             f"{bomber} and {queue}")
        hands = np.zeros((1, n, KP), np.int64)
        hands[0, :, :K] = ints("hands", state.hands, (n, K), 0, 255)
        drawq = self._drawq[i:i + 1].copy()
        drawq[0, :draw.size] = draw[::-1]  # the reference draws from the end of its list
        disc = np.zeros((1, KP), np.int64)
        disc[0, :K] = ints("discard", state.discard, (K,), 0, 255)
        values: dict[str, Any] = {
            "_hands": hands, "_hsize": ints("hand_size", state.hand_size, (n,), 0, 32767), "_disc": disc,
            "_top": ints("top", state.top, (), -1, K - 1), "_drawq": drawq, "_dptr": 0, "_dend": draw.size,
            "_total": ints("total", state.total, (), -2**62, 2**62), "_dirbit": int(direction > 0), "_cur": current,
            "_phase": ints("phase", state.phase, (), 0, 2), "_abits": sum(1 << q for q in range(n) if alive[q]),
            "_alive": alive, "_lives": ints("lives", state.lives, (n,), -128, 127),
            "_result": ints("result", state.result, (n,), -128, 127), "_bomber": bomber if answering else -1,
            "_bcur": current if answering else -1,  # the responders left follow it in turn order
            "_round": ints("round", state.round, (), 0, 2**31 - 1),
            "_nresh": ints("reshuffles", state.reshuffles, (), 0, 32767),
            "_counter": ints("counter", state.counter, (), 0, 2**31 - 1),
            "_steps": ints("turns", state.turns, (), 0, 2**31 - 1),
        }
        try:
            values["_seeds"] = seeding.normalize_seed(state.seed)
        except ValueError as e:
            raise ValueError(f"state.{e}") from None
        out = {}
        for name in self.STATE:
            cur = getattr(self, name)
            if name in values:
                out[name] = np.asarray(values[name]).astype(cur.dtype).reshape((1, *cur.shape[1:]))
            else:  # the slot's own: its game index, its actor, the last step's outputs
                out[name] = cur[i:i + 1].copy()
        return out

    def _check_state(self, a: dict[str, np.ndarray]) -> None:
        """The invariants of the module docstring, for every game of ``a`` (``set_state``'s arrays, or the
        one game ``load`` builds)."""
        cfg, n, D = self.config, self.num_players, self._deck
        i64 = np.int64
        hands = a["_hands"].astype(i64)
        m = hands.shape[0]
        g = np.arange(m)
        seats = self._seats
        check_games((hands[:, :, K] == 0).all(axis=1), "_hands", "0 in column 18 (BUST's, not a card)", hands[:, :, K])
        alive = a["_alive"]
        abits = a["_abits"]
        check_games(abits == (alive.astype(i64) << seats).sum(axis=1), "_abits",
                    "the seats of _alive as bits (bit s: seat s survives)", lambda i: f"{abits[i]} for {alive[i].tolist()}")
        if cfg.variant == "standard":
            check_games(alive.sum(axis=1) >= 2, "_alive", "at least two survivors (else the game is over)", alive)
        else:
            check_games(alive.all(axis=1), "_alive", f"every seat in ({cfg.variant}: nobody is out before the end)",
                        alive)
        lives = a["_lives"].astype(i64)
        check_games(np.where(alive, (lives >= 1) & (lives <= LIVES), lives == 0).all(axis=1), "_lives",
                    f"1..{LIVES} lives for a survivor, 0 for an eliminated seat", lives)
        if self._teams:
            check_games((lives[:, 0::2] == lives[:, :1]).all(axis=1) & (lives[:, 1::2] == lives[:, 1:2]).all(axis=1),
                        "_lives", "one count per team (seats 0, 2, 4 and 1, 3, 5)", lives)
        res = a["_result"].astype(i64)
        check_games((res == np.where(alive, 0, -1)).all(axis=1), "_result",
                    "0 (undecided) for a survivor, -1 for an eliminated seat", res)
        hsize = a["_hsize"].astype(i64)
        check_games((hsize == hands.sum(axis=2)).all(axis=1), "_hsize", "each hand's number of cards",
                    lambda i: f"{hsize[i].tolist()} for hands of {hands[i].sum(axis=1).tolist()} cards")
        check_games((alive | (hsize == 0)).all(axis=1), "_hands", "empty hands for the eliminated seats",
                    lambda i: hsize[i].tolist())
        disc = a["_disc"].astype(i64)
        check_games(disc[:, K] == 0, "_disc", "0 in column 18 (BUST's, not a card)", disc[:, K])
        top = a["_top"].astype(i64)
        check_games((top >= -1) & (top < K), "_top", f"a kind 0..{K - 1} or -1 (no top card)", top)
        check_games((top < 0) | (disc[g, np.maximum(top, 0)] >= 1), "_top", "a kind the discard pile holds",
                    lambda i: f"{top[i]} with the discard pile {disc[i, :K].tolist()}")
        ptr, end = a["_dptr"].astype(i64), a["_dend"].astype(i64)
        check_games((ptr >= 0) & (ptr <= end) & (end <= D), "_dptr", f"0 <= _dptr <= _dend <= {D} (the deck)",
                    lambda i: f"_dptr {ptr[i]}, _dend {end[i]}")
        pos = np.arange(D)
        pile = (pos >= ptr[:, None]) & (pos < end[:, None])
        drawq = a["_drawq"].astype(i64)
        check_games((~pile | (drawq < K)).all(axis=1), "_drawq", f"kinds 0..{K - 1} in the draw pile",
                    lambda i: drawq[i, ptr[i]:end[i]].tolist())
        kinds = np.where(pile, drawq, K) + (g * KP)[:, None]
        drawn = np.bincount(kinds.reshape(-1), minlength=m * KP).reshape(m, KP)[:, :K]
        counts = hands[:, :, :K].sum(axis=1) + disc[:, :K] + drawn
        deck = np.array(cfg.deck_counts, i64)
        check_games((counts <= deck).all(axis=1), "_hands",
                    f"at most deck_counts[k] cards of each kind k in the hands, draw and discard piles ({list(deck)})",
                    lambda i: f"{counts[i].tolist()} cards per kind")
        total = a["_total"]
        check_games((total >= 0) & (total <= MAX_TOTAL), "_total", f"T in 0..{MAX_TOTAL}", total)
        dirbit = a["_dirbit"]
        check_games((dirbit == 0) | (dirbit == 1), "_dirbit", "1 (clockwise) or 0", dirbit)
        phase = a["_phase"]
        phases = [PLAY, BOMB_ANSWER] if self._optional else [PLAY]
        check_games(np.isin(phase, phases), "_phase", f"one of {phases} (PLAY{', BOMB_ANSWER' if self._optional else ''})",
                    phase)
        cur = a["_cur"].astype(i64)
        check_games((cur >= 0) & (cur < n), "_cur", f"a seat in 0..{n - 1}", cur)
        check_games(alive[g, cur], "_cur", "a surviving seat", cur)
        play = phase == PLAY
        bomber, bcur = a["_bomber"].astype(i64), a["_bcur"].astype(i64)
        b0 = np.clip(bomber, 0, n - 1)
        ok = np.where(play, (bomber == -1) & (bcur == -1),
                      (bomber >= 0) & (bomber < n) & (bomber != cur) & (bcur == cur) & alive[g, b0])
        check_games(ok, "_bomber", "-1 and _bcur -1 in PLAY; in BOMB_ANSWER a surviving bomber other than the "
                                   "responder, with _bcur the responder", lambda i: f"bomber {bomber[i]}, _bcur {bcur[i]}")
        check_games(np.where(play, (~alive | (hsize > 0)).all(axis=1), hsize[g, cur] > 0), "_hsize",
                    "a card in every surviving hand (during a Bomb's answers: in the responder's)", hsize)
        check_games(play | (top == BOMB) | (top == N0), "_top", f"a Bomb ({BOMB}) or a 0 on top during a Bomb's answers", top)
        actor = a["_actor"].astype(i64)
        check_games((actor >= 0) & (actor < n), "_actor", f"a seat in 0..{n - 1}", actor)
        rnd, counter = a["_round"].astype(i64), a["_counter"].astype(i64)
        check_games(rnd >= 0, "_round", "rounds completed >= 0", rnd)
        check_games((counter >= 0) & (counter <= 2**31 - 16), "_counter", "0..2**31 - 16 random events", counter)
        top_r = self._max_resh if self._reshuffles else 0
        nresh = a["_nresh"].astype(i64)
        check_games((nresh >= 0) & (nresh <= top_r), "_nresh", f"0..{top_r} reshuffles this round", nresh)
        steps = a["_steps"].astype(i64)
        hi = self._max_steps - 1 if self._max_steps is not None else 2**31 - 2
        check_games((steps >= 0) & (steps <= hi), "_steps", f"0..{hi} decisions (max_steps ends the game at "
                                                            f"{self._max_steps})", steps)
        fl, fr, fw = a["final_lives"], a["final_result"], a["final_win"]
        check_games(((fl >= 0) & (fl <= LIVES)).all(axis=1), "final_lives", f"0..{LIVES}", fl)
        check_games(((fr >= -1) & (fr <= 1)).all(axis=1), "final_result", "-1, 0 or 1", fr)
        check_games((np.isfinite(fw) & (fw >= 0) & (fw <= 1)).all(axis=1), "final_win", "win shares in 0..1", fw)
        check_games(~a["truncated"] | a["terminated"], "truncated", "True only where terminated", a["truncated"])

    def info(self) -> dict[str, np.ndarray]:
        """Per-game extras (fresh arrays): ``seed``, ``lives``, ``alive`` and ``round`` of the current
        games, and for the games that just ended (rows where ``terminated``) ``final_scores`` (their
        lives left, int32 [B, n]), ``final_result`` (+1 / -1; 0 for the undecided of a truncated game),
        ``final_win`` (win shares) and ``truncated`` (bool [B]: ended by ``max_steps``)."""
        return {"seed": self.seeds, "lives": self.lives, "alive": self.alive, "round": self.round,
                "final_scores": self.final_lives.copy(), "final_result": self.final_result.copy(),
                "final_win": self.final_win.copy(), "truncated": self.truncated.copy()}

    def bytes_per_game(self) -> float:
        """Bytes of game state per game (the cached legal mask included; step outputs and the
        tables excluded)."""
        arrays = (self._hands, self._hsize, self._disc, self._top, self._drawq, self._dptr, self._dend,
                  self._total, self._dirbit, self._cur, self._phase, self._abits, self._alive, self._lives,
                  self._result, self._bomber, self._bcur, self._actor, self._round, self._nresh, self._counter,
                  self._steps, self._seeds, self._game_index, self._mask)
        return sum(a.nbytes for a in arrays) / self.batch_size

    # ------------------------------------------------------------------ step

    def step(self, actions: np.ndarray | Sequence[int]) -> np.ndarray:
        """Apply one action per game; return ``rewards`` (float32 [B, n], every player of every game).

        Also updates ``terminated``, the ``final_*`` outcomes, ``current_player`` and
        ``legal_action_mask``; finished games are replaced at once (same-step autoreset). Raises
        ``ValueError`` if ``actions`` is not an integer array of shape [B], and ``IllegalActionError``
        (naming the first game whose action is illegal) if any action is illegal; in both cases
        nothing changes.
        """
        a = self._check_actions(actions)
        B, n = self.batch_size, self.num_players
        self.terminated = np.zeros(B, bool)
        self.truncated = np.zeros(B, bool)
        self.rewards = np.zeros((B, n), np.float32)
        self._steps += 1  # a game that ends at this step starts its successor at 0 (``_init_games``)
        # The common update, on every game: the card (none for BUST) leaves the acting seat's hand for
        # the discard pile and becomes its top card; T, the direction and the next seat by table. It is
        # the whole step for a number or a simple wild card that is not the seat's last card.
        cur, total, phase = self._cur, self._total, self._phase
        bn = self._bn0 + cur
        dec = _CARD[a]
        hidx = bn * KP + a
        self._hands_f[hidx] -= dec
        hs = self._hsize_f[bn] - dec
        self._hsize_f[bn] = hs
        didx = self._bk0 + a
        self._disc_f[didx] += dec
        np.copyto(self._top, a, casting="same_kind", where=dec.view(bool))
        self._total = _NEW_TOTAL[total * NUM_ACTIONS + a]
        self._dirbit ^= _FLIP[a]
        sidx = self._abits * 2
        sidx += self._dirbit
        sidx *= NUM_ACTIONS
        sidx += a
        sidx *= n
        sidx += cur
        self._cur = self._step_t[sidx]
        rare = _RARE[a]
        rare |= phase != PLAY
        rare |= hs == 0
        r = np.flatnonzero(rare)
        if r.size:
            # ``cur`` and ``total`` still hold the values from before the step (the common update made new
            # arrays); ``phase`` is read here, before ``_rare`` changes it in place
            self._rare(r, a[r], phase[r], hs[r], cur[r], total[r])
        if self._max_steps is not None:
            t = np.flatnonzero(self._steps >= self._max_steps)
            if t.size:
                self._truncate(t)
        self._update_mask()
        return self.rewards

    def _truncate(self, g: np.ndarray) -> None:
        """Games ``g`` took their ``max_steps``-th decision and go on: they end here with no winner (the
        undecided results stay 0), and their slots move on to their next games."""
        self.terminated[g] = True
        self.truncated[g] = True
        self.final_lives[g] = self._lives[g]
        self.final_result[g] = self._result[g]
        self.final_win[g] = 0.0
        self._next_games(g)
        self._init_games(g)
        self._deal(g)
        self._first_player(g)

    def _rare(self, g: np.ndarray, a: np.ndarray, phase: np.ndarray, hs: np.ndarray, p: np.ndarray,
              told: np.ndarray) -> None:
        """The games ``g`` whose step goes beyond the common update (``a``: their actions, ``phase``,
        ``p``: acting seat and ``told``: T, all from before the step; ``hs``: the seat's hand size
        after it). Computes their rewards and replaces the games that ended.

        Each stage runs once per step on all the games that reach it (fewer, larger numpy calls):
        the acting seat's lost life (BUST, or a Bomb answer "lose a life"), the card's effect (Draw,
        Re-Deal, the start of a Bomb), the Bomb answers, the round ends, then one deal for every new
        round and every new game."""
        lives0 = self._lives[g]
        res0 = self._result[g]
        self._actor[g] = p
        ans = phase != PLAY
        bust = a == BUST
        cont: list[np.ndarray] = []  # games whose Bomb resolves on (``_bomb_continue``)
        ends_g: list[np.ndarray] = []  # games whose round ends, and the seat whose turn it was
        ends_p: list[np.ndarray] = []
        if ans.any():
            self._total[g[ans]] = told[ans]  # an answer leaves T as it was (the common table set BUST's 0)
            cont.append(g[ans & ~bust])  # answer 0: the 0 is already discarded by the common update
        if bust.any():
            gl, pl, al = g[bust], p[bust], ans[bust]
            go = ~self._lose_life(gl, pl)
            nxt = go & ~al  # a BUST: the turn passes; an answer: the Bomb goes on
            self._cur[gl[nxt]] = self._next(gl[nxt], pl[nxt])
            cont.append(gl[go & al])
        card = ~(ans | bust)
        if card.any():
            gc, ac, pc, hc = g[card], a[card], p[card], hs[card]
            bomb = ac == BOMB
            if bomb.any():
                resolve = bomb & ((hc > 0) | self._resolves)
                if resolve.any():
                    gr = gc[resolve]
                    self._bomber[gr] = pc[resolve]
                    self._bcur[gr] = pc[resolve]
                    cont.append(gr)
                self._total[gc[bomb & ~resolve]] = 0  # a last-card Bomb that is not answered
                keep = ~resolve
                gc, ac, pc, hc = gc[keep], ac[keep], pc[keep], hc[keep]
            draw = (ac == DRAW1) | (ac == DRAW2)
            if draw.any():
                self._draws(gc[draw], pc[draw], np.where(ac[draw] == DRAW2, 2, 1))
            redeal = (ac == REDEAL) & (hc > 0)  # as the last card there is nothing to re-deal
            if redeal.any():
                self._redeal(gc[redeal], pc[redeal])
            last = hc == 0
            ends_g.append(gc[last])
            ends_p.append(pc[last])
            # the others: the common update's next seat is right (Draw and Re-Deal change neither
            # the survivors nor the direction)
        if cont:
            gb = np.concatenate(cont)
            if gb.size:
                eg, ep = self._bomb_continue(gb)
                ends_g.append(eg)
                ends_p.append(ep)
        round_g = dealer = None
        if ends_g:
            ge = np.concatenate(ends_g)
            if ge.size:
                round_g, dealer = self._round_end(ge, np.concatenate(ends_p))
        # rewards: results decided and lives lost at this step (before any replacement)
        rew = np.zeros((g.size, self.num_players), np.float32)
        if self._reward_results:
            rew += self._result[g] - res0
        if self._reward_lives:
            rew += self._lives[g] - lives0
        self.rewards[g] = rew
        fin = g[self._phase[g] == OVER]
        if fin.size:
            self._finish(fin)
        # one deal for the new rounds and the new games, then who starts
        deal = [x for x in (round_g, fin) if x is not None and x.size]
        if deal:
            self._deal(deal[0] if len(deal) == 1 else np.concatenate(deal))
        if round_g is not None and round_g.size:
            self._start_round(round_g, dealer)
        if fin.size:
            self._first_player(fin)

    # ------------------------------------------------------------------ seats

    def _next(self, g: np.ndarray, s: np.ndarray) -> np.ndarray:
        """int64 [m]: the next survivor after seat ``s`` of games ``g`` in their direction."""
        return self._next_t[(self._abits[g] * 2 + self._dirbit[g]) * self.num_players + s]

    def _order_after(self, g: np.ndarray, p: np.ndarray, clockwise: bool = False) -> np.ndarray:
        """int64 [m, n]: column j is the (j+1)-th survivor after ``p`` in turn order (``clockwise``:
        seat + 1 whatever the direction; ``p`` itself at column ``survivors - 1``; the columns after
        it wrap around)."""
        n = self.num_players
        base = (self._abits[g] * 2 + (1 if clockwise else self._dirbit[g])) * n
        out = np.empty((g.size, n), np.int64)
        s = p
        for j in range(n):
            s = self._next_t[base + s]
            out[:, j] = s
        return out

    def _positions(self, g: np.ndarray, start: np.ndarray) -> np.ndarray:
        """int64 [m, n]: each seat's place in turn order from ``start`` (0 for ``start``)."""
        n = self.num_players
        return self._pos_t[((self._dirbit[g] * n + start) * n)[:, None] + self._seats]

    # ------------------------------------------------------------------ lives and the end of games

    def _lose_life(self, g: np.ndarray, q: np.ndarray) -> np.ndarray:
        """Seat ``q`` (teams: q's team) of games ``g`` (distinct) loses one life; eliminations and the
        end of the game follow. Returns bool [m]: the game is over."""
        n = self.num_players
        if self._teams:
            team = (self._seats % 2)[None, :] == (q % 2)[:, None]  # [m, n]
            lv = self._lives[g] - team
            self._lives[g] = lv
            over = lv[np.arange(g.size), q] == 0
            if over.any():
                self._end_game(g[over], ~team[over])
            return over
        fi = g * n + q
        lv = self._lives_f[fi] - 1
        self._lives_f[fi] = lv
        over = lv == 0
        if over.any():
            gd = g[over]
            self._eliminate(gd, q[over])
            if self._sudden:
                self._end_sudden_death(gd)
            else:
                last = np.bitwise_count(self._abits[gd]) <= 1
                if last.any():
                    self._end_game(gd[last], self._alive[gd[last]])
                over[over] = last
        return over

    def _eliminate(self, g: np.ndarray, s: np.ndarray, unique: bool = True) -> None:
        """Seat ``s[j]`` of game ``g[j]`` is out: its hand goes to the discard pile (beneath its top
        card, which stays), its result is -1. ``unique=False``: a game may appear several times."""
        rows = g * self.num_players + s
        hands = self._hands_rows[rows]
        if unique:
            self._disc[g] += hands
            self._abits[g] &= ~(1 << s)
        else:
            np.add.at(self._disc, g, hands)
            np.bitwise_and.at(self._abits, g, ~(1 << s))
        self._hands_rows[rows] = 0
        self._hsize_f[rows] = 0
        self._result_f[rows] = -1
        self._alive_f[rows] = False

    def _end_game(self, g: np.ndarray, winners: np.ndarray) -> None:
        """Games ``g`` are over: ``winners`` (bool [m, n]) win, every undecided seat loses."""
        res = self._result[g]
        undecided = res == 0
        res[undecided] = np.where(winners, 1, -1)[undecided]
        self._result[g] = res
        self._phase[g] = OVER

    def _end_sudden_death(self, g: np.ndarray) -> None:
        """docs/rules.md 2.7: most lives, then the lowest hand value, then ``final_tiebreak`` (the first in
        turn order from the seat that acted at this step, or all of them)."""
        cfg = self.config
        pos = self._positions(g, self._actor[g].astype(np.int64))
        lv = self._lives[g].astype(np.int64)
        h = self._hands[g].astype(np.int64)
        hv = (h[:, :, :NUM_NUMBERS] @ np.arange(NUM_NUMBERS)
              + cfg.tiebreak_wild_value * h[:, :, NUM_NUMBERS:K].sum(axis=2))
        # one key, larger is better: lives, then the lower hand value (< 2**13), then the earlier place
        key = (lv << 24) | ((8191 - hv) << 4) | (15 - pos)
        key[lv <= 0] = -1
        if cfg.final_tiebreak == "shared":
            top = key >> 4
            winners = top == top.max(axis=1, keepdims=True)
        else:
            winners = key == key.max(axis=1, keepdims=True)
        self._end_game(g, winners)

    def _finish(self, g: np.ndarray) -> None:
        """Games ``g`` ended at this step: record their outcome and set up each slot's next game (its
        deal and first player follow in ``_rare``)."""
        res = self._result[g]
        self.terminated[g] = True
        self.final_lives[g] = self._lives[g]
        self.final_result[g] = res
        won = res == 1
        share = np.float32(1.0) if self._teams else (1.0 / won.sum(axis=1, keepdims=True)).astype(np.float32)
        self.final_win[g] = won * share
        self._next_games(g)  # same-step autoreset: slot i's next game is game i + k*B of the run
        self._init_games(g)

    # ------------------------------------------------------------------ Bomb

    def _bomb_continue(self, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Resolve the Bomb answers of games ``g`` in turn order from the last responder handled
        (``_bcur``) until one needs a decision (``bomb_zero_optional``), the game ends, or all are
        done; then ``_bomb_finish``. Returns the games whose round ends and their bombers."""
        n = self.num_players
        done: list[np.ndarray] = []
        active = g
        for _ in range(n):  # at most n - 1 responders, then the bomber's seat comes round again
            if not active.size:
                break
            q = self._next(active, self._bcur[active].astype(np.int64))
            end = q == self._bomber[active]
            if end.any():
                done.append(active[end])
                active, q = active[~end], q[~end]
                if not active.size:
                    break
            self._bcur[active] = q
            if self._optional:  # every responder decides, 0 or not: the games wait for the answers
                self._phase[active] = BOMB_ANSWER
                self._cur[active] = q
                break
            bn = active * n + q
            has0 = self._hands_f[bn * KP + N0] > 0
            if has0.any():  # the 0 is discarded automatically and becomes the top card
                gz, bz = active[has0], bn[has0]
                self._hands_f[bz * KP + N0] -= 1
                self._hsize_f[bz] -= 1
                self._disc_f[gz * KP + N0] += 1
                self._top[gz] = N0
            keep = np.ones(active.size, bool)
            no0 = np.flatnonzero(~has0)
            if no0.size:
                over = self._lose_life(active[no0], q[no0])
                keep[no0[over]] = False
            active = active[keep]
        if not done:
            return _EMPTY, _EMPTY
        return self._bomb_finish(np.concatenate(done))

    def _bomb_finish(self, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every answer is in: T = 0; the turn passes from the bomber, unless a hand is empty (the
        bomber's last card, or a responder's last card discarded): those games and their bombers are
        returned for the round end."""
        p = self._bomber[g].astype(np.int64)
        self._bomber[g] = -1
        self._bcur[g] = -1
        self._phase[g] = PLAY
        self._total[g] = 0
        empty = (self._alive[g] & (self._hsize[g] == 0)).any(axis=1)
        go = ~empty
        self._cur[g[go]] = self._next(g[go], p[go])
        return g[empty], p[empty]

    # ------------------------------------------------------------------ draws, reshuffles, Re-Deal

    def _draws(self, g: np.ndarray, p: np.ndarray, count: np.ndarray) -> None:
        """Every other survivor of games ``g`` draws ``count`` cards, in turn order from the seat after
        ``p`` (``draw_order``: each drawer all its cards, or one card at a time around); an empty draw
        pile is reshuffled (``empty_draw_pile``), and when nothing can be drawn the rest is skipped.

        The draws are numbered j = 0, 1, ... in the reference's order; they take the draw pile's cards
        in order, so all of them happen at once, in two batches at most: the cards the pile holds,
        then (when it ran out) the reshuffled pile's. A second reshuffle never finds anything: the
        discard pile is down to its top card and nothing is discarded while drawing."""
        order = self._order_after(g, p)
        others = np.bitwise_count(self._abits[g]).astype(np.int64) - 1
        ndraw = count * others
        avail = (self._dend[g] - self._dptr[g]).astype(np.int64)
        first = np.minimum(ndraw, avail)
        self._draw_run(g, order, count, others, np.zeros_like(first), first)
        short = ndraw > avail
        short &= self._nresh[g] < self._max_resh
        if self._reshuffles and short.any():
            gs = g[short]
            ok = self._reshuffle(gs)
            if ok.any():
                sel = np.flatnonzero(short)[ok]
                gs = gs[ok]
                left = np.minimum(ndraw[sel] - avail[sel], (self._dend[gs] - self._dptr[gs]).astype(np.int64))
                self._draw_run(gs, order[sel], count[sel], others[sel], avail[sel], left)

    def _draw_run(self, g: np.ndarray, order: np.ndarray, count: np.ndarray, others: np.ndarray,
                  j0: np.ndarray, k: np.ndarray) -> None:
        """Games ``g`` make draws ``j0 .. j0 + k - 1`` of their Draw card from the draw pile's next cards
        (draw j goes to ``order[slot]``, slot = j // count (each) or j % others (round robin))."""
        width = int(k.max()) if k.size else 0
        if width <= 0:
            return
        n, D = self.num_players, self._deck
        m = g.size
        i = np.arange(width)
        valid = i < k[:, None]  # [m, width]
        j = j0[:, None] + i
        slot = j // count[:, None] if self._each else j % others[:, None]
        local = (np.arange(m) * n)[:, None]  # game-major rows of this call's [m, n] blocks
        drawer = order.reshape(-1)[local + np.minimum(slot, n - 1)]
        ptr = self._dptr[g].astype(np.int64)
        kind = self._drawq_f[(g * D)[:, None] + np.minimum(ptr[:, None] + i, D - 1)]
        row = (local + drawer)[valid]
        # a drawer may take several cards of a kind: counted by bincount on the games' blocks
        got = np.bincount(row * KP + kind[valid], minlength=m * n * KP).reshape(m, n, KP)
        self._hands[g] += got.astype(np.uint8)
        self._hsize[g] += np.bincount(row, minlength=m * n).reshape(m, n).astype(np.int16)
        self._dptr[g] = ptr + k

    def _reshuffle(self, g: np.ndarray) -> np.ndarray:
        """The discard piles of games ``g`` except their top cards become new draw piles (shuffled,
        kinds ascending before the shuffle); returns bool [m]: there was something to shuffle."""
        counts = self._disc[g, :K].astype(np.int64)
        top = self._top[g].astype(np.int64)
        has_top = top >= 0
        counts[np.flatnonzero(has_top), top[has_top]] -= 1
        size = counts.sum(axis=1)
        ok = size > 0
        if ok.any():
            gg, counts, size, top = g[ok], counts[ok], size[ok], top[ok]
            width = int(size.max())
            perm = seeding.fast_batch_permutation(self._seeds[gg], self._counter[gg], width, size)
            self._counter[gg] += 1
            self._nresh[gg] += 1
            cards = _canonical(counts, size, width).reshape(-1)[perm + (np.arange(gg.size) * width)[:, None]]
            self._drawq[gg, :width] = cards
            self._dptr[gg] = 0
            self._dend[gg] = size
            disc = np.zeros((gg.size, KP), np.uint8)
            t = np.flatnonzero(top >= 0)
            disc[t, top[t]] = 1
            self._disc[gg] = disc
        return ok

    def _redeal(self, g: np.ndarray, p: np.ndarray) -> None:
        """Hand In & Re-Deal (``p`` has cards left): all surviving hands of games ``g`` are gathered
        (kinds ascending), shuffled, and dealt one at a time clockwise (whatever the direction) from
        the seat to ``p``'s left, ``p`` last."""
        n = self.num_players
        m = g.size
        order = self._order_after(g, p, clockwise=True)
        nal = np.bitwise_count(self._abits[g]).astype(np.int64)
        counts = self._hands[g, :, :K].sum(axis=1, dtype=np.int64)  # eliminated hands are empty
        size = counts.sum(axis=1)
        width = int(size.max())
        perm = seeding.fast_batch_permutation(self._seeds[g], self._counter[g], width, size)
        self._counter[g] += 1
        cards = _canonical(counts, size, width).reshape(-1)[perm + (np.arange(m) * width)[:, None]]  # [m, width]
        i = np.arange(width)
        local = (np.arange(m) * n)[:, None]
        row = local + order.reshape(-1)[local + i[None, :] % nal[:, None]]  # card i goes to order[i % nal]
        beyond = i[None, :] >= size[:, None]  # past the gathered cards: a bin that is dropped
        idx = row * KP + cards
        idx[beyond] = m * n * KP
        row[beyond] = m * n
        self._hands[g] = np.bincount(idx.reshape(-1), minlength=m * n * KP + 1)[:m * n * KP].reshape(m, n, KP)
        self._hsize[g] = np.bincount(row.reshape(-1), minlength=m * n + 1)[:m * n].reshape(m, n)

    # ------------------------------------------------------------------ rounds and new games

    def _round_end(self, g: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """docs/rules.md 2.5 for games ``g`` (``p``: the seat whose turn it was): losses, eliminations and
        the end of the game. Returns the games that go on to a new round, and their dealers: the first
        seat in turn order from ``p`` that went out."""
        n = self.num_players
        out = self._alive[g] & (self._hsize[g] == 0)
        pos = self._positions(g, p)
        dealer = np.where(out, pos, n).argmin(axis=1)
        go = np.ones(g.size, bool)
        if self._teams:
            # each seat that went out, in turn order from p, costs the other team a life
            at = np.argsort(pos, axis=1)  # at[:, j]: the seat at place j
            for j in range(n):
                s = at[:, j]
                sel = np.flatnonzero(go & out[np.arange(g.size), s])
                if sel.size:
                    over = self._lose_life(g[sel], (s[sel] + 1) % n)
                    go[sel[over]] = False
        else:
            losers = self._alive[g] & ~out  # simultaneous losses, then eliminations
            lv = self._lives[g] - losers
            self._lives[g] = lv
            dead = losers & (lv == 0)
            anyd = dead.any(axis=1)
            if anyd.any():
                gi, si = np.nonzero(dead)
                self._eliminate(g[gi], si, unique=False)
                gd = g[anyd]
                if self._sudden:
                    self._end_sudden_death(gd)
                    go &= ~anyd
                else:
                    last = np.bitwise_count(self._abits[gd]) <= 1
                    if last.any():
                        self._end_game(gd[last], self._alive[gd[last]])
                        go[np.flatnonzero(anyd)[last]] = False
        self._round[g[go]] += 1
        return g[go], dealer[go]

    def _start_round(self, g: np.ndarray, dealer: np.ndarray) -> None:
        """Games ``g`` (dealt already) begin a new round: the direction resets
        (``new_round_direction``), the dealer or the seat after it starts (``new_round_start``)."""
        if self.config.new_round_direction == "clockwise":
            self._dirbit[g] = 1
        self._cur[g] = dealer if self.config.new_round_start == "dealer" else self._next(g, dealer)

    def _deal(self, g: np.ndarray) -> None:
        """Games ``g``: the whole deck shuffled (one random event); the j-th survivor in seat order gets
        cards 10j..10j+9 of the shuffled deck, the rest is the draw pile in order; empty discard pile."""
        n, D = self.num_players, self._deck
        m = g.size
        perm = seeding.fast_batch_permutation(self._seeds[g], self._counter[g], D)
        self._counter[g] += 1
        shuffled = self._canon[perm]  # [m, D] uint8
        alive = self._alive[g]
        nal = np.bitwise_count(self._abits[g])
        dealt = HAND_SIZE * n
        hand_cards = shuffled[:, :dealt].astype(np.int64)
        if (nal == n).all():
            idx = (np.arange(m * n) * KP).reshape(m, n, 1) + hand_cards.reshape(m, n, HAND_SIZE)
        else:
            seat_of_rank = np.argsort(~alive, axis=1, kind="stable")  # survivors first, in seat order
            rank = np.arange(dealt) // HAND_SIZE
            idx = (np.arange(m)[:, None] * n + seat_of_rank[:, rank]) * KP + hand_cards
            idx[rank[None, :] >= nal[:, None]] = m * n * KP  # cards past the survivors' hands stay in the pile
        hands = np.bincount(idx.reshape(-1), minlength=m * n * KP + 1)[:m * n * KP]
        self._hands[g] = hands.reshape(m, n, KP)
        self._hsize[g] = HAND_SIZE * alive
        self._drawq[g] = shuffled
        self._dptr[g] = HAND_SIZE * nal
        self._dend[g] = D
        self._disc[g] = 0
        self._top[g] = -1
        self._total[g] = 0
        self._bomber[g] = -1
        self._bcur[g] = -1
        self._phase[g] = PLAY
        self._nresh[g] = 0

    def _init_games(self, g: np.ndarray) -> None:
        """Games ``g`` (their seeds set) before their first deal: full lives, everyone in, clockwise."""
        self._lives[g] = LIVES
        self._alive[g] = True
        self._abits[g] = self._all_bits
        self._result[g] = 0
        self._round[g] = 0
        self._counter[g] = 0
        self._steps[g] = 0
        self._dirbit[g] = 1

    def _first_player(self, g: np.ndarray) -> None:
        """Games ``g`` (just dealt) choose who starts: a random event with ``first_player="random"``."""
        if self.config.first_player == "random":
            self._cur[g] = seeding.batch_below(self._seeds[g], self._counter[g], self.num_players)
            self._counter[g] += 1
        else:
            self._cur[g] = 0

    def _new_games(self, g: np.ndarray) -> None:
        """Games ``g`` start (their seeds already set): the deal, then the first player."""
        self._init_games(g)
        self._deal(g)
        self._first_player(g)

    # ------------------------------------------------------------------ mask and observation

    def _update_mask(self) -> None:
        """The acting seat's legal actions: its held kinds playable at T, BUST when none is (always
        with ``allow_voluntary_bust``); a Bomb answer's actions (BUST, and 0 for a responder holding one)."""
        hand = self._hands_rows.take(self._bn0 + self._cur, axis=0)  # [B, KP]
        legal = _PLAYTAB.take(self._total, axis=0)
        np.logical_and(legal, hand, out=legal)
        # (row sums by a float matrix-vector product: several times faster than any(axis=1) on 19 columns)
        legal[:, BUST] = True if self._free_bust else legal.astype(np.float32) @ _ONES == 0
        ans = np.flatnonzero(self._phase)
        if ans.size:  # a Bomb answer: lose a life (BUST), or discard a 0 if the responder holds one
            legal[ans] = _ANSWER_ROW & (hand[ans] > 0)
            legal[ans, BUST] = True
        m = legal.view(np.int8)
        self._set_mask(m)

    def observe(self, out: np.ndarray | None = None) -> np.ndarray:
        """float32 [B, 80 + 3n]: each game's acting seat's observation; row i equals
        ``observation.observe(config, state_i, current_player[i])`` of the reference engine.

        ``out``: an optional C-contiguous float32 [B, 80 + 3n] array to write into and return (a
        training loop can reuse one buffer); by default a new array."""
        size = self.observation_size
        obs = self._obs_out(out)
        cur = self._cur
        at = self._obs_at
        obs[:, at["hand"]] = self._hands_rows.take(self._bn0 + cur, axis=0)[:, :K]
        obs[:, at["discard"]] = self._disc[:, :K]
        # top and total are one-hot (and contiguous): zeros, then the ones; "no top card" writes its 1 at
        # the direction column, which is written just after
        obs[:, TOP:DIRECTION] = 0
        flat = obs.reshape(-1)
        row = self._arange * size
        top = self._top
        flat[row + np.where(top >= 0, TOP + top, DIRECTION)] = 1.0
        flat[row + TOTAL + self._total] = 1.0
        obs[:, DIRECTION] = self._dirbit
        obs[:, at["draw_pile"].start] = self._dend - self._dptr
        phase = at["phase"].start
        obs[:, phase] = self._phase == PLAY
        obs[:, phase + 1] = self._phase == BOMB_ANSWER
        # relative seats: the observer (the acting seat) is seat 0, so the turn piece is always (1, 0, ...)
        turn = at["turn"]
        obs[:, turn.start] = 1.0
        obs[:, turn.start + 1:turn.stop] = 0.0
        rel = self._rel.take(cur, axis=0)  # (take: several times faster than fancy indexing of rows)
        rel += self._arange_n
        obs[:, at["lives"]] = self._lives_f[rel]
        obs[:, at["hand_sizes"]] = self._hsize_f[rel]
        return obs


def make_batched(num_envs: int, seed: int | None = 0, **config: Any) -> BatchedFiveAlive:
    """``BatchedFiveAlive(FiveAliveConfig(**config), num_envs, seed)``; unknown config keys raise
    ``ValueError`` naming the key. The factory ``fiveplay_env.vector.make_vec("five_alive", ...)`` calls."""
    return BatchedFiveAlive(from_kwargs(FiveAliveConfig, config), num_envs, seed)


def bench_five_alive_batched(num_players: int, batch_size: int, with_obs: bool, seconds: float) -> float:
    """Decisions per second of ``BatchedFiveAlive`` (standard rules, ``num_players`` seats,
    ``batch_size`` games): random legal play, the actions drawn from the mask with
    ``vector.random_actions`` inside the timed loop; ``with_obs`` also encodes every step's observations
    (into one reused buffer). Runs for about ``seconds`` after a short warm-up; one decision = one
    game's action in one step."""
    return bench_batched(BatchedFiveAlive(FiveAliveConfig(num_players=num_players), batch_size, seed=0),
                         with_obs, seconds)


_STATE_FIELDS = {"_hands": "hands", "_hsize": "hand_size", "_disc": "discard", "_top": "top", "_drawq": "draw",
                 "_dptr": "draw", "_dend": "draw", "_total": "total", "_dirbit": "direction", "_cur": "current",
                 "_phase": "phase", "_abits": "alive", "_alive": "alive", "_lives": "lives", "_result": "result",
                 "_bomber": "bomber", "_bcur": "bomber", "_round": "round", "_nresh": "reshuffles",
                 "_counter": "counter", "_steps": "turns"}


def _as_state_field(message: str) -> str:
    """A ``check_games`` message about the one game ``load`` built, as one about the reference state's field:
    ``state['arrays']['_hsize']: game 0: expected ...`` becomes ``state.hand_size: expected ...``."""
    head, _, rest = message.partition(": game 0: ")
    name = head.split("'")[-2] if head.count("'") >= 2 else head
    return f"state.{_STATE_FIELDS.get(name, name)}: {rest or message}"
