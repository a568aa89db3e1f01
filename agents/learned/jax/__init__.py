"""The learner's JAX path (``experiments/train.py --backend jax``): rollouts that never leave the JAX engine.

| module          | job                                                                                  |
|-----------------|--------------------------------------------------------------------------------------|
| ``nets``        | the torch networks' forward pass in JAX (``mlp``, ``take5``), from a torch state dict |
| ``heuristics``  | ``take5-safest`` and ``five-alive-attacker`` in JAX, equal to ``agents.take5.batch`` / |
|                 | ``agents.five_alive.batch`` decision by decision                                      |
| ``collector``   | ``JaxCollector``: the collector's contract (``agents.learned.collector``) with the T   |
|                 | steps of B games, the policy, the pool and the heuristics inside one ``lax.scan``       |

The update stays the torch PPO of ``agents.learned.algorithms.ppo`` (one implementation; the rollout's
arrays reach it as numpy views of the JAX arrays, no copy on the CPU), and so do the checkpoints.

Importing this package imports jax; without it the ``ImportError`` names the extra to install.
"""
from __future__ import annotations

try:
    import jax  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without jax
    from fiveplay_env.core.extras import install_hint

    raise ImportError(f"the JAX trainer (--backend jax) needs jax, of the 'jax' extra: {install_hint('jax')}") from exc
