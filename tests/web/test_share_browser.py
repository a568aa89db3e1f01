"""Share links in a real browser (Playwright driving the system Chromium): a finished, saved game shared from
its result panel (POST /api/share), its link opened by another client (a second browser context: its own
storage, so its own X-Client id) on the replay viewer (``#shared/TOKEN``, paged by /api/replay?share=),
the same link in the owner's "My games", then Stop sharing (DELETE /api/share) there: the link then shows
the page's "not found" message; the owner's replay view offers the same control. Screenshots as in test_browser (``FIVEPLAY_SHOTS``)."""
from __future__ import annotations

import re

import pytest

from tests.web.test_browser import _page, check, open_app, play_by_mouse, server, shot, start_game  # noqa: F401 (fixture)

pytestmark = pytest.mark.browser


def test_share_a_finished_game_then_stop_sharing(browser, server, tmp_path):
    ctx, owner = _page(browser, "desktop")
    ctx2, other = _page(browser, "phone")
    try:
        open_app(owner, server)
        start_game(owner, "take5", preset="single_round", seed=8)
        play_by_mouse(owner)
        saved = owner.evaluate("() => cur().snap.saved")
        assert saved["run"].startswith("web__take5__")

        owner.click("#result .share-btn")
        link = owner.locator("#result .share-link").input_value()
        m = re.fullmatch(re.escape(server.url) + r"/#shared/([A-Za-z0-9_-]{20,})", link)
        assert m, link
        owner.click("#result .share-copy")  # copied (a secure context) or selected for Ctrl+C
        owner.wait_for_function("() => /Link copied|Selected/.test(document.querySelector('#result .share-note').textContent)")
        check(owner, "result shared")
        shot(owner, tmp_path, "share_result", full=False)

        # another client: the game's name is not its to read, the share link is
        open_app(other, server, hash_="#replays")
        assert owner.evaluate("localStorage.getItem('fiveplay.client')") != other.evaluate("localStorage.getItem('fiveplay.client')")
        status = other.evaluate("([r, g]) => fetch(`/api/replay?run=${r}&game=${g}`, {headers: {'X-Client': clientId()}}).then((x) => x.status)",
                                [saved["run"], saved["game"]])
        assert status == 404
        other.evaluate("(saved) => document.querySelector('#my-games').append(shareControl(saved))", saved)  # not its game
        other.click("#my-games .share-btn")
        assert "cannot be shared" in other.inner_text("#my-games .share-error.message")
        other.goto(link)
        other.wait_for_selector("#replay-controls:not([hidden])")
        other.click("#rp-play")  # pause the autoplay, then the first frames by hand
        other.keyboard.press("Home")
        assert "step 0 of" in other.inner_text("#rp-pos") and "Start of the game" in other.inner_text("#replay-step")
        other.click("#rp-fwd")
        assert "step 1 of" in other.inner_text("#rp-pos") and other.locator("#replay-area .row").count() == 4
        other.click("#rp-last")  # the last page of frames too
        assert "end of the game" in other.inner_text("#rp-pos")
        assert other.locator("#rp-share").get_attribute("href") == f"#shared/{m.group(1)}"
        check(other, "shared replay")
        shot(other, tmp_path, "shared_replay")

        # the owner's "My games" shows the same link; Stop sharing there
        owner.evaluate("location.hash = '#replays'")
        row = owner.locator("#my-games .share").first
        assert row.locator(".share-link").input_value() == link
        check(owner, "my games shared")
        shot(owner, tmp_path, "share_my_games", full=False)
        row.locator(".share-stop").click()
        owner.wait_for_selector("#my-games .share .share-btn")
        assert owner.evaluate("localStorage.getItem('fiveplay.shares')") == "{}"
        owner.click("#my-games a[href^='#replay/web__take5__']")  # its replay: the share control, not a #replay link
        owner.wait_for_selector("#replay-controls:not([hidden]) #rp-share-box .share-btn")
        assert owner.locator("#rp-share").is_hidden()

        other.reload()
        other.wait_for_selector("body[data-ready='1']")
        other.wait_for_function("() => /not found/.test(document.querySelector('#replay-message').textContent)")
        assert other.locator("#replay-controls").is_hidden()
        check(other, "shared link revoked")
        shot(other, tmp_path, "shared_revoked")
    finally:
        ctx.close()
        ctx2.close()
    assert owner.js_errors == []
    # the revoked link's 404 (and the name's, above) are the only errors another client's console shows
    assert [e for e in other.js_errors if "status of 404" not in e] == [], other.js_errors
