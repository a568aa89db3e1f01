"""The batched engines as a Stable-Baselines3 ``VecEnv``: ``Sb3VecEnv`` (needs ``stable-baselines3``).

    from sb3_contrib import MaskablePPO
    from fiveplay_env.integrations.sb3 import Sb3VecEnv
    venv = Sb3VecEnv("take5", 64, opponents="take5-safest", seed=0, num_players=4, mode="round")
    MaskablePPO("MlpPolicy", venv).learn(100_000)

It is ``fiveplay_env.vector_gym.GymVectorEnv`` (one learning seat per game, fixed agents in the other
seats, every game stepped at once; same arguments) behind SB3's ``VecEnv`` interface:
``reset() -> obs``, ``step_wait() -> (obs, rewards, dones, infos)`` with one info dict per game,
``env_method("action_masks")`` and ``has_attr("action_masks")`` (what ``MaskablePPO`` asks for), and
``seed(s)`` (``MaskablePPO(seed=...)`` calls it: the next ``reset`` starts the run over from ``s``).
Autoreset is SB3's own: where ``dones[i]``, ``obs[i]`` is the next game's first observation, and
``infos[i]["terminal_observation"]`` is not given (episodes end by termination only, never
truncation, so SB3 never bootstraps from it). ``infos[i]["seat"]`` is the learner's seat in game i.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from fiveplay_env.vector_gym import GymVectorEnv

_CLASSES: dict[str, type] = {}


def __getattr__(name: str) -> Any:
    """``Sb3VecEnv`` is defined on first use, so that this module imports without Stable-Baselines3."""
    if name == "Sb3VecEnv":
        if name not in _CLASSES:
            _CLASSES[name] = _define()
        return _CLASSES[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _define() -> type:
    try:
        from stable_baselines3.common.vec_env import VecEnv
        from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvObs, VecEnvStepReturn
    except ModuleNotFoundError as exc:
        from fiveplay_env.core import extras

        raise extras.missing(exc, "fiveplay_env.integrations.sb3.Sb3VecEnv") from exc

    class Sb3VecEnv(VecEnv):
        """An SB3 ``VecEnv`` over ``GymVectorEnv(game, num_envs, ...)`` (see the module docstring)."""

        def __init__(self, game: str, num_envs: int, opponents: Any = "random", seat: int | str = "random",
                     seed: int | None = 0, **config: Any) -> None:
            self.env = GymVectorEnv(game, num_envs, opponents=opponents, seat=seat, seed=seed, **config)
            self.render_mode = None
            super().__init__(self.env.num_envs, self.env.single_observation_space, self.env.single_action_space)
            self._actions: np.ndarray | None = None
            self._next_seed: int | None = None

        def seed(self, seed: int | None = None) -> Sequence[int | None]:  # type: ignore[override]
            self._next_seed = seed
            return [seed] * self.num_envs

        def reset(self) -> VecEnvObs:
            seed, self._next_seed = self._next_seed, None
            obs, info = self.env.reset(seed=seed)
            self.reset_infos = [{"seat": int(s)} for s in info["seat"]]
            return obs

        def step_async(self, actions: np.ndarray) -> None:
            self._actions = np.asarray(actions).astype(np.int64).reshape(self.num_envs)

        def step_wait(self) -> VecEnvStepReturn:
            if self._actions is None:
                raise RuntimeError("step_wait: call step_async(actions) first")
            obs, rewards, terminated, truncated, info = self.env.step(self._actions)
            self._actions = None
            # SB3's convention for a game cut short by a length bound (no terminal observation is given: the
            # engine starts the next game within the step, see GymVectorEnv)
            infos = [{"seat": int(s), "TimeLimit.truncated": bool(t)} for s, t in zip(info["seat"], truncated)]
            return obs, rewards, terminated | truncated, infos

        def action_masks(self) -> np.ndarray:
            """bool [num_envs, A]: the learner's legal actions in each game now."""
            return self.env.action_masks()

        def close(self) -> None:
            self.env.close()

        def has_attr(self, attr_name: str) -> bool:
            return hasattr(self, attr_name)

        def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
            value = getattr(self, attr_name)
            return [value for _ in self._get_indices(indices)]

        def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
            setattr(self, attr_name, value)

        def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                       **method_kwargs: Any) -> list[Any]:
            idx = list(self._get_indices(indices))
            if method_name == "action_masks":
                masks = self.env.action_masks()
                return [masks[i] for i in idx]
            result = getattr(self, method_name)(*method_args, **method_kwargs)
            return [result for _ in idx]

        def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
            return [False for _ in self._get_indices(indices)]

        def get_images(self) -> Sequence[np.ndarray | None]:
            return [None for _ in range(self.num_envs)]

    Sb3VecEnv.__qualname__ = "Sb3VecEnv"  # picklable by name (module __getattr__)
    return Sb3VecEnv
