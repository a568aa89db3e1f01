"""``AgentKit``: what the agents layer knows about one game, beside its ``GameDef``.

Each game's agents package exports one (``agents/<game>/__init__.py``: ``KIT``); ``fiveplay_env.agents.games`` looks
them up by game name, and a game without a kit (a third-party game registered only in
``fiveplay_env.games``) gets ``default_kit(name)``: the random agent, a random-playout search and
generic training defaults, so every tool works with it unchanged.

| field                 | what                                                                              |
|-----------------------|-----------------------------------------------------------------------------------|
| ``game``              | the game's name in ``fiveplay_env.games``                                         |
| ``heuristics``        | registry name -> ``Agent`` class (made with ``cls(seed)``)                        |
| ``best_heuristic``    | the strongest of them: the baseline training evaluates against first              |
| ``rollout``           | the search agent's hooks (``Rollout``), or None for random playouts               |
| ``training``          | the trainer's per-game defaults: ``reward_scale``, ``gamma``, ``eval_baselines``  |
| ``network``           | the network architecture the game trains with by default                          |
| ``networks``          | the game's own network architectures: name -> ``"module:Class"`` (a torch         |
|                       | ``fiveplay_env.agents.learned.nets.MaskedActorCritic`` subclass, imported on first use);       |
|                       | ``fiveplay_env.agents.learned.nets.ARCHS`` is ``mlp`` plus every kit's networks. A             |
|                       | checkpoint records the name, so a name once shipped stays                         |
| ``obs_scale``         | ``(num_players, obs_dim) -> list[float] | None``: per-feature multipliers that    |
|                       | bring the observation to about [0, 1] for a network (None: as it is)              |
| ``adapt_observation`` | ``(obs [B, D], num_players) -> obs [B, D']``: observations of another width       |
|                       | (another player count, a variant's extra pieces) as a network trained for         |
|                       | ``num_players`` players reads them (``ValueError`` for a width the game never     |
|                       | has); None: none (the network's shape check names a mismatch)                     |
| ``jax_heuristics``    | agent name -> ``"module:factory"``: the heuristics the JAX trainer seats          |
|                       | (``factory(num_players) -> act(obs, mask, key) -> int32 [B]``, jit-able; the      |
|                       | optional ``jax`` extra, imported on first use; ``fiveplay_env.agents.learned.jax.heuristics``) |
| ``guided``            | the recommended policy-guided search (a registry name such as                     |
|                       | ``ismcts:sims=100,prior=NAME,...``), or None; ``fiveplay_env.agents.search.GUIDED`` lists them |
"""
from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Prepare = Callable[[Any, int, Any], Any]
Simulate = Callable[[Any, int, int, list[float], Any, Any], float]
SimulatePolicy = Callable[[list[tuple[Any, int, list[float], Any]], int, Any, Any], list[float]]
Observe = Callable[[Any, dict[str, Any], Any], None]


@dataclass(frozen=True)
class Rollout:
    """A game's search hooks (the search agent, ``fiveplay_env.agents.search``, is written once over them).

    ``observe(info, memory, params)`` (optional): follow the public event of the last step and update
    the agent's per-game ``memory``; ``memory["facts"]``, if present, holds beliefs about hidden hands
    ({player: kinds the hand may hold}) that worlds are then sampled to honour (``model=heuristic``).

    ``prepare(world, player, params) -> plan``: once per world (a determinization), whatever the
    evaluation of every candidate action on it shares (Take 5: the other players' choices for the
    current trick, predicted by the opponent model; they do not see the searcher's card).
    ``simulate(world, action, player, noise, plan, params) -> value``: play ``action`` in ``world``
    (a private clone) and roll out; the value for ``player``, higher is better.
    ``simulate_policy(jobs, player, params, guide) -> values`` (``rollout=policy``): ``simulate`` for a
    batch of ``(world, action, noise, plan)`` jobs whose simulated players choose with a learned policy,
    ``guide.evaluate(observations, masks) -> (logits, values)`` on each one's own observation of its world.
    ``leaf_value``: whether ``simulate_policy`` supports ``value=1`` (the value head at the depth limit).
    ``compiled`` (optional): ``"module:evaluator"``, the same search in compiled code (imported on first use):
    ``evaluator(info, key, params, facts) -> values(first, count, actions) -> float64 [count, len(actions)]``,
    the values ``prepare`` and ``simulate`` give on worlds ``info.sample_at(key, j, facts)`` with the random
    numbers ``world_noise(key, j)`` for j in first..first+count-1, exactly
    (``fiveplay_env.agents.search.compiled_search_contract``); heuristic and random rollouts (``ValueError`` for ``rollout=policy``).
    ``net``: whether the compiled evaluator also plays ``rollout=net``, a small network distilled from the
    game's policy that runs inside the compiled rollouts (it has no Python twin: compiled only).
    ``tree``: whether it also plays ``tree=1``, an open-loop node over the searcher's next decision whose
    statistics persist across the decision's simulations (compiled only).
    """

    prepare: Prepare
    simulate: Simulate
    observe: Observe | None = None
    simulate_policy: SimulatePolicy | None = None
    leaf_value: bool = False
    compiled: str | None = None
    net: bool = False
    tree: bool = False

    def __post_init__(self) -> None:
        path = self.compiled
        if path is not None and not (isinstance(path, str) and all(path.partition(":")[::2]) and ":" in path):
            raise ValueError(f"Rollout.compiled: expected 'module:evaluator', got {path!r}")


