"""Expert iteration (torch): the policy distilled from the search, the search guided by the policy.

    from fiveplay_env.agents.learned.algorithms.expit import ExpitConfig, ExpitLearner
    cfg = ExpitConfig(game="take5", config={"num_players": 4, "mode": "round"},
                      opponents=[("take5-safest", 1.0), ("self", 1.0)], total_decisions=50_000,
                      init_from="pretrained:take5-round-4p", win_reward=3.0)
    learner = ExpitLearner(cfg)                 # this module's LEARNER (make_learner(cfg) finds it too)
    while learner.decisions < cfg.total_decisions:
        stats = learner.train_update()          # games_per_update games, then sgd steps on the buffer

Anthony, Tian and Barber (2017), "Thinking fast and slow with deep learning and tree search"; the same
loop as AlphaZero's, with the determinized search (``fiveplay_env.agents.search``; ``bsearch:`` is its
earlier name) as the expert. One update:

1. **The search plays.** The expert is the search ``search`` names, by default ``ismcts:worlds=16,rollout=strong``:
   the compiled search (Take 5 and 5 Alive run it in numba: about 1-3 ms a decision), 16 worlds per candidate,
   the game's best heuristic in the rollouts. A search that uses a prior without naming one (``topk=``,
   ``cpuct=``, ``rollout=policy``: e.g. ``ismcts:worlds=16,rollout=strong,topk=4``) is guided by the
   current network (a frozen CPU copy, ``LearnerBase.policy_agent``), handed over in memory
   (``search_games.guided_search``: ``SearchAgent.set_prior_policy``; no file is written), or as weights to
   worker processes and Ray actors (``search_games.policy_payload``); a search that names its own ``prior`` or
   uses none is a fixed teacher. (``rollout=policy`` runs the network in Python inside the rollouts: 20-80 ms
   a decision; the compiled rollouts are what make the targets cheap.)
   The update's games are planned first (``plan``: each game's index, opponent kind and search seats, drawn
   from the run's generator), then played by ``workers`` (``search_games``: this process for ``workers=1``,
   N spawned processes, or with ``ray`` N Ray actors; the same games and samples, in the same order, whoever
   plays them).
   ``games_per_update`` complete games are played on the reference engine (one game at a time, exact): each
   game draws an opponent kind from ``opponents`` (weights), ``self``: the search in every seat (all their
   decisions are samples), or an agent name: the search in one random seat, that agent in the others
   (``take5-safest``, ``pretrained:NAME``, ``ismcts:...``). ``pool`` (PPO's past snapshots) is refused: the
   network changes little per update, and every seat the search plays is a sample anyway. The default
   mixture, the game's best heuristic and ``self`` at equal weights, puts half the games on the field the
   policies are measured against and half on self-play positions, so the policy does not learn one
   opponent's habits only. The search plays its own choice (``chosen``), greedy.
2. **Samples.** At each decision of a search seat: the observation, the legal mask, the search's target
   distribution (``target``) and, once the game is over, the value target. A forced move (one legal action)
   is a sample too (its policy loss is 0; its value target counts).

   | ``target``  | the policy's target over the legal actions                                             |
   |-------------|----------------------------------------------------------------------------------------|
   | ``values``  | softmax of the candidates' mean values / ``target_temp`` (the search's value units:    |
   |             | Take 5 bull heads relative to the others; 5 Alive lives); candidates not searched: 0    |
   | ``visits``  | the simulations spent on each candidate, normalised (sequential halving: rounds survived)|
   | ``chosen``  | one-hot of the action the search played                                                |

   ``values`` (the default) is the softened choice: sequential halving's visit counts say mostly in which
   round an action was dropped (the two finalists tie), while many Take 5 cards are nearly equal and a
   one-hot target would call all but one of them wrong; a temperature of 1 bull head keeps a card one
   head worse at e^-1 of the best one's weight.

   The value target is PPO's (``fiveplay_env.agents.learned.collector``) at lambda = 1: the seat's rewards times
   ``reward_scale`` from this decision to its next one, plus ``win_reward * (win share - 1/n)`` on its
   last decision, discounted by ``gamma`` per own decision, summed to the end of the game. So the value
   head stays in the units the search's ``value=1`` leaf reads (``fiveplay_env.agents.search.PolicyGuide``: points =
   value / ``reward_scale``), and a distilled checkpoint guides the next search as a PPO one does.
3. **The update** (``ExIt``): samples go into a replay buffer of the last ``buffer_size``; then
   ceil(``replay_ratio`` x new samples / ``minibatch_size``) steps of Adam on minibatches drawn uniformly
   from the buffer (with replacement, by the run's numpy generator)::

       L_pi = mean over rows of  - sum_a target(a) log pi(a)      (pi: softmax of the masked logits)
       L_v  = 0.5 mean((V - R)^2)
       loss = L_pi + vf_coef L_v                                    (gradients clipped to max_grad_norm)

   Statistics: ``policy_loss`` (the cross-entropy), ``kl`` (KL(target || pi): the cross-entropy less the
   targets' entropy), ``value_loss``, ``entropy`` (the policy's, over the legal actions), ``accuracy``
   (the policy's most probable action is the target's), ``explained_variance``, ``samples`` (new this
   update), ``sgd_steps``, ``buffer``, ``lr``.

Reproducibility: every game's deal, seats and agents' seeds derive from the run's seed and the game's
index; the kinds and seats are drawn from the run's numpy generator (``derive(seed, 3)``), which also draws
the minibatches. Games never span updates, so a checkpoint (the network, Adam's state, the buffer, the
generator, the counters) is all a resume needs to continue bit-identically (``tests/learning/test_expit.py``,
``tests/learning/test_expit_workers.py``: with the compiled expert, and with worker processes and Ray actors).
The search's budget must be ``worlds=`` or ``sims=``: a ``time=`` budget depends on the machine's speed.

The run's bookkeeping (schedule, counters, checkpoints, resume checks, throughput) is
``fiveplay_env.agents.learned.run.LearnerBase``, shared with PPO. Checkpoints are every learner's
(``kind "fiveplay-policy"``, ``algo "expit"``): ``ckpt:RUN``, ``pretrained:`` exports, the web app and a
search's ``prior=`` read them as they read PPO's. The options are ``TrainConfig``'s and those below; the
on-policy ones (``num_envs``, ``rollout_steps``, ``gae_lambda``, ``snapshot_interval``, ``pool_size``) are
a ``ValueError`` here; ``backend`` must be ``auto`` or ``reference`` and ``compact_obs`` off (it plays the
reference engine).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import torch

from fiveplay_env.agents.learned.collector import Timers
from fiveplay_env.agents.learned.config import TrainConfig, option, parse_opponents
from fiveplay_env.agents.learned.devices import to_cpu
from fiveplay_env.agents.learned.returns import explained_variance
from fiveplay_env.agents.learned.run import LearnerBase
from fiveplay_env.agents.learned.search_games import (IN_MEMORY_PRIOR, SearchGames, guided_search,  # noqa: F401
                                                      make_workers, policy_payload, policy_target,
                                                      search_needs_policy)

GROUP = "expert iteration"
TARGETS = ("values", "visits", "chosen")
SEARCHES = ("bsearch", "ismcts")
"""The search agents that can be the expert (they leave ``last_thoughts``)."""
DEFAULT_SEARCH = "ismcts:worlds=16,rollout=strong"
BACKENDS = ("auto", "reference")


def default_expit_opponents(game: str) -> list[str]:
    """The opponents of an expit run that names none: the game's best heuristic and ``self``, equal weights."""
    from fiveplay_env.agents.learned.defaults import best_heuristic

    return [best_heuristic(game), "self"]


