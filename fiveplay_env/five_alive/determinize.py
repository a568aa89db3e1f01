"""5 Alive determinization: the hidden cards of one player's information set, put in a canonical
arrangement (``canonical``) and re-dealt at random (``sample_world``). Both games' modules of this name
have the same two functions with the same signatures.

Hidden from ``player``: the other survivors' hands and the draw pile. ``sample_world`` re-deals them
from their combined composition, honouring the public facts the state records (forced busts, Bomb
answers, what a reshuffle or Re-Deal revealed); as canonical copy we take one such world drawn with a
fixed generator: it depends only on what ``player`` knows, except in the rare case where the sampler
falls back on the true draw pile's composition (documented in ``engine.sample_world``).

Beliefs (the search agent's opponent model): ``condition(config, canonical, facts)`` records "player
q's whole hand is of kinds in ``facts[q]``" on the canonical state (``engine.add_known`` keeps the
facts a laminar family), and ``sample_conditioned`` draws a world honouring every recorded fact by
construction (``RuntimeError`` when no try finds one).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from fiveplay_env.five_alive import engine as _engine
from fiveplay_env.five_alive.config import FiveAliveConfig
from fiveplay_env.five_alive.state import NUM_KINDS, FiveAliveState

CANONICAL_SEED = 0x5A11
"""The fixed generator seed of ``canonical``'s world."""

__all__ = ["ALL_KINDS", "CANONICAL_SEED", "Conditioned", "canonical", "condition", "sample", "sample_conditioned",
           "sample_world"]


def sample_world(config: FiveAliveConfig, state: FiveAliveState, player: int,
                 rng: np.random.Generator) -> FiveAliveState:
    """A determinization: a copy of ``state`` whose cards ``player`` cannot see are re-dealt from ``rng``."""
    return _engine.sample_world(state, player, rng)


def canonical(config: FiveAliveConfig, state: FiveAliveState, player: int) -> FiveAliveState:
    """One world drawn with the fixed generator ``CANONICAL_SEED`` (``sample_world``'s input)."""
    return _engine.sample_world(state, player, np.random.default_rng(CANONICAL_SEED))


ALL_KINDS = (1 << NUM_KINDS) - 1
"""Bit set of every card kind (a belief that rules nothing out)."""


class Conditioned:
    """A canonical state plus beliefs about hidden hands (see ``condition``)."""

    __slots__ = ("state",)

    def __init__(self, state: FiveAliveState) -> None:
        self.state = state


def sample_conditioned(config: FiveAliveConfig, conditioned: Conditioned, player: int,
                       rng: np.random.Generator) -> FiveAliveState:
    """A world honouring every belief of ``conditioned`` (``RuntimeError`` if no try finds one)."""
    world = _sample_conditioned(conditioned.state, player, rng)
    if world is None:
        raise RuntimeError("no deal satisfies the beliefs")  # InformationSet.sample then drops them
    return world


def sample(config: FiveAliveConfig, state: Any, player: int, rng: np.random.Generator) -> FiveAliveState:
    """``sample_conditioned`` for a ``Conditioned`` state, the game's ``sample_world`` otherwise."""
    if isinstance(state, Conditioned):
        return sample_conditioned(config, state, player, rng)
    return _engine.sample_world(state, player, rng)


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
        _engine.refresh(world)
        world.seed = int(rng.integers(0, 2**63))
        return world
    return None


def condition(config: FiveAliveConfig, canonical: FiveAliveState, facts: dict[int, int]) -> Conditioned:
    """The canonical state with "player q's whole hand is of kinds in ``facts[q]``" recorded as
    knowledge (``engine.add_known``, which keeps the facts a laminar family), sampled by
    ``_sample_conditioned``."""
    state = canonical.clone()
    for q, allowed in facts.items():
        if state.alive[q] and state.hand_size[q] > 0 and allowed != ALL_KINDS:
            _engine.add_known(state, q, allowed, state.hand_size[q])
    return Conditioned(state)
