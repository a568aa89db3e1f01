"""What a resumed tournament refuses (issue 27, items 5 and 6), the typed specs and the backends.

Item 5: every file an agent name reads is fingerprinted (``ckpt:P?sample``, ``ckpt:P?temperature=X``,
``ismcts:...,prior=ckpt:P``, ``pretrained:``, ``rllib:``, import paths), so a changed file is refused on
resume. Item 6: ``record`` and everything else that shapes the results is kept in ``config.json`` under
a spec hash; ``games.csv`` rows carry a checksum; out-of-range numbers are refused by line, not by a
traceback."""
from __future__ import annotations

import csv
import json
import os
import pickle
import shutil
import sys

import pytest

from fiveplay_env.agents.registry import agent_fingerprint
from fiveplay_env.experiments import runs
from fiveplay_env.experiments import tournament as T
from fiveplay_env.experiments.tournament import store

BASE = ["--game", "take5", "--config", "mode=round", "--seed", "2", "--quiet", "--no-plots", "--no-progress"]


def _start(tmp_path, agents, games=4, first=2, extra=()) -> str:
    s = T.main([*BASE, "--agents", *agents, "--games", str(games), "--max-games", str(first),
                "--out", str(tmp_path / "runs"), *extra])
    return s["run_dir"]


def _resume(run_dir, *extra) -> dict:
    return T.main(["--resume", run_dir, "--quiet", "--no-plots", "--no-progress", *extra])


def _config(run_dir) -> dict:
    with open(os.path.join(run_dir, "config.json"), encoding="utf-8") as f:
        return json.load(f)


def _write_config(run_dir, cfg) -> None:
    with open(os.path.join(run_dir, "config.json"), "w", encoding="utf-8") as f:
        json.dump(cfg, f, indent=2)


