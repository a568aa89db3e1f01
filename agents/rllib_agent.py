"""Policies trained with RLlib as agents: the ``rllib:`` registry names.

    from fiveplay_env.agents.registry import make_agent
    agent = make_agent("rllib:runs/rllib_train__take5__0__20260101-120000", "take5", seed=0)

Name syntax: ``rllib:PATH[?greedy|?sample]``. ``PATH`` is an RLlib algorithm checkpoint (``algo.save``), a run
folder of ``fiveplay_env.experiments.rllib_train`` or an RLModule folder (``fiveplay_env.integrations.rllib.module_path``).
``greedy`` (default): the most probable legal action; ``sample``: drawn from the masked policy with the
agent's own generator. The module is loaded once per process (a tournament worker loads it once).
A module trained for another game or number of players raises ``ValueError`` at its first decision.
Needs the ``distributed`` extra (Ray RLlib, torch).

Loading never runs code from the folder. RLlib's own ``RLModule.from_checkpoint`` unpickles
``class_and_ctor_args.pkl`` and ``module_state.pkl``, and a pickle can call anything, so a crafted folder
would run code; ``load_safe_module`` reads both with a restricted unpickler instead (``SafeUnpickler``:
only the classes and functions in ``SAFE_GLOBALS`` may appear: the module class this project saves, the
observation and action spaces (and their numpy generators), numpy arrays and dtypes), checks what it found (the class is
``MaskedPPOTorchRLModule``, the constructor's arguments are spaces and plain data, the state is arrays
that fit the module exactly), builds the module itself and loads the weights. Anything else (another
class, a function call, a missing or oversized file, a state that does not fit) is a ``CheckpointError``
(a ``ValueError``) naming the file and what was found, by kind, never by value; nothing in it is called.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from fiveplay_env.agents.base import Agent, check_batch
from fiveplay_env.agents.registry import file_fingerprint, register_prefix
from fiveplay_env.integrations.rllib import (MASK_KEY, OBS_KEY, SAFE_GLOBALS, SafeUnpickler, load_safe_module,  # noqa: F401
                                             module_path)



class RLlibAgent(Agent):
    """A policy trained with RLlib (an RLModule over the ``FiveplayMultiAgentEnv`` layout), playing through
    its masked logits: greedy (the most probable legal action) or sampled with the agent's generator."""

    def __init__(self, module: Any, seed: int | None = None, greedy: bool = True) -> None:
        super().__init__(seed)
        self.module = module
        obs_space = getattr(module, "observation_space_with_mask", module.observation_space)
        self.obs_dim = int(obs_space[OBS_KEY].shape[0])
        self.num_actions = int(module.action_space.n)
        self.greedy = greedy

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        import torch

        obs, m = check_batch(observations, masks)
        if obs.shape[1] != self.obs_dim or m.shape[1] != self.num_actions:
            raise ValueError(f"rllib agent: the module expects observations [B, {self.obs_dim}] and masks "
                             f"[B, {self.num_actions}] (its game and number of players), got {obs.shape} and {m.shape}")
        with torch.no_grad():
            out = self.module.forward_inference({"obs": {
                OBS_KEY: torch.as_tensor(obs, dtype=torch.float32),
                MASK_KEY: torch.as_tensor(m, dtype=torch.float32)}})
            logits = out["action_dist_inputs"].double().numpy()
        logits = np.where(m > 0, logits, -np.inf)
        if self.greedy:
            return logits.argmax(axis=1).astype(np.int64)
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        return np.array([self.rng.choice(len(row), p=row) for row in p], dtype=np.int64)


def make_rllib_agent(rest: str, game: str, seed: int | None) -> RLlibAgent:
    """Registry factory for ``rllib:PATH[?greedy|?sample]`` (see the module docstring)."""
    path, _, query = rest.partition("?")
    if not path or query not in ("", "greedy", "sample"):
        raise ValueError(f"rllib name: expected rllib:PATH[?greedy|?sample], got 'rllib:{rest}'")
    return RLlibAgent(load_safe_module(path), seed, greedy=query != "sample")


def _rllib_fingerprint(rest: str) -> str | None:
    """The content hash of the RLModule folder the name loads (``module_path``), whatever its ``?options``
    (None if there is none: loading it will say why)."""
    try:
        folder = module_path(rest.partition("?")[0])
    except ValueError:
        return None
    return file_fingerprint(folder)


register_prefix("rllib", make_rllib_agent, _rllib_fingerprint)
