"""The names of learned policies as agents, resolved without the agent registry.

``policy_agent("ckpt:PATH?sample", game, seed)`` or ``policy_agent("pretrained:take5-game-4p", game, seed)``:
the same agents ``fiveplay_env.agents.registry.make_agent`` makes of these names (``fiveplay_env.agents.learned.agent``,
``fiveplay_env.agents.learned.pretrained``), for code the registry itself imports (the search agent loads its
``prior`` this way, so that ``fiveplay_env.agents.search`` never imports the registry back).
"""
from __future__ import annotations

from typing import Any


def policy_agent(name: str, game: str, seed: int | None = None) -> Any:
    """The agent of a learned policy's name: ``ckpt:PATH[?OPTIONS]`` (a checkpoint file or run folder)
    or ``pretrained:NAME[?OPTIONS]`` (a shipped policy); ``ValueError`` for any other name, and the
    ``CheckpointError`` of a missing, damaged or mismatched checkpoint."""
    prefix, _, rest = name.strip().partition(":")
    if prefix == "ckpt" and rest:
        from fiveplay_env.agents.learned.agent import make_ckpt_agent

        agent = make_ckpt_agent(rest, game, seed)
    elif prefix == "pretrained" and rest:
        from fiveplay_env.agents.learned.pretrained import make_pretrained_agent

        agent = make_pretrained_agent(rest, game, seed)
    else:
        raise ValueError(f"policy name: expected a learned policy (pretrained:NAME or ckpt:PATH), got {name!r}")
    agent.name = name.strip()
    return agent
