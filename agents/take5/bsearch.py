"""Take 5's hooks for the batched search (``fiveplay_env.agents.bsearch``): rollouts of many worlds at once.

The rows of a ``BatchedTake5`` hold the search's (world, candidate) pairs. The rollout policies are
those of ``fiveplay_env.agents.take5.rollouts``, vectorized, and consume each world's random numbers in the same
order, so that a row's rollout is the very game ``rollouts.simulate`` (or ``simulate_policy``) plays
on that world (``tests/agents/test_bsearch.py`` checks the values are equal):

- the other players' cards of the first trick come from the opponent model's plan
  (``rollouts.prepare``, run on the reference world before it is loaded);
- every other card is epsilon-greedy take5-closest (``rollouts.rollout_card``) or, with
  ``rollout=policy``, the policy's greedy choice on that player's own observation (epsilon as there);
  since the players of a trick choose without seeing each other's cards, every seat's card of a trick is
  chosen at once when the trick starts (one vectorized pass over [rows, seats, hand]; one forward pass of
  the network);
- a row choice takes the cheapest row (the policy's choice with ``rollout=policy``), a draft pick the
  cheapest card;
- a rollout stops at the end of the round (or after ``depth`` tricks, where ``value=1`` adds every
  player's value-head estimate), and is scored as ``rollouts.score``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from fiveplay_env.agents.take5.batch import safest_cards_known
from fiveplay_env.take5.state import (
    ACTION_ROW0, BULLHEADS, DRAFT, HAND_SIZE, NUM_CARDS, NUM_ROWS, PLAY, POOL, QUEUE, ROW_CHOICE, ROW_LIMIT,
)

if TYPE_CHECKING:  # the batched engine (and numba) are imported when a search first needs them
    from fiveplay_env.take5.batched import BatchedTake5

_BIG = 1 << 40
_DRAFT_KEY = BULLHEADS[:NUM_CARDS] * 128 + np.arange(NUM_CARDS)


def make_engine(config: Any, size: int) -> BatchedTake5:
    from fiveplay_env.take5.batched import BatchedTake5

    return BatchedTake5(config, size, seed=0)


def deal(engine: BatchedTake5, player: int, rng: np.random.Generator) -> None:
    """Re-deal, in every slot at once, the cards ``player`` cannot know (``fiveplay_env.agents.kit.BatchRollout.deal``):
    the slots hold copies of one world of ``player``'s information set; afterwards each is an independent
    determinization, drawn as ``fiveplay_env.take5.determinize.sample_world`` draws one
    (``BatchedTake5.redeal``), from ``rng`` alone."""
    engine.redeal(player, rng)


def plan(engine: BatchedTake5, player: int, params: Any) -> np.ndarray:
    """The opponent model of ``rollouts.prepare`` for every slot at once (``fiveplay_env.agents.kit.BatchRollout.plan``):
    with ``model=heuristic`` in the play phase, every other player's card of this trick is take5-safest's
    from its own point of view (``batch.safest_cards_known``: its hand, the public cards); a player who
    already chose gets that card as its hidden choice (in place), the others' cards are returned. int64
    [B, n], -1 where nothing is planned."""
    B, n = engine.batch_size, engine.num_players
    out = np.full((B, n), -1, np.int64)
    if params.model != "heuristic" or B == 0:
        return out
    g = np.flatnonzero(engine.field("phase") == PLAY)
    if not g.size:
        return out
    loc = engine.field("loc")[g]
    public = loc >= QUEUE                                                    # QUEUE and SEEN
    ends, lens, bulls = _rows_of(engine, g)
    cur = engine.field("cur")[g].astype(np.int64)
    pend = engine.field("pending")[g].T.astype(np.int64)                     # [n, m]
    for q in range(n):
        if q == player:
            continue
        hand = loc == q
        chosen = (q < cur) & (pend[q] >= 0)
        ci = np.flatnonzero(chosen)
        hand[ci, pend[q, ci]] = True
        has = np.flatnonzero(hand.any(axis=1))
        if not has.size:
            continue
        card = safest_cards_known(public[has] | hand[has], hand[has], ends[has], lens[has], bulls[has], n - 1)
        was = chosen[has]
        swap = has[was & (card != pend[q, has])]
        if swap.size:
            engine.replace_choice(g[swap], q, card[was & (card != pend[q, has])])
        fresh = ~was
        out[g[has[fresh]], q] = card[fresh]
    return out


@dataclass
class Ctx:
    """The rollouts' state beside the engine's (one entry per row)."""

    plan: np.ndarray      # int64 [R, n]: the opponent model's card for the first trick, -1 none
    noise: np.ndarray     # float64 [R, L]: the row's world's random numbers
    k: np.ndarray         # int64 [R]: random numbers used so far
    round0: np.ndarray    # int64 [R]: the round when the rollout began (a change ends it)
    first: np.ndarray     # int64 [R]: the trick (round * 16 + trick) of the plan's cards
    stop_at: np.ndarray   # int64 [R]: the trick id at which the depth limit cuts the rollout (large: none)
    choice: np.ndarray    # int64 [R, n]: every seat's card of the current trick, once chosen
    stamp: np.ndarray     # int64 [R]: the trick id ``choice`` was made for (-1: none yet)
    params: Any


def _tid(engine: BatchedTake5) -> np.ndarray:
    return engine.field("round").astype(np.int64) * 16 + engine.field("trick")


def begin(engine: BatchedTake5, worlds: np.ndarray, plans: list[Any], noise: np.ndarray, actions: np.ndarray,
          player: int, params: Any) -> tuple[Ctx, np.ndarray]:
    """Step the candidates, then set up the rollouts (``fiveplay_env.agents.kit.BatchRollout.begin``)."""
    R, n = engine.batch_size, engine.num_players
    round0 = engine.field("round").astype(np.int64)
    rewards = engine.step(actions).astype(np.float64)
    if isinstance(plans, np.ndarray):  # the fast path's plans (``plan``): int [W, n], -1 none
        plan_w = plans.astype(np.int64, copy=False)
    else:
        plan_w = np.full((len(plans), n), -1, np.int64)
        for w, p in enumerate(plans):
            for q, c in (p or {}).items():
                plan_w[w, q] = c
    tid = _tid(engine)
    depth = int(params.depth)
    stop_at = tid + depth if depth else np.full(R, _BIG, np.int64)
    ctx = Ctx(plan=plan_w[worlds], noise=np.ascontiguousarray(noise, np.float64), k=np.zeros(R, np.int64),
              round0=round0, first=tid.copy(), stop_at=stop_at, choice=np.zeros((R, n), np.int64),
              stamp=np.full(R, -1, np.int64), params=params)
    return ctx, rewards


def stop(engine: BatchedTake5, ctx: Ctx) -> np.ndarray:
    """Rows whose rollout is over: the game ended, the round ended, or the depth limit (a new trick)."""
    over = engine.terminated | (engine.field("round") != ctx.round0)
    cut = (engine.field("phase") == PLAY) & (_tid(engine) >= ctx.stop_at)
    return over | cut


def _rows_of(engine: BatchedTake5, g: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row ends (last card ids), lengths and bull heads of games ``g``: int64 [m, 4] each."""
    lens = engine.field("rlen")[g].astype(np.int64)
    rows = engine.field("rows")[g]
    ends = np.take_along_axis(rows, np.maximum(lens - 1, 0)[:, :, None], axis=2)[:, :, 0].astype(np.int64)
    ends[lens == 0] = -1                                                     # the draft's empty rows
    return ends, lens, engine.field("rbull")[g].astype(np.int64)


