"""API conformance: pettingzoo.test on both env kinds, configs, errors, wrappers, rendering."""
from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, render_test, seed_test

from fiveplay_env import IllegalActionError, make, take5_v0
from fiveplay_env.wrappers import IllegalActionPenalty, IllegalActionPenaltyParallel

CONFIGS = [(n, rp) for n in (2, 4, 10) for rp in ("player", "min_bullheads")]


@pytest.mark.parametrize("n, row_pick", CONFIGS)
def test_pettingzoo_aec_api(n, row_pick):
    api_test(take5_v0.env(num_players=n, row_pick=row_pick), num_cycles=400)


@pytest.mark.parametrize("n, row_pick", CONFIGS)
def test_pettingzoo_parallel_api(n, row_pick):
    parallel_api_test(take5_v0.parallel_env(num_players=n, row_pick=row_pick), num_cycles=400)


@pytest.mark.parametrize("n, row_pick", CONFIGS)
def test_pettingzoo_seed(n, row_pick):
    seed_test(lambda: take5_v0.env(num_players=n, row_pick=row_pick), num_cycles=200)
    # parallel_seed_test samples unmasked actions: it runs through the opt-in penalty wrapper
    parallel_seed_test(lambda: IllegalActionPenaltyParallel(
        take5_v0.parallel_env(num_players=n, row_pick=row_pick)), num_cycles=200)


def test_pettingzoo_api_on_the_variants():
    for cfg in (dict(professional=True, draft=True, num_players=3), dict(mode="rounds:2")):
        api_test(take5_v0.env(**cfg), num_cycles=300)
        parallel_api_test(take5_v0.parallel_env(**cfg), num_cycles=300)


def test_render_modes():
    render_test(lambda render_mode=None: take5_v0.env(render_mode=render_mode))
    env = take5_v0.env(num_players=3, render_mode="ansi")
    env.reset(seed=4)
    text = env.render()
    state = env.unwrapped.engine.state
    for r in range(4):
        assert f"row {r}:" in text
    for c in state.hand(0):  # the acting player's hand, each card with its bull heads
        assert f"{c + 1}:" in text
    assert "player_2" in text and "score" in text


def test_human_render_prints(capsys):
    env = take5_v0.env(render_mode="human")
    env.reset(seed=0)
    assert env.render() is None
    assert "row 0:" in capsys.readouterr().out


def test_metadata_and_spaces():
    assert take5_v0.metadata["name"] == "take5_v0"
    assert take5_v0.metadata["is_parallelizable"] is True
    assert take5_v0.raw_env is type(take5_v0.env())
    env = take5_v0.env(num_players=5)
    env.reset(seed=0)
    assert env.possible_agents == [f"player_{i}" for i in range(5)]
    space = env.observation_space("player_0")
    assert space is env.observation_space("player_3")  # created once and cached
    assert space["observation"].shape == (848 + 15,)
    assert space["action_mask"].dtype == np.int8
    assert env.action_space("player_0").n == 109
    obs = env.observe("player_1")  # not acting: all-zero mask
    assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].sum() == 0
    assert env.observe("player_0")["action_mask"].sum() == 10


@pytest.mark.parametrize("bad, field", [
    (dict(num_players=1), "num_players"), (dict(num_players=11), "num_players"),
    (dict(num_players="4"), "num_players"), (dict(row_pick="auto"), "row_pick"),
    (dict(end_score=0), "end_score"), (dict(end_inclusive="yes"), "end_inclusive"),
    (dict(mode="rounds:0"), "mode"), (dict(mode="tournament"), "mode"),
    (dict(professional=1), "professional"), (dict(draft=True), "draft"),
    (dict(num_players=8, professional=True), "num_players"), (dict(colour="red"), "colour"),
    (dict(render_mode="rgb_array"), "render_mode"),
])
def test_bad_config_names_the_field(bad, field):
    with pytest.raises(ValueError, match=field):
        take5_v0.env(**bad)
    with pytest.raises(ValueError, match=field):
        take5_v0.parallel_env(**bad)


def test_make_by_name():
    assert make("take5", num_players=3).possible_agents == ["player_0", "player_1", "player_2"]
    assert make("take5", parallel=True).metadata["name"] == "take5_v0"
    with pytest.raises(ValueError, match="game"):
        make("uno")


