"""The web app's HTTP API: every endpoint, what a seat may see, and each security point: records and
seeds only after the end, per-game tokens, no listing, bot names that never run code, cross-site and
rebinding requests refused, bodies bounded while read, capped bot moves / search budgets / replay
pages, per-client expiry, idempotent moves, malformed input always a 4xx with JSON."""
from __future__ import annotations

import json
import os
import random
import tempfile

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from fiveplay_env.agents.base import Agent  # noqa: E402
from fiveplay_env.agents.registry import register_prefix  # noqa: E402
from fiveplay_env.experiments.web import sessions, views  # noqa: E402
from fiveplay_env.experiments.web.app import MAX_BODY, MAX_REPLAY_STEPS, create_app  # noqa: E402
from fiveplay_env import records  # noqa: E402
from tests.web.util import LiveServer, raw_request  # noqa: E402

TRAIN_RUN = "train__take5__0__20260101-000000"


class Boom(Agent):
    def act(self, observation, action_mask):
        raise RuntimeError("kaboom")


register_prefix("boomtest", lambda rest, game, seed: Boom(seed))


@pytest.fixture(scope="module")
def runs_dir(web_runs_dir):
    return web_runs_dir


def make_client(runs_dir, **kwargs):
    kwargs.setdefault("max_games", 8)
    kwargs.setdefault("allow_agents", ["boomtest:x"])
    return TestClient(create_app(runs_dir, **kwargs), base_url="http://127.0.0.1", raise_server_exceptions=False)


@pytest.fixture()
def client(runs_dir):
    with make_client(runs_dir) as c:
        yield c


def H(snap):
    return {"X-Game-Token": snap["token"]}


def new_game(client, headers=None, **body):
    body.setdefault("game", "take5")
    body.setdefault("config", {"mode": "round"} if body["game"] == "take5" else {})
    body.setdefault("seat", 0)
    if "bots" not in body:
        n = body["config"].get("num_players", 4)
        body["bots"] = ["take5-safest" if body["game"] == "take5" else "five-alive-attacker"] * (n - 1)
    r = client.post("/api/games", json=body, headers=headers or {})
    assert r.status_code == 201, r.text
    return r.json()


def act(client, snap, action, **extra):
    return client.post(f"/api/games/{snap['id']}/act", json={"action": action, "step": snap["steps"], **extra},
                       headers=H(snap))


def play_out(client, snap, pick=lambda legal: legal[0]):
    token = snap["token"]
    while not snap["over"]:
        if snap["pending"]:
            r = client.post(f"/api/games/{snap['id']}/advance", json={"step": snap["steps"]}, headers={"X-Game-Token": token})
        else:
            assert snap["your_turn"] and snap["legal"]
            r = act(client, dict(snap, token=token), pick(snap["legal"]))
        assert r.status_code == 200, r.text
        snap = dict(r.json(), token=token)
    return snap


def test_index_static_and_meta(client):
    r = client.get("/")
    assert r.status_code == 200 and "<title>fiveplay</title>" in r.text
    assert "frame-ancestors 'none'" in r.headers["content-security-policy"] and r.headers["x-frame-options"] == "DENY"
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/style.css").status_code == 200
    meta = client.get("/api/meta").json()
    from fiveplay_env import games

    assert list(meta["games"])[:2] == ["take5", "five_alive"]  # the table's order: the built-in games first
    assert set(meta["games"]) == set(games.names())  # and every registered game (the toy game: the generic view)
    assert meta["games"]["take5"]["view"]["kind"] == "rows" and meta["games"]["toybid"]["view"]["kind"] == "generic"
    t5 = meta["games"]["take5"]
    assert t5["defaults"]["num_players"] == 4 and t5["presets"][0]["config"]["mode"] == "round"
    names = [b["name"] for b in t5["bots"]]
    assert names[0].startswith("pretrained:") and t5["bots"][0]["group"] == "Shipped policies"  # policies first
    assert "take5-safest" in names and "random" in names and "ismcts:sims=200" in names
    assert f"ckpt:{TRAIN_RUN}" in names and "boomtest:x" in names  # a checkpoint in the runs folder, the operator's
    assert not any(n.endswith("...") or ":N" in n for n in names)
    from fiveplay_env.agents import search

    guided = [b for b in t5["bots"] if b["group"] == "Guided search"]  # one per prior, suiting the counts it is nearest
    assert guided[0]["name"] == search.GUIDED["take5"] and "take5-game-4p" in guided[0]["about"] and guided[0]["suits"] == [2, 3, 4]
    assert [b["suits"] for b in guided] == [[2, 3, 4], [5, 6, 7], [8, 9, 10]]
    assert [search.guided_prior(b["name"]) for b in guided] == ["take5-game-4p", "take5-game-6p", "take5-game-10p"]
    suits = {b["name"]: b["suits"] for b in t5["bots"] if b["group"] == "Shipped policies"}
    assert {b["name"]: b["family"] for b in t5["bots"] if b["group"] == "Shipped policies"}["pretrained:take5-game-10p"] == "take5-game-"
    assert suits["pretrained:take5-round-4p"] == list(range(2, 11)) and suits["pretrained:take5-game-6p"] == [5, 6, 7]
    fa = {b["name"]: b for b in meta["games"]["five_alive"]["bots"] if b["group"] == "Shipped policies"}
    assert fa["pretrained:five-alive-4p"]["players"] is None  # offered at every count: it plays 2-6 (adapted), as the server accepts
    assert fa["pretrained:five-alive-4p"]["suits"] == [4] and fa["pretrained:five-alive-3p"]["suits"] == [3]
    assert len(meta["take5_bullheads"]) == 104 and meta["take5_bullheads"][54] == 7
    assert meta["five_alive_kinds"][18] == "BUST"
    assert meta["limits"]["sims"] == 1000 and meta["limits"]["time"] == 2.0


