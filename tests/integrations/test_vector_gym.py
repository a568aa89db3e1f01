"""``GymVectorEnv`` (one learning seat per game over the batched engines) and ``Sb3VecEnv``: every
game is exact (replayed through the reference engine), rewards and episode ends are the learner's,
masks are reachable, and MaskablePPO trains on it."""
from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

from fiveplay_env.core.errors import IllegalActionError
from fiveplay_env.five_alive.engine import FiveAliveEngine
from fiveplay_env.five_alive.engine import truncated as five_alive_truncated
from fiveplay_env.take5.engine import Take5Engine
from fiveplay_env.vector_gym import GymVectorEnv

CASES = [("take5", {"num_players": 3, "mode": "round"}, Take5Engine, "take5-safest"),
         ("take5", {"num_players": 4, "mode": "game", "row_pick": "player"}, Take5Engine, "random"),
         ("five_alive", {"num_players": 4}, FiveAliveEngine, "five-alive-attacker"),
         ("five_alive", {"num_players": 3, "bomb_zero_optional": True}, FiveAliveEngine, "random"),
         # games cut short by max_steps: truncated (never also terminated), and the replay agrees
         ("five_alive", {"num_players": 3, "max_steps": 14}, FiveAliveEngine, "random")]


@pytest.mark.parametrize(("game", "cfg", "engine_cls", "opponent"), CASES)
def test_every_game_replays_exactly_and_returns_are_the_learners(game, cfg, engine_cls, opponent):
    B = 12
    env = GymVectorEnv(game, B, opponents=opponent, seed=1, **cfg)
    env.trace = []
    obs, info = env.reset(seed=5)
    assert obs.shape == (B, env.single_observation_space.shape[0]) and obs.dtype == np.float32
    rng = np.random.default_rng(0)
    episodes: list[list[tuple[int, float, bool]]] = [[] for _ in range(B)]  # per slot: (seat, return, truncated)
    cut = 0
    seat = info["seat"].copy()
    ret = np.zeros(B)
    for _ in range(250):
        masks = env.action_masks()
        assert masks.shape == (B, env.single_action_space.n) and masks.any(axis=1).all()
        assert (env.engine.current_player == seat).all()  # every observation is a learner decision
        np.testing.assert_array_equal(info["action_mask"], masks)
        obs, rewards, terminated, truncated, info = env.step(env.sample_legal(rng))
        assert rewards.dtype == np.float32 and truncated.dtype == bool and not (terminated & truncated).any()
        assert "max_steps" in cfg or not truncated.any()
        cut += int(truncated.sum())
        ret += rewards
        for i in np.flatnonzero(terminated | truncated):
            episodes[i].append((int(seat[i]), float(ret[i]), bool(truncated[i])))
            ret[i] = 0.0
        seat = info["seat"].copy()
    assert sum(map(len, episodes)) >= B
    assert ("max_steps" in cfg) == (cut > 0)
    config = env.engine.config
    replayed = 0
    for i in range(B):
        games: dict[int, list[int]] = defaultdict(list)
        for s, a in env.trace[i]:
            games[s].append(a)
        for k, (s, actions) in enumerate(games.items()):
            ref = engine_cls(config, s)
            totals = np.zeros(cfg["num_players"])
            for a in actions:
                totals += ref.step(a)  # IllegalActionError here would mean a corrupted game
            if k < len(episodes[i]):  # a finished episode: the game ended there, or the learner was eliminated
                learner, got, was_cut = episodes[i][k]
                assert ref.is_over or not ref.state.alive[learner]
                if was_cut:  # the game itself was cut short (not the learner eliminated)
                    assert ref.is_over and five_alive_truncated(ref.state)
                assert got == pytest.approx(totals[learner])
                replayed += 1
    assert replayed == sum(map(len, episodes))


def test_errors_and_options():
    env = GymVectorEnv("take5", 4, opponents="random", seat=2, seed=0, num_players=3, mode="round")
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(4, np.int64))
    obs, info = env.reset(seed=0)
    assert (info["seat"] == 2).all()
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        env.step(np.zeros(3, np.int64))
    bad = np.array([np.flatnonzero(~m)[0] for m in env.action_masks()])
    before = env.engine.observe().copy()
    with pytest.raises(IllegalActionError):
        env.step(bad)
    np.testing.assert_array_equal(env.engine.observe(), before)  # nothing changed
    with pytest.raises(ValueError, match="act_batch"):
        GymVectorEnv("take5", 2, opponents="ismcts:sims=4", num_players=3)
    with pytest.raises(ValueError, match="seat"):
        GymVectorEnv("take5", 2, seat=3, num_players=3)
    # the same seed gives the same run
    a = GymVectorEnv("five_alive", 6, seed=3, num_players=3)
    b = GymVectorEnv("five_alive", 6, seed=3, num_players=3)
    oa, _ = a.reset(seed=9)
    ob, _ = b.reset(seed=9)
    np.testing.assert_array_equal(oa, ob)
    r = np.random.default_rng(1)
    acts = a.sample_legal(r)
    np.testing.assert_array_equal(a.step(acts)[0], b.step(acts)[0])


@pytest.mark.parametrize(("game", "cfg", "opponent"), [("take5", {"num_players": 4, "mode": "round"}, "take5-safest"),
                                                       ("five_alive", {"num_players": 3}, "random")])
def test_maskable_ppo_trains_on_the_sb3_vec_env(game, cfg, opponent):
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    from fiveplay_env.integrations.sb3 import Sb3VecEnv

    venv = Sb3VecEnv(game, 16, opponents=opponent, seed=0, **cfg)
    venv.reset()
    assert is_masking_supported(venv) and get_action_masks(venv).shape == (16, venv.action_space.n)
    model = sb3_contrib.MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=256, n_epochs=1, seed=0,
                                    policy_kwargs={"net_arch": [32]})
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(2_048)
    assert model.num_timesteps >= 2_048
    assert any(not np.array_equal(a.numpy(), b.detach().numpy()) for a, b in zip(before, model.policy.parameters()))
