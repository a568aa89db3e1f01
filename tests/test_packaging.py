"""The wheel and the source distribution, built from a copy of this tree (offline, with the installed
setuptools, through the project's own backend, build_backend/fiveplay_build.py): what each holds, the
wheel's one top-level package (agents and experiments moved under fiveplay_env), the console script, the
version in one place, and the sizes (printed). Then the wheel installed into fresh virtual environments
that link this one's third-party packages (no download): beside another distribution's top-level
``agents`` package, and with the core dependencies only (a missing extra is one line naming it)."""
from __future__ import annotations

import ast
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
import textwrap
import zipfile
from pathlib import Path

import pytest

import fiveplay_env

ROOT = Path(__file__).resolve().parents[1]
VERSION = fiveplay_env.__version__
DIST_INFO = f"fiveplay_env-{VERSION}.dist-info"


def _load_backend():
    spec = importlib.util.spec_from_file_location("fiveplay_build", ROOT / "build_backend" / "fiveplay_build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


backend = _load_backend()


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
        for model in ("take5-round-4p", "take5-game-4p", "five-alive-4p"):    # the shipped policies
            assert f"fiveplay_env/agents/learned/pretrained/{model}.pt" in names
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


def _checkout_modules() -> set[str]:
    """The dotted names of the checkout's agents and experiments modules (``agents.registry`` ...)."""
    return backend.modules_of([p.relative_to(ROOT).as_posix() for pkg in backend.MOVED
                               for p in (ROOT / pkg).rglob("*.py")])


@pytest.mark.slow
def test_no_python_file_in_the_wheel_names_the_checkout_packages(built):
    """Every .py file parses, imports no top-level agents/experiments, and none of its string literals
    names one of their modules by the checkout's name (an import path, an entry point, ``python -m``)."""
    modules = _checkout_modules()
    assert {"agents.registry", "experiments.cli", "agents.learned.pretrained"} <= modules
    dotted = re.compile(r"(?<![\w./-])(?:agents|experiments)(?:\.\w+)+")
    imports, strings = [], []
    with zipfile.ZipFile(built["wheel"]) as z:
        sources = {n: z.read(n).decode() for n in z.namelist() if n.endswith(".py")}
    for name, source in sources.items():
        for node in ast.walk(ast.parse(source, name)):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module.split(".")[0] in backend.MOVED:
                imports.append(f"{name}:{node.lineno}")
            elif isinstance(node, ast.Import) and any(a.name.split(".")[0] in backend.MOVED for a in node.names):
                imports.append(f"{name}:{node.lineno}")
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                for m in dotted.finditer(node.value):
                    parts = m.group(0).split(".")
                    if any(".".join(parts[:k]) in modules for k in range(2, len(parts) + 1)):
                        strings.append(f"{name}:{node.lineno}: {m.group(0)}")
                if re.search(r"-m\s+(agents|experiments)\b(?![.\w])", node.value):
                    strings.append(f"{name}:{node.lineno}: {node.value[:60]!r}")
    assert imports == [] and strings == [], (imports[:10], strings[:10])
    cli = sources["fiveplay_env/experiments/cli.py"]               # what the rewrite is for, spelled out
    assert '"tournament": "fiveplay_env.experiments.tournament"' in cli
    assert '("fiveplay_env", "agents", "experiments")' in cli      # bare names are not module names
    registry = sources["fiveplay_env/agents/registry.py"]
    assert '"pretrained": "fiveplay_env.agents.learned.pretrained"' in registry
    assert "from fiveplay_env.agents.search import SearchAgent" in registry


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
    assert "](docs/rules.md)" in readme and "](#openspiel)" in readme     # what there was to rewrite
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
                   "docs/rules.md", "docs/conf.py", "docs/_ext/fiveplay_docs/examples.py", "tests/test_cli.py",
                   "tests/conftest.py", "experiments/cli.py", "agents/learned/pretrained/take5-game-4p.pt",
                   "build_backend/fiveplay_build.py"):
        assert needed in names, needed
    assert not [n for n in names if n.startswith(("docs/_build", "runs/")) or "__pycache__" in n]
