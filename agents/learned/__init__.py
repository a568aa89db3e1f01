"""Learned agents: masked actor-critic networks trained by PPO self-play (torch, the ``train`` extra).

| module        | what                                                                          |
|---------------|-------------------------------------------------------------------------------|
| ``nets``      | masked actor-critic networks (``mlp``, and ``take5`` with per-card features)  |
| ``ppo``       | ``TrainConfig``, ``Trainer`` (rollouts against an opponent pool, PPO updates, |
|               | checkpoint state) and ``evaluate`` (duplicate-format games vs a baseline)     |
| ``envs``      | vector envs (batched engine, or a reference-engine fallback), outcomes,       |
|               | engine snapshots                                                              |
| ``checkpoint``| atomic, verified checkpoint files; ``CheckpointError`` on any problem         |
| ``agent``     | ``PolicyAgent``: a checkpoint as an ``Agent``; the ``ckpt:PATH`` names        |

Importing this package registers the ``ckpt`` prefix with ``agents.registry`` (its documented hook), so
``make_agent("ckpt:PATH", game, seed)`` works afterwards. torch is imported only when a network is
built or loaded, so this import is cheap and works without torch installed.
"""
from __future__ import annotations

from typing import Any

from agents.registry import register_prefix


def _ckpt_factory(rest: str, game: str, seed: int | None) -> Any:
    from agents.learned.agent import make_ckpt_agent

    return make_ckpt_agent(rest, game, seed)


register_prefix("ckpt", _ckpt_factory)

__all__ = ["register_prefix"]
