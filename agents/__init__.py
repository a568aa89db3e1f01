"""Agents for both games: the Agent protocol, a random agent, heuristics, and a determinized search.

    from agents import make_agent, play_game, get_game
    game = get_game("take5")
    agents = [make_agent(name, "take5", seed=i) for i, name in
              enumerate(["ismcts:sims=200", "take5-safest", "random", "random"])]
    record = play_game(game, game.make_config({"num_players": 4}), agents, seed=0)

Modules: ``base`` (the ``Agent`` protocol and the ``InformationSet`` search agents see), ``random_agent``,
``take5_heuristics``, ``five_alive_heuristics``, ``search`` (``SearchAgent``), ``registry``
(``make_agent``, ``known_agents``, ``register_prefix``), ``games`` (per-game adapters), ``arena``
(``play_game``), ``five_alive_support`` (5 Alive adapter and rollouts).
"""
from __future__ import annotations

from agents.arena import GameRecord, play_game
from agents.base import Agent, InformationSet
from agents.games import get_game
from agents.registry import known_agents, make_agent, register_prefix

__all__ = ["Agent", "InformationSet", "GameRecord", "play_game", "get_game", "known_agents", "make_agent",
           "register_prefix"]
