"""The web app in a real browser: Playwright driving the system Chromium (Debian's ``chromium`` package).

Plays a whole Take 5 game (4 players, mode round, against heuristics) and a whole 5 Alive game by
clicking, to the final result; opens a replay and steps through it to the end; opens the results page;
checks the page logs no JavaScript error. Screenshots go to the test's tmp folder and, when the
environment variable ``FIVEPLAY_SHOTS`` names a folder, are copied there too.

Skipped (with "skipped: no Chromium") only where no Chromium executable exists; ``.ci/run`` installs it.
"""
from __future__ import annotations

import os
import shutil
import socket
import threading
import time

import pytest

pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")

from experiments.web.app import create_app  # noqa: E402
from tests.web.util import LiveServer, make_runs  # noqa: E402

CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = pytest.mark.browser


def chromium_path() -> str | None:
    env = os.environ.get("FIVEPLAY_CHROMIUM")
    for p in ((env,) if env else ()) + CHROMIUM_CANDIDATES:
        if p and os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = LiveServer(make_runs(str(tmp_path_factory.mktemp("webruns"))))
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def browser():
    exe = chromium_path()
    if exe is None:
        pytest.skip("skipped: no Chromium")
    sync_api = pytest.importorskip("playwright.sync_api")
    pw = sync_api.sync_playwright().start()
    b = pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS, headless=True)
    yield b
    b.close()
    pw.stop()


