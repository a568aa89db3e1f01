"""A small runs folder for the web tests: two recorded tournaments, a training-like run, traps outside."""
from __future__ import annotations

import json
import os
import shutil


def make_runs(root: str) -> str:
    """``root/runs`` with a Take 5 and a 5 Alive tournament (``--record``, 4 and 2 games), a run shaped like
    a training run (``config.json``, ``curves.csv`` with the trainer's columns, ``curves.png``,
    ``summary.json`` and a ``checkpoint.pt``: a shipped policy's file, so ``ckpt:RUN`` loads), and,
    beside the runs folder, ``secret.txt`` and ``outside.pt`` plus a symbolic link inside the runs folder
    pointing at them (traversal targets). Returns the runs folder."""
    from fiveplay_env.experiments import tournament

    runs = os.path.join(root, "runs")
    os.makedirs(runs)
    tournament.main(["--game", "take5", "--agents", "take5-safest", "random", "--config", "mode=round", "--games", "4",
                     "--out", runs, "--record", "--quiet"])
    tournament.main(["--game", "five_alive", "--agents", "five-alive-attacker", "random", "--games", "2",
                     "--out", runs, "--record", "--quiet", "--no-plots"])
    train = os.path.join(runs, "train__take5__0__20260101-000000")
    os.makedirs(train)
    with open(os.path.join(train, "config.json"), "w", encoding="utf-8") as f:
        f.write('{"game": "take5"}\n')
    cols = ["update", "decisions", "env_steps", "train_seconds", "baseline", "games", "deals", "greedy", "score_name",
            "score_mean", "score_ci", "opp_score_mean", "opp_score_ci", "diff_mean", "diff_ci", "win_mean", "win_ci"]
    with open(os.path.join(train, "curves.csv"), "w", encoding="utf-8") as f:
        f.write(",".join(cols) + "\n")
        for k, (score, opp, win) in enumerate([(20.5, 14.0, 0.10), (16.0, 14.5, 0.22), (12.5, 15.1, 0.31)]):
            for b, shift in (("random", 0.0), ("take5-safest", 3.0)):
                row = [k + 1, 100_000 * (k + 1), 120_000 * (k + 1), 60 * (k + 1), b, 400, 100, 1, "score",
                       score + shift, 0.8, opp - shift, 0.5, score - opp, 0.9, win - shift / 40, 0.04]
                f.write(",".join(str(x) for x in row) + "\n")
    with open(os.path.join(train, "summary.json"), "w", encoding="utf-8") as f:
        json.dump({"game": "take5", "decisions": 300000, "throughput": {"decisions_per_s": 5123.4, "engine_share": 0.31},
                   "evaluations": [{"baseline": "random", "score_mean": 12.5}], "curves_csv": "curves.csv"}, f)
    ratings = next(os.path.join(runs, d, "ratings.png") for d in os.listdir(runs) if d.startswith("tournament__take5"))
    shutil.copy(ratings, os.path.join(train, "curves.png"))
    from fiveplay_env.agents.learned import pretrained

    shutil.copy(pretrained.path_of("take5-round-4p"), os.path.join(train, "checkpoint.pt"))
    shutil.copy(pretrained.path_of("take5-round-4p"), os.path.join(root, "outside.pt"))
    with open(os.path.join(root, "secret.txt"), "w", encoding="utf-8") as f:
        f.write("secret\n")
    os.symlink(root, os.path.join(runs, "link_out"))
    return runs


class LiveServer:
    """The app on 127.0.0.1 and a free port, served by uvicorn in a thread (``create_app`` keywords
    pass through)."""

    def __init__(self, runs_dir: str, **kwargs) -> None:
        import socket
        import threading
        import time

        import uvicorn

        from fiveplay_env.experiments.web.app import create_app

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        kwargs.setdefault("max_games", 16)
        config = uvicorn.Config(create_app(runs_dir, **kwargs), host="127.0.0.1", port=self.port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.time() + 20
        while not self.server.started:
            if time.time() > deadline:
                raise RuntimeError("the web app did not start within 20 s")
            time.sleep(0.05)
        self.url = f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


def raw_request(port: int, head: str, body_chunks=(), timeout: float = 20.0) -> tuple[bytes, int]:
    """Send ``head`` (request line and headers, CRLF-separated, without the blank line) and then the body
    chunks to 127.0.0.1:``port`` byte for byte, stopping as soon as the server answers; returns (the
    answer, body bytes sent before it came)."""
    import select
    import socket

    sent = 0
    data = b""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(head.encode("latin-1") + b"\r\n\r\n")
        for chunk in body_chunks:
            ready, _, _ = select.select([s], [], [], 0)
            if ready:
                break
            try:
                s.sendall(chunk)
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += len(chunk)
        s.settimeout(timeout)
        try:
            while True:  # to the end of the answer: its Content-Length, or the server closing
                head_end = data.find(b"\r\n\r\n")
                if head_end >= 0:
                    length = [int(v) for k, v in (line.split(b":", 1) for line in data[:head_end].split(b"\r\n")[1:]
                                                  if b":" in line) if k.strip().lower() == b"content-length"]
                    if length and len(data) >= head_end + 4 + length[0]:
                        break
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        except (ConnectionResetError, TimeoutError):
            pass
    return data, sent
