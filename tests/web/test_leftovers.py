"""Issue 52's smaller items (point 6): 5 Alive's log says who went out before the lives lost, a training run's
summary names no server folder (paths run-relative: ``ckpt:train__...``), and a replay gives the record's seed as
text like the snapshot (a 64-bit seed is exact in a browser)."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from fiveplay_env.five_alive import engine as fa_engine  # noqa: E402
from fiveplay_env.five_alive import render as fa_render  # noqa: E402
from fiveplay_env.five_alive.config import FiveAliveConfig  # noqa: E402
from tests.web.test_api import H, make_client, new_game, play_out  # noqa: E402


def test_five_alive_log_says_who_went_out_before_the_lives_lost():
    seen = 0
    for seed in range(6):
        config = FiveAliveConfig(num_players=4)
        s = fa_engine.new_game(config, seed)
        rng = np.random.default_rng(seed)
        while s.phase != 2 and seen < 5:  # OVER
            fa_engine.step(config, s, int(rng.choice(fa_engine.legal_actions(s))))
            ev = fa_engine.last_event(s)
            if ev["went_out"] and ev["lives_lost"]:
                text = fa_render.describe_event(s)
                assert text.index("went out") < text.index(" lost "), text
                seen += 1
    assert seen


def test_a_training_runs_summary_names_no_server_folder(tmp_path):
    root = tmp_path / "runs"
    name = "train__take5__0__20260101-000000"
    run = root / name
    run.mkdir(parents=True)
    full = str(run.resolve())
    (run / "config.json").write_text(json.dumps({"game": "take5", "out": str(root.resolve())}))
    (run / "summary.json").write_text(json.dumps({"run_dir": full, "checkpoint": os.path.join(full, "checkpoint.pt"),
                                                  "agent": f"ckpt:{full}", "game": "take5"}))
    with make_client(str(root)) as client:
        r = client.get(f"/api/runs/{name}")
        assert r.status_code == 200, r.text
        assert str(tmp_path) not in r.text and str(tmp_path.resolve()) not in r.text
        assert r.json()["config"]["out"] == "."
        s = r.json()["summary"]
        assert s["agent"] == f"ckpt:{name}" and s["run_dir"] == name and s["checkpoint"] == f"{name}/checkpoint.pt"


def test_a_replay_gives_the_records_seed_as_text(tmp_path):
    with make_client(str(tmp_path)) as client:
        seed = 2**63 + 12345  # past 2**53: a JSON number would be rounded in a browser
        snap = play_out(client, new_game(client, seed=seed))
        rec = client.get(f"/api/games/{snap['id']}/record", headers=H(snap)).text
        page = client.post("/api/replay", json={"text": rec}).json()
        assert page["seed"] == str(seed) == snap["seed"]
