"""The learner's pieces on their own: a torch-free collector driven by a numpy policy, GAE against a plain
per-trajectory walk, the algorithm registry, the command line generated from the configs, checkpoints from before ``--algo`` and
the import boundaries."""
from __future__ import annotations

import ast
import dataclasses
import importlib
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

from tests.learning.conftest import TAKE5_CFG

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

NUMPY_COLLECTION = r'''
import sys
sys.modules["torch"] = None  # any import of torch fails from here on
import numpy as np
from fiveplay_env.agents.learned import returns
from fiveplay_env.agents.learned.collector import Collector
from fiveplay_env.agents.learned.config import OnPolicyConfig
from fiveplay_env.agents.registry import make_agent

class UniformPolicy:
    """A numpy policy: uniform over the legal actions; logp = -log(k), value 0.5."""
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.calls = []
    def act(self, obs, mask, learner, snapshots):
        self.calls.append((obs.shape[0], learner, sorted(set(snapshots.tolist()))))
        legal = mask != 0
        a = np.where(legal, self.rng.random(mask.shape), -1.0).argmax(axis=1)
        k = legal[:learner].sum(axis=1)
        return a.astype(np.int64), (-np.log(k)).astype(np.float32), np.full(learner, 0.5, np.float32)

cfg = OnPolicyConfig(game=GAME, config=CONFIG, opponents=[("random", 1.0), ("self", 1.0), ("pool", 1.0)],
                  total_decisions=1000, num_envs=6, rollout_steps=40, pool_size=2, backend=BACKEND)
col = Collector(cfg, np.random.default_rng(0), make_agent)
policy = UniformPolicy(1)
col.add_snapshot("snapshot-0", 0)   # opaque to the collector: whatever the policy plays pool seats with
col.add_snapshot("snapshot-1", 1)
col.add_snapshot("snapshot-2", 2)   # the oldest is dropped (pool_size 2)
assert col.pool.items == ["snapshot-1", "snapshot-2"] and col.pool.updates == [1, 2]
total = 0
for _ in range(3):
    roll = col.collect(policy)
    R, B = roll.valid.shape
    assert (R, B) == (col.n + cfg.rollout_steps, cfg.num_envs)
    r, i = np.nonzero(roll.valid)
    assert roll.mask[r, i, roll.act[r, i]].all()          # every recorded action was legal
    assert np.all(roll.logp[r, i] <= 0) and np.all(roll.val[r, i] == 0.5)
    assert not (roll.pending & ~roll.valid).any()
    assert roll.pending.sum() == col.carry["valid"].sum()  # the held-back rows are the next rollout's first
    adv = returns.gae(roll, cfg.gamma, cfg.gae_lambda)
    batch = roll.batch(adv)
    assert batch["obs"].dtype == np.float32 and batch["obs"].shape[1] == col.D
    assert len(batch["act"]) == int((roll.valid & ~roll.pending).sum())
    np.testing.assert_array_equal(batch["ret"], batch["adv"] + batch["val"])
    total += len(batch["act"])
assert col.env_steps == 3 * cfg.rollout_steps and total > 0 and (col.games > 0 or cfg.game != "take5")
assert any(snaps for _, _, snaps in policy.calls) or not col.games, "no pool seat was played"  # (drawn at a game's start)
assert all(set(s) <= {0, 1} for _, _, s in policy.calls)  # pool indices stay valid after the drop
assert "torch" not in [m for m, v in sys.modules.items() if v is not None]
print("ok", col.backend, total)
'''


@pytest.mark.parametrize("game,config,backend", [("take5", TAKE5_CFG, "auto"), ("five_alive", {"num_players": 3}, "reference")])
def test_the_collector_runs_without_torch_on_a_numpy_policy(game, config, backend):
    code = NUMPY_COLLECTION.replace("GAME", repr(game)).replace("CONFIG", repr(config)).replace("BACKEND", repr(backend))
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": ROOT})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.startswith("ok " + ("batched" if backend == "auto" else "reference-loop"))


