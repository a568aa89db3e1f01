"""The search agent: determinized Monte Carlo search, in compiled code where the game has it.

Algorithm (one decision of player P, who sees only an ``InformationSet``):

1. Worlds. The decision draws one key from the agent's generator; world j is then
   ``InformationSet.sample_at(key, j, facts)``: a determinization drawn through the information set (the
   game's ``sample_world`` on the canonical state, the game's seed re-drawn) from counter-based randomness
   (``seeding.CounterStream``), so world j depends only on the information set, the key and j. The cards P
   cannot see are re-dealt consistently with everything P has observed (and the opponent model's beliefs
   ``facts``, where the game can honour them); later deals are unknown.
2. Evaluation. ``value(world j, a)``: play candidate action ``a`` in a copy of world j, then let a cheap
   rollout policy play every seat (P included) up to the horizon (Take 5: the end of the round; 5 Alive:
   see ``agents/<game>/rollouts.py``), and score the outcome for P. Each world carries its own random
   numbers for the rollout policy (``world_noise(key, j)``), so *every candidate is evaluated on the same
   worlds with the same randomness* (common random numbers): the difference between two candidates'
   means is not blurred by the luck of the deal.
3. Allocation: sequential halving at the root (Karnin, Koren and Somekh 2013; ``halving``). The budget of
   ``sims`` simulations (or ``worlds`` per candidate, or ``time`` seconds, converted to simulations from the
   measured speed of the first world and enforced as a hard deadline) is split into ceil(log2 k) rounds for
   k legal actions; in each round every surviving action is evaluated on the same new worlds (at least one
   per round, so a tiny budget is exceeded rather than skipping a round), then the worse half is dropped.
   The last survivor is played. A single legal action is played without search. UCB1 (or PUCT with a
   prior) at the root is the option ``alloc=ucb`` (``ucb``; the j-th pull of any action is on world j).

Where the worlds and rollouts run (``backend``): a game whose kit names a compiled search
(``Rollout.compiled``: Take 5 and 5 Alive) draws the worlds, plans the opponent model and rolls every
candidate out in one numba call per batch of worlds (``agents/<game>/compiled.py``, on the game's kernel);
any other game, ``backend=python``, and the policy rollouts (``rollout=policy``: a network in every step)
run on the reference engine (``PythonValues``). The two give the same values bit for bit
(``compiled_search_contract``; ``tests/agents/test_compiled_search.py``), hence **the same decisions with
the same seed and a ``sims`` or ``worlds`` budget**; the compiled one is 25-35x faster (``fiveplay bench
--search``). The allocation is one pair of functions over an evaluator (``Evaluate``: worlds
first..first+count-1 on the candidates -> their values) whose results come back as an ``Outcome``.

Why this and not a full IS-MCTS tree: in Take 5 every player picks a card at the same time and in
5 Alive the other players' replies depend on hands P cannot see; a tree over P's information sets
branches on every possible revealed card (dozens of children per node), so at a budget of a few
hundred simulations per decision it never grows past the root and IS-MCTS degenerates into
determinized search at the root anyway. Spending the whole budget on the root decision with
sequential halving (a fixed-budget best-arm identification method with no exploration constant to
tune) and pairing the candidates on common worlds gets the most out of a small budget; the depth is
supplied by the rollout policy, a fast heuristic. UCB1 at the root is available too (``alloc=ucb``).

Rollout policies (cheap, epsilon-greedy): Take 5, take5-closest for every seat, except that the other
players' cards of the current trick are take5-safest's choices (``model``); 5 Alive, five-alive-attacker
for every seat (``insure`` adjusts the searcher's own later moves). The value is scored at the end of
the round, when everything but scores or lives is dealt again anyway.

It sees only what P may see: all it receives is the ``InformationSet`` (``observe_engine``); it calls
nothing on the engine but through it (observation, mask, the last public event), and worlds are built
only by ``InformationSet.sample``. With the
same seed it makes the same decision in any two engines that differ only in cards P cannot see
(``sims`` budgets; a ``time`` budget depends on the machine's speed). It can be a training opponent
and an evaluation baseline (``fiveplay_env.agents.learned.engine_seats``, one instance per game and seat); its
``get_state()`` (seed, generator state, the opponent model's memory) lets such a run resume exactly.

Registry names: ``ismcts:sims=200``, ``ismcts:time=0.1``, with optional further ``key=value`` items
separated by commas (defaults in brackets):

| key     | meaning                                                                                |
|---------|----------------------------------------------------------------------------------------|
| sims    | simulations per decision [200 when neither sims nor time is given]                     |
| time    | seconds per decision instead (hard deadline; the first world measures the speed)       |
|         | (bounds: sims <= ``MAX_SIMS``, time <= ``MAX_TIME``, depth <= ``MAX_DEPTH``, topk <= ``MAX_TOPK``; |
|         | the ``deadline`` attribute, set by a server, caps any budget in wall-clock seconds)     |
| worlds  | budget: K worlds per candidate (K x k simulations for k candidates) instead of sims      |
| backend | ``auto`` (compiled where the game has a compiled search), ``compiled`` (an error where it |
|         | has none) or ``python`` (the reference engine: the same decisions, 25-35x slower) [auto] |
| alloc   | ``halving`` (sequential halving) or ``ucb`` (UCB1, ``c`` times the value range) [halving] |
| c       | UCB1 exploration constant [0.7]                                                        |
| eps     | rollout exploration: chance of a uniformly random legal move at each rollout step [0.1] |
| rollout | ``heuristic``, ``random`` (= eps 1) or ``policy`` (with ``prior``: every simulated player |
|         | plays the policy's greedy choice on its own observation, eps as above; see below) [heuristic] |
|         | ``strong``: the game's best heuristic (Take 5: take5-safest, about 3x closest's cost).  |
|         | ``net`` (compiled only; Take 5): a small per-card network distilled from a policy plays |
|         | every seat inside the compiled rollouts (``agents/take5/distill.py``), about 2x strong's|
|         | cost, 25x faster than ``policy``                                                         |
| tree    | 1 (compiled only; Take 5): an open-loop node over the searcher's card of the next trick: |
|         | in each simulation it is chosen by UCB1 (``c`` x the candidate's value range) over that  |
|         | candidate's statistics so far, widening progressively in take5-safest's order [0]      |
| rel     | weight of the other players' mean outcome, subtracted from one's own [1]               |
| model   | opponent model [heuristic]: ``heuristic`` assumes the others play like the best       |
|         | heuristic. Take 5: their cards of the current trick are take5-safest's choice from     |
|         | their sampled hands. 5 Alive: their public plays are read as five-alive-attacker's    |
|         | (a 3 played at T = 10 means no 4..7 in that hand), and worlds honour those beliefs     |
|         | until the hand changes or a play contradicts them. ``none``: no opponent model         |
| win     | Take 5: bonus (in bull heads) for winning when the game ends with the round [0]        |
| depth   | rollout length: Take 5 tricks, 5 Alive turns (then the round end is estimated from     |
|         | the hand sizes); 0 = to the end of the round [0]                                        |
| alpha   | 5 Alive value: 0 = own lives change minus ``rel`` times the others' mean, plus 3 for a  |
|         | won game (-3 lost); > 0 = estimated chance to win, l^alpha / sum of l^alpha over the   |
|         | contenders' lives l, 1 or 0 once decided [0]                                            |
| insure  | 5 Alive: 1 = in rollouts the searcher's own later moves keep its last 0 against a Bomb   |
|         | not yet played, spending a wild card instead (as its search tends to); 0 = they follow  |
|         | the rollout policy like everyone else [1]                                               |
| prior   | policy guidance: a learned policy (``pretrained:NAME``, ``ckpt:PATH`` or a bare shipped  |
|         | NAME) read on the searcher's own observation and mask (nothing else: information-set    |
|         | honest); used by ``topk`` and ``cpuct`` [none]                                           |
| topk    | with ``prior``: search only the policy's k most probable legal actions (0 = all) [0]    |
| cpuct   | with ``prior`` and ``alloc=ucb``: PUCT instead of UCB1, Q(a) + cpuct * range * P(a) *    |
|         | sqrt(N) / (1 + n(a)), untried actions valued at the mean so far; the most visited wins [0] |
| value   | with ``rollout=policy`` and ``depth=D``: 1 = the policy's value head ends the rollouts.   |
|         | Take 5: a rollout cut off after D tricks adds every player's value-head estimate (its own |
|         | observation) to its gains, in bull heads. 5 Alive: a rollout goes on (across round ends) |
|         | to the searcher's D-th next decision and is worth the value head's estimate of the game's |
|         | outcome on the searcher's observation there (+-1 if decided first) [0]                   |

Where the time goes (optional, for measurements such as ``fiveplay_env.experiments.budget --profile``): with
``agent.profile = {}`` (a dict; None, the default, turns it off) every decision adds its seconds
(``time.perf_counter``) to these keys, so that their shares of ``total`` say where a decision's time is spent:

| key           | what                                                                               |
|---------------|------------------------------------------------------------------------------------|
| ``total``     | the whole of ``act`` (searched decisions only) plus ``observe``                     |
| ``observe``   | ``observe_engine``: the information set and the opponent model's beliefs            |
| ``determinize`` | drawing the worlds (``InformationSet.sample_at``; Python path)                    |
| ``prepare``   | each world's shared plan (Take 5: the others' predicted cards of the trick; Python) |
| ``prior``     | the prior policy's forward pass on the searcher's observation (``topk``, ``cpuct``) |
| ``network``   | the policy's forward passes inside the rollouts (``rollout=policy``, ``value=1``)   |
| ``rollouts``  | the rollouts without their forward passes (engine clones, steps, rollout policies); |
|               | compiled: the whole compiled call (worlds, plans and rollouts together)            |
| ``tree``      | the rest: the allocation's bookkeeping (sequential halving or UCB), checks          |

``decisions`` and ``sims`` count the searched decisions and their simulations. The timer calls cost
well under a microsecond each.

What it thought (optional, for displays such as the web app): with ``agent.keep_thoughts = True`` every
decision leaves ``agent.last_thoughts``: each candidate action's visits (simulations spent on it) and
mean value, the chosen action, and the prior's probabilities when there is a prior. The numbers are
the search's own, so keeping them costs a small dict per decision; off by default. They describe the
searcher's private hand: show them to others only once that is no longer hidden.

Policy-guided names, e.g. ``ismcts:sims=100,prior=take5-game-4p,topk=3`` (the policy's three best cards,
searched by sequential halving) or ``ismcts:sims=100,alloc=ucb,prior=take5-game-4p,cpuct=2`` (PUCT).
The prior is loaded by the first ``observe_engine`` (before the game's first decision).

Policy rollouts (``rollout=policy``, e.g. ``ismcts:sims=160,prior=take5-game-4p,rollout=policy,depth=1,
value=1``): in each determinized world every simulated player, the searcher included, chooses with the
``prior`` policy from its *own* observation of that world (the engine's encoder: its sampled hand and the
public table), so it acts on no more than that player would see; the determinization already hides
the real hidden cards from the searcher. The choice is greedy (the policy's most probable legal
action) with the ``eps`` chance of a random legal one drawn from the world's noise: greedy is how the
shipped policies play best, and a deterministic choice keeps the common random numbers (every
candidate of a world meets the same replies), so the comparison between candidates stays sharp.
Take 5 keeps the ``model`` prediction (take5-safest) for the other players' cards of the current trick
(``model=none`` lets the policy choose them too), the cheapest card in a draft and nothing else
heuristic; 5 Alive keeps the rule's Bomb answer, and ``insure`` does not apply. The forward passes are
batched: sequential halving evaluates every world of a round at once (batches sized to a slice of the time
left under a time limit), in lockstep, one pass per trick (Take 5: everyone still to choose in every rollout)
or per turn (5 Alive); ``alloc=ucb`` plays one rollout per pass, so it is much slower per simulation.
``value=1`` (Take 5) stops each rollout after ``depth`` tricks and adds the value head's estimate of
each player's remaining return, converted to bull heads (``PolicyGuide.points`` = 1 / the training's
``reward_scale``: ``take5-game-4p`` was trained on -0.1 per bull head over the whole game plus a win
bonus, so its values count the later rounds and the win too); a rollout that reaches the round's end
first is scored as usual. In 5 Alive (``value=1,depth=D``) the rollouts run past the round's end to the
searcher's D-th next decision, where the value head's estimate of the game's outcome (win/loss, from
the searcher's own observation: an input the policy was trained on) is the rollout's whole value; the
lives lost on the way are in that observation. Cost: about 0.03 ms of network per row on one thread plus 0.7 ms per pass;
``sims=160,depth=1,value=1`` takes about 40 ms per Take 5 decision on this machine.

The options are ``fiveplay_env.agents.search_params.SearchParams`` (a validated frozen dataclass); the best response by
search is ``fiveplay_env.agents.best_response``. (Over 450 lines: a third is this description; the rest is the
allocation functions, the agent and the reference evaluator.)
"""
from __future__ import annotations

