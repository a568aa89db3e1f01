"""5 Alive step events: what the last step did, recorded by the engine as it resolves the step.

The log lives in the state's ``ev_*`` fields (plain data, copied by ``clone``); ``engine.step`` starts
every step by writing who acted and with what, and the rules record the rest through the functions
below as it happens. Readers get it as sparse plain data (``last_event``, the render's text) or in a
fixed structure (``event_info``, the AEC env's ``infos[agent]["event"]``).

| field             | meaning                                                               |
|-------------------|-----------------------------------------------------------------------|
| ``ev_player``     | who acted (-1 before the first step)                                  |
| ``ev_action``     | the action id (-1 before the first step)                              |
| ``ev_answer``     | whether the step was a Bomb answer (``bomb_zero_optional``)           |
| ``ev_rare``       | not a common step (False: every list below is empty)                  |
| ``ev_drawn``      | one entry per card drawn: the drawer                                  |
| ``ev_reshuffled`` | cards moved into the draw pile, one entry per reshuffle               |
| ``ev_zeros``      | players who discarded a 0 to the Bomb                                 |
| ``ev_losses``     | one entry per life lost: the seat                                     |
| ``ev_elim``       | players eliminated                                                    |
| ``ev_out``        | players who went out (the round ended)                                |
| ``ev_settled``    | players whose result (win/loss) was decided                           |
| ``ev_dealer``     | the new round's dealer, -1 if no round started                        |

Invariant: every recorder sets ``ev_rare``, so when it is False every list is empty and ``ev_dealer``
is -1 (the env and the rewards skip their work then); ``clear`` empties the log at the start of the
step after a rare one.
"""
from __future__ import annotations

from typing import Any

from fiveplay_env.five_alive.state import ACTION_NAMES, N0, OVER, FiveAliveState


# --- recording (the engine calls these while it resolves a step) -------------------------------------
def clear(state: FiveAliveState) -> None:
    """Empty the log (at the start of a step that follows a rare one)."""
    state.ev_rare = False
    state.ev_drawn = []
    state.ev_reshuffled = []
    state.ev_zeros = []
    state.ev_losses = []
    state.ev_elim = []
    state.ev_out = []
    state.ev_settled = []
    state.ev_dealer = -1


def note(state: FiveAliveState) -> None:
    """Mark the step as rare (not a common card play) even if nothing is recorded: a Draw, a Re-Deal, a
    Bomb, a life at stake."""
    state.ev_rare = True


def drew(state: FiveAliveState, q: int) -> None:
    """q drew one card."""
    state.ev_rare = True
    state.ev_drawn.append(q)


def reshuffled(state: FiveAliveState, size: int) -> None:
    """``size`` cards of the discard pile became the draw pile."""
    state.ev_rare = True
    state.ev_reshuffled.append(size)


def zero_discarded(state: FiveAliveState, q: int) -> None:
    """q discarded a 0 to the Bomb."""
    state.ev_rare = True
    state.ev_zeros.append(q)


def life_lost(state: FiveAliveState, q: int) -> None:
    """Seat q lost one life."""
    state.ev_rare = True
    state.ev_losses.append(q)


def eliminated(state: FiveAliveState, q: int) -> None:
    """q is out of the game; its result (a loss) is decided."""
    state.ev_rare = True
    state.ev_elim.append(q)
    state.ev_settled.append(q)


def settled(state: FiveAliveState, q: int) -> None:
    """q's result was decided (the game ended)."""
    state.ev_rare = True
    state.ev_settled.append(q)


def went_out(state: FiveAliveState, players: list[int]) -> None:
    """The round ended with ``players`` out of cards (in turn order from the player whose turn it was)."""
    state.ev_rare = True
    state.ev_out = players


def dealt(state: FiveAliveState, dealer: int) -> None:
    """A new round was dealt by ``dealer``."""
    state.ev_rare = True
    state.ev_dealer = dealer


# --- reading ------------------------------------------------------------------------------------------
def event_card(state: FiveAliveState) -> str | None:
    """The name of the last step's action: a card, or for a Bomb answer "discard a 0" or "lose a life";
    None before the first step."""
    a = state.ev_action
    if a < 0:
        return None
    if state.ev_answer:
        return "discard a 0" if a == N0 else "lose a life"
    return ACTION_NAMES[a]


