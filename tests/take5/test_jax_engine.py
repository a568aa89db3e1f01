"""The Take 5 JAX engine == the reference engine at every step, for every config family; and its contracts.

Each replay case runs a batch of JAX games (``chance="reference"``: the reference's deals, computed in
JAX from the same seeds) next to reference games and compares at every step the acting player, the
mask, the float observation of the acting player (and every 7th step every player's), the compact
observation (decoded exactly, and byte for byte the numpy batched engine's encoding), rewards,
termination, scores, round penalties and rounds (``tests/jax_replay.py``). The configs are few but
each combines several options, since every config is one compile (shared by all tests through
``jax_replay.jitted``). Also: no retracing per step, determinism by key, no hidden-information leak,
Pgx's own ``auto_reset`` on the env, ``step_autoreset``, illegal actions, and ``make_vec(backend="jax")``
playing the numpy batched engine's very games.
"""
from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from fiveplay_env.core import jax_seeding as js  # noqa: E402
from fiveplay_env.take5 import compact  # noqa: E402
from fiveplay_env.take5 import engine as eng  # noqa: E402
from fiveplay_env.take5 import jax_engine as je  # noqa: E402
from fiveplay_env.take5.config import Take5Config  # noqa: E402
from fiveplay_env.take5.observation import observe  # noqa: E402
from fiveplay_env.take5.state import NUM_ACTIONS, OVER, ROW_CHOICE  # noqa: E402
from tests.jax_replay import COMPILE_FAST, TRACES, JaxReplay, jitted  # noqa: E402


class Replay(JaxReplay):
    engine = eng
    observe = staticmethod(observe)
    OVER = OVER

    def __init__(self, *args, **kw) -> None:
        super().__init__(*args, **kw)
        self.row_choices = 0
        self.layout = None if self.cfg.draft else compact.layout(self.cfg.num_players, self.cfg.end_score)

    def compare(self, i, s, st) -> None:
        for name, ref in (("scores", s.scores), ("round_pen", s.round_pen)):
            if getattr(st, name)[i].tolist() != ref:
                self.fail(i, name, getattr(st, name)[i].tolist(), ref)
        if st.round[i] != s.round or st.trick[i] != s.trick or st.phase[i] != s.phase:
            self.fail(i, "round/trick/phase", (st.round[i], st.trick[i], st.phase[i]), (s.round, s.trick, s.phase))
        self.row_choices += s.phase == ROW_CHOICE

    def check_extra(self, st) -> None:
        if self.layout is None:
            return
        c = np.asarray(self.fns["compact"](self.state, self.state.current_player))
        assert c.dtype == np.uint8 and c.shape == (self.batch, self.layout.size)
        dec = self.layout.decode(c)
        for i, s in enumerate(self.refs):
            ref = observe(self.cfg, s, s.current)
            if not np.array_equal(dec[i].view(np.uint32), ref.view(np.uint32)):
                self.fail(i, "decoded compact observation", np.flatnonzero(dec[i] != ref)[:12], "equal")

    def compare_outcome(self, i, s) -> None:
        got = np.asarray(self.state.scores[i]).tolist()
        if got != s.scores:
            self.fail(i, "final scores", got, s.scores)
        if int(self.state.current_player[i]) != -1 or not bool(np.asarray(self.state.legal_action_mask[i]).all()):
            self.fail(i, "terminal current_player / mask", int(self.state.current_player[i]), "-1, all True")


# (id, config, batch, games): every option at least once; each config is one compile
CASES = [
    ("n4-standard", Take5Config(num_players=4), 6, 6),
    ("n2-exclusive12", Take5Config(num_players=2, end_score=12, end_inclusive=False), 8, 12),
    ("n10-auto-rounds2", Take5Config(num_players=10, row_pick="min_bullheads", mode="rounds:2"), 4, 4),
    ("n3-draft-rounds2", Take5Config(num_players=3, professional=True, draft=True, mode="rounds:2"), 6, 6),
    ("n6-pro-auto-round", Take5Config(num_players=6, professional=True, row_pick="min_bullheads", mode="round",
                                      end_score=20), 8, 10),
]
_ENVS: dict[str, je.JaxEnv] = {}


def _env(cid: str, cfg: Take5Config) -> je.JaxEnv:
    if cid not in _ENVS:
        _ENVS[cid] = je.JaxEnv(cfg, chance="reference")
    return _ENVS[cid]


