"""The 5 Alive env's own behaviour: its metadata and sizes, config errors naming each field, presets,
the penalty wrapper, eliminations, returns and infos, ``max_cycles``, the text picture; the env contracts
every game keeps (``fiveplay_env.testing``: PettingZoo's tests, spaces, masks, illegal actions, seeding)
run on each preset in ``tests/contracts`` and, here, on the variants that no preset covers."""
from __future__ import annotations

import numpy as np
import pytest

from fiveplay_env import GAMES, five_alive_v0, make
from fiveplay_env.five_alive import engine as eng
from fiveplay_env.five_alive.config import PRESETS, FiveAliveConfig
from fiveplay_env.five_alive.observation import observation_size, pieces
from fiveplay_env.five_alive.state import BUST, N5, N6, NUM_ACTIONS
from fiveplay_env.testing import check_game
from fiveplay_env.wrappers import IllegalActionPenalty
from tests.util import pick

CONFIGS = [
    dict(num_players=2), dict(num_players=4), dict(num_players=6),
    dict(num_players=2, variant="sudden_death"), dict(num_players=4, variant="sudden_death"),
    dict(num_players=6, variant="sudden_death", bomb_zero_optional=True),
    dict(num_players=4, variant="teams"), dict(num_players=6, variant="teams", bomb_zero_optional=True),
    dict(num_players=4, bomb_zero_optional=True, allow_voluntary_bust=True, reward="win_loss+lives"),
]
IDS = ["-".join(f"{v}" for v in c.values()) for c in CONFIGS]


@pytest.mark.parametrize("cfg", [CONFIGS[i] for i in (3, 5, 7, 8)], ids=[IDS[i] for i in (3, 5, 7, 8)])
def test_variants_outside_the_presets_keep_the_env_contracts(cfg):
    check_game("five_alive", configs=[cfg],
               contracts=["reward_range", "pettingzoo_api", "spaces_and_masks", "illegal_action", "seeded_episodes"])


def test_metadata_spaces_and_registration():
    assert five_alive_v0.metadata["name"] == "five_alive_v0"
    assert five_alive_v0.metadata["is_parallelizable"] is False
    assert set(five_alive_v0.metadata["render_modes"]) == {"ansi", "human", "rgb_array"}
    assert GAMES["five_alive"] is five_alive_v0
    env = make("five_alive", num_players=5)
    assert env.possible_agents == [f"player_{i}" for i in range(5)]
    assert env.action_space("player_0").n == NUM_ACTIONS == 19
    assert env.observation_space("player_3")["observation"].shape == (observation_size(5),) == (95,)
    p = pieces(5)
    assert sum(size for _, size in p.values()) == observation_size(5)
    assert [off for off, _ in p.values()] == sorted(off for off, _ in p.values())


@pytest.mark.parametrize("kwargs, field", [
    (dict(num_players=1), "num_players"), (dict(num_players=7), "num_players"),
    (dict(num_players="4"), "num_players"), (dict(variant="solo"), "variant"),
    (dict(variant="teams", num_players=5), "num_players"), (dict(first_player="seat1"), "first_player"),
    (dict(allow_voluntary_bust=1), "allow_voluntary_bust"), (dict(bomb_zero_optional="no"), "bomb_zero_optional"),
    (dict(deck_counts=[8] * 17), "deck_counts"), (dict(deck_counts={"joker": 1}), "deck_counts"),
    (dict(deck_counts={"n0": -1}), "deck_counts"), (dict(deck_counts=[1] * 18, num_players=2), "deck_counts"),
    (dict(deck_counts="77"), "deck_counts"), (dict(bomb_last_card_resolves=None), "bomb_last_card_resolves"),
    (dict(draw_order="all"), "draw_order"), (dict(empty_draw_pile="stop"), "empty_draw_pile"),
    (dict(new_round_start="random"), "new_round_start"), (dict(new_round_direction="ccw"), "new_round_direction"),
    (dict(tiebreak_wild_value=22), "tiebreak_wild_value"), (dict(final_tiebreak="random"), "final_tiebreak"),
    (dict(reward="score"), "reward"), (dict(max_cycles=0), "max_cycles"), (dict(colour="red"), "colour"),
    (dict(render_mode="rgb"), "render_mode"),
])
def test_bad_config_values_raise_value_error_naming_the_field(kwargs, field):
    with pytest.raises(ValueError, match=field):
        five_alive_v0.env(**kwargs)


def test_presets_are_valid_configs():
    for name, cfg in PRESETS.items():
        env = five_alive_v0.env(config=cfg)
        env.reset(seed=1)
        assert env.config == cfg, name
    assert FiveAliveConfig(deck_counts={"n7": 2}).deck_size == 78


def test_penalty_wrapper_ends_the_episode():
    env = IllegalActionPenalty(five_alive_v0.env(num_players=3), penalty=-5)
    env.reset(seed=5)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    env.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(env.terminations.values())
    assert env.rewards[agent] == -5 and env.infos[agent]["illegal_action"]["agent"] == agent


