"""5 Alive determinization: the cards a player cannot see, re-dealt consistently with public knowledge.

The same two functions, with the same signatures, as ``fiveplay_env.take5.determinize``, plus beliefs:

| function                                     | returns                                                      |
|----------------------------------------------|--------------------------------------------------------------|
| ``canonical(config, state, player)``         | one world drawn with a fixed generator: it depends only on   |
|                                              | what ``player`` knows                                        |
| ``sample_world(config, state, player, rng)`` | a world drawn with ``rng`` (from a state, or from a          |
|                                              | ``Conditioned`` state: then its beliefs are honoured too)    |
| ``condition(config, canonical, facts)``      | a ``Conditioned`` state: extra beliefs about hidden hands    |
| ``sample_conditioned(config, cond, player,`` | ``sample_world`` of a ``Conditioned`` state (the game        |
| ``rng)``                                     | definition's hook; ``RuntimeError`` when no deal is found)   |

Hidden from ``player`` (docs/rules.md 2.8): the other survivors' hands and the draw pile (composition
and order). A world keeps everything ``player`` sees (own hand, T, direction, turn, lives, hand sizes,
draw pile size, discard pile) and every fact the state records (``five_alive.knowledge``: ``known``
about hands, ``draw_cap[player]`` about the draw pile), and gets a fresh seed from ``rng``, so its future
shuffles are not the real ones. Not conditioned on (an approximation): which kinds a player drew from a
draw pile of known composition, and facts about hands from before a Re-Deal.

One sampler, in two orders. Both turn the facts (a laminar family of kind sets per player) into
disjoint slot demands, tightest first (``_slot_demands``), and deal the shuffled hidden cards to those
slots and then to the free ones (``_deal_hands``: greedy is exact for a laminar family):
  * recorded knowledge (``sample_world`` on a state, ``canonical``): the draw pile is filled first, a
    card admitted only while every demand can still be met (Hall's condition per fact set, with the
    caps a polymatroid: one greedy pass always fills it), then the hands. It always succeeds, since the
    true hidden cards satisfy every recorded fact, but is not exactly uniform over the consistent
    worlds when facts or caps apply.
  * beliefs (``condition``: "q's whole hand is of kinds in A", added to the recorded facts): the hands
    first, the cards left forming the draw pile, re-tried (``CONDITIONED_TRIES`` shuffles) while the
    draw pile breaks ``draw_cap``. Beliefs of several players need not nest, so this may find no deal:
    ``sample_world`` then raises ``RuntimeError`` and the caller (``fiveplay_env.agents.base.InformationSet``) drops
    the beliefs.
"""
from __future__ import annotations

import numpy as np

from fiveplay_env.five_alive.config import FiveAliveConfig
from fiveplay_env.five_alive.knowledge import add_known
from fiveplay_env.five_alive.state import ALL_KIND_BITS, NUM_KINDS, OVER, FiveAliveState, expand, refresh

ALL_KINDS = ALL_KIND_BITS
"""Bit set of every card kind (a belief that rules nothing out)."""
CANONICAL_SEED = 0x5A11
"""The fixed generator seed of ``canonical``."""
CONDITIONED_TRIES = 24
"""Shuffles a conditioned sample tries before it gives up."""


class Conditioned:
    """A canonical state plus beliefs about hidden hands (see ``condition``)."""

    __slots__ = ("state",)

    def __init__(self, state: FiveAliveState) -> None:
        self.state = state


def canonical(config: FiveAliveConfig, state: FiveAliveState, player: int) -> FiveAliveState:
    """One world drawn with a fixed generator (``CANONICAL_SEED``): it depends only on what ``player``
    knows, so the worlds sampled from it depend only on that and on their own generator."""
    return _sample_recorded(state, player, np.random.default_rng(CANONICAL_SEED))


def sample_world(config: FiveAliveConfig, state: FiveAliveState | Conditioned, player: int,
                 rng: np.random.Generator) -> FiveAliveState:
    """A determinization: a copy of ``state`` in which the cards ``player`` cannot see are re-dealt with
    ``rng``, consistently with the recorded knowledge and, for a ``Conditioned`` state, its beliefs.

    ``RuntimeError`` if no deal honouring a ``Conditioned`` state's beliefs was found."""
    if isinstance(state, Conditioned):
        world = _sample_conditioned(state.state, player, rng)
        if world is None:
            raise RuntimeError("no deal satisfies the beliefs")  # InformationSet.sample then drops them
        return world
    return _sample_recorded(state, player, rng)


def sample_conditioned(config: FiveAliveConfig, conditioned: Conditioned, player: int,
                       rng: np.random.Generator) -> FiveAliveState:
    """A world honouring every belief of ``conditioned`` (``RuntimeError`` if no try finds one): the
    game definition's ``sample_conditioned`` (``sample_world`` accepts a ``Conditioned`` state too)."""
    if not isinstance(conditioned, Conditioned):
        raise ValueError(f"conditioned: expected a Conditioned state (from condition()), got "
                         f"{type(conditioned).__name__}")
    return sample_world(config, conditioned, player, rng)


sample = sample_world
"""The name this function had in the agents' adapter (0.2)."""


def condition(config: FiveAliveConfig, canonical: FiveAliveState, facts: dict[int, int]) -> Conditioned:
    """The canonical state with "player q's whole hand is of kinds in ``facts[q]``" recorded as
    knowledge (``knowledge.add_known``, which keeps each player's facts a laminar family)."""
    state = canonical.clone()
    for q, allowed in facts.items():
        if state.alive[q] and state.hand_size[q] > 0 and allowed != ALL_KINDS:
            add_known(state, q, allowed, state.hand_size[q])
    return Conditioned(state)


