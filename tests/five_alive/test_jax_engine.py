"""The 5 Alive JAX engine == the reference engine at every step, for every config family; and its contracts.

Each replay case runs a batch of JAX games (``chance="reference"``: the reference's shuffles, computed in
JAX from the same seeds) next to reference games and compares at every step the acting player, the mask,
the acting player's observation (and every 3rd step every player's), rewards, termination and
truncation, and the whole game state: hands, the draw pile in drawing order, the discard pile, its top
card, T, the direction, the phase, lives, survivors, results, the bomber, rounds, reshuffles, the event
counter and the decision count (``tests/jax_replay.py``).

Compile cost: the replay cases play on ``jax_engine._OptionsEnv``, the engine with its rule options and
deck as data instead of constants (the same rule code), so one compile per player count serves every
config of that count (4 players here, every variant; ``_opt_fns``: shared by every test of the module;
the trace counts prove that nothing retraced per step or per config). The engine with constant options
(what users run) is compiled twice: for ``make_vec(backend="jax")``, checked equal to the numpy batched
engine's very games (``test_make_vec_jax_backend_plays_the_numpy_batched_games``, truncations
included), and for Pgx's own helpers (``test_pgx_auto_reset_and_random_play_run_on_the_env``, which also
checks determinism by key).
"""
from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from fiveplay_env.core import jax_seeding as js  # noqa: E402
from fiveplay_env.core import seeding  # noqa: E402
from fiveplay_env.five_alive import engine as eng  # noqa: E402
from fiveplay_env.five_alive import jax_engine as je  # noqa: E402
from fiveplay_env.five_alive.config import KIND_KEYS, FiveAliveConfig  # noqa: E402
from fiveplay_env.five_alive.observation import observe  # noqa: E402
from fiveplay_env.five_alive.state import BOMB_ANSWER, NUM_ACTIONS, OVER  # noqa: E402
from tests.jax_replay import COMPILE_FAST, JaxReplay  # noqa: E402

WIDTH = 120  # the options env's deck slots: every deck of the cases below fits

_OPT: dict[int, dict] = {}
_TRACES: dict[int, dict[str, int]] = {}


def _opt_fns(n: int) -> dict:
    """The jitted batched functions of the options env of ``n`` players (``vec``: the option vector of a
    config, an argument, so one compile serves every config); traces counted in ``_TRACES[n]``."""
    if n in _OPT:
        return _OPT[n]
    opt = je._OptionsEnv(n, WIDTH)
    counts = _TRACES.setdefault(n, {})

    def counted(name, fn, in_axes):
        def f(*args):
            counts[name] = counts.get(name, 0) + 1
            return fn(*args)
        return jax.jit(jax.vmap(f, in_axes=in_axes), compiler_options=COMPILE_FAST)

    def observe_all(vec, s):
        return opt._with(vec, lambda: jax.vmap(lambda p: opt.observe(s, p))(jnp.arange(n)))

    _OPT[n] = {"init": counted("init", opt.init_seeded_with, (None, 0)),
               "step": counted("step", opt.step_with, (None, 0, 0)),
               "observe_all": counted("observe_all", observe_all, (None, 0))}
    return _OPT[n]


