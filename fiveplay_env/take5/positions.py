"""Take 5 positions in the batched engine: the state schema, the rules a state must satisfy, loading
reference states, and re-dealing the cards a seat cannot see.

``SCHEMA`` declares every array of the batched state (``schema.table()`` prints it; docs/architecture.md
shows it). Allocation, ``set_state``'s form and bounds checks, ``load_states`` (each field read off a
reference ``Take5State``) and ``gather`` are generated from it (``core.schema``); what bounds cannot say
is ``check_rules`` below, one compiled pass over the games that reads as the rules do. ``redeal`` is the
batched twin of ``determinize.sample_world``: every slot becomes an independent determinization for one
seat (``fiveplay_env.testing.check_redeal`` checks the two agree in distribution and that nothing the
seat may see moves).
"""
from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np

from fiveplay_env.core.kernel_engine import run_fields
from fiveplay_env.core.schema import Field, Schema, check_games
from fiveplay_env.take5.kernel import (
    ASIDE, DECK, DRAFTING, END_INCLUSIVE, END_SCORE, N, OUT, PENDING, PLAYER_ROWS, POOL, QUEUE, ROUNDS, SEEN,
)
from fiveplay_env.take5.state import (
    BULL, BULLHEADS, DRAFT, HAND_SIZE, NUM_CARDS, NUM_ROWS, NUM_TRICKS, OVER, PLAY, ROW_CHOICE, ROW_LIMIT,
    TOTAL_BULLHEADS, Take5State,
)

MAX_ROW_BULLS = int(np.sort(BULLHEADS)[-ROW_LIMIT:].sum())  # 27: the bull heads five cards can carry


def _loc_of(s: Take5State, d: Any) -> np.ndarray:
    loc = np.full(NUM_CARDS, OUT, np.int64)
    loc[:d["deck"]] = ASIDE
    for q in range(s.num_players):
        loc[np.flatnonzero(s.hands[q, :NUM_CARDS])] = q
        if s.pending[q] >= 0:
            loc[s.pending[q]] = PENDING
    for c, _ in s.queue:
        loc[c] = QUEUE
    for cards in [*s.rows, *s.taken]:
        loc[list(cards)] = SEEN
    loc[np.flatnonzero(s.pool[:NUM_CARDS])] = POOL
    return loc


def _rows_of(s: Take5State, d: Any) -> np.ndarray:
    rows = np.full((NUM_ROWS, ROW_LIMIT), -1, np.int64)
    for r, row in enumerate(s.rows):
        rows[r, :len(row)] = row
    return rows


def _pending_of(s: Take5State, d: Any) -> np.ndarray:
    pend = np.array(s.pending, np.int64)
    for c, q in s.queue:  # a row choice: the whole trick waits, revealed
        pend[q] = c
    return pend


SCHEMA = Schema("take5", [
    Field("loc", "int8", (NUM_CARDS,), 0, SEEN, f"where card id is: a seat 0..n-1 (its hand), PENDING ({PENDING}: "
          f"chosen, unrevealed), POOL ({POOL}: the draft), ASIDE ({ASIDE}), OUT ({OUT}: not in this deck), QUEUE "
          f"({QUEUE}: revealed, waiting for a row choice), SEEN ({SEEN}: in a row or a penalty pile)", of=_loc_of),
    Field("rows", "int8", (NUM_ROWS, ROW_LIMIT), -1, "deck-1", "each row's cards in placement order, -1 beyond "
          "its length", of=_rows_of),
    Field("rlen", "int8", (NUM_ROWS,), 0, ROW_LIMIT, "row lengths (0 in the draft)",
          of=lambda s, d: [len(r) for r in s.rows] if s.rows else [0] * NUM_ROWS),
    Field("rbull", "int8", (NUM_ROWS,), 0, MAX_ROW_BULLS, "the bull heads of each row",
          of=lambda s, d: [sum(BULL[c] for c in r) for r in s.rows] if s.rows else [0] * NUM_ROWS),
    Field("pending", "int8", ("n",), -1, "deck-1", "the card each seat chose this trick (-1: none yet); the "
          "whole trick during a row choice", of=_pending_of),
    Field("scores", "int32", ("n",), 0, None, "penalty points of the rounds completed", of=lambda s, d: s.scores),
    Field("rpen", "int16", ("n",), 0, TOTAL_BULLHEADS, "penalty points taken this round",
          of=lambda s, d: s.round_pen),
    Field("phase", "int8", (), DRAFT, ROW_CHOICE, "DRAFT 0, PLAY 1 or ROW_CHOICE 2", of=lambda s, d: s.phase),
    Field("cur", "int8", (), 0, "n-1", "the acting seat", of=lambda s, d: s.current),
    Field("trick", "int8", (), 0, NUM_TRICKS - 1, "tricks completed this round", of=lambda s, d: s.trick),
    Field("round", "int32", (), 0, None, "rounds completed", of=lambda s, d: s.round),
    Field("counter", "int32", (), 0, None, "deals made (random events used)", of=lambda s, d: s.counter),
    Field("picks", "int16", (), 0, "picks", "draft picks made this round (10n after the draft, 0 without one)",
          of=lambda s, d: int(s.hands[:, :NUM_CARDS].sum()) if s.phase == DRAFT else d["picks"]),
    *run_fields(),
    Field("final_scores", "int32", ("n",), 0, None, "the final scores of the games that ended at the last step",
          output=True),
])


