"""Web games private to the client that played them unless shared, saved games bounded per client and in
all, and a full game store that no address's idle clients lock (issue 53, item 3: audit points 4 and 5)."""
from __future__ import annotations

import os

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from fiveplay_env.experiments.web.app import create_app  # noqa: E402
from fiveplay_env.experiments.web.saved import ACCESS_SUFFIX  # noqa: E402
from fiveplay_env import records  # noqa: E402


def _client(app, addr="127.0.0.1"):
    return TestClient(app, base_url="http://127.0.0.1", client=(addr, 5000), raise_server_exceptions=False)


def _new(c, cid, seed, **extra):
    body = {"game": "take5", "config": {"mode": "round", "num_players": 2}, "seat": 0, "bots": ["random"],
            "seed": seed, **extra}
    return c.post("/api/games", json=body, headers={"X-Client": cid})


def _finish(c, cid, seed):
    """A whole 2-player round of Take 5 against a random bot: its final snapshot."""
    r = _new(c, cid, seed)
    assert r.status_code == 201, r.text
    snap = r.json()
    h = {"X-Game-Token": snap["token"], "X-Client": cid}
    while not snap["over"]:
        if snap["pending"]:
            r = c.post(f"/api/games/{snap['id']}/advance", json={"step": snap["steps"]}, headers=h)
        else:
            r = c.post(f"/api/games/{snap['id']}/act", json={"action": snap["legal"][0], "step": snap["steps"]}, headers=h)
        assert r.status_code == 200, r.text
        snap = r.json()
    assert snap["saved"] and "run" in snap["saved"], snap["saved"]
    return dict(snap, token=h["X-Game-Token"])


def _listed(c, cid):
    runs = c.get("/api/runs", headers={"X-Client": cid}).json()["runs"]
    return {f"{r['name']}/{f}" for r in runs for f in r["records"]}


def _rel(saved):
    return f"{saved['run']}/records/{saved['game']}.jsonl"


# --- point 4: finished web games were public to every client ---------------------------------------------

def test_a_finished_game_is_listed_and_replayed_only_for_its_player(tmp_path):
    """The audit's reproducer: /api/runs and /api/replay listed and replayed any client's saved games
    (seat, seed, moves, the bots' thoughts). Now another client (same address, another id; or another
    address) gets the same 404 as for a game that does not exist, by every route."""
    app = create_app(str(tmp_path))
    alice, eve = _client(app), _client(app, "10.0.0.9")
    snap = _finish(alice, "alice", 987654321987)
    saved, rel = snap["saved"], _rel(snap["saved"])
    assert rel in _listed(alice, "alice")
    by_name = f"/api/replay?run={saved['run']}&game={saved['game']}"
    assert alice.get(by_name, headers={"X-Client": "alice"}).status_code == 200
    assert alice.get(f"/api/replay?file={rel}", headers={"X-Client": "alice"}).status_code == 200
    for c, cid in ((alice, "mallory"), (alice, ""), (eve, "alice"), (eve, "")):
        h = {"X-Client": cid} if cid else {}
        assert rel not in _listed(c, cid) and saved["run"] not in c.get("/api/runs", headers=h).text
        for path in (by_name, f"/api/replay?file={rel}", f"/api/replay?file={saved['run']}/records/../records/"
                     f"{saved['game']}.jsonl", f"/api/runs/{saved['run']}", f"/files/{rel}",
                     f"/files/{rel[:-6]}{ACCESS_SUFFIX}", f"/files/{saved['run']}/config.json"):
            r = c.get(path, headers=h)
            assert r.status_code == 404 and snap["seed"] not in r.text and "frames" not in r.text, (cid, path, r.status_code)
    # the player still reaches its game through its token while the server holds it
    assert alice.get(f"/api/games/{snap['id']}/record", headers={"X-Game-Token": snap["token"]}).status_code == 200


