"""Evaluation: the learner against n-1 copies of a baseline, in a duplicate format (numpy; torch only to
play a network).

    res = evaluate(model, "take5", {"num_players": 4, "mode": "round"}, "take5-safest", games=400, seed=0)
    res["diff"]      # [mean, 95% half-width]: the learner's score minus the baselines' mean, per game

Game g deals seed ``derive(seed, g // n)`` with the learner in seat ``g % n``, so every deal is played
from every seat. The result holds the learner's mean score, the baseline's mean score, their difference
and the learner's win rate, each with a 95% confidence interval over deals (``fiveplay_env.agents.arena.mean_ci``).

The learner is a network (greedy by default, or sampled with a ``torch.Generator`` seeded
``derive(seed, 2**50)``) or any agent with ``act_batch``. A baseline that needs the engine
(``uses_engine``: ``ismcts:...``) plays on the reference-engine loop (``backend`` "auto" picks it;
"batched" is a ``ValueError``), one instance per (game, seat), reset for game g's seat q with
``engine_seats.seat_seed(derive(seed, 2**51), g, q, n)`` and driven like ``fiveplay_env.agents.arena.play_game``
drives it (``fiveplay_env.agents.learned.engine_seats``).
"""
from __future__ import annotations

import math
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from fiveplay_env.agents.arena import mean_ci
from fiveplay_env.agents.learned import envs as envs_mod
from fiveplay_env.agents.learned.defaults import score_info
from fiveplay_env.core import seeding


def mean_half_width(x: np.ndarray) -> tuple[float, float]:
    """``fiveplay_env.agents.arena.mean_ci`` as the result's ``(mean, half-width)`` pair, NaN where it is undefined."""
    ci = mean_ci(np.asarray(x, np.float64).tolist())
    mean, half = ci["mean"], ci["half_width"]
    return (math.nan if mean is None else mean, math.nan if half is None else half)


def _is_network(model: Any) -> bool:
    torch = sys.modules.get("torch")  # a network exists only if torch has been imported
    return torch is not None and isinstance(model, torch.nn.Module)


def evaluate(model: Any, game: str, config: dict[str, Any], baseline: str, games: int, seed: int,
             greedy: bool = True, batch: int = 512, backend: str = "auto",
             make_agent: Callable[..., Any] | None = None) -> dict[str, Any]:
    """Learner (``model``: a network, or any agent with ``act_batch``) in one seat, n-1 copies of agent
    ``baseline`` in the others: ``games`` games (rounded up to a multiple of n) in the duplicate format of
    the module docstring. ``make_agent`` resolves the baseline's name (``fiveplay_env.agents.registry.make_agent``
    if None).

    Returns ``games``, ``deals``, ``score_name``, ``lower_is_better``, ``score`` / ``opp_score`` /
    ``diff`` (learner minus the baseline's mean, per game) / ``win`` as ``[mean, ci95]`` (intervals over
    deals), and the raw per-game arrays under ``per_game``.
    """
    from fiveplay_env.agents.learned.engine_seats import EngineSeats, seat_seed

    if make_agent is None:
        from fiveplay_env.agents.registry import make_agent
    agent_seed = seeding.derive(seed, 1 << 51)
    agent = make_agent(baseline, game, seed=agent_seed)
    engine_names = [baseline] if agent.uses_engine else []
    probe = envs_mod.make_training_env(game, 1, 0, config, backend, engine_agents=engine_names)
    n = probe.num_players
    total = int(math.ceil(games / n) * n)
    sinfo = score_info(game)
    own_score = np.zeros(total)
    opp_score = np.zeros(total)
    win = np.zeros(total)
    is_net = _is_network(model)
    if is_net:
        import torch

        from fiveplay_env.agents.learned.policy import network_actor

        gen = torch.Generator().manual_seed(seeding.derive(seed, 1 << 50) & 0x7FFFFFFFFFFFFFFF)
        learner_act = network_actor(model, gen, greedy)
        was_training = model.training
        model.eval()
    else:
        learner_act = model.act_batch
    try:
        for start in range(0, total, batch):
            m = min(batch, total - start)
            g = np.arange(start, start + m)
            env = envs_mod.make_training_env(game, m, seed, config, backend, engine_agents=engine_names)
            seeds = np.array([seeding.derive(seed, int(x) // n) for x in g], dtype=np.uint64)
            obs, mask, cur = envs_mod.reset_with_seeds(env, seed, seeds)
            seat = (g % n).astype(np.int64)
            done = np.zeros(m, bool)
            returns = np.zeros((m, n))
            seated = None
            if engine_names:  # one instance per (game, seat), seeded from the game's number (engine_seats)
                seated = EngineSeats(env, game, {0: baseline}, make_agent)
                for j in range(m):
                    others = [q for q in range(n) if q != seat[j]]
                    seated.start(j, 0, others, [seat_seed(agent_seed, int(g[j]), q, n) for q in others])
            while not done.all():
                learner = cur == seat
                actions = np.zeros(m, np.int64)
                li = np.flatnonzero(learner)
                if li.size:
                    actions[li] = learner_act(obs[li], mask[li])
                oi = np.flatnonzero(~learner)
                if seated is not None:
                    # the slots of finished games play on (autoreset) until every game is done: any legal
                    # action there, the seated agents only in their own games
                    actions[oi] = mask[oi].argmax(axis=1)
                    oi = oi[~done[oi]]
                    if oi.size:
                        actions[oi] = seated.act(oi, cur[oi], obs[oi], mask[oi])
                elif oi.size:
                    actions[oi] = agent.act_batch(obs[oi], mask[oi])
                obs, mask, cur, rew, term, info = env.step(actions)
                if seated is not None:
                    seated.after_step(term & ~done)
                returns += rew
                fin = np.flatnonzero(term & ~done)
                if fin.size:
                    sc, wn = envs_mod.outcome(game, info, fin, returns)
                    s = seat[fin]
                    rows = np.arange(fin.size)
                    own_score[g[fin]] = sc[rows, s]
                    opp_score[g[fin]] = (sc.sum(axis=1) - sc[rows, s]) / (n - 1)
                    win[g[fin]] = wn[rows, s]
                    done[fin] = True
                returns[term] = 0
    finally:
        if is_net:
            model.train(was_training)
    deal = lambda x: x.reshape(-1, n).mean(axis=1)  # noqa: E731 - per-deal means (the CI's units)
    diff = own_score - opp_score
    return {
        "baseline": baseline, "games": total, "deals": total // n, "score_name": sinfo.name,
        "lower_is_better": sinfo.lower_is_better, "greedy": greedy,
        "score": mean_half_width(deal(own_score)), "opp_score": mean_half_width(deal(opp_score)),
        "diff": mean_half_width(deal(diff)), "win": mean_half_width(deal(win)),
        "per_game": {"score": own_score, "opp_score": opp_score, "win": win, "seat": np.arange(total) % n},
    }
