"""The table a card player expects, in a real browser (Playwright driving the system Chromium, at 1366x800
and 390x844, and a touch screen of 390x844): every trick followed (header, scores and round penalties
never ahead of the animated event, compared with the game's record replayed here; takes shown with
their reason, longer than a placement; the last trick of a round kept), the score sheet equal to the
record's, the trick in view above the dock on a phone, tap twice to play on a touch screen (44 px
targets, no key badges), the 5 Alive cards explained where they are seen and the rules panel from
docs/rules.md, skip to the result, delete confirmation, hints from the opponents' bot with a reason,
the stale-tab message, "My games", the log, and results pages without server paths. Screenshots as in
test_browser (``FIVEPLAY_SHOTS``)."""
from __future__ import annotations

import re

import pytest

from fiveplay_env.experiments.web import views
from tests.web.test_browser import (VIEWPORTS, _page, check, click_start, desktop, open_app, page,  # noqa: F401 (fixtures)
                                    play_by_mouse, server, shot, start_game, wait_turn)

pytestmark = pytest.mark.browser

PACE_TAKE = 1.8  # app.js PACE: a take shows its row and reason this many plain steps before its cards move


def _game(page) -> dict:
    """The current game as the page holds it: id, token, events."""
    return page.evaluate("() => { const g = cur(); return { id: g.id, token: g.token, events: g.events, seat: g.snap.seat }; }")


def _record(page, g: dict) -> dict:
    text = page.evaluate("async ([id, token]) => (await fetch(`/api/games/${id}/record`, {headers: {'X-Game-Token': token}})).text()",
                         [g["id"], g["token"]])
    import json

    return json.loads(text.splitlines()[0])


def _replay(rec: dict):
    """Every state of a recorded game (replayed here with the engine) and each step's events."""
    from fiveplay_env.agents import games as games_mod
    from fiveplay_env.core.config import from_kwargs

    gdef = games_mod.get_game(rec["game"])
    config = from_kwargs(gdef.config_cls, dict(rec["config"]))
    eng = gdef.new_engine(config, rec["seed"])
    states, owner, types = [eng.state.clone()], [], []
    for step, a in enumerate(rec["actions"]):
        before = eng.state.clone()
        eng.step(a)
        states.append(eng.state.clone())
        evs = views.step_events(rec["game"], config, before, a, eng.state)
        owner += [step] * len(evs)
        types += [e["type"] for e in evs]
    return config, states, owner, types


def _set_field(page, field: str, value) -> None:
    if not page.locator("#setup-advanced[open]").count():
        page.click("#setup-advanced > summary")
    loc = page.locator(f"#setup-config [data-field='{field}']")
    if isinstance(value, bool):
        loc.set_checked(value)
    elif loc.evaluate("e => e.tagName") == "SELECT":
        loc.select_option(value)
    else:
        loc.fill(str(value))


def _open_setup(page, game: str, preset: str) -> None:
    if not page.locator("#new-game[open]").count():
        page.click("#new-game > summary")
    page.select_option("#setup-game", game)
    page.select_option("#setup-preset", preset)


def _start(page, seed: int) -> None:
    """Start the game set up in the panel (start_game's waits, without choosing the game again)."""
    _set_field_seed(page, seed)
    click_start(page)


def _set_field_seed(page, seed: int) -> None:
    if not page.locator("#setup-advanced[open]").count():
        page.click("#setup-advanced > summary")
    page.fill("#setup-seed", str(seed))


