"""Expert iteration's options are bounded, and an update stops at the run's decision cap (not only between
updates) (issue 53, item 5). (The files once written for the search's prior are gone: the network reaches
the search in memory, ``test_expit.py``.)"""
from __future__ import annotations

import os

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
    from fiveplay_env.agents.learned.trainer import make_learner

    with pytest.raises(ValueError, match=r"^buffer_size: expected at most [\d,]+ samples for take5"):
        make_learner(_cfg(buffer_size=2_000_000, config=dict(TAKE5_CFG, num_players=10)))


def test_an_update_stops_at_the_decision_cap():
    """An update of 100,000 games ends once the run's decisions are reached."""
    from fiveplay_env.agents.learned.trainer import make_learner

    tr = make_learner(_cfg(games_per_update=100_000, total_decisions=15))
    st = tr.train_update()
    assert 15 <= tr.decisions < 15 + 40 and st["finished"] == tr.games < 5
    tr2 = make_learner(_cfg(games_per_update=100_000, total_decisions=10**6))
    calls = []
    tr2.should_stop = lambda: calls.append(1) or len(calls) >= 2  # the time budget, spent after two games
    tr2.train_update()
    assert tr2.games == 2