def test_whole_take5_game_its_record_and_its_replay(client, runs_dir):
    snap = new_game(client, seed=5, bots=["take5-safest", "pretrained:take5-round-4p", "ismcts:sims=20"])
    assert snap["names"][0] == "you" and snap["view"]["hands"].keys() == {"0"}
    assert len(snap["token"]) >= 32 and "seed" not in snap
    gid = snap["id"]
    text_mid = client.get(f"/api/games/{gid}", headers=H(snap)).text
    assert "probs" not in text_mid and "candidates" not in text_mid  # no bot's thoughts while the game is on
    snap = play_out(client, snap)
    assert snap["view"]["over"] and snap["view"]["winners"] and snap["seed"] == "5"  # as text: exact in a browser
    types = [e["type"] for e in client.get(f"/api/games/{gid}", headers=H(snap)).json()["events"]]
    assert types.count("reveal") == 10 and types.count("place") == 40 and types[-2:] == ["round_end", "game_over"]
    rec = records.parse_records(client.get(f"/api/games/{gid}/record", headers=H(snap)).text)[0]
    assert records.replay(rec).engine.state.scores == snap["view"]["scores"]
    thoughts = rec["meta"][sessions.THOUGHTS_KEY]
    assert thoughts["version"] == 1
    kinds = {t["kind"] for t in thoughts["steps"].values()}
    assert kinds == {"policy", "search"} and {t["player"] for t in thoughts["steps"].values()} == {2, 3}
    # saved under the runs folder, replayable by the shareable run/game names, with the thoughts
    saved = snap["saved"]
    path = os.path.join(runs_dir, saved["run"], "records", saved["game"] + ".jsonl")
    assert os.path.isfile(path) and records.read_records(path)[0]["actions"] == rec["actions"]
    page = client.get(f"/api/replay?run={saved['run']}&game={saved['game']}&count=200").json()
    assert page["has_thoughts"] and page["human_seat"] == 0 and page["total_frames"] == len(rec["actions"]) + 1
    with_t = [f for f in page["frames"] if "thoughts" in f]
    assert len(with_t) == len(thoughts["steps"]) and all(f["player"] == f["thoughts"]["player"] for f in with_t)
    part = client.get(f"/api/games/{gid}?since=5", headers=H(snap)).json()
    assert part["event_base"] == 5 and len(part["events"]) == len(types) - 5
    assert saved["run"] in [r["name"] for r in client.get("/api/runs").json()["runs"]]


def test_whole_five_alive_game(client):
    snap = new_game(client, game="five_alive", config={"num_players": 3}, seat=2, seed=11)
    snap = play_out(client, snap, pick=lambda legal: legal[-1])
    v = snap["view"]
    assert v["over"] and v["winners"]
    plays = [e for e in client.get(f"/api/games/{snap['id']}", headers=H(snap)).json()["events"] if e["type"] == "play"]
    assert all(set(e["after"]) >= {"total", "direction", "lives", "hand_sizes", "current"} for e in plays)
    for e in plays:  # a Reverse says which way play goes now
        if e["reversed"]:
            assert "the direction is now" in e["text"]


def test_a_bot_that_cannot_play_the_table_is_refused_by_seat(client):
    r = client.post("/api/games", json={"game": "five_alive", "config": {"num_players": 3}, "seat": 0,
                                        "bots": ["pretrained:take5-game-4p", "random"]})
    assert r.status_code == 400 and "bots[0] (seat 1)" in r.json()["error"]
    # the 4-player 5 Alive policy plays 2-6 players (its observation adapted): accepted at 3
    r = client.post("/api/games", json={"game": "five_alive", "config": {"num_players": 3}, "seat": 0,
                                        "bots": ["pretrained:five-alive-4p", "random"]})
    assert r.status_code == 201, r.text


def test_placement_events_match_the_engine():
    """The Take 5 placement events rebuilt with the engine's row rules end where the engine is."""
    rng = np.random.default_rng(0)
    for seed in range(30):
        cfg = {"num_players": 5, "mode": "round", "row_pick": "player" if seed % 2 else "min_bullheads"}
        h = records.hooks("take5")
        config = h.config_cls(**cfg)
        eng = h.engine_cls(config, seed)
        while not eng.is_over:
            before = eng.state.clone()
            a = int(rng.choice(np.flatnonzero(eng.legal_mask())))
            eng.step(a)
            evs = views.step_events("take5", config, before, a, eng.state)
            places = [e for e in evs if e["type"] == "place"]
            if places and not any(e["type"] in ("round_end", "choose_row") for e in evs):
                assert places[-1]["rows"] == [[c + 1 for c in r] for r in eng.state.rows]
            pen = sum(e["bulls"] for e in places)
            assert pen == sum(eng.state.round_pen) - sum(before.round_pen) or any(e["type"] == "round_end" for e in evs)


def _hidden_permuted_take5(state, seat, rng):
    s = state.clone()
    others = [q for q in range(s.num_players) if q != seat]
    pool = list(s.set_aside)
    for q in others:
        pool += s.hand(q)
        if s.pending[q] >= 0:
            pool.append(s.pending[q])
    rng.shuffle(pool)
    pos = 0
    for q in others:
        k = s.hand_size[q]
        s.hands[q, :] = 0
        s.hands[q, pool[pos:pos + k]] = 1
        pos += k
        if s.pending[q] >= 0:
            s.pending[q] = pool[pos]
            pos += 1
    s.set_aside = sorted(pool[pos:])
    return s


def _hidden_permuted_five_alive(state, seat, rng):
    s = state.clone()
    others = [q for q in range(s.num_players) if q != seat]
    pool = list(s.draw)
    for q in others:
        pool += s.hand(q)
    rng.shuffle(pool)
    pos = 0
    for q in others:
        k = s.hand_size[q]
        s.hands[q] = [0] * 18
        for c in pool[pos:pos + k]:
            s.hands[q][c] += 1
        pos += k
    s.draw = pool[pos:]
    return s


