"""The learning algorithms, by name: ``experiments/train.py --algo NAME`` picks one.

| name      | module                              | what                                                   |
|-----------|-------------------------------------|--------------------------------------------------------|
| ``ppo``   | ``fiveplay_env.agents.learned.algorithms.ppo``   | clipped PPO (minibatch SGD with Adam over each rollout)  |
| ``expit`` | ``fiveplay_env.agents.learned.algorithms.expit`` | expert iteration: the batched search plays, the network learns its choices and the outcomes, then guides the next search |

An algorithm is a module (imported on first use) that defines

- ``CONFIG``: its config class, a subclass of ``fiveplay_env.agents.learned.config.TrainConfig`` adding its own
  hyperparameters (declared with ``option``, so the command line gets them) and setting ``algo``;
- ``ALGORITHM``: a class ``ALGORITHM(cfg, model, rng, device, decoder)`` (the learner network, the run's
  numpy generator, the torch device, the compact observation's decoder or None) with
  ``update(batch, lr) -> stats`` (``batch``: the flat numpy samples of ``collector.Rollout.batch``;
  ``stats``: floats, ``samples`` among them), ``state_dict()`` and ``load_state_dict(state)`` (its
  optimizer's state, CPU tensors: what checkpoints hold under ``optimizer``).

and optionally

- ``TRAINER``: a class with ``fiveplay_env.agents.learned.trainer.Trainer``'s interface (``TRAINER(cfg, device,
  warm_start)``, ``train_update``, ``state`` / ``load_state``, ``throughput``, ``model``, the counters), for
  an algorithm that gathers its own experience (``expit``: games the search plays);
  ``fiveplay_env.agents.learned.trainer.make_trainer`` picks it, else ``Trainer``.

The collector, the returns, the evaluation and the checkpoints are shared: a second algorithm is a new
module here and a line in ``ALGORITHMS``.
"""
from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

ALGORITHMS: dict[str, str] = {"ppo": "fiveplay_env.agents.learned.algorithms.ppo", "expit": "fiveplay_env.agents.learned.algorithms.expit"}
"""Algorithm name -> its module (imported on first use)."""


def get_algorithm(name: str) -> ModuleType:
    """The module of algorithm ``name``; ``ValueError`` listing the known ones otherwise."""
    if not isinstance(name, str) or name not in ALGORITHMS:
        raise ValueError(f"algo: expected one of {sorted(ALGORITHMS)}, got {name!r}")
    return importlib.import_module(ALGORITHMS[name])


def config_class(name: str) -> Any:
    """The config class of algorithm ``name`` (``get_algorithm(name).CONFIG``)."""
    return get_algorithm(name).CONFIG


def config_from_dict(d: dict[str, Any], algo: str = "ppo") -> Any:
    """The config of algorithm ``algo`` from its ``to_dict()`` (a checkpoint's ``train_config``, with the
    checkpoint's ``algo``; a checkpoint without one is PPO's)."""
    return config_class(algo).from_dict(d)


__all__ = ["ALGORITHMS", "config_class", "config_from_dict", "get_algorithm"]
