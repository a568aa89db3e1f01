"""Run folders: the one module every experiment uses for where results go and how they stay whole.

A run folder is ``<out>/<kind>__<game>__<seed>__<YYYYmmdd-HHMMSS>[-k]/`` (``kind``: ``tournament``,
``train``, ...), holding ``config.json`` (what was asked, plus ``provenance``: how to reproduce it) and
the experiment's own files. This module gives:

| piece                   | contract                                                                     |
|-------------------------|------------------------------------------------------------------------------|
| ``new_run_dir``         | a fresh, uniquely named folder under ``out`` (``RunFolderError`` if ``out`` is  |
|                         | a file, not writable, or the disk is full)                                   |
| ``atomic_write``        | write a file whole or not at all (temp file, fsync, rename); the temp file is |
|                         | removed on any failure                                                       |
| ``save_figure``         | the same for a matplotlib figure (PNG plots)                                 |
| ``write_config`` /      | ``config.json`` written atomically / read back with the keys a resume needs   |
| ``read_config``         | checked (``RunFolderError`` naming the missing ones)                          |
| ``RunLock``             | the single-writer lock: one process at a time writes a run folder; a second   |
|                         | gets ``RunFolderError`` naming the holder's pid and command                   |
| ``provenance``          | fiveplay version, git commit and dirty flag (from a checkout), Python, key    |
|                         | package versions, platform, the exact command line                           |
| ``file_sha256``         | a file's hash (resume checks of checkpoints)                                 |
| ``check_threads``       | a thread count within the machine's cores                                    |
| ``WallBudget``          | a command's ``--max-minutes``: the loop stops early enough that what must run |
|                         | after it (the final evaluation, the last checkpoint) ends within the budget   |
| ``run_cli``             | a script's ``main`` as a command: one-line errors, exit codes 2 / 1 / 130     |

``RunFolderError`` is a ``ValueError``, so the command-line tools report it as a usage error (exit 2).
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import platform
import shlex
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

LOCK_NAME = ".lock"
OWNER_NAME = ".lock.owner"
CONFIG_NAME = "config.json"
PACKAGES = ("numpy", "gymnasium", "pettingzoo", "torch", "openskill", "matplotlib", "ray", "tianshou",
            "stable-baselines3", "sb3-contrib")
"""Packages whose versions ``provenance`` records (those installed)."""


class RunFolderError(ValueError):
    """A run folder cannot be created, read, locked or written (the message says what and why)."""


# --- files ------------------------------------------------------------------------------------------------


def atomic_write(path: str, data: str | bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all: a temp file beside it, fsync, rename.

    On any failure (disk full, read-only folder) the temp file is removed and ``RunFolderError`` names
    the file and the cause; the previous content of ``path``, if any, is untouched."""
    binary = isinstance(data, bytes)

    def write(tmp: str) -> None:
        with open(tmp, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})) as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())

    _write_whole(path, f"{path}.tmp{os.getpid()}", write)


def save_figure(fig: Any, path: str, **savefig_kwargs: Any) -> str:
    """Save a matplotlib figure as ``path`` whole or not at all (a temp file, then a rename; the temp
    file removed on failure, ``RunFolderError`` naming the file). Returns ``path``."""
    root, ext = os.path.splitext(path)
    _write_whole(path, f"{root}.tmp{os.getpid()}{ext}", lambda tmp: fig.savefig(tmp, **savefig_kwargs))
    return path


def _write_whole(path: str, tmp: str, write: Callable[[str], None]) -> None:
    """``write(tmp)``, then rename ``tmp`` to ``path``; on failure remove ``tmp`` and raise
    ``RunFolderError`` naming ``path`` and the cause."""
    try:
        write(tmp)
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise RunFolderError(f"could not write {path}: {exc.strerror or exc}") from exc


def new_run_dir(out: str, kind: str, game: str, seed: int) -> str:
    """A new folder ``<out>/<kind>__<game>__<seed>__<time>[-k]`` (created, with ``out`` if needed)."""
    if os.path.exists(out) and not os.path.isdir(out):
        raise RunFolderError(f"out: expected a folder to hold run folders, got the file {out!r}")
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    base = os.path.join(out, f"{kind}__{game}__{seed}__{stamp}")
    path, k = base, 1
    while True:
        try:
            os.makedirs(path)
            return path
        except FileExistsError:
            k += 1
            path = f"{base}-{k}"
        except OSError as exc:
            raise RunFolderError(f"out: could not create a run folder in {out!r}: {exc.strerror or exc}") from exc


