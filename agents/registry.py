"""Agents by name: ``make_agent("take5-safest", "take5", seed=0)``.

Names:

| name                        | game       | agent                                                   |
|-----------------------------|------------|---------------------------------------------------------|
| ``random``                  | both       | ``RandomAgent``: a uniformly random legal action        |
| ``take5-safest`` ...        | take5      | the Take 5 heuristics (``fiveplay_env.agents.take5.heuristics``)     |
| ``five-alive-...``          | five_alive | the 5 Alive heuristics (``fiveplay_env.agents.five_alive.heuristics``) |
|                             | any game   | its kit's heuristics (``fiveplay_env.agents.games.kit(game)``)       |
| ``ismcts[:k=v,...]``        | any game   | ``SearchAgent``; options ``sims=N`` or ``time=SECONDS``, |
|                             |            | and ``alloc``, ``c``, ``eps``, ``rollout``, ``rel``,     |
|                             |            | ``model``, ``win``, ``depth`` (table in                 |
|                             |            | ``fiveplay_env.agents.search``); ``ismcts`` alone is ``sims=200``     |
|                             |            | (``prior``, ``topk``, ``cpuct``: policy-guided search)   |
| ``bsearch[:k=v,...]``       | any game   | the retired batched search's name: ``ismcts`` with the  |
|                             |            | same options (kept for one release; ``worlds=K``)        |
| ``pretrained:NAME``         | both       | a shipped policy (``fiveplay_env.agents.learned.pretrained``)        |
| ``ckpt:PATH``               | both       | a trained checkpoint (``fiveplay_env.agents.learned.agent``)         |
| ``openspiel:ismcts[:k=v]``  | both       | OpenSpiel's IS-MCTS, or ``openspiel:mcts`` determinized |
|                             |            | MCTS (``fiveplay_env.agents.openspiel_agent``; ``openspiel`` extra)   |

Extra prefixes (hook): ``register_prefix("ckpt", factory, fingerprint)`` makes names ``ckpt:<rest>``
resolve to ``factory(rest, game, seed)``; this is how learned agents (``ckpt:PATH``) plug in without this
module knowing about them (and RLlib policies, ``rllib:PATH``: ``fiveplay_env.agents.rllib_agent``; the policies shipped
in ``fiveplay_env.agents.learned.pretrained``, ``pretrained:NAME``). A factory raises ``ValueError`` for a bad ``rest``.
The optional ``fingerprint(rest) -> str | None`` says which exact state such an agent loads (the
hash of every file it reads, e.g. ``file_fingerprint``): ``agent_fingerprint`` returns it (nested names
included), so that a resumed tournament can refuse a checkpoint or policy file that changed.

Your own agents by import path: ``"mypkg.mybots:CleverBot"`` (an ``Agent`` class, any class with
``act(observation, action_mask)``, or a function marked ``@fiveplay_env.agents.imported.agent_factory``; called with
``seed=`` and ``game=`` where accepted: ``fiveplay_env.agents.imported``). An import path runs code, so it is
accepted only where the caller opts in: ``make_agent(name, game, seed, allow_import=True)``. The
command-line tools (tournament, train, exploit), the trainer's opponents and the opponent names of the
single-agent and vector envs (``user_agent``) opt in, since their names come from the user; the web app
never does (a request cannot name code). Without the opt-in an import path is a ``ValueError`` that
names it and says how to allow it, at any depth: ``ismcts:...,prior=NAME`` is checked the same way
(``nested_names``). Works in worker processes too, where the module is imported again.

Unknown names raise ``ValueError`` listing the known ones.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
from collections.abc import Callable

from fiveplay_env.agents import games
from fiveplay_env.agents.base import Agent
from fiveplay_env.agents.fingerprint import file_fingerprint
from fiveplay_env.agents.imported import is_import_path, load_agent
from fiveplay_env.agents.random_agent import RandomAgent
from fiveplay_env.agents.search import SearchAgent, SearchParams
from fiveplay_env.single_agent import register_agent_resolver

AgentFactory = Callable[[str, str, "int | None"], Agent]

_SEARCHES: dict[str, tuple[type, type]] = {"ismcts": (SearchAgent, SearchParams),
                                            "bsearch": (SearchAgent, SearchParams)}
"""The search agents' names: the agent class and its options (``ismcts:k=v,...``; ``bsearch:k=v,...`` is the
retired batched search's name, now the same search, kept for one release)."""

_PREFIXES: dict[str, AgentFactory] = {}
_FINGERPRINTS: dict[str, Callable[[str], "str | None"]] = {}
_LISTINGS: dict[str, Callable[[str], "list[tuple[str, str]]"]] = {}


