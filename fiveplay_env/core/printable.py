"""Text from outside the program (a record, a plug-in, a checkpoint) made safe to show in a terminal.

A string read from a file or a plug-in may hold escape sequences (a window title, an OSC 52 clipboard
write, cursor moves), a bidirectional override or a newline that forges a line of output. Everything
printed from such a source goes through ``escape`` (or ``quote``): each character Python does not call
printable (``str.isprintable``: control, format, surrogate, private-use, unassigned, line and paragraph
separators, and spaces other than the ASCII space) is written as its escape, ``\\x1b``, ``\\u202e``,
``\\U000e0001``, so the text reads as one printable line and drives nothing.

    >>> escape("evil\\x1b]0;pwned\\x07\\nrecord 1: replays exactly")
    'evil\\\\x1b]0;pwned\\\\x07\\\\nrecord 1: replays exactly'
"""
from __future__ import annotations

from typing import Any

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_char(c: str) -> str:
    if c in _NAMED:
        return _NAMED[c]
    o = ord(c)
    return f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}"


def is_printable(text: str) -> bool:
    """Whether ``text`` shows as itself (every character printable, ``str.isprintable``)."""
    return text.isprintable()


def escape(text: Any, limit: int | None = None) -> str:
    """``text`` (``str()`` of it) with every non-printable character escaped (module docstring), cut to
    ``limit`` characters (``...`` added) when given."""
    s = text if isinstance(text, str) else str(text)
    if not s.isprintable():
        s = "".join(c if c.isprintable() else _escape_char(c) for c in s)
    if limit is not None and len(s) > limit:
        s = s[:max(0, limit - 3)] + "..."
    return s


def quote(text: Any, limit: int = 80) -> str:
    """``text`` escaped (``escape``) in single quotes, cut to about ``limit`` characters: for messages."""
    return "'" + escape(text, limit) + "'"