def test_take5_follow_every_trick(page, server, tmp_path):
    """Two rounds at "fast": at every animated event the header and the scores are those of the record at
    that event (never the step's end); takes are shown with their reason, longer than a placement; the
    last trick of a round stays on the table; the score sheet's numbers are the record's."""
    open_app(page, server, speed="fast")
    _open_setup(page, "take5", "single_round")
    _set_field(page, "mode", "rounds:2")
    _start(page, 11)
    page.evaluate("() => { window.fiveplayShown = []; }")
    seen_take = seen_end = False
    moves = 0
    while wait_turn(page) == "turn":
        if not seen_take and page.locator("#take-note").count():
            seen_take = True
        if not seen_end and page.locator("#round-sheet .round-summary").count():
            seen_end = True
            # the round's last trick stays on the table, and the round's summary with the score sheet
            assert page.locator("#trick .slot").count() == 4
            assert "Last trick of round 1" in page.inner_text("#play-area")
            assert "Round 1 over" in page.inner_text("#round-sheet") and page.locator("#score-sheet tr[data-round]").count() == 1
            check(page, "take5 round over")
            shot(page, tmp_path, "take5_round_over", full=True)
        first = page.locator("#hand button.legal").first
        first.click()
        moves += 1
        if not seen_take:  # catch a take while it is on screen (its reason and the row about to go)
            try:
                page.wait_for_selector("#take-note", timeout=2500)
                assert page.locator(".row.taking").count() == 1 or page.locator(".row.flash").count() == 1
                note = page.inner_text("#take-note")
                assert "sixth card in row" in note or "lower than every row" in note, note
                shot(page, tmp_path, "take5_take", full=False)
                seen_take = True
            except Exception as e:  # noqa: BLE001 - no take in this trick
                if "Timeout" not in type(e).__name__:
                    raise
        assert moves < 60
    assert seen_end and seen_take, (seen_end, seen_take, page.inner_text("#result"), page.inner_text("#play-log")[-600:])
    g = _game(page)
    shown = page.evaluate("() => window.fiveplayShown")
    rec = _record(page, g)
    _config, states, owner, types = _replay(rec)
    assert types == [e["type"] for e in g["events"]]  # the page's events are the record's, one for one
    assert len(shown) > 40
    for s in shown:
        e = g["events"][s["i"]]
        before, after = states[owner[s["i"]]], states[owner[s["i"]] + 1]
        assert s["round"] == before.round + 1, (s, e["type"])
        if e["type"] in ("round_end", "game_over"):
            assert s["scores"] == list(after.scores), (s, e["type"])
        else:
            assert s["scores"] == list(before.scores), (s, e["type"])
            assert f"round {before.round + 1} \u00b7 trick {before.trick + 1} of 10" in s["title"], (s, e["type"])
            if after.round == before.round:  # round penalties never ahead of the step's end
                assert all(b <= x <= a for b, x, a in zip(before.round_pen, s["penalties"], after.round_pen)), s
    # a take stays longer than a plain placement
    for a, b in zip(shown, shown[1:]):
        if g["events"][a["i"]].get("took") and b["i"] == a["i"]:
            assert b["t"] - a["t"] >= 120 * PACE_TAKE * 0.95
    # the score sheet: each round's penalties and the totals are the record's
    ends = [k for k in range(1, len(states)) if states[k].round > states[k - 1].round]
    want = [[states[k].scores[q] - states[k - 1].scores[q] for q in range(4)] for k in ends]
    rows = page.eval_on_selector_all("#score-sheet tr[data-round]", "trs => trs.map(tr => Array.from(tr.children).slice(1).map(td => Number(td.textContent)))")
    assert rows == want and len(rows) == 2
    total = page.eval_on_selector("#score-sheet tr.sum-row", "tr => Array.from(tr.children).slice(1).map(td => Number(td.textContent))")
    assert total == list(states[-1].scores) == [sum(c) for c in zip(*want)]
    assert "the game was 2 rounds" in page.inner_text("#end-reason").lower()
    assert page.locator("#ranking tr").count() == 5
    check(page, "take5 game over with score sheet")
    shot(page, tmp_path, "take5_score_sheet", full=True)
    # my games: date, opponents, result and the replay
    page.goto(f"{server.url}/?speed=instant#replays")
    page.wait_for_selector("#my-games-table")
    row = page.locator("#my-games-table tr").nth(1)
    text = row.inner_text()
    assert "Take 5" in text and "take5-round-4p" in text and "bull head" in text
    assert row.locator("a").get_attribute("href").startswith("#replay/web__take5__")
    check(page, "my games")
    shot(page, tmp_path, "my_games", full=False)


@pytest.mark.parametrize("kind", ["phone", "touch"])
def test_phone_trick_in_view_during_a_reveal(browser, server, tmp_path, kind):
    """On a 390x844 phone (a narrow window, and a touch screen with its taller dock), the revealed trick
    is on screen while its cards are placed: inside the viewport and above the dock."""
    ctx, page = _page(browser, "phone") if kind == "phone" else _touch_page(browser)
    try:
        open_app(page, server, speed="slow")
        start_game(page, "take5", preset="single_round", seed=3)
        page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")  # scrolled down to the rows and hand
        page.locator("#hand button.legal").last.click()
        if kind == "touch":
            page.click("#confirm-play")
        page.wait_for_function("() => document.body.dataset.busy === '1' && document.querySelectorAll('#trick .slot').length === 4 "
                               "&& document.querySelector('#trick-box .section-title').textContent === 'This trick'")
        page.wait_for_timeout(400)  # the scroll settles
        box = page.locator("#trick-box").bounding_box()
        dock_top = page.evaluate("() => document.querySelector('#dock').getBoundingClientRect().top")
        assert box["y"] >= 0 and box["y"] + box["height"] <= dock_top, (box, dock_top)
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390
        shot(page, tmp_path, "trick_in_view", full=False)
        page.wait_for_selector("body[data-busy='0']", timeout=60_000)
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
        assert page.js_errors == []
    finally:
        ctx.close()