def split_search(spec: str) -> tuple[str, str, bool]:
    """``"bsearch:worlds=16,rollout=policy"`` -> ``("bsearch", "worlds=16,rollout=policy", names_a_prior)``;
    ``ValueError`` naming the ``search`` field for anything but a valid ``bsearch`` / ``ismcts`` name with a
    ``worlds=`` or ``sims=`` budget."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"search: expected a search agent's name such as {DEFAULT_SEARCH!r}, got {spec!r}")
    base, _, rest = spec.strip().partition(":")
    if base not in SEARCHES:
        raise ValueError(f"search: expected a name starting with one of {list(SEARCHES)} (e.g. {DEFAULT_SEARCH!r}), "
                         f"got {spec!r}")
    keys = [item.partition("=")[0].strip() for item in rest.split(",") if item.strip()]
    has_prior = "prior" in keys
    if "time" in keys:
        raise ValueError(f"search: expected a worlds= or sims= budget (a time= budget depends on the machine's "
                         f"speed, so the run would not be reproducible), got {spec!r}")
    from fiveplay_env.agents.search_params import SearchParams  # bsearch: the search's earlier name, the same options

    probe = rest if has_prior else ",".join(filter(None, [rest, "prior=ckpt:PRIOR"]))
    try:
        SearchParams.parse(probe)
    except ValueError as exc:
        raise ValueError(f"search: {exc} (in {spec!r})") from exc
    return base, rest, has_prior


MAX_GAMES_PER_UPDATE = 100_000
"""``games_per_update`` at most (an update of the default search is about a second a game)."""
MAX_BUFFER_SIZE = 2_000_000
"""``buffer_size`` at most; its memory is also checked against ``MAX_BUFFER_BYTES`` for the game's sizes."""
MAX_BUFFER_BYTES = 4 << 30
"""The replay buffer's memory at most once full (observations, masks, targets, returns)."""
MAX_MINIBATCH = 65_536
"""``minibatch_size`` at most."""


