"""Fragments of the site generated from files of the repository, never retyped.

| fragment (``docs/_generated/``)         | source in the repository                                       |
|-----------------------------------------|----------------------------------------------------------------|
| ``models.md``                           | ``agents/learned/pretrained/README.md``: the model cards, which |
|                                         | ``fiveplay_env.experiments.ship`` writes from the policy files (a test holds  |
|                                         | it equal to the cards)                                          |
| ``extras.md``                           | pyproject.toml: the optional extras and what each installs      |

The pages (``docs/results/models.md``, ``docs/install.md``) include these fragments. The ladder tables,
the 5 Alive baselines and the Ray measurements, which the README held before 0.3, are pages of their
own (``docs/results/``), each table as its run wrote it, with its command. ``section`` and
``from_paragraph`` raise ``DocsError`` when what they look for is gone (the build fails), so a renamed
section is noticed, not published empty.
Relative links of the sources are rewritten for the fragment's place (links into ``docs/`` stay
links; links to other files of the repository become the file's name as code).
"""
from __future__ import annotations

import re
from pathlib import Path

from fiveplay_docs.gamepages import DocsError
from fiveplay_docs.links import LINK


def section(text: str, heading: str) -> str:
    """The body of the Markdown section whose heading line is ``heading`` (up to the next heading of the
    same or a higher level)."""
    level = len(heading) - len(heading.lstrip("#"))
    lines = text.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == heading.strip())
    except StopIteration:
        raise DocsError(f"expected a section {heading!r}") from None
    out = []
    fence = None
    for line in lines[start + 1:]:
        f = re.match(r"^(`{3,}|~{3,})", line)
        if f and (fence is None or f.group(1).startswith(fence)):
            fence = None if fence else f.group(1)
        m = re.match(r"^(#{1,6})\s", line)
        if m and fence is None and len(m.group(1)) <= level:
            break
        out.append(line)
    return "\n".join(out).strip() + "\n"


def from_paragraph(text: str, starts: str) -> str:
    """``text`` from its first paragraph that starts with ``starts`` on."""
    m = re.search(rf"^{re.escape(starts)}", text, re.M)
    if not m:
        raise DocsError(f"expected a paragraph starting {starts!r}")
    return text[m.start():]


def relink(text: str, source: Path, page_dir: Path) -> str:
    """Relative links of ``text`` (written in ``source``) made right for a page in ``page_dir``."""
    root = source.parent

    def fix(m: re.Match[str]) -> str:
        whole, target = m.group(0), m.group(1)
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("#"):
            return whole
        file, _, anchor = target.partition("#")
        dest = (root / file).resolve()
        label = whole[whole.index("[") + 1:whole.rindex("](")]
        docs = page_dir.resolve()
        while docs.name != "docs" and docs.parent != docs:
            docs = docs.parent
        if dest.suffix == ".md" and docs in dest.parents:
            rel = Path(*[".."] * len(page_dir.resolve().relative_to(docs).parts), dest.relative_to(docs))
            return f"[{label}]({rel.as_posix()}{'#' + anchor if anchor else ''})"
        return label if label.startswith("`") else f"{label} (`{file}`)"

    return LINK.sub(fix, text)


def demote(text: str, levels: int) -> str:
    """Headings one or more levels down (an included file's ``#`` becomes ``##``...)."""
    return re.sub(r"^(#{1,6})(?=\s)", lambda m: "#" * min(6, len(m.group(1)) + levels), text, flags=re.M)


def extras(root: Path) -> str:
    """The optional extras of pyproject.toml as a table: name, what they install, the install line."""
    import tomllib

    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    rows = ["| extra | installs | from a checkout |", "|---|---|---|"]
    for name, reqs in project.get("optional-dependencies", {}).items():
        rows.append(f"| `{name}` | {', '.join(f'`{r}`' for r in reqs)} | `pip install -e \".[{name}]\"` |")
    core = ", ".join(f"`{r}`" for r in project.get("dependencies", []))
    return f"The core install needs {core}.\n\n" + "\n".join(rows) + "\n"


def fragments(root: Path) -> dict[str, str]:
    """``{file name: Markdown}`` of every fragment (see the module docstring)."""
    page_dir = root / "docs" / "results"
    cards_path = root / "agents" / "learned" / "pretrained" / "README.md"
    cards = cards_path.read_text(encoding="utf-8")
    cards = re.sub(r"^# .*\n+", "", cards, count=1)  # the page has its own title
    return {
        "models.md": relink(demote(cards, 1), cards_path, page_dir),
        "extras.md": extras(root),
    }
