"""Take 5's hooks for the search agent (``fiveplay_env.agents.search``): the opponent model and fast rollouts.

``prepare`` predicts, once per world, the other players' cards of the current trick with the opponent
model (take5-safest from each one's own point of view); ``simulate`` plays a candidate and rolls out to
the end of the round with epsilon-greedy take5-closest, and scores the bull heads taken.
"""
from __future__ import annotations

import bisect
import dataclasses
from typing import Any

import numpy as np

from fiveplay_env.agents.take5.heuristics import row_bulls, safest_card
from fiveplay_env.take5 import engine as t5eng
from fiveplay_env.take5 import observation as t5obs
from fiveplay_env.take5.state import (
    ACTION_ROW0, BULL, DRAFT, NUM_CARDS, NUM_ROWS, OVER, PLAY, ROW_CHOICE, ROW_LIMIT,
)

def rollout_card(hand: list[int], rows: list[list[int]]) -> int:
    """The rollout policy's card: no take if avoidable, then the smallest gap (take5-closest, fast)."""
    ends = sorted([(rows[r][-1], r) for r in range(NUM_ROWS)])
    end_vals = [e for e, _ in ends]
    best, best_key = hand[0], (1 << 30)
    min_bulls = -1
    for c in hand:
        i = bisect.bisect_left(end_vals, c)
        if i == 0:
            if min_bulls < 0:
                min_bulls = min(row_bulls(row) for row in rows)
            key = (min_bulls << 10) + 200
        else:
            e, r = ends[i - 1]
            row = rows[r]
            key = ((row_bulls(row) << 10) if len(row) == ROW_LIMIT else 0) + (c - e)
        if key < best_key:
            best, best_key = c, key
    return best


_ROUND_CONFIGS: dict[Any, Any] = {}


def _round_config(config: Any) -> Any:
    """The same rules with ``mode="round"``: the rollout stops at the round's end, and the engine then
    ends the game instead of dealing a next round nobody will play (a measurable saving)."""
    cfg = _ROUND_CONFIGS.get(config)
    if cfg is None:
        cfg = _ROUND_CONFIGS[config] = dataclasses.replace(config, mode="round")
    return cfg


def prepare(world: t5eng.Take5Engine, player: int, params: Any) -> dict[int, int] | None:
    """Opponent model for the current trick (``model=heuristic``): in the determinization, every other
    player's card for this trick is the one take5-safest would choose from its (sampled) hand, judged
    from that player's own point of view. Players who already chose get that card as their hidden
    choice; the others' choices are returned as the plan, played when their turn comes in the
    rollout's first trick. None when there is nothing to predict."""
    s = world.state
    if params.model != "heuristic" or s.phase != PLAY:
        return None
    n = s.num_players
    deck = world.config.deck_size
    base_unseen = np.flatnonzero(s.seen[:deck] == 0).tolist()
    rows = s.rows
    plan: dict[int, int] = {}
    for q in range(n):
        if q == player:
            continue
        hand = np.flatnonzero(s.hands[q, :NUM_CARDS]).tolist()
        chosen = s.pending[q]
        if chosen >= 0:
            hand = sorted(hand + [chosen])
        if not hand:
            continue
        mine = set(hand)
        unseen = [c for c in base_unseen if c not in mine]
        c = safest_card(hand, rows, unseen, n - 1)
        if chosen >= 0:
            if c != chosen:
                s.hands[q, chosen] = 1
                s.hands[q, c] = 0
                s.pending[q] = c
        else:
            plan[q] = c
    return plan


