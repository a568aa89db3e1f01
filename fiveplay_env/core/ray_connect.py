"""Joining Ray, once for every part of the project that runs work on it (the tournament's ``--ray``, expert
iteration's Ray workers). Ray is imported only when a caller connects (the ``distributed`` extra)."""
from __future__ import annotations

import os
from typing import Any


def connect(address: str | None, num_cpus: int | None = None, *, needs: str = "--ray") -> bool:
    """Connect to Ray unless this process already is; returns whether this call connected (then the caller
    shuts it down). ``address``: None, ``""`` or ``"local"`` (start a local instance, or join the one
    ``RAY_ADDRESS`` names; ``num_cpus`` sizes a new one), ``"auto"`` (the cluster this node belongs to),
    ``"ray://host:port"`` or a GCS ``host:port``. ``needs`` names the feature in the error without Ray."""
    try:
        import ray
    except ImportError as e:  # pragma: no cover - depends on the install
        raise ValueError(f"ray: {needs} needs Ray; install the 'distributed' extra "
                         "(pip install -e '.[distributed]')") from e
    if ray.is_initialized():
        return False
    kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": True, "configure_logging": False}
    try:
        if address in (None, "", "local"):
            if num_cpus is not None and not os.environ.get("RAY_ADDRESS"):
                kwargs["num_cpus"] = num_cpus
            ray.init(**kwargs)
        else:
            ray.init(address=address, **kwargs)
    except (ConnectionError, RuntimeError) as e:
        raise ValueError(f"ray: expected a running Ray cluster at {address!r} ('auto': this node's cluster, started "
                         f"with `ray start`), could not connect: {e}") from e
    return True


__all__ = ["connect"]