def _no_plan(world: Any, player: int, params: Any) -> None:
    return None


def random_playout(world: Any, action: int, player: int, noise: list[float], plan: Any, params: Any) -> float:
    """The generic rollout: play ``action``, then uniformly random legal moves (drawn from ``noise``,
    reused cyclically) to the end of the game; the value is ``player``'s return minus ``params.rel``
    times the mean of the others' returns."""
    n = world.config.num_players
    returns = [0.0] * n
    for p, r in enumerate(world.step(action)):
        returns[p] += r
    i = 0
    while not world.is_over:
        legal = np.flatnonzero(world.legal_mask())
        a = int(legal[min(int(noise[i % len(noise)] * len(legal)), len(legal) - 1)])
        i += 1
        for p, r in enumerate(world.step(a)):
            returns[p] += r
    others = [returns[q] for q in range(n) if q != player]
    return returns[player] - params.rel * (sum(others) / len(others) if others else 0.0)


RANDOM_PLAYOUT = Rollout(_no_plan, random_playout)
"""The search hooks of a game without its own: random playouts to the end of the game."""


def resolve(path: str) -> Any:
    """The object a kit names by ``"module:attribute"`` (its module imported on first use)."""
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


def _no_scale(num_players: int, obs_dim: int) -> None:
    return None


@dataclass(frozen=True)
class AgentKit:
    """One game's agents-layer knowledge (see the module docstring)."""

    game: str
    heuristics: Mapping[str, type] = field(default_factory=dict)
    best_heuristic: str | None = None
    rollout: Rollout | None = None
    training: Mapping[str, Any] = field(default_factory=lambda: {
        "reward_scale": 1.0, "gamma": 0.99, "eval_baselines": ["random"]})
    network: str = "mlp"
    obs_scale: Callable[[int, int], list[float] | None] = _no_scale
    networks: Mapping[str, str] = field(default_factory=dict)
    adapt_observation: Callable[[np.ndarray, int], np.ndarray] | None = None
    jax_heuristics: Mapping[str, str] = field(default_factory=dict)
    guided: str | None = None

    def __post_init__(self) -> None:
        if self.best_heuristic is not None and self.best_heuristic not in self.heuristics:
            raise ValueError(f"AgentKit.best_heuristic: expected one of {sorted(self.heuristics)}, "
                             f"got {self.best_heuristic!r}")
        for slot in ("networks", "jax_heuristics"):
            for name, path in getattr(self, slot).items():
                module, sep, attr = path.partition(":") if isinstance(path, str) else ("", "", "")
                if not (isinstance(name, str) and name and module and sep and attr):
                    raise ValueError(f"AgentKit.{slot}: expected name -> 'module:attribute', got {name!r}: {path!r}")
        if "mlp" in self.networks:
            raise ValueError("AgentKit.networks: 'mlp' is the generic network (fiveplay_env.agents.learned.nets); "
                             "expected another name")
        if self.guided is not None and (not isinstance(self.guided, str) or ":" not in self.guided):
            raise ValueError(f"AgentKit.guided: expected a search setting such as 'ismcts:sims=100,prior=NAME', "
                             f"got {self.guided!r}")

    @property
    def search(self) -> Rollout:
        """The search hooks: the game's own, or random playouts."""
        return self.rollout or RANDOM_PLAYOUT

    @property
    def baseline(self) -> str:
        """The best heuristic, or ``random`` for a game without heuristics."""
        return self.best_heuristic or "random"


def default_kit(game: str) -> AgentKit:
    """The kit of a game that has none of its own: no heuristics, random-playout search, generic
    training defaults."""
    return AgentKit(game=game)
