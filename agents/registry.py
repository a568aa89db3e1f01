"""Agents by name: ``make_agent("take5-safest", "take5", seed=0)``.

Names:

| name                        | game       | agent                                                   |
|-----------------------------|------------|---------------------------------------------------------|
| ``random``                  | both       | ``RandomAgent``: a uniformly random legal action        |
| ``take5-safest`` ...        | take5      | the Take 5 heuristics (``agents.take5.heuristics``)     |
| ``five-alive-...``          | five_alive | the 5 Alive heuristics (``agents.five_alive.heuristics``) |
|                             | any game   | its kit's heuristics (``agents.games.kit(game)``)       |
| ``ismcts[:k=v,...]``        | any game   | ``SearchAgent``; options ``sims=N`` or ``time=SECONDS``, |
|                             |            | and ``alloc``, ``c``, ``eps``, ``rollout``, ``rel``,     |
|                             |            | ``model``, ``win``, ``depth`` (table in                 |
|                             |            | ``agents.search``); ``ismcts`` alone is ``sims=200``     |
|                             |            | (``prior``, ``topk``, ``cpuct``: policy-guided search)   |
| ``pretrained:NAME``         | both       | a shipped policy (``agents.learned.pretrained``)        |
| ``ckpt:PATH``               | both       | a trained checkpoint (``agents.learned.agent``)         |

Extra prefixes (hook): ``register_prefix("ckpt", factory, fingerprint)`` makes names ``ckpt:<rest>``
resolve to ``factory(rest, game, seed)``; this is how learned agents (``ckpt:PATH``) plug in without this
module knowing about them (and RLlib policies, ``rllib:PATH``: ``agents.rllib_agent``; the policies shipped
in ``agents.learned.pretrained``, ``pretrained:NAME``). A factory raises ``ValueError`` for a bad ``rest``.
The optional ``fingerprint(rest) -> str | None`` says which exact state such an agent loads (a
checkpoint's hash): ``agent_fingerprint`` returns it, so that a resumed tournament can refuse a checkpoint
that changed.

Your own agents by import path: ``"mypkg.mybots:CleverBot"`` (an ``Agent`` class, any class with
``act(observation, action_mask)``, or a factory; called with ``seed=`` and ``game=`` where accepted:
``agents.imported``); works in every tool and in worker processes, where the module is imported again.

Unknown names raise ``ValueError`` listing the known ones.
"""
from __future__ import annotations

import importlib

from collections.abc import Callable

from agents import games
from agents.base import Agent
from agents.imported import is_import_path, load_agent
from agents.random_agent import RandomAgent
from agents.search import SearchAgent, SearchParams
from fiveplay_env.single_agent import register_agent_resolver

AgentFactory = Callable[[str, str, "int | None"], Agent]

_PREFIXES: dict[str, AgentFactory] = {}
_FINGERPRINTS: dict[str, Callable[[str], "str | None"]] = {}


def _heuristics(game: str) -> dict[str, type[Agent]]:
    return dict(games.kit(game).heuristics)


_LAZY_PREFIXES = {"ckpt": "agents.learned", "rllib": "agents.rllib_agent", "pretrained": "agents.learned.pretrained"}
"""Prefixes whose module registers them when imported; imported on first use, so that names like
``ckpt:PATH`` work in any process (tournament workers included) without an import by the caller."""


def register_prefix(prefix: str, factory: AgentFactory,
                    fingerprint: Callable[[str], "str | None"] | None = None) -> None:
    """Make names ``"<prefix>:<rest>"`` resolve to ``factory(rest, game, seed)`` (e.g. ``ckpt``);
    ``fingerprint(rest)``, if given, identifies the exact state the agent loads (see ``agent_fingerprint``).

    Raises ``ValueError`` if the prefix is empty, contains ``:``, or is a built-in name.
    """
    if not prefix or ":" in prefix or prefix in ("random", "ismcts"):
        raise ValueError(f"prefix: expected a new non-empty name without ':', got {prefix!r}")
    _PREFIXES[prefix] = factory
    if fingerprint is not None:
        _FINGERPRINTS[prefix] = fingerprint
    else:
        _FINGERPRINTS.pop(prefix, None)


def agent_fingerprint(name: str) -> str | None:
    """What exactly the agent ``name`` loads, e.g. ``"sha256:<hex>"`` of a ``ckpt:`` checkpoint file; None
    for agents defined by their name alone (heuristics, search, random). Two runs that give the same
    name and the same fingerprint play the same agent."""
    base, _, rest = name.strip().partition(":")
    if base in _LAZY_PREFIXES and base not in _PREFIXES:
        importlib.import_module(_LAZY_PREFIXES[base])
    fn = _FINGERPRINTS.get(base)
    return fn(rest) if fn is not None and rest else None


def known_agents(game: str) -> list[str]:
    """The agent names (and name patterns) available for ``game``."""
    games.get_game(game)
    names = ["random", *sorted(_heuristics(game)), "ismcts", "ismcts:sims=N", "ismcts:time=SECONDS"]
    names += [f"{p}:..." for p in sorted(set(_PREFIXES) | set(_LAZY_PREFIXES))]
    return names


def make_agent(name: str, game: str, seed: int | None = None) -> Agent:
    """The agent called ``name`` for ``game`` (a name of ``fiveplay_env.games``), seeded with ``seed``.

    Raises ``ValueError`` for an unknown game, an unknown name (listing the known ones) or bad options.
    """
    games.get_game(game)  # validates the game name
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"agent name: expected a non-empty string, got {name!r}")
    name = name.strip()
    base, _, rest = name.partition(":")
    if base in _LAZY_PREFIXES and base not in _PREFIXES:
        importlib.import_module(_LAZY_PREFIXES[base])
    agent: Agent
    if base == "random" and not rest:
        agent = RandomAgent(seed)
    elif base == "ismcts":
        agent = SearchAgent(seed, game=game, params=SearchParams.parse(rest))
    elif base in _PREFIXES and rest:
        agent = _PREFIXES[base](rest, game, seed)
    elif not rest and name in _heuristics(game):
        agent = _heuristics(game)[name](seed)
    elif base not in _PREFIXES and is_import_path(name):
        agent = load_agent(name, game, seed)
    else:
        raise ValueError(f"agent name: expected one of {known_agents(game)} for game {game!r}, or the import path "
                         f"of your own agent ('mypkg.mybots:CleverBot'), got {name!r}")
    agent.name = name
    return agent


register_agent_resolver(make_agent)  # opponent names in fiveplay_env's SingleAgentEnv resolve through this registry
