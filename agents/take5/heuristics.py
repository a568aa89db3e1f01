"""Take 5 heuristic bots. They read only the observation vector (its documented layout, see
``fiveplay_env.take5.observation``) and never the hidden state.

| name              | card choice (play phase)                                                       |
|-------------------|--------------------------------------------------------------------------------|
| take5-safest      | the card with the lowest *expected* penalty: for each card, the chance that    |
|                   | the other players fill its row before it (its gap holds some of the unseen     |
|                   | cards, each opponent plays one) or undercut it, times what it would then take   |
| take5-closest     | never the 6th card if avoidable: the card closest above its row's last card     |
|                   | (smallest gap) among those that land safely; else the cheapest forced take     |
| take5-dumphigh    | dump high cards early: the highest card that lands safely on a row with at      |
|                   | least two free places; else the closest safe card; else the cheapest take      |
| take5-undercut    | takes the cheapest row on purpose: when its lowest card is lower than every     |
|                   | row end and the cheapest row holds at most 2 bull heads, it plays that card to  |
|                   | take the row now and start a fresh one; otherwise plays like take5-closest     |

Row choice (a too-low card): every bot takes the cheapest row (fewest bull heads, then fewer cards,
then the lowest index: the same rule as ``row_pick="min_bullheads"``). Draft pick (professional
draft): the pool card with the fewest bull heads, then the lowest number.

"Lands safely" means: not lower than every row end (which would take a row) and not the 6th card
of its row, judged on the rows as they are now (other players' cards of the same trick are unknown).
In the professional variant the bots do not know the deck size and treat every unseen card number as
possibly in play (a small miscalibration of take5-safest's probabilities, nothing else).
"""
from __future__ import annotations

from abc import abstractmethod

from dataclasses import dataclass

import numpy as np

from fiveplay_env.agents.base import Agent, check_batch, check_mask
from fiveplay_env.agents.take5.batch import safest_actions
from fiveplay_env.take5.engine import cheapest_row, target_row
from fiveplay_env.take5.observation import HAND, POOL, ROWS, SCORES, SEEN, TRICK, players_of_size
from fiveplay_env.take5.state import ACTION_ROW0, BULL, NUM_CARDS, NUM_ROWS, ROW_LIMIT

_PHASE_DRAFT, _PHASE_PLAY, _PHASE_ROW = 0, 1, 2


@dataclass
class Take5View:
    """What a Take 5 observation says, decoded (card ids 0..103 = numbers 1..104).

    Attributes:
        n: number of players.
        phase: 0 draft, 1 play, 2 row choice.
        hand: own cards, ascending.
        rows: the 4 rows, each ascending (= placement order: a row only grows upwards).
        unseen: card ids neither in own hand nor revealed this round, ascending (other hands,
            unrevealed choices and set-aside cards are among them).
        trick: cards revealed in the current trick (row choice only), ascending.
        pool: the draft pool (draft only), ascending.
    """

    n: int
    phase: int
    hand: list[int]
    rows: list[list[int]]
    unseen: list[int]
    trick: list[int]
    pool: list[int]


def decode(observation: np.ndarray) -> Take5View:
    """Decode a Take 5 observation vector (``ValueError`` if its size is no Take 5 observation's)."""
    obs = np.asarray(observation)
    if obs.ndim != 1:
        raise ValueError(f"observation: expected a 1-d Take 5 observation, got shape {obs.shape}")
    n, _ = players_of_size(obs.shape[0])
    hand_v = obs[HAND:HAND + NUM_CARDS] > 0.5
    known = hand_v | (obs[SEEN:SEEN + NUM_CARDS] > 0.5)
    rows = [np.flatnonzero(obs[ROWS + NUM_CARDS * r:ROWS + NUM_CARDS * (r + 1)] > 0.5).tolist() for r in range(NUM_ROWS)]
    phase_v = obs[SCORES + 3 * n:SCORES + 3 * n + 3]
    phase = int(np.argmax(phase_v)) if phase_v.max() > 0.5 else -1
    return Take5View(
        n=n,
        phase=phase,
        hand=np.flatnonzero(hand_v).tolist(),
        rows=rows,
        unseen=np.flatnonzero(~known).tolist(),
        trick=np.flatnonzero(obs[TRICK:TRICK + NUM_CARDS] > 0.5).tolist() if phase == _PHASE_ROW else [],
        pool=np.flatnonzero(obs[POOL:POOL + NUM_CARDS] > 0.5).tolist() if phase == _PHASE_DRAFT else [],
    )


# --- shared rules of thumb, on plain lists (also used by the search agent's rollouts) -------------------

def row_bulls(row: list[int]) -> int:
    """Bull heads in a row."""
    b = 0
    for c in row:
        b += BULL[c]
    return b


def immediate_cost(rows: list[list[int]], card: int) -> tuple[int, int]:
    """(bull heads ``card`` takes if placed on the rows as they are now, its gap to its row end);
    the gap of a too-low card is 200 (it lands nowhere)."""
    r = target_row(rows, card)
    if r < 0:
        return min(row_bulls(row) for row in rows), 200
    row = rows[r]
    gap = card - row[-1]
    if len(row) == ROW_LIMIT:
        return row_bulls(row), gap
    return 0, gap


def draft_pick(pool: list[int]) -> int:
    """The pool card with the fewest bull heads, then the lowest number."""
    return min(pool, key=lambda c: (BULL[c], c))


def closest_card(hand: list[int], rows: list[list[int]]) -> int:
    """take5-closest's play: the safe card with the smallest gap; else the cheapest take (then lowest)."""
    best, key = hand[0], None
    for c in hand:
        cost, gap = immediate_cost(rows, c)
        k = (cost, gap, c) if cost else (0, gap, c)
        if key is None or k < key:
            best, key = c, k
    return best