def _plain_gae(roll, gamma, lam):
    """GAE walked trajectory by trajectory: for each (slot, seat), its valid rows in order."""
    R, B = roll.valid.shape
    adv = np.zeros((R, B), np.float64)
    for i in range(B):
        for s in np.unique(roll.seat[:, i]):
            rows = [r for r in range(R) if roll.valid[r, i] and roll.seat[r, i] == s]
            next_v = next_a = 0.0
            for r in reversed(rows):
                nd = 0.0 if roll.done[r, i] else 1.0
                a = roll.rew[r, i] + gamma * next_v * nd - roll.val[r, i] + gamma * lam * next_a * nd
                a = 0.0 if roll.pending[r, i] else a
                adv[r, i] = a
                next_v, next_a = roll.val[r, i], a
    return adv


def test_gae_equals_a_plain_walk_along_each_trajectory():
    from fiveplay_env.agents.learned.collector import Rollout
    from fiveplay_env.agents.learned.returns import gae

    rng = np.random.default_rng(4)
    R, B, n = 30, 7, 3
    valid = rng.random((R, B)) < 0.7
    pending = np.zeros((R, B), bool)
    seat = rng.integers(0, n, (R, B))
    for i in range(B):  # the last valid row of some trajectories is held back
        for s in range(n):
            rows = np.flatnonzero(valid[:, i] & (seat[:, i] == s))
            if rows.size and rng.random() < 0.6:
                pending[rows[-1], i] = True
    roll = Rollout(obs=np.zeros((R, B, 1), np.float32), mask=np.ones((R, B, 2), bool), act=np.zeros((R, B), np.int64),
                   logp=np.zeros((R, B), np.float32), val=rng.normal(size=(R, B)).astype(np.float32),
                   rew=rng.normal(size=(R, B)).astype(np.float32), done=rng.random((R, B)) < 0.15, valid=valid,
                   seat=seat, pending=pending, finished=[])
    for gamma, lam in ((1.0, 0.95), (0.9, 1.0), (0.99, 0.0)):
        np.testing.assert_allclose(gae(roll, gamma, lam), _plain_gae(roll, gamma, lam), rtol=1e-5, atol=1e-5)
    assert np.all(gae(roll, 0.99, 0.95)[pending] == 0) and np.any(gae(roll, 0.99, 0.95)[valid & ~pending] != 0)


def test_the_algorithm_registry_and_an_unknown_algo():
    from fiveplay_env.agents.learned import algorithms
    from fiveplay_env.agents.learned.algorithms.ppo import PPO, PPOConfig
    from fiveplay_env.experiments import train

    assert algorithms.get_algorithm("ppo").ALGORITHM is PPO and algorithms.config_class("ppo") is PPOConfig
    assert PPOConfig.algo == "ppo"
    with pytest.raises(ValueError, match=r"algo: expected one of \['expit', 'ppo'\], got 'a3c'"):
        algorithms.get_algorithm("a3c")
    with pytest.raises(ValueError, match=r"algo: expected one of \['expit', 'ppo'\], got 'a3c'"):
        train.main(["--algo", "a3c", "--quiet"])
    from fiveplay_env.agents.learned.algorithms.expit import ExpitConfig
    from fiveplay_env.agents.learned.config import TrainConfig
    from fiveplay_env.agents.learned.trainer import Trainer, make_learner

    for make in (Trainer, make_learner):
        with pytest.raises(ValueError, match="expected an algorithm's config"):
            make(TrainConfig(game="take5", config=dict(TAKE5_CFG), opponents=[("self", 1.0)], total_decisions=10))
    with pytest.raises(ValueError, match="expected a PPOConfig for PPOLearner, got ExpitConfig"):
        Trainer(ExpitConfig(game="take5", config=dict(TAKE5_CFG)))


def test_an_option_of_another_algorithm_is_an_error_naming_both():
    """The options are each algorithm's own: PPO's given to expert iteration (or the reverse) is refused by
    name, in code and on the command line, instead of being ignored."""
    from fiveplay_env.agents.learned.algorithms.expit import ExpitConfig
    from fiveplay_env.agents.learned.algorithms.ppo import PPOConfig
    from fiveplay_env.experiments import train

    for cls, name, other in ((ExpitConfig, "num_envs", "ppo"), (ExpitConfig, "clip", "ppo"),
                             (PPOConfig, "games_per_update", "expit")):
        with pytest.raises(ValueError, match=rf"^{name}: not an option of algorithm '{cls.algo}' \(it is an option "
                                             rf"of '{other}'"):
            cls(game="take5", **{name: 4})
    with pytest.raises(ValueError, match=r"^rollout_steps: not an option of algorithm 'expit' \(it is an option of 'ppo'"):
        train.main(["--algo", "expit", "--rollout-steps", "8", "--quiet"])
    with pytest.raises(ValueError, match=r"^search: not an option of algorithm 'ppo' \(it is an option of 'expit'"):
        train.main(["--search", "bsearch:worlds=2", "--quiet"])
    with pytest.raises(ValueError, match="^no_such_option: not an option of algorithm 'ppo'; expected one of"):
        PPOConfig(no_such_option=1)


