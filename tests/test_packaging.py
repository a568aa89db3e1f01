"""The wheel and the source distribution, built from a copy of this tree (offline, with the installed
setuptools): what each holds, the console script, the version in one place, and the sizes (printed)."""
from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import fiveplay_env

ROOT = Path(__file__).resolve().parents[1]
VERSION = fiveplay_env.__version__


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    """``{"wheel": path, "sdist": path}`` built from the tracked and untracked-but-not-ignored files."""
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
    paths = {}
    for kind in ("sdist", "wheel"):  # one process each (setuptools keeps state between the two builds)
        code = f"import sys; from setuptools import build_meta as b; print('BUILT', b.build_{kind}(sys.argv[1]))"
        proc = subprocess.run([sys.executable, "-c", code, str(out)], cwd=src, capture_output=True, text=True,
                              timeout=600)
        assert proc.returncode == 0, proc.stderr[-4000:]
        paths[kind] = out / proc.stdout.strip().splitlines()[-1].split()[-1]
    for kind, path in paths.items():
        print(f"{kind}: {path.name}, {path.stat().st_size / 1e6:.2f} MB")
    return paths


@pytest.mark.slow
def test_the_wheel_holds_the_packages_and_their_data(built):
    with zipfile.ZipFile(built["wheel"]) as z:
        names = z.namelist()
        dist_info = f"fiveplay_env-{VERSION}.dist-info"
        assert {n.split("/")[0] for n in names} == {"fiveplay_env", "agents", "experiments", dist_info}
        assert not [n for n in names if "/tests/" in n or n.startswith(("runs/", "docs/")) or "__pycache__" in n]
        for model in ("take5-round-4p", "take5-game-4p", "five-alive-4p"):   # the shipped policies
            assert f"agents/learned/pretrained/{model}.pt" in names
        assert "agents/learned/pretrained/README.md" in names                # their model cards
        for static in ("index.html", "app.js", "style.css"):                 # the web app's files
            assert f"experiments/web/static/{static}" in names
        assert f"{dist_info}/licenses/LICENSE" in names
        entry_points = z.read(f"{dist_info}/entry_points.txt").decode()
        assert "[console_scripts]\nfiveplay = experiments.cli:console" in entry_points
        metadata = z.read(f"{dist_info}/METADATA").decode()
    assert f"\nVersion: {VERSION}\n" in metadata
    for extra in ("experiments", "train", "web", "jax", "distributed", "docs"):
        assert f"Provides-Extra: {extra}\n" in metadata
    print(f"wheel: {len(names)} files, {built['wheel'].stat().st_size / 1e6:.2f} MB")


@pytest.mark.slow
def test_the_sdist_holds_the_docs_tests_and_license(built):
    with tarfile.open(built["sdist"]) as t:
        names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
    for needed in ("LICENSE", "CHANGELOG.md", "README.md", "Makefile", "pyproject.toml", "docs/index.md",
                   "docs/rules.md", "docs/conf.py", "docs/_ext/fiveplay_docs/examples.py", "tests/test_cli.py",
                   "tests/conftest.py", "experiments/cli.py", "agents/learned/pretrained/take5-game-4p.pt"):
        assert needed in names, needed
    assert not [n for n in names if n.startswith(("docs/_build", "runs/")) or "__pycache__" in n]
