"""The rewrite behind the build backend (``fiveplay_build``): a setuptools wheel's ``agents`` and
``experiments`` packages moved under ``fiveplay_env``, with the code, ``entry_points.txt``, ``METADATA``
and ``RECORD`` to match (the way pip ships its dependencies as ``pip._vendor``). Standard library only.

| checkout                        | wheel                                        |
|---------------------------------|----------------------------------------------|
| ``agents/...``                  | ``fiveplay_env/agents/...``                  |
| ``experiments/...``             | ``fiveplay_env/experiments/...``             |
| ``from agents.x import y``      | ``from fiveplay_env.agents.x import y``      |
| ``import agents.x`` (side effect)| ``import fiveplay_env.agents.x``            |
| ``"agents.registry:make_agent"``| ``"fiveplay_env.agents.registry:make_agent"``|
| ``"python -m experiments.train"``| ``"python -m fiveplay_env.experiments.train"``|
| ``entry_points.txt`` values     | the same, moved                              |
| ``RECORD``                      | recomputed (hashes and sizes)                |

Every ``.py`` file of the wheel is rewritten from its tokens (its line and column structure kept):
imports of the moved packages (absolute; relative imports need nothing), and the string literals that
name one of their real modules (the dotted names found in the wheel itself, not a pattern guessed in
advance): ``"agents.registry"``, ``"agents.registry:make_agent"``, ``"agents.learned.algorithms.ppo.PPOConfig"``,
``"python -m experiments"``, ``[..., "-m", "experiments"]``, ``"from agents import x"``. A word that merely
reads like a package (``"agents: expected ..."``, a record's ``"agents"`` key) is left alone. An import
form the rewrite cannot keep equivalent (``import agents.x`` whose name ``agents`` the module then uses,
or a bare ``import agents``) raises ``RelocationError`` (the build fails), naming the file and line.

The long description (``METADATA``'s body, the README) loses its relative links, which a package
index page cannot follow: ``[text](docs/rules.md)`` becomes ``text (docs/rules.md in the repository)``
and ``[text](#section)`` becomes ``text``; absolute links and code blocks are kept.
"""
from __future__ import annotations

import ast
import base64
import csv
import hashlib
import io
import os
import re
import tokenize
import zipfile

HOST = "fiveplay_env"
"""The one top-level package of the wheel."""

MOVED = ("agents", "experiments")
"""The checkout's other top-level packages, moved under ``HOST`` in the wheel."""


class RelocationError(RuntimeError):
    """A file of the wheel that the rewrite cannot keep equivalent (the build fails with it)."""


# --- module names --------------------------------------------------------------------------------------


def modules_of(names: list[str]) -> set[str]:
    """The dotted module names of the moved packages among the wheel's file names (``agents/x/y.py`` ->
    ``agents.x.y``; a package's ``__init__.py`` names the package)."""
    out = set()
    for name in names:
        parts = name.split("/")
        if parts[0] in MOVED and name.endswith(".py"):
            parts[-1] = parts[-1][:-3]
            if parts[-1] == "__init__":
                parts.pop()
            out.add(".".join(parts))
    return out


_DOTTED = re.compile(r"(?<![\w./-])(" + "|".join(MOVED) + r")((?:\.[A-Za-z_]\w*)+)")
_DASH_M = re.compile(r"(-m\s+)(" + "|".join(MOVED) + r")(?![\w.])")
_FROM_IMPORT = re.compile(r"(?<![\w.])(from\s+)(" + "|".join(MOVED) + r")(\s+import\b)")


def rewrite_text(text: str, modules: set[str]) -> str:
    """``text`` (a string literal's content) with every name of a moved module put under ``HOST``:
    a dotted name whose longest module prefix (two parts at least) is one of ``modules``, and the bare
    package after ``-m`` or in ``from PACKAGE import``. Anything else is unchanged."""

    def dotted(m: re.Match[str]) -> str:
        parts = (m.group(1) + m.group(2)).split(".")
        for k in range(len(parts), 1, -1):
            if ".".join(parts[:k]) in modules:
                return f"{HOST}.{m.group(0)}"
        return m.group(0)

    text = _DOTTED.sub(dotted, text)
    text = _DASH_M.sub(lambda m: f"{m.group(1)}{HOST}.{m.group(2)}", text)
    return _FROM_IMPORT.sub(lambda m: f"{m.group(1)}{HOST}.{m.group(2)}{m.group(3)}", text)


# --- Python sources ------------------------------------------------------------------------------------

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Module)


def _binds(scope: ast.AST, name: str) -> bool:
    """Whether a nested scope binds ``name`` itself (an argument or an assignment), hiding the outer one."""
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        a = scope.args
        if name in {x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if x is not None}:
            return True
    for node in _own_nodes(scope):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            return True
    return False


