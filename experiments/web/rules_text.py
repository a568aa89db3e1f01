"""The rules panel of the web app, read from the rule book the documentation site publishes (docs/rules.md).

One source of truth: the web app shows the same text as the docs' rules page, parsed at run time, never
a copy. ``rules(game)`` is one game's part of the book (its chapter: its web view's ``rules_chapter``,
``fiveplay_env.experiments.web.games``) as plain data for the browser:

| key       | what                                                                                          |
|-----------|-----------------------------------------------------------------------------------------------|
| game      | the game's name                                                                               |
| title     | the game's chapter title ("1. Take 5 (6 nimmt!, ...)")                                         |
| intro     | the chapter's opening paragraphs (what the game is about)                                      |
| sections  | its sections, each ``{"number", "title", "player", "blocks"}``; ``player`` is True for the     |
|           | numbered sections a player needs (1.1..1.5, 2.1..2.8), False for the book's additions (1.A...) |
| ...       | what the game's web view adds from its chapter (``rules_extra``; 5 Alive: ``cards``, each card |
|           | kind's explanation from section 2.4 "Card effects")                                           |
| source    | where the text comes from ("docs/rules.md")                                                    |

A block is ``{"p": text}``, ``{"list": [{"text", "items": [...]}], "ordered": bool}`` or
``{"table": [[header cells], [cells], ...]}``; text is plain (Markdown emphasis, code and links are
reduced to their words), so the browser sets it as text, never as HTML. What is written for
programmers (code blocks, paragraphs "Source: ..." and "In code: ...") is left out.

Where the book is not on disk (an installed wheel carries no docs/), ``rules`` returns
``{"game", "missing": message}`` and the panel says where the rules are instead.
"""
from __future__ import annotations

import functools
import os
import re
from typing import Any

from fiveplay_env.experiments.web import games as web_views
from fiveplay_env import games

RULES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "rules.md")
"""docs/rules.md of the checkout this module runs from."""

_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_CODE = re.compile(r"`([^`]*)`")
_EMPH = re.compile(r"(\*\*|__|\*)(?=\S)(.+?)(?<=\S)\1")
_ITEM = re.compile(r"^(\s*)(?:([-*])|(\d+)\.)\s+(.*)$")
_HEAD = re.compile(r"^(#{2,3})\s+(\S+)\s+(.*)$")
_SKIP_PREFIXES = ("Source:", "In code:")


def plain(text: str) -> str:
    """Markdown inline markup reduced to its words (links to their text, code and emphasis unmarked)."""
    text = _LINK.sub(r"\1", text)
    text = _CODE.sub(r"\1", text)
    for _ in range(2):
        text = _EMPH.sub(r"\2", text)
    return re.sub(r"\s+", " ", text).strip()


def _cells(line: str) -> list[str]:
    return [plain(c) for c in line.strip().strip("|").split("|")]


def blocks(lines: list[str]) -> list[dict[str, Any]]:
    """The blocks (paragraphs, lists two levels deep, tables) of a section's Markdown lines."""
    out: list[dict[str, Any]] = []
    para: list[str] = []
    lst: dict[str, Any] | None = None
    item: dict[str, Any] | None = None  # the list item that continuation lines extend
    base = 0

    def flush_para() -> None:
        nonlocal para
        text = plain(" ".join(para))
        if text and not text.startswith(_SKIP_PREFIXES):
            out.append({"p": text})
        para = []

    def end_list() -> None:
        nonlocal lst, item
        if lst is not None:
            for it in lst["list"]:
                it["items"] = [s for s in it["items"] if not s["text"].startswith(_SKIP_PREFIXES)]
            lst["list"] = [it for it in lst["list"] if not it["text"].startswith(_SKIP_PREFIXES)]
            if lst["list"]:
                out.append(lst)
        lst = item = None

    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip().startswith("```"):  # code for programmers: not for the table
            flush_para()
            end_list()
            i += 1
            while i < len(lines) and not lines[i].strip().startswith("```"):
                i += 1
            i += 1
            continue
        if not line.strip():
            flush_para()
            i += 1
            continue
        if line.strip().startswith("|"):
            flush_para()
            end_list()
            rows = []
            while i < len(lines) and lines[i].strip().startswith("|"):
                if not re.fullmatch(r"\|?[\s:|-]+\|?", lines[i].strip()):
                    rows.append(_cells(lines[i]))
                i += 1
            out.append({"table": rows})
            continue
        m = _ITEM.match(line)
        if m and para and m.group(3) is not None and m.group(3) != "1":
            m = None  # "21. ..." wrapped onto a new line: only "1." starts a list inside a paragraph (CommonMark)
        if m:
            flush_para()
            indent = len(m.group(1))
            if lst is None:
                lst = {"list": [], "ordered": m.group(3) is not None}
                base = indent
            entry = {"text": plain(m.group(4)), "items": []}
            if indent > base and lst["list"]:
                lst["list"][-1]["items"].append(entry)
            else:
                lst["list"].append(entry)
            item = entry
        elif item is not None and line.startswith(" "):
            item["text"] = plain(item["text"] + " " + line)
        else:
            end_list()
            para.append(line)
        i += 1
    flush_para()
    end_list()
    return out


@functools.lru_cache(maxsize=4)
def _parsed(path: str, mtime: float) -> dict[str, Any]:
    """The book's chapters: ``{chapter: {"title", "intro", "sections"}}``."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    chapters: dict[str, Any] = {}
    chapter: dict[str, Any] | None = None
    section: dict[str, Any] | None = None
    lines: list[str] = []

    def close() -> None:
        if chapter is None:
            return
        if section is None:
            chapter["intro"] = blocks(lines)
        else:
            section["blocks"] = blocks(lines)

    for line in text.splitlines():
        m = _HEAD.match(line)
        if m:
            close()
            lines = []
            level, number, title = len(m.group(1)), m.group(2).rstrip("."), m.group(3).strip()
            if level == 2:
                chapter = {"title": f"{number}. {plain(title)}", "intro": [], "sections": []}
                chapters[number] = chapter
                section = None
            elif chapter is not None:
                section = {"number": number, "title": plain(title), "player": bool(re.fullmatch(r"\d+\.\d+", number))}
                chapter["sections"].append(section)
            continue
        if line.strip() == "---":
            continue
        lines.append(line)
    close()
    return chapters


def rules(game: str, path: str | None = None) -> dict[str, Any]:
    """``game``'s chapter of the rule book as data (module docstring); a game without a chapter (its web
    view names none: ``fiveplay_env.experiments.web.games``) gets its ``GameDef`` title and description instead."""
    definition = games.get(game)  # ValueError naming the known games
    v = web_views.view(game)
    if v.rules_chapter is None:
        intro = [{"p": plain(definition.describe)}] if definition.describe else []
        return {"game": game, "title": definition.title, "intro": intro, "sections": [],
                "source": "the game's own description (it has no chapter in the rule book)"}
    path = os.path.abspath(path or RULES_FILE)
    try:
        chapter = _parsed(path, os.path.getmtime(path))[v.rules_chapter]
    except (OSError, KeyError):
        return {"game": game, "missing": "The rule book (docs/rules.md) is not installed here: read it in the "
                                         "project's documentation, page \"The rules of Take 5 and 5 Alive\"."}
    out = {"game": game, "title": chapter["title"], "intro": chapter["intro"], "sections": chapter["sections"],
           "source": "docs/rules.md"}
    if v.rules_extra is not None:
        out.update(v.rules_extra(chapter))
    return out
