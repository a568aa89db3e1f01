"""Expert iteration (``fiveplay_env.agents.learned.algorithms.expit``): the config's errors, the targets, the update
moving the policy toward them, bit-identical resume, the checkpoint as an agent and as a search prior,
and ``fiveplay train --algo expit``."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from tests.learning.conftest import TAKE5_CFG

# the search's cheapest settings: two worlds per candidate; the policy-guided one exercises the prior path
FAST = "bsearch:worlds=2"
GUIDED = "bsearch:worlds=2,rollout=policy,depth=1,value=1"


def _cfg(**kw):
    from fiveplay_env.agents.learned.algorithms.expit import ExpitConfig

    base = dict(game="take5", config=dict(TAKE5_CFG), opponents=[("take5-safest", 1.0)], total_decisions=10_000,
                hidden=(16,), search=FAST, games_per_update=1, minibatch_size=16, buffer_size=25,
                lr_schedule="constant", win_reward=3.0)
    return ExpitConfig(**{**base, **kw})


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize("kw, field", [
    ({"search": "mcts:sims=4"}, "search"),
    ({"search": "bsearch:time=0.01"}, "search"),
    ({"search": "bsearch:worlds=2,bogus=1"}, "search"),
    ({"search": "bsearch:worlds=0"}, "search"),
    ({"opponents": [("pool", 1.0)]}, "opponents"),
    ({"target": "best"}, "target"),
    ({"target_temp": 0.0}, "target_temp"),
    ({"games_per_update": 0}, "games_per_update"),
    ({"buffer_size": 0}, "buffer_size"),
    ({"replay_ratio": -1.0}, "replay_ratio"),
    ({"backend": "batched"}, "backend"),
    ({"compact_obs": True}, "compact_obs"),
])
def test_bad_config_values_are_named(kw, field):
    with pytest.raises(ValueError, match=f"^{field}: "):
        _cfg(**kw)


def test_registered_and_checkpoint_config_round_trip():
    from fiveplay_env.agents.learned.algorithms import ALGORITHMS, config_from_dict
    from fiveplay_env.agents.learned.algorithms.expit import ExpitConfig

    assert "expit" in ALGORITHMS
    cfg = _cfg(target="visits", search=GUIDED)
    again = config_from_dict(cfg.to_dict(), "expit")
    assert isinstance(again, ExpitConfig) and again == cfg


def test_targets_from_the_searchs_thoughts():
    from fiveplay_env.agents.learned.trainer import make_learner

    thoughts = {"kind": "search", "chosen": 5, "candidates": [
        {"action": 5, "visits": 6, "mean": -1.0}, {"action": 9, "visits": 6, "mean": -2.0},
        {"action": 2, "visits": 2, "mean": -4.0}, {"action": 7, "visits": 0, "mean": None}]}
    tr = {k: make_learner(_cfg(target=k, target_temp=2.0)) for k in ("values", "visits", "chosen")}
    v = tr["values"]._target(thoughts, 5)
    w = np.exp(np.array([-1.0, -2.0, -4.0]) / 2.0)
    np.testing.assert_allclose(v[[5, 9, 2]], w / w.sum(), rtol=1e-6)
    assert v.sum() == pytest.approx(1.0) and v[7] == 0
    np.testing.assert_allclose(tr["visits"]._target(thoughts, 5)[[5, 9, 2]], [6 / 14, 6 / 14, 2 / 14], rtol=1e-6)
    one = tr["chosen"]._target(thoughts, 5)
    assert one[5] == 1 and one.sum() == 1
    forced = {"kind": "search", "forced": True, "chosen": 3, "candidates": [{"action": 3, "visits": 0, "mean": None}]}
    assert tr["values"]._target(forced, 3)[3] == 1


def test_the_update_moves_the_policy_toward_the_targets():
    from fiveplay_env.agents.learned.trainer import make_learner

    tr = make_learner(_cfg(buffer_size=1000))
    tr.train_update()
    batch = {k: v.copy() for k, v in tr.buffer.arrays().items()}
    assert batch["ret"].shape[0] >= 10 and np.allclose(batch["target"].sum(1), 1.0, atol=1e-5)
    assert not (batch["target"] * ~batch["mask"]).any()  # targets only on legal actions

    def losses():
        with torch.no_grad():
            logits, value = tr.model(torch.from_numpy(batch["obs"]), torch.from_numpy(batch["mask"]))
            logp = torch.log_softmax(logits, 1)
            t = torch.from_numpy(batch["target"])
            ce = -torch.where(t > 0, t * logp, torch.zeros_like(logp)).sum(1).mean()
            return float(ce), float(((value - torch.from_numpy(batch["ret"])) ** 2).mean())

    ce0, v0 = losses()
    for _ in range(20):
        tr.algorithm.update(batch, 3e-3, steps=4)
    ce1, v1 = losses()
    assert ce1 < ce0 - 0.05 and v1 < v0


def _run(updates: int, trainer=None, **kw):
    from fiveplay_env.agents.learned.trainer import make_learner

    tr = trainer or make_learner(_cfg(**kw))
    for _ in range(updates):
        tr.train_update()
    return tr


@pytest.fixture(scope="module")
def resumed(tmp_path_factory):
    """A tiny guided run: 4 updates straight, and 2 + checkpoint + resume + 2 (the buffer wraps around)."""
    from fiveplay_env.agents.learned.checkpoint import load_checkpoint, save_checkpoint
    from fiveplay_env.agents.learned.trainer import make_learner

    prev = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        kw = dict(search=GUIDED, opponents=[("take5-safest", 1.0), ("random", 1.0)])
        straight = _run(4, **kw)
        half = _run(2, **kw)
        path = str(tmp_path_factory.mktemp("expit") / "checkpoint.pt")
        save_checkpoint(path, half.state(args={"algo": "expit"}))
        again = make_learner(_cfg(**kw), warm_start=False)
        again.load_state(load_checkpoint(path))
        _run(2, trainer=again)
        final = str(tmp_path_factory.mktemp("expit") / "final.pt")
        save_checkpoint(final, again.state(args={"algo": "expit"}))
    finally:
        torch.set_num_threads(prev)
    return straight, again, final


def test_a_resumed_run_continues_bit_identically(resumed):
    straight, again, _ = resumed
    assert straight.decisions == again.decisions and straight.update_idx == again.update_idx == 4
    assert len(straight.buffer) == straight.cfg.buffer_size  # the ring wrapped: pos matters
    assert _same(straight.model.state_dict(), again.model.state_dict())
    for k, v in straight.buffer.arrays().items():
        np.testing.assert_array_equal(v, again.buffer.arrays()[k])
    assert straight.buffer.pos == again.buffer.pos
    assert straight.rng.bit_generator.state == again.rng.bit_generator.state
    a, b = straight.algorithm.state_dict()["state"], again.algorithm.state_dict()["state"]
    assert a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)


def test_the_checkpoint_loads_as_a_ckpt_agent_and_as_a_search_prior(resumed):
    from fiveplay_env.agents import games
    from fiveplay_env.agents.arena import play_game
    from fiveplay_env.agents.learned.checkpoint import load_checkpoint
    from fiveplay_env.agents.registry import make_agent

    _, again, path = resumed
    ck = load_checkpoint(path)
    assert ck["kind"] == "fiveplay-policy" and ck["algo"] == "expit" and ck["train_config"]["search"] == GUIDED
    g = games.get_game("take5")
    config = g.make_config(TAKE5_CFG)
    policy = make_agent(f"ckpt:{path}", "take5", seed=0)
    logits, _ = policy.evaluate(np.zeros((1, again.D), np.float32), np.ones((1, again.A), np.int8))
    with torch.no_grad():
        want, _ = again.model(torch.zeros(1, again.D), torch.ones(1, again.A, dtype=torch.bool))
    np.testing.assert_allclose(logits, want.numpy(), rtol=1e-6, atol=1e-6)
    search = make_agent(f"bsearch:worlds=2,prior=ckpt:{path},rollout=policy,depth=1,value=1", "take5", seed=0)
    rec = play_game(g, config, [policy, search, make_agent("random", "take5", seed=1),
                                make_agent("take5-safest", "take5", seed=2)], seed=3)
    assert rec.decisions[0] > 0 and rec.decisions[1] > 0


def test_the_search_gets_the_network_in_memory(tmp_path, monkeypatch):
    """The expert is handed the learner's network in memory (``guided_search``: ``set_prior_policy``): one frozen
    copy for every seat, playing as a ``ckpt:`` prior of the same weights would, unchanged by later updates."""
    from fiveplay_env.agents.learned.agent import PolicyAgent
    from fiveplay_env.agents.learned.checkpoint import save_checkpoint
    from fiveplay_env.agents.search import SearchAgent

    handed = []
    real = SearchAgent.set_prior_policy
    monkeypatch.setattr(SearchAgent, "set_prior_policy", lambda self, agent: (handed.append(agent), real(self, agent))[1])
    tr = _run(1, search=GUIDED, buffer_size=1000)
    assert len(handed) == tr.n and all(a is handed[0] for a in handed)
    handed.clear()
    tr.experts()  # the next update's experts: the trained network
    policy = handed[0]
    path = str(tmp_path / "prior.pt")
    save_checkpoint(path, tr.policy_payload())
    obs = np.random.default_rng(0).random((5, tr.D)).astype(np.float32)
    mask = np.ones((5, tr.A), np.int8)
    from_file = PolicyAgent.from_checkpoint(path, game="take5").evaluate(obs, mask)
    np.testing.assert_array_equal(policy.evaluate(obs, mask)[0], from_file[0])
    np.testing.assert_array_equal(policy.evaluate(obs, mask)[1], from_file[1])
    assert policy.meta["train_config"]["reward_scale"] == tr.cfg.reward_scale  # the value head's units
    tr.algorithm.update(tr.buffer.arrays(), 1e-2, steps=2)  # the learner moves on; the copy does not
    np.testing.assert_array_equal(policy.evaluate(obs, mask)[0], from_file[0])


def test_resume_refuses_another_search(resumed, tmp_path):
    from fiveplay_env.agents.learned.checkpoint import load_checkpoint
    from fiveplay_env.agents.learned.trainer import make_learner
    from fiveplay_env.core.errors import CheckpointError

    _, _, path = resumed
    other = make_learner(_cfg(search=FAST, opponents=[("take5-safest", 1.0), ("random", 1.0)]), warm_start=False)
    with pytest.raises(CheckpointError, match="training setting search"):
        other.load_state(load_checkpoint(path))


def test_fiveplay_train_algo_expit_resumes_like_a_straight_run(tmp_path):
    from fiveplay_env.agents.learned.checkpoint import load_checkpoint
    from fiveplay_env.experiments.train import main

    def args(out, total):
        return ["--algo", "expit", "--game", "take5", "--config", "num_players=4", "mode=round",
                "--opponents", "take5-safest", "self", "--search", "bsearch:worlds=1", "--games-per-update", "1",
                "--hidden", "16", "--minibatch-size", "16", "--total-decisions", str(total),
                "--eval-games", "4", "--eval-baselines", "random", "--eval-interval", "0",
                "--checkpoint-interval", "1", "--seed", "2", "--out", str(out), "--quiet", "--no-plots",
                "--no-tensorboard", "--lr-schedule", "constant"]

    straight = main(args(tmp_path / "a", 60))
    first = main(args(tmp_path / "b", 25))
    assert first["stopped"] == "decisions" and 0 < first["updates"] < straight["updates"]
    resumed = main(["--resume", first["run_dir"], "--total-decisions", "60", "--quiet", "--no-plots",
                    "--no-tensorboard"])
    assert resumed["updates"] == straight["updates"] and resumed["decisions"] == straight["decisions"]
    a, b = load_checkpoint(straight["checkpoint"]), load_checkpoint(resumed["checkpoint"])
    assert a["algo"] == b["algo"] == "expit"
    assert _same(a["model"]["state_dict"], b["model"]["state_dict"])
    assert "random" in resumed["evaluations"]
