"""The table on both screen sizes, in Chromium (1366x800, and a 390x844 touch phone): whole Take 5 games
played by the lowest card (row choices and takes in every trick or so) where, at every row choice, the four
rows are inside the viewport and above the dock and no round sheet covers them; at every take the taken
row is in view while it is highlighted; then a rematch of that random-seed game deals the same hands and
the printed seed is the record's, digit for digit. 5 Alive's round summary names each player once.
Screenshots as in test_browser (``FIVEPLAY_SHOTS``)."""
from __future__ import annotations

import re

import pytest

from tests.web.test_browser import VIEWPORTS, _page, check, click_start, open_app, server, shot, wait_turn  # noqa: F401

pytestmark = pytest.mark.browser

# every animation frame: the taken row's part inside the viewport and above the dock, per take (its note and event)
MONITOR = """() => { window.__takes = {}; window.__bars = []; const loop = () => {
  const r = document.querySelector('#play-area .row.taking'), dock = document.querySelector('#dock').getBoundingClientRect().top;
  if (r) { const b = r.getBoundingClientRect();
    const k = ((document.querySelector('#take-note') || {}).textContent || '') + '|' + (window.fiveplayShown || []).length;
    window.__takes[k] = Math.max(0, Math.min(b.bottom, dock, innerHeight) - Math.max(b.top, 0)) / b.height; }
  const bar = document.querySelector('#turn-bar').textContent;
  if (bar !== window.__bars[window.__bars.length - 1]) window.__bars.push(bar);
  requestAnimationFrame(loop); }; loop(); }"""

ROWS_IN_VIEW = """() => { const dock = document.querySelector('#dock').getBoundingClientRect().top;
  const sheet = document.querySelector('#round-sheet'), s = sheet && !sheet.hidden ? sheet.getBoundingClientRect() : null;
  return Array.from(document.querySelectorAll('#rows-box .row')).map(r => { const b = r.getBoundingClientRect();
    const covered = s && s.left < b.right && b.left < s.right && s.top < b.bottom && b.top < s.bottom;
    return b.top >= 0 && b.bottom <= Math.min(dock, innerHeight) + 0.5 && !covered; }); }"""


def _open(page, details: str) -> None:
    if not page.locator(f"{details}[open]").count():
        page.click(f"{details} > summary")


def _context(browser, kind):
    if kind == "desktop":
        return _page(browser, "desktop")
    ctx = browser.new_context(viewport=VIEWPORTS["phone"], has_touch=True, is_mobile=True)
    p = ctx.new_page()
    p.set_default_timeout(30_000)
    p.js_errors = []  # type: ignore[attr-defined]
    p.on("pageerror", lambda e: p.js_errors.append(f"pageerror: {e}"))
    p.on("console", lambda m: p.js_errors.append(f"console.error: {m.text}") if m.type == "error" else None)
    p.viewport_name = "touch"  # type: ignore[attr-defined]
    return ctx, p


@pytest.mark.parametrize("kind", ["touch", "desktop"])
def test_take5_rows_in_view_at_row_choices_and_takes(browser, server, tmp_path, kind):
    ctx, page = _context(browser, kind)
    try:
        open_app(page, server, speed="fast")  # a touch screen: tap twice to play (its default), one click on a desktop
        _open(page, "#new-game")
        page.select_option("#setup-game", "take5")
        page.select_option("#setup-preset", "single_round")
        _open(page, "#setup-advanced")
        page.select_option("#setup-config [data-field='mode']", "rounds:2")
        page.fill("#setup-seed", "1")  # playing the lowest card: row choices in both rounds
        click_start(page)
        page.evaluate(MONITOR)
        choices = sheets = 0
        while wait_turn(page) == "turn":
            if page.evaluate("() => cur().snap.view.phase") == "row choice":
                page.wait_for_timeout(100)
                inside = page.evaluate(ROWS_IN_VIEW)
                assert inside == [True] * 4, (choices, inside)
                assert page.locator("#rows-box button.row.pick").count() == 4  # the rows are what you tap
                if choices == 0:
                    check(page, "row choice")
                    shot(page, tmp_path, "rows_at_row_choice", full=False)
                choices += 1
                row = page.locator("#rows-box button.row.pick").nth(choices % 4)  # tap a row on the table itself
                if kind == "touch":
                    row.tap()  # selected: Play and Change join the dock, and the rows stay in view above it
                    assert page.locator("#confirm-play").is_visible() and page.evaluate(ROWS_IN_VIEW) == [True] * 4
                    page.locator("#rows-box button.row.pick").nth(choices % 4).tap()
                else:
                    row.click()
            else:
                if page.locator("#round-sheet:not([hidden])").count():
                    sheets += 1
                    assert page.evaluate(ROWS_IN_VIEW) == [True] * 4
                    shot(page, tmp_path, "round_sheet_and_rows", full=False)
                card = page.locator("#hand button.legal").first
                if kind == "touch":
                    card.tap()
                    page.locator("#hand button.selected").tap()
                else:
                    card.click()
            assert choices < 40
        takes = page.evaluate("() => window.__takes")
        assert choices >= 1 and len(takes) >= 3 and sheets >= 1, (choices, len(takes), sheets)
        assert {k: v for k, v in takes.items() if v < 0.999} == {}, "a taken row out of view while highlighted"
        bars = page.evaluate("() => window.__bars")
        i = next(k for k, b in enumerate(bars) if b.startswith("Take a row"))
        assert bars[i + 1] == "Your move is on the table\u2026"  # never "your turn" once the row is chosen
        assert page.js_errors == []
    finally:
        ctx.close()


