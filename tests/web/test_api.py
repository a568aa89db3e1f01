"""The web app's HTTP API: every endpoint, bad input (4xx with a message, never 500), path traversal,
what a seat may see, failing bots, several games at once."""
from __future__ import annotations

import json
import os
import random

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from agents.base import Agent  # noqa: E402
from agents.registry import register_prefix  # noqa: E402
from experiments.web import views  # noqa: E402
from experiments.web.app import create_app  # noqa: E402
from fiveplay_env import records  # noqa: E402
from tests.web.util import make_runs  # noqa: E402


@pytest.fixture(scope="module")
def runs_dir(tmp_path_factory):
    return make_runs(str(tmp_path_factory.mktemp("runs")))


@pytest.fixture()
def client(runs_dir):
    with TestClient(create_app(runs_dir, max_games=8), raise_server_exceptions=False) as c:
        yield c


def new_game(client, **body):
    body.setdefault("game", "take5")
    body.setdefault("config", {"mode": "round"})
    body.setdefault("seat", 0)
    if "bots" not in body:
        n = body["config"].get("num_players", 4)
        body["bots"] = ["take5-safest" if body["game"] == "take5" else "five-alive-attacker"] * (n - 1)
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def play_out(client, snap, pick=lambda legal: legal[0]):
    while not snap["over"]:
        assert snap["your_turn"] and snap["legal"]
        r = client.post(f"/api/games/{snap['id']}/act", json={"action": pick(snap["legal"])})
        assert r.status_code == 200, r.text
        snap = r.json()
    return snap


def test_index_static_and_meta(client):
    r = client.get("/")
    assert r.status_code == 200 and "<title>fiveplay</title>" in r.text
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/style.css").status_code == 200
    meta = client.get("/api/meta").json()
    assert set(meta["games"]) == {"take5", "five_alive"}
    assert meta["games"]["take5"]["defaults"]["num_players"] == 4
    assert "take5-safest" in meta["games"]["take5"]["agents"]
    assert len(meta["take5_bullheads"]) == 104 and meta["take5_bullheads"][54] == 7
    assert meta["five_alive_kinds"][18] == "BUST"


def test_whole_take5_game_and_its_record(client):
    snap = new_game(client, seed=5)
    assert snap["names"][0] == "you" and snap["view"]["hands"].keys() == {"0"}
    gid = snap["id"]
    snap = play_out(client, snap)
    assert snap["view"]["over"] and snap["view"]["winners"]
    types = [e["type"] for e in client.get(f"/api/games/{gid}").json()["events"]]
    assert types.count("reveal") == 10 and types.count("place") == 40 and types[-2:] == ["round_end", "game_over"]
    # the game's record replays to the same scores
    rec = records.parse_records(client.get(f"/api/games/{gid}/record").text)[0]
    assert records.replay(rec).engine.state.scores == snap["view"]["scores"]
    # events since an index
    part = client.get(f"/api/games/{gid}?since=5").json()
    assert part["event_base"] == 5 and len(part["events"]) == len(types) - 5


def test_whole_five_alive_game(client):
    snap = new_game(client, game="five_alive", config={"num_players": 3}, seat=2, seed=11)
    snap = play_out(client, snap, pick=lambda legal: legal[-1])
    v = snap["view"]
    assert v["over"] and v["winners"]
    assert any(e["type"] == "play" and "played" in e["text"] or "bust" in e["text"] for e in snap["events"])


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
    draw pile's order) leaves everything the server sends unchanged."""
    app_store = client.app.state.store
    snap = new_game(client, game=game, config={"num_players": 4} if game == "five_alive" else {"mode": "round"},
                    seat=2, seed=3)
    rng = random.Random(0)
    checks = 0
    while not snap["over"]:
        session = app_store.get(snap["id"])
        real = session.engine.state
        for _ in range(3):
            permute = _hidden_permuted_take5 if game == "take5" else _hidden_permuted_five_alive
            session.engine.state = permute(real, 2, rng)
            other = client.get(f"/api/games/{snap['id']}").json()
            session.engine.state = real
            same = client.get(f"/api/games/{snap['id']}").json()
            assert other == same
            checks += 1
        assert set(same["view"]["hands"]) == {"2"}
        assert "draw" not in same["view"] and "set_aside" not in same["view"]
        snap = client.post(f"/api/games/{snap['id']}/act", json={"action": snap["legal"][0]}).json()
    assert checks >= 9


