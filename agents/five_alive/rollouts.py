"""5 Alive's hooks for the search agent (``fiveplay_env.agents.search``): rollouts and the opponent model.

``observe`` follows the public events (the others' plays read as five-alive-attacker's, giving beliefs
about their hands), ``prepare`` is empty (nothing is shared between the candidates of one world), and
``simulate`` plays a candidate and rolls out with epsilon-greedy five-alive-attacker to the end of the
round (or ``depth`` turns), scoring lives and the game result.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from fiveplay_env.five_alive.determinize import ALL_KINDS
from fiveplay_env.agents.five_alive.heuristics import EMERGENCY_ORDER, attacker_card, saver_card
from fiveplay_env.five_alive import engine as faeng
from fiveplay_env.five_alive import observation as faobs
from fiveplay_env.five_alive.state import (
    BOMB, BOMB_ANSWER, BUST, DRAW1, DRAW2, MAX_TOTAL, N0, NUM_ACTIONS, NUM_NUMBERS, OVER, REDEAL, FiveAliveState,
)

WIN_WEIGHT = 3.0  # value of a decided game (+1 win / -1 loss) in lives


# The rollout policy is five-alive-saver: the largest number that fits, then a 0, then a wild card in
# ``EMERGENCY_ORDER``; BUST if nothing is playable (one definition, the heuristic's).
rollout_card = saver_card


SPECIAL_BITS = (1 << BOMB) | (1 << DRAW1) | (1 << DRAW2) | (1 << REDEAL)


def attacker_excludes(kind: int, total: int) -> int:
    """Kinds (bit set) a five-alive-attacker cannot have held when it played ``kind`` at ``total``:
    a number v means no larger number that fit; a 0, no number 1.. that fit; a wild card other than
    Bomb, Draw and Re-Deal (which it may play on purpose), no number that fit, no 0, and none of the
    wild cards it spends before that one (``EMERGENCY_ORDER``)."""
    fit = min(NUM_NUMBERS - 1, MAX_TOTAL - total)
    if kind < NUM_NUMBERS:
        lo = kind + 1 if kind > 0 else 1
        return sum(1 << v for v in range(lo, fit + 1))
    if kind in (BOMB, DRAW1, DRAW2, REDEAL):
        return 0
    bits = sum(1 << v for v in range(0, fit + 1))
    for k in EMERGENCY_ORDER:
        if k == kind:
            break
        bits |= 1 << k
    return bits


def observe(info: Any, memory: dict[str, Any], params: Any) -> None:
    """Follow the last public event (``model=heuristic``): read every other player's play as
    five-alive-attacker's and keep, per player, the kinds its hand may still hold
    (``memory["facts"]``). A player's beliefs are dropped when its hand gains cards (draws, a
    Re-Deal, a new round) or when it plays or discards a kind they excluded (it is not playing like
    the model); all are dropped if a step was missed."""
    event = info.public_event()
    turns = event["turns"]
    last = memory.get("turns")
    if last is None or turns < last:  # a new game (or the first call)
        memory.clear()
        memory.update(turns=turns, total=event["total"] if turns else 0, facts={})
        return
    if turns == last:
        return
    facts: dict[int, int] = memory["facts"]
    if turns != last + 1:
        facts.clear()
    else:
        _update_facts(facts, event, memory["total"], info.player)
    memory["turns"] = turns
    memory["total"] = event["total"]


def _update_facts(facts: dict[int, int], event: dict[str, Any], total_before: int, me: int) -> None:
    p, a = event["player"], event["action"]
    if event["dealer"] is not None or (a == REDEAL and not event["bomb_answer"]):
        facts.clear()  # hands were dealt again
        return
    for q in list(event["drawn"]) + list(event["eliminated"]):
        facts.pop(q, None)
    for q in event["zeros_discarded"]:
        if q in facts and not (facts[q] >> N0) & 1:
            del facts[q]
    if p < 0 or p == me or event["bomb_answer"] or a == BUST:
        if event["bomb_answer"] and a == N0 and p in facts and not (facts[p] >> N0) & 1:
            del facts[p]
        return
    allowed = facts.get(p, ALL_KINDS)
    if not (allowed >> a) & 1:
        allowed = ALL_KINDS  # it held a kind we had ruled out: the model does not fit this player
    allowed &= ~attacker_excludes(a, total_before)
    if allowed == ALL_KINDS:
        facts.pop(p, None)
    else:
        facts[p] = allowed


def _attacker(s: FiveAliveState, q: int, teams: bool) -> int:
    """five-alive-attacker's card for player q, from the state (opponents: the other survivors;
    teams: the other team)."""
    opp = [r for r in range(s.num_players) if r != q and s.alive[r] and (not teams or r % 2 != q % 2)]
    return attacker_card(s.hands[q], s.total, s.hand_size[q], [s.hand_size[r] for r in opp],
                         [s.lives[r] for r in opp])


def prepare(world: faeng.FiveAliveEngine, player: int, params: Any) -> None:
    """Nothing is shared between the candidates of one world beyond the world itself."""
    return None


def simulate(world: faeng.FiveAliveEngine, action: int, player: int, noise: list[float],
                        plan: Any, params: Any) -> float:
    """Play ``action`` in ``world``, roll out to the end of the round (or of the game, or ``depth``
    turns if given, then estimating the round end from the hand sizes; with ``insure`` the searcher's own
    later moves keep its last 0 while the Bomb is unplayed) with the rollout
    policy (epsilon-greedy five-alive-attacker, which is five-alive-saver unless it holds a Bomb, Draw or
    Re-Deal card), and return ``own lives change - rel * mean(other players'
    lives change) + 3 * result`` (result: +1 won, -1 lost, 0 undecided; the "lives" are the team's in
    teams).

    The random numbers are read in order, one per rollout decision that is not a Bomb answer: ``noise[k %
    len(noise)]`` for the k-th; an insured move of the searcher does not move that position (it used to
    jump: the loop over ``EMERGENCY_ORDER`` reused the name ``k``; CHANGELOG, Unreleased).
    ``fiveplay_env.agents.five_alive.compiled.evaluate`` computes the same values in compiled code."""
    cfg = world.config
    s = world.state
    step = faeng.step
    lives0 = s.lives[:]
    alive0 = s.alive[:]
    step(cfg, s, action)
    r0 = s.round
    eps = params.eps
    noise_len = len(noise)
    k = 0
    bits_of = faeng.legal_bits
    teams = cfg.variant == "teams"
    insure = params.insure
    limit = params.depth if params.depth else 400  # 400: a round cannot last forever, but guard anyway
    while s.phase != OVER and s.round == r0 and limit:
        limit -= 1
        if s.phase == BOMB_ANSWER:
            a = N0 if s.hands[s.current][N0] else BUST
        else:
            u = noise[k % noise_len]
            k += 1
            if u < eps:
                bits = bits_of(s)
                legal = [b for b in range(NUM_ACTIONS) if (bits >> b) & 1]
                a = legal[int(u / eps * len(legal))]
            else:
                q = s.current
                if s.held[q] & SPECIAL_BITS:
                    a = _attacker(s, q, teams)
                else:
                    a = rollout_card(s.hands[q], s.total)
                if a == N0 and q == player and insure and s.hands[q][N0] == 1 and s.discard[BOMB] == 0:
                    # The searcher's own later play keeps its last 0 against the Bomb, as its search
                    # does, spending a wild card instead where it has one.
                    h = s.hands[q]
                    for w in EMERGENCY_ORDER:
                        if h[w]:
                            a = w
                            break
        step(cfg, s, a)
    return score(cfg, s, r0, lives0, alive0, player, params)


def score(cfg: Any, s: FiveAliveState, r0: int, lives0: list[int], alive0: list[bool], player: int,
          params: Any) -> float:
    """A rollout's value for ``player`` (see ``simulate``), from the round it started in, and the lives
    and the living players before it."""
    n = s.num_players
    delta = [float(s.lives[q] - lives0[q]) for q in range(n)]
    if s.phase != OVER and s.round == r0:
        # Stopped at the depth limit: the round end is still to come. Estimate it: everyone but the
        # player(s) with the fewest cards loses a life (k tied players: each loses with chance (k-1)/k).
        alive = [q for q in range(n) if s.alive[q]]
        low = min(s.hand_size[q] for q in alive)
        tied = sum(1 for q in alive if s.hand_size[q] == low)
        for q in alive:
            delta[q] -= (tied - 1) / tied if s.hand_size[q] == low else 1.0
    others = [q for q in range(n) if q != player and alive0[q]]
    if cfg.variant == "teams":
        others = [q for q in others if q % 2 != player % 2]
    if params.alpha:
        # Contest value: the chance to win estimated from the lives left, l^alpha / sum of l^alpha
        # over the contenders (teams: the two teams); a decided game counts 1 or 0.
        if s.result[player]:
            return 1.0 if s.result[player] > 0 else 0.0
        left = [max(0.0, lives0[q] + delta[q]) for q in range(n)]
        rivals = others[:1] if cfg.variant == "teams" else others
        mine = left[player] ** params.alpha
        total = mine + sum(left[q] ** params.alpha for q in rivals)
        return mine / total if total > 0 else 0.0
    value = delta[player]
    if others and params.rel:
        value -= params.rel * sum(delta[q] for q in others) / len(others)
    if s.phase == OVER or s.result[player]:
        value += WIN_WEIGHT * s.result[player]
    return value


def simulate_policy(jobs: list[tuple[faeng.FiveAliveEngine, int, list[float], Any]], player: int, params: Any,
                    guide: Any) -> list[float]:
    """``simulate`` for a batch of rollouts whose players choose with a learned policy (``rollout=policy``).

    ``jobs``: ``(world, action, noise, plan)`` per rollout (each world a private clone). Every rollout
    plays ``action``, then all run in lockstep: each step, the acting player of every unfinished rollout
    is one row of a single forward pass of ``guide`` (``guide.evaluate(observations, masks) -> (logits,
    values)``) on that player's own observation of its world (the engine's encoder); it plays the
    policy's most probable legal action (greedy), or with chance ``eps`` (the world's noise, as in
    ``simulate``) a random legal one. A Bomb answer stays the rule's (a 0 if held); ``insure`` does not
    apply (the policy plays the searcher's later moves too). Stops and scores as ``simulate``.

    With ``value=1`` (and ``depth=D``) a rollout instead goes on across round ends until the searcher
    is about to make its D-th decision after ``action``, and its value is the policy's value head on
    the searcher's own observation there (its estimate of the game's outcome, in the training reward's
    units times ``guide.points``: +1 won / -1 lost for the shipped 5 Alive policy), computed in the same
    forward pass as the other rows; a rollout in which the searcher's result is decided first (the game
    over, or the searcher eliminated) is worth that result, +-1 times ``guide.points``."""
    if not jobs:
        return []
    cfg = jobs[0][0].config
    step = faeng.step
    eps = params.eps
    leaf = bool(params.value)
    guard = 4000 if leaf else (params.depth if params.depth else 400)  # turns; a game cannot last forever
    points = float(getattr(guide, "points", 1.0))
    runs = []
    for world, action, noise, _plan in jobs:
        s = world.state
        lives0, alive0 = s.lives[:], s.alive[:]
        step(cfg, s, action)
        runs.append([s, lives0, alive0, noise, 0, s.round, guard, params.depth])
    values = [0.0] * len(jobs)
    active = list(range(len(jobs)))
    while active:
        still: list[int] = []
        obs: list[Any] = []
        masks: list[Any] = []
        leaves: list[bool] = []
        for j in active:
            run = runs[j]
            s, r0 = run[0], run[5]
            while s.phase == BOMB_ANSWER and run[6]:
                run[6] -= 1
                step(cfg, s, N0 if s.hands[s.current][N0] else BUST)
            at_leaf = False
            if leaf:
                if s.phase == OVER or s.result[player]:
                    values[j] = points * float(s.result[player])
                    continue
                if not run[6]:  # pragma: no cover - the guard of a game that would not end
                    values[j] = 0.0
                    continue
                if s.current == player:
                    run[7] -= 1
                    at_leaf = run[7] <= 0
            elif s.phase == OVER or s.round != r0 or not run[6]:
                values[j] = score(cfg, s, r0, run[1], run[2], player, params)
                continue
            still.append(j)
            leaves.append(at_leaf)
            obs.append(faobs.observe(cfg, s, s.current))
            masks.append(faeng.legal_mask(s))
        if not still:
            break
        logits, vals = guide.evaluate(np.stack(obs), np.stack(masks))
        best = logits.argmax(axis=1)
        nxt: list[int] = []
        for i, j in enumerate(still):
            if leaves[i]:
                values[j] = points * float(vals[i])
                continue
            run = runs[j]
            s, noise, k = run[0], run[3], run[4]
            a = int(best[i])
            if eps:
                u = noise[k % len(noise)]
                run[4] = k + 1
                if u < eps:
                    legal = np.flatnonzero(masks[i])
                    a = int(legal[int(u / eps * len(legal))])
            run[6] -= 1
            step(cfg, s, a)
            nxt.append(j)
        active = nxt
    return values
