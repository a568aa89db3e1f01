"""Run folders (experiments/runs.py) and the reliability fixes of issue 12 that live there: one writer
per run folder, checkpoints that changed between two sessions of a tournament, damaged games.csv rows,
unwritable output folders, thread counts, stale worker errors, provenance."""
from __future__ import annotations

import csv
import json
import multiprocessing as mp
import os
import shutil
import subprocess
import sys
import time

import pytest

from fiveplay_env.experiments import runs
from fiveplay_env.experiments import tournament as T

ARGS = ["--game", "take5", "--agents", "take5-safest", "random", "take5-closest", "--config", "mode=round",
        "--seed", "5", "--quiet", "--no-plots"]


def _tournament(tmp_path, games: int = 6, extra=()) -> dict:
    return T.main([*ARGS, "--games", str(games), "--out", str(tmp_path), *extra])


def _lines(path: str) -> list[str]:
    with open(path, encoding="utf-8") as f:
        return f.read().splitlines(keepends=True)


# --- atomic writes, folders --------------------------------------------------------------------------------

def test_atomic_write_leaves_nothing_behind_on_failure(tmp_path, monkeypatch) -> None:
    target = tmp_path / "summary.json"
    target.write_text("old")

    def full_disk(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(runs.RunFolderError, match="No space left"):
        runs.atomic_write(str(target), "new")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["summary.json"]  # no *.tmpPID left


def test_out_that_is_a_file_or_read_only_is_a_clear_error(tmp_path, monkeypatch) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(ValueError, match="expected a folder to hold run folders, got the file"):
        _tournament(afile)
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        if os.access(ro, os.W_OK):  # root ignores permission bits: make the folder refuse as it would
            real = os.makedirs

            def refuse(path, *a, **k):
                if str(path).startswith(str(ro)):
                    raise PermissionError(13, "Permission denied")
                return real(path, *a, **k)

            monkeypatch.setattr(os, "makedirs", refuse)
        with pytest.raises(ValueError, match="could not create a run folder in .*Permission denied"):
            _tournament(ro)
    finally:
        ro.chmod(0o700)


def test_cli_reports_oserror_without_traceback(tmp_path, monkeypatch, capsys) -> None:
    def boom(*a, **k):
        raise OSError(30, "Read-only file system")

    from fiveplay_env.experiments.tournament import runner

    monkeypatch.setattr(runner, "_session", boom)
    monkeypatch.setattr(sys, "argv", ["tournament", *ARGS, "--games", "2", "--out", str(tmp_path)])
    assert T.cli() == 1
    err = capsys.readouterr().err
    assert "Read-only file system" in err and "Traceback" not in err


def test_read_config_names_missing_keys(tmp_path) -> None:
    s = _tournament(tmp_path, games=3)
    path = os.path.join(s["run_dir"], "config.json")
    with open(path) as f:
        spec = json.load(f)
    del spec["labels"], spec["seed"]
    with open(path, "w") as f:
        json.dump(spec, f)
    with pytest.raises(ValueError, match=r"lacks \['labels', 'seed'\]"):
        T.main(["--resume", s["run_dir"], "--quiet"])
    with open(path, "w") as f:
        f.write("{not json")
    with pytest.raises(ValueError, match="not readable JSON"):
        T.main(["--resume", s["run_dir"], "--quiet"])


def test_run_folder_records_provenance(tmp_path) -> None:
    s = _tournament(tmp_path, games=3)
    with open(os.path.join(s["run_dir"], "config.json")) as f:
        prov = json.load(f)["provenance"]
    import numpy

    import fiveplay_env

    assert prov["fiveplay"] == fiveplay_env.__version__
    assert prov["packages"]["numpy"] == numpy.__version__
    assert prov["python"] == ".".join(map(str, sys.version_info[:3]))
    assert prov["command"].startswith("python -m fiveplay_env.experiments.tournament --game take5 --agents take5-safest")
    root = os.path.dirname(os.path.dirname(os.path.abspath(fiveplay_env.__file__)))
    if os.path.isdir(os.path.join(root, ".git")) and shutil.which("git"):
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True).stdout.strip()
        assert prov["git_commit"] == head and isinstance(prov["git_dirty"], bool)


def test_threads_above_the_cores_are_refused() -> None:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert runs.check_threads(cores) == cores
    for bad in (0, cores + 1, 10_000, "2", True):
        with pytest.raises(ValueError, match="expected an integer in 1.."):
            runs.check_threads(bad)


# --- one writer per run folder --------------------------------------------------------------------------------

def _hold_lock(run_dir: str, ready, release) -> None:
    with runs.RunLock(run_dir):
        ready.set()
        release.wait(60)