def dims(config: Any) -> dict[str, int]:
    """The schema's dimensions for ``config`` (``picks``: the picks a draft makes, 0 without one)."""
    n = config.num_players
    return {"n": n, "deck": config.deck_size, "picks": HAND_SIZE * n if config.draft else 0}


def check_states(states: Any, config: Any) -> None:
    """``load_states``' positions: each a ``Take5State`` of this many players that is not over."""
    for i, s in enumerate(states):
        if not isinstance(s, Take5State):
            raise ValueError(f"states[{i}]: expected a Take5State, got {type(s).__name__}")
        if s.num_players != config.num_players:
            raise ValueError(f"states[{i}].num_players: expected {config.num_players}, got {s.num_players}")
        if s.phase == OVER:
            raise ValueError(f"states[{i}].phase: expected a game that is not over, got a finished game")


# --- the rules a state must satisfy (set_state, load_states) --------------------------------------------

_RULES = (  # code -> (field, what was expected)
    ("phase", "a phase this config has (DRAFT only with draft=True, ROW_CHOICE only with row_pick='player')"),
    ("trick", "0 tricks completed in the draft"),
    ("picks", "0..10n-1 picks with cur == picks % n in the draft, 10n after it (0 without a draft)"),
    ("round", "fewer rounds completed than the mode's K"),
    ("counter", "rounds completed + 1 (one deal per round; 0 with a draft)"),
    ("scores", "every score below the end threshold (the game would have ended)"),
    ("scores", "10n-16..171 points in all per round completed"),
    ("loc", "card codes: a seat 0..n-1, PENDING, POOL, ASIDE, QUEUE or SEEN for the deck's cards, OUT beyond it"),
    ("loc", "hands of 10 - tricks - (seat < acting seat) cards (9 - tricks in a row choice; the draft: picks made)"),
    ("loc", "as many PENDING, QUEUE, POOL, ASIDE and SEEN cards as the phase and trick imply"),
    ("pending", "the PENDING card of each seat that chose (the QUEUE cards in a row choice), -1 for the others"),
    ("rows", "empty rows in the draft (length 0, no bull heads, -1 slots)"),
    ("rlen", "rows of 1..5 cards"),
    ("rows", "SEEN cards, ascending, each in one row, -1 beyond the row's length"),
    ("rbull", "the bull heads of each row's cards"),
    ("rpen", "round penalties adding up to the bull heads taken (SEEN cards outside the rows)"),
    ("cur", "the owner of the trick's lowest card, below every row end, during a row choice"),
    ("rewards", "-171..0 (minus the bull heads of a step)"),
)


