"""Throughput with and without Ray: a tournament with ``--workers 1``, ``--workers 2`` and ``--ray``, side by
side, and RLlib PPO sampling with 1 and 2 env runners on each game.

Usage::

    fiveplay ray-bench --games 400 --cpus 2
    fiveplay ray-bench --skip-rllib --agents take5-safest random random random --config mode=game

Tournament rows: the same tournament (``--agents``, ``--config``, ``--games``) played by each backend into a
scratch folder; games/s is games over the wall time of ``fiveplay_env.experiments.tournament.run`` (start-up included).
``ray (cold)`` starts a local Ray instance of ``--cpus`` CPUs inside the run; ``ray (warm)`` runs in a process
already connected to it (the workers are started and have built the agents), so the difference is Ray's
start-up. The Ray overhead per game is measured twice: ``(t_ray_warm - t_workers_N) / games`` with N = ``--cpus``
(wall-clock, cores busy in parallel), and, without parallelism to hide it, cheap games (a Take 5 round of two
random players) played in-process against the same games streamed through one Ray task slot.

RLlib rows: ``ppo_config`` on each game, ``--rllib-batch`` env steps per iteration, two iterations (the first
warms up); env steps/s is the second iteration's sampled steps over its sampling time (RLlib's
``env_runner_sampling_timer``). Print only; nothing is written outside a temporary folder.

In code: ``run(RayBenchSpec(games=400, cpus=2))`` (``main(argv)`` parses the command line into a
``RayBenchSpec``).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fiveplay_env.agents import games as games_mod
from fiveplay_env.games import BUILTIN, default_game


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m fiveplay_env.experiments.ray_bench", description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("Usage::")[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default=default_game(), choices=sorted(games_mod.GAMES),
                    help=f"tournament game (default {default_game()})")
    ap.add_argument("--agents", nargs="+", default=None,
                    help="tournament entrants (default: the game's two first heuristics, each beside random)")
    ap.add_argument("--config", nargs="*", default=[], help="tournament game config (default: the game's default)")
    ap.add_argument("--games", type=int, default=400, help="tournament games (default 400)")
    ap.add_argument("--cpus", type=int, default=2, help="processes / Ray CPUs (default 2)")
    ap.add_argument("--rllib-batch", type=int, default=2000, help="env steps per RLlib iteration (default 2000)")
    ap.add_argument("--skip-tournament", action="store_true", help="only the RLlib rows")
    ap.add_argument("--skip-rllib", action="store_true", help="only the tournament rows")
    return ap


@dataclass(frozen=True)
class RayBenchSpec:
    """The benchmark's settings (see the module docstring); validated on construction.

    Attributes:
        game, agents, config, games: the tournament every backend plays; cpus: processes / Ray CPUs;
        rllib_batch: env steps per RLlib iteration; skip_tournament, skip_rllib: leave those rows out.
    """

    game: str = field(default_factory=default_game)
    agents: tuple[str, ...] = ()
    config: Mapping[str, Any] = field(default_factory=dict)
    games: int = 400
    cpus: int = 2
    rllib_batch: int = 2000
    skip_tournament: bool = False
    skip_rllib: bool = False

    def __post_init__(self) -> None:
        if self.games < 1 or self.cpus < 1:
            raise ValueError(f"games and cpus: expected integers >= 1, got {self.games} and {self.cpus}")
        object.__setattr__(self, "agents", tuple(self.agents) or default_entrants(self.game))
        self.tournament()  # validates the game, agents and config

    def tournament(self) -> Any:
        """The ``TournamentSpec`` every backend plays."""
        from fiveplay_env.experiments.tournament import TournamentSpec

        return TournamentSpec(agents=self.agents, game=self.game, config=dict(self.config), games=self.games)


def default_entrants(game: str) -> tuple[str, ...]:
    """The game's best heuristic, random, another heuristic, random (its kit's; random alone without one)."""
    kit = games_mod.kit(game)
    first = kit.baseline
    other = next((h for h in kit.heuristics if h != first), first)
    return (first, "random", other, "random")


def _tournament(spec: RayBenchSpec, out: str, workers: int = 1, ray: str | None = None) -> float:
    from fiveplay_env.experiments import tournament

    t = time.perf_counter()
    tournament.run(spec.tournament(), tournament.RunOptions(out=out, workers=workers, ray=ray, plots=False, quiet=True))
    return time.perf_counter() - t


def bench_tournament(spec: RayBenchSpec, out: str) -> list[tuple[str, float]]:
    """``[(backend, seconds)]`` for the same tournament."""
    import ray

    rows = [("--workers 1", _tournament(spec, out, workers=1)),
            (f"--workers {spec.cpus}", _tournament(spec, out, workers=spec.cpus)),
            ("--ray (cold: starts Ray)", _tournament(spec, out, workers=spec.cpus, ray="local"))]
    ray.init(num_cpus=spec.cpus, include_dashboard=False, log_to_driver=False)
    try:
        _tournament(spec, out, ray="local")  # starts the workers, builds the agents in them
        rows.append(("--ray (warm)", _tournament(spec, out, ray="local")))
    finally:
        ray.shutdown()
    return rows


def bench_overhead(games: int = 2000) -> tuple[float, float, float]:
    """Seconds per game of a cheap tournament (2 random players, the default game in its quick preset) played in this process,
    and played by one Ray task slot (warm) with the results streamed back (wall-clock: the difference is Ray's
    cost per game); and the driver's CPU seconds per game in the Ray run (what bounds a cluster's games/s)."""
    import ray

    from fiveplay_env.experiments.tournament import GameWorker, TournamentSpec, WorkerJob
    from fiveplay_env.experiments.tournament.ray_tasks import RayBackend

    game = games_mod.get_game(default_game())
    job = WorkerJob(TournamentSpec(agents=("random", "random"), game=game.name, config=game.quick_config(num_players=2),
                                   games=games))
    worker = GameWorker(job)
    t = time.perf_counter()
    for g in range(games):
        worker.play(g)
    local = (time.perf_counter() - t) / games
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        backend = RayBackend(job, max_tasks=1)
        for _ in backend.games(range(64)):  # warm: worker started, agents built
            pass
        t, c = time.perf_counter(), time.process_time()
        n = sum(1 for _ in backend.games(range(games)))
        remote, driver_cpu = (time.perf_counter() - t) / n, (time.process_time() - c) / n
        backend.close()
    finally:
        ray.shutdown()
    return local, remote, driver_cpu


def bench_rllib(spec: RayBenchSpec) -> list[tuple[str, int, float]]:
    """``[(game, env runners, env steps/s)]`` of PPO sampling."""
    import ray

    from fiveplay_env.integrations.rllib import ppo_config

    out = []
    ray.init(num_cpus=spec.cpus + 1, include_dashboard=False, log_to_driver=False)
    try:
        for game, cfg in [(g.name, g.quick_config(num_players=4)) for g in BUILTIN]:
            for runners in (1, 2):
                config = ppo_config(game, env_config=cfg, num_env_runners=runners, seed=0).training(
                    train_batch_size_per_learner=spec.rllib_batch, minibatch_size=min(500, spec.rllib_batch), num_epochs=1)
                algo = config.build_algo()
                try:
                    algo.train()
                    res = algo.train()
                finally:
                    algo.stop()
                steps = float(res["env_runners"]["num_env_steps_sampled"])
                out.append((game, runners, steps / float(res["timers"]["env_runner_sampling_timer"])))
    finally:
        ray.shutdown()
    return out


def run(spec: RayBenchSpec) -> dict[str, Any]:
    """Measure and print every row; the figures as a dict."""
    load = os.getloadavg()
    print(f"load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} ({os.cpu_count()} cores)", flush=True)
    result: dict[str, Any] = {"load_at_start": load}
    if not spec.skip_tournament:
        with tempfile.TemporaryDirectory() as out:
            rows = bench_tournament(spec, out)
        print(f"\ntournament: {spec.game} {list(spec.agents)} {[f'{k}={v}' for k, v in spec.config.items()]}, "
              f"{spec.games} games")
        print(f"{'backend':28s} {'seconds':>8s} {'games/s':>8s}")
        for name, sec in rows:
            print(f"{name:28s} {sec:8.2f} {spec.games / sec:8.1f}")
        t = dict(rows)
        over = (t["--ray (warm)"] - t[f"--workers {spec.cpus}"]) / spec.games
        print(f"Ray overhead per game (warm Ray vs --workers {spec.cpus}): {1000 * over:.2f} ms wall-clock; "
              f"Ray start-up: {t['--ray (cold: starts Ray)'] - t['--ray (warm)']:.1f} s")
        result["tournament"] = rows
        result["ray_overhead_per_game_s"] = over
    if not spec.skip_tournament:
        local, remote, driver_cpu = bench_overhead()
        print(f"\nper game, cheap games (take5 round, 2 random players): {1000 * local:.2f} ms in-process, "
              f"{1000 * remote:.2f} ms through one Ray task slot: Ray overhead {1000 * (remote - local):.2f} ms "
              f"per game; the Ray driver's CPU: {1000 * driver_cpu:.2f} ms per game")
        result["driver_cpu_per_game_s"] = driver_cpu
        result["overhead_per_game_s"] = remote - local
    if not spec.skip_rllib:
        rl = bench_rllib(spec)
        print(f"\nRLlib PPO sampling ({spec.rllib_batch} env steps per iteration, one game per env runner)")
        print(f"{'game':12s} {'env runners':>11s} {'env steps/s':>12s}")
        for game, k, sps in rl:
            print(f"{game:12s} {k:11d} {sps:12.1f}")
        result["rllib"] = rl
    load = os.getloadavg()
    print(f"\nload average at end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return result


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Parse the command line into a ``RayBenchSpec`` and ``run`` it."""
    args = build_parser().parse_args(list(argv) if argv is not None else None)
    return run(RayBenchSpec(game=args.game, agents=tuple(args.agents or ()), config=games_mod.parse_config(args.config),
                            games=args.games, cpus=args.cpus, rllib_batch=args.rllib_batch,
                            skip_tournament=args.skip_tournament, skip_rllib=args.skip_rllib))


if __name__ == "__main__":
    try:
        main()
    except ValueError as exc:
        print(f"ray_bench: error: {exc}", file=sys.stderr)
        sys.exit(2)
