"""Tournament games as Ray tasks: the ``--ray [ADDRESS]`` backend of ``fiveplay_env.experiments.tournament``.

    from fiveplay_env.experiments.tournament.ray_tasks import RayBackend
    with RayBackend(job, address=None) as backend:     # None: start (or join) a local Ray instance
        for rows in backend.games(pending):            # one list of per-seat rows per finished game
            ...

Contract: that of every ``fiveplay_env.experiments.tournament.backends.Backend``: every game of ``pending`` is
yielded exactly once, as ``GameWorker.play(g)`` returns it, in the order games finish. Since every seed
of game g comes from the tournament seed and g, a Ray run gives the same rows (as a set) as
``--workers 1``.

How it runs:

- ``pending`` is cut into batches of consecutive games (``batch_size``; default: about four batches per
  task slot, at most 32 games), each one Ray task. A task is a *streaming generator*: it yields each
  game's rows as soon as the game ends, so results stream back game by game and a batch costs one task's
  overhead only.
- At most ``slots`` tasks run at once (the cluster's CPUs, or ``max_tasks``); a new batch is submitted as
  one finishes.
- Agents are built once per worker process, not once per game: the task keeps the process's
  ``GameWorker`` (``worker.process_worker``), keyed by the job; Ray reuses its worker processes, so a
  ``ckpt:`` or ``rllib:`` checkpoint is loaded once per worker and tournament.
- Fault tolerance: Ray's own task retry is off (it would replay the games already streamed back).
  When a worker or a node dies, the games of its batch that had not come back are submitted again as a
  new batch; the games that had come back are kept. A game is tried at most ``max_attempts`` times,
  and a game streamed back twice is passed on once: nothing is lost, nothing is counted twice. An
  exception raised by the game code itself (a bad agent name, a bug) is not retried: it is raised here.

Cluster use: every node needs this project installed (the same version; the workers import
``fiveplay_env.experiments.tournament`` and ``agents``), and checkpoint paths in agent names must exist on every node
(a shared file system), as Ray ships the spec (names and config), not files.
"""
from __future__ import annotations

import math
import os
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from fiveplay_env.core import ray_connect
from fiveplay_env.experiments.tournament.backends import Backend, GameRows
from fiveplay_env.experiments.tournament.worker import WorkerJob, process_worker

DEFAULT_MAX_BATCH = 32
BATCHES_PER_SLOT = 4


def _import_ray() -> Any:
    try:
        import ray
    except ImportError as e:  # pragma: no cover - depends on the install
        raise ValueError("ray: --ray needs Ray; install the 'distributed' extra (pip install -e '.[distributed]')") from e
    return ray


# --- in the worker ---------------------------------------------------------------------------------------


def _play_batch(job_json: str, games: Sequence[int]) -> Iterator[tuple[int, int, GameRows]]:
    """Ray task body: yield ``(pid, g, rows)`` for each game of ``games``, building the agents only when
    this process has not built them for this job yet."""
    worker = process_worker(job_json)
    pid = os.getpid()
    for g in games:
        yield pid, int(g), worker.play(int(g))


_REMOTE: dict[str, Any] = {}


def _remote_play_batch() -> Any:
    if "f" not in _REMOTE:
        ray = _import_ray()
        _REMOTE["f"] = ray.remote(num_returns="streaming", max_retries=0, num_cpus=1)(_play_batch)
    return _REMOTE["f"]


# --- in the driver ---------------------------------------------------------------------------------------


def connect(address: str | None = None, num_cpus: int | None = None) -> bool:
    """``fiveplay_env.core.ray_connect.connect``: join Ray unless this process already is; returns whether this
    call connected (then the caller shuts it down)."""
    return ray_connect.connect(address, num_cpus)


def default_batch_size(games: int, slots: int) -> int:
    """About ``BATCHES_PER_SLOT`` batches per task slot (load balance at the end of the run), at most
    ``DEFAULT_MAX_BATCH`` games per batch and at least one."""
    return max(1, min(DEFAULT_MAX_BATCH, math.ceil(games / max(1, slots * BATCHES_PER_SLOT))))


def _is_lost_worker(exc: BaseException, ray: Any) -> bool:
    """Whether ``exc`` means the task's process or node went away (retry) rather than that the game
    code raised (do not)."""
    lost = tuple(getattr(ray.exceptions, n) for n in (
        "WorkerCrashedError", "NodeDiedError", "ObjectLostError", "OwnerDiedError", "RayActorError",
        "LocalRayletDiedError", "TaskUnschedulableError", "ObjectReconstructionFailedError",
    ) if hasattr(ray.exceptions, n))
    return isinstance(exc, lost)


