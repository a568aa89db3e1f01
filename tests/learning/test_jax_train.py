"""The JAX training path (``--backend jax``): rollouts equal to the numpy collector's, the JAX heuristics
equal to the numpy ones, the JAX networks equal to the torch ones, training, checkpoints and exact resume.

Compiling dominates: every function is compiled once per module at XLA's lowest optimisation level, with
tiny batches and rollouts."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

jax = pytest.importorskip("jax", reason="the JAX trainer needs the jax extra")
jnp = jax.numpy

from tests.jax_replay import COMPILE_FAST  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def _compile_fast():
    from fiveplay_env.agents.learned.jax import collector

    prev = collector.COMPILER_OPTIONS
    collector.COMPILER_OPTIONS = COMPILE_FAST
    yield
    collector.COMPILER_OPTIONS = prev


def _cfg(**kw):
    from fiveplay_env.agents.learned.algorithms.ppo import PPOConfig

    """The settings the rollout and training tests share (one compiled rollout for both: its jit key is the
    game, the batch, the steps, the opponents, the reward options and the network's shapes)."""
    base = dict(game="take5", config={"num_players": 2, "mode": "round"}, total_decisions=10_000, num_envs=16,
                rollout_steps=24, minibatch_size=64, epochs=2, hidden=(32, 32), snapshot_interval=1, pool_size=2,
                backend="jax", seed=3, opponents=[("take5-safest", 1.0), ("self", 1.0), ("pool", 1.0)],
                win_reward=1.0, lr=3e-3, lr_schedule="constant")
    base.update(kw)
    return PPOConfig(**base)


# --- the networks and the heuristics --------------------------------------------------------------------------

def _played(game: str, config: dict, steps: int, B: int = 24, seed: int = 5):
    """Observations and masks of seeded numpy games played half by the numpy heuristic, half at random."""
    from fiveplay_env.agents.five_alive.batch import attacker_actions
    from fiveplay_env.agents.take5.batch import safest_actions
    from fiveplay_env import vector

    ref = safest_actions if game == "take5" else attacker_actions
    env = vector.make_vec(game, B, seed=seed, **config)
    obs, mask, _ = env.reset(seed)
    rng = np.random.default_rng(seed)
    O, M = [], []
    for _ in range(steps):
        O.append(obs.copy())
        M.append(np.asarray(mask).copy())
        rnd = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        obs, mask, *_ = env.step(np.where(rng.random(B) < 0.5, ref(obs, mask), rnd))
    return np.concatenate(O), np.concatenate(M), ref


@pytest.mark.parametrize("game,config,name", [
    ("take5", {"num_players": 4, "mode": "round"}, "take5-safest"),
    ("take5", {"num_players": 5, "mode": "game", "row_pick": "player", "end_score": 30}, "take5-safest"),
    ("five_alive", {"num_players": 4}, "five-alive-attacker"),
])
def test_jax_heuristics_equal_the_numpy_ones(game, config, name):
    """Decision by decision over seeded games (whole games of Take 5 with row choices; 5 Alive's Bomb answers)."""
    from fiveplay_env.agents.learned.jax.heuristics import heuristic

    obs, mask, ref = _played(game, config, 120)
    act = jax.jit(lambda o, m: heuristic(name, config["num_players"])(o, m, None), compiler_options=COMPILE_FAST)
    got = np.asarray(act(jnp.asarray(obs), jnp.asarray(mask != 0)))
    want = ref(obs, mask)
    assert (mask.sum(axis=1) > 1).sum() > 1000  # real choices, not forced moves
    assert np.array_equal(got, want), f"{(got != want).sum()} of {len(want)} decisions differ"


def test_jax_safest_refuses_more_players_than_it_is_exact_for():
    from fiveplay_env.agents.learned.jax.heuristics import heuristic

    with pytest.raises(ValueError, match="exact for 2..5 players"):
        heuristic("take5-safest", 6)
    with pytest.raises(ValueError, match="plays self, pool and the agents"):
        heuristic("ismcts", 4)


@pytest.mark.parametrize("arch,game,config", [("take5", "take5", {"num_players": 4, "mode": "round"}),
                                              ("mlp", "five_alive", {"num_players": 4})])
def test_jax_network_equals_the_torch_network(arch, game, config):
    from fiveplay_env.agents.learned.defaults import obs_scale_for
    from fiveplay_env.agents.learned.jax import nets as jnets
    from fiveplay_env.agents.learned.nets import build_model

    obs, mask, _ = _played(game, config, 40, B=8)
    torch.manual_seed(0)
    model = build_model(arch, {"obs_dim": obs.shape[1], "num_actions": mask.shape[1], "hidden": [32, 32]},
                        obs_scale_for(game, config["num_players"], obs.shape[1]))
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.05)  # every weight matters (the init zeroes the biases)
        lt, vt = model(torch.from_numpy(obs), torch.from_numpy(mask))
    f = jax.jit(jnets.forward, static_argnums=0, compiler_options=COMPILE_FAST)
    lj, vj = f(jnets.NetSpec.of(model), jnets.params_of(model.state_dict()), jnp.asarray(obs), jnp.asarray(mask != 0))
    legal = mask != 0
    np.testing.assert_allclose(np.asarray(lj)[legal], lt.numpy()[legal], atol=2e-5, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(vj), vt.numpy(), atol=2e-5, rtol=1e-5)
    assert (np.asarray(lj)[~legal] == jnets.ILLEGAL_LOGIT).all()


