"""Masked actor-critic networks (torch).

Every network maps a batch of observations and legal-action masks to ``(logits, value)``:

    logits, value = net(obs, mask)    # obs float32 [B, obs_dim], mask bool/int8 [B, A]
                                      # -> logits float32 [B, A] (illegal entries = ILLEGAL_LOGIT),
                                      #    value float32 [B] (the acting player's expected return)

Illegal actions are masked out of the logits (set to ``ILLEGAL_LOGIT``, a large negative finite number,
so a softmax gives them probability 0 without producing NaN in the entropy), so sampling, the
log-probabilities and the entropy all range over the legal actions only.

Architectures (``ARCHS``; a checkpoint records the name and the keyword arguments, ``build_model``
rebuilds it):

| arch          | games | network                                                                          |
|---------------|-------|----------------------------------------------------------------------------------|
| ``mlp``       | any   | the observation, scaled per feature (``obs_scale``), through an MLP trunk; a      |
|               |       | linear policy head (one logit per action) and a linear value head                 |
| a game's own  | its   | declared in its kit (``fiveplay_env.agents.kit.AgentKit.networks``: name -> ``"module:Class"``, |
|               |       | a subclass of ``MaskedActorCritic``), e.g. Take 5's ``take5`` (``fiveplay_env.agents.take5.nets``: |
|               |       | per-action features of the cards and rows computed from the observation)         |

Which architecture and observation scale a game trains with: ``fiveplay_env.agents.learned.defaults``
(``default_arch``, ``obs_scale_for``; re-exported here). A game's network computes whatever it needs
from the observation inside ``forward``, so a saved network is self-contained: feed it what the env
hands an agent and nothing else.
"""
from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import Any

import torch
from torch import nn

from fiveplay_env.agents.learned.defaults import default_arch, obs_scale_for  # noqa: F401 - per-game choices, re-exported

ILLEGAL_LOGIT = -1.0e9


def mlp(sizes: list[int], act_last: bool = True) -> nn.Sequential:
    """Linear layers of ``sizes`` with ReLUs between them (and after the last one with ``act_last``)."""
    layers: list[nn.Module] = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if act_last or i < len(sizes) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


def init_layers(module: nn.Module, gain: float) -> None:
    """Orthogonal weights of gain ``gain`` and zero biases for every ``nn.Linear`` of ``module``."""
    for m in module.modules():
        if isinstance(m, nn.Linear):
            nn.init.orthogonal_(m.weight, gain=gain)
            if m.bias is not None:
                nn.init.zeros_(m.bias)


