"""The games expert iteration's search plays, and the workers that play them.

    from fiveplay_env.agents.learned.search_games import SearchGames, make_workers
    games = SearchGames(cfg)                          # cfg: an ExpitConfig (fiveplay_env.agents.learned.algorithms.expit)
    workers = make_workers(cfg)                       # cfg.workers processes, or Ray actors with cfg.ray
    out = workers.play(policy, plan)                  # plan: [(index, kind, seats), ...] -> one dict per game, in order
    workers.close()

A game is a pure function of the run's config, the network's weights of the update and its entry of the
plan: ``index`` (its deal and every agent's seed derive from the run's seed and it), ``kind`` (the opponent
kind: ``self`` or an agent name) and ``seats`` (where the search plays). The learner draws the plan from its
own generator before any game is played, so who plays a game (this process, ``workers`` local processes, or
Ray actors on a cluster) changes nothing in what it returns: ``workers=2`` and ``--ray`` give the samples of
``workers=1``, in the same order (``tests/learning/test_expit_workers.py``).

| workers              | how                                                                                |
|----------------------|------------------------------------------------------------------------------------|
| ``InProcess``        | ``workers=1``: the learner's own process, one game after another (it can stop between games) |
| ``LocalWorkers``     | ``workers=N > 1``: N spawned processes (``concurrent.futures``), kept for the run; each update |
|                      | the plan is cut into N consecutive chunks, one per process, with the weights          |
| ``RayWorkers``       | ``ray=ADDRESS`` (the ``distributed`` extra): ``workers`` Ray actors (``local``: a local Ray  |
|                      | instance, ``auto`` / ``ray://host:port`` a cluster: ``connect``, as the tournament's Ray |
|                      | backend connects); the weights go once per update through Ray's object store (``ray.put``) |

``policy`` is the update's network: a ``PolicyAgent`` for ``InProcess``, ``policy_payload``'s weights for worker
processes and Ray, None for an unguided search. The network reaches a worker as weights (``policy_payload``: architecture, sizes, ``state_dict``, the policy's
meta), never as a file; each worker rebuilds it once per update and hands it to its search agents in memory
(``SearchAgent.set_prior_policy``) when the search has a ``prior``. Workers set torch to one thread each.
No fault tolerance: a worker that dies fails the update (the run resumes from its last checkpoint).
"""
from __future__ import annotations

import time
from typing import Any, Sequence

import numpy as np

from fiveplay_env.core import ray_connect, seeding

IN_MEMORY_PRIOR = "ckpt:expit-learner-in-memory"
"""The ``prior=`` label of an expert whose prior is handed over in memory: it makes the search's options those
of a guided search (``rollout=policy`` and ``topk`` need a prior); the name is never loaded."""

def guided_search(search: str, game: str, seed: int, policy: Any) -> Any:
    """The expert: the search agent ``search`` names (``ismcts:...`` without ``prior=``) for ``game``, seeded
    ``seed``, guided by ``policy`` (a ``PolicyAgent`` in memory): made with the ``prior=`` label
    ``IN_MEMORY_PRIOR`` and handed the policy by ``SearchAgent.set_prior_policy`` (no file, no name to load)."""
    from fiveplay_env.agents.registry import make_agent

    base, _, rest = search.partition(":")
    agent = make_agent(f"{base}:" + ",".join(filter(None, [rest, f"prior={IN_MEMORY_PRIOR}"])), game, seed=seed)
    agent.set_prior_policy(policy)
    return agent


def search_needs_policy(search: str) -> bool:
    """Whether the search ``search`` names is guided by the learner's network: it names no ``prior`` of its own
    but uses one (``rollout=policy``, ``topk``, ``cpuct``); an unguided search (``ismcts:worlds=16,rollout=strong``)
    is a fixed expert."""
    items = dict(item.strip().partition("=")[::2] for item in search.partition(":")[2].split(",") if item.strip())
    if "prior" in items:
        return False
    return items.get("rollout", "").strip() == "policy" or any(float(items.get(k, 0) or 0) for k in ("topk", "cpuct"))