import copy
import math
import time as _time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fiveplay_env.agents import games
from fiveplay_env.agents.base import NOISE_LEN, InformationSet, SearchAgentBase, world_noise
from fiveplay_env.agents.kit import Rollout, resolve
from fiveplay_env.agents.search_params import MAX_DEPTH, MAX_SIMS, MAX_TIME, MAX_TOPK, SearchParams  # noqa: F401 - re-exported
from fiveplay_env.core.config import plain
from fiveplay_env.games import GameMapping

MAX_CHUNK = 512
"""The most worlds evaluated by one call of an evaluator (memory bounded whatever ``sims``)."""
SLICE = 0.01
"""Under a time limit, the longest batch of worlds between two looks at the clock (seconds, about)."""

ROLLOUTS = GameMapping(lambda g: games.kit(g.name).search)
"""Each game's search hooks (``fiveplay_env.agents.kit.Rollout``): its kit's (``agents/<game>/rollouts.py``), or
random playouts for a game without its own; a live view of the game table."""


class _Guided(Mapping[str, str]):
    """A read-only live view, game name -> its kit's guided search (``AgentKit.guided``), of the games that
    have one."""

    def _table(self) -> dict[str, str]:
        return {name: k.guided for name in GameMapping() if (k := games.kit(name)).guided}

    def __getitem__(self, game: str) -> str:
        return self._table()[game]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())

    def __repr__(self) -> str:
        return f"GUIDED({self._table()})"


