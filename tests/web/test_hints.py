"""Hints in a player's terms (issue 52, point 4): every hint of the built-in games says what the suggested move is
expected to cost the player (Take 5: bull heads, never negative; 5 Alive: the chance to lose a life) and why, in a
short sentence, for search, policy and heuristic bots alike; at a row choice the cost is the chosen row's bull
heads exactly. The bot's own numbers (relative values, odds, simulations) stay in the bot's view. That hints see
only the seat's information is tests/web/test_api.py's no-leak test (whole hints compared after a re-deal)."""
from __future__ import annotations

import importlib.util
import re
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from fiveplay_env.take5 import state as t5_state  # noqa: E402
from tests.web.test_api import H, make_client, new_game  # noqa: E402

TORCH = importlib.util.find_spec("torch") is not None
BOTS = {"take5": ["ismcts:sims=50", "take5-safest"] + (["pretrained:take5-round-4p"] if TORCH else []),
        "five_alive": ["ismcts:sims=50", "five-alive-attacker"] + (["pretrained:five-alive-4p"] if TORCH else [])}
JARGON = re.compile(r"simulation|sure\b|higher is better|value|training|-\d", re.I)


@pytest.fixture(scope="module")
def runs_dir(web_runs_dir):
    return web_runs_dir


@pytest.fixture()
def client(runs_dir):
    with make_client(runs_dir) as c:
        yield c


def hint(client, snap, bot):
    r = client.post(f"/api/games/{snap['id']}/hint", json={"bot": bot, "step": snap["steps"]}, headers=H(snap))
    assert r.status_code == 200, r.text
    return r.json()


def text_of(h):
    """The dock's line after the move's label (static/bots.js: hintReason)."""
    return "; ".join(x for x in (h["cost"]["text"], h["reason"]) if x)


def advance(client, snap, action):
    r = client.post(f"/api/games/{snap['id']}/act", json={"action": action, "step": snap["steps"]}, headers=H(snap))
    snap = dict(r.json(), token=snap["token"])
    while snap["pending"]:
        snap = dict(client.post(f"/api/games/{snap['id']}/advance", json={"step": snap["steps"]}, headers=H(snap)).json(),
                    token=snap["token"])
    return snap


@pytest.mark.parametrize("game", ["take5", "five_alive"])
def test_every_bot_kind_gives_a_cost_and_a_reason_in_player_terms(client, game):
    snap = new_game(client, game=game, config={"mode": "round"} if game == "take5" else {"num_players": 4}, seed=4)
    for turn in range(2):
        for bot in BOTS[game]:
            h = hint(client, snap, bot)
            cost, reason, text = h["cost"], h["reason"], text_of(h)
            assert reason and len(reason) < 160, (bot, reason)
            assert not JARGON.search(text), (bot, text)
            if game == "take5":
                assert cost["unit"] == "bull heads" and cost["value"] >= 0 and "bull head" in text and "%" not in text
                if h["action"] < t5_state.ACTION_ROW0:
                    assert cost["when"] == "this round" and 0 <= cost["now"] <= cost["value"] + 1e-9
                    assert f"your {h['action'] + 1} " in reason, reason  # where the card would go
                else:  # a row choice (the next test)
                    assert cost["when"] == "now" and reason.startswith("row "), reason
            else:
                assert cost["unit"] == "chance to lose a life" and 0 <= cost["value"] <= 1 and cost["lives"] >= 0
                assert "life" in text or "lives" in text, text
            assert all(o["action"] != h["action"] and o["action"] in snap["legal"] for o in cost["others"])
        snap = advance(client, snap, snap["legal"][0])


def test_at_a_row_choice_the_cost_is_the_chosen_rows_bull_heads(client):
    snap = new_game(client, config={"mode": "round", "row_pick": "player"}, seed=5)
    seen = 0
    while not snap["over"] and seen < 2:
        rows = [a for a in snap["legal"] if a >= t5_state.ACTION_ROW0]
        if rows:
            for bot in BOTS["take5"]:
                h = hint(client, snap, bot)
                r = h["action"] - t5_state.ACTION_ROW0
                bulls = sum(t5_state.BULL[c - 1] for c in snap["view"]["rows"][r])
                assert h["cost"] == {**h["cost"], "value": bulls, "when": "now"}, h["cost"]
                assert h["cost"]["text"].startswith(f"you take {bulls} bull head"), h["cost"]["text"]
                assert h["reason"].startswith(f"row {r + 1} holds "), h["reason"]
                assert not JARGON.search(text_of(h)), text_of(h)
            seen += 1
        snap = advance(client, snap, min(snap["legal"]))  # the lowest card: a row choice comes soon
    assert seen >= 1


def test_a_hint_stays_within_its_time_budget(client):
    snap = new_game(client, seed=6)
    hint(client, snap, "ismcts:sims=200")  # warm
    t0 = time.perf_counter()
    h = hint(client, snap, "ismcts:sims=200")
    assert time.perf_counter() - t0 < 2.5 and h["cost"]["worlds"] >= 4
