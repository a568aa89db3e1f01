"""The Take 5 envs' own behaviour: metadata and sizes, config errors naming each field, the parallel env's
illegal actions and row choice, the penalty wrappers, the text picture, returns and infos; the env
contracts every game keeps (``fiveplay_env.testing``: PettingZoo's tests on both env kinds, spaces, masks,
illegal actions, seeding) run on each preset in ``tests/contracts`` and, here, on the player counts and
variants that no preset covers."""
from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import parallel_seed_test

from fiveplay_env import IllegalActionError, make, take5_v0
from fiveplay_env.testing import check_game
from fiveplay_env.wrappers import IllegalActionPenalty, IllegalActionPenaltyParallel

CONFIGS = [dict(num_players=n, row_pick=rp) for n in (2, 10) for rp in ("player", "min_bullheads")] + [
    dict(professional=True, draft=True, num_players=3), dict(mode="rounds:2")]
"""Configs that no preset covers (the presets play 4 players)."""


@pytest.mark.parametrize("cfg", CONFIGS, ids=["-".join(map(str, c.values())) for c in CONFIGS])
def test_configs_outside_the_presets_keep_the_env_contracts(cfg):
    check_game("take5", configs=[cfg], contracts=["reward_range", "pettingzoo_api", "pettingzoo_parallel_api",
                                                  "spaces_and_masks", "seeded_episodes"])


@pytest.mark.parametrize("n, row_pick", [(n, rp) for n in (2, 4, 10) for rp in ("player", "min_bullheads")])
def test_pettingzoo_parallel_seed_test_through_the_penalty_wrapper(n, row_pick):
    # parallel_seed_test samples unmasked actions: it runs through the opt-in penalty wrapper
    parallel_seed_test(lambda: IllegalActionPenaltyParallel(take5_v0.parallel_env(num_players=n, row_pick=row_pick)),
                       num_cycles=200)


def test_render_ansi_shows_the_table():
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
    space = env.observation_space("player_0")
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
    (dict(render_mode="rgb"), "render_mode"),
])
def test_bad_config_names_the_field(bad, field):
    with pytest.raises(ValueError, match=field):
        take5_v0.env(**bad)
    with pytest.raises(ValueError, match=field):
        take5_v0.parallel_env(**bad)


def test_make_by_name_builds_the_parallel_env():
    assert make("take5", parallel=True).metadata["name"] == "take5_v0"


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
