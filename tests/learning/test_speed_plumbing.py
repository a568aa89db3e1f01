"""Training speed-ups compute the same thing; device plumbing; TensorBoard and W&B logs."""
from __future__ import annotations

import io
import os
import sys
import types

import numpy as np
import pytest
import torch

from tests.learning.conftest import TAKE5_CFG, tiny_args


def _take5_batch(steps: int = 40, envs: int = 32, seed: int = 1):
    from fiveplay_env import vector

    env = vector.make_vec("take5", envs, seed=seed, **TAKE5_CFG)
    obs, mask, _ = env.reset(seed)
    rng = np.random.default_rng(seed)
    all_obs, all_mask = [], []
    for _ in range(steps):
        all_obs.append(obs.copy())
        all_mask.append(mask.copy())
        obs, mask, *_ = env.step(vector.random_actions(mask, rng))
    return np.concatenate(all_obs), np.concatenate(all_mask)


@pytest.mark.parametrize("arch", ["take5", "mlp"])
def test_features_prepared_once_per_rollout_equal_per_minibatch(arch):
    """What the update reuses (one ``prepare`` over the whole rollout, sliced per minibatch) gives the
    same network outputs as preparing each minibatch on its own (the old per-minibatch work)."""
    from fiveplay_env.agents.learned.nets import build_model

    obs, mask = _take5_batch()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        net = build_model(arch, {"obs_dim": obs.shape[1], "num_actions": mask.shape[1], "hidden": [64, 64]})
    o, m = torch.from_numpy(obs), torch.from_numpy(mask).bool()
    with torch.no_grad():
        once = net.prepare(o, m)
        perm = torch.from_numpy(np.random.default_rng(0).permutation(len(obs)))
        for start in range(0, len(obs), 96):
            idx = perm[start:start + 96]
            sliced = {k: v[idx] for k, v in once.items()}
            fresh = net.prepare(o[idx], m[idx])
            torch.testing.assert_close(sliced["x"], fresh["x"], rtol=0, atol=0)
            lg1, v1 = net.head(sliced, m[idx])
            lg2, v2 = net(o[idx], m[idx])
            torch.testing.assert_close(lg1, lg2, rtol=1e-5, atol=1e-6)
            torch.testing.assert_close(v1, v2, rtol=1e-5, atol=1e-6)
            assert torch.equal(lg1.argmax(1), lg2.argmax(1))


def _reference_prepare(net, obs, mask):
    """``prepare`` the plain way: every card's features (``features``, the whole 104-card grid), then the
    hand pooled and the legal actions gathered."""
    feats, hand = net.features(obs)
    cardf = feats[:, :104, :net.CARD_FEATURES]
    nh = hand.sum(dim=1, keepdim=True).clamp(min=1.0)
    pooled_mean = (cardf * hand[..., None]).sum(dim=1) / nh
    pooled_max = (cardf * hand[..., None] - (1.0 - hand[..., None])).max(dim=1).values.clamp(min=0.0)
    legal = mask.bool()[:, :108]
    kmax = int(legal.sum(dim=1).max())
    order = torch.argsort(legal.to(torch.int8), dim=1, descending=True, stable=True)[:, :kmax]
    sel = torch.gather(feats, 1, order[..., None].expand(-1, -1, feats.shape[2]))
    return {"x": torch.cat([obs * net.obs_scale, pooled_mean, pooled_max], dim=1), "sel": sel, "order": order,
            "valid": torch.gather(legal, 1, order)}


@pytest.mark.parametrize("config", [TAKE5_CFG, {"num_players": 6, "mode": "game"},
                                    {"num_players": 3, "professional": True, "draft": True}])
