"""The typed specs of a tournament: what is played (``TournamentSpec``) and how it runs (``RunOptions``).

| spec             | fields                                        | kept in ``config.json`` |
|------------------|-----------------------------------------------|-------------------------|
| ``TournamentSpec`` | ``agents``, ``game``, ``config``, ``players``, ``games``, ``seed``, ``record``: every input that shapes the results | yes (``to_json``), with its hash |
| ``RunOptions``   | ``out``, ``workers``, ``ray``, ``max_games``, ``progress``, ``plots``, ``quiet``, ``argv``: where and how the games run | no |

Both are frozen dataclasses validated on construction: a bad field raises ``ValueError`` naming the
field, what was expected and what was given. ``TournamentSpec`` normalises as it validates: ``config``
becomes every field of the game's config (the given ones over the defaults, ``num_players`` included),
``players`` is resolved (given, else the config's ``num_players``, else the number of agents), ``agents``
becomes a tuple; so two specs that play the same games compare equal.

``config.json`` (format 2) holds the spec (``to_json``), the fingerprints of the files its agents read
(``fiveplay_env.agents.registry.agent_fingerprint``) and ``spec_sha256``: the hash of both (``spec_hash``). A resume
recomputes it, so an edited ``config.json`` (other rules, another seed, a fingerprint) is refused; the
hash also salts each ``games.csv`` row's checksum (``fiveplay_env.experiments.tournament.store``). Both detect
accidents and edits that do not recompute them (a changed value, rows of another tournament), not
forgery: the hash is unkeyed and anyone who reads the code can recompute it. Format 1 folders (before
the hash and ``record`` were kept, so nothing of theirs can be verified) are resumed only when asked
(``RunOptions.allow_legacy``, ``--allow-legacy``).
"""
from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from fiveplay_env.agents import games as games_mod
from fiveplay_env.agents.registry import make_agent
from fiveplay_env.experiments.tournament.schedule import Schedule, entrant_labels
from fiveplay_env.core import seeding
from fiveplay_env.games import default_game

FORMAT_VERSION = 2
"""The version of the run folder's files (``config.json``, ``games.csv``) this code writes; format 1
(no ``record``, ``spec_sha256`` or row checksums) is still read."""
READABLE_VERSIONS = (1, 2)
"""Versions a resume can read; format 1 only with ``RunOptions.allow_legacy``."""
MAX_GAMES = 10_000_000
"""The most games a tournament may plan (``games``): far beyond any run here, and refused at once rather
than discovered by the memory the finished games' rows take."""

RESUME_KEYS = ("version", "game", "config", "players", "agents", "labels", "games", "seed")
"""The keys of ``config.json`` a resume needs (format 1); format 2 adds ``HASHED_KEYS``' others and
``spec_sha256``."""
HASHED_KEYS = (*RESUME_KEYS, "record", "fingerprints")
"""The keys of ``config.json`` that ``spec_sha256`` covers: everything that shapes the results."""


