"""The rules panel of the web app, read from the rule book the documentation site publishes (docs/rules.md).

One source of truth: the web app shows the same text as the docs' rules page, parsed at run time, never
a copy. ``rules(game)`` is one game's part of the book as plain data for the browser:

| key       | what                                                                                          |
|-----------|-----------------------------------------------------------------------------------------------|
| game      | the game's name                                                                               |
| title     | the game's chapter title ("1. Take 5 (6 nimmt!, ...)")                                         |
| intro     | the chapter's opening paragraphs (what the game is about)                                      |
| sections  | its sections, each ``{"number", "title", "player", "blocks"}``; ``player`` is True for the     |
|           | numbered sections a player needs (1.1..1.5, 2.1..2.8), False for the book's additions (1.A...) |
| cards     | 5 Alive only: ``{kind id: explanation}`` for every card kind, from section 2.4 ("Card effects")|
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

RULES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "rules.md")
"""docs/rules.md of the checkout this module runs from."""
CHAPTERS = {"take5": "1", "five_alive": "2"}
"""Each game's chapter number in the rule book."""

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


def _card_texts(section: dict[str, Any]) -> dict[int, str]:
    """Each 5 Alive card kind's explanation: the item of "Card effects" whose head names it."""
    from fiveplay_env.five_alive.state import ACTION_NAMES, BUST, NUM_NUMBERS

    out: dict[int, str] = {}
    items = [it for b in section["blocks"] if "list" in b for it in b["list"]]
    for it in items:
        text = re.sub(r"^\[[A-Z]\]\s*", "", it["text"])
        head, _, body = text.partition(":")
        names = [n.strip() for n in re.split(r"\s*/\s*|,\s*", head)]
        for kind, name in enumerate(ACTION_NAMES[:BUST]):
            if kind < NUM_NUMBERS:
                if head.lower().startswith("a number"):
                    out[kind] = f"Number {name}: " + re.sub(r"\bv\b", name, body.strip())
            elif name in names:
                out[kind] = f"{name}: {_pick(body.strip(), names.index(name), len(names))}"
    return out


def _pick(text: str, i: int, k: int) -> str:
    """The text of an item that explains k cards at once ("Draw 1 / Draw 2: ... takes 1 / 2 cards",
    "=21, =10, =0: T is set to 21, 10 or 0") said for its i-th card alone."""
    if k == 1:
        return text
    slash = re.compile(r"\S+(?: / \S+){%d}" % (k - 1))
    text = slash.sub(lambda m: m.group(0).split(" / ")[i], text, count=1)
    words = r"[^\s,]+"
    listed = re.compile(rf"{words}(?:, {words}){{{k - 2}}} or {words}")
    text = listed.sub(lambda m: re.split(r", | or ", m.group(0))[i], text, count=1)
    text = re.sub(r"\b1 cards\b", "1 card", text)
    return text if text.endswith(".") else text + "."


def rules(game: str, path: str | None = None) -> dict[str, Any]:
    """``game``'s chapter of the rule book as data (module docstring)."""
    path = os.path.abspath(path or RULES_FILE)
    number = CHAPTERS.get(game)
    if number is None:
        raise ValueError(f"game: expected one of {sorted(CHAPTERS)}, got {game!r}")
    try:
        chapter = _parsed(path, os.path.getmtime(path))[number]
    except (OSError, KeyError):
        return {"game": game, "missing": "The rule book (docs/rules.md) is not installed here: read it in the "
                                         "project's documentation, page \"The rules of Take 5 and 5 Alive\"."}
    out = {"game": game, "title": chapter["title"], "intro": chapter["intro"], "sections": chapter["sections"],
           "source": "docs/rules.md"}
    if game == "five_alive":
        effects = next((s for s in chapter["sections"] if s["title"].lower() == "card effects"), None)
        out["cards"] = {str(k): v for k, v in sorted(_card_texts(effects).items())} if effects else {}
    return out
