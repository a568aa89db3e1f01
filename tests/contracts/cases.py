"""The parameters of the contract tests: every game of the table with each of its presets (or its default
config), times each contract of ``fiveplay_env.testing`` that applies to it (a game-scope contract once
per game); the test ids read ``contract-game-preset``."""
from __future__ import annotations

import pytest

from fiveplay_env import games, testing


def params(group: str) -> list:
    out = []
    for game in games.names():
        for name in testing.contract_names(group):
            if testing.CONTRACTS[name].scope == "game":
                todo = [("game", None)]
            else:
                todo = testing.cases(game)
            out += [pytest.param(name, game, label, cfg, id=f"{name}-{game}-{label}") for label, cfg in todo
                    if testing.applies(name, game, cfg) is None]
    return out


def run(contract: str, game: str, label: str, config) -> None:
    """One contract on one config (``ContractError`` names them when it fails)."""
    result = testing.run_contract(contract, game, config, label=label)
    assert result.skipped is None, result.skipped
