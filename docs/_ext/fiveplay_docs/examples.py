"""The code blocks of the site's pages and of the README, and how the tests run them.

The kinds of fenced block a page of the site may hold (the info string after the fence):

| block              | what the test does                                                              |
|--------------------|---------------------------------------------------------------------------------|
| ``python``         | runs it; the blocks of one page run in order in one namespace, in a fresh       |
|                    | temporary working directory (run folders land there), so a page builds on its   |
|                    | earlier blocks                                                                  |
| ``python`` whose   | shown, not run (compiled only: a syntax error fails), for code that costs too   |
| first line is      | much for the suite (compiling the JAX engine) or needs what it lacks (a GPU)    |
| ``# not run by the |                                                                                 |
| tests: ...``       |                                                                                 |
| ``python`` whose   | writes the block to ``NAME`` in the page's working directory (which is on       |
| first line is      | ``sys.path``), for the later blocks and commands to import; not run itself      |
| ``# file: NAME``   |                                                                                 |
| ``pycon``          | a doctest: each ``>>>`` statement runs (in the page's namespace) and what it    |
|                    | prints must match the lines below it (``...`` matches anything, whitespace is   |
|                    | normalised)                                                                      |
| ``console``        | each ``$ python -m MODULE ARGS`` command runs as ``python -m`` would run it (in   |
|                    | this process, in the page's working directory), ``$ fiveplay ARGS`` as         |
|                    | ``python -m fiveplay_env.experiments ARGS`` (the console script's module); the lines below  |
|                    | a command, if any, are its expected output, matched like a doctest's            |
| ``bash``           | shown, not run: its first line must say why (``# not run by the tests: ...``);  |
|                    | each ``python -m fiveplay_env.experiments.NAME ...`` or ``fiveplay VERB ...`` in it must     |
|                    | parse with that command's own parser, ``make TARGET`` must be a target of the   |
|                    | Makefile and ``pip install ... ".[EXTRA]"`` must name extras of pyproject.toml  |
| ``text``, ``json`` | output or a layout, not code                                                    |

A block with no info string is refused on the site (say which kind it is). The README is checked by
the same functions with one difference, since it is written for GitHub (``tests/docs/test_examples.py``):
its ``python`` blocks run in ``tests/docs/test_readme.py``, and its unmarked blocks are sorted by
``classify``: commands (checked as in a ``bash`` block), Python (run, with a budget cut where the block
would train for minutes: ``README_CUTS``) or a layout (not code).
"""
from __future__ import annotations

import argparse
import contextlib
import doctest
import importlib
import importlib.util
import io
import os
import re
import shlex
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FENCE_OPEN = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
NOT_RUN = re.compile(r"^#\s*not run by the tests:\s*\S")
FILE_LINE = re.compile(r"^#\s*file:\s*(?P<name>[\w./-]+\.py)\s*$")
KNOWN_PROGRAMS = ("python", "fiveplay", "make", "pip", "ray", "tensorboard", "apt-get", "source")
OPTIONS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@dataclass(frozen=True)
class Block:
    """One fenced code block: where it is, its info string's first word and its text."""

    source: str
    line: int
    lang: str
    text: str

    @property
    def where(self) -> str:
        return f"{self.source}:{self.line} ({self.lang or 'no language'})"


def blocks(text: str, source: str = "<text>") -> list[Block]:
    """The fenced code blocks of a Markdown text, in order (MyST directives such as ``{toctree}`` are
    not code and are left out)."""
    out: list[Block] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = FENCE_OPEN.match(lines[i])
        if not m:
            i += 1
            continue
        fence, info = m.group("fence"), m.group("info").strip()
        j = i + 1
        while j < len(lines) and not re.match(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}\s*$", lines[j]):
            j += 1
        lang = info.split()[0] if info else ""
        if not lang.startswith("{"):
            out.append(Block(source, i + 1, lang, "\n".join(lines[i + 1:j]) + "\n"))
        i = j + 1
    return out


