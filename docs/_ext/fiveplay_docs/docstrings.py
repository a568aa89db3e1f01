"""The project's docstrings as autodoc reads them.

The docstrings are written to be read in a terminal and in an editor: Google-style sections
(``Attributes:``, ``Args:``, read by napoleon), inline code in double backticks, Markdown pipe tables
(the action, observation and field tables) and indented code examples after a blank line. reST knows
neither of the last two (a pipe table is a broken line block, an indented example a block quote), so
``to_rest`` rewrites them before napoleon runs (``autodoc-process-docstring`` at an earlier priority):

- a pipe table (a ``|``-line, a ``|---|`` separator, more ``|``-lines) becomes a ``list-table``; a row
  whose first cell is empty continues the row above it, cell by cell (how the docstrings wrap long
  cells);
- an indented block after a blank line, under a paragraph that does not end with ``::``, becomes a
  ``code-block`` (Python when it parses as Python, text otherwise);
- a line ending with ``:`` directly followed by an indented block (a field list laid out for a
  terminal) becomes a literal block, kept as it is laid out;
- lists get the blank lines reST wants around them, and an inline literal glued to a word
  (````os.replace``d``) gets reST's escaped space;
- ``docs/rules.md`` and ``docs/architecture.md`` named in prose become links to those pages (and so
  does a stray ``RULES.md`` or ``DESIGN.md``, the project's specification files, which users do not
  have: the site never names them);
- the docstring of an attribute or property whose first line has a colon starts with an empty reST
  comment, so napoleon does not read a first line such as ``Rounds in the game: 1 for ...`` as
  ``type: description`` (the types come from the annotations).
"""
from __future__ import annotations

import ast
import re
import textwrap

_SEPARATOR = re.compile(r"^\|(\s*:?-{2,}:?\s*\|)+\s*$")
_LISTLIKE = re.compile(r"^(?:[-*+](?:\s|$)|\d+[.)]\s|#\.\s)")


_CODE = re.compile(r"``.*?``|`[^`]*`")


def _cells(line: str) -> list[str]:
    """The cells of a table line; a ``|`` inside inline code does not split (``list[bool] | None``)."""
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|"):
        body = body[:-1]
    cells, start, pos = [], 0, 0
    while pos < len(body):
        m = _CODE.match(body, pos)
        if m:
            pos = m.end()
        elif body[pos] == "|":
            cells.append(body[start:pos])
            start = pos = pos + 1
        else:
            pos += 1
    cells.append(body[start:])
    return [c.strip() for c in cells]


def _cell_rest(text: str) -> str:
    """A cell as reST: markers that would start a list are escaped."""
    if _LISTLIKE.match(text):
        return "\\" + text
    return text


def table_rows(lines: list[str]) -> tuple[list[str], list[list[str]]]:
    """``(header, rows)`` of a pipe table's lines; rows whose first cell is empty are merged into the
    row above (cell by cell, joined by a space)."""
    header = _cells(lines[0])
    rows: list[list[str]] = []
    for line in lines[2:]:
        cells = _cells(line)
        if len(cells) > len(header):  # a stray | in the last column's text
            cells = cells[:len(header) - 1] + [" | ".join(cells[len(header) - 1:])]
        cells = (cells + [""] * len(header))[:len(header)]
        if rows and not cells[0]:
            rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells)]
        else:
            rows.append(cells)
    return header, rows


def _list_table(lines: list[str], indent: str) -> list[str]:
    header, rows = table_rows(lines)
    out = [f"{indent}.. list-table::", f"{indent}   :header-rows: 1", ""]
    for row in [header, *rows]:
        for j, cell in enumerate(row):
            mark = "* -" if j == 0 else "  -"
            text = _cell_rest(cell)
            out.append(f"{indent}   {mark} {text}".rstrip())
    out.append("")
    return out


def _is_table_start(lines: list[str], i: int) -> bool:
    return (i + 1 < len(lines) and lines[i].strip().startswith("|") and
            bool(_SEPARATOR.match(lines[i + 1].strip())))


