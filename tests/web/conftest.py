"""Shared by the web tests: one runs folder (two recorded tournaments, a training-like run, traps) for
the API and the browser tests alike, built once per test session; and the browser tests' Chromium
(``browser``: skipped, "skipped: no Chromium", only where no Chromium executable exists)."""
from __future__ import annotations

import os

import pytest

CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium_path() -> str | None:
    env = os.environ.get("FIVEPLAY_CHROMIUM")
    for p in ((env,) if env else ()) + CHROMIUM_CANDIDATES:
        if p and os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


@pytest.fixture(scope="module")
def browser():
    pytest.importorskip("uvicorn")
    exe = chromium_path()
    if exe is None:
        pytest.skip("skipped: no Chromium")
    sync_api = pytest.importorskip("playwright.sync_api")
    pw = sync_api.sync_playwright().start()
    b = pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS, headless=True)
    yield b
    b.close()
    pw.stop()


@pytest.fixture(scope="session")
def web_runs_dir(tmp_path_factory):
    pytest.importorskip("starlette")
    from tests.web.util import make_runs

    return make_runs(str(tmp_path_factory.mktemp("webruns")))