@pytest.mark.parametrize("game", ["take5", "five_alive"])
def test_browser_gets_only_what_the_seat_may_see(client, game):
    """Re-dealing every card the human cannot see (other hands, unrevealed choices, set-aside cards, the
    draw pile's order) leaves everything the server sends unchanged, hints included (they see only the
    human's seat)."""
    app_store = client.app.state.store
    snap = new_game(client, game=game, config={"num_players": 4} if game == "five_alive" else {"mode": "round"},
                    seat=2, seed=3)
    rng = random.Random(0)
    checks = 0
    while not snap["over"]:
        session = app_store.get(snap["id"], snap["token"])
        real = session.engine.state
        for k in range(3):
            permute = _hidden_permuted_take5 if game == "take5" else _hidden_permuted_five_alive
            session.engine.state = permute(real, 2, rng)
            other = client.get(f"/api/games/{snap['id']}", headers=H(snap)).json()
            hint_other = client.post(f"/api/games/{snap['id']}/hint", json={"bot": "ismcts:sims=12", "step": snap["steps"]},
                                     headers=H(snap)).json() if k == 0 and checks < 6 else None
            session.engine.state = real
            same = client.get(f"/api/games/{snap['id']}", headers=H(snap)).json()
            assert other == same
            if hint_other is not None:
                hint = client.post(f"/api/games/{snap['id']}/hint", json={"bot": "ismcts:sims=12", "step": snap["steps"]},
                                   headers=H(snap)).json()
                hint_other.pop("seconds"), hint.pop("seconds")
                if hint["thoughts"] and "seconds" in hint["thoughts"]:
                    hint["thoughts"].pop("seconds"), hint_other["thoughts"].pop("seconds")
                assert hint == hint_other
            checks += 1
        assert set(same["view"]["hands"]) == {"2"}
        assert "draw" not in same["view"] and "set_aside" not in same["view"] and "seed" not in same
        r = act(client, snap, snap["legal"][0])
        snap = dict(r.json(), token=snap["token"])
        while snap["pending"]:
            snap = dict(client.post(f"/api/games/{snap['id']}/advance", json={"step": snap["steps"]}, headers=H(snap)).json(),
                        token=snap["token"])
    assert checks >= 9


def test_take5_chose_events_never_name_the_card(client):
    snap = new_game(client, seat=3, seed=1)  # seats 0..2 choose before the human
    chose = [e for e in snap["events"] if e["type"] == "chose"]
    assert len(chose) == 3 and all(set(e) == {"type", "player", "text"} for e in chose)


def test_hints(client):
    snap = new_game(client, seed=8)
    for bot in ("pretrained:take5-round-4p", "ismcts:sims=16", "take5-safest"):
        r = client.post(f"/api/games/{snap['id']}/hint", json={"bot": bot, "step": snap["steps"]}, headers=H(snap))
        assert r.status_code == 200, r.text
        h = r.json()
        assert h["action"] in snap["legal"] and h["label"] == f"card {h['action'] + 1}" and h["bot"] == bot
        if bot.startswith("pretrained"):
            assert h["thoughts"]["kind"] == "policy" and abs(sum(p["p"] for p in h["thoughts"]["probs"]) - 1) < 1e-3
        elif bot.startswith("ismcts"):
            assert h["thoughts"]["kind"] == "search" and h["thoughts"]["chosen"] == h["action"]
        else:
            assert h["thoughts"] is None
    # a hint changes nothing, is refused for a stale step, and vets its bot like a seat's
    assert client.get(f"/api/games/{snap['id']}", headers=H(snap)).json()["steps"] == snap["steps"]
    assert client.post(f"/api/games/{snap['id']}/hint", json={"bot": "random", "step": snap["steps"] + 1},
                       headers=H(snap)).status_code == 409
    r = client.post(f"/api/games/{snap['id']}/hint", json={"bot": "os:abort", "step": snap["steps"]}, headers=H(snap))
    assert r.status_code == 400 and "import paths" in r.json()["error"]


@pytest.mark.parametrize("body, message", [
    ({"game": "chess", "seat": 0, "bots": []}, "game: expected one of"),
    ({"game": ["take5"], "seat": 0, "bots": []},  # every registered game: the toy game of tests/toy_game too
     "game: expected one of ['five_alive', 'take5', 'toybid'] (the games the web app draws), got list"),
    ({"game": "take5", "config": {"colour": 1}, "seat": 0, "bots": ["random"] * 3}, "unknown config field 'colour'"),
    ({"game": "take5", "config": {"num_players": 99}, "seat": 0, "bots": []}, "num_players: expected an integer in 2..10"),
    ({"game": "take5", "config": {"num_players": "4"}, "seat": 0, "bots": []}, "num_players"),
    ({"game": "take5", "config": {"mode": 5}, "seat": 0, "bots": ["random"] * 3}, "mode"),
    ({"game": "take5", "config": "x", "seat": 0, "bots": []}, "config: expected an object"),
    ({"game": "take5", "seat": 7, "bots": ["random"] * 3}, "seat: expected an integer in 0..3"),
    ({"game": "take5", "seat": "0", "bots": ["random"] * 3}, "seat: expected an integer"),
    ({"game": "take5", "seat": 1.0, "bots": ["random"] * 3}, "seat: expected an integer"),
    ({"game": "take5", "seat": 0, "bots": ["random"]}, "bots: expected a list of 3 agent names"),
    ({"game": "take5", "seat": 0, "bots": "random"}, "bots: expected a list of 3 agent names"),
    ({"game": "take5", "seat": 0, "bots": ["random", "nobody", "random"]}, "bots[1] (seat 2): expected a name from the bot list"),
    ({"game": "take5", "seat": 0, "bots": ["random", 7, "random"]}, "bots[1] (seat 2): expected an agent name (a string), got int"),
    ({"game": "take5", "seat": 0, "bots": ["random", "x" * 5000, "random"]}, "at most 300 characters"),
    ({"game": "take5", "seat": 0, "bots": ["random", "ran\x00dom", "random"]}, "printable"),
    ({"game": "take5", "seat": 0, "bots": ["random"] * 3, "seed": -4}, "seed: expected an integer in 0..18446744073709551615, got -4"),
    ({"game": "take5", "seat": 0, "bots": ["random"] * 3, "seed": 2**64}, "seed: expected an integer in 0..18446744073709551615"),
    ({"game": "take5", "seat": 0, "bots": ["random"] * 3, "seed": "7x"}, "seed: expected an integer"),
    ({"game": "take5", "seat": 0, "bots": ["random"] * 3, "seed": str(2**64)}, "seed: expected an integer in 0..18446744073709551615"),
    ({"game": "take5", "seat": 0, "bots": ["random"] * 3, "speed": 1}, "unknown field 'speed'"),
    ({"game": "five_alive", "seat": 0, "bots": ["ismcts:sims=-1"] * 3}, "bots[0] (seat 1)"),
    ({"game": "five_alive", "seat": 0, "bots": ["ismcts:bogus=1"] * 3}, "search option"),
])
def test_new_game_bad_input(client, body, message):
    r = client.post("/api/games", json=body)
    assert r.status_code == 400 and message in r.json()["error"], r.text


