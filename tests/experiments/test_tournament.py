"""The tournament runs end to end; CSV, JSON and plots agree; --resume loses and repeats nothing."""
from __future__ import annotations

import csv
import json
import os

import pytest

from fiveplay_env.experiments import tournament as T

PNG = b"\x89PNG\r\n\x1a\n"
VOLATILE = ("think_s", "think_max_s", "check")  # wall-clock figures (and the row checksums over them) differ between runs


def _rows(run_dir: str) -> list[dict[str, str]]:
    with open(os.path.join(run_dir, "games.csv"), newline="") as f:
        return list(csv.DictReader(f))


def _stable(rows: list[dict[str, str]]) -> list[tuple]:
    return sorted(tuple((k, v) for k, v in r.items() if k not in VOLATILE) for r in rows)


def _check_agreement(summary: dict, run_dir: str, players: int) -> None:
    rows = _rows(run_dir)
    with open(os.path.join(run_dir, "summary.json")) as f:
        on_disk = json.load(f)
    with open(os.path.join(run_dir, "config.json")) as f:
        config = json.load(f)
    assert on_disk["games_completed"] == summary["games_completed"] == len(rows) // players
    assert len(rows) == players * len({r["game"] for r in rows})
    assert config["agents"] == [e["agent"] for e in on_disk["entrants"]]
    for e in on_disk["entrants"]:
        mine = [r for r in rows if r["entrant"] == e["entrant"]]
        assert e["games"] == len(mine)
        if mine:
            win = sum(float(r["win"]) for r in mine) / len(mine)
            assert e["win_rate"]["mean"] == pytest.approx(win)
            for m in on_disk["metrics"]:
                mean = sum(float(r[m["name"]]) for r in mine) / len(mine)
                assert e["metrics"][m["name"]]["mean"] == pytest.approx(mean)
    # Each game's win shares add up to 1 (or to the team size in teams).
    for g in {r["game"] for r in rows}:
        shares = [float(r["win"]) for r in rows if r["game"] == g]
        assert len(shares) == players and sum(shares) >= 0.999
    for name in ("ratings.png", "head_to_head.png", "scores.png"):
        path = os.path.join(run_dir, name)
        with open(path, "rb") as f:
            assert f.read(8) == PNG, name
    assert sorted(os.path.basename(p) for p in on_disk["plots"]) == ["head_to_head.png", "ratings.png", "scores.png"]


def test_take5_tournament_end_to_end(tmp_path, capsys) -> None:
    agents = ["take5-safest", "random", "take5-closest", "ismcts:sims=8"]
    summary = T.main(["--game", "take5", "--agents", *agents, "--config", "mode=round", "--games", "8",
                      "--seed", "3", "--out", str(tmp_path), "--no-progress"])
    run_dir = summary["run_dir"]
    assert os.path.basename(run_dir).startswith("tournament__take5__3__")
    assert summary["complete"] and summary["seat_balanced"] and summary["games_completed"] == 8
    _check_agreement(summary, run_dir, 4)
    rows = _rows(run_dir)
    for e in agents:  # every agent in every seat, equally often
        assert sorted(int(r["seat"]) for r in rows if r["entrant"] == e) == [0, 0, 1, 1, 2, 2, 3, 3]
    out = capsys.readouterr().out
    assert "win rate" in out and "take5-safest" in out and "plots:" in out


def test_five_alive_tournament_with_more_agents_than_seats_and_workers(tmp_path) -> None:
    agents = ["five-alive-saver", "random", "five-alive-attacker", "five-alive-squeezer", "ismcts:sims=6"]
    summary = T.main(["--game", "five_alive", "--agents", *agents, "--players", "4", "--games", "20",
                      "--workers", "2", "--out", str(tmp_path), "--no-progress", "--quiet"])
    assert summary["games_completed"] == 20 and summary["seat_balanced"]
    _check_agreement(summary, summary["run_dir"], 4)
    assert {m["name"] for m in summary["metrics"]} == {"placing", "lives"}
    h2h = summary["head_to_head"]
    for i in range(5):
        for j in range(5):
            if i != j:
                assert h2h["ahead_rate"][i][j] + h2h["ahead_rate"][j][i] == pytest.approx(1.0)