def test_take5_chose_events_never_name_the_card(client):
    snap = new_game(client, seat=3, seed=1)  # seats 0..2 choose before the human
    chose = [e for e in snap["events"] if e["type"] == "chose"]
    assert len(chose) == 3 and all(set(e) == {"type", "player", "text"} for e in chose)


@pytest.mark.parametrize("body, message", [
    ({"game": "chess", "seat": 0, "bots": []}, "game: expected one of"),
    ({"game": "take5", "config": {"colour": 1}, "seat": 0, "bots": ["random"] * 3}, "unknown config field 'colour'"),
    ({"game": "take5", "config": {"num_players": 99}, "seat": 0, "bots": []}, "num_players: expected an integer in 2..10"),
    ({"game": "take5", "config": "x", "seat": 0, "bots": []}, "config: expected an object"),
    ({"game": "take5", "seat": 7, "bots": ["random"] * 3}, "seat: expected an integer in 0..3"),
    ({"game": "take5", "seat": "0", "bots": ["random"] * 3}, "seat: expected an integer"),
    ({"game": "take5", "seat": 0, "bots": ["random"]}, "bots: expected a list of 3 agent names"),
    ({"game": "take5", "seat": 0, "bots": ["random", "nobody", "random"]}, "bots[1] (seat 2): agent name: expected one of"),
    ({"game": "take5", "seat": 0, "bots": ["random"] * 3, "seed": -4}, "seed: expected an integer >= 0"),
    ({"game": "take5", "seat": 0, "bots": ["random"] * 3, "speed": 1}, "unknown field 'speed'"),
    ({"game": "five_alive", "seat": 0, "bots": ["ismcts:sims=-1"] * 3}, "bots[0] (seat 1)"),
])
def test_new_game_bad_input(client, body, message):
    r = client.post("/api/games", json=body)
    assert r.status_code == 400 and message in r.json()["error"], r.text


@pytest.mark.parametrize("raw", [b"", b"{oops", b"[1, 2]", b"\xff\xfe"])
def test_malformed_bodies(client, raw):
    r = client.post("/api/games", content=raw)
    assert r.status_code == 400 and r.json()["error"].startswith("body: expected a JSON object")
    snap = new_game(client)
    r = client.post(f"/api/games/{snap['id']}/act", content=raw)
    assert r.status_code == 400 and "body: expected a JSON object" in r.json()["error"]


def test_illegal_and_untimely_moves_are_refused(client):
    snap = new_game(client, seed=2)
    gid = snap["id"]
    hand = snap["view"]["hands"]["0"]
    not_mine = next(c for c in range(1, 105) if c not in hand)
    for action, status, message in [
        (not_mine - 1, 400, f"illegal move: card {not_mine} is not playable now"),
        (104, 400, "illegal move: row 1 is not playable now"),
        (999, 400, "illegal move: action 999"),
        ("5", 400, "action: expected an integer action id"),
        (True, 400, "action: expected an integer action id"),
        (None, 400, "action: expected an integer action id"),
    ]:
        r = client.post(f"/api/games/{gid}/act", json={"action": action})
        assert r.status_code == status and message in r.json()["error"], r.text
    assert client.post(f"/api/games/{gid}/act", json={}).status_code == 400
    assert client.get(f"/api/games/{gid}").json()["view"] == snap["view"]  # nothing changed
    snap = play_out(client, snap)
    r = client.post(f"/api/games/{gid}/act", json={"action": 0})
    assert r.status_code == 409 and "over" in r.json()["error"]


