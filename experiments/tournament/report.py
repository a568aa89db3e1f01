"""The tournament's report: the leaderboard as a text table and the PNG plots (matplotlib, Agg).

| piece          | output                                                                                |
|----------------|---------------------------------------------------------------------------------------|
| ``leaderboard``| the summary as a text table, best rating first, with the rules and the games played   |
| ``make_plots`` | ``ratings.png`` (ratings with intervals), ``head_to_head.png`` (how often the row       |
|                | entrant finished ahead of the column entrant, ties half), ``scores.png`` (mean of the  |
|                | first metric with intervals), each written whole or not at all                         |
"""
from __future__ import annotations

import json
import os
from typing import Any

from fiveplay_env.agents import games as games_mod
from fiveplay_env.experiments import runs
from fiveplay_env.experiments.tournament.stats import Z95


def leaderboard(summary: dict[str, Any]) -> str:
    """The summary as a text table, best rating first."""
    metric_names = [m["name"] for m in summary["metrics"]]
    head = ["#", "entrant", "games", "win rate (95% CI)"] + [f"{m} (95% CI)" for m in metric_names] + [
        "rating mu +- sigma", "ms/dec (max)"]
    rows = []
    order = sorted(summary["entrants"], key=lambda e: -e["rating"]["mu"])

    def fmt(ci: dict[str, Any], pct: bool = False) -> str:
        if ci["mean"] is None:
            return "-"
        k = 100.0 if pct else 1.0
        unit = "%" if pct else ""
        hw = ci.get("half_width")
        return f"{k * ci['mean']:.1f}{unit}" + (f" +- {k * hw:.1f}" if hw is not None else "")

    for rank, e in enumerate(order, 1):
        ms = e["ms_per_decision"]
        rows.append([str(rank), e["entrant"], str(e["games"]), fmt(e["win_rate"], pct=True)]
                    + [fmt(e["metrics"][m]) for m in metric_names]
                    + [f"{e['rating']['mu']:.2f} +- {e['rating']['sigma']:.2f}",
                       "-" if ms is None else f"{ms:.2f} ({e['max_ms_per_decision']:.0f})"])
    widths = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
    line = lambda r: "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
    game = games_mod.get_game(summary["game"])
    defaults = game.config_dict(game.make_config())
    changed = {k: v for k, v in summary["config"].items() if defaults.get(k) != v or k == "num_players"}
    title = (f"{summary['game']} {json.dumps(changed, sort_keys=True)} (other rules: defaults) - "
             f"{summary['games_completed']} of "
             f"{summary['games_planned']} games, {summary['players']} players, seats rotated"
             f"{'' if summary['seat_balanced'] else ' (not yet balanced)'}")
    return "\n".join([title, line(head), line(["-" * w for w in widths]), *map(line, rows)])


def make_plots(summary: dict[str, Any], run_dir: str) -> list[str]:
    """ratings.png, head_to_head.png and scores.png in ``run_dir`` (matplotlib, Agg); their paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    ents = sorted(summary["entrants"], key=lambda e: e["rating"]["mu"])
    labels = [e["entrant"] for e in ents]
    h = 1.0 + 0.45 * len(labels)

    def save(fig: Any, name: str) -> None:
        try:
            paths.append(runs.save_figure(fig, os.path.join(run_dir, name), dpi=110, bbox_inches="tight"))
        finally:
            plt.close(fig)

    title = f"{summary['game']}: {summary['games_completed']} games, {summary['players']} players"
    fig, ax = plt.subplots(figsize=(7.5, h))
    mu = [e["rating"]["mu"] for e in ents]
    err = [Z95 * e["rating"]["sigma"] for e in ents]
    ax.errorbar(mu, range(len(ents)), xerr=err, fmt="o", capsize=4)
    ax.set_yticks(range(len(ents)), labels)
    ax.set_xlabel("openskill rating mu (Plackett-Luce), bars: +- 1.96 sigma")
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    save(fig, "ratings.png")

    h2h = summary["head_to_head"]
    order = [h2h["labels"].index(lab) for lab in labels[::-1]]
    mat = [[h2h["ahead_rate"][i][j] for j in order] for i in order]
    fig, ax = plt.subplots(figsize=(2.0 + 0.9 * len(order), 1.5 + 0.8 * len(order)))
    data = [[float("nan") if v is None else v for v in row] for row in mat]
    im = ax.imshow(data, vmin=0.0, vmax=1.0, cmap="RdYlGn")
    names = [h2h["labels"][i] for i in order]
    ax.set_xticks(range(len(names)), names, rotation=45, ha="right")
    ax.set_yticks(range(len(names)), names)
    for a in range(len(names)):
        for b in range(len(names)):
            if data[a][b] == data[a][b]:
                ax.text(b, a, f"{data[a][b]:.2f}", ha="center", va="center", fontsize=8)
    ax.set_title("head to head: row finished ahead of column (ties 1/2)")
    fig.colorbar(im, ax=ax, fraction=0.046)
    save(fig, "head_to_head.png")

    metric = summary["metrics"][0]
    fig, ax = plt.subplots(figsize=(7.5, h))
    vals = [e["metrics"][metric["name"]] for e in ents]
    means = [v["mean"] if v["mean"] is not None else float("nan") for v in vals]
    errs = [v.get("half_width") or 0.0 for v in vals]
    ax.barh(range(len(ents)), means, xerr=errs, capsize=4, color="tab:blue", alpha=0.7)
    ax.set_yticks(range(len(ents)), labels)
    ax.set_xlabel(f"mean {metric['name']} ({'lower' if metric['lower_is_better'] else 'higher'} is better), 95% CI")
    ax.set_title(title)
    save(fig, "scores.png")
    return paths