def test_aec_illegal_action_raises_and_leaves_state_untouched():
    env = take5_v0.env(num_players=3)
    env.reset(seed=2)
    obs_before = env.observe("player_0")["observation"].copy()
    hand = env.unwrapped.engine.state.hand(0)
    bad = next(c for c in range(104) if c not in hand)
    with pytest.raises(IllegalActionError, match="player_0") as e:
        env.step(bad)
    assert e.value.legal == hand
    assert isinstance(e.value, ValueError)
    assert env.agent_selection == "player_0"
    np.testing.assert_array_equal(env.observe("player_0")["observation"], obs_before)
    env.step(hand[0])  # the game goes on normally
    assert env.agent_selection == "player_1"


def test_parallel_illegal_action_raises_and_leaves_state_untouched():
    env = take5_v0.parallel_env(num_players=2)
    obs, _ = env.reset(seed=2)
    h0 = env.engine.state.hand(0)
    h1 = env.engine.state.hand(1)
    with pytest.raises(IllegalActionError, match="player_1"):
        env.step({"player_0": h0[0], "player_1": h0[1]})
    with pytest.raises(IllegalActionError, match="player_1"):
        env.step({"player_0": h0[0]})
    assert env.engine.state.hand(0) == h0 and env.engine.state.pending == [-1, -1]
    env.step({"player_0": h0[0], "player_1": h1[0]})
    assert env.engine.state.hand_size == [9, 9] or env.engine.state.phase == 2


def test_aec_penalty_wrapper_ends_the_episode():
    env = IllegalActionPenalty(take5_v0.env(num_players=3), penalty=-5)
    env.reset(seed=1)
    env.step(108)  # WAIT is never legal in AEC
    assert all(env.terminations.values())
    _, reward, term, _, info = env.last()
    assert reward == -5 and term and info["illegal_action"]["agent"] == "player_0"
    seen = []
    for agent in env.agent_iter():
        _, r, term, _, _ = env.last()
        seen.append((agent, r))
        env.step(None)
    assert seen == [("player_0", -5), ("player_1", 0), ("player_2", 0)]
    assert env.agents == []


def test_parallel_penalty_wrapper_ends_the_episode():
    env = IllegalActionPenaltyParallel(take5_v0.parallel_env(num_players=2), penalty=-3)
    env.reset(seed=0)
    h1 = env.unwrapped.engine.state.hand(1)
    _, rew, term, _, info = env.step({"player_0": 108, "player_1": h1[0]})
    assert rew == {"player_0": -3, "player_1": 0}
    assert all(term.values()) and env.agents == []
    assert info["player_1"]["illegal_action"]["agents"] == ["player_0"]


def test_parallel_row_choice_is_its_own_step_with_wait_for_everyone_else():
    env = take5_v0.parallel_env(num_players=4, row_pick="player")
    rng = np.random.default_rng(0)
    found = False
    for seed in range(30):
        obs, _ = env.reset(seed=seed)
        while env.agents and not found:
            state = env.engine.state
            if state.phase == 2:
                found = True
                chooser = f"player_{state.current}"
                for a, o in obs.items():
                    legal = list(np.flatnonzero(o["action_mask"]))
                    assert legal == ([104, 105, 106, 107] if a == chooser else [108])
                acts = {a: (105 if a == chooser else 108) for a in env.agents}
                before = state.round_pen[state.current] + state.scores[state.current]
                obs, rew, *_ = env.step(acts)
                assert rew[chooser] < 0
                break
            acts = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
            obs, *_ = env.step(acts)
        if found:
            break
    assert found


def test_reset_seed_is_reproducible_and_seeds_differ():
    def trajectory(seed):
        env = take5_v0.env(num_players=4)
        env.reset(seed=seed)
        rng = np.random.default_rng(7)
        out = []
        for agent in env.agent_iter():
            obs, r, term, trunc, info = env.last()
            out.append((agent, r, obs["observation"].tobytes()))
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        return out
    assert trajectory(11) == trajectory(11)
    assert trajectory(11) != trajectory(12)


def test_episode_return_is_minus_the_final_score_and_infos_carry_scores():
    env = take5_v0.env(num_players=4)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    last_info = {}
    for agent in env.agent_iter():
        obs, r, term, trunc, info = env.last()
        returns[agent] += r
        last_info[agent] = info
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    scores = env.unwrapped.engine.state.scores
    assert max(scores) >= 66
    for p, a in enumerate(env.possible_agents):
        assert returns[a] == -scores[p]
        assert last_info[a]["score"] == scores[p]
        assert last_info[a]["winner"] == (scores[p] == min(scores))
        assert last_info[a]["round"] >= 1