def _touch_page(browser):
    ctx = browser.new_context(viewport=VIEWPORTS["phone"], has_touch=True, is_mobile=True, device_scale_factor=2)
    p = ctx.new_page()
    p.set_default_timeout(20_000)
    errors: list[str] = []
    p.on("console", lambda m: errors.append(f"console.{m.type}: {m.text}") if m.type == "error" else None)
    p.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    p.js_errors = errors  # type: ignore[attr-defined]
    p.viewport_name = "touch"  # type: ignore[attr-defined]
    return ctx, p


def test_touch_tap_selects_and_a_second_tap_plays(browser, server, tmp_path):
    """On a touch screen: confirm-before-play is on by default (a tap selects, a second tap or Play
    plays), no keyboard badges, touch targets of at least 44 px, and a 5 Alive card's explanation shown
    when it is selected."""
    ctx, page = _touch_page(browser)
    try:
        open_app(page, server)
        assert page.evaluate("() => document.body.classList.contains('touch')")
        start_game(page, "take5", preset="single_round", seed=4)
        assert page.is_checked("#confirm-toggle")
        assert page.locator("#hand .badge.key").count() == 0 and page.inner_text("#dock-keys") == ""
        small = page.evaluate("""() => Array.from(document.querySelectorAll('#hand button, .dock-tools button, .dock-tools label, .game-tab button'))
            .filter(e => e.offsetParent).map(e => [e.textContent.trim().slice(0, 20) || e.dataset.action,
            e.getBoundingClientRect().width, e.getBoundingClientRect().height]).filter(([t, w, h]) => h < 44 || w < 44)""")
        assert small == [], small
        steps = page.evaluate("() => cur().snap.steps")
        cards = page.locator("#hand button.legal")
        n = cards.count()  # the highest cards: no row to take, the next turn comes at once
        cards.nth(n - 2).tap()
        assert page.locator("#hand button.selected").count() == 1 and page.locator("#confirm-play").is_visible()
        assert page.evaluate("() => cur().snap.steps") == steps and page.locator("#hand button.card").count() == 10  # nothing played
        second = cards.nth(n - 1).get_attribute("data-action")
        cards.nth(n - 1).tap()  # a change of mind: the selection moves
        assert page.locator("#hand button.selected").get_attribute("data-action") == second
        check(page, "touch: a card selected")
        shot(page, tmp_path, "take5_selected", full=False)
        page.tap("#confirm-play")
        wait_turn(page)
        assert page.locator("#hand button.card").count() == 9 and page.evaluate("() => cur().snap.steps") > steps
        page.locator("#hand button.legal").last.tap()
        page.locator("#hand button.selected").tap()  # the second tap on the same card plays it
        wait_turn(page)
        assert page.locator("#hand button.card").count() == 8
        # 5 Alive: a selected special card says what it does, in the rule book's words
        rules = page.evaluate("async () => (await fetch('/api/rules/five_alive')).json()")
        start_game(page, "five_alive", preset="standard", seed=5, bot="random")
        special = page.locator("#hand button.legal").evaluate_all("bs => bs.map(b => Number(b.dataset.action)).filter(a => a >= 8 && a < 18)")
        if special:
            page.locator(f"#hand button[data-action='{special[0]}']").tap()
            assert page.inner_text("#card-help") == rules["cards"][str(special[0])]
            shot(page, tmp_path, "five_alive_card_help", full=False)
        check(page, "touch 5 alive")
        assert page.js_errors == []
    finally:
        ctx.close()


