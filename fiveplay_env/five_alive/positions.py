"""5 Alive positions in the batched engine: the state schema, the rules a state must satisfy, and loading
reference states.

``SCHEMA`` declares every array of the batched state (``schema.table()`` prints it; docs/architecture.md
shows it). Allocation, ``set_state``'s form and bounds checks, ``load_states`` (each field read off a
reference ``FiveAliveState``) and ``gather`` are generated from it (``core.schema``); what bounds cannot
say is ``check_rules`` below, one compiled pass over the games that reads as the rules do, and
``check_states``, what a reference state must hold beyond its fields' values (its class, a game not over,
survivors and results that agree with the lives, the pending Bomb answers the kernel will ask for).

There is no batched re-deal: a 5 Alive world honours the public knowledge about hands and the draw pile
(``determinize.sample_world``) and the search loads the worlds it samples (``load_states``).
"""
from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np

from fiveplay_env.core.kernel_engine import run_fields
from fiveplay_env.core.schema import Field, Schema, check_games
from fiveplay_env.five_alive.config import LIVES, MAX_STEPS_LIMIT, NUM_KINDS
from fiveplay_env.five_alive.kernel import COUNTS, DECK, N, OPTIONAL, SUDDEN, TEAMS
from fiveplay_env.five_alive.state import BOMB, BOMB_ANSWER, MAX_TOTAL, N0, OVER, PLAY, FiveAliveState

COUNTER_MAX = 2**31 - 16  # room for the random events of a few more steps in int32


def _ints(value: Any) -> Any:
    """``value`` (an int or nested lists of them) as it is; ``TypeError`` for anything else (a bool, a float),
    which ``Schema.from_states`` reports naming the state's field."""
    if isinstance(value, list):
        for v in value:
            _ints(v)
        return value
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError
    return value


def _draw_of(s: FiveAliveState, d: Any) -> np.ndarray:
    pile = _ints(s.draw)
    if not isinstance(pile, list) or len(pile) > d["deck"]:
        raise ValueError
    out = np.zeros(d["deck"], np.int64)
    out[:len(pile)] = pile
    return out


def _get(name: str) -> Any:
    return lambda s, d: _ints(getattr(s, name))


SCHEMA = Schema("five_alive", [
    Field("hands", "uint8", ("n", NUM_KINDS), 0, 255, "cards of each kind in each hand (an eliminated seat: none)",
          of=_get("hands")),
    Field("hsize", "uint8", ("n",), 0, "deck", "cards in each hand", of=_get("hand_size")),
    Field("disc", "uint8", (NUM_KINDS,), 0, 255, "cards of each kind in the discard pile", of=_get("discard")),
    Field("top", "int8", (), -1, NUM_KINDS - 1, "kind of the discard pile's top card, -1 if none", of=_get("top")),
    Field("draw", "uint8", ("deck",), 0, NUM_KINDS - 1, "the draw pile as a stack: draw[:dlen], the next card "
          "drawn draw[dlen - 1] (the reference's draw list; the cells beyond dlen are not cards)", of=_draw_of),
    Field("dlen", "uint8", (), 0, "deck", "cards in the draw pile", of=lambda s, d: len(s.draw)),
    Field("total", "int8", (), 0, MAX_TOTAL, "the running total T", of=_get("total")),
    Field("dir", "int8", (), -1, 1, "the direction: +1 clockwise (seat + 1), -1", of=_get("direction")),
    Field("cur", "int8", (), 0, "n-1", "the acting seat (a Bomb's responder during its answers)", of=_get("current")),
    Field("phase", "int8", (), PLAY, BOMB_ANSWER, f"PLAY {PLAY} or BOMB_ANSWER {BOMB_ANSWER}", of=_get("phase")),
    Field("lives", "int8", ("n",), 0, LIVES, "lives left per seat (teams: the seat's team's); a seat survives iff "
          "it has lives, an eliminated seat has lost, every other seat's result is undecided", of=_get("lives")),
    Field("bomber", "int8", (), -1, "n-1", "the seat whose Bomb is being answered (-1 otherwise); the responders "
          "left are the survivors after cur in turn order up to it", of=_get("bomber")),
    Field("round", "int32", (), 0, None, "rounds completed", of=_get("round")),
    Field("counter", "int32", (), 0, COUNTER_MAX, "random events used", of=_get("counter")),
    Field("nresh", "int16", (), 0, "resh", "reshuffles of the discard pile this round (max_reshuffles bounds "
          "them)", of=_get("reshuffles")),
    Field("steps", "int32", (), 0, "steps-1", "decisions taken in the game (the reference's turns; max_steps "
          "ends the game at that many)", of=_get("turns")),
    *run_fields(),
    Field("truncated", "bool", (), 0, 1, "the game that ended at the last step was cut by max_steps", output=True),
    Field("final_lives", "int8", ("n",), 0, LIVES, "the lives left in the games that ended at the last step",
          output=True),
    Field("final_result", "int8", ("n",), -1, 1, "their results: +1 won, -1 lost, 0 undecided (truncated)",
          output=True),
    Field("final_win", "float32", ("n",), 0, 1, "their win shares (1 / winners; 1 per member of a winning team)",
          output=True),
])