def closest_table(engine: BatchedTake5, g: np.ndarray) -> np.ndarray:
    """int32 [m, 104]: ``rollouts.rollout_card``'s key of every card in games ``g`` (the card a hand plays
    is its card of least key, the lowest among equals): a card's key depends on the rows only, not on
    whose hand holds it, so one table serves every seat of a trick. The target row of each card (the
    largest row end below it) comes from one running maximum over the card axis."""
    ends, lens, bulls = _rows_of(engine, g)
    m = g.size
    acc = np.full((m, NUM_CARDS + 1), -1, np.int32)
    acc[np.arange(m)[:, None], ends + 1] = (ends * NUM_ROWS + np.arange(NUM_ROWS)).astype(np.int32)
    np.maximum.accumulate(acc, axis=1, out=acc)
    v = acc[:, :NUM_CARDS]
    cost = np.where(lens == ROW_LIMIT, bulls << 10, 0).astype(np.int32).ravel()  # a 6th card takes the row
    r = (v & (NUM_ROWS - 1)) + (np.arange(m, dtype=np.int32) * NUM_ROWS)[:, None]
    low = (bulls.min(axis=1).astype(np.int32) << 10)[:, None] + 200
    return np.where(v >= 0, cost[r] + (_CARD_IDS - (v >> 2)), low)