def test_rules_at_hand_and_special_cards_explained(page, server, tmp_path):
    open_app(page, server)
    rules = page.evaluate("async () => (await fetch('/api/rules/five_alive')).json()")
    start_game(page, "five_alive", preset="standard", seed=24, bot="five-alive-attacker")
    # in the hand: every card's tooltip is its explanation from the rule book
    titles = page.locator("#hand button.card").evaluate_all("bs => bs.map(b => [Number(b.dataset.action), b.querySelector('svg title').textContent])")
    assert titles and all(t == rules["cards"][str(a)] for a, t in titles)
    special = [a for a, _t in titles if a >= 8]
    if special and page.viewport_name == "desktop":  # pointed at, a special card says what it does in the dock
        page.hover(f"#hand button[data-action='{special[0]}']")
        assert page.inner_text("#dock-help") == rules["cards"][str(special[0])]
        shot(page, tmp_path, "five_alive_card_hover", full=False)
        page.mouse.move(0, 0)
    # on the table: the last special card played is explained under it
    summary = None
    for _ in range(300):
        if wait_turn(page) != "turn":
            break
        if summary is None and page.locator("#round-sheet .round-summary").count():  # a round's end: who went out, lost, deals
            summary = page.inner_text("#round-sheet .summary")
            assert "went out" in summary and "lives lost" in summary and "deals round" in summary, summary
            assert page.locator("#score-sheet tr[data-round]").count() >= 1
            check(page, "5 alive round summary")
            shot(page, tmp_path, "five_alive_round_summary", full=False)
        if page.locator("#last-card-help").count() and summary is not None:
            break
        page.locator("#hand button.legal").last.click()
    assert summary is not None
    kind = page.evaluate("() => { const e = lastPlayOf(cur()); return e ? e.action : -1; }")
    assert kind >= 8 and page.inner_text("#last-card-help") == rules["cards"][str(kind)]
    # the rules panel: the special cards, then the player's sections of the book
    page.click("#table-title .rules-btn")
    panel = page.locator("#rules-panel")
    assert panel.is_visible()
    texts = page.locator("#card-list .card-explained > div").all_inner_texts()
    drawn = next(s for s in rules["sections"] if s.get("cards"))
    assert len(texts) == 11 and [t.strip() for t in texts] == [t for _kinds, t in drawn["cards"]]
    heads = page.locator("#rules-body h3").all_inner_texts()
    assert heads == [s["title"] for s in rules["sections"]] and "Your turn" in heads and "Options of the new-game panel" in heads
    body = page.inner_text("#rules-body")  # the rules for players: no tags, no section numbers, no field names
    assert "[R]" not in body and "[D]" not in body and "2.4" not in body and "bomb_zero_optional" not in body
    for name in ("Pass Me By", "Hand In & Re-Deal", "Bomb", "=0", "=10"):
        assert any(t.startswith(name + ":") for t in texts), name
    check(page, "rules panel")
    shot(page, tmp_path, "rules_panel", full=False)
    page.keyboard.press("Escape")
    assert panel.is_hidden()
    # the rules page: the same rules for players, and where the developer's rule book is
    page.click("#table-title .rules-btn")
    page.click("#rules-full")
    page.wait_for_selector("#rules-page h3")
    assert page.locator("#rules-page h3").all_inner_texts() == heads and "docs/rules.md" in page.inner_text("#rules-page")
    page.click("#rules-page a[href='#rules/take5']")
    page.wait_for_function("() => document.querySelector('#rules-page h2').textContent === 'Take 5'")
    assert "rows are numbered 1 to 4" in page.inner_text("#rules-page").lower()
    check(page, "rules page")
    shot(page, tmp_path, "rules_page", full=False)


def test_skip_to_the_result_once_out(desktop, server, tmp_path):
    """Out of a 5 Alive game (here by busting on purpose), the player skips the bots' remaining moves."""
    open_app(desktop, server, speed="normal")
    _open_setup(desktop, "five_alive", "standard")
    _set_field(desktop, "allow_voluntary_bust", True)
    desktop.select_option("#setup-bot", "five-alive-attacker")
    _start(desktop, 31)
    while True:
        assert wait_turn(desktop) == "turn"
        desktop.click("#hand button.bust")
        desktop.wait_for_function("() => !document.querySelector('#skip-btn').hidden || (document.body.dataset.busy === '0')", timeout=90_000)
        if desktop.locator("#skip-btn").is_visible():
            break
    assert "You are out" in desktop.inner_text("#turn-bar") or desktop.get_attribute("body", "data-busy") == "1"
    shot(desktop, tmp_path, "five_alive_out_skip", full=False)
    last = desktop.evaluate("() => (window.fiveplayShown || []).slice(-1)[0].i")
    left = desktop.evaluate("() => cur().events.length") - last
    assert left > 10  # many bot moves still to be shown, about a second each
    assert desktop.evaluate("() => cur().logged") <= last + 1  # the log follows the table: no move told ahead
    import time

    t0 = time.time()
    desktop.click("#skip-btn")
    desktop.wait_for_selector("#final-result", timeout=20_000)
    assert time.time() - t0 < 10
    assert desktop.locator("#skip-btn").is_hidden() and "Lives lost per round" in desktop.inner_text("#result")
    rounds = desktop.locator("#score-sheet tr[data-round]").count()
    assert rounds >= 1
    check(desktop, "5 alive result after a skip")
    shot(desktop, tmp_path, "five_alive_result", full=True)