@dataclass
class ExpitConfig(TrainConfig):
    """An expert-iteration run: ``TrainConfig`` plus the search and the distillation (module docstring)."""

    algo: ClassVar[str] = "expit"

    opponents: list[tuple[str, float]] | None = option(
        None, "opponent kinds with weights: self (the search in every seat) or agent names (the search in one "
              "seat; default: the game's best heuristic and self, equal weights)", group="game and opponents",
        nargs="+", metavar="NAME[@W]", cli_default_text="", parse=lambda v, a: parse_opponents(v) if v else None)
    search: str = option(DEFAULT_SEARCH, "the expert: an ismcts (or bsearch) name with a worlds= or sims= budget; "
                                         "guided by the run's current network when it uses a prior it does not "
                                         "name (topk=, cpuct=, rollout=policy)",
                         metavar="NAME", group=GROUP)
    games_per_update: int = option(16, "complete games the search plays per update (an update also ends once "
                                       "the run's total decisions are reached)", lo=1, hi=MAX_GAMES_PER_UPDATE,
                                   metavar="G", group=GROUP)
    buffer_size: int = option(25_000, "replay buffer: the last N samples", lo=1, hi=MAX_BUFFER_SIZE, metavar="N",
                              group=GROUP)
    minibatch_size: int = option(256, "samples per gradient step", lo=1, hi=MAX_MINIBATCH, group=GROUP)
    replay_ratio: float = option(4.0, "gradient steps per update: ceil(R x new samples / minibatch size)", lo=0.0,
                                 hi=1000.0, open_lo=True, metavar="R", group=GROUP)
    target: str = option("values", "the policy's target: softmax of the candidates' mean values, the search's visit "
                                   "counts, or one-hot of its choice", choices=TARGETS, group=GROUP)
    target_temp: float = option(1.0, "temperature of target=values, in the search's value units (Take 5: bull heads)",
                                lo=0.0, hi=1e6, open_lo=True, group=GROUP)
    workers: int = option(1, "processes playing the search's games while this one trains (the same games for "
                             "any number; with --ray: Ray actors)", lo=1, hi=1024, metavar="N", group=GROUP)
    ray: str | None = option(None, "play the search's games on --workers Ray actors (the distributed extra): local "
                                   "(a local Ray instance), auto or ray://host:port (a cluster)", metavar="ADDRESS",
                             group=GROUP, cli_default_text="")
    vf_coef: float = option(0.5, "value-loss weight", lo=0.0, hi=100.0, group=GROUP)
    max_grad_norm: float = option(1.0, "gradient clipping", lo=0.0, hi=1e9, open_lo=True, group=GROUP)

    @classmethod
    def opponents_by_default(cls, game: str) -> list[str]:
        return default_expit_opponents(game)

    def validate(self) -> None:
        super().validate()
        if self.backend not in BACKENDS:
            raise ValueError(f"backend: expected one of {list(BACKENDS)} for expit (it plays the reference engine, "
                             f"one game at a time), got {self.backend!r}")
        if self.compact_obs:
            raise ValueError("compact_obs: expected off for expit (its samples are the reference engine's "
                             "observations)")
        for name, _ in self.opponents:
            if name == "pool":
                raise ValueError("opponents: expected self or agent names for expit, got 'pool' (expit keeps no "
                                 "snapshot pool: the search plays every learner seat)")
        split_search(self.search)
        if self.ray is not None and (not isinstance(self.ray, str) or not self.ray.strip()):
            raise ValueError(f"ray: expected local, auto or a Ray address such as ray://host:port, got {self.ray!r}")