class Replay(JaxReplay):
    engine = eng
    observe = staticmethod(observe)
    OVER = OVER

    def __init__(self, cfg: FiveAliveConfig, batch: int, base: int) -> None:  # (the options env's functions)
        f = _opt_fns(cfg.num_players)
        vec = jnp.asarray(je._option_vector(cfg))
        self.cfg, self.base, self.batch = cfg, base, batch
        self.fns = {"init": lambda seeds: f["init"](vec, seeds), "step": lambda st, a: f["step"](vec, st, a),
                    "observe_all": lambda st: f["observe_all"](vec, st)}
        self.index = list(range(batch))
        self.refs = [eng.new_game(cfg, seeding.derive(base, i)) for i in range(batch)]
        self.state = self.fns["init"](jnp.asarray(js.from_uint64(np.array([r.seed for r in self.refs], np.uint64))))
        self.steps = [0] * batch
        self.games = self.t = 0
        self.every = 3
        self.seen = {"truncated": 0, "reshuffles": 0, "bomb_answers": 0, "rounds": 0, "eliminated": 0}

    def compare(self, i, s, st) -> None:
        for name, ref in (("hands", s.hands), ("discard", s.discard), ("lives", s.lives), ("alive", s.alive),
                          ("result", s.result)):
            got = getattr(st, name)[i].tolist()
            if got != [list(x) if isinstance(x, list) else x for x in ref]:
                self.fail(i, name, got, ref)
        draw = st.draw[i][st.dhead[i]:st.dend[i]].tolist()
        if draw != s.draw[::-1]:  # the reference draws from the end of its list
            self.fail(i, "draw pile", draw, s.draw[::-1])
        got = [int(getattr(st, f)[i]) for f in ("top", "total", "direction", "phase", "bomber", "round", "reshuffles",
                                                "counter", "_step_count")]
        ref = [s.top, s.total, s.direction, s.phase, s.bomber, s.round, s.reshuffles, s.counter, s.turns]
        if got != ref:
            self.fail(i, "top/total/direction/phase/bomber/round/reshuffles/counter/turns", got, ref)
        self.seen["reshuffles"] += s.reshuffles > 0
        self.seen["bomb_answers"] += s.phase == BOMB_ANSWER
        self.seen["rounds"] += s.round > 0
        self.seen["eliminated"] += not all(s.alive)

    def compare_outcome(self, i, s) -> None:
        term, trunc = bool(self.state.terminated[i]), bool(self.state.truncated[i])
        if (term, trunc) != (not eng.truncated(s), eng.truncated(s)):
            self.fail(i, "terminated, truncated", (term, trunc), (not eng.truncated(s), eng.truncated(s)))
        for name, ref in (("result", s.result), ("lives", s.lives)):
            got = np.asarray(getattr(self.state, name)[i]).tolist()
            if got != ref:
                self.fail(i, f"final {name}", got, ref)
        if int(self.state.current_player[i]) != -1 or not bool(np.asarray(self.state.legal_action_mask[i]).all()):
            self.fail(i, "terminal current_player / mask", int(self.state.current_player[i]), "-1, all True")
        self.seen["truncated"] += trunc


# a small deck rich in Draw cards (46 cards: reshuffles, and their bound), and Bombs, 0s and Re-Deals
DRAWS = dict(zip(KIND_KEYS, (3, 3, 3, 3, 2, 2, 1, 1, 2, 2, 1, 1, 1, 1, 10, 8, 1, 1)))
MANY_DRAWS = {"draw1": 14, "draw2": 12}
BOMBS = {"bomb": 6, "n0": 10, "redeal": 5}
# (id, config, batch, games, what the games must have met); every option at least once, each case one
# option vector of its player count's single compile
CASES = [
    ("n4-default", FiveAliveConfig(num_players=4), 6, 6, ("rounds", "eliminated")),
    ("n4-sudden-optional-voluntary", FiveAliveConfig(
        num_players=4, variant="sudden_death", bomb_zero_optional=True, allow_voluntary_bust=True,
        first_player="seat0", final_tiebreak="shared", tiebreak_wild_value=3, reward="win_loss+lives",
        new_round_start="dealer", new_round_direction="keep", deck_counts=BOMBS), 6, 6, ("bomb_answers",)),
    ("n4-draws-robin-resh1-truncated", FiveAliveConfig(
        num_players=4, deck_counts=DRAWS, draw_order="round_robin", max_reshuffles=1, max_steps=45,
        bomb_last_card_resolves=False, reward="lives"), 6, 8, ("reshuffles", "truncated")),
    ("n4-teams-optional-robin", FiveAliveConfig(
        num_players=4, variant="teams", bomb_zero_optional=True, draw_order="round_robin", reward="win_loss+lives",
        deck_counts={**BOMBS, **MANY_DRAWS}), 6, 6, ("bomb_answers",)),
    ("n4-skip-pile-dealer-bombs", FiveAliveConfig(
        num_players=4, empty_draw_pile="skip", first_player="seat0", new_round_start="dealer",
        deck_counts={**BOMBS, "draw2": 10}, max_steps=150), 6, 6, ("eliminated",)),
    ("n4-teams-resh0-keep", FiveAliveConfig(
        num_players=4, variant="teams", max_reshuffles=0, deck_counts=DRAWS, new_round_direction="keep",
        bomb_last_card_resolves=False, reward="lives"), 6, 6, ()),
]


@pytest.mark.parametrize("cid, cfg, batch, games, met", CASES, ids=[c[0] for c in CASES])
def test_jax_engine_equals_reference_at_every_step(cid, cfg, batch, games, met):
    rep = Replay(cfg, batch, base=300 + len(cid))
    rep.run(games, rng_seed=len(cid), max_steps=5000)
    for what in met:  # the case really exercises what it is there for
        assert rep.seen[what] > 0, (what, rep.seen)
    # one trace per function for every config of the player count: no retracing per step or per config
    counts = _TRACES[cfg.num_players]
    assert counts["step"] == 1 and counts["init"] == 1 and counts["observe_all"] == 1, counts


