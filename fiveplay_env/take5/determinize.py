"""Take 5 determinization: the hidden cards of one player's information set, put in a canonical
arrangement (``canonical``) and re-dealt at random (``sample_world``). Both games' modules of this name
have the same two functions with the same signatures.

Hidden from ``player``: the other hands, their unrevealed choices of the current trick, and the
set-aside cards; in a draft every pick is public, so only the unrevealed choices are hidden.
"""
from __future__ import annotations

from fiveplay_env.take5.config import Take5Config
from fiveplay_env.take5.engine import sample_world
from fiveplay_env.take5.state import DRAFT, OVER, Take5State

__all__ = ["canonical", "sample_world"]


def canonical(config: Take5Config, state: Take5State, player: int) -> Take5State:
    """A copy of ``state`` whose hidden cards are sorted and dealt in seat order: it depends only on
    what ``player`` knows (``sample_world``'s input)."""
    canon = state.clone()
    if state.phase in (DRAFT, OVER):
        return canon  # the draft pool and every pick are public; nothing is hidden
    others = [q for q in range(state.num_players) if q != player]
    if config.draft:
        # Hands are public after a draft; only the choices made this trick are unknown.
        for q in others:
            if state.pending[q] >= 0:
                cards = sorted(state.hand(q) + [state.pending[q]])
                canon.hands[q, cards] = 1
                canon.hands[q, cards[0]] = 0
                canon.pending[q] = cards[0]
        return canon
    hidden = list(state.set_aside)
    for q in others:
        hidden.extend(state.hand(q))
        if state.pending[q] >= 0:
            hidden.append(state.pending[q])
    hidden.sort()
    pos = 0
    for q in others:
        canon.hands[q, :] = 0
        k = state.hand_size[q]
        canon.hands[q, hidden[pos:pos + k]] = 1
        pos += k
        if state.pending[q] >= 0:
            canon.pending[q] = hidden[pos]
            pos += 1
    canon.set_aside = hidden[pos:]
    return canon