def test_a_share_link_grants_read_access_to_one_game_and_can_be_revoked(tmp_path):
    app = create_app(str(tmp_path))
    c = _client(app)
    a1, a2 = _finish(c, "alice", 1)["saved"], _finish(c, "alice", 2)["saved"]
    assert c.post("/api/share", json=a1, headers={"X-Client": "bob"}).status_code == 404  # not bob's to share
    r = c.post("/api/share", json=a1, headers={"X-Client": "alice"})
    assert r.status_code == 200, r.text
    token = r.json()["share"]
    assert len(token) >= 32 and r.json()["replay"] == f"/api/replay?share={token}"
    page = c.get(f"/api/replay?share={token}&count=5", headers={"X-Client": "bob"})
    assert page.status_code == 200 and page.json()["start"] == 0 and len(page.json()["frames"]) == 5
    assert c.get(f"/api/replay?share={token}&start=5&count=5").status_code == 200  # no client id needed
    # the link is for that one game: not the owner's other games, not its listing, not by name
    assert _rel(a1) not in _listed(c, "bob") and _rel(a2) not in _listed(c, "bob")
    assert c.get(f"/api/replay?share={token}&run={a2['run']}&game={a2['game']}").status_code == 404
    assert c.get(f"/api/replay?run={a1['run']}&game={a1['game']}", headers={"X-Client": "bob"}).status_code == 404
    for guess in ("", "x", token[:-1], token + "A", token[:-1] + ("A" if token[-1] != "A" else "B"), "A" * 32):
        assert c.get(f"/api/replay?share={guess}").status_code == 404, guess
    # sharing again replaces the link; unsharing revokes it
    token2 = c.post("/api/share", json=a1, headers={"X-Client": "alice"}).json()["share"]
    assert token2 != token and c.get(f"/api/replay?share={token}").status_code == 404
    assert c.get(f"/api/replay?share={token2}").status_code == 200
    assert c.request("DELETE", "/api/share", json=a1, headers={"X-Client": "bob"}).status_code == 404
    assert c.request("DELETE", "/api/share", json=a1, headers={"X-Client": "alice"}).status_code == 200
    assert c.get(f"/api/replay?share={token2}").status_code == 404
    # ownership and links survive a restart (the access files beside the records)
    token3 = c.post("/api/share", json=a2, headers={"X-Client": "alice"}).json()["share"]
    again = _client(create_app(str(tmp_path)))
    assert {_rel(a1), _rel(a2)} <= _listed(again, "alice") and not _listed(again, "bob")
    assert again.get(f"/api/replay?share={token3}").status_code == 200
    access = open(os.path.join(tmp_path, _rel(a2)[:-6] + ACCESS_SUFFIX), encoding="utf-8").read()
    assert "alice" not in access and token3 not in access  # hashes only
    for bad in ({}, {"run": a1["run"]}, {"run": 1, "game": a1["game"]}, {"run": "..", "game": "x"},
                {"run": a1["run"], "game": a1["game"], "x": 1}):
        r = c.post("/api/share", json=bad, headers={"X-Client": "alice"})
        assert 400 <= r.status_code < 500 and r.json()["error"], bad


def test_records_saved_before_owners_were_kept_are_private_and_other_runs_stay_public(tmp_path):
    app = create_app(str(tmp_path))
    c = _client(app)
    saved = _finish(c, "alice", 3)["saved"]
    os.remove(os.path.join(tmp_path, _rel(saved)[:-6] + ACCESS_SUFFIX))  # as an older version saved it
    rec = records.read_records(os.path.join(tmp_path, _rel(saved)))[0]
    tour = os.path.join(tmp_path, "tournament__take5__0__20260101-000000")
    os.makedirs(os.path.join(tour, "records"))
    with open(os.path.join(tour, "config.json"), "w", encoding="utf-8") as f:
        f.write('{"game": "take5"}')
    records.write_records(os.path.join(tour, "records", "g.jsonl"), [rec])
    os.symlink(os.path.join(tmp_path, saved["run"]), os.path.join(tmp_path, "tournament__take5__0__20260101-000001"))
    again = _client(create_app(str(tmp_path)))
    for cid in ("alice", "bob"):
        assert _listed(again, cid) == {"tournament__take5__0__20260101-000000/records/g.jsonl"}
        assert again.get(f"/api/replay?run={saved['run']}&game={saved['game']}", headers={"X-Client": cid}).status_code == 404
        link = f"/api/replay?file=tournament__take5__0__20260101-000001/records/{saved['game']}.jsonl"
        assert again.get(link, headers={"X-Client": cid}).status_code == 404  # a link into a web run folder
    assert again.get("/api/replay?run=tournament__take5__0__20260101-000000&game=g").status_code == 200


# --- point 4: saving was unbounded -----------------------------------------------------------------------

