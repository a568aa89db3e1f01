"""5 Alive positions in the batched engine: the state schema, the rules a state must satisfy, and loading
reference states.

``SCHEMA`` declares every array of the batched state (``schema.table()`` prints it; docs/architecture.md
shows it). Allocation, ``set_state``'s form and bounds checks, ``load_states`` (each field read off a
reference ``FiveAliveState``) and ``gather`` are generated from it (``core.schema``); what bounds cannot
say is ``check_rules`` below, one compiled pass over the games that reads as the rules do, and
``check_states``, what a reference state must hold beyond its fields' values (its class, a game not over,
survivors and results that agree with the lives, the pending Bomb answers the kernel will ask for).

``redeal`` is the batched ``determinize.sample_world``: every slot re-deals the cards a seat cannot see (the
other survivors' hands and the draw pile, composition and order) with the recorded public knowledge of the
positions loaded (``facts_of``: the facts about hands and the seat's caps on the draw pile), by the same
greedy sampler (the draw pile filled first while Hall's condition holds for every fact, then the demanded
hand slots, tightest first, then the free ones in seat order), compiled over the slots.
"""
from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np

from fiveplay_env.core import kernel_rng
from fiveplay_env.core.kernel_engine import run_fields
from fiveplay_env.core.schema import Field, Schema, check_games
from fiveplay_env.five_alive import determinize
from fiveplay_env.five_alive.config import LIVES, MAX_STEPS_LIMIT, NUM_KINDS
from fiveplay_env.five_alive.kernel import COUNTS, MAX_CARDS, N, OPTIONAL, SUDDEN, TEAMS, expand
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


# --- re-deals: the batched sample_world ----------------------------------------------------------------

Facts = tuple  # (known: per seat a {kind bits: count} dict, draw_cap: per observer None or [18] caps)
"""The public knowledge of a position that ``determinize.sample_world`` honours (``facts_of``)."""

_NO_CAP = 1 << 16


def facts_of(state: FiveAliveState) -> Facts:
    """A reference state's recorded public knowledge (copies): what ``redeal`` honours for its slot."""
    return ([dict(d) for d in state.known], [None if c is None else list(c) for c in state.draw_cap])


@nb.njit(cache=True)
def _redeal(hands, hsize, draw, dlen, lives, seed, slots, player, dem_q, dem_bits, dem_slots, set_bits, cap,
            shuffle_seeds, new_seeds):
    """Re-deal slots ``slots`` (see ``redeal``); False if a slot's facts cannot be met (never for facts the
    true cards satisfy)."""
    n = hands.shape[1]
    keys = np.empty(MAX_CARDS, np.uint64)
    perm = np.empty(MAX_CARDS, np.int64)
    cards = np.empty(MAX_CARDS, np.int64)
    rest = np.empty(MAX_CARDS, np.int64)
    used = np.empty(MAX_CARDS, np.bool_)
    pool = np.zeros(NUM_KINDS, np.int64)
    taken = np.zeros(NUM_KINDS, np.int64)
    need = np.zeros(n, np.int64)
    slack = np.zeros(len(set_bits), np.int64)
    for b in slots:
        pool[:] = 0
        for j in range(dlen[b]):
            pool[draw[b, j]] += 1
        for q in range(n):
            if q != player and lives[b, q] > 0:
                for k in range(NUM_KINDS):
                    pool[k] += hands[b, q, k]
        size = expand(pool, cards)
        for s in range(len(set_bits)):  # the cards of each fact set left over the slots demanded inside it
            v = 0
            for k in range(NUM_KINDS):
                if (set_bits[s] >> k) & 1:
                    v += pool[k]
            for i in range(len(dem_bits)):
                if dem_bits[i] & set_bits[s] == dem_bits[i]:
                    v -= dem_slots[i]
            slack[s] = v
        kernel_rng.permutation(shuffle_seeds[b], np.uint64(0), size, keys, perm)
        d = dlen[b]
        nd, nr = 0, 0
        taken[:] = 0
        for j in range(size):  # the draw pile first, a card taken only while every fact can still be met
            k = cards[perm[j]]
            ok = nd < d and taken[k] < cap[k]
            for s in range(len(set_bits)):
                if (set_bits[s] >> k) & 1 and slack[s] <= 0:
                    ok = False
            if ok:
                draw[b, nd] = k
                nd += 1
                taken[k] += 1
                for s in range(len(set_bits)):
                    if (set_bits[s] >> k) & 1:
                        slack[s] -= 1
            else:
                rest[nr] = k
                nr += 1
        if nd < d:
            return False
        for q in range(n):
            need[q] = 0
            if q != player and lives[b, q] > 0:
                need[q] = hsize[b, q]
                for k in range(NUM_KINDS):
                    hands[b, q, k] = 0
        used[:nr] = False
        for i in range(len(dem_q)):  # the demanded slots, tightest first
            q, left = dem_q[i], dem_slots[i]
            for j in range(nr):
                if left > 0 and not used[j] and (dem_bits[i] >> rest[j]) & 1:
                    hands[b, q, rest[j]] += 1
                    used[j] = True
                    left -= 1
                    need[q] -= 1
            if left > 0:
                return False
        j = 0
        for q in range(n):  # then the free slots, in seat order
            for _ in range(need[q]):
                while used[j]:
                    j += 1
                hands[b, q, rest[j]] += 1
                j += 1
        seed[b] = new_seeds[b]
    return True


