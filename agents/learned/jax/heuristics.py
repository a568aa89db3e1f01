"""Heuristics in JAX, for opponents inside the JAX rollouts: each game declares its own in its kit
(``fiveplay_env.agents.kit.AgentKit.jax_heuristics``: agent name -> ``"module:factory"``), each equal, decision by
decision, to its batched numpy twin (``tests/learning/test_jax_train.py`` replays seeded games through both).

    act = heuristic("take5-safest", num_players)      # act(obs float32 [B, D], mask bool [B, A], key) -> int32 [B]

| name                 | where                                                                        |
|----------------------|------------------------------------------------------------------------------|
| a game's heuristic   | its kit's ``jax_heuristics`` (Take 5: ``take5-safest``, ``fiveplay_env.agents.take5.jax_heuristics``; |
|                      | 5 Alive: ``five-alive-attacker``, ``fiveplay_env.agents.five_alive.jax_heuristics``)       |
| ``random``           | here: a uniform legal action (``random_actions``, its own key stream)         |

``JAX_AGENTS`` is a live view of the names there are (``random`` and every kit's).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import jax
import jax.numpy as jnp

Act = Callable[[Any, Any, Any], Any]
"""``act(obs float32 [B, D], mask bool [B, A], key) -> int32 [B]`` (the key is used by ``random`` only)."""


def _declared() -> dict[str, str]:
    """Agent name -> ``"module:factory"`` of every kit's JAX heuristics."""
    from fiveplay_env.agents import games
    from fiveplay_env import games as table

    out: dict[str, str] = {}
    for game in table.names():
        out.update(games.kit(game).jax_heuristics)
    return out


class _Names(Sequence[str]):
    """The JAX agents' names, live: ``random`` and every kit's ``jax_heuristics``."""

    def _names(self) -> list[str]:
        return ["random", *sorted(_declared())]

    def __getitem__(self, i: Any) -> Any:
        return self._names()[i]

    def __len__(self) -> int:
        return len(self._names())

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __contains__(self, name: object) -> bool:
        return name == "random" or name in _declared()

    def __repr__(self) -> str:
        return repr(tuple(self._names()))


JAX_AGENTS: Sequence[str] = _Names()
"""The agents ``heuristic`` knows (a live view: ``random`` and every kit's ``jax_heuristics``)."""


def heuristic(name: str, num_players: int) -> Act:
    """The JAX agent ``name`` for ``num_players`` players (``ValueError`` naming the ones there are, or the
    game's own refusal, e.g. a player count the heuristic is not exact for)."""
    if name == "random":
        return lambda obs, mask, key: random_actions(key, mask)
    path = _declared().get(name) if isinstance(name, str) else None
    if path is None:
        raise ValueError(f"opponents: --backend jax plays self, pool and the agents {sorted(JAX_AGENTS)}, got {name!r}")
    from fiveplay_env.agents.kit import resolve

    return resolve(path)(num_players)


def random_actions(key: Any, mask: Any) -> Any:
    """int32 [B]: a uniform legal action per row (Gumbel-max over the mask)."""
    g = jax.random.gumbel(key, mask.shape, jnp.float32)
    return jnp.argmax(jnp.where(mask, g, -jnp.inf), axis=1).astype(jnp.int32)


def __getattr__(name: str) -> Any:
    """A game's JAX heuristic function that moved to its game (``safest_actions``: ``fiveplay_env.agents.take5.jax_heuristics``,
    ``attacker_actions``: ``fiveplay_env.agents.five_alive.jax_heuristics``), by its name."""
    import importlib

    for path in _declared().values():
        mod = importlib.import_module(path.partition(":")[0])
        if name in getattr(mod, "__all__", ()):
            return getattr(mod, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["JAX_AGENTS", "Act", "heuristic", "random_actions"]