def _heuristics(game: str) -> dict[str, type[Agent]]:
    return dict(games.kit(game).heuristics)


_LAZY_PREFIXES = {"ckpt": "fiveplay_env.agents.learned", "rllib": "fiveplay_env.agents.rllib_agent", "pretrained": "fiveplay_env.agents.learned.pretrained",
                  "openspiel": "fiveplay_env.agents.openspiel_agent"}
"""Prefixes whose module registers them when imported; imported on first use, so that names like
``ckpt:PATH`` work in any process (tournament workers included) without an import by the caller."""


def register_prefix(prefix: str, factory: AgentFactory,
                    fingerprint: Callable[[str], "str | None"] | None = None,
                    listing: Callable[[str], "list[tuple[str, str]]"] | None = None) -> None:
    """Make names ``"<prefix>:<rest>"`` resolve to ``factory(rest, game, seed)`` (e.g. ``ckpt``);
    ``fingerprint(rest)``, if given, identifies the exact state the agent loads (see ``agent_fingerprint``);
    ``listing(game)``, if given, names the concrete agents of the prefix for ``game`` as ``(name, what)``
    pairs (``catalogue``, ``fiveplay agents``: the shipped policies).

    Raises ``ValueError`` if the prefix is empty, contains ``:``, or is a built-in name.
    """
    if not prefix or ":" in prefix or prefix in ("random", *_SEARCHES):
        raise ValueError(f"prefix: expected a new non-empty name without ':', got {prefix!r}")
    _PREFIXES[prefix] = factory
    for table, hook in ((_FINGERPRINTS, fingerprint), (_LISTINGS, listing)):
        if hook is not None:
            table[prefix] = hook
        else:
            table.pop(prefix, None)


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
    if base in _SEARCHES:
        prior = _SEARCHES[base][1].parse(rest).prior  # nested: the policy the search reads
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
    names = ["random", *sorted(_heuristics(game)), "ismcts", "ismcts:sims=N", "ismcts:worlds=K", "ismcts:time=SECONDS"]
    names += [f"{p}:..." for p in sorted(set(_PREFIXES) | set(_LAZY_PREFIXES))]
    return names


def catalogue(game: str) -> list[dict[str, "str | None"]]:
    """Every agent name ``game`` accepts, a line each, for ``fiveplay agents GAME``: ``{"name", "what",
    "example", "needs"}``. ``example`` is a name that builds here as written (None where it needs a file
    of yours: a checkpoint, an RLlib folder, a module); ``needs`` the extra it needs (None: none).
    The shipped policies are listed when the ``train`` extra (torch) is installed, else one line says so."""
    games.get_game(game)
    out: list[dict[str, str | None]] = []

    def add(name: str, what: str, example: str | None = None, needs: str | None = None) -> None:
        out.append({"name": name, "what": what, "example": name if example == "" else example, "needs": needs})

    add("random", "a uniformly random legal action", "")
    for n, cls in sorted(_heuristics(game).items()):
        doc = " ".join((cls.__doc__ or "").split("\n\n")[0].split())
        add(n, f"heuristic: {doc.partition(': ')[2] or doc or cls.__name__}", "")
    what = ("information-set search (determinized worlds, sequential halving; ismcts alone: sims=200; compiled "
            "where the game has a compiled search)")
    add("ismcts[:KEY=VALUE,...]", f"{what}; keys: {', '.join(SearchParams.KEYS)}", "ismcts:sims=8")
    try:
        if "pretrained" not in _PREFIXES:
            importlib.import_module(_LAZY_PREFIXES["pretrained"])  # it registers itself, its listing too
        listed = _LISTINGS["pretrained"](game) if "pretrained" in _LISTINGS else []
    except ModuleNotFoundError as exc:
        add("pretrained:NAME", f"a shipped policy (listed once {exc.name} is installed)", None, "train")
    else:
        for n, what in listed:
            add(n, what, "", "train")
    for prefix in sorted(set(_PREFIXES) - {"ckpt", "pretrained", "rllib", "openspiel"}):  # plug-ins' prefixes
        listed_here = _LISTINGS[prefix](game) if prefix in _LISTINGS else []
        for n, what in listed_here:
            add(n, what, "")
        if not listed_here:
            add(f"{prefix}:...", "an agent of a plug-in (registered with fiveplay_env.agents.registry.register_prefix)", None)
    add("ckpt:RUN_DIR", "your trained checkpoint (a fiveplay train run folder or its checkpoint.pt)", None, "train")
    add("rllib:PATH", "an RLlib policy (the RLModule folder of fiveplay rllib-train)", None, "distributed")
    add("openspiel:ismcts[:k=v] | openspiel:mcts[:k=v]", "OpenSpiel's IS-MCTS or determinized MCTS", None,
        "openspiel")
    add("module:Class", "your own bot, named by its import path (e.g. mybots:CleverBot; any class with "
        "act(observation, action_mask)); the fiveplay commands accept it", None)
    return out