def test_saved_games_are_bounded_per_client_by_deleting_its_own_oldest(tmp_path):
    """The audit's reproducer: one client wrote 33 records a second, without bound. Now a client keeps at
    most ``saved_per_client``: its own oldest go first, never another client's."""
    app = create_app(str(tmp_path), saved_per_client=3)
    c = _client(app)
    bob = _finish(c, "bob", 99)["saved"]
    mine = [_finish(c, "alice", s)["saved"] for s in range(5)]
    assert _listed(c, "alice") == {_rel(s) for s in mine[2:]}
    for s in mine[:2]:
        assert not os.path.exists(os.path.join(tmp_path, _rel(s)))
        assert not os.path.exists(os.path.join(tmp_path, _rel(s)[:-6] + ACCESS_SUFFIX))
    assert _listed(c, "bob") == {_rel(bob)} and app.state.saved.count(("127.0.0.1", "alice")) == 3


def test_past_the_total_a_game_is_not_saved_and_its_snapshot_names_the_limit(tmp_path):
    app = create_app(str(tmp_path), saved_per_client=10, saved_total=3)
    c = _client(app)
    kept = [_finish(c, f"c{k}", k)["saved"] for k in range(3)]
    r = _new(c, "late", 7)
    snap, h = r.json(), {"X-Game-Token": r.json()["token"]}
    while not snap["over"]:
        snap = c.post(f"/api/games/{snap['id']}/act", json={"action": snap["legal"][0], "step": snap["steps"]},
                      headers=h).json()
    assert "run" not in snap["saved"] and "at most 3 saved web games" in snap["saved"]["error"]
    assert c.get(f"/api/games/{snap['id']}/record", headers=h).status_code == 200  # still downloadable
    for k, s in enumerate(kept):  # nobody else's game went
        assert _listed(c, f"c{k}") == {_rel(s)}
    # a client at its own bound makes room from its own games even when the server is full
    app2 = create_app(str(tmp_path / "b"), saved_per_client=1, saved_total=2)
    c2 = _client(app2)
    first = _finish(c2, "x", 1)["saved"]
    _finish(c2, "y", 2)
    second = _finish(c2, "x", 3)["saved"]
    assert _listed(c2, "x") == {_rel(second)} and first != second


# --- point 5: a full game store locked an address out ----------------------------------------------------

def test_sixty_four_client_ids_of_one_address_lock_it_out_only_until_their_games_are_idle(tmp_path):
    """The audit's reproducer: one local process with 64 client ids got every new client of that address a
    503 for up to 120 minutes (the idle expiry). Now the 503 says when to come back (Retry-After, at most
    ``reclaim_s``), and a game idle that long is replaced by the new client's."""
    app = create_app(str(tmp_path), max_games=64, per_client=8, reclaim_s=600.0)
    c = _client(app)
    held = [_new(c, f"m{k}", 100 + k).json() for k in range(64)]
    r = _new(c, "newcomer", 1)
    assert r.status_code == 503 and "try again in" in r.json()["error"]
    assert 1 <= int(r.headers["Retry-After"]) <= 600
    store = app.state.store
    sessions = sorted(store._sessions.values(), key=lambda s: s.used)
    sessions[0].used -= 601  # the least recently used of them idle past reclaim_s
    r = _new(c, "newcomer", 1)
    assert r.status_code == 201 and r.json()["dropped"] == [sessions[0].id]
    assert _new(c, "newcomer2", 2).status_code == 503  # the others are still in play
    kept = [g for g in held if g["id"] != sessions[0].id]
    assert all(c.get(f"/api/games/{g['id']}", headers={"X-Game-Token": g["token"]}).status_code == 200 for g in kept)


def test_a_finished_saved_game_makes_room_first_and_its_record_stays(tmp_path):
    app = create_app(str(tmp_path), max_games=4, per_client=4)
    c = _client(app)
    done = _finish(c, "alice", 1)
    playing = [_new(c, f"p{k}", 10 + k).json() for k in range(3)]
    r = _new(c, "newcomer", 5)
    assert r.status_code == 201 and r.json()["dropped"] == [done["id"]]
    assert _rel(done["saved"]) in _listed(c, "alice")  # nothing lost: the record is listed for its owner
    assert all(c.get(f"/api/games/{g['id']}", headers={"X-Game-Token": g["token"]}).status_code == 200 for g in playing)
    # another address's games in play are never reclaimed by idleness: only over its share
    other = _client(app, "10.0.0.7")
    for s in app.state.store._sessions.values():
        s.used -= 3600
    r = _new(other, "o", 1)  # 127.0.0.1 holds 4 > 4 // 2: one of its games goes, by share, not by idleness
    assert r.status_code == 201 and len(r.json()["dropped"]) == 1
    assert _new(other, "o2", 2).status_code == 201  # (3 > 2 still)
    # now each address holds its share (2): 127.0.0.1's games, idle an hour, are not another address's to take
    assert _new(other, "o3", 3).status_code == 503 and len(app.state.store) == 4
