"""The run browser: what the Results pages list and show of the runs folder.

``list_runs(runs_dir)``: every run folder directly under the runs folder (one holding a ``config.json`` or
``summary.json``), newest first, each ``{name, kind, game, created, files, plots, records, checkpoint}``
(kind, game and time read from the folder name ``<kind>__<game>__<seed>__<time>``, the game from its
``config.json`` where it says). ``run_detail(runs_dir, name)``: one run, with its ``config``,
``summary`` (paths inside the runs folder made relative to it: ``run_relative``) and the last 1,000 rows
of ``curves.csv``. Files are read only inside the runs folder
(``guards.safe_file``: no links out, no ``..``), at most ``MAX_UPLOAD`` bytes each, JSON nested at most
64 deep; an unreadable file is shown as missing (None), never an error.
"""
from __future__ import annotations

import csv
import json
import os
from typing import Any

from fiveplay_env.experiments.web.guards import MAX_UPLOAD, safe_file
from fiveplay_env.experiments.web.sessions import GameError
from fiveplay_env.records import json_depth


def _read_json(path: str) -> Any:
    try:
        if os.path.getsize(path) > MAX_UPLOAD:
            return None
        with open(path, encoding="utf-8") as f:
            text = f.read()
        return json.loads(text) if json_depth(text) <= 64 else None
    except (OSError, ValueError, RecursionError):
        return None


def _run_info(runs_dir: str, name: str) -> dict[str, Any]:
    path = os.path.join(runs_dir, name)
    files = sorted(os.listdir(path))
    rec_dir = os.path.join(path, "records")
    recs = sorted(f for f in os.listdir(rec_dir) if f.endswith(".jsonl")) if os.path.isdir(rec_dir) else []
    recs = [f"records/{f}" for f in recs] + [f for f in files if f.endswith(".jsonl")]
    config = _read_json(os.path.join(path, "config.json"))
    config = config if isinstance(config, dict) else {}
    parts = name.split("__")
    return {
        "name": name, "kind": parts[0] if len(parts) > 1 else "run",
        "game": config.get("game") if isinstance(config.get("game"), str) else (parts[1] if len(parts) > 2 else None),
        "created": parts[3] if len(parts) > 3 else None,
        "files": [f for f in files if os.path.isfile(os.path.join(path, f))],
        "plots": [f for f in files if f.endswith(".png")], "records": recs,
        "checkpoint": os.path.isfile(os.path.join(path, "checkpoint.pt")),
    }


def list_runs(runs_dir: str) -> list[dict[str, Any]]:
    """Every folder directly under ``runs_dir`` that holds a ``config.json`` or ``summary.json``, newest first."""
    if not os.path.isdir(runs_dir):
        return []
    out = []
    for name in sorted(os.listdir(runs_dir), key=lambda n: (n.split("__")[3] if n.count("__") >= 3 else "", n),
                       reverse=True):
        path = os.path.join(runs_dir, name)
        if os.path.isdir(path) and not os.path.islink(path) and \
                any(os.path.isfile(os.path.join(path, f)) for f in ("config.json", "summary.json")):
            out.append(_run_info(runs_dir, name))
    return out


def run_relative(x: Any, runs_dir: str) -> Any:
    """``x`` (JSON data) with every path inside the runs folder made relative to it: a training run's
    ``run_dir``, ``checkpoint`` and ``agent`` (``ckpt:/srv/runs/train__...`` -> ``ckpt:train__...``, the name
    the bot picker shows) name no server folder. A path at the start of a string or after a ``name:`` prefix."""
    roots = sorted({os.path.realpath(runs_dir), os.path.abspath(runs_dir), os.path.normpath(runs_dir)}, key=len,
                   reverse=True)
    if isinstance(x, str):
        name, colon, rest = x.partition(":")
        for head, body in (("", x), (name + colon, rest)) if colon else (("", x),):
            for root in roots:
                if body.startswith(root + os.sep):
                    return head + body[len(root) + 1:]
                if body == root:
                    return head + "."
        return x
    if isinstance(x, list):
        return [run_relative(v, runs_dir) for v in x]
    if isinstance(x, dict):
        return {k: run_relative(v, runs_dir) for k, v in x.items()}
    return x


def run_detail(runs_dir: str, name: str) -> dict[str, Any]:
    """One run folder's details (module docstring); ``GameError`` 404 unless ``name`` is a run folder
    directly under ``runs_dir``."""
    path = safe_file(runs_dir, name)
    if path is None or not os.path.isdir(path) or os.path.dirname(path) != os.path.realpath(runs_dir):
        raise GameError(404, f"no run called {name[:80]!r} under the runs folder")
    info = _run_info(runs_dir, os.path.basename(path))
    info["config"] = run_relative(_read_json(os.path.join(path, "config.json")), runs_dir)
    info["summary"] = run_relative(_read_json(os.path.join(path, "summary.json")), runs_dir)
    curves = os.path.join(path, "curves.csv")
    if os.path.isfile(curves) and os.path.getsize(curves) <= MAX_UPLOAD:
        with open(curves, encoding="utf-8", errors="replace") as f:
            info["curves"] = list(csv.DictReader(f))[-1000:]
    return info