# --- rollouts == the numpy collector's -----------------------------------------------------------------------

def test_jax_rollouts_equal_the_numpy_collectors():
    """Three rollouts of 24 steps (two-player rounds of 20 steps: games end, seats are redrawn, decisions are
    carried over): the numpy collector on the numpy engine, seated as the JAX collector seated its games and
    replaying the learner's JAX actions, gives the same observations, masks, actions, rewards (win option
    on), done flags, held-back rows and returns; its take5-safest seats play the JAX heuristic's moves (the
    pool is empty: its games seat the learner everywhere, in both collectors)."""
    _rollouts_equal(_cfg(), "take5")


@pytest.mark.slow
def test_five_alive_jax_rollouts_equal_the_numpy_collectors():
    """The same for 5 Alive (two players, three rollouts of 64 steps: games end and are redrawn, decisions are
    carried over), its five-alive-attacker seats playing the JAX heuristic's moves."""
    cfg = _cfg(game="five_alive", config={"num_players": 2}, rollout_steps=64,
               opponents=[("five-alive-attacker", 1.0), ("self", 1.0), ("pool", 1.0)])
    _rollouts_equal(cfg, "mlp")


def _rollouts_equal(cfg, arch: str) -> None:
    """Drive the JAX collector three rollouts, then the numpy collector seated and acting as it did: every
    rollout array, the returns and the finished games are equal."""
    from fiveplay_env.agents.learned import returns
    from fiveplay_env.agents.learned.collector import Collector
    from fiveplay_env.agents.learned.jax.collector import JaxCollector
    from fiveplay_env.agents.learned.nets import build_model
    from fiveplay_env.agents.registry import make_agent

    jc = JaxCollector(cfg, np.random.default_rng(0))
    torch.manual_seed(1)
    model = build_model(arch, {"obs_dim": jc.D, "num_actions": jc.A, "hidden": list(cfg.hidden)})
    policy = type("P", (), {"model": model})()
    init_kind = np.asarray(jc.cs["slot_kind"]).copy()
    init_seats = np.asarray(jc.cs["learner_seat"]).copy()
    rolls, extras = [], []
    for _ in range(3):  # each rollout's recorded actions and seat draws
        rolls.append(jc.collect(policy))
        extras.append({k: np.array(v) for k, v in jc.last_extra.items()})
    n, T = jc.n, cfg.rollout_steps

    class Seated(Collector):
        step_no = -1

        def _assign(self, slots):
            if self.step_no < 0:
                kinds, seats = init_kind, init_seats
            else:
                e = extras[self.step_no // T]
                kinds, seats = e["slot_kind"][self.step_no % T], e["learner_seat"][self.step_no % T]
            self.slot_kind[slots] = kinds[slots]
            self.learner_seat[slots] = seats[slots]
            self.slot_snap[slots] = -1

    col = Seated(dataclasses.replace(cfg, backend="batched"), np.random.default_rng(0), make_agent)
    step = col.env.step

    def counted(actions):
        col.step_no += 1
        return step(actions)

    col.env.step = counted

    class Replay:
        def act(self, obs, mask, learner, snapshots):
            t = col.step_no + 1
            r, k = divmod(t, T)
            li = np.flatnonzero(col.learner_seat[np.arange(cfg.num_envs), col.cur])
            ref = rolls[r]
            return (extras[r]["actions"][k][li].astype(np.int64), ref.logp[n + k, li], ref.val[n + k, li])

    for r, jr in enumerate(rolls):
        nr = col.collect(Replay())
        for name in ("obs", "mask", "act", "done", "valid", "pending", "logp", "val"):
            assert np.array_equal(getattr(nr, name), getattr(jr, name)), f"rollout {r}: {name} differs"
        v = nr.valid
        assert np.array_equal(nr.seat[v], jr.seat[v])
        np.testing.assert_allclose(jr.rew, nr.rew, atol=1e-6)
        np.testing.assert_allclose(returns.gae(jr, 0.99, 0.9), returns.gae(nr, 0.99, 0.9), atol=1e-5)
        assert [k for k, _ in nr.finished] == [k for k, _ in jr.finished]
        np.testing.assert_allclose([x for _, x in jr.finished], [x for _, x in nr.finished], atol=1e-6)
    assert sum(len(r.finished) for r in rolls) >= cfg.num_envs  # games ended and were redrawn
    assert any(r.valid[:n].any() for r in rolls[1:])  # carried-over decisions
    assert any((e["slot_kind"] == 0).any() for e in extras)  # the heuristic's seats played


# --- training, checkpoints, resume ------------------------------------------------------------------------

def test_jax_training_learns_checkpoints_and_resumes_exactly(tmp_path):
    """A few updates move the loss and the entropy and beat random; the checkpoint is an ordinary one (the
    ckpt: agent plays it); a trainer resumed from the checkpoint after 2 updates makes exactly updates 3 and 4."""
    from fiveplay_env.agents.learned.checkpoint import load_checkpoint, save_checkpoint
    from fiveplay_env.agents.learned.evaluation import evaluate
    from fiveplay_env.agents.learned.trainer import Trainer
    from fiveplay_env.agents.registry import make_agent

    cfg = _cfg()
    a = Trainer(cfg)
    stats = [a.train_update() for _ in range(2)]
    path = str(tmp_path / "c.pt")
    save_checkpoint(path, a.state(args={"note": "test"}))
    stats += [a.train_update() for _ in range(2)]
    assert len(a.pool) == 2 and a.games > 0
    b = Trainer(cfg)
    b.load_state(load_checkpoint(path))
    b.train_update()
    b.train_update()
    sa, sb = a.model.state_dict(), b.model.state_dict()
    assert all(torch.equal(sa[k], sb[k]) for k in sa)
    assert a.algorithm.state_dict()["state"].keys() == b.algorithm.state_dict()["state"].keys()
    assert all(torch.equal(x["exp_avg"], y["exp_avg"]) for x, y in zip(a.algorithm.state_dict()["state"].values(),
                                                                       b.algorithm.state_dict()["state"].values()))
    assert np.array_equal(np.asarray(a.collector.cs["carry"]["obs"]), np.asarray(b.collector.cs["carry"]["obs"]))
    assert a.decisions == b.decisions and a.games == b.games
    ents = [s["entropy"] for s in stats]
    assert len(set(ents)) == len(ents) and len({s["policy_loss"] for s in stats}) == len(stats)
    # an ordinary checkpoint: the ckpt: agent plays it on the numpy engine
    final = str(tmp_path / "final.pt")
    save_checkpoint(final, a.state())
    agent = make_agent(f"ckpt:{final}", "take5", seed=0)
    from fiveplay_env import take5_v0

    env = take5_v0.env(num_players=2, mode="round")
    env.reset(seed=0)
    for name in env.agent_iter():
        o, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else agent.act(o["observation"], o["action_mask"]))
    res = evaluate(a.model, "take5", {"num_players": 2, "mode": "round"}, "random", games=64, seed=1,
                   backend="jax", make_agent=make_agent)
    assert res["diff"][0] < 0  # fewer bull heads than random after a few updates at a high learning rate


