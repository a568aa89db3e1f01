"""The README's Python examples run as written."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


LINE_BUDGET = 250
"""The README is a front door (issue 42): what it is, the two commands, install, a quick start per game,
what is in the box, the headline results, how to cite, the license. The rest lives on the site."""


def test_readme_has_the_two_commands_with_their_durations():
    text = README.read_text()
    assert "make demo" in text and "make test" in text
    assert re.search(r"make demo\s+# about \d+ minutes", text) and re.search(r"make test\s+# about \d+ minutes", text)


def test_readme_stays_within_its_line_budget():
    lines = README.read_text().count("\n")
    assert lines <= LINE_BUDGET, f"README.md has {lines} lines, over its budget of {LINE_BUDGET}: move detail to docs/"


def test_readme_has_its_sections():
    headings = re.findall(r"^## (.+)$", README.read_text(), re.M)
    for wanted in ("Two commands", "Install", "Quick start", "What is in the box", "Headline results", "How to cite",
                   "License"):
        assert wanted in headings, wanted


@pytest.mark.parametrize("i", range(len(BLOCKS)))
def test_readme_example_runs(i, capsys):
    exec(compile(BLOCKS[i], f"README.md block {i}", "exec"), {"__name__": "__readme__"})
    assert capsys.readouterr().out.strip()  # every example prints its result