# --- security: records, seeds, tokens ---------------------------------------------------------------------

def test_record_and_seed_only_after_the_end_and_the_viewer_refuses_unfinished_records(client):
    snap = new_game(client, seed=12)
    r = client.get(f"/api/games/{snap['id']}/record", headers=H(snap))
    assert r.status_code == 409 and "only once it is over" in r.json()["error"]
    assert "seed" not in snap and "seed" not in client.get(f"/api/games/{snap['id']}", headers=H(snap)).json()
    session = client.app.state.store.get(snap["id"], snap["token"])
    unfinished = records.make_record("take5", session.config, session.seed, session.actions, engine=session.engine)
    r = client.post("/api/replay", json={"text": records.dumps(unfinished)})
    assert r.status_code == 422 and "an unfinished game" in r.json()["error"]
    snap = play_out(client, snap)
    assert snap["seed"] == "12" and client.get(f"/api/games/{snap['id']}/record", headers=H(snap)).status_code == 200


def test_every_request_for_a_game_needs_its_token_and_nothing_lists_games(client):
    a, b = new_game(client, seed=1), new_game(client, seed=2)
    assert a["token"] != b["token"] and a["id"] != b["id"] and len(a["id"]) == 16
    gid = a["id"]
    for token in (None, "", "x", b["token"], a["token"][:-1], a["token"] + "x"):
        h = {} if token is None else {"X-Game-Token": token}
        for method, path, body in [("GET", f"/api/games/{gid}", None), ("POST", f"/api/games/{gid}/act", {"action": 0, "step": 0}),
                                   ("POST", f"/api/games/{gid}/advance", {"step": 0}), ("POST", f"/api/games/{gid}/hint", {"bot": "random", "step": 0}),
                                   ("GET", f"/api/games/{gid}/record", None), ("DELETE", f"/api/games/{gid}", None)]:
            r = client.request(method, path, json=body, headers=h)
            assert r.status_code == 404 and "no game with this id and token" in r.json()["error"], (method, path, token)
    assert client.get(f"/api/games/{gid}", headers=H(a)).status_code == 200  # nothing changed
    r = client.get("/api/games")
    assert r.status_code in (404, 405) and gid not in r.text  # no endpoint lists games
    for path in ("/api/meta", "/api/runs"):
        assert gid not in client.get(path).text and a["token"] not in client.get(path).text


# --- security: bot names ------------------------------------------------------------------------------------

ATTACK_BOTS = [
    "os:abort", "faulthandler:_sigsegv", "sys:exit", "builtins:input", "_thread:interrupt_main", "tempfile:mkdtemp",
    "os:environ", "os.path:expanduser", "subprocess:Popen", "mypkg.mybots:CleverBot", "fiveplay_env.agents.base:Agent",
    "ckpt:/dev/zero", "ckpt:/dev/urandom", "ckpt:/etc/passwd", "ckpt:../outside.pt", "ckpt:link_out/outside.pt",
    "ckpt:{outside}", "ckpt:" + "x" * 290, "ckpt:", "rllib:/tmp", "rllib:" + TRAIN_RUN, "boomtest:y",
    "ismcts:sims=5,prior=tempfile:mkdtemp", "ismcts:prior=os:abort", "ismcts:sims=5,topk=2,prior=faulthandler:_sigsegv",
    "ismcts:prior=ckpt:/dev/zero", "ismcts:prior=ckpt:../outside.pt", "ismcts:prior=rllib:/tmp",
    "ismcts:sims=1001", "ismcts:sims=100000", "ismcts:time=2.5", "ismcts:time=1e9", "ismcts:time=60",
    "pretrained:../../etc/passwd", "pretrained:five-alive-4p",
]
"""Bot names a request may not use: each would import code, read a file outside the runs folder (or a
device), load a pickle, or exceed the search budget."""


def test_request_bot_names_never_run_code_or_read_outside_the_runs_folder(client, runs_dir, tmp_path, monkeypatch):
    outside = os.path.join(os.path.dirname(runs_dir), "outside.pt")
    probe = tmp_path / "tmp"
    probe.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(probe))  # where tempfile:mkdtemp would make its folder
    refused = 0
    for name in ATTACK_BOTS:
        name = name.replace("{outside}", outside)
        r = client.post("/api/games", json={"game": "take5", "config": {"mode": "round"}, "seat": 0,
                                            "bots": [name, "random", "random"]})
        assert r.status_code == 400, (name, r.status_code, r.text)
        msg = r.json()["error"]
        assert msg.startswith("bots[0] (seat 1): ") and "Traceback" not in msg, (name, msg)
        assert any(w in msg for w in ("import paths", "expected a checkpoint inside the runs folder", "not offered",
                                      "at most", "pretrained: expected one of")), (name, msg)
        assert os.environ.get("HOME", "/root") not in msg or "ckpt" in name
        refused += 1
    assert refused == len(ATTACK_BOTS) >= 35
    assert os.listdir(probe) == []  # tempfile:mkdtemp made nothing
    assert client.get("/api/meta").status_code == 200  # still serving