def test_take5_prepare_features_only_the_cards_that_matter_and_equals_the_whole_grid(config):
    """``prepare`` featurises the hand and the legal cards only; the result equals the plain computation
    over the 104-card grid of ``features`` (legal actions' features, pooled hand, network outputs)."""
    from fiveplay_env.agents.learned.nets import build_model
    from fiveplay_env import vector

    env = vector.make_vec("take5", 48, seed=5, **config)
    obs, mask, _ = env.reset(5)
    rng = np.random.default_rng(5)
    all_obs, all_mask = [], []
    for _ in range(70):  # through row choices, round ends and (draft) picks
        all_obs.append(obs.copy())
        all_mask.append(mask.copy())
        obs, mask, *_ = env.step(vector.random_actions(mask, rng))
    o, m = torch.from_numpy(np.concatenate(all_obs)), torch.from_numpy(np.concatenate(all_mask)).bool()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(1)
        net = build_model("take5", {"obs_dim": o.shape[1], "num_actions": m.shape[1], "hidden": [32, 32]})
    with torch.no_grad():
        fast, ref = net.prepare(o, m), _reference_prepare(net, o, m)
        assert torch.equal(fast["order"], ref["order"]) and torch.equal(fast["valid"], ref["valid"])
        v = ref["valid"]
        torch.testing.assert_close(fast["sel"][v], ref["sel"][v], rtol=0, atol=0)
        torch.testing.assert_close(fast["x"], ref["x"], rtol=1e-6, atol=1e-6)
        lg1, v1 = net.head(fast, m)
        lg2, v2 = net.head(ref, m)
    torch.testing.assert_close(lg1, lg2, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(v1, v2, rtol=1e-5, atol=1e-6)
    assert v.sum(1).min() >= 1 and (~v).any()  # rows of different lengths were padded


def test_take5_prepare_needs_the_mask():
    from fiveplay_env.agents.learned.nets import build_model

    obs, mask = _take5_batch(steps=1, envs=2)
    net = build_model("take5", {"obs_dim": obs.shape[1], "num_actions": mask.shape[1], "hidden": [8]})
    with pytest.raises(ValueError, match="needs the legal-action mask"):
        net.prepare(torch.from_numpy(obs))


# --- devices ----------------------------------------------------------------------------------------------

def test_resolve_device_names_and_missing_gpu():
    from fiveplay_env.agents.learned.devices import resolve_device

    assert resolve_device("cpu") == torch.device("cpu")
    assert resolve_device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
    with pytest.raises(ValueError, match=r"device: expected one of \['auto', 'cpu', 'cuda'\]"):
        resolve_device("tpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="expected a usable GPU for 'cuda'.*torch.cuda.is_available\\(\\) is False"):
            resolve_device("cuda")


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the error on a machine without a GPU")
def test_train_with_device_cuda_without_gpu_is_a_clear_error(tmp_path, capsys):
    from fiveplay_env.experiments.train import main

    with pytest.raises(ValueError, match="device: expected a usable GPU"):
        main(tiny_args(str(tmp_path), extra=["--device", "cuda"]))
    assert not os.listdir(tmp_path)  # nothing was started


def _cuda_tagged_save(monkeypatch):
    """Make ``torch.save`` tag every storage as living on cuda:0, as a checkpoint written by a GPU run
    without our CPU copies would be."""
    import torch.serialization as ser

    monkeypatch.setattr(ser, "location_tag", lambda storage: "cuda:0")


def test_checkpoint_with_cuda_tagged_tensors_loads_on_cpu(tmp_path, monkeypatch):
    from fiveplay_env.agents.learned.agent import PolicyAgent
    from fiveplay_env.agents.learned.checkpoint import load_checkpoint, save_checkpoint
    from fiveplay_env.agents.learned.algorithms.ppo import PPOConfig
    from fiveplay_env.agents.learned.trainer import Trainer

    cfg = PPOConfig(game="take5", config=dict(TAKE5_CFG), opponents=[("self", 1.0)], total_decisions=1000,
                      num_envs=4, rollout_steps=8, hidden=(16,))
    tr = Trainer(cfg, device="cpu")
    tr.train_update()
    state = tr.state(args={"x": 1})
    path = str(tmp_path / "gpu.pt")
    with monkeypatch.context() as mp:
        _cuda_tagged_save(mp)
        save_checkpoint(path, state)
    if not torch.cuda.is_available():
        # the file really says cuda: a plain torch.load cannot read it here
        raw = open(path, "rb").read()
        payload = raw.split(b"\n", 2)[2]
        with pytest.raises(RuntimeError, match="CUDA"):
            torch.load(io.BytesIO(payload), weights_only=True)
    ckpt = load_checkpoint(path)
    sd = ckpt["model"]["state_dict"]
    assert all(v.device.type == "cpu" for v in sd.values())
    agent = PolicyAgent.from_checkpoint(path, game="take5", seed=0)
    obs, mask = _take5_batch(steps=1, envs=3)
    acts = agent.act_batch(obs, mask)
    assert all(mask[i, a] for i, a in enumerate(acts))
    fresh = Trainer(cfg)
    fresh.load_state(ckpt)  # a resume on the CPU too
    assert all(torch.equal(a, b) for a, b in zip(fresh.model.state_dict().values(), tr.model.state_dict().values()))


def test_trainer_state_holds_cpu_tensors():
    from fiveplay_env.agents.learned.algorithms.ppo import PPOConfig
    from fiveplay_env.agents.learned.devices import to_cpu as _to_cpu
    from fiveplay_env.agents.learned.trainer import Trainer

    cfg = PPOConfig(game="take5", config=dict(TAKE5_CFG), opponents=[("self", 1.0)], total_decisions=1000,
                      num_envs=4, rollout_steps=8, hidden=(16,))
    tr = Trainer(cfg)
    tr.train_update()
    st = tr.state()

    def tensors(x):
        if isinstance(x, torch.Tensor):
            yield x
        elif isinstance(x, dict):
            for v in x.values():
                yield from tensors(v)
        elif isinstance(x, (list, tuple)):
            for v in x:
                yield from tensors(v)

    assert all(t.device.type == "cpu" for t in tensors(st))
    assert _to_cpu({"a": [torch.ones(2)], "b": 3})["b"] == 3


# --- logs -------------------------------------------------------------------------------------------------

def test_tensorboard_event_files_hold_the_training_scalars(tmp_path):
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from fiveplay_env.experiments.train import main

    res = main(tiny_args(str(tmp_path), total=600, extra=["--no-plots"]))
    tb = os.path.join(res["run_dir"], "tensorboard")
    assert res["tensorboard"] == tb and os.listdir(tb)
    acc = EventAccumulator(tb)
    acc.Reload()
    tags = set(acc.Tags()["scalars"])
    for tag in ("loss/policy", "loss/value", "loss/entropy", "loss/approx_kl", "loss/clipfrac",
                "throughput/decisions_per_s", "throughput/share_update", "throughput/share_engine",
                "eval/random/score", "eval/random/win", "eval/take5-safest/diff", "eval/take5-safest/win",
                "train/lr"):
        assert tag in tags, (tag, sorted(tags))
    steps = [e.step for e in acc.Scalars("loss/entropy")]
    assert steps == sorted(steps) and steps[-1] == res["decisions"]
    ent = [e.value for e in acc.Scalars("loss/entropy")]
    assert all(v > 0 for v in ent)


def test_no_tensorboard_flag(tmp_path):
    from fiveplay_env.experiments.train import main

    res = main(tiny_args(str(tmp_path), total=200, extra=["--no-plots", "--no-tensorboard"]))
    assert res["tensorboard"] is None and not os.path.exists(os.path.join(res["run_dir"], "tensorboard"))


class _FakeRun:
    def __init__(self, **kw):
        self.kw = kw
        self.logged: list[tuple[int, dict]] = []
        self.finished = False

    def log(self, values, step=None):
        self.logged.append((step, dict(values)))

    def finish(self):
        self.finished = True


def test_wandb_run_gets_the_same_scalars(tmp_path, monkeypatch):
    runs: list[_FakeRun] = []
    fake = types.ModuleType("wandb")

    def init(**kw):
        runs.append(_FakeRun(**kw))
        return runs[-1]

    fake.init = init  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "wandb", fake)
    monkeypatch.setenv("WANDB_MODE", "offline")
    from fiveplay_env.experiments.train import main

    res = main(tiny_args(str(tmp_path), total=300, extra=["--no-plots", "--no-tensorboard", "--wandb",
                                                           "--wandb-project", "t"]))
    (run,) = runs
    assert run.finished and run.kw["project"] == "t" and run.kw["dir"] == res["run_dir"]
    assert run.kw["config"]["train_config"]["game"] == "take5"
    keys = set().union(*(v.keys() for _, v in run.logged))
    assert {"loss/policy", "loss/clipfrac", "eval/random/win", "throughput/decisions_per_s"} <= keys
    assert run.logged[-1][0] == res["decisions"]


def test_wandb_missing_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "wandb", None)  # import wandb -> ImportError
    from fiveplay_env.experiments.train import main

    with pytest.raises(ValueError, match="wandb: expected the wandb package"):
        main(tiny_args(str(tmp_path), total=200, extra=["--no-plots", "--no-tensorboard", "--wandb"]))