# --- commands -----------------------------------------------------------------------------------------
def logical_lines(text: str) -> list[str]:
    """Shell lines with ``\\`` continuations joined and comments (whole-line or trailing) dropped."""
    out: list[str] = []
    cur = ""
    for raw in text.splitlines():
        line = raw.rstrip()
        if cur:
            line = cur + " " + line.strip()
            cur = ""
        if line.endswith("\\"):
            cur = line[:-1].rstrip()
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        out.append(_drop_comment(stripped))
    if cur:
        out.append(_drop_comment(cur.strip()))
    return out


def _drop_comment(line: str) -> str:
    lexer = shlex.shlex(line, posix=True, punctuation_chars=False)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        return shlex.join(list(lexer))
    except ValueError:
        return line


class _Parsed(Exception):
    """Raised by the patched ``parse_args``: the command line parsed; the command is not run."""

    def __init__(self, namespace: argparse.Namespace) -> None:
        super().__init__("parsed")
        self.namespace = namespace


def run_as_main(module: str) -> None:
    """What ``python -m module`` runs, in this process: the module (a package's ``__main__``) imported as
    usual, then its ``if __name__ == "__main__":`` block run in it, as ``fiveplay VERB`` does
    (``fiveplay_env.experiments.cli``). Not ``runpy.run_module``: re-running a module already imported under its own
    name warns (``RuntimeWarning: ... found in sys.modules``) and makes a second copy of its classes."""
    from fiveplay_env.experiments import cli

    name = cli.main_module(module)
    code = compile(cli.main_block(name), importlib.util.find_spec(name).origin or name, "exec")
    exec(code, vars(importlib.import_module(name)))


@contextlib.contextmanager
def _argv(argv: list[str]):
    saved = sys.argv
    sys.argv = argv
    try:
        yield
    finally:
        sys.argv = saved


def parse_only(module: str, args: list[str]) -> argparse.Namespace:
    """Parse ``python -m module args`` with the module's own argument parser, and stop there: nothing
    runs. ``ValueError`` with argparse's message when the command line does not parse."""
    original = argparse.ArgumentParser.parse_args

    def parse_args(self, args_=None, namespace=None):  # noqa: ANN001
        raise _Parsed(original(self, args_, namespace))

    err = io.StringIO()
    argparse.ArgumentParser.parse_args = parse_args  # type: ignore[method-assign]
    try:
        with _argv([module, *args]), contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            run_as_main(module)
    except _Parsed as p:
        return p.namespace
    except SystemExit as e:
        said = err.getvalue().strip().splitlines() or ["(nothing)"]
        raise ValueError(f"python -m {module} {shlex.join(args)}: does not parse: {said[-1]} (exit {e.code})"
                         ) from None
    finally:
        argparse.ArgumentParser.parse_args = original  # type: ignore[method-assign]
    raise ValueError(f"python -m {module}: ran to its end without parsing a command line")


def run_command(module: str, args: list[str]) -> tuple[int, str]:
    """Run ``python -m module args`` in this process (as ``python -m`` runs it, ``__main__`` and all);
    the exit status and what it printed (stdout and stderr)."""
    buf = io.StringIO()
    code: Any = 0
    with _argv([module, *args]), contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        try:
            run_as_main(module)
        except SystemExit as e:
            code = e.code
    if code is None:
        code = 0
    return (code if isinstance(code, int) else 1), buf.getvalue()


