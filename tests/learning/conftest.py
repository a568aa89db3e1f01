"""Shared fixtures of the learning tests: torch with one thread, tiny training settings."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the learning tests need the train extra (torch)")


@pytest.fixture(autouse=True)
def _one_thread():
    prev = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(prev)


TAKE5_CFG = {"num_players": 4, "mode": "round"}


def tiny_args(out: str, total: int = 1000, seed: int = 0, extra: list[str] | None = None) -> list[str]:
    """A training run of a few seconds: 16 games side by side, short rollouts, small evaluations."""
    return ["--game", "take5", "--config", "num_players=4", "mode=round",
            "--opponents", "take5-safest@2", "self", "pool",
            "--total-decisions", str(total), "--num-envs", "16", "--rollout-steps", "16",
            "--minibatch-size", "128", "--epochs", "2", "--hidden", "64", "64", "--snapshot-interval", "2",
            "--eval-interval", "3", "--eval-games", "16", "--eval-baselines", "random", "take5-safest",
            "--checkpoint-interval", "2", "--seed", str(seed), "--out", out, "--quiet", "--lr-schedule", "constant",
            *(extra or [])]
