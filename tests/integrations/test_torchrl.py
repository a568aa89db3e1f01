"""TorchRL's ``PettingZooWrapper`` over the envs as shipped (the real package): ``check_env_specs``, random
rollouts of a few hundred steps across game ends, masks, infos and rewards as the game gives them.

Take 5 parallel and AEC work as built; 5 Alive AEC needs ``keep_eliminated=True`` (TorchRL reads every
possible agent's rewards and infos at every AEC step, while PettingZoo removes an eliminated player)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("tensordict")
pettingzoo_lib = pytest.importorskip("torchrl.envs.libs.pettingzoo")

from torchrl.envs.utils import check_env_specs  # noqa: E402

from fiveplay_env import five_alive_v0, take5_v0  # noqa: E402

PettingZooWrapper = pettingzoo_lib.PettingZooWrapper
STEPS = 300


def _wrap(pz_env, seed: int = 0):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "PettingZoo in TorchRL is tested using version == 1.24.3"
        env = PettingZooWrapper(pz_env, use_mask=True, seed=seed)
    check_env_specs(env, seed=seed)
    return env


def _acting(td, agents):
    """bool [T, n]: which agent's group was marked acting (``mask``) at each step (AEC: one agent per group)."""
    return torch.stack([td[a, "mask"].reshape(-1) for a in agents], -1)


def _acting_actions_legal(td, agents) -> bool:
    for a in agents:
        rows = td[a, "mask"].reshape(-1)
        masks = td[a, "action_mask"].reshape(rows.shape[0], -1)[rows]
        actions = td[a, "action"].reshape(-1)[rows]
        if not masks.gather(-1, actions.unsqueeze(-1)).all():
            return False
    return True


def _rollout(env):
    torch.manual_seed(0)
    return env.rollout(STEPS, break_when_any_done=False)


def test_take5_parallel_rollout_infos_and_returns():
    n = 3
    env = _wrap(take5_v0.parallel_env(num_players=n, mode="round"))
    assert list(env.group_map) == ["player"]  # player_0..n-1 in one group
    td = _rollout(env)
    assert td.batch_size == (STEPS,)
    masks = td["player", "action_mask"]
    actions = td["player", "action"]
    assert masks.shape == (STEPS, n, 109)
    assert masks.gather(-1, actions.unsqueeze(-1)).all()  # every sampled action was legal
    assert masks.any(-1).all()  # a parallel step gives every seat a legal action (WAIT when it does not decide)
    info = td["next", "player", "info"]
    assert set(info.keys()) == {"score", "round_penalty", "round", "winner"}
    rewards = td["next", "player", "reward"].squeeze(-1)
    done = td["next", "done"].squeeze(-1)
    ends = torch.nonzero(done).flatten().tolist()
    assert len(ends) >= 2  # several whole games (a round is 10 tricks)
    start = 0
    for end in ends:  # each game's return is minus its final score, which the last step's infos hold
        ret = rewards[start:end + 1].sum(0)
        final = info["score"][end]
        torch.testing.assert_close(ret, -final)
        assert (info["winner"][end] == (final == final.min()).float()).all()
        assert not info["winner"][start:end].any()
        start = end + 1


def test_take5_aec_rollout_one_acting_agent_per_step():
    n = 3
    env = _wrap(take5_v0.env(num_players=n, mode="round"))
    agents = [f"player_{p}" for p in range(n)]
    assert list(env.group_map) == agents  # one group per agent in AEC
    td = _rollout(env)
    assert (_acting(td, agents).sum(-1) == 1).all()  # exactly the selected agent acts
    assert _acting_actions_legal(td, agents)
    assert td["next", "done"].any()
    total = sum(td["next", a, "reward"].reshape(-1) for a in agents)
    assert (total <= 0).all() and total.sum() < 0  # Take 5 rewards are minus bull heads


def test_five_alive_aec_with_keep_eliminated():
    n = 3
    env = _wrap(five_alive_v0.env(num_players=n, keep_eliminated=True))
    agents = [f"player_{p}" for p in range(n)]
    td = _rollout(env)
    assert set(td["next", "player_0", "info"].keys()) == {"lives", "round", "alive", "winner"}
    acting = _acting(td, agents)
    assert (acting.sum(-1) == 1).all()
    alive = torch.stack([td[a, "info", "alive"].reshape(-1) for a in agents], -1).bool()
    assert not (acting & ~alive).any()  # an eliminated player is never selected
    assert (~alive).any(-1).sum() > 10  # ... and stays in the game's steps until it ends
    assert _acting_actions_legal(td, agents)
    rewards = torch.stack([td["next", a, "reward"].reshape(-1) for a in agents], -1)
    done = td["next", "done"].squeeze(-1)
    ends = torch.nonzero(done).flatten().tolist()
    assert ends  # at least one whole game
    start = 0
    for end in ends:  # win/loss: +1 for the winner, -1 for each other player (eliminated ones included)
        ret = rewards[start:end + 1].sum(0)
        assert sorted(ret.tolist()) == [-1.0] * (n - 1) + [1.0]
        winner = torch.stack([td["next", a, "info", "winner"].reshape(-1)[end] for a in agents])
        assert winner.tolist() == (ret == 1).float().tolist()
        start = end + 1


def test_five_alive_infos_are_tensors_only_without_info_event():
    """The default infos become TorchRL specs; the opt-in event (strings, per-seat lists) cannot."""
    env = _wrap(five_alive_v0.env(num_players=4, keep_eliminated=True))
    assert all(np.prod(env.observation_spec["player_0", "info", k].shape) == 1
               for k in ("lives", "round", "alive", "winner"))
    with warnings.catch_warnings(), pytest.raises(RuntimeError, match="dict"):
        warnings.simplefilter("ignore")
        PettingZooWrapper(five_alive_v0.env(num_players=4, keep_eliminated=True, info_event=True), use_mask=True)
