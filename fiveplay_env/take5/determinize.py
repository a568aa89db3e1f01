"""Take 5 determinization: the cards a player cannot know, re-dealt (search agents, the no-leak tests).

The same two functions, with the same signatures, as ``fiveplay_env.five_alive.determinize``:

| function                                    | returns                                                       |
|---------------------------------------------|---------------------------------------------------------------|
| ``canonical(config, state, player)``        | a copy whose hidden cards are sorted and dealt in seat order:  |
|                                             | it depends only on what ``player`` knows                       |
| ``sample_world(config, state, player, rng)`` | a copy whose hidden cards are shuffled with ``rng`` and dealt  |
|                                             | back; on a canonical copy it depends only on what ``player``   |
|                                             | knows and on ``rng``                                           |

Hidden from ``player`` (docs/rules.md 1.5): the other players' hands, the card each of them chose this
trick while it is unrevealed, and the set-aside cards. Every player keeps their hand size and their
chosen-or-not status; everything ``player`` knows (own hand, rows, revealed and taken cards, the draft
pool, scores) is unchanged. In draft mode every pick is public, so the other hands are known and only
their unrevealed choices are re-drawn, each from its owner's own cards. During the draft itself, and
once the game is over, nothing is hidden: both return a plain copy. The copies carry no observation
buffer (``view``: rebuilt on demand).
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from fiveplay_env.take5.config import Take5Config
from fiveplay_env.take5.state import DRAFT, OVER, Take5State


def canonical(config: Take5Config, state: Take5State, player: int) -> Take5State:
    """A copy of ``state`` whose hidden cards are sorted and dealt in seat order (hands, then each
    unrevealed choice, then the set-aside cards); in a draft, each unrevealed choice becomes its owner's
    lowest card."""
    canon = state.clone(view=False)
    if state.phase in (DRAFT, OVER):
        return canon  # the draft pool and every pick are public; nothing is hidden
    others = _others(state, player)
    if config.draft:
        _redraw_choices(canon, state, others, lambda cards: min(cards))
        return canon
    hidden = _hidden(state, others)
    pos = _deal_back(canon, state, others, hidden)
    canon.set_aside = hidden[pos:]
    return canon


def sample_world(config: Take5Config, state: Take5State, player: int, rng: np.random.Generator) -> Take5State:
    """A determinization: a copy of ``state`` in which every card ``player`` cannot know is re-dealt.

    The hidden cards are sorted, shuffled with ``rng`` and dealt back in seat order (see the module
    docstring); the copy gets a fresh seed from ``rng`` (the real seed fixes every later deal, which
    nobody may know). In draft mode each unrevealed choice is re-drawn uniformly from its owner's cards.
    Search agents simulate on such copies (of a ``canonical`` state); the no-leak tests use it too.
    """
    world = state.clone(view=False)
    if state.phase in (DRAFT, OVER):
        return world
    others = _others(state, player)
    if config.draft:
        _redraw_choices(world, state, others, lambda cards: cards[int(rng.integers(len(cards)))])
        return world
    hidden = _hidden(state, others)  # sorted: the sample must not depend on who really holds which card
    world.seed = int(rng.integers(2**63))  # later deals follow from the seed, which nobody knows
    order = rng.permutation(len(hidden))
    shuffled = [hidden[i] for i in order]
    pos = _deal_back(world, state, others, shuffled)
    world.set_aside = sorted(shuffled[pos:])
    return world


def _others(state: Take5State, player: int) -> list[int]:
    return [q for q in range(state.num_players) if q != player]


def _hidden(state: Take5State, others: list[int]) -> list[int]:
    """The cards hidden from the player whose opponents are ``others``, ascending."""
    hidden: list[int] = list(state.set_aside)
    for q in others:
        hidden.extend(state.hand(q))
        if state.pending[q] >= 0:
            hidden.append(state.pending[q])
    hidden.sort()
    return hidden


def _deal_back(world: Take5State, state: Take5State, others: list[int], cards: list[int]) -> int:
    """Deal ``cards`` in order to ``others`` in seat order: each its hand size, then its choice if it has
    made one. Returns how many cards were dealt (the rest are set aside)."""
    pos = 0
    for q in others:
        world.hands[q, :] = 0
        k = state.hand_size[q]
        world.hands[q, cards[pos:pos + k]] = 1
        pos += k
        if state.pending[q] >= 0:
            world.pending[q] = cards[pos]
            pos += 1
    return pos


def _redraw_choices(world: Take5State, state: Take5State, others: list[int],
                    choose: Callable[[list[int]], int]) -> None:
    """Draft mode: each other player's unrevealed choice becomes ``choose(their hand + [choice])``."""
    for q in others:
        if state.pending[q] >= 0:
            cards = state.hand(q) + [state.pending[q]]
            choice = choose(cards)
            world.hands[q, cards] = 1
            world.hands[q, choice] = 0
            world.pending[q] = choice


__all__ = ["canonical", "sample_world"]