_CARD_IDS = np.arange(NUM_CARDS, dtype=np.int32)


def _choose_trick(engine: BatchedTake5, ctx: Ctx, g: np.ndarray, guide: Any) -> None:
    """Every seat's card of the current trick in games ``g`` (play phase, a trick not yet chosen for), the
    random numbers consumed in seat order as the reference rollouts consume them."""
    n = engine.num_players
    params = ctx.params
    eps = float(params.eps)
    m = g.size
    loc = engine.field("loc")[g]                                             # [m, 104]: who holds each card
    cur = engine.field("cur")[g].astype(np.int64)
    seats = np.arange(n)[None, :]
    size = HAND_SIZE - engine.field("trick")[g].astype(np.int64)[:, None] - (seats < cur[:, None])  # [m, n] hand sizes
    tid = _tid(engine)[g]
    planned = (ctx.plan[g] >= 0) & (tid == ctx.first[g])[:, None]            # [m, n]
    deciding = (seats >= cur[:, None]) & ~planned & (size > 0)
    if params.rollout == "policy":
        greedy = _policy_cards(engine, g, deciding, guide)
    else:
        key = closest_table(engine, g)
        greedy = np.zeros((m, n), np.int64)
        for q in range(n):
            if deciding[:, q].all():
                greedy[:, q] = np.where(loc == q, key, _BIG32).argmin(axis=1)
                continue
            sel = np.flatnonzero(deciding[:, q])
            if sel.size:
                greedy[sel, q] = np.where(loc[sel] == q, key[sel], _BIG32).argmin(axis=1)
    choice = np.where(planned, ctx.plan[g], greedy)
    consume = eps > 0 or params.rollout != "policy"  # the heuristic rollouts draw a number per decision
    if consume:
        k = ctx.k[g]
        L = ctx.noise.shape[1]
        for q in range(n):
            dec = deciding[:, q]
            u = ctx.noise[g, k % L]
            rnd = np.flatnonzero(dec & (u < eps))
            if rnd.size:
                idx = np.minimum((u[rnd] / eps * size[rnd, q]).astype(np.int64), size[rnd, q] - 1)
                hand = loc[rnd] == q
                pos = np.cumsum(hand, axis=1) - 1
                choice[rnd, q] = (hand & (pos == idx[:, None])).argmax(axis=1)  # the idx-th card, ascending
            k = k + dec
        ctx.k[g] = k
    ctx.choice[g] = choice
    ctx.stamp[g] = tid


_BIG32 = np.int32(1 << 30)


