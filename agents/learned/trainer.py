"""The learner a config names (torch): ``make_learner(cfg)`` looks its algorithm up and builds its ``LEARNER``.

    from fiveplay_env.agents.learned.algorithms.expit import ExpitConfig
    from fiveplay_env.agents.learned.trainer import make_learner
    learner = make_learner(ExpitConfig(game="take5", config={"num_players": 4, "mode": "round"}))
    while learner.decisions < learner.cfg.total_decisions:
        stats = learner.train_update()

``experiments/train.py`` is the command line over it. The algorithms are in
``fiveplay_env.agents.learned.algorithms`` (built in, or added by an entry point); what a learner is,
and the bookkeeping every learner shares, in ``fiveplay_env.agents.learned.run``. This module sits above
both: the learners never import it.

``Trainer`` is PPO's learner (``fiveplay_env.agents.learned.algorithms.ppo.PPOLearner``) under the name
of earlier releases; ``make_trainer`` is ``make_learner``.
"""
from __future__ import annotations

from fiveplay_env.agents.learned.algorithms import get_algorithm
from fiveplay_env.agents.learned.algorithms.ppo import PPOLearner
from fiveplay_env.agents.learned.config import TrainConfig
from fiveplay_env.agents.learned.run import Learner

Trainer = PPOLearner
"""PPO's learner, by its earlier name."""


def make_learner(cfg: TrainConfig, device: str = "cpu", warm_start: bool = True) -> Learner:
    """The learner of ``cfg``'s algorithm (``get_algorithm(cfg.algo).LEARNER``), its networks on ``device``;
    ``warm_start``: start from ``cfg.init_from``'s weights (a resume passes False and loads its own).
    ``ValueError`` for a config that names no algorithm or an unknown one."""
    if not isinstance(cfg, TrainConfig) or not cfg.algo:
        raise ValueError(f"config: expected an algorithm's config (a subclass of TrainConfig such as "
                         f"fiveplay_env.agents.learned.algorithms.ppo.PPOConfig), got {type(cfg).__name__}")
    return get_algorithm(cfg.algo).LEARNER(cfg, device=device, warm_start=warm_start)


make_trainer = make_learner

__all__ = ["Trainer", "make_learner", "make_trainer"]
