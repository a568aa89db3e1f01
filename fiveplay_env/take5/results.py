"""What a finished (or running) Take 5 game amounts to: results per seat, the summary records keep, and
the state's full contents for record digests.

Results per seat: ``score`` (final score: bull heads taken), ``placing`` (1 = lowest score, ties share
the better place) and ``win`` (the k players with the lowest score share the win, 1/k each).
"""
from __future__ import annotations

from typing import Any

from fiveplay_env.core.gamedef import Metric, placings
from fiveplay_env.core.packing import pack_ints
from fiveplay_env.take5.engine import winners
from fiveplay_env.take5.state import OVER, Take5State

METRICS = (
    Metric("score", True, "final score: bull heads taken (lower is better)"),
    Metric("placing", True, "finishing place, 1 = lowest score (ties share the better place)"),
)


def results(engine: Any, elimination_turn: list[int | None]) -> dict[str, list[float]]:
    """``score``, ``placing`` and ``win`` (shares) of every seat (nobody is eliminated in Take 5)."""
    scores = list(engine.state.scores)
    win = winners(engine.state)
    share = 1.0 / len(win)
    return {
        "score": [float(s) for s in scores],
        "placing": [float(p) for p in placings(scores)],
        "win": [share if p in win else 0.0 for p in range(len(scores))],
    }


def summary(state: Take5State) -> dict[str, Any]:
    """The outcome as plain data: over, rounds played, scores and (once over) the winners."""
    over = state.phase == OVER
    return {"over": over, "rounds": int(state.round), "scores": [int(s) for s in state.scores],
            "winners": winners(state) if over else []}


def digest_fields(state: Take5State) -> Any:
    """Every field of the state, in a fixed order (records hash it)."""
    return [state.seed, state.counter, state.round, state.trick, state.phase, state.current,
            state.hands[:, :104].tolist(), state.hand_size, state.pending, state.rows,
            [list(q) for q in state.queue], state.trick_cards, state.seen.tolist(), state.taken,
            state.pool.tolist(), state.set_aside, state.scores, state.round_pen]


def step_bytes(state: Take5State) -> bytes:
    """The state in a record's chain (cheap: about 20 ints): the acting seat, phase, trick, round, the
    random-event counter, every score, round penalty and hand size."""
    return pack_ints((state.current, state.phase, state.trick, state.round, state.counter, *state.scores,
                      *state.round_pen, *state.hand_size))
