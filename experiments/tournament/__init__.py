"""Tournaments between agents: seats rotated, confidence intervals, win rates, openskill ratings.

    from fiveplay_env.experiments.tournament import RunOptions, TournamentSpec, run, resume

    spec = TournamentSpec(agents=("take5-safest", "random", "random", "random"), game="take5",
                          config={"mode": "round"}, games=100, seed=0)
    summary = run(spec, RunOptions(out="runs", workers=2, quiet=True))   # a new run folder
    summary = resume(summary["run_dir"])                                 # continue an interrupted one

The command line is ``python -m fiveplay_env.experiments.tournament`` (``cli``: the schedule, the figures and the
files of a run folder are described there, and in ``--help``).

| module        | job                                                                                 |
|---------------|-------------------------------------------------------------------------------------|
| ``spec``      | the typed specs: ``TournamentSpec`` (what is played, kept in ``config.json``),      |
|               | ``RunOptions`` (where and how it runs)                                              |
| ``schedule``  | who sits where in game g, the deal and agent seeds (``Schedule``, ``entrant_labels``) |
| ``worker``    | ``GameWorker``: plays game g and returns one row per seat; the per-process worker of  |
|               | pool and Ray processes                                                              |
| ``backends``  | one interface (``Backend``: ``games(pending)``, ``close()``) and the in-process and   |
|               | process-pool backends                                                               |
| ``ray_tasks`` | the Ray backend (``RayBackend``: streaming tasks, retries of lost workers)          |
| ``store``     | ``games.csv``: its columns, the resume checks of every row, appending games         |
| ``stats``     | ``summarize``: the figures, a pure function of the rows                             |
| ``report``    | the leaderboard table and the PNG plots                                             |
| ``runner``    | ``run`` / ``resume``: a session in a locked run folder; ``make_backend`` picks the    |
|               | backend                                                                             |
| ``cli``       | ``main(argv)`` (parses, then calls ``run`` or ``resume``) and ``cli()``             |
"""
from __future__ import annotations

from fiveplay_env.experiments.tournament.backends import Backend, LocalBackend, PoolBackend
from fiveplay_env.experiments.tournament.cli import build_parser, cli, main, options_from_args, spec_from_args
from fiveplay_env.experiments.tournament.report import leaderboard, make_plots
from fiveplay_env.experiments.tournament.runner import fingerprints, make_backend, resume, run
from fiveplay_env.experiments.tournament.schedule import AGENT_SEED_BASE, MAX_SEATS, Schedule, entrant_labels
from fiveplay_env.experiments.tournament.spec import FORMAT_VERSION, RESUME_KEYS, RunOptions, TournamentSpec, spec_hash
from fiveplay_env.experiments.tournament.stats import Z95, mean_ci, summarize
from fiveplay_env.experiments.tournament.store import GamesFileError, csv_columns, read_games
from fiveplay_env.experiments.tournament.worker import GameWorker, WorkerJob

__all__ = ["AGENT_SEED_BASE", "Backend", "FORMAT_VERSION", "GameWorker", "GamesFileError", "LocalBackend",
           "MAX_SEATS", "PoolBackend", "RESUME_KEYS", "RunOptions", "Schedule", "TournamentSpec", "WorkerJob", "Z95",
           "build_parser", "cli", "csv_columns", "entrant_labels", "fingerprints", "leaderboard", "main",
           "make_backend", "make_plots", "mean_ci", "options_from_args", "read_games", "resume", "run",
           "spec_from_args", "spec_hash", "summarize"]