class RayBackend(Backend):
    """Plays a tournament's games as Ray tasks (``games``, ``close``; also ``imap_unordered``,
    ``terminate`` and ``join``, the part of ``multiprocessing.Pool`` the tournament used to call).

    Args:
        job: the games to play (``WorkerJob``: the tournament spec and the records folder).
        address: where Ray runs (see ``connect``); ignored if this process is already connected.
        max_tasks: at most this many tasks at once (default: the cluster's CPUs); also the CPUs of a
            newly started local instance.
        batch_size: games per task (default ``default_batch_size``).
        max_attempts: tries per game before giving up with ``RuntimeError`` (workers that keep dying).

    Attributes (for logs and tests): ``retried`` (games submitted again after a lost worker),
    ``lost_workers`` (failed tasks), ``pids`` (worker process ids that sent games), ``last_pid``, ``slots``.
    """

    name = "ray"

    def __init__(self, job: WorkerJob, address: str | None = None, max_tasks: int | None = None,
                 batch_size: int | None = None, max_attempts: int = 3) -> None:
        if max_tasks is not None and max_tasks < 1:
            raise ValueError(f"max_tasks: expected an integer >= 1 or None, got {max_tasks}")
        if batch_size is not None and batch_size < 1:
            raise ValueError(f"batch_size: expected an integer >= 1 or None, got {batch_size}")
        if max_attempts < 1:
            raise ValueError(f"max_attempts: expected an integer >= 1, got {max_attempts}")
        self._ray = _import_ray()
        self._owns = connect(address, max_tasks)
        self._job_json = job.to_json()
        cpus = int(self._ray.cluster_resources().get("CPU", 1)) or 1
        self.slots = min(cpus, max_tasks) if max_tasks else cpus
        self.batch_size = batch_size
        self.max_attempts = max_attempts
        self.retried = 0
        self.lost_workers = 0
        self.pids: set[int] = set()
        self.last_pid: int | None = None
        self._running: dict[Any, list[int]] = {}
        self._closed = False

    def games(self, pending: Iterable[int]) -> Iterator[GameRows]:
        """Each game of ``pending`` as ``GameWorker.play(g)``'s rows, as games finish (see the module
        docstring)."""
        ray = self._ray
        pending = [int(g) for g in pending]
        if len(set(pending)) != len(pending):
            raise ValueError("pending: expected distinct game numbers")
        size = self.batch_size or default_batch_size(len(pending), self.slots)
        queue: deque[list[int]] = deque(pending[i:i + size] for i in range(0, len(pending), size))
        attempts = dict.fromkeys(pending, 0)
        delivered: set[int] = set()
        remote = _remote_play_batch()

        def submit() -> None:
            while queue and len(self._running) < self.slots:
                batch = queue.popleft()
                for g in batch:
                    attempts[g] += 1
                self._running[remote.remote(self._job_json, batch)] = batch

        submit()
        while self._running:
            ready, _ = ray.wait(list(self._running), num_returns=1)
            gen = ready[0]
            try:
                ref = next(gen)
                pid, g, rows = ray.get(ref)
            except StopIteration:
                del self._running[gen]
                submit()
                continue
            except ray.exceptions.RayError as exc:
                batch = self._running.pop(gen)
                if not _is_lost_worker(exc, ray):
                    cause = getattr(exc, "cause", None)
                    raise (cause if isinstance(cause, BaseException) else exc)
                self.lost_workers += 1
                left = [g for g in batch if g not in delivered]
                worn = [g for g in left if attempts[g] >= self.max_attempts]
                if worn:
                    raise RuntimeError(f"ray: games {worn} lost their worker {self.max_attempts} times; giving up "
                                       f"(last error: {type(exc).__name__}: {exc})") from exc
                if left:
                    self.retried += len(left)
                    queue.appendleft(left)
                submit()
                continue
            self.pids.add(pid)
            self.last_pid = pid
            if g in delivered:  # a retried batch that got further than its first try reported
                continue
            delivered.add(g)
            yield rows

    imap_unordered = games

    def close(self) -> None:
        """Cancel the tasks still running and disconnect from Ray if this backend connected."""
        if self._closed:
            return
        self._closed = True
        for gen in list(self._running):
            try:
                self._ray.cancel(gen, force=True)
            except Exception:  # already finished or its worker is gone: nothing to cancel
                pass
        self._running.clear()
        if self._owns and self._ray.is_initialized():
            self._ray.shutdown()

    terminate = close

    def join(self) -> None:
        """Nothing to wait for after ``close`` (present for ``multiprocessing.Pool`` parity)."""

