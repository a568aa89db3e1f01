"""Every code block of the documentation site and of the README runs (docs/_ext/fiveplay_docs/examples.py
says what each kind of block means): each page's blocks in order, in one namespace and a fresh working
directory; outputs a block states (doctest ``>>>`` lines, ``console`` commands) are checked; blocks shown
but not run say why, and the commands in them still parse with their program's own options. The game
pages are generated from the game table here as the site's build generates them, so every game in the
table (the tests' toy game included) has its page's example run."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS / "_ext"))

from fiveplay_docs import examples, gamepages  # noqa: E402
from fiveplay_env import games  # noqa: E402

SKIP_DIRS = ("_build", "_generated", "games")  # the build's output and the generated pages (made below)


def site_pages() -> list[Path]:
    return [p for p in sorted(DOCS.rglob("*.md")) if not any(d in p.relative_to(DOCS).parts for d in SKIP_DIRS)]


PAGES = {str(p.relative_to(ROOT)): p for p in site_pages()}


@pytest.fixture
def builtin_table():
    """The game table as a user's install has it: games that other tests registered (the toy game) are
    set aside while a hand-written page runs, and come back after it."""
    builtin = {g.name for g in games.BUILTIN}
    extra = {n: g for n, g in games.table().items() if n not in builtin}
    for name in extra:
        games.unregister(name)
    yield
    for g in extra.values():
        games.register(g, replace=True)


def run_page(name: str, text: str, tmp_path: Path) -> list[str]:
    page_blocks = examples.blocks(text, name)
    unmarked = [b.where for b in page_blocks if not b.lang]
    assert not unmarked, f"blocks without a language (say python, pycon, console, bash or text): {unmarked}"
    return examples.PageRun(name, tmp_path, ROOT).run(page_blocks)


@pytest.mark.parametrize("name", sorted(PAGES))
def test_page_examples_run(name, tmp_path, builtin_table):
    log = run_page(name, PAGES[name].read_text(encoding="utf-8"), tmp_path)
    print("\n".join(log))


@pytest.mark.parametrize("game", games.names())
def test_game_page_examples_run(game, tmp_path):
    """Every game of the table, the toy game of tests/toy_game included: a third-party game's page."""
    page = gamepages.game_page(games.get(game), (DOCS / "rules.md").read_text(encoding="utf-8"))
    log = run_page(f"docs/games/{game}.md", page, tmp_path)
    assert any(line.startswith("ran:") for line in log)


README_BLOCKS = [b for b in examples.blocks((ROOT / "README.md").read_text(encoding="utf-8"), "README.md")
                 if b.lang != "python"]  # its python blocks run in tests/docs/test_readme.py


@pytest.mark.parametrize("block", README_BLOCKS, ids=[f"line{b.line}" for b in README_BLOCKS])
def test_readme_block(block, tmp_path, monkeypatch):
    if block.lang == "bibtex":  # how to cite: an entry, not code
        assert block.text.lstrip().startswith("@software{") and "version" in block.text
        return
    kind = examples.classify(block)
    if kind == "commands":
        checked = examples.check_shown_block(block, ROOT, require_reason=False)
        assert checked and all(not c.startswith("not checked (needs python") for c in checked)
    elif kind == "python":
        monkeypatch.chdir(tmp_path)
        text = examples.readme_python(block)
        if "tianshou" in text:
            pytest.importorskip("tianshou")
        if "sb3_contrib" in text:
            pytest.importorskip("sb3_contrib")
        exec(compile(text, block.where, "exec"), {"__name__": "__readme__"})
    else:
        assert kind == "layout", kind
        assert "/" in block.text  # a file layout: folders and what they hold


def test_the_readme_shows_commands_and_only_the_fiveplay_form():
    """The README is a front door: its shown commands are the two make targets, the installs and
    ``fiveplay VERB`` (never ``python -m experiments.X``, which a wheel does not have); the longer
    blocks live on the site."""
    kinds = [examples.classify(b) for b in README_BLOCKS if b.lang != "bibtex"]
    assert sum(k == "commands" for k in kinds) >= 3
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "python -m fiveplay_env.experiments" not in readme and "fiveplay replay" in readme


def test_shown_fiveplay_commands_parse_with_the_verbs_own_parser():
    assert examples.check_command("fiveplay tournament --game take5 --agents random random --games 4", ROOT
                                  ).startswith("parsed:")
    assert examples.check_command("fiveplay games take5 --json", ROOT).startswith("parsed:")
    assert examples.check_command("fiveplay play --port 8001", ROOT).startswith("parsed:")  # an alias
    for wrong in ("fiveplay tournament --games many", "fiveplay train --no-such-option", "fiveplay tournamnet",
                  "fiveplay games --bogus"):
        with pytest.raises(ValueError, match="does not parse"):
            examples.check_command(wrong, ROOT)