def policy_payload(arch: str, model: Any, obs_scale: Any, meta: dict[str, Any]) -> dict[str, Any]:
    """What a worker needs to play the network ``model``: its architecture, constructor arguments, observation
    scale, weights (a CPU copy) and the policy's ``meta`` (``policy_from_model``)."""
    from fiveplay_env.agents.learned.devices import cpu_state_dict

    return {"arch": arch, "kwargs": model.kwargs(), "obs_scale": obs_scale, "state_dict": cpu_state_dict(model),
            "meta": meta}


def policy_from_payload(payload: dict[str, Any]) -> Any:
    """``policy_payload``'s network as a greedy ``PolicyAgent`` (seed 0), as ``LearnerBase.policy_agent`` makes it."""
    from fiveplay_env.agents.learned.agent import policy_from_model
    from fiveplay_env.agents.learned.nets import build_model

    model = build_model(payload["arch"], payload["kwargs"], payload["obs_scale"])
    model.load_state_dict(payload["state_dict"])
    return policy_from_model(model, payload["meta"], seed=0, greedy=True)


class SearchGames:
    """Plays the search's games of an ``ExpitConfig`` (``cfg``): ``begin(policy)`` builds the update's agents,
    ``play(index, kind, seats)`` one game. Holds no generator of its own: everything random derives from the
    run's seed and the game's index."""

    def __init__(self, cfg: Any) -> None:
        from fiveplay_env.agents import games
        from fiveplay_env.agents.registry import user_agent

        self.cfg = cfg
        self.game_def = g = games.get_game(cfg.game)
        self.config = g.make_config(cfg.config)
        self.n = int(self.config.num_players)
        self.D = int(g.observation_size(self.config))
        self.A = int(g.num_actions)
        self.kinds = [name for name, _ in cfg.opponents]
        self.make_opponent = user_agent  # opponent names are the user's own: import paths allowed
        self.search: dict[int, Any] = {}
        self.opponents: dict[tuple[int, int], Any] = {}

    def begin(self, policy: Any) -> None:
        """The update's agents: the expert per seat (guided by ``policy``, a ``PolicyAgent``, when the search
        uses one; ``policy`` may be None otherwise) and one opponent per (kind, seat)."""
        from fiveplay_env.agents.registry import make_agent

        cfg = self.cfg
        if search_needs_policy(cfg.search):
            self.search = {q: guided_search(cfg.search, cfg.game, q, policy) for q in range(self.n)}
        else:
            self.search = {q: make_agent(cfg.search, cfg.game, seed=q) for q in range(self.n)}
        for agent in self.search.values():
            agent.keep_thoughts = True
        self.opponents = {(k, q): self.make_opponent(nm, cfg.game, seed=q) for k, nm in enumerate(self.kinds)
                          if nm != "self" for q in range(self.n)}  # one per seat: agents may keep per-game memory

    def play(self, index: int, kind: int, seats: Sequence[int]) -> dict[str, Any]:
        """Game ``index``: the search in ``seats``, opponent kind ``kind`` elsewhere (each agent re-seeded for the
        game). Returns its samples (``obs``, ``mask``, ``target``, ``ret``), the search seats' mean return
        (``return``, raw points), its ``steps`` and seconds (``search``, ``opponents``, ``engine``)."""
        cfg, g, n = self.cfg, self.game_def, self.n
        perf = time.perf_counter
        t0 = perf()
        seats = [int(s) for s in seats]
        base = seeding.derive(seeding.derive(cfg.seed, 4), int(index))
        engine = g.new_engine(self.config, seeding.derive(base, 0))
        agents: list[Any] = []
        for q in range(n):
            agent = self.search[q] if q in seats else self.opponents[(int(kind), q)]
            agent.reset(seed=seeding.derive(base, 1 + q))
            agents.append(agent)
        watchers = [q for q in range(n) if agents[q].uses_engine]
        obs_l: list[np.ndarray] = []
        mask_l: list[np.ndarray] = []
        target_l: list[np.ndarray] = []
        rows: dict[int, list[int]] = {q: [] for q in seats}
        rew: dict[int, list[float]] = {q: [] for q in seats}
        ep = np.zeros(n)
        elim: list[int | None] = [None] * n
        steps = 0
        t_search = t_opp = 0.0
        for q in watchers:
            agents[q].observe_engine(engine, q)
        while not engine.is_over and not g.truncated(engine.state):
            p = int(engine.current_player)
            mask = np.asarray(engine.legal_mask())
            obs = g.observe(engine, p)
            agent = agents[p]
            t1 = perf()
            if agent.uses_engine:
                agent.observe_engine(engine, p)
            a = int(agent.act(obs, mask))
            dt = perf() - t1
            if p in rows:
                t_search += dt
                rows[p].append(len(obs_l))
                rew[p].append(0.0)
                obs_l.append(np.asarray(obs, np.float32))
                mask_l.append(mask != 0)
                target_l.append(policy_target(agent.last_thoughts, a, self.A, cfg.target, cfg.target_temp))
            else:
                t_opp += dt
            r = engine.step(a)
            steps += 1
            for q in seats:
                if rew[q]:
                    rew[q][-1] += float(r[q])
            ep += np.asarray(r, np.float64)
            for q in watchers:
                t2 = perf()
                agents[q].observe_engine(engine, q)
                dt = perf() - t2
                if q in rows:
                    t_search += dt
                else:
                    t_opp += dt
            alive = g.alive(engine.state)
            if alive is not None:
                for q in range(n):
                    if not alive[q] and elim[q] is None:
                        elim[q] = steps
        win = np.asarray(g.results(engine, elim)["win"], np.float64)
        m = len(obs_l)
        ret = np.zeros(m, np.float32)
        for q in seats:
            G = 0.0
            last = True
            for i, r_ in zip(reversed(rows[q]), reversed(rew[q])):
                x = r_ * cfg.reward_scale
                if last and cfg.win_reward:
                    x += cfg.win_reward * (win[q] - 1.0 / n)
                last = False
                G = x + cfg.gamma * G
                ret[i] = G
        return {"obs": np.stack(obs_l) if m else np.zeros((0, self.D), np.float32),
                "mask": np.stack(mask_l) if m else np.zeros((0, self.A), bool),
                "target": np.stack(target_l) if m else np.zeros((0, self.A), np.float32),
                "ret": ret, "return": float(ep[seats].mean()), "steps": steps,
                "search": t_search, "opponents": t_opp, "engine": perf() - t0 - t_search - t_opp}