SOURCE = {"hsize": "hand_size", "disc": "discard", "dlen": "draw", "dir": "direction", "cur": "current",
          "nresh": "reshuffles", "steps": "turns"}
"""The reference state's attribute each field is read from, where the names differ (``load``'s messages)."""


def dims(config: Any) -> dict[str, int]:
    """The schema's dimensions for ``config`` (``resh``: the reshuffles a round may make; ``steps``: the
    decisions a game may take before ``max_steps`` ends it, or int32's room without a limit)."""
    return {"n": config.num_players, "deck": config.deck_size,
            "resh": config.max_reshuffles if config.empty_draw_pile == "reshuffle" else 0,
            "steps": config.max_steps if config.max_steps is not None else MAX_STEPS_LIMIT}


def check_states(states: Any, config: Any, name: str = "states") -> None:
    """``load_states``' positions, before their fields are read: each a ``FiveAliveState`` of this many
    players that is not over, its survivors and results those its lives imply, and a Bomb being answered
    only as the kernel resumes it (the responders left: the survivors after the current one in turn order,
    up to the bomber). ``name``: how the messages name the sequence (``load``: ``state``)."""
    n = config.num_players
    for i, s in enumerate(states):
        at = f"{name}[{i}]" if name == "states" else name
        if not isinstance(s, FiveAliveState) or s.num_players != n:
            got = type(s).__name__ if not isinstance(s, FiveAliveState) else f"one of {s.num_players} players"
            raise ValueError(f"{at}: expected a FiveAliveState of {n} players, got {got}")
        if s.phase == OVER:
            raise ValueError(f"{at}: expected a game that is not over, got one that is over")
        try:
            lives = [int(v) for v in _ints(s.lives)]
        except (TypeError, ValueError):
            raise ValueError(f"{at}.lives: expected {n} ints") from None
        if list(s.alive) != [v > 0 for v in lives] or len(lives) != n:
            raise ValueError(f"{at}.alive: expected the seats with lives left, {[v > 0 for v in lives]}, got {s.alive}")
        if list(s.result) != [0 if v > 0 else -1 for v in lives]:
            raise ValueError(f"{at}.result: expected 0 for a survivor and -1 for an eliminated seat, got {s.result}")
        queue = list(s.bomb_queue) if isinstance(s.bomb_queue, list) else None
        if s.phase == BOMB_ANSWER:
            want, q = [], s.current
            for _ in range(n):
                q = (q + s.direction) % n
                if q == s.bomber:
                    break
                if lives[q] > 0:
                    want.append(q)
            if queue != want:
                raise ValueError(f"{at}.bomb_queue: expected the survivors after player {s.current} in turn order up "
                                 f"to the bomber {s.bomber}, {want}, got {queue}")
        elif queue != [] or s.bomber != -1:
            raise ValueError(f"{at}.bomber: expected -1 and an empty bomb_queue outside a Bomb's answers, got "
                             f"{s.bomber} and {queue}")


# --- the rules a state must satisfy (set_state, load_states) --------------------------------------------

_RULES = (  # code -> (field, what was expected)
    ("lives", "at least two survivors (teams and sudden death: every seat; nobody is out before the end)"),
    ("lives", "one count per team (seats 0, 2, 4 and 1, 3, 5)"),
    ("hands", "empty hands for the eliminated seats"),
    ("hsize", "each hand's number of cards"),
    ("hands", "at most deck_counts[k] cards of each kind k in the hands, draw and discard piles"),
    ("top", "a kind the discard pile holds (-1: none)"),
    ("dir", "+1 or -1"),
    ("phase", "PLAY, or BOMB_ANSWER with bomb_zero_optional"),
    ("cur", "a surviving seat"),
    ("bomber", "-1 outside a Bomb's answers; during them a surviving bomber other than the responder"),
    ("hsize", "a card in every surviving hand (during a Bomb's answers: in the responder's)"),
    ("top", f"a Bomb ({BOMB}) or a 0 ({N0}) on top during a Bomb's answers"),
    ("truncated", "True only where terminated"),
    ("rewards", f"-{LIVES + 1}..1 (a result and the lives of a step)"),
)


