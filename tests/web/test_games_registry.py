"""The web app knows games only through the game table and each game's web view (``fiveplay_env.experiments.web.games``):
its game list, presets, choices and bot preferences come from the registered games; the toy game of
``tests/toy_game`` (registered for the whole test session by ``tests/conftest.py``, with no web module) is
served by the generic view, plays to the end, replays and shows what its seat may see only; and no file of
``experiments/web/`` names a game except the files named after that game."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from fiveplay_env.agents import games as agent_games  # noqa: E402
from fiveplay_env.experiments.web import games as web_views  # noqa: E402
from fiveplay_env.experiments.web.app import STATIC_DIR, create_app  # noqa: E402
from fiveplay_env import games  # noqa: E402
from tests.toy_game import GAME as TOY  # noqa: E402

WEB = Path(__file__).resolve().parents[2] / "experiments" / "web"
SCANNED = (".py", ".js", ".html")


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    runs = tmp_path_factory.mktemp("registry_runs")
    return TestClient(create_app(str(runs)), base_url="http://127.0.0.1")


def _play_out(client, snap):
    token = {"X-Game-Token": snap["token"]}
    while not snap["over"]:
        if snap["pending"]:
            r = client.post(f"/api/games/{snap['id']}/advance", json={"step": snap["steps"]}, headers=token)
        else:
            r = client.post(f"/api/games/{snap['id']}/act", json={"action": snap["legal"][0], "step": snap["steps"]},
                            headers=token)
        assert r.status_code == 200, r.text
        snap = dict(r.json(), token=snap["token"])
    return snap


def test_the_game_list_and_the_new_game_panel_come_from_the_registered_games(client):
    meta = client.get("/api/meta").json()
    assert list(meta["games"]) == list(games.table()) == web_views.served()  # every game, in the table's order
    assert "toybid" in meta["games"] and TOY.name == "toybid"
    for name, entry in meta["games"].items():
        g, v = games.get(name), web_views.view(name)
        assert entry["title"] == g.title and entry["players"] == [g.spec.min_players, g.spec.max_players]
        assert entry["dynamics"] == g.dynamics and entry["choices"] == dict(v.choices)
        # the presets are the game definition's, with its labels; the web view only orders them
        ids = [p["id"] for p in entry["presets"]]
        assert sorted(ids) == sorted(g.presets) and ids[0] == (g.quick_preset or next(iter(g.presets)))
        for p in entry["presets"]:
            assert p["label"] == g.preset_label(p["id"]) and p["config"] == g.config_dict(g.presets[p["id"]])
        assert entry["view"]["kind"] == v.kind and entry["view"]["script"] == v.script
        heuristics = {b["name"] for b in entry["bots"] if b["group"] == "Heuristics"}
        assert heuristics == set(agent_games.kit(name).heuristics)  # the game's kit, not a copy
    toy = meta["games"]["toybid"]
    assert toy["view"] == {"kind": "generic", "script": None, "bot_family": [], "options": {}} and toy["choices"] == {}
    assert [p["id"] for p in toy["presets"]] == ["standard", "three"]
    assert {b["name"] for b in toy["bots"]} >= {"random", "ismcts:sims=50"}
    assert meta["games"]["take5"]["presets"][0]["config"]["mode"] == "round"  # its quick preset first: one round


def test_a_game_without_a_web_module_is_played_replayed_and_explained_by_the_generic_view(client):
    r = client.post("/api/games", json={"game": "toybid", "config": {"num_players": 3}, "seat": 1,
                                        "bots": ["random", "ismcts:sims=20"], "seed": 3})
    assert r.status_code == 201, r.text
    snap = r.json()
    v = snap["view"]
    assert v["num_players"] == 3 and v["over"] is False and v["outcome"] is None
    assert len(v["observation"]) == TOY.observation_size(TOY.make_config({"num_players": 3}))
    assert sorted(int(a) for a in v["actions"]) == snap["legal"] and v["actions"][str(snap["legal"][0])].startswith("action ")
    assert all(e["type"] == "move" and e["text"] for e in snap["events"])
    snap = _play_out(client, snap)
    assert snap["view"]["over"] and snap["view"]["outcome"]["over"] is True
    assert snap["view"]["winners"] == snap["view"]["outcome"]["winners"]
    events = client.get(f"/api/games/{snap['id']}", headers={"X-Game-Token": snap["token"]}).json()["events"]
    assert events[-1]["type"] == "game_over" and events[-1]["winners"] == snap["view"]["winners"]
    record = client.get(f"/api/games/{snap['id']}/record", headers={"X-Game-Token": snap["token"]}).text
    page = client.post("/api/replay", json={"text": record}).json()
    assert page["game"] == "toybid" and page["total_frames"] == snap["steps"] + 1
    assert page["frames"][0]["view"]["observation"] is None  # from above: nobody's observation, every frame
    assert page["frames"][-1]["view"]["over"] and page["rounds"] == [{"round": 0, "frame": 0}]
    rules = client.get("/api/rules/toybid").json()
    assert rules["title"] == TOY.title and rules["sections"] == [] and rules["intro"] == [{"p": TOY.describe}]


def test_the_generic_view_shows_a_seat_only_what_it_may_see():
    """Re-dealing what a seat cannot know (``GameDef.sample_world``) leaves its generic view unchanged."""
    view = web_views.view("toybid")
    config = TOY.make_config({"num_players": 3})
    rng = np.random.default_rng(0)
    for seed in range(5):
        engine = TOY.new_engine(config, seed)
        while not engine.is_over:
            for seat in range(3):
                world = TOY.sample_world(config, TOY.canonical(config, engine.state, seat), seat, rng)
                assert view.table(config, world, seat) == view.table(config, engine.state, seat)
            engine.step(int(rng.choice(np.flatnonzero(engine.legal_mask()))))


def test_register_view_and_its_checks():
    with pytest.raises(ValueError, match="expected a script"):
        web_views.WebView(game="toybid", table=lambda *a: {}, events=lambda *a: [], label=str, kind="rows")
    with pytest.raises(ValueError, match="file name"):
        web_views.WebView(game="toybid", table=lambda *a: {}, events=lambda *a: [], label=str, kind="rows",
                          script="../evil.js")
    with pytest.raises(ValueError, match="game"):
        web_views.view("chess")
    before = web_views.view("toybid")
    mine = web_views.WebView(game="toybid", table=before.table, events=before.events, label=lambda a: f"bid {a + 1}",
                             bot_family=(({"cards": 3}, "toy-small-"), ({}, "toy-")))
    with pytest.raises(ValueError, match="has a web view already"):
        web_views.register_view(mine)
    try:
        web_views.register_view(mine, replace=True)
        assert web_views.view("toybid").label(0) == "bid 1"
        assert mine.family({"cards": 3}) == "toy-small-" and mine.family({"cards": 5}) == mine.family({}) == "toy-"
    finally:
        web_views.register_view(before, replace=True)


def test_each_view_script_registers_its_kind():
    for name in games.names():
        v = web_views.view(name)
        if v.script is None:
            assert v.kind == web_views.GENERIC
            continue
        text = (Path(STATIC_DIR) / v.script).read_text(encoding="utf-8")
        assert f'registerView("{v.kind}"' in text, (name, v.script)


def test_no_file_of_the_web_app_names_a_game_but_the_files_named_after_it():
    """A game's name ("take5", "five_alive", the toy game's) appears only in ``games/<game>.py`` and
    ``static/<game>.js``: the routes, sessions, bots, replays, the rules panel and the browser's core
    scripts learn about games from the table and the web views. No other allowlist."""
    names = games.names()
    found = []
    for path in sorted(WEB.rglob("*")):
        if path.suffix not in SCANNED or "__pycache__" in path.parts:
            continue
        text = path.read_text(encoding="utf-8").lower()
        for name in names:
            if name in text and path.stem != name:
                lines = [i + 1 for i, line in enumerate(text.splitlines()) if name in line]
                found.append(f"{path.relative_to(WEB)}:{lines[:5]} names {name!r}")
    assert found == [], found
    owned = {p.relative_to(WEB).as_posix() for p in WEB.rglob("*") if p.suffix in SCANNED and p.stem in names}
    assert owned <= {f"games/{n}.py" for n in names} | {f"static/{n}.js" for n in names}, owned


def test_the_core_scripts_do_not_branch_on_a_game():
    """The browser's core scripts pick a game's drawing code by the kind its server entry declares."""
    core = [p for p in Path(STATIC_DIR).glob("*.js") if p.stem not in games.names()]
    assert {p.name for p in core} >= {"app.js", "play.js", "bots.js", "replays.js", "results.js", "rules.js"}
    for p in core:
        text = p.read_text(encoding="utf-8")
        assert not re.search(r"game\s*[!=]==?\s*[\"']", text), p.name  # no game === "name"


@pytest.mark.browser
def test_the_toy_game_in_a_browser_by_the_generic_view(browser, web_runs_dir):
    """In Chromium: the toy game is offered, played to its end by keyboard and mouse, its rules panel shows
    its description; no JavaScript error, readable text, no horizontal scroll (test_browser's checks)."""
    from tests.web.test_browser import _page, check, open_app, start_game, wait_turn
    from tests.web.util import LiveServer

    srv = LiveServer(web_runs_dir, save_games=False)
    ctx, page = _page(browser, "desktop")
    try:
        open_app(page, srv)
        assert page.locator("#setup-game option[value='toybid']").inner_text() == TOY.title
        start_game(page, "toybid", preset="three", seed=2, bot="random")
        assert page.inner_text("#table-title").startswith(TOY.title)
        assert page.locator("#observation").count() == 1 and page.locator("#hand button.legal").count() >= 1
        check(page, "generic table")
        page.keyboard.press("1")  # the first legal move, by its key
        moves = 1
        while wait_turn(page) == "turn":
            page.locator("#hand button.legal").first.click()
            moves += 1
        assert moves == 5 and page.locator("#final-result").count() == 1  # 5 bids (cards=5), then the result
        assert page.locator("#ranking tr").count() == 4
        check(page, "generic result")
        page.click("#table-title .rules-btn")
        assert page.locator("#rules-panel").is_visible() and TOY.describe in page.inner_text("#rules-body")
    finally:
        ctx.close()
        srv.stop()
    assert page.js_errors == [], page.js_errors