def _policy_cards(engine: BatchedTake5, g: np.ndarray, deciding: np.ndarray, guide: Any) -> np.ndarray:
    """The policy's greedy card for every deciding seat of games ``g`` (one forward pass), [m, n]."""
    n = engine.num_players
    out = np.zeros(deciding.shape, np.int64)
    obs_rows, mask_rows, where = [], [], []
    hand_codes = engine.field("loc")[g]
    for q in range(n):
        sel = np.flatnonzero(deciding[:, q])
        if not sel.size:
            continue
        obs = engine.observe_as(np.full(engine.batch_size, q))
        obs_rows.append(obs[g[sel]])
        mask = np.zeros((sel.size, engine.num_actions), np.int8)
        mask[:, :NUM_CARDS] = hand_codes[sel] == q
        mask_rows.append(mask)
        where.append((sel, q))
    if not obs_rows:
        return out
    masks = np.concatenate(mask_rows)
    logits, _ = guide.evaluate(np.concatenate(obs_rows), masks)
    best = np.where(masks != 0, logits, -np.inf).argmax(axis=1)
    i = 0
    for sel, q in where:
        out[sel, q] = best[i:i + sel.size]
        i += sel.size
    return out


def act(engine: BatchedTake5, ctx: Ctx, active: np.ndarray, guide: Any) -> np.ndarray:
    """Every row's next move (``fiveplay_env.agents.kit.BatchRollout.act``)."""
    R = engine.batch_size
    phase = engine.field("phase")
    mask = engine.legal_action_mask
    actions = mask.argmax(axis=1).astype(np.int64)                           # rows not active: any legal move
    play = active & (phase == PLAY)
    need = np.flatnonzero(play & (ctx.stamp != _tid(engine)))
    if need.size:
        _choose_trick(engine, ctx, need, guide)
    p = np.flatnonzero(play)
    actions[p] = ctx.choice[p, engine.field("cur")[p].astype(np.int64)]
    rc = np.flatnonzero(active & (phase == ROW_CHOICE))
    if rc.size:
        if ctx.params.rollout == "policy":
            obs = engine.observe()[rc]
            logits, _ = guide.evaluate(obs, mask[rc])
            actions[rc] = np.where(mask[rc] != 0, logits, -np.inf).argmax(axis=1)
        else:
            _, lens, bulls = _rows_of(engine, rc)
            actions[rc] = ACTION_ROW0 + (bulls * 64 + lens * 8 + np.arange(NUM_ROWS)).argmin(axis=1)
    dr = np.flatnonzero(active & (phase == DRAFT))
    if dr.size:
        key = np.where(engine.field("loc")[dr] == POOL, _DRAFT_KEY, _BIG)
        actions[dr] = key.argmin(axis=1)
    del R
    return actions


def value(engine: BatchedTake5, ctx: Ctx, rows: np.ndarray, gains: np.ndarray, player: int, params: Any,
          guide: Any) -> np.ndarray:
    """``rollouts.score`` of the rollouts ``rows`` that just stopped; with ``value=1`` a rollout cut by the
    depth limit first adds every player's value-head estimate (bull heads) to its gains."""
    n = engine.num_players
    gains = gains.copy()
    over = engine.terminated[rows]
    if params.value:
        cut = np.flatnonzero(~over & (engine.field("round")[rows] == ctx.round0[rows]))
        if cut.size:
            g = rows[cut]
            for q in range(n):
                obs = engine.observe_as(np.full(engine.batch_size, q))[g]
                mask = np.zeros((g.size, engine.num_actions), np.int8)
                mask[:, :NUM_CARDS] = engine.field("loc")[g] == q
                _, vals = guide.evaluate(obs, mask)
                gains[cut, q] += np.asarray(vals, np.float64) * guide.points
    own = gains[:, player]
    out = own.copy()
    if n > 1 and params.rel:
        out -= params.rel * (gains.sum(axis=1) - own) / (n - 1)
    if params.win:
        fin = np.flatnonzero(over)
        if fin.size:
            sc = engine.final_scores[rows[fin]]
            low = sc.min(axis=1)
            mine = sc[:, player] == low
            out[fin] += np.where(mine, params.win / (sc == low[:, None]).sum(axis=1), 0.0)
    return out


__all__ = ["Ctx", "act", "begin", "closest_table", "deal", "make_engine", "plan", "stop", "value"]
