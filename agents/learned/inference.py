"""Policies for play: the network of a checkpoint, loaded for inference (torch; no trainer, no registry).

    model, meta = load_policy("runs/train__take5__0__20260101-120000")   # a file or a run folder
    logits, value = model(obs, mask)

``load_policy`` reads the checkpoint (``fiveplay_env.agents.learned.checkpoint``: verified, weights-only), rebuilds
its network (``model_from_checkpoint``) on the device asked for (the CPU by default, whatever device
trained it: checkpoints hold CPU tensors), and caches the last one loaded by file, modification time,
size and device. ``meta`` holds what the checkpoint says about the policy: ``game``, ``config``,
``num_players``, ``obs_dim``, ``num_actions``, ``progress``, ``path``, ``train_config`` and ``card`` (the
model card of an exported policy, ``fiveplay_env.agents.learned.pretrained``).
"""
from __future__ import annotations

import os
from typing import Any

from fiveplay_env.core.errors import CheckpointError

_CACHE: dict[tuple[str, float, int, str], Any] = {}


def model_from_checkpoint(ckpt: dict[str, Any], device: str = "cpu") -> Any:
    """The policy network stored in a loaded checkpoint (``CheckpointError`` if it does not fit), in eval
    mode on ``device`` (``fiveplay_env.agents.learned.devices.resolve_device``)."""
    from fiveplay_env.agents.learned.devices import resolve_device
    from fiveplay_env.agents.learned.nets import build_model

    dev = resolve_device(device)
    m = ckpt["model"]
    try:
        model = build_model(m["arch"], m["kwargs"], m.get("obs_scale"))
        model.load_state_dict(m["state_dict"])
    except (KeyError, RuntimeError, ValueError, TypeError) as exc:
        raise CheckpointError(f"checkpoint {ckpt.get('path')}: the network does not fit its recorded shape: "
                              f"{type(exc).__name__}: {exc}") from exc
    model.eval()
    return model.to(dev)


def load_policy(path: str, device: str = "cpu") -> tuple[Any, dict[str, Any]]:
    """``(network, meta)`` from a checkpoint file or run folder (see the module docstring)."""
    from fiveplay_env.agents.learned.checkpoint import load_checkpoint, resolve_path

    file = resolve_path(path)
    try:
        st = os.stat(file)
        key = (os.path.abspath(file), st.st_mtime, st.st_size, str(device))
    except OSError:
        key = None
    if key is not None and key in _CACHE:
        return _CACHE[key]
    ckpt = load_checkpoint(path)
    model = model_from_checkpoint(ckpt, device)
    meta = {k: ckpt[k] for k in ("game", "config", "num_players", "obs_dim", "num_actions", "progress", "path")}
    meta["train_config"] = ckpt.get("train_config", {})
    meta["card"] = ckpt.get("card", {})  # model card of an exported policy (agents.learned.pretrained)
    if key is not None:
        _CACHE.clear()  # keep one: checkpoints are large and usually reloaded after they change
        _CACHE[key] = (model, meta)
    return model, meta

