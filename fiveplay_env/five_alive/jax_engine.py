"""The 5 Alive JAX engine: the game as pure, jit- and vmap-able functions with Pgx's interface.

It plays exactly the games of the reference engine (``fiveplay_env.five_alive.engine``): the same
decision order (Bomb answers included), the same shuffles (``chance="reference"``: the reference's
SplitMix64 permutations, computed by ``core.jax_seeding`` on uint32 pairs), the same rewards and
observations, checked step by step by ``tests/five_alive/test_jax_engine.py``. It shares the config,
the constants of ``state.py`` and the observation layout of ``observation.py`` with the reference; the
rules are written again, branch-free on fixed-shape arrays, so that the implementations check each
other. Every rule option of ``FiveAliveConfig`` is supported (every variant, custom decks,
``max_reshuffles`` and the ``max_steps`` truncation included). ``max_cycles`` is the AEC env's per-agent
truncation, not a rule of the engine: ``JaxEnv`` ignores it as the reference engine does, and
``make_vec`` refuses it as the numpy batched engine does.

    import jax
    from fiveplay_env.five_alive.jax_engine import JaxEnv

    env = JaxEnv(num_players=4)
    init, step = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step))
    state = init(jax.random.split(jax.random.key(0), 1024))        # 1,024 games
    state = step(state, actions, jax.random.split(key, 1024))       # one action per game

Interface (Pgx v2's ``Env``): ``init(key)``, ``step(state, action, key=None)``, ``observe(state, player)``,
``legal_action_mask(state)``, ``id``, ``version``, ``num_players``, ``num_actions`` (19: the codec of
``state.py``), ``observation_shape``, ``config``. Beyond Pgx: ``init_seeded(seed)`` (the reference's game
``new_game(config, seed)``, ``seed`` a uint32 pair of ``core.jax_seeding``), ``step_autoreset(state,
action, key)`` (same-step autoreset without Pgx's cost, see Speed) and ``make_vec`` (the
``BatchedGame`` shape of ``fiveplay_env.vector``).

Pgx's conventions, kept as they are: ``step`` on a terminated or truncated state returns it with zero
rewards; an illegal action (not in ``legal_action_mask``, or outside 0..18) ends the game at once with
``illegal_action_penalty`` (default -1.0) for the actor and 0 for the others (an action is an integer:
eagerly a bool, float or string raises ``ValueError``, under ``jit``/``vmap`` it is the penalty; an
integer out of range such as ``2**32 + a`` is the penalty, never wrapped or truncated:
``core.jax_vec.action_input``); a finished game's
``legal_action_mask`` is all True (the reference's is all False) and its ``current_player`` is -1, as
the reference's; its ``observation`` is seat 0's.

``State`` (one game; a batch has a leading axis; n players, K = 18 kinds, D = ``config.deck_size``):

| field               | dtype, shape   | meaning                                                          |
|---------------------|----------------|------------------------------------------------------------------|
| ``current_player``  | int32 []       | the acting seat (a Bomb responder during an answer), -1 once over |
| ``observation``     | float32 [80+3n] | its observation (``observation.observe``); empty with ``observation="none"`` |
| ``legal_action_mask`` | bool [19]    | its legal actions (= the reference's ``legal_mask``)             |
| ``rewards``         | float32 [n]    | every player's reward for the last step (``config.reward``)       |
| ``terminated``      | bool []        | the game is over                                                 |
| ``truncated``       | bool []        | ``max_steps``: the game's ``max_steps``-th decision did not end it, so it ended there with no winner (``terminated`` stays False, Pgx's convention) |
| ``_step_count``     | int32 []       | decisions taken (Bomb answers included): the reference's ``turns`` |
| ``hands``           | uint8 [n, K]   | cards of each kind in each hand (0 for an eliminated seat)       |
| ``draw``            | uint8 [D]      | the draw pile in drawing order: ``draw[dhead:dend]``, first drawn first |
| ``dhead``, ``dend`` | int32 []       | the draw pile's bounds in ``draw``                               |
| ``discard``         | uint8 [K]      | cards of each kind in the discard pile                           |
| ``top``             | int32 []       | kind of the discard pile's top card, -1 if none                  |
| ``total``           | int32 []       | the running total T                                              |
| ``direction``       | int32 []       | +1 clockwise (seat + 1), -1 counter-clockwise                    |
| ``phase``           | int32 []       | PLAY, BOMB_ANSWER or OVER (``state.py``)                          |
| ``lives``           | int32 [n]      | lives left (teams: the seat's team's)                            |
| ``alive``           | bool [n]       | still in the game                                                |
| ``result``          | int32 [n]      | +1 won, -1 lost, 0 undecided (the reference's ``result``)         |
| ``bomber``          | int32 []       | the player whose Bomb is being answered, -1 otherwise            |
| ``round``           | int32 []       | rounds completed                                                 |
| ``reshuffles``      | int32 []       | reshuffles of the discard pile in this round                     |
| ``seed``, ``counter`` | uint32 [2], int32 [] | ``chance="reference"``: the game's seed (a ``jax_seeding`` pair) and the random events used; the seed is zeros with ``chance="jax"`` |

Hidden fields (other hands, the draw pile's order, ``seed``) never enter an observation: ``observe``
reads only what ``observation.py`` lists (a test re-deals the hidden cards and finds it unchanged).
A Bomb's queue of responders is not stored: during answers the next responder is the next survivor
after the current one, until the bomber (nobody but the current responder can be eliminated meanwhile).

Chance: ``chance="jax"`` (default): every random event (a deal, a reshuffle, a Re-Deal, the first
player) is the reference's SplitMix64 shuffle of a fresh 64-bit seed drawn from the ``key`` of the step
(or of ``init``), so nothing of a future shuffle stays in the state. ``chance="reference"``: the state
carries the reference's seed and event counter and every event is the reference's ``seeding`` call
(module docstring of ``engine.py``: the deal, the first player, a reshuffle, a Re-Deal, in that order),
so ``init_seeded(s)`` plays exactly ``new_game(config, s)``; ``init(key)`` draws the 64-bit seed from
the key.

Observation (``observation=`` constructor argument, not a game config field): ``"float"`` (default) fills
``State.observation`` with the acting seat's float observation (Pgx's convention), ``"none"`` leaves it
empty (``observe`` still gives any player's on demand). 5 Alive has no compact observation (Take 5's
``observe_compact`` has no counterpart here: the float observation is 80 + 3n small counts already).

Options as data (test support): ``_OptionsEnv(num_players, width)`` runs the same rule code with the
config's options and deck as traced values (``_option_vector``) instead of constants, so one compile
per player count serves every config of that count; the tests replay many configs on it. The engine
itself reads its options as constants (code for an option that is off is not traced at all).

Fixed shapes: the draw pile is one array of D slots with two bounds; a step draws at most 2 (n - 1)
cards, so a Draw is one vectorised pass over that many draw slots (the j-th drawn card comes from the
old pile while j < its size, then from the reshuffled pile); a step makes at most one reshuffle (after
one, the discard pile holds only its top card) or one Re-Deal, and at most one deal (a new round), so
a step has two shuffle slots, each a permutation of at most D keys with a size (``jax_seeding``'s
``sizes`` variant). Bomb answers, round-end losses and the teams' per-player losses are loops of at
most n - 1 or n fixed iterations with masks.

Speed: under ``vmap`` each shuffle (up to D keys and a sort) runs only for the games that need it at
that step: ``_sparse`` gives it a batching rule (``jax.custom_batching.custom_vmap``) that gathers those
games, shuffles them in fixed-size chunks and scatters the results back, instead of computing it for
every game and selecting (what ``vmap`` of a ``lax.cond`` does). Pgx's ``pgx.experimental.auto_reset``
calls ``init`` in a ``lax.cond`` and so deals every game at every step under ``vmap``;
``step_autoreset`` is the same contract with the new games' deals sparse too. The step itself is split
the same way: the common step (a number or a simple wild card that is not the player's last card, about
86% of the decisions of random play) is computed for every game, the rest (BUST, Draw, Re-Deal, Bomb,
Bomb answers, a last card, an illegal action, a truncation) runs sparse, in chunks of a fifth of the
batch. Measured once in one run (``python -m fiveplay_env.experiments.bench --games five_alive --jax-only
--jax-batch 4096``: 4 players, random legal play, same-step autoreset, a 2-core machine under heavy
load from other work): ``lax.scan`` over 64 steps 0.25 M decisions/s, 0.93x the numpy batched engine
with observations and 1.20x Pgx's Leduc hold'em in the same run; compiling takes about a minute on
such a machine (one compile per config: the options are constants); 664 bytes of state per game.
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
    from jax.custom_batching import custom_vmap
except ImportError as exc:  # pragma: no cover - exercised only without jax
    from fiveplay_env.core.extras import install_hint

    raise ImportError(f"the JAX engines need jax, of the 'jax' extra: {install_hint('jax')}") from exc

from fiveplay_env.core import jax_seeding as js
from fiveplay_env.core.config import check_int
from fiveplay_env.core.jax_vec import CHANCES, JaxEnvBase, JaxVecBase, PgxState, action_input, random_actions, register_state, state_field  # noqa: F401 (re-exported)
from fiveplay_env.five_alive.config import HAND_SIZE, LIVES, NUM_KINDS, FiveAliveConfig
from fiveplay_env.five_alive.observation import (
    DIRECTION, DISCARD, DRAW_PILE, HAND, PHASE, SEATS, TOP, TOTAL, observation_size,
)
from fiveplay_env.five_alive.state import (
    BOMB, BOMB_ANSWER, DRAW1, DRAW2, EQ0, EQ10, EQ21, MAX_TOTAL, N0, NUM_ACTIONS, NUM_NUMBERS, OVER,
    PLAY, PLAYABLE_BITS, REDEAL, REVERSE, SKIP,
)

VERSION = "v0"
OBSERVATIONS = ("float", "none")
K = NUM_KINDS
NT = MAX_TOTAL + 1  # 22 values of T

_PLAYABLE = np.array([[(PLAYABLE_BITS[t] >> k) & 1 for k in range(K)] for t in range(NT)], bool)
"""``_PLAYABLE[t, k]``: a card of kind k may be played at T = t (docs/rules.md 2.3.1, via ``state.PLAYABLE_BITS``)."""
_PLAYABLE_UP_TO = _PLAYABLE.sum(0).astype(np.int32) - 1
"""``_PLAYABLE_UP_TO[k]``: kind k is playable exactly at T <= this value (the table is monotone in T)."""
_NUMBER_VALUE = np.array([k if k < NUM_NUMBERS else 0 for k in range(K)], np.int32)
_IS_WILD = np.array([k >= NUM_NUMBERS for k in range(K)], bool)
if not (all(_PLAYABLE[: _PLAYABLE_UP_TO[k] + 1, k].all() for k in range(K))
        and (HAND, DISCARD, TOP, TOTAL, DIRECTION, DRAW_PILE, PHASE, SEATS)
        == (0, K, 2 * K, 3 * K, 3 * K + NT, 3 * K + NT + 1, 3 * K + NT + 2, 3 * K + NT + 4)):  # pragma: no cover
    raise RuntimeError("five_alive.jax_engine: expected the playable table monotone in T and the observation "
                       "pieces of observation.py in their documented order (the engine writes them so)")


# ----------------------------------------------------------------------------------------------- state
@dataclasses.dataclass(frozen=True)
class State(PgxState):
    """One 5 Alive game (see the module docstring's table); a pytree of fixed-shape arrays."""

    ENV_ID = "five_alive"  # a class attribute (``env_id``), not a field

    hands: Any
    draw: Any
    dhead: Any
    dend: Any
    discard: Any
    top: Any
    total: Any
    direction: Any
    phase: Any
    lives: Any
    alive: Any
    result: Any
    bomber: Any
    round: Any
    reshuffles: Any
    seed: Any
    counter: Any


_FIELDS = register_state(State)


def _select(pred: Any, a: Any, b: Any) -> Any:
    """Pytree ``where(pred, a, b)`` for a scalar ``pred``."""
    return jax.tree_util.tree_map(lambda x, y: jnp.where(pred, x, y), a, b)


def _f(b: Any) -> Any:
    """float32 1.0 / 0.0 of a bool array (a select: XLA's CPU convert of a predicate is slower)."""
    return jnp.where(b, jnp.float32(1), jnp.float32(0))


def _row(x: Any, onehot: Any) -> Any:
    """int32: ``x[s]`` for the seat ``s`` of the one-hot ``onehot`` [n] (a select and a sum, not a gather)."""
    return jnp.where(onehot.reshape(onehot.shape + (1,) * (x.ndim - 1)), x.astype(jnp.int32), 0).sum(0)


def _i(b: Any) -> Any:
    """int32 1 / 0 of a bool array."""
    return jnp.where(b, jnp.int32(1), jnp.int32(0))


# ------------------------------------------------------------------------------------ sparse work
def _sparse(fn: Callable[..., Any], fraction: float) -> Callable[..., Any]:
    """``g(need, *args, fallback) = fn(*args) if need else fallback`` (``fallback``: a pytree shaped like
    ``fn``'s output). Alone: a ``lax.cond``. Under ``vmap``: only the games whose ``need`` is True run
    ``fn``: they are gathered ``ceil(fraction * B)`` at a time (a ``while_loop`` takes more chunks when
    more games need it, none when no game does) and their results scattered over the fallbacks.

    ``fn`` is traced to a jaxpr first and its constants (numpy tables, ``jax_seeding``'s key steps) are
    passed to the ``custom_vmap`` function as arguments: ``custom_vmap`` refuses batched constants, and
    ``vmap`` of a ``lax.cond`` around this call (Pgx's ``auto_reset`` around ``init``, a user's
    ``cond(done, ...)`` around ``step``) batches every constant of its branches. (``jax_seeding.sparse``
    is the same scheme for functions that close over no array; the rule code here reads numpy tables
    and nests sparse calls, the step's shuffles inside its rare part, hence this variant.)"""

    def call(need: Any, *args: Any) -> Any:
        in_leaves, in_tree = jax.tree_util.tree_flatten(args[:-1])
        out_leaves, out_tree = jax.tree_util.tree_flatten(args[-1])

        def flat(*xs: Any) -> list[Any]:
            return jax.tree_util.tree_leaves(fn(*jax.tree_util.tree_unflatten(in_tree, list(xs))))

        closed = jax.make_jaxpr(flat)(*in_leaves)
        consts = list(closed.consts)
        n_in = len(consts) + len(in_leaves)

        def run(*xs: Any) -> list[Any]:
            return _eval_jaxpr(closed.jaxpr, list(xs[:len(consts)]), *xs[len(consts):])

        @custom_vmap
        def g(need: Any, *leaves: Any) -> Any:
            return lax.cond(need, lambda: run(*leaves[:n_in]), lambda: list(leaves[n_in:]))

        @g.def_vmap
        def rule(axis_size: int, in_batched: Any, need: Any, *leaves: Any) -> Any:
            nb, lb = in_batched[0], list(in_batched[1:])
            need = need if nb else jnp.broadcast_to(need, (axis_size,))
            inputs, in_b = leaves[:n_in], lb[:n_in]
            out = [x if b else jnp.broadcast_to(x, (axis_size,) + jnp.shape(x))
                   for x, b in zip(leaves[n_in:], lb[n_in:])]
            k = max(1, min(axis_size, int(np.ceil(fraction * axis_size))))
            axes = [0 if b else None for b in in_b]  # unbatched inputs (tables, options) stay as they are

            def body(carry: Any) -> Any:
                out, todo = carry
                idx = jnp.nonzero(todo, size=k, fill_value=axis_size)[0]
                valid = idx < axis_size
                # a clipped take is several times faster than a filling gather on CPU; the rows past the
                # needed ones are zeroed so that they ask for no nested work (their results are dropped)
                sub = [_zero_rows(jnp.take(x, idx, axis=0, mode="clip"), valid) if b else x
                       for x, b in zip(inputs, in_b)]
                res = jax.vmap(run, in_axes=axes)(*sub)
                out = [o.at[idx].set(r.astype(o.dtype), mode="drop") for o, r in zip(out, res)]
                return out, todo.at[idx].set(False, mode="drop")

            out, _ = lax.while_loop(lambda c: c[1].any(), body, (out, need))
            return out, [True] * len(out)

        res = g(need, *consts, *in_leaves, *out_leaves)
        return jax.tree_util.tree_unflatten(out_tree, list(res))

    return call


def _zero_rows(x: Any, valid: Any) -> Any:
    """``x`` [k, ...] with the rows where ``valid`` is False set to zero."""
    return jnp.where(valid.reshape((-1,) + (1,) * (x.ndim - 1)), x, jnp.zeros((), x.dtype))


try:  # jax >= 0.4.30 keeps eval_jaxpr in jax.core; newer releases also in jax.extend.core
    from jax.core import eval_jaxpr as _eval_jaxpr
except ImportError:  # pragma: no cover - depends on the jax release
    from jax.extend.core import jaxpr_as_fun as _jaxpr_as_fun

    def _eval_jaxpr(jaxpr: Any, consts: list[Any], *args: Any) -> list[Any]:
        from jax.extend.core import ClosedJaxpr
        return _jaxpr_as_fun(ClosedJaxpr(jaxpr, consts))(*args)


# ------------------------------------------------------------------------------------------ options
def _maybe(flag: Any) -> bool:
    """Whether code for ``flag`` must be traced: a static False needs none, True or a traced flag does."""
    return not (isinstance(flag, (bool, np.bool_)) and not flag)


def _neg(flag: Any) -> Any:
    """``not flag`` for a static flag, ``~flag`` for a traced one."""
    return (not flag) if isinstance(flag, (bool, np.bool_)) else ~flag


def _w(flag: Any, a: Any, b: Any) -> Any:
    """``a if flag else b``: a Python choice for a static flag, a select for a traced one."""
    if isinstance(flag, (bool, np.bool_)):
        return a if flag else b
    return jnp.where(flag, a, b)


_OPTION_NAMES = ("teams", "sudden", "first_random", "voluntary", "optional", "resolves", "each", "reshuffle",
                 "max_resh", "dealer_starts", "clockwise", "wild", "shared", "reward_lives", "reward_results",
                 "max_steps")


@dataclasses.dataclass(frozen=True)
class _Options:
    """The rules of a ``FiveAliveConfig`` as the step reads them: Python values (the engine's own, static
    case: code for an option that is off is not even traced) or traced scalars (``_options_of`` on the
    vector of ``_option_vector``: one compiled step serves every option of a player count, which is how
    the tests keep their compile cost small). ``deck``: None (the config's deck, static) or int32 [K]."""

    teams: Any
    sudden: Any
    first_random: Any
    voluntary: Any
    optional: Any
    resolves: Any
    each: Any
    reshuffle: Any
    max_resh: Any
    dealer_starts: Any
    clockwise: Any
    wild: Any
    shared: Any
    reward_lives: Any
    reward_results: Any
    max_steps: Any  # None (static: no truncation) or an int (traced: <= 0 for none)
    deck: Any = None


def _static_options(cfg: FiveAliveConfig) -> _Options:
    return _Options(
        teams=cfg.variant == "teams", sudden=cfg.variant == "sudden_death",
        first_random=cfg.first_player == "random", voluntary=cfg.allow_voluntary_bust,
        optional=cfg.bomb_zero_optional, resolves=cfg.bomb_last_card_resolves, each=cfg.draw_order == "each",
        reshuffle=cfg.empty_draw_pile == "reshuffle", max_resh=cfg.max_reshuffles,
        dealer_starts=cfg.new_round_start == "dealer", clockwise=cfg.new_round_direction == "clockwise",
        wild=cfg.tiebreak_wild_value, shared=cfg.final_tiebreak == "shared", reward_lives=cfg.reward != "win_loss",
        reward_results=cfg.reward != "lives", max_steps=cfg.max_steps)


def _option_vector(cfg: FiveAliveConfig) -> np.ndarray:
    """int32 [16 + K]: ``cfg``'s options (``_OPTION_NAMES`` order, then ``deck_counts``) as data."""
    o = _static_options(cfg)
    vals = [int(getattr(o, name)) if name != "max_steps" else (o.max_steps or 0) for name in _OPTION_NAMES]
    return np.array(vals + list(cfg.deck_counts), np.int32)


def _options_of(vec: Any) -> _Options:
    """The traced ``_Options`` of an option vector (``_option_vector``)."""
    vals = {name: vec[i] for i, name in enumerate(_OPTION_NAMES)}
    for name in _OPTION_NAMES:
        if name not in ("max_resh", "wild", "max_steps"):
            vals[name] = vals[name] != 0
    return _Options(**vals, deck=vec[len(_OPTION_NAMES):])


# ------------------------------------------------------------------------------------------- the env
class FiveAliveJaxEnv(JaxEnvBase):
    """5 Alive under one ``FiveAliveConfig`` as Pgx v2's ``Env`` (see the module docstring).

    ``FiveAliveJaxEnv(config=None, *, chance="jax", observation="float", illegal_action_penalty=-1.0,
    **fields)``, as ``core.jax_vec.JaxEnvBase`` (``config`` a ``FiveAliveConfig`` or None, then
    ``FiveAliveConfig(**fields)``); its rule options are constants of the traced code. Every method is pure.
    """

    CONFIG, ID, VERSION, NUM_ACTIONS, OBSERVATIONS = FiveAliveConfig, "five_alive", VERSION, NUM_ACTIONS, OBSERVATIONS

    def _setup(self) -> None:
        """The options as constants, the deck's widths, and the sparse rare steps and shuffles."""
        config = self.config
        self._o = _static_options(config)
        self._width = config.deck_size  # slots of the draw pile and of every shuffle
        self._obs_size = observation_size(self.n)
        self._canon = np.array([k for k in range(K) for _ in range(config.deck_counts[k])], np.int32)
        self._max_draws = 2 * (self.n - 1)  # a Draw 2 for every other survivor
        # Under vmap the rare steps (a Draw, Re-Deal, Bomb, Bomb answer, BUST or last card: 13% to 17% of
        # the steps of random play, 2 to 6 players) run on the games that take one, in chunks of a fifth of
        # the batch; their shuffles again only where needed (a deal: 2% to 5% of all steps, a Re-Deal or a
        # reshuffle 1.4% to 2.6%, so a chunk of rare steps holds at most about a quarter of deals).
        self._rare = _sparse(self._rare_fn, 0.2)
        self._deal = _sparse(self._deal_fn, 0.3)
        self._pile = _sparse(self._pile_fn, 0.2)

    # --- Pgx's Env attributes (the rest: JaxEnvBase) --------------------------------------------
    def _key(self) -> tuple[Any, ...]:
        return super()._key() + (self._width,)

    @property
    def observation_shape(self) -> tuple[int, ...]:
        """The shape of ``State.observation``: (80 + 3n,), or (0,) with ``observation="none"``."""
        return (self._obs_size,) if self.observation_kind == "float" else (0,)

    # --- seats ------------------------------------------------------------------------------------
    def _seats(self) -> Any:
        return jnp.arange(self.n, dtype=jnp.int32)

    def _relpos(self, start: Any, d: Any) -> Any:
        """int32 [n]: each seat's place in turn order from ``start`` in direction ``d`` (``start``: 0)."""
        return jnp.remainder((self._seats() - start) * d, self.n)

    def _next(self, alive: Any, d: Any, s: Any) -> Any:
        """``engine._next``: the next survivor after seat ``s`` in direction ``d`` (``s`` itself if it is the
        only survivor; ``s`` need not survive)."""
        n = self.n
        rel = self._relpos(s, d)
        rel = jnp.where(rel == 0, n, rel)
        return jnp.argmin(jnp.where(alive, rel, 2 * n)).astype(jnp.int32)

    # --- chance -----------------------------------------------------------------------------------
    def _deck_size(self) -> Any:
        o = self._o
        return jnp.int32(self._width) if o.deck is None else o.deck.sum()

    def _deal_fn(self, seed: Any, counter: Any, alive: Any, deck: Any) -> tuple[Any, Any]:
        """``engine._deal`` of event ``counter`` of game ``seed``: (hands uint8 [n, K], draw uint8 [W]); the
        j-th survivor in seat order gets cards 10j..10j+9 of the shuffled deck, the rest is the draw pile.
        ``deck``: int32 [K] counts, read only with traced options (else the config's deck)."""
        n, W = self.n, self._width
        if self._o.deck is None:
            perm = js.permutation(seed, counter, W)
            sh = jnp.asarray(self._canon)[perm]
        else:
            perm = js.batch_permutation(seed, counter, W, deck.sum())
            sh = jnp.take(_canonical(deck, W), perm, mode="clip")
        blocks = sh[:HAND_SIZE * n].reshape(n, HAND_SIZE)
        counts = (blocks[:, :, None] == jnp.arange(K, dtype=jnp.int32)).sum(1, dtype=jnp.int32)  # [n, K]
        rank = jnp.cumsum(_i(alive)) - 1
        hands = jnp.where(alive[:, None], counts[jnp.clip(rank, 0, n - 1)], 0)
        return hands.astype(jnp.uint8), sh.astype(jnp.uint8)

    def _pile_fn(self, seed: Any, counter: Any, counts: Any, size: Any, pos: Any, m: Any) -> tuple[Any, Any]:
        """A reshuffle or a Re-Deal: the multiset ``counts`` [K] (``size`` cards) in canonical order (kinds
        ascending), permuted by event ``counter``: (shuffled uint8 [W], the Re-Deal's hands uint8 [n, K]:
        card i to the seat whose place ``pos`` in the deal order is i % m)."""
        W = self._width
        sh = jnp.take(_canonical(counts, W), js.batch_permutation(seed, counter, W, size), mode="clip")
        i = jnp.arange(W, dtype=jnp.int32)
        place = jnp.remainder(i, jnp.maximum(m, 1))
        to = (place[:, None] == pos[None, :]) & (i < size)[:, None]  # [W, n]
        kind = sh[:, None] == jnp.arange(K, dtype=jnp.int32)[None, :]  # [W, K]
        hands = jnp.einsum("wn,wk->nk", _f(to), _f(kind))  # exact: small integers in float32
        return sh.astype(jnp.uint8), hands.astype(jnp.uint8)

    # --- init -------------------------------------------------------------------------------------
    def _fresh(self, seed: Any, first: Any = None) -> State:
        """A new game of ``seed`` (a pair): ``engine.new_game`` (the deal is event 0, the random first
        player event 1; ``first``: the first player drawn from a key instead, ``chance="jax"``)."""
        n, W = self.n, self._width
        fallback = (jnp.zeros((n, K), jnp.uint8), jnp.zeros(W, jnp.uint8))
        dealt = self._deal(jnp.bool_(True), seed, jnp.int32(0), jnp.ones(n, bool), self._deck_arg(), fallback)
        return self._finish(self._blank(seed, first, dealt))

    def _deck_arg(self) -> Any:
        o = self._o
        return jnp.zeros(K, jnp.int32) if o.deck is None else o.deck

    def _blank(self, seed: Any, first: Any, dealt: tuple[Any, Any]) -> State:
        """A new game of ``seed`` with the deal ``dealt`` (hands, draw pile), before ``_finish``."""
        n, o = self.n, self._o
        hands, draw = dealt
        if _maybe(o.first_random):
            if first is None:
                first = js.below(seed, jnp.int32(1), n)
            current = _w(o.first_random, jnp.asarray(first, jnp.int32), jnp.int32(0))
        else:
            current = jnp.int32(0)
        counter = jnp.int32(1) + _i(jnp.asarray(o.first_random))
        return State(
            current_player=current, observation=jnp.zeros(self.observation_shape, jnp.float32),
            legal_action_mask=jnp.zeros(NUM_ACTIONS, bool), rewards=jnp.zeros(n, jnp.float32),
            terminated=jnp.bool_(False), truncated=jnp.bool_(False), _step_count=jnp.int32(0),
            hands=hands, draw=draw, dhead=jnp.int32(HAND_SIZE * n), dend=self._deck_size(),
            discard=jnp.zeros(K, jnp.uint8), top=jnp.int32(-1), total=jnp.int32(0), direction=jnp.int32(1),
            phase=jnp.int32(PLAY), lives=jnp.full(n, LIVES, jnp.int32), alive=jnp.ones(n, bool),
            result=jnp.zeros(n, jnp.int32), bomber=jnp.int32(-1), round=jnp.int32(0),
            reshuffles=jnp.int32(0),
            seed=jnp.asarray(seed, jnp.uint32) if self.chance == "reference" else jnp.zeros(2, jnp.uint32),
            counter=counter)

    def init(self, key: Any) -> State:
        """A new game from ``key`` (Pgx's ``init``). With ``chance="reference"`` the game is the reference's
        ``new_game(config, seed)`` for the 64-bit seed drawn from the key (kept in ``seed``)."""
        if self.chance == "reference":
            return self._fresh(self._key_seed(key))
        k1, k2 = jax.random.split(key)
        return self._fresh(self._key_seed(k1), jax.random.randint(k2, (), 0, self.n, jnp.int32))

    # --- masks and observations -------------------------------------------------------------------
    def _mask(self, s: State) -> Any:
        held = _row(s.hands, self._seats() == s.current_player) > 0  # [K]
        cards = held & (s.total <= jnp.asarray(_PLAYABLE_UP_TO))
        bust = ~cards.any() | self._o.voluntary
        play = jnp.concatenate([cards, bust[None]])
        answer = jnp.concatenate([held[:1], jnp.zeros(K - 1, bool), jnp.ones(1, bool)])
        m = jnp.where(s.phase == BOMB_ANSWER, answer, play)
        return m | (s.phase == OVER)

    def observe(self, state: State, player: Any) -> Any:
        """float32 [80 + 3n]: ``player``'s observation, ``observation.observe``'s layout and values."""
        s, n = state, self.n
        p = jnp.remainder(jnp.asarray(player, jnp.int32), n)
        seats = self._seats()
        # one-hot selections instead of gathers (a per-game gather is slow on CPU under vmap)
        rel = jnp.remainder(p + seats, n)  # relative seat i is seat rel[i]
        at = rel[:, None] == seats[None, :]  # [i, seat]
        live = s.phase != OVER
        f32 = jnp.float32
        hand = _row(s.hands, seats == p).astype(f32)
        disc = s.discard.astype(f32)
        top = _f(jnp.arange(K) == s.top)
        total = _f(jnp.arange(NT) == s.total)
        direction = _f(s.direction == 1)[None]
        pile = (s.dend - s.dhead).astype(f32)[None]
        phase = _f((jnp.arange(2) == s.phase) & live)
        turn = _f((rel == s.current_player) & live)
        lives = jnp.where(at, s.lives[None, :], 0).sum(1).astype(f32)
        sizes = jnp.where(at, s.hands.sum(1, dtype=jnp.int32)[None, :], 0).sum(1).astype(f32)
        return jnp.concatenate([hand, disc, top, total, direction, pile, phase, turn, lives, sizes])

    def _finish(self, s: State) -> State:
        """Mask and ``State.observation`` of the acting seat (seat 0 once the game is over)."""
        s = s.replace(legal_action_mask=self._mask(s))
        if self.observation_kind == "float":
            return s.replace(observation=self.observe(s, jnp.maximum(s.current_player, 0)))
        return s

    # --- step -------------------------------------------------------------------------------------
    def step(self, state: State, action: Any, key: Any = None) -> State:
        """Pgx's ``step``: the acting seat's ``action``. ``key`` (``chance="jax"``) draws the step's
        shuffles; it is ignored with ``chance="reference"`` (may be None there)."""
        return self._step(state, action, self._step_seeds(key), None)[0]

    def step_autoreset(self, state: State, action: Any, key: Any) -> State:
        """``step``, and a game that ends is replaced at once by a new one drawn from ``key`` (same-step
        autoreset, as ``pgx.experimental.auto_reset(env.step, env.init)``): ``terminated`` and ``rewards``
        are the finished game's, the rest the new game's. Under ``vmap`` only the games that end deal."""
        k1, k2, k3 = jax.random.split(key, 3)
        first = None if self.chance == "reference" else jax.random.randint(k3, (), 0, self.n, jnp.int32)
        return self._step(state, action, self._step_seeds(k1), (self._key_seed(k2), first))[0]

    def _step_seeds(self, key: Any) -> Any:
        """The seeds of the step's two shuffle slots: None (``chance="reference"``: the state's seed and
        counter) or uint32 [2, 2], two pairs drawn from ``key``."""
        if self.chance == "reference":
            return None
        if key is None:
            raise ValueError("step: expected a key with chance='jax' (the step's shuffles are drawn from it), "
                             "got None")
        return jax.random.bits(key, (2, 2), jnp.uint32)

    def _step(self, state: State, action: Any, seeds: Any, new_game: Any) -> tuple[State, tuple[Any, Any]]:
        """One step; ``new_game`` (None, or (seed pair, first player or None)): start a new game of that
        seed when this one ends (same-step autoreset). Also returns the lives and results of the game as
        the step left it (before an autoreset replaced it).

        Most steps are a number or a simple wild card that is not the player's last card: ``_common``
        computes them for every game; the others (``_rare_fn``) run sparse under vmap."""
        s = state
        if new_game is not None:  # autoreset: the flags are the last step's (Pgx's auto_reset clears them)
            s = s.replace(terminated=jnp.bool_(False), truncated=jnp.bool_(False))
        a, in_range = action_input(action, NUM_ACTIONS)  # an integer in range, else the penalty: no wrap, no truncation
        legal = in_range & (s.legal_action_mask & (jnp.arange(NUM_ACTIONS) == a)).any()
        done_before = s.terminated | s.truncated
        p1 = self._seats() == s.current_player
        left = (s.hands.sum(1, dtype=jnp.int32) * _i(p1)).sum()
        # the rare steps, and the illegal actions and finished games (Pgx's rules: see _rare_fn)
        rare = (s.phase != PLAY) | (a >= DRAW1) | (left <= 1) | ~legal | done_before
        rare = rare | self._limit_reached(s._step_count + 1)  # a truncation (rare: it ends the game)
        common = self._common(s, a)
        fallback = (_core(common), (common.lives, common.result))
        extra = () if new_game is None else new_game
        args = (_core(s), a, legal, jnp.zeros((2, 2), jnp.uint32) if seeds is None else seeds, *extra)
        core, final = self._rare(rare, *args, fallback)
        return self._finish(common.replace(**core)), final

    def _common(self, s: State, a: Any) -> State:
        """The step of a number or a simple wild card (Reverse, =21, Skip, Pass Me By, =0, =10) that is not
        the player's last card, in the PLAY phase: the card to the discard pile, T, the direction, the
        next player. (Computed for every game; the other games take ``_rare_fn``'s result.)"""
        n = self.n
        seats = self._seats()
        kinds = jnp.arange(K, dtype=jnp.int32)
        p = jnp.clip(s.current_player, 0, n - 1)
        p1 = seats == p
        ka = kinds == a
        hands = s.hands - (p1[:, None] & ka[None, :]).astype(jnp.uint8)
        disc = s.discard + ka.astype(jnp.uint8)
        t = s.total
        t = jnp.where(a < NUM_NUMBERS, t + a, t)
        t = jnp.where(a == EQ21, MAX_TOTAL, jnp.where(a == EQ10, 10, jnp.where(a == EQ0, 0, t)))
        d = jnp.where(a == REVERSE, -s.direction, s.direction)
        n1 = self._next(s.alive, d, p)
        cur = jnp.where(a == SKIP, self._next(s.alive, d, n1), n1)
        return s.replace(current_player=cur, rewards=jnp.zeros(n, jnp.float32), terminated=jnp.bool_(False),
                         truncated=jnp.bool_(False), _step_count=s._step_count + 1, hands=hands, discard=disc,
                         top=a, total=t, direction=d)

    def _limit_reached(self, steps: Any) -> Any:
        """``max_steps``: a game whose ``steps``-th decision did not end it is truncated (bool [])."""
        limit = self._o.max_steps
        if limit is None:
            return jnp.bool_(False)
        return (limit > 0) & (steps >= limit)

    def _rare_fn(self, core: dict[str, Any], a: Any, legal: Any, seeds: Any,
                 *new_game: Any) -> tuple[dict[str, Any], Any]:
        """Any step (the rules written out in full), for the rare ones: ``_play``, then the step's deal (a
        new round, or with ``new_game`` the autoreset's new game). Returns the state's core fields and the
        (lives, results) of the game as the step left it. Pgx's rules: a finished game (terminated or
        truncated) does not move and gets zero rewards; an illegal action ends the game at once with the
        penalty for the actor."""
        s = _uncore(core, self)
        n = self.n
        done_before = s.terminated | s.truncated
        go = legal & ~done_before
        seeds = None if self.chance == "reference" else seeds
        nxt, deal_need, deal_in = self._play(s, a, seeds)
        deal_need = deal_need & go
        reset = None
        if new_game:
            new_seed, first = new_game[0], (new_game[1] if len(new_game) > 1 else None)
            reset = go & (nxt.phase == OVER)
            deal_in = (jnp.where(reset, new_seed, deal_in[0]), jnp.where(reset, 0, deal_in[1]),
                       jnp.where(reset, True, deal_in[2]))
            deal_need = deal_need | reset
        final = (nxt.lives, nxt.result)
        dealt = self._deal(deal_need, *deal_in, self._deck_arg(), (nxt.hands, nxt.draw))
        nxt = self._new_round(nxt, deal_need, dealt)
        if reset is not None:
            fresh = self._blank(new_seed, first, dealt).replace(terminated=nxt.terminated, truncated=nxt.truncated,
                                                                rewards=nxt.rewards)
            nxt = _select(reset, fresh, nxt)
        pen = jnp.where(self._seats() == s.current_player, jnp.float32(self.illegal_action_penalty), jnp.float32(0))
        bad = s.replace(rewards=pen, terminated=jnp.bool_(True), phase=jnp.int32(OVER), current_player=jnp.int32(-1),
                        _step_count=s._step_count + 1)
        still = s.replace(rewards=jnp.zeros(n, jnp.float32))
        nxt = _select(done_before, still, _select(legal, nxt, bad))
        return _core(nxt), final

    def _new_round(self, s: State, need: Any, dealt: tuple[Any, Any]) -> State:
        """``engine._new_round`` for the games whose round ended (``need``; the dealer's successor is
        already ``current_player``): the deal ``dealt`` and the round's fields reset."""
        hands, draw = dealt
        m = s.alive.sum(dtype=jnp.int32)
        new = s.replace(hands=hands, draw=draw, dhead=HAND_SIZE * m, dend=self._deck_size(),
                        discard=jnp.zeros(K, jnp.uint8), top=jnp.int32(-1), total=jnp.int32(0),
                        bomber=jnp.int32(-1), phase=jnp.where(s.truncated, OVER, PLAY).astype(jnp.int32),
                        reshuffles=jnp.int32(0), counter=s.counter + 1)
        return _select(need, new, s)

    def _play(self, s: State, a: Any, seeds: Any) -> tuple[State, Any, tuple[Any, Any, Any]]:
        """The rules of one step (``a`` legal). Returns the state after it, whether a new round must be dealt
        (its current player already set to the new round's first player), and the deal's (seed, counter,
        survivors). The deal itself is left to the caller: one sparse deal per step."""
        n, W, o = self.n, self._width, self._o
        seats = self._seats()
        kinds = jnp.arange(K, dtype=jnp.int32)
        p = jnp.clip(s.current_player, 0, n - 1)
        d = s.direction
        g = _Game(self, s, p)
        is_ans = s.phase == BOMB_ANSWER
        moves = a < K
        p1 = seats == p
        ka = kinds == a
        # the card (a Bomb answer's 0 included) leaves p's hand for the top of the discard pile
        g.hands = g.hands - _i(p1[:, None] & ka[None, :])
        g.disc = g.disc + _i(ka)
        g.top = jnp.where(moves, a, g.top)
        hs_p = (g.hands.sum(1) * _i(p1)).sum()
        play = ~is_ans & moves
        bust = ~is_ans & ~moves
        ans0 = is_ans & moves
        anslife = is_ans & ~moves
        last = play & (hs_p == 0)
        # simple effects on T and the direction
        t = g.T
        t = jnp.where(play & (a < NUM_NUMBERS), t + a, t)
        t = jnp.where(play & (a == EQ21), MAX_TOTAL, t)
        t = jnp.where(play & (a == EQ10), 10, t)
        t = jnp.where((play & ((a == EQ0) | (a == REDEAL))) | bust, 0, t)
        is_bomb = play & (a == BOMB)
        bomb_start = is_bomb & ((hs_p > 0) | o.resolves)
        t = jnp.where(is_bomb & ~bomb_start, 0, t)
        g.T = t
        d = jnp.where(play & (a == REVERSE), -d, d)
        g.d = d
        # --- the step's pile shuffle: a reshuffle (Draw) or a Re-Deal, never both -------------------
        is_draw = play & ((a == DRAW1) | (a == DRAW2))
        count = jnp.where(a == DRAW2, 2, 1)
        rel = self._relpos(p, d)
        others = g.alive & ~p1
        m1 = others.sum(dtype=jnp.int32)
        rank = (others[None, :] & (rel[None, :] < rel[:, None])).sum(1, dtype=jnp.int32)  # among the others
        want = jnp.where(is_draw, count * m1, 0)
        pile = s.dend - s.dhead
        top_ok = g.top >= 0
        top1 = _i((kinds == g.top) & top_ok)
        resh_size = g.disc.sum() - _i(top_ok)
        can = o.reshuffle & (s.reshuffles < o.max_resh) & (resh_size > 0)
        need_resh = is_draw & (want > pile) & can
        do_redeal = play & (a == REDEAL) & (hs_p > 0)
        relc = jnp.remainder(seats - p - 1, n)  # clockwise from p's left, p last
        pos = (g.alive[None, :] & (relc[None, :] < relc[:, None])).sum(1, dtype=jnp.int32)
        pos = jnp.where(g.alive, pos, -1)  # survivors only
        m = g.alive.sum(dtype=jnp.int32)
        gathered = (g.hands * _i(g.alive)[:, None]).sum(0)
        pcounts = jnp.where(need_resh, g.disc - top1, gathered)
        psize = jnp.where(need_resh, resh_size, gathered.sum())
        pseed, pctr = (s.seed, s.counter) if seeds is None else (seeds[0], jnp.int32(0))
        shuffled, red_hands = self._pile(need_resh | do_redeal, pseed, pctr, pcounts, psize, pos, m,
                                         (s.draw, s.hands))
        counter = s.counter + _i(need_resh | do_redeal)
        # --- draws: the j-th card drawn comes from the old pile while j < its size, then from the new one
        avail = pile + jnp.where(need_resh, resh_size, 0)
        drawn = jnp.minimum(want, avail)
        j = jnp.arange(self._max_draws, dtype=jnp.int32)
        who = _w(o.each, jnp.where(count == 2, j // 2, j), jnp.remainder(j, jnp.maximum(m1, 1)))
        to = others[None, :] & (rank[None, :] == who[:, None]) & (j < drawn)[:, None]  # [J, n]
        old = jnp.take(s.draw, jnp.clip(s.dhead + j, 0, W - 1)).astype(jnp.int32)
        new = jnp.take(shuffled, jnp.clip(j - pile, 0, W - 1)).astype(jnp.int32)
        kind = jnp.where(j < pile, old, new)
        g.hands = g.hands + (_i(to)[:, :, None] * _i(kind[:, None] == kinds[None, :])[:, None, :]).sum(0)
        g.draw = jnp.where(need_resh, shuffled, s.draw)
        g.dhead = jnp.where(need_resh, drawn - pile, s.dhead + drawn)
        g.dend = jnp.where(need_resh, resh_size, s.dend)
        g.disc = jnp.where(need_resh, top1, g.disc)
        g.reshuffles = s.reshuffles + _i(need_resh)
        # --- Hand In & Re-Deal
        g.hands = jnp.where(do_redeal, red_hands.astype(jnp.int32), g.hands)
        # --- lives: a bust, a Bomb answer "lose a life"
        g.lose_life(p1, bust | anslife)
        # --- the Bomb: answers chosen (a step each) or automatic
        more = jnp.bool_(False)
        finish = jnp.bool_(False)
        r = p
        bomber = p
        if _maybe(o.optional):
            cont = ((bomb_start & o.optional) | ans0 | anslife) & ~g.over
            bomber = jnp.where(bomb_start, p, s.bomber)
            r = self._next(g.alive, d, p)
            more = cont & (r != bomber)
            finish = cont & (r == bomber)
        if _maybe(_neg(o.optional)):
            auto = bomb_start & _neg(o.optional)
            alive0 = g.alive

            def answer(i: Any) -> None:  # the i-th seat after the bomber, automatically
                q1 = seats == jnp.remainder(p + d * i, n)
                active = auto & ~g.over & (alive0 & q1).any()
                has0 = (g.hands[:, N0] * _i(q1)).sum() > 0
                dz = active & has0
                g.hands = g.hands - _i(q1[:, None] & (kinds == N0)[None, :] & dz)
                g.disc = g.disc + _i((kinds == N0) & dz)
                g.top = jnp.where(dz, N0, g.top)
                g.lose_life(q1, active & ~has0)

            g.loop(1, n, answer)
            finish = finish | (auto & ~g.over)
        g.T = jnp.where(finish, 0, g.T)
        hs = g.hands.sum(1)
        empty = (g.alive & (hs == 0)).any()
        # --- round end (docs/rules.md 2.5): P = the player whose turn it was (the bomber after a Bomb)
        re = ((last & ~bomb_start) | (finish & empty)) & ~g.over
        big_p = jnp.where(finish, bomber, p)
        out = g.alive & (hs == 0)
        dealer = jnp.argmin(jnp.where(out, self._relpos(big_p, d), 2 * n)).astype(jnp.int32)
        if _maybe(o.teams):
            re_t = re & o.teams

            def went_out(i: Any) -> None:  # the i-th seat from P, if out: the other team loses one life
                q1 = seats == jnp.remainder(big_p + d * i, n)
                g.lose_life(jnp.roll(q1, 1), re_t & (out & q1).any())

            g.loop(0, n, went_out)
        if _maybe(_neg(o.teams)):
            losers = re & _neg(o.teams) & g.alive & (hs > 0)  # simultaneous losses, then eliminations
            g.lives = g.lives - _i(losers)
            dead = losers & (g.lives == 0)
            g.eliminate(dead)
            if _maybe(o.sudden):
                g.end_sudden_death(dead.any() & o.sudden)
            if _maybe(_neg(o.sudden)):
                g.end_game(g.alive, dead.any() & _neg(o.sudden) & (g.alive.sum() <= 1))
        new_round = re & ~g.over
        # --- who acts next
        n1 = self._next(g.alive, d, p)
        nb = self._next(g.alive, d, bomber)
        cur = s.current_player
        cur = jnp.where(play & ~last & ~is_bomb, jnp.where(a == SKIP, self._next(g.alive, d, n1), n1), cur)
        cur = jnp.where(bust, n1, cur)
        cur = jnp.where(finish & ~empty, nb, cur)
        cur = jnp.where(more, r, cur)
        phase = jnp.where(more, BOMB_ANSWER, jnp.where(finish, PLAY, s.phase))
        bomber_out = jnp.where(more, bomber, jnp.where(finish, -1, s.bomber))
        d_new = jnp.where(new_round & o.clockwise, 1, d)
        start = _w(o.dealer_starts, dealer, self._next(g.alive, d_new, dealer))
        cur = jnp.where(new_round, start, cur)
        over = g.over
        cur = jnp.where(over, -1, cur)
        phase = jnp.where(over, OVER, phase)
        bomber_out = jnp.where(over, -1, bomber_out)
        # --- rewards, truncation
        reward = jnp.zeros(n, jnp.float32)
        if _maybe(o.reward_lives):
            reward = reward - _w(o.reward_lives, (s.lives - g.lives).astype(jnp.float32), jnp.float32(0))
        if _maybe(o.reward_results):
            reward = reward + _w(o.reward_results, (g.result - s.result).astype(jnp.float32), jnp.float32(0))
        # --- max_steps: the game ends here with no winner, after the step's own events (a new deal included)
        trunc = ~over & self._limit_reached(s._step_count + 1)
        cur = jnp.where(trunc, -1, cur)
        phase = jnp.where(trunc, OVER, phase)
        bomber_out = jnp.where(trunc, -1, bomber_out)
        nxt = s.replace(
            current_player=cur.astype(jnp.int32), rewards=reward, terminated=over, truncated=trunc,
            _step_count=s._step_count + 1,
            hands=g.hands.astype(jnp.uint8), draw=g.draw.astype(jnp.uint8), dhead=g.dhead, dend=g.dend,
            discard=g.disc.astype(jnp.uint8), top=g.top, total=g.T, direction=d_new, phase=phase, lives=g.lives,
            alive=g.alive, result=g.result, bomber=bomber_out, round=s.round + _i(new_round),
            reshuffles=jnp.where(new_round, 0, g.reshuffles), counter=counter)
        dseed, dctr = (s.seed, counter) if seeds is None else (seeds[1], jnp.int32(0))
        return nxt, new_round, (dseed, dctr, g.alive)


_CORE = [f for f in _FIELDS if f not in ("observation", "legal_action_mask")]


def _core(s: State) -> dict[str, Any]:
    """The state's fields that a step computes (all but the observation and the mask, which follow)."""
    return {f: getattr(s, f) for f in _CORE}


def _uncore(core: dict[str, Any], env: FiveAliveJaxEnv) -> State:
    return State(observation=jnp.zeros(env.observation_shape, jnp.float32),
                 legal_action_mask=jnp.zeros(NUM_ACTIONS, bool), **core)


def _canonical(counts: Any, width: int) -> Any:
    """int32 [width]: the multiset ``counts`` [K] as its kinds in ascending order (``engine._expand``);
    positions at or beyond its size hold K."""
    cum = jnp.cumsum(counts)
    i = jnp.arange(width, dtype=jnp.int32)
    return (cum[None, :] <= i[:, None]).sum(1, dtype=jnp.int32)


class _Game:
    """The mutable fields of one game while a step is traced (plain attributes holding jnp arrays), with
    the reference's life and end-of-game rules as masked updates."""

    def __init__(self, env: FiveAliveJaxEnv, s: State, actor: Any) -> None:
        self.env = env
        self.o = env._o
        self.actor = actor
        self.hands = s.hands.astype(jnp.int32)
        self.disc = s.discard.astype(jnp.int32)
        self.top = s.top
        self.T = s.total
        self.d = s.direction
        self.lives = s.lives
        self.alive = s.alive
        self.result = s.result
        self.over = s.phase == OVER
        self.draw = s.draw
        self.dhead = s.dhead
        self.dend = s.dend
        self.reshuffles = s.reshuffles

    _CARRY = ("hands", "disc", "top", "lives", "alive", "result", "over")

    def loop(self, lo: int, hi: int, body: Callable[[Any], None]) -> None:
        """``for i in range(lo, hi): body(i)`` as one ``fori_loop`` (``body`` updates the fields in
        ``_CARRY``): the body is traced once, whatever the number of players."""
        def f(i: Any, carry: tuple[Any, ...]) -> tuple[Any, ...]:
            for name, v in zip(self._CARRY, carry):
                setattr(self, name, v)
            body(i)
            return tuple(getattr(self, name) for name in self._CARRY)

        out = lax.fori_loop(lo, hi, f, tuple(getattr(self, name) for name in self._CARRY))
        for name, v in zip(self._CARRY, out):
            setattr(self, name, v)

    def lose_life(self, q1: Any, active: Any) -> None:
        """``engine._lose_life`` of the seat ``q1`` (one-hot [n]) where ``active`` (and the game goes on)."""
        env, o = self.env, self.o
        active = active & ~self.over
        if _maybe(o.teams):
            seats = env._seats()
            act_t = active & o.teams
            par = (jnp.remainder(seats, 2) * _i(q1)).sum()
            team = jnp.remainder(seats, 2) == par
            self.lives = self.lives - _i(team & act_t)
            self.end_game(~team, act_t & ((self.lives * _i(q1)).sum() == 0))
        if _maybe(_neg(o.teams)):
            act_s = active & _neg(o.teams)
            self.lives = self.lives - _i(q1 & act_s)
            dead = act_s & ((self.lives * _i(q1)).sum() == 0)
            self.eliminate(q1 & dead)
            if _maybe(o.sudden):
                self.end_sudden_death(dead & o.sudden)
            if _maybe(_neg(o.sudden)):
                self.end_game(self.alive, dead & _neg(o.sudden) & (self.alive.sum() <= 1))

    def eliminate(self, dead: Any) -> None:
        """``engine._eliminate`` of the seats ``dead`` (bool [n]): their hands to the discard pile."""
        self.disc = self.disc + (self.hands * _i(dead)[:, None]).sum(0)
        self.hands = jnp.where(dead[:, None], 0, self.hands)
        self.alive = self.alive & ~dead
        self.result = jnp.where(dead, -1, self.result)

    def end_game(self, winners: Any, active: Any) -> None:
        """``engine._end_game`` where ``active``: ``winners`` win, every undecided player loses."""
        active = active & ~self.over
        self.result = jnp.where(active & (self.result == 0), jnp.where(winners, 1, -1), self.result)
        self.over = self.over | active

    def end_sudden_death(self, active: Any) -> None:
        """``engine._end_sudden_death``: most lives, then the lowest hand value, then ``final_tiebreak`` (the
        first in turn order from the step's actor)."""
        env, o = self.env, self.o
        n = env.n
        cand = self.lives > 0
        best = jnp.where(cand, self.lives, -1).max()
        cand = cand & (self.lives == best)
        hv = (self.hands * jnp.asarray(_NUMBER_VALUE)).sum(1) + o.wild * (self.hands * _i(jnp.asarray(_IS_WILD))).sum(1)
        low = jnp.where(cand, hv, jnp.iinfo(jnp.int32).max).min()
        cand = cand & (hv == low)
        if _maybe(_neg(o.shared)):
            first = jnp.argmin(jnp.where(cand, env._relpos(self.actor, self.d), 2 * n))
            cand = _w(o.shared, cand, env._seats() == first)
        self.end_game(cand, active)


JaxEnv = FiveAliveJaxEnv


class _OptionsEnv(FiveAliveJaxEnv):
    """Test support: an env whose rule options are data, not constants (``_options_of``): ``step_with(vec,
    state, action)`` and ``init_seeded_with(vec, seed)`` play the config whose ``_option_vector`` is
    ``vec`` (any config of ``num_players`` players whose deck has at most ``width`` cards), so one compiled
    function per player count serves every option and deck. The engine itself (``FiveAliveJaxEnv``) reads
    its options as constants; both run the same rule code."""

    def __init__(self, num_players: int, width: int, chance: str = "reference") -> None:
        super().__init__(FiveAliveConfig(num_players=num_players), chance=chance)
        self._width = check_int("width", width, HAND_SIZE * num_players, 256)
        self._static = self._o

    def _with(self, vec: Any, fn: Callable[..., Any], *args: Any) -> Any:
        self._o = _options_of(jnp.asarray(vec, jnp.int32))
        try:
            return fn(*args)
        finally:
            self._o = self._static

    def init_seeded_with(self, vec: Any, seed: Any) -> State:
        return self._with(vec, self.init_seeded, seed)

    def step_with(self, vec: Any, state: State, action: Any) -> State:
        return self._with(vec, self.step, state, action)


class JaxVecFiveAlive(JaxVecBase):
    """``num_envs`` 5 Alive games on the JAX engine with the ``BatchedGame`` shape of ``fiveplay_env.vector``
    (``make_vec``): numpy arrays on the host, same-step autoreset, slot i's k-th game seeded
    ``seeding.derive(seed, i + k*B)`` (``chance="reference"``, the default: the very games of the numpy
    batched engine ``make_vec("five_alive", B, seed)``); with ``chance="jax"`` the shuffles come from a key
    derived from the seed instead. One jitted call per step; the state stays on the device
    (``jax_state``), and ``to_torch`` hands a device array to torch without a copy (DLPack). The members
    every JAX engine shares: ``core.jax_vec.JaxVecBase``.

    After ``reset`` and every ``step``: ``current_player`` int32 [B], ``legal_action_mask`` int8 [B, 19]
    (read-only), ``rewards`` float32 [B, n], ``terminated`` bool [B]; ``observe()`` float32 [B, 80 + 3n];
    ``info()``: ``seed``, ``lives``, ``alive``, ``round`` of the current games and, for the games that
    ended at the last step (rows where ``terminated``), ``final_scores`` (lives left), ``final_result``
    (+1 / -1; 0 for the undecided of a truncated game), ``final_win`` (1 / number of winners; 1 for each
    member of the winning team) and ``truncated`` (ended by ``max_steps``), as the numpy batched
    engine's: a truncated game's slot reports ``terminated`` too (the slot moves on to its next game).
    ``max_cycles`` is refused, as by the numpy batched engine (it is the AEC env's per-agent rule)."""

    CONFIG = FiveAliveConfig
    FINALS = (np.int32, np.int32, np.float32)  # lives left, results, win shares

    def __init__(self, config: FiveAliveConfig, num_envs: int, seed: int | None = 0, *, chance: str = "reference",
                 observation: str = "float", compiler_options: dict[str, Any] | None = None) -> None:
        if not isinstance(config, FiveAliveConfig):
            raise ValueError(f"config: expected a FiveAliveConfig, got {type(config).__name__}")
        if config.max_cycles is not None:
            raise ValueError(f"max_cycles: expected None (the batched engines have no per-agent truncation), "
                             f"got {config.max_cycles}")
        self._teams = config.variant == "teams"
        super().__init__(config, num_envs, seed,
                         lambda: FiveAliveJaxEnv(config, chance=chance, observation=observation), compiler_options)

    def _game_step_reference(self, s: State, a: Any, new_seed: Any) -> tuple[State, Any]:
        return self.env._step(s, a, None, (new_seed, None))

    def _game_step_jax(self, s: State, a: Any, key: Any) -> tuple[State, Any]:
        env = self.env
        k1, k2, k3 = jax.random.split(key, 3)
        first = jax.random.randint(k3, (), 0, self.num_players, jnp.int32)
        return env._step(s, a, env._step_seeds(k1), (env._key_seed(k2), first))

    def _finals(self, st: State, ended: Any, final: Any) -> tuple[Any, ...]:
        lives, result = final
        won = result == 1
        share = jnp.where(self._teams, 1.0, 1.0 / jnp.maximum(won.sum(1, keepdims=True), 1)).astype(jnp.float32)
        return (jnp.where(ended[:, None], lives, 0), jnp.where(ended[:, None], result, 0),
                jnp.where(ended[:, None] & won, share, jnp.float32(0)))

    def _game_info(self) -> dict[str, np.ndarray]:
        return {"lives": self.lives, "alive": self.alive, "final_scores": self.final_lives,
                "final_result": self.final_result, "final_win": self.final_win, "truncated": self.truncated.copy()}

    @property
    def final_lives(self) -> np.ndarray:
        """int32 [B, n]: lives left of the games that ended at the last step (rows where ``terminated``)."""
        return self._fin[0].copy()

    @property
    def final_result(self) -> np.ndarray:
        """int32 [B, n]: +1 won / -1 lost of the games that ended at the last step."""
        return self._fin[1].copy()

    @property
    def final_win(self) -> np.ndarray:
        """float32 [B, n]: win shares of the games that ended at the last step."""
        return self._fin[2].copy()

    lives = state_field("lives", "int32 [B, n]: lives left (teams: the seat's team's).")
    alive = state_field("alive", "bool [B, n]: the seats still in the game.")


def make_vec(num_envs: int, seed: int | None = 0, *, chance: str = "reference", observation: str = "float",
             compiler_options: dict[str, Any] | None = None, **fields: Any) -> JaxVecFiveAlive:
    """``JaxVecFiveAlive(FiveAliveConfig(**fields), num_envs, seed)``: the factory
    ``fiveplay_env.vector.make_vec("five_alive", ..., backend="jax")`` calls; unknown config keys raise
    ``ValueError`` naming the key. ``compiler_options``: passed to ``jax.jit`` (e.g. a lower XLA
    optimisation level for short runs, where compiling dominates)."""
    return JaxVecFiveAlive.from_fields(num_envs, seed, chance=chance, observation=observation,
                                       compiler_options=compiler_options, **fields)


__all__ = ["State", "FiveAliveJaxEnv", "JaxEnv", "JaxVecFiveAlive", "make_vec", "random_actions"]
