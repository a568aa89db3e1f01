"""Third audit, the JAX engines: an action is an integer in range or the documented penalty, eagerly and
under jit alike; nothing wrapped, truncated or coerced (the audit's reproducers)."""
from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from fiveplay_env.core.jax_vec import action_input  # noqa: E402


def _envs():
    from fiveplay_env.five_alive.jax_engine import JaxEnv as FiveAliveJax
    from fiveplay_env.take5.jax_engine import JaxEnv as Take5Jax

    return [Take5Jax(num_players=3, mode="round", chance="reference", observation="none"),
            FiveAliveJax(num_players=3, chance="reference", observation="none")]


@pytest.fixture(scope="module", params=[0, 1], ids=["take5", "five_alive"])
def env(request):
    return _envs()[request.param]


@pytest.fixture(scope="module")
def start(env):
    return env.init_seeded(jnp.array([0, 7], jnp.uint32))


@pytest.fixture(scope="module")
def jstep(env):
    return jax.jit(lambda s, a: env.step(s, a, None))


def _legal(state):
    return int(np.flatnonzero(np.asarray(state.legal_action_mask))[0])


def _penalized(env, after):
    return bool(after.terminated) and float(np.asarray(after.rewards).min()) == env.illegal_action_penalty


def test_a_legal_action_plays_the_same_eagerly_and_under_jit(env, start, jstep):
    a = _legal(start)
    eager = env.step(start, np.int64(a), None)
    assert not eager.terminated and int(eager._step_count) == 1
    for action in (a, np.int32(a), np.uint8(a), jnp.int32(a), np.array(a)):  # (the host check, as step makes it)
        got, ok = action_input(action, env.num_actions)
        assert bool(ok) and int(got) == a
    assert np.array_equal(np.asarray(jstep(start, jnp.int32(a)).legal_action_mask),
                          np.asarray(env.step(start, a, None).legal_action_mask))


def test_an_integer_beyond_the_range_is_the_penalty_not_a_wrap(env, start, jstep):
    """``step(s, np.int64(2**32 + a))`` played ``a`` (an int32 wrap)."""
    a = _legal(start)
    assert _penalized(env, env.step(start, np.int64(2**32 + a), None))  # the reproducer, eagerly
    for big in (2**32 + a, np.uint64(2**32 + a), 2**100, -1, np.int64(-(2**32) + a), env.num_actions,
                np.uint32(2**32 - 1)):
        got, ok = action_input(big, env.num_actions)
        assert not bool(ok) and int(got) == 0, big
    assert _penalized(env, jstep(start, jnp.uint32(2**32 - 1)))  # unsigned: compared unsigned, no wrap to -1
    assert _penalized(env, jstep(start, jnp.int32(-1)))


@pytest.mark.parametrize("bad", [0.7, 22.0, True, False, "22", None, [1], np.float32(3.0), np.bool_(True),
                                 np.array([1, 2]), np.array(1.5), jnp.float32(1.0), jnp.bool_(True)])
def test_a_non_integer_action_raises_eagerly(env, start, bad):
    """Eagerly ``"22"`` played card 22 and ``True`` action 1; ``a + 0.7`` played ``a``."""
    with pytest.raises(ValueError, match="action: expected"):
        env.step(start, bad, None)


def test_a_non_integer_action_is_the_penalty_under_jit(env, start, jstep):
    a = _legal(start)
    for bad in (jnp.float32(a + 0.7), jnp.float32(a), jnp.float32(np.nan), jnp.bool_(True)):
        assert _penalized(env, jstep(start, bad)), bad
    # vmap too: one float column, every game penalized
    states = jax.tree_util.tree_map(lambda x: jnp.stack([x, x]), start)
    out = jax.vmap(lambda s, b: env.step(s, b, None))(states, jnp.array([a, a], jnp.float32))
    assert np.asarray(out.terminated).all()


def test_action_input_under_x64_catches_a_64_bit_value():
    """Under jit JAX converts a 64-bit argument to int32 before the engine sees it unless x64 is on;
    with x64 on, the engine's own check sees the value and gives the penalty."""
    import subprocess
    import sys

    code = ("import jax; jax.config.update('jax_enable_x64', True); import jax.numpy as jnp, numpy as np;"
            "from fiveplay_env.core.jax_vec import action_input;"
            "f = jax.jit(lambda a: action_input(a, 104));"
            "a, ok = f(np.int64(2**32 + 5)); assert not bool(ok) and int(a) == 0, (a, ok);"
            "a, ok = f(np.int64(5)); assert bool(ok) and int(a) == 5; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and "ok" in out.stdout, out.stderr[-2000:]


def test_action_input_table():
    for v, ok in ((0, True), (103, True), (104, False), (-1, False), (2**64, False), (np.int8(-3), False)):
        a, good = action_input(v, 104)
        assert bool(good) is ok and (int(a) == v if ok else int(a) == 0)