def test_the_command_line_is_generated_from_the_configs():
    from fiveplay_env.agents.learned.algorithms.ppo import PPOConfig
    from fiveplay_env.agents.learned.config import default_opponents, parse_opponents
    from fiveplay_env.experiments import train

    parser = train.build_parser("ppo")
    flags = {s for a in parser._actions for s in a.option_strings}
    for f in [*dataclasses.fields(PPOConfig), *dataclasses.fields(train.RunOptions)]:
        assert "--" + f.name.replace("_", "-") in flags, f.name
    assert set(train.DEFAULTS) == {"algo"} | {f.name for f in dataclasses.fields(PPOConfig)} | \
        {f.name for f in dataclasses.fields(train.RunOptions)}
    # no option given: the config's own defaults (and the CLI's game, budget and opponents)
    a = train._resolved(parser.parse_args([]))
    want = PPOConfig(game="take5", config={}, opponents=parse_opponents(default_opponents("take5")),
                     total_decisions=200_000)
    assert train._train_config(a) == want
    got = train._train_config(train._resolved(parser.parse_args(
        ["--game", "five_alive", "--clip", "0.3", "--hidden", "32", "16"])))
    assert (got.game, got.clip, got.hidden, got.gamma, got.arch) == ("five_alive", 0.3, (32, 16), 0.995, "mlp")
    with pytest.raises(SystemExit):
        parser.parse_args(["--clip", "wide"])  # typed by the field
    help_text = " ".join(parser.format_help().split())
    assert "PPO clip range (default 0.2)" in help_text and "0.995 for five_alive" in help_text


@pytest.mark.parametrize("field,value,message", [
    ("clip", -0.1, r"clip: expected a number in \[0.0, 10.0\], got -0.1"),
    ("minibatch_size", 0, "minibatch_size: expected an integer >= 1, got 0"),
    ("max_grad_norm", 0.0, r"max_grad_norm: expected a number in \(0.0, 1000000000.0\], got 0.0"),
    ("seed", -1, "seed: expected an integer >= 0, got -1"),
    ("lr_schedule", "cosine", r"lr_schedule: expected one of \['constant', 'linear'\], got 'cosine'"),
    ("backend", "gpu", r"backend: expected one of \['auto', 'batched', 'reference', 'jax'\], got 'gpu'"),
])
def test_bad_settings_are_named(field, value, message):
    from fiveplay_env.agents.learned.algorithms.ppo import PPOConfig

    with pytest.raises(ValueError, match=message):
        PPOConfig(game="take5", config={}, opponents=[("self", 1.0)], total_decisions=10, **{field: value})


def test_a_checkpoint_from_before_algo_resumes(tmp_path):
    """Checkpoints written before ``algo`` existed (kind ``"fiveplay-ppo"``, no such key) are PPO's: they
    resume exactly. A checkpoint of today's kind (``"fiveplay-policy"``) must name its algorithm."""
    from fiveplay_env.agents.learned.algorithms.ppo import PPOConfig
    from fiveplay_env.agents.learned.checkpoint import load_checkpoint, save_checkpoint
    from fiveplay_env.agents.learned.trainer import Trainer
    from fiveplay_env.core.errors import CheckpointError

    cfg = PPOConfig(game="take5", config=dict(TAKE5_CFG), opponents=[("random", 1.0), ("self", 1.0), ("pool", 1.0)],
                    total_decisions=10_000, num_envs=6, rollout_steps=12, minibatch_size=32, epochs=1, hidden=(16,),
                    snapshot_interval=1)
    a = Trainer(cfg)
    a.train_update()
    state = a.state(args={"note": 1})
    assert state["kind"] == "fiveplay-policy" and state["algo"] == "ppo"
    del state["algo"]
    path = str(tmp_path / "new.pt")
    save_checkpoint(path, state)
    with pytest.raises(CheckpointError, match="the field 'algo' is missing"):
        load_checkpoint(path)  # the current kind names its algorithm
    state["kind"] = "fiveplay-ppo"  # as every checkpoint was written before
    path = str(tmp_path / "old.pt")
    save_checkpoint(path, state)
    b = Trainer(cfg)
    b.load_state(load_checkpoint(path))
    a.train_update()
    b.train_update()
    assert all(torch.equal(x, y) for x, y in zip(a.model.state_dict().values(), b.model.state_dict().values()))
    assert load_checkpoint(path)["algo"] == "ppo"
    state["algo"] = "a3c"
    save_checkpoint(path, state)
    with pytest.raises(CheckpointError, match="mismatched algorithm"):
        Trainer(cfg).load_state(load_checkpoint(path))


