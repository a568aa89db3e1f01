"""A third game that lives only in the tests: "toybid", a small Goofspiel (bidding for prizes).

It proves that a new game needs nothing outside its own folder: registered in the game table
(``fiveplay_env.games.register(GAME)``, or through the ``fiveplay.games`` entry point that
``tests/test_toy_game.py`` installs in a temporary folder), it works in the AEC and parallel API tests,
``make_vec``, records and replay, the arena and tournaments, the search agent, PPO updates and the web
app's game list, with no other file changed.

Rules: each of 2-4 players holds the bid cards 1..K (K = ``cards``, 3..8); a deck of prizes 1..K is
shuffled face down. Each turn one prize is turned up; the players bid one card each in seat order,
face down (no player sees the bids made before theirs); then the bids are revealed and discarded, and
the single highest bid wins the prize's value (a tie for the highest wins nothing). After K turns the
highest total wins (ties share). Hidden information: the bids not yet revealed and the prizes' order.
"""
from __future__ import annotations

from fiveplay_env.core.gamedef import GameDef, Metric, placings
from tests.toy_game import engine as eng
from tests.toy_game.config import ToyBidConfig

SPEC = eng.SPEC

METRICS = (
    Metric("points", False, "prize points won (higher is better)"),
    Metric("placing", True, "finishing place, 1 = most points (ties share the better place)"),
)


def results(engine: eng.ToyBidEngine, elimination_turn: list[int | None]) -> dict[str, list[float]]:
    scores = list(engine.state.scores)
    win = eng.winners(engine.state)
    return {
        "points": [float(s) for s in scores],
        "placing": [float(p) for p in placings([-s for s in scores])],
        "win": [1.0 / len(win) if p in win else 0.0 for p in range(len(scores))],
    }


GAME = GameDef(
    name="toybid",
    title="Toy bid (tests)",
    spec=SPEC,
    config_cls=ToyBidConfig,
    presets={"standard": ToyBidConfig(), "three": ToyBidConfig(num_players=3)},
    engine_cls=eng.ToyBidEngine,
    observe_state=eng.observe,
    observation_size=lambda config: eng.observation_size(config),
    env_module="tests.toy_game.env",
    summary=eng.summary,
    digest_fields=eng.digest_fields,
    results=results,
    metrics=METRICS,
    score="points",
    canonical=eng.canonical,
    sample_world=eng.sample_world,
    dynamics="simultaneous",  # the bids are secret until all are in: a native parallel env
    gym_id="fiveplay/ToyBid-v0",
    illegal_action_penalty=-20.0,
    describe="A small Goofspiel that exists only in the tests (tests/toy_game).",
)