@pytest.fixture()
def page(browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    p = ctx.new_page()
    p.set_default_timeout(20_000)
    errors: list[str] = []
    p.on("console", lambda m: errors.append(f"console.{m.type}: {m.text}") if m.type == "error" else None)
    p.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    p.js_errors = errors  # type: ignore[attr-defined]
    yield p
    ctx.close()
    assert errors == [], errors


def shot(page, tmp_path, name: str) -> str:
    path = str(tmp_path / name)
    page.screenshot(path=path, full_page=True)
    extra = os.environ.get("FIVEPLAY_SHOTS")
    if extra:
        os.makedirs(extra, exist_ok=True)
        shutil.copy(path, os.path.join(extra, name))
    return path


def start_game(page, server, game: str, players: int, bots: list[str] | None = None, seed: int | None = None) -> None:
    page.goto(f"{server.url}/?speed=fast#play")
    page.wait_for_selector("body[data-ready='1']")
    page.select_option("#setup-game", game)
    page.fill("#setup-players", str(players))
    page.dispatch_event("#setup-players", "change")
    if bots:
        for i, name in enumerate(bots):
            page.fill(f"[data-bot='{i}']", name)
    if seed is not None:
        page.fill("#setup-seed", str(seed))
    page.click("#setup-start")


def play_by_clicking(page, on_row_pick=None, max_clicks: int = 2000) -> tuple[int, int]:
    """Click the first legal control until the final result shows; returns (clicks, row choices made).
    ``on_row_pick()`` is called before the first row choice is clicked."""
    clicks = rows = 0
    while True:
        page.wait_for_selector("#play-area button.legal, #final-result, #result.error")
        if page.locator("#final-result").count() or page.locator("#result.error").count():
            return clicks, rows
        first = page.locator("#play-area button.legal").first
        if "pick-row" in (first.get_attribute("class") or ""):
            if rows == 0 and on_row_pick:
                on_row_pick()
            rows += 1
        first.click()
        clicks += 1
        page.wait_for_selector("body[data-busy='0']")
        assert clicks < max_clicks


def test_play_a_whole_take5_game(page, server, tmp_path):
    start_game(page, server, "take5", 4, seed=1)  # seed 1: playing the lowest card, P0 must once pick a row
    page.wait_for_selector("#play-area .hand button.card")
    assert page.locator("#play-area .hand button.card").count() == 10
    assert page.locator("#play-area .row").count() == 4
    shot(page, tmp_path, "play_take5_start.png")

    def at_row_pick() -> None:
        assert "lower than every row: click a row" in page.inner_text("#trick")
        shot(page, tmp_path, "play_take5_row_choice.png")

    clicks, rows = play_by_clicking(page, at_row_pick)
    assert rows >= 1 and clicks == 10 + rows  # ten tricks plus the row choices
    text = page.inner_text("#result")
    assert "Game over" in text and "final score" in text
    assert page.locator("#play-log .ev-reveal").count() == 10
    assert page.locator("#play-log .ev-place").count() == 40
    assert not page.locator("#result.error").count()
    shot(page, tmp_path, "play_take5_end.png")


def test_take5_trick_is_revealed_then_placed_card_by_card(page, server, tmp_path):
    page.goto(f"{server.url}/?speed=normal#play")  # the animation at its normal pace
    page.wait_for_selector("body[data-ready='1']")
    page.fill("#setup-seed", "3")
    page.click("#setup-start")
    page.locator("#play-area .hand button.legal").last.click()
    page.wait_for_function("document.querySelectorAll('#trick svg').length === 4")  # the whole trick, face up
    shot(page, tmp_path, "play_take5_trick_revealed.png")
    seen = {4}
    while page.get_attribute("body", "data-busy") == "1":
        seen.add(page.locator("#trick svg").count())
        page.wait_for_timeout(60)
    assert len(seen) >= 3  # cards left the trick one at a time as they were placed


def test_play_a_whole_five_alive_game(page, server, tmp_path):
    start_game(page, server, "five_alive", 3)
    page.wait_for_selector("#play-area .hand button.card")
    assert "/ 21" in page.inner_text("#total")
    shot(page, tmp_path, "play_five_alive_start.png")
    # an unplayable card, when there is one, is refused with a message
    bad = page.locator("#play-area .hand button.card.unplayable")
    if bad.count():
        bad.first.click()
        assert "Illegal move" in page.inner_text("#message")
    clicks, _ = play_by_clicking(page)
    assert clicks >= 1
    text = page.inner_text("#result")
    assert "Game over" in text and "lives" in text
    assert page.locator("#play-log .ev-play").count() > clicks
    shot(page, tmp_path, "play_five_alive_end.png")


def test_replay_step_to_the_end(page, server, tmp_path):
    page.goto(f"{server.url}/#replays")
    page.wait_for_selector("#replay-file option[value*='tournament__take5']", state="attached")
    value = page.locator("#replay-file option[value*='tournament__take5']").first.get_attribute("value")
    page.select_option("#replay-file", value)
    page.click("#replay-open")
    page.wait_for_selector("#replay-controls:not([hidden])")
    assert "Start of the game" in page.inner_text("#replay-step")
    assert page.locator("#replay-area .hand").count() == 2  # from above: both hands
    page.select_option("#rp-seat", "1")
    assert page.locator("#replay-area .hand").count() == 1  # one seat's view
    page.select_option("#rp-seat", "all")
    steps = 0
    while page.locator("#rp-fwd:not([disabled])").count():
        page.click("#rp-fwd")
        steps += 1
        if steps == 20:
            shot(page, tmp_path, "replay_take5_mid.png")
    assert steps >= 20 and "end of the game" in page.inner_text("#rp-pos")
    shot(page, tmp_path, "replay_take5_end.png")
    assert page.input_value("#rp-round") == "0"  # the last frame still belongs to round 1 (mode round)
    page.click("#rp-back")
    assert "end of the game" not in page.inner_text("#rp-pos")
    page.click("#rp-first")
    assert "step 0 of" in page.inner_text("#rp-pos")


def test_results_page_and_replay_link(page, server, tmp_path):
    page.goto(f"{server.url}/#results")
    page.wait_for_selector("#runs-table")
    page.locator("#runs-table a", has_text="tournament__five_alive").click()
    page.wait_for_selector("#leaderboard")
    assert page.locator("#leaderboard tr").count() == 3
    page.locator("#runs-table a", has_text="tournament__take5").click()
    page.wait_for_selector(".plots img")
    page.wait_for_function("Array.from(document.querySelectorAll('.plots img')).every(i => i.complete && i.naturalWidth > 0)")
    shot(page, tmp_path, "results.png")
    page.locator(".replay-link").first.click()
    page.wait_for_selector("#replay-controls:not([hidden])")
    page.click("#rp-last")
    assert "end of the game" in page.inner_text("#rp-pos")
    assert "tournament__take5" in page.input_value("#replay-file")
    shot(page, tmp_path, "replay_from_results.png")


def test_raw_traversal_requests_get_404(server):
    """Requests sent byte for byte (no client-side path normalization) cannot leave the runs folder."""
    for path in ["/files/../secret.txt", "/files/..%2fsecret.txt", "/files/link_out/secret.txt",
                 "/files//etc/passwd", "/static/../app.py", "/api/replay?file=../secret.txt"]:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
            data = b""
            while chunk := s.recv(65536):
                data += chunk
        status = data.split(b"\r\n", 1)[0]
        assert b" 404 " in status, (path, status)
        assert b"secret\n" not in data.split(b"\r\n\r\n", 1)[-1]
