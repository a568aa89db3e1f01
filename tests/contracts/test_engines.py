"""The engine contract, for every game of the table (``fiveplay_env.testing``, group "engine"): the vector
API (``make_vec``, with the game's batched engine where it has one, the reference loop otherwise) equals
the reference engine at every step; records replay exactly and refuse an edited action; determinizations
keep what the player sees; a declared compact observation decodes to the float one."""
from __future__ import annotations

import pytest

from tests.contracts.cases import params, run


@pytest.mark.parametrize("contract, game, preset, config", params("engine"))
def test_engine_contract(contract, game, preset, config):
    run(contract, game, preset, config)
