"""SuperSuit's vector envs for Stable-Baselines3, with the action masks ``MaskablePPO`` needs.

    from sb3_contrib import MaskablePPO
    from fiveplay_env import take5_v0
    from fiveplay_env.integrations.supersuit import sb3_vec_env

    venv = sb3_vec_env(take5_v0.parallel_env(num_players=4, mode="round"), num_vec_envs=2, seed=0)
    MaskablePPO("MlpPolicy", venv).learn(10_000)     # every seat of every copy is one SB3 env

``sb3_vec_env`` is SuperSuit's documented recipe, ``pettingzoo_env_to_vec_env_v1`` then
``concat_vec_envs_v1(..., base_class="stable_baselines3")``, wrapped in ``ActionMaskVecEnv``, because
SuperSuit's vector env has no ``has_attr``/``env_method`` and keeps the masks inside dict observations,
where ``MaskablePPO`` cannot reach them. ``ActionMaskVecEnv`` (an SB3 ``VecEnvWrapper``):

- observations are the flat ``obs["observation"]`` arrays (``observation_space`` is that ``Box``), so
  ``"MlpPolicy"`` works; ``infos[i]["terminal_observation"]`` is flattened the same way;
- ``action_masks()`` and ``env_method("action_masks")`` give the masks of the last observations
  (bool [num_envs, A]), and ``has_attr("action_masks")`` is True: what ``MaskablePPO`` asks;
- ``seed(s)`` (``MaskablePPO(seed=...)`` calls it) seeds the next ``reset``.

At the end of a game SuperSuit resets at once and merges the new game's reset infos over the last
step's infos, so the last step's ``score`` and ``winner`` are replaced by the new game's. ``sb3_vec_env``
therefore wraps the parallel env in ``FinalInfos``, which copies them, at the step a game ends, to keys
reset infos never carry: ``infos[i]["final_score"]`` and ``infos[i]["final_winner"]`` are present exactly
at that step (the env itself keeps the same info keys at every step, as TorchRL needs).
"""
from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseParallelWrapper

_CLASSES: dict[str, type] = {}


def __getattr__(name: str) -> Any:
    """``ActionMaskVecEnv`` is defined on first use, so that this module imports without Stable-Baselines3."""
    if name == "ActionMaskVecEnv":
        if name not in _CLASSES:
            _CLASSES[name] = _define()
        return _CLASSES[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _define() -> type:
    try:
        from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper
        from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvObs, VecEnvStepReturn
    except ModuleNotFoundError as exc:
        from fiveplay_env.core import extras

        raise extras.missing(exc, "fiveplay_env.integrations.supersuit") from exc

    class ActionMaskVecEnv(VecEnvWrapper):
        """An SB3 vector env whose observations are ``{"observation", "action_mask"}`` dicts, seen as flat
        observations plus ``action_masks()`` (see the module docstring)."""

        def __init__(self, venv: VecEnv) -> None:
            space = venv.observation_space
            if not isinstance(space, spaces.Dict) or set(space.spaces) != {"observation", "action_mask"}:
                raise ValueError(f"venv: expected dict observations with 'observation' and 'action_mask', got {space}")
            super().__init__(venv, observation_space=space["observation"])
            self._masks = np.ones((self.num_envs, space["action_mask"].shape[0]), bool)
            self._next_seed: int | None = None

        def _split(self, obs: dict[str, np.ndarray]) -> np.ndarray:
            self._masks = np.asarray(obs["action_mask"]).astype(bool)
            return np.asarray(obs["observation"], np.float32)

        def seed(self, seed: int | None = None) -> list[int | None]:  # type: ignore[override]
            """Seed the next ``reset`` (copy k of the game gets ``seed + k``, SuperSuit's rule)."""
            self._next_seed = seed
            return [seed] * self.num_envs

        def reset(self) -> VecEnvObs:
            seed, self._next_seed = self._next_seed, None
            inner = getattr(self.venv, "venv", None)
            if seed is not None and inner is not None:  # SuperSuit's SB3 wrapper cannot pass a seed on
                obs, infos = inner.reset(seed=seed)
                self.venv.reset_infos = infos
            else:
                obs = self.venv.reset()
            self.reset_infos = getattr(self.venv, "reset_infos", [{} for _ in range(self.num_envs)])
            return self._split(obs)

        def step_wait(self) -> VecEnvStepReturn:
            obs, rewards, dones, infos = self.venv.step_wait()
            for info in infos:
                term = info.get("terminal_observation")
                if isinstance(term, dict):
                    info["terminal_observation"] = np.asarray(term["observation"], np.float32)
            return self._split(obs), rewards, dones, infos

        def action_masks(self) -> np.ndarray:
            """bool [num_envs, A]: the legal actions of each env's last observation."""
            return self._masks.copy()

        def has_attr(self, attr_name: str) -> bool:
            return attr_name == "action_masks" or hasattr(self.venv, attr_name)

        def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                       **method_kwargs: Any) -> list[Any]:
            if method_name == "action_masks":
                return [self._masks[i].copy() for i in self._get_indices(indices)]
            return self.venv.env_method(method_name, *method_args, indices=indices, **method_kwargs)

        def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
            if attr_name == "action_masks":
                return [self.action_masks] * len(list(self._get_indices(indices)))
            if attr_name == "render_mode":  # SuperSuit's envs hold one for all
                return [getattr(self.venv, "render_mode", None)] * len(list(self._get_indices(indices)))
            return self.venv.get_attr(attr_name, indices)

    ActionMaskVecEnv.__qualname__ = "ActionMaskVecEnv"  # picklable by name (module __getattr__)
    return ActionMaskVecEnv

