"""The learning algorithms, by name: ``experiments/train.py --algo NAME`` picks one.

| name      | module                                           | what                                         |
|-----------|--------------------------------------------------|----------------------------------------------|
| ``ppo``   | ``fiveplay_env.agents.learned.algorithms.ppo``   | clipped PPO over self-play rollouts (minibatch SGD with Adam over each rollout) |
| ``expit`` | ``fiveplay_env.agents.learned.algorithms.expit`` | expert iteration: the batched search plays, the network learns its choices and the outcomes, then guides the next search |

An algorithm is a module (or any object) that defines

- ``CONFIG``: its config class, a subclass of ``fiveplay_env.agents.learned.config.TrainConfig`` (the
  options every run shares) adding its own options (declared with ``option``, so the command line gets
  them) and setting ``algo`` to its name; an option of another algorithm given to it is a
  ``ValueError`` naming both;
- ``LEARNER``: its learner, ``LEARNER(cfg, device="cpu", warm_start=True)``, a
  ``fiveplay_env.agents.learned.run.Learner`` (what the run drives: updates, counters, checkpoints).
  It subclasses ``fiveplay_env.agents.learned.run.LearnerBase`` (the bookkeeping every learner shares)
  or, for an update over self-play rollouts, ``fiveplay_env.agents.learned.onpolicy.OnPolicyLearner``
  naming its update (as ``PPOLearner`` does);

and, by convention, ``ALGORITHM``: its update class. Checkpoints record the algorithm's name (``algo``):
a resume looks it up here again.

Built-in algorithms are listed in ``ALGORITHMS`` (imported on first use). Another package adds one
through the ``fiveplay.algorithms`` entry-point group (name = the algorithm's name, value = its module
or object), e.g. in its ``pyproject.toml``::

    [project.entry-points."fiveplay.algorithms"]
    a2c = "mypkg.a2c"            # a module defining CONFIG (algo = "a2c") and LEARNER

It is loaded when first asked for (``get_algorithm``); ``names()`` lists it beside the built-ins, so
``fiveplay train --algo a2c`` works. A built-in name cannot be taken by an entry point.

This module is the table: it names the algorithms' modules and imports none of them up front; the
learners import what they sit on (``run``, ``onpolicy``), never this table or the trainer that looks
them up (``fiveplay_env.agents.learned.trainer.make_learner``), so the table makes no import cycle.
"""
from __future__ import annotations

import importlib
from typing import Any

ALGORITHMS: dict[str, str] = {"ppo": "fiveplay_env.agents.learned.algorithms.ppo",
                              "expit": "fiveplay_env.agents.learned.algorithms.expit"}
"""Built-in algorithm name -> its module (imported on first use)."""
ENTRY_POINT_GROUP = "fiveplay.algorithms"
"""The entry-point group where other packages declare algorithms."""


def _entry_points() -> dict[str, Any]:
    """The ``fiveplay.algorithms`` entry points installed, by name (built-in names skipped)."""
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name not in ALGORITHMS}


def names() -> list[str]:
    """Every algorithm's name: the built-ins and the entry points', sorted."""
    return sorted({*ALGORITHMS, *_entry_points()})


def get_algorithm(name: str) -> Any:
    """The algorithm ``name`` (its module or object, with ``CONFIG`` and ``LEARNER``); ``ValueError`` listing
    the known ones for another name, and naming the entry point for one that fails to load or lacks them."""
    if isinstance(name, str) and name in ALGORITHMS:
        return importlib.import_module(ALGORITHMS[name])
    plugins = _entry_points() if isinstance(name, str) else {}
    if name not in plugins:
        raise ValueError(f"algo: expected one of {names()}, got {name!r}")
    ep = plugins[name]
    try:
        algo = ep.load()
    except Exception as exc:  # a broken third-party package: say which and why
        raise ValueError(f"algo: the {ENTRY_POINT_GROUP} entry point {name!r} ({ep.value}) failed to load: "
                         f"{type(exc).__name__}: {exc}") from exc
    missing = [k for k in ("CONFIG", "LEARNER") if not hasattr(algo, k)]
    if missing:
        raise ValueError(f"algo: the {ENTRY_POINT_GROUP} entry point {name!r} ({ep.value}) defines no "
                         f"{' or '.join(missing)} (fiveplay_env.agents.learned.algorithms says what an algorithm is)")
    if getattr(algo.CONFIG, "algo", None) != name:
        raise ValueError(f"algo: the {ENTRY_POINT_GROUP} entry point {name!r} ({ep.value}): expected its CONFIG "
                         f"to name it (algo = {name!r}), got {getattr(algo.CONFIG, 'algo', None)!r}")
    return algo


def config_class(name: str) -> Any:
    """The config class of algorithm ``name`` (``get_algorithm(name).CONFIG``)."""
    return get_algorithm(name).CONFIG


def config_from_dict(d: dict[str, Any], algo: str = "ppo") -> Any:
    """The config of algorithm ``algo`` from its ``to_dict()`` (a checkpoint's ``train_config``, with the
    checkpoint's ``algo``; a checkpoint without one is PPO's)."""
    return config_class(algo).from_dict(d)


__all__ = ["ALGORITHMS", "ENTRY_POINT_GROUP", "config_class", "config_from_dict", "get_algorithm", "names"]