def test_delete_of_a_game_in_progress_asks_first(page, server, tmp_path):
    open_app(page, server)
    start_game(page, "take5", preset="single_round", seed=9)
    gid, token = page.evaluate("() => [cur().id, cur().token]")
    ids = lambda: page.evaluate("() => JSON.parse(localStorage.getItem('fiveplay.games')).map(g => g.id)")  # noqa: E731
    page.locator(f".game-tab[data-id='{gid}'] button.close").click()
    assert page.locator("#confirm-delete").is_visible() and gid in ids()
    check(page, "delete confirmation")
    shot(page, tmp_path, "delete_confirm", full=False)
    page.click("#keep-game")
    assert gid in ids() and page.locator(f".game-tab[data-id='{gid}']").count() == 1
    page.locator(f".game-tab[data-id='{gid}'] button.close").click()
    page.click("#confirm-delete")
    page.wait_for_function("(gid) => !JSON.parse(localStorage.getItem('fiveplay.games')).some(g => g.id === gid)", arg=gid)
    from fiveplay_env.experiments.web.sessions import GameError

    with pytest.raises(GameError):  # gone from the server too
        server.server.config.app.state.store.get(gid, token)


def test_hint_from_the_opponents_bot_with_a_reason(desktop, server, tmp_path):
    open_app(desktop, server)
    start_game(desktop, "take5", preset="standard", seed=12)  # opponents: the game-to-66 policy
    desktop.click("#hint-btn")
    desktop.wait_for_function("() => document.querySelector('#hint-text').textContent.startsWith('hint (')")
    text = desktop.inner_text("#hint-text")
    # in the player's terms: the bull heads the card is expected to cost (never negative, no odds) and why
    assert text.startswith("hint (take5-game-4p): card ") and "bull heads" in text and "% " not in text, text
    why = text.split(" \u2014 ", 1)[1]  # after the bot's name and the move
    assert "simulation" not in why and not re.search(r"-\d", why), text
    assert "would be the" in text or "lower than every row" in text, text
    shot(desktop, tmp_path, "hint", full=False)


def test_a_stale_tab_says_so_in_a_players_words(browser, server):
    ctx, a = _page(browser, "desktop")
    try:
        open_app(a, server)
        start_game(a, "take5", preset="single_round", seed=14)
        b = ctx.new_page()
        b.goto(f"{server.url}/?speed=instant#play")
        b.wait_for_selector("body[data-ready='1']")
        wait_turn(b)
        a.locator("#hand button.legal").last.click()
        wait_turn(a)
        b.locator("#hand button.legal").first.click()
        b.wait_for_function("() => document.querySelector('#dock-error').textContent.length > 0")
        msg = b.inner_text("#dock-error")
        assert "another tab or window" in msg and "step" not in msg, msg
        wait_turn(b)
        assert b.inner_text("#hand") == a.inner_text("#hand")  # the stale tab now shows where the game stands
    finally:
        ctx.close()