def test_resume_loses_nothing_and_repeats_nothing(tmp_path) -> None:
    args = ["--game", "take5", "--agents", "take5-safest", "random", "random", "take5-dumphigh",
            "--config", "mode=round", "--games", "12", "--seed", "11", "--no-progress", "--quiet", "--no-plots"]
    full = T.main([*args, "--out", str(tmp_path / "full")])
    part = T.main([*args, "--out", str(tmp_path / "part"), "--max-games", "5"])
    run_dir = part["run_dir"]
    assert part["games_completed"] == 5 and not part["complete"]
    # Simulate a crash in the middle of writing game 5: half of its rows, the last one cut short.
    path = os.path.join(run_dir, "games.csv")
    with open(path) as f:
        text = f.read()
    lines = text.splitlines(keepends=True)
    assert len(lines) == 1 + 5 * 4
    with open(path, "w") as f:
        f.write("".join(lines[:-2]) + lines[-2][: len(lines[-2]) // 2])
    again = T.main(["--resume", run_dir, "--max-games", "3", "--quiet", "--no-progress", "--no-plots"])
    assert again["games_completed"] == 4 + 3  # the cut game was dropped and replayed
    final = T.main(["--resume", run_dir, "--quiet", "--no-progress"])
    assert final["complete"] and final["games_completed"] == 12
    rows = _rows(run_dir)
    games = [int(r["game"]) for r in rows]
    assert sorted(set(games)) == list(range(12)) and len(games) == 48  # nothing lost, nothing twice
    assert _stable(rows) == _stable(_rows(full["run_dir"]))  # and exactly what an uninterrupted run gives
    _check_agreement(final, run_dir, 4)
    assert final["entrants"] == [
        {**e, "ms_per_decision": f["ms_per_decision"], "max_ms_per_decision": f["max_ms_per_decision"]}
        for e, f in zip(full["entrants"], final["entrants"])
    ]


def test_resume_rejects_changed_settings(tmp_path) -> None:
    s = T.main(["--game", "take5", "--agents", "random", "random", "--config", "mode=round", "--games", "2",
                "--out", str(tmp_path), "--quiet", "--no-plots"])
    with pytest.raises(ValueError, match="agents"):
        T.main(["--resume", s["run_dir"], "--agents", "random", "take5-safest", "--quiet"])
    with pytest.raises(ValueError, match="config"):
        T.main(["--resume", s["run_dir"], "--config", "mode=game", "--quiet"])
    with pytest.raises(ValueError, match="config.json"):
        T.main(["--resume", str(tmp_path / "nothing"), "--quiet"])


@pytest.mark.parametrize("argv,match", [
    (["--game", "take5", "--agents", "random", "bogus"], "bogus"),
    (["--game", "take5", "--agents", "random", "random", "--config", "mode=forever"], "mode"),
    (["--game", "take5", "--agents", "random", "random", "--config", "oops"], "field=value"),
    (["--game", "take5", "--agents", "random", "random", "--players", "3"], "at least 3 agents"),
    (["--game", "take5", "--agents", "random", "random", "--games", "0"], "games"),
    (["--game", "take5", "--agents", "random", "random", "--workers", "0"], "workers"),
])
def test_bad_arguments_raise_value_errors(tmp_path, argv, match) -> None:
    with pytest.raises(ValueError, match=match):
        T.main([*argv, "--out", str(tmp_path), "--quiet"])
    assert not os.listdir(tmp_path)  # nothing was created


def test_help(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        T.main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "--resume" in out and "--workers" in out and "--agents" in out


def test_pool_workers_run_the_numeric_libraries_on_one_thread() -> None:
    """A --workers N pool worker keeps torch (and OpenMP/BLAS) to one thread, so N workers do not
    oversubscribe N cores; an explicit OMP_NUM_THREADS is respected; the in-process path is untouched."""
    pytest.importorskip("torch")
    import subprocess
    import sys

    code = ("import os, torch; from fiveplay_env.experiments.tournament import TournamentSpec, WorkerJob, worker; "
            "spec = TournamentSpec(agents=('pretrained:take5-game-4p', 'random', 'random', 'random'), game='take5', "
            "config={'num_players': 4}); "
            "torch.set_num_threads(2); worker.init_process(WorkerJob(spec).to_json(), threads_one=ONE); "
            "assert 'error' not in worker._PROCESS, worker._PROCESS; "
            "print(torch.get_num_threads(), os.environ.get('OMP_NUM_THREADS'))")
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}

    def run(one: bool, **extra: str) -> str:
        out = subprocess.run([sys.executable, "-c", code.replace("ONE", str(one))], capture_output=True, text=True,
                             env={**env, **extra}, check=True)
        return out.stdout.split()

    assert run(True) == ["1", "1"]
    assert run(True, OMP_NUM_THREADS="2") == ["2", "2"]
    assert run(False) == ["2", "None"]
