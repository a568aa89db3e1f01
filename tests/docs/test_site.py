"""The documentation site (docs/, Sphinx + MyST): it builds with warnings as errors and nitpicky
references, as ``make docs`` builds it (once per test session, in a fresh interpreter); every game of
the table has its generated page with its config fields, presets, actions, observation pieces and
history; the API reference has the public modules; the results pages hold the tables of the run
artefacts; relative links resolve. The generators' own checks are tested on made-up inputs."""
from __future__ import annotations

import dataclasses
import html
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS / "_ext"))

from fiveplay_docs import docstrings, gamepages, links, results  # noqa: E402
from fiveplay_env import games  # noqa: E402

BUILD = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q", "-b", "html"]  # = make docs


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site built once, as ``make docs`` builds it: ``(output folder, what sphinx printed)``."""
    out = tmp_path_factory.mktemp("site")
    proc = subprocess.run([*BUILD, "-d", str(out / "doctrees"), str(DOCS), str(out / "html")], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"the docs build failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-8000:]}"
    return out / "html", proc.stdout + proc.stderr


def text_of(page: Path) -> str:
    """A built page's text, tags stripped and entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))


@pytest.mark.slow
def test_the_site_builds_without_a_warning(site):
    out, said = site
    assert "WARNING" not in said and "ERROR" not in said, said
    for page in ("index", "install", "rules", "architecture", "training", "games/index", "tutorials/index",
                 "tutorials/quickstart", "tutorials/train", "tutorials/evaluate", "tutorials/own_bot",
                 "tutorials/vector", "tutorials/cluster", "tutorials/web", "tutorials/new_game", "results/index",
                 "results/ladders", "results/models", "results/throughput", "api/index"):
        assert (out / f"{page}.html").is_file(), page


@pytest.mark.slow
@pytest.mark.parametrize("name", [g.name for g in games.BUILTIN])
def test_every_built_in_game_has_its_generated_page(site, name):
    out, _ = site
    game = games.get(name)
    page = text_of(out / "games" / f"{name}.html")
    assert game.title in page and name in text_of(out / "games" / "index.html")
    for f in dataclasses.fields(game.config_cls):
        assert f.name in page, f"config field {f.name} missing from the {name} page"
    for preset in game.presets:
        assert preset in page
    pieces = gamepages.observation_pieces(game, game.config_cls())
    assert pieces
    for piece, offset, size in pieces:  # each piece with its offset and size at the default config
        assert re.search(rf"{piece}.*?{offset}, {size}", page, re.S), piece
    assert f"Discrete({game.num_actions})" in page
    for version, _ in game.history:
        assert f"v{version}" in page
    for metric in game.metrics:
        assert metric.meaning in page


@pytest.mark.slow
def test_the_api_reference_documents_the_public_modules(site):
    out, _ = site
    every = "".join((out / "api").joinpath(p).read_text(encoding="utf-8") for p in
                    sorted(x.name for x in (out / "api").glob("*.html")))
    for module in ("fiveplay_env", "fiveplay_env.take5_v0", "fiveplay_env.five_alive_v0", "fiveplay_env.games",
                   "fiveplay_env.vector", "fiveplay_env.records", "fiveplay_env.testing", "fiveplay_env.wrappers",
                   "fiveplay_env.integrations.rllib", "fiveplay_env.integrations.sb3", "fiveplay_env.agents.base",
                   "fiveplay_env.agents.registry", "fiveplay_env.agents.search", "fiveplay_env.experiments.tournament", "fiveplay_env.experiments.train"):
        assert f'id="module-{module}"' in every, module
    assert 'id="fiveplay_env.vector.make_vec"' in every
    assert 'id="fiveplay_env.take5.config.Take5Config"' in every
    # a docstring's Markdown table became a table, not a line block
    take5 = (out / "api" / "take5.html").read_text(encoding="utf-8")
    assert re.search(r"<table[^>]*>.*?ROW_CHOICE|<table[^>]*>.*?row_stats", take5, re.S)


@pytest.mark.slow
def test_the_results_pages_hold_the_run_artefacts_tables(site):
    out, _ = site
    source = (DOCS / "results" / "ladders.md").read_text(encoding="utf-8")
    ladder_rows = re.findall(r"^\| 1 \| `([^`]+)` \|", source, re.M)  # each ladder's first place
    assert len(ladder_rows) >= 2
    ladders = text_of(out / "results" / "ladders.html")
    for agent in ladder_rows:
        assert agent in ladders
    cards = (ROOT / "agents" / "learned" / "pretrained" / "README.md").read_text(encoding="utf-8")
    models = text_of(out / "results" / "models.html")
    for name, command in re.findall(r"^\| `([^`]+)` \|.*\| `(python -m fiveplay_env.experiments\.train [^`]+)` \|$", cards, re.M):
        assert name in models and command in models
    assert "RLlib PPO sampling" in text_of(out / "results" / "throughput.html")
    assert "First-player advantage" in text_of(out / "results" / "five_alive.html")