GUIDED: Mapping[str, str] = _Guided()
"""The recommended policy-guided search of each game that has one (the ladder's, the web app's and the budget
curves' entry), declared in its kit (``AgentKit.guided``): e.g. the shipped policy plays the rollouts and its
value head ends them. Measured in the README's ladder and ``docs/evaluation.md``."""


def guided_prior(setting: str) -> str | None:
    """The shipped policy name (``fiveplay_env.agents.learned.pretrained``) of the ``prior=`` of a search setting such as
    ``GUIDED[game]``; another prior (``ckpt:...``) as ``SearchParams`` keeps it; None without one."""
    prior = SearchParams.parse(setting.partition(":")[2]).prior
    return None if prior is None else prior.removeprefix("pretrained:")


Evaluate = Callable[[int, int, list[int]], np.ndarray]
"""``values(first, count, actions)`` -> float64 [count, len(actions)]: every candidate's value on worlds
first..first+count-1 of one decision (world j: ``InformationSet.sample_at(key, j, facts)``, its rollout random
numbers ``world_noise(key, j)``): what a search's allocation asks of its evaluator."""


@dataclass
class Outcome:
    """What an allocation found: the action to play, each candidate's visits and summed value, the simulations
    run, and whether a time limit stopped it."""

    best: int
    visits: dict[int, int]
    sums: dict[int, float]
    sims: int
    late: bool = False


