"""Ray: tournaments as Ray tasks give the local rows, survive a killed worker and a killed driver (resume);
RLlib trains PPO on both games through the adapter with masks respected; an ``rllib:`` checkpoint plays.

One local Ray instance (2 CPUs) serves the whole module: Ray starts slowly."""
from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("ray.rllib")

from fiveplay_env.experiments import tournament as T  # noqa: E402
from fiveplay_env.experiments.tournament.ray_tasks import RayBackend, default_batch_size  # noqa: E402

VOLATILE = ("think_s", "think_max_s", "check")  # wall-clock figures and the row checksums over them
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def ray_local():
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, configure_logging=False, log_to_driver=False)
    yield ray.get_runtime_context().gcs_address
    if started:
        ray.shutdown()


def _rows(run_dir: str) -> list[dict[str, str]]:
    with open(os.path.join(run_dir, "games.csv"), newline="") as f:
        return list(csv.DictReader(f))


def _stable(rows: list[dict]) -> list[tuple]:
    return sorted(tuple((k, str(v)) for k, v in r.items() if k not in VOLATILE) for r in rows)


ARGS = ["--game", "take5", "--agents", "take5-safest", "random", "take5-closest", "random",
        "--config", "mode=game", "--seed", "5", "--no-progress", "--no-plots", "--quiet"]


def test_ray_tournament_rows_equal_local_rows(tmp_path, ray_local) -> None:
    local = T.main([*ARGS, "--games", "16", "--out", str(tmp_path / "local")])
    remote = T.main([*ARGS, "--games", "16", "--out", str(tmp_path / "ray"), "--ray"])
    assert remote["complete"] and remote["games_completed"] == 16
    rows = _rows(remote["run_dir"])
    assert len(rows) == 16 * 4 and len({(r["game"], r["seat"]) for r in rows}) == 64
    assert _stable(rows) == _stable(_rows(local["run_dir"]))
    # The summary is the same pure function of the same rows.
    for a, b in zip(local["entrants"], remote["entrants"]):
        assert a["rating"] == b["rating"] and a["win_rate"] == b["win_rate"]
    assert ray.is_initialized()  # the tournament joined this process's Ray and left it running


def _job(games: int) -> T.WorkerJob:
    return T.WorkerJob(T.spec_from_args(T.build_parser().parse_args([*ARGS, "--games", str(games)])))


def test_a_killed_worker_loses_only_its_unfinished_games(ray_local) -> None:
    job = _job(48)
    worker = T.GameWorker(job)
    expected = {g: worker.play(g) for g in range(48)}
    pool = RayBackend(job, max_tasks=1, batch_size=48)  # one task holds every game: a kill cuts it mid-way
    got: dict[int, list] = {}
    killed = None
    for rows in pool.games(range(48)):
        g = rows[0]["game"]
        assert g not in got, f"game {g} delivered twice"
        got[g] = rows
        if killed is None:
            killed = pool.last_pid
            os.kill(killed, signal.SIGKILL)
    pool.close()
    assert pool.lost_workers >= 1 and pool.retried >= 1
    assert len(pool.pids) >= 2  # the retried games ran in another process than the killed one
    assert sorted(got) == list(range(48))
    assert _stable([r for g in got for r in got[g]]) == _stable([r for g in expected for r in expected[g]])