def _tail_probability(m: int, p: float, k: int) -> float:
    """P(Binomial(m, p) == k)."""
    if k < 0 or k > m:
        return 0.0
    from math import comb

    return comb(m, k) * p ** k * (1.0 - p) ** (m - k)


def expected_costs(hand: list[int], rows: list[list[int]], unseen: list[int], opponents: int) -> list[float]:
    """take5-safest's estimate of each hand card's penalty this trick.

    Each of ``opponents`` plays one card, modelled as a uniform draw from ``unseen``. A card whose row
    has ``L`` cards becomes the 6th exactly when ``5 - L`` opponent cards fall in its gap (more would
    make someone else the 6th); it then takes the row plus those cards (about 1.5 bull heads each). A
    too-low card takes the cheapest row unless an opponent plays lower still.
    """
    u = len(unseen)
    ends = [row[-1] for row in rows]
    costs: list[float] = []
    import bisect

    min_bulls = min(row_bulls(row) for row in rows)
    for c in hand:
        r = target_row(rows, c)
        if r < 0:
            below = bisect.bisect_left(unseen, c)
            q = below / u if u else 0.0
            costs.append(min_bulls * (1.0 - q) ** opponents)
            continue
        row = rows[r]
        lo = bisect.bisect_right(unseen, ends[r])
        hi = bisect.bisect_left(unseen, c)
        p = (hi - lo) / u if u else 0.0
        need = ROW_LIMIT - len(row)
        prob = _tail_probability(opponents, p, need)
        costs.append(prob * (row_bulls(row) + 1.5 * need))
    return costs


def safest_card(hand: list[int], rows: list[list[int]], unseen: list[int], opponents: int) -> int:
    """take5-safest's play: lowest expected cost, then smallest gap, then lowest number."""
    costs = expected_costs(hand, rows, unseen, opponents)
    best, key = hand[0], None
    for c, e in zip(hand, costs):
        k = (round(e, 9), immediate_cost(rows, c)[1], c)
        if key is None or k < key:
            best, key = c, k
    return best


def dumphigh_card(hand: list[int], rows: list[list[int]]) -> int:
    """take5-dumphigh's play: the highest card landing safely on a row with >= 2 free places."""
    for c in reversed(hand):
        r = target_row(rows, c)
        if r >= 0 and len(rows[r]) <= ROW_LIMIT - 2:
            return c
    return closest_card(hand, rows)


UNDERCUT_MAX_BULLS = 2


def undercut_card(hand: list[int], rows: list[list[int]]) -> int:
    """take5-undercut's play: if the cheapest row costs <= 2 bull heads and our lowest card is lower
    than every row end, play it (we will take that row); else take5-closest's play."""
    low = hand[0]
    if target_row(rows, low) < 0 and row_bulls(rows[cheapest_row(rows)]) <= UNDERCUT_MAX_BULLS:
        return low
    return closest_card(hand, rows)


# --- the agents --------------------------------------------------------------------------------------

class Take5Heuristic(Agent):
    """Common shell: decode the observation, handle draft and row choice, delegate the card choice."""

    name = "take5-heuristic"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = check_mask(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        view = decode(observation)
        if view.phase == _PHASE_ROW:
            a = ACTION_ROW0 + cheapest_row(view.rows)
        elif view.phase == _PHASE_DRAFT:
            a = draft_pick([int(c) for c in legal if c < NUM_CARDS])
        else:
            hand = [int(c) for c in legal if c < NUM_CARDS]
            a = self.choose(view, hand) if hand else int(legal[0])
        if not action_mask[a]:  # never happens with a consistent observation and mask
            raise ValueError(f"{self.name}: computed action {a} is not legal; legal: {legal.tolist()}")
        return int(a)

    @abstractmethod
    def choose(self, view: Take5View, hand: list[int]) -> int:
        """The action id this strategy picks in ``view`` with ``hand``."""


class SafestAgent(Take5Heuristic):
    """take5-safest: minimise the expected penalty of the card played (see ``expected_costs``)."""

    name = "take5-safest"

    def choose(self, view: Take5View, hand: list[int]) -> int:
        return safest_card(hand, view.rows, view.unseen, view.n - 1)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The same actions as ``act`` row by row, computed on the whole batch (``fiveplay_env.agents.take5.batch``)."""
        obs, m = check_batch(observations, masks)
        return safest_actions(obs, m)


class ClosestAgent(Take5Heuristic):
    """take5-closest: avoid being the 6th card; among safe cards the one closest to its row end."""

    name = "take5-closest"

    def choose(self, view: Take5View, hand: list[int]) -> int:
        return closest_card(hand, view.rows)


class DumpHighAgent(Take5Heuristic):
    """take5-dumphigh: get rid of high cards while rows have room; keep low cards for later."""

    name = "take5-dumphigh"

    def choose(self, view: Take5View, hand: list[int]) -> int:
        return dumphigh_card(hand, view.rows)


class UndercutAgent(Take5Heuristic):
    """take5-undercut: when a row is cheap (<= 2 bull heads) and our lowest card is too low, play it to
    take that row now, on our terms; otherwise like take5-closest."""

    name = "take5-undercut"

    def choose(self, view: Take5View, hand: list[int]) -> int:
        return undercut_card(hand, view.rows)


TAKE5_HEURISTICS: dict[str, type[Take5Heuristic]] = {
    cls.name: cls for cls in (SafestAgent, ClosestAgent, DumpHighAgent, UndercutAgent)
}
