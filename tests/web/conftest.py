"""Shared by the web tests: one runs folder (two recorded tournaments, a training-like run, traps) for
the API and the browser tests alike, built once per test session."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def web_runs_dir(tmp_path_factory):
    pytest.importorskip("starlette")
    from tests.web.util import make_runs

    return make_runs(str(tmp_path_factory.mktemp("webruns")))
