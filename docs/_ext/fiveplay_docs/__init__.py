"""The fiveplay documentation's Sphinx extension.

- ``autodoc-process-docstring``: the project's docstrings as reST (``fiveplay_docs.docstrings``);
- ``builder-inited``: writes the generated pages before Sphinx looks for sources: ``games/`` (one page
  per game of ``fiveplay_env.games.table()``: ``fiveplay_docs.gamepages``) and
  ``_generated/`` (fragments: the run artefacts' tables and the extras: ``fiveplay_docs.results``); a file is rewritten
  only when its text changed, so incremental builds stay incremental;
- the offline link check of ``README.md`` and the Markdown sources (``fiveplay_docs.links``), reported
  as warnings (``-W`` makes them errors).

A generator that finds its sources disagreeing with the code (``DocsError``) reports a warning too,
so ``make docs`` (``sphinx-build -W``) fails instead of publishing a wrong page.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.util import logging

from fiveplay_docs import docstrings

logger = logging.getLogger(__name__)


def write_if_changed(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def generate(srcdir: Path) -> list[str]:
    """Write every generated page under ``srcdir`` (the ``docs`` folder); the problems found."""
    from fiveplay_env import games

    from fiveplay_docs import gamepages, results

    problems: list[str] = []
    root = srcdir.parent
    rules = srcdir / "rules.md"
    rules_text = rules.read_text(encoding="utf-8") if rules.exists() else None
    table = [games.table()[n] for n in games.names()]
    out = srcdir / "games"
    wanted = {"index.md"}
    write_if_changed(out / "index.md", gamepages.index_page(table))
    for game in table:
        try:
            page = gamepages.game_page(game, rules_text)
        except Exception as e:  # a wrong table, a module that fails to import: the build must fail
            problems.append(f"game page {game.name!r}: {type(e).__name__}: {e}")
            page = f"# {game.title or game.name}\n\nThis page could not be generated: {e}\n"
        write_if_changed(out / f"{game.name}.md", page)
        wanted.add(f"{game.name}.md")
    for stale in out.glob("*.md"):
        if stale.name not in wanted:
            stale.unlink()
    try:
        for name, text in results.fragments(root).items():
            write_if_changed(srcdir / "_generated" / name, text)
    except Exception as e:
        problems.append(f"results: {type(e).__name__}: {e}")
    return problems


def _builder_inited(app: Any) -> None:
    from fiveplay_docs import links

    srcdir = Path(app.srcdir)
    for problem in generate(srcdir):
        logger.warning(problem, type="fiveplay", subtype="generate")
    for problem in links.check(srcdir.parent):
        logger.warning(f"broken link: {problem}", type="fiveplay", subtype="links")


def _skip_external_lookups(app: Any, config: Any) -> None:
    """Types of other libraries (``numpy.ndarray``...) have no target here (no inventories offline), and
    each failed lookup scans every object of the site ("fuzzy" search). The names whose first part is
    in ``config.fiveplay_external`` are answered "not found" at once (nitpicky mode ignores them through
    ``nitpick_ignore_regex``)."""
    from sphinx.domains.python import PythonDomain

    roots = frozenset(config.fiveplay_external)
    if getattr(PythonDomain.find_obj, "_fiveplay", False):
        return
    original = PythonDomain.find_obj

    def find_obj(self, env, modname, classname, name, type, searchmode=0):  # noqa: ANN001, A002
        if name.split(".", 1)[0] in roots:
            return []
        return original(self, env, modname, classname, name, type, searchmode)

    find_obj._fiveplay = True  # type: ignore[attr-defined]
    PythonDomain.find_obj = find_obj  # type: ignore[method-assign]


def setup(app: Any) -> dict[str, Any]:
    app.add_config_value("fiveplay_external", (), "env")
    app.connect("config-inited", _skip_external_lookups)
    app.connect("builder-inited", _builder_inited)
    app.connect("autodoc-process-docstring", docstrings.process_docstring, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
