"""Learned agents: masked actor-critic networks trained by self-play (torch, the ``train`` extra).

The learner in pieces, each with one job (``experiments/train.py`` is the command line over them):

| module            | job                                                                            |
|-------------------|--------------------------------------------------------------------------------|
| ``config``        | ``TrainConfig``: the settings every algorithm shares, declared once (fields    |
|                   | whose metadata generate the command line and the validation); ``parse_opponents`` |
| ``defaults``      | what the learner knows about each game, one function per fact (training        |
|                   | defaults, best heuristic, network, observation scale, score, compact observation) |
| ``envs``          | training vector envs (the batched engine, or the vector API's reference        |
|                   | backend ``LoopVecEnv``), outcomes, engine snapshots                            |
| ``collector``     | the self-play collector (numpy, no torch): opponent mixture, seats, snapshot   |
|                   | pool, engine seats, reward attribution, carry-over -> ``Rollout`` trajectories |
| ``engine_seats``  | agents that need the engine (the search agent) as opponents and baselines:     |
|                   | one per (slot, seat) of the reference-engine loop, shown their own game        |
| ``returns``       | GAE along each (slot, seat) trajectory of a rollout (numpy)                    |
| ``run``           | ``Learner``: what a run drives (updates, counters, checkpoints, throughput);   |
|                   | ``LearnerBase``: the bookkeeping every learner sits on (seeded network, warm   |
|                   | start, lr schedule, counters, checkpoint state, resume checks), curve rows,    |
|                   | the periodic evaluation (torch)                                                |
| ``onpolicy``      | ``OnPolicyLearner``: the collector's rollouts, GAE and an algorithm's update;  |
|                   | ``OnPolicyConfig``: the rollouts' options (torch)                              |
| ``algorithms``    | the algorithms by name (``--algo``; built in or an entry point of              |
|                   | ``fiveplay.algorithms``): ``algorithms.ppo`` (``PPOConfig``, the clipped-PPO   |
|                   | update, ``PPOLearner``), ``algorithms.expit`` (expert iteration)               |
| ``search_games``  | expert iteration's games: an update's game list drawn up front, played by the  |
|                   | search in this process, ``workers`` local processes or Ray actors (weights, no |
|                   | files), the same games whoever plays them                                      |
| ``policy``        | the networks as the collector's policy (sampling, pool snapshots) (torch)      |
| ``trainer``       | ``make_learner``: the learner of a config's algorithm (torch)                  |
| ``evaluation``    | ``evaluate``: duplicate-format games of the learner vs a baseline              |
| ``nets``          | masked actor-critic networks: ``mlp``, and the games' own (their kits'         |
|                   | ``networks``, e.g. ``fiveplay_env.agents.take5.nets``)                                       |
| ``compact``       | a compact observation (``GameDef.compact``) decoded by torch                   |
| ``devices``       | device names, CPU copies for checkpoints (torch)                              |
| ``checkpoint``    | atomic, verified checkpoint files; ``CheckpointError`` on any problem          |
| ``inference``     | ``load_policy``: a checkpoint's network for play (no trainer, no registry)     |
| ``agent``         | ``PolicyAgent``: a checkpoint as an ``Agent``; the ``ckpt:PATH`` names         |
| ``names``         | ``policy_agent``: ``ckpt:`` / ``pretrained:`` names resolved without the registry |
| ``pretrained``    | the shipped policies (package data): ``pretrained:NAME``                       |
| ``jax``           | ``--backend jax`` (the ``jax`` extra): the networks' forward and the games'    |
|                   | heuristics in JAX (their kits'), ``JaxCollector`` (one compiled ``lax.scan``)  |

Importing this package registers the ``ckpt`` and ``pretrained`` prefixes with ``fiveplay_env.agents.registry`` (its
documented hook), so ``make_agent("ckpt:PATH", game, seed)`` works afterwards. torch is imported only when
a network is built or loaded, so this import is cheap and works without torch installed.
"""
from __future__ import annotations

from typing import Any

from fiveplay_env.agents.registry import file_fingerprint, register_prefix


def _ckpt_factory(rest: str, game: str, seed: int | None) -> Any:
    from fiveplay_env.agents.learned.agent import make_ckpt_agent

    return make_ckpt_agent(rest, game, seed)


def _pretrained_factory(rest: str, game: str, seed: int | None) -> Any:
    from fiveplay_env.agents.learned.pretrained import make_pretrained_agent

    return make_pretrained_agent(rest, game, seed)


def _pretrained_fingerprint(rest: str) -> str | None:
    from fiveplay_env.agents.learned.pretrained import _pretrained_fingerprint as fingerprint

    return fingerprint(rest)


def _ckpt_fingerprint(rest: str) -> str | None:
    """The checkpoint file's SHA-256, whatever the name's ``?options`` (None if there is no such file:
    loading it will say why)."""
    import os

    from fiveplay_env.agents.learned.checkpoint import resolve_path
    path = resolve_path(rest.partition("?")[0])
    return file_fingerprint(path) if os.path.isfile(path) else None


register_prefix("ckpt", _ckpt_factory, _ckpt_fingerprint)
def _pretrained_listing(game: str) -> list[tuple[str, str]]:
    """The shipped policies of ``game`` (``fiveplay agents``): their names and what each was trained for."""
    from fiveplay_env.agents.learned import pretrained

    return [(f"pretrained:{n}", f"shipped policy trained for {m.num_players} players: {m.summary} "
             f"(other counts: adapted)")
            for n in pretrained.available() for m in [pretrained.MODELS[n]] if m.game == game]


register_prefix("pretrained", _pretrained_factory, _pretrained_fingerprint, _pretrained_listing)

__all__ = ["register_prefix"]
