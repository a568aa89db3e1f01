"""The compiled kernels and the shell they share (``fiveplay_env.core.kernel_engine``, ``core.schema``,
``core.kernel_rng``): the kernels' randomness is ``core.seeding``'s; each game's kernel takes its state in the
schema's order; the schema makes the docs table and refuses values out of bounds by name; ``step`` with
``active`` leaves waiting games exactly as they were; ``next_games`` moves slots on by the run's rule; and
``NUMBA_DISABLE_JIT=1`` runs the very same kernels as Python (how to debug a rule), equal to the reference."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fiveplay_env import games
from fiveplay_env.core import kernel_rng, seeding
from fiveplay_env.core.schema import Field, Schema
from fiveplay_env.vector import make_vec, random_actions

ROOT = Path(__file__).resolve().parents[2]
KERNEL_GAMES = ["take5", "five_alive"]


def test_kernel_randomness_is_core_seeding():
    rng = np.random.default_rng(0)
    keys = np.empty(256, np.uint64)
    out = np.empty(256, np.int64)
    for _ in range(400):
        seed, counter, n = int(rng.integers(0, 2**64, dtype=np.uint64)), int(rng.integers(0, 2**31)), int(rng.integers(1, 257))
        kernel_rng.permutation(np.uint64(seed), np.uint64(counter), n, keys, out)
        np.testing.assert_array_equal(out[:n], seeding.permutation(seed, counter, n))
        k = int(rng.integers(1, 1000))
        assert kernel_rng.below(np.uint64(seed), np.uint64(counter), k) == seeding.below(seed, counter, k)
        assert int(kernel_rng.derive(np.uint64(seed), np.int64(counter))) == seeding.derive(seed, counter)
        u = np.empty(n, np.float64)
        kernel_rng.uniforms(np.uint64(seed), np.uint64(counter), u)
        want = seeding.uniforms(seed, counter, n)
        np.testing.assert_array_equal(u, want)
        assert ((want >= 0) & (want < 1)).all()


@pytest.mark.parametrize("game", KERNEL_GAMES)
def test_each_kernel_takes_its_state_in_the_schemas_order(game):
    import importlib

    kernel = importlib.import_module(f"fiveplay_env.{game}.kernel")
    positions = importlib.import_module(f"fiveplay_env.{game}.positions")
    assert tuple(kernel.FIELDS) == positions.SCHEMA.names
    table = positions.SCHEMA.table()
    assert all(f"`{name}`" in table for name in positions.SCHEMA.names)


def test_the_schema_checks_forms_and_bounds_by_name():
    schema = Schema("toy", [Field("cur", "int8", (), 0, "n-1", "the acting seat"),
                            Field("hand", "uint8", ("n", 3), 0, 9, "cards of each kind"),
                            Field("rewards", "float32", ("n",), None, None, "rewards", output=True)])
    dims = {"n": 4}
    arrays = schema.allocate(5, dims)
    assert arrays["hand"].shape == (5, 4, 3) and arrays["cur"].dtype == np.int8
    schema.check_bounds(arrays, dims)
    arrays["cur"][2] = 4
    with pytest.raises(ValueError, match=r"^state\['arrays'\]\['cur'\]: game 2: expected values in 0\.\.3, got 4$"):
        schema.check_bounds(arrays, dims)
    arrays["cur"][2] = 0
    arrays["rewards"][1, 0] = np.nan
    with pytest.raises(ValueError, match=r"\['rewards'\]: game 1: expected values in any finite value"):
        schema.check_bounds(arrays, dims)
    bad = dict(arrays)
    bad["hand"] = arrays["hand"].astype(np.int64)
    with pytest.raises(ValueError, match=r"\['hand'\]: expected a uint8 array of shape \(5, 4, 3\)"):
        schema.check_form(bad, 5, dims)
    with pytest.raises(ValueError, match=r"expected the arrays \['cur', 'hand', 'rewards'\]"):
        schema.check_form({"cur": arrays["cur"]}, 5, dims)
    assert schema.bytes_per_game(dims) == 1 + 12 and schema.bytes_per_game(dims, outputs=True) == 1 + 12 + 16
    g = schema.gather(arrays, np.array([4, 4, 0]))
    assert g["hand"].shape == (3, 4, 3) and not g["rewards"].any()


@pytest.mark.parametrize("game", KERNEL_GAMES)
def test_waiting_games_keep_their_state_and_next_games_moves_slots_on(game):
    B = 6
    vec = make_vec(game, B, seed=3, num_players=4)
    engine = vec.engine
    rng = np.random.default_rng(1)
    for _ in range(5):
        engine.step(random_actions(engine.legal_action_mask, rng))
    before = engine.get_state()
    mask = engine.legal_action_mask.copy()
    active = np.array([True, False, True, False, False, True])
    actions = random_actions(mask, rng)
    actions[~active] = 10**6  # never read
    engine.step(actions, active=active)
    after = engine.get_state()
    for name, arr in after["arrays"].items():
        if name in ("rewards", "terminated"):
            assert not arr[~active].any()
        elif not engine.schema[name].output:
            np.testing.assert_array_equal(arr[~active], before["arrays"][name][~active], err_msg=name)
    np.testing.assert_array_equal(engine.legal_action_mask[~active], mask[~active])
    with pytest.raises(ValueError, match="active: expected a bool array of shape"):
        engine.step(actions, active=np.ones(B, np.int8))
    index = engine.game_index
    engine.next_games([1, 4])
    assert engine.game_index.tolist() == [x + (B if i in (1, 4) else 0) for i, x in enumerate(index.tolist())]
    for i in (1, 4):
        ref = games.get(game).new_engine(engine.config, seeding.derive(3, int(engine.game_index[i])))
        np.testing.assert_array_equal(engine.legal_action_mask[i], ref.legal_mask())


NO_JIT = """
import numpy as np
from fiveplay_env import testing
for game in ("take5", "five_alive"):
    label, config = testing.cases(game)[0]
    testing.run_contract("vector_equals_reference", game, config, label=label)
import numba
print(numba.config.DISABLE_JIT)
"""


@pytest.mark.slow
def test_the_kernels_run_as_python_with_numba_disable_jit():
    """The debugging path of docs/architecture.md: the same kernels as plain Python, still equal to the
    reference engine step by step."""
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", NO_JIT], cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().endswith("1")
