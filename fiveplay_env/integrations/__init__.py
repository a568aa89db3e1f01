"""Adapters for RL libraries that need one, each importing its library lazily (``rllib``: Ray RLlib)."""