def _imports(path: str) -> set[str]:
    """Every module ``path`` imports, at the top or inside functions."""
    tree = ast.parse(open(path, encoding="utf-8").read())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return out


def test_import_boundaries():
    """Nothing imports the trainer (the algorithm table's user) but its command line (and the benchmarks that
    time it: against the JAX path and on a GPU); the learners import the run module below them, never the
    table or the trainer; the collector, the engine seats and the policy loading never import the agent
    registry; the vector API never imports ``agents``."""
    importers = set()
    for pkg in ("fiveplay_env", "agents", "experiments"):
        for d, _, files in os.walk(os.path.join(ROOT, pkg)):
            for f in files:
                if f.endswith(".py"):
                    p = os.path.join(d, f)
                    if "fiveplay_env.agents.learned.trainer" in _imports(p):
                        importers.add(os.path.relpath(p, ROOT))
    assert importers == {"experiments/train.py", os.path.join("experiments", "jax_train_bench.py"), os.path.join("experiments", "gpu_check.py")}
    learned = os.path.join(ROOT, "agents", "learned")
    for name in ("run.py", "onpolicy.py", os.path.join("algorithms", "ppo.py"), os.path.join("algorithms", "expit.py")):
        imported = _imports(os.path.join(learned, name))
        assert not any(m in ("fiveplay_env.agents.learned.algorithms", "fiveplay_env.agents.learned.trainer")
                       or m.startswith("fiveplay_env.agents.learned.trainer.") for m in imported), name
    assert "fiveplay_env.agents.learned.run" in _imports(os.path.join(learned, "algorithms", "expit.py"))
    for name in ("collector.py", "returns.py", "engine_seats.py", "inference.py", "names.py", "agent.py",
                 "defaults.py", "config.py", "envs.py", "checkpoint.py", os.path.join("pretrained", "__init__.py")):
        imported = _imports(os.path.join(learned, name))
        assert not any(m.startswith(("fiveplay_env.agents.registry", "fiveplay_env.agents.learned.trainer")) for m in imported), name
    for name in ("collector.py", "returns.py", "engine_seats.py", "defaults.py", "config.py"):
        assert not any(m.split(".")[0] == "torch" for m in _imports(os.path.join(learned, name))), name
    assert not any(m.startswith("fiveplay_env.agents") for m in _imports(os.path.join(ROOT, "fiveplay_env", "vector.py")))
    search = _imports(os.path.join(ROOT, "agents", "search.py"))
    assert not any(m.startswith(("fiveplay_env.agents.registry", "fiveplay_env.agents.learned.ppo", "fiveplay_env.agents.learned.trainer")) for m in search)


def test_every_module_of_the_learner_says_what_it_does():
    """The package docstring's table lists every module of ``agents/learned`` (and nothing that is gone)."""
    import fiveplay_env.agents.learned as learned_pkg

    doc = learned_pkg.__doc__
    learned = os.path.dirname(learned_pkg.__file__)
    names = {f[:-3] for f in os.listdir(learned) if f.endswith(".py") and f != "__init__.py"}
    names |= {d for d in os.listdir(learned) if os.path.isfile(os.path.join(learned, d, "__init__.py"))}
    for name in names:
        assert f"``{name}``" in doc, name
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for name in names:
            importlib.import_module(f"fiveplay_env.agents.learned.{name}")
