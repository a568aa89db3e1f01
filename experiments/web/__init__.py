"""The local web app: play Take 5 and 5 Alive against the bots, watch replays of recorded games, browse
the results of tournament and training runs.

Run it with ``python -m experiments.web [--runs runs] [--port 8000]`` (or ``make play``) and open
http://127.0.0.1:8000. ``app.create_app`` builds the ASGI app (Starlette) and checks every request
(host, origin, body, limits); ``sessions`` holds the games being played (tokens, capped bot moves,
idempotent moves, hints, per-client expiry); ``bots`` decides which bot names a request may use (never
code, never a file outside the runs folder); ``views`` decides what the browser may see; the pages are
plain HTML/CSS/JS in ``static/``.
"""
