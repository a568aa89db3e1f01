"""What every game's definition declares holds (``fiveplay_env.testing``, group "facts"): ``dynamics``
matches the env module, every preset has a label, ``reward_range`` bounds the rewards of random games."""
from __future__ import annotations

import pytest

from tests.contracts.cases import params, run


@pytest.mark.parametrize("contract, game, preset, config", params("facts"))
def test_declared_fact(contract, game, preset, config):
    run(contract, game, preset, config)