@pytest.mark.parametrize("cid, cfg, batch, games", CASES, ids=[c[0] for c in CASES])
def test_jax_engine_equals_reference_at_every_step(cid, cfg, batch, games):
    rep = Replay(_env(cid, cfg), batch, base=100 + len(cid))
    rep.run(games, rng_seed=len(cid))
    if cfg.row_pick == "player":
        assert rep.row_choices > 0, "no row choice was played: the case does not test it"
    # one trace per function for the whole run: no retracing per step
    counts = TRACES[rep.env]
    assert counts["step"] == 1 and counts["init"] == 1 and counts["observe_all"] == 1, counts


def test_compact_bytes_equal_the_numpy_batched_encoder():
    """The same games in the numpy batched engine encode to the very same compact bytes."""
    from fiveplay_env.take5.batched import BatchedTake5
    from fiveplay_env.vector import random_actions

    cid, cfg, *_ = CASES[0]
    env = _env(cid, cfg)
    fns = jitted(env)
    B = 6
    bt = BatchedTake5(cfg, B, seed=7)
    state = fns["init"](jnp.asarray(js.from_uint64(bt.seeds)))
    rng = np.random.default_rng(0)
    for _ in range(60):
        c = np.asarray(fns["compact"](state, state.current_player))
        np.testing.assert_array_equal(c, bt.observe_compact())
        a = random_actions(bt.legal_action_mask, rng)
        bt.step(a)
        state = fns["step"](state, jnp.asarray(a, jnp.int32))
        assert not bt.terminated.any()  # 60 steps: no game of 4 players is over yet


def test_pgx_auto_reset_and_random_play_run_on_the_env():
    """Pgx's own helpers on the env: ``pgx.experimental.auto_reset`` and ``act_randomly`` under vmap and
    ``lax.scan``, as Pgx's examples use them; every game ends with the reference's total of bull heads."""
    pgx = pytest.importorskip("pgx")
    from pgx.experimental import act_randomly, auto_reset

    env = je.JaxEnv(Take5Config(num_players=3, mode="round"), chance="reference")
    B = 8
    step = jax.vmap(auto_reset(env.step, env.init))

    def body(carry, _):
        state, key, ret = carry
        key, k1, k2 = jax.random.split(key, 3)
        action = act_randomly(k1, state.legal_action_mask)
        state = step(state, action, jax.random.split(k2, B))
        ret = ret + state.rewards
        done = state.terminated
        return (state, key, jnp.where(done[:, None], 0.0, ret)), (done, (ret * done[:, None]).sum(axis=1))

    state = jax.jit(jax.vmap(env.init), compiler_options=COMPILE_FAST)(jax.random.split(jax.random.key(0), B))
    assert isinstance(state.legal_action_mask, jax.Array) and state.observation.shape == (B, env.observation_size)
    run = jax.jit(lambda c: jax.lax.scan(body, c, None, length=70), compiler_options=COMPILE_FAST)
    (state, _, _), (done, totals) = run((state, jax.random.key(1), jnp.zeros((B, 3))))
    done, totals = np.asarray(done), np.asarray(totals)
    assert done.sum() >= B  # a round of 3 players is 30 decisions and a few row choices
    # a round hands out every bull head of the cards played and left in the rows, never more than 171
    assert (totals[done] < 0).all() and (totals[done] >= -171).all()
    assert env.num_actions == NUM_ACTIONS and env.observation_shape == (env.observation_size,)
    assert env.id == "take5" and env.num_players == 3 and isinstance(env.version, str)


def test_keys_determine_the_games_and_step_autoreset_is_same_step():
    """``chance="jax"``: the same keys give the same games, different keys different deals, no seed stays in
    the state; ``step_autoreset`` replaces a finished game in the same step by a freshly dealt one."""
    env = je.JaxEnv(Take5Config(num_players=2, mode="round"))
    B = 16
    init = jax.jit(jax.vmap(env.init), compiler_options=COMPILE_FAST)

    def play(state, key):  # one jitted call per step: sampling and stepping (eager ops would each compile)
        key, k1, k2 = jax.random.split(key, 3)
        return jax.vmap(env.step_autoreset)(state, je.random_actions(k1, state.legal_action_mask),
                                            jax.random.split(k2, B)), key

    step = jax.jit(play, compiler_options=COMPILE_FAST)
    keys = jax.random.split(jax.random.key(3), B)
    a, b = init(keys), init(keys)
    assert all(np.array_equal(x, y) for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)))
    assert len({h.tobytes() for h in np.asarray(a.loc)}) == B  # different keys, different deals
    assert not np.asarray(a.seed).any()  # no seed (so no future deal) kept in the state
    runs = []
    for _ in range(2):  # the same keys twice: the same trajectory
        state, key, ended, trace = a, jax.random.key(5), 0, []
        for _ in range(45):
            state, key = step(state, key)
            term = np.asarray(state.terminated)
            ended += term.sum()
            trace.append(np.asarray(state.rewards))
            # a finished game's slot already holds a new game: a full hand of 10 to play, tricks at 0
            if term.any():
                assert (np.asarray(state.trick)[term] == 0).all() and (np.asarray(state.phase)[term] == 1).all()
                hand = np.asarray(state.loc)[term] == np.asarray(state.current_player)[term][:, None]
                assert (hand.sum(axis=1) == 10).all()
        assert ended >= B  # 20 card plays and at most 10 row choices make a round of 2 players
        runs.append(np.stack(trace))
    np.testing.assert_array_equal(runs[0], runs[1])


