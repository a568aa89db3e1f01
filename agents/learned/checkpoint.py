"""Checkpoint files: written atomically, checked on load, never silently replaced by a fresh start.

A checkpoint is one file::

    FIVEPLAY-CHECKPOINT\\n
    {"format": 1, "size": N, "sha256": "..."}\\n      <- one JSON line: the payload's length and hash
    <N bytes: torch.save of a dict of tensors and plain data>

The header makes a truncated or corrupt file detectable before anything is unpickled; the payload is
read with ``torch.load(weights_only=True)`` (tensors, dicts, lists, numbers, strings, bytes only: no
arbitrary objects). Writing goes to a temporary file in the same folder, flushed and fsynced, then
``os.replace``d over the target, so a reader never sees half a file and an interrupted write leaves the
previous checkpoint intact. The file gets the permissions of any file the process creates (0666 less
the umask, as the run's other files), not the temporary file's 0600.

What is written always loads: numpy values in the payload are turned into Python ones first
(``core.config.plain``), and the serialized payload is read back with ``weights_only=True`` before the
file is written (``CheckpointError`` otherwise, and the previous checkpoint stays). Loading checks the
contents too: the game config is valid and agrees with ``num_players`` and ``obs_dim``, and every weight
is finite.

Payload (``kind = "fiveplay-policy"``, the kind of every fiveplay policy checkpoint, whatever its
algorithm; a learner's ``state()`` fills it, ``fiveplay_env.agents.learned.run.LearnerBase``;
``fiveplay_env.agents.learned.inference`` loads its policy):

| key          | meaning                                                                          |
|--------------|----------------------------------------------------------------------------------|
| ``kind``, ``version`` | ``"fiveplay-policy"``, ``CHECKPOINT_VERSION``                            |
| ``algo``     | the algorithm that trained it (``"ppo"``, ``"expit"``, ...:                      |
|              | ``fiveplay_env.agents.learned.algorithms``); required                            |
| ``game``, ``config`` | the game name and its config fields (a dict)                              |
| ``num_players``, ``obs_dim``, ``num_actions`` | the shapes the network was built for             |
| ``model``    | ``{"arch", "kwargs", "obs_scale", "state_dict"}``                                |
| ``optimizer``| the algorithm's optimizer ``state_dict``                                         |
| ``train_config`` | the algorithm's config as a dict (``to_dict``: PPO settings, opponents, seed ...) |
| ``args``     | the arguments of ``experiments/train.py`` (a dict; what ``--resume`` reuses)     |
| ``backend``  | ``"batched"`` or ``"reference-loop"``: the vector env the run trained on         |
| ``progress`` | ``{"update", "decisions", "env_steps", "games"}``                                |
| ``trainer``  | everything else a resume needs to continue exactly: the opponent pool, the      |
|              | collector's games and pending transitions, RNG states, counters                  |

Files of the earlier kind ``"fiveplay-ppo"`` (``LEGACY_KINDS``: every checkpoint before this kind, the shipped
policies among them, whichever algorithm made them) load as before; one without ``algo`` is PPO's, and
the loaded payload says so (``algo = "ppo"``). A ``"fiveplay-policy"`` file without an ``algo`` is corrupt.

Every problem raises ``fiveplay_env.core.errors.CheckpointError`` naming the file and what was wrong.
Reading is bounded: only a regular file is opened (a FIFO, a device such as ``/dev/zero``, a socket: a
clear error, no hang), and its size is checked (``MAX_CHECKPOINT_BYTES``, or a caller's ``max_bytes``)
before a byte is read; then its first bytes only (the magic line and the header, at most
``MAX_HEADER_BYTES``): a file that is not a checkpoint, or whose header's payload size does not match the
file's, is refused before the payload is read (``check_file`` does just that, for a caller that wants
to vet a path first: the web app's ``ckpt:``).
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import stat
import tempfile
from collections.abc import Iterator
from typing import Any

from fiveplay_env.agents.learned.defaults import game_facts
from fiveplay_env.core.config import plain, show_value
from fiveplay_env.core.errors import CheckpointError

MAGIC = b"FIVEPLAY-CHECKPOINT\n"
FILE_FORMAT = 1
CHECKPOINT_VERSION = 1
KIND = "fiveplay-policy"
"""The kind of the checkpoints written now (``algo`` names the algorithm)."""
LEGACY_KINDS = ("fiveplay-ppo",)
"""Earlier kinds still read: ``"fiveplay-ppo"`` (whatever the algorithm; no ``algo``: PPO)."""
CHECKPOINT_NAME = "checkpoint.pt"
MAX_CHECKPOINT_BYTES = 2 << 30
"""The largest checkpoint file read (2 GiB; the shipped policies are a few MB): a larger one is refused by
its size before a byte is read."""
MAX_HEADER_BYTES = 4096
"""The header line's length at most."""