def check_command(line: str, root: Path) -> str:
    """Check one shown (not run) command; returns what was checked. ``ValueError`` if it is wrong."""
    words = shlex.split(line)
    if words[:2] == ["python", "-m"] and len(words) > 2:
        if words[2].startswith("experiments.") or words[2].startswith("fiveplay_env."):
            parse_only(words[2], words[3:])
            return f"parsed: {line}"
        return f"not checked (another program's module): {line}"
    if words[0] == "fiveplay":
        return check_fiveplay(words[1:], line)
    if words[0] == "make":
        makefile = (root / "Makefile").read_text(encoding="utf-8")
        for target in words[1:] or ["(default)"]:
            if not re.search(rf"^{re.escape(target)}\s*:", makefile, re.M):
                raise ValueError(f"{line}: the Makefile has no target {target!r}")
        return f"Makefile target: {line}"
    if words[0] == "pip" and "install" in words:
        extras = set(tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
                     ["optional-dependencies"])
        for word in words:
            m = re.match(r"^[.\w-]*\[([\w,-]+)\]$", word)
            if m:
                unknown = [e for e in m.group(1).split(",") if e not in extras]
                if unknown:
                    raise ValueError(f"{line}: pyproject.toml has no extra {unknown} (extras: {sorted(extras)})")
        return f"extras exist: {line}"
    if words[0] in KNOWN_PROGRAMS:
        return f"not checked (needs {words[0]} and what it serves): {line}"
    raise ValueError(f"{line}: expected a command of {KNOWN_PROGRAMS}")


def check_fiveplay(args: list[str], line: str) -> str:
    """A shown ``fiveplay VERB ARGS`` command: ``ARGS`` must parse with the verb's module's own parser
    (``fiveplay games ...`` and ``fiveplay --version`` with the command's)."""
    from fiveplay_env.experiments import cli

    verb = cli.canonical_verb(args[0]) if args else ""
    if verb in cli.VERBS:
        parse_only(cli.VERBS[verb], args[1:])
        return f"parsed: {line}"
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            cli.build_parser().parse_args(args)
    except SystemExit as e:
        if e.code:
            said = err.getvalue().strip().splitlines() or ["(nothing)"]
            raise ValueError(f"{line}: does not parse: {said[-1]} (exit {e.code})") from None
    return f"parsed: {line}"


def check_shown_block(block: Block, root: Path, require_reason: bool = True) -> list[str]:
    """A ``bash`` block: its reason line, and every command in it (``check_command``)."""
    first = block.text.lstrip().splitlines()[0] if block.text.strip() else ""
    if require_reason and not NOT_RUN.match(first):
        raise ValueError(f"{block.where}: a block that is not run starts with '# not run by the tests: "
                         f"<why>', got {first!r}")
    return [check_command(line, root) for line in logical_lines(block.text)]


def console_steps(block: Block) -> list[tuple[list[str], str]]:
    """``[(argv, expected output)]`` of a ``console`` block (``$ `` lines are commands, with ``\\``
    continuations; the lines up to the next command are the expected output)."""
    steps: list[tuple[list[str], list[str]]] = []
    lines = block.text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("$ "):
            cmd = line[2:].rstrip()
            while cmd.endswith("\\") and i + 1 < len(lines):
                i += 1
                cmd = cmd[:-1].rstrip() + " " + lines[i].strip()
            steps.append((shlex.split(cmd, comments=True), []))
        elif steps:
            steps[-1][1].append(line)
        elif line.strip():
            raise ValueError(f"{block.where}: expected '$ command' first, got {line!r}")
        i += 1
    return [(argv, "\n".join(out).strip("\n")) for argv, out in steps]


def matches(expected: str, got: str) -> bool:
    """Whether ``got`` is ``expected`` (``...`` matches anything; whitespace normalised)."""
    if not expected.strip():
        return True
    return doctest.OutputChecker().check_output(expected.rstrip() + "\n", got, OPTIONS)


