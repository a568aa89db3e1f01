"""What a finished (or running) 5 Alive game amounts to: results per seat, the summary records keep, and
the state's full contents for record digests.

Results per seat are ``win`` (winners share: 1/k each of k winners, except in teams where each member
of the winning team wins), ``placing`` (1 = winner; then by how late a player was eliminated, survivors
first, then by lives left) and ``lives`` (lives left at the end).
"""
from __future__ import annotations

from typing import Any

from fiveplay_env.core.gamedef import Metric, placings
from fiveplay_env.core.packing import pack_ints
from fiveplay_env.five_alive.engine import last_event
from fiveplay_env.five_alive.state import OVER, FiveAliveState

METRICS = (
    Metric("placing", True, "finishing place, 1 = winner, then by elimination order (later is better)"),
    Metric("lives", False, "lives left at the end (higher is better)"),
)


def results(engine: Any, elimination_turn: list[int | None]) -> dict[str, list[float]]:
    """``placing``, ``lives`` and ``win`` (shares) of every seat; ``elimination_turn[p]``: the decision
    count at which p was eliminated (None: survived), which orders the eliminated players."""
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


def summary(state: FiveAliveState) -> dict[str, Any]:
    """The outcome as plain data: over, rounds, decisions, lives and winners."""
    return {"over": state.phase == OVER, "rounds": int(state.round), "turns": int(state.turns),
            "lives": [int(v) for v in state.lives], "winners": [int(w) for w in state.winners]}


def digest_fields(state: FiveAliveState) -> Any:
    """Every field of the state, in a fixed order (records hash it)."""
    return [state.seed, state.counter, state.round, state.turns, state.phase, state.current, state.direction,
            state.total, state.hands, state.draw, state.discard, state.top, state.lives, state.alive,
            state.bomber, state.bomb_queue, state.winners, state.result]


def public_event(state: FiveAliveState) -> dict[str, Any]:
    """What the last step did, as every player saw it: the engine's ``last_event`` plus ``turns``
    (the decisions taken so far)."""
    event = last_event(state)
    event["turns"] = state.turns
    return event


def step_bytes(state: FiveAliveState) -> bytes:
    """The state in a record's chain (cheap: about 20 ints): the random-event counter, round, reshuffles,
    turn, T, direction, top card, phase, the draw and discard piles' sizes, every hand size and lives."""
    return pack_ints((state.counter, state.round, state.reshuffles, state.current, state.total, state.direction,
                      state.top, state.phase, len(state.draw), state.discard_size, *state.hand_size, *state.lives))