def test_five_alive_unplayable_card_is_refused(client):
    for seed in range(40):
        snap = new_game(client, game="five_alive", config={"num_players": 2}, bots=["random"], seed=seed)
        hand = snap["view"]["hands"]["0"]
        bad = [k for k in range(19) if k not in snap["legal"] and (k == 18 or hand[k] > 0)]
        client.delete(f"/api/games/{snap['id']}")
        if bad:
            client.post("/api/games", json={})  # a bad request between does not disturb anything
            snap = new_game(client, game="five_alive", config={"num_players": 2}, bots=["random"], seed=seed)
            r = client.post(f"/api/games/{snap['id']}/act", json={"action": bad[0]})
            assert r.status_code == 400 and "is not playable now" in r.json()["error"]
            client.delete(f"/api/games/{snap['id']}")
            return
    pytest.fail("no deal with an unplayable card in 40 seeds")


class Boom(Agent):
    def act(self, observation, action_mask):
        raise RuntimeError("kaboom")


register_prefix("boomtest", lambda rest, game, seed: Boom(seed))


def test_a_failing_bot_ends_only_its_game(client):
    ok = new_game(client, seed=1)
    r = client.post("/api/games", json={"game": "take5", "config": {"mode": "round"}, "seat": 1,
                                        "bots": ["boomtest:x", "random", "random"]})
    assert r.status_code == 201  # the game starts; its first bot fails at once
    bad = r.json()
    assert bad["over"] and "kaboom" in bad["error"] and "seat 0" in bad["error"]
    assert bad["events"][-1]["type"] == "error"
    r = client.post(f"/api/games/{bad['id']}/act", json={"action": bad["view"]["hands"]["1"][0] - 1})
    assert r.status_code == 409 and "ended with an error" in r.json()["error"]
    # the server keeps serving the other game
    assert play_out(client, ok)["view"]["over"]


def test_several_games_at_once_and_the_limit(client):
    ids = [new_game(client, seed=s)["id"] for s in range(8)]
    assert set(ids) <= set(client.get("/api/games").json()["games"])
    r = client.post("/api/games", json={"game": "take5", "config": {"mode": "round"}, "seat": 0, "bots": ["random"] * 3})
    assert r.status_code == 429 and "too many games at once (limit 8)" in r.json()["error"]
    # moves in different games do not interfere
    snaps = {g: client.get(f"/api/games/{g}").json() for g in ids}
    for g in ids:
        client.post(f"/api/games/{g}/act", json={"action": snaps[g]["legal"][0]})
    for g in ids:
        assert client.get(f"/api/games/{g}").json()["view"]["hand_sizes"][0] == 9
    assert client.delete(f"/api/games/{ids[0]}").status_code == 200
    assert client.delete(f"/api/games/{ids[0]}").status_code == 404
    assert client.get(f"/api/games/{ids[0]}").status_code == 404
    assert client.post("/api/games", json={"game": "take5", "config": {"mode": "round"}, "seat": 0,
                                           "bots": ["random"] * 3}).status_code == 201
    assert client.get(f"/api/games/{ids[1]}?since=x").status_code == 400
    assert client.get(f"/api/games/{ids[1]}?since=-1").status_code == 400
    for g in client.get("/api/games").json()["games"]:
        client.delete(f"/api/games/{g}")


def test_runs_listing_and_detail(client, runs_dir):
    runs = client.get("/api/runs").json()["runs"]
    names = {r["name"]: r for r in runs}
    t5 = next(r for n, r in names.items() if n.startswith("tournament__take5"))
    assert t5["kind"] == "tournament" and t5["game"] == "take5" and len(t5["records"]) == 4
    assert "ratings.png" in t5["plots"]
    d = client.get(f"/api/runs/{t5['name']}").json()
    assert d["summary"]["entrants"] and d["config"]["game"] == "take5"
    tr = names["train__take5__0__x"]
    assert client.get("/api/runs/train__take5__0__x").json()["curves"][0]["decisions"] == "100"
    assert tr["plots"] == ["curves.png"]
    png = client.get(f"/files/{t5['name']}/ratings.png")
    assert png.status_code == 200 and png.content.startswith(b"\x89PNG")
    for bad in ["nope", "%2e%2e", "..%2f..", "%2e%2e%2f%2e%2e", "x%2f..%2f..%2fetc", "link_out"]:
        r = client.get(f"/api/runs/{bad}")
        assert r.status_code == 404 and r.json()["error"], bad  # a clear message (the client may normalize '..')


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