FINAL_KEYS = {"score": "final_score", "winner": "final_winner"}
"""The info keys ``FinalInfos`` copies at a game's last step, and the names it copies them to."""


class FinalInfos(BaseParallelWrapper):
    """A PettingZoo ``ParallelEnv`` whose last step's infos also hold ``final_score`` and
    ``final_winner`` (copies of that step's ``score`` and ``winner``, where present, per ``FINAL_KEYS``),
    so that they survive SuperSuit's merge of the next game's reset infos. Every other call passes
    through."""

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        obs, rewards, terms, truncs, infos = self.env.step(actions)
        if terms and all(terms[a] or truncs.get(a, False) for a in terms):
            for info in infos.values():
                for key, final in FINAL_KEYS.items():
                    if key in info:
                        info[final] = info[key]
        return obs, rewards, terms, truncs, infos


def sb3_vec_env(parallel_env: Any, num_vec_envs: int = 1, num_cpus: int = 0, seed: int | None = None) -> Any:
    """SuperSuit's SB3 vector env over ``num_vec_envs`` copies of ``parallel_env`` (a PettingZoo
    ``ParallelEnv`` with dict observations, e.g. ``take5_v0.parallel_env(...)``), each seat one env,
    with masks for ``MaskablePPO``. ``seed``: seeds the first reset. Needs ``supersuit`` and
    ``stable-baselines3`` (the ``clients`` extra): without them, an ``ImportError`` naming the extra."""
    try:
        import supersuit as ss
    except ModuleNotFoundError as exc:
        from fiveplay_env.core import extras

        raise extras.missing(exc, "fiveplay_env.integrations.supersuit.sb3_vec_env") from exc

    if isinstance(num_vec_envs, bool) or not isinstance(num_vec_envs, int) or num_vec_envs < 1:
        raise ValueError(f"num_vec_envs: expected an integer >= 1, got {num_vec_envs!r}")
    venv = ss.pettingzoo_env_to_vec_env_v1(FinalInfos(parallel_env))
    venv = ss.concat_vec_envs_v1(venv, num_vec_envs, num_cpus=num_cpus, base_class="stable_baselines3")
    out = __getattr__("ActionMaskVecEnv")(venv)
    out.seed(seed)
    return out