def test_resume_after_a_killed_ray_run(tmp_path, ray_local) -> None:
    games = 240
    out = tmp_path / "killed"
    cmd = [sys.executable, "-m", "fiveplay_env.experiments.tournament", *ARGS, "--games", str(games), "--out", str(out),
           "--ray", ray_local]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    run_dir = None
    deadline = time.time() + 120
    try:
        while time.time() < deadline and proc.poll() is None:
            dirs = list(out.glob("tournament__*")) if out.exists() else []
            if dirs and os.path.exists(dirs[0] / "games.csv"):
                with open(dirs[0] / "games.csv") as f:
                    if sum(1 for _ in f) > 1 + 4 * 8:  # a few games in: kill the driver mid-run
                        run_dir = str(dirs[0])
                        proc.send_signal(signal.SIGKILL)
                        break
            time.sleep(0.02)
    finally:
        proc.kill()
        proc.wait()
    assert run_dir is not None, f"the Ray run did not start writing games: {proc.stderr.read().decode()[-2000:]}"
    assert not os.path.exists(os.path.join(run_dir, "summary.json")), "the run finished before the kill"
    with open(os.path.join(run_dir, "config.json")) as f:
        spec = json.load(f)
    from fiveplay_env.agents.games import get_game

    partial = T.read_games(os.path.join(run_dir, "games.csv"), T.TournamentSpec.from_json(spec),
                           T.csv_columns(get_game("take5")))
    assert 8 <= len(partial) < games
    resumed = T.main(["--resume", run_dir, "--ray", "--no-progress", "--no-plots", "--quiet"])
    assert resumed["complete"] and resumed["games_completed"] == games
    local = T.main([*ARGS, "--games", str(games), "--out", str(tmp_path / "local")])
    assert _stable(_rows(run_dir)) == _stable(_rows(local["run_dir"]))


def test_default_batches_and_bad_arguments(ray_local) -> None:
    assert default_batch_size(1000, 2) == 32 and default_batch_size(16, 2) == 2 and default_batch_size(0, 4) == 1
    with pytest.raises(ValueError, match="batch_size"):
        RayBackend(_job(4), batch_size=0)
    with RayBackend(_job(4)) as pool:
        with pytest.raises(ValueError, match="distinct"):
            list(pool.games([1, 1]))
    # An error of the game code itself is raised, not retried.
    bad = T.WorkerJob(T.TournamentSpec(agents=("no-such-agent",) * 4, game="take5", config={"mode": "game"}))
    pool = RayBackend(bad)
    with pytest.raises(ValueError, match="agent name"):
        list(pool.games([0, 1]))
    assert pool.retried == 0
    pool.close()


# --- RLlib --------------------------------------------------------------------------------------------------


def test_the_env_masks_and_refuses_illegal_actions(ray_local) -> None:
    from fiveplay_env import IllegalActionError
    from fiveplay_env.integrations.rllib import FiveplayMultiAgentEnv

    for game, cfg in [("take5", {"num_players": 3, "mode": "round"}), ("five_alive", {"num_players": 3})]:
        env = FiveplayMultiAgentEnv({"game": game, **cfg})
        obs, _ = env.reset(seed=3)
        (agent, o), = obs.items()
        assert env.observation_spaces[agent].contains(o)
        illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
        with pytest.raises(IllegalActionError):
            env.step({agent: illegal})
        again, _ = FiveplayMultiAgentEnv({"game": game, **cfg}).reset(seed=3)
        assert np.array_equal(again[agent]["observations"], o["observations"])  # reset(seed) reproduces
        # A full game of legal random moves: one actor at a time, returns are the game's.
        rng = np.random.default_rng(0)
        totals: dict[str, float] = {}
        for _ in range(5000):
            acting = [a for a, x in obs.items() if x["action_mask"].any()]
            assert len(acting) == 1
            obs, rew, term, trunc, _ = env.step({acting[0]: int(rng.choice(np.flatnonzero(obs[acting[0]]["action_mask"])))})
            for a, r in rew.items():
                totals[a] = totals.get(a, 0.0) + r
            if term["__all__"] or trunc["__all__"]:
                break
        assert term["__all__"] or trunc["__all__"]
        assert set(obs) == set(env.possible_agents) or game == "five_alive"
        if game == "take5":  # every player's return is minus its final score
            scores = env.aec_env.unwrapped.engine.state.scores
            assert {a: totals[a] for a in env.possible_agents} == {
                a: -float(scores[i]) for i, a in enumerate(env.possible_agents)}
    with pytest.raises(ValueError, match="game"):
        FiveplayMultiAgentEnv({"game": "chess"})
    with pytest.raises(ValueError, match="opponents"):
        FiveplayMultiAgentEnv({"game": "take5", "num_players": 3, "opponents": ["random"] * 3})


