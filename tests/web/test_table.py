"""What the web table is told, checked without a browser: each Take 5 event's public numbers (the
table as of that event, so the browser never shows a step's end ahead of its animation), why a row is
taken, the score sheet's numbers, the end of the game's reason, and the rules route (the rules for players
themselves: test_player_rules.py)."""
from __future__ import annotations

import numpy as np
import pytest

from fiveplay_env.experiments.web import views
from fiveplay_env.experiments.web.games import take5 as take5_web
from fiveplay_env.five_alive.config import FiveAliveConfig
from fiveplay_env.take5.state import BULL
from fiveplay_env.take5.config import Take5Config


def _take5_steps(config: Take5Config, seed: int):
    """(before, action, after, events) for every step of a random Take 5 game."""
    from fiveplay_env.agents import games as games_mod

    rng = np.random.default_rng(seed)
    eng = games_mod.get_game("take5").new_engine(config, seed)
    out = []
    while not eng.is_over:
        before = eng.state.clone()
        a = int(rng.choice(np.flatnonzero(eng.legal_mask())))
        eng.step(a)
        out.append((before, a, eng.state.clone(), views.step_events("take5", config, before, a, eng.state)))
    return out


@pytest.mark.parametrize("row_pick", ["player", "min_bullheads"])
def test_take5_events_carry_the_table_as_of_each_event(row_pick):
    config = Take5Config(num_players=4, mode="game", row_pick=row_pick)
    steps = _take5_steps(config, 5)
    sheet: list[list[int]] = []
    takes = {"sixth": 0, "low": 0}
    for before, _a, after, events in steps:
        n = before.num_players
        for e in events:
            if e["type"] == "chose":  # who chose, and nothing else (test_api: a chose event never names the card)
                assert set(e) == {"type", "player", "text"}
                continue
            t = e["table"]
            assert t["round"] == before.round  # never the next round while this one's events play
            if e["type"] not in ("round_end", "game_over"):
                assert t["scores"] == list(before.scores)
        pen = list(before.round_pen)
        for e in events:
            if e["type"] == "place":
                pen[e["player"]] += e["bulls"]
                assert e["table"]["round_penalty"] == pen
                if e["took"]:
                    takes[e["reason"]] += 1
                    assert e["bulls"] == sum(BULL[c - 1] for c in e["took"])
                    assert ("sixth card in row" in e["text"]) == (e["reason"] == "sixth")
                    assert ("lower than every row" in e["text"]) == (e["reason"] == "low")
                else:
                    assert "reason" not in e
        last = events[-1]
        if last["type"] in ("draft", "choose_row") or (last["type"] == "place" and after.round == before.round):
            want = take5_web.table_numbers(after)
            got = dict(last["table"])
            if last["type"] == "choose_row":  # the trick waits: the placed cards' penalties are already counted
                assert got["round_penalty"] == list(after.round_pen)
            else:  # the trick label stays the trick's own while its cards are placed
                assert got.pop("trick") == before.trick and want.pop("trick") in (before.trick, before.trick + 1)
                assert got == want, (got, want)
        if any(e["type"] == "round_end" for e in events):
            end = next(e for e in events if e["type"] == "round_end")
            assert end["scores"] == list(after.scores)
            assert end["penalties"] == [after.scores[q] - before.scores[q] for q in range(n)]
            sheet.append(end["penalties"])
    final = steps[-1][2]
    assert [sum(col) for col in zip(*sheet)] == list(final.scores)  # the score sheet adds up to the scores
    over = steps[-1][3][-1]
    assert over["type"] == "game_over" and "reached" in over["reason"] and "66 or more" in over["reason"]
    assert over["ranking"] == take5_web.ranking(list(final.scores))
    assert takes["sixth"] > 0 and takes["low"] > 0


def test_ranking_shares_places():
    assert take5_web.ranking([12, 30, 12, 7]) == [2, 4, 2, 1]


def test_five_alive_events_name_the_round_they_were_played_in():
    config = FiveAliveConfig(num_players=3)
    from fiveplay_env.agents import games as games_mod

    eng = games_mod.get_game("five_alive").new_engine(config, 3)
    rng = np.random.default_rng(3)
    ends = 0
    while not eng.is_over:
        before = eng.state.clone()
        a = int(rng.choice(np.flatnonzero(eng.legal_mask())))
        eng.step(a)
        (e,) = views.step_events("five_alive", config, before, a, eng.state)
        assert e["round_before"] == before.round
        if e["dealer"] is not None:
            ends += 1
            assert e["round"] == e["round_before"] + 1
    assert ends >= 1


def test_rules_route(web_runs_dir):
    from starlette.testclient import TestClient

    from fiveplay_env.experiments.web.app import create_app

    client = TestClient(create_app(web_runs_dir), base_url="http://127.0.0.1")
    r = client.get("/api/rules/five_alive")
    assert r.status_code == 200 and r.json()["cards"]["16"].startswith("Hand In & Re-Deal:")
    assert client.get("/api/rules/chess").status_code == 404

