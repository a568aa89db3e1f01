"""Agents for both games: the Agent protocol, a random agent, heuristics, and a determinized search.

    from fiveplay_env.agents import make_agent, play_game, get_game
    game = get_game("take5")
    agents = [make_agent(name, "take5", seed=i) for i, name in
              enumerate(["ismcts:sims=200", "take5-safest", "random", "random"])]
    record = play_game(game, game.make_config({"num_players": 4}), agents, seed=0)

The layout mirrors ``fiveplay_env/``: generic modules at the top, one folder per game with the same
file names.

| module                 | what                                                                        |
|------------------------|-----------------------------------------------------------------------------|
| ``base``               | the ``Agent`` protocol and the ``InformationSet`` search agents see          |
| ``kit``                | ``AgentKit``: what agents add to a game's ``GameDef`` (heuristics, search hooks) |
| ``games``              | ``GAMES``/``get_game``: every game's ``GameDef`` by name, ``kit``; ``parse_config`` |
| ``registry``           | agents by name: ``make_agent``, ``known_agents``, ``register_prefix``          |
| ``arena``              | ``play_game``: one game loop for every agent and game                        |
| ``search``             | ``SearchAgent``: determinized search, written once over the per-game rollouts |
| ``random_agent``       | ``RandomAgent``                                                             |
| ``take5/``, ``five_alive/`` | ``__init__.py`` (``KIT``), ``heuristics.py``, ``rollouts.py`` (search hooks) |
| ``learned/``           | torch: networks, PPO, checkpoints, the ``ckpt:`` agent                        |
"""
from __future__ import annotations

from fiveplay_env._layout import refuse_bare_name

refuse_bare_name(__name__)  # this folder is fiveplay_env.agents, in a checkout too (fiveplay_env._layout)

from fiveplay_env.agents.arena import GameRecord, play_game
from fiveplay_env.agents.base import Agent, InformationSet
from fiveplay_env.agents.games import get_game
from fiveplay_env.agents.registry import known_agents, make_agent, register_prefix

__all__ = ["Agent", "InformationSet", "GameRecord", "play_game", "get_game", "known_agents", "make_agent",
           "register_prefix"]