@pytest.mark.slow
def test_rllib_ppo_trains_on_both_games_and_a_checkpoint_plays_a_tournament(tmp_path, ray_local) -> None:
    from fiveplay_env.integrations.rllib import MODULE_ID, ppo_config

    cases = [("take5", {"num_players": 3, "mode": "round"}, "random"), ("five_alive", {"num_players": 3}, None)]
    for game, cfg, opponents in cases:
        config = ppo_config(game, env_config=cfg, opponents=opponents, hidden=(32,), seed=0).training(
            train_batch_size_per_learner=256, minibatch_size=128, num_epochs=1)
        algo = config.build_algo()
        try:
            res = algo.train()  # an illegal action anywhere would raise IllegalActionError here
            assert res["env_runners"]["num_env_steps_sampled"] >= 256
            assert res["env_runners"]["num_episodes"] >= 1
            assert MODULE_ID in res["learners"]
            path = str(tmp_path / f"ckpt_{game}")
            algo.save(path)
        finally:
            algo.stop()
        agents = [f"rllib:{path}", "random", "random"]
        summary = T.main(["--game", game, "--agents", *agents, "--config", *[f"{k}={v}" for k, v in cfg.items()],
                          "--games", "3", "--out", str(tmp_path / "t"), "--no-progress", "--no-plots", "--quiet",
                          *(["--ray"] if game == "take5" else [])])
        assert summary["complete"]
        mine = [e for e in summary["entrants"] if e["agent"] == agents[0]][0]
        assert mine["games"] == 3 and mine["decisions"] > 0
    from fiveplay_env.agents.registry import make_agent

    with pytest.raises(ValueError, match="rllib"):
        make_agent(f"rllib:{tmp_path / 'nothing'}", "take5")
    agent = make_agent(f"rllib:{tmp_path / 'ckpt_take5'}", "take5", seed=0)
    with pytest.raises(ValueError, match="expects observations"):
        agent.act(np.zeros(10, np.float32), np.ones(109, np.int8))


@pytest.mark.slow
def test_rllib_train_script_writes_a_run_folder(tmp_path, ray_local) -> None:
    from fiveplay_env.experiments import rllib_train

    summary = rllib_train.main(["--game", "five_alive", "--config", "num_players=2", "--iterations", "1",
                                "--train-batch", "200", "--minibatch-size", "100", "--epochs", "1",
                                "--hidden", "32", "--eval-games", "4", "--out", str(tmp_path), "--quiet"])
    run_dir = summary["run_dir"]
    for name in ("config.json", "curves.csv", "curves.png", "summary.json"):
        assert os.path.exists(os.path.join(run_dir, name)), name
    with open(os.path.join(run_dir, "curves.csv")) as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 1 and rows[0]["eval_games"] == "4" and float(rows[0]["env_steps"]) >= 200
    assert -1.0 <= float(rows[0]["eval_return_mean"]) <= 1.0
    with open(os.path.join(run_dir, "summary.json")) as f:
        assert json.load(f)["agent_name"] == f"rllib:{run_dir}"
    with pytest.raises(ValueError, match="minibatch"):
        rllib_train.main(["--train-batch", "10", "--minibatch-size", "20", "--out", str(tmp_path)])


@pytest.mark.skipif(not os.environ.get("FIVEPLAY_TEST_RAY_EXPIT"),
                    reason="about 13 s (a Ray actor's process starts and loads torch and the compiled search): over "
                           "make test's budget; set FIVEPLAY_TEST_RAY_EXPIT=1 to run it")
def test_expit_games_on_ray_actors_are_those_of_one_process(ray_local):
    """Expert iteration with ``ray`` (``search_games.RayWorkers``, the module's Ray instance) plays the games of a
    run with ``workers=1``: the same samples, weights and generator for the same seed, the network's weights sent
    to the actors through the object store."""
    from tests.learning.test_expit_workers import TOPK, _run, _same_run

    one = _run(1, search=TOPK)
    on_ray = _run(1, search=TOPK, workers=1, ray="local")  # one actor: an actor process starts slowly
    _same_run(one, on_ray)