def policy_target(thoughts: dict[str, Any] | None, chosen: int, num_actions: int, kind: str,
                  temp: float) -> np.ndarray:
    """The policy target of one decision from the search's ``last_thoughts`` (``kind``: ``values``, ``visits``,
    ``chosen``; ``temp``: ``values``' temperature); a forced move or a decision without candidates: one-hot."""
    out = np.zeros(num_actions, np.float32)
    cands = [c for c in ((thoughts or {}).get("candidates") or []) if c.get("visits")]
    if kind == "chosen" or not cands or (thoughts or {}).get("forced"):
        out[chosen] = 1.0
        return out
    acts = np.array([int(c["action"]) for c in cands])
    if kind == "visits":
        w = np.array([float(c["visits"]) for c in cands])
    else:
        z = np.array([float(c["mean"]) for c in cands]) / temp
        w = np.exp(z - z.max())
    out[acts] = (w / w.sum()).astype(np.float32)
    return out


# --- the workers ------------------------------------------------------------------------------------------

class InProcess:
    """``workers=1``: the games in this process, one after another; ``stop(i, new)`` (games played, samples so far)
    ends the update between games."""

    name = "in-process"

    def __init__(self, cfg: Any) -> None:
        self.games = SearchGames(cfg)

    def play(self, policy: Any, plan: Sequence[Any], stop: Any = None) -> list[dict[str, Any]]:
        self.games.begin(policy)
        out: list[dict[str, Any]] = []
        new = 0
        for i, (index, kind, seats) in enumerate(plan):
            if i and stop is not None and stop(i, new):
                break
            res = self.games.play(index, kind, seats)
            new += int(res["ret"].shape[0])
            out.append(res)
        return out

    def close(self) -> None:
        pass


_WORKER: dict[str, Any] = {}