def test_elimination_terminates_the_player_who_then_leaves_agents():
    env = five_alive_v0.env(num_players=3, first_player="seat0", info_event=True)
    env.reset(seed=0)
    cfg = env.config
    env.unwrapped.engine.state = eng.from_position(cfg, [[N5, N6], [1, 2], [3, 4]], total=20, lives=[1, 5, 5])
    env.step(BUST)
    assert env.agent_selection == "player_0" and env.terminations["player_0"]
    obs, rew, term, trunc, info = env.last()
    assert rew == -1 and term and not info["alive"] and info["lives"] == 0
    assert info["event"]["eliminated"] == [True, False, False] and obs["action_mask"].sum() == 0
    env.step(None)
    assert env.agents == ["player_1", "player_2"] and env.agent_selection == "player_1"
    assert not any(env.terminations.values())


def test_keep_eliminated_keeps_the_player_in_agents_until_the_game_ends():
    env = five_alive_v0.env(num_players=3, first_player="seat0", keep_eliminated=True)
    env.reset(seed=0)
    env.unwrapped.engine.state = eng.from_position(env.config, [[N5, N6], [1, 2], [3, 4]], total=20, lives=[1, 5, 5])
    env.step(BUST)
    assert env.agents == env.possible_agents and not any(env.terminations.values())
    assert env.agent_selection == "player_1" and env.rewards["player_0"] == -1
    info = env.infos["player_0"]
    assert not info["alive"] and info["lives"] == 0 and env.observe("player_0")["action_mask"].sum() == 0
    rng = np.random.default_rng(0)
    returns = {"player_0": -1.0, "player_1": 0.0, "player_2": 0.0}
    for agent in env.agent_iter():
        obs, rew, term, trunc, info = env.last()
        assert agent != "player_0" or term or trunc  # never selected for a decision
        if not (term or trunc):
            assert set(env.agents) == set(env.possible_agents) == set(env.infos) == set(env.rewards)
        returns[agent] += rew if agent != "player_0" else 0.0
        env.step(None if term or trunc else pick(obs["action_mask"], rng))
    state = env.unwrapped.engine.state
    assert sorted(returns.values()) == [-1.0, -1.0, 1.0] and returns["player_0"] == -1.0
    assert all(state.alive[p] == (p in state.winners) for p in range(3))


@pytest.mark.parametrize("kwarg", ["info_event", "keep_eliminated"])
def test_env_switches_must_be_bools(kwarg):
    with pytest.raises(ValueError, match=f"{kwarg}: expected True or False, got 1"):
        five_alive_v0.env(num_players=3, **{kwarg: 1})


def test_full_games_returns_and_infos():
    for cfg in CONFIGS:
        env = five_alive_v0.env(**cfg)
        env.reset(seed=3)
        rng = np.random.default_rng(1)
        returns = dict.fromkeys(env.possible_agents, 0.0)
        last_info = {}
        for agent in env.agent_iter():
            obs, rew, term, trunc, info = env.last()
            returns[agent] += rew
            last_info[agent] = info
            env.step(None if term or trunc else pick(obs["action_mask"], rng))
        state = env.unwrapped.engine.state
        winners = {f"player_{p}" for p in state.winners}
        if cfg.get("reward", "win_loss") == "win_loss":
            assert returns == {a: (1.0 if a in winners else -1.0) for a in env.possible_agents}
        if cfg.get("variant") == "teams":
            assert len(winners) == cfg["num_players"] // 2
        else:
            assert len(winners) == 1
        for a, info in last_info.items():
            if info["alive"] or "winner" in info:  # an eliminated player left before the end
                assert info["winner"] == (a in winners)
            assert set(info) == {"lives", "round", "alive", "winner"}  # no event without info_event=True


def test_max_cycles_counts_each_agents_actions():
    """PettingZoo's convention: every agent is truncated once a player has acted max_cycles times."""
    env = five_alive_v0.env(num_players=4, max_cycles=10)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    acted = dict.fromkeys(env.possible_agents, 0)
    truncated = set()
    for agent in env.agent_iter():
        obs, rew, term, trunc, info = env.last()
        if trunc or term:
            truncated.add(agent) if trunc else None
            env.step(None)
            continue
        env.step(pick(obs["action_mask"], rng))
        acted[agent] += 1
    assert max(acted.values()) == 10 and sum(acted.values()) > 30 and env.agents == []
    assert truncated == set(env.possible_agents)


def test_render_ansi_shows_the_table():
    env = five_alive_v0.env(num_players=4, render_mode="ansi", variant="teams")
    env.reset(seed=4)
    state = env.unwrapped.engine.state
    text = env.render()
    assert f"T = {state.total}" in text and "clockwise" in text
    assert f"player_{state.current} to play" in text and "lives" in text and "team" in text
    assert "hand of player_" in text and "new game" in text
    rng = np.random.default_rng(0)
    for _ in range(30):
        env.step(pick(env.observe(env.agent_selection)["action_mask"], rng))
    text = env.render()
    assert "last: player_" in text


def test_human_render_prints(capsys):
    env = five_alive_v0.env(render_mode="human")
    env.reset(seed=0)
    assert env.render() is None
    assert "5 Alive" in capsys.readouterr().out
