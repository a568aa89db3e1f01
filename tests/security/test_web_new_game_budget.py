"""A new web game answers within its request's bot budget: building its bots counts in the budget, and the
costly bots are built ahead when the app starts (issue 53, item 6: audit point 8, "a new web game's bots are
built outside the 4 s budget: 6.7 s cold, up to 12.3 s under load")."""
from __future__ import annotations

import time

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from fiveplay_env.agents.base import Agent  # noqa: E402
from fiveplay_env.agents.registry import register_prefix  # noqa: E402
from fiveplay_env.experiments.web import sessions  # noqa: E402
from fiveplay_env.experiments.web.app import create_app  # noqa: E402

BUILD_S = 2.0
ACT_S = 1.2


class Slow(Agent):
    """Takes ``ACT_S`` seconds a move (then the first legal one)."""

    def act(self, observation, action_mask):
        time.sleep(ACT_S)
        return int(np.flatnonzero(action_mask)[0])


def _slow(rest, game, seed):
    if rest == "build":
        time.sleep(BUILD_S)
    return Slow(seed)


register_prefix("slowtest", _slow)


def _client(tmp_path, **kw):
    app = create_app(str(tmp_path), save_games=False, allow_agents=["slowtest:build", "slowtest:act"], **kw)
    return TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False)


def test_building_the_bots_counts_in_the_request_budget(tmp_path):
    """One bot that takes 2 s to build and three seats of 1.2 s moves before the human's turn: the moves
    would end at 2 + 3.6 s; the request stops at its 4 s budget and says ``pending``, then ``advance`` goes on."""
    c = _client(tmp_path)
    body = {"game": "take5", "config": {"mode": "round"}, "seat": 3,
            "bots": ["slowtest:build", "slowtest:act", "slowtest:act"], "seed": 1}
    t0 = time.perf_counter()
    r = c.post("/api/games", json=body)
    took = time.perf_counter() - t0
    assert r.status_code == 201, r.text
    snap = r.json()
    assert snap["pending"] and snap["steps"] < 3, (snap["steps"], took)
    assert took < sessions.MAX_BOT_SECONDS + ACT_S + 2.0, took  # the budget, one move past it, a margin
    r = c.post(f"/api/games/{snap['id']}/advance", json={"step": snap["steps"]}, headers={"X-Game-Token": snap["token"]})
    assert r.status_code == 200 and r.json()["steps"] == 3 and r.json()["your_turn"]


def test_bots_that_take_the_whole_budget_to_build_make_no_move_in_that_request(tmp_path):
    c = _client(tmp_path)
    body = {"game": "take5", "config": {"mode": "round"}, "seat": 3, "bots": ["slowtest:build"] * 3, "seed": 1}
    r = c.post("/api/games", json=body)  # 3 x 2 s of building: past the 4 s budget before any move
    assert r.status_code == 201 and r.json()["pending"] and r.json()["steps"] == 0, r.text


def test_a_new_game_with_the_costliest_bots_answers_within_the_budget(tmp_path):
    """The audit's reproducer: 10 players, 9 policy-guided searches of 1,000 simulations (the costliest
    settings the web app accepts). With the bots built ahead (``warm_bots``) the new game's request ends
    near ``MAX_BOT_SECONDS``; measured on a loaded 2-core machine: 4.05-4.08 s (7.37 s cold before this
    change), the warm-up itself 6.6 s in the background. Asserted with a generous bound."""
    pytest.importorskip("torch")
    from fiveplay_env.agents.learned import pretrained

    if "take5-game-10p" not in pretrained.available():
        pytest.skip("the take5-game-10p policy is not shipped in this checkout")
    c = _client(tmp_path, warm_bots=True)
    warm = c.app.state.warm
    assert warm.done.wait(300) and not warm.failed, warm.failed
    assert any("take5-game-10p" in name for name in warm.names("take5"))  # its network was loaded ahead
    bot = "ismcts:sims=1000,prior=take5-game-10p,rollout=policy"
    body = {"game": "take5", "config": {"num_players": 10, "mode": "round"}, "seat": 9, "bots": [bot] * 9, "seed": 3}
    t0 = time.perf_counter()
    r = c.post("/api/games", json=body)
    took = time.perf_counter() - t0
    assert r.status_code == 201, r.text
    assert took < sessions.MAX_BOT_SECONDS + 3.0, took