def test_replay_from_a_run_and_from_an_upload(client, runs_dir):
    t5 = next(r for r in client.get("/api/runs").json()["runs"] if r["name"].startswith("tournament__take5"))
    f = f"{t5['name']}/{t5['records'][0]}"
    d = client.get(f"/api/replay?file={f}").json()
    rec = records.read_records(os.path.join(runs_dir, f))[0]
    assert len(d["frames"]) == len(rec["actions"]) + 1
    assert d["frames"][-1]["view"]["scores"] == rec["final"]["scores"]
    assert all(len(fr["view"]["hands"]) == 2 for fr in d["frames"])  # from above: every hand
    with open(os.path.join(runs_dir, f), encoding="utf-8") as fh:
        text = fh.read()
    up = client.post("/api/replay", content=text.encode()).json()
    assert up["frames"] == d["frames"]
    fa = next(r for r in client.get("/api/runs").json()["runs"] if r["name"].startswith("tournament__five_alive"))
    d = client.get(f"/api/replay?file={fa['name']}/{fa['records'][1]}&index=0").json()
    assert d["game"] == "five_alive" and d["frames"][-1]["view"]["over"]


def test_bad_replays(client, runs_dir):
    t5 = next(r for r in client.get("/api/runs").json()["runs"] if r["name"].startswith("tournament__take5"))
    with open(os.path.join(runs_dir, t5["name"], t5["records"][0]), encoding="utf-8") as fh:
        rec = json.loads(fh.read())
    edited = dict(rec, actions=list(rec["actions"]))
    edited["actions"][3] = edited["actions"][2]
    cases = [
        (json.dumps(edited), 422, "step 3: action"),
        (json.dumps(dict(rec, version=9)), 422, "version: expected one of [1, 2]"),
        (json.dumps(dict(rec, config={**rec["config"], "bogus": 1})), 422, "unknown config field 'bogus'"),
        ("not json", 422, "upload line 1: not valid JSON"),
        ("", 422, "expected at least one JSON line"),
    ]
    for text, status, message in cases:
        r = client.post("/api/replay", content=text.encode())
        assert r.status_code == status and message in r.json()["error"], r.text
    assert client.post("/api/replay", content=b"\xff\xfe").status_code == 400
    assert client.post("/api/replay?index=5", content=json.dumps(rec).encode()).status_code == 404
    assert client.post("/api/replay?index=abc", content=json.dumps(rec).encode()).status_code == 400
    assert client.get("/api/replay").status_code == 404
    assert client.get(f"/api/replay?file={t5['name']}/summary.json").status_code == 422


def test_unknown_routes_and_methods_are_4xx(client):
    assert client.get("/api/nothing").status_code == 404
    assert client.put("/api/games").status_code == 405
    assert client.get("/api/games/zzz").status_code == 404
    assert client.post("/api/games/zzz/act", json={"action": 1}).status_code == 404
    assert client.get("/api/games/zzz/record").status_code == 404


def test_cli_binds_localhost_by_default():
    from experiments.web.__main__ import build_parser, main

    args = build_parser().parse_args([])
    assert args.host == "127.0.0.1" and args.port == 8000 and args.runs == "runs"
    assert main(["--port", "0"]) == 2 and main(["--max-games", "0"]) == 2


def test_bench_script_runs_bounded_on_localhost():
    from experiments.web import bench

    out = bench.main(["--bots", "random", "--moves", "2", "--games", "6", "--clients", "2"])
    assert out["url"].startswith("http://127.0.0.1:")
    assert [r["game"] for r in out["latency"]] == ["take5", "five_alive"]
    assert out["load"]["games_held"] == 6 and out["load"]["failures"] == 0
