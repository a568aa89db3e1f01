"""A checkpoint's magic line and header are checked before the file is read whole, in the library (the
command line's ``ckpt:``) and in the web app (issue 53, item 4)."""
from __future__ import annotations

import json
import resource

import pytest

pytest.importorskip("torch")

from fiveplay_env.agents.learned import checkpoint  # noqa: E402
from fiveplay_env.agents.learned.checkpoint import MAGIC, check_file, load_checkpoint  # noqa: E402
from fiveplay_env.core.errors import CheckpointError  # noqa: E402


def _grew_mb(fn):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    fn()
    return (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024


def _sparse(path, size, head=b""):
    with open(path, "wb") as f:
        f.write(head)
        f.truncate(size)  # sparse: no disk used, reads as zeros
    return str(path)


def test_a_large_file_that_is_not_a_checkpoint_is_refused_from_its_first_bytes(tmp_path):
    """The audit's reproducer (CLI): a 1.9 GB file reached 2.2 GB of memory before it was refused."""
    path = _sparse(tmp_path / "big.pt", 1_900_000_000)
    grew = _grew_mb(lambda: pytest.raises(CheckpointError, load_checkpoint, path))
    assert grew < 20, grew
    with pytest.raises(CheckpointError, match="not a fiveplay checkpoint"):
        load_checkpoint(path)


def test_a_header_whose_size_disagrees_with_the_file_is_refused_before_the_payload(tmp_path):
    header = json.dumps({"format": 1, "size": 10, "sha256": "0" * 64}).encode() + b"\n"
    path = _sparse(tmp_path / "lies.pt", 1_500_000_000, MAGIC + header)
    grew = _grew_mb(lambda: pytest.raises(CheckpointError, load_checkpoint, path))
    assert grew < 20, grew
    with pytest.raises(CheckpointError, match="corrupt: expected 10 payload bytes, found 14999"):
        check_file(path)
    short = _sparse(tmp_path / "short.pt", len(MAGIC) + len(header) + 5, MAGIC + header)
    with pytest.raises(CheckpointError, match="truncated: expected 10 payload bytes, found 5"):
        load_checkpoint(short)


@pytest.mark.parametrize("head, message", [
    (b"", "empty"),
    (b"PK\x03\x04 a torch zip", "not a fiveplay checkpoint"),
    (MAGIC + b"{not json\n", "header line is damaged"),
    (MAGIC + b"x" * (checkpoint.MAX_HEADER_BYTES + 10), "header line is damaged"),
    (MAGIC + b'{"format": 2, "size": 0, "sha256": ""}\n', "expected file format 1"),
    (MAGIC + b'{"format": 1, "size": "9", "sha256": ""}\n', "expected the header's size to be an integer"),
])
def test_bad_headers_are_named(tmp_path, head, message):
    path = tmp_path / "c.pt"
    path.write_bytes(head)
    with pytest.raises(CheckpointError, match=message):
        check_file(str(path))
    with pytest.raises(CheckpointError, match=message):
        load_checkpoint(str(path))


def test_max_bytes_is_honoured(tmp_path):
    path = _sparse(tmp_path / "m.pt", 5000, MAGIC)
    with pytest.raises(CheckpointError, match="expected at most 4000 bytes, got a file of 5000"):
        check_file(path, max_bytes=4000)


def test_the_web_refuses_a_large_non_checkpoint_in_the_runs_folder_unread(tmp_path):
    """The audit's reproducer (web): ``ckpt:`` naming a 250 MB non-checkpoint file in the runs folder took
    the server from 264 MB to 1,032 MB with 4 requests."""
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from fiveplay_env.experiments.web.app import create_app

    run = tmp_path / "train__take5__0__x"
    run.mkdir()
    _sparse(run / "checkpoint.pt", 250_000_000)
    with TestClient(create_app(str(tmp_path), save_games=False), base_url="http://127.0.0.1",
                    raise_server_exceptions=False) as c:
        body = {"game": "take5", "config": {"num_players": 3}, "seat": 0, "bots": ["ckpt:train__take5__0__x"] * 2}
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        for _ in range(4):
            r = c.post("/api/games", json=body)
            assert r.status_code == 400, r.text
        grew = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
        msg = r.json()["error"]
    assert "not a fiveplay checkpoint" in msg and str(tmp_path) not in msg
    assert grew < 30, grew
