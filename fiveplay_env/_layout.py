"""One import name everywhere: ``fiveplay_env.agents`` and ``fiveplay_env.experiments``.

The project keeps three folders at the top of a checkout (``fiveplay_env/``, ``agents/``,
``experiments/``: what a reader opens first), while the code and every user import the agents and the
experiments as subpackages of ``fiveplay_env``, the same way in every install:

| install                | where ``fiveplay_env.agents`` comes from                                        |
|------------------------|---------------------------------------------------------------------------------|
| a wheel (``pip install fiveplay-env``) | ``fiveplay_env/agents/`` inside the wheel: setuptools' ``package-dir`` maps the checkout's ``agents/`` there (``pyproject.toml``); nothing is rewritten |
| an editable install    | setuptools' editable finder, from the same ``package-dir`` mapping              |
| a bare checkout (``python -m ...`` from its root, ``PYTHONPATH``) | ``install_sibling_finder``, called when ``fiveplay_env`` is imported from a checkout: the folders beside it |

So a module has one name (``fiveplay_env.agents.base``) in examples, run folders, pickles, checkpoints
and plug-ins, whatever the install; and the installed wheel has one top-level package, so it cannot
collide with another distribution's ``agents`` (``openai-agents`` has one). Importing the checkout's
folder under its bare name (``import agents`` from the checkout's root) raises ``ImportError`` naming
the real one, rather than loading every module twice under two names.
"""
from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from pathlib import Path

MAPPED = ("agents", "experiments")
"""The checkout's folders that are subpackages of ``fiveplay_env``."""


class _SiblingFinder(importlib.abc.MetaPathFinder):
    """Finds ``fiveplay_env.<name>`` (``name`` in ``MAPPED``) in the folder ``<root>/<name>``; its
    submodules are then found by the usual path finder, from the package's ``__path__``."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def find_spec(self, fullname: str, path=None, target=None):  # noqa: ANN001 - the finder protocol
        head, _, name = fullname.partition(".")
        if head != "fiveplay_env" or name not in MAPPED:
            return None
        folder = self.root / name
        return importlib.util.spec_from_file_location(fullname, folder / "__init__.py",
                                                      submodule_search_locations=[str(folder)])


def install_sibling_finder(package_dir: Path) -> None:
    """In a checkout (``agents/`` and ``experiments/`` beside ``package_dir`` and not inside it), make
    them importable as ``fiveplay_env.agents`` and ``fiveplay_env.experiments``. A wheel, whose
    ``fiveplay_env`` holds them, needs nothing; calling it twice adds one finder."""
    root = package_dir.parent
    if all((package_dir / n).is_dir() for n in MAPPED) or not all((root / n / "__init__.py").is_file() for n in MAPPED):
        return
    if any(isinstance(f, _SiblingFinder) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _SiblingFinder(root))


def refuse_bare_name(name: str) -> None:
    """Called by ``agents/__init__.py`` and ``experiments/__init__.py``: ``ImportError`` when the folder is
    imported under its bare name (``import agents`` from the checkout's root) instead of
    ``fiveplay_env.<name>``."""
    if not name.startswith("fiveplay_env."):
        raise ImportError(f"{name}: this project's package is imported as fiveplay_env.{name} "
                          f"(e.g. from fiveplay_env.{name} import ...), in a checkout and in every install; "
                          f"the bare name {name!r} is not this project's (since 0.3)", name=name)
