"""Tianshou 2.x with its PettingZoo recipe (``PettingZooEnv``) plus ``SkipDeadSteps``: full episodes of
both games, returns equal to the game results, and a short DQN run."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tianshou")

from tianshou.algorithm import (  # noqa: E402
    DQN,
    MARLRandomDiscreteMaskedOffPolicyAlgorithm,
    MultiAgentOffPolicyAlgorithm,
)
from tianshou.algorithm.algorithm_base import policy_within_training_step  # noqa: E402
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy  # noqa: E402
from tianshou.algorithm.optim import AdamOptimizerFactory  # noqa: E402
from tianshou.data import Collector, CollectStats, VectorReplayBuffer  # noqa: E402
from tianshou.env import DummyVectorEnv  # noqa: E402
from tianshou.env.pettingzoo_env import PettingZooEnv  # noqa: E402
from tianshou.utils.net.common import Net  # noqa: E402

from fiveplay_env import five_alive_v0  # noqa: E402
from fiveplay_env.integrations.tianshou import tianshou_env  # noqa: E402

GAMES = [("five_alive", {"num_players": 4, "info_event": True}), ("take5", {"num_players": 3, "mode": "round"})]


def _collect(game: str, cfg: dict, episodes: int) -> tuple[CollectStats, VectorReplayBuffer]:
    env = tianshou_env(game, **cfg)
    algos = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space) for _ in env.agents]
    policy = MultiAgentOffPolicyAlgorithm(algorithms=algos, env=env)
    envs = DummyVectorEnv([lambda: tianshou_env(game, **cfg) for _ in range(2)])
    envs.seed(0)
    buf = VectorReplayBuffer(20_000, 2)
    stats = Collector[CollectStats](policy, envs, buf).collect(n_episode=episodes, reset_before_collect=True)
    return stats, buf


@pytest.mark.parametrize(("game", "cfg"), GAMES)
def test_full_episodes_and_returns_equal_the_game_results(game, cfg):
    stats, buf = _collect(game, cfg, episodes=6)
    assert stats.n_collected_episodes == 6
    n = cfg["num_players"]
    assert stats.returns.shape == (6, n)
    ends = np.flatnonzero(buf.done)
    assert len(ends) >= 6
    if game == "five_alive":  # every episode ends with the game, not at the first elimination
        assert all(bool(buf.info.event.game_over[i]) for i in ends)
        # eliminated players' -1 counted: one +1 and n - 1 times -1 per episode
        assert all(sorted(r) == [-1.0] * (n - 1) + [1.0] for r in stats.returns)
    else:
        assert (stats.returns <= 0).all() and (stats.returns.sum(axis=1) < 0).all()


@pytest.mark.parametrize(("game", "cfg"), GAMES)
def test_episode_returns_are_the_final_results(game, cfg):
    rng = np.random.default_rng(3)
    for seed in range(3):
        env = tianshou_env(game, **cfg)
        obs, info = env.reset(seed=seed)
        keys = set(info)
        total, done = np.zeros(cfg["num_players"]), False
        while not done:
            obs, rew, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(obs["mask"]))))
            total += rew
            done = term or trunc
            assert set(info) == keys  # the same keys at every step, reset included
        engine = env.env.unwrapped.engine
        assert engine.is_over
        if game == "five_alive":
            np.testing.assert_array_equal(total, engine.state.result)
        else:
            np.testing.assert_array_equal(total, -np.asarray(engine.state.scores))


def test_without_the_wrapper_tianshou_stops_at_the_first_elimination():
    """What ``SkipDeadSteps`` fixes: the plain recipe ends 5 Alive episodes early (the game goes on)."""
    env = PettingZooEnv(five_alive_v0.env(num_players=4, info_event=True))
    rng = np.random.default_rng(0)
    early = 0
    for seed in range(5):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            obs, rew, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(obs["mask"]))))
            done = term or trunc
        early += not info["event"]["game_over"]
        wrapped = tianshou_env("five_alive", num_players=4, info_event=True)
        obs, info = wrapped.reset(seed=seed)
        done = False
        total = np.zeros(4)
        while not done:
            obs, rew, term, trunc, info = wrapped.step(int(rng.choice(np.flatnonzero(obs["mask"]))))
            total += rew
            done = term or trunc
        assert info["event"]["game_over"] and sorted(total) == [-1, -1, -1, 1]
    assert early == 5


@pytest.mark.parametrize(("game", "cfg"), GAMES)
def test_short_dqn_run(game, cfg):
    import torch

    torch.manual_seed(0)
    env = tianshou_env(game, **cfg)
    obs_shape = env.observation_space["observation"].shape
    net = Net(state_shape=obs_shape, action_shape=env.action_space.n, hidden_sizes=[64])
    learner = DQN(policy=DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.1),
                  optim=AdamOptimizerFactory(lr=1e-3), gamma=0.9, target_update_freq=20)
    others = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space) for _ in env.agents[1:]]
    policy = MultiAgentOffPolicyAlgorithm(algorithms=[learner, *others], env=env)
    envs = DummyVectorEnv([lambda: tianshou_env(game, **cfg) for _ in range(2)])
    envs.seed(1)
    collector = Collector[CollectStats](policy, envs, VectorReplayBuffer(5_000, 2), exploration_noise=True)
    collector.reset()
    collector.collect(n_step=200)
    before = [p.detach().clone() for p in net.parameters()]
    for _ in range(5):
        collector.collect(n_step=40)
        with policy_within_training_step(policy.policy):
            policy.update(sample_size=32, buffer=collector.buffer)
    assert any(not torch.equal(a, b) for a, b in zip(before, net.parameters()))  # the Q-network learned
