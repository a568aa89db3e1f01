"""The local web app: play Take 5 and 5 Alive (and any registered game) against the bots, watch replays of
recorded games, browse the results of tournament and training runs.

Run it with ``python -m fiveplay_env.experiments.web [--runs runs] [--port 8000]`` (or ``make play``) and open
http://127.0.0.1:8000. ``app.create_app`` builds the ASGI app (Starlette) and only wires the pieces:
``guards`` checks every request (host, origin, body, limits, JSON bounds); ``routes`` holds the endpoints;
``sessions`` the games being played (tokens, capped bot moves, idempotent moves, hints) and ``store`` who
holds them (per-client caps, expiry); ``bots`` decides which bot names a request may use (never code, never
a file outside the runs folder); ``replays`` checks and pages recorded games; ``run_browser`` reads the
runs folder for the Results pages; ``views`` decides what the browser may see, through each game's web
view (``games``: ``games/<game>.py`` for a game with its own table, the generic view for any other);
``rules_text`` gives the rules for players. The pages are plain HTML/CSS/JS in ``static/`` (``app.js`` and its
siblings; ``<game>.js`` draws the game whose web view names it).
"""