def _random_config(rng: np.random.Generator, n: int) -> FiveAliveConfig:
    """A config of ``n`` players with every rule field drawn at random (a random deck of 10n + 1..WIDTH cards
    four times in ten, the rule book's otherwise)."""
    variant = str(rng.choice(["standard", "sudden_death", "teams"]))
    deck = None
    if rng.random() < 0.4:
        deck = [int(x) for x in rng.integers(0, 9, len(KIND_KEYS))]
        while sum(deck) < 10 * n + 1:
            deck[int(rng.integers(len(deck)))] += 1
        while sum(deck) > WIDTH:
            deck[int(np.argmax(deck))] -= 1
    pick = lambda *xs: xs[int(rng.integers(len(xs)))]  # noqa: E731
    return FiveAliveConfig(
        num_players=n, variant=variant, first_player=pick("random", "seat0"),
        allow_voluntary_bust=pick(False, True), bomb_zero_optional=pick(False, True),
        **({"deck_counts": tuple(deck)} if deck else {}), bomb_last_card_resolves=pick(True, False),
        draw_order=pick("each", "round_robin"), empty_draw_pile=pick("reshuffle", "skip"),
        max_reshuffles=pick(0, 1, 3, 50), new_round_start=pick("after_dealer", "dealer"),
        new_round_direction=pick("clockwise", "keep"), tiebreak_wild_value=pick(0, 5),
        final_tiebreak=pick("turn_order", "shared"), reward=pick("win_loss", "lives", "win_loss+lives"),
        max_steps=pick(10_000, 40, 150))


def test_random_configs_equal_the_reference():
    """Configs with every rule field drawn at random, on the replay cases' compiled functions (no compile of
    its own): equal to the reference at every step too."""
    rng = np.random.default_rng(2026)
    for k in range(6):
        cfg = _random_config(rng, 4)
        Replay(cfg, 6, base=900 + k).run(6, rng_seed=k, max_steps=5000)
    assert _TRACES[4]["step"] == 1, _TRACES[4]


def test_option_vector_covers_every_rule_field():
    """Every field of the config but ``max_cycles`` (not a rule of the engine) reaches the option vector:
    changing any one changes the vector, so the replay cases' configs are really the ones compared."""
    import dataclasses

    base = FiveAliveConfig(num_players=4)
    other = {"variant": "teams", "first_player": "seat0", "allow_voluntary_bust": True, "bomb_zero_optional": True,
             "deck_counts": {"bomb": 2}, "bomb_last_card_resolves": False, "draw_order": "round_robin",
             "empty_draw_pile": "skip", "max_reshuffles": 3, "new_round_start": "dealer",
             "new_round_direction": "keep", "tiebreak_wild_value": 4, "final_tiebreak": "shared", "reward": "lives",
             "max_steps": 77}
    fields = {f.name for f in dataclasses.fields(FiveAliveConfig)} - {"num_players", "max_cycles"}
    assert fields == set(other)
    v0 = je._option_vector(base)
    for name, value in other.items():
        v = je._option_vector(dataclasses.replace(base, **{name: value}))
        assert not np.array_equal(v, v0), name
    assert np.array_equal(je._option_vector(dataclasses.replace(base, max_cycles=5)), v0)


def _jax_state_of(s) -> je.State:
    """A JAX state (one game) holding the reference state ``s`` (a re-dealt world included)."""
    n = s.num_players
    i32 = np.int32
    draw = np.zeros(WIDTH, np.uint8)
    draw[:len(s.draw)] = s.draw[::-1]
    return je.State(
        current_player=i32(s.current), observation=np.zeros(80 + 3 * n, np.float32),
        legal_action_mask=np.zeros(NUM_ACTIONS, bool), rewards=np.zeros(n, np.float32), terminated=np.bool_(False),
        truncated=np.bool_(False), _step_count=i32(s.turns), hands=np.array(s.hands, np.uint8), draw=draw,
        dhead=i32(0), dend=i32(len(s.draw)), discard=np.array(s.discard, np.uint8), top=i32(s.top),
        total=i32(s.total), direction=i32(s.direction), phase=i32(s.phase), lives=np.array(s.lives, i32),
        alive=np.array(s.alive, bool), result=np.array(s.result, i32), bomber=i32(s.bomber), round=i32(s.round),
        reshuffles=i32(s.reshuffles), seed=js.from_uint64(s.seed), counter=i32(s.counter))


