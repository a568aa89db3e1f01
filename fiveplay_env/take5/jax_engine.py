"""The Take 5 JAX engine: the game as pure, jit- and vmap-able functions with Pgx's interface.

It plays exactly the games of the reference engine (``fiveplay_env.take5.engine``): the same decision
order, the same deals (``chance="reference"``: the reference's SplitMix64 shuffles, computed by
``core.jax_seeding`` on uint32 pairs), the same rewards and observations, checked step by step by
``tests/take5/test_jax_engine.py``. It shares the config, the constants of ``state.py`` and the
observation layout with the reference; the rules are written again, branch-free, so that the two
implementations check each other. Every option of ``Take5Config`` is supported.

    import jax
    from fiveplay_env.take5.jax_engine import JaxEnv

    env = JaxEnv(num_players=4, mode="round")
    init, step = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step))
    state = init(jax.random.split(jax.random.key(0), 1024))        # 1,024 games
    state = step(state, actions, jax.random.split(key, 1024))       # one action per game

Interface (Pgx v2's ``Env``): ``init(key)``, ``step(state, action, key=None)``, ``observe(state, player)``,
``observe_compact(state, player)``, ``legal_action_mask(state)``, ``id``, ``version``, ``num_players``,
``num_actions`` (109: the codec of ``state.py``), ``observation_shape``, ``config``. Beyond Pgx:
``init_seeded(seed)`` (the reference's game ``new_game(config, seed)``, ``seed`` a uint32 pair of
``core.jax_seeding``), ``step_autoreset(state, action, key)`` (same-step autoreset without Pgx's cost,
see below), ``make_vec`` (``JaxVecTake5``: the ``BatchedGame`` shape of ``fiveplay_env.vector``, the
numpy batched engine's very games) and ``random_actions(key, mask)`` (a cheap uniform legal sampler).

Pgx's conventions, kept as they are: ``step`` on a terminated state returns it with zero rewards; an
illegal action (not in ``legal_action_mask``, or outside 0..108) ends the game at once with
``illegal_action_penalty`` (default -1.0) for the actor and 0 for the others (as
``fiveplay_env.wrappers.IllegalActionPenalty``). An action is an integer: eagerly a bool, float or
string raises ``ValueError``, under ``jit``/``vmap`` it is the penalty; an integer out of range (such as
``2**32 + a``) is the penalty either way, never wrapped or truncated (``core.jax_vec.action_input``,
which also says how JAX itself treats 64-bit arguments under ``jit``); a terminated state's ``legal_action_mask`` is all True
(the reference's mask of a finished game is all False), and its ``current_player`` is -1 as the
reference's.

``State`` (one game; a batch has a leading axis; n players; card ids 0..103):

| field               | dtype, shape   | meaning                                                          |
|---------------------|----------------|------------------------------------------------------------------|
| ``current_player``  | int32 []       | the acting seat (0..n-1), -1 once the game is over               |
| ``observation``     | float32 [size] | its observation (``observation.observe``); see ``observation=`` below |
| ``legal_action_mask`` | bool [109]   | its legal actions (= the reference's ``legal_mask``)             |
| ``rewards``         | float32 [n]    | every player's reward for the last step: minus the bull heads taken |
| ``terminated``, ``truncated`` | bool [] | the game is over (truncated: never, games always end)        |
| ``_step_count``     | int32 []       | steps taken                                                      |
| ``loc``             | int8 [104]     | where card c is: a seat 0..n-1 (in hand), PENDING (chosen, unrevealed), POOL (draft), ASIDE (dealt to nobody), OUT (not in play), QUEUE (revealed, its trick waits for a row choice), SEEN (in a row or a penalty pile) |
| ``rows``            | int8 [4, 5]    | row cards in placement order; slots at or beyond ``rlen`` are stale |
| ``rlen``, ``rbull`` | int8 [4]       | row length (0 in the draft) and bull heads                       |
| ``rlast``           | int8 [4]       | the row's last (highest) card, -1 while the rows are empty (draft) |
| ``pending``         | int8 [n]       | the card each seat chose this trick, -1 if none yet              |
| ``scores``, ``round_pen`` | int32 [n] | the reference's ``scores`` and ``round_pen``                     |
| ``phase``, ``trick`` | int8 []       | DRAFT / PLAY / ROW_CHOICE / OVER (``state.py``); tricks completed this round |
| ``round``, ``picks`` | int32 []      | rounds completed; draft picks made this round                    |
| ``seed``, ``counter`` | uint32 [2], int32 [] | the game's seed (a ``jax_seeding`` pair; zeros with ``chance="jax"``) and the deals made |

Hidden fields (``loc`` of other seats, ``pending``, ``seed``) never enter an observation: ``observe``
reads only what ``observation.py`` lists (a test re-deals the hidden cards and finds it unchanged).

Chance: ``chance="jax"`` (default): each deal is a SplitMix64 shuffle of a fresh 64-bit seed drawn from
the ``key`` of the step (or of ``init``) that deals it, and nothing of it stays in the state, so the
state holds no future deal. ``chance="reference"``: the state carries the reference's seed and counter
(hidden fields) and every deal is ``seeding.permutation(seed, counter, deck)``, so ``init_seeded(s)``
plays exactly ``new_game(config, s)``; ``init(key)`` then draws the 64-bit seed from the key.

Simultaneous play is sequenced as the reference's AEC order: each trick seats 0..n-1 choose in turn
(a chosen card goes to PENDING, hidden), the last choice reveals the trick and places it in ascending
order (a sorting network over the n cards, then a fixed, unrolled loop over them); a too-low lowest
card with ``row_pick="player"`` stops there (its owner acts next, actions 104..107) and the next step
places the whole trick with that row forced. With ``draft`` each round opens with the picks, seat
order 0..n-1 repeated.

Observation (``observation=`` constructor argument, not a game config field): ``"float"`` (default)
fills ``State.observation`` with the float observation (Pgx's convention), ``"compact"`` with the uint8
compact one (``fiveplay_env.take5.compact``; not for ``draft``), ``"none"`` with an empty array
(``observe`` / ``observe_compact`` still give any player's observation on demand). The float values
are computed as the reference computes them: table lookups for the row statistics and tricks, and
``score / end_score`` in float32, equal to the reference's float64 product rounded to float32 for every
score below 2**24 and ``end_score`` below 2**27 (a correctly rounded quotient cannot then fall on the
other side of a float32 rounding boundary than the float64 product).

Speed: under ``vmap`` a deal (a shuffle: 104 keys and a sort) runs only for the games that deal at
that step: ``jax_seeding.sparse`` gives it a batching rule (``jax.custom_batching.custom_vmap``) that gathers
those games, deals them in fixed-size chunks and scatters the results back, instead of computing the
deal for every game and selecting (what ``vmap`` of a ``lax.cond`` does). Pgx's
``pgx.experimental.auto_reset`` calls ``init`` in a ``lax.cond`` and so deals every game at every step
under ``vmap``; ``step_autoreset`` is the same contract with the new games' deals sparse too.
On XLA's CPU backend the float observation is most of a step's cost (3,440 bytes a game at 4 players,
written at every step): measured in one run (2-core machine, B = 4,096, 4 players, random legal play
with ``step_autoreset``, ``lax.scan`` over 64 steps) ``observation="float"`` ran 0.57x and
``"compact"`` 0.84x the rate of ``"none"``; a draft config, which never shuffles, about 2x the standard
one (a deal is 104 SplitMix64 keys and a sort); ``fiveplay_env.experiments.bench`` has the rows beside the numpy
batched engine and Pgx. Compiling one config takes tens of seconds on such a machine.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

try:
    import jax
    import jax.numpy as jnp
    from jax import lax
except ImportError as exc:  # pragma: no cover - exercised only without jax
    from fiveplay_env.core.extras import install_hint

    raise ImportError(f"the JAX engines need jax, of the 'jax' extra: {install_hint('jax')}") from exc

from fiveplay_env.core import jax_seeding as js
from fiveplay_env.core.jax_vec import CHANCES, JaxEnvBase, JaxVecBase, PgxState, action_input, random_actions, register_state, state_field  # noqa: F401 (re-exported)
from fiveplay_env.take5 import compact as compact_mod
from fiveplay_env.take5.config import Take5Config
from fiveplay_env.take5.observation import (
    HAND, POOL as OBS_POOL, ROW_STATS, ROWS as OBS_ROWS, SCORES, SEEN as OBS_SEEN, TRICK as OBS_TRICK,
    observation_size,
)
from fiveplay_env.take5.state import (
    ACTION_ROW0, BULLHEADS, DRAFT, HAND_SIZE, NUM_ACTIONS, NUM_CARDS, NUM_ROWS, NUM_TRICKS, OVER, PLAY,
    ROW_CHOICE, ROW_LIMIT,
)

VERSION = "v0"

# ``loc`` codes (seats are 0..9). QUEUE and SEEN, the revealed cards, are the highest: ``seen`` is one test.
PENDING, POOL, ASIDE, OUT, QUEUE, SEEN = 10, 11, 12, 13, 14, 15

_BULL8 = BULLHEADS.astype(np.int8)
# float observation values by table, each computed as the reference computes it (float64, then float32)
_END_F = np.array([(e + 1) / 104.0 for e in range(-1, NUM_CARDS)], np.float32)  # index: last card + 1
_LEN_F = np.array([x / 5.0 for x in range(ROW_LIMIT + 1)], np.float32)
_BULL_F = np.array([x / 10.0 for x in range(64)], np.float32)
_TRICK_F = np.array([t / NUM_TRICKS for t in range(NUM_TRICKS + 1)], np.float32)
_CARDS = np.arange(NUM_CARDS, dtype=np.int8)
_SLOTS = np.arange(ROW_LIMIT, dtype=np.int8)
_ROW_IDS = np.arange(NUM_ROWS, dtype=np.int8)
OBSERVATIONS = ("float", "compact", "none")
_SCORE_TABLE_MAX = 1 << 16  # scores beyond: float32 products, which may differ from the reference in the last bit


# ----------------------------------------------------------------------------------------------- state
def sorting_network(n: int) -> list[tuple[int, int]]:
    """Comparators (i, j), i < j, of Batcher's odd-even merge sort for ``n`` keys: applying
    ``(x[i], x[j]) = (min, max)`` in order sorts any ``n`` keys (the network for the next power of
    two, without the comparators that touch the missing keys, which would sit at the top)."""
    size = 1
    while size < n:
        size *= 2
    comps: list[tuple[int, int]] = []

    def merge(lo: int, hi: int, r: int) -> None:
        step = r * 2
        if step < hi - lo:
            merge(lo, hi, step)
            merge(lo + r, hi, step)
            comps.extend((i, i + r) for i in range(lo + r, hi - r, step))
        else:
            comps.append((lo, lo + r))

    def sort(lo: int, hi: int) -> None:
        if hi - lo >= 1:
            mid = lo + (hi - lo) // 2
            sort(lo, mid)
            sort(mid + 1, hi)
            merge(lo, hi, 1)

    sort(0, size - 1)
    return [(i, j) for i, j in comps if j < n]


@dataclasses.dataclass(frozen=True)
class State(PgxState):
    """One Take 5 game (see the module docstring's table); a pytree of fixed-shape arrays."""

    ENV_ID = "take5"  # a class attribute (``env_id``), not a field

    loc: Any
    rows: Any
    rlen: Any
    rbull: Any
    rlast: Any
    pending: Any
    scores: Any
    round_pen: Any
    phase: Any
    trick: Any
    round: Any
    picks: Any
    seed: Any
    counter: Any


_FIELDS = register_state(State)


def _f(b: Any) -> Any:
    """float32 1.0 / 0.0 of a bool array."""
    return jnp.where(b, jnp.float32(1), jnp.float32(0))


def _reduce(op: Callable[[Any, Any], Any], xs: list[Any]) -> Any:
    """``op`` folded over a short list of same-shape arrays (elementwise: no reduction op)."""
    out = xs[0]
    for x in xs[1:]:
        out = op(out, x)
    return out


def _all(xs: list[Any]) -> Any:
    return _reduce(jnp.logical_and, xs)


def _select(pred: Any, a: State, b: State, outputs: bool = True) -> State:
    """``where(pred, a, b)`` field by field for a scalar ``pred``; ``outputs=False`` leaves the observation and
    the mask as ``b``'s (the caller recomputes them: no select over the observation's floats)."""
    skip = () if outputs else ("observation", "legal_action_mask")
    return State(**{f: getattr(b, f) if f in skip else jnp.where(pred, getattr(a, f), getattr(b, f)) for f in _FIELDS})


# ------------------------------------------------------------------------------------------- the env
class Take5JaxEnv(JaxEnvBase):
    """Take 5 under one ``Take5Config`` as Pgx v2's ``Env`` (see the module docstring).

    ``Take5JaxEnv(config=None, *, chance="jax", observation="float", illegal_action_penalty=-1.0,
    **fields)``, as ``core.jax_vec.JaxEnvBase`` (``config`` a ``Take5Config`` or None, then
    ``Take5Config(**fields)``); ``observation="compact"`` is refused with ``draft``. Every method is pure.
    """

    CONFIG, ID, VERSION, NUM_ACTIONS, OBSERVATIONS = Take5Config, "take5", VERSION, NUM_ACTIONS, OBSERVATIONS

    def _setup(self) -> None:
        """The deal's and the observation's constants, and the sparse deal and draft rows."""
        config = self.config
        if self.observation_kind == "compact" and config.draft:
            raise ValueError("observation: expected 'float' or 'none' with draft=True: the compact observation does "
                             "not cover the draft's public hands")
        n = self.n
        self._deck = config.deck_size
        self._net = sorting_network(n)
        self._player_rows = config.row_pick == "player"
        self._obs_size = observation_size(n, config.draft)
        blank = np.full(NUM_CARDS, OUT, np.int8)
        blank[:self._deck] = POOL
        self._draft_loc = blank
        self._rel = np.array([[(p + i) % n for i in range(n)] for p in range(n)], np.int32)
        if not config.draft:
            self._layout = compact_mod.layout(n, config.end_score)
        # the highest score or round penalty a game can reach (observation_high's bound)
        per_round = int(BULLHEADS[:self._deck].sum())
        k = config.num_rounds
        top = (config.end_score + per_round) if k is None else k * per_round
        self._score_table: np.ndarray | None = None
        if top < _SCORE_TABLE_MAX:
            self._score_table = (np.arange(top + 1) * (1.0 / config.end_score)).astype(np.float32)
        # a deal happens about once per 10n + 1 steps of a game: chunks a little above that share (games
        # that deal together, as at the start, take several chunks)
        self._deal = js.sparse(self._deal_fn, min(1.0, 1.25 / (HAND_SIZE * n + 1)))
        self._draft_rows = js.sparse(
            lambda loc: jnp.nonzero(loc == POOL, size=NUM_ROWS, fill_value=0)[0].astype(jnp.int8),
            min(1.0, 3.0 / (HAND_SIZE * n + 1)))

    # --- Pgx's Env attributes (the rest: JaxEnvBase) --------------------------------------------
    @property
    def observation_shape(self) -> tuple[int, ...]:
        """The shape of ``State.observation``: the float observation's, the compact one's or (0,)."""
        if self.observation_kind == "float":
            return (self._obs_size,)
        if self.observation_kind == "compact":
            return (self._layout.size,)
        return (0,)

    # --- chance -----------------------------------------------------------------------------------
    def _deal_fn(self, seed: Any, counter: Any) -> tuple[Any, Any]:
        """The deal of event ``counter`` of game ``seed``: (loc int8 [104], row starters int8 [4]). Position j
        of the shuffled deck goes to seat j // 10, then starts row j - 10n, then is set aside."""
        n = self.n
        perm = js.permutation(seed, counter, self._deck)
        j = lax.iota(jnp.int32, self._deck)  # the deal's codes by position (no constant array: see js.sparse)
        codes = jnp.where(j < HAND_SIZE * n, j // HAND_SIZE, jnp.where(j < HAND_SIZE * n + NUM_ROWS, SEEN, ASIDE))
        loc = jnp.full(NUM_CARDS, OUT, jnp.int8).at[perm].set(codes.astype(jnp.int8))
        return loc, perm[HAND_SIZE * n:HAND_SIZE * n + NUM_ROWS].astype(jnp.int8)

    # --- init -------------------------------------------------------------------------------------
    def _blank(self, seed: Any) -> State:
        n = self.n
        z8 = jnp.int8(0)
        return State(
            current_player=jnp.int32(0), observation=jnp.zeros(self.observation_shape, self._obs_dtype()),
            legal_action_mask=jnp.zeros(NUM_ACTIONS, bool), rewards=jnp.zeros(n, jnp.float32),
            terminated=jnp.bool_(False), truncated=jnp.bool_(False), _step_count=jnp.int32(0),
            loc=jnp.full(NUM_CARDS, OUT, jnp.int8), rows=jnp.zeros((NUM_ROWS, ROW_LIMIT), jnp.int8),
            rlen=jnp.zeros(NUM_ROWS, jnp.int8), rbull=jnp.zeros(NUM_ROWS, jnp.int8),
            rlast=jnp.full(NUM_ROWS, -1, jnp.int8), pending=jnp.full(n, -1, jnp.int8),
            scores=jnp.zeros(n, jnp.int32), round_pen=jnp.zeros(n, jnp.int32), phase=jnp.int8(PLAY),
            trick=z8, round=jnp.int32(0), picks=jnp.int32(0), seed=jnp.asarray(seed, jnp.uint32),
            counter=jnp.int32(0))

    def _obs_dtype(self) -> Any:
        return jnp.uint8 if self.observation_kind == "compact" else jnp.float32

    def _new_round(self, s: State, dealt: tuple[Any, Any]) -> State:
        """``engine._start_round``: the round fields reset, then the deal ``dealt`` (or the draft)."""
        n = self.n
        common = dict(trick=jnp.int8(0), current_player=jnp.int32(0), round_pen=jnp.zeros(n, jnp.int32),
                      pending=jnp.full(n, -1, jnp.int8))
        if self.config.draft:
            return s.replace(loc=jnp.asarray(self._draft_loc), rlen=jnp.zeros(NUM_ROWS, jnp.int8),
                             rbull=jnp.zeros(NUM_ROWS, jnp.int8), rlast=jnp.full(NUM_ROWS, -1, jnp.int8),
                             phase=jnp.int8(DRAFT), picks=jnp.int32(0), **common)
        loc, starters = dealt
        return s.replace(loc=loc, **self._rows_of(starters), phase=jnp.int8(PLAY), counter=s.counter + 1, **common)

    def _rows_of(self, starters: Any) -> dict[str, Any]:
        """Rows of one card each, ``starters[r]`` starting row r."""
        return dict(rows=jnp.zeros((NUM_ROWS, ROW_LIMIT), jnp.int8).at[:, 0].set(starters),
                    rlen=jnp.ones(NUM_ROWS, jnp.int8), rbull=jnp.asarray(_BULL8)[starters.astype(jnp.int32)],
                    rlast=starters)

    def _fresh(self, seed: Any, need: Any = True) -> State:
        """A new game of ``seed`` (a pair: the reference's seed, or one drawn from a key); its deal is
        sparse under vmap (``need``: whether it is wanted at all)."""
        s = self._blank(seed if self.chance == "reference" else jnp.zeros(2, jnp.uint32))
        dealt = None
        if not self.config.draft:
            fallback = (jnp.full(NUM_CARDS, OUT, jnp.int8), jnp.zeros(NUM_ROWS, jnp.int8))
            dealt = self._deal(need, seed, jnp.int32(0), fallback)
        s = self._new_round(s, dealt)
        return self._finish(s)

    def init(self, key: Any) -> State:
        """A new game dealt from ``key`` (Pgx's ``init``). With ``chance="reference"`` the game is the
        reference's ``new_game(config, seed)`` for the 64-bit seed drawn from the key (kept in ``seed``)."""
        return self._fresh(self._key_seed(key))

    # --- masks and observations -------------------------------------------------------------------
    def _mask(self, s: State) -> Any:
        phase = s.phase
        target = jnp.where(phase == DRAFT, jnp.int8(POOL), s.current_player.astype(jnp.int8))
        cards = (s.loc == target) & (phase != ROW_CHOICE)
        rows = jnp.broadcast_to(phase == ROW_CHOICE, (NUM_ROWS,))
        m = jnp.concatenate([cards, rows, jnp.zeros(1, bool)])
        return m | (phase == OVER)

    def _row_planes(self, s: State) -> Any:
        """bool [4, 104]: the cards lying in each row, by a scatter of the 20 slots (stale slots dropped):
        far cheaper than comparing every card with every slot."""
        live = jnp.asarray(_SLOTS)[None, :] < s.rlen[:, None]  # [4, 5]
        idx = jnp.where(live, s.rows.astype(jnp.int32) + NUM_CARDS * jnp.arange(NUM_ROWS)[:, None], NUM_ROWS * NUM_CARDS)
        flat = jnp.zeros(NUM_ROWS * NUM_CARDS, bool).at[idx.reshape(-1)].set(True, mode="drop")
        return flat.reshape(NUM_ROWS, NUM_CARDS)

    def _public_hands(self, s: State) -> Any:
        """bool [n, 104]: each seat's hand and unrevealed choice (``draft=True``: every pick was public)."""
        seats = jnp.arange(self.n, dtype=jnp.int8)
        held = s.loc[None, :] == seats[:, None]
        chosen = (s.pending[:, None] == jnp.asarray(_CARDS)[None, :]) & (s.phase == PLAY)
        return held | chosen

    def _scaled(self, points: Any) -> Any:
        """float32 ``points * (1 / end_score)`` as the reference computes it (float64, then float32): by table
        up to the highest score a game can reach (XLA turns a division by a scalar into a product with its
        reciprocal, which is not the same float)."""
        if self._score_table is not None:
            return jnp.asarray(self._score_table)[jnp.clip(points, 0, self._score_table.size - 1)]
        return points.astype(jnp.float32) * jnp.float32(1.0 / self.config.end_score)

    def observe(self, state: State, player: Any) -> Any:
        """float32 [observation_size]: ``player``'s observation, ``observation.observe``'s layout and values."""
        s, n = state, self.n
        p = jnp.asarray(player, jnp.int32)
        loc = s.loc
        # bool -> float as a select: XLA's CPU convert of a predicate is several times slower
        planes = jnp.concatenate([loc == p.astype(jnp.int8), loc >= QUEUE, loc == QUEUE, loc == POOL,
                                  self._row_planes(s).reshape(-1)])  # [832]: hand .. rows
        stats = jnp.stack([jnp.asarray(_END_F)[s.rlast.astype(jnp.int32) + 1], jnp.asarray(_LEN_F)[s.rlen.astype(jnp.int32)],
                           jnp.asarray(_BULL_F)[s.rbull.astype(jnp.int32)]], axis=1).reshape(-1)
        rel = jnp.asarray(self._rel)[p]
        scores, pens = self._scaled(s.scores[rel]), self._scaled(s.round_pen[rel])
        flags = jnp.concatenate([jnp.arange(n) == p, jnp.arange(3) == s.phase.astype(jnp.int32)])
        tricks = jnp.asarray(_TRICK_F)[s.trick.astype(jnp.int32)][None]
        parts = [_f(planes), stats, scores, pens, _f(flags), tricks]
        if self.config.draft:
            pub = self._public_hands(s)
            parts.append(_f(pub[rel[1:]]).reshape(-1))
        return jnp.concatenate(parts)

    def observe_compact(self, state: State, player: Any) -> Any:
        """uint8 [136 + 6n]: ``player``'s compact observation (``fiveplay_env.take5.compact``;
        ``compact.layout(n, end_score).decode`` gives ``observe``). Not for ``draft=True`` (``ValueError``)."""
        if self.config.draft:
            raise ValueError("observe_compact: expected draft=False: the compact observation does not cover the "
                             "draft's public hands (the 'others' piece); use observe()")
        s, n = state, self.n
        p = jnp.asarray(player, jnp.int32)
        loc = s.loc
        u8 = jnp.uint8
        one, zero = u8(1), u8(0)
        bits = [loc == p.astype(jnp.int8), loc >= QUEUE, loc == QUEUE, loc == POOL]
        planes = self._row_planes(s)
        bits += [planes[r] for r in range(NUM_ROWS)]
        byte = jnp.where(bits[0], one, zero)
        for i in range(1, len(bits)):
            byte = byte | jnp.where(bits[i], u8(1 << i), zero)
        rel = jnp.asarray(self._rel)[p]
        i32 = jnp.int32
        stats = jnp.stack([s.rlast.astype(i32) + 1, s.rlen.astype(i32), s.rbull.astype(i32)], axis=1).reshape(-1)
        flags = jnp.concatenate([jnp.arange(n) == p, jnp.arange(3) == s.phase.astype(i32)])
        codes = jnp.concatenate([stats, s.scores[rel], s.round_pen[rel], jnp.where(flags, 1, 0),
                                 s.trick.astype(i32)[None]]).astype(jnp.uint32)
        le = jnp.stack([codes & 255, (codes >> 8) & 255], axis=1).reshape(-1).astype(u8)
        return jnp.concatenate([byte, le])

    def _finish(self, s: State) -> State:
        """Mask and ``State.observation`` of the acting seat."""
        s = s.replace(legal_action_mask=self._mask(s))
        p = jnp.maximum(s.current_player, 0)
        if self.observation_kind == "float":
            return s.replace(observation=self.observe(s, p))
        if self.observation_kind == "compact":
            return s.replace(observation=self.observe_compact(s, p))
        return s

    # --- step -------------------------------------------------------------------------------------
    def step(self, state: State, action: Any, key: Any = None) -> State:
        """Pgx's ``step``: the acting seat's ``action``; ``key`` deals a new round (``chance="jax"``; may be
        None when no step can deal a round: ``mode="round"``, or ``chance="reference"``)."""
        return self._step(state, action, self._round_seed(state, key), None)[0]

    def step_autoreset(self, state: State, action: Any, key: Any) -> State:
        """``step``, and a game that ends (an illegal action included) is replaced at once by a new one
        dealt from ``key`` (same-step autoreset, as ``pgx.experimental.auto_reset(env.step, env.init)``):
        ``terminated`` and ``rewards`` are the finished game's, the rest the new game's; the flags of the
        state passed in are ignored (they are the last step's: the state already holds the new game, as
        with Pgx's wrapper, which clears them first). Under ``vmap`` only
        the games that end deal (Pgx's wrapper calls ``init`` in a ``lax.cond``, which ``vmap`` runs for
        every game)."""
        k1, k2 = jax.random.split(key)
        return self._step(state, action, self._round_seed(state, k1), self._key_seed(k2))[0]

    def _round_seed(self, state: State, key: Any) -> Any:
        if self.chance == "reference":
            return state.seed
        if key is None:
            if self.config.draft or self.config.num_rounds == 1:
                return jnp.zeros(2, jnp.uint32)  # never used: no step deals a round
            raise ValueError("step: expected a key with chance='jax' (new rounds are dealt from it), got None")
        return self._key_seed(key)

    def _step(self, state: State, action: Any, round_seed: Any, new_game_seed: Any) -> tuple[State, Any]:
        """One step, and the scores of the game if it ended (int32 [n]). ``new_game_seed`` (a pair, or None:
        no autoreset): a game that ends is replaced by a new game of that seed."""
        s, n = state, self.n
        if new_game_seed is not None:  # autoreset: the flags are the last step's (Pgx's auto_reset clears them)
            s = s.replace(terminated=jnp.bool_(False), truncated=jnp.bool_(False))
        a, in_range = action_input(action, NUM_ACTIONS)  # an integer in range, else the penalty: no wrap, no truncation
        legal = in_range & s.legal_action_mask[a]
        done_before = s.terminated | s.truncated
        nxt, need, deal_inputs = self._play(s, a)
        # Pgx: an illegal action ends the game at once with the penalty for the actor
        pen = jnp.where(jnp.arange(n) == s.current_player, jnp.float32(self.illegal_action_penalty), jnp.float32(0))
        bad = s.replace(rewards=pen, terminated=jnp.bool_(True), phase=jnp.int8(OVER), current_player=jnp.int32(-1),
                        _step_count=s._step_count + 1)
        after = _select(legal, nxt, bad, outputs=False)
        new_round = legal & (nxt.trick == NUM_TRICKS) & (nxt.phase != OVER)
        need = need & legal & ~done_before
        # one sparse deal per step: a new round of this game, or (autoreset) the first deal of a new game
        seed_in, counter_in = deal_inputs(round_seed)
        reset = None
        if new_game_seed is not None:
            reset = after.terminated
            seed_in = jnp.where(reset, new_game_seed, seed_in)
            counter_in = jnp.where(reset, 0, counter_in)
            need = need | reset
        dealt = None
        if not self.config.draft:
            dealt = self._deal(need, seed_in, counter_in, (s.loc, s.rows[:, 0]))
        after = _select(new_round, self._new_round(after, dealt), after, outputs=False)
        final = after.scores
        if reset is not None:
            fresh = self._new_round(self._blank(new_game_seed if self.chance == "reference" else jnp.zeros(2, jnp.uint32)),
                                    dealt)
            fresh = fresh.replace(terminated=after.terminated, rewards=after.rewards)
            after = _select(reset, fresh, after, outputs=False)
            return self._finish(after), final
        after = self._finish(after)
        still = s.replace(rewards=jnp.zeros(n, jnp.float32))
        return _select(done_before, still, after), final

    def _play(self, s: State, a: Any) -> tuple[State, Any, Callable[[Any], tuple[Any, Any]]]:
        """The rules of one step (the action is legal). Returns the state after it with ``trick == 10`` left
        for the caller when a round ended and the game goes on (the caller deals the next round), whether
        a deal is needed, and the deal's (seed, counter) as a function of this round's seed."""
        n, cfg = self.n, self.config
        phase, cur = s.phase, s.current_player
        cards = jnp.asarray(_CARDS)
        card = jnp.clip(a, 0, NUM_CARDS - 1).astype(jnp.int8)
        is_play, is_rc, is_draft = phase == PLAY, phase == ROW_CHOICE, phase == DRAFT
        hit = cards == card
        seats = jnp.arange(n, dtype=jnp.int32)
        loc, pending = s.loc, s.pending
        # card play: the card leaves the hand, hidden, until the last seat has chosen
        loc = jnp.where(is_play & hit, jnp.int8(PENDING), loc)
        pending = jnp.where(is_play & (seats == cur), card, pending)
        reveal = is_play & (cur == n - 1)
        resolve = reveal | is_rc
        # the trick in ascending order: card * 16 + seat through a sorting network
        key = [pending[i].astype(jnp.int32) * 16 + i for i in range(n)]
        for i, j in self._net:
            key[i], key[j] = jnp.minimum(key[i], key[j]), jnp.maximum(key[i], key[j])
        tc = [k >> 4 for k in key]
        to = [k & 15 for k in key]
        too_low = _all([s.rlast[r].astype(jnp.int32) > tc[0] for r in range(NUM_ROWS)])
        pause = reveal & too_low if self._player_rows else jnp.bool_(False)
        forced = jnp.where(is_rc, a - ACTION_ROW0, -1)
        placed = self._place(s, tc, to, forced)
        place = resolve & ~pause
        rows, rlen, rbull, rlast8, pen = placed
        trick_cards = (loc == PENDING) | (loc == QUEUE)
        loc = jnp.where(place & trick_cards, jnp.int8(SEEN), loc)
        loc = jnp.where(pause & (loc == PENDING), jnp.int8(QUEUE), loc)
        pen = jnp.where(place, pen, 0)
        round_pen = s.round_pen + pen
        trick = jnp.where(place, s.trick + 1, s.trick).astype(jnp.int8)
        new_cur = jnp.where(pause, to[0], jnp.where(place, 0, jnp.where(is_play, cur + 1, cur)))
        new_phase = jnp.where(pause, jnp.int8(ROW_CHOICE), jnp.where(place, jnp.int8(PLAY), phase))
        pending = jnp.where(place, jnp.int8(-1), pending)
        out = s.replace(loc=loc, pending=pending, rows=jnp.where(place, rows, s.rows),
                        rlen=jnp.where(place, rlen, s.rlen), rbull=jnp.where(place, rbull, s.rbull),
                        rlast=jnp.where(place, rlast8, s.rlast), round_pen=round_pen, trick=trick,
                        rewards=(0 - pen).astype(jnp.float32), _step_count=s._step_count + 1)
        # the end of a round: the scores, then the game's end or (by the caller) the next deal
        round_end = trick == NUM_TRICKS
        scores = jnp.where(round_end, s.scores + round_pen, s.scores)
        rnd = jnp.where(round_end, s.round + 1, s.round)
        k = cfg.num_rounds
        if k is not None:
            over = rnd >= k
        else:
            top = _reduce(jnp.maximum, [scores[q] for q in range(n)])
            over = top >= cfg.end_score if cfg.end_inclusive else top > cfg.end_score
        over = round_end & over
        new_phase = jnp.where(over, jnp.int8(OVER), new_phase)
        new_cur = jnp.where(over, -1, new_cur)
        out = out.replace(scores=scores, round=rnd, phase=new_phase, current_player=new_cur.astype(jnp.int32),
                          terminated=over)
        if cfg.draft:
            out = self._draft_pick(out, s, is_draft, hit)
        need = round_end & ~over

        def deal_inputs(round_seed: Any) -> tuple[Any, Any]:
            return round_seed, (s.counter if self.chance == "reference" else jnp.int32(0))

        return out, need, deal_inputs

    def _draft_pick(self, out: State, s: State, is_draft: Any, hit: Any) -> State:
        """The draft: the acting seat takes the card; after 10n picks the 4 cards left start the rows in
        ascending order and card play begins with seat 0."""
        n = self.n
        cur = s.current_player
        loc = jnp.where(is_draft & hit, cur.astype(jnp.int8), out.loc)
        picks = jnp.where(is_draft, s.picks + 1, s.picks)
        fin = is_draft & (picks == HAND_SIZE * n)
        # the 4 cards left, ascending: sparse (a running count over 104 cards at every step would cost more)
        starters = self._draft_rows(fin, loc, jnp.zeros(NUM_ROWS, jnp.int8))
        rows = self._rows_of(starters)
        loc = jnp.where(fin & (loc == POOL), jnp.int8(SEEN), loc)
        out = out.replace(loc=loc, picks=picks,
                          current_player=jnp.where(is_draft, jnp.where(fin, 0, (cur + 1) % n), out.current_player),
                          phase=jnp.where(fin, jnp.int8(PLAY), out.phase))
        return out.replace(**{k: jnp.where(fin, v, getattr(out, k)) for k, v in rows.items()})

    def _place(self, s: State, tc: list[Any], to: list[Any], forced: Any) -> tuple[Any, ...]:
        """Place the sorted trick (cards ``tc``, owners ``to``) on the rows; card 0 takes row ``forced``
        when it is >= 0 (a row choice), or the cheapest row when too low with ``row_pick="min_bullheads"``.
        Returns rows, rlen, rbull, rlast (int8) and the bull heads each seat took (int32 [n]).

        Card 0 (the only one that can be too low) is placed first, the other n - 1 by a ``fori_loop``:
        one compiled body, and no fusion across cards (XLA would otherwise duplicate their expressions)."""
        n = self.n
        i32 = jnp.int32
        rr = jnp.arange(NUM_ROWS, dtype=i32)
        slots = jnp.arange(ROW_LIMIT, dtype=i32)
        seats = jnp.arange(n, dtype=i32)
        bull = jnp.asarray(BULLHEADS.astype(np.int32))
        tcs, tos = jnp.stack(tc), jnp.stack(to)

        def put(k: Any, carry: tuple[Any, ...], first: bool) -> tuple[Any, ...]:
            rows, rlen, rbull, rlast, pen = carry
            c, o = tcs[k], tos[k]
            below = rlast < c
            best = jnp.max(jnp.where(below, rlast, -1))
            oh = below & (rlast == best)  # the row whose last card is the highest below c
            take = jnp.bool_(False)
            if first:
                if self._player_rows:
                    take = forced >= 0
                    oh = jnp.where(take, rr == forced, oh)
                else:  # fewest bull heads, then fewer cards, then the lowest index
                    cost = rbull * 64 + rlen * 8 + rr
                    take = ~below.any()
                    oh = jnp.where(take, cost == cost.min(), oh)
            len_t = jnp.sum(jnp.where(oh, rlen, 0))
            bull_t = jnp.sum(jnp.where(oh, rbull, 0))
            take = take | (len_t == ROW_LIMIT)
            bc = bull[c]
            pen = pen + jnp.where((seats == o) & take, bull_t, 0)
            pos = jnp.where(take, 0, len_t)
            rows = jnp.where(oh[:, None] & (slots[None, :] == pos), c, rows)
            rlen = jnp.where(oh, jnp.where(take, 1, len_t + 1), rlen)
            rbull = jnp.where(oh, jnp.where(take, bc, bull_t + bc), rbull)
            rlast = jnp.where(oh, c, rlast)
            return rows, rlen, rbull, rlast, pen

        carry = (s.rows.astype(i32), s.rlen.astype(i32), s.rbull.astype(i32), s.rlast.astype(i32), jnp.zeros(n, i32))
        carry = put(0, carry, True)
        carry = lax.fori_loop(1, n, lambda k, c: put(k, c, False), carry)
        rows, rlen, rbull, rlast, pen = carry
        i8 = jnp.int8
        return rows.astype(i8), rlen.astype(i8), rbull.astype(i8), rlast.astype(i8), pen


JaxEnv = Take5JaxEnv


class JaxVecTake5(JaxVecBase):
    """``num_envs`` Take 5 games on the JAX engine with the ``BatchedGame`` shape of ``fiveplay_env.vector``
    (``make_vec``): numpy arrays on the host, same-step autoreset, slot i's k-th game seeded
    ``seeding.derive(seed, i + k*B)`` (``chance="reference"``, the default: the very games of the numpy
    batched engine ``make_vec("take5", B, seed)``); with ``chance="jax"`` the deals come from a key
    derived from the seed instead. One jitted call per step; the state stays on the device
    (``jax_state``), and ``to_torch`` hands a device array to torch without a copy (DLPack). The members
    every JAX engine shares: ``core.jax_vec.JaxVecBase``.

    ``info()``: ``seed``, ``scores``, ``round_penalty``, ``round`` of the current games and, for the games
    that ended at the last step (rows where ``terminated``), ``final_scores``; ``observe_compact()``
    beside ``observe()`` (not for draft)."""

    CONFIG = Take5Config

    def __init__(self, config: Take5Config, num_envs: int, seed: int | None = 0, *, chance: str = "reference",
                 observation: str = "float", compiler_options: dict[str, Any] | None = None) -> None:
        super().__init__(config, num_envs, seed, lambda: Take5JaxEnv(config, chance=chance, observation=observation),
                         compiler_options)
        self._observe_compact = None if config.draft else self._jit(jax.vmap(self.env.observe_compact))

    def _game_step_reference(self, st: State, a: Any, new_seed: Any) -> tuple[State, Any]:
        return self.env._step(st, a, st.seed, new_seed)

    def _game_step_jax(self, st: State, a: Any, key: Any) -> tuple[State, Any]:
        k1, k2 = jax.random.split(key)
        return self.env._step(st, a, self.env._round_seed(st, k1), self.env._key_seed(k2))

    def observe_compact(self, out: np.ndarray | None = None) -> np.ndarray:
        """uint8 [B, 136 + 6n]: the compact observations (``fiveplay_env.take5.compact``); not for draft."""
        if self._observe_compact is None:
            raise ValueError("observe_compact: expected draft=False: the compact observation does not cover the "
                             "draft's public hands (the 'others' piece); use observe()")
        if self.env.observation_kind == "compact":
            c = np.asarray(self.state.observation)
        else:
            c = np.asarray(self._observe_compact(self.state, self.state.current_player))
        if out is None:
            return c.copy()
        out[...] = c
        return out

    def _game_info(self) -> dict[str, np.ndarray]:
        return {"scores": self.scores, "round_penalty": self.round_penalty, "final_scores": self.final_scores}

    @property
    def final_scores(self) -> np.ndarray:
        """int32 [B, n]: the scores of the games that ended at the last step (rows where ``terminated``)."""
        return np.where(self.terminated[:, None], self._fin, 0).astype(np.int32)

    scores = state_field("scores", "int32 [B, n]: each game's scores (the reference's ``scores``).")
    round_penalty = state_field("round_pen", "int32 [B, n]: the bull heads taken this round (``round_pen``).")


def make_vec(num_envs: int, seed: int | None = 0, *, chance: str = "reference", observation: str = "float",
             compiler_options: dict[str, Any] | None = None, **fields: Any) -> JaxVecTake5:
    """``JaxVecTake5(Take5Config(**fields), num_envs, seed)``: the factory ``fiveplay_env.vector.make_vec("take5",
    ..., backend="jax")`` calls; unknown config keys raise ``ValueError`` naming the key. ``compiler_options``:
    passed to ``jax.jit`` (e.g. a lower XLA optimisation level for short runs, where compiling dominates)."""
    return JaxVecTake5.from_fields(num_envs, seed, chance=chance, observation=observation,
                                   compiler_options=compiler_options, **fields)


__all__ = ["State", "Take5JaxEnv", "JaxEnv", "JaxVecTake5", "make_vec", "random_actions", "PENDING", "POOL", "ASIDE",
           "OUT", "QUEUE", "SEEN"]
