"""5 Alive heuristic bots. They read only the observation vector (its documented layout, see
``fiveplay_env.five_alive.observation``) and never the hidden state.

Card kinds are the action ids 0..17 (numbers 0..7, then Reverse, =21, Skip, Pass Me By, =0, =10,
Draw 1, Draw 2, Hand In & Re-Deal, Bomb); 18 is BUST.

| name                  | strategy                                                                      |
|-----------------------|-------------------------------------------------------------------------------|
| five-alive-saver      | keep wild cards (and 0s) for emergencies: play the largest number that fits;  |
|                       | a 0 if no other number fits; a wild card only when nothing else is playable   |
|                       | (most aggressive first: =21, Skip, Reverse, Pass Me By, Draw 2, Draw 1, Bomb,  |
|                       | =10, =0, Re-Deal)                                                             |
| five-alive-attacker   | uses its special cards when they hurt most: Bomb when an opponent has 1 life   |
|                       | left or the opponents hold few cards (<= 3 on average: fewer 0s to answer);    |
|                       | Draw 2 / Draw 1 when an opponent is about to go out (<= 2 cards); Hand In &   |
|                       | Re-Deal when its own hand is 3+ cards larger than the others' average;        |
|                       | otherwise plays like five-alive-saver                                         |
| five-alive-squeezer   | squeezes the next player: the card that leaves the highest total (=21 as      |
|                       | soon as it holds one, else the largest number); at 21 it passes 21 on (a 0,   |
|                       | Skip, Reverse, Pass Me By) rather than resetting it                           |
| five-alive-lowball    | plays the smallest number that fits (0 first), wild cards last: keeps the     |
|                       | total low and its options open, a cautious and weaker baseline                |

Every bot: BUST only when it is the only legal action (never a voluntary bust); asked for a Bomb
answer (``bomb_zero_optional``) it discards a 0 (a life is worth more than a card). The observation does
not say which variant is played, so in teams the attacker counts teammates among the "opponents" whose
hand sizes and lives it watches (the search agent's rollouts, which know the config, do not).
"""
from __future__ import annotations

from abc import abstractmethod

from dataclasses import dataclass

import numpy as np

from fiveplay_env.agents.base import Agent, check_batch, check_mask
from fiveplay_env.agents.five_alive.batch import attacker_actions
from fiveplay_env.agents.five_alive.constants import (  # noqa: F401  (re-exported: the heuristics' tuning)
    BOMB_MEAN_CARDS, DRAW_ALERT_CARDS, EMERGENCY_ORDER, KEEP_TOTAL, REDEAL_MARGIN,
)
from fiveplay_env.five_alive.observation import DIRECTION, DISCARD, DRAW_PILE, HAND, PHASE, SEATS, TOTAL
from fiveplay_env.five_alive.state import (
    BOMB, BUST, DRAW1, DRAW2, EQ0, EQ10, EQ21, MAX_TOTAL, N0, NUM_KINDS, NUM_NUMBERS, PASS, REDEAL, REVERSE,
    SKIP,
)



@dataclass
class FiveAliveView:
    """What a 5 Alive observation says, decoded; seats are relative (0 = the observer).

    Attributes:
        n: number of players.
        hand: [18] own cards per kind.
        discard: [18] cards per kind in the discard pile.
        total: the running total T.
        direction: +1 (the turn passes to relative seat 1) or -1.
        draw_pile: cards in the draw pile.
        phase: 0 play, 1 Bomb answer, -1 over.
        lives: lives per relative seat; sizes: hand sizes per relative seat.
    """

    n: int
    hand: list[int]
    discard: list[int]
    total: int
    direction: int
    draw_pile: int
    phase: int
    lives: list[int]
    sizes: list[int]

    def opponents(self) -> list[int]:
        """Relative seats of the other players still in the game (lives left)."""
        return [i for i in range(1, self.n) if self.lives[i] > 0]

    def next_seat(self) -> int:
        """The relative seat that plays after the observer (the next seat with lives left)."""
        i = 0
        for _ in range(self.n):
            i = (i + self.direction) % self.n
            if self.lives[i] > 0 and i != 0:
                return i
        return 0


def decode(observation: np.ndarray) -> FiveAliveView:
    """Decode a 5 Alive observation vector (``ValueError`` if its size is not ``80 + 3n``)."""
    obs = np.asarray(observation)
    n, rem = divmod((obs.shape[-1] if obs.ndim == 1 else -1) - SEATS, 3)
    if obs.ndim != 1 or rem or not 2 <= n <= 6:
        raise ValueError(f"observation: expected a 5 Alive observation of size 80 + 3n (n = 2..6), got shape {obs.shape}")
    vals = obs.tolist()
    tot = vals[TOTAL:TOTAL + MAX_TOTAL + 1]
    ph = vals[PHASE:PHASE + 2]
    return FiveAliveView(
        n=n,
        hand=[int(round(v)) for v in vals[HAND:HAND + NUM_KINDS]],
        discard=[int(round(v)) for v in vals[DISCARD:DISCARD + NUM_KINDS]],
        total=tot.index(max(tot)),
        direction=1 if vals[DIRECTION] > 0.5 else -1,
        draw_pile=int(round(vals[DRAW_PILE])),
        phase=0 if ph[0] > 0.5 else 1 if ph[1] > 0.5 else -1,
        lives=[int(round(v)) for v in vals[SEATS + n:SEATS + 2 * n]],
        sizes=[int(round(v)) for v in vals[SEATS + 2 * n:SEATS + 3 * n]],
    )