def test_observe_has_no_hidden_information_leak():
    """Re-dealing what a player cannot see (other hands, the draw pile) leaves the JAX observation of that
    player unchanged, and it equals the reference's on the re-dealt world too."""
    cfg = CASES[0][1]
    n = cfg.num_players
    obs_all = _opt_fns(n)["observe_all"]
    vec = jnp.asarray(je._option_vector(cfg))
    rng = np.random.default_rng(4)
    s = eng.new_game(cfg, seed=9)
    checked = changed = 0
    for t in range(60):
        if s.phase == OVER:
            break
        if t % 4 == 0:
            worlds = [s] + [eng.sample_world(cfg, s, p, rng) for p in range(n)]
            states = [_jax_state_of(w) for w in worlds]
            obs = np.asarray(obs_all(vec, jax.tree_util.tree_map(lambda *x: jnp.asarray(np.stack(x)), *states)))
            for p in range(n):
                np.testing.assert_array_equal(obs[0, p], observe(cfg, s, p))
                np.testing.assert_array_equal(obs[1 + p, p], obs[0, p])  # p's view of p's re-dealt world
                np.testing.assert_array_equal(obs[1 + p, p], observe(cfg, worlds[1 + p], p))
                changed += any(worlds[1 + p].hands[q] != s.hands[q] for q in range(n) if q != p)
                checked += 1
        eng.step(cfg, s, int(rng.choice(np.flatnonzero(eng.legal_mask(s)))))
    assert checked >= 30 and changed >= 10  # hidden cards really moved


def test_illegal_action_ends_the_game_with_the_penalty_and_terminal_states_stay():
    cfg = CASES[0][1]
    f = _opt_fns(cfg.num_players)
    vec = jnp.asarray(je._option_vector(cfg))
    batch = 6  # the replay's batch: its compiled functions serve
    state = f["init"](vec, jnp.asarray(js.from_uint64(np.arange(batch, dtype=np.uint64))))
    mask = np.asarray(state.legal_action_mask)
    bad = np.array([int(np.flatnonzero(~m)[0]) for m in mask], np.int32)  # a card not held, or BUST
    bad[1] = NUM_ACTIONS + 3  # out of range
    bad[2] = -1
    after = f["step"](vec, state, jnp.asarray(bad))
    assert np.asarray(after.terminated).all() and not np.asarray(after.truncated).any()
    expected = np.zeros((batch, cfg.num_players), np.float32)
    expected[np.arange(batch), np.asarray(state.current_player)] = -1.0
    np.testing.assert_array_equal(np.asarray(after.rewards), expected)
    np.testing.assert_array_equal(np.asarray(after.current_player), -1)
    again = f["step"](vec, after, jnp.asarray(np.argmax(np.asarray(after.legal_action_mask), 1), jnp.int32))
    assert np.asarray(again.terminated).all() and not np.asarray(again.rewards).any()  # Pgx: no move
    np.testing.assert_array_equal(np.asarray(again.hands), np.asarray(after.hands))


def test_make_vec_jax_backend_plays_the_numpy_batched_games():
    """``make_vec("five_alive", B, seed, backend="jax")`` (the engine with constant options) plays the numpy
    batched engine's very games, autoreset and ``max_steps`` truncations included."""
    from fiveplay_env.core.errors import IllegalActionError
    from fiveplay_env.vector import make_vec, random_actions

    kw = dict(num_players=2, max_steps=70)
    a = make_vec("five_alive", 5, seed=3, **kw)
    b = make_vec("five_alive", 5, seed=3, backend="jax", compiler_options=COMPILE_FAST, **kw)
    oa, ma, pa = a.reset()
    ob, mb, pb = b.reset()
    rng = np.random.default_rng(0)
    ended = truncated = 0
    for _ in range(150):
        np.testing.assert_array_equal(oa, ob)
        np.testing.assert_array_equal(ma, mb)
        np.testing.assert_array_equal(pa, pb)
        acts = random_actions(ma, rng)
        oa, ma, pa, ra, ta, ia = a.step(acts)
        ob, mb, pb, rb, tb, ib = b.step(acts)
        np.testing.assert_array_equal(ra, rb)
        np.testing.assert_array_equal(ta, tb)
        for k in ("seed", "lives", "alive", "round", "truncated"):
            np.testing.assert_array_equal(ia[k], ib[k], err_msg=k)
        for k in ("final_scores", "final_result", "final_win"):  # meaningful where terminated
            np.testing.assert_array_equal(ia[k][ta], ib[k][tb], err_msg=k)
        ended += int(ta.sum())
        truncated += int(ib["truncated"].sum())
    assert truncated >= 3 and ended > truncated  # both ways a game ends, and the autoreset after them
    eb = b.engine
    assert mb.dtype == np.int8 and ob.dtype == np.float32 and eb.bytes_per_game() > 0
    with pytest.raises(IllegalActionError):
        b.step(np.full(5, NUM_ACTIONS))
    with pytest.raises(ValueError, match="shape"):
        b.step(np.zeros(4, np.int64))
    torch = pytest.importorskip("torch")
    t = eb.to_torch(eb.jax_state.rewards)
    assert isinstance(t, torch.Tensor) and tuple(t.shape) == (5, 2)


