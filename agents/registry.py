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
The optional ``fingerprint(rest) -> str | None`` says which exact state such an agent loads (the
hash of every file it reads, e.g. ``file_fingerprint``): ``agent_fingerprint`` returns it (nested names
included), so that a resumed tournament can refuse a checkpoint or policy file that changed.

Your own agents by import path: ``"mypkg.mybots:CleverBot"`` (an ``Agent`` class, any class with
``act(observation, action_mask)``, or a factory; called with ``seed=`` and ``game=`` where accepted:
``agents.imported``); works in every tool and in worker processes, where the module is imported again.

Unknown names raise ``ValueError`` listing the known ones.
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
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


def file_fingerprint(path: str) -> str | None:
    """The content hash of a file (``"sha256:<hex>"`` of its bytes) or of a folder (``"sha256-tree:<hex>"``
    over every file under it: relative path, size and SHA-256, sorted by path); None if ``path`` is
    neither. The fingerprint hooks of ``register_prefix`` use it for the files an agent reads."""
    if os.path.isfile(path):
        return "sha256:" + _sha256_file(path)
    if not os.path.isdir(path):
        return None
    h = hashlib.sha256()
    entries = []
    for folder, dirs, files in os.walk(path):
        dirs.sort()
        for f in files:
            full = os.path.join(folder, f)
            entries.append((os.path.relpath(full, path).replace(os.sep, "/"), full))
    for rel, full in sorted(entries):
        h.update(f"{rel}\0{os.path.getsize(full)}\0{_sha256_file(full)}\n".encode("utf-8", "surrogateescape"))
    return "sha256-tree:" + h.hexdigest()


def _sha256_file(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def agent_fingerprint(name: str) -> str | None:
    """What exactly the agent ``name`` reads from files, as one string; None for agents defined by their
    name alone (random, the heuristics, a search without a prior). Two runs that give the same name and
    the same fingerprint play the same agent.

    | name                                  | fingerprint                                              |
    |---------------------------------------|----------------------------------------------------------|
    | ``ckpt:PATH[?options]``               | ``sha256:<hex>`` of the checkpoint file                  |
    | ``pretrained:NAME[?options]``         | ``sha256:<hex>`` of the shipped policy file (its content) |
    | ``rllib:PATH[?options]``              | ``sha256-tree:<hex>`` of the RLModule folder it loads     |
    | ``ismcts:...,prior=NAME``             | ``prior=`` and the fingerprint of NAME (nested names)     |
    | ``module.path:Attr`` (import path)    | ``sha256:<hex>`` of the module's source file             |
    | other prefixes                        | their ``register_prefix`` hook's                         |

    A name whose file is missing gives None (building the agent says why). The module of an import
    path is located with ``importlib.util.find_spec``, which imports its parent packages (as building
    the agent does); its own code is not run here.
    """
    name = name.strip()
    base, _, rest = name.partition(":")
    if base == "ismcts":
        prior = SearchParams.parse(rest).prior  # nested: the policy the search reads
        inner = agent_fingerprint(prior) if prior is not None else None
        return None if inner is None else f"prior={inner}"
    if base in _LAZY_PREFIXES and base not in _PREFIXES:
        importlib.import_module(_LAZY_PREFIXES[base])
    if base in _PREFIXES:
        fn = _FINGERPRINTS.get(base)
        return fn(rest) if fn is not None and rest else None
    if is_import_path(name):
        try:
            spec = importlib.util.find_spec(name.partition(":")[0])
        except (ImportError, ValueError):
            return None
        origin = getattr(spec, "origin", None)
        return file_fingerprint(origin) if origin and os.path.isfile(origin) else None
    return None


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