def test_illegal_action_ends_the_game_with_the_penalty_and_terminal_states_stay():
    cid, cfg, batch, _ = CASES[1]  # its compiled functions serve (batch 8): no compile of its own
    env = _env(cid, cfg)
    assert env.illegal_action_penalty == -1.0
    fns = jitted(env)
    state = fns["init"](jnp.asarray(js.from_uint64(np.arange(batch, dtype=np.uint64))))
    mask = np.asarray(state.legal_action_mask)
    bad = np.array([int(np.flatnonzero(~m)[0]) for m in mask], np.int32)  # cards not in the hand
    bad[1] = NUM_ACTIONS + 3  # out of range
    bad[2] = -1
    after = fns["step"](state, jnp.asarray(bad))
    assert np.asarray(after.terminated).all()
    expected = np.zeros((batch, 2), np.float32)
    expected[np.arange(batch), np.asarray(state.current_player)] = -1.0
    np.testing.assert_array_equal(np.asarray(after.rewards), expected)
    again = fns["step"](after, jnp.zeros(batch, jnp.int32))  # Pgx: a finished game does not move
    assert np.asarray(again.terminated).all() and not np.asarray(again.rewards).any()
    np.testing.assert_array_equal(np.asarray(again.loc), np.asarray(after.loc))


def _jax_state_of(env: je.JaxEnv, s) -> je.State:
    """A JAX state holding the reference state ``s`` (a re-dealt world included): every card's place."""
    n = s.num_players
    loc = np.full(104, je.OUT, np.int8)
    loc[:env.config.deck_size] = je.ASIDE
    for p in range(n):
        loc[s.hand(p)] = p
        if s.pending[p] >= 0:
            loc[s.pending[p]] = je.PENDING
        loc[s.taken[p]] = je.SEEN
    for row in s.rows:
        loc[row] = je.SEEN
    for c, _ in s.queue:
        loc[c] = je.QUEUE
    loc[np.flatnonzero(s.pool[:104])] = je.POOL
    rows = np.zeros((4, 5), np.int8)
    rlen, rbull, rlast = np.zeros(4, np.int8), np.zeros(4, np.int8), np.full(4, -1, np.int8)
    for r, row in enumerate(s.rows):
        rows[r, :len(row)] = row
        rlen[r], rbull[r], rlast[r] = len(row), sum(eng.BULL[c] for c in row), row[-1]
    pending = np.array([c for c in s.pending], np.int8)
    if s.queue:  # a row choice: the trick's cards are still each seat's choice
        for c, p in s.queue:
            pending[p] = c
    i8, i32 = np.int8, np.int32
    return je.State(current_player=i32(s.current), observation=np.zeros(env.observation_shape, np.float32),
                    legal_action_mask=np.zeros(NUM_ACTIONS, bool), rewards=np.zeros(n, np.float32),
                    terminated=np.bool_(False), truncated=np.bool_(False), _step_count=i32(0), loc=loc, rows=rows,
                    rlen=rlen, rbull=rbull, rlast=rlast, pending=pending, scores=np.array(s.scores, i32),
                    round_pen=np.array(s.round_pen, i32), phase=i8(s.phase), trick=i8(s.trick), round=i32(s.round),
                    picks=i32(0), seed=js.from_uint64(s.seed), counter=i32(s.counter))