def test_pgx_auto_reset_and_random_play_run_on_the_env():
    """Pgx's own helpers on the env (``chance="jax"``): ``pgx.experimental.auto_reset`` and ``act_randomly``
    under vmap and ``lax.scan``, as Pgx's examples use them; the same keys give the same games, different
    keys different deals, and no seed (so no future shuffle) stays in the state."""
    pytest.importorskip("pgx")
    from pgx.experimental import act_randomly, auto_reset

    n, B = 2, 8
    env = je.JaxEnv(FiveAliveConfig(num_players=n, reward="win_loss+lives", max_steps=60))
    step = jax.vmap(auto_reset(env.step, env.init))

    def body(carry, _):
        state, key = carry
        key, k1, k2 = jax.random.split(key, 3)
        state = step(state, act_randomly(k1, state.legal_action_mask), jax.random.split(k2, B))
        return (state, key), (state.terminated, state.truncated, state.rewards, state.current_player)

    def play(state, key):
        state, trace = jax.lax.scan(body, (state, key), None, length=70)
        return state[0], trace

    init = jax.jit(jax.vmap(env.init), compiler_options=COMPILE_FAST)
    run = jax.jit(play, compiler_options=COMPILE_FAST)
    keys = jax.random.split(jax.random.key(0), B)
    s0 = init(keys)
    assert len({h.tobytes() for h in np.asarray(s0.hands)}) == B  # different keys, different deals
    assert not np.asarray(s0.seed).any()
    assert isinstance(s0.legal_action_mask, jax.Array) and s0.observation.shape == (B, env.observation_size)
    outs = [jax.tree_util.tree_map(np.asarray, run(s0, jax.random.key(1))) for _ in range(2)]
    for x, y in zip(jax.tree_util.tree_leaves(outs[0]), jax.tree_util.tree_leaves(outs[1])):
        np.testing.assert_array_equal(x, y)  # the same keys: the same trajectory
    _, (term, trunc, rewards, cur) = outs[0]
    assert trunc.sum() >= 1 and not (term & trunc).any()  # 60 steps end some games there, none both ways
    assert ((cur >= 0) & (cur < n)).all()  # auto_reset: every step ends on a live game
    assert np.isfinite(rewards).all() and (rewards <= 1).all() and (rewards >= -6).all()
    assert env.num_actions == NUM_ACTIONS and env.observation_shape == (env.observation_size,)
    assert env.id == "five_alive" and env.num_players == n and isinstance(env.version, str)
    mask = np.asarray(s0.legal_action_mask)
    acts = np.asarray(je.random_actions(jax.random.key(2), jnp.asarray(mask)))
    assert mask[np.arange(B), acts].all()  # the cheap sampler draws legal actions


def test_bad_settings_are_clear_errors():
    with pytest.raises(ValueError, match="num_players"):
        je.JaxEnv(num_players=7)
    with pytest.raises(ValueError, match="deck_counts"):
        je.JaxEnv(num_players=4, deck_counts={"n9": 3})
    with pytest.raises(ValueError, match="chance"):
        je.JaxEnv(chance="numpy")
    with pytest.raises(ValueError, match="observation"):
        je.JaxEnv(observation="compact")
    with pytest.raises(ValueError, match="init_seeded"):
        je.JaxEnv().init_seeded(jnp.zeros(2, jnp.uint32))
    with pytest.raises(ValueError, match="key"):
        je.JaxEnv().step(None, 0)  # chance="jax" draws the step's shuffles from the key
    with pytest.raises(ValueError, match="max_cycles"):
        je.make_vec(2, max_cycles=5)
    assert set(KIND_KEYS) >= set(DRAWS) | set(BOMBS)
