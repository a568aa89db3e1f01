"""Which bots a web request may name, and the list the bot picker shows.

A request names bots as text, and the registry's names can load files and (with the opt-in) import
code, so the web app never hands a request's name to the registry as it is. ``BotPolicy.resolve``
accepts:

| name from a request                          | accepted when                                                  |
|----------------------------------------------|----------------------------------------------------------------|
| exactly a name the operator passed with      | always (the operator's own names: import paths and files too,   |
| ``--allow-agent``                            | resolved as the command-line tools resolve them)              |
| ``random``, a heuristic of the game          | always                                                         |
| ``pretrained:NAME`` (a shipped policy)       | NAME is a shipped policy of this game (and a ``temperature=``   |
|                                              | option at most ``MAX_TEMPERATURE``, as for ``ckpt:``)          |
| ``ckpt:PATH[?options]``                      | PATH is a regular file inside the runs folder (or a run folder |
|                                              | there holding ``checkpoint.pt``), at most ``MAX_CKPT_BYTES``    |
| ``ismcts:k=v,...``                           | ``sims <= MAX_SIMS``, ``time <= MAX_TIME`` seconds, and its     |
|                                              | ``prior=NAME`` passes these rules itself                       |
| anything else: import paths (``os:abort``),  | never: a 400 naming the rule; nothing is imported or read      |
| ``rllib:`` and other prefixes, paths outside |                                                                |
| the runs folder, devices (``ckpt:/dev/zero``)|                                                                |

Accepted names are made with ``make_agent(..., allow_import=False)`` (the operator's with
``allow_import=True``), so even a name this module let through by mistake could not import code.
``catalogue(game)`` is what the picker lists: the shipped policies first, then guided search, search,
heuristics, random, the checkpoints found in the runs folder and the operator's names.
"""
from __future__ import annotations

import importlib.util
import os
import stat
from dataclasses import dataclass
from typing import Any

from fiveplay_env.agents import games as games_mod
from fiveplay_env.agents.base import Agent
from fiveplay_env.agents.imported import is_import_path
from fiveplay_env.agents.registry import known_agents, make_agent, nested_names
from fiveplay_env.agents.search import SearchParams, guided_prior
from fiveplay_env.experiments.web import games as web_views

MAX_NAME = 300
"""The longest bot name a request may send (characters)."""
MAX_SIMS = 1000
"""The largest ``ismcts:sims=`` a request may ask for."""
MAX_TIME = 2.0
"""The largest ``ismcts:time=`` (seconds per decision) a request may ask for."""
MAX_TEMPERATURE = 100.0
"""The largest ``?temperature=`` of a policy a request may ask for (higher is uniform play anyway)."""
MAX_CKPT_BYTES = 256 * 1024 * 1024
"""The largest checkpoint file a request may make the server read."""
CHECKPOINT_NAME = "checkpoint.pt"


class BotError(ValueError):
    """A bot name a request may not use (the message says which rule)."""


@dataclass(frozen=True)
class Bot:
    """A vetted bot name: ``name`` as the request gave it (shown, recorded), ``make_name`` what the
    registry is given (checkpoint paths made absolute), ``trusted``: the operator allowed it."""

    name: str
    make_name: str
    trusted: bool


def _short(name: str) -> str:
    return repr(name if len(name) <= 80 else name[:77] + "...")


def _heuristics(game: str) -> dict[str, type]:
    """The game's heuristics by registry name (its kit's: ``fiveplay_env.agents.games.kit``)."""
    return dict(games_mod.kit(game).heuristics)


def _policies(game: str) -> dict[str, Any]:
    """The shipped policies of ``game`` whose file is present (none without torch)."""
    if importlib.util.find_spec("torch") is None:
        return {}
    from fiveplay_env.agents.learned import pretrained

    return {n: pretrained.MODELS[n] for n in pretrained.available() if pretrained.MODELS[n].game == game}


def _check_options(base: str, query: str) -> None:
    """A policy name's ``?options`` within the web app's bounds (the registry checks the rest)."""
    for opt in filter(None, query.split("&")):
        key, _, val = opt.partition("=")
        if key == "temperature":
            try:
                t = float(val) if len(val) <= 32 else float("nan")
            except ValueError:
                t = float("nan")
            if not 0.0 < t <= MAX_TEMPERATURE:
                raise BotError(f"{base}: temperature: expected a number in (0, {MAX_TEMPERATURE}] in the web app, "
                               f"got {_short(val)}")


