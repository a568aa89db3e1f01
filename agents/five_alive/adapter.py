"""5 Alive's adapter for agents and tournaments (the ``agents.adapter.Game`` contract).

Results per seat are ``win`` (winners share: 1/k each of k winners, except in teams where each member
of the winning team wins), ``placing`` (1 = winner; then by how late a player was eliminated, survivors
first, then by lives left) and ``lives`` (lives left at the end).

Determinization: ``engine.sample_world(state, player, rng)`` re-deals the other hands and the draw pile
from their combined composition (per kind: canonical), honouring the public facts the state records
(forced busts, Bomb answers, what a reshuffle or Re-Deal revealed). As canonical copy we take one such
world drawn with a fixed generator: it depends only on what ``player`` knows, except in the rare case
where ``sample_world`` falls back on the true draw pile's composition (documented there). Beliefs of
the search agent's opponent model about hidden hands are honoured by ``condition`` (a constructive
conditioned sampler).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from agents.adapter import Game, Metric, placings
from fiveplay_env import five_alive_v0
from fiveplay_env.five_alive import engine as faeng
from fiveplay_env.five_alive.config import FiveAliveConfig
from fiveplay_env.five_alive.observation import observe
from fiveplay_env.five_alive.state import NUM_ACTIONS, NUM_KINDS, OVER, FiveAliveState

ALL_KINDS = (1 << NUM_KINDS) - 1
"""Bit set of every card kind (a belief that rules nothing out)."""

CANONICAL_SEED = 0x5A11


def canonical(config: FiveAliveConfig, state: FiveAliveState, player: int) -> FiveAliveState:
    return faeng.sample_world(state, player, np.random.default_rng(CANONICAL_SEED))


class Conditioned:
    """A canonical state plus beliefs about hidden hands (see ``condition``)."""

    __slots__ = ("state",)

    def __init__(self, state: FiveAliveState) -> None:
        self.state = state


def sample(config: FiveAliveConfig, state: Any, player: int, rng: np.random.Generator) -> FiveAliveState:
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


def results(engine: faeng.FiveAliveEngine, elimination_turn: list[int | None]) -> dict[str, list[float]]:
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
    return {
        "placing": [float(x) for x in placings(keys)],
        "lives": [float(v) for v in state.lives],
        "win": [share if p in win else 0.0 for p in range(n)],
    }


def public_event(state: FiveAliveState) -> dict[str, Any]:
    event = faeng.last_event(state)
    event["turns"] = state.turns
    return event


def condition(config: FiveAliveConfig, canonical: FiveAliveState, facts: dict[int, int]) -> Conditioned:
    """The canonical state with "player q's whole hand is of kinds in ``facts[q]``" recorded as
    knowledge (``engine.add_known``, which keeps the facts a laminar family), sampled by
    ``_sample_conditioned``."""
    state = canonical.clone()
    for q, allowed in facts.items():
        if state.alive[q] and state.hand_size[q] > 0 and allowed != ALL_KINDS:
            faeng.add_known(state, q, allowed, state.hand_size[q])
    return Conditioned(state)


GAME = Game(
    name="five_alive",
    config_cls=FiveAliveConfig,
    engine_cls=faeng.FiveAliveEngine,
    num_actions=NUM_ACTIONS,
    env_module=five_alive_v0,
    observe_state=observe,
    canonical=canonical,
    sample_world=sample,
    results=results,
    metrics=(
        Metric("placing", True, "finishing place, 1 = winner, then by elimination order (later is better)"),
        Metric("lives", False, "lives left at the end (higher is better)"),
    ),
    alive=lambda state: state.alive,
    public_event=public_event,
    condition=condition,
)
"""5 Alive's adapter."""