@nb.njit(cache=True)
def _first_broken(loc, rows, rlen, rbull, pending, scores, rpen, phase, cur, trick, round_, counter, picks,
                  rewards, P, bull):
    """(game, rule) of the first game breaking a rule of ``_RULES``; (-1, -1) if none."""
    n, deck = P[N], P[DECK]
    cnt = np.zeros(SEEN + 1, np.int64)
    mark = np.zeros(NUM_CARDS, np.int64)
    for b in range(loc.shape[0]):
        ph, c, t = phase[b], cur[b], trick[b]
        if (ph == DRAFT and not P[DRAFTING]) or (ph == ROW_CHOICE and not P[PLAYER_ROWS]):
            return b, 0
        if ph == DRAFT and t != 0:
            return b, 1
        full = HAND_SIZE * n
        if ph == DRAFT:
            if not (picks[b] < full and c == picks[b] % n):
                return b, 2
        elif picks[b] != (full if P[DRAFTING] else 0):
            return b, 2
        if P[ROUNDS] >= 0 and round_[b] >= P[ROUNDS]:
            return b, 3
        if counter[b] != (0 if P[DRAFTING] else round_[b] + 1):
            return b, 4
        top, total = 0, 0
        for q in range(n):
            top = max(top, scores[b, q])
            total += scores[b, q]
        if P[ROUNDS] < 0 and (top >= P[END_SCORE] if P[END_INCLUSIVE] else top > P[END_SCORE]):
            return b, 5
        if total < round_[b] * (10 * n - 16) or total > round_[b] * 171:
            return b, 6
        cnt[:] = 0
        for card in range(NUM_CARDS):
            code = loc[b, card]
            if card >= deck:
                if code != OUT:
                    return b, 7
            elif not (code < n or code == PENDING or code == POOL or code == ASIDE or code == QUEUE or code == SEEN):
                return b, 7
            cnt[code] += 1
        for q in range(n):
            if ph == DRAFT:
                want = picks[b] // n + (1 if q < picks[b] % n else 0)
            elif ph == ROW_CHOICE:
                want = HAND_SIZE - t - 1
            else:
                want = HAND_SIZE - t - (1 if q < c else 0)
            if cnt[q] != want:
                return b, 8
        if (cnt[PENDING] != (c if ph == PLAY else 0) or cnt[QUEUE] != (n if ph == ROW_CHOICE else 0)
                or cnt[POOL] != (deck - picks[b] if ph == DRAFT else 0) or cnt[ASIDE] != deck - full - NUM_ROWS
                or cnt[SEEN] != (0 if ph == DRAFT else NUM_ROWS + n * t)):
            return b, 9
        low, owner = NUM_CARDS, -1
        for q in range(n):
            p = pending[b, q]
            chose = ph == ROW_CHOICE or (ph == PLAY and q < c)
            if not chose:
                if p != -1:
                    return b, 10
                continue
            if p < 0 or loc[b, p] != (QUEUE if ph == ROW_CHOICE else PENDING):
                return b, 10
            for q2 in range(q):
                if pending[b, q2] == p:
                    return b, 10
            if p < low:
                low, owner = p, q
        mark[:] = 0
        bulls_in_rows = 0
        min_end = NUM_CARDS
        for r in range(NUM_ROWS):
            ln = rlen[b, r]
            if ph == DRAFT:
                if ln != 0 or rbull[b, r] != 0:
                    return b, 11
                for j in range(ROW_LIMIT):
                    if rows[b, r, j] != -1:
                        return b, 11
                continue
            if ln < 1:
                return b, 12
            s = 0
            for j in range(ROW_LIMIT):
                card = rows[b, r, j]
                if j >= ln:
                    if card != -1:
                        return b, 13
                    continue
                if card < 0 or loc[b, card] != SEEN or mark[card] or (j > 0 and card <= rows[b, r, j - 1]):
                    return b, 13
                mark[card] = 1
                s += bull[card]
            if s != rbull[b, r]:
                return b, 14
            bulls_in_rows += s
            min_end = min(min_end, rows[b, r, ln - 1])
        seen_bulls, pen = 0, 0
        for card in range(deck):
            if loc[b, card] == SEEN:
                seen_bulls += bull[card]
        for q in range(n):
            pen += rpen[b, q]
        if pen != seen_bulls - bulls_in_rows:
            return b, 15
        if ph == ROW_CHOICE and (c != owner or low >= min_end):
            return b, 16
        for q in range(n):
            if rewards[b, q] < -TOTAL_BULLHEADS or rewards[b, q] > 0:
                return b, 17
    return -1, -1


def check_rules(arrays: dict[str, np.ndarray], P: np.ndarray) -> None:
    """Raise ``ValueError`` (naming the field, the game and what was expected) for the first game of
    ``arrays`` that breaks a rule (``_RULES``); the arrays passed the schema's form and bounds checks."""
    a = arrays
    b, code = _first_broken(a["loc"], a["rows"], a["rlen"], a["rbull"], a["pending"], a["scores"], a["rpen"],
                            a["phase"], a["cur"], a["trick"], a["round"], a["counter"], a["picks"], a["rewards"],
                            P, BULLHEADS)
    if b >= 0:
        name, expected = _RULES[code]
        ok = np.ones(len(a["phase"]), bool)
        ok[b] = False
        check_games(ok, name, expected, lambda i: a[name][i])


