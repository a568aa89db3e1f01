"""Playing a tournament's games: ``GameWorker`` plays game g and returns one row per seat.

| piece                 | contract                                                                        |
|-----------------------|---------------------------------------------------------------------------------|
| ``WorkerJob``         | what a worker needs: the ``TournamentSpec`` and where records go (or None);     |
|                       | ``to_json`` / ``from_json``: the form sent to worker processes                   |
| ``GameWorker(job)``   | builds the game, config, schedule and one agent per entrant once; ``play(g)``   |
|                       | resets the seated agents with their seeds, plays game g, writes its record      |
|                       | (``record_dir``) and returns the rows (``csv_columns`` order, Python values)    |
| ``init_process`` /    | the per-process worker of a pool or Ray worker process: built once (a set-up     |
| ``play_in_process`` / | error is kept and raised by the first game, as an exception in a pool            |
| ``process_worker``    | initializer would make ``multiprocessing`` respawn the worker forever)           |
| ``one_thread``        | one thread per process for torch / OpenMP / BLAS (pool and Ray workers)          |

Game g's rows depend only on the spec and g (every seed derives from the tournament seed), so any
backend, any number of workers and any order of games give the same rows.
"""
from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from typing import Any

from fiveplay_env.agents import games as games_mod
from fiveplay_env.agents.arena import play_game
from fiveplay_env.agents.base import Agent
from fiveplay_env.agents.registry import make_agent
from fiveplay_env.experiments.tournament.spec import TournamentSpec


@dataclass(frozen=True)
class WorkerJob:
    """The games of one tournament as a worker plays them: the spec and the records folder (None: no
    records)."""

    spec: TournamentSpec
    record_dir: str | None = None

    def to_json(self) -> str:
        """Canonical JSON: what worker processes receive, and the key under which they keep their worker."""
        return json.dumps({"spec": self.spec.to_json(), "record_dir": self.record_dir}, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> WorkerJob:
        data = json.loads(text)
        return cls(TournamentSpec.from_json(data["spec"], where="worker job"), data["record_dir"])


class GameWorker:
    """Plays the games of ``job`` in this process (see the module docstring)."""

    def __init__(self, job: WorkerJob) -> None:
        spec = job.spec
        self.game = games_mod.get_game(spec.game)
        self.config = self.game.make_config(dict(spec.config))
        self.schedule = spec.schedule()
        self.agents: list[Agent] = [make_agent(name, spec.game, seed=0, allow_import=True) for name in spec.agents]
        self.labels = spec.labels
        self.names = list(spec.agents)
        self.record_dir = job.record_dir
        self.metrics = [m.name for m in self.game.metrics if m.name != "placing"]

    def play(self, g: int) -> list[dict[str, Any]]:
        """Play game g; one row per seat."""
        game = self.game
        sched = self.schedule
        seating = sched.seating(g)
        agents: list[Agent] = []
        for seat, e in enumerate(seating):
            agent = self.agents[e]
            agent.reset(seed=sched.agent_seed(g, seat))
            agents.append(agent)
        rec = play_game(game, self.config, agents, sched.game_seed(g))
        if self.record_dir:
            from fiveplay_env import records
            records.write_records(os.path.join(self.record_dir, f"game_{g:06d}.jsonl"), [records.make_record(
                game.name, self.config, rec.seed, rec.actions, agents=[self.labels[e] for e in seating],
                meta={"game": g, "truncated": rec.truncated})])
        rows = []
        for seat, e in enumerate(seating):
            row: dict[str, Any] = {
                "game": g, "deal": g // sched.n, "rotation": g % sched.n, "game_seed": rec.seed, "seat": seat,
                "entrant": self.labels[e], "agent": self.names[e],
                "win": rec.results["win"][seat], "placing": rec.results["placing"][seat],
            }
            for m in self.metrics:
                row[m] = rec.results[m][seat]
            row.update(decisions=rec.decisions[seat], think_s=round(rec.think_s[seat], 6),
                       think_max_s=round(rec.think_max_s[seat], 6), steps=rec.steps,
                       rounds=rec.rounds, truncated=int(rec.truncated))
            rows.append(row)
        return rows


# --- the worker of a pool or Ray worker process --------------------------------------------------------

_PROCESS: dict[str, Any] = {}
"""This process's worker (``"worker"``) or its set-up error (``"error"``), and the job it was built for
(``"job"``: its JSON)."""


def one_thread() -> None:
    """One thread per worker process for the numeric libraries (torch, OpenMP, BLAS): ``--workers N``
    processes already use N cores, and a learned agent's torch spreading each forward pass over every
    core would oversubscribe them (each pass then waits for threads that other workers hold). An
    explicit ``OMP_NUM_THREADS`` (or ``MKL_NUM_THREADS``) in the environment is left as it is."""
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    torch = sys.modules.get("torch")  # not imported here: only learned agents need it
    if torch is not None:
        torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))


def init_process(job_json: str, threads_one: bool = False) -> None:
    """Build this process's worker for ``job_json`` (``WorkerJob.to_json``); ``threads_one``: a pool
    worker (``one_thread``). A failure is kept and raised by ``play_in_process``."""
    if threads_one:
        one_thread()
    _PROCESS.clear()  # nothing of an earlier tournament in this process (its agents, or its set-up error)
    _PROCESS["job"] = job_json
    try:
        _PROCESS["worker"] = GameWorker(WorkerJob.from_json(job_json))
    except Exception as e:  # re-raised by play_in_process, in the parent, with its message
        _PROCESS["error"] = e


def process_worker(job_json: str) -> GameWorker:
    """This process's worker for ``job_json``, built unless it was built for that job already (Ray
    reuses its worker processes: agents are built once per process and tournament)."""
    if _PROCESS.get("job") != job_json:
        init_process(job_json)
    if "error" in _PROCESS:
        raise _PROCESS["error"]
    return _PROCESS["worker"]


def play_in_process(g: int) -> list[dict[str, Any]]:
    """Game g played by this process's worker (``init_process``)."""
    if "error" in _PROCESS:
        raise _PROCESS["error"]
    return _PROCESS["worker"].play(g)