def _csv(run_dir) -> list[list[str]]:
    with open(os.path.join(run_dir, "games.csv"), newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def _write_csv(run_dir, rows) -> None:
    with open(os.path.join(run_dir, "games.csv"), "w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)


# --- item 5: fingerprints of every file a name reads -----------------------------------------------------

def _shipped(name: str) -> str:
    from fiveplay_env.agents.learned import pretrained

    return pretrained.path_of(name)


@pytest.mark.parametrize("template", ["ckpt:{p}?sample", "ckpt:{p}?temperature=0.5", "ismcts:sims=3,prior=ckpt:{p}",
                                      "ismcts:sims=3,prior=ckpt:{p}?sample,topk=2"])
def test_a_changed_checkpoint_is_refused_whatever_the_name_around_it(tmp_path, template) -> None:
    pytest.importorskip("torch")
    policy = tmp_path / "policy.pt"
    shutil.copyfile(_shipped("take5-round-4p"), policy)
    name = template.format(p=policy)
    run_dir = _start(tmp_path, [name, "random", "random", "random"], games=2, first=1)
    assert _config(run_dir)["fingerprints"][name].endswith(agent_fingerprint(f"ckpt:{policy}"))
    shutil.copyfile(_shipped("take5-game-4p"), policy)  # another policy under the same name
    with pytest.raises(ValueError, match="changed since the tournament started"):
        _resume(run_dir)
    assert len(_csv(run_dir)) == 1 + 4  # the finished game kept, nothing played
    shutil.copyfile(_shipped("take5-round-4p"), policy)  # restored: the run goes on
    assert _resume(run_dir)["complete"]


def test_shipped_policies_are_fingerprinted_by_their_content(tmp_path, monkeypatch) -> None:
    pytest.importorskip("torch")
    from fiveplay_env.agents.learned import pretrained

    here = tmp_path / "shipped"
    here.mkdir()
    for m in pretrained.MODELS.values():
        shutil.copyfile(os.path.join(pretrained.HERE, m.file), here / m.file)
    monkeypatch.setattr(pretrained, "HERE", str(here))
    name = "pretrained:take5-round-4p?sample"
    assert agent_fingerprint(name) == agent_fingerprint("pretrained:take5-round-4p") == \
        "sha256:" + __import__("hashlib").sha256((here / "take5-round-4p.pt").read_bytes()).hexdigest()
    run_dir = _start(tmp_path, [name, "random", "random", "random"], games=2, first=1)
    shutil.copyfile(here / "take5-game-4p.pt", here / "take5-round-4p.pt")  # the shipped file replaced
    with pytest.raises(ValueError, match="take5-round-4p.*changed since the tournament started"):
        _resume(run_dir)


def test_rllib_folders_and_import_paths_are_fingerprinted(tmp_path, monkeypatch) -> None:
    # an RLModule folder as module_path finds it: hashed, never loaded (nothing is unpickled here)
    from fiveplay_env.integrations.rllib import MODULE_ID

    module = tmp_path / "ckpt" / "rl_module" / MODULE_ID
    module.mkdir(parents=True)
    (module / "class_and_ctor_args.pkl").write_bytes(b"not read")
    (module / "module_state.pt").write_bytes(b"weights v1")
    (tmp_path / "ckpt" / "unrelated.json").write_text("{}")  # outside the module folder: not part of it
    fp = agent_fingerprint(f"rllib:{tmp_path / 'ckpt'}")
    assert fp is not None and fp.startswith("sha256-tree:")
    assert agent_fingerprint(f"rllib:{tmp_path / 'ckpt'}?sample") == fp
    (tmp_path / "ckpt" / "unrelated.json").write_text("{\"edited\": 1}")
    assert agent_fingerprint(f"rllib:{tmp_path / 'ckpt'}") == fp
    (module / "module_state.pt").write_bytes(b"weights v2")
    assert agent_fingerprint(f"rllib:{tmp_path / 'ckpt'}") not in (None, fp)
    assert agent_fingerprint(f"rllib:{tmp_path / 'nothing'}") is None
    # an import path: its module's source file
    (tmp_path / "fp_bot_mod.py").write_text("from fiveplay_env.agents.random_agent import RandomAgent as Bot\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    first = agent_fingerprint("fp_bot_mod:Bot")
    assert first is not None and first.startswith("sha256:")
    (tmp_path / "fp_bot_mod.py").write_text("from fiveplay_env.agents.random_agent import RandomAgent as Bot  # edited\n")
    assert agent_fingerprint("fp_bot_mod:Bot") != first
    # names that read no file
    for name in ("random", "take5-safest", "ismcts:sims=5", "ismcts:sims=5,rollout=random"):
        assert agent_fingerprint(name) is None
    assert agent_fingerprint("ismcts:sims=5,prior=take5-round-4p") == "prior=" + agent_fingerprint("pretrained:take5-round-4p")


def test_every_prefix_that_reads_files_has_a_fingerprint_hook() -> None:
    import importlib

    from fiveplay_env.agents import registry

    for prefix in ("ckpt", "pretrained", "rllib"):  # the shipped prefixes whose names load files
        try:
            importlib.import_module(registry._LAZY_PREFIXES[prefix])
        except ImportError:  # pragma: no cover - an optional extra missing
            continue
        assert prefix in registry._FINGERPRINTS, f"{prefix}: names of this prefix read files but record none"


# --- item 6: the spec kept and checked, the rows checked ---------------------------------------------------

def test_record_is_kept_so_a_resumed_run_records_every_game(tmp_path) -> None:
    run_dir = _start(tmp_path, ["random", "take5-safest"], games=6, first=2, extra=["--record"])
    assert _config(run_dir)["record"] is True
    _resume(run_dir)  # without --record
    assert sorted(os.listdir(os.path.join(run_dir, "records"))) == [f"game_{g:06d}.jsonl" for g in range(6)]
    plain = _start(tmp_path, ["random", "take5-safest"], games=4, first=2)
    with pytest.raises(ValueError, match="--record True disagrees with the run's record=False"):
        _resume(plain, "--record")
    # a finished game's record deleted: named, nothing rewritten
    run2 = _start(tmp_path, ["random", "take5-safest"], games=6, first=3, extra=["--record"])
    os.unlink(os.path.join(run2, "records", "game_000001.jsonl"))
    before = _csv(run2)
    with pytest.raises(ValueError, match="game_000001.jsonl is missing.*game 1"):
        _resume(run2)
    assert _csv(run2) == before


@pytest.mark.parametrize("field,value,expect", [
    ("score", lambda v: str(float(v) + 1), "check: expected the checksum"),         # a plausible edit
    ("win", lambda v: "1.0" if v != "1.0" else "0.0", "check: expected the checksum"),
    ("truncated", lambda v: "1" if v == "0" else "0", "check: expected the checksum"),
    ("think_s", lambda v: "0.5", "check: expected the checksum"),
    ("score", lambda v: "inf", r"score: expected a number in -1e\+12..1e\+12"),
    ("score", lambda v: "1e308", r"score: expected a number in -1e\+12..1e\+12"),
    ("score", lambda v: "-nan", r"score: expected a number"),
    ("think_s", lambda v: "1e300", r"think_s: expected a number in 0..1e\+09"),
    ("check", lambda v: v[::-1], "check: expected the checksum"),
])
def test_an_edited_row_is_refused_by_line(tmp_path, field, value, expect) -> None:
    run_dir = _start(tmp_path, ["random", "take5-safest", "take5-closest"], games=6, first=3)
    rows = _csv(run_dir)
    col = rows[0].index(field)
    rows[4][col] = value(rows[4][col])
    _write_csv(run_dir, rows)
    with pytest.raises(store.GamesFileError, match=rf"games.csv line 5: {expect}"):
        _resume(run_dir)
    assert _csv(run_dir) == rows  # nothing dropped or rewritten


def test_an_out_of_range_score_is_a_one_line_error_on_the_command_line(tmp_path, monkeypatch, capsys) -> None:
    run_dir = _start(tmp_path, ["random", "take5-safest"], games=4, first=2)
    rows = _csv(run_dir)
    rows[2][rows[0].index("score")] = "1e308"
    _write_csv(run_dir, rows)
    monkeypatch.setattr(sys, "argv", ["tournament", "--resume", run_dir, "--quiet"])
    assert T.cli() == 2
    err = capsys.readouterr().err
    assert "line 3: score" in err and "Traceback" not in err and "OverflowError" not in err


@pytest.mark.parametrize("edit", [
    lambda c: c["config"].update(mode="game"),          # other rules: would mix modes
    lambda c: c.update(seed=c["seed"] + 1),
    lambda c: c.update(record=True),
    lambda c: c.update(games=c["games"] + 4),
    lambda c: c["fingerprints"].update({"random": "sha256:00"}),
])
def test_an_edited_config_json_is_refused(tmp_path, edit) -> None:
    run_dir = _start(tmp_path, ["random", "take5-safest"], games=4, first=2)
    cfg = _config(run_dir)
    edit(cfg)
    _write_config(run_dir, cfg)
    with pytest.raises(ValueError, match="config.json was edited since the tournament started"):
        _resume(run_dir)


def test_rows_from_other_settings_fail_their_checksum_even_under_a_recomputed_hash(tmp_path) -> None:
    """The spec hash salts every row's checksum: changing the rules and recomputing the hash in
    config.json still leaves every finished row refused."""
    run_dir = _start(tmp_path, ["random", "take5-safest"], games=4, first=2)
    cfg = _config(run_dir)
    cfg["config"]["row_pick"] = "min_bullheads"
    cfg["spec_sha256"] = T.spec_hash(cfg)
    _write_config(run_dir, cfg)
    with pytest.raises(store.GamesFileError, match="games.csv line 2: check"):
        _resume(run_dir)


def test_a_format_1_run_folder_resumes_only_when_asked(tmp_path) -> None:
    """A run started before this format (no record, spec hash or checksums) resumes as it would have,
    with --allow-legacy only (issue 43: nothing of it can be verified)."""
    run_dir = _start(tmp_path, ["random", "take5-safest"], games=4, first=2)
    cfg = _config(run_dir)
    for key in ("record", "spec_sha256"):
        del cfg[key]
    cfg["version"] = 1
    _write_config(run_dir, cfg)
    _write_csv(run_dir, [r[:-1] for r in _csv(run_dir)])  # without the check column
    with pytest.raises(runs.RunFolderError, match="format 1.*--allow-legacy"):
        _resume(run_dir)
    s = _resume(run_dir, "--allow-legacy")
    assert s["complete"] and _csv(run_dir)[0][-1] == "truncated" and len(_csv(run_dir)) == 1 + 4 * 2


def test_per_game_values_must_agree_across_seats(tmp_path) -> None:
    run_dir = _start(tmp_path, ["random", "take5-safest"], games=4, first=2)
    cfg = _config(run_dir)
    cfg["version"] = 1  # no checksums: the per-game check is what catches it
    del cfg["record"], cfg["spec_sha256"]
    _write_config(run_dir, cfg)
    rows = [r[:-1] for r in _csv(run_dir)]
    rows[2][rows[0].index("steps")] = str(int(rows[2][rows[0].index("steps")]) + 1)
    _write_csv(run_dir, rows)
    with pytest.raises(store.GamesFileError, match=r"line 3: steps: expected .* \(as on the other rows of game 0\)"):
        _resume(run_dir, "--allow-legacy")


# --- typed specs, backends ---------------------------------------------------------------------------------

def test_tournament_spec_validates_and_normalises() -> None:
    spec = T.TournamentSpec(agents=["random", "take5-safest"], config={"mode": "round"})
    assert spec.players == 2 and spec.agents == ("random", "take5-safest") and spec.config["num_players"] == 2
    assert set(spec.config) >= {"mode", "row_pick", "end_score"} and spec.games == 100 and spec.record is False
    assert spec == T.TournamentSpec(agents=("random", "take5-safest"), config=dict(spec.config))
    assert pickle.loads(pickle.dumps(spec)) == spec
    assert T.TournamentSpec.from_json(spec.to_json()) == spec
    with pytest.raises(TypeError):
        spec.config["mode"] = "game"  # read-only
    assert T.spec_from_args(T.build_parser().parse_args(spec.to_argv())) == spec
    for kwargs, match in [
        ({"agents": "random"}, "agents: expected at least one agent name"),
        ({"agents": ()}, "agents: expected at least one agent name"),
        ({"agents": ("random", "")}, "agents: expected non-empty agent names"),
        ({"agents": ("random",) * 2, "game": "chess"}, "game: expected one of"),
        ({"agents": ("random",) * 2, "games": 0}, "games: expected an integer >= 1"),
        ({"agents": ("random",) * 2, "seed": -1}, "seed: expected an int"),
        ({"agents": ("random",) * 2, "config": ["mode=round"]}, "config: expected a mapping"),
        ({"agents": ("random",) * 2, "config": {"mode": "forever"}}, "mode"),
        ({"agents": ("random",) * 2, "players": 3}, "at least 3 agents"),
        ({"agents": ("random",) * 3, "players": 3, "config": {"num_players": 4}}, "disagrees with config num_players=4"),
        ({"agents": ("random",) * 2, "record": "yes"}, "record: expected True or False"),
    ]:
        with pytest.raises(ValueError, match=match):
            T.TournamentSpec(**kwargs)
    for kwargs, match in [({"workers": 0}, "workers"), ({"max_games": -1}, "max-games"), ({"ray": 3}, "ray")]:
        with pytest.raises(ValueError, match=match):
            T.RunOptions(**kwargs)


def test_run_with_a_spec_is_the_command_line(tmp_path) -> None:
    spec = T.TournamentSpec(agents=("random", "take5-safest", "take5-closest"), config={"mode": "round"}, games=3,
                            seed=4)
    a = T.run(spec, T.RunOptions(out=str(tmp_path / "a"), quiet=True, plots=False))
    b = T.main([*spec.to_argv(), "--out", str(tmp_path / "b"), "--quiet", "--no-plots"])
    strip = lambda rows: [[v for k, v in zip(rows[0], r) if k not in ("think_s", "think_max_s", "check")] for r in rows]  # noqa: E731
    assert strip(_csv(a["run_dir"])) == strip(_csv(b["run_dir"]))
    ca, cb = _config(a["run_dir"]), _config(b["run_dir"])
    assert ca["spec_sha256"] == cb["spec_sha256"] and ca["argv"] == spec.to_argv()


def test_backends_play_the_same_games() -> None:
    job = T.WorkerJob(T.TournamentSpec(agents=("random", "take5-safest"), config={"mode": "round"}, games=6))
    worker = T.GameWorker(job)
    expected = {g: worker.play(g) for g in range(6)}
    with T.make_backend(job, workers=1) as local:
        assert isinstance(local, T.LocalBackend)
        got = {rows[0]["game"]: rows for rows in local.games(range(6))}
    strip = lambda d: {g: [{k: v for k, v in r.items() if not k.startswith("think")} for r in rows] for g, rows in d.items()}  # noqa: E731
    assert strip(got) == strip(expected)
    assert isinstance(T.make_backend(job, workers=2, pending=1), T.LocalBackend)  # one game: no pool
    assert T.WorkerJob.from_json(job.to_json()) == job
