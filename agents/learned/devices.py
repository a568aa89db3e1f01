"""Devices (torch): which one a name means, where a network is, CPU copies for checkpoints.

The engines, the opponents and the sampling stay on the CPU; the networks (learner and pool) and the
update run on the device (``resolve_device``). Checkpoints always hold CPU tensors (``cpu_state_dict``,
``to_cpu``) and are read with ``map_location="cpu"``, so a run trained on a GPU loads anywhere.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import torch

DEVICES = ("auto", "cpu", "cuda")


def resolve_device(device: str) -> torch.device:
    """``"auto"`` (CUDA when ``torch.cuda.is_available()``, else the CPU), ``"cpu"``, ``"cuda"`` or
    ``"cuda:K"``. ``ValueError`` for another name or for CUDA on a machine without a usable GPU."""
    name = str(device)
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cpu":
        return torch.device("cpu")
    if name == "cuda" or name.startswith("cuda:"):
        if not torch.cuda.is_available():
            build = "a CPU-only build of torch" if torch.version.cuda is None else f"torch built for CUDA {torch.version.cuda}"
            raise ValueError(f"device: expected a usable GPU for {name!r}, but torch.cuda.is_available() is False "
                             f"({build}); use --device cpu or auto")
        try:
            dev = torch.device(name)
        except RuntimeError as exc:
            raise ValueError(f"device: expected cuda or cuda:K, got {name!r}") from exc
        if dev.index is not None and dev.index >= torch.cuda.device_count():
            raise ValueError(f"device: expected a GPU index below {torch.cuda.device_count()}, got {name!r}")
        return dev
    raise ValueError(f"device: expected one of {list(DEVICES)} (or cuda:K), got {device!r}")


def model_device(model: Any) -> torch.device:
    """The device of a network's parameters (the CPU for anything else)."""
    if isinstance(model, torch.nn.Module):
        for p in model.parameters():
            return p.device
    return torch.device("cpu")


def to_cpu(value: Any) -> Any:
    """``value`` (nested dicts and lists) with every tensor copied to the CPU (CPU tensors as they are)."""
    if isinstance(value, torch.Tensor):
        return value.detach().to("cpu", copy=True) if value.device.type != "cpu" else value
    if isinstance(value, dict):
        return {k: to_cpu(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(to_cpu(v) for v in value)
    return value


def cpu_state_dict(module: torch.nn.Module) -> dict[str, torch.Tensor]:
    """``module.state_dict()`` with every tensor on the CPU: what checkpoints hold, whatever the device."""
    return {k: to_cpu(v) for k, v in module.state_dict().items()}


@contextmanager
def one_thread() -> Iterator[None]:
    """torch on one intra-op thread inside the block (the previous count restored after): a search's
    forward passes run inside one decision of one process, where a second thread spinning beside the other
    core's work costs far more than it gains at a search's batch sizes (measured: a 0.2 s decision of a
    batched search took 9 s with two threads on a loaded 2-core machine)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)