class BotPolicy:
    """The bots a request may name (module docstring): ``runs_root`` bounds the checkpoints, ``allow`` are
    the operator's extra names."""

    def __init__(self, runs_root: str, allow: tuple[str, ...] | list[str] = ()) -> None:
        self.runs_root = os.path.realpath(runs_root)
        self.allowed = tuple(dict.fromkeys(a.strip() for a in allow if a and a.strip()))

    # --- vetting ------------------------------------------------------------------------------------------
    def resolve(self, name: Any, game: str) -> Bot:
        """The vetted ``name`` for ``game``; ``BotError`` naming the rule it breaks."""
        if not isinstance(name, str):
            raise BotError(f"expected an agent name (a string), got {type(name).__name__}")
        if len(name) > MAX_NAME:
            raise BotError(f"expected a name of at most {MAX_NAME} characters, got {len(name)}")
        if any(not c.isprintable() for c in name):
            raise BotError("expected a name of printable characters")
        name = name.strip()
        if not name:
            raise BotError("expected an agent name, got an empty string")
        if name in self.allowed:
            return Bot(name, name, True)
        try:
            parts = nested_names(name)
        except ValueError as e:
            raise BotError(str(e)) from None
        make_name = name
        for part in parts:
            make_name = make_name.replace(part, self._vet(part, game, outer=name), 1) if part != name \
                else self._vet(part, game, outer=name)
        return Bot(name, make_name, False)

    def _vet(self, part: str, game: str, outer: str) -> str:
        """``part`` (one name, maybe nested) as the registry should get it; ``BotError`` if refused."""
        base, _, rest = part.partition(":")
        inner = "" if part == outer else f" (inside {_short(outer)})"
        if base == "random" and not rest:
            return part
        if not rest and part in _heuristics(game):
            return part
        if base == "ismcts":
            params = SearchParams.parse(rest)  # nested_names parsed it already: no error here
            if params.sims is not None and params.sims > MAX_SIMS:
                raise BotError(f"ismcts: sims: at most {MAX_SIMS} in the web app, got {params.sims}")
            if params.time is not None and params.time > MAX_TIME:
                raise BotError(f"ismcts: time: at most {MAX_TIME} seconds per decision in the web app, got {params.time}")
            return part
        if base == "pretrained":
            policy, _, query = rest.partition("?")
            if policy not in _policies(game):
                raise BotError(f"pretrained: expected one of {sorted(_policies(game))} for {game}, got {_short(policy)}{inner}")
            _check_options(base, query)
            return part
        if base == "ckpt":
            path, sep, query = rest.partition("?")
            _check_options(base, query)
            return "ckpt:" + self.checkpoint(path) + sep + query
        if rest and is_import_path(part) and f"{base}:..." not in known_agents(game):
            raise BotError(f"{_short(part)}{inner}: import paths ('module:Attribute') are not accepted from the web "
                           f"app (they would run code on the server); expected a name from the bot list (the "
                           f"operator may allow more with --allow-agent)")
        if rest:
            raise BotError(f"{_short(part)}{inner}: the prefix '{base}:' is not offered by the web app; expected a "
                           f"name from the bot list (the operator may allow more with --allow-agent)")
        raise BotError(f"expected a name from the bot list (random, {', '.join(sorted(_heuristics(game)))}, "
                       f"ismcts:..., pretrained:..., ckpt:RUN), got {_short(part)}{inner}")

    def checkpoint(self, path: str) -> str:
        """The absolute checkpoint file that ``path`` (relative to the runs folder, or absolute inside it)
        names; ``BotError`` unless it is a regular file inside the runs folder of at most ``MAX_CKPT_BYTES``."""
        where = f"ckpt: expected a checkpoint inside the runs folder (a run folder such as train__GAME__0__..., or " \
                f"a .pt file in it), got {_short(path)}"
        if not path or "\x00" in path:
            raise BotError(where)
        full = os.path.realpath(path if os.path.isabs(path) else os.path.join(self.runs_root, path))
        if os.path.commonpath([self.runs_root, full]) != self.runs_root or full == self.runs_root:
            raise BotError(where)
        if os.path.isdir(full):
            full = os.path.join(full, CHECKPOINT_NAME)
        try:
            st = os.stat(full)
        except OSError:
            raise BotError(where + ": no such checkpoint") from None
        if not stat.S_ISREG(st.st_mode):
            raise BotError(where + ": not a regular file")
        if st.st_size > MAX_CKPT_BYTES:
            raise BotError(f"ckpt: expected a checkpoint of at most {MAX_CKPT_BYTES} bytes, got {st.st_size}")
        from fiveplay_env.agents.learned.checkpoint import check_file
        from fiveplay_env.core.errors import CheckpointError

        try:  # its magic line and header, from its first bytes: a file that is not a checkpoint is never read whole
            check_file(full, max_bytes=MAX_CKPT_BYTES)
        except CheckpointError as e:
            why = str(e).split(": ", 1)[-1] if str(e).startswith(f"checkpoint {full}: ") else "not a checkpoint"
            raise BotError(f"ckpt: {_short(path)}: {why[:200]}") from None
        return full

    def make(self, name: Any, game: str, seed: int | None) -> Agent:
        """The agent of a request's ``name`` (vetted by ``resolve``), named as the request gave it."""
        bot = self.resolve(name, game)
        try:
            agent = make_agent(bot.make_name, game, seed=seed, allow_import=bot.trusted)
        except ValueError as e:
            msg = str(e).replace(bot.make_name, bot.name).replace(self.runs_root + os.sep, "")
            raise BotError(msg if len(msg) <= 400 else msg[:397] + "...") from None
        except Exception as e:  # noqa: BLE001 - a file that does not load: say so, by kind only
            raise BotError(f"{_short(bot.name)} could not be made ({type(e).__name__})") from None
        agent.name = bot.name
        return agent

    # --- the picker ---------------------------------------------------------------------------------------
    def checkpoints(self, game: str) -> list[str]:
        """Run folders directly under the runs folder holding a ``checkpoint.pt`` for ``game`` (by its
        ``config.json`` or folder name), as ``ckpt:RUN`` names."""
        out = []
        if not os.path.isdir(self.runs_root):
            return out
        for run in sorted(os.listdir(self.runs_root), reverse=True):
            f = os.path.join(self.runs_root, run, CHECKPOINT_NAME)
            parts = run.split("__")
            if os.path.isfile(f) and (len(parts) < 2 or parts[1] == game):
                out.append(f"ckpt:{run}")
        return out[:50]

    def catalogue(self, game: str) -> list[dict[str, Any]]:
        """The bot picker's entries: ``{name, label, group, about, players, suits}`` (``players``: the
        player counts it plays, or None for any; ``suits``: the counts it was made for, where that is
        known; a shipped policy's also has its ``family``, ``pretrained.family``), the shipped policies first. A shipped policy suits the counts for which it is its family's
        nearest (``fiveplay_env.agents.learned.pretrained.for_players``); the guided search is listed once per prior
        ``fiveplay_env.experiments.ladder.guided_for`` picks for some count, suiting those counts."""
        out: list[dict[str, Any]] = []
        policies = _policies(game)
        spec = games_mod.get_game(game).spec
        counts = range(spec.min_players, spec.max_players + 1)
        if policies:
            from fiveplay_env.agents.learned import pretrained

            for n, m in policies.items():  # every shipped policy plays every player count of its game (adapted)
                suits = [k for k in counts if n in pretrained.for_players(game, k, of_family=pretrained.family(n))]
                out.append({"name": f"pretrained:{n}", "label": f"{n} (learned policy)", "group": "Shipped policies",
                            "about": m.summary, "players": None, "suits": suits, "family": pretrained.family(n)})
        setting = games_mod.kit(game).guided  # the game's guided search (AgentKit.guided)
        if setting and guided_prior(setting) in policies:
            from fiveplay_env.experiments import ladder

            guided: dict[str, list[int]] = {}
            for k in counts:
                guided.setdefault(ladder.guided_for(game, k), []).append(k)
            for name, suits in guided.items():
                policy = guided_prior(name)
                about = web_views.view(game).guided_about.format(policy=policy)
                out.append({"name": name, "label": f"guided search ({policy})", "group": "Guided search",
                            "about": about, "players": None, "suits": suits})
        out += [{"name": "ismcts:sims=200", "label": "search, 200 simulations", "group": "Search",
                 "about": "determinized Monte Carlo search (strong, slower)", "players": None},
                {"name": "ismcts:sims=50", "label": "search, 50 simulations", "group": "Search",
                 "about": "determinized Monte Carlo search (quick)", "players": None}]
        for n, cls in sorted(_heuristics(game).items()):
            doc = (cls.__doc__ or "").strip().split("\n")[0]
            out.append({"name": n, "label": n, "group": "Heuristics", "about": doc.partition(": ")[2] or doc,
                        "players": None})
        out.append({"name": "random", "label": "random", "group": "Random", "about": "a uniformly random legal move",
                    "players": None})
        for c in self.checkpoints(game):
            out.append({"name": c, "label": c[5:], "group": "Checkpoints in the runs folder",
                        "about": "a trained checkpoint", "players": None})
        for a in self.allowed:
            out.append({"name": a, "label": a, "group": "Allowed by the operator", "about": "--allow-agent",
                        "players": None})
        return out
