"""The rules as players read them (the rules panel, the rules page, the card explanations), and the rule
book's items they are checked against.

One source: each game's web view declares its rules for players (``PlayerRules``: set-up, a turn, scoring,
the end, every card in a sentence or two) and the new-game panel's words for its options (``Option``);
``rules(game)`` gives them to the browser as plain data:

| key       | what                                                                                          |
|-----------|-----------------------------------------------------------------------------------------------|
| game      | the game's name                                                                               |
| title     | the game's title                                                                              |
| intro     | ``[{"p": text}]``: what the game is about                                                      |
| sections  | ``[{"title", "blocks"}]`` in reading order (a section of cards also has ``cards``:             |
|           | ``[[kinds], text]``), the last one the options as the new-game panel names them                |
| cards     | ``{kind: text}``: each card kind's explanation (empty where the game has none)                |
| source    | where the text comes from                                                                     |

A block is ``{"p": text}`` or ``{"list": [{"text", "items": [...]}], "ordered": bool}``; text is plain,
set by the browser as text, never as HTML. The developer's rule book (docs/rules.md: every default, tag
and engine detail) stays in the documentation; ``book_items(chapter)`` numbers the rules of its player
sections, and each player sentence names the items it says (tests/web/test_player_rules.py checks that
every item is said, and that no engine word reaches a player).
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


def book_items(chapter: str, path: str | None = None) -> dict[str, str]:
    """The rules of a chapter's player sections (1.1..1.5, 2.1..2.8) in the rule book, each list item by its
    number: ``"<section>.<k>"`` for the k-th item of the section (counted across its lists), ``"<...>a"``,
    ``"b"``, ... for the items under it. The player rules (``PlayerRules``) name these numbers."""
    path = os.path.abspath(path or RULES_FILE)
    out: dict[str, str] = {}
    for s in _parsed(path, os.path.getmtime(path))[chapter]["sections"]:
        if not s["player"]:
            continue
        k = 0
        for b in s["blocks"]:
            for it in b.get("list", []):
                k += 1
                out[f"{s['number']}.{k}"] = it["text"]
                for j, sub in enumerate(it["items"]):
                    out[f"{s['number']}.{k}{chr(ord('a') + j)}"] = sub["text"]
    return out


def _items(texts: list[str]) -> list[dict[str, Any]]:
    return [{"list": [{"text": t, "items": []} for t in texts], "ordered": False}] if texts else []


def rules(game: str) -> dict[str, Any]:
    """``game``'s rules for players (module docstring): its web view's ``PlayerRules`` and options; a game
    without them (``fiveplay_env.experiments.web.games``) gets its ``GameDef`` title and description."""
    definition = games.get(game)  # ValueError naming the known games
    v = web_views.view(game)
    if v.rules is None:
        intro = [{"p": plain(definition.describe)}] if definition.describe else []
        return {"game": game, "title": definition.title, "intro": intro, "sections": [], "cards": {},
                "source": "the game's own description"}
    r = v.rules
    sections = [{"title": title, "blocks": _items([text for _covers, text in lines])} for title, lines in r.sections]
    if r.cards:
        sections.insert(1, {"title": r.cards_title, "blocks": _items([text for _k, _c, text in r.cards]),
                            "cards": [[list(kinds), text] for kinds, _c, text in r.cards]})
    options = [f"{o.label}: {o.rule}" for o in v.options.values() if o.rule]
    if options:
        sections.append({"title": r.options_title, "blocks": _items(options)})
    return {"game": game, "title": r.title, "intro": [{"p": r.intro}], "sections": sections,
            "cards": {str(k): text for kinds, _c, text in r.cards for k in kinds},
            "source": "the rules for players (the developer's rule book, with every default and engine detail, is "
                      "docs/rules.md)"}