def _is_user_import(name: str) -> bool:
    """Whether ``name`` would be resolved as an import path (not a registered or lazy prefix)."""
    base = name.strip().partition(":")[0]
    return base not in _PREFIXES and base not in _LAZY_PREFIXES and base not in ("random", *_SEARCHES) \
        and is_import_path(name.strip())


def nested_names(name: str) -> list[str]:
    """``name`` and every agent name inside it, outermost first: a search agent's ``prior=NAME`` (a bare
    shipped NAME as ``pretrained:NAME``). A caller vetting names from elsewhere checks each of them;
    ``ValueError`` for a search name whose options do not parse."""
    name = name.strip()
    out = [name]
    base, _, rest = name.partition(":")
    if base in _SEARCHES:
        prior = _SEARCHES[base][1].parse(rest).prior
        if prior is not None:
            out += nested_names(prior)
    return out


def _refuse_import(name: str, outer: str) -> None:
    where = f"agent name {outer!r}" if outer == name else f"agent name {outer!r}: the nested name {name!r}"
    raise ValueError(f"{where} is an import path ('module:Class'), which runs code: the fiveplay commands accept "
                     f"it (name your own bot as module:Class there), the web app never does, and in your own code "
                     f"make_agent(..., allow_import=True) opts in; expected a registry name (random, a heuristic, "
                     f"ismcts[:k=v,...], pretrained:NAME, ckpt:PATH, rllib:PATH; 'fiveplay agents' lists them)")


def make_agent(name: str, game: str, seed: int | None = None, *, allow_import: bool = False) -> Agent:
    """The agent called ``name`` for ``game`` (a name of ``fiveplay_env.games``), seeded with ``seed``.

    ``allow_import``: accept import paths (``mypkg.mybots:CleverBot``, ``fiveplay_env.agents.imported``), also nested
    in ``ismcts:...,prior=NAME``. They run code: allow them only for names the user wrote (a command
    line, their own script), never for names from a network request or a file from elsewhere.

    Raises ``ValueError`` for an unknown game, an unknown name (listing the known ones), bad options, or
    an import path without ``allow_import``.
    """
    games.get_game(game)  # validates the game name
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"agent name: expected a non-empty string, got a {type(name).__name__}"
                         if not isinstance(name, str) else "agent name: expected a non-empty string, got ''")
    name = name.strip()
    base, _, rest = name.partition(":")
    if base in _LAZY_PREFIXES and base not in _PREFIXES:
        importlib.import_module(_LAZY_PREFIXES[base])
    agent: Agent
    if base == "random" and not rest:
        agent = RandomAgent(seed)
    elif base in _SEARCHES:
        cls, params_cls = _SEARCHES[base]
        params = params_cls.parse(rest)
        if not allow_import:  # the prior is loaded later (first observe_engine): refuse an import path now
            for inner in nested_names(name)[1:]:
                if _is_user_import(inner):
                    _refuse_import(inner, name)
        agent = cls(seed, game=game, params=params, allow_import=allow_import)
    elif base in _PREFIXES and rest:
        agent = _PREFIXES[base](rest, game, seed)
    elif not rest and name in _heuristics(game):
        agent = _heuristics(game)[name](seed)
    elif base not in _PREFIXES and is_import_path(name):
        if not allow_import:
            _refuse_import(name, name)
        agent = load_agent(name, game, seed)
    else:
        raise ValueError(f"agent name: expected one of {known_agents(game)} for game {game!r}, or your own bot "
                         f"named as module:Class (e.g. mybots:CleverBot, importable from where you run"
                         + ("" if allow_import else "; in code, with make_agent(..., allow_import=True)")
                         + f"), got {name!r}; 'fiveplay agents {game}' lists every name with a line each")
    agent.name = name
    return agent


def user_agent(name: str, game: str, seed: int | None = None) -> Agent:
    """``make_agent(name, game, seed, allow_import=True)``: for names written by the user in their own code
    (the opponents of ``SingleAgentEnv``, ``GymVectorEnv`` and the RLlib env resolve through it)."""
    return make_agent(name, game, seed, allow_import=True)


register_agent_resolver(user_agent)  # opponent names in fiveplay_env's SingleAgentEnv resolve through this registry