def test_the_operator_allows_more_names_and_checkpoints_inside_the_runs_folder_play(client):
    snap = new_game(client, bots=[f"ckpt:{TRAIN_RUN}", f"ckpt:{TRAIN_RUN}/checkpoint.pt?sample", "random"], seed=4)
    assert snap["names"][1:3] == [f"ckpt:{TRAIN_RUN}", f"ckpt:{TRAIN_RUN}/checkpoint.pt?sample"]
    r = client.post("/api/games", json={"game": "take5", "config": {"mode": "round"}, "seat": 0,
                                        "bots": [f"ismcts:sims=8,topk=2,prior=ckpt:{TRAIN_RUN}", "random", "random"]})
    assert r.status_code == 201, r.text


def test_a_failing_bot_ends_only_its_game(client):
    ok = new_game(client, seed=1)
    r = client.post("/api/games", json={"game": "take5", "config": {"mode": "round"}, "seat": 1,
                                        "bots": ["boomtest:x", "random", "random"]})  # allowed by the operator
    assert r.status_code == 201
    bad = r.json()
    assert bad["over"] and "kaboom" in bad["error"] and "seat 0" in bad["error"]
    assert bad["events"][-1]["type"] == "error"
    r = act(client, bad, bad["view"]["hands"]["1"][0] - 1)
    assert r.status_code == 409 and "ended with an error" in r.json()["error"]
    assert play_out(client, ok)["view"]["over"]


# --- security: cross-site requests, hosts, bodies -----------------------------------------------------------

def test_cross_site_and_rebinding_requests_are_refused(client):
    body = json.dumps({"game": "take5", "config": {"mode": "round"}, "seat": 0, "bots": ["random"] * 3})
    refused = []
    for headers, status in [
        ({"Content-Type": "text/plain"}, 415), ({"Content-Type": "text/plain;charset=UTF-8"}, 415),
        ({"Content-Type": "application/x-www-form-urlencoded"}, 415), ({"Content-Type": "multipart/form-data; boundary=x"}, 415),
        ({}, 415), ({"Content-Type": "application/json; charset=latin-1"}, 415),
        ({"Content-Type": "application/json", "Origin": "http://evil.example"}, 403),
        ({"Content-Type": "application/json", "Origin": "null"}, 403),
        ({"Content-Type": "application/json", "Origin": "http://127.0.0.1.evil.example"}, 403),
        ({"Content-Type": "application/json", "Origin": "http://127.0.0.1:9999"}, 403),
        ({"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"}, 403),
        ({"Content-Type": "application/json", "Sec-Fetch-Site": "same-site"}, 403),
        ({"Content-Type": "application/json", "Host": "evil.example"}, 421),
        ({"Content-Type": "application/json", "Host": "evil.example:8000"}, 421),
        ({"Content-Type": "application/json", "Host": "127.0.0.1.nip.io"}, 421),
    ]:
        r = client.post("/api/games", content=body, headers=headers)
        assert r.status_code == status and r.json()["error"], (headers, r.status_code, r.text)
        refused.append(headers)
    assert len(refused) == 15
    assert client.get("/api/meta", headers={"Host": "evil.example"}).status_code == 421  # reads too
    assert client.get("/", headers={"Host": "rebind.example"}).status_code == 421
    for ok in ({"Content-Type": "application/json", "Origin": "http://127.0.0.1"},
               {"Content-Type": "application/json; charset=utf-8", "Sec-Fetch-Site": "same-origin"},
               {"Content-Type": "application/json", "Host": "localhost:8000", "Origin": "http://localhost:8000"},
               {"Content-Type": "application/json", "Host": "[::1]:8000"}):
        assert client.post("/api/games", content=body, headers=ok).status_code == 201, ok


def test_an_allowed_host_name(runs_dir):
    with make_client(runs_dir, allowed_hosts=["cards.lan"]) as c:
        assert c.get("/api/meta", headers={"Host": "cards.lan:8000"}).status_code == 200
        assert c.get("/api/meta", headers={"Host": "other.lan"}).status_code == 421


@pytest.fixture(scope="module")
def live(runs_dir):
    srv = LiveServer(runs_dir, save_games=False)
    yield srv
    srv.stop()