# --- the replay buffer ----------------------------------------------------------------------------------

class ReplayBuffer:
    """The last ``capacity`` samples (a ring): ``obs`` float32 [C, D], ``mask`` bool [C, A], ``target``
    float32 [C, A], ``ret`` float32 [C]. ``state()`` keeps them exactly and compactly (the observations
    and targets as their nonzero entries, the masks as bits)."""

    def __init__(self, capacity: int, obs_dim: int, num_actions: int) -> None:
        self.capacity, self.D, self.A = int(capacity), int(obs_dim), int(num_actions)
        self.size = 0
        self.pos = 0  # where the next sample goes once the buffer is full
        self._obs = np.zeros((0, self.D), np.float32)
        self._mask = np.zeros((0, self.A), bool)
        self._target = np.zeros((0, self.A), np.float32)
        self._ret = np.zeros(0, np.float32)

    def _grow(self) -> None:
        """Room for more samples: the storage doubles (at least 256 rows, at most ``capacity``)."""
        rows, k = min(self.capacity, max(256, 2 * self.size)), self.size
        for name in ("_obs", "_mask", "_target", "_ret"):
            old = getattr(self, name)
            new = np.zeros((rows, *old.shape[1:]), old.dtype)
            new[:k] = old[:k]
            setattr(self, name, new)

    def __len__(self) -> int:
        return self.size

    def add(self, obs: np.ndarray, mask: np.ndarray, target: np.ndarray, ret: np.ndarray) -> None:
        """Append samples (row i of each array is one); the oldest are overwritten beyond ``capacity``."""
        for i in range(obs.shape[0]):
            if self.size < self.capacity:
                if self.size == self._obs.shape[0]:
                    self._grow()
                j = self.size
                self.size += 1
            else:
                j = self.pos
                self.pos = (j + 1) % self.capacity
            self._obs[j], self._mask[j], self._target[j], self._ret[j] = obs[i], mask[i], target[i], ret[i]

    @property
    def obs(self) -> np.ndarray:
        return self._obs[:self.size]

    @property
    def mask(self) -> np.ndarray:
        return self._mask[:self.size]

    @property
    def target(self) -> np.ndarray:
        return self._target[:self.size]

    @property
    def ret(self) -> np.ndarray:
        return self._ret[:self.size]

    def arrays(self) -> dict[str, np.ndarray]:
        """The samples held (views): ``obs``, ``mask``, ``target``, ``ret``."""
        return {"obs": self.obs, "mask": self.mask, "target": self.target, "ret": self.ret}

    def state(self) -> dict[str, Any]:
        flat_o = self.obs.reshape(-1)
        io = np.flatnonzero(flat_o)
        flat_t = self.target.reshape(-1)
        it = np.flatnonzero(flat_t)
        return {"size": len(self), "pos": self.pos, "capacity": self.capacity, "obs_dim": self.D,
                "num_actions": self.A,
                "obs_index": torch.from_numpy(io.astype(np.int64)), "obs_value": torch.from_numpy(flat_o[io].copy()),
                "target_index": torch.from_numpy(it.astype(np.int64)),
                "target_value": torch.from_numpy(flat_t[it].copy()),
                "mask_bits": torch.from_numpy(np.packbits(self.mask.reshape(-1))),
                "ret": torch.from_numpy(self.ret.copy())}

    def load_state(self, st: dict[str, Any]) -> None:
        size = int(st["size"])
        if int(st["obs_dim"]) != self.D or int(st["num_actions"]) != self.A or size > self.capacity:
            raise ValueError(f"replay buffer: expected at most {self.capacity} samples of {self.D} observation "
                             f"floats and {self.A} actions, got {size} of {st['obs_dim']} and {st['num_actions']}")
        obs = np.zeros(size * self.D, np.float32)
        obs[st["obs_index"].numpy()] = st["obs_value"].numpy()
        target = np.zeros(size * self.A, np.float32)
        target[st["target_index"].numpy()] = st["target_value"].numpy()
        mask = np.unpackbits(st["mask_bits"].numpy(), count=size * self.A).astype(bool)
        self._obs = obs.reshape(size, self.D)
        self._target = target.reshape(size, self.A)
        self._mask = mask.reshape(size, self.A)
        self._ret = st["ret"].numpy().astype(np.float32).copy()
        self.size = size
        self.pos = int(st["pos"])


