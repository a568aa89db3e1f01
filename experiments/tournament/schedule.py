"""The schedule of a tournament: who sits where in game g, and the seeds of the game and of each seat.

| piece               | contract                                                                          |
|---------------------|-----------------------------------------------------------------------------------|
| ``entrant_labels``  | unique labels of the entrants: the name, then ``name#2``, ``name#3`` for repeats  |
| ``Schedule``        | game g is in block ``g // n`` (n players): one deal (``game_seed``) played n times, |
|                     | once per rotation of the seating; the blocks cycle through every n-subset of the  |
|                     | entrants in order; ``agent_seed(g, seat)`` from the seed, the game and the seat   |

Everything is a pure function of (entrants, players, seed) and g, so a game is reproducible on its own
and the results do not depend on how many workers play the games, or in which order.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

from fiveplay_env.core import seeding

AGENT_SEED_BASE = 1 << 40
"""Agent seeds are ``derive(seed, AGENT_SEED_BASE + g * MAX_SEATS + seat)``, apart from the deal seeds."""
MAX_SEATS = 16


def entrant_labels(names: Sequence[str]) -> list[str]:
    """Unique labels: the name, then ``name#2``, ``name#3`` for repeats."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return out


class Schedule:
    """Which entrant sits where in game g, and the game's seeds (see the module docstring).

    Raises ``ValueError`` with fewer entrants than players.
    """

    def __init__(self, num_entrants: int, num_players: int, seed: int) -> None:
        if num_entrants < num_players:
            raise ValueError(
                f"agents: expected at least {num_players} agents for {num_players} players (repeat a name to "
                f"seat several copies), got {num_entrants}"
            )
        self.n = num_players
        self.seed = seed
        self.entrants = num_entrants
        self.subsets = math.comb(num_entrants, num_players)
        """How many n-subsets the blocks cycle through (never listed: ``group`` computes the one asked for)."""

    @property
    def cycle(self) -> int:
        """Games after which every entrant has played every seat equally often."""
        return self.n * self.subsets

    def group(self, i: int) -> list[int]:
        """The ``i``-th n-subset of the entrants in ``itertools.combinations`` order (ascending entrant
        indices, lexicographic), computed from ``i`` alone in O(entrants) steps, so that memory is flat in
        the number of entrants and games."""
        i %= self.subsets
        out: list[int] = []
        k, m, x = self.n, self.entrants, 0
        while k:
            c = math.comb(m - x - 1, k - 1)  # subsets whose next entrant is x
            if i < c:
                out.append(x)
                k -= 1
            else:
                i -= c
            x += 1
        return out

    def seating(self, g: int) -> list[int]:
        """Entrant index of each seat in game g."""
        block, rot = divmod(g, self.n)
        group = self.group(block)
        return [group[(s + rot) % self.n] for s in range(self.n)]

    def game_seed(self, g: int) -> int:
        """The deal of game g: the same for the n games of its block."""
        return seeding.derive(self.seed, g // self.n)

    def agent_seed(self, g: int, seat: int) -> int:
        """The seed the agent in ``seat`` of game g is reset with."""
        return seeding.derive(self.seed, AGENT_SEED_BASE + g * MAX_SEATS + seat)
