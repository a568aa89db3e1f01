"""Sphinx configuration of the fiveplay documentation site (``make docs``)."""
from __future__ import annotations

import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)                       # the checkout's packages win over an installed copy
sys.path.insert(0, os.path.join(HERE, "_ext"))

import fiveplay_env  # noqa: E402

project = "fiveplay"
author = "the fiveplay authors"
copyright = "the fiveplay authors"
release = fiveplay_env.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "fiveplay_docs",
]
source_suffix = {".md": "markdown"}
root_doc = "index"
# _generated/: fragments written at build time and included by the pages (docs/_ext/fiveplay_docs)
exclude_patterns = ["_build", "_generated", "Thumbs.db", ".DS_Store"]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

html_theme = "furo"
html_title = f"fiveplay {release}"
html_static_path: list[str] = []

# Optional extras: where one is not installed, autodoc imports the modules that need it against a
# stand-in (the modules import these lazily, so most do not even need it), and the site still builds.
OPTIONAL = ["torch", "ray", "jax", "pyspiel", "open_spiel", "tianshou", "supersuit", "stable_baselines3",
            "sb3_contrib", "starlette", "uvicorn", "tensorboard", "wandb", "openskill", "filelock", "tqdm",
            "matplotlib", "scipy"]
autodoc_mock_imports = [m for m in OPTIONAL if importlib.util.find_spec(m) is None]

# Nitpicky mode checks every internal reference; types of other libraries (no inventories offline)
# are not checked.
nitpicky = True
EXTERNAL = ("numpy", "np", "collections", "typing", "types", "abc", "argparse", "pathlib", "os", "io", "random",
            "pettingzoo", "gymnasium", "gym", "torch", "ray", "jax", "starlette", "tianshou", "supersuit",
            "stable_baselines3", "sb3_contrib", "openskill", "tqdm", "matplotlib", "scipy", "concurrent",
            "multiprocessing", "subprocess", "json", "csv", "enum", "dataclasses", "datetime", "threading", "pickle",
            "ast", "importlib", "contextlib", "functools", "re", "sys", "shlex", "hashlib", "socket", "tomllib")
fiveplay_external = EXTERNAL     # looked up at once as "not found" (docs/_ext/fiveplay_docs)
nitpick_ignore_regex = [
    (r"py:.*", rf"({'|'.join(EXTERNAL)})(\..*)?"),
    (r"py:.*", r".*\.[A-Z]"),  # type variables (C, S, E) in signatures
    (r"py:.*", r"(list|dict|tuple|set|frozenset|type)\[.*"),  # pieces of a generic type split at its commas
    (r"py:.*", r"(AECEnv|ParallelEnv|Env|VectorEnv|Space|Module|Tensor|Generator|ndarray|Path|Callable|Any)"),
]

autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": False}
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_typehints_format = "short"
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_ivar = True
default_role = "code"   # `x` in a docstring is code, as in the Markdown pages
autodoc_inherit_docstrings = False   # only what this project wrote (a library's inherited docstring is its own)