def last_event(state: FiveAliveState) -> dict[str, Any]:
    """What the last step did, as plain data (the env's ``infos[agent]["event"]`` is its fixed-shape
    form, ``event_info``).

    Keys: ``player`` (who acted, -1 before the first step), ``action`` (id), ``card`` (its name;
    for a Bomb answer "discard a 0" or "lose a life"), ``bomb_answer``, ``total`` (T after the step),
    ``drawn`` ({player: cards drawn}), ``reshuffled`` (cards moved from the discard to the draw pile),
    ``zeros_discarded`` (players who discarded a 0 to a Bomb), ``lives_lost`` ({player: lives}),
    ``eliminated``, ``went_out`` (players whose empty hand ended the round), ``dealer`` (of the new
    round, None if none started) and ``game_over``.
    """
    a = state.ev_action
    card = event_card(state)
    drawn: dict[int, int] = {}
    for q in state.ev_drawn:
        drawn[q] = drawn.get(q, 0) + 1
    lost: dict[int, int] = {}
    for q in state.ev_losses:
        lost[q] = lost.get(q, 0) + 1
    return {
        "player": state.ev_player,
        "action": a,
        "card": card,
        "bomb_answer": state.ev_answer,
        "total": state.total,
        "drawn": drawn,
        "reshuffled": sum(state.ev_reshuffled),
        "zeros_discarded": state.ev_zeros[:],
        "lives_lost": lost,
        "eliminated": state.ev_elim[:],
        "went_out": state.ev_out[:],
        "dealer": state.ev_dealer if state.ev_dealer >= 0 else None,
        "game_over": state.phase == OVER,
    }


def event_info(state: FiveAliveState) -> dict[str, Any]:
    """``last_event`` with a fixed structure (the same keys, types and shapes at every step, as replay
    buffers such as Tianshou's need): per-seat facts become lists of length n.

    ``player`` (-1 before the first step), ``action`` (-1 likewise), ``card`` (name, "" before the first
    step), ``bomb_answer``, ``total``, ``drawn`` (int per seat: cards drawn), ``reshuffled`` (cards),
    ``zeros_discarded`` (bool per seat), ``lives_lost`` (int per seat), ``eliminated`` (bool per seat),
    ``went_out`` (bool per seat), ``dealer`` (of a new round, -1 if none started), ``game_over``.
    Read straight from the event fields (it runs at every env step); every call returns new lists.
    """
    n = state.num_players
    a = state.ev_action
    card = event_card(state) or ""
    if not state.ev_rare:
        # The common step (a card played, nothing drawn, lost or dealt): the per-seat lists are all empty.
        # (The engine's fields hold Python ints and bools, ``from_position`` included: no conversion.)
        return {
            "player": state.ev_player, "action": a, "card": card, "bomb_answer": state.ev_answer,
            "total": state.total, "drawn": [0] * n, "reshuffled": 0, "zeros_discarded": [False] * n,
            "lives_lost": [0] * n, "eliminated": [False] * n, "went_out": [False] * n, "dealer": -1,
            "game_over": state.phase == OVER,
        }
    drawn = [0] * n
    for q in state.ev_drawn:
        drawn[q] += 1
    lost = [0] * n
    for q in state.ev_losses:
        lost[q] += 1
    zeros, elim, out = [False] * n, [False] * n, [False] * n
    for q in state.ev_zeros:
        zeros[q] = True
    for q in state.ev_elim:
        elim[q] = True
    for q in state.ev_out:
        out[q] = True
    return {
        "player": int(state.ev_player),
        "action": int(a),
        "card": card,
        "bomb_answer": bool(state.ev_answer),
        "total": int(state.total),
        "drawn": drawn,
        "reshuffled": int(sum(state.ev_reshuffled)),
        "zeros_discarded": zeros,
        "lives_lost": lost,
        "eliminated": elim,
        "went_out": out,
        "dealer": int(state.ev_dealer),
        "game_over": state.phase == OVER,
    }


__all__ = ["event_card", "last_event", "event_info"]
