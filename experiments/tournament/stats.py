"""Tournament statistics: a pure function of the finished games' rows.

| figure (per entrant)   | how                                                                          |
|------------------------|------------------------------------------------------------------------------|
| mean of each metric    | with a 95% interval (normal approximation, mean +- 1.96 s / sqrt(N))         |
| win rate               | a shared win counts 1/k to each of the k winners; 95% interval as above      |
| rating                 | openskill Plackett-Luce, games applied in game order, ranked by placing:     |
|                        | mu +- sigma (``ci95``: mu +- 1.96 sigma)                                     |
| thinking time          | mean (and longest) per decision                                              |
| by seat, head to head  | win rate per seat; how often the row entrant finished ahead of the column    |
|                        | entrant (ties 1/2)                                                           |

``summarize`` also says how many games the figures rest on and whether the seats are balanced.
"""
from __future__ import annotations

from typing import Any

from fiveplay_env.agents import games as games_mod
from fiveplay_env.agents.arena import Z95, mean_ci
from fiveplay_env.experiments.tournament.spec import TournamentSpec
from fiveplay_env.experiments.tournament.store import Rows

def summarize(spec: TournamentSpec, done: dict[int, Rows]) -> dict[str, Any]:
    """The summary of the finished games (entrants, ratings, head-to-head); a pure function of the rows."""
    from openskill.models import PlackettLuce

    game = games_mod.get_game(spec.game)
    labels = spec.labels
    idx = {lab: i for i, lab in enumerate(labels)}
    n = spec.players
    metric_names = [m.name for m in game.metrics]
    per: list[dict[str, list[float]]] = [{"win": [], **{m: [] for m in metric_names}} for _ in labels]
    think = [0.0] * len(labels)
    think_max = [0.0] * len(labels)
    decisions = [0] * len(labels)
    seat_wins = [[0.0] * n for _ in labels]
    seat_games = [[0] * n for _ in labels]
    ahead = [[0.0] * len(labels) for _ in labels]
    met = [[0] * len(labels) for _ in labels]
    model = PlackettLuce()
    ratings = [model.rating(name=lab) for lab in labels]
    truncated = 0
    for g in sorted(done):
        rows = done[g]
        es = [idx[r["entrant"]] for r in rows]
        places = [float(r["placing"]) for r in rows]
        truncated += int(rows[0]["truncated"])
        for seat, (e, r) in enumerate(zip(es, rows)):
            per[e]["win"].append(float(r["win"]))
            for m in metric_names:
                per[e][m].append(float(r[m]))
            think[e] += float(r["think_s"])
            think_max[e] = max(think_max[e], float(r["think_max_s"]))
            decisions[e] += int(r["decisions"])
            seat_wins[e][seat] += float(r["win"])
            seat_games[e][seat] += 1
        for a in range(n):
            for b in range(n):
                if a != b:
                    ea, eb = es[a], es[b]
                    met[ea][eb] += 1
                    ahead[ea][eb] += 1.0 if places[a] < places[b] else 0.5 if places[a] == places[b] else 0.0
        new = model.rate([[ratings[e]] for e in es], ranks=places)
        for e, team in zip(es, new):
            ratings[e] = team[0]
    entrants = []
    for i, lab in enumerate(labels):
        entrants.append({
            "entrant": lab,
            "agent": spec.agents[i],
            "games": len(per[i]["win"]),
            "win_rate": mean_ci(per[i]["win"]),
            "metrics": {m: mean_ci(per[i][m]) for m in metric_names},
            "rating": {"mu": ratings[i].mu, "sigma": ratings[i].sigma, "ordinal": ratings[i].ordinal(),
                       "ci95": [ratings[i].mu - Z95 * ratings[i].sigma, ratings[i].mu + Z95 * ratings[i].sigma]},
            "ms_per_decision": 1000.0 * think[i] / decisions[i] if decisions[i] else None,
            "max_ms_per_decision": 1000.0 * think_max[i],
            "decisions": decisions[i],
            "win_rate_by_seat": [seat_wins[i][s] / seat_games[i][s] if seat_games[i][s] else None for s in range(n)],
            "games_by_seat": seat_games[i],
        })
    sched = spec.schedule()
    return {
        "game": spec.game,
        "config": dict(spec.config),
        "players": n,
        "seed": spec.seed,
        "games_planned": spec.games,
        "games_completed": len(done),
        "complete": len(done) == spec.games,
        "seat_balanced": len(done) % sched.cycle == 0 and all(len(set(e["games_by_seat"])) == 1 for e in entrants),
        "truncated_games": truncated,
        "metrics": [{"name": m.name, "lower_is_better": m.lower_is_better, "meaning": m.meaning} for m in game.metrics],
        "entrants": entrants,
        "head_to_head": {
            "labels": labels,
            "ahead_rate": [[ahead[i][j] / met[i][j] if met[i][j] else None for j in range(len(labels))]
                           for i in range(len(labels))],
            "games": met,
        },
    }