# --- compact observation in training ----------------------------------------------------------------------

def test_compact_obs_training_equals_float_training():
    """The same seed with and without the compact observation: the same rollouts and the same updates."""
    from fiveplay_env.agents.learned.algorithms.ppo import PPOConfig
    from fiveplay_env.agents.learned.trainer import Trainer

    base = dict(game="take5", config=dict(TAKE5_CFG), opponents=[("take5-safest", 1.0), ("self", 1.0), ("pool", 1.0)],
                total_decisions=10_000, num_envs=8, rollout_steps=16, minibatch_size=64, epochs=1,
                hidden=(16,), snapshot_interval=1)
    a = Trainer(PPOConfig(**base))
    b = Trainer(PPOConfig(**base, compact_obs=True))
    assert b.obs.dtype == np.uint8 and b.obs.shape[1] == b.layout.size
    for _ in range(3):
        sa, sb = a.train_update(), b.train_update()
        assert sa["samples"] == sb["samples"] and a.decisions == b.decisions
    np.testing.assert_array_equal(b.layout.decode(b.obs), a.obs)
    for (ka, va), (kb, vb) in zip(a.model.state_dict().items(), b.model.state_dict().items()):
        torch.testing.assert_close(va, vb, rtol=1e-5, atol=1e-6)


def test_compact_obs_errors():
    from fiveplay_env.agents.learned.algorithms.ppo import PPOConfig

    with pytest.raises(ValueError, match="compact_obs: expected game 'take5'"):
        PPOConfig(game="five_alive", config={"num_players": 3}, opponents=[("self", 1.0)], total_decisions=10,
                    compact_obs=True)
    with pytest.raises(ValueError, match="compact_obs: expected the batched engine"):
        from fiveplay_env.agents.learned.trainer import Trainer
        Trainer(PPOConfig(game="take5", config=dict(TAKE5_CFG), opponents=[("self", 1.0)], total_decisions=10,
                            num_envs=2, backend="reference", compact_obs=True))