def _own_nodes(scope: ast.AST):
    """The nodes of ``scope``, not descending into nested scopes."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _SCOPES):
            stack.extend(ast.iter_child_nodes(node))


def _loads(scope: ast.AST, name: str) -> list[int]:
    """Lines where ``scope`` (or a nested scope that does not bind it) reads the variable ``name``."""
    lines = []
    for node in _own_nodes(scope):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            lines.append(node.lineno)
        elif isinstance(node, _SCOPES) and not _binds(node, name):
            lines.extend(_loads(node, name))
    return lines


def _scopes_of_imports(tree: ast.Module):
    """``(import node, its enclosing scope)`` for every ``import`` and ``from ... import`` statement."""
    stack: list[tuple[ast.AST, ast.AST]] = [(tree, tree)]
    while stack:
        node, scope = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                yield child, scope
            stack.append((child, child if isinstance(child, _SCOPES) else scope))


def _offsets(source: str) -> list[int]:
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return starts


def rewrite_source(source: str, modules: set[str], filename: str) -> str:
    """A Python file of the wheel with its imports of the moved packages and the string literals naming
    their modules put under ``HOST``. ``RelocationError`` for an import form it cannot keep equivalent."""
    tree = ast.parse(source, filename)
    starts = _offsets(source)
    edits: list[tuple[int, int, str]] = []  # (start offset, end offset, replacement)

    def at(line: int, col: int) -> int:
        # ast columns are UTF-8 byte offsets; tokenize's are characters
        text = source[starts[line - 1]:starts[line]]
        return starts[line - 1] + len(text.encode("utf-8")[:col].decode("utf-8"))

    def fail(line: int, what: str) -> RelocationError:
        return RelocationError(f"{filename}:{line}: {what}; the wheel's rewrite (build_backend/fiveplay_build.py) "
                               f"expected 'from {MOVED[0]}.x import y', 'import {MOVED[0]}.x as y' or a side-effect "
                               f"'import {MOVED[0]}.x' whose name {MOVED[0]!r} the scope does not use")

    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    for node, scope in _scopes_of_imports(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level or node.module is None or node.module.split(".")[0] not in MOVED:
                continue
            start = at(node.lineno, node.col_offset)
            top = node.module.split(".")[0]
            for tok in tokens:  # the first NAME after 'from' is the module's first part
                off = starts[tok.start[0] - 1] + tok.start[1]
                if off > start and tok.type == tokenize.NAME:
                    if tok.string != top:
                        raise fail(node.lineno, f"could not find the module name after 'from' (found {tok.string!r})")
                    edits.append((off, off + len(top), f"{HOST}.{top}"))
                    break
            continue
        for alias in node.names:
            top = alias.name.split(".")[0]
            if top not in MOVED:
                continue
            if alias.asname is None:
                if "." not in alias.name:
                    raise fail(node.lineno, f"'import {top}' binds the package itself")
                used = _loads(scope, top)
                if used:
                    raise fail(node.lineno, f"'import {alias.name}' whose name {top!r} is then read (line {used[0]})")
                if not isinstance(scope, ast.Module) and _loads(scope, HOST):
                    raise fail(node.lineno, f"'import {alias.name}' in a scope that reads {HOST!r}, which the "
                                            f"rewritten import would make local")
            off = at(alias.lineno, alias.col_offset)
            if source[off:off + len(top)] != top:
                raise fail(node.lineno, f"could not find {top!r} where the import's name starts")
            edits.append((off, off + len(top), f"{HOST}.{top}"))

    significant = [t for t in tokens if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT,
                                                       tokenize.INDENT, tokenize.DEDENT)]
    for k, tok in enumerate(significant):
        if tok.type == tokenize.STRING or tok.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
            new = _rewrite_literal(tok.string, modules, tok.type == tokenize.STRING)
            if (tok.type == tokenize.STRING and k >= 2 and significant[k - 1].string == ","
                    and _literal(significant[k - 2].string) == "-m" and _literal(tok.string) in MOVED):
                new = tok.string.replace(_literal(tok.string), f"{HOST}.{_literal(tok.string)}")  # [..., "-m", "experiments"]
            if new != tok.string:
                start = starts[tok.start[0] - 1] + tok.start[1]
                end = starts[tok.end[0] - 1] + tok.end[1]
                if source[start:end] != tok.string:  # FSTRING_MIDDLE's text is unescaped ({{ -> {)
                    new = rewrite_text(source[start:end], modules)
                edits.append((start, end, new))

    out = source
    for start, end, new in sorted(edits, reverse=True):
        out = out[:start] + new + out[end:]
    if edits:
        ast.parse(out, filename)  # the rewrite kept it Python (raises SyntaxError otherwise)
    return out


def _literal(token: str) -> object:
    """The value of a plain string token (``"-m"``), or None for anything else."""
    try:
        value = ast.literal_eval(token)
    except (ValueError, SyntaxError):
        return None
    return value if isinstance(value, str) else None


def _rewrite_literal(token: str, modules: set[str], whole: bool) -> str:
    """A string token rewritten; an f-string token (Python < 3.12: one STRING token) keeps its ``{...}``
    expressions as they are."""
    if not whole:
        return rewrite_text(token, modules)
    prefix = re.match(r"[A-Za-z]*", token).group(0)
    if "b" in prefix.lower():
        return token
    if "f" not in prefix.lower():
        return rewrite_text(token, modules)
    parts = re.split(r"(\{\{|\}\}|\{[^{}]*\})", token)  # literal braces and (unnested) expressions
    return "".join(p if p.startswith("{") and p != "{{" or p == "}}" else rewrite_text(p, modules) for p in parts)


# --- dist-info -----------------------------------------------------------------------------------------


def rewrite_entry_points(text: str, modules: set[str]) -> str:
    """``entry_points.txt`` with every value naming a moved module put under ``HOST`` (names and groups kept)."""
    out = []
    for line in text.splitlines(keepends=True):
        if "=" in line and not line.lstrip().startswith(("[", "#", ";")):
            name, value = line.split("=", 1)
            line = f"{name}={rewrite_text(value, modules)}"
        out.append(line)
    return "".join(out)


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


def rewrite_dist_info(name: str, data: bytes, modules: set[str]) -> bytes:
    base = name.rsplit("/", 1)[-1]
    if base == "entry_points.txt":
        return rewrite_entry_points(data.decode("utf-8"), modules).encode("utf-8")
    if base == "METADATA":
        return rewrite_metadata(data.decode("utf-8")).encode("utf-8")
    if base == "top_level.txt":
        return f"{HOST}\n".encode()
    return data


# --- the wheel -----------------------------------------------------------------------------------------


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def relocate_wheel(path: str) -> None:
    """Rewrite the wheel at ``path`` in place: the moved packages under ``HOST``, the Python files'
    imports and module names, ``entry_points.txt``, ``METADATA``'s links and ``RECORD``."""
    with zipfile.ZipFile(path) as z:
        infos = z.infolist()
        contents = {i.filename: z.read(i) for i in infos}
    names = [i.filename for i in infos]
    dist_info = {n.split("/")[0] for n in names if n.split("/")[0].endswith(".dist-info")}
    if len(dist_info) != 1:
        raise RelocationError(f"{path}: expected one .dist-info folder in the wheel, got {sorted(dist_info)}")
    (dist_info_dir,) = dist_info
    tops = {n.split("/")[0] for n in names} - dist_info
    unexpected = tops - {HOST, *MOVED}
    if unexpected or HOST not in tops:
        raise RelocationError(f"{path}: expected the top-level packages {HOST!r} and {list(MOVED)}, got {sorted(tops)}")
    clash = [n for n in names if n.split("/")[0] == HOST and n.split("/")[1:2] and n.split("/")[1] in MOVED]
    if clash:
        raise RelocationError(f"{path}: {clash[0]} would be overwritten by the moved package")
    modules = modules_of(names)
    record = f"{dist_info_dir}/RECORD"
    out: list[tuple[zipfile.ZipInfo, bytes]] = []
    for info in infos:
        name, data = info.filename, contents[info.filename]
        if name == record:
            continue
        top = name.split("/")[0]
        new_name = f"{HOST}/{name}" if top in MOVED else name
        if top == dist_info_dir:
            data = rewrite_dist_info(name, data, modules)
        elif name.endswith(".py"):
            source = data.decode("utf-8")
            data = rewrite_source(source, modules, name).encode("utf-8")
        new = zipfile.ZipInfo(new_name, date_time=info.date_time)
        new.external_attr, new.compress_type = info.external_attr, info.compress_type
        out.append((new, data))
    rows = [(i.filename, _record_hash(d), str(len(d))) for i, d in out] + [(record, "", "")]
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    rec = zipfile.ZipInfo(record, date_time=infos[-1].date_time)
    rec.external_attr, rec.compress_type = infos[-1].external_attr, zipfile.ZIP_DEFLATED
    out.append((rec, buf.getvalue().encode()))
    tmp = path + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for info, data in out:
            z.writestr(info, data)
    os.replace(tmp, path)