def test_a_second_writer_is_refused_naming_the_holder(tmp_path) -> None:
    s = _tournament(tmp_path, games=3)
    ctx = mp.get_context("spawn")
    ready, release = ctx.Event(), ctx.Event()
    holder = ctx.Process(target=_hold_lock, args=(s["run_dir"], ready, release))
    holder.start()
    try:
        assert ready.wait(60)
        before = _lines(os.path.join(s["run_dir"], "games.csv"))
        with pytest.raises(ValueError, match=rf"in use by another process \(pid {holder.pid} "):
            T.main(["--resume", s["run_dir"], "--quiet"])
        assert _lines(os.path.join(s["run_dir"], "games.csv")) == before  # nothing was touched
    finally:
        release.set()
        holder.join(60)
    # once the holder is gone (even killed), the folder can be resumed
    T.main(["--resume", s["run_dir"], "--quiet"])


def test_a_killed_holder_releases_the_lock(tmp_path) -> None:
    run_dir = str(tmp_path)
    code = f"import time; from fiveplay_env.experiments import runs\nwith runs.RunLock({run_dir!r}):\n    print('locked', flush=True); time.sleep(60)"
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "locked"
        with pytest.raises(runs.RunFolderError, match=f"pid {proc.pid}"):
            runs.RunLock(run_dir).__enter__()
    finally:
        proc.kill()
        proc.wait()
    with runs.RunLock(run_dir):  # kill -9 released it
        pass


def test_two_trainers_on_one_run_folder(tmp_path) -> None:
    """A second trainer resuming a run folder in use is refused before it writes a row."""
    pytest.importorskip("torch")
    from fiveplay_env.experiments import train

    r = train.main(["--game", "take5", "--config", "num_players=3", "mode=round", "--opponents", "random",
                    "--total-decisions", "200", "--num-envs", "8", "--rollout-steps", "8", "--eval-games", "6",
                    "--eval-baselines", "random", "--hidden", "16", "--out", str(tmp_path), "--quiet", "--no-plots"])
    run_dir = r["run_dir"]
    before = {n: _lines(os.path.join(run_dir, n)) for n in ("updates.csv", "curves.csv")}
    with runs.RunLock(run_dir):  # stands for a trainer still running on it
        with pytest.raises(ValueError, match="in use by another process"):
            train.main(["--resume", run_dir, "--total-decisions", "400", "--quiet", "--no-plots"])
    assert {n: _lines(os.path.join(run_dir, n)) for n in before} == before


# --- checkpoints that change between sessions -------------------------------------------------------------------

def test_resume_refuses_a_checkpoint_that_changed(tmp_path) -> None:
    pytest.importorskip("torch")
    from fiveplay_env.experiments import train

    base = ["--game", "take5", "--config", "num_players=3", "mode=round", "--opponents", "random",
            "--total-decisions", "100", "--num-envs", "8", "--rollout-steps", "8", "--eval-games", "3",
            "--eval-baselines", "random", "--hidden", "16", "--quiet", "--no-plots"]
    a = train.main([*base, "--out", str(tmp_path / "a")])
    b = train.main([*base, "--out", str(tmp_path / "b"), "--seed", "1"])
    ckpt = os.path.join(a["run_dir"], "checkpoint.pt")
    s = T.main(["--game", "take5", "--agents", f"ckpt:{a['run_dir']}", "random", "random", "--config", "mode=round",
                "--games", "6", "--max-games", "3", "--out", str(tmp_path / "t"), "--quiet", "--no-plots"])
    with open(os.path.join(s["run_dir"], "config.json")) as f:
        fps = json.load(f)["fingerprints"]
    assert list(fps) == [f"ckpt:{a['run_dir']}"] and fps[f"ckpt:{a['run_dir']}"].startswith("sha256:")
    shutil.copyfile(os.path.join(b["run_dir"], "checkpoint.pt"), ckpt)  # another policy under the same name
    with pytest.raises(ValueError, match="changed since the tournament started.*Restore that file, or start a new"):
        T.main(["--resume", s["run_dir"], "--quiet"])
    assert len(_lines(os.path.join(s["run_dir"], "games.csv"))) == 1 + 3 * 3  # the 3 games kept


# --- games.csv integrity -------------------------------------------------------------------------------------

def _corrupt(path: str, line: int, field: str, value: str) -> None:
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    col = rows[0].index(field)
    rows[line - 1][col] = value
    with open(path, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)


