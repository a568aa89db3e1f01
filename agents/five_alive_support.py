"""5 Alive support for agents and tournaments: the game adapter and the search agent's rollouts.

Adapter (see ``agents.games``): results per seat are ``win`` (winners share: 1/k each of k winners,
except in teams where each member of the winning team wins), ``placing`` (1 = winner; then by how late
a player was eliminated, survivors first, then by lives left) and ``lives`` (lives left at the end).

Determinization: ``engine.sample_world(state, player, rng)`` re-deals the other hands and the draw pile
from their combined composition (per kind: canonical), honouring the public facts the state records
(forced busts, Bomb answers, what a reshuffle or Re-Deal revealed). As canonical copy we take one such
world drawn with a fixed generator: it depends only on what ``player`` knows, except in the rare case
where ``sample_world`` falls back on the true draw pile's composition (documented there).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from agents.five_alive_heuristics import EMERGENCY_ORDER, attacker_card
from fiveplay_env.five_alive import engine as faeng
from fiveplay_env.five_alive.config import FiveAliveConfig
from fiveplay_env.five_alive.observation import observe
from fiveplay_env.five_alive.state import (
    BOMB, BOMB_ANSWER, BUST, DRAW1, DRAW2, MAX_TOTAL, N0, NUM_ACTIONS, NUM_KINDS, NUM_NUMBERS, OVER, REDEAL,
    FiveAliveState,
)

CANONICAL_SEED = 0x5A11


def _canonical(config: FiveAliveConfig, state: FiveAliveState, player: int) -> FiveAliveState:
    return faeng.sample_world(state, player, np.random.default_rng(CANONICAL_SEED))


class Conditioned:
    """A canonical state plus beliefs about hidden hands (see ``_condition``)."""

    __slots__ = ("state",)

    def __init__(self, state: FiveAliveState) -> None:
        self.state = state


def _sample(config: FiveAliveConfig, state: Any, player: int, rng: np.random.Generator) -> FiveAliveState:
    if isinstance(state, Conditioned):
        world = _sample_conditioned(state.state, player, rng)
        if world is None:
            raise RuntimeError("no deal satisfies the beliefs")  # InformationSet.sample then drops them
        return world
    return faeng.sample_world(state, player, rng)


CONDITIONED_TRIES = 24


def _slot_demands(state: FiveAliveState, others: list[int]) -> list[tuple[int, int, int, int]]:
    """Each player's recorded facts (a laminar family: "at least c cards of kinds in A") as disjoint
    slot demands (popcount of A, player, A, slots), tightest first."""
    demands = []
    for q in others:
        placed: list[tuple[int, int]] = []
        for a, c in sorted(state.known[q].items(), key=lambda f: bin(f[0]).count("1")):
            inside = sum(n for b, n in placed if b & a == b)
            if c > inside:
                placed.append((a, c - inside))
                demands.append((bin(a).count("1"), q, a, c - inside))
    demands.sort()
    return demands


def _sample_conditioned(state: FiveAliveState, player: int, rng: np.random.Generator) -> FiveAliveState | None:
    """A determinization honouring every fact in ``state.known`` (the engine's and the model's) by
    construction: hands are dealt first from the shuffled hidden cards, constrained slots tightest first,
    and the cards left form the draw pile (re-tried while the draw pile breaks ``draw_cap``).
    None if no try succeeds."""
    others = [q for q in range(state.num_players) if q != player and state.alive[q]]
    pool = state.draw_counts()
    for q in others:
        for k in range(NUM_KINDS):
            pool[k] += state.hands[q][k]
    cards = [k for k in range(NUM_KINDS) for _ in range(pool[k])]
    demands = _slot_demands(state, others)
    cap = state.draw_cap[player]
    for _ in range(CONDITIONED_TRIES):
        rng.shuffle(cards)
        hands = {q: [0] * NUM_KINDS for q in others}
        need = {q: state.hand_size[q] for q in others}
        left = cards
        ok = True
        for _, q, allowed, slots in demands:
            keep = []
            for k in left:
                if slots and (allowed >> k) & 1:
                    hands[q][k] += 1
                    slots -= 1
                    need[q] -= 1
                else:
                    keep.append(k)
            left = keep
            if slots:
                ok = False
                break
        if not ok:
            continue
        pos = 0
        for q in others:
            for k in left[pos:pos + need[q]]:
                hands[q][k] += 1
            pos += need[q]
        draw = left[pos:]
        if cap is not None:
            counts = [0] * NUM_KINDS
            for k in draw:
                counts[k] += 1
            if any(c > m for c, m in zip(counts, cap)):
                continue
        world = state.clone()
        world.draw = list(draw)
        for q in others:
            world.hands[q] = hands[q]
        faeng.refresh(world)
        world.seed = int(rng.integers(0, 2**63))
        return world
    return None


def _results(engine: faeng.FiveAliveEngine, elimination_turn: list[int | None]) -> dict[str, list[float]]:
    state = engine.state
    n = state.num_players
    win = list(state.winners) if state.phase == OVER else []
    teams = engine.config.variant == "teams"
    share = 1.0 if teams else (1.0 / len(win) if win else 0.0)
    big = 1 << 40
    keys = []
    for p in range(n):
        turn = elimination_turn[p]
        keys.append((0 if p in win else 1, -(turn if turn is not None else big), -state.lives[p]))
    from agents.games import placings

    return {
        "placing": [float(x) for x in placings(keys)],
        "lives": [float(v) for v in state.lives],
        "win": [share if p in win else 0.0 for p in range(n)],
    }


def _public_event(state: FiveAliveState) -> dict[str, Any]:
    event = faeng.last_event(state)
    event["turns"] = state.turns
    return event


def _condition(config: FiveAliveConfig, canonical: FiveAliveState, facts: dict[int, int]) -> Conditioned:
    """The canonical state with "player q's whole hand is of kinds in ``facts[q]``" recorded as
    knowledge (``engine.add_known``, which keeps the facts a laminar family), sampled by
    ``_sample_conditioned``."""
    state = canonical.clone()
    for q, allowed in facts.items():
        if state.alive[q] and state.hand_size[q] > 0 and allowed != ALL_KINDS:
            faeng.add_known(state, q, allowed, state.hand_size[q])
    return Conditioned(state)


def make_game(game_cls: type, metric_cls: type, placings: Any) -> Any:
    """The ``agents.games.Game`` of 5 Alive (called by ``agents.games``)."""
    from fiveplay_env import five_alive_v0

    return game_cls(
        name="five_alive",
        config_cls=FiveAliveConfig,
        engine_cls=faeng.FiveAliveEngine,
        num_actions=NUM_ACTIONS,
        env_module=five_alive_v0,
        observe_state=observe,
        canonical=_canonical,
        sample_world=_sample,
        results=_results,
        metrics=(
            metric_cls("placing", True, "finishing place, 1 = winner, then by elimination order (later is better)"),
            metric_cls("lives", False, "lives left at the end (higher is better)"),
        ),
        alive=lambda state: state.alive,
        public_event=_public_event,
        condition=_condition,
    )


# --- rollouts ------------------------------------------------------------------------------------------

WIN_WEIGHT = 3.0  # value of a decided game (+1 win / -1 loss) in lives


def rollout_card(hand: list[int], total: int) -> int:
    """The rollout policy (five-alive-saver, inlined for speed): the largest number that fits, then a 0,
    then a wild card in ``EMERGENCY_ORDER``; BUST if nothing is playable."""
    v = MAX_TOTAL - total
    if v > NUM_NUMBERS - 1:
        v = NUM_NUMBERS - 1
    while v > 0:
        if hand[v]:
            return v
        v -= 1
    if hand[N0]:
        return N0
    for k in EMERGENCY_ORDER:
        if hand[k]:
            return k
    return BUST


SPECIAL_BITS = (1 << BOMB) | (1 << DRAW1) | (1 << DRAW2) | (1 << REDEAL)
ALL_KINDS = (1 << NUM_KINDS) - 1


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


def five_alive_observe(info: Any, memory: dict[str, Any], params: Any) -> None:
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


def five_alive_prepare(world: faeng.FiveAliveEngine, player: int, params: Any) -> None:
    """Nothing is shared between the candidates of one world beyond the world itself."""
    return None


def five_alive_simulate(world: faeng.FiveAliveEngine, action: int, player: int, noise: list[float],
                        plan: Any, params: Any) -> float:
    """Play ``action`` in ``world``, roll out to the end of the round (or of the game, or ``depth``
    turns if given, then estimating the round end from the hand sizes; with ``insure`` the searcher's own
    later moves keep its last 0 while the Bomb is unplayed) with the rollout
    policy (epsilon-greedy five-alive-attacker, which is five-alive-saver unless it holds a Bomb, Draw or
    Re-Deal card), and return ``own lives change - rel * mean(other players'
    lives change) + 3 * result`` (result: +1 won, -1 lost, 0 undecided; the "lives" are the team's in
    teams)."""
    cfg = world.config
    s = world.state
    n = s.num_players
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
                    for k in EMERGENCY_ORDER:
                        if h[k]:
                            a = k
                            break
        step(cfg, s, a)
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
