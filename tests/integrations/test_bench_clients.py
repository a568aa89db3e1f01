"""``experiments/bench_clients.py`` runs and reports a row per game, kind and env."""
from __future__ import annotations

import pytest

pytest.importorskip("sb3_contrib")

from fiveplay_env.experiments import bench_clients  # noqa: E402


def test_bench_clients_reports_every_row(capsys):
    out = bench_clients.main(["--games", "five_alive", "--num-envs", "8", "--timesteps", "64",
                              "--rollout", "64", "--seconds", "0.2", "--json"])
    rows = out["rows"]
    assert [(r["kind"], r["env"].split()[0]) for r in rows] == [
        ("collect", "SingleAgentEnv"), ("collect", "GymVectorEnv"),
        ("maskable_ppo", "SingleAgentEnv"), ("maskable_ppo", "Sb3VecEnv")]
    assert all(r["steps_per_s"] > 0 for r in rows) and '"steps_per_s"' in capsys.readouterr().out
    with pytest.raises(ValueError, match="rollout"):
        bench_clients.main(["--num-envs", "64", "--rollout", "32"])
