"""Which optional extra provides a package, and the install line that works, for errors about a
missing optional dependency.

    try:
        import filelock
    except ModuleNotFoundError as exc:
        raise extras.missing(exc, "a run folder's lock") from exc
    # ImportError: a run folder's lock needs filelock, of the 'experiments' extra:
    #   pip install -e '.[experiments]' (from a checkout), or pip install 'fiveplay_env-...whl[experiments]'

The extras are read from one place: the checkout's ``pyproject.toml`` when the package runs from a
checkout (``pyproject.toml`` beside the ``fiveplay_env`` folder, naming this distribution), else the
installed distribution's metadata (``Requires-Dist: filelock>=3.12; extra == "experiments"``). A
module name is matched to a requirement by its normalised name (``sb3_contrib`` is ``sb3-contrib``);
a package in several extras is reported with the first one ``pyproject.toml`` lists.

| function              | returns                                                                      |
|-----------------------|------------------------------------------------------------------------------|
| ``table()``           | ``{extra: [distribution names]}``, in pyproject order                        |
| ``extra_for(module)`` | the first extra providing the top-level package of ``module``, or None       |
| ``install_hint(extra)``| the install line for an extra, from a checkout and from a wheel             |
| ``missing(exc, what)``| an ``ImportError`` naming what needs the module, the module and its extra     |
"""
from __future__ import annotations

import os
import re
from functools import lru_cache

DISTRIBUTION = "fiveplay-env"
"""This project's distribution name (``pyproject.toml``: ``[project] name``)."""

_REQ_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_EXTRA_MARKER = re.compile(r"""extra\s*==\s*["']([^"']+)["']""")


def normalise(name: str) -> str:
    """A distribution or module name as packaging compares them (PEP 503: lower case, runs of ``-_.``
    become ``-``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_name(requirement: str) -> str:
    m = _REQ_NAME.match(requirement)
    if m is None:
        raise ValueError(f"extras: expected a requirement such as 'filelock>=3.12', got {requirement!r}")
    return normalise(m.group(1))


def _from_pyproject() -> dict[str, list[str]] | None:
    """The extras of the checkout this package runs from, or None (not a checkout, or no tomllib)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = os.path.join(root, "pyproject.toml")
    try:
        import tomllib  # Python 3.11+
    except ModuleNotFoundError:
        return None
    try:
        with open(path, "rb") as f:
            project = tomllib.load(f).get("project", {})
    except (OSError, ValueError):
        return None
    if normalise(str(project.get("name", ""))) != DISTRIBUTION:
        return None
    return {extra: [_requirement_name(r) for r in reqs]
            for extra, reqs in project.get("optional-dependencies", {}).items()}


def _from_metadata() -> dict[str, list[str]]:
    from importlib import metadata

    try:
        requires = metadata.metadata(DISTRIBUTION).get_all("Requires-Dist") or []
    except metadata.PackageNotFoundError:
        return {}
    out: dict[str, list[str]] = {}
    for req in requires:
        m = _EXTRA_MARKER.search(req)
        if m:
            out.setdefault(m.group(1), []).append(_requirement_name(req))
    return out


@lru_cache(maxsize=1)
def table() -> dict[str, list[str]]:
    """``{extra: [normalised distribution names]}``: the checkout's ``pyproject.toml``, else the
    installed metadata (empty if neither is found)."""
    found = _from_pyproject()
    return found if found is not None else _from_metadata()


def extra_for(module: str) -> str | None:
    """The first extra whose requirements include the top-level package of ``module``
    (``"matplotlib.pyplot"`` -> ``"experiments"``), or None if no extra provides it."""
    if not isinstance(module, str) or not module:
        raise ValueError(f"extra_for: expected a module name such as 'filelock', got {module!r}")
    top = normalise(module.split(".")[0])
    for extra, names in table().items():
        if top in names:
            return extra
    return None


def install_hint(extra: str) -> str:
    """How to install ``extra``: from a checkout, and from a built wheel (a registry may not serve
    this distribution under its name)."""
    return f"pip install -e '.[{extra}]' (from a checkout), or pip install 'fiveplay_env-<version>-py3-none-any.whl[{extra}]'"


def missing(exc: ModuleNotFoundError, what: str) -> ImportError:
    """The error to raise (``from exc``) when ``what`` cannot import an optional package: it names the
    missing module and, when an extra provides it, the extra and how to install it."""
    name = exc.name or (str(exc.args[0]) if exc.args else "?")
    extra = extra_for(name) if name != "?" else None
    if extra is None:
        return ImportError(f"{what} needs the package {name!r}, which is not installed (pip install {name})",
                           name=name)
    return ImportError(f"{what} needs {name}, of the {extra!r} extra: {install_hint(extra)}", name=name)
