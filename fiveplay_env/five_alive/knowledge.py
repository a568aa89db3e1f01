"""5 Alive public knowledge: what every player may infer about the hidden cards from public play.

The engine calls these as the facts appear; ``determinize`` samples worlds consistent with them. Both
kinds live in the state (plain data, copied by ``clone``):

| field              | meaning                                                                         |
|--------------------|---------------------------------------------------------------------------------|
| ``known[q]``       | ``{allowed_bits: c}``: "at least c of the cards in q's hand are of kinds in      |
|                    | allowed_bits"; the sets form a laminar family (``add_known`` keeps it so)       |
| ``draw_cap[o]``    | None, or [K] upper bounds observer o knows on the draw pile's kinds             |

Where the facts come from (docs/rules.md 2.8 says what is public):

| event                                   | fact                                                           |
|-----------------------------------------|----------------------------------------------------------------|
| a forced bust at T (``busted``)          | the whole hand is of kinds unplayable at T (numbers > 21 - T) |
| an automatic Bomb answer with a life     | the whole hand holds no 0 (``no_zero``); an answer chosen with |
|                                         | ``bomb_zero_optional`` shows nothing                           |
| a card of kind k leaves q's hand         | each fact about a set holding k counts one card fewer          |
|                                         | (``card_left``)                                                |
| a reshuffle (``reshuffled``)             | the draw pile is exactly the reshuffled cards: caps for all    |
| a Re-Deal (``before_redeal``)            | each survivor's cap: the draw pile holds none of the cards it  |
|                                         | gave away beyond what was hidden from it; hands' facts dropped |
| a deal, an elimination                   | that hand's (every hand's) facts and the caps are dropped      |

Not recorded (an approximation the determinization documents): which kinds a player drew from a draw
pile of known composition, and facts about hands from before a Re-Deal.
"""
from __future__ import annotations

from fiveplay_env.five_alive.state import ALL_KIND_BITS, N0, PLAYABLE_BITS, FiveAliveState


def add_known(state: FiveAliveState, q: int, allowed: int, count: int) -> None:
    """Record the public fact "at least ``count`` cards of q's hand are of kinds in ``allowed``".

    The facts come from a laminar family of kind sets ({0}, "no 0", "only numbers >= v"), so
    intersecting them keeps the family laminar and the samplers can satisfy them greedily.
    """
    if count <= 0:
        return
    d = state.known[q]
    if count >= state.hand_size[q]:  # the whole hand: every older fact narrows to the new set
        new: dict[int, int] = {allowed: count}
        for a, c in d.items():
            b = a & allowed
            if b:
                new[b] = max(new.get(b, 0), c)
    else:
        new = d.copy()
        new[allowed] = max(d.get(allowed, 0), count)
    # Drop the facts implied by another: "c in A" follows from "c' >= c in B" when B is inside A.
    state.known[q] = {a: c for a, c in new.items()
                      if not any(b != a and b & a == b and cb >= c for b, cb in new.items())}


def card_left(state: FiveAliveState, q: int, k: int) -> None:
    """A card of kind k left q's hand: each fact about a set holding k may now count one card fewer."""
    d = state.known[q]
    bit = 1 << k
    for a in [a for a in d if a & bit]:
        c = d[a] - 1
        if c > 0:
            d[a] = c
        else:
            del d[a]


def busted(state: FiveAliveState, p: int) -> None:
    """p had to bust at the current T (before T is reset): no card of p's hand is playable at T."""
    add_known(state, p, ALL_KIND_BITS & ~PLAYABLE_BITS[state.total], state.hand_size[p])


def no_zero(state: FiveAliveState, q: int) -> None:
    """q lost a life to a Bomb without a choice: q's hand holds no 0."""
    add_known(state, q, ALL_KIND_BITS & ~(1 << N0), state.hand_size[q])


def forget(state: FiveAliveState, q: int) -> None:
    """q's hand is gone (eliminated): its facts are dropped."""
    state.known[q] = {}


def forget_hands(state: FiveAliveState) -> None:
    """Every hand was re-dealt: every fact about hands is dropped (the caps stay)."""
    state.known = [{} for _ in range(state.num_players)]


def forget_all(state: FiveAliveState) -> None:
    """A new deal: nothing is known about hands or the draw pile."""
    n = state.num_players
    state.known = [{} for _ in range(n)]
    state.draw_cap = [None] * n


def reshuffled(state: FiveAliveState, counts: list[int]) -> None:
    """The discard pile (``counts`` per kind, its top card excluded) became the draw pile: everyone
    knows the draw pile holds only those cards."""
    state.draw_cap = [counts] * state.num_players  # never mutated in place: sharing is safe


def before_redeal(state: FiveAliveState, order: list[int], gathered: list[int]) -> None:
    """A Re-Deal gathers ``gathered`` (per kind) from the hands of ``order``, before they are dealt: the
    draw pile is untouched, so each survivor knows it holds none of the cards the survivor gave away
    beyond what was hidden from it before."""
    hands = state.hands
    hidden = [g + c for g, c in zip(gathered, state.draw_counts(), strict=True)]
    caps = state.draw_cap
    for o in order:
        pool = [a - b for a, b in zip(hidden, hands[o], strict=True)]
        cap = caps[o]
        caps[o] = pool if cap is None else [min(a, b) for a, b in zip(cap, pool, strict=True)]


__all__ = ["add_known", "card_left", "busted", "no_zero", "forget", "forget_hands", "forget_all", "reshuffled",
           "before_redeal"]
