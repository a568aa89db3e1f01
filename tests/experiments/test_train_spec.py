"""``fiveplay_env.experiments.train.run(TrainSpec)``: a training command as typed data, run directly (no command
line in between), recording the command it stands for."""
import pytest

pytest.importorskip("torch")

from fiveplay_env.agents.learned.algorithms.expit import ExpitConfig  # noqa: E402
from fiveplay_env.agents.learned.algorithms.ppo import PPOConfig  # noqa: E402
from fiveplay_env.experiments.train import RunOptions, TrainSpec, run  # noqa: E402


def test_a_spec_records_the_command_line_it_stands_for():
    s = TrainSpec(PPOConfig(game="take5", config={"num_players": 4, "mode": "round"}, clip=0.3),
                  RunOptions(max_minutes=5, no_plots=True, tensorboard=False, eval_baselines=["random"]))
    assert s.to_argv() == ["--game", "take5", "--config", "num_players=4", "mode=round", "--clip", "0.3",
                           "--eval-baselines", "random", "--max-minutes", "5", "--no-tensorboard", "--no-plots"]
    e = TrainSpec(ExpitConfig(game="take5", opponents=[("random", 1.0), ("self", 2.0)], games_per_update=2))
    assert e.to_argv() == ["--algo", "expit", "--game", "take5", "--opponents", "random", "self@2",
                           "--games-per-update", "2"]
    assert TrainSpec(resume="runs/x", total_decisions=9).to_argv() == ["--resume", "runs/x", "--total-decisions", "9"]


def test_a_bad_spec_names_what_was_wrong():
    with pytest.raises(ValueError, match="^train: expected an algorithm's config"):
        TrainSpec()
    with pytest.raises(ValueError, match="either evaluate or resume"):
        TrainSpec(resume="a", evaluate="b")
    with pytest.raises(ValueError, match="^train: expected None with resume"):
        TrainSpec(PPOConfig(), resume="a")
    with pytest.raises(ValueError, match="^num_envs: not an option of algorithm 'expit'"):
        TrainSpec(ExpitConfig(num_envs=8))


def test_a_bad_value_raises_before_anything_starts(tmp_path):
    with pytest.raises(ValueError, match="^max-minutes: expected a number > 0, got 'soon'"):
        run(TrainSpec(PPOConfig(), RunOptions(max_minutes="soon", out=str(tmp_path))))
    assert not list(tmp_path.iterdir())  # nothing was started


def test_a_tiny_run_trains_and_records_its_command(tmp_path):
    res = run(TrainSpec(PPOConfig(game="take5", config={"num_players": 2, "mode": "round"}, total_decisions=256,
                                  num_envs=8, rollout_steps=16, minibatch_size=64, epochs=1),
                        RunOptions(eval_games=4, eval_baselines=["random"], out=str(tmp_path), quiet=True,
                                   no_plots=True, tensorboard=False)))
    assert res["decisions"] >= 256 and res["run_dir"].startswith(str(tmp_path))
    import json
    import os
    meta = json.load(open(os.path.join(res["run_dir"], "config.json"), encoding="utf-8"))
    assert meta["argv"][:4] == ["--game", "take5", "--config", "num_players=2"]
    more = run(TrainSpec(resume=res["run_dir"], total_decisions=400))
    assert more["decisions"] >= 400 and more["run_dir"] == res["run_dir"]
