"""5 Alive's hooks for the batched search (``fiveplay_env.agents.bsearch``): rollouts of many worlds at once.

The rows of a ``BatchedFiveAlive`` hold the search's (world, candidate) pairs. The rollout policies are
those of ``fiveplay_env.agents.five_alive.rollouts``, vectorized, and consume each world's random numbers in the same
order, so that a row's rollout is the very game ``rollouts.simulate`` (or ``simulate_policy``) plays on
that world, its reshuffles and Re-Deals drawn from the world's own seed as the reference engine draws
them (``tests/agents/test_bsearch_five_alive.py`` checks the values are equal):

- every seat plays epsilon-greedy five-alive-attacker (``rollouts.simulate``: the saver's card unless the
  hand holds a Bomb, Draw or Re-Deal; the opponents are the other survivors, the other team in teams),
  computed for every row at once from the engine's arrays; ``insure`` keeps the searcher's last 0 against
  an unplayed Bomb; a Bomb answer is the rule's (a 0 if held);
- with ``rollout=policy`` every row whose seat decides is one row of a single forward pass of the policy
  on that seat's own observation (the engine's encoder), played greedily (epsilon as there);
- a rollout stops at the end of the round (or after ``depth`` turns, the round end then estimated from
  the hand sizes) and is scored as ``rollouts.score``; with ``value=1`` it goes on across round ends to
  the searcher's ``depth``-th next decision and is worth the value head's estimate there (computed in
  the same forward pass as the moves of the other rows), or +-1 once the searcher's result is decided.

The worlds are dealt one by one (no ``deal`` or ``plan`` hook): ``fiveplay_env.agents.bsearch`` then draws each world
with the game's own sampler through ``InformationSet.sample`` (``fiveplay_env.five_alive.determinize``),
exactly as ``ismcts`` does, and loads them with ``load_states``. Re-dealing in the batched engine is not
practical here: a 5 Alive world honours the recorded knowledge about hands and the draw pile (a laminar
family of "at least c cards of kinds A" facts per player and caps on the draw pile, filled by a greedy
pass that checks Hall's condition card by card) and, with ``model=heuristic`` (the default), the opponent
model's beliefs (``rollouts.observe``: kinds a hand cannot hold, from the others' plays), sampled with
retries that may fail and drop the beliefs. The opponent model therefore lives in the worlds, not in a
per-world plan (``rollouts.prepare`` plans nothing), so there is no ``plan`` hook either.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from fiveplay_env.agents.five_alive.constants import BOMB_MEAN_CARDS, DRAW_ALERT_CARDS, EMERGENCY_ORDER, REDEAL_MARGIN
from fiveplay_env.agents.five_alive.rollouts import WIN_WEIGHT
from fiveplay_env.five_alive.config import FiveAliveConfig
from fiveplay_env.five_alive.state import (
    BOMB, BOMB_ANSWER, BUST, DRAW1, DRAW2, MAX_TOTAL, N0, NUM_NUMBERS, PLAY, REDEAL,
)

if TYPE_CHECKING:
    from fiveplay_env.five_alive.batched import BatchedFiveAlive

GUARD = 400
"""Turns a heuristic rollout (or a policy rollout without ``value=1``) plays at most when ``depth`` is 0
(``rollouts.simulate``'s guard: a round cannot last forever)."""
LEAF_GUARD = 4000
"""Turns a ``value=1`` rollout plays at most (``rollouts.simulate_policy``'s guard)."""

_EMERGENCY = np.array(EMERGENCY_ORDER, np.int64)
_NUMS = np.arange(1, NUM_NUMBERS, dtype=np.int64)  # the numbers 1..7 (the saver keeps its 0s)


def make_engine(config: FiveAliveConfig, size: int) -> BatchedFiveAlive:
    """A batched engine of ``size`` slots for worlds of ``config`` (``max_cycles``, the AEC env's
    truncation, is no rule of the game: the engines and the rollouts ignore it)."""
    from fiveplay_env.five_alive.batched import BatchedFiveAlive  # numba: when a search first needs it

    if config.max_cycles is not None:
        config = dataclasses.replace(config, max_cycles=None)
    return BatchedFiveAlive(config, size, seed=0)


@dataclass
class Ctx:
    """The rollouts' state beside the engine's (one entry per row)."""

    lives0: np.ndarray    # float64 [R, n]: lives before the candidate (the value counts the change)
    alive0: np.ndarray    # bool [R, n]: the survivors before the candidate (the value's "others")
    round0: np.ndarray    # int64 [R]: the round after the candidate (a change ends the rollout)
    left: np.ndarray      # int64 [R]: turns the rollout may still play (``depth`` or the guard)
    noise: np.ndarray     # float64 [R, L]: the row's world's random numbers
    k: np.ndarray         # int64 [R]: the index of the next random number (used modulo L)
    todo: np.ndarray      # int64 [R]: ``value=1``: the searcher's decisions still to reach (the D-th is the leaf)
    leaf: np.ndarray      # bool [R]: ``value=1``: at the leaf, its value head read by the next ``act``
    val: np.ndarray       # float64 [R]: ``value=1``: a finished rollout's value in value-head units (+-1 decided)
    finished: np.ndarray  # bool [R]: rollouts already reported over by ``stop``
    player: int
    teams: bool
    params: Any


def begin(engine: BatchedFiveAlive, worlds: np.ndarray, plans: list[Any], noise: np.ndarray, actions: np.ndarray,
          player: int, params: Any) -> tuple[Ctx, np.ndarray]:
    """Step the candidates, then set up the rollouts (``fiveplay_env.agents.kit.BatchRollout.begin``; 5 Alive's worlds
    carry no plan)."""
    R = engine.batch_size
    lives0 = engine.lives.astype(np.float64)
    alive0 = engine.alive
    rewards = engine.step(actions).astype(np.float64)
    guard = LEAF_GUARD if params.value else (int(params.depth) or GUARD)
    ctx = Ctx(lives0=lives0, alive0=alive0, round0=engine.round.astype(np.int64),
              left=np.full(R, guard, np.int64), noise=np.ascontiguousarray(noise, np.float64),
              k=np.zeros(R, np.int64), todo=np.full(R, int(params.depth), np.int64), leaf=np.zeros(R, bool),
              val=np.zeros(R), finished=np.zeros(R, bool), player=int(player),
              teams=engine.config.variant == "teams", params=params)
    return ctx, rewards


def stop(engine: BatchedFiveAlive, ctx: Ctx) -> np.ndarray:
    """Rows whose rollout is over after the last step (``fiveplay_env.agents.kit.BatchRollout.stop``): the game ended,
    the round ended or the turns ran out; with ``value=1`` the searcher's result decided, the turns ran
    out, or the leaf's value read (a row reaching its leaf is reported at the next call, once ``act`` has
    read the value head in its forward pass: the row's extra step there changes nothing it is worth)."""
    over = engine.terminated
    if not ctx.params.value:
        done = over | (engine.field("round") != ctx.round0) | (ctx.left <= 0)
        ctx.finished |= done
        return done
    p = ctx.player
    live = ~ctx.finished
    done = ctx.leaf & live                                                   # the leaf's value head was read
    res = np.where(over, engine.final_result[:, p], engine.result[:, p]).astype(np.float64)
    decided = live & ~done & (over | (res != 0))
    ctx.val[decided] = res[decided]
    done |= decided
    spent = live & ~done & (ctx.left <= 0)                                   # the guard of a game that would not end
    ctx.val[spent] = 0.0
    done |= spent
    # the searcher's own decisions (not its Bomb answers): the D-th next one is the leaf
    mine = live & ~done & (engine.field("phase") == PLAY) & (engine.field("cur") == p)
    ctx.todo[mine] -= 1
    ctx.leaf |= mine & (ctx.todo <= 0)
    ctx.finished |= done
    return done


def rollout_actions(engine: BatchedFiveAlive, g: np.ndarray, player: int, teams: bool, insure: bool,
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Games ``g`` (PLAY phase): the rollout policy's greedy card of each acting seat (``rollouts.simulate``:
    five-alive-attacker, which is five-alive-saver without a Bomb, Draw or Re-Deal in hand; the opponents
    are the other survivors, the other team in teams), with ``insure`` the searcher's last 0 kept against
    an unplayed Bomb (the first wild card of ``EMERGENCY_ORDER`` played instead, if it holds one).
    Returns int64 [m] actions and bool [m]: where ``insure``'s condition held."""
    n = engine.num_players
    cur = engine.field("cur")[g].astype(np.int64)
    hands = engine.field("hands")
    hand = hands[g, cur] > 0                              # [m, 18]
    total = engine.field("total")[g].astype(np.int64)
    # the saver: the largest number 1..7 that fits, else a 0, else the first wild card held, else BUST
    fits = hand[:, 1:NUM_NUMBERS] & (total[:, None] + _NUMS[None, :] <= MAX_TOTAL)
    any_num = fits.any(axis=1)
    largest = NUM_NUMBERS - 1 - fits[:, ::-1].argmax(axis=1)
    wild = hand[:, _EMERGENCY]
    any_wild = wild.any(axis=1)
    first_wild = _EMERGENCY[wild.argmax(axis=1)]
    a = np.where(any_num, largest, np.where(hand[:, N0], N0, np.where(any_wild, first_wild, BUST)))
    # the attacker's special cards (without one in hand it plays the saver's card)
    s = np.flatnonzero(hand[:, BOMB] | hand[:, DRAW1] | hand[:, DRAW2] | hand[:, REDEAL])
    if s.size:
        gs, cs = g[s], cur[s]
        seats = np.arange(n)[None, :]
        opp = (engine.field("lives")[gs] > 0) & (seats != cs[:, None])
        if teams:
            opp &= (seats % 2) != (cs % 2)[:, None]
        sizes = engine.field("hsize")[gs].astype(np.int64)
        lives = engine.field("lives")[gs].astype(np.int64)
        mean = np.where(opp, sizes, 0).sum(axis=1) / opp.sum(axis=1)         # as Python's int / int
        min_lives = np.where(opp, lives, 1 << 30).min(axis=1)
        min_size = np.where(opp, sizes, 1 << 30).min(axis=1)
        h = hand[s]
        alert = min_size <= DRAW_ALERT_CARDS
        bomb = h[:, BOMB] & ((min_lives <= 1) | (mean <= BOMB_MEAN_CARDS))
        draw2 = alert & h[:, DRAW2]
        draw1 = alert & h[:, DRAW1]
        redeal = h[:, REDEAL] & (sizes[np.arange(s.size), cs] >= mean + REDEAL_MARGIN)
        a[s] = np.where(bomb, BOMB, np.where(draw2, DRAW2, np.where(draw1, DRAW1, np.where(redeal, REDEAL, a[s]))))
    insured = np.zeros(g.size, bool)
    if insure:
        insured = (a == N0) & (cur == player) & (hands[g, cur, N0] == 1) & (engine.field("disc")[g, BOMB] == 0)
        a = np.where(insured & any_wild, first_wild, a)
    return a, insured


def _random_legal(mask: np.ndarray, u: np.ndarray, eps: float) -> np.ndarray:
    """The legal action at index ``int(u / eps * count)`` of each row's legal actions, ascending (the
    reference rollouts' uniform choice, drawn from the world's number u < eps)."""
    legal = mask != 0
    cnt = legal.sum(axis=1)
    idx = np.minimum((u / eps * cnt).astype(np.int64), cnt - 1)
    pos = np.cumsum(legal, axis=1) - 1
    return (legal & (pos == idx[:, None])).argmax(axis=1)


def act(engine: BatchedFiveAlive, ctx: Ctx, active: np.ndarray, guide: Any) -> np.ndarray:
    """Every row's next move (``fiveplay_env.agents.kit.BatchRollout.act``): a Bomb answer by the rule, a play by the
    rollout policy; with ``value=1`` the value head of the rows at their leaf, in the same forward pass."""
    params = ctx.params
    eps = float(params.eps)
    mask = engine.legal_action_mask
    actions = mask.argmax(axis=1).astype(np.int64)                           # rows not active: any legal move
    phase = engine.field("phase")
    ans = np.flatnonzero(active & (phase == BOMB_ANSWER))
    if ans.size:
        held = engine.field("hands")[ans, engine.field("cur")[ans], N0] > 0
        actions[ans] = np.where(held, N0, BUST)
    play = active & (phase == PLAY)
    if params.rollout == "policy":
        leaf = np.flatnonzero(active & ctx.leaf)
        play &= ~ctx.leaf
        g = np.flatnonzero(play)
        rows = np.concatenate([g, leaf]) if leaf.size else g
        if rows.size:
            obs = engine.observe()[rows]
            logits, vals = guide.evaluate(obs, mask[rows])
            if leaf.size:
                ctx.val[leaf] = np.asarray(vals[g.size:], np.float64)
            actions[g] = np.where(mask[g] != 0, logits[:g.size], -np.inf).argmax(axis=1)
            if eps and g.size:
                k = ctx.k[g]
                u = ctx.noise[g, k % ctx.noise.shape[1]]
                ctx.k[g] = k + 1
                rnd = u < eps
                if rnd.any():
                    actions[g[rnd]] = _random_legal(mask[g[rnd]], u[rnd], eps)
    else:
        g = np.flatnonzero(play)
        if g.size:
            k = ctx.k[g]
            u = ctx.noise[g, k % ctx.noise.shape[1]]
            k = k + 1
            greedy, insured = rollout_actions(engine, g, ctx.player, ctx.teams, bool(params.insure))
            rnd = u < eps
            a = greedy
            if rnd.any():
                a = greedy.copy()
                a[rnd] = _random_legal(mask[g[rnd]], u[rnd], eps)
            # ``rollouts.simulate`` looks for the wild card that replaces the last 0 in a loop whose variable
            # is also its random numbers' index (``k``): the index then becomes the kind found (the last of
            # ``EMERGENCY_ORDER`` when none is held). Mirrored so that the values stay equal; drop this
            # together with that shadowing (``test_values_equal_ismcts_on_the_same_worlds`` tells)
            ins = np.flatnonzero(insured & ~rnd)
            if ins.size:
                gi = g[ins]
                held = engine.field("hands")[gi, engine.field("cur")[gi]][:, _EMERGENCY] > 0
                k[ins] = np.where(held.any(axis=1), _EMERGENCY[held.argmax(axis=1)], _EMERGENCY[-1])
            ctx.k[g] = k
            actions[g] = a
    ctx.left[active] -= 1
    return actions


def value(engine: BatchedFiveAlive, ctx: Ctx, rows: np.ndarray, gains: np.ndarray, player: int, params: Any,
          guide: Any) -> np.ndarray:
    """``rollouts.score`` of the rollouts ``rows`` that just stopped (the lives each player gained or lost
    since the candidate, the others' mean subtracted ``rel`` times, 3 per decided game; or with ``alpha`` the
    estimated chance to win), or with ``value=1`` the value ``stop`` and ``act`` found (the value head's
    estimate at the leaf, or +-1 once decided, times ``guide.points``)."""
    if params.value:
        return float(guide.points) * ctx.val[rows]
    n = engine.num_players
    over = engine.terminated[rows]
    o = over[:, None]
    lives = np.where(o, engine.final_lives[rows], engine.field("lives")[rows]).astype(np.float64)
    result = np.where(over, engine.final_result[rows, player], engine.result[rows, player]).astype(np.float64)
    delta = lives - ctx.lives0[rows]
    cut = np.flatnonzero(~over & (engine.field("round")[rows] == ctx.round0[rows]))
    if cut.size:
        # stopped at the depth limit: everyone but the player(s) with the fewest cards loses a life
        # (k tied players: each loses with chance (k - 1) / k)
        g = rows[cut]
        alive = engine.field("lives")[g] > 0
        hs = engine.field("hsize")[g].astype(np.int64)
        low = np.where(alive, hs, 1 << 30).min(axis=1)
        at_low = alive & (hs == low[:, None])
        tied = at_low.sum(axis=1).astype(np.float64)
        loss = np.where(at_low, ((tied - 1) / tied)[:, None], 1.0)
        delta[cut] -= np.where(alive, loss, 0.0)
    others = ctx.alive0[rows] & (np.arange(n) != player)[None, :]
    if ctx.teams:
        others &= (np.arange(n) % 2 != player % 2)[None, :]
    if params.alpha:
        left = np.maximum(0.0, ctx.lives0[rows] + delta)
        if ctx.teams:  # one rival: the other team's first living seat
            first = np.zeros_like(others)
            first[np.arange(rows.size), others.argmax(axis=1)] = True
            others &= first
        mine = left[:, player] ** params.alpha
        rival = np.zeros(rows.size)
        for q in range(n):  # in seat order, as Python's sum adds them
            rival = rival + np.where(others[:, q], left[:, q] ** params.alpha, 0.0)
        tot = mine + rival
        out = np.where(tot > 0, mine / np.where(tot > 0, tot, 1.0), 0.0)
        return np.where(result != 0, (result > 0).astype(np.float64), out)
    out = delta[:, player].copy()
    count = others.sum(axis=1)
    if params.rel:
        acc = np.zeros(rows.size)
        for q in range(n):
            acc = acc + np.where(others[:, q], delta[:, q], 0.0)
        has = count > 0
        out = np.where(has, out - params.rel * acc / np.maximum(count, 1), out)
    decided = over | (result != 0)
    return np.where(decided, out + WIN_WEIGHT * result, out)


__all__ = ["Ctx", "GUARD", "LEAF_GUARD", "act", "begin", "make_engine", "rollout_actions", "stop", "value"]
