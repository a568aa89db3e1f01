"""The environment contract, for every game of the table and each of its presets: PettingZoo's own API,
seed and render tests, spaces created once and sized from the definition, only the acting agent has a
mask, illegal actions raise and change nothing, ``reset(seed)`` reproduces a game, and episodes end."""
from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test

from fiveplay_env import IllegalActionError, games, make
from tests.contracts.cases import CASES, GAME_NAMES, IDS, PARALLEL, PARALLEL_IDS
from tests.util import pick


def _env(game: str, cfg, **kw):
    return games.get(game).make_env(config=cfg, **kw)


@pytest.mark.parametrize("game, preset, cfg", CASES, ids=IDS)
def test_pettingzoo_aec_api_and_seed(game, preset, cfg):
    api_test(_env(game, cfg), num_cycles=300)
    seed_test(lambda: _env(game, cfg), num_cycles=200)


@pytest.mark.parametrize("game, preset, cfg", PARALLEL, ids=PARALLEL_IDS)
def test_pettingzoo_parallel_api(game, preset, cfg):
    parallel_api_test(games.get(game).make_env(parallel=True, config=cfg), num_cycles=300)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_render_modes(game, capsys):
    render_test(lambda render_mode=None: _env(game, games.get(game).config_cls(), render_mode=render_mode))
    env = _env(game, games.get(game).config_cls(), render_mode="human")
    env.reset(seed=0)
    assert env.render() is None and capsys.readouterr().out.strip()


@pytest.mark.parametrize("game, preset, cfg", CASES, ids=IDS)
def test_spaces_follow_the_definition_and_only_the_actor_has_a_mask(game, preset, cfg):
    g = games.get(game)
    env = _env(game, cfg)
    env.reset(seed=1)
    n = cfg.num_players
    assert env.possible_agents == g.spec.agents(n) == [f"player_{i}" for i in range(n)]
    space = env.observation_space("player_0")
    assert space is env.observation_space(f"player_{n - 1}")  # created once
    assert space["observation"].shape == (g.observation_size(cfg),)
    assert space["action_mask"].shape == (g.num_actions,) and space["action_mask"].dtype == np.int8
    assert env.action_space("player_0").n == g.num_actions
    for a in env.agents:
        obs = env.observe(a)
        assert obs["observation"].dtype == np.float32 and space["observation"].contains(obs["observation"])
        assert (obs["action_mask"].sum() > 0) == (a == env.agent_selection)


@pytest.mark.parametrize("game, preset, cfg", CASES, ids=IDS)
def test_illegal_action_raises_and_changes_nothing(game, preset, cfg):
    env = _env(game, cfg)
    env.reset(seed=5)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    before = [env.observe(a)["observation"].copy() for a in env.agents]
    with pytest.raises(IllegalActionError, match=agent) as e:
        env.step(bad)
    assert isinstance(e.value, ValueError)
    assert env.agent_selection == agent
    for a, o in zip(env.agents, before):
        np.testing.assert_array_equal(env.observe(a)["observation"], o)
    env.step(int(np.flatnonzero(mask)[0]))  # the game goes on


@pytest.mark.parametrize("game, preset, cfg", CASES, ids=IDS)
def test_reset_seed_reproduces_the_game_and_every_episode_ends(game, preset, cfg):
    def trajectory(seed):
        env = _env(game, cfg)
        env.reset(seed=seed)
        rng = np.random.default_rng(7)
        out, returns = [], dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter(max_iter=200_000):
            obs, r, term, trunc, _ = env.last()
            out.append((agent, r, obs["observation"].tobytes()))
            returns[agent] += r
            env.step(None if term or trunc else pick(obs["action_mask"], rng))
        assert env.agents == [], "the episode did not end"
        return out, returns
    first, returns = trajectory(11)
    assert trajectory(11)[0] == first
    assert all(np.isfinite(list(returns.values())))
    if cfg == games.get(game).config_cls():  # some presets deal nothing at random (Take 5's draft)
        assert trajectory(12)[0] != first


@pytest.mark.parametrize("game", GAME_NAMES)
def test_make_by_name_and_bad_config_names_the_field(game):
    g = games.get(game)
    env = make(game, num_players=g.spec.min_players)
    assert env.possible_agents == g.spec.agents(g.spec.min_players)
    with pytest.raises(ValueError, match="num_players"):
        make(game, num_players=g.spec.max_players + 1)
    with pytest.raises(ValueError, match="colour"):
        make(game, colour="red")
    if not g.parallel:
        with pytest.raises(ValueError, match="parallel"):
            make(game, parallel=True)
    with pytest.raises(ValueError, match="game"):
        make("no_such_game")
