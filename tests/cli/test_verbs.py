"""The ``fiveplay`` command (fiveplay_env.experiments.cli): every verb's ``--help`` is its module's own parser, each
cheap verb does one real short run through the command, usage errors and exit codes are the module's,
``fiveplay games`` prints the game table, and the console script of pyproject.toml is this function."""
from __future__ import annotations

import csv
import glob
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from fiveplay_env.experiments import cli
from fiveplay_env import games

ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_console_script_is_the_command():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    target = project["scripts"]["fiveplay"]
    module, func = target.split(":")
    assert module == "fiveplay_env.experiments.cli" and getattr(cli, func) is cli.console


def test_top_level_help_lists_every_verb_with_its_module(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0 and out.startswith("usage: fiveplay")
    flat = " ".join(out.split())
    for verb, module in cli.VERBS.items():
        assert f"{verb} " in flat and f"(python -m {module})" in flat, verb
    assert "games " in flat and "web (play)" in flat


def test_version_is_the_package_version(capsys):
    import fiveplay_env

    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"fiveplay {fiveplay_env.__version__}"


def test_no_verb_or_an_unknown_verb_is_a_usage_error(capsys):
    code, _, err = run(capsys)
    assert code == 2 and "VERB" in err
    code, _, err = run(capsys, "tournamnet")
    assert code == 2 and "invalid choice: 'tournamnet'" in err


def test_every_verb_has_a_main_block_and_a_summary():
    for verb, module in cli.VERBS.items():
        name = cli.main_module(module)
        assert cli.main_block(name).body, verb
        assert cli.summary(module), verb
    assert cli.main_module("fiveplay_env.experiments.ladder") == "fiveplay_env.experiments.ladder"
    assert cli.main_module("fiveplay_env.experiments.tournament") == "fiveplay_env.experiments.tournament.__main__"  # a package
    with pytest.raises(ValueError, match="expected an 'if __name__"):
        cli.main_block("fiveplay_env.experiments.runs")  # a library module, not a command
    with pytest.raises(ValueError, match="expected an importable module"):
        cli.main_module("experiments.no_such_module")


@pytest.fixture
def parsers(monkeypatch):
    """The parsers whose ``parse_args`` the command called (the verb's module's own)."""
    import argparse

    seen: list[argparse.ArgumentParser] = []
    original = argparse.ArgumentParser.parse_args

    def recording(self, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003
        seen.append(self)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", recording)
    return seen


@pytest.mark.parametrize("verb", [*cli.VERBS, "play"])
def test_verb_help_is_the_modules_own_parser(verb, capsys, parsers):
    """``fiveplay VERB --help``: the help of the parser the module builds, every option of it shown,
    named ``fiveplay VERB``; ``sys.argv`` is left as it was."""
    argv = list(sys.argv)
    code, out, _ = run(capsys, verb, "--help")
    assert code == 0 and sys.argv == argv
    name = cli.canonical_verb(verb)
    assert out.startswith(f"usage: fiveplay {name} "), out[:200]
    parser = parsers[-1]
    assert parser.prog == f"fiveplay {name}"
    options = [o for a in parser._actions for o in a.option_strings if o.startswith("--")]
    assert len(options) >= 4
    for option in options:
        assert option in out, (verb, option)


# --- one real short run per cheap verb; usage errors for the long ones -----------------------------------
def test_games_lists_the_table(capsys):
    code, out, _ = run(capsys, "games")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["name", "title", "players"]
    listed = [ln.split()[0] for ln in lines[2:]]
    assert listed == sorted(games.names())
    take5 = next(ln for ln in lines if ln.startswith("take5 "))
    g = games.get("take5")
    assert f"{g.spec.min_players}-{g.spec.max_players}" in take5 and str(g.num_actions) in take5


def test_games_in_detail_and_as_json(capsys):
    import dataclasses

    code, out, _ = run(capsys, "games", "five_alive")
    assert code == 0 and out.startswith("five_alive: 5 Alive")
    for f in dataclasses.fields(games.get("five_alive").config_cls):
        assert f"  {f.name} = " in out
    code, out, _ = run(capsys, "games", "--json")
    facts = {f["name"]: f for f in json.loads(out)}
    assert code == 0 and set(facts) == set(games.names())
    for name, f in facts.items():
        g = games.get(name)
        assert f["players"] == [g.spec.min_players, g.spec.max_players] and f["actions"] == g.num_actions
        assert f["observation_size"] == g.observation_size(g.config_cls())
        assert set(f["presets"]) == set(g.presets)
    code, _, err = run(capsys, "games", "nope")
    assert code == 2 and "games: error:" in err and "nope" in err
    code, _, err = run(capsys, "games", "--bogus")
    assert code == 2 and "--bogus" in err


def test_tournament_runs_through_the_command(tmp_path, capsys):
    code, out, _ = run(capsys, "tournament", "--game", "take5", "--agents", "random", "take5-safest",
                       "--config", "mode=round", "--games", "4", "--out", str(tmp_path), "--no-plots", "--no-progress")
    assert code == 0 and "take5-safest" in out
    (run_dir,) = glob.glob(str(tmp_path / "tournament__take5__0__*"))
    with open(os.path.join(run_dir, "games.csv"), encoding="utf-8") as f:
        assert len(list(csv.DictReader(f))) == 4 * 2  # one row per game per seat
    summary = json.load(open(os.path.join(run_dir, "summary.json"), encoding="utf-8"))
    assert summary["games_completed"] == 4


def test_a_run_error_is_the_modules_one_line_error(tmp_path, capsys):
    code, _, err = run(capsys, "tournament", "--game", "take5", "--out", str(tmp_path))
    assert code == 2 and err.startswith("tournament: error: agents: expected at least one agent name")
    code, _, err = run(capsys, "tournament", "--games", "many")
    assert code == 2 and "fiveplay tournament: error: argument --games: invalid int value: 'many'" in err


def test_ladder_runs_through_the_command(tmp_path, capsys):
    code, _, _ = run(capsys, "ladder", "--game", "take5", "--agents", "random", "take5-safest",
                     "--config", "num_players=2", "mode=round", "--games", "4", "--out", str(tmp_path),
                     "--no-plots", "--quiet")
    assert code == 0
    (table,) = glob.glob(str(tmp_path / "*" / "ladder.md"))
    text = open(table, encoding="utf-8").read()
    assert "| `random` |" in text and "| `take5-safest` |" in text


def test_the_ladder_shows_its_progress_unless_told_not_to(tmp_path, capsys):
    argv = ["ladder", "--game", "take5", "--agents", "random", "take5-safest", "--config", "num_players=2",
            "mode=round", "--games", "3", "--no-plots"]
    code, out, err = run(capsys, *argv, "--out", str(tmp_path / "a"))
    assert code == 0 and "3/3" in err and "game" in err          # the bar ends at every game played
    assert "ladder table:" in out
    code, out, err = run(capsys, *argv, "--out", str(tmp_path / "b"), "--no-progress")
    assert code == 0 and "3/3" not in err and "ladder table:" in out


def test_bench_runs_through_the_command(tmp_path, capsys):
    out_file = tmp_path / "bench.json"
    code, _, _ = run(capsys, "bench", "--games", "take5", "--players", "2", "--seconds", "0.01", "--repeats", "1",
                     "--batch", "1", "--no-jax", "--out", str(out_file))
    assert code == 0 and out_file.is_file()
    assert "take5" in out_file.read_text(encoding="utf-8")


def test_bench_paired_rounds_rotate_the_order():
    """``bench --paired``: one pass of each contestant per round, the first seat rotating, the rates kept in
    round order (the ratios are taken round by round from them)."""
    from fiveplay_env.experiments import bench

    calls: list[str] = []

    def runner(label, rates):
        it = iter(rates)
        return bench._Runner(label, lambda seconds: (calls.append(label), next(it))[1])

    field = [runner("jax", [10.0, 20.0, 30.0]), runner("numpy", [5.0, 5.0, 60.0]), runner("pgx", [1.0, 2.0, 3.0])]
    rates = bench._paired_passes(field, 0.01, 3)
    assert calls == ["jax", "numpy", "pgx", "numpy", "pgx", "jax", "pgx", "jax", "numpy"]
    assert rates == {"jax": [10.0, 20.0, 30.0], "numpy": [5.0, 5.0, 60.0], "pgx": [1.0, 2.0, 3.0]}


def test_bench_cpus_names_the_cpus_it_can_pin(capsys):
    import os

    bad = max(os.sched_getaffinity(0)) + 1
    code, _, err = run(capsys, "bench", "--cpus", str(bad), "--no-jax")
    assert code == 2 and f"--cpus: expected CPUs among {sorted(os.sched_getaffinity(0))}, got [{bad}]" in err


def test_train_runs_through_the_command(tmp_path, capsys):
    pytest.importorskip("torch", reason="training needs the train extra (torch)")
    code, _, err = run(capsys, "train", "--game", "take5", "--config", "num_players=3", "mode=round",
                       "--opponents", "random", "--total-decisions", "100", "--num-envs", "8", "--rollout-steps", "8",
                       "--eval-games", "3", "--eval-baselines", "random", "--hidden", "16", "--out", str(tmp_path),
                       "--quiet", "--no-plots")
    assert code == 0, err
    (run_dir,) = glob.glob(str(tmp_path / "train__take5__*"))
    assert os.path.exists(os.path.join(run_dir, "checkpoint.pt"))


@pytest.mark.parametrize("argv, says", [
    (["demo", "--workers", "0"], "fiveplay demo: error: --workers must be >= 1"),
    (["web", "--port", "eighty"], "fiveplay web: error: argument --port: invalid int value"),
    (["play", "--port", "eighty"], "fiveplay web: error: argument --port: invalid int value"),
    (["ship", "--name", "x"], "fiveplay ship: error: "),
    (["gpu-check", "--device", "tpu"], "fiveplay gpu-check: error: argument --device: invalid choice"),
    (["ray-bench", "--cpus", "some"], "fiveplay ray-bench: error: argument --cpus"),
    (["rllib-train", "--game", "chess"], "fiveplay rllib-train: error: argument --game: invalid choice"),
    (["exploit", "--game", "take5"], "fiveplay exploit: error: the following arguments are required: --agent"),
])
def test_the_long_verbs_forward_their_arguments(argv, says, capsys):
    """The verbs whose shortest real run costs minutes (or a GPU, a Ray cluster, a server): their
    arguments reach the module's parser, which refuses a bad one as ``python -m`` would (exit 2)."""
    code, _, err = run(capsys, *argv)
    assert code == 2 and says in err, err


def test_python_dash_m_experiments_is_the_same_command():
    import fiveplay_env

    proc = subprocess.run([sys.executable, "-m", "fiveplay_env.experiments", "--version"], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == f"fiveplay {fiveplay_env.__version__}"


# --- a missing optional package: one line naming it and its extra -------------------------------------
def test_extras_are_read_from_pyproject():
    from fiveplay_env.core import extras

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert list(extras.table()) == list(declared)
    assert extras.extra_for("filelock") == "experiments" and extras.extra_for("matplotlib.pyplot") == "experiments"
    assert extras.extra_for("torch") == "train" and extras.extra_for("sb3_contrib") == "train"  # - and _ alike
    assert extras.extra_for("ray") == "distributed" and extras.extra_for("uvicorn") == "web"
    assert extras.extra_for("numpy") is None  # a core dependency, in no extra
    with pytest.raises(ValueError, match="expected a module name"):
        extras.extra_for("")


def test_extras_from_installed_metadata(monkeypatch):
    """A wheel's install has no pyproject.toml: the Requires-Dist lines of its metadata say the same."""
    from importlib import metadata

    from fiveplay_env.core import extras

    lines = ['numpy>=1.24', 'filelock>=3.12; extra == "experiments"', 'ray[rllib]>=2.40; extra == "distributed"',
             "Sb3_Contrib>=2.3; extra == 'train'"]

    class Meta:
        def get_all(self, key):
            return lines if key == "Requires-Dist" else None

    monkeypatch.setattr(metadata, "metadata", lambda name: Meta())
    assert extras._from_metadata() == {"experiments": ["filelock"], "distributed": ["ray"], "train": ["sb3-contrib"]}


def test_missing_names_the_module_and_the_extra():
    from fiveplay_env.core import extras

    err = extras.missing(ModuleNotFoundError("No module named 'filelock'", name="filelock"), "a run folder's lock")
    assert isinstance(err, ImportError) and err.name == "filelock"
    assert str(err).startswith("a run folder's lock needs filelock, of the 'experiments' extra: "
                               "pip install -e '.[experiments]'")
    other = extras.missing(ModuleNotFoundError("No module named 'zzz'", name="zzz"), "this")
    assert "'zzz'" in str(other) and "extra" not in str(other)


@pytest.mark.parametrize("how", ["fiveplay", "python -m"])
def test_a_missing_optional_package_is_one_line_naming_its_extra(how, tmp_path, capsys, monkeypatch):
    """filelock (the experiments extra) made unimportable: the tournament stops with one line, exit 1,
    through the command (before it runs) and through ``python -m fiveplay_env.experiments.tournament`` (``runs.run_cli``,
    when the import fails)."""
    monkeypatch.setitem(sys.modules, "filelock", None)  # import filelock -> ModuleNotFoundError
    argv = ["--game", "take5", "--agents", "random", "random", "--games", "2", "--out", str(tmp_path), "--quiet"]
    if how == "fiveplay":  # looked up before the verb runs: every extra the verb needs, at once
        code = cli.main(["tournament", *argv])
        err = capsys.readouterr().err
        assert code == 1 and err.count("\n") == 1, err
        assert err.startswith("fiveplay tournament: error: this command needs the 'experiments' extra (filelock is "
                              "not installed): pip install -e '.[experiments]' (in a checkout), or pip install "
                              "'fiveplay-env[experiments]' (an installed wheel)"), err
        return
    prefix = "tournament: error: "  # the module's own one-line error (runs.run_cli)
    import importlib

    tournament_cli = importlib.import_module("fiveplay_env.experiments.tournament.cli")  # the package re-exports cli()
    monkeypatch.setattr(sys, "argv", ["python -m fiveplay_env.experiments.tournament", *argv])
    code = tournament_cli.cli()
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1, err
    assert err.startswith(prefix + "this command needs filelock, of the 'experiments' extra: pip install -e "
                                   "'.[experiments]'"), err


def test_the_command_names_the_extra_for_a_module_without_its_own_handler(tmp_path, capsys, monkeypatch):
    """A module whose entry point lets a ModuleNotFoundError out: the command names the extra (here the web
    app's entry point made to raise what a bare ``import uvicorn`` would)."""
    import fiveplay_env.experiments.web.__main__ as web_main

    def no_uvicorn(argv=None):
        raise ModuleNotFoundError("No module named 'uvicorn'", name="uvicorn")

    monkeypatch.setattr(web_main, "main", no_uvicorn)
    code = cli.main(["web", "--runs", str(tmp_path), "--port", "8123"])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("fiveplay web: error: this command needs uvicorn, of the 'web' extra: "
                                        "pip install -e '.[web]'"), err


@pytest.mark.parametrize("package, call, extra", [
    ("ray", lambda: __import__("fiveplay_env.integrations.rllib", fromlist=["_require_ray"])._require_ray(),
     "distributed"),
    ("stable_baselines3", lambda: __import__("fiveplay_env.integrations.sb3", fromlist=["Sb3VecEnv"]).Sb3VecEnv,
     "clients"),
    ("tianshou", lambda: __import__("fiveplay_env.integrations.tianshou", fromlist=["x"]).tianshou_env("take5"),
     "clients"),
])
def test_the_integrations_name_the_extra_they_need(package, call, extra, monkeypatch):
    from fiveplay_env.integrations import sb3

    for name in [m for m in sys.modules if m.startswith(package + ".")]:  # submodules imported earlier
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, package, None)
    monkeypatch.setattr(sb3, "_CLASSES", {})  # Sb3VecEnv is defined again, without the package
    with pytest.raises(ImportError, match=rf"'{extra}' extra: pip install -e '\.\[{extra}\]'"):
        call()


def test_replay_checks_a_tournaments_records(tmp_path, capsys):
    code, _, _ = run(capsys, "tournament", "--game", "take5", "--agents", "random", "take5-safest", "--config",
                     "mode=round", "--games", "2", "--record", "--out", str(tmp_path), "--quiet", "--no-plots")
    assert code == 0
    (path,) = glob.glob(str(tmp_path / "*" / "records" / "game_000001.jsonl"))
    from fiveplay_env import records

    (rec,) = records.read_records(path)
    code, out, _ = run(capsys, "replay", path, "--verify-only")
    assert code == 0 and out.startswith(f"record 0: take5, seed {rec['seed']}, {len(rec['actions'])} actions")
    assert "replays exactly" in out and json.dumps(rec["final"]) in out and len(out.splitlines()) == 1
    code, out, _ = run(capsys, "replay", path, "--states")
    assert code == 0 and len(out.splitlines()) == 1 + len(rec["actions"]) + 1  # a state before each action, and the last
    broken = tmp_path / "broken.jsonl"
    bad = dict(rec, final=dict(rec["final"], scores=[s + 1 for s in rec["final"]["scores"]]))
    records.write_records(str(broken), [bad])
    code, _, err = run(capsys, "replay", str(broken))
    assert code == 2 and err.startswith("fiveplay replay: error: ") and "final" in err
    code, _, err = run(capsys, "replay", path, "--index", "3")
    assert code == 2 and "--index: expected 0..0" in err


def test_the_web_app_without_its_extra_is_one_line_naming_it(tmp_path, capsys, monkeypatch):
    """uvicorn (the web extra) made unimportable: ``python -m fiveplay_env.experiments.web`` says which extra, exit 1."""
    from fiveplay_env.experiments.web.__main__ import main as web_main

    monkeypatch.setitem(sys.modules, "uvicorn", None)
    assert web_main(["--runs", str(tmp_path), "--port", "8765"]) == 1  # refused before anything binds
    err = capsys.readouterr().err.strip()
    assert err.startswith("web: error: the web app needs uvicorn, of the 'web' extra: pip install -e '.[web]'"), err
    assert "\n" not in err


def test_every_bench_option_is_a_valid_config_of_both_engines():
    """``bench --options`` rows: each option is a config the numpy batched engine and the JAX engine accept."""
    from fiveplay_env.experiments import bench

    from fiveplay_env import games

    for game in [g.name for g in games.BUILTIN]:
        options = bench.options_of(game)
        assert options, game  # every built-in game has presets that change its rules
        assert bench._numpy_option_rate(game, {}, 4, 0.005, 1) > 0
        mod = bench._jax_module(game)
        for _, fields in options:
            assert bench._numpy_option_rate(game, fields, 4, 0.005, 1) > 0
            if mod is not None:
                env = mod.JaxEnv(num_players=4, **fields)   # built, not compiled: the bench row compiles it
                assert env.num_players == 4
