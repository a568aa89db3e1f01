"""fiveplay_env.experiments.budget: the Wilson interval, the typed spec, a tiny budget-curve run through the
``fiveplay budget`` command (files, seat balance, intervals) and the search agent's profile hook."""
from __future__ import annotations

import csv
import json
import os

import pytest

from fiveplay_env.experiments import budget, cli


def test_wilson_interval_known_values() -> None:
    lo, hi = budget.wilson(0.5, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    lo, hi = budget.wilson(0.0, 10)  # a normal interval would collapse to [0, 0]
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-3)
    with pytest.raises(ValueError, match="n: expected an integer >= 1"):
        budget.wilson(0.5, 0)
    with pytest.raises(ValueError, match="p: expected a proportion"):
        budget.wilson(1.5, 10)


def test_spec_validates_and_expands_its_points() -> None:
    spec = budget.BudgetSpec(game="take5", series=("ismcts:sims={sims},eps=0.2",), sims=(2, 8))
    assert [p[2] for p in spec.points()] == ["ismcts:sims=2,eps=0.2", "ismcts:sims=8,eps=0.2"]
    assert spec.field_or_default() == "take5-safest" and spec.num_players == 4
    with pytest.raises(ValueError, match=r"series: expected '\{sims\}'"):
        budget.BudgetSpec(game="take5", series=("ismcts:sims=4",))
    with pytest.raises(ValueError, match="sims: expected integers >= 1"):
        budget.BudgetSpec(game="take5", sims=(0,))
    assert budget.default_series("take5")[0] == "ismcts:sims={sims}"


def test_default_series_guides_with_the_policy_of_its_player_count(monkeypatch) -> None:
    from fiveplay_env.agents.learned import pretrained

    fake = {n: pretrained.Pretrained(n, f"{n}.pt", "take5", k, "") for n, k in
            (("take5-game-4p", 4), ("take5-game-6p", 6))}
    monkeypatch.setattr(pretrained, "MODELS", fake)
    monkeypatch.setattr(pretrained, "available", lambda: list(fake))
    four = budget.BudgetSpec(game="take5").series_or_default()
    six = budget.BudgetSpec(game="take5", config={"num_players": 6, "mode": "game"}).series_or_default()
    assert four[1].startswith("ismcts:sims={sims},prior=take5-game-4p,")
    assert six[1] == four[1].replace("take5-game-4p", "take5-game-6p")
    monkeypatch.setattr(pretrained, "available", lambda: [])
    assert budget.default_series("take5", 4) == ("ismcts:sims={sims}",)


def test_tiny_budget_curve_through_the_command(tmp_path, capsys) -> None:
    code = cli.main(["budget", "--game", "take5", "--config", "num_players=3", "mode=round",
                     "--series", "ismcts:sims={sims}", "--sims", "2", "6", "--games", "2", "--out", str(tmp_path),
                     "--quiet"])
    out = capsys.readouterr().out
    assert code == 0 and "2 x `take5-safest`" in out and "Command: `python -m fiveplay_env.experiments.budget" in out
    (run_dir,) = [d for d in tmp_path.iterdir() if d.name.startswith("budget__take5__")]
    with open(run_dir / "budget.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [(r["agent"], int(r["sims"])) for r in rows] == [("ismcts:sims=2", 2), ("ismcts:sims=6", 6)]
    for r in rows:
        assert int(r["games"]) == 3 and r["seat_balanced"] == "True"  # 2 games rounded up to every seat once
        assert float(r["win_lo"]) <= float(r["win_rate"]) <= float(r["win_hi"])
        assert float(r["ms_per_decision"]) > 0 and 0 < float(r["cpu_share"]) <= 1
        assert os.path.exists(os.path.join(r["run_dir"], "games.csv"))
    data = json.loads((run_dir / "budget.json").read_text(encoding="utf-8"))
    assert data["players"] == 3 and data["field"] == "take5-safest" and len(data["points"]) == 2
    pytest.importorskip("matplotlib")
    assert (run_dir / "budget.png").stat().st_size > 1000


def test_profile_shares_add_up_on_the_toy_game(tmp_path) -> None:
    out = budget.run(budget.BudgetSpec(game="toybid", series=("ismcts:sims={sims}",), sims=(12,), profile=True,
                                       profile_games=2, out=str(tmp_path), quiet=True))
    (row,) = out["profile"]
    assert row["decisions"] > 0 and 0 < row["sims_per_decision"] <= 16
    shares = row["shares"]
    assert sum(shares.values()) == pytest.approx(1.0, abs=1e-6)
    assert shares["rollouts"] > 0 and shares["determinize"] > 0
    assert shares["prior"] == 0 and shares["network"] == 0  # no policy in this setting
    assert os.path.exists(os.path.join(out["run_dir"], "profile.md"))
