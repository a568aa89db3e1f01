"""The project's PEP 517 build backend (``pyproject.toml``: ``build-backend = "fiveplay_build"``,
``backend-path = ["build_backend"]``): ``setuptools.build_meta`` unchanged, except that a wheel's (and
its prepared metadata's) long description has its relative links as plain text (``fiveplay_metadata``).

The packages need no help: ``pyproject.toml``'s ``package-dir`` maps the checkout's ``agents/`` and
``experiments/`` to ``fiveplay_env.agents`` and ``fiveplay_env.experiments``, the one import name they have
everywhere (``fiveplay_env._layout``). Standard library and setuptools only.
"""
from __future__ import annotations

import os

from fiveplay_metadata import rewrite_metadata, rewrite_wheel_metadata
from setuptools import build_meta as _setuptools
from setuptools.build_meta import (  # noqa: F401 - the hooks passed through unchanged
    build_editable,
    build_sdist,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_editable,
)


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: dict | None = None) -> str:
    """setuptools' metadata, its long description as the wheel has it."""
    name = _setuptools.prepare_metadata_for_build_wheel(metadata_directory, config_settings)
    path = os.path.join(metadata_directory, name, "METADATA")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    with open(path, "w", encoding="utf-8") as f:
        f.write(rewrite_metadata(text))
    return name


def build_wheel(wheel_directory: str, config_settings: dict | None = None,
                metadata_directory: str | None = None) -> str:
    """setuptools' wheel, its METADATA's relative links as plain text."""
    name = _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)
    rewrite_wheel_metadata(os.path.join(wheel_directory, name))
    return name
