"""What a newcomer meets on the command line (issue 42): ``fiveplay agents`` lists every registered name
and each example it gives builds; ``fiveplay replay`` shows recorded games of both games as text (from
above and from a seat, ``--to``), still checks them, and ends quietly when the reader closes the pipe;
every verb run from a core-only install (the optional extras' packages made unimportable in a fresh
interpreter) says in one line every extra it needs, with the install form for a checkout and for an
installed wheel, and no traceback."""
from __future__ import annotations

import glob
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from fiveplay_env.agents.registry import catalogue, known_agents, make_agent
from fiveplay_env.experiments import cli
from fiveplay_env import games

ROOT = Path(__file__).resolve().parents[2]
BUILTIN = [g.name for g in games.BUILTIN]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --- fiveplay agents ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("game", BUILTIN)
def test_agents_lists_every_registered_name_and_each_example_builds(game, capsys):
    code, out, _ = run(capsys, "agents", game)
    assert code == 0 and out.startswith(f"{game}: agent names")
    for name in known_agents(game):  # every name and pattern of the registry, by its head
        head = name.split(":")[0]
        assert any(line.split()[0].startswith(head) for line in out.splitlines()[1:] if line.strip()), name
    rows = catalogue(game)
    for row in rows:
        assert row["name"] in out
        if row["example"] is not None:
            if row["needs"] == "train":
                pytest.importorskip("torch")
            agent = make_agent(row["example"], game, seed=0)
            assert hasattr(agent, "act"), row
    code, out, _ = run(capsys, "agents", "--json")
    assert code == 0 and set(json.loads(out)) == set(games.names())
    code, _, err = run(capsys, "agents", "chess")
    assert code == 2 and "agents: error:" in err


# --- fiveplay replay ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """One recorded game of each built-in game, played through ``fiveplay tournament --record``."""
    out = tmp_path_factory.mktemp("records")
    agents = {"take5": ["random", "take5-safest", "random"], "five_alive": ["random", "five-alive-attacker", "random"]}
    paths = {}
    for game in BUILTIN:
        code = cli.main(["tournament", "--game", game, "--agents", *agents[game], "--games", "1", "--record",
                         *(["--config", "mode=round"] if game == "take5" else []),
                         "--out", str(out / game), "--quiet", "--no-plots"])
        assert code == 0
        (paths[game],) = glob.glob(str(out / game / "*" / "records" / "game_000000.jsonl"))
    return paths


@pytest.mark.parametrize("game", BUILTIN)
def test_replay_shows_the_game_as_text_and_checks_it(game, recorded, capsys):
    from fiveplay_env import records

    path = recorded[game]
    (rec,) = records.read_records(path)
    n = len(rec["actions"])
    code, out, err = run(capsys, "replay", path)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith(f"record 0: {game}, seed {rec['seed']}, {n} actions") and "replays exactly" in lines[0]
    assert "from above" in lines[1] and "hands:" in out          # from above: every hand
    steps = [ln for ln in lines if ln.startswith("step ")]
    assert [int(s.split(":")[0].split()[1]) for s in steps] == list(range(1, n + 1))   # a line per step
    assert all("player_" in s for s in steps)
    title = games.get(game).title
    assert sum(ln.startswith(title) for ln in lines) >= 2       # the table at the start, at section ends, at the end
    assert "game over" in out
    # a seat's view: its own hand only; in Take 5 the others' cards are hidden until the trick reveals them
    code, out, _ = run(capsys, "replay", path, "--seat", "1", "--to", "4")
    assert code == 0 and "as player_1 sees it, to step 4" in out and "hands:" not in out
    assert "hand of player_1" in out and "step 4:" in out and "step 5:" not in out
    if game == "take5":
        assert "step 1: player_0 chooses a card" in out
    code, _, err = run(capsys, "replay", path, "--seat", "9")
    assert code == 2 and "--seat: expected a seat 0..2" in err
    code, out, _ = run(capsys, "replay", path, "--verify-only")
    assert code == 0 and len(out.splitlines()) == 1