def write_config(run_dir: str, config: dict[str, Any]) -> str:
    """``config.json`` (indented JSON), atomically; its path."""
    path = os.path.join(run_dir, CONFIG_NAME)
    atomic_write(path, json.dumps(config, indent=2, default=_json_default) + "\n")
    return path


def read_config(run_dir: str, required: Iterable[str] = (), what: str = "run") -> dict[str, Any]:
    """``config.json`` of ``run_dir`` with every ``required`` key present (``RunFolderError`` otherwise,
    naming the folder, the file and the missing keys)."""
    path = os.path.join(run_dir, CONFIG_NAME)
    if not os.path.isdir(run_dir):
        raise RunFolderError(f"resume: expected a {what} folder holding {CONFIG_NAME}, got {run_dir!r} (not a folder)")
    if not os.path.isfile(path):
        raise RunFolderError(f"resume: expected a {what} folder holding {CONFIG_NAME}, got {run_dir!r}")
    try:
        with open(path, encoding="utf-8") as f:
            config = json.load(f)
    except (OSError, ValueError) as exc:
        raise RunFolderError(f"resume: {path} is not readable JSON ({exc})") from exc
    if not isinstance(config, dict):
        raise RunFolderError(f"resume: {path}: expected a JSON object, got {type(config).__name__}")
    missing = [k for k in required if k not in config]
    if missing:
        raise RunFolderError(f"resume: {path} lacks {missing} (expected the keys {sorted(required)}); "
                             f"it was not written by this tool or was edited: start a new run")
    return config


def file_sha256(path: str) -> str:
    """The SHA-256 of a file, hex."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check_threads(threads: Any, name: str = "threads") -> int:
    """``threads`` as an int in 1..(the cores this process may use)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= cores:
        raise RunFolderError(f"{name}: expected an integer in 1..{cores} (this machine's cores), got {threads!r}")
    return threads


