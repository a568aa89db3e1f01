"""``fiveplay_env.experiments.train.run(TrainSpec)``: a training command as data, through the command line's own parser."""
import pytest

from fiveplay_env.experiments.train import TrainSpec, run


def test_a_spec_is_the_command_line_it_stands_for():
    s = TrainSpec(settings={"game": "take5", "config": {"num_players": 4, "mode": "round"}, "max_minutes": 5,
                            "no_plots": True, "tensorboard": False, "eval_baselines": ["random"]})
    assert s.to_argv() == ["--game", "take5", "--config", "num_players=4", "mode=round", "--max-minutes", "5",
                           "--no-plots", "--no-tensorboard", "--eval-baselines", "random"]
    assert TrainSpec(algo="expit", resume="runs/x").to_argv() == ["--algo", "expit", "--resume", "runs/x"]


def test_a_bad_spec_names_what_was_wrong():
    with pytest.raises(ValueError, match="unknown option 'max_minute'"):
        TrainSpec(settings={"max_minute": 5})
    with pytest.raises(ValueError, match="algo"):
        TrainSpec(algo="dqn")
    with pytest.raises(ValueError, match="either evaluate or resume"):
        TrainSpec(resume="a", evaluate="b")


def test_a_bad_value_raises_instead_of_exiting(tmp_path):
    with pytest.raises(ValueError, match="argument --max-minutes"):
        run(TrainSpec(settings={"max_minutes": "soon", "out": str(tmp_path)}))
    assert not list(tmp_path.iterdir())  # nothing was started


def test_a_tiny_run_trains_and_records_its_command(tmp_path):
    res = run(TrainSpec(settings={"game": "take5", "config": {"num_players": 2, "mode": "round"},
                                  "total_decisions": 256, "num_envs": 8, "rollout_steps": 16, "minibatch_size": 64,
                                  "epochs": 1, "eval_games": 4, "eval_baselines": ["random"], "out": str(tmp_path),
                                  "quiet": True, "no_plots": True, "tensorboard": False}))
    assert res["decisions"] >= 256 and res["run_dir"].startswith(str(tmp_path))
    import json
    import os
    meta = json.load(open(os.path.join(res["run_dir"], "config.json"), encoding="utf-8"))
    assert meta["argv"][:4] == ["--game", "take5", "--config", "num_players=2"]