# --- rules of thumb on plain lists (also used by the search agent's rollouts) ----------------------------

def playable(hand: list[int], total: int) -> list[int]:
    """Kinds in ``hand`` that may be played at ``total`` (wild cards always; numbers while <= 21)."""
    out = [v for v in range(NUM_NUMBERS) if hand[v] and total + v <= MAX_TOTAL]
    out += [k for k in range(NUM_NUMBERS, NUM_KINDS) if hand[k]]
    return out


def saver_card(hand: list[int], total: int) -> int:
    """five-alive-saver: the largest number >= 1 that fits, else a 0, else the first wild card of
    ``EMERGENCY_ORDER``, else BUST."""
    for v in range(min(NUM_NUMBERS - 1, MAX_TOTAL - total), 0, -1):
        if hand[v]:
            return v
    if hand[N0]:
        return N0
    for k in EMERGENCY_ORDER:
        if hand[k]:
            return k
    return BUST


def squeezer_card(hand: list[int], total: int) -> int:
    """five-alive-squeezer: the card leaving the highest total; numbers before wild cards on ties."""
    if total < MAX_TOTAL and hand[EQ21]:
        best_num = max((v for v in range(1, NUM_NUMBERS) if hand[v] and total + v <= MAX_TOTAL), default=0)
        if total + best_num < MAX_TOTAL:
            return EQ21
    if total == MAX_TOTAL:
        if hand[N0]:
            return N0
        for k in (SKIP, REVERSE, PASS, DRAW2, DRAW1, EQ21):
            if hand[k]:
                return k
    return saver_card(hand, total)


def lowball_card(hand: list[int], total: int) -> int:
    """five-alive-lowball: the smallest number that fits (0 first), else wild cards (saver's order)."""
    for v in range(0, min(NUM_NUMBERS - 1, MAX_TOTAL - total) + 1):
        if hand[v]:
            return v
    for k in EMERGENCY_ORDER:
        if hand[k]:
            return k
    return BUST


def attacker_card(hand: list[int], total: int, my_size: int, opp_sizes: list[int], opp_lives: list[int]) -> int:
    """five-alive-attacker's card (see the module table); opponents are the players still in."""
    if opp_sizes:
        mean_size = sum(opp_sizes) / len(opp_sizes)
        if hand[BOMB] and (min(opp_lives) <= 1 or mean_size <= BOMB_MEAN_CARDS):
            return BOMB
        if min(opp_sizes) <= DRAW_ALERT_CARDS:
            if hand[DRAW2]:
                return DRAW2
            if hand[DRAW1]:
                return DRAW1
        if hand[REDEAL] and my_size >= mean_size + REDEAL_MARGIN:
            return REDEAL
    return saver_card(hand, total)


# --- the agents -------------------------------------------------------------------------------------------

class FiveAliveHeuristic(Agent):
    """Common shell: Bomb answers and the BUST-only case, then ``choose`` on the decoded view."""

    name = "five-alive-heuristic"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = check_mask(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        view = decode(observation)
        if view.phase == 1:  # Bomb answer: 0 = discard a 0, BUST = lose a life
            return N0 if action_mask[N0] else int(legal[0])
        a = self.choose(view)
        if not 0 <= a < len(action_mask) or not action_mask[a]:
            # The observation and mask disagree (never with the env): fall back on a legal card.
            a = int(legal[legal != BUST][0]) if (legal != BUST).any() else BUST
        return int(a)

    @abstractmethod
    def choose(self, view: FiveAliveView) -> int:
        """The action id this strategy picks in ``view``."""


class SaverAgent(FiveAliveHeuristic):
    """five-alive-saver: numbers first (largest that fits), wild cards kept for emergencies."""

    name = "five-alive-saver"

    def choose(self, view: FiveAliveView) -> int:
        return saver_card(view.hand, view.total)


class AttackerAgent(FiveAliveHeuristic):
    """five-alive-attacker: Bomb / Draw / Re-Deal when they hurt most, else like the saver."""

    name = "five-alive-attacker"

    def choose(self, view: FiveAliveView) -> int:
        opp = view.opponents()
        return attacker_card(view.hand, view.total, view.sizes[0], [view.sizes[i] for i in opp],
                             [view.lives[i] for i in opp])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The same actions as ``act`` row by row, computed on the whole batch (``fiveplay_env.agents.five_alive.batch``)."""
        obs, m = check_batch(observations, masks)
        return attacker_actions(obs, m)


class SqueezerAgent(FiveAliveHeuristic):
    """five-alive-squeezer: leave the next player the highest total possible."""

    name = "five-alive-squeezer"

    def choose(self, view: FiveAliveView) -> int:
        return squeezer_card(view.hand, view.total)


class LowballAgent(FiveAliveHeuristic):
    """five-alive-lowball: the smallest number that fits, wild cards last."""

    name = "five-alive-lowball"

    def choose(self, view: FiveAliveView) -> int:
        return lowball_card(view.hand, view.total)


FIVE_ALIVE_HEURISTICS: dict[str, type[FiveAliveHeuristic]] = {
    cls.name: cls for cls in (SaverAgent, AttackerAgent, SqueezerAgent, LowballAgent)
}
