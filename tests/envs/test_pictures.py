"""``render_mode="rgb_array"``: a picture of the table for both games, AEC and parallel (issue 53, item 7):
shape, dtype, not blank, the cards drawn where ``card_places`` says in the web app's colours, the colours
the web app's, and a clear error without Pillow."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PIL")

from fiveplay_env import five_alive_v0, take5_v0  # noqa: E402
from fiveplay_env.core import picture  # noqa: E402
from fiveplay_env.five_alive import render as fa_render  # noqa: E402
from fiveplay_env.take5 import render as t5_render  # noqa: E402
from fiveplay_env.take5.state import BULL  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "experiments" / "web" / "static"


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    return tuple(int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))


def _play(env, steps: int, seed: int = 3):
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if not env.agents:
            break
        obs, _, term, trunc, _ = env.last()
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
    return env


def _check_frame(frame):
    assert isinstance(frame, np.ndarray) and frame.shape == (picture.HEIGHT, picture.WIDTH, 3)
    assert frame.dtype == np.uint8 and frame.flags.c_contiguous
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 20  # not blank: many colours drawn
    assert (frame == np.array(_rgb(picture.HEADER), np.uint8)).all(-1)[:20].mean() > 0.5  # the title bar


@pytest.mark.parametrize("make", [lambda: take5_v0.env(num_players=4, render_mode="rgb_array"),
                                  lambda: five_alive_v0.env(num_players=4, render_mode="rgb_array"),
                                  lambda: take5_v0.env(num_players=10, mode="round", render_mode="rgb_array"),
                                  lambda: five_alive_v0.env(num_players=6, variant="teams", render_mode="rgb_array")])
def test_aec_frames_through_a_whole_game(make):
    env = make()
    assert "rgb_array" in env.metadata["render_modes"]
    _check_frame(env.render())  # before reset: a picture saying so, not an error
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    frames = 0
    while env.agents and frames < 400:
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if frames % 25 == 0:
            _check_frame(env.render())
        frames += 1
    _check_frame(env.render())  # the end of the game too


def test_parallel_take5_frames():
    env = take5_v0.parallel_env(num_players=5, render_mode="rgb_array")
    obs, _ = env.reset(seed=2)
    rng = np.random.default_rng(2)
    first = env.render()
    _check_frame(first)
    while env.agents:
        obs, *_ = env.step({a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()})
    _check_frame(env.render())
    assert not np.array_equal(first, env.render())


def test_pettingzoo_render_test_passes():
    from pettingzoo.test import render_test

    render_test(lambda render_mode=None: take5_v0.env(render_mode=render_mode))
    render_test(lambda render_mode=None: five_alive_v0.env(render_mode=render_mode))


def test_take5_golden_cards_at_their_places():
    """A known position (seed 3, nine random moves): every card drawn where ``card_places`` says, in its
    bull-head colour, with its bull heads as dots and its number in ink."""
    env = _play(take5_v0.env(num_players=4, render_mode="rgb_array"), 9)
    state = env.unwrapped.engine.state
    frame = env.render()
    places = t5_render.card_places(state)
    rows = [p for p in places if p[0].startswith("row:")]
    assert [c for _, c, _ in rows] == [c for row in state.rows for c in row]
    assert sorted(c for p, c, _ in places if p == "hand") == sorted(state.hand(state.current))
    for place, c, (x0, y0, x1, y1) in places:
        fill = _rgb(t5_render.CARD_COLORS[BULL[c]])
        assert tuple(frame[y1 - 6, x0 + 5]) == fill, (place, c)  # the fill, inside the border
        top = frame[y0 + 3:y0 + (y1 - y0) // 4, x0 + 3:x1 - 3]
        dots = (np.abs(top.astype(int) - _rgb(t5_render.BULL_INK)).sum(-1) < 60).any(0)
        runs = int(np.count_nonzero(np.diff(dots.astype(int)) == 1) + dots[0])
        assert runs == BULL[c], (place, c, runs)  # one dot per bull head
        mid = frame[y0 + (y1 - y0) * 2 // 5:y0 + (y1 - y0) * 4 // 5, x0 + 4:x1 - 4]
        assert (mid.astype(int).sum(-1) < 200).sum() > 15, (place, c)  # the number, in dark ink
    # the known position, said plainly: rows 24 | 30 38 | 69 84 96 | 48 80 83; player_0 holds 8 .. 100;
    # 30 (three heads) is yellow, 66 (five) red, 55-free rows: no purple
    assert [[c + 1 for c in r] for r in state.rows] == [[24], [30, 38], [69, 84, 96], [48, 80, 83]]
    box = dict(((p, c + 1), b) for p, c, b in places)
    assert tuple(frame[box["row:1", 30][3] - 6, box["row:1", 30][0] + 5]) == _rgb("#ffe9a8")
    assert tuple(frame[box["hand", 66][3] - 6, box["hand", 66][0] + 5]) == _rgb("#ffc2c2")


def test_five_alive_golden_cards_at_their_places():
    env = _play(five_alive_v0.env(num_players=4, render_mode="rgb_array"), 23)
    state = env.unwrapped.engine.state
    frame = env.render()
    places = fa_render.card_places(state)
    kinds = [k for p, k, _ in places if p == "hand"]
    assert kinds == [k for k in range(18) if state.hands[state.current][k]]
    assert ("top", state.top) in [(p, k) for p, k, _ in places]
    for place, k, (x0, y0, x1, y1) in places:
        assert tuple(frame[y1 - 6, x0 + 5]) == _rgb(fa_render.KIND_STYLE[k][0]), (place, k)
    hearts = (np.abs(frame.astype(int) - _rgb(fa_render.HEART)).sum(-1) < 30)
    assert hearts[44:44 + 4 * 40, 480:640].any()


def test_the_colours_are_the_web_apps():
    js = (STATIC / "take5.js").read_text()
    t5 = dict(re.findall(r'(\d+): "(#[0-9a-f]{6})"', re.search(r"T5_COLORS = \{([^}]*)\}", js).group(1)))
    assert {int(k): v for k, v in t5.items()} == t5_render.CARD_COLORS
    fa = re.search(r"const FA_STYLE = \[(.*?)\];", (STATIC / "five_alive.js").read_text(), re.S).group(1)
    fills = re.findall(r'\["(#[0-9a-f]{6})", "([^"]*)"', fa)
    assert fills == [(f, label) for f, label, _ in fa_render.KIND_STYLE]
    css = (STATIC / "style.css").read_text()
    for name, value in (("--bg", picture.BG), ("--header", picture.HEADER), ("--accent", picture.ACCENT)):
        assert f"{name}: {value}" in css


def test_without_pillow_the_mode_is_a_clear_import_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(ImportError, match=r'fiveplay-env\[render\]'):
        take5_v0.env(render_mode="rgb_array")
    from fiveplay_env.single_agent import UnsupportedRenderMode
    from fiveplay_env.wrappers import SingleAgentEnv

    with pytest.raises(UnsupportedRenderMode, match="Pillow"):  # (a TypeError: SB3 falls back)
        SingleAgentEnv("take5", render_mode="rgb_array")


def test_text_modes_unchanged(capsys):
    env = take5_v0.env(render_mode="ansi")
    env.reset(seed=0)
    assert env.render().startswith("Take 5 - round 1")
    env = five_alive_v0.env(render_mode="human")
    env.reset(seed=0)
    assert env.render() is None and "5 Alive" in capsys.readouterr().out
