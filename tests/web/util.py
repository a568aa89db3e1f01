"""A small runs folder for the web tests: two recorded tournaments, a training-like run, traps outside."""
from __future__ import annotations

import os


def make_runs(root: str) -> str:
    """``root/runs`` with a Take 5 and a 5 Alive tournament (``--record``, 4 and 2 games), a run holding
    ``curves.csv`` and ``curves.png`` like a training run, and, beside the runs folder, ``secret.txt``
    plus a symbolic link inside the runs folder pointing at it (path traversal targets). Returns the
    runs folder."""
    from experiments import tournament

    runs = os.path.join(root, "runs")
    os.makedirs(runs)
    tournament.main(["--game", "take5", "--agents", "take5-safest", "random", "--config", "mode=round", "--games", "4",
                     "--out", runs, "--record", "--quiet"])
    tournament.main(["--game", "five_alive", "--agents", "five-alive-attacker", "random", "--games", "2",
                     "--out", runs, "--record", "--quiet", "--no-plots"])
    train = os.path.join(runs, "train__take5__0__x")
    os.makedirs(train)
    with open(os.path.join(train, "config.json"), "w", encoding="utf-8") as f:
        f.write('{"game": "take5"}\n')
    with open(os.path.join(train, "curves.csv"), "w", encoding="utf-8") as f:
        f.write("decisions,baseline,score\n100,random,-20.5\n200,random,-18.0\n")
    ratings = next(os.path.join(runs, d, "ratings.png") for d in os.listdir(runs) if d.startswith("tournament__take5"))
    with open(ratings, "rb") as src, open(os.path.join(train, "curves.png"), "wb") as dst:
        dst.write(src.read())
    with open(os.path.join(root, "secret.txt"), "w", encoding="utf-8") as f:
        f.write("secret\n")
    os.symlink(root, os.path.join(runs, "link_out"))
    return runs
