"""Where a tournament's games are played: one interface, three backends.

    with make_backend(job, workers=2, ray=None, pending=len(pending)) as backend:   # runner.make_backend
        for rows in backend.games(pending):    # one list of per-seat rows per finished game
            ...

The contract of every ``Backend``:

| method             | contract                                                                        |
|--------------------|---------------------------------------------------------------------------------|
| ``games(pending)`` | yields each game of ``pending`` (an iterable of game numbers: the runner's is a   |
|                    | generator, read as games are handed out) exactly once, as ``GameWorker.play(g)``  |
|                    | returns it, in the order games finish; an error of the game code (a bad agent, a  |
|                    | bug) is raised here                                                             |
| ``close()``        | stops whatever still runs and releases the processes; idempotent; also on leaving |
|                    | a ``with`` block                                                                |

| backend        | plays                                                                              |
|----------------|------------------------------------------------------------------------------------|
| ``LocalBackend`` | in this process, in the order of ``pending`` (``--workers 1``)                    |
| ``PoolBackend``  | in N spawned processes (``multiprocessing``), each building the agents once and    |
|                | running torch / OpenMP on one thread (``worker.one_thread``); at most             |
|                | ``IN_FLIGHT`` games per process handed out at once, so memory is flat in the games |
| ``RayBackend``   | as Ray tasks, locally or on a cluster (``fiveplay_env.experiments.tournament.ray_tasks``)       |

Since game g's rows depend only on the spec and g, every backend gives the same rows (as a set).
"""
from __future__ import annotations

import multiprocessing as mp
import queue
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from typing import Any

from fiveplay_env.experiments.tournament.worker import GameWorker, WorkerJob, init_process, play_in_process

GameRows = list[dict[str, Any]]
"""The rows of one game, one per seat, as ``GameWorker.play`` returns them."""
IN_FLIGHT = 4
"""Games handed to each pool process ahead of its results (a pool's own ``imap`` would read all of
``pending`` at once)."""


class Backend(ABC):
    """Plays the games of one tournament (see the module docstring)."""

    name = "backend"

    @abstractmethod
    def games(self, pending: Iterable[int]) -> Iterator[GameRows]:
        """Each game of ``pending`` once, as its rows, in the order games finish."""

    def close(self) -> None:
        """Stop what still runs (idempotent)."""

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class LocalBackend(Backend):
    """The games played one after the other in this process."""

    name = "local"

    def __init__(self, job: WorkerJob) -> None:
        self.job = job
        self._worker: GameWorker | None = None

    def games(self, pending: Iterable[int]) -> Iterator[GameRows]:
        if self._worker is None:
            self._worker = GameWorker(self.job)
        return map(self._worker.play, pending)


class _Failed:
    """A game's error, passed from the pool's result thread to ``games``."""

    def __init__(self, error: BaseException) -> None:
        self.error = error


class PoolBackend(Backend):
    """The games played by ``workers`` spawned processes (``multiprocessing``, one game per task)."""

    name = "pool"

    def __init__(self, job: WorkerJob, workers: int) -> None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers: expected an integer >= 1, got {workers!r}")
        self._pool: Any = mp.get_context("spawn").Pool(workers, initializer=init_process,
                                                       initargs=(job.to_json(), True))
        self._window = IN_FLIGHT * workers

    def games(self, pending: Iterable[int]) -> Iterator[GameRows]:
        games = iter(pending)
        results: queue.Queue[Any] = queue.Queue()
        in_flight = 0

        def hand_out() -> bool:
            g = next(games, None)
            if g is None:
                return False
            self._pool.apply_async(play_in_process, (g,), callback=results.put,
                                   error_callback=lambda e: results.put(_Failed(e)))
            return True

        while in_flight < self._window and hand_out():
            in_flight += 1
        while in_flight:
            while True:
                try:
                    rows = results.get(timeout=0.2)  # (a timeout: Ctrl-C is seen between waits)
                    break
                except queue.Empty:
                    continue
            in_flight -= 1
            if isinstance(rows, _Failed):
                raise rows.error
            if hand_out():
                in_flight += 1
            yield rows

    def close(self) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None