def resolve_path(path: str) -> str:
    """A checkpoint file: ``path`` itself, or ``path/checkpoint.pt`` when ``path`` is a run folder."""
    if os.path.isdir(path):
        return os.path.join(path, CHECKPOINT_NAME)
    return path


def save_checkpoint(path: str, payload: dict[str, Any]) -> int:
    """Write ``payload`` to ``path`` atomically (see the module docstring); returns the file size."""
    import torch

    payload = plain(payload)  # numpy scalars inside would make the weights-only load refuse the file
    buf = io.BytesIO()
    torch.save(payload, buf)
    data = buf.getvalue()
    try:  # what is written must load: check with the loader's own settings before anything is replaced
        _load_payload(data)
    except Exception as exc:  # noqa: BLE001 - any failure means the file would not load
        raise CheckpointError(f"checkpoint {path}: not written: the payload would not load back "
                              f"({type(exc).__name__}: {exc})") from exc
    header = json.dumps({"format": FILE_FORMAT, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()})
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".ckpt", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(MAGIC)
            f.write(header.encode("ascii") + b"\n")
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp made it 0600: give it the run's usual permissions
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return len(MAGIC) + len(header) + 1 + len(data)


def load_checkpoint(path: str, *, max_bytes: int = MAX_CHECKPOINT_BYTES) -> dict[str, Any]:
    """Read and verify the checkpoint at ``path`` (a file, or a run folder holding ``checkpoint.pt``).

    Raises ``CheckpointError`` if it is missing, unreadable, larger than ``max_bytes``, truncated,
    corrupt, or not a fiveplay policy checkpoint (``KIND`` or ``LEGACY_KINDS``) of a version this code reads; the magic line and the header
    are checked before the payload is read (module docstring).
    """
    file = resolve_path(path)
    if not os.path.exists(file):
        where = f" (looked for {CHECKPOINT_NAME} in the folder {path})" if file != path else ""
        raise CheckpointError(f"checkpoint {file}: missing: no such file{where}")
    with _open_regular(file, max_bytes) as (f, size):
        header, offset = _read_header(f, file, size)
        data = f.read(header["size"] + 1)
    if len(data) < header["size"]:
        raise CheckpointError(f"checkpoint {file}: truncated: expected {header['size']} payload bytes, found {len(data)}")
    if len(data) > header["size"]:
        raise CheckpointError(f"checkpoint {file}: it grew while it was read (a file being written?): try again")
    if hashlib.sha256(data).hexdigest() != header["sha256"]:
        raise CheckpointError(f"checkpoint {file}: corrupt: the payload's SHA-256 does not match its header")
    try:
        payload = _load_payload(data)
    except Exception as exc:  # noqa: BLE001 - any unpickling failure is a bad checkpoint
        raise CheckpointError(f"checkpoint {file}: unreadable payload: {type(exc).__name__}: {exc}") from exc
    if not isinstance(payload, dict) or payload.get("kind") not in (KIND, *LEGACY_KINDS):
        raise CheckpointError(f"checkpoint {file}: expected a {KIND!r} checkpoint, got "
                              f"{payload.get('kind') if isinstance(payload, dict) else type(payload).__name__!r}")
    if payload["kind"] in LEGACY_KINDS and "algo" not in payload:
        payload["algo"] = "ppo"  # written before checkpoints named their algorithm: PPO's
    if payload.get("version") != CHECKPOINT_VERSION:
        raise CheckpointError(f"checkpoint {file}: expected version {CHECKPOINT_VERSION}, got {payload.get('version')!r}")
    for key in ("algo", "game", "config", "num_players", "obs_dim", "num_actions", "model", "progress"):
        if key not in payload:
            raise CheckpointError(f"checkpoint {file}: corrupt: the field {key!r} is missing")
    _check_contents(file, payload)
    payload["path"] = file
    return payload