def test_replay_survives_a_closed_pipe(recorded):
    """``fiveplay replay RECORD | head -3``: the command stops when ``head`` closes the pipe, with no
    traceback (the console script's exit code for SIGPIPE, 141)."""
    proc = subprocess.Popen([sys.executable, "-c", "from fiveplay_env.experiments.cli import console; console()", "replay",
                             recorded["five_alive"]], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    head = [proc.stdout.readline() for _ in range(3)]
    proc.stdout.close()  # the reader goes away, as head does
    err = proc.stderr.read().decode()
    proc.wait(timeout=120)
    assert head[0].startswith(b"record 0: five_alive")
    assert "Traceback" not in err and "BrokenPipe" not in err, err
    assert proc.returncode in (0, 141)


# --- a core-only install: one line naming every missing extra ---------------------------------------------
BLOCKER = textwrap.dedent('''
    import importlib.abc, sys
    from fiveplay_env.core import extras
    core = {extras.normalise(n) for n in ("numpy", "gymnasium", "pettingzoo")}
    optional = {n for names in extras.table().values() for n in names} - core
    optional |= {"pyspiel", "open_spiel", "jaxlib", "stable_baselines3", "sb3_contrib", "myst_parser"}

    class CoreOnly(importlib.abc.MetaPathFinder):
        """What a core-only install finds: none of the extras' packages."""
        def find_spec(self, name, path=None, target=None):
            top = name.split(".")[0]
            if extras.normalise(top) in optional or top in optional:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, CoreOnly())
    sys.argv[0] = "fiveplay"
    from fiveplay_env.experiments.cli import console
    console()
''')

VERB_ARGS = {
    "tournament": ["--game", "take5", "--agents", "random", "random", "--games", "2"],
    "ladder": ["--game", "take5", "--games", "4"],
    "exploit": ["--game", "take5", "--agent", "random"],
    "budget": ["--game", "take5"],
    "baselines": ["--players", "2"],
    "train": ["--game", "take5", "--max-minutes", "1"],
    "curves": ["runs/none"],
    "rllib-train": ["--game", "take5"],
    "ray-bench": ["--games", "2"],
    "gpu-check": [],
    "ship": ["--name", "take5-game-4p"],
    "demo": ["--quick"],
    "web": ["--port", "8999"],
    "openspiel-compare": ["--game", "take5"],
    "jax-train-bench": [],
    "bench-clients": [],
}


def test_every_verb_with_an_extra_is_listed():
    assert set(VERB_ARGS) == set(cli.NEEDS) and set(cli.NEEDS) <= set(cli.VERBS)
    assert set(cli.VERBS) - set(cli.NEEDS) == {"bench"}  # runs on the core install


@pytest.mark.slow
@pytest.mark.parametrize("verb", sorted(VERB_ARGS))
def test_a_core_only_install_hears_every_missing_extra_in_one_line(verb, tmp_path):
    from fiveplay_env.core import extras

    proc = subprocess.run([sys.executable, "-c", BLOCKER, verb, *VERB_ARGS[verb]], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, env={**_env(), "PYTHONPATH": str(ROOT)})
    err = proc.stderr.strip()
    assert proc.returncode == 1, (proc.returncode, err[-2000:])
    assert "\n" not in err and "Traceback" not in err, err
    assert err.startswith(f"fiveplay {verb}: error: this command needs the "), err
    wanted = []
    for module in cli.NEEDS[verb]:
        options = extras.extras_for(module)
        if not any(e in wanted for e in options):
            wanted.append(options[0])
    joined = ",".join(wanted)
    assert f"pip install -e '.[{joined}]' (in a checkout), or pip install 'fiveplay-env[{joined}]' (an installed wheel)" in err
    for extra in wanted:
        assert f"'{extra}'" in err


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def test_the_bench_runs_on_a_core_only_install(tmp_path):
    proc = subprocess.run([sys.executable, "-c", BLOCKER, "bench", "--games", "take5", "--players", "2", "--seconds",
                           "0.01", "--repeats", "1", "--batch", "1", "--no-jax", "--out", str(tmp_path / "b.json")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300, env={**_env(), "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_missing_line_names_every_extra_at_once():
    from fiveplay_env.core import extras

    assert extras.missing_line(["numpy"], "x") is None
    line = extras.missing_line(["no_such_mod_a", "no_such_mod_b"], "this")
    assert line == "this needs no_such_mod_a and no_such_mod_b, not installed: pip install no_such_mod_a no_such_mod_b"
    assert extras.install_hint("experiments", "train") == (
        "pip install -e '.[experiments,train]' (in a checkout), or pip install 'fiveplay-env[experiments,train]' "
        "(an installed wheel)")
    assert extras.extra_for("pyspiel") == "openspiel"   # a module whose distribution has another name
    assert extras.extras_for("torch")[:2] == ["train", "distributed"]


def test_supersuit_without_its_package_names_the_extra(monkeypatch):
    from fiveplay_env import take5_v0
    from fiveplay_env.integrations import supersuit

    monkeypatch.setitem(sys.modules, "supersuit", None)
    with pytest.raises(ImportError, match=r"'clients' extra: pip install -e '\.\[clients\]' \(in a checkout\), "
                                          r"or pip install 'fiveplay-env\[clients\]'"):
        supersuit.sb3_vec_env(take5_v0.parallel_env(num_players=2))


# --- make demo's leaderboards ------------------------------------------------------------------------------
def test_the_demo_leaderboard_is_sorted_by_win_rate_and_says_so():
    """The issue's case: the trained policy wins more often than ``take5-safest`` but rates lower; the
    table is sorted by win rate, says so, and shows the rating beside it with its meaning."""
    from fiveplay_env.experiments import demo

    def entrant(name, win, mu, score):
        return {"entrant": name, "games": 100, "win_rate": {"mean": win, "half_width": 0.05},
                "metrics": {"score": {"mean": score, "half_width": 0.5}}, "rating": {"mu": mu, "sigma": 1.0}}

    summary = {"game": "take5", "players": 4, "games_completed": 100,
               "metrics": [{"name": "score", "lower_is_better": True}],
               "entrants": [entrant("take5-safest", 0.30, 27.0, 9.5), entrant("ckpt:runs/x", 0.35, 26.0, 9.0),
                            entrant("random", 0.05, 15.0, 16.0)]}
    text = demo.leaderboard(summary)
    lines = text.splitlines()
    assert "sorted by win rate" in lines[0] and "score: lower is better" in lines[0]
    assert "rating: openskill mu +- sigma" in lines[1]
    rows = [ln.split()[1] for ln in lines[4:]]
    assert rows == ["ckpt:runs/x", "take5-safest", "random"]
    assert "35.0% +- 5.0" in lines[4] and "26.0 +- 1.0" in lines[4]


def test_replay_reads_a_version_1_record_only_with_allow_legacy(recorded, tmp_path, capsys):
    from fiveplay_env import records

    (rec,) = records.read_records(recorded["take5"])
    old = {k: v for k, v in rec.items() if k != "chain"}
    old["version"] = 1
    path = tmp_path / "v1.jsonl"
    path.write_text(json.dumps(old) + "\n", encoding="utf-8")
    code, _, err = run(capsys, "replay", str(path))
    assert code == 2 and "--allow-legacy" in err
    code, out, err = run(capsys, "replay", str(path), "--allow-legacy", "--to", "2")
    assert code == 0 and "replays exactly" in out and "step 2:" in out, err