def test_a_256_mb_body_is_refused_before_it_is_read(live):
    """Declared or streamed, a body over the limit gets its 413 long before the 256 MB are sent (what was
    sent before the answer came is the limit plus what the two sockets' buffers hold)."""
    big = 256 * 1024 * 1024
    head = (f"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1:{live.port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {big}\r\nConnection: close")
    chunks = (b" " * 65536 for _ in range(big // 65536))
    answer, sent = raw_request(live.port, head, chunks)
    assert b" 413 " in answer.split(b"\r\n", 1)[0] and sent < 32 * 1024 * 1024, (answer[:200], sent)
    head = (f"POST /api/replay HTTP/1.1\r\nHost: 127.0.0.1:{live.port}\r\nContent-Type: application/json\r\n"
            f"Transfer-Encoding: chunked\r\nConnection: close")
    piece = b" " * 65536
    chunks = (b"%x\r\n" % len(piece) + piece + b"\r\n" for _ in range(big // 65536))
    answer, sent = raw_request(live.port, head, chunks)
    assert b" 413 " in answer.split(b"\r\n", 1)[0], answer[:200]
    assert sent < 8 * 1024 * 1024 + 32 * 1024 * 1024, sent  # stopped near the 8 MB upload limit, not 256 MB
    assert b'"error"' in answer


MALFORMED = [
    b'{"game": "take5", "seat": 0, "bots": ["random", "random", "random"], "seed": ' + b"1" * 5000 + b"}",
    b'{"seed": ' + b"9" * 26 + b"}", b'{"seed": -' + b"1" * 5000 + b"}", b'{"seed": 1e999}', b'{"seed": NaN}',
    b'{"seed": Infinity}', b'{"seed": -Infinity}', b"[" * 30000 + b"]" * 30000, b'{"a":' * 20000 + b"1" + b"}" * 20000,
    b'{"game": "take5", "bots": ["\\ud800", "random", "random"], "seat": 0}', b'{"game": "\\udfff"}',
    b"", b"{oops", b"[1, 2]", b'"str"', b"null", b"\xff\xfe", b'{"game": "take5"', b"{}" * 5,
    b'{"game": "take5", "seat": 0, "bots": ["random", "random", "random"], "config": {"num_players": 1e300}}',
    b'{"game": "take5", "seat": 0, "bots": ["random", "random", "random"], "config": {"end_score": "66"}}',
    b'{"game": "take5", "seat": 0, "bots": ["random", "random", "random"], "config": {"mode": {"a": [1]}}}',
    b'{"game": "five_alive", "seat": 0, "bots": ["random", "random", "random"], "config": {"deck_counts": "x"}}',
    b'{"game": "five_alive", "seat": 0, "bots": ["random", "random", "random"], "config": {"deck_counts": [1e308]}}',
    b'{"game": "take5", "seat": 18446744073709551616, "bots": []}', b'{"game": "take5", "seat": true, "bots": []}',
    b'{"game": "take5", "seat": 0, "bots": [[], {}, null]}', b'{"game": "take5", "seat": 0, "bots": null, "config": null}',
]


def test_malformed_requests_are_4xx_with_a_json_error(client):
    """Huge and deep numbers and nesting, wrong types, broken text: 4xx with a message, never 500."""
    r = client.post("/api/games", content=b" " * (MAX_BODY + 1), headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and f"at most {MAX_BODY} bytes" in r.json()["error"]
    statuses = []
    for raw in MALFORMED:
        r = client.post("/api/games", content=raw, headers={"Content-Type": "application/json"})
        assert 400 <= r.status_code < 500 and r.json()["error"], (raw[:80], r.status_code, r.text[:200])
        statuses.append(r.status_code)
    snap = new_game(client, seed=3)
    bad_moves = [{"action": "5", "step": 0}, {"action": 10**30, "step": 0}, {"action": -1, "step": 0},
                 {"action": 1.5, "step": 0}, {"action": None, "step": 0}, {"action": [1], "step": 0},
                 {"action": 0, "step": "0"}, {"action": 0, "step": 2**70}, {"action": 0, "step": -1},
                 {"action": 0}, {"step": 0}, {"action": 0, "step": 0, "since": -1}, {"action": 0, "step": 0, "since": "x"},
                 {"action": 0, "step": 0, "x": 1}]
    for body in bad_moves:
        r = client.post(f"/api/games/{snap['id']}/act", json=body, headers=H(snap))
        assert 400 <= r.status_code < 500 and r.json()["error"], (body, r.status_code, r.text)
        statuses.append(r.status_code)
    for raw in MALFORMED[:12]:
        r = client.post(f"/api/games/{snap['id']}/act", content=raw, headers={**H(snap), "Content-Type": "application/json"})
        assert 400 <= r.status_code < 500, (raw[:60], r.status_code)
        statuses.append(r.status_code)
    for q in ("since=x", "since=-1", "since=" + "9" * 40, "since=1e9"):
        r = client.get(f"/api/games/{snap['id']}?{q}", headers=H(snap))
        assert r.status_code == 400 and r.json()["error"], q
        statuses.append(r.status_code)
    assert client.get(f"/api/games/{snap['id']}", headers=H(snap)).json()["view"] == snap["view"]  # nothing changed
    assert len(statuses) == len(MALFORMED) + 14 + 12 + 4 and 500 not in statuses


def _a_record(client):
    t5 = next(r for r in client.get("/api/runs").json()["runs"] if r["name"].startswith("tournament__take5"))
    return t5, records.read_records(os.path.join(client.app.state.runs_dir, t5["name"], t5["records"][0]))[0]


def test_malformed_record_uploads_are_4xx(client):
    _, rec = _a_record(client)
    line = records.dumps(rec)
    cases = [
        line.replace(f'"seed":{rec["seed"]}', '"seed":' + str(2**64)), line.replace(f'"seed":{rec["seed"]}', '"seed":' + "7" * 5000),
        line.replace('"game":"take5"', '"game":["take5"]'), line.replace('"game":"take5"', '"game":"\\ud800"'),
        "[" * 100000 + "]" * 100000, '{"a":' * 5000 + "1" + "}" * 5000, line.replace('"actions":[', '"actions":[1e999,'),
        line.replace('"actions":[', '"actions":[' + "9" * 5000 + ","), line.replace('"config":{', '"config":{"x":' + "[" * 500 + "]" * 500 + ","),
        "\ud800", "null", "{}", line[:-5], line.replace('"actions":[', '"actions":["a",'),
    ]
    for text in cases:  # sent as ASCII JSON, so the lone surrogate travels as the escape \\ud800
        r = client.post("/api/replay", content=json.dumps({"text": text}), headers={"Content-Type": "application/json"})
        assert 400 <= r.status_code < 500 and r.json()["error"], (text[:80], r.status_code, r.text[:300])
    for body in ({"text": 5}, {"text": line, "index": -1}, {"text": line, "count": 0}, {"text": line, "start": "x"},
                 {"text": line, "bogus": 1}, {}):
        r = client.post("/api/replay", json=body)
        assert r.status_code == 400, body


# --- security: caps ---------------------------------------------------------------------------------------

def test_a_repeated_move_is_played_once(client):
    snap = new_game(client, seed=6)
    hand = snap["view"]["hands"]["0"]
    first = act(client, snap, snap["legal"][0])
    assert first.status_code == 200 and first.json()["repeat"] is False
    again = act(client, snap, snap["legal"][0])  # the same move for the same step, sent twice
    assert again.status_code == 200 and again.json()["repeat"] is True
    after = client.get(f"/api/games/{snap['id']}", headers=H(snap)).json()
    assert after["steps"] == first.json()["steps"] and len(after["view"]["hands"]["0"]) == len(hand) - 1
    other = act(client, snap, snap["legal"][1])  # another move for a step already past
    assert other.status_code == 409 and "the game is at step" in other.json()["error"]
    r = client.post(f"/api/games/{snap['id']}/act", json={"action": after["legal"][0]}, headers=H(snap))
    assert r.status_code == 400 and "step: missing" in r.json()["error"]


def test_bot_moves_per_request_are_capped(client, monkeypatch):
    monkeypatch.setattr(sessions, "MAX_BOT_MOVES", 2)
    snap = new_game(client, game="five_alive", config={"num_players": 6}, bots=["random"] * 5, seed=2)
    answers = 0
    while not snap["over"] and answers < 400:
        if snap["pending"]:
            assert snap["legal"] == [] and not snap["your_turn"]
            r = act(client, snap, 0)
            assert r.status_code == 409  # no move while the bots are still to play
            r = client.post(f"/api/games/{snap['id']}/advance", json={"step": snap["steps"]}, headers=H(snap))
        else:
            r = act(client, snap, snap["legal"][0])
        snap = dict(r.json(), token=snap["token"])
        answers += 1
        assert not snap["over"] or snap["view"]["over"]
    assert snap["over"] and answers > snap["steps"] / 3  # many short answers, each at most 2 bot moves
    monkeypatch.setattr(sessions, "MAX_BOT_MOVES", 400)
    monkeypatch.setattr(sessions, "MAX_BOT_SECONDS", 0.0)  # the time budget: one move per answer
    snap = new_game(client, game="five_alive", config={"num_players": 4}, bots=["random"] * 3, seat=3, seed=4)
    assert snap["pending"] and snap["steps"] == 0  # (a new game's budget went on building its bots)
    r = client.post(f"/api/games/{snap['id']}/advance", json={"step": 0}, headers=H(snap))
    assert r.json()["pending"] and r.json()["steps"] == 1


def test_a_game_that_never_ends_is_stopped(client, monkeypatch):
    monkeypatch.setattr(sessions, "MAX_GAME_STEPS", 25)
    snap = new_game(client, game="five_alive", config={"num_players": 2}, bots=["random"], seed=1)
    snap = play_out(client, snap)
    assert "reached 25 actions" in snap["error"] and snap["steps"] <= 26


def test_games_expire_per_client_and_one_client_cannot_lock_out_others(runs_dir):
    app = create_app(runs_dir, max_games=6, per_client=3, save_games=False)
    alice = TestClient(app, base_url="http://127.0.0.1", client=("10.0.0.1", 5000))
    mallory = TestClient(app, base_url="http://127.0.0.1", client=("10.0.0.66", 5000))
    a = [new_game(alice, headers={"X-Client": "alice"}, seed=s) for s in range(3)]
    d = new_game(alice, headers={"X-Client": "alice"}, seed=9)  # a 4th: alice's own oldest goes
    assert d["dropped"] == [a[0]["id"]]
    assert alice.get(f"/api/games/{a[0]['id']}", headers=H(a[0])).status_code == 404
    # unfinished games from another machine under ever new client ids fill the store, then are refused
    # (503): they never push out alice's games (issue 43: only one's own games are replaced)
    ms = [new_game(mallory, headers={"X-Client": f"m{k}"}, seed=k) for k in range(3)]
    assert all(m["over"] is False and not m["dropped"] for m in ms)
    r = mallory.post("/api/games", json={"game": "take5", "config": {"mode": "round"}, "seat": 0,
                                         "bots": ["random"] * 3}, headers={"X-Client": "m3"})
    assert r.status_code == 503 and "holds its 6 games" in r.json()["error"]
    for g in (a[1], a[2], d):
        assert alice.get(f"/api/games/{g['id']}", headers=H(g)).status_code == 200
    store = app.state.store
    assert len(store) == 6 and store.count(("10.0.0.1", "alice")) == 3 and store.count(("10.0.0.66", "m2")) == 1
    # a client of a full server replaces its own games
    e = new_game(alice, headers={"X-Client": "alice"}, seed=12)
    assert e["dropped"] == [a[1]["id"]]
    store.idle_s = 0.0  # idle games expire
    assert alice.get(f"/api/games/{e['id']}", headers=H(e)).status_code == 404


def test_search_budgets_are_capped(client):
    for name, ok in (("ismcts:sims=1000", True), ("ismcts:time=2", True), ("ismcts:sims=1001", False),
                     ("ismcts:time=2.01", False), ("ismcts:sims=5,prior=take5-round-4p,time=3", False)):
        r = client.post("/api/games", json={"game": "take5", "config": {"mode": "round"}, "seat": 3,
                                            "bots": [name, "random", "random"] if not ok else ["random"] * 3})
        if ok:
            assert app_policy(client).resolve(name, "take5").make_name == name
            assert r.status_code == 201
        else:
            assert r.status_code == 400 and "at most" in r.json()["error"] or "not both" in r.json()["error"], r.text


def app_policy(client):
    return client.app.state.policy


def test_replays_are_paged_and_capped(client):
    t5, rec = _a_record(client)
    f = f"{t5['name']}/{t5['records'][0]}"
    whole = client.get(f"/api/replay?file={f}&count=200").json()
    assert whole["total_frames"] == len(rec["actions"]) + 1 == len(whole["frames"])
    pages = []
    for start in range(0, whole["total_frames"], 7):
        page = client.get(f"/api/replay?file={f}&start={start}&count=7").json()
        assert page["start"] == start and len(page["frames"]) <= 7
        pages += page["frames"]
    assert pages == whole["frames"]
    assert client.get(f"/api/replay?file={f}&count=201").status_code == 400
    assert client.get(f"/api/replay?file={f}&start={whole['total_frames']}").status_code == 416
    long = dict(rec, actions=[0] * 99_000)  # a 99,000-action record: refused before any replay
    r = client.post("/api/replay", json={"text": records.dumps(long)})
    assert r.status_code == 413 and f"at most {MAX_REPLAY_STEPS} actions" in r.json()["error"]
    body = records.dumps(rec)
    r = client.post("/api/replay", json={"text": body, "count": 3})
    assert r.status_code == 200 and len(r.json()["frames"]) == 3


# --- runs, files, replays ---------------------------------------------------------------------------------

def test_runs_listing_and_detail(client, runs_dir):
    runs = client.get("/api/runs").json()["runs"]
    names = {r["name"]: r for r in runs}
    t5 = next(r for n, r in names.items() if n.startswith("tournament__take5"))
    assert t5["kind"] == "tournament" and t5["game"] == "take5" and len(t5["records"]) == 4
    assert "ratings.png" in t5["plots"]
    d = client.get(f"/api/runs/{t5['name']}").json()
    assert d["summary"]["entrants"] and d["config"]["game"] == "take5"
    tr = client.get(f"/api/runs/{TRAIN_RUN}").json()
    assert tr["curves"][0]["decisions"] == "100000" and tr["curves"][-1]["win_mean"] and tr["checkpoint"]
    assert tr["summary"]["throughput"]["decisions_per_s"] > 0 and tr["plots"] == ["curves.png"]
    png = client.get(f"/files/{t5['name']}/ratings.png")
    assert png.status_code == 200 and png.content.startswith(b"\x89PNG")
    for bad in ["nope", "%2e%2e", "..%2f..", "%2e%2e%2f%2e%2e", "x%2f..%2f..%2fetc", "link_out"]:
        r = client.get(f"/api/runs/{bad}")
        assert r.status_code == 404 and r.json()["error"], bad


@pytest.mark.parametrize("path", [
    "../secret.txt", "..%2fsecret.txt", "%2e%2e/secret.txt", "%2e%2e%2fsecret.txt", "a/../../secret.txt",
    "/etc/passwd", "%2fetc%2fpasswd", "..\\secret.txt", "link_out/secret.txt", "nothing.png", "", "%00",
])
def test_files_traversal_is_404(client, runs_dir, path):
    assert os.path.isfile(os.path.join(os.path.dirname(runs_dir), "secret.txt"))
    r = client.get(f"/files/{path}")
    assert r.status_code == 404, (path, r.status_code)
    assert "secret" not in r.text or "no file" in r.text
    r = client.get(f"/api/replay?file={path}")
    assert r.status_code == 404, path


def test_static_traversal_is_404(client):
    for path in ["/static/../app.py", "/static/%2e%2e/app.py", "/static/..%2fapp.py"]:
        r = client.get(path)
        assert r.status_code == 404 and "create_app" not in r.text, path
    for q in ("run=..&game=x", "run=a/b&game=c", "run=x&game=..%2f..%2fsecret", f"run={TRAIN_RUN}&game=../../secret"):
        assert client.get(f"/api/replay?{q}").status_code == 404, q


def test_replay_from_a_run_and_from_an_upload(client, runs_dir):
    t5, rec = _a_record(client)
    f = f"{t5['name']}/{t5['records'][0]}"
    d = client.get(f"/api/replay?file={f}&count=200").json()
    assert len(d["frames"]) == len(rec["actions"]) + 1
    assert d["frames"][-1]["view"]["scores"] == rec["final"]["scores"]
    assert all(len(fr["view"]["hands"]) == 2 for fr in d["frames"])  # from above: every hand
    by_name = client.get(f"/api/replay?run={t5['name']}&game={t5['records'][0][8:-6]}&count=200").json()
    assert by_name["frames"] == d["frames"]
    with open(os.path.join(runs_dir, f), encoding="utf-8") as fh:
        text = fh.read()
    up = client.post("/api/replay", json={"text": text, "count": 200}).json()
    assert up["frames"] == d["frames"] and [r["frame"] for r in up["rounds"]] == [0]
    fa = next(r for r in client.get("/api/runs").json()["runs"] if r["name"].startswith("tournament__five_alive"))
    d = client.get(f"/api/replay?file={fa['name']}/{fa['records'][1]}&index=0&count=200").json()
    assert d["game"] == "five_alive" and (d["total_frames"] > 200 or d["frames"][-1]["view"]["over"])


def test_bad_replays(client, runs_dir):
    t5, rec = _a_record(client)
    edited = dict(rec, actions=list(rec["actions"]))
    edited["actions"][3] = edited["actions"][2]
    cases = [
        (json.dumps(edited), 422, "step 3: action"),
        (json.dumps(dict(rec, version=9)), 422, "version: expected one of [1, 2]"),
        (json.dumps(dict(rec, config={**rec["config"], "bogus": 1})), 422, "unknown config field 'bogus'"),
        ("not json", 422, "not valid JSON"),
        ("", 422, "expected at least one JSON line"),
    ]
    for text, status, message in cases:
        r = client.post("/api/replay", json={"text": text})
        assert r.status_code == status and message in r.json()["error"], r.text
    assert client.post("/api/replay", content=json.dumps(rec).encode(), headers={"Content-Type": "text/plain"}).status_code == 415
    assert client.post("/api/replay", json={"text": json.dumps(rec), "index": 5}).status_code == 404
    assert client.get("/api/replay").status_code == 404
    assert client.get(f"/api/replay?file={t5['name']}/summary.json").status_code == 422


def test_unknown_routes_and_methods_are_4xx(client):
    assert client.get("/api/nothing").status_code == 404
    assert client.put("/api/games").status_code == 405
    assert client.get("/api/games/zzz").status_code == 404
    assert client.post("/api/games/zzz/act", json={"action": 1, "step": 0}).status_code == 404
    assert client.get("/api/games/zzz/record").status_code == 404


def test_cli_binds_localhost_by_default():
    from fiveplay_env.experiments.web.__main__ import build_parser, main

    args = build_parser().parse_args([])
    assert args.host == "127.0.0.1" and args.port == 8000 and args.runs == "runs" and args.allow_agent == []
    assert main(["--port", "0"]) == 2 and main(["--max-games", "0"]) == 2 and main(["--per-client", "0"]) == 2
    assert main(["--allow-agent", "os:abort"]) == 2  # the operator's names are checked, and not called


def test_bench_script_runs_bounded_on_localhost():
    from fiveplay_env.experiments.web import bench

    out = bench.main(["--bots", "random", "--moves", "2", "--games", "6", "--clients", "2"])
    assert out["url"].startswith("http://127.0.0.1:")
    assert [r["game"] for r in out["latency"]] == ["take5", "five_alive", "toybid"]  # every served game
    assert out["load"]["game"] == "take5"
    assert out["load"]["games_held"] == 6 and out["load"]["failures"] == 0
