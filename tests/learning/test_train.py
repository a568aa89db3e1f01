"""A tiny training run end to end: files, checkpoints, exact resume, determinism, the ckpt: agent."""
from __future__ import annotations

import csv
import os
import shutil

import numpy as np
import pytest
import torch

from tests.learning.conftest import TAKE5_CFG, tiny_args


def _state_dict(run_dir: str) -> dict[str, torch.Tensor]:
    from fiveplay_env.agents.learned.checkpoint import load_checkpoint

    return load_checkpoint(run_dir)["model"]["state_dict"]


def _same(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    from fiveplay_env.experiments.train import main

    out = str(tmp_path_factory.mktemp("runs"))
    return main(tiny_args(out))


def test_tiny_run_writes_its_files(tiny_run):
    r = tiny_run
    assert r["complete"] and r["decisions"] >= 1000 and r["updates"] >= 2
    assert os.path.basename(r["run_dir"]).startswith("train__take5__0__")
    for name in ("config.json", "checkpoint.pt", "curves.csv", "curves.png", "updates.csv", "summary.json"):
        assert os.path.getsize(os.path.join(r["run_dir"], name)) > 0, name
    with open(r["curves_csv"], newline="") as f:
        rows = list(csv.DictReader(f))
    assert {row["baseline"] for row in rows} == {"random", "take5-safest"}
    assert rows[0]["update"] == "0" and int(rows[-1]["update"]) == r["updates"]
    thr = r["throughput"]
    assert thr["decisions_per_s"] > 0
    assert abs(sum(thr["share"].values()) - 1.0) < 1e-6
    assert not [f for f in os.listdir(r["run_dir"]) if f.startswith(".tmp")]  # atomic writes left nothing behind


def test_policy_plays_legal_moves_through_the_agent_protocol(tiny_run):
    import fiveplay_env.agents.learned  # noqa: F401 - registers ckpt:
    from fiveplay_env.agents import games
    from fiveplay_env.agents.arena import play_game
    from fiveplay_env.agents.registry import make_agent

    game = games.get_game("take5")
    config = game.make_config(TAKE5_CFG)
    for name in (r"ckpt:" + tiny_run["run_dir"], "ckpt:" + tiny_run["checkpoint"] + "?sample"):
        agent = make_agent(name, "take5", seed=1)
        others = [make_agent("random", "take5", seed=s) for s in range(3)]
        rec = play_game(game, config, [agent, *others], seed=5)  # the env raises on any illegal move
        assert rec.decisions[0] >= 10 and not rec.truncated
    a1 = make_agent("ckpt:" + tiny_run["run_dir"] + "?sample", "take5", seed=3)
    a2 = make_agent("ckpt:" + tiny_run["run_dir"] + "?sample", "take5", seed=3)
    from fiveplay_env.vector import make_vec

    obs, mask, _ = make_vec("take5", 64, seed=2, **TAKE5_CFG).reset()
    x1, x2 = a1.act_batch(obs, mask), a2.act_batch(obs, mask)
    assert np.array_equal(x1, x2) and mask[np.arange(64), x1].all()
    assert mask[0, a1.act(obs[0], mask[0])]


def test_policy_in_a_tournament(tiny_run, tmp_path):
    tournament = pytest.importorskip("fiveplay_env.experiments.tournament")
    import fiveplay_env.agents.learned  # noqa: F401

    res = tournament.main(["--game", "take5", "--agents", "ckpt:" + tiny_run["run_dir"], "random", "take5-safest",
                           "random", "--config", "mode=round", "--games", "8", "--out", str(tmp_path), "--quiet",
                           "--no-plots"])
    assert res is not None


def test_resume_continues_exactly(tiny_run, tmp_path):
    """Stop at 1,000 decisions, resume to 1,600: the same network as one uninterrupted run to 1,600."""
    from fiveplay_env.experiments.train import main

    first = str(tmp_path / "first")
    shutil.copytree(tiny_run["run_dir"], first)
    resumed = main(["--resume", first, "--total-decisions", "1600", "--quiet"])
    assert resumed["run_dir"] == first and resumed["updates"] > tiny_run["updates"]
    straight = main(tiny_args(str(tmp_path / "straight"), total=1600))
    assert straight["updates"] == resumed["updates"] and straight["decisions"] == resumed["decisions"]
    assert _same(_state_dict(first), _state_dict(straight["run_dir"]))
    with open(resumed["curves_csv"], newline="") as f:
        ups = [int(r["update"]) for r in csv.DictReader(f)]
    assert ups == sorted(ups)  # no duplicated evaluation rows after the resume


def test_trainer_resume_equals_uninterrupted_update(tmp_path):
    """Trainer level: save after 2 updates; a fresh trainer loaded from it makes exactly update 3; and the
    same seed gives the same first updates."""
    from fiveplay_env.agents.learned.checkpoint import load_checkpoint, save_checkpoint
    from fiveplay_env.agents.learned.algorithms.ppo import PPOConfig
    from fiveplay_env.agents.learned.trainer import Trainer

    cfg = PPOConfig(game="take5", config=dict(TAKE5_CFG), opponents=[("take5-safest", 1.0), ("self", 1.0), ("pool", 1.0)],
                      total_decisions=10_000, num_envs=8, rollout_steps=24, minibatch_size=64, epochs=2,
                      hidden=(32, 32), snapshot_interval=1)
    a = Trainer(cfg)
    a.train_update()
    a.train_update()
    after2 = {k: v.clone() for k, v in a.model.state_dict().items()}
    path = str(tmp_path / "c.pt")
    save_checkpoint(path, a.state(args={"note": "test"}))
    a.train_update()
    b = Trainer(cfg)
    b.train_update()
    b.train_update()
    assert _same(after2, b.model.state_dict())          # same seed, same first updates
    c = Trainer(cfg)
    c.load_state(load_checkpoint(path))
    c.train_update()
    assert _same(a.model.state_dict(), c.model.state_dict())
    assert np.array_equal(a.obs, c.obs) and a.decisions == c.decisions and a.games == c.games
    assert len(a.pool) == len(c.pool) == 3


FIVE_ALIVE_ARGS = ["--game", "five_alive", "--config", "num_players=3", "--opponents", "random", "self",
                   "--total-decisions", "300", "--num-envs", "8", "--rollout-steps", "16", "--minibatch-size", "64",
                   "--epochs", "1", "--hidden", "32", "--eval-interval", "0", "--eval-games", "6",
                   "--eval-baselines", "random", "--quiet", "--no-plots"]


@pytest.mark.parametrize("backend", ["auto", "reference"])
def test_five_alive_trains_and_resumes(tmp_path, backend):
    from fiveplay_env.agents.learned.envs import has_batched_engine
    from fiveplay_env.experiments.train import main

    r = main([*FIVE_ALIVE_ARGS, "--backend", backend, "--out", str(tmp_path)])
    assert r["decisions"] >= 300
    auto = "batched" if has_batched_engine("five_alive") else "reference-loop"
    assert r["backend"] == (auto if backend == "auto" else "reference-loop")
    assert 0.0 <= r["evaluations"]["random"]["win"][0] <= 1.0
    more = main(["--resume", r["run_dir"], "--total-decisions", "500", "--quiet"])  # the games in progress resume
    assert more["decisions"] >= 500 and more["updates"] > r["updates"] and more["backend"] == r["backend"]


def test_resume_stays_on_the_engine_it_was_saved_from(tmp_path, monkeypatch):
    """A run started (backend auto) before a game had a batched engine resumes on the reference loop."""
    from fiveplay_env import vector
    from fiveplay_env.experiments.train import main

    if "five_alive" not in vector.REGISTRY:
        pytest.skip("5 Alive has no batched engine here")
    saved = vector.REGISTRY
    monkeypatch.setattr(vector, "REGISTRY", {k: v for k, v in saved.items() if k != "five_alive"})
    r = main([*FIVE_ALIVE_ARGS, "--out", str(tmp_path)])
    assert r["backend"] == "reference-loop"
    monkeypatch.setattr(vector, "REGISTRY", saved)
    more = main(["--resume", r["run_dir"], "--total-decisions", "500", "--quiet"])
    assert more["backend"] == "reference-loop" and more["decisions"] >= 500


def test_bad_arguments_are_named(tmp_path):
    from fiveplay_env.experiments.train import main

    with pytest.raises(ValueError, match="agent name"):
        main(tiny_args(str(tmp_path), extra=["--opponents", "no-such-agent"]))
    with pytest.raises(ValueError, match="num_envs"):
        main(tiny_args(str(tmp_path), extra=["--num-envs", "0"]))
    with pytest.raises(ValueError, match="mode"):
        main(["--config", "mode=forever", "--out", str(tmp_path), "--quiet"])
    with pytest.raises(ValueError, match="eval-games"):
        main(tiny_args(str(tmp_path), extra=["--eval-games", "0"]))
    with pytest.raises(SystemExit):
        main(["--total-decisions", "many"])


def test_a_budget_the_evaluations_fill_makes_one_update_and_says_so(tmp_path, capsys):
    """--max-minutes counts the whole command: when the first evaluation alone takes the budget, the run makes
    one update (never none), evaluates and checkpoints it, and says why it ends late."""
    from fiveplay_env.experiments.train import main

    args = [a for a in tiny_args(str(tmp_path)) if a != "--quiet"]
    r = main(args + ["--max-minutes", "0.00001", "--no-progress", "--total-decisions", "100000"])
    assert r["updates"] == 1 and not r["complete"]
    assert "takes the whole --max-minutes budget" in capsys.readouterr().out
    from fiveplay_env.agents.learned.checkpoint import load_checkpoint

    assert load_checkpoint(r["checkpoint"])["progress"]["update"] == 1


def test_curves_compare_runs_at_equal_training_time(tiny_run, tmp_path):
    """fiveplay_env.experiments.curves: the table and plot of several runs against one baseline, from their files."""
    from fiveplay_env.experiments import curves

    out = str(tmp_path / "cmp.png")
    r = curves.main([tiny_run["run_dir"], tiny_run["run_dir"], "--baseline", "take5-safest", "--labels", "A", "B",
                     "--out", out])
    with open(tiny_run["curves_csv"], encoding="utf-8", newline="") as f:
        last = [row for row in csv.DictReader(f) if row["baseline"] == "take5-safest"][-1]
    assert [row["label"] for row in r["rows"]] == ["A", "B"]
    assert r["rows"][0]["decisions"] == int(last["decisions"])
    assert r["rows"][0]["win_last"][0] == float(last["win_mean"])
    assert os.path.getsize(out) > 1000 and "| A | batched |" in open(r["md"], encoding="utf-8").read()
    with pytest.raises(ValueError, match="no evaluation against 'nobody'"):
        curves.compare([tiny_run["run_dir"]], baseline="nobody")
    with pytest.raises(ValueError, match="labels: expected one per run"):
        curves.compare([tiny_run["run_dir"]], labels=["a", "b"])


class _FakeClock:
    """A wall clock that moves only when told: each training update takes ``step`` seconds of it."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 1_000_000.0, step

    def __call__(self) -> float:
        return self.now


def test_the_time_budget_is_the_budget_and_the_stop_is_said(tmp_path, monkeypatch, capsys):
    """--max-minutes without --total-decisions: the run trains for the time (no decision cap), ends within the
    budget on a fake clock where each update takes 7 s, and its last line says what stopped it and where the
    checkpoint is."""
    import fiveplay_env.experiments.train as train
    from fiveplay_env.agents.learned.trainer import Trainer

    clock = _FakeClock(7.0)
    monkeypatch.setattr(train, "CLOCK", clock)
    real = Trainer.train_update

    def slow_update(self):
        clock.now += clock.step
        return real(self)

    monkeypatch.setattr(Trainer, "train_update", slow_update)
    args = tiny_args(str(tmp_path))
    i = args.index("--total-decisions")
    del args[i:i + 2]
    args = [a for a in args if a != "--quiet"] + ["--no-progress", "--max-minutes", "1", "--eval-interval", "0"]
    r = train.main(args)
    used = clock.now - 1_000_000.0
    assert 60 - 7 <= used <= 60, used  # within one update of the budget, never past it
    assert r["stopped"] == "time" and r["updates"] == 8 and not r["complete"]
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("train: stopped by the time budget (--max-minutes 1)")
    assert r["checkpoint"] in last and f"fiveplay train --resume {r['run_dir']}" in last


def test_a_decision_cap_and_ctrl_c_are_said(tmp_path, monkeypatch, capsys):
    """The decision cap's stop line; Ctrl-C mid-run saves a checkpoint of the updates made and says so."""
    import fiveplay_env.experiments.train as train
    from fiveplay_env.agents.learned.checkpoint import load_checkpoint
    from fiveplay_env.agents.learned.trainer import Trainer

    args = [a for a in tiny_args(str(tmp_path / "a"), total=300) if a != "--quiet"] + ["--no-progress"]
    r = train.main(args)
    assert r["stopped"] == "decisions"
    assert capsys.readouterr().out.strip().splitlines()[-1].startswith(
        "train: stopped by the decision cap (--total-decisions 300)")
    real = Trainer.train_update

    def interrupted(self):
        if self.update_idx == 3:
            raise KeyboardInterrupt
        return real(self)

    monkeypatch.setattr(Trainer, "train_update", interrupted)
    args = [a for a in tiny_args(str(tmp_path / "b"), total=10**6) if a != "--quiet"] + ["--no-progress"]
    r = train.main(args)
    assert r["stopped"] == "interrupted" and r["updates"] == 3
    assert load_checkpoint(r["checkpoint"])["progress"]["update"] == 3
    assert capsys.readouterr().out.strip().splitlines()[-1].startswith("train: stopped by Ctrl-C after")