def test_a_random_seed_rematch_deals_the_same_hands_and_the_printed_seed_too(browser, server, tmp_path):
    ctx, page = _context(browser, "desktop")
    try:
        open_app(page, server, speed="instant")
        _open(page, "#new-game")
        page.select_option("#setup-game", "take5")
        page.select_option("#setup-preset", "single_round")
        _open(page, "#setup-advanced")
        assert page.input_value("#setup-seed") == ""  # a random seed: the server draws it (63 bits: past 2**53)
        click_start(page)
        seat = page.evaluate("() => cur().snap.seat")
        deal = "(s) => [cur().snap.view.hands[String(s)], cur().snap.view.rows]"
        first = page.evaluate(deal, seat)
        while wait_turn(page) == "turn":
            page.locator("#hand button.legal").last.click()
        gid, token = page.evaluate("() => [cur().id, cur().token]")
        rec = page.evaluate("async ([id, t]) => (await fetch(`/api/games/${id}/record`, {headers: {'X-Game-Token': t}})).text()", [gid, token])
        seed = re.search(r'"seed":\s*(\d+)', rec).group(1)
        assert f"seed {seed} " in page.inner_text("#result")  # printed digit for digit
        shot(page, tmp_path, "game_over_seed", full=False)
        page.click("#rematch")  # the same deal
        page.wait_for_function("(g) => cur() && cur().id !== g && document.body.dataset.busy === '0'", arg=gid)
        assert page.evaluate(deal, seat) == first
        _open(page, "#new-game")  # the printed seed typed in deals it again
        _open(page, "#setup-advanced")
        page.fill("#setup-seed", seed)
        click_start(page)
        assert page.evaluate(deal, seat) == first
        assert page.js_errors == []
    finally:
        ctx.close()


def test_five_alive_round_summary_names_each_player_once(browser, server, tmp_path):
    ctx, page = _context(browser, "desktop")
    try:
        open_app(page, server, speed="fast")
        _open(page, "#new-game")
        page.select_option("#setup-game", "five_alive")
        page.select_option("#setup-preset", "standard")
        page.select_option("#setup-bot", "five-alive-attacker")
        _open(page, "#setup-advanced")
        page.fill("#setup-seed", "24")
        click_start(page)
        names = page.evaluate("() => cur().snap.names.map((n, p) => seatName(cur().snap.names, p, cur().snap.seat))")
        page.evaluate(MONITOR)
        summary = None
        for _ in range(300):
            if wait_turn(page) != "turn":
                break
            if page.locator("#round-sheet .summary").count():
                summary = page.inner_text("#round-sheet .summary")
                break
            page.locator("#hand button.legal").last.click()
        assert summary is not None
        said = [b for b in page.evaluate("() => window.__bars") if b.startswith("Round ")] + [summary]
        for text in said:
            assert "went out" in text and "lives lost" in text
            assert text.index("went out") < text.index("lives lost")
            for n in names:  # "P0 (you)", "P1 five-alive-attacker": each said once where it is said, never twice in a row
                assert f"{n} {n.split(' ', 1)[-1]}" not in text and "(you) (you)" not in text, text
        shot(page, tmp_path, "five_alive_round_summary_once", full=False)
        assert page.js_errors == []
    finally:
        ctx.close()
