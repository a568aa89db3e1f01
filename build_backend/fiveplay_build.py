"""The project's PEP 517 build backend (``pyproject.toml``: ``build-backend = "fiveplay_build"``,
``backend-path = ["build_backend"]``): ``setuptools.build_meta``, with the wheel's ``agents`` and
``experiments`` packages moved under ``fiveplay_env`` (``fiveplay_relocate``).

A checkout has three top-level packages (``fiveplay_env``, ``agents``, ``experiments``), and the
editable install keeps them so (``python -m experiments.X`` from a checkout). A wheel installed beside
another distribution with a top-level ``agents`` (``openai-agents``, for one) would overwrite its files
or be overwritten, so the wheel holds one top-level package only.

| hook                                     | what it does                                                    |
|------------------------------------------|-----------------------------------------------------------------|
| ``build_sdist``, ``build_editable``, ``get_requires_*``, ``prepare_metadata_for_build_editable`` | setuptools', unchanged (the sdist ships this folder, so a wheel built from it is relocated too) |
| ``prepare_metadata_for_build_wheel``     | setuptools', then the dist-info rewritten as the wheel's is      |
| ``build_wheel``                          | setuptools', then ``fiveplay_relocate.relocate_wheel``           |

Standard library and setuptools only (the backend runs in pip's isolated build environment).
"""
from __future__ import annotations

import os

from fiveplay_relocate import MOVED, modules_of, relocate_wheel, rewrite_dist_info
from setuptools import build_meta as _setuptools
from setuptools.build_meta import (  # noqa: F401 - the hooks passed through unchanged
    build_editable,
    build_sdist,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_editable,
)


def _relocate_metadata_dir(directory: str) -> None:
    """The dist-info folder of ``prepare_metadata_for_build_wheel`` rewritten as the wheel's is (the
    module names come from the source tree beside this backend's working directory)."""
    names = []
    for top in MOVED:
        for root, _, files in os.walk(top):
            names.extend(os.path.join(root, f).replace(os.sep, "/") for f in files)
    modules = modules_of(names)
    for base in ("entry_points.txt", "METADATA", "top_level.txt"):
        file = os.path.join(directory, base)
        if os.path.exists(file):
            with open(file, "rb") as f:
                data = f.read()
            with open(file, "wb") as f:
                f.write(rewrite_dist_info(base, data, modules))


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: dict | None = None) -> str:
    """setuptools' metadata, with the entry points, top-level names and description as the wheel has them."""
    name = _setuptools.prepare_metadata_for_build_wheel(metadata_directory, config_settings)
    _relocate_metadata_dir(os.path.join(metadata_directory, name))
    return name


def build_wheel(wheel_directory: str, config_settings: dict | None = None,
                metadata_directory: str | None = None) -> str:
    """setuptools' wheel, then ``relocate_wheel`` on it."""
    name = _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)
    relocate_wheel(os.path.join(wheel_directory, name))
    return name
