"""Which optional extra provides a package, and the install line that works, for errors about a
missing optional dependency.

    try:
        import filelock
    except ModuleNotFoundError as exc:
        raise extras.missing(exc, "a run folder's lock") from exc
    # ImportError: a run folder's lock needs filelock, of the 'experiments' extra:
    #   pip install -e '.[experiments]' (in a checkout), or pip install 'fiveplay-env[experiments]' (an installed wheel)

    extras.missing_line(["filelock", "openskill", "torch"], "fiveplay ladder")   # checked before running
    # "fiveplay ladder needs the 'experiments' and 'train' extras (filelock, openskill and torch are not
    #  installed): pip install -e '.[experiments,train]' (in a checkout), or pip install
    #  'fiveplay-env[experiments,train]' (an installed wheel)"   -- every missing extra at once, one line

The extras are read from one place: the checkout's ``pyproject.toml`` when the package runs from a
checkout (``pyproject.toml`` beside the ``fiveplay_env`` folder, naming this distribution), else the
installed distribution's metadata (``Requires-Dist: filelock>=3.12; extra == "experiments"``). A
module name is matched to a requirement by its normalised name (``sb3_contrib`` is ``sb3-contrib``);
a package in several extras is reported with the first one ``pyproject.toml`` lists.

| function              | returns                                                                      |
|-----------------------|------------------------------------------------------------------------------|
| ``table()``           | ``{extra: [distribution names]}``, in pyproject order                        |
| ``extra_for(module)`` | the first extra providing the top-level package of ``module``, or None       |
| ``install_hint(*extras)``| the install line for extras, in a checkout and for an installed wheel     |
| ``missing(exc, what)``| an ``ImportError`` naming what needs the module, the module and its extra     |
| ``absent(modules)``   | the modules of a list that cannot be found (found, not imported)              |
| ``missing_line(modules, what)``| one line naming every extra whose modules are absent, or None        |

The wheel form, ``pip install 'fiveplay-env[EXTRA]'``, installs an extra's packages beside the wheel
already installed (pip finds ``fiveplay-env`` satisfied and adds what the extra requires).
"""
from __future__ import annotations

import os
import re
from functools import lru_cache

DISTRIBUTION = "fiveplay-env"
"""This project's distribution name (``pyproject.toml``: ``[project] name``)."""

MODULE_DISTRIBUTIONS = {"pyspiel": "open-spiel", "jaxlib": "jax", "PIL": "pillow"}
"""Modules whose distribution has another name (``import pyspiel`` comes with ``open_spiel``)."""

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


def extras_for(module: str) -> list[str]:
    """Every extra whose requirements include the top-level package of ``module``, in pyproject order."""
    if not isinstance(module, str) or not module:
        raise ValueError(f"extras_for: expected a module name such as 'filelock', got {module!r}")
    first = module.split(".")[0]
    top = normalise(MODULE_DISTRIBUTIONS.get(first, first))
    return [extra for extra, names in table().items() if top in names]


def extra_for(module: str) -> str | None:
    """The first extra whose requirements include the top-level package of ``module``
    (``"matplotlib.pyplot"`` -> ``"experiments"``), or None if no extra provides it."""
    if not isinstance(module, str) or not module:
        raise ValueError(f"extra_for: expected a module name such as 'filelock', got {module!r}")
    first = module.split(".")[0]
    top = normalise(MODULE_DISTRIBUTIONS.get(first, first))
    for extra, names in table().items():
        if top in names:
            return extra
    return None


def install_hint(*names: str) -> str:
    """How to install the extras ``names``: in a checkout, and beside an installed wheel (pip adds the
    extras' packages to the installed distribution)."""
    if not names:
        raise ValueError("install_hint: expected at least one extra, got none")
    joined = ",".join(names)
    return (f"pip install -e '.[{joined}]' (in a checkout), or pip install '{DISTRIBUTION}[{joined}]' "
            "(an installed wheel)")


def missing(exc: ModuleNotFoundError, what: str) -> ImportError:
    """The error to raise (``from exc``) when ``what`` cannot import an optional package: it names the
    missing module and, when an extra provides it, the extra and how to install it."""
    name = exc.name or (str(exc.args[0]) if exc.args else "?")
    extra = extra_for(name) if name != "?" else None
    if extra is None:
        return ImportError(f"{what} needs the package {name!r}, which is not installed (pip install {name})",
                           name=name)
    return ImportError(f"{what} needs {name}, of the {extra!r} extra: {install_hint(extra)}", name=name)


def absent(modules: "list[str] | tuple[str, ...]") -> list[str]:
    """The modules of ``modules`` that this interpreter cannot find (looked up, not imported; a module
    whose lookup fails counts as absent), in order."""
    import importlib.util

    out = []
    for module in modules:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            out.append(module)
    return out


def _and(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def missing_line(modules: "list[str] | tuple[str, ...]", what: str) -> str | None:
    """One line for every absent module of ``modules`` at once: the extras that provide them and the
    install line for all of them (``None`` when nothing is missing). A module of no extra is named with
    its own ``pip install``."""
    gone = absent(modules)
    if not gone:
        return None
    by_extra: dict[str, list[str]] = {}
    loose: list[str] = []
    for module in gone:  # an extra already named covers a module it provides (ray's extra brings torch too)
        candidates = extras_for(module)
        extra = next((e for e in candidates if e in by_extra), candidates[0] if candidates else None)
        (by_extra.setdefault(extra, []) if extra else loose).append(module)
    parts = []
    if by_extra:
        names = list(by_extra)
        kind = "extra" if len(names) == 1 else "extras"
        verb = "is" if len([m for ms in by_extra.values() for m in ms]) == 1 else "are"
        mods = [m for ms in by_extra.values() for m in ms]
        parts.append(f"{what} needs the {_and([repr(n) for n in names])} {kind} ({_and(mods)} {verb} not "
                     f"installed): {install_hint(*names)}")
    if loose:
        parts.append(f"{what if not parts else 'and'} needs {_and(loose)}, not installed: pip install {' '.join(loose)}")
    return "; ".join(parts)