# --- the update ------------------------------------------------------------------------------------------

class ExIt:
    """The distillation update of ``model`` (module docstring, step 3); its Adam optimizer is its state."""

    def __init__(self, cfg: ExpitConfig, model: torch.nn.Module, rng: np.random.Generator, device: torch.device,
                 decoder: Any = None) -> None:
        if decoder is not None:
            raise ValueError("compact_obs: expected off for expit")
        self.cfg = cfg
        self.model = model
        self.rng = rng
        self.device = device
        self.optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr, eps=1e-5)

    def steps_for(self, new_samples: int) -> int:
        """Gradient steps for an update that brought ``new_samples``: ceil(replay_ratio x new / minibatch)."""
        return max(1, math.ceil(self.cfg.replay_ratio * new_samples / self.cfg.minibatch_size)) if new_samples else 0

    def update(self, batch: dict[str, np.ndarray], lr: float, steps: int | None = None) -> dict[str, float]:
        """``steps`` Adam steps (default: one pass's worth, ceil(N / minibatch)) on minibatches drawn from
        ``batch`` (``obs``, ``mask``, ``target``, ``ret``: the replay buffer) at learning rate ``lr``."""
        cfg = self.cfg
        N = int(batch["ret"].shape[0])
        if N == 0:
            return {"samples": 0}
        mb = min(cfg.minibatch_size, N)
        steps = math.ceil(N / mb) if steps is None else int(steps)
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        dev = self.device
        self.model.train()
        sums = dict.fromkeys(("policy_loss", "kl", "value_loss", "entropy", "accuracy"), 0.0)
        rets, vals = [], []
        for _ in range(steps):
            idx = self.rng.integers(0, N, size=mb)
            obs = torch.from_numpy(batch["obs"][idx]).to(dev)
            mask = torch.from_numpy(batch["mask"][idx]).to(dev)
            target = torch.from_numpy(batch["target"][idx]).to(dev)
            ret = torch.from_numpy(batch["ret"][idx]).to(dev)
            logits, value = self.model(obs, mask)
            logp = torch.log_softmax(logits, dim=1)
            zero = torch.zeros_like(logp)
            ce = -torch.where(target > 0, target * logp, zero).sum(1).mean()
            vloss = 0.5 * (value - ret).pow(2).mean()
            loss = ce + cfg.vf_coef * vloss
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), cfg.max_grad_norm)
            self.optimizer.step()
            with torch.no_grad():
                probs = logp.exp()
                ent = -torch.where(mask, probs * logp, zero).sum(1).mean()
                t_ent = -torch.where(target > 0, target * torch.log(target.clamp_min(1e-30)), zero).sum(1).mean()
                acc = (logits.argmax(1) == target.argmax(1)).float().mean()
            sums["policy_loss"] += float(ce.detach())
            sums["kl"] += float(ce.detach() - t_ent)
            sums["value_loss"] += float(vloss.detach())
            sums["entropy"] += float(ent)
            sums["accuracy"] += float(acc)
            rets.append(batch["ret"][idx])
            vals.append(value.detach().cpu().numpy())
        out = {k: v / max(steps, 1) for k, v in sums.items()}
        out["explained_variance"] = explained_variance(np.concatenate(rets), np.concatenate(vals))
        out["sgd_steps"] = steps
        out["lr"] = lr
        return out

    def state_dict(self) -> dict[str, Any]:
        """The optimizer's state, on the CPU (a checkpoint's ``optimizer``)."""
        return to_cpu(self.optimizer.state_dict())

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.optimizer.load_state_dict(state)