def test_jax_backend_refuses_what_it_cannot_play():
    from fiveplay_env.agents.learned.trainer import Trainer

    with pytest.raises(ValueError, match="plays self, pool and the agents"):
        Trainer(_cfg(opponents=[("take5-cheapest", 1.0)]))
    with pytest.raises(ValueError, match="compact_obs"):
        Trainer(_cfg(opponents=[("self", 1.0)], compact_obs=True))


def test_jax_backend_reads_the_engine_from_the_game_table():
    """A game whose ``GameDef.jax_engine`` is None, or names a module that is not there, is a ValueError naming
    the games that have one; a game of the table without a JAX engine yet (5 Alive until its engine lands)
    refuses ``--backend jax`` the same way, and trains on it once the module is there."""
    import dataclasses as dc
    import importlib.util

    from fiveplay_env.agents.learned.jax.collector import engine_factory
    from fiveplay_env.agents.learned.trainer import Trainer
    from fiveplay_env import games

    assert engine_factory("take5").__module__ == games.get("take5").jax_engine
    for name, module, why in (("nojax_test", None, "jax_engine is None"),
                              ("gonejax_test", "fiveplay_env.take5.no_such_engine", "not installed")):
        games.register(dc.replace(games.get("take5"), name=name, jax_engine=module))
        try:
            with pytest.raises(ValueError, match=rf"expected a game with a JAX engine \[.*'take5'.*\], got '{name}' "
                                                 rf"\(.*{why}.*\); train it with backend 'auto'"):
                engine_factory(name)
        finally:
            games.unregister(name)
    with pytest.raises(ValueError, match="game"):
        engine_factory("no_such_game")
    for name in games.names():
        module = games.get(name).jax_engine
        if module is None or importlib.util.find_spec(module) is None:
            with pytest.raises(ValueError, match=f"expected a game with a JAX engine .*got {name!r}"):
                Trainer(_cfg(game=name, config={}, opponents=[("self", 1.0)]))
