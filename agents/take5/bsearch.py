"""Take 5's hooks for the batched search (``agents.bsearch``): rollouts of many worlds at once.

The rows of a ``BatchedTake5`` hold the search's (world, candidate) pairs. The rollout policies are
those of ``agents.take5.rollouts``, vectorized, and consume each world's random numbers in the same
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
from typing import Any

import numpy as np

from fiveplay_env.take5.batched import POOL, BatchedTake5
from fiveplay_env.take5.state import ACTION_ROW0, BULLHEADS, DRAFT, NUM_CARDS, NUM_ROWS, PLAY, ROW_CHOICE, ROW_LIMIT

_HAND = 10
_BIG = 1 << 40
_DRAFT_KEY = BULLHEADS[:NUM_CARDS] * 128 + np.arange(NUM_CARDS)


def make_engine(config: Any, size: int) -> BatchedTake5:
    return BatchedTake5(config, size, seed=0)


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
    return engine._round.astype(np.int64) * 16 + engine._trick


def begin(engine: BatchedTake5, worlds: np.ndarray, plans: list[Any], noise: np.ndarray, actions: np.ndarray,
          player: int, params: Any) -> tuple[Ctx, np.ndarray]:
    """Step the candidates, then set up the rollouts (``agents.kit.BatchRollout.begin``)."""
    R, n = engine.batch_size, engine.num_players
    round0 = engine._round.astype(np.int64).copy()
    rewards = engine.step(actions).astype(np.float64)
    plan_w = np.full((len(plans), n), -1, np.int64)
    for w, plan in enumerate(plans):
        for q, c in (plan or {}).items():
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
    over = engine.terminated | (engine._round != ctx.round0)
    cut = (engine._phase == PLAY) & (_tid(engine) >= ctx.stop_at)
    return over | cut


def _hands(engine: BatchedTake5, g: np.ndarray) -> np.ndarray:
    """int64 [m, n, 10]: each seat's cards in games ``g``, ascending, padded with -1."""
    n = engine.num_players
    loc = engine._loc[g, :NUM_CARDS]
    bb, cc = np.nonzero(loc < n)
    key = (bb * n + loc[bb, cc].astype(np.int64)) * 128 + cc
    key.sort()
    grp, cards = key >> 7, key & 127
    cnt = np.bincount(grp, minlength=g.size * n)
    start = np.cumsum(cnt) - cnt
    pos = np.arange(key.size) - start[grp]
    out = np.full((g.size * n, _HAND), -1, np.int64)
    out[grp, pos] = cards
    return out.reshape(g.size, n, _HAND)


def _rows_of(engine: BatchedTake5, g: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row ends (last card ids), lengths and bull heads of games ``g``: int64 [m, 4] each."""
    ends = (engine._rkey[:, g] >> engine._shift).T.astype(np.int64)
    return ends, engine._rlen[:, g].T.astype(np.int64), engine._rbull[:, g].T.astype(np.int64)


def closest_cards(cards: np.ndarray, ends: np.ndarray, lens: np.ndarray, bulls: np.ndarray) -> np.ndarray:
    """``rollouts.rollout_card`` for every hand at once: ``cards`` int [m, s, 10] (ascending, -1 pads),
    the rows of each game [m, 4]; returns the chosen card ids [m, s] (no take if avoidable, then the
    smallest gap; the lowest card among equals)."""
    c = cards[..., None]                                                     # [m, s, 10, 1]
    e = ends[:, None, None, :]
    below = e < c
    cand = np.where(below, e, -2)
    tr = cand.argmax(axis=3)                                                 # [m, s, 10]
    tend = cand.max(axis=3)
    ok = below.any(axis=3)
    m = cards.shape[0]
    gi = np.arange(m)[:, None, None]
    full = lens[gi, tr] == ROW_LIMIT
    key = np.where(ok, np.where(full, bulls[gi, tr] << 10, 0) + (cards - tend),
                   (bulls.min(axis=1)[:, None, None] << 10) + 200)
    key = np.where(cards >= 0, key, _BIG)
    best = key.argmin(axis=2)
    return np.take_along_axis(cards, best[..., None], axis=2)[..., 0]


def _choose_trick(engine: BatchedTake5, ctx: Ctx, g: np.ndarray, guide: Any) -> None:
    """Every seat's card of the current trick in games ``g`` (play phase, a trick not yet chosen for), the
    random numbers consumed in seat order as the reference rollouts consume them."""
    n = engine.num_players
    params = ctx.params
    eps = float(params.eps)
    cards = _hands(engine, g)                                                # [m, n, 10]
    size = (cards >= 0).sum(axis=2)
    cur = engine._cur[g].astype(np.int64)
    tid = _tid(engine)[g]
    planned = (ctx.plan[g] >= 0) & (tid == ctx.first[g])[:, None]            # [m, n]
    deciding = (np.arange(n)[None, :] >= cur[:, None]) & ~planned & (size > 0)
    if params.rollout == "policy":
        greedy = _policy_cards(engine, g, deciding, guide)
    else:
        ends, lens, bulls = _rows_of(engine, g)
        greedy = closest_cards(cards, ends, lens, bulls)
    choice = np.where(planned, ctx.plan[g], greedy)
    consume = eps > 0 or params.rollout != "policy"  # the heuristic rollouts draw a number per decision
    if consume:
        k = ctx.k[g]
        L = ctx.noise.shape[1]
        for q in range(n):
            dec = deciding[:, q]
            u = ctx.noise[g, k % L]
            rnd = dec & (u < eps)
            if rnd.any():
                idx = np.minimum((u[rnd] / eps * size[rnd, q]).astype(np.int64), size[rnd, q] - 1)
                choice[rnd, q] = cards[rnd, q, idx]
            k = k + dec
        ctx.k[g] = k
    ctx.choice[g] = choice
    ctx.stamp[g] = tid


def _policy_cards(engine: BatchedTake5, g: np.ndarray, deciding: np.ndarray, guide: Any) -> np.ndarray:
    """The policy's greedy card for every deciding seat of games ``g`` (one forward pass), [m, n]."""
    n = engine.num_players
    out = np.zeros(deciding.shape, np.int64)
    obs_rows, mask_rows, where = [], [], []
    hand_codes = engine._loc[g, :NUM_CARDS]
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
    """Every row's next move (``agents.kit.BatchRollout.act``)."""
    R = engine.batch_size
    phase = engine._phase
    mask = engine.legal_action_mask
    actions = mask.argmax(axis=1).astype(np.int64)                           # rows not active: any legal move
    play = active & (phase == PLAY)
    need = np.flatnonzero(play & (ctx.stamp != _tid(engine)))
    if need.size:
        _choose_trick(engine, ctx, need, guide)
    p = np.flatnonzero(play)
    actions[p] = ctx.choice[p, engine._cur[p].astype(np.int64)]
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
        key = np.where(engine._loc[dr, :NUM_CARDS] == POOL, _DRAFT_KEY, _BIG)
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
        cut = np.flatnonzero(~over & (engine._round[rows] == ctx.round0[rows]))
        if cut.size:
            g = rows[cut]
            for q in range(n):
                obs = engine.observe_as(np.full(engine.batch_size, q))[g]
                mask = np.zeros((g.size, engine.num_actions), np.int8)
                mask[:, :NUM_CARDS] = engine._loc[g, :NUM_CARDS] == q
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


__all__ = ["Ctx", "act", "begin", "closest_cards", "make_engine", "stop", "value"]