# --- running a page -----------------------------------------------------------------------------------
class PageRun:
    """Runs the blocks of one page in order (see the module docstring), in ``workdir``."""

    def __init__(self, name: str, workdir: Path, root: Path) -> None:
        self.name = name
        self.workdir = workdir
        self.root = root
        ident = re.sub(r"\W", "_", name)
        self.namespace: dict[str, Any] = {"__name__": f"__docs_{ident}__"}
        self.log: list[str] = []

    @contextlib.contextmanager
    def _inside(self):
        cwd = os.getcwd()
        path = list(sys.path)
        before = set(sys.modules)
        os.chdir(self.workdir)
        sys.path.insert(0, str(self.workdir))
        try:
            yield
        finally:
            os.chdir(cwd)
            sys.path[:] = path
            for name in set(sys.modules) - before:  # modules of the page's own files
                f = getattr(sys.modules[name], "__file__", None) or ""
                if f.startswith(str(self.workdir)):
                    del sys.modules[name]

    def run(self, page_blocks: list[Block]) -> list[str]:
        with self._inside():
            for block in page_blocks:
                try:
                    self.block(block)
                except Exception as e:
                    raise AssertionError(f"{block.where}: {type(e).__name__}: {e}\n--- block ---\n{block.text}"
                                         ) from e
        return self.log

    def block(self, block: Block) -> None:
        lang = block.lang
        if lang == "python":
            m = FILE_LINE.match(block.text.splitlines()[0]) if block.text.strip() else None
            if m:
                (self.workdir / m.group("name")).write_text(block.text, encoding="utf-8")
                self.log.append(f"wrote {m.group('name')}: {block.where}")
                return
            code = compile(block.text, block.where, "exec")
            if NOT_RUN.match(block.text.splitlines()[0]):
                self.log.append(f"compiled, not run: {block.where}")
                return
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(code, self.namespace)
            self.log.append(f"ran: {block.where}")
        elif lang == "pycon":
            self.doctest(block)
        elif lang == "console":
            for argv, expected in console_steps(block):
                if argv[:1] == ["fiveplay"]:
                    code, got = run_command("fiveplay_env.experiments", argv[1:])    # the console script's module
                elif argv[:2] == ["python", "-m"] and len(argv) >= 3:
                    code, got = run_command(argv[2], argv[3:])
                else:
                    raise ValueError(f"expected '$ python -m MODULE ...' or '$ fiveplay ...', got {shlex.join(argv)!r}")
                if code != 0:
                    raise AssertionError(f"{shlex.join(argv)} exited {code}:\n{got[-3000:]}")
                if not matches(expected, got):
                    raise AssertionError(f"{shlex.join(argv)}: expected\n{expected}\ngot\n{got[-3000:]}")
                self.log.append(f"ran: {shlex.join(argv)} ({block.where})")
        elif lang in ("bash", "sh", "shell"):
            for what in check_shown_block(block, self.root):
                self.log.append(f"{what} ({block.where})")
        elif lang in ("text", "json", "toml", "ini", "csv"):
            self.log.append(f"not code: {block.where}")
        else:
            raise ValueError(f"expected a block of python, pycon, console, bash or text, got {lang!r}")

    def doctest(self, block: Block) -> None:
        parser = doctest.DocTestParser()
        test = parser.get_doctest(block.text, self.namespace, block.where, block.source, block.line)
        out = io.StringIO()
        runner = doctest.DocTestRunner(optionflags=OPTIONS)
        runner.run(test, out=out.write, clear_globs=False)
        self.namespace.update(test.globs)  # a DocTest runs in a copy of the namespace: keep what it made
        if runner.failures:
            raise AssertionError(out.getvalue())
        self.log.append(f"doctest ({len(test.examples)} examples): {block.where}")


# --- the README ---------------------------------------------------------------------------------------
README_CUTS = {  # MaskablePPO on Sb3VecEnv: the calls as written, on 2 games and one 32-step update
    'Sb3VecEnv("take5", 64,': 'Sb3VecEnv("take5", 2,',
    "n_steps=64)": "n_steps=16, batch_size=32, n_epochs=1)",
    ".learn(200_000)": ".learn(32)",
}
"""Budget cuts applied to the README's unmarked Python blocks before they run (the code as written,
with a training budget of minutes replaced by a few steps)."""


def classify(block: Block) -> str:
    """An unmarked README block: ``"commands"``, ``"python"`` or ``"layout"``."""
    lines = logical_lines(block.text)
    if lines and all(shlex.split(line)[0] in KNOWN_PROGRAMS for line in lines):
        return "commands"
    try:
        compile(block.text, block.where, "exec")
    except SyntaxError:
        return "layout"
    return "python" if re.search(r"^\s*(from|import)\s", block.text, re.M) else "layout"


def readme_python(block: Block) -> str:
    text = block.text
    for old, new in README_CUTS.items():
        text = text.replace(old, new)
    return text