# --- the run ---------------------------------------------------------------------------------------------

@dataclass
class ExpitTimers(Timers):
    """``Timers`` plus ``search``: the expert's decisions (its rollouts and forward passes)."""

    search: float = 0.0


class ExpitLearner(LearnerBase):
    """An expert-iteration run (module docstring): ``fiveplay_env.agents.learned.run.LearnerBase`` plus the games
    the search plays, the replay buffer and the ``ExIt`` update."""

    config_class = ExpitConfig
    timer_class = ExpitTimers
    throughput_parts = ("search", "engine", "network", "opponents", "rollout", "update", "other")
    resume_settings = ("seed", "opponents", "search", "target", "buffer_size")
    backend = "reference-loop"

    def __init__(self, cfg: ExpitConfig, device: str = "cpu", warm_start: bool = True) -> None:
        from fiveplay_env.agents.registry import user_agent

        super().__init__(cfg, device)
        g = self.game_def
        self._config = g.make_config(cfg.config)
        self._make_opponent = user_agent  # opponent names are the user's own: import paths allowed
        self.kinds = [name for name, _ in cfg.opponents]
        w = np.array([wt for _, wt in cfg.opponents], np.float64)
        self.kind_p = w / w.sum()
        for name in self.kinds:  # a bad name fails now, not in the first update
            if name != "self":
                self._make_opponent(name, cfg.game, seed=0)
        split_search(cfg.search)
        self._guided = search_needs_policy(cfg.search)
        self._workers: Any = None
        self.build_model(int(self._config.num_players), int(g.observation_size(self._config)), int(g.num_actions),
                         warm_start)
        self.algorithm = ExIt(cfg, self.model, self.rng, self.device)
        need = cfg.buffer_size * (4 * self.D + 5 * self.A + 4)
        if need > MAX_BUFFER_BYTES:
            raise ValueError(f"buffer_size: expected at most {MAX_BUFFER_BYTES // (4 * self.D + 5 * self.A + 4):,} "
                             f"samples for {cfg.game} with {self.n} players (a full buffer of {cfg.buffer_size:,} "
                             f"would take {need / 2**30:.1f} GiB, above {MAX_BUFFER_BYTES / 2**30:g} GiB)")
        self.buffer = ReplayBuffer(cfg.buffer_size, self.D, self.A)

    @property
    def workers(self) -> Any:
        """Who plays the games (``search_games.make_workers``: this process, ``workers`` processes or Ray actors),
        started by the first update that needs them and kept until ``close``."""
        if self._workers is None:
            self._workers = make_workers(self.cfg)
        return self._workers

    @workers.setter
    def workers(self, value: Any) -> None:
        self._workers = value

    # ------------------------------------------------------------------ the expert

    def experts(self) -> dict[int, Any]:
        """This update's expert per seat, as the in-process games build them (``SearchGames.begin``): the search
        ``search`` names, guided by the current network when it uses a prior it does not name; each keeps its
        thoughts."""
        games = SearchGames(self.cfg)
        games.begin(self.policy_agent() if self._guided else None)
        return games.search

    def _target(self, thoughts: dict[str, Any] | None, chosen: int) -> np.ndarray:
        """The policy target of one decision from the search's ``last_thoughts`` (``target``)."""
        return policy_target(thoughts, chosen, self.A, self.cfg.target, self.cfg.target_temp)

    def plan(self) -> list[tuple[int, int, list[int]]]:
        """This update's games, drawn before any is played: ``(index, opponent kind, search seats)`` for each of
        ``games_per_update`` games (the kinds and seats from the run's generator), so the games do not depend on
        who plays them or how many are played before the update ends."""
        cfg, n = self.cfg, self.n
        out = []
        for i in range(cfg.games_per_update):
            kind = int(self.rng.choice(len(self.kinds), p=self.kind_p))
            seat = int(self.rng.integers(0, n))
            out.append((self.games + i, kind, list(range(n)) if self.kinds[kind] == "self" else [seat]))
        return out

    # ------------------------------------------------------------------ one update

    def train_update(self) -> dict[str, Any]:
        """Play ``games_per_update`` games with the search (``workers``), add their samples to the buffer, update.
        Games after the one that reaches the run's total decisions are dropped (the in-process worker does not
        play them; with ``workers=1`` it also stops between games once the run's time is spent)."""
        cfg = self.cfg
        perf = time.perf_counter
        t0 = perf()
        plan = self.plan()
        if self._guided:
            policy = self.policy_agent() if self.workers.name == "in-process" else self._payload()
        else:
            policy = None
        self.timers.other += perf() - t0

        def stop(i: int, new: int) -> bool:
            return self.decisions + new >= cfg.total_decisions or (self.should_stop is not None and self.should_stop())

        t1 = perf()
        results = self.workers.play(policy, plan, stop)
        wall = perf() - t1
        t2 = perf()
        new = 0
        finished: list[tuple[int, float]] = []
        parts = {"search": 0.0, "opponents": 0.0, "engine": 0.0}
        for i, out in enumerate(results):
            if i and self.decisions + new >= cfg.total_decisions:
                break  # the run's decisions are spent: update on the games before
            self.buffer.add(out["obs"], out["mask"], out["target"], out["ret"])
            new += int(out["ret"].shape[0])
            self.games += 1
            self.env_steps += out["steps"]
            finished.append((plan[i][1], out["return"]))
            for k in parts:
                parts[k] += out[k]
        # the games' time: the workers' own seconds in-process; with worker processes the wall time of the
        # update's games, shared among the parts as the workers spent theirs
        total = sum(parts.values())
        scale = 1.0 if self.workers.name == "in-process" or total <= 0 else wall / total
        self.timers.search += parts["search"] * scale
        self.timers.opponents += parts["opponents"] * scale
        self.timers.engine += parts["engine"] * scale
        self.timers.other += perf() - t2
        t3 = perf()
        stats = self.algorithm.update(self.buffer.arrays(), self.lr_now(), self.algorithm.steps_for(new))
        self.timers.update += perf() - t3
        self.model.eval()
        stats.update(samples=new, buffer=len(self.buffer))
        return self.finish_update(stats, new, finished, self.kinds)

    def _payload(self) -> dict[str, Any]:
        """The network as weights for the workers (``search_games.policy_from_payload`` rebuilds it)."""
        return policy_payload(self.cfg.arch, self.model, self.obs_scale, self.policy_meta())

    def close(self) -> None:
        """Stop the workers (processes or Ray actors)."""
        workers, self._workers = self._workers, None
        if workers is not None:
            workers.close()

    # ------------------------------------------------------------------ checkpoints

    def learner_state(self) -> dict[str, Any]:
        """The replay buffer (games never span updates: nothing else is in flight)."""
        return {"buffer": self.buffer.state()}

    def load_learner_state(self, tr: dict[str, Any], ckpt: dict[str, Any]) -> None:
        self.buffer.load_state(tr["buffer"])


CONFIG = ExpitConfig
ALGORITHM = ExIt
LEARNER = ExpitLearner
