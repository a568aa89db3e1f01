"""Pretrained policies shipped with the package: ``make_agent("pretrained:take5-game-4p", "take5")``.

The ``pretrained`` prefix is registered with ``fiveplay_env.agents.registry`` by the ``fiveplay_env.agents.learned`` package (this
module does not import the registry). Name syntax: ``pretrained:NAME[?OPTION[&OPTION]]`` with the options of ``ckpt:`` names (``greedy``, the
default; ``sample``; ``temperature=X``). ``NAME`` is one of ``MODELS``:

| name               | game       | trained for                       | plays                                         |
|--------------------|------------|-----------------------------------|-----------------------------------------------|
| ``take5-round-4p`` | take5      | 4 players, ``mode="round"``       | any Take 5 variant with 2..10 players (below) |
| ``take5-game-4p``  | take5      | 4 players, ``mode="game"`` to 66  | any Take 5 variant with 2..10 players (below) |
| ``take5-game-6p``  | take5      | 6 players, ``mode="game"`` to 66  | any Take 5 variant with 2..10 players (below) |
| ``take5-game-10p`` | take5      | 10 players, ``mode="game"`` to 66 | any Take 5 variant with 2..10 players (below) |
| ``five-alive-2p``  | five_alive | 2 players, standard rules         | any 5 Alive variant with 2..6 players (below) |
| ``five-alive-3p``  | five_alive | 3 players, standard rules         | any 5 Alive variant with 2..6 players (below) |
| ``five-alive-4p``  | five_alive | 4 players, standard rules         | any 5 Alive variant with 2..6 players (below) |
| ``five-alive-5p``  | five_alive | 5 players, standard rules         | any 5 Alive variant with 2..6 players (below) |
| ``five-alive-6p``  | five_alive | 6 players, standard rules         | any 5 Alive variant with 2..6 players (below) |

The files (``<NAME>.pt`` beside this module, package data) are policy checkpoints in the format of
``fiveplay_env.agents.learned.checkpoint`` reduced to the network and its metadata (``export_policy``); each also
holds its model card (``model_card(NAME)``: the exact training command, the wall time it took on the
2-core development machine, and its measured strength). ``README.md`` in this folder has the table.

Take 5 policies and other player counts: the observation differs only in its per-player tail (scores,
round penalties and seat, ``fiveplay_env.take5.observation``). A policy trained for k players plays
n != k players through ``adapt_take5_observation`` (``fiveplay_env.agents.take5.obs_adapt``, the kit's ``adapt_observation``):
the card part is kept; the tail keeps the player itself and the next k-1 seats (n > k) or pads absent
players with zeros (n < k). Whether this generalises is measured, not assumed: the README's player-count
paragraph (it carries to fewer players, not to more). Its ``take5`` network's risk features then assume
k-1 opponents. The 5 Alive policies play 2..6 players through ``adapt_five_alive_observation``
(``fiveplay_env.agents.five_alive.obs_adapt``). ``fiveplay_env.agents.learned.defaults.adapt_observation`` asks the game's kit.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from fiveplay_env.agents.learned.agent import PolicyAgent
from fiveplay_env.agents.learned.defaults import adapt_observation
from fiveplay_env.agents.fingerprint import file_fingerprint

HERE = os.path.dirname(os.path.abspath(__file__))


@dataclass(frozen=True)
class Pretrained:
    """A shipped policy: its file (in this folder), game and the player count it was trained for."""

    name: str
    file: str
    game: str
    num_players: int
    summary: str


MODELS: dict[str, Pretrained] = {m.name: m for m in (
    Pretrained("take5-round-4p", "take5-round-4p.pt", "take5", 4, "Take 5, 4 players, mode round"),
    Pretrained("take5-game-4p", "take5-game-4p.pt", "take5", 4, "Take 5, 4 players, mode game to 66 (win reward)"),
    Pretrained("take5-game-6p", "take5-game-6p.pt", "take5", 6, "Take 5, 6 players, mode game to 66 (win reward)"),
    Pretrained("take5-game-10p", "take5-game-10p.pt", "take5", 10, "Take 5, 10 players, mode game to 66 (win reward)"),
    Pretrained("five-alive-2p", "five-alive-2p.pt", "five_alive", 2, "5 Alive, 2 players, standard rules"),
    Pretrained("five-alive-3p", "five-alive-3p.pt", "five_alive", 3, "5 Alive, 3 players, standard rules"),
    Pretrained("five-alive-4p", "five-alive-4p.pt", "five_alive", 4, "5 Alive, 4 players, standard rules"),
    Pretrained("five-alive-5p", "five-alive-5p.pt", "five_alive", 5, "5 Alive, 5 players, standard rules"),
    Pretrained("five-alive-6p", "five-alive-6p.pt", "five_alive", 6, "5 Alive, 6 players, standard rules"),
)}


def available() -> list[str]:
    """The names of the shipped policies whose file is present."""
    return [n for n, m in MODELS.items() if os.path.exists(os.path.join(HERE, m.file))]


def family(name: str) -> str:
    """A shipped policy's family: its name up to its player count (``take5-game-6p`` -> ``take5-game-``);
    the policies of one family differ only in the count they were trained for."""
    return name.rstrip("p").rstrip("0123456789")


def for_players(game: str, num_players: int | None = None, of_family: str | None = None) -> list[str]:
    """The shipped policies of ``game`` (of ``of_family`` only, when given) present in this install that
    suit ``num_players``: those trained for that many players, else those of the nearest count (the higher
    on a tie: a policy adapted to fewer players than it was trained for keeps all it saw, and it plays them
    well, README's player counts; one adapted to more drops the farthest seats); None: every one."""
    mine = [n for n in available() if MODELS[n].game == game and (of_family is None or family(n) == of_family)]
    if num_players is None or not mine:
        return mine
    near = min({MODELS[n].num_players for n in mine}, key=lambda k: (abs(k - num_players), -k))
    return [n for n in mine if MODELS[n].num_players == near]


def path_of(name: str) -> str:
    """The file of a shipped policy; ``ValueError`` for an unknown name or a missing file."""
    if name not in MODELS:
        raise ValueError(f"pretrained name: expected one of {sorted(MODELS)}, got {name!r}")
    path = os.path.join(HERE, MODELS[name].file)
    if not os.path.exists(path):
        raise ValueError(f"pretrained {name!r}: its file {path} is missing from this install "
                         f"(package data; reinstall fiveplay-env)")
    return path


def model_card(name: str) -> dict[str, Any]:
    """The model card stored in the policy file: ``command``, ``wall_minutes``, ``decisions``, ``strength``."""
    from fiveplay_env.agents.learned.inference import load_policy

    _, meta = load_policy(path_of(name))
    return dict(meta.get("card") or {})


def make_pretrained_agent(rest: str, game: str, seed: int | None) -> Any:
    """The registry factory of ``pretrained:<rest>`` names."""
    from fiveplay_env.agents.learned.agent import parse_ckpt_name

    name, greedy, temperature = parse_ckpt_name(rest)
    if name not in MODELS:
        raise ValueError(f"pretrained name: expected one of {sorted(MODELS)}, got {name!r}")
    spec = MODELS[name]
    if spec.game != game:
        raise ValueError(f"pretrained {name!r}: a {spec.game} policy, not for {game!r} "
                         f"(for {game}: {sorted(n for n, m in MODELS.items() if m.game == game)})")
    try:
        import torch  # noqa: F401
    except ImportError as exc:  # pragma: no cover - depends on the install
        from fiveplay_env.core.extras import install_hint

        raise ValueError(f"pretrained agents need torch: install the train extra ({install_hint('train')})") from exc
    return PretrainedAgent.from_checkpoint(path_of(name), game=game, seed=seed, greedy=greedy, temperature=temperature)


class PretrainedAgent(PolicyAgent):
    """A shipped policy; it also plays other player counts where its game's kit adapts the observation
    (``AgentKit.adapt_observation``)."""

    name = "pretrained"

    def _adapt(self, obs: np.ndarray) -> np.ndarray:
        return adapt_observation(self.meta["game"], obs, int(self.meta["num_players"]), self.obs_dim)


def export_policy(checkpoint: str, out: str, card: dict[str, Any]) -> int:
    """Write the policy of a training checkpoint (file or run folder) to ``out``, without the optimizer
    and trainer state (a small file ``ckpt:``/``pretrained:`` load), with ``card`` (JSON-able) as its
    model card. Returns the file size in bytes."""
    from fiveplay_env.agents.learned.checkpoint import load_checkpoint, save_checkpoint

    ckpt = load_checkpoint(checkpoint)
    keep = ("kind", "version", "algo", "game", "config", "num_players", "obs_dim", "num_actions", "model", "progress",
            "train_config", "backend")
    payload = {k: ckpt[k] for k in keep if k in ckpt}
    payload["card"] = json.loads(json.dumps(card))
    size = save_checkpoint(out, payload)
    os.chmod(out, 0o644)  # package data: readable by everyone
    return size


def _pretrained_fingerprint(rest: str) -> str | None:
    """The shipped policy file's content hash, whatever the name's ``?options`` (None for an unknown name
    or a missing file: loading it will say why)."""
    spec = MODELS.get(rest.partition("?")[0])
    return None if spec is None else file_fingerprint(os.path.join(HERE, spec.file))


__all__ = ["MODELS", "Pretrained", "PretrainedAgent", "available",
           "export_policy", "make_pretrained_agent", "model_card", "path_of"]
