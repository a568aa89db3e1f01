"""Client-library tests run their small networks on one torch thread: on a shared 2-core machine,
torch's thread pool on tiny layers costs far more than it gives (10x slower MaskablePPO updates)."""
from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _one_torch_thread() -> Iterator[None]:
    try:
        import torch
    except ImportError:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)
