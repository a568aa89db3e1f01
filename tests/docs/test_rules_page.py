"""docs/rules.md, the user's rule book: it names every config field and preset of both games in the
game's own section, keeps the spec's section numbers, its links resolve, its tables agree with the
code, and its Take 5 worked example plays out as written."""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from fiveplay_env.five_alive import config as fa_config
from fiveplay_env.take5 import config as t5_config
from fiveplay_env.take5 import engine as t5_engine
from fiveplay_env.take5.state import ACTION_ROW0, BULLHEADS, TOTAL_BULLHEADS

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "rules.md"

# The spec's (docs/rules.md) sections; the rule book keeps their numbers.
SPEC_SECTIONS = {
    "1": ["1.1", "1.2", "1.3", "1.4", "1.5"],
    "2": ["2.1", "2.2", "2.3", "2.4", "2.5", "2.6", "2.7", "2.8"],
}
GAMES = {
    "1": (t5_config.Take5Config, t5_config.PRESETS),
    "2": (fa_config.FiveAliveConfig, fa_config.PRESETS),
}


@pytest.fixture(scope="module")
def text() -> str:
    return DOC.read_text(encoding="utf-8")


def section(text: str, number: str) -> str:
    """The text of top-level section ``## <number>.`` up to the next top-level section."""
    m = re.search(rf"^## {number}\. .*?(?=^## |\Z)", text, re.M | re.S)
    assert m, f"docs/rules.md: expected a heading '## {number}. ...'"
    return m.group(0)


def test_readme_links_the_rules_doc():
    assert DOC.is_file()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "](docs/rules.md)" in readme, "README.md: expected a link to docs/rules.md"


def test_top_level_sections_and_spec_subsections(text):
    assert re.search(r"^## 1\. Take 5", text, re.M)
    assert re.search(r"^## 2\. 5 Alive", text, re.M)
    for top, subs in SPEC_SECTIONS.items():
        body = section(text, top)
        for sub in subs:
            assert re.search(rf"^### {re.escape(sub)} ", body, re.M), f"missing '### {sub}' in section {top}"


@pytest.mark.parametrize("top", sorted(GAMES))
def test_every_config_field_is_named_in_its_games_section(text, top):
    cls, _ = GAMES[top]
    body = section(text, top)
    missing = [f.name for f in dataclasses.fields(cls) if f"`{f.name}`" not in body]
    assert not missing, f"{cls.__name__} fields not documented in section {top}: {missing}"


@pytest.mark.parametrize("top", sorted(GAMES))
def test_every_preset_is_named_in_its_games_section(text, top):
    _, presets = GAMES[top]
    body = section(text, top)
    missing = [name for name in presets if f"`{name}`" not in body]
    assert not missing, f"presets not documented in section {top}: {missing}"


@pytest.mark.parametrize("top", sorted(GAMES))
def test_every_config_field_and_preset_has_a_row_in_the_reference_tables(text, top):
    cls, presets = GAMES[top]
    body = section(text, top)
    rows = {m.group(1) for m in re.finditer(r"^\| `([a-z0-9_]+)` \|", body, re.M)}
    assert {f.name for f in dataclasses.fields(cls)} <= rows
    assert set(presets) <= rows


def items(text: str) -> list[str]:
    """The list items and paragraphs of the text, each with its continuation lines (tables and headings
    left out)."""
    out: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(("|", "#", "```")):
            out.append("")
            continue
        if re.match(r"\s*(?:- |\d+\. )", line) or not out or not out[-1]:
            out.append(stripped)
        else:
            out[-1] += " " + stripped
    return [i for i in out if i]


def test_every_d_rule_names_its_config_field_or_says_fixed(text):
    fields = {f.name for cls, _ in GAMES.values() for f in dataclasses.fields(cls)}
    d_items = [i for i in items(text) if "[D]" in i]
    assert len(d_items) >= 15
    for item in d_items:
        named = {m.group(1) for m in re.finditer(r"`([a-z_0-9]+)", item)}
        assert named & fields or "*fixed*" in item, f"[D] rule names no config field: {item}"


def test_relative_links_resolve(text):
    links = re.findall(r"\]\((\.\./[^)#\s]+)\)", text)
    assert links, "expected links to the engine sources"
    missing = [link for link in links if not (DOC.parent / link).resolve().exists()]
    assert not missing, f"broken links in docs/rules.md: {missing}"
    for path in ("take5/engine.py", "five_alive/engine.py", "take5_v0.py", "five_alive_v0.py"):
        assert f"../fiveplay_env/{path}" in links


def test_bullhead_table_agrees_with_the_code(text):
    counts = {b: int((BULLHEADS == b).sum()) for b in (7, 5, 3, 2, 1)}
    body = section(text, "1")
    for b, count in counts.items():
        assert re.search(rf"^\s*\| [^|]+ \| {b} \| {count} \|", body, re.M), f"bull-head row {b}: {count} cards"
    assert f"**{TOTAL_BULLHEADS}**" in body


def test_five_alive_card_table_agrees_with_the_code(text):
    body = section(text, "2")
    for kind, (name, key, count) in enumerate(
        zip(fa_config.KIND_NAMES, fa_config.KIND_KEYS, fa_config.DEFAULT_DECK, strict=True)
    ):
        row = rf"^\s*\| {kind} \| {re.escape(name)} \| `{key}` \| {count} \|"
        assert re.search(row, body, re.M), f"card table row for kind {kind} ({name})"
    assert f"{sum(fa_config.DEFAULT_DECK)} cards" in body


def test_take5_worked_example_plays_out_as_written():
    cfg = t5_config.Take5Config(num_players=4)
    rows = [[3, 12], [21, 37], [45, 50, 58], [66, 70, 74, 77, 81]]
    s = t5_engine.from_position(cfg, [[40, 1], [85, 2], [59, 4], [9, 6]], rows)
    for number in (40, 85, 59, 9):
        t5_engine.step(cfg, s, number - 1)
    assert s.current == 3  # seat 3's 9 fits nowhere: it picks a row
    t5_engine.step(cfg, s, ACTION_ROW0 + 0)
    assert [[c + 1 for c in r] for r in s.rows] == [[9], [21, 37, 40], [45, 50, 58, 59], [85]]
    assert s.round_pen == [0, 15, 0, 2]
    auto = t5_config.Take5Config(num_players=4, row_pick="min_bullheads")
    s = t5_engine.from_position(auto, [[40, 1], [85, 2], [59, 4], [9, 6]], rows)
    for number in (40, 85, 59, 9):
        t5_engine.step(auto, s, number - 1)
    assert [[c + 1 for c in r] for r in s.rows] == [[9], [21, 37, 40], [45, 50, 58, 59], [85]]
