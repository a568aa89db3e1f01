"""Session-wide test setup: the toy game of ``tests/toy_game`` joins the game table, so every test
parametrized over ``fiveplay_env.games`` (the contract tests of ``tests/contracts``) runs on it too:
the proof that a game needs nothing outside its own folder."""
from __future__ import annotations

from fiveplay_env import games
from tests.toy_game import GAME as TOY_GAME

games.register(TOY_GAME, replace=True)
