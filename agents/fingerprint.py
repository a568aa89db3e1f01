"""Content hashes of the files an agent reads (``file_fingerprint``): the fingerprint hooks of
``fiveplay_env.agents.registry.register_prefix`` use them so that a resumed tournament refuses a file that changed.
A module of its own (standard library only) so that any agent module can use it without importing the
registry."""
from __future__ import annotations

import hashlib
import os


def file_fingerprint(path: str) -> str | None:
    """The content hash of a file (``"sha256:<hex>"`` of its bytes) or of a folder (``"sha256-tree:<hex>"``
    over every file under it: relative path, size and SHA-256, sorted by path); None if ``path`` is
    neither. The fingerprint hooks of ``register_prefix`` use it for the files an agent reads."""
    if os.path.isfile(path):
        return "sha256:" + _sha256_file(path)
    if not os.path.isdir(path):
        return None
    h = hashlib.sha256()
    entries = []
    for folder, dirs, files in os.walk(path):
        dirs.sort()
        for f in files:
            full = os.path.join(folder, f)
            entries.append((os.path.relpath(full, path).replace(os.sep, "/"), full))
    for rel, full in sorted(entries):
        h.update(f"{rel}\0{os.path.getsize(full)}\0{_sha256_file(full)}\n".encode("utf-8", "surrogateescape"))
    return "sha256-tree:" + h.hexdigest()


def _sha256_file(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


__all__ = ["file_fingerprint"]
