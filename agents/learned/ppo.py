"""Deprecated: the trainer was split into pieces (0.2); this alias warns and will be removed in 0.3.

| old name (``fiveplay_env.agents.learned.ppo``)                 | new home                                        |
|---------------------------------------------------|-------------------------------------------------|
| ``TrainConfig`` (with PPO's settings)             | ``fiveplay_env.agents.learned.algorithms.ppo.PPOConfig``      |
| ``Trainer``                                       | ``fiveplay_env.agents.learned.trainer.Trainer``               |
| ``Timers``                                        | ``fiveplay_env.agents.learned.collector.Timers``              |
| ``parse_opponents``, ``SPECIAL_KINDS``            | ``fiveplay_env.agents.learned.config``                        |
| ``game_defaults``                                 | ``fiveplay_env.agents.learned.defaults``                      |
| ``evaluate``; ``mean_ci`` (a (mean, half-width) pair) | ``fiveplay_env.agents.learned.evaluation`` (``mean_half_width``) |
| ``Z95``                                           | ``fiveplay_env.agents.arena``                                 |
| ``sample_actions``                                | ``fiveplay_env.agents.learned.policy``                        |
| ``resolve_device``, ``model_device``, ``cpu_state_dict``, ``DEVICES`` | ``fiveplay_env.agents.learned.devices``  |
| ``model_from_checkpoint``                         | ``fiveplay_env.agents.learned.inference``                     |
"""
from __future__ import annotations

import warnings

from fiveplay_env.agents.learned.algorithms.ppo import PPOConfig as TrainConfig  # noqa: F401
from fiveplay_env.agents.learned.collector import Timers  # noqa: F401
from fiveplay_env.agents.learned.config import SPECIAL_KINDS, parse_opponents  # noqa: F401
from fiveplay_env.agents.learned.defaults import game_defaults  # noqa: F401
from fiveplay_env.agents.learned.devices import DEVICES, cpu_state_dict, model_device, resolve_device  # noqa: F401
from fiveplay_env.agents.learned.devices import to_cpu as _to_cpu  # noqa: F401
from fiveplay_env.agents.arena import Z95  # noqa: F401
from fiveplay_env.agents.learned.evaluation import evaluate  # noqa: F401
from fiveplay_env.agents.learned.evaluation import mean_half_width as mean_ci  # noqa: F401
from fiveplay_env.agents.learned.inference import model_from_checkpoint  # noqa: F401
from fiveplay_env.agents.learned.policy import sample_actions  # noqa: F401
from fiveplay_env.agents.learned.trainer import Trainer  # noqa: F401

warnings.warn("fiveplay_env.agents.learned.ppo was split into fiveplay_env.agents.learned.trainer (Trainer), fiveplay_env.agents.learned.algorithms.ppo "
              "(PPOConfig, the former TrainConfig), fiveplay_env.agents.learned.config, collector, returns, evaluation, devices "
              "and inference; the old name will be removed in 0.3", DeprecationWarning, stacklevel=2)
