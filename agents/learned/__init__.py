"""Learned agents: masked actor-critic networks trained by PPO self-play (torch, the ``train`` extra).

| module        | what                                                                          |
|---------------|-------------------------------------------------------------------------------|
| ``nets``      | masked actor-critic networks (``mlp``, and ``take5`` with per-card features)  |
| ``ppo``       | ``TrainConfig``, ``Trainer`` (rollouts against an opponent pool, PPO updates, |
|               | checkpoint state) and ``evaluate`` (duplicate-format games vs a baseline)     |
| ``envs``      | vector envs (batched engine, or a reference-engine fallback), outcomes,       |
|               | engine snapshots                                                              |
| ``engine_seats`` | agents that need the engine (the search agent) as opponents and baselines:  |
|               | one per (slot, seat) of the reference-engine loop, shown their own game       |
| ``checkpoint``| atomic, verified checkpoint files; ``CheckpointError`` on any problem         |
| ``agent``     | ``PolicyAgent``: a checkpoint as an ``Agent``; the ``ckpt:PATH`` names        |

Importing this package registers the ``ckpt`` prefix with ``agents.registry`` (its documented hook), so
``make_agent("ckpt:PATH", game, seed)`` works afterwards. torch is imported only when a network is
built or loaded, so this import is cheap and works without torch installed.
"""
from __future__ import annotations

from typing import Any

from agents.registry import file_fingerprint, register_prefix


def _ckpt_factory(rest: str, game: str, seed: int | None) -> Any:
    from agents.learned.agent import make_ckpt_agent

    return make_ckpt_agent(rest, game, seed)


def _ckpt_fingerprint(rest: str) -> str | None:
    """The checkpoint file's SHA-256, whatever the name's ``?options`` (None if there is no such file:
    loading it will say why)."""
    import os

    from agents.learned.checkpoint import resolve_path
    path = resolve_path(rest.partition("?")[0])
    return file_fingerprint(path) if os.path.isfile(path) else None


register_prefix("ckpt", _ckpt_factory, _ckpt_fingerprint)

__all__ = ["register_prefix"]