@nb.njit(cache=True)
def _first_broken(hands, hsize, disc, top, draw, dlen, dir_, cur, phase, lives, bomber, rewards, terminated,
                  truncated, P):
    """(game, rule) of the first game breaking a rule of ``_RULES``; (-1, -1) if none."""
    n = P[N]
    cnt = np.zeros(NUM_KINDS, np.int64)
    for b in range(hands.shape[0]):
        alive = 0
        for q in range(n):
            if lives[b, q] > 0:
                alive += 1
        if alive < (n if (P[TEAMS] or P[SUDDEN]) else 2):
            return b, 0
        if P[TEAMS]:
            for q in range(2, n):
                if lives[b, q] != lives[b, q - 2]:
                    return b, 1
        cnt[:] = 0
        for q in range(n):
            s = 0
            for k in range(NUM_KINDS):
                c = hands[b, q, k]
                s += c
                cnt[k] += c
            if lives[b, q] == 0 and s > 0:
                return b, 2
            if hsize[b, q] != s:
                return b, 3
        for k in range(NUM_KINDS):
            cnt[k] += disc[b, k]
        for j in range(dlen[b]):
            cnt[draw[b, j]] += 1
        for k in range(NUM_KINDS):
            if cnt[k] > P[COUNTS + k]:
                return b, 4
        t = top[b]
        if t >= 0 and disc[b, t] == 0:
            return b, 5
        if dir_[b] == 0:
            return b, 6
        ph = phase[b]
        if ph == BOMB_ANSWER and not P[OPTIONAL]:
            return b, 7
        c = cur[b]
        if lives[b, c] == 0:
            return b, 8
        bp = bomber[b]
        if ph == PLAY:
            if bp != -1:
                return b, 9
            for q in range(n):
                if lives[b, q] > 0 and hsize[b, q] == 0:
                    return b, 10
        else:
            if bp < 0 or bp == c or lives[b, bp] == 0:
                return b, 9
            if hsize[b, c] == 0:
                return b, 10
            if t != BOMB and t != N0:
                return b, 11
        if truncated[b] and not terminated[b]:
            return b, 12
        for q in range(n):
            if rewards[b, q] < -(LIVES + 1) or rewards[b, q] > 1:
                return b, 13
    return -1, -1


def check_rules(arrays: dict[str, np.ndarray], P: np.ndarray) -> None:
    """Raise ``ValueError`` (naming the field, the game and what was expected) for the first game of
    ``arrays`` that breaks a rule (``_RULES``); the arrays passed the schema's form and bounds checks."""
    a = arrays
    b, code = _first_broken(a["hands"], a["hsize"], a["disc"], a["top"], a["draw"], a["dlen"], a["dir"], a["cur"],
                            a["phase"], a["lives"], a["bomber"], a["rewards"], a["terminated"], a["truncated"], P)
    if b >= 0:
        name, expected = _RULES[code]
        if code == 4:
            expected += f" ({list(P[COUNTS:COUNTS + NUM_KINDS])})"
        ok = np.ones(len(a["phase"]), bool)
        ok[b] = False
        check_games(ok, name, expected, lambda i: a[name][i])


def as_state_field(message: str) -> str:
    """A refusal of ``load``'s one game as one about the reference state's attribute:
    ``state['arrays']['hsize']: game 0: expected ...`` becomes ``state.hand_size: expected ...``,
    ``states[0].hands: expected ...`` becomes ``state.hands: expected ...``."""
    if message.startswith("states[0]."):
        head, _, rest = message[len("states[0]."):].partition(":")
        return f"state.{SOURCE.get(head, head)}:{rest}"
    head, sep, rest = message.partition(": game 0: ")
    if not sep or head.count("'") < 4:
        return message
    name = head.split("'")[-2]
    return f"state.{SOURCE.get(name, name)}: {rest}"


__all__ = ["SCHEMA", "SOURCE", "as_state_field", "check_rules", "check_states", "dims"]
