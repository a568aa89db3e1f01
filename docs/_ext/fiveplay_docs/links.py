"""The offline link check of the Markdown sources: every relative link resolves.

Sphinx checks the links between the site's own pages (MyST reports a missing document or heading, and
nitpicky mode every unresolved reference); this module checks what it does not see: ``README.md``
(not a page of the site) and every relative link of the Markdown files under ``docs/`` to a file
outside the site (``../fiveplay_env/take5/config.py``), with its ``#anchor`` when the target is a
Markdown file (a heading's slug, as MyST makes it, or a ``(label)=`` target). External URLs
(``https://...``) are not fetched: this check runs without a network.
"""
from __future__ import annotations

import re
from pathlib import Path

FENCE = re.compile(r"^(`{3,}|~{3,}).*?^\1\s*$", re.M | re.S)
INLINE_CODE = re.compile(r"(`+).+?\1", re.S)
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def prose(text: str) -> str:
    """The text without fenced code blocks and inline code (links there are not links)."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def anchors(path: Path) -> set[str]:
    """The anchors a Markdown file offers: heading slugs (MyST's) and ``(label)=`` targets."""
    from myst_parser.mdit_to_docutils.base import default_slugify

    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    out = {default_slugify(m.group(1).strip()) for m in re.finditer(r"^#{1,6}\s+(.+?)\s*#*\s*$", text, re.M)}
    out |= {m.group(1) for m in re.finditer(r"^\(([^()\s]+)\)=\s*$", text, re.M)}
    return out


def links(path: Path) -> list[str]:
    """The link targets of a Markdown file, in order (code excluded)."""
    return [m.group(1) for m in LINK.finditer(prose(path.read_text(encoding="utf-8")))]


def problems(path: Path) -> list[str]:
    """``"file: link -> why"`` for each relative link of ``path`` that does not resolve."""
    out = []
    for target in links(path):
        if SCHEME.match(target) or target.startswith("#") and not target[1:]:
            continue
        file, _, anchor = target.partition("#")
        dest = (path.parent / file).resolve() if file else path.resolve()
        if not dest.exists():
            out.append(f"{path}: {target} -> no such file {dest}")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            out.append(f"{path}: {target} -> {dest.name} has no heading or label {anchor!r}")
    return out


def sources(root: Path) -> list[Path]:
    """README.md and the hand-written Markdown files of the site (build output and generated pages left
    out: the generator's links are checked by Sphinx itself)."""
    docs = root / "docs"
    skip = ("_build", "games", "_generated")
    files = [p for p in sorted(docs.rglob("*.md")) if not any(part in skip for part in p.relative_to(docs).parts)]
    return [root / "README.md", *files]


def check(root: Path) -> list[str]:
    """Every problem of every source (empty when all links resolve)."""
    return [p for path in sources(root) for p in problems(path)]