def check_file(path: str, *, max_bytes: int = MAX_CHECKPOINT_BYTES) -> dict[str, Any]:
    """The header of the checkpoint file at ``path`` (a file, or a run folder holding ``checkpoint.pt``),
    checked without reading its payload: a regular file of at most ``max_bytes`` bytes that starts with the
    magic line and a header whose payload size is the rest of the file. ``CheckpointError`` otherwise."""
    file = resolve_path(path)
    if not os.path.exists(file):
        raise CheckpointError(f"checkpoint {file}: missing: no such file")
    with _open_regular(file, max_bytes) as (f, size):
        header, _ = _read_header(f, file, size)
    return header


@contextlib.contextmanager
def _open_regular(file: str, max_bytes: int) -> Iterator[tuple[Any, int]]:
    """``(binary file, its size)``, opened only if ``file`` is a regular file of at most ``max_bytes``:
    opened without blocking (a FIFO does not wait for a writer), checked with ``fstat`` on the open
    descriptor (no swap between the check and the read). ``CheckpointError`` otherwise."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(file, flags)
    except OSError as exc:
        raise CheckpointError(f"checkpoint {file}: unreadable: {exc.strerror or exc}") from exc
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = ("a FIFO" if stat.S_ISFIFO(st.st_mode) else "a device" if stat.S_ISCHR(st.st_mode)
                    or stat.S_ISBLK(st.st_mode) else "a socket" if stat.S_ISSOCK(st.st_mode) else "not a file")
            raise CheckpointError(f"checkpoint {file}: expected a regular file, got {kind}")
        if st.st_size > max_bytes:
            raise CheckpointError(f"checkpoint {file}: expected at most {max_bytes} bytes, got a file "
                                  f"of {st.st_size}")
        f = os.fdopen(fd, "rb")
        fd = -1
    except OSError as exc:
        raise CheckpointError(f"checkpoint {file}: unreadable: {exc.strerror or exc}") from exc
    finally:
        if fd >= 0:
            os.close(fd)
    try:
        with f:
            yield f, st.st_size
    except OSError as exc:
        raise CheckpointError(f"checkpoint {file}: unreadable: {exc.strerror or exc}") from exc


def _read_header(f: Any, file: str, size: int) -> tuple[dict[str, Any], int]:
    """The header of an open checkpoint file of ``size`` bytes, read from its first bytes only (the magic
    line and at most ``MAX_HEADER_BYTES``), and where its payload starts; the header's payload size must be
    the rest of the file. ``CheckpointError`` otherwise."""
    head = f.read(len(MAGIC) + MAX_HEADER_BYTES)
    if not head.startswith(MAGIC):
        what = "empty" if not head else "not a fiveplay checkpoint (it does not start with the FIVEPLAY-CHECKPOINT header)"
        raise CheckpointError(f"checkpoint {file}: {what}")
    rest = head[len(MAGIC):]
    nl = rest.find(b"\n")
    try:
        header = json.loads(rest[:nl].decode("ascii")) if nl >= 0 else None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        header = None
    if not isinstance(header, dict) or not {"format", "size", "sha256"} <= set(header):
        raise CheckpointError(f"checkpoint {file}: corrupt: the header line is damaged or truncated")
    hsize = header["size"]
    if isinstance(hsize, bool) or not isinstance(hsize, int) or hsize < 0:
        raise CheckpointError(f"checkpoint {file}: corrupt: expected the header's size to be an integer >= 0, "
                              f"got {show_value(hsize)}")
    if not isinstance(header["sha256"], str):
        raise CheckpointError(f"checkpoint {file}: corrupt: expected the header's sha256 to be a hex string, "
                              f"got {show_value(header['sha256'])}")
    if header["format"] != FILE_FORMAT:
        raise CheckpointError(f"checkpoint {file}: expected file format {FILE_FORMAT}, got {show_value(header['format'])}")
    offset = len(MAGIC) + nl + 1
    if size - offset < hsize:
        raise CheckpointError(f"checkpoint {file}: truncated: expected {hsize} payload bytes, found {size - offset}")
    if size - offset > hsize:
        raise CheckpointError(f"checkpoint {file}: corrupt: expected {hsize} payload bytes, found {size - offset}")
    f.seek(offset)
    return header, offset


def _load_payload(data: bytes) -> Any:
    import torch

    with torch.serialization.safe_globals([bytes]):  # plain bytes (older snapshots) are safe to rebuild
        return torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _check_contents(file: str, payload: dict[str, Any]) -> None:
    """The payload agrees with itself: a valid game config matching ``num_players`` and ``obs_dim``,
    integer shapes, finite weights. ``CheckpointError`` naming the first problem."""
    import torch

    if not isinstance(payload["algo"], str) or not payload["algo"]:
        raise CheckpointError(f"checkpoint {file}: corrupt: expected algo to name an algorithm, got "
                              f"{show_value(payload['algo'])}")
    for key in ("num_players", "obs_dim", "num_actions"):
        v = payload[key]
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise CheckpointError(f"checkpoint {file}: corrupt: expected {key} to be an integer >= 1, got {v!r}")
    config = payload["config"]
    if not isinstance(config, dict):
        raise CheckpointError(f"checkpoint {file}: corrupt: expected the game config to be a dict, "
                              f"got {type(config).__name__}")
    try:
        facts = game_facts(str(payload["game"]), config)
    except (ValueError, TypeError) as exc:
        raise CheckpointError(f"checkpoint {file}: corrupt: its game config is invalid: {exc}") from exc
    if facts is not None:
        n, obs_dim = facts
        if n != payload["num_players"]:
            raise CheckpointError(f"checkpoint {file}: corrupt: num_players is {payload['num_players']}, but its "
                                  f"game config is for {n} players")
        if obs_dim != payload["obs_dim"]:
            raise CheckpointError(f"checkpoint {file}: corrupt: obs_dim is {payload['obs_dim']}, but its game "
                                  f"config's observations have {obs_dim} floats")
    model = payload["model"]
    weights = model.get("state_dict") if isinstance(model, dict) else None
    if not isinstance(weights, dict):
        raise CheckpointError(f"checkpoint {file}: corrupt: expected model['state_dict'] to be a dict of tensors")
    for name, t in weights.items():
        if not isinstance(t, torch.Tensor):
            raise CheckpointError(f"checkpoint {file}: corrupt: the weight {name!r} is not a tensor "
                                  f"({type(t).__name__})")
        if t.is_floating_point() and not bool(torch.isfinite(t).all()):
            raise CheckpointError(f"checkpoint {file}: corrupt: the weight {name!r} holds NaN or infinite values")


def check_matches(ckpt: dict[str, Any], what: str, saved: Any, wanted: Any) -> None:
    """``CheckpointError`` naming the file and the field when the checkpoint's ``saved`` value is not the
    ``wanted`` one."""
    if saved != wanted:
        raise CheckpointError(f"checkpoint {ckpt.get('path', '?')}: mismatched {what}: "
                              f"the checkpoint has {saved!r}, this run expects {wanted!r}")
