"""The torch networks of ``fiveplay_env.agents.learned.nets`` as pure JAX functions (forward only: the rollouts' policy).

    spec = NetSpec.of(model)                       # the architecture's static facts (hashable)
    params = params_of(model.state_dict())         # numpy arrays, layers' weights as [in, out]
    logits, value = forward(spec, params, obs, mask)   # obs float32 [B, D], mask bool [B, A]

``forward`` computes what ``model(obs, mask)`` computes (the same formulas, in float32: equal to about
1e-5, checked by ``tests/learning/test_jax_train.py``), so a JAX rollout samples from the very policy the
torch update then trains; the torch network stays the one implementation that is trained and saved.

| arch         | JAX forward                                                                           |
|--------------|---------------------------------------------------------------------------------------|
| ``mlp``      | ``obs * obs_scale`` through the trunk; linear policy and value heads; masked logits    |
| a game's own | the function its torch class names (``jax_forward = "module:function"``, e.g. Take 5's |
|              | ``fiveplay_env.agents.take5.jax_nets.forward``), called as ``forward`` is, with the static facts   |
|              | its class's ``jax_static()`` gives in ``spec.static``; it may build on ``linear``,     |
|              | ``trunk``, ``scan_add`` and ``first_k`` here                                          |
"""
from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

ILLEGAL_LOGIT = -1.0e9  # agents.learned.nets.ILLEGAL_LOGIT (not imported: that module imports torch)


@dataclasses.dataclass(frozen=True)
class NetSpec:
    """The static facts of a network (hashable: a jit static argument).

    ``arch``: its name (``fiveplay_env.agents.learned.nets.ARCHS``); ``layers``: the trunk's layer count;
    ``num_players``: the player count a game's network was built for (0: none); ``forward``: the
    architecture's JAX forward, ``"module:function"`` (None: ``mlp``); ``static``: its static facts,
    sorted ``(name, value)`` pairs (the torch network's ``jax_static()``)."""

    arch: str
    layers: int
    num_actions: int
    num_players: int = 0
    forward: str | None = None
    static: tuple[tuple[str, Any], ...] = ()

    @staticmethod
    def of(model: Any) -> "NetSpec":
        """The spec of a torch network of ``fiveplay_env.agents.learned.nets`` (``ValueError`` for an architecture
        without a JAX forward)."""
        arch = getattr(model, "arch", None)
        fwd = getattr(model, "jax_forward", None)
        if arch != "mlp" and not isinstance(fwd, str):
            from fiveplay_env.agents.learned.nets import ARCHS

            have = [a for a in ARCHS if a == "mlp" or ARCHS[a].jax_forward]
            raise ValueError(f"JAX network: expected an architecture with a JAX forward, one of {have}, got {arch!r}")
        static = tuple(sorted(model.jax_static().items())) if arch != "mlp" else ()
        n = int(getattr(model, "num_players", 0))
        return NetSpec(arch, len(model.hidden), int(model.num_actions), n, None if arch == "mlp" else fwd, static)


def params_of(state_dict: dict[str, Any]) -> dict[str, np.ndarray]:
    """A torch ``state_dict`` as JAX parameters: float32 numpy arrays, ``Linear`` weights transposed to
    [in, out] (``name.weight`` -> ``name.w``, ``name.bias`` -> ``name.b``), buffers as they are."""
    out: dict[str, np.ndarray] = {}
    for k, v in state_dict.items():
        a = v.detach().cpu().numpy() if hasattr(v, "detach") else np.asarray(v)
        if k.endswith(".weight"):
            out[k[:-7] + ".w"] = np.ascontiguousarray(a.T.astype(np.float32))
        elif k.endswith(".bias"):
            out[k[:-5] + ".b"] = a.astype(np.float32)
        else:
            out[k] = a.astype(np.float32)
    return out


def linear(p: dict[str, Any], name: str, x: Any) -> Any:
    """The torch ``nn.Linear`` called ``name`` of the parameters ``p`` applied to ``x``."""
    y = x @ p[name + ".w"]
    b = p.get(name + ".b")
    return y if b is None else y + b


def trunk(spec: NetSpec, p: dict[str, Any], x: Any) -> Any:
    """The trunk (``spec.layers`` linear layers, each followed by a ReLU) on its input ``x``."""
    for i in range(spec.layers):
        x = jax.nn.relu(linear(p, f"trunk.{2 * i}", x))
    return x


def forward(spec: NetSpec, p: dict[str, Any], obs: Any, mask: Any) -> tuple[Any, Any]:
    """``(masked logits float32 [B, A], value float32 [B])`` of the network ``spec`` with parameters ``p``
    (``params_of``) for observations ``obs`` [B, D] and legal masks ``mask`` [B, A] (bool)."""
    mask = mask.astype(bool)
    if spec.forward is not None:
        from fiveplay_env.agents.kit import resolve

        return resolve(spec.forward)(spec, p, obs, mask)
    h = trunk(spec, p, obs * p["obs_scale"])
    logits = linear(p, "policy_head", h)
    return jnp.where(mask, logits, ILLEGAL_LOGIT), linear(p, "value_head", h)[:, 0]


def scan_add(x: Any) -> Any:
    """Running sum along the last axis (an associative scan: XLA's CPU cumsum is quadratic in the length)."""
    return lax.associative_scan(jnp.add, x, axis=x.ndim - 1)


def first_k(flags: Any, k: int) -> Any:
    """int32 [..., k]: the indices of the set ``flags`` in ascending order, then the unset ones (as torch's
    stable descending argsort of the flags, cut to k)."""
    return jnp.argsort(~flags, axis=-1, stable=True)[..., :k].astype(jnp.int32)


def sample(logits: Any, key: Any) -> tuple[Any, Any]:
    """``(actions int32 [B], their log-probabilities float32 [B])``: Gumbel-max over masked logits."""
    g = jax.random.gumbel(key, logits.shape, jnp.float32)
    a = jnp.argmax(logits + g, axis=1).astype(jnp.int32)
    logp = jnp.take_along_axis(jax.nn.log_softmax(logits, axis=1), a[:, None], axis=1)[:, 0]
    return a, logp


__all__ = ["ILLEGAL_LOGIT", "NetSpec", "first_k", "forward", "linear", "params_of", "sample", "scan_add", "trunk"]
