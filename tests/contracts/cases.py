"""The (game, config) cases the contract tests run: every game of the table with each of its presets
(the built-in games' presets cover their variants; a game with none runs its default config)."""
from __future__ import annotations

from typing import Any

from fiveplay_env import games


def cases() -> list[tuple[str, str, Any]]:
    out = []
    for name, g in sorted(games.table().items()):
        presets = dict(g.presets) or {"default": g.config_cls()}
        out += [(name, preset, cfg) for preset, cfg in sorted(presets.items())]
    return out


CASES = cases()
IDS = [f"{game}-{preset}" for game, preset, _ in CASES]
GAME_NAMES = sorted(games.table())
PARALLEL = [(game, preset, cfg) for game, preset, cfg in CASES if games.get(game).parallel]
PARALLEL_IDS = [f"{game}-{preset}" for game, preset, _ in PARALLEL]
