"""``make demo``'s main job runs end to end (its quick form) and leaves its results on disk."""
from __future__ import annotations

import json
from pathlib import Path

import pytest


@pytest.mark.slow
def test_quick_demo_trains_plays_both_tournaments_and_saves_results(tmp_path: Path, capsys):
    from fiveplay_env.experiments import demo

    res = demo.main(["--quick", "--out", str(tmp_path), "--train-minutes", "0.1", "--workers", "1"])
    out = capsys.readouterr().out
    assert "Take 5 tournament" in out and "5 Alive tournament" in out
    policy = res["train"]["agent"]
    assert policy.startswith("ckpt:")
    for key in ("take5", "five_alive"):
        run = Path(res[key]["run_dir"])
        summary = json.loads((run / "summary.json").read_text())
        assert summary["complete"] and summary["games_completed"] == summary["games_planned"]
        assert (run / "games.csv").exists() and list(run.glob("*.png"))
    t5 = json.loads((Path(res["take5"]["run_dir"]) / "config.json").read_text())
    assert policy in t5["agents"]
    assert (Path(res["train"]["run_dir"]) / "checkpoint.pt").exists()