def mask_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with every entry whose ``mask`` is 0/False replaced by ``ILLEGAL_LOGIT``."""
    return torch.where(mask.bool(), logits, torch.full_like(logits, ILLEGAL_LOGIT))


def sparse_linear(x: torch.Tensor, linear: nn.Linear) -> torch.Tensor:
    """``linear(x)`` from the nonzero entries of ``x`` [B, in] only: an embedding bag (sum) over each row's
    nonzero columns of ``linear.weight``, weighted by their values (the card planes of an observation are
    mostly zeros). Equal to the dense product up to float summation order."""
    nz = x != 0
    k = max(int(nz.sum(dim=1).max()) if x.numel() else 1, 1)
    idx = torch.argsort(nz.to(torch.int8), dim=1, descending=True, stable=True)[:, :k]
    vals = torch.gather(x, 1, idx)   # 0 where a row has fewer than k nonzeros: adds nothing
    out = nn.functional.embedding_bag(idx, linear.weight.t(), per_sample_weights=vals, mode="sum")
    return out if linear.bias is None else out + linear.bias


class MaskedActorCritic(nn.Module):
    """The ``mlp`` architecture (see the module docstring).

    Args:
        obs_dim: observation size.
        num_actions: action-space size.
        hidden: sizes of the trunk's hidden layers.
        obs_scale: optional per-feature multipliers (length ``obs_dim``) applied first.
    """

    arch = "mlp"
    jax_forward: str | None = None
    """``"module:function"`` of the architecture's JAX forward (``fiveplay_env.agents.learned.jax.nets.forward`` calls it
    with the spec, the parameters, the observations and the masks); None: the generic ``mlp`` forward
    for ``mlp``, no JAX forward for another architecture. ``jax_static()``: its static facts (hashable values)."""

    def jax_static(self) -> dict[str, Any]:
        """Static facts the architecture's JAX forward reads (``NetSpec.static``); none for ``mlp``."""
        return {}

    def __init__(self, obs_dim: int, num_actions: int, hidden: tuple[int, ...] = (256, 256),
                 obs_scale: list[float] | None = None) -> None:
        super().__init__()
        self.obs_dim = int(obs_dim)
        self.num_actions = int(num_actions)
        self.hidden = tuple(int(h) for h in hidden)
        scale = torch.ones(self.obs_dim) if obs_scale is None else torch.as_tensor(obs_scale, dtype=torch.float32)
        if scale.shape != (self.obs_dim,):
            raise ValueError(f"obs_scale: expected {self.obs_dim} values, got shape {tuple(scale.shape)}")
        self.register_buffer("obs_scale", scale.clone())
        self.trunk = mlp([self.trunk_input_dim(), *self.hidden])
        self.policy_head = nn.Linear(self.hidden[-1], self.num_actions)
        self.value_head = nn.Linear(self.hidden[-1], 1)
        init_layers(self.trunk, math.sqrt(2))
        init_layers(self.policy_head, 0.01)
        init_layers(self.value_head, 1.0)

    sparse_input = False
    """Compute the trunk's first layer from the input's nonzero entries only (``sparse_linear``): the same
    function and weights (a checkpoint does not record it); a computation choice, measured slower than the
    dense product on a CPU (docs/training.md), so off unless ``TrainConfig.sparse_input`` asks for it."""

    def trunk_input_dim(self) -> int:
        return self.obs_dim

    def run_trunk(self, x: torch.Tensor) -> torch.Tensor:
        """The trunk on its input ``x`` (the first layer sparse with ``sparse_input``)."""
        if not self.sparse_input:
            return self.trunk(x)
        h = torch.relu(sparse_linear(x, self.trunk[0]))
        return self.trunk[2:](h) if len(self.trunk) > 2 else h

    def kwargs(self) -> dict[str, Any]:
        """The constructor arguments (saved in checkpoints)."""
        return {"obs_dim": self.obs_dim, "num_actions": self.num_actions, "hidden": list(self.hidden)}

    def _check(self, obs: torch.Tensor, mask: torch.Tensor) -> None:
        if obs.dim() != 2 or obs.shape[1] != self.obs_dim:
            raise ValueError(f"obs: expected shape [B, {self.obs_dim}], got {tuple(obs.shape)}")
        if mask.shape != (obs.shape[0], self.num_actions):
            raise ValueError(f"mask: expected shape [{obs.shape[0]}, {self.num_actions}], got {tuple(mask.shape)}")

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(masked logits [B, A], value [B])``."""
        self._check(obs, mask)
        return self.head(self.prepare(obs, mask), mask)

    def prepare(self, obs: torch.Tensor, mask: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
        """The parameter-free part of ``forward`` (input scaling, hand-made features): a dict of tensors
        with a leading batch axis, so that ``{k: v[idx]}`` is the preparation of the rows ``idx``.
        PPO computes it once per rollout and reuses it in every minibatch of every epoch; one
        preparation also serves several networks of the same architecture (the learner and its past
        snapshots). ``mask`` (the legal actions) is needed by architectures that score legal actions
        only; ``head`` must be given the same mask rows."""
        return {"x": obs * self.obs_scale}

    def head(self, prep: dict[str, torch.Tensor], mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The parameterised part of ``forward``: ``prepare``'s output and the mask -> (logits, value)."""
        h = self.run_trunk(prep["x"])
        return mask_logits(self.policy_head(h), mask), self.value_head(h).squeeze(-1)


# --- the architectures: ``mlp`` and the games' own (their kits' ``networks``) ------------------------------

class _Archs(Mapping[str, type]):
    """A read-only live view, architecture name -> network class: ``mlp`` and every kit's ``networks``
    (``fiveplay_env.agents.kit.AgentKit``; a game's classes imported on first use, its names listed without importing)."""

    def _paths(self) -> dict[str, str]:
        from fiveplay_env.agents import games
        from fiveplay_env import games as table

        out: dict[str, str] = {}
        for game in table.names():
            for name, path in games.kit(game).networks.items():
                if out.setdefault(name, path) != path:
                    raise ValueError(f"networks: architecture {name!r} is declared twice, as {out[name]} and {path}")
        return out

    def __getitem__(self, name: str) -> type:
        if name == "mlp":
            return MaskedActorCritic
        path = self._paths().get(name) if isinstance(name, str) else None
        if path is None:
            raise KeyError(name)
        from fiveplay_env.agents.kit import resolve

        return resolve(path)

    def __iter__(self) -> Iterator[str]:
        return iter(["mlp", *sorted(self._paths())])

    def __len__(self) -> int:
        return 1 + len(self._paths())

    def __repr__(self) -> str:
        return f"ARCHS({list(self)})"


ARCHS: Mapping[str, type] = _Archs()
"""Architecture name -> network class (``mlp`` and the games' own; see the module docstring)."""


def build_model(arch: str, kwargs: dict[str, Any], obs_scale: list[float] | None = None) -> MaskedActorCritic:
    """The network ``arch`` (one of ``ARCHS``) with constructor ``kwargs`` (as ``model.kwargs()`` gave)."""
    if arch not in ARCHS:
        raise ValueError(f"arch: expected one of {sorted(ARCHS)}, got {arch!r}")
    kw = dict(kwargs)
    if "hidden" in kw:
        kw["hidden"] = tuple(kw["hidden"])
    return ARCHS[arch](obs_scale=obs_scale, **kw)


def __getattr__(name: str) -> Any:
    """A network class that moved to its game (``Take5ActorCritic``: ``fiveplay_env.agents.take5.nets``), by its class name."""
    for arch in ARCHS:
        cls = ARCHS[arch]
        if cls.__name__ == name:
            return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
