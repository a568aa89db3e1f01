"""A compact observation (``GameDef.compact``) decoded by torch, on the network's device.

``CompactDecoder(layout)(c)``: uint8 [B, layout.size] -> float32 [B, obs_size], equal bit for bit to the
float observation. A layout of the packed form (Take 5's ``fiveplay_env.take5.compact``: ``planes``
0/1 planes packed as ``bytes_per_card`` bytes per card in the first ``card_bytes`` bytes, then one
little-endian uint16 code per float column, ``value = float32((code / tail_div) * tail_mul)``) is
decoded on the device with the numpy decoder's arithmetic (bits unpacked, codes turned into float64
and rounded to float32); any other layout through its own ``decode`` (numpy, on the CPU), then moved.
The trainer (``TrainConfig.compact_obs``) keeps its rollouts in this form (21x smaller at 4 players)
and decodes once per step for the networks and once per rollout for the update.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import torch

PACKED = ("planes", "bytes_per_card", "card_bytes", "tail_div", "tail_mul")
"""The attributes of a layout of the packed form (decoded on the device)."""


class CompactDecoder:
    """A torch decoder for one compact layout; ``to(device)`` moves its tables."""

    def __init__(self, layout: Any, device: torch.device | str = "cpu") -> None:
        self.layout = layout
        self.device = torch.device(device)
        self.packed = all(hasattr(layout, a) for a in PACKED)
        if self.packed:
            self._shifts = torch.arange(8, dtype=torch.uint8, device=self.device)
            self._div = torch.as_tensor(layout.tail_div, dtype=torch.float64, device=self.device)
            self._mul = torch.as_tensor(layout.tail_mul, dtype=torch.float64, device=self.device)

    def to(self, device: torch.device | str) -> "CompactDecoder":
        return CompactDecoder(self.layout, device)

    def __call__(self, c: torch.Tensor) -> torch.Tensor:
        lay = self.layout
        if c.dtype != torch.uint8 or c.dim() != 2 or c.shape[1] != lay.size:
            raise ValueError(f"compact: expected uint8 [B, {lay.size}], got {c.dtype} {tuple(c.shape)}")
        if not self.packed:
            out = np.asarray(lay.decode(c.cpu().numpy()), np.float32)
            return torch.from_numpy(out).to(self.device)
        B = c.shape[0]
        P = len(lay.planes)
        cards = c[:, :lay.card_bytes].reshape(B, -1, lay.bytes_per_card)              # [B, cards, nb]
        bits = (cards[..., None] >> self._shifts) & 1                                    # [B, cards, nb, 8]
        planes = bits.reshape(B, cards.shape[1], -1)[:, :, :P].transpose(1, 2).reshape(B, -1)
        raw = c[:, lay.card_bytes:].reshape(B, -1, 2).to(torch.int32)
        codes = (raw[..., 0] + raw[..., 1] * 256).to(torch.float64)
        tail = ((codes / self._div) * self._mul).to(torch.float32)
        return torch.cat([planes.to(torch.float32), tail], dim=1)
