"""Running a tournament into its run folder: ``run(spec, options)`` starts one, ``resume(run_dir, options)``
continues one; both return the summary (``stats.summarize``) plus ``run_dir``, ``seconds_this_session``,
``interrupted`` and ``plots``.

A session: lock the run folder (one writer: ``runs.RunLock``), read the finished games back from
``games.csv`` (checked, half-written games dropped), play the missing ones on the chosen backend
(``make_backend``), appending each game's rows as it finishes, then write ``summary.json``,
the plots and print the leaderboard. Ctrl-C keeps every finished game, writes the summary of those and
raises ``KeyboardInterrupt`` again.
"""
from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agents.registry import agent_fingerprint
from experiments import runs
from experiments.tournament.backends import Backend, LocalBackend, PoolBackend
from experiments.tournament.report import leaderboard, make_plots
from experiments.tournament.spec import RESUME_KEYS, RunOptions, TournamentSpec
from experiments.tournament.stats import summarize
from experiments.tournament.store import GamesAppender, csv_columns, read_games, write_games
from experiments.tournament.worker import WorkerJob

PROG = "experiments.tournament"


def fingerprints(names: Sequence[str]) -> dict[str, str]:
    """{name: fingerprint} of the entrants that load saved state (``ckpt:`` checkpoints ...)."""
    out = {}
    for name in dict.fromkeys(names):
        fp = agent_fingerprint(name)
        if fp is not None:
            out[name] = fp
    return out


def make_backend(job: WorkerJob, workers: int = 1, ray: str | None = None, pending: int | None = None) -> Backend:
    """The backend for these options: ``ray`` set (and games to play): Ray tasks (``workers`` > 1 caps the
    tasks at once); ``workers`` == 1 or at most one game ``pending``: this process; else a process pool."""
    if ray is not None and pending != 0:
        from experiments.tournament.ray_tasks import RayBackend

        return RayBackend(job, address=ray, max_tasks=workers if workers > 1 else None)
    if workers == 1 or (pending is not None and pending <= 1):
        return LocalBackend(job)
    return PoolBackend(job, workers)


def run(spec: TournamentSpec, options: RunOptions = RunOptions()) -> dict[str, Any]:
    """Play the tournament ``spec`` into a new run folder under ``options.out``; the summary.

    Every agent name is built once first (a bad name raises ``ValueError`` before a folder is made).
    """
    spec.check_agents()
    stored = spec.to_json()
    stored["fingerprints"] = fingerprints(spec.agents)
    run_dir = runs.new_run_dir(options.out, "tournament", spec.game, spec.seed)
    argv = list(options.argv) if options.argv is not None else spec.to_argv()
    stored["argv"] = argv
    stored["provenance"] = runs.provenance(PROG, argv)
    with runs.RunLock(run_dir):  # one writer per run folder: a second --resume is refused, naming this one
        runs.write_config(run_dir, stored)
        return _session(run_dir, spec, options)


def resume(run_dir: str, options: RunOptions = RunOptions(), expect: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Continue the tournament in ``run_dir`` as its ``config.json`` says; the summary.

    ``expect``: values the caller gave for ``game``, ``agents``, ``players``, ``games``, ``seed`` (None:
    not given): one that differs from the run's raises ``ValueError``. So does an entrant whose saved
    state (a checkpoint) changed since the tournament started.
    """
    stored = runs.read_config(run_dir, RESUME_KEYS, what="tournament run")
    for key, value in (expect or {}).items():
        if value is not None and value != stored[key]:
            raise ValueError(f"resume: --{key} {value!r} disagrees with the run's {key}={stored[key]!r}; "
                             f"leave it out to continue the run as configured")
    spec = TournamentSpec.from_json(stored, where=os.path.join(run_dir, runs.CONFIG_NAME))
    now = fingerprints(spec.agents)
    for name, fp in (stored.get("fingerprints") or {}).items():
        if now.get(name) != fp:
            raise ValueError(
                f"resume: {name} changed since the tournament started (it was {fp}, it is now "
                f"{now.get(name, 'missing')}): its games so far were played by another policy. Restore that "
                f"file, or start a new tournament")
    with runs.RunLock(run_dir):
        return _session(run_dir, spec, options)


def _session(run_dir: str, spec: TournamentSpec, options: RunOptions) -> dict[str, Any]:
    """Play the missing games of the tournament in ``run_dir`` (locked by the caller) and summarise."""
    say: Callable[..., None] = (lambda *a: None) if options.quiet else (lambda *a: print(*a, flush=True))
    from agents import games as games_mod

    columns = csv_columns(games_mod.get_game(spec.game))
    csv_path = os.path.join(run_dir, "games.csv")
    done = read_games(csv_path, spec, columns)
    done = {g: rows for g, rows in done.items() if g < spec.games}
    write_games(csv_path, columns, done)  # drops half-written games, keeps the header
    pending = [g for g in range(spec.games) if g not in done]
    if options.max_games is not None:
        pending = pending[:options.max_games]
    record_dir = None
    if options.record:
        record_dir = os.path.join(run_dir, "records")
        os.makedirs(record_dir, exist_ok=True)
    job = WorkerJob(spec, record_dir)
    say(f"tournament: {spec.game} {list(spec.agents)} - {len(done)} games done, {len(pending)} to play -> {run_dir}")
    interrupted = False
    t0 = time.time()
    with GamesAppender(csv_path, columns) as out:
        bar = None
        if options.progress and not options.quiet:
            from tqdm import tqdm

            bar = tqdm(total=spec.games, initial=len(done), unit="game", dynamic_ncols=True)
        backend = None
        try:
            backend = make_backend(job, workers=options.workers, ray=options.ray, pending=len(pending))
            for rows in backend.games(pending):
                done[rows[0]["game"]] = out.add(rows)
                if bar is not None:
                    bar.update(1)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            if backend is not None:
                backend.close()
            if bar is not None:
                bar.close()
    elapsed = time.time() - t0
    summary = summarize(spec, done)
    summary["run_dir"] = run_dir
    summary["seconds_this_session"] = round(elapsed, 3)
    summary["interrupted"] = interrupted
    summary["plots"] = make_plots(summary, run_dir) if options.plots and done else []
    runs.atomic_write(os.path.join(run_dir, "summary.json"), json.dumps(summary, indent=2) + "\n")
    say(leaderboard(summary))
    if summary["plots"]:
        say(f"plots: {', '.join(summary['plots'])}")
    say(f"results: {run_dir} ({len(done)} of {spec.games} games, {elapsed:.1f} s this session)")
    if not summary["complete"]:
        say(f"to continue: python -m experiments.tournament --resume {run_dir}")
    if interrupted:
        raise KeyboardInterrupt
    return summary


__all__ = ["fingerprints", "make_backend", "resume", "run"]
