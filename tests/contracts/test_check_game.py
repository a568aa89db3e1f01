"""``fiveplay_env.testing`` itself: ``check_game`` runs without pytest on a game defined outside the
package, a broken declaration is a ``ContractError`` naming the contract, the game and the config, and
bad arguments are clear ``ValueError``s."""
from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fiveplay_env import games, testing
from tests.toy_game import GAME

ROOT = Path(__file__).resolve().parents[2]


def test_check_game_needs_no_pytest_and_registers_a_new_game():
    code = ("import sys; sys.modules['pytest'] = None\n"  # any import of pytest now fails
            "from fiveplay_env import games\nfrom fiveplay_env.testing import check_game\n"
            "from tests.toy_game import GAME\nassert GAME.name not in games.names()\n"
            "results = check_game(GAME, configs={'two': {'num_players': 2}, 'four': {'num_players': 4}})\n"
            "assert GAME.name in games.names()\n"
            "print(len(results), sorted({r.label for r in results}), sorted(r.contract for r in results if r.skipped))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert out.returncode == 0, out.stderr[-3000:]
    n_game = sum(testing.CONTRACTS[c].scope == "game" for c in testing.contract_names())
    n_config = len(testing.contract_names()) - n_game
    assert out.stdout.splitlines()[-1] == (f"{n_game + 2 * n_config} ['default', 'four', 'two'] "
                                           "['batched_positions', 'batched_positions', 'batched_redeal', "
                                           "'batched_redeal', 'compact_observation', 'compact_observation', "
                                           "'jax_equals_reference', 'reward_range', "
                                           "'reward_range']")  # the toy game has no batched or JAX engine


@pytest.fixture
def broken():
    """Register a copy of the toy game under another name, with the given fields changed."""
    made = []

    def make(**changes):
        g = dataclasses.replace(GAME, name=f"toybroken{len(made)}", gym_id=None, **changes)
        made.append(g.name)
        return g
    yield make
    for name in made:
        games.unregister(name)


def test_a_broken_declaration_names_the_contract_the_game_and_the_config(broken):
    g = broken(reward_bounds=lambda config: (0.0, 0.5))  # a prize is worth 1 to K points
    with pytest.raises(testing.ContractError) as e:
        testing.check_game(g, configs={"pair": {"num_players": 2}})
    err = e.value
    assert isinstance(err, AssertionError)
    assert (err.contract, err.game, err.label) == ("reward_range", g.name, "pair")
    assert str(err).startswith(f"{g.name}: contract 'reward_range' failed for config 'pair' (")
    assert "outside reward_range (0.0, 0.5)" in str(err)
    g = broken(dynamics="sequential")  # the toy's env module has a parallel_env
    with pytest.raises(testing.ContractError, match="'dynamics' failed .*has a parallel_env"):
        testing.check_game(g)
    results = testing.check_game(g, contracts=["preset_labels", "records_round_trip"])
    assert [(r.contract, r.label, r.skipped) for r in results] == [
        ("preset_labels", "default", None), ("records_round_trip", "standard", None),
        ("records_round_trip", "three", None)]


def test_a_crash_in_a_game_is_a_contract_error_too(broken):
    def observe(config, state, player):
        raise RuntimeError("no observation today")
    g = broken(observe_state=observe)
    with pytest.raises(testing.ContractError, match="'determinization' failed .*RuntimeError: no observation"):
        testing.run_contract("determinization", g)


def test_bad_arguments_are_value_errors():
    with pytest.raises(ValueError, match="contract: expected one of .*'pettingzoo_api'"):
        testing.check_game(GAME, contracts=["no_such_contract"])
    with pytest.raises(ValueError, match="config: expected a preset of toybid"):
        testing.run_contract("records_round_trip", GAME, "no_such_preset")
    with pytest.raises(ValueError, match="config: expected a preset name, a dict of config fields"):
        testing.cases(GAME, [42])
    with pytest.raises(ValueError, match="num_players"):
        testing.cases(GAME, [{"num_players": 99}])
    with pytest.raises(ValueError, match="another game named 'toybid' is registered"):
        testing.check_game(dataclasses.replace(GAME, title="another"))
    with pytest.raises(ValueError, match="game: expected one of"):
        testing.check_game("no_such_game")
    with pytest.raises(ValueError, match="group: expected one of"):
        testing.contract_names("no_such_group")
