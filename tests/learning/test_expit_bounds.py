"""Expert iteration's options are bounded, an update stops at the run's decision cap (not only between
updates), and the files written for the search's prior live inside the run folder and go on every exit
(issue 53, item 5)."""
from __future__ import annotations

import glob
import os
import tempfile

import pytest

pytest.importorskip("torch")

from tests.learning.conftest import TAKE5_CFG  # noqa: E402

SEARCH = "ismcts:sims=2"


def _cfg(**kw):
    from fiveplay_env.agents.learned.algorithms.expit import ExpitConfig

    base = dict(game="take5", config=dict(TAKE5_CFG), opponents=[("take5-safest", 1.0)], total_decisions=10_000,
                hidden=(16,), search=SEARCH, games_per_update=1, minibatch_size=16, buffer_size=25,
                lr_schedule="constant")
    return ExpitConfig(**{**base, **kw})


@pytest.mark.parametrize("field, value", [("games_per_update", 10**12), ("buffer_size", 10**12),
                                          ("minibatch_size", 10**9)])
def test_absurd_options_are_refused_by_name(field, value):
    """The audit's reproducer: ``--games-per-update 10**12`` never finished, ``--buffer-size 10**12`` was
    accepted."""
    with pytest.raises(ValueError, match=f"^{field}: expected .*at most|^{field}: expected .*<="):
        _cfg(**{field: value})


def test_the_command_line_refuses_them_in_one_line(tmp_path, capsys):
    from fiveplay_env.experiments import cli

    for opt in ("--games-per-update", "--buffer-size"):
        code = cli.main(["train", "--algo", "expit", opt, str(10**12), "--out", str(tmp_path)])
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1 and opt.lstrip("-").replace("-", "_") in err.replace("-", "_"), err
    assert not os.listdir(tmp_path)


def test_a_buffer_too_large_for_memory_is_refused_for_the_game():
    from fiveplay_env.agents.learned.trainer import make_trainer

    with pytest.raises(ValueError, match=r"^buffer_size: expected at most [\d,]+ samples for take5"):
        make_trainer(_cfg(buffer_size=2_000_000, config=dict(TAKE5_CFG, num_players=10)))


def test_an_update_stops_at_the_decision_cap():
    """An update of 100,000 games ends once the run's decisions are reached."""
    from fiveplay_env.agents.learned.trainer import make_trainer

    tr = make_trainer(_cfg(games_per_update=100_000, total_decisions=15))
    st = tr.train_update()
    assert 15 <= tr.decisions < 15 + 40 and st["finished"] == tr.games < 5
    tr2 = make_trainer(_cfg(games_per_update=100_000, total_decisions=10**6))
    calls = []
    tr2.should_stop = lambda: calls.append(1) or len(calls) >= 2  # the time budget, spent after two games
    tr2.train_update()
    assert tr2.games == 2


def test_the_prior_files_live_in_the_work_dir_and_go_on_close(tmp_path):
    from fiveplay_env.agents.learned.trainer import make_trainer

    before = set(glob.glob(os.path.join(tempfile.gettempdir(), "fiveplay-expit-*")))
    tr = make_trainer(_cfg())
    tr.work_dir = str(tmp_path / "work")
    os.makedirs(tmp_path / "work" / "expit-prior")
    (tmp_path / "work" / "expit-prior" / "prior-0000003.pt").write_bytes(b"left by a kill -9")
    tr.train_update()
    files = os.listdir(tmp_path / "work" / "expit-prior")
    assert files == ["prior-0000000.pt"]  # the stale file of a killed run cleared
    tr.close()
    assert not os.path.exists(tmp_path / "work" / "expit-prior")
    assert set(glob.glob(os.path.join(tempfile.gettempdir(), "fiveplay-expit-*"))) == before


def test_fiveplay_train_leaves_no_temporary_folder(tmp_path):
    from fiveplay_env.experiments.train import main

    before = set(glob.glob(os.path.join(tempfile.gettempdir(), "fiveplay-expit-*")))
    out = main(["--algo", "expit", "--game", "take5", "--config", "num_players=3", "mode=round",
                "--opponents", "take5-safest", "--search", SEARCH, "--games-per-update", "100000",
                "--hidden", "16", "--minibatch-size", "16", "--total-decisions", "12", "--eval-games", "2",
                "--eval-baselines", "random", "--eval-interval", "0", "--seed", "1", "--out", str(tmp_path),
                "--quiet", "--no-plots", "--no-tensorboard"])
    assert out["updates"] == 1 and out["complete"]
    assert not os.path.exists(os.path.join(out["run_dir"], "work", "expit-prior"))
    assert set(glob.glob(os.path.join(tempfile.gettempdir(), "fiveplay-expit-*"))) == before
