"""Each of PettingZoo's own tests (``pettingzoo.test``) on both games, in exactly the form the README's
"PettingZoo tools" row states: as shipped where it passes as shipped, through the named wrapper where
the test steps unmasked random actions (which our envs refuse by contract), and not at all where the
test's module shape does not apply (``max_cycles_test``). The conventions suite
(``test_conventions.py``) checks render_test, performance_benchmark and state() in more detail."""
from __future__ import annotations

import importlib
import types
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, max_cycles_test, parallel_api_test, parallel_seed_test, render_test, seed_test

from fiveplay_env import five_alive_v0, take5_v0
from fiveplay_env.core.errors import IllegalActionError
from fiveplay_env.wrappers import IllegalActionPenalty, IllegalActionPenaltyParallel

pz_state = importlib.import_module("pettingzoo.test.state_test")  # the package re-exports a function of that name
perf_module = importlib.import_module("pettingzoo.test.performance_benchmark")

AEC = {
    "take5": lambda **kw: take5_v0.env(num_players=3, mode="round", **kw),
    "five_alive": lambda **kw: five_alive_v0.env(num_players=4, **kw),
    "five_alive_keep": lambda **kw: five_alive_v0.env(num_players=4, keep_eliminated=True, **kw),
}


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pettingzoo's generic advice (observations with zeros, ...)
        yield


@pytest.mark.parametrize("name", sorted(AEC))
def test_as_shipped_api_seed_render_and_performance_tests(name, monkeypatch, capsys):
    make = AEC[name]
    api_test(make(), num_cycles=200)
    seed_test(make, num_cycles=100)
    render_test(lambda render_mode=None: make(render_mode=render_mode))
    clock = iter(np.arange(0.0, 1e6, 0.01))  # performance_benchmark runs 5 s of (here: fake) wall clock
    monkeypatch.setattr(perf_module, "time", types.SimpleNamespace(time=lambda: float(next(clock))))
    perf_module.performance_benchmark(make())
    assert "Finished performance benchmark" in capsys.readouterr().out


def test_as_shipped_parallel_api_test():
    parallel_api_test(take5_v0.parallel_env(num_players=3, mode="round"), num_cycles=200)


def test_unmasked_tests_need_the_penalty_wrappers():
    """state_test and parallel_seed_test sample ``action_space.sample()`` without the mask: as shipped
    the env refuses the first illegal action (``IllegalActionError``); through the penalty wrappers
    (an illegal action ends the episode with a penalty) both pass."""
    with pytest.raises(IllegalActionError):
        parallel_seed_test(lambda: take5_v0.parallel_env(num_players=3), num_cycles=20)
    with pytest.raises(IllegalActionError):
        pz_state.state_test(take5_v0.env(num_players=3), take5_v0.parallel_env(num_players=3), 20)
    with pytest.raises(IllegalActionError):
        pz_state.test_state(five_alive_v0.env(num_players=4), 20)
    parallel_seed_test(lambda: IllegalActionPenaltyParallel(take5_v0.parallel_env(num_players=3)), num_cycles=50)
    pz_state.state_test(IllegalActionPenalty(take5_v0.env(num_players=3)), take5_v0.parallel_env(num_players=3), 20)
    for keep in (False, True):  # 5 Alive has no parallel env: the AEC parts of state_test
        fa = IllegalActionPenalty(five_alive_v0.env(num_players=4, keep_eliminated=keep))
        pz_state.test_state_space(fa)
        pz_state.test_state(fa, 20)


def test_max_cycles_test_does_not_apply():
    """max_cycles_test(mod) calls ``mod.parallel_env(max_cycles=4)`` and ``mod.env(max_cycles=4)``:
    Take 5 games always end and have no max_cycles (a ValueError names the key), 5 Alive has no
    parallel env."""
    with pytest.raises(ValueError, match="max_cycles"):
        max_cycles_test(take5_v0)
    with pytest.raises(AttributeError, match="parallel_env"):
        max_cycles_test(five_alive_v0)
