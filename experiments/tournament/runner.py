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

import contextlib
import itertools
import json
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from fiveplay_env.agents import games as games_mod
from fiveplay_env.agents.registry import agent_fingerprint
from fiveplay_env.experiments import runs
from fiveplay_env.experiments.tournament.backends import Backend, LocalBackend, PoolBackend
from fiveplay_env.experiments.tournament.report import leaderboard, make_plots
from fiveplay_env.experiments.tournament.spec import (FORMAT_VERSION, HASHED_KEYS, READABLE_VERSIONS, RESUME_KEYS, RunOptions,
                                         TournamentSpec, spec_hash)
from fiveplay_env.experiments.tournament.stats import summarize
from fiveplay_env.experiments.tournament.store import GamesAppender, csv_columns, read_games, write_games
from fiveplay_env.experiments.tournament.worker import WorkerJob

PROG = "fiveplay_env.experiments.tournament"


def fingerprints(names: Sequence[str]) -> dict[str, str]:
    """{name: fingerprint} of the entrants that read files (checkpoints, shipped policies, a search's
    prior, an import path's module: ``fiveplay_env.agents.registry.agent_fingerprint``)."""
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
        from fiveplay_env.experiments.tournament.ray_tasks import RayBackend

        return RayBackend(job, address=ray, max_tasks=workers if workers > 1 else None)
    if workers == 1 or (pending is not None and pending <= 1):
        return LocalBackend(job)
    return PoolBackend(job, workers)


def preflight(options: RunOptions) -> None:
    """Import what a session of these options needs (``ModuleNotFoundError`` naming the package, which the
    command turns into the line naming its extra): the run folder's lock (``filelock``), the progress bar
    (``tqdm``), the plots (``matplotlib``) and, with ``ray``, Ray. Run before a new folder is made."""
    import filelock  # noqa: F401 - runs.RunLock

    if options.progress and not options.quiet:
        import tqdm  # noqa: F401
    if options.plots:
        import matplotlib  # noqa: F401
    if options.ray is not None:
        import ray  # noqa: F401


def _remove_if_unplayed(run_dir: str) -> bool:
    """Remove a new run folder that holds no finished game (a session that failed before its first one:
    Ray not reachable, a backend that would not start); whether it was removed. Only the files a session
    writes before its first game are removed, so a folder holding anything else is kept."""
    csv_path = os.path.join(run_dir, "games.csv")
    try:
        if os.path.exists(csv_path):
            with open(csv_path, encoding="utf-8") as f:
                if sum(1 for _ in f) > 1:  # the header and at least one row
                    return False
        records = os.path.join(run_dir, "records")
        if os.path.isdir(records):
            if os.listdir(records):
                return False
            os.rmdir(records)
        for name in (runs.CONFIG_NAME, "games.csv", runs.LOCK_NAME, runs.OWNER_NAME):
            path = os.path.join(run_dir, name)
            if os.path.exists(path):
                os.unlink(path)
        os.rmdir(run_dir)
    except OSError:
        return False
    return True


def run(spec: TournamentSpec, options: RunOptions = RunOptions()) -> dict[str, Any]:
    """Play the tournament ``spec`` into a new run folder under ``options.out``; the summary.

    Every agent name is built once first (a bad name raises ``ValueError`` before a folder is made), and
    what the session needs is imported (``preflight``: a missing extra fails before a folder is made).
    A session that fails before its first game (Ray not reachable, say) removes the folder it made.
    """
    spec.check_agents()
    preflight(options)
    stored = spec.to_json()
    stored["fingerprints"] = fingerprints(spec.agents)
    stored["spec_sha256"] = spec_hash(stored)
    out_existed = os.path.isdir(options.out)
    run_dir = runs.new_run_dir(options.out, "tournament", spec.game, spec.seed)
    argv = list(options.argv) if options.argv is not None else spec.to_argv()
    stored["argv"] = argv
    stored["provenance"] = runs.provenance(PROG, argv)
    try:
        with runs.RunLock(run_dir):  # one writer per run folder: a second --resume is refused, naming this one
            runs.write_config(run_dir, stored)
            return _session(run_dir, spec, options, FORMAT_VERSION, stored["spec_sha256"])
    except Exception:  # not KeyboardInterrupt: an interrupted run keeps its folder and summary to resume
        if _remove_if_unplayed(run_dir) and not out_existed:
            with contextlib.suppress(OSError):
                os.rmdir(options.out)  # made for this run, and empty again
        raise