def _init_worker(cfg: Any) -> None:
    """A worker process's start: one torch thread, its ``SearchGames``."""
    import torch

    torch.set_num_threads(1)
    _WORKER["games"] = SearchGames(cfg)


def _play_chunk(payload: dict[str, Any] | None, chunk: Sequence[Any]) -> list[dict[str, Any]]:
    """In a worker: the games of ``chunk`` with the network ``payload`` (None: an unguided search)."""
    games: SearchGames = _WORKER["games"]
    policy = None if payload is None else policy_from_payload(payload)
    games.begin(policy)
    return [games.play(index, kind, seats) for index, kind, seats in chunk]


def chunks(plan: Sequence[Any], parts: int) -> list[list[Any]]:
    """``plan`` cut into at most ``parts`` consecutive, nearly equal, non-empty pieces."""
    plan = list(plan)
    k = max(1, min(int(parts), len(plan)))
    bounds = np.linspace(0, len(plan), k + 1).round().astype(int)
    return [plan[bounds[i]:bounds[i + 1]] for i in range(k) if bounds[i + 1] > bounds[i]]


class LocalWorkers:
    """``workers`` spawned local processes, kept for the run (each keeps its compiled search warm)."""

    name = "processes"

    def __init__(self, cfg: Any, workers: int) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self.workers = int(workers)
        self.pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                        initializer=_init_worker, initargs=(cfg,))

    def play(self, payload: dict[str, Any] | None, plan: Sequence[Any], stop: Any = None) -> list[dict[str, Any]]:
        futures = [self.pool.submit(_play_chunk, payload, c) for c in chunks(plan, self.workers)]
        return [res for f in futures for res in f.result()]

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


class _RayGames:
    """A Ray actor's body: ``_init_worker`` and ``_play_chunk`` in the actor's process."""

    def __init__(self, cfg: Any) -> None:
        _init_worker(cfg)

    def play(self, payload: dict[str, Any] | None, chunk: Sequence[Any]) -> list[dict[str, Any]]:
        return _play_chunk(payload, chunk)


def connect(address: str, num_cpus: int | None = None) -> bool:
    """``fiveplay_env.core.ray_connect.connect`` for expert iteration's Ray workers (the tournament's ``--ray``
    joins Ray the same way); returns whether this call connected (then ``close`` shuts it down)."""
    return ray_connect.connect(address, num_cpus, needs="expert iteration on Ray")


class RayWorkers:
    """``workers`` Ray actors (one CPU each) at ``address`` (``connect``: ``local``, ``auto``, ``ray://...``)."""

    name = "ray"

    def __init__(self, cfg: Any, workers: int, address: str) -> None:
        self.owns = connect(address, num_cpus=max(1, int(workers)))
        import ray

        self.ray = ray
        actor = ray.remote(num_cpus=1)(_RayGames)
        self.actors = [actor.remote(cfg) for _ in range(max(1, int(workers)))]

    def play(self, payload: dict[str, Any] | None, plan: Sequence[Any], stop: Any = None) -> list[dict[str, Any]]:
        ref = self.ray.put(payload)
        parts = chunks(plan, len(self.actors))
        refs = [a.play.remote(ref, c) for a, c in zip(self.actors, parts)]
        return [res for out in self.ray.get(refs) for res in out]

    def close(self) -> None:
        for a in self.actors:
            self.ray.kill(a)
        self.actors = []
        if self.owns and self.ray.is_initialized():
            self.ray.shutdown()


def make_workers(cfg: Any) -> Any:
    """The workers of ``cfg`` (``workers``, ``ray``): ``RayWorkers`` with ``ray``, ``LocalWorkers`` for
    ``workers`` > 1, else ``InProcess``."""
    if getattr(cfg, "ray", None):
        return RayWorkers(cfg, cfg.workers, cfg.ray)
    if cfg.workers > 1:
        return LocalWorkers(cfg, cfg.workers)
    return InProcess(cfg)


__all__ = ["SearchGames", "InProcess", "LocalWorkers", "RayWorkers", "make_workers", "policy_target",
           "connect", "guided_search", "search_needs_policy", "policy_payload", "policy_from_payload", "chunks",
           "IN_MEMORY_PRIOR"]
