"""A trained policy as an ``Agent`` (the protocol of ``fiveplay_env.agents.base``), and the ``ckpt:`` registry names.

    from fiveplay_env.agents.registry import make_agent
    import fiveplay_env.agents.learned                                   # registers the ckpt: prefix
    agent = make_agent("ckpt:runs/train__take5__0__20260101-120000", "take5", seed=0)
    agent = make_agent("ckpt:path/to/checkpoint.pt?sample", "take5", seed=0)

Name syntax: ``ckpt:PATH[?OPTION[&OPTION]]``. ``PATH`` is a checkpoint file or a training run folder
(its ``checkpoint.pt``). Options: ``greedy`` (the default: the most probable legal action), ``sample``
(draw from the policy with the agent's own generator, so the same seed gives the same decisions),
``temperature=X`` (sample from softmax(logits / X); implies ``sample``). The network is read onto the
CPU and plays there, whatever device trained it (checkpoints hold CPU tensors and are loaded with
``map_location="cpu"``); ``PolicyAgent.from_checkpoint(..., device="cuda")`` puts it on a GPU.

A checkpoint made for another game, another number of players or another observation size raises
``CheckpointError`` (a ``ValueError``) when the agent is made; a missing or damaged file too.
The network is loaded by ``fiveplay_env.agents.learned.inference.load_policy`` (re-exported here).
``policy_from_model(model, meta)`` makes the same agent of a network in memory (a learner's current
policy, handed to a search without a file).

What the policy thought (optional, for displays such as the web app): with ``agent.keep_thoughts = True``
every ``act`` leaves ``agent.last_thoughts`` = ``{"kind": "policy", "probs": {action: p}, "value": v,
"chosen": a}``: the policy's probabilities of the legal actions (softmax of the masked logits; greedy play
takes the most probable) and its value head's estimate of the acting player's return, in the training
reward's units (``meta["train_config"]``). They come from the forward pass the decision makes anyway.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from fiveplay_env.agents.base import Agent, check_batch, check_mask
from fiveplay_env.agents.learned.inference import load_policy
from fiveplay_env.core.errors import CheckpointError

SMALL_BATCH = 64  # batches up to this size run on one torch thread (restored afterwards)


def parse_ckpt_name(rest: str) -> tuple[str, bool, float]:
    """``"PATH?sample&temperature=0.5"`` -> ``(PATH, greedy, temperature)``; ``ValueError`` on a bad option."""
    path, _, query = rest.partition("?")
    if not path:
        raise ValueError(f"ckpt name: expected ckpt:PATH[?greedy|?sample|?temperature=X], got 'ckpt:{rest}'")
    greedy, temperature = True, 1.0
    for opt in filter(None, query.split("&")):
        key, _, val = opt.partition("=")
        if key == "greedy" and not val:
            greedy = True
        elif key == "sample" and not val:
            greedy = False
        elif key == "temperature":
            try:
                temperature = float(val)
            except ValueError:
                temperature = -1.0
            if not temperature > 0:
                raise ValueError(f"ckpt name: expected temperature=X with X > 0, got {opt!r}")
            greedy = False
        else:
            raise ValueError(f"ckpt name: expected options greedy, sample or temperature=X, got {opt!r}")
    return path, greedy, temperature


class PolicyAgent(Agent):
    """Plays a trained network: greedy (argmax of the legal logits) or sampled with ``self.rng``.

    Args:
        model: a network of ``fiveplay_env.agents.learned.nets``.
        meta: what the checkpoint says about it (``game``, ``obs_dim``, ``num_actions`` ...).
        seed: the agent's generator seed (sampling only).
        greedy: argmax instead of sampling.
        temperature: sampling temperature.
    """

    name = "ckpt"
    keep_thoughts: bool = False
    """Set True to keep each ``act``'s probabilities and value in ``last_thoughts`` (module docstring)."""

    def __init__(self, model: Any, meta: dict[str, Any], seed: int | None = None, greedy: bool = True,
                 temperature: float = 1.0) -> None:
        super().__init__(seed)
        self.model = model
        self.meta = meta
        self.greedy = bool(greedy)
        self.temperature = float(temperature)
        self.obs_dim = int(meta["obs_dim"])
        self.num_actions = int(meta["num_actions"])
        self.last_thoughts: dict[str, Any] | None = None

    @classmethod
    def from_checkpoint(cls, path: str, game: str | None = None, seed: int | None = None, greedy: bool = True,
                        temperature: float = 1.0, device: str = "cpu") -> "PolicyAgent":
        """The agent of a checkpoint file or run folder; ``game`` (if given) must be the checkpoint's.
        ``device``: where the network runs (the CPU by default, whatever device trained it)."""
        model, meta = load_policy(path, device)
        if game is not None and meta["game"] != game:
            raise CheckpointError(f"checkpoint {meta['path']}: made for game {meta['game']!r}, not {game!r}")
        return cls(model, meta, seed=seed, greedy=greedy, temperature=temperature)

    def _adapt(self, obs: np.ndarray) -> np.ndarray:
        """The observations as the network reads them (a hook: shipped Take 5 policies adapt other
        player counts); float32 [B, obs]."""
        return obs

    def evaluate(self, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(logits, values)`` of a batch: float64 [B, A] masked logits (illegal entries very negative)
        and float64 [B] value-head estimates of the acting player's return, in the training reward's
        units (``meta["train_config"]``: ``reward_scale`` per point, plus ``win_reward`` if trained with it)."""
        import torch

        obs = self._adapt(np.asarray(observations, np.float32))
        masks = np.asarray(masks)
        if obs.ndim != 2 or masks.ndim != 2 or obs.shape[1] != self.obs_dim or masks.shape[1] != self.num_actions:
            raise ValueError(
                f"{self.name}: expected observations of {self.obs_dim} floats and masks of {self.num_actions} "
                f"(the checkpoint's {self.meta['game']} with {self.meta['num_players']} players), got shapes "
                f"{obs.shape} and {masks.shape}")
        # small batches (a tournament's one decision at a time) are several times faster on one thread
        threads = torch.get_num_threads()
        few = obs.shape[0] <= SMALL_BATCH and threads > 1
        if few:
            torch.set_num_threads(1)
        try:
            dev = next(self.model.parameters()).device  # a policy loaded onto a GPU plays there
            with torch.inference_mode():
                logits, values = self.model(torch.from_numpy(obs).to(dev), torch.from_numpy(masks != 0).to(dev))
        finally:
            if few:
                torch.set_num_threads(threads)
        return logits.cpu().numpy().astype(np.float64), values.cpu().numpy().astype(np.float64)

    def _logits(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return self.evaluate(observations, masks)[0]

    def _choose(self, logits: np.ndarray, masks: np.ndarray) -> np.ndarray:
        legal = np.asarray(masks) != 0
        if self.greedy:
            a = np.where(legal, logits, -np.inf).argmax(axis=1)
        else:
            u = self.rng.random(logits.shape).clip(1e-12, 1.0 - 1e-12)
            a = np.where(legal, logits / self.temperature - np.log(-np.log(u)), -np.inf).argmax(axis=1)
        return a.astype(np.int64)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = check_mask(action_mask)
        self.last_thoughts = None
        if len(legal) == 1 and not self.keep_thoughts:
            return int(legal[0])
        obs = np.asarray(observation, np.float32)[None, :]
        m = np.asarray(action_mask)[None, :]
        if not self.keep_thoughts:
            return int(self._choose(self._logits(obs, m), m)[0])
        logits, values = self.evaluate(obs, m)
        a = int(legal[0]) if len(legal) == 1 else int(self._choose(logits, m)[0])
        z = logits[0][legal] - logits[0][legal].max()
        p = np.exp(z) / np.exp(z).sum()
        self.last_thoughts = {"kind": "policy", "probs": {int(b): round(float(q), 4) for b, q in zip(legal, p)},
                              "value": round(float(values[0]), 4), "chosen": a}
        tc = self.meta.get("train_config") or {}
        if tc.get("reward_scale"):  # the value in the game's points: value / reward_scale (win bonus included)
            self.last_thoughts["reward_scale"] = float(tc["reward_scale"])
            self.last_thoughts["win_reward"] = float(tc.get("win_reward") or 0.0)
        return a

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        obs, m = check_batch(observations, masks)
        if obs.shape[0] == 0:
            return np.zeros(0, np.int64)
        return self._choose(self._logits(obs, m), m)


POLICY_META = ("game", "num_players", "obs_dim", "num_actions")
"""What ``policy_from_model`` needs to know about an in-memory network (a checkpoint's fields)."""


def policy_from_model(model: Any, meta: dict[str, Any], seed: int | None = None, greedy: bool = True,
                      temperature: float = 1.0) -> PolicyAgent:
    """A ``PolicyAgent`` playing ``model``, a network in memory (no checkpoint file): what a learner hands to
    code that plays its current policy (expert iteration's search: its ``prior``).

    ``meta`` is what a checkpoint would say about it (``load_policy``'s ``meta``): ``game``, ``num_players``,
    ``obs_dim``, ``num_actions`` required; ``train_config`` (its ``reward_scale``: the value head's units),
    ``config``, ``progress`` read when present. The network is put in eval mode and played as it is, not
    copied: hand a frozen copy (``fiveplay_env.agents.learned.run.LearnerBase.policy_agent`` does) if it keeps
    training. ``ValueError`` naming a missing field."""
    missing = [k for k in POLICY_META if k not in meta]
    if missing:
        raise ValueError(f"meta: expected the fields {list(POLICY_META)} of the policy, missing {missing}")
    model.eval()
    meta = {"config": {}, "progress": {}, "train_config": {}, "path": None, "card": {}, **meta}
    return PolicyAgent(model, meta, seed=seed, greedy=greedy, temperature=temperature)


def make_ckpt_agent(rest: str, game: str, seed: int | None) -> PolicyAgent:
    """The registry factory of ``ckpt:<rest>`` names (see the module docstring)."""
    path, greedy, temperature = parse_ckpt_name(rest)
    try:
        import torch  # noqa: F401
    except ImportError as exc:  # pragma: no cover - depends on the install
        from fiveplay_env.core.extras import install_hint

        raise ValueError(f"ckpt agents need torch: install the train extra ({install_hint('train')})") from exc
    return PolicyAgent.from_checkpoint(path, game=game, seed=seed, greedy=greedy, temperature=temperature)


__all__ = ["PolicyAgent", "load_policy", "make_ckpt_agent", "parse_ckpt_name", "policy_from_model"]
