"""The environment contract, for every game of the table and each of its presets
(``fiveplay_env.testing``, group "env"): PettingZoo's own API, seed and render tests, spaces created once
and sized from the definition, only the acting agent has a mask, illegal actions raise and change
nothing, ``reset(seed)`` reproduces a game, episodes end, ``make`` by name."""
from __future__ import annotations

import pytest

from fiveplay_env import make
from tests.contracts.cases import params, run


@pytest.mark.parametrize("contract, game, preset, config", params("env"))
def test_env_contract(contract, game, preset, config):
    run(contract, game, preset, config)


def test_make_refuses_an_unknown_game():
    with pytest.raises(ValueError, match="game"):
        make("no_such_game")