def resume(run_dir: str, options: RunOptions = RunOptions(), expect: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Continue the tournament in ``run_dir`` as its ``config.json`` says; the summary.

    ``expect``: values the caller gave for ``game``, ``agents``, ``players``, ``games``, ``seed``, ``record``
    (None: not given): one that differs from the run's raises ``ValueError``. So does a ``config.json``
    edited since the tournament started (its ``spec_sha256``), and an entrant whose files (a checkpoint,
    a shipped policy, a search's prior) changed. A format 1 run (written before the spec hash) is
    resumed only with ``options.allow_legacy`` (``--allow-legacy``), with the checks of its time:
    ``record`` per session, no hash or row checksums (``RunFolderError`` otherwise).
    """
    path = os.path.join(run_dir, runs.CONFIG_NAME)
    stored = runs.read_config(run_dir, RESUME_KEYS, what="tournament run")
    version = stored["version"]
    if isinstance(version, bool) or version not in READABLE_VERSIONS:
        raise runs.RunFolderError(f"resume: {path}: version: expected one of {list(READABLE_VERSIONS)}, got {version!r}")
    if version < FORMAT_VERSION and not options.allow_legacy:
        raise runs.RunFolderError(
            f"resume: {path} is format {version}: written before the spec hash and row checksums, so neither its "
            f"settings nor its games.csv rows can be verified (an edited score would resume). Resume it only if you "
            f"trust the folder, with --allow-legacy; expected format {FORMAT_VERSION}")
    if version == FORMAT_VERSION:
        missing = [k for k in (*HASHED_KEYS, "spec_sha256") if k not in stored]
        if missing:
            raise runs.RunFolderError(f"resume: {path} lacks {missing}; it was edited: restore it or start a new run")
        if stored["spec_sha256"] != spec_hash(stored):
            raise ValueError(
                f"resume: {path} was edited since the tournament started: its spec_sha256 does not match what it "
                f"holds ({', '.join(HASHED_KEYS)}), so its games so far may have been played under other settings. "
                f"Restore it, or start a new tournament")
    given = dict(expect or {})
    if version < 2 and given.get("record") is not None:
        given.pop("record")  # format 1 runs: --record is per session
        stored = {**stored, "record": True}
    for key, value in given.items():
        if value is not None and value != stored.get(key):
            raise ValueError(f"resume: --{key} {value!r} disagrees with the run's {key}={stored.get(key)!r}; "
                             f"leave it out to continue the run as configured")
    spec = TournamentSpec.from_json(stored, where=path)
    if version < 2 and not options.quiet:
        print(f"tournament: {path} is format {version} (written before the spec hash and row checksums): its "
              f"config.json and games.csv rows cannot be verified; resuming with the checks of that format",
              file=sys.stderr, flush=True)
    spec.check_agents()  # a bad or now missing agent fails here, and imports what its fingerprint needs
    now = fingerprints(spec.agents)
    was = stored.get("fingerprints") or {}
    if not isinstance(was, dict):
        raise runs.RunFolderError(f"resume: {path}: fingerprints: expected an object, got {was!r}")
    names = set(was) | (set(now) if version >= 2 else set())
    for name in sorted(names):
        if now.get(name) != was.get(name):
            raise ValueError(
                f"resume: {name} changed since the tournament started (it was {was.get(name, 'reading no file')}, "
                f"it is now {now.get(name, 'missing')}): its games so far were played by another policy. Restore "
                f"that file, or start a new tournament")
    with runs.RunLock(run_dir):
        return _session(run_dir, spec, options, version, stored.get("spec_sha256") if version >= 2 else None)


def _session(run_dir: str, spec: TournamentSpec, options: RunOptions, version: int, salt: str | None) -> dict[str, Any]:
    """Play the missing games of the tournament in ``run_dir`` (locked by the caller) and summarise
    (``version``: the run folder's format; ``salt``: its ``spec_sha256``, for the row checksums)."""
    say: Callable[..., None] = (lambda *a: None) if options.quiet else (lambda *a: print(*a, flush=True))
    columns = csv_columns(games_mod.get_game(spec.game), version)
    csv_path = os.path.join(run_dir, "games.csv")
    done = read_games(csv_path, spec, columns, salt)
    done = {g: rows for g, rows in done.items() if g < spec.games}
    record_dir = None
    if spec.record:
        record_dir = os.path.join(run_dir, "records")
        _check_records(record_dir, done, version)
        os.makedirs(record_dir, exist_ok=True)
    write_games(csv_path, columns, done)  # drops half-written games, keeps the header
    # the games to play, generated as the backend asks for them: memory flat in the number of games
    to_play = spec.games - len(done)
    pending: Any = (g for g in range(spec.games) if g not in done)
    if options.max_games is not None:
        to_play = min(to_play, options.max_games)
        pending = itertools.islice(pending, options.max_games)
    job = WorkerJob(spec, record_dir)
    say(f"tournament: {spec.game} {list(spec.agents)} - {len(done)} games done, {to_play} to play -> {run_dir}")
    interrupted = False
    t0 = time.time()
    with GamesAppender(csv_path, columns, salt) as out:
        bar = None
        if options.progress and not options.quiet:
            from tqdm import tqdm

            bar = tqdm(total=spec.games, initial=len(done), unit="game", dynamic_ncols=True)
        backend = None
        try:
            backend = make_backend(job, workers=options.workers, ray=options.ray, pending=to_play)
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
        say(f"to continue: fiveplay tournament --resume {run_dir}")
    if interrupted:
        raise KeyboardInterrupt
    return summary


def _check_records(record_dir: str, done: Mapping[int, Any], version: int) -> None:
    """Every finished game of a recording run has its record (format 2; format 1 recorded per session)."""
    if version < 2:
        return
    for g in sorted(done):
        path = os.path.join(record_dir, f"game_{g:06d}.jsonl")
        if not os.path.isfile(path):
            raise ValueError(f"resume: {path} is missing: this run records every game, and game {g} is finished. "
                             f"Restore the file, or delete game {g}'s rows from games.csv to play it again")


__all__ = ["fingerprints", "make_backend", "preflight", "resume", "run"]