def redeal(st: dict[str, np.ndarray], P: np.ndarray, player: int, rng: np.random.Generator,
           facts: list[Facts | None] | None = None) -> None:
    """Every slot of ``st`` becomes an independent determinization for ``player``, drawn as
    ``determinize.sample_world`` draws one from the slot's position and its recorded knowledge
    (``facts[b]``, from ``facts_of``; None: nothing recorded): the other survivors' hands (their sizes kept)
    and the draw pile (its size kept, in a random order) re-dealt from the cards hidden from ``player``, and a
    fresh seed (in 0..2**63-1, as sample_world's), so that later shuffles are not the real ones. What
    ``player`` sees does not change. ``RuntimeError`` if recorded facts cannot be met."""
    B = st["hands"].shape[0]
    n = int(P[N])
    if facts is None:
        facts = [None] * B
    shuffle_seeds = rng.integers(0, 2**64, size=B, dtype=np.uint64)
    new_seeds = rng.integers(0, 2**63, size=B, dtype=np.int64).astype(np.uint64)
    groups: dict[int, list[int]] = {}
    for b, f in enumerate(facts):  # slots that share their facts (copies of one position) share one call
        groups.setdefault(id(f), []).append(b)
    lives = st["lives"]
    for slots in groups.values():
        f = facts[slots[0]]
        known, caps = f if f is not None else ([{} for _ in range(n)], [None] * n)
        others = sorted({q for b in slots for q in range(n) if q != player and lives[b, q] > 0})
        dem = determinize.slot_demands(known, others)
        cap = np.full(NUM_KINDS, _NO_CAP, np.int64) if caps[player] is None else np.array(caps[player], np.int64)
        ok = _redeal(st["hands"], st["hsize"], st["draw"], st["dlen"], lives, st["seed"], np.array(slots, np.int64),
                     player, np.array([d[1] for d in dem], np.int64), np.array([d[2] for d in dem], np.int64),
                     np.array([d[3] for d in dem], np.int64), np.array(sorted({d[2] for d in dem}), np.int64),
                     cap, shuffle_seeds, new_seeds)
        if not ok:
            raise RuntimeError("redeal: the recorded public knowledge is inconsistent")


__all__ = ["SCHEMA", "SOURCE", "Facts", "as_state_field", "check_rules", "check_states", "dims", "facts_of", "redeal"]