@pytest.mark.parametrize("cid", ["n4-standard", "n3-draft-rounds2"])
def test_observe_has_no_hidden_information_leak(cid):
    """Re-dealing what a player cannot see (other hands, unrevealed choices, set-aside cards) leaves the
    JAX observation of that player unchanged, and it equals the reference's on the re-dealt world too."""
    cfg, batch = next((c[1], c[2]) for c in CASES if c[0] == cid)
    env = _env(cid, cfg)
    obs_all = jitted(env)["observe_all"]
    rng = np.random.default_rng(4)
    s = eng.new_game(cfg, seed=9)
    checked = changed = 0
    for t in range(3 * cfg.num_players * 10 + 20):
        if s.phase == OVER:
            break
        if t % 3 == 0:
            worlds = [s] + [eng.sample_world(cfg, s, p, rng) for p in range(cfg.num_players)]
            states = [_jax_state_of(env, w) for w in worlds]
            states += [states[0]] * (batch - len(states))  # the replay's batch size: its compiled function
            obs = np.asarray(obs_all(jax.tree_util.tree_map(lambda *x: jnp.asarray(np.stack(x)), *states)))
            for p in range(cfg.num_players):
                np.testing.assert_array_equal(obs[0, p], observe(cfg, s, p))
                np.testing.assert_array_equal(obs[1 + p, p], obs[0, p])  # p's view of p's re-dealt world
                np.testing.assert_array_equal(obs[1 + p, p], observe(cfg, worlds[1 + p], p))
                changed += any(worlds[1 + p].hand(q) != s.hand(q) for q in range(cfg.num_players) if q != p)
                checked += 1
        eng.step(cfg, s, int(rng.choice(np.flatnonzero(eng.legal_mask(s)))))
    assert checked > 20
    if not cfg.draft:
        assert changed > 10  # hidden cards really moved


def test_make_vec_jax_backend_plays_the_numpy_batched_games():
    from fiveplay_env.vector import make_vec, random_actions

    kw = dict(num_players=2, mode="round")
    a, b = make_vec("take5", 5, seed=3, **kw), make_vec("take5", 5, seed=3, backend="jax", compiler_options=COMPILE_FAST, **kw)
    oa, ma, pa = a.reset()
    ob, mb, pb = b.reset()
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(50):
        np.testing.assert_array_equal(oa, ob)
        np.testing.assert_array_equal(ma, mb)
        np.testing.assert_array_equal(pa, pb)
        acts = random_actions(ma, rng)
        oa, ma, pa, ra, ta, ia = a.step(acts)
        ob, mb, pb, rb, tb, ib = b.step(acts)
        np.testing.assert_array_equal(ra, rb)
        np.testing.assert_array_equal(ta, tb)
        for k in ("scores", "round_penalty", "round", "seed"):
            np.testing.assert_array_equal(ia[k], ib[k], err_msg=k)
        np.testing.assert_array_equal(ia["final_scores"][ta], ib["final_scores"][tb])  # meaningful where terminated
        finished += int(ta.sum())
    assert finished >= 5  # autoreset covered: the new games are the batched engine's too
    eb = b.engine
    assert mb.dtype == np.int8 and ob.dtype == np.float32 and eb.bytes_per_game() > 0
    np.testing.assert_array_equal(eb.observe_compact(), a.engine.observe_compact())
    from fiveplay_env.core.errors import IllegalActionError
    with pytest.raises(IllegalActionError):
        b.step(np.full(5, 104))  # a row pick where cards are to be played
    with pytest.raises(ValueError, match="shape"):
        b.step(np.zeros(4, np.int64))
    torch = pytest.importorskip("torch")
    t = eb.to_torch(eb.jax_state.rewards)
    assert isinstance(t, torch.Tensor) and tuple(t.shape) == (5, 2)


def test_bad_settings_are_clear_errors():
    with pytest.raises(ValueError, match="num_players"):
        je.JaxEnv(num_players=11)
    with pytest.raises(ValueError, match="chance"):
        je.JaxEnv(chance="numpy")
    with pytest.raises(ValueError, match="observation"):
        je.JaxEnv(num_players=3, professional=True, draft=True, observation="compact")
    with pytest.raises(ValueError, match="init_seeded"):
        je.JaxEnv().init_seeded(jnp.zeros(2, jnp.uint32))
    with pytest.raises(ValueError, match="key"):
        je.JaxEnv().step(None, 0)  # chance="jax" needs a key to deal the next rounds


def test_make_vec_backend_errors_name_the_extra_and_the_games(monkeypatch):
    import importlib.util

    from fiveplay_env import vector

    with pytest.raises(ValueError, match="backend: expected one of"):
        vector.make_vec("take5", 2, backend="torch")
    have = sorted(g for g, f in vector.JAX_REGISTRY.items() if f and importlib.util.find_spec(f.split(":")[0]))
    assert "take5" in have
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "jax" else real(name, *a))
    with pytest.raises(ImportError, match=r"pip install -e '\.\[jax\]'"):
        vector.make_vec("take5", 2, backend="jax")