class WallBudget:
    """The wall time a whole command may take (``--max-minutes``), counted from ``start``.

    A training loop asks ``allows()`` before each step. The budget keeps back the measured cost of one more
    step (``step_took``: the longest so far this session) and of what runs after the loop (``tail_took``:
    the final evaluation and checkpoint, the longest seen this session), so that the command, evaluations
    included, ends within the budget as far as past costs predict the next ones. The first step is always
    allowed (a run that trains nothing is useless); ``over()`` says whether the fixed costs alone
    (``tail_took``) already exceed the budget, for a warning.

    | method                | meaning                                                                   |
    |-----------------------|---------------------------------------------------------------------------|
    | ``allows()``          | True if there is no budget, or no step has run, or now + one step + the   |
    |                       | tail fits before the deadline                                             |
    | ``step_took(s)``      | a step took ``s`` seconds                                                 |
    | ``tail_took(s)``      | an end-of-run piece (an evaluation, a checkpoint) took ``s`` seconds      |
    | ``elapsed()``         | seconds since ``start``                                                   |
    """

    def __init__(self, minutes: float | None, start: float | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        if minutes is not None and (isinstance(minutes, bool) or not isinstance(minutes, (int, float))
                                    or not minutes > 0):
            raise RunFolderError(f"max-minutes: expected a number > 0, got {minutes!r}")
        self.clock = clock  # the wall clock read (a test passes a fake one)
        self.start = clock() if start is None else float(start)
        self.seconds = None if minutes is None else 60.0 * float(minutes)
        self.step_s = 0.0
        self.tail_s = 0.0
        self.steps = 0

    def step_took(self, seconds: float) -> None:
        self.steps += 1
        self.step_s = max(self.step_s, float(seconds))

    def tail_took(self, seconds: float) -> None:
        self.tail_s = max(self.tail_s, float(seconds))

    def elapsed(self) -> float:
        return self.clock() - self.start

    def spent(self) -> float:
        """The share of the budget used so far (0 without a budget), for a schedule over the time."""
        return 0.0 if self.seconds is None else min(self.elapsed() / self.seconds, 1.0)

    def left(self) -> float | None:
        """Seconds left before the deadline (None without a budget)."""
        return None if self.seconds is None else max(self.seconds - self.elapsed(), 0.0)

    def allows(self) -> bool:
        if self.seconds is None or self.steps == 0:
            return True
        return self.elapsed() + self.step_s + self.tail_s <= self.seconds

    def over(self) -> bool:
        return self.seconds is not None and self.tail_s >= self.seconds


# --- the single-writer lock ----------------------------------------------------------------------------------


class RunLock:
    """An exclusive lock on a run folder for as long as one process writes it (``with RunLock(dir):``).

    The lock is the OS file lock of ``<run>/.lock`` (the ``filelock`` library), so it is released when
    the holder exits, even by ``kill -9``; ``<run>/.lock.owner`` says who holds it (pid, host, command,
    since when) for the error a second writer gets."""

    def __init__(self, run_dir: str) -> None:
        self.run_dir = run_dir
        self._lock: Any = None

    def __enter__(self) -> RunLock:
        from filelock import FileLock, Timeout

        lock = FileLock(os.path.join(self.run_dir, LOCK_NAME), timeout=0)
        try:
            lock.acquire()
        except Timeout:
            raise RunFolderError(
                f"run folder {self.run_dir} is in use by another process ({self._owner()}); wait for it to "
                f"finish or stop it, then resume") from None
        except OSError as exc:
            raise RunFolderError(f"run folder {self.run_dir}: cannot lock it ({exc.strerror or exc})") from exc
        self._lock = lock
        owner = {"pid": os.getpid(), "host": socket.gethostname(), "argv": sys.argv,
                 "since": _dt.datetime.now().isoformat(timespec="seconds")}
        try:
            atomic_write(os.path.join(self.run_dir, OWNER_NAME), json.dumps(owner) + "\n")
        except RunFolderError:
            pass  # the lock holds without the note; the error a second writer gets is just less precise
        return self

    def _owner(self) -> str:
        try:
            with open(os.path.join(self.run_dir, OWNER_NAME), encoding="utf-8") as f:
                o = json.load(f)
            return f"pid {o['pid']} on {o['host']} since {o['since']}: {' '.join(map(str, o['argv']))}"
        except (OSError, ValueError, KeyError, TypeError):
            return "holder unknown"

    def __exit__(self, *exc: Any) -> None:
        try:
            os.unlink(os.path.join(self.run_dir, OWNER_NAME))
        except OSError:
            pass
        if self._lock is not None:
            self._lock.release()
            self._lock = None


# --- command-line entry points --------------------------------------------------------------------------------


def run_cli(main: Callable[[], Any], prog: str, kept: str) -> int:
    """Call ``main()`` as a command-line tool: a usage error (``ValueError``: bad arguments, a locked or
    damaged run folder, a bad checkpoint) exits 2, an ``OSError`` (a disk that filled up or went
    read-only) or a missing optional package (named with the extra that installs it) exits 1, Ctrl-C
    exits 130; each prints one line ``<prog>: ...`` (``kept``: what was kept,
    e.g. "every finished game is kept (see --resume)") instead of a traceback."""
    try:
        main()
    except ValueError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:  # an optional package: name it and the extra that installs it
        from fiveplay_env.core import extras

        print(f"{prog}: error: {extras.missing(exc, 'this command')}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"{prog}: error: {exc}; {kept}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{prog}: interrupted; {kept}", file=sys.stderr)
        return 130
    return 0


# --- provenance -------------------------------------------------------------------------------------------


def _git(args: Sequence[str], cwd: str) -> str | None:
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def provenance(prog: str, argv: Sequence[str] | None = None) -> dict[str, Any]:
    """What a reader needs to reproduce a run: the fiveplay version, the git commit and whether the tree
    was dirty (when run from a checkout; None otherwise), Python, key package versions, the platform and
    the exact command line (``python -m <prog> <argv>``; ``argv`` defaults to this process's)."""
    from importlib import metadata

    import fiveplay_env

    root = os.path.dirname(os.path.dirname(os.path.abspath(fiveplay_env.__file__)))
    commit = _git(["rev-parse", "HEAD"], root) if os.path.exists(os.path.join(root, ".git")) else None
    dirty = None
    if commit is not None:
        status = _git(["status", "--porcelain", "--untracked-files=no"], root)
        dirty = bool(status) if status is not None else None
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return {
        "fiveplay": fiveplay_env.__version__,
        "git_commit": commit,
        "git_dirty": dirty,
        "python": platform.python_version(),
        "packages": versions,
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "command": shlex.join(["python", "-m", prog, *(sys.argv[1:] if argv is None else list(argv))]),
        "created": _dt.datetime.now().isoformat(timespec="seconds"),
    }


def _json_default(o: Any) -> Any:
    try:
        import numpy as np

        if isinstance(o, np.generic):
            return o.item()
    except ImportError:  # pragma: no cover
        pass
    return str(o)