def _indent_of(line: str) -> int:
    return len(line) - len(line.lstrip())


def _looks_python(block: list[str]) -> bool:
    try:
        ast.parse(textwrap.dedent("\n".join(block)))
    except SyntaxError:
        return False
    return True


_NAPOLEON = re.compile(
    r"^\s*(Args|Arguments|Attributes|Returns?|Raises?|Yields?|Notes?|Examples?|Warnings?|Warns|See Also|"
    r"Parameters|Other Parameters|Keyword Args|Keyword Arguments|Methods|Todo|References|Attention|Caution|"
    r"Danger|Error|Hint|Important|Tip):\s*$")
_ITEM = re.compile(r"^\s*(?:[-*+]\s|\d+[.)]\s)")
_LITERAL = re.compile(r"``(?:[^`]|`(?!`))+?``")


_OUTSIDE_DOCS = {
    re.compile(r"(?<![\w/.])(?:(?:\.\./)?shared/)?RULES\.md\b|(?<![\w/])docs/rules\.md\b"): ":doc:`the rule book </rules>`",
    re.compile(r"(?<![\w/.])(?:(?:\.\./)?shared/)?DESIGN\.md\b|(?<![\w/])docs/architecture\.md\b"):
        ":doc:`the architecture page </architecture>`",
}
"""Files a docstring may cite, as links on the site: the rule book (``docs/rules.md``; a docstring
still naming the specification ``RULES.md`` it follows, whose section numbers the book keeps, gets the
book) and the architecture page. A user has neither specification file, so the site never names one."""


def _cite_docs(line: str) -> str:
    """``docs/rules.md`` (or ``RULES.md``) and ``docs/architecture.md`` in prose, or as the whole of an
    inline literal, become links to the site's pages; inside a longer literal (code) they stay."""
    out, pos = [], 0
    for m in [*_LITERAL.finditer(line), None]:
        end = m.start() if m else len(line)
        text = line[pos:end]
        for pattern, link in _OUTSIDE_DOCS.items():
            text = pattern.sub(link, text)
        out.append(text)
        if m:
            inner = m.group(0)[2:-2]
            cited = next((link for pattern, link in _OUTSIDE_DOCS.items() if pattern.fullmatch(inner)), None)
            out.append(cited or m.group(0))  # a literal that is only a file's name cites it too
            pos = m.end()
    return "".join(out)


def _inline(line: str) -> str:
    """Inline literals glued to a word (````os.replace``d``) get reST's escaped space on that side; the
    rule book and the architecture page cited in prose become links (``_cite_docs``)."""
    line = _cite_docs(line)
    out, pos = [], 0
    for m in _LITERAL.finditer(line):
        a, b = m.start(), m.end()
        out.append(line[pos:a])
        if a > 0 and line[a - 1].isalnum():
            out.append("\\ ")
        out.append(m.group(0))
        if b < len(line) and (line[b].isalnum() or line[b] == "("):
            out.append("\\ ")
        pos = b
    out.append(line[pos:])
    return "".join(out)


def _block_end(lines: list[str], i: int, base: int) -> int:
    """The end of the block starting at ``i`` whose lines are blank or indented deeper than ``base``
    (trailing blank lines excluded)."""
    j = i
    while j < len(lines) and (not lines[j].strip() or _indent_of(lines[j]) > base):
        j += 1
    while j > i and not lines[j - 1].strip():
        j -= 1
    return j


def _indent_summary_example(lines: list[str]) -> list[str]:
    """A docstring whose summary line ends with ``::`` and whose body is only the example it introduces
    (``\"\"\"Mark fn as ...::`` then the example indented one level deeper than the closing quotes):
    the docstring's common indentation, which excludes the summary line, removed the example's, so it
    is indented again to be the literal block the ``::`` announces."""
    if len(lines) > 2 and lines[0].rstrip().endswith("::") and not lines[1].strip():
        body = [ln for ln in lines[2:] if ln.strip()]
        if body and min(_indent_of(ln) for ln in body) == 0:
            return [lines[0], lines[1], *(("    " + ln) if ln.strip() else ln for ln in lines[2:])]
    return lines


