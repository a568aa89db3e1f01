"""Deprecated: the trainer was split into pieces (0.2); this alias warns and will be removed in 0.3.

| old name (``agents.learned.ppo``)                 | new home                                        |
|---------------------------------------------------|-------------------------------------------------|
| ``TrainConfig`` (with PPO's settings)             | ``agents.learned.algorithms.ppo.PPOConfig``      |
| ``Trainer``                                       | ``agents.learned.trainer.Trainer``               |
| ``Timers``                                        | ``agents.learned.collector.Timers``              |
| ``parse_opponents``, ``SPECIAL_KINDS``            | ``agents.learned.config``                        |
| ``game_defaults``                                 | ``agents.learned.defaults``                      |
| ``evaluate``; ``mean_ci`` (a (mean, half-width) pair) | ``agents.learned.evaluation`` (``mean_half_width``) |
| ``Z95``                                           | ``agents.arena``                                 |
| ``sample_actions``                                | ``agents.learned.policy``                        |
| ``resolve_device``, ``model_device``, ``cpu_state_dict``, ``DEVICES`` | ``agents.learned.devices``  |
| ``model_from_checkpoint``                         | ``agents.learned.inference``                     |
"""
from __future__ import annotations

import warnings

from agents.learned.algorithms.ppo import PPOConfig as TrainConfig  # noqa: F401
from agents.learned.collector import Timers  # noqa: F401
from agents.learned.config import SPECIAL_KINDS, parse_opponents  # noqa: F401
from agents.learned.defaults import game_defaults  # noqa: F401
from agents.learned.devices import DEVICES, cpu_state_dict, model_device, resolve_device  # noqa: F401
from agents.learned.devices import to_cpu as _to_cpu  # noqa: F401
from agents.arena import Z95  # noqa: F401
from agents.learned.evaluation import evaluate  # noqa: F401
from agents.learned.evaluation import mean_half_width as mean_ci  # noqa: F401
from agents.learned.inference import model_from_checkpoint  # noqa: F401
from agents.learned.policy import sample_actions  # noqa: F401
from agents.learned.trainer import Trainer  # noqa: F401

warnings.warn("agents.learned.ppo was split into agents.learned.trainer (Trainer), agents.learned.algorithms.ppo "
              "(PPOConfig, the former TrainConfig), agents.learned.config, collector, returns, evaluation, devices "
              "and inference; the old name will be removed in 0.3", DeprecationWarning, stacklevel=2)