# --- re-deals: the batched sample_world ----------------------------------------------------------------

def redeal(st: dict[str, np.ndarray], P: np.ndarray, player: int, rng: np.random.Generator) -> None:
    """Every slot of ``st`` (copies of one world of ``player``'s information set) becomes an independent
    determinization, drawn as ``determinize.sample_world`` draws one: the cards ``player`` cannot know
    (other hands, their unrevealed choices, the set-aside cards) uniformly re-assigned to the same places,
    each slot a fresh seed (the real one fixes later deals, which nobody may know); in a draft game each
    unrevealed choice re-drawn from its owner's cards. During the draft nothing is hidden."""
    loc, pend, seed = st["loc"], st["pending"], st["seed"]
    B, n, D = loc.shape[0], int(P[N]), int(P[DECK])
    if B == 0 or int(st["phase"][0]) == DRAFT:
        return
    seed[:] = rng.integers(0, 2**64, size=B, dtype=np.uint64)
    if P[DRAFTING]:  # the hands are public: only the unrevealed choices are hidden
        for q in range(n):
            if q == player or not (pend[:, q] >= 0).any() or int(st["phase"][0]) != PLAY:
                continue
            rows = np.flatnonzero(pend[:, q] >= 0)
            own = loc[rows, :D] == q
            own[np.arange(rows.size), pend[rows, q].astype(np.int64)] = True
            pick = _random_member(own, rng)
            loc[rows, pend[rows, q].astype(np.int64)] = q
            loc[rows, pick] = PENDING
            pend[rows, q] = pick
        return
    codes = loc[0, :D].astype(np.int64)
    hidden = ((codes < n) & (codes != player)) | (codes == PENDING) | (codes == ASIDE)
    cards = np.flatnonzero(hidden)                                           # ascending, the same in every slot
    if cards.size == 0:
        return
    place = codes[cards]                                                     # where each slot's j-th card goes
    owner = np.full(cards.size, -1, np.int64)
    for q in range(n):
        p = int(pend[0, q])
        if p >= 0 and loc[0, p] == PENDING:
            owner[np.searchsorted(cards, p)] = q
    perm = np.argsort(rng.random((B, cards.size)), axis=1)                   # a uniform permutation per slot
    dealt = cards[perm]                                                      # [B, h]: slot b's card at place j
    loc[np.arange(B)[:, None], dealt] = place[None, :].astype(loc.dtype)
    for j in np.flatnonzero(owner >= 0):
        pend[:, owner[j]] = dealt[:, j].astype(pend.dtype)


def _random_member(sets: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly drawn member (column index) of each row's set (bool [m, k], none empty)."""
    cnt = sets.sum(axis=1)
    k = np.minimum((rng.random(sets.shape[0]) * cnt).astype(np.int64), cnt - 1)
    pos = np.cumsum(sets, axis=1) - 1
    return np.argmax(sets & (pos == k[:, None]), axis=1)


def replace_choice(st: dict[str, np.ndarray], games: np.ndarray, seat: int, cards: np.ndarray) -> None:
    """In games ``games`` (play phase, ``seat`` already chose), ``seat``'s hidden choice becomes ``cards``
    (cards of its hand; its old choice goes back to its hand): an opponent model's plan for a choice made
    unseen. ``ValueError`` unless every new card is in ``seat``'s hand there."""
    g = np.asarray(games, np.int64)
    c = np.asarray(cards, np.int64)
    loc, pend = st["loc"], st["pending"]
    if g.size == 0:
        return
    if (st["phase"][g] != PLAY).any() or (pend[g, seat] < 0).any() or (loc[g, c] != seat).any():
        raise ValueError(f"replace_choice: expected cards from seat {seat}'s hand in games where it already chose")
    loc[g, pend[g, seat].astype(np.int64)] = seat
    loc[g, c] = PENDING
    pend[g, seat] = c


__all__ = ["MAX_ROW_BULLS", "SCHEMA", "check_rules", "check_states", "dims", "redeal", "replace_choice"]
