"""The wheel and the source distribution, built from a copy of this tree (offline, with the installed
setuptools, through the project's own backend, build_backend/fiveplay_build.py): what each holds, the
wheel's one top-level package (the checkout's agents/ and experiments/ as fiveplay_env.agents and
fiveplay_env.experiments through setuptools' package-dir, every file as it is in the checkout: one import
name everywhere, nothing rewritten), the console script, the version in one place, and the sizes (printed). Then the wheel installed into fresh virtual environments
that link this one's third-party packages (no download): beside another distribution's top-level
``agents`` package, and with the core dependencies only (a missing extra is one line naming it)."""
from __future__ import annotations

import base64
import csv
import hashlib
import importlib.util
import io
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

import fiveplay_env

ROOT = Path(__file__).resolve().parents[2]
VERSION = fiveplay_env.__version__
DIST_INFO = f"fiveplay_env-{VERSION}.dist-info"


def _load_metadata_module():
    """The backend's long-description rewrite (standard library only: this process does not import setuptools)."""
    spec = importlib.util.spec_from_file_location("fiveplay_metadata", ROOT / "build_backend" / "fiveplay_metadata.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


backend = _load_metadata_module()


def _build(kind: str, src: Path, out: Path) -> Path:
    """``build_<kind>`` of the backend that ``src/pyproject.toml`` names, in its own process (setuptools
    keeps state between two builds), as a PEP 517 frontend calls it (``backend-path`` on ``sys.path``)."""
    code = ("import sys, tomllib; b = tomllib.load(open('pyproject.toml', 'rb'))['build-system']; "
            "sys.path[:0] = b.get('backend-path', []); import importlib; "
            f"m = importlib.import_module(b['build-backend']); print('BUILT', m.build_{kind}(sys.argv[1]))")
    proc = subprocess.run([sys.executable, "-c", code, str(out)], cwd=src, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return out / proc.stdout.strip().splitlines()[-1].split()[-1]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    """``{"wheel": path, "sdist": path, "wheel_from_sdist": path}`` built from the tracked and
    untracked-but-not-ignored files (the last one from the unpacked sdist, as pip builds it)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout to list the project's files")
    files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split("\0")
    src = tmp_path_factory.mktemp("src")
    for name in filter(None, files):
        if (ROOT / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, src / name)
    out = tmp_path_factory.mktemp("dist")
    paths = {kind: _build(kind, src, out) for kind in ("sdist", "wheel")}
    unpacked = tmp_path_factory.mktemp("from_sdist")
    with tarfile.open(paths["sdist"]) as t:
        t.extractall(unpacked, filter="data")
    (top,) = unpacked.iterdir()
    paths["wheel_from_sdist"] = _build("wheel", top, tmp_path_factory.mktemp("dist2"))
    for kind, path in paths.items():
        print(f"{kind}: {path.name}, {path.stat().st_size / 1e6:.2f} MB")
    return paths


@pytest.mark.slow
def test_the_wheel_holds_the_packages_and_their_data(built):
    with zipfile.ZipFile(built["wheel"]) as z:
        names = z.namelist()
        assert {n.split("/")[0] for n in names} == {"fiveplay_env", DIST_INFO}  # one top-level package
        assert not [n for n in names if "/tests/" in n or n.startswith(("runs/", "docs/")) or "__pycache__" in n]
        for package in ("agents", "experiments"):                              # moved, whole
            assert f"fiveplay_env/{package}/__init__.py" in names
        assert "fiveplay_env/experiments/tournament/runner.py" in names
        from fiveplay_env.agents.learned import pretrained

        for spec in pretrained.MODELS.values():                               # every shipped policy
            assert f"fiveplay_env/agents/learned/pretrained/{spec.file}" in names
        assert "fiveplay_env/agents/learned/pretrained/README.md" in names     # their model cards
        for static in ("index.html", "app.js", "style.css"):                  # the web app's files
            assert f"fiveplay_env/experiments/web/static/{static}" in names
        assert f"{DIST_INFO}/licenses/LICENSE" in names
        entry_points = z.read(f"{DIST_INFO}/entry_points.txt").decode()
        assert "[console_scripts]\nfiveplay = fiveplay_env.experiments.cli:console" in entry_points
        assert "[fiveplay.agent_resolvers]\nagents = fiveplay_env.agents.registry:make_agent" in entry_points
        assert "[gymnasium.envs]\n__root__ = fiveplay_env.registration:gymnasium_plugin" in entry_points
        if f"{DIST_INFO}/top_level.txt" in names:
            assert z.read(f"{DIST_INFO}/top_level.txt").decode().split() == ["fiveplay_env"]
        metadata = z.read(f"{DIST_INFO}/METADATA").decode()
        record = list(csv.reader(io.StringIO(z.read(f"{DIST_INFO}/RECORD").decode())))
        for name, digest, size in record:                                       # every file, its hash
            if name != f"{DIST_INFO}/RECORD":
                data = z.read(name)
                want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                assert (digest, size) == (want, str(len(data))), name
        assert sorted(r[0] for r in record) == sorted(names)
    assert f"\nVersion: {VERSION}\n" in metadata
    for extra in ("experiments", "train", "web", "jax", "distributed", "docs"):
        assert f"Provides-Extra: {extra}\n" in metadata
    print(f"wheel: {len(names)} files, {built['wheel'].stat().st_size / 1e6:.2f} MB")


@pytest.mark.slow
def test_the_wheel_holds_the_checkout_files_as_they_are(built):
    """No source file is rewritten at build time: every ``.py`` file of the wheel is the checkout's file, byte for
    byte (``fiveplay_env/agents/x.py`` is ``agents/x.py``), and every package the checkout has is in the wheel
    (pyproject's ``packages`` list is complete: a folder left out of it would be missing here)."""
    with zipfile.ZipFile(built["wheel"]) as z:
        sources = {n: z.read(n) for n in z.namelist() if n.endswith(".py")}
    differ = []
    for name, data in sources.items():
        parts = name.split("/")
        rel = Path(*parts[1:]) if parts[1:2] in (["agents"], ["experiments"]) else Path(name)
        if (ROOT / rel).read_bytes() != data:
            differ.append(name)
    assert differ == []
    checkout = {p.relative_to(ROOT).as_posix() for top in ("fiveplay_env", "agents", "experiments")
                for p in (ROOT / top).rglob("*.py") if "__pycache__" not in p.parts}
    in_wheel = {n.removeprefix("fiveplay_env/") if n.split("/")[1] in ("agents", "experiments") else n for n in sources}
    assert checkout - in_wheel == set()


def test_the_package_list_names_every_package_folder():
    """``pyproject.toml``'s explicit ``packages`` (needed by the ``package-dir`` mapping) against the folders."""
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    found = set()
    for top in ("fiveplay_env", "agents", "experiments"):
        for init in (ROOT / top).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT).parts
            found.add(".".join(parts if top == "fiveplay_env" else ("fiveplay_env", *parts)))
    assert listed == found


@pytest.mark.slow
def test_the_wheel_built_from_the_sdist_is_the_same(built):
    with zipfile.ZipFile(built["wheel"]) as a, zipfile.ZipFile(built["wheel_from_sdist"]) as b:
        assert sorted(a.namelist()) == sorted(b.namelist())
        differ = [n for n in a.namelist() if a.read(n) != b.read(n) and not n.endswith("RECORD")]
    assert differ == []


@pytest.mark.slow
def test_the_long_description_has_no_relative_links(built):
    with zipfile.ZipFile(built["wheel"]) as z:
        body = z.read(f"{DIST_INFO}/METADATA").decode().partition("\n\n")[2]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "](docs/rules.md)" in readme and "](#quick-start)" in readme     # what there was to rewrite
    relative = [m.group(0) for m in re.finditer(r"\]\(([^)\s]+)\)", body) if not re.match(r"[a-z]+:", m.group(1))]
    assert relative == [], relative[:5]
    assert "docs/rules.md (in the repository)" in body
    assert body.count("```") == readme.count("```")                         # code blocks kept as they are
    assert "pip install -e .   " in body and body.count("\n") == readme.count("\n")


@pytest.mark.slow
def test_the_sdist_holds_the_docs_tests_and_license(built):
    with tarfile.open(built["sdist"]) as t:
        names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
    for needed in ("LICENSE", "CHANGELOG.md", "README.md", "Makefile", "pyproject.toml", "docs/index.md",
                   "docs/rules.md", "docs/conf.py", "docs/_ext/fiveplay_docs/examples.py", "tests/cli/test_verbs.py",
                   "tests/conftest.py", "experiments/cli.py", "agents/learned/pretrained/take5-game-4p.pt",
                   "build_backend/fiveplay_build.py"):
        assert needed in names, needed
    assert not [n for n in names if n.startswith(("docs/_build", "runs/")) or "__pycache__" in n]


# --- the long description (no build) ----------------------------------------------------------------------


def test_relative_links_become_plain_text():
    md = ("See [docs/rules.md](docs/rules.md), [the layout](docs/architecture.md#layers), [below](#openspiel),\n"
          "[a site](https://example.org/x) and ![img](https://example.org/i.png).\n"
          "```\n[kept](docs/in_code.md)\n```\n")
    assert backend.plain_links(md) == (
        "See docs/rules.md (in the repository), the layout (docs/architecture.md in the repository), below,\n"
        "[a site](https://example.org/x) and ![img](https://example.org/i.png).\n"
        "```\n[kept](docs/in_code.md)\n```\n")


# --- the installed wheel, in fresh virtual environments (no download) ----------------------------------------

OWN = re.compile(r"^(__editable__.*|fiveplay_env.*\.dist-info|.*\.pth|__pycache__|agents|experiments)$")
"""What a linked environment leaves out of this one's site-packages: this project (its editable install
and metadata), path hooks, and any top-level agents/experiments."""


def _site_dirs() -> list[Path]:
    paths = sysconfig.get_paths()
    return list(dict.fromkeys(Path(paths[k]) for k in ("purelib", "platlib")))


def _venv(where: Path, entries: list[Path]) -> Path:
    """A venv without pip whose site-packages links ``entries`` (files and folders of this environment's
    site-packages); its python."""
    if sys.prefix == sys.base_prefix:
        pytest.skip("links a virtual environment's packages: run the tests from one")
    if importlib.util.find_spec("pip") is None:
        pytest.skip("installs with this environment's pip (pip --python)")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=120)
    python = where / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    for entry in entries:
        if not (site / entry.name).exists():
            (site / entry.name).symlink_to(entry)
    return python


def _install(python: Path, *wheels: Path, force: bool = False) -> None:
    cmd = [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index",
           "--disable-pip-version-check", *(["--force-reinstall"] if force else []), *map(str, wheels)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0 and "no such option: --python" in proc.stderr:
        pytest.skip("needs pip >= 22.3 (pip --python)")
    assert proc.returncode == 0, proc.stderr[-3000:]


def _run(cmd: list[str], cwd: Path, timeout: int = 300) -> subprocess.CompletedProcess:
    """A command with nothing of this checkout on its path (no PYTHONPATH, a cwd outside the tree)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
    env.update(PYTHONNOUSERSITE="1", MPLBACKEND="Agg")
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def _fake_agents_wheel(where: Path) -> Path:
    """Another distribution with a top-level ``agents`` package (as ``openai-agents`` has)."""
    path = where / "fake_agents-1.0-py3-none-any.whl"
    files = {"agents/__init__.py": "FAKE = True\n",
             "fake_agents-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: fake-agents\nVersion: 1.0\n",
             "fake_agents-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                                                "Tag: py3-none-any\n"}
    record = "".join(f"{n},,\n" for n in [*files, "fake_agents-1.0.dist-info/RECORD"])
    with zipfile.ZipFile(path, "w") as z:
        for name, text in {**files, "fake_agents-1.0.dist-info/RECORD": record}.items():
            z.writestr(name, text)
    return path


INSTALLED_CHECK = '''
import importlib.metadata as md, json, sys
import agents
assert agents.FAKE, "the other distribution's agents package"
exec(compile(sys.argv[1], "README quick start", "exec"))             # the README's quick start, as it is
import gymnasium
env = gymnasium.make("fiveplay_env:fiveplay/Take5-v0", opponents=["take5-safest", "pretrained:take5-round-4p"],
                     num_players=3)
obs, info = env.reset(seed=0)
obs, reward, terminated, truncated, info = env.step(int(env.unwrapped.action_masks().nonzero()[0][0]))
(plugin,) = [e for e in md.entry_points(group="gymnasium.envs") if e.value.startswith("fiveplay_env")]
plugin.load()()
(resolver,) = md.entry_points(group="fiveplay.agent_resolvers")
from fiveplay_env.agents.registry import make_agent
assert resolver.load() is make_agent
import agents
assert agents.FAKE
from fiveplay_env.testing import check_game, contract_names        # the contract suite, against this install
COMPILED = {"vector_equals_reference", "batched_positions", "batched_redeal", "jax_equals_reference",
            "compact_observation"}  # the batched engines' (numba compiling afresh in a new install): the suite runs them
for game in ("take5", "five_alive"):
    check_game(game, configs={"default": {}}, contracts=[n for n in contract_names() if n not in COMPILED])
print(json.dumps({"ours": sorted(m for m in sys.modules if m.split(".")[0] in ("agents", "experiments")),
                  "env": type(env.unwrapped).__module__, "agents_file": agents.__file__}))
'''


@pytest.mark.slow
def test_the_installed_wheel_coexists_with_another_top_level_agents_package(built, tmp_path):
    """The issue's case: a distribution with its own top-level ``agents`` installed after (and before)
    this one. Nothing of ours is overwritten or shadowed: the README's quick start, ``gymnasium.make``
    with the ``module:`` prefix and named opponents (a heuristic, a shipped policy read from the moved
    package data), the entry points, the contract suite's reference and env contracts (the batched engines'
    ones would compile every numba kernel afresh in the new install, a minute on 2 cores; the suite's own
    contract tests run them on the same code) and a tournament through the ``fiveplay`` console script."""
    entries = [e for d in _site_dirs() if d.is_dir() for e in sorted(d.iterdir()) if not OWN.match(e.name)]
    python = _venv(tmp_path / "venv", entries)
    fake = _fake_agents_wheel(tmp_path)
    _install(python, fake)                       # the other one first, then this project,
    _install(python, built["wheel"])
    _install(python, fake, force=True)           # then the other one again, last (the order)
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = re.search(r"## Quick start\n+```python\n(.*?)```", readme, re.S).group(1)
    proc = _run([str(python), "-c", INSTALLED_CHECK, quick], cwd)
    assert proc.returncode == 0, proc.stderr[-3000:]
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert seen["ours"] == ["agents"] and "venv" in seen["agents_file"]   # only the fake one, from the venv
    assert seen["env"] == "fiveplay_env.single_agent"
    fiveplay = python.parent / "fiveplay"
    assert fiveplay.read_text().count("from fiveplay_env.experiments.cli import console") == 1
    proc = _run([str(fiveplay), "tournament", "--game", "take5", "--agents", "take5-safest", "pretrained:take5-round-4p",
                 "random", "--games", "3", "--out", "runs", "--quiet", "--no-plots"], cwd)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (run_dir,) = (cwd / "runs").iterdir()
    config = json.loads((run_dir / "config.json").read_text())
    assert config["provenance"]["command"].startswith("python -m fiveplay_env.experiments.tournament ")
    assert len((run_dir / "games.csv").read_text().strip().splitlines()) == 1 + 3 * 3   # header, 3 games x 3 seats
    proc = _run([str(python), "-c", "import agents; print(agents.FAKE, agents.__file__)"], cwd)
    assert proc.stdout.startswith("True ") and "fiveplay_env" not in proc.stdout


def _distribution_entries(names: tuple[str, ...]) -> list[Path]:
    """The site-packages entries of these distributions and of everything they require (no extras)."""
    from importlib import metadata

    seen, todo, entries = set(), list(names), []
    while todo:
        name = re.sub(r"[-_.]+", "-", todo.pop()).lower()
        if name in seen:
            continue
        seen.add(name)
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue  # an optional or platform-specific requirement that is not installed here
        todo.extend(re.match(r"[A-Za-z0-9._-]+", r).group(0) for r in dist.requires or () if "extra ==" not in r)
        base = Path(dist.locate_file(""))
        tops = {Path(str(f)).parts[0] for f in dist.files or () if not str(f).startswith("..")}
        entries.extend(base / t for t in sorted(tops) if (base / t).exists() and not t.endswith(".pth"))
    return entries


@pytest.mark.slow
def test_a_core_only_install_names_the_missing_extra_in_one_line(built, tmp_path):
    """The wheel with numpy, gymnasium, pettingzoo and numba only: the environments work, and each tool that needs
    an extra says which in one line (and a tournament leaves no run folder behind)."""
    python = _venv(tmp_path / "venv", _distribution_entries(("numpy", "gymnasium", "pettingzoo", "numba")))
    _install(python, built["wheel"])
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    proc = _run([str(python), "-c", "import torch"], cwd)
    assert proc.returncode != 0, "torch is linked: this is not a core-only environment"
    fiveplay = str(python.parent / "fiveplay")
    for argv, extra in ((["tournament", "--game", "take5", "--agents", "random", "random", "--games", "2",
                          "--out", "runs"], "experiments"),
                        (["web"], "web"), (["train", "--game", "take5"], "train"), (["demo", "--quick"], "train")):
        proc = _run([fiveplay, *argv], cwd)
        lines = proc.stderr.strip().splitlines()
        # one line naming every missing extra at once (train also needs the experiments extra's packages)
        assert proc.returncode == 1 and len(lines) == 1 and f"'{extra}'" in lines[0], (argv, proc.stderr)
        forms = re.findall(r"pip install (?:-e '\.|'fiveplay-env)\[([a-z,]+)\]", lines[0])
        assert len(forms) == 2 and all(extra in f.split(",") for f in forms), lines[0]
    assert not (cwd / "runs").exists()
    code = ("import sys, gymnasium\nfrom fiveplay_env.integrations import sb3, tianshou\n"
            "env = gymnasium.make('fiveplay_env:fiveplay/FiveAlive-v0', opponents='random', num_players=3)\n"
            "env.reset(seed=0)\n"
            "for f in (lambda: sb3.Sb3VecEnv, lambda: tianshou.tianshou_env('take5')):\n"
            "    try:\n        f()\n    except ImportError as e:\n        print(e)\n")
    proc = _run([str(python), "-c", code], cwd)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 2 and all("the 'clients' extra" in line for line in lines), lines


def test_a_tournament_that_fails_before_its_first_game_leaves_no_run_folder(tmp_path, monkeypatch):
    """A backend that cannot start (``--ray auto`` with no cluster, say): the run folder (and the ``out``
    folder made for it) are removed; one with a finished game is kept."""
    from fiveplay_env.experiments.tournament import runner
    from fiveplay_env.experiments.tournament.spec import RunOptions, TournamentSpec

    def no_cluster(*args, **kwargs):
        raise ValueError("ray: expected a running Ray cluster at 'auto', could not connect")

    spec = TournamentSpec(game="take5", agents=("random", "random"), games=2, seed=0)
    options = RunOptions(out=str(tmp_path / "runs"), quiet=True, plots=False)
    monkeypatch.setattr(runner, "make_backend", no_cluster)
    with pytest.raises(ValueError, match="Ray cluster"):
        runner.run(spec, options)
    assert not (tmp_path / "runs").exists()
    (tmp_path / "runs").mkdir()                        # an out folder that was there is kept, empty
    with pytest.raises(ValueError, match="Ray cluster"):
        runner.run(spec, options)
    assert list((tmp_path / "runs").iterdir()) == []
    monkeypatch.undo()
    summary = runner.run(spec, options)                # the same spec plays into a folder that stays
    assert summary["games_completed"] == 2 and os.path.isdir(summary["run_dir"])
    assert runner._remove_if_unplayed(summary["run_dir"]) is False and os.path.isdir(summary["run_dir"])
