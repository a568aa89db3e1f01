"""The long description's relative links as plain text, in a built wheel's and a metadata folder's
``METADATA`` (``fiveplay_build``): a package index page cannot follow ``[text](docs/rules.md)``. Nothing
else of a distribution is changed (no source file is rewritten). Standard library only.
"""
from __future__ import annotations

import base64
import csv
import hashlib
import io
import os
import re
import zipfile


_LINK = re.compile(r"(?<!!)\[([^\]\n]+)\]\(([^)\s]+)\)")


def plain_links(markdown: str) -> str:
    """Markdown whose relative links (which a package index page cannot follow) are plain text:
    ``[text](docs/x.md)`` -> ``text (docs/x.md in the repository)``, ``[text](#part)`` -> ``text``.
    Absolute links (``scheme:``) and fenced code blocks are kept."""
    out, fence = [], None
    for line in markdown.splitlines(keepends=True):
        stripped = line.lstrip()
        if fence is None and stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
        elif fence is not None:
            if stripped.startswith(fence):
                fence = None
        else:
            line = _LINK.sub(_plain, line)
        out.append(line)
    return "".join(out)


def _plain(m: re.Match[str]) -> str:
    text, target = m.group(1), m.group(2)
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", target):
        return m.group(0)
    if target.startswith("#"):
        return text
    where = target.split("#")[0]
    bare = text.strip("`")
    return f"{text} (in the repository)" if bare == where else f"{text} ({where} in the repository)"


def rewrite_metadata(text: str) -> str:
    """``METADATA`` with its body (the long description) through ``plain_links``; headers unchanged."""
    head, sep, body = text.partition("\n\n")
    return head + sep + plain_links(body) if sep else text


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def rewrite_wheel_metadata(path: str) -> None:
    """The wheel at ``path`` with its ``METADATA`` through ``rewrite_metadata`` and ``RECORD`` to match."""
    with zipfile.ZipFile(path) as z:
        infos = z.infolist()
        contents = {i.filename: z.read(i) for i in infos}
    metadata = [n for n in contents if n.endswith(".dist-info/METADATA") and n.count("/") == 1]
    if len(metadata) != 1:
        raise ValueError(f"{path}: expected one .dist-info/METADATA in the wheel, got {metadata}")
    record = metadata[0].rsplit("/", 1)[0] + "/RECORD"
    contents[metadata[0]] = rewrite_metadata(contents[metadata[0]].decode("utf-8")).encode("utf-8")
    rows = [(i.filename, _record_hash(contents[i.filename]), str(len(contents[i.filename])))
            for i in infos if i.filename != record] + [(record, "", "")]
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    contents[record] = buf.getvalue().encode()
    tmp = path + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for info in infos:
            z.writestr(info, contents[info.filename])
    os.replace(tmp, path)