def simulate(world: t5eng.Take5Engine, action: int, player: int, noise: list[float],
                   plan: dict[int, int] | None, params: Any) -> float:
    """Play ``action`` in ``world`` (a determinization), roll out to the end of the round and score it.

    Rollout policy: the other players' cards of the current trick come from the plan (the opponent
    model); every other card is epsilon-greedy take5-closest (with probability ``eps`` a random card
    of the hand), or with ``rollout=strong`` epsilon-greedy take5-safest (each player judging from what it
    has seen: its hand and the cards revealed this round); a row choice takes the cheapest row. Value: ``own gain - rel * mean(other players'
    gains)`` (gains are minus the bull heads taken), plus ``win`` times the searcher's win share if
    the game ends with this round.
    """
    config = world.config
    cfg = _round_config(config)
    s = world.state
    n = s.num_players
    step = t5eng.step
    gains = [0] * n
    rw = step(cfg, s, action)
    if any(rw):
        for q in range(n):
            gains[q] += rw[q]
    r0 = s.round
    trick0 = s.trick
    hands: list[list[int]] | None = None
    eps = params.eps
    noise_len = len(noise)
    k = 0
    stop = trick0 + params.depth if params.depth else 1 << 30
    strong = params.rollout == "strong"
    deck = config.deck_size
    while s.phase != OVER and s.round == r0 and s.trick < stop:
        phase = s.phase
        if phase == PLAY:
            if hands is None:
                hands = [np.flatnonzero(s.hands[q, :NUM_CARDS]).tolist() for q in range(n)]
            q = s.current
            h = hands[q]
            if plan and s.trick == trick0 and q in plan:
                c = plan[q]
            else:
                u = noise[k % noise_len]
                k += 1
                if u < eps:
                    c = h[int(u / eps * len(h))]
                elif strong:  # take5-safest from q's own point of view: the cards it has not seen this round
                    unseen = [x for x in range(deck) if not s.seen[x] and x not in h]
                    c = safest_card(h, s.rows, unseen, n - 1)
                else:
                    c = rollout_card(h, s.rows)
            h.remove(c)
            a = c
        elif phase == ROW_CHOICE:
            a = ACTION_ROW0 + t5eng.cheapest_row(s.rows)
        elif phase == DRAFT:
            pool = np.flatnonzero(s.pool[:NUM_CARDS]).tolist()
            a = min(pool, key=lambda c: (BULL[c], c))
        else:  # pragma: no cover
            break
        rw = step(cfg, s, a)
        if any(rw):
            for q in range(n):
                gains[q] += rw[q]
    return score(config, s, gains, player, params)


def score(config: Any, s: Any, gains: list[float], player: int, params: Any) -> float:
    """A rollout's value for ``player``: ``own gain - rel * mean(other players' gains)`` (gains in bull
    heads, negative), plus ``win`` times the searcher's win share if the game ended with this round."""
    n = s.num_players
    own = gains[player]
    value = float(own)
    if n > 1 and params.rel:
        value -= params.rel * (sum(gains) - own) / (n - 1)
    if params.win and s.phase == OVER and t5eng.game_over(config, s):
        low = min(s.scores)
        if s.scores[player] == low:
            value += params.win / s.scores.count(low)
    return value


