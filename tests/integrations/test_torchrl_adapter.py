"""``fiveplay_env.integrations.torchrl``: plain 5 Alive (AEC, without ``keep_eliminated=True``) is refused
with an error that says to pass it, ``torchrl_env`` sets it, and the games' other forms wrap as built."""
from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("torchrl.envs.libs.pettingzoo")

from fiveplay_env import five_alive_v0, take5_v0  # noqa: E402
from fiveplay_env.integrations.torchrl import check_env, eliminates, torchrl_env  # noqa: E402


def test_plain_five_alive_is_refused_naming_keep_eliminated():
    with pytest.raises(ValueError, match=r"five_alive_v0 \(AEC\) under TorchRL: pass keep_eliminated=True"):
        torchrl_env(five_alive_v0.env(num_players=4))
    with pytest.raises(ValueError, match="keep_eliminated=True"):
        torchrl_env("five_alive", num_players=3, keep_eliminated=False)
    check_env(five_alive_v0.env(num_players=4, keep_eliminated=True))   # accepted
    assert eliminates(five_alive_v0.env(num_players=4)) and not eliminates(take5_v0.env(num_players=3))


def test_torchrl_env_runs_both_games_across_eliminations_and_game_ends():
    env = torchrl_env("five_alive", num_players=3, seed=0)
    td = env.rollout(400, break_when_any_done=False)   # several games: eliminations included
    assert td.batch_size == (400,)
    env = torchrl_env("take5", num_players=3, parallel=True, mode="round", seed=0)
    assert env.rollout(25, break_when_any_done=False).batch_size == (25,)
    assert type(torchrl_env(take5_v0.env(num_players=3))).__name__ == "PettingZooWrapper"
    with pytest.raises(ValueError, match="go with a game's name"):
        torchrl_env(take5_v0.env(num_players=3), mode="round")