def spec_hash(stored: Mapping[str, Any]) -> str:
    """The SHA-256 (hex) of the ``HASHED_KEYS`` of a ``config.json`` as canonical JSON (sorted keys, no
    spaces): it changes with any of them."""
    data = {k: stored.get(k) for k in HASHED_KEYS}
    return hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class TournamentSpec:
    """What a tournament plays (see the module docstring); every field shapes the results.

    Attributes:
        agents: the entrants by registry name, in order (a name given twice is two entrants).
        game: the game's name (a key of ``fiveplay_env.agents.games.GAMES``).
        config: game config fields (``{"mode": "round"}``); after construction every field of the config.
        players: players per game (None: the config's ``num_players``, else the number of agents).
        games: games to play in all (>= 1).
        seed: the tournament seed (0..2**64-1); every deal and agent seed derives from it.
        record: also write each game's replayable record to ``RUN_DIR/records/game_NNNNNN.jsonl``.
    """

    agents: tuple[str, ...]
    game: str = field(default_factory=default_game)
    config: Mapping[str, Any] = field(default_factory=dict)
    players: int | None = None
    games: int = 100
    seed: int = 0
    record: bool = False

    def __post_init__(self) -> None:
        game = games_mod.get_game(self.game)  # ValueError listing the games
        if isinstance(self.agents, str) or not isinstance(self.agents, Sequence) or not self.agents:
            raise ValueError(f"agents: expected at least one agent name (--agents NAME ...), got {self.agents!r}")
        for name in self.agents:
            if not isinstance(name, str) or not name.strip():
                raise ValueError(f"agents: expected non-empty agent names, got {name!r}")
        if not isinstance(self.config, Mapping):
            raise ValueError(f"config: expected a mapping of config fields to values, got {type(self.config).__name__}")
        cfg_values = dict(self.config)
        n_cfg = cfg_values.get("num_players")
        players = self.players
        if players is not None and (isinstance(players, bool) or not isinstance(players, int)):
            raise ValueError(f"players: expected an integer, got {players!r}")
        if players is not None and n_cfg is not None and n_cfg != players:
            raise ValueError(f"players: --players {players} disagrees with config num_players={n_cfg}")
        if players is None:
            players = n_cfg if n_cfg is not None else len(self.agents)  # more entrants than seats: give players
        cfg_values["num_players"] = players
        config = game.config_dict(game.make_config(cfg_values))  # validates every field
        if isinstance(self.games, bool) or not isinstance(self.games, int) or not 1 <= self.games <= MAX_GAMES:
            raise ValueError(f"games: expected an integer >= 1 and at most {MAX_GAMES}, got "
                             f"{self.games if not isinstance(self.games, int) or self.games.bit_length() <= 64 else 'a larger integer'}")
        seed = seeding.normalize_seed(self.seed)
        if not isinstance(self.record, bool):
            raise ValueError(f"record: expected True or False, got {self.record!r}")
        Schedule(len(self.agents), players, seed)  # validates the number of agents
        object.__setattr__(self, "agents", tuple(self.agents))
        object.__setattr__(self, "config", MappingProxyType(config))
        object.__setattr__(self, "players", players)
        object.__setattr__(self, "seed", seed)

    def __reduce__(self) -> tuple[Any, ...]:  # the config is a read-only view, which pickle cannot copy
        return (_spec_from_fields, (self.agents, self.game, dict(self.config), self.players, self.games, self.seed,
                                    self.record))

    @property
    def labels(self) -> list[str]:
        """The entrants' unique labels (``entrant_labels``)."""
        return entrant_labels(self.agents)

    def schedule(self) -> Schedule:
        """Who sits where in each game (``fiveplay_env.experiments.tournament.schedule``)."""
        return Schedule(len(self.agents), self.players, self.seed)

    def check_agents(self) -> None:
        """Build every entrant once: a bad name raises ``ValueError`` before anything runs."""
        for name in self.agents:
            make_agent(name, self.game, seed=0, allow_import=True)

    def to_json(self) -> dict[str, Any]:
        """The spec as ``config.json`` holds it (the keys of ``RESUME_KEYS``, then ``record``)."""
        return {"version": FORMAT_VERSION, "game": self.game, "config": dict(self.config), "players": self.players,
                "agents": list(self.agents), "labels": self.labels, "games": self.games, "seed": self.seed,
                "record": self.record}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str = "config.json") -> TournamentSpec:
        """The spec of a ``config.json`` (``to_json``'s keys; format 1: without ``record``, read as False);
        ``ValueError`` naming ``where`` and the key for a missing or bad value (including ``labels`` that do
        not match ``agents``)."""
        missing = [k for k in RESUME_KEYS if k not in data]
        if missing:
            raise ValueError(f"{where}: lacks {missing} (expected the keys {sorted(RESUME_KEYS)})")
        version = data["version"]
        if isinstance(version, bool) or version not in READABLE_VERSIONS:
            raise ValueError(f"{where}: version: expected one of {list(READABLE_VERSIONS)}, got {version!r}")
        if version >= 2 and "record" not in data:
            raise ValueError(f"{where}: lacks ['record'] (expected it in a format {version} run)")
        agents = data["agents"]
        if not isinstance(agents, list) or not all(isinstance(a, str) for a in agents):
            raise ValueError(f"{where}: agents: expected a list of agent names, got {agents!r}")
        if not isinstance(data["config"], dict):
            raise ValueError(f"{where}: config: expected an object of config fields, got {data['config']!r}")
        try:
            spec = cls(agents=tuple(agents), game=data["game"], config=data["config"], players=data["players"],
                       games=data["games"], seed=data["seed"], record=data.get("record", False))
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
        labels = data.get("labels") or spec.labels
        if labels != spec.labels:
            raise ValueError(f"{where}: labels: expected {spec.labels} (the labels of its agents), got {labels!r}")
        return spec

    def to_argv(self) -> list[str]:
        """The ``python -m fiveplay_env.experiments.tournament`` arguments that give this spec (config fields that
        differ from the game's defaults only)."""
        game = games_mod.get_game(self.game)
        defaults = game.config_dict(game.make_config({"num_players": self.players}))
        changed = [f"{k}={v}" for k, v in self.config.items() if defaults.get(k) != v]
        return ["--game", self.game, "--agents", *self.agents, *(["--config", *changed] if changed else []),
                "--players", str(self.players), "--games", str(self.games), "--seed", str(self.seed),
                *(["--record"] if self.record else [])]