class Pace:
    """A decision's clock: its ``limit`` (``perf_counter`` time, None: none) and the values per second measured
    so far, which size the batches of worlds so that the clock is looked at often enough."""

    def __init__(self, limit: float | None) -> None:
        self.limit = limit
        self.rate: float | None = None

    def past(self) -> bool:
        return self.limit is not None and _time.perf_counter() > self.limit

    def worlds(self, want: int, width: int) -> int:
        """How many of ``want`` worlds (``width`` candidates each) to evaluate in the next call: all of them
        (at most ``MAX_CHUNK``) without a limit, else as many as fit in a slice of the time left (an eighth
        of it, at most ``SLICE`` seconds; one world while the speed is unknown)."""
        m = min(want, MAX_CHUNK)
        if self.limit is None:
            return max(1, m)
        if self.rate is None:
            return 1
        left = max(0.0, self.limit - _time.perf_counter())
        return max(1, min(m, int(self.rate * min(left / 8, SLICE) / max(1, width))))

    def run(self, evaluate: Evaluate, first: int, count: int, actions: list[int]) -> np.ndarray:
        t0 = _time.perf_counter()
        vals = evaluate(first, count, actions)
        spent = _time.perf_counter() - t0
        if spent > 0:
            rate = vals.size / spent
            self.rate = rate if self.rate is None else 0.5 * self.rate + 0.5 * rate
        return vals