def to_rest(lines: list[str], what: str = "") -> list[str]:
    """The docstring ``lines`` (as autodoc hands them over) with the rewrites of the module docstring."""
    lines = _indent_summary_example(lines)
    out: list[str] = []
    section: int | None = None     # the indentation of the napoleon section header we are in
    in_list: int | None = None     # the indentation of the current list's markers
    i = 0

    def last_text() -> str | None:
        return next((p for p in reversed(out) if p.strip()), None)

    while i < len(lines):
        line = lines[i]
        ind = _indent_of(line)
        if line.strip() and section is not None and ind <= section:
            section = None
        if _is_table_start(lines, i):
            j = i
            while j < len(lines) and lines[j].strip().startswith("|"):
                j += 1
            if out and out[-1].strip():
                out.append("")
            out.extend(_inline(x) for x in _list_table(lines[i:j], line[:ind]))
            in_list = None
            i = j
            continue
        if section is None and _NAPOLEON.match(line):
            section = ind
            in_list = None
            if out and out[-1].strip():
                out.append("")
            out.append(line)
            i += 1
            continue
        if section is not None:
            out.append(_inline(line))
            i += 1
            continue
        prev = last_text()
        # the literal block a "::" paragraph announces: kept exactly as written
        if (line.strip() and out and not out[-1].strip() and prev is not None and prev.rstrip().endswith("::")
                and ind > _indent_of(prev)):
            j = _block_end(lines, i, _indent_of(prev))
            out.extend(lines[i:j])
            i = j
            continue
        # an indented example after a blank line: a code block
        if (line.strip() and out and not out[-1].strip() and prev is not None and in_list is None
                and ind > _indent_of(prev) and not prev.rstrip().endswith(":")
                and not prev.lstrip().startswith((".. ", "* -", "  -"))):
            base = _indent_of(prev)
            j = _block_end(lines, i, base)
            block = lines[i:j]
            out.extend([" " * base + f".. code-block:: {'python' if _looks_python(block) else 'text'}", ""])
            out.extend(block)
            out.append("")
            i = j
            continue
        # "Something:" followed at once by an indented block (a field list written for a terminal):
        # kept as it is laid out, a literal block
        if (line.strip() and line.rstrip().endswith(":") and not line.rstrip().endswith("::")
                and i + 1 < len(lines) and lines[i + 1].strip() and _indent_of(lines[i + 1]) > ind
                and not _ITEM.match(line) and in_list is None):
            j = _block_end(lines, i + 1, ind)
            out.extend([_inline(line) + ":", ""])
            out.extend(lines[i + 1:j])
            out.append("")
            i = j
            if i < len(lines) and lines[i].strip():
                pass  # the blank line above separates what follows
            continue
        if _ITEM.match(line):
            if in_list is None or ind < in_list:
                if out and out[-1].strip():
                    out.append("")
                in_list = ind
        elif line.strip() and in_list is not None and ind <= in_list:
            if out and out[-1].strip():
                out.append("")
            in_list = None
        elif not line.strip() and in_list is not None:
            nxt = next((x for x in lines[i + 1:] if x.strip()), None)
            if nxt is None or (_indent_of(nxt) <= in_list and not _ITEM.match(nxt)):
                in_list = None
        out.append(_inline(line))
        i += 1
    if what in ("attribute", "property", "data") and out and ":" in out[0]:
        out[:0] = ["..", ""]  # an empty comment: napoleon reads it as the first line, reST shows nothing
    return out


def process_docstring(app, what, name, obj, options, lines: list[str]) -> None:  # noqa: ANN001
    """``autodoc-process-docstring`` handler: ``lines`` rewritten in place by ``to_rest``."""
    lines[:] = to_rest(list(lines), what)