@pytest.mark.parametrize("field,value,expect", [
    ("seat", "7", "seat: expected an integer in 0..2"),
    ("seat", "x", "seat: expected an integer in 0..2"),
    ("game", "99", "game: expected an integer in 0..5"),
    ("entrant", "take5-safesT", "entrant: expected"),
    ("agent", "take5-undercut", "agent: expected"),
    ("win", "7.0", "win: expected a number in 0.0..1.0"),
    ("placing", "nan", "placing: expected a number"),
    ("score", "1e", "score: expected a number"),
    ("game_seed", "12", "game_seed: expected"),
    ("deal", "3", "deal: expected"),
    ("truncated", "2", "truncated: expected an integer in 0..1"),
])
def test_a_damaged_games_csv_row_is_reported_by_line(tmp_path, field, value, expect) -> None:
    s = _tournament(tmp_path, games=6, extra=("--max-games", "4"))
    path = os.path.join(s["run_dir"], "games.csv")
    before = _lines(path)
    _corrupt(path, 5, field, value)
    with pytest.raises(ValueError, match=rf"games.csv line 5: {expect}"):
        T.main(["--resume", s["run_dir"], "--quiet"])
    assert len(_lines(path)) == len(before)  # nothing dropped or rewritten


def test_duplicate_rows_and_field_counts_are_reported(tmp_path) -> None:
    s = _tournament(tmp_path, games=6, extra=("--max-games", "2"))
    path = os.path.join(s["run_dir"], "games.csv")
    lines = _lines(path)
    with open(path, "w") as f:
        f.writelines(lines + [lines[1]])
    with pytest.raises(ValueError, match=r"line 8: game 0 seat 0 appears twice"):
        T.main(["--resume", s["run_dir"], "--quiet"])
    with open(path, "w") as f:
        f.writelines(lines[:3] + [lines[3].replace(",", ",,", 1)] + lines[4:])
    with pytest.raises(ValueError, match=r"line 4: expected 17 fields"):
        T.main(["--resume", s["run_dir"], "--quiet"])


def test_an_interrupted_last_game_is_still_dropped_quietly(tmp_path) -> None:
    s = _tournament(tmp_path, games=6, extra=("--max-games", "2"))
    path = os.path.join(s["run_dir"], "games.csv")
    lines = _lines(path)
    with open(path, "w") as f:
        f.writelines(lines[:-1] + [lines[-1][:10]])  # the last row cut mid-write
    r = T.main(["--resume", s["run_dir"], "--quiet"])
    assert r["complete"] and r["games_completed"] == 6


# --- a worker error does not outlive its tournament -------------------------------------------------------------

def test_a_set_up_error_does_not_leak_into_the_next_tournament(tmp_path) -> None:
    from fiveplay_env.experiments.tournament import worker

    bad = T.WorkerJob(T.TournamentSpec(agents=("no-such-agent",) * 3, game="take5", config={"mode": "round"}))
    worker.init_process(bad.to_json())
    assert "error" in worker._PROCESS
    with pytest.raises(ValueError, match="no-such-agent"):
        worker.play_in_process(0)
    r = _tournament(tmp_path, games=3)  # the same process, a good tournament
    assert r["complete"]
    good = T.WorkerJob(T.TournamentSpec(agents=("random",) * 3, game="take5", config={"mode": "round"}, games=3))
    assert len(worker.process_worker(good.to_json()).play(0)) == 3  # the process's worker is rebuilt, error gone


def test_a_plot_that_cannot_be_written_leaves_no_temp_file(tmp_path) -> None:
    class Fig:
        def savefig(self, path, **kw):
            with open(path, "wb") as f:
                f.write(b"\x89PNG partial")
            raise OSError(28, "No space left on device")

    with pytest.raises(runs.RunFolderError, match="could not write .*ratings.png: No space left"):
        runs.save_figure(Fig(), str(tmp_path / "ratings.png"))
    assert list(tmp_path.iterdir()) == []


def test_the_wall_budget_keeps_back_one_step_and_the_end_of_run_costs() -> None:
    now = time.time()
    b = runs.WallBudget(1.0, start=now - 40)          # 40 of 60 s gone
    assert b.allows()                                 # nothing has run yet: the first step always may
    b.step_took(5.0)
    assert b.allows()                                 # 40 + 5 <= 60
    b.tail_took(10.0)
    assert b.allows()                                 # 40 + 5 + 10 <= 60
    b.tail_took(4.0)                                  # the longest end-of-run cost is kept
    b.step_took(16.0)
    assert not b.allows()                             # 40 + 16 + 10 > 60
    assert not b.over() and runs.WallBudget(0.1, start=now).over() is False
    tight = runs.WallBudget(0.1)
    tight.tail_took(7.0)
    assert tight.over()                               # the evaluation alone exceeds the 6 s budget
    assert runs.WallBudget(None).allows() and not runs.WallBudget(None).over()
    for bad in (0, -1, "5", True):
        with pytest.raises(runs.RunFolderError, match="max-minutes: expected a number > 0"):
            runs.WallBudget(bad)