@pytest.mark.slow
def test_no_page_of_the_site_names_the_specification_files(site):
    """Users have docs/rules.md and docs/architecture.md, never the project's specification files: a
    docstring still citing one is shown as a link to the rule book or the architecture page."""
    out, _ = site
    named = [str(p.relative_to(out)) for p in out.rglob("*.html")
             if re.search(rf"\b({'|'.join(SPEC_FILES)})\b", text_of(p))]
    assert named == []
    core = (out / "api" / "take5.html").read_text(encoding="utf-8")
    assert 'href="../rules.html"' in core  # the docstrings' citations became links


@pytest.mark.slow
def test_the_built_site_has_no_broken_internal_link(site):
    out, _ = site
    missing = []
    for page in out.rglob("*.html"):
        for target in re.findall(r'href="([^"#:]+\.html)(?:#[^"]*)?"', page.read_text(encoding="utf-8")):
            if not (page.parent / target).resolve().exists():
                missing.append(f"{page.relative_to(out)} -> {target}")
    assert not missing, missing


def test_relative_links_of_the_readme_and_the_sources_resolve():
    assert links.check(ROOT) == []
    assert ROOT / "README.md" in links.sources(ROOT)


def test_the_link_check_finds_a_missing_file_and_a_missing_heading(tmp_path):
    (tmp_path / "other.md").write_text("# Other page\n\n## A section\n\n(a-label)=\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text("[ok](other.md#a-section) [label](other.md#a-label) [web](https://example.org/x)\n"
                    "[gone](missing.md) [bad anchor](other.md#nowhere)\n"
                    "`[in code](nowhere.md)`\n\n```\n[in a block](nowhere.md)\n```\n", encoding="utf-8")
    found = links.problems(page)
    assert len(found) == 2, found
    assert "missing.md" in found[0] and "nowhere" in found[1]


def test_the_readme_links_the_site():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "](docs/index.md)" in readme and "make docs" in readme


def test_make_docs_and_the_docs_extra():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^docs: ", makefile, re.M)
    recipe = makefile.split("\ndocs: ", 1)[1].split("\n\n", 1)[0]
    assert "sphinx -W --keep-going -n" in recipe and "docs/_build/html" in recipe
    install = next(line for line in makefile.splitlines() if 'pip install -q -e ".[' in line)
    assert "docs" in install.split("[", 1)[1]
    import tomllib

    extra = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"]["docs"]
    assert {re.split(r"[<>=]", r)[0] for r in extra} >= {"sphinx", "myst-parser"}
    assert all(">=" in r and "<" not in r and "==" not in r for r in extra)  # lower bounds only


# --- the generators, on made-up inputs ------------------------------------------------------------------
def test_a_registered_third_party_game_gets_a_page_the_same_way():
    from tests.toy_game import GAME as TOY

    page = gamepages.game_page(TOY)
    assert page.startswith("(toybid)=\n# Toy bid (tests)")
    for f in dataclasses.fields(TOY.config_cls):
        assert f"| `{f.name}` |" in page
    assert "| `three` | `num_players=3` |" in page           # its preset, by the fields it changes
    assert "has no action table" in page and "has no layout table" in page  # says so, invents nothing
    assert "`tests.toy_game.env`" in page and "{py:" not in page  # no link into this site's API for it
    index = gamepages.index_page([games.get("take5"), TOY])
    assert "[Toy bid (tests)](toybid.md)" in index


def _fake_observation_game(doc: str, layout: dict[str, tuple[int, int]]):
    """Take 5's definition with an observation module of our own (its docstring and pieces())."""
    mod = types.ModuleType("fake_observation_for_docs")
    mod.__doc__ = doc
    mod.pieces = lambda num_players: dict(layout)

    def observe(config, state, player):
        return None

    observe.__module__ = mod.__name__
    sys.modules[mod.__name__] = mod
    take5 = games.get("take5")
    size = sum(s for _, s in layout.values())
    return dataclasses.replace(take5, observe_state=observe, observation_size=lambda config: size)


TABLE = """Fake layout.

| offset | size | piece | meaning |
|--------|------|-------|---------|
| 0      | 2    | a     | the first |
| 2      | 3    | b     | the second, |
|        |      |       | on two lines |
"""


def test_the_observation_section_is_the_docstring_table_with_the_code_offsets():
    game = _fake_observation_game(TABLE, {"a": (0, 2), "b": (2, 3)})
    text = gamepages.observation_section(game)
    assert "| 2 | 3 | b | the second, on two lines | 2, 3 |" in text


@pytest.mark.parametrize("layout, says", [
    ({"a": (0, 2), "b": (2, 3), "c": (5, 1)}, "does not list"),   # a piece the table lacks
    ({"a": (0, 2), "b": (3, 3)}, "must tile"),                     # a gap
])
def test_a_layout_table_that_disagrees_with_the_code_stops_the_page(layout, says):
    game = _fake_observation_game(TABLE, layout)
    with pytest.raises(gamepages.DocsError, match=says):
        gamepages.observation_section(game)


def test_config_field_docs_come_from_the_attributes_section():
    from fiveplay_env.five_alive.config import FiveAliveConfig

    docs = gamepages.field_docs(FiveAliveConfig)
    assert set(docs) == {f.name for f in dataclasses.fields(FiveAliveConfig)}
    assert docs["draw_order"].startswith("Draw 1 / Draw 2:") and "round_robin" in docs["draw_order"]


def test_docstring_tables_and_examples_become_rest():
    lines = ["Intro:", "", "| id | meaning |", "|----|---------|", "| 0  | ``list[int] | None`` |",
             "|    | continued |", "| 1  | - a dash |", "", "Example", "", "    x = 1", "    print(x)", "",
             "Glued ``os.replace``d."]
    out = docstrings.to_rest(lines)
    text = "\n".join(out)
    assert ".. list-table::" in text and "   * - 0\n     - ``list[int] | None`` continued" in text
    assert "     - \\- a dash" in text                      # not a bullet list
    assert ".. code-block:: python" in text and "    x = 1" in text
    assert "``os.replace``\\ d" in text


SPEC_FILES = ("RULES" + r"\.md", "DESIGN" + r"\.md")
"""The specification files beside a developer's clone (spelled in pieces: no source names them whole)."""


def test_docstrings_cite_the_rule_book_as_a_link_outside_code():
    spec, folder = "RULES" + ".md", "shared" + "/"   # (spelled in pieces, as SPEC_FILES)
    out = docstrings.to_rest([f"Rules: {spec} section 1 and docs/rules.md 2.4, ``{folder}{spec}``, not",
                              f"``open('{spec}')`` in code; docs/architecture.md too."])
    assert out[0] == ("Rules: :doc:`the rule book </rules>` section 1 and :doc:`the rule book </rules>` 2.4, "
                      ":doc:`the rule book </rules>`, not")
    assert out[1] == f"``open('{spec}')`` in code; :doc:`the architecture page </architecture>` too."


def test_a_summary_line_announcing_an_example_keeps_it_a_literal_block():
    """``\"\"\"Mark fn as ...::`` with only the example below it: cleandoc left the example unindented."""
    lines = ["Mark it so::", "", "@agent_factory", "def make_bot(seed, game):", "    return MyBot(seed)"]
    assert docstrings.to_rest(lines) == ["Mark it so::", "", "    @agent_factory", "    def make_bot(seed, game):",
                                         "        return MyBot(seed)"]


def test_the_changelog_and_the_license_ship():
    import tomllib

    import fiveplay_env

    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## {re.escape(fiveplay_env.__version__)}$", changelog, re.M)  # the current version
    assert "fiveplay" in changelog.split("## Unreleased", 1)[-1]
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license-files"] == ["LICENSE"] and "MIT License" in (ROOT / "LICENSE").read_text(encoding="utf-8")


def test_the_results_fragments_come_from_their_sources(tmp_path):
    frags = results.fragments(ROOT)
    assert set(frags) == {"models.md", "extras.md"}
    assert "take5-game-4p" in frags["models.md"] and "`train`" in frags["extras.md"]
    with pytest.raises(gamepages.DocsError, match="Shipped policies"):
        results.section("# x\n\n## Other\n", "### Shipped policies")   # a section gone: the build fails
    assert results.relink("[rules](docs/rules.md#one) [code](fiveplay_env/vector.py)", ROOT / "README.md",
                          ROOT / "docs" / "results") == "[rules](../rules.md#one) code (`fiveplay_env/vector.py`)"


def test_the_readme_names_every_extra_and_only_those():
    import tomllib

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    line = re.search(r"^The extras \(([^)]*)\)", readme, re.M)
    assert line, "README.md: expected 'The extras (`a`, `b`, ...)'"
    named = set(re.findall(r"`([\w-]+)`", line.group(1)))
    declared = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"])
    assert named == declared