def test_results_pages_show_no_server_path(browser, tmp_path):
    """A run whose summary and config hold server paths: the results pages show file names only, the
    plots first and the summary as a short table, at both sizes."""
    import json
    import os
    import shutil

    from tests.web.util import LiveServer

    runs = tmp_path / "runs"
    run = runs / "train__take5__0__20260102-000000"
    os.makedirs(run)
    secret = str(tmp_path / "secret" / "place")
    (run / "config.json").write_text(json.dumps({"game": "take5", "out": secret, "init": f"{secret}/ckpt.pt",
                                                  "resume": "~/runs/x/checkpoint.pt"}))
    (run / "summary.json").write_text(json.dumps({
        "game": "take5", "decisions": 12345, "run_dir": secret, "checkpoint": f"{secret}/checkpoint.pt",
        "policy": {"path": f"{secret}/policy.pt", "family": "take5-round"},
        "throughput": {"decisions_per_s": 5123.4, "engine_share": 0.31},
        **{f"extra_{k}": k for k in range(30)}}))
    here = os.path.dirname(os.path.abspath(__file__))
    shutil.copy(os.path.join(here, "..", "..", "docs", "img", "curves_take5.png"), run / "curves.png")
    srv = LiveServer(str(runs))
    try:
        for vp in VIEWPORTS:
            ctx, page = _page(browser, vp)
            try:
                for hash_ in ("#results", f"#results/{run.name}"):
                    page.goto(f"{srv.url}/?speed=instant{hash_}")
                    page.wait_for_selector("body[data-ready='1']")
                    page.wait_for_selector("#runs-table")
                    if hash_ != "#results":
                        page.wait_for_selector("#summary-table")
                        page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
                        rows = page.locator("#summary-table > div > .table-wrap tr").count()
                        assert 0 < rows <= 10
                        order = page.evaluate("() => Array.from(document.querySelectorAll('#run-detail > .section-title')).map(e => e.textContent)")
                        if any(t == "Plots" for t in order):
                            assert order.index("Plots") < order.index("Summary")
                    text = page.inner_text("body")
                    assert str(tmp_path) not in text and "secret/place" not in text and str(runs) not in text, hash_
                    assert "~/runs" not in text
                    check(page, f"results {hash_}")
                    shot(page, tmp_path, f"results_no_paths{'_run' if hash_ != '#results' else ''}")
                assert page.js_errors == []
            finally:
                ctx.close()
    finally:
        srv.stop()


def test_the_log_beside_the_table_and_kept_across_a_reload(page, server):
    open_app(page, server)
    start_game(page, "take5", preset="single_round", seed=15)
    for _ in range(2):
        wait_turn(page)
        page.locator("#hand button.legal").last.click()
    wait_turn(page)
    log = page.locator("#play-log .ev").evaluate_all("es => es.map(e => e.textContent)")
    assert any(t.startswith("Round 1, trick 2") for t in log) and not any("has chosen" in t for t in log)
    if page.viewport_name == "desktop":  # always in view beside the table
        assert page.locator("#log-box[open]").count() == 1
        table, side = page.locator("#play-area").bounding_box(), page.locator("#log-box").bounding_box()
        assert side["x"] >= table["x"] + table["width"] and side["y"] < 800
    else:  # folded on a phone, a tap away
        assert page.locator("#log-box[open]").count() == 0
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    wait_turn(page)
    assert page.locator("#play-log .ev").evaluate_all("es => es.map(e => e.textContent)") == log


def test_five_alive_labels_follow_the_moves(desktop, server):
    """5 Alive at "fast": each move is shown with the round it was played in (a round-ending move under
    its own round, not the next) and the lives as that move left them, compared with the record."""
    open_app(desktop, server, speed="fast")
    start_game(desktop, "five_alive", preset="standard", seed=24, bot="five-alive-attacker")
    desktop.evaluate("() => { window.fiveplayShown = []; }")
    play_by_mouse(desktop)
    g = _game(desktop)
    shown = desktop.evaluate("() => window.fiveplayShown")
    rec = _record(desktop, g)
    _config, states, owner, types = _replay(rec)
    assert types == [e["type"] for e in g["events"]]
    ended = 0
    for s in shown:
        before, after = states[owner[s["i"]]], states[owner[s["i"]] + 1]
        assert s["round"] == before.round + 1, s
        assert s["lives"] == list(after.lives), s
        if after.round > before.round:
            ended += 1
            assert s["title"].endswith(f"round {before.round + 1} over"), s
    assert len(shown) > 20 and ended >= 1


def test_rules_at_hand_in_a_replay(desktop, server):
    open_app(desktop, server, hash_="#replays")
    desktop.wait_for_selector("#replay-file option[value*='tournament__five_alive']", state="attached")
    desktop.select_option("#replay-file", desktop.locator("#replay-file option[value*='tournament__five_alive']").first.get_attribute("value"))
    desktop.click("#replay-open")
    desktop.wait_for_selector("#replay-controls:not([hidden])")
    desktop.click("#rp-play")
    desktop.click("#replay-area .rules-btn")
    assert desktop.locator("#rules-panel").is_visible() and desktop.locator("#card-list .card-explained").count() == 11
    desktop.click("#rules-close")
    assert desktop.locator("#rules-panel").is_hidden()