def halving(evaluate: Evaluate, actions: list[int], budget: int, pace: Pace, probe: np.ndarray | None = None) -> Outcome:
    """Sequential halving over common worlds (Karnin, Koren and Somekh 2013): ``budget`` simulations over
    ceil(log2 k) rounds; in each round every surviving candidate is evaluated on the same new worlds (at least
    one), then the worse half is dropped; the last survivor is played. ``probe`` (float [1, k]): world 0 already
    evaluated on every candidate (a ``time`` budget's speed probe), counted in the first round. Stops at the
    first look at the clock past ``pace.limit``, playing the best survivor on the worlds evaluated so far (every
    call evaluates whole worlds on every survivor, so the comparison stays paired)."""
    k = len(actions)
    rounds = max(1, math.ceil(math.log2(k)))
    sums = dict.fromkeys(actions, 0.0)
    visits = dict.fromkeys(actions, 0)
    survivors = list(actions)
    nxt = 0
    sims = 0
    late = False
    if probe is not None:
        for a, v in zip(actions, probe[0]):
            sums[a] += float(v)
            visits[a] += 1
        nxt, sims = 1, k
    for rnd in range(rounds):
        if len(survivors) == 1:
            break
        per_action = max(1, budget // (rounds * len(survivors)))
        if rnd == 0 and probe is not None:
            per_action = max(0, per_action - 1)
        done = 0
        while done < per_action:
            if pace.past():
                late = True
                break
            m = pace.worlds(per_action - done, len(survivors))
            vals = pace.run(evaluate, nxt, m, survivors)
            nxt += m
            done += m
            sims += vals.size
            tot = vals.sum(axis=0)
            for j, a in enumerate(survivors):
                sums[a] += float(tot[j])
                visits[a] += m
        survivors.sort(key=lambda a: -sums[a])  # every survivor has met the same worlds: compare the sums
        survivors = survivors[:max(1, math.ceil(len(survivors) / 2))]
        if late or pace.past():
            late = True
            break
    return Outcome(survivors[0], visits, sums, sims, late)


def ucb(evaluate: Evaluate, actions: list[int], sims: int | None, pace: Pace, hard: bool, c: float,
        prior: np.ndarray | None = None, cpuct: float = 0.0) -> Outcome:
    """UCB1 at the root over common worlds (the j-th pull of any action is on world j): ``c`` times the value
    range as the exploration constant; with a ``prior``, PUCT (``cpuct``; untried actions valued at the mean so
    far). The most visited action is played. Stops after ``sims`` pulls (at least one per action) or past the
    clock's limit (under a ``hard`` deadline even before every action was tried)."""
    n = dict.fromkeys(actions, 0)
    s = dict.fromkeys(actions, 0.0)
    lo, hi = math.inf, -math.inf
    total = 0
    late = False
    while True:
        if sims is not None and total >= max(sims, len(actions)):
            break
        if (hard or total >= len(actions)) and pace.past():
            late = True
            break
        untried = [a for a in actions if n[a] == 0]
        if prior is not None:
            span = (hi - lo) if hi > lo else 1.0
            q0 = sum(s.values()) / total if total else 0.0
            root = math.sqrt(max(total, 1))
            a = max(actions, key=lambda b: (s[b] / n[b] if n[b] else q0)
                    + cpuct * span * float(prior[b]) * root / (1 + n[b]))
        elif untried:
            a = untried[0]
        else:
            span = (hi - lo) if hi > lo else 1.0
            logt = math.log(total)
            a = max(actions, key=lambda b: s[b] / n[b] + c * span * math.sqrt(logt / n[b]))
        v = float(evaluate(n[a], 1, [a])[0, 0])
        n[a] += 1
        s[a] += v
        lo, hi = min(lo, v), max(hi, v)
        total += 1
    best = max(actions, key=lambda b: (n[b], s[b] / max(n[b], 1)))
    return Outcome(best, n, s, total, late)


class SearchAgent(SearchAgentBase):
    """Determinized Monte Carlo search (see the module docstring); needs ``observe_engine``."""

    name = "ismcts"
    label = "ismcts"

    keep_thoughts: bool = False
    """Set True to keep each decision's candidates in ``last_thoughts`` (see ``last_thoughts``)."""

    profile: dict[str, float] | None = None
    """Set to a dict (``{}``) to add each decision's time per part to it (the module docstring's table)."""

    deadline: float | None = None
    """A hard wall-clock limit per decision in seconds, whatever ``sims``, ``time`` or ``depth`` say (None:
    none). The search looks at the clock between batches of worlds, each sized to a slice of the time left,
    and stops once it has passed, playing the best action on the worlds evaluated on every surviving
    candidate so far (a batch holds whole worlds, so the comparison stays paired); with no world evaluated,
    the first candidate (the prior's most probable with ``topk``). A server sets it on every search it seats
    (``fiveplay_env.experiments.web``); a decision then costs at most about the deadline plus one slice."""

    def __init__(self, seed: int | None = None, game: str | None = None, params: SearchParams | None = None,
                 allow_import: bool = False) -> None:
        if not isinstance(game, str):
            raise ValueError(f"game: expected a game's name (one of {sorted(GameMapping())}), got {game!r}")
        super().__init__(seed)
        self.allow_import = bool(allow_import)  # kept for the registry's call; the prior is a learned policy's name only (policy_agent)
        self.last_thoughts: dict[str, Any] | None = None
        """With ``keep_thoughts``: the last decision's ``{"kind": "search", "candidates": [{"action", "visits",
        "mean"}, ...] (most visited first), "chosen", "sims", "seconds", "prior": {action: p} (with a prior)}``;
        ``visits``: simulations spent on the action, ``mean``: their mean value for the searcher (higher is
        better; the game's rollout value: Take 5 minus bull heads, relative to the others by ``rel``). A single
        legal action gives ``{"kind": "search", "forced": True, ...}``. Kept only when asked: the numbers
        exist anyway, so it costs a small dict per decision."""
        self.game = game
        self.params = params or SearchParams()
        self._rollout = games.kit(game).search  # ValueError naming the known games
        if self.params.rollout == "policy" and self._rollout.simulate_policy is None:
            raise ValueError(f"rollout=policy: not available for {game!r}")
        if self.params.value and not self._rollout.leaf_value:
            raise ValueError(f"value=1: no value-head leaf for {game!r} (use rollout=policy without value)")
        if self.params.rollout == "net" and not (self._rollout.net and self._rollout.compiled is not None):
            raise ValueError(f"rollout=net: {game!r} has no compiled rollout network (its kit's Rollout.net); "
                             f"expected rollout=heuristic, strong, random or policy")
        if self.params.tree and not (self._rollout.tree and self._rollout.compiled is not None):
            raise ValueError(f"tree=1: {game!r} has no compiled open-loop node (its kit's Rollout.tree); expected "
                             f"tree=0")
        if self.params.backend == "compiled" and self._rollout.compiled is None:
            raise ValueError(f"backend=compiled: {game!r} has no compiled search (its kit's Rollout.compiled); "
                             f"expected backend=python or no backend")
        self._memory: dict[str, Any] = {}
        self._prior_agent: Any = None
        self._compiled: Any = None
        self.last_stats: dict[str, Any] = {}
        self._prior_net = 0.0

    @property
    def compiled(self) -> bool:
        """Whether this search's worlds and rollouts run in compiled code (the game has a compiled search,
        ``backend`` is not ``python`` and the rollouts are not the policy's)."""
        p = self.params
        return self._rollout.compiled is not None and p.backend != "python" and p.rollout != "policy"

    def set_prior_policy(self, agent: Any) -> None:
        """Use ``agent`` (a learned policy object with ``evaluate(observations, masks) -> (logits, values)``, e.g.
        a ``PolicyAgent`` built in memory by a trainer) as this search's ``prior`` instead of loading the policy
        its ``prior=`` option names; ``ValueError`` if the search has no ``prior`` option or ``agent`` no
        ``evaluate``."""
        if self.params.prior is None:
            raise ValueError("set_prior_policy: expected a search with a prior=POLICY option")
        if not callable(getattr(agent, "evaluate", None)):
            raise ValueError(f"set_prior_policy: expected a learned policy with evaluate(), got {type(agent).__name__}")
        self._prior_agent = PolicyGuide(agent, self.game)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._info = None
        self._memory = {}

    def get_state(self) -> dict[str, Any]:
        """The seed, the generator's state and the per-game memory (the opponent model's beliefs), as
        plain data; the information set of the next ``act`` is not part of it (``observe_engine`` gives
        it again before every decision)."""
        return {"seed": plain(self.seed), "rng": plain(self.rng.bit_generator.state),
                "memory": plain(copy.deepcopy(self._memory))}

    def set_state(self, state: dict[str, Any]) -> None:
        """Restore ``get_state``'s result: the same future decisions as the agent it came from."""
        self.seed = state["seed"]
        self.rng = np.random.default_rng(self.seed)
        self.rng.bit_generator.state = state["rng"]
        self._memory = copy.deepcopy(state["memory"])
        self._info = None

    def observe_engine(self, engine: Any, player: int) -> None:
        """Take the information set of ``player`` in ``engine`` for the next ``act``, and follow the
        public event of the last step (call it after every step to let the opponent model work)."""
        if self.params.prior is not None and self._prior_agent is None:
            self._guide()  # load the policy now (a game's first call), not inside a timed decision
        t0 = _time.perf_counter()
        info = InformationSet(engine, player)
        if self._rollout.observe is not None:
            self._rollout.observe(info, self._memory, self.params)
        self._info = info
        if self.profile is not None:
            dt = _time.perf_counter() - t0
            self._add("observe", dt)
            self._add("total", dt)

    def _add(self, key: str, seconds: float) -> None:
        prof = self.profile
        if prof is not None:
            prof[key] = prof.get(key, 0.0) + seconds

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        if self.profile is None:
            return self._act(observation, action_mask)
        prof = self.profile
        t0 = _time.perf_counter()
        guide = self._prior_agent
        net0 = guide.seconds if guide is not None else 0.0
        before = {k: prof.get(k, 0.0) for k in ("determinize", "prepare", "prior", "rollouts")}
        self.last_stats = {}
        self._prior_net = 0.0
        best = self._act(observation, action_mask)
        if not self.last_stats:  # a single legal action: no search
            return best
        total = _time.perf_counter() - t0
        guide = self._prior_agent
        net = (guide.seconds - net0) if guide is not None else 0.0
        delta = {k: prof.get(k, 0.0) - before[k] for k in before}
        net_rollouts = min(max(0.0, net - self._prior_net), delta["rollouts"])  # the prior's own pass is in "prior"
        prof["rollouts"] = before["rollouts"] + delta["rollouts"] - net_rollouts
        self._add("network", net_rollouts)
        self._add("tree", max(0.0, total - sum(delta.values())))
        self._add("total", total)
        self._add("decisions", 1)
        self._add("sims", float(self.last_stats.get("sims", 0)))
        return best

    def _act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        self.last_thoughts = None
        legal, info = self.take_information_set(action_mask)
        if info is None:
            if self.keep_thoughts:
                self.last_thoughts = {"kind": "search", "forced": True, "chosen": int(legal[0]),
                                      "candidates": [{"action": int(legal[0]), "visits": 0, "mean": None}]}
            return int(legal[0])
        p = self.params
        start = _time.perf_counter()
        actions = [int(a) for a in legal]
        prior = None
        if p.prior is not None:
            t0 = _time.perf_counter()
            net0 = self._guide().seconds
            prior = self._prior(observation, action_mask)
            if self.profile is not None:
                self._add("prior", _time.perf_counter() - t0)
                self._prior_net = self._guide().seconds - net0
            if p.topk:
                actions = sorted(actions, key=lambda a: -prior[a])[:p.topk]
                if len(actions) == 1:
                    self.last_stats = {"sims": 0, "seconds": 0.0, "actions": 1}
                    self._think(Outcome(actions[0], {actions[0]: 0}, {actions[0]: 0.0}, 0), prior)
                    return actions[0]
        key = int(self.rng.integers(2**63))  # the decision's worlds and random numbers: all from this key
        evaluate = self._evaluator(info, key)
        pace = Pace(self._limit(start))
        if p.alloc == "ucb":
            out = ucb(evaluate, actions, p.sims if p.worlds is None else min(MAX_SIMS, p.worlds * len(actions)),
                      pace, self.deadline is not None, p.c, prior if p.cpuct else None, p.cpuct)
        else:
            probe = None
            if p.time is not None:  # one world on every action measures the speed; the budget follows
                probe = pace.run(evaluate, 0, 1, actions)
                elapsed = max(_time.perf_counter() - start, 1e-6)
                budget = max(len(actions), int(len(actions) * p.time / elapsed * 0.95))
                if self.compiled:  # the probe paid for setting up: budget from the measured rate instead
                    budget = max(budget, int((pace.rate or 0.0) * p.time * 0.8))
            else:
                budget = p.sims if p.worlds is None else min(MAX_SIMS, p.worlds * len(actions))
            out = halving(evaluate, actions, min(budget, MAX_SIMS), pace, probe)
        self.last_stats = {"sims": out.sims, "seconds": _time.perf_counter() - start, "actions": len(actions),
                           "late": out.late}
        self._think(out, prior)
        return out.best

    def _think(self, out: Outcome, prior: np.ndarray | None) -> None:
        if not self.keep_thoughts:
            return
        cands = [{"action": int(a), "visits": int(out.visits[a]),
                  "mean": (float(out.sums[a]) / out.visits[a]) if out.visits[a] else None} for a in out.visits]
        cands.sort(key=lambda c: (-c["visits"], -(c["mean"] if c["mean"] is not None else -math.inf)))
        thoughts: dict[str, Any] = {"kind": "search", "chosen": int(out.best), "candidates": cands,
                                    "sims": int(self.last_stats.get("sims", 0)),
                                    "seconds": round(float(self.last_stats.get("seconds", 0.0)), 4)}
        if prior is not None:
            thoughts["prior"] = {int(a): round(float(prior[a]), 4) for a in np.flatnonzero(prior > 0)}
        self.last_thoughts = thoughts

    def _guide(self) -> "PolicyGuide":
        """The ``prior`` policy, loaded on first use."""
        if self._prior_agent is None:
            from fiveplay_env.agents.learned.names import policy_agent  # lazy: torch only with a prior

            agent = policy_agent(self.params.prior, self.game, seed=0)
            if not hasattr(agent, "evaluate"):
                raise ValueError(f"prior: expected a learned policy (pretrained:NAME or ckpt:PATH), got {self.params.prior!r}")
            self._prior_agent = PolicyGuide(agent, self.game)
        return self._prior_agent

    def _prior(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The prior policy's probabilities over the actions, from the searcher's observation and mask."""
        m = np.asarray(action_mask)[None, :]
        logits = self._guide().evaluate(np.asarray(observation, np.float32)[None, :], m)[0][0]
        logits = np.where(m[0] != 0, logits, -np.inf)
        z = np.exp(logits - logits.max())
        return z / z.sum()

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        raise ValueError(f"{self.name}: act_batch is not available: a search agent decides one game at a time "
                         "(observe_engine, then act)")

    # --- the evaluators: worlds and rollouts ------------------------------------------------------
    def _evaluator(self, info: InformationSet, key: int) -> Evaluate:
        """This decision's ``Evaluate``: compiled code where the game has it, else the reference engine."""
        p = self.params
        facts = self._memory.get("facts") if p.model == "heuristic" else None
        if self.compiled:
            if self._compiled is None:
                self._compiled = resolve(self._rollout.compiled)
            values = self._compiled(info, key, p, facts)
            if self.profile is None:
                return values

            def timed(first: int, count: int, actions: list[int]) -> np.ndarray:
                t0 = _time.perf_counter()
                out = values(first, count, actions)
                self._add("rollouts", _time.perf_counter() - t0)
                return out

            return timed
        guide = self._guide() if p.rollout == "policy" else None
        return PythonValues(self._rollout, info, key, p, facts, guide, self._add if self.profile is not None else None)

    def _limit(self, start: float) -> float | None:
        """The decision's hard deadline (``perf_counter`` time): the ``time`` budget's or ``deadline``'s,
        whichever comes first; None without either."""
        p = self.params
        limit = None if p.time is None else start + p.time
        d = self.deadline
        if d is not None:
            if isinstance(d, bool) or not isinstance(d, (int, float)) or not 0 < d < math.inf:
                raise ValueError(f"deadline: expected a number of seconds > 0 or None, got {d!r}")
            limit = start + d if limit is None else min(limit, start + d)
        return limit


class PythonValues:
    """The reference evaluator (``Evaluate``): world j is ``info.sample_at(key, j, facts)`` on the reference
    engine, the game's ``prepare`` and ``simulate`` (or ``simulate_policy`` for a batch, with ``guide``) play
    every candidate on a clone of it with the random numbers ``world_noise(key, j)``. The compiled evaluators
    return exactly its values (``fiveplay_env.testing``'s ``compiled_search`` contract). Worlds are kept
    (at most ``MAX_CHUNK``) for UCB's repeated pulls on one world."""

    def __init__(self, hooks: Rollout, info: InformationSet, key: int, params: SearchParams,
                 facts: dict[int, int] | None, guide: Any = None, add: Callable[[str, float], None] | None = None) -> None:
        self.hooks, self.info, self.key, self.params, self.facts = hooks, info, key, params, facts
        self.guide, self.add = guide, add
        self.worlds: dict[int, tuple[Any, list[float], Any]] = {}

    def world(self, j: int) -> tuple[Any, list[float], Any]:
        w = self.worlds.get(j)
        if w is not None:
            return w
        t0 = _time.perf_counter()
        world = self.info.sample_at(self.key, j, self.facts)
        t1 = _time.perf_counter()
        plan = self.hooks.prepare(world, self.info.player, self.params)
        if self.add is not None:
            self.add("determinize", t1 - t0)
            self.add("prepare", _time.perf_counter() - t1)
        w = (world, world_noise(self.key, j, NOISE_LEN).tolist(), plan)
        if len(self.worlds) >= MAX_CHUNK:
            self.worlds.clear()
        self.worlds[j] = w
        return w

    def __call__(self, first: int, count: int, actions: list[int]) -> np.ndarray:
        player, p = self.info.player, self.params
        worlds = [self.world(first + i) for i in range(count)]
        t0 = _time.perf_counter()
        if self.guide is not None:
            jobs = [(engine.clone(), a, noise, plan) for engine, noise, plan in worlds for a in actions]
            flat = self.hooks.simulate_policy(jobs, player, p, self.guide)
        else:
            flat = [self.hooks.simulate(engine.clone(), a, player, noise, plan, p)
                    for engine, noise, plan in worlds for a in actions]
        if self.add is not None:
            self.add("rollouts", _time.perf_counter() - t0)
        return np.asarray(flat, np.float64).reshape(count, len(actions))


def compiled_search_contract(game: str, config: Any, seed: int = 0, positions: int = 4, worlds: int = 3,
                             settings: Sequence[str] = ("", "eps=0.4,rel=0.5,depth=2", "rollout=random,model=none",
                                                        "eps=0,win=5", "rollout=strong,eps=0.2")) -> int:
    """Check that ``game``'s compiled search (its kit's ``Rollout.compiled``) returns exactly the reference
    evaluator's values (``PythonValues``) on ``positions`` positions of random play under ``config`` (each
    searched from the acting seat, worlds 5..5+worlds-1 of a seeded key, every legal candidate), for each
    search option string of ``settings``; with the opponent model's beliefs too where the game's ``observe``
    makes some (the search agent's own memory, followed along the way). Raises ``AssertionError`` naming the
    position, the setting and the largest difference; returns the number of comparisons. A game's own tests
    call it for every config family its compiled search accepts."""
    kit = games.kit(game)
    hooks = kit.search
    if hooks.compiled is None:
        raise ValueError(f"compiled_search_contract: {game!r} has no compiled search (Rollout.compiled)")
    make = resolve(hooks.compiled)
    g = games.get_game(game)
    rng = np.random.default_rng(seed)
    checks = 0
    for k in range(positions):
        engine = g.new_engine(config, seed=seed * 1000 + k)
        follower = SearchAgent(seed=0, game=game)
        for _ in range(int(rng.integers(0, 40))):
            if engine.is_over:
                break
            follower.observe_engine(engine, engine.current_player)
            engine.step(int(rng.choice(np.flatnonzero(engine.legal_mask()))))
        if engine.is_over:
            continue
        player = engine.current_player
        follower.observe_engine(engine, player)
        info = follower.take_information_set(engine.legal_mask())[1] or InformationSet(engine, player)
        actions = [int(a) for a in np.flatnonzero(engine.legal_mask())]
        facts = follower._memory.get("facts") or None
        for text in settings:
            params = SearchParams.parse(text)
            for belief in ((None, facts) if facts else (None,)):
                key = int(rng.integers(2**63))
                want = PythonValues(hooks, info, key, params, belief)(5, worlds, actions)
                got = np.asarray(make(info, key, params, belief)(5, worlds, actions))
                if got.shape != want.shape or not np.array_equal(got, want):
                    diff = np.abs(got - want).max() if got.shape == want.shape else f"shape {got.shape}"
                    raise AssertionError(f"{game} position {k} (seat {player}, {config}), setting {text!r}"
                                         f"{', with beliefs' if belief else ''}: compiled values differ from the "
                                         f"reference by {diff}")
                checks += 1
    return checks


class PolicyGuide:
    """A learned policy as the search uses it (``prior``, ``rollout=policy``, ``value=1``).

    ``evaluate(observations, masks) -> (logits, values)``: one batched forward pass of the policy
    (``PolicyAgent.evaluate``); ``points``: the game's points (Take 5: bull heads) per unit of the value
    head, ``1 / reward_scale`` of the policy's training (its checkpoint's ``train_config``, else the
    trainer's default for the game); ``calls`` and ``rows`` count the forward passes and their rows,
    ``seconds`` their time (``time.perf_counter``). Every pass runs on one torch thread
    (``fiveplay_env.agents.learned.devices.one_thread``: a search decides inside one process).
    """

    def __init__(self, agent: Any, game: str) -> None:
        self.agent = agent
        scale = (agent.meta.get("train_config") or {}).get("reward_scale")
        if not scale:
            from fiveplay_env.agents.learned.defaults import game_defaults

            scale = game_defaults(game, {})["reward_scale"]
        self.points = 1.0 / float(scale)
        self.calls = 0
        self.rows = 0
        self.seconds = 0.0

    def evaluate(self, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.calls += 1
        self.rows += len(observations)
        from fiveplay_env.agents.learned.devices import one_thread  # torch is loaded: the agent is a learned policy

        t0 = _time.perf_counter()
        with one_thread():
            out = self.agent.evaluate(observations, masks)
        self.seconds += _time.perf_counter() - t0
        return out


__all__ = ["Evaluate", "NOISE_LEN", "Outcome", "Pace", "PolicyGuide", "PythonValues", "ROLLOUTS", "Rollout", "SearchAgent",
           "SearchParams", "compiled_search_contract", "halving", "ucb"]