def simulate_policy(jobs: list[tuple[t5eng.Take5Engine, int, list[float], dict[int, int] | None]], player: int,
                    params: Any, guide: Any) -> list[float]:
    """``simulate`` for a batch of rollouts whose players choose with a learned policy (``rollout=policy``).

    ``jobs``: ``(world, action, noise, plan)`` per rollout (each world a private clone). Every rollout
    plays ``action``, then runs in lockstep with the others: at each trick, every player still to choose
    in every rollout is one row of a single forward pass of ``guide`` (``guide.evaluate(observations,
    masks) -> (logits, values)``), on that player's own observation of its world (the engine's encoder:
    its hand and the public table, nothing else); row choices are one more pass. A player plays the
    policy's most probable legal card (greedy), except that with chance ``eps`` (the world's noise, as in
    ``simulate``) it plays a random card of its hand; the current trick's other cards still come from
    ``plan`` (the opponent model) when there is one, and draft picks (the policies were trained without a
    draft) stay the cheapest card. Stops at the end of the round, or after ``depth`` tricks; there, with
    ``value=1``, every player's remaining return is the value head's estimate on its own observation,
    converted to bull heads (``guide.points``: points per value unit), and added to its gains. Scored as
    ``simulate``."""
    if not jobs:
        return []
    config = jobs[0][0].config
    cfg = _round_config(config)
    step = t5eng.step
    eps = params.eps
    runs = []
    for world, action, noise, plan in jobs:
        s = world.state
        n = s.num_players
        gains = [0.0] * n
        rw = step(cfg, s, action)
        for q in range(n):
            gains[q] += rw[q]
        stop = s.trick + params.depth if params.depth else 1 << 30
        runs.append([s, gains, noise, 0, plan, s.trick, s.round, stop])
    values = [0.0] * len(jobs)
    active = list(range(len(jobs)))
    while active:
        obs: list[np.ndarray] = []
        masks: list[np.ndarray] = []
        rows: list[tuple[int, int, int]] = []  # (job, player, kind): kind 0 choose, 1 row choice, 2 value
        still: list[int] = []
        for j in active:
            s, gains, noise, k, plan, trick0, r0, stop = runs[j]
            # Forced moves first: draft picks, the plan's cards of the first trick.
            while s.phase == DRAFT or (s.phase == PLAY and plan and s.trick == trick0 and s.current in plan
                                       and s.pending[s.current] < 0):
                if s.phase == DRAFT:
                    pool = np.flatnonzero(s.pool[:NUM_CARDS]).tolist()
                    a = min(pool, key=lambda c: (BULL[c], c))
                else:
                    a = plan[s.current]
                rw = step(cfg, s, a)
                for q in range(s.num_players):
                    gains[q] += rw[q]
            cut = s.phase == PLAY and s.trick >= stop  # the depth limit, at the start of a trick
            if s.phase == OVER or s.round != r0 or (cut and not params.value):
                values[j] = score(config, s, gains, player, params)
                continue
            still.append(j)
            view = s.view if s.view is not None else t5obs.rebuild(config, s)
            if s.phase == ROW_CHOICE:
                obs.append(view[s.current])
                masks.append(t5eng.legal_mask(s))
                rows.append((j, s.current, 1))
            elif cut:
                for q in range(s.num_players):
                    obs.append(view[q])
                    masks.append(s.hands[q])
                    rows.append((j, q, 2))
            else:  # PLAY: everyone still to choose in this trick, at once (they do not see each other's cards)
                first = plan and s.trick == trick0
                for q in range(s.current, s.num_players):
                    if s.pending[q] < 0 and not (first and q in plan):
                        obs.append(view[q])
                        masks.append(s.hands[q])
                        rows.append((j, q, 0))
        if not still:
            break
        logits, vals = guide.evaluate(np.stack(obs), np.stack(masks))
        best = logits.argmax(axis=1)
        choice: dict[int, dict[int, int]] = {}
        for i, (j, q, kind) in enumerate(rows):
            if kind == 2:
                runs[j][1][q] += float(vals[i]) * guide.points
            else:
                choice.setdefault(j, {})[q] = int(best[i])
        active = []
        for j in still:
            run = runs[j]
            s, gains, noise, k, plan, trick0, r0, stop = run
            if s.phase == PLAY and s.trick >= stop:
                values[j] = score(config, s, gains, player, params)
                continue
            mine = choice.get(j, {})
            if s.phase == ROW_CHOICE:
                rw = step(cfg, s, mine[s.current])
            else:
                t = s.trick
                while s.phase == PLAY and s.trick == t:
                    q = s.current
                    c = plan[q] if (plan and t == trick0 and q in plan) else mine[q]
                    if q in mine and eps:
                        u = noise[k % len(noise)]
                        k += 1
                        if u < eps:
                            hand = np.flatnonzero(s.hands[q, :NUM_CARDS])
                            c = int(hand[int(u / eps * len(hand))])
                    rw = step(cfg, s, c)
                    for q2 in range(s.num_players):
                        gains[q2] += rw[q2]
                    if s.phase != PLAY:
                        break
                run[3] = k
                active.append(j)
                continue
            for q2 in range(s.num_players):
                gains[q2] += rw[q2]
            active.append(j)
    return values
