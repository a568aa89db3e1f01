"""The AEC env's infos (``five_alive.env``: ``info_of``, ``event_info`` and the env's faster common-step
path) say at every step exactly what ``engine.last_event`` says, in their fixed structure."""
from __future__ import annotations

import numpy as np
import pytest

from fiveplay_env import five_alive_v0
from fiveplay_env.five_alive import engine as eng


def _expected(state, player: int) -> dict:
    """infos[agent] from the sparse ``last_event``, written independently of the env's code."""
    ev = eng.last_event(state)
    n = state.num_players
    event = {
        "player": ev["player"], "action": ev["action"], "card": ev["card"] or "", "bomb_answer": ev["bomb_answer"],
        "total": ev["total"], "drawn": [ev["drawn"].get(q, 0) for q in range(n)], "reshuffled": ev["reshuffled"],
        "zeros_discarded": [q in ev["zeros_discarded"] for q in range(n)],
        "lives_lost": [ev["lives_lost"].get(q, 0) for q in range(n)],
        "eliminated": [q in ev["eliminated"] for q in range(n)], "went_out": [q in ev["went_out"] for q in range(n)],
        "dealer": -1 if ev["dealer"] is None else ev["dealer"], "game_over": ev["game_over"],
    }
    return {"lives": state.lives[player], "round": state.round, "alive": state.alive[player],
            "winner": ev["game_over"] and player in state.winners, "event": event}


def _types(x):
    if isinstance(x, dict):
        return {k: _types(v) for k, v in x.items()}
    if isinstance(x, list):
        return [type(v) for v in x]
    return type(x)


@pytest.mark.parametrize("cfg", [
    {"num_players": 4},
    {"num_players": 3, "bomb_zero_optional": True},
    {"num_players": 4, "variant": "teams", "reward": "win_loss+lives"},
    {"num_players": 2, "deck_counts": {"n1": 6, "n2": 6, "draw2": 8, "reverse": 4}},  # draws and reshuffles
])
def test_infos_equal_the_engine_events_at_every_step(cfg):
    env = five_alive_v0.env(info_event=True, **cfg)
    rng = np.random.default_rng(0)
    rare = common = 0
    for seed in range(6):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            state = env.unwrapped.engine.state
            want = _expected(state, env.unwrapped._index[agent])
            assert info == want and _types(info) == _types(want)
            assert all(i["event"] is info["event"] for i in env.infos.values())  # one shared event
            rare += state.ev_rare
            common += not state.ev_rare
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert rare > 10 and common > 100  # both paths were checked


def test_each_step_gets_new_event_lists():
    env = five_alive_v0.env(num_players=3, info_event=True)
    env.reset(seed=2)
    before = env.infos["player_0"]["event"]
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    after = env.infos["player_0"]["event"]
    assert after is not before and all(after[k] is not before[k] for k in ("drawn", "lives_lost", "eliminated"))


def test_default_infos_are_flat_numbers_without_the_event():
    """By default (``info_event=False``) infos are the four numeric entries, on both paths (common and
    rare steps), equal to the event-carrying infos minus ``event``."""
    plain, full = five_alive_v0.env(num_players=4), five_alive_v0.env(num_players=4, info_event=True)
    rng = np.random.default_rng(1)
    rare = 0
    for seed in range(3):
        plain.reset(seed=seed)
        full.reset(seed=seed)
        for agent in plain.agent_iter():
            obs, _, term, trunc, info = plain.last()
            want = dict(full.infos[agent])
            want.pop("event")
            assert info == want and set(info) == {"lives", "round", "alive", "winner"}
            assert all(type(v) in (int, bool) for v in info.values())
            rare += plain.unwrapped.engine.state.ev_rare
            action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            plain.step(action)
            full.step(action)
    assert rare > 5
