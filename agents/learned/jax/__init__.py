"""The learner's JAX path (``experiments/train.py --backend jax``): rollouts that never leave the JAX engine.

| module          | job                                                                                  |
|-----------------|--------------------------------------------------------------------------------------|
| ``nets``        | the torch networks' forward pass in JAX (``mlp``; a game's network through its        |
|                 | class's ``jax_forward``, e.g. ``fiveplay_env.agents.take5.jax_nets``), from a torch state dict    |
| ``heuristics``  | the games' heuristics in JAX (their kits' ``jax_heuristics``, e.g. take5-safest,      |
|                 | equal to ``fiveplay_env.agents.take5.batch`` decision by decision), and ``random``                 |
| ``collector``   | ``JaxCollector``: the collector's contract (``fiveplay_env.agents.learned.collector``) with the T   |
|                 | steps of B games, the policy, the pool and the heuristics inside one ``lax.scan``       |

The update stays the torch PPO of ``fiveplay_env.agents.learned.algorithms.ppo`` (one implementation; the rollout's
arrays reach it as numpy views of the JAX arrays, no copy on the CPU), and so do the checkpoints.

Importing this package imports jax; without it the ``ImportError`` names the extra to install.
"""
from __future__ import annotations

try:
    import jax  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without jax
    from fiveplay_env.core.extras import install_hint

    raise ImportError(f"the JAX trainer (--backend jax) needs jax, of the 'jax' extra: {install_hint('jax')}") from exc
