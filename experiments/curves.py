"""Learning curves of several training runs side by side, against training time: the plot and table that
compare two trainers (or two settings) at equal wall time.

    fiveplay curves runs/train__take5__0__A runs/train__take5__0__B --baseline take5-safest \\
        --labels "torch trainer" "JAX trainer" --out docs/img/curves_take5.png

Each run folder is one ``fiveplay_env.experiments.train`` run (its ``curves.csv``, ``config.json`` and ``summary.json``).
For the chosen baseline (default: the one every run evaluated against last), the plot draws each run's win
rate and score difference against the training seconds (collection and update; evaluations excluded:
``train_seconds`` of ``curves.csv``) with 95% bands; the Markdown table gives, per run, its backend,
decisions, decisions per second (``summary.json``'s throughput), training minutes, and the last and best
evaluation with their intervals.

| output       | what                                                                            |
|--------------|---------------------------------------------------------------------------------|
| ``--out``    | the PNG (matplotlib, the ``experiments`` extra); its ``.md`` sibling the table   |
| return value | ``{"rows": [...], "png": path, "md": path}`` (``rows``: one dict per run)         |
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
from collections.abc import Sequence
from typing import Any

from fiveplay_env.experiments import runs


def _read(run_dir: str) -> tuple[list[dict[str, str]], dict[str, Any], dict[str, Any]]:
    path = os.path.join(run_dir, "curves.csv")
    if not os.path.isfile(path):
        raise ValueError(f"run: expected a training run folder holding curves.csv, got {run_dir!r}")
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    summary: dict[str, Any] = {}
    if os.path.isfile(os.path.join(run_dir, "summary.json")):
        with open(os.path.join(run_dir, "summary.json"), encoding="utf-8") as f:
            summary = json.load(f)
    return rows, runs.read_config(run_dir, what="training run"), summary


def _num(x: str) -> float:
    v = float(x)
    return 0.0 if math.isnan(v) else v


def compare(run_dirs: Sequence[str], baseline: str | None = None, labels: Sequence[str] | None = None,
            out: str | None = None, title: str | None = None) -> dict[str, Any]:
    """The table rows (and, with ``out``, the PNG and its ``.md`` table) of ``run_dirs`` against ``baseline``."""
    if not run_dirs:
        raise ValueError("runs: expected at least one training run folder")
    if labels is not None and len(labels) != len(run_dirs):
        raise ValueError(f"labels: expected one per run ({len(run_dirs)}), got {len(labels)}")
    loaded = [_read(d) for d in run_dirs]
    if baseline is None:
        baseline = loaded[0][0][-1]["baseline"] if loaded[0][0] else None
    table = []
    series = []
    for k, (d, (rows, cfg, summary)) in enumerate(zip(run_dirs, loaded)):
        rs = [r for r in rows if r["baseline"] == baseline]
        if not rs:
            have = sorted({r["baseline"] for r in rows})
            raise ValueError(f"baseline: {d} has no evaluation against {baseline!r}; it has {have}")
        label = labels[k] if labels is not None else f"{os.path.basename(os.path.normpath(d))}"
        best = max(rs, key=lambda r: float(r["win_mean"]))
        thr = summary.get("throughput", {})
        table.append({"label": label, "run": d, "backend": summary.get("backend", cfg.get("backend", "")),
                      "decisions": int(rs[-1]["decisions"]), "decisions_per_s": thr.get("decisions_per_s"),
                      "train_minutes": float(rs[-1]["train_seconds"]) / 60.0,
                      "win_last": (float(rs[-1]["win_mean"]), _num(rs[-1]["win_ci"])),
                      "diff_last": (float(rs[-1]["diff_mean"]), _num(rs[-1]["diff_ci"])),
                      "win_best": (float(best["win_mean"]), _num(best["win_ci"]), float(best["train_seconds"]) / 60.0),
                      "games": int(rs[-1]["games"])})
        series.append((label, rs))
    result: dict[str, Any] = {"baseline": baseline, "rows": table, "png": None, "md": None}
    if out is not None:
        result["png"] = _plot(series, baseline, out, title)
        md = os.path.splitext(out)[0] + ".md"
        runs.atomic_write(md, markdown(result))
        result["md"] = md
    return result


def markdown(result: dict[str, Any]) -> str:
    """The comparison table (Markdown)."""
    lines = [f"Against `{result['baseline']}` ({result['rows'][0]['games']} games per evaluation):", "",
             "| run | backend | decisions | decisions/s | training min | win rate, last | score diff, last | "
             "best win rate (at min) |", "|---|---|---:|---:|---:|---|---|---|"]
    for r in result["rows"]:
        dps = r["decisions_per_s"]
        lines.append(f"| {r['label']} | {r['backend']} | {r['decisions']:,} | "
                     f"{'' if dps is None else f'{dps:,.0f}'} | {r['train_minutes']:.1f} | "
                     f"{r['win_last'][0]:.3f} ± {r['win_last'][1]:.3f} | {r['diff_last'][0]:+.2f} ± "
                     f"{r['diff_last'][1]:.2f} | {r['win_best'][0]:.3f} ± {r['win_best'][1]:.3f} "
                     f"({r['win_best'][2]:.1f}) |")
    return "\n".join(lines) + "\n"


def _plot(series: list[tuple[str, list[dict[str, str]]]], baseline: str, out: str, title: str | None) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for k, (label, rs) in enumerate(series):
        x = [float(r["train_seconds"]) / 60.0 for r in rs]
        for ax, key in ((axes[0], "win"), (axes[1], "diff")):
            m = [float(r[f"{key}_mean"]) for r in rs]
            c = [_num(r[f"{key}_ci"]) for r in rs]
            ax.plot(x, m, color=f"C{k}", marker="o", ms=3, label=label)
            ax.fill_between(x, [a - e for a, e in zip(m, c)], [a + e for a, e in zip(m, c)], color=f"C{k}", alpha=0.2)
    axes[0].set_ylabel(f"win rate vs {baseline}")
    lower = series[0][1][0]["score_name"] == "score"  # Take 5's bull heads: fewer is better
    axes[1].set_ylabel(f"{series[0][1][0]['score_name']} difference vs {baseline}"
                       + (" (lower is better)" if lower else ""))
    axes[1].axhline(0.0, color="grey", ls=":", lw=1)
    for ax in axes:
        ax.set_xlabel("training minutes (evaluations excluded)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    path = runs.save_figure(fig, out, dpi=110)
    plt.close(fig)
    return path


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(prog="python -m fiveplay_env.experiments.curves", description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", metavar="RUN_DIR", help="training run folders")
    ap.add_argument("--baseline", default=None, help="the evaluation baseline (default: the first run's last one)")
    ap.add_argument("--labels", nargs="+", default=None, help="one label per run (default: the folder names)")
    ap.add_argument("--title", default=None, help="the plot's title")
    ap.add_argument("--out", default=None, help="the PNG to write (and its .md table); default: print the table only")
    args = ap.parse_args(list(argv) if argv is not None else None)
    result = compare(args.runs, args.baseline, args.labels, args.out, args.title)
    print(markdown(result), end="")
    if result["png"]:
        print(f"plot: {result['png']}\ntable: {result['md']}")
    return result


if __name__ == "__main__":
    sys.exit(runs.run_cli(lambda: main(), "curves", "the run folders are only read"))