def _spec_from_fields(agents: tuple[str, ...], game: str, config: dict[str, Any], players: int, games: int,
                      seed: int, record: bool = False) -> TournamentSpec:
    return TournamentSpec(agents=agents, game=game, config=config, players=players, games=games, seed=seed,
                          record=record)


@dataclass(frozen=True)
class RunOptions:
    """Where and how a tournament runs; none of it changes the results (a ``time=`` search budget aside).

    Attributes:
        out: the folder holding run folders (a new run's folder is made in it).
        workers: processes playing games (1: in this process); with ``ray``, N > 1 caps the Ray tasks
            running at once (and sizes a new local Ray instance).
        ray: None (no Ray), ``"local"`` (start or join a local instance), ``"auto"`` or an address.
        max_games: stop after this many newly played games (None: play every missing game).
        progress: show a progress bar (never with ``quiet``).
        plots: write the PNG plots.
        quiet: print nothing.
        argv: the command line recorded in ``config.json`` (None: the one ``TournamentSpec.to_argv`` gives).
        allow_legacy: resume a format 1 run folder (no spec hash, no row checksums: an edited row or
            setting cannot be detected); refused otherwise.
    """

    out: str = "runs"
    workers: int = 1
    ray: str | None = None
    max_games: int | None = None
    progress: bool = True
    plots: bool = True
    quiet: bool = False
    argv: tuple[str, ...] | None = None
    allow_legacy: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.allow_legacy, bool):
            raise ValueError(f"allow_legacy: expected True or False, got {self.allow_legacy!r}")
        if isinstance(self.workers, bool) or not isinstance(self.workers, int) or self.workers < 1:
            raise ValueError(f"workers: expected an integer >= 1, got {self.workers}")
        if self.ray is None and self.workers > 4 * (os.cpu_count() or 1):
            raise ValueError(f"workers: expected at most {4 * (os.cpu_count() or 1)} processes on this machine "
                             f"({os.cpu_count()} cores), got {self.workers}")
        if self.ray is not None and not isinstance(self.ray, str):
            raise ValueError(f"ray: expected None, 'local', 'auto' or an address, got {self.ray!r}")
        if self.max_games is not None and (isinstance(self.max_games, bool) or not isinstance(self.max_games, int)
                                           or self.max_games < 0):
            raise ValueError(f"max-games: expected an integer >= 0, got {self.max_games}")
        if not isinstance(self.out, str):
            raise ValueError(f"out: expected a folder path, got {self.out!r}")
        if self.argv is not None:
            object.__setattr__(self, "argv", tuple(self.argv))