# --- the sampler --------------------------------------------------------------------------------------
def _hidden(state: FiveAliveState, player: int) -> tuple[list[int], list[int]]:
    """The other survivors and the hidden cards per kind (their hands and the draw pile)."""
    others = [q for q in range(state.num_players) if q != player and state.alive[q]]
    pool = state.draw_counts()
    for q in others:
        h = state.hands[q]
        for k in range(NUM_KINDS):
            pool[k] += h[k]
    return others, pool


def _slot_demands(state: FiveAliveState, others: list[int]) -> list[tuple[int, int, int, int]]:
    return slot_demands(state.known, others)


def slot_demands(known: list[dict[int, int]], others: list[int]) -> list[tuple[int, int, int, int]]:
    """Each player's recorded facts (``known[q]``, a laminar family: "at least c cards of kinds in A") as
    disjoint slot demands (popcount of A, player, A, slots), tightest first; the batched re-deal
    (``positions.redeal``) uses the same."""
    demands = []
    for q in others:
        facts = sorted(known[q].items(), key=lambda f: bin(f[0]).count("1"))
        placed: list[tuple[int, int]] = []
        for a, c in facts:
            inside = sum(s for b, s in placed if b & a == b)
            if c > inside:
                placed.append((a, c - inside))
                demands.append((bin(a).count("1"), q, a, c - inside))
    demands.sort()
    return demands


def _deal_hands(state: FiveAliveState, others: list[int], demands: list[tuple[int, int, int, int]],
                cards: list[int]) -> tuple[dict[int, list[int]], list[int]] | None:
    """Deal ``cards`` (already shuffled) to the other hands: the demanded slots first, tightest first,
    then each hand's free slots in seat order. Returns the hands and the cards left over (in order);
    None if a demand cannot be met."""
    hands = {q: [0] * NUM_KINDS for q in others}
    need = {q: state.hand_size[q] for q in others}
    left = cards
    for _, q, allowed, slots in demands:
        keep = []
        for k in left:
            if slots and (allowed >> k) & 1:
                hands[q][k] += 1
                slots -= 1
                need[q] -= 1
            else:
                keep.append(k)
        if slots:
            return None
        left = keep
    pos = 0
    for q in others:
        for k in left[pos:pos + need[q]]:
            hands[q][k] += 1
        pos += need[q]
    return hands, left[pos:]


def _sample_recorded(state: FiveAliveState, player: int, rng: np.random.Generator) -> FiveAliveState:
    """The recorded-knowledge sampler (draw pile first; see the module docstring)."""
    world = state.clone()
    world.seed = int(rng.integers(0, 2**63))
    if state.phase == OVER:
        return world
    others, pool = _hidden(state, player)
    d = len(state.draw)
    cap = state.draw_cap[player]
    demands = _slot_demands(state, others)
    # The draw pile may take a card only while every fact can still be met by what is left: for each
    # fact set S, the cards of S left for the hands must cover the slots demanded inside S (Hall's
    # condition, which suffices for a laminar family). These upper bounds (and the caps) are laminar,
    # so the feasible draw piles form a polymatroid: one greedy pass in random order always fills it.
    sets = {a for _, _, a, _ in demands}
    slack = {}
    for a in sets:
        inside = sum(s for _, _, b, s in demands if b & a == b)
        slack[a] = sum(pool[k] for k in range(NUM_KINDS) if (a >> k) & 1) - inside
    containing = [[a for a in sets if (a >> k) & 1] for k in range(NUM_KINDS)]
    cards = expand(pool)
    rng.shuffle(cards)
    draw: list[int] = []
    rest: list[int] = []
    taken = [0] * NUM_KINDS
    for k in cards:
        if len(draw) < d and (cap is None or taken[k] < cap[k]) and all(slack[a] > 0 for a in containing[k]):
            draw.append(k)
            taken[k] += 1
            for a in containing[k]:
                slack[a] -= 1
        else:
            rest.append(k)
    dealt = _deal_hands(state, others, demands, rest) if len(draw) == d else None
    if dealt is None:  # pragma: no cover - the true hidden cards satisfy every recorded fact
        raise RuntimeError("sample_world: the recorded public knowledge is inconsistent")
    world.draw = draw
    for q in others:
        world.hands[q] = dealt[0][q]
    refresh(world)
    return world


def _sample_conditioned(state: FiveAliveState, player: int, rng: np.random.Generator) -> FiveAliveState | None:
    """The beliefs sampler (hands first, with retries; see the module docstring); None if no try
    succeeds."""
    others, pool = _hidden(state, player)
    cards = expand(pool)
    demands = _slot_demands(state, others)
    cap = state.draw_cap[player]
    for _ in range(CONDITIONED_TRIES):
        rng.shuffle(cards)
        dealt = _deal_hands(state, others, demands, cards)
        if dealt is None:
            continue
        hands, draw = dealt
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
        refresh(world)
        world.seed = int(rng.integers(0, 2**63))
        return world
    return None


__all__ = ["canonical", "sample_world", "condition", "sample_conditioned", "sample", "Conditioned", "ALL_KINDS",
           "CANONICAL_SEED", "CONDITIONED_TRIES"]
