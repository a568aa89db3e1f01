"""PPO by self-play against an opponent pool, on the vector API (torch).

    from agents.learned.ppo import TrainConfig, Trainer
    cfg = TrainConfig(game="take5", config={"num_players": 4, "mode": "round"},
                      opponents=[("take5-safest", 2.0), ("self", 1.0), ("pool", 1.0)], total_decisions=200_000)
    trainer = Trainer(cfg)
    while trainer.decisions < cfg.total_decisions:
        stats = trainer.train_update()          # one rollout + one PPO update

Experience. ``num_envs`` games run side by side in a vector env (``agents.learned.envs``: the game's
batched engine, or the reference-engine fallback). When a game starts in a slot, the slot draws an
*opponent kind* from ``opponents`` (weights):

| kind      | seats                                                                                   |
|-----------|-----------------------------------------------------------------------------------------|
| ``self``  | every seat is the learner (all their decisions are training data)                        |
| ``pool``  | one random seat is the learner; the others are one past snapshot of the learner (a     |
|           | ``snapshot_interval``-spaced copy, the last ``pool_size`` kept; ``self`` while empty)   |
| any agent name (``take5-safest``, ``random``, ``ckpt:PATH`` ...) | one random seat is the learner, the others |
|           | are that agent (``agents.registry.make_agent``), e.g. 3 copies of the heuristic          |

Opponents act on the batch of their rows (``act_batch``), one instance per kind. An agent that needs the
engine (``uses_engine``: the search agent ``ismcts:...``) cannot: it is seated once per (slot, seat) of
each game it plays, reset with a seed derived from the game, shown its own game's reference engine
before each decision and after every step (``agents.learned.engine_seats``), so such a run plays on the
reference-engine loop (``backend="auto"`` picks it; ``"batched"`` is a ``ValueError`` naming the agent).

Every decision of a learner seat is a transition. Its reward is the sum of that player's rewards
(scaled by ``reward_scale``) from this decision up to its next decision or the end of the game, so
rewards caused by the other players' moves count for the learner; a game's end is its terminal step
(Take 5 ``mode="game"``: the whole game to ``end_score``, so returns span every round). With
``win_reward`` w > 0 (the win option of the reward, in the same units as the scaled rewards) the last
decision of each learner seat in a game also earns ``w * (win share - 1/n)``: win shares as
``envs.outcome`` reads them (ties share), so the bonus sums to zero over the seats.
Advantages are GAE(gamma, lambda) along each (slot, seat) trajectory. A trajectory's last decision of a
rollout (its reward not yet complete) is held back and trained on in the next rollout; its value
bootstraps the advantages of the decisions before it. A rollout is ``rollout_steps`` steps of the
vector env; one update is ``epochs`` passes of clipped-PPO minibatch SGD (Adam) over it, with advantage
normalisation per minibatch, value loss, entropy bonus and gradient clipping.

``compact_obs`` (Take 5): the vector env hands the collector the compact uint8 observation
(``fiveplay_env.take5.compact``); rollouts keep it (21x smaller at 4 players) and torch decodes it exactly
(``agents.learned.compact``) for the networks, each step and once per rollout for the update; baseline
opponents get the float observation decoded by numpy. The networks, and so the checkpoints, are the same.

Learner actions are sampled with a dedicated ``torch.Generator`` (Gumbel-max over the masked logits);
every random choice of the trainer comes from its own seeded generators (the network's initialisation
too, inside ``torch.random.fork_rng``: the caller's global RNG is left alone), saved in checkpoints with
the optimizer, the pool, the vector env's games, the held-back transitions and the seated engine-using
opponents' states (``get_state``: seed, generator, per-game memory; an opponent without one makes the
checkpoint refuse to resume), so a resumed run continues exactly as the uninterrupted run would (same
threads, same machine).

Devices. ``Trainer(cfg, device="cpu" | "cuda" | "auto")``: the engines, the opponents and the sampling
stay on the CPU; the networks (learner and pool) and the update run on the device. Each step sends the
rows the networks play to the device and brings their logits back (sampled on the CPU with the
trainer's generator, so a seed gives the same stream on any device); the update sends the rollout's
batch to the device once and runs every epoch there. Checkpoints always hold CPU tensors (and are read
with ``map_location="cpu"``), so a run trained on a GPU loads anywhere. ``resolve_device`` turns
``"cuda"`` on a machine without a usable GPU into a ``ValueError`` that says so.

Evaluation (``evaluate``) plays the learner (greedy by default) against n-1 copies of a baseline in a
duplicate format: game g deals seed ``derive(seed, g // n)`` with the learner in seat ``g % n``, so every
deal is played from every seat. It reports the learner's mean score, the baseline's mean score, their
difference and the learner's win rate, each with a 95% confidence interval over deals.
"""
from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field, fields
from typing import Any

import numpy as np
import torch

from agents.learned import envs as envs_mod
from agents.learned.checkpoint import CHECKPOINT_VERSION, KIND, check_matches
from agents.learned.nets import MaskedActorCritic, build_model, default_arch, obs_scale_for
from fiveplay_env.core import seeding
from fiveplay_env.core.config import plain
from fiveplay_env.core.errors import CheckpointError

Z95 = 1.959964
SPECIAL_KINDS = ("self", "pool")


def game_defaults(game: str, config: dict[str, Any]) -> dict[str, Any]:
    """Per-game training defaults: ``reward_scale``, ``gamma`` and the baselines to evaluate against."""
    if game == "take5":
        return {"reward_scale": 0.1, "gamma": 1.0, "eval_baselines": ["random", "take5-safest"]}
    if game == "five_alive":
        return {"reward_scale": 1.0, "gamma": 0.995, "eval_baselines": ["random", "five-alive-attacker"]}
    return {"reward_scale": 1.0, "gamma": 0.99, "eval_baselines": ["random"]}


@dataclass
class TrainConfig:
    """Everything that defines a training run (saved in checkpoints; see ``experiments/train.py``)."""

    game: str
    config: dict[str, Any]
    opponents: list[tuple[str, float]]
    total_decisions: int
    seed: int = 0
    # 512 x 32 steps, 2 epochs of 2,048-sample minibatches (round 1: 256, 4 epochs, 1,024): twice the
    # experience per update for the same number of gradient steps per update; on 2 CPU cores 1.8x (Take 5)
    # and 2.2x (5 Alive) the decisions per second, and a 30-minute Take 5 curve at least as good
    num_envs: int = 512
    rollout_steps: int = 32
    epochs: int = 2
    minibatch_size: int = 2048
    lr: float = 3e-4
    lr_schedule: str = "linear"
    gamma: float | None = None
    gae_lambda: float = 0.95
    clip: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    reward_scale: float | None = None
    win_reward: float = 0.0
    arch: str | None = None
    hidden: tuple[int, ...] = (128, 128)  # was 256x256: the 892-wide first layer was most of the update; equal curves at equal time
    snapshot_interval: int = 10
    pool_size: int = 8
    backend: str = "auto"
    compact_obs: bool = False

    def __post_init__(self) -> None:
        # numpy scalars (np.int64(4), np.float64(3e-4), in the game config too) become Python values:
        # a checkpoint must hold plain data only, or its weights-only load refuses it
        for f in fields(self):
            setattr(self, f.name, plain(getattr(self, f.name)))
        if not isinstance(self.config, dict):
            raise ValueError(f"config: expected a dict of game config fields, got {type(self.config).__name__}")
        d = game_defaults(self.game, self.config)
        if self.gamma is None:
            self.gamma = d["gamma"]
        if self.reward_scale is None:
            self.reward_scale = d["reward_scale"]
        if self.arch is None:
            self.arch = default_arch(self.game)
        self.hidden = tuple(int(h) for h in self.hidden)
        self.opponents = [(str(n), float(w)) for n, w in self.opponents]
        self.validate()

    def validate(self) -> None:
        """``ValueError`` naming the first bad field."""
        def pos_int(name: str, lo: int = 1) -> None:
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < lo:
                raise ValueError(f"{name}: expected an integer >= {lo}, got {v!r}")

        for name in ("total_decisions", "num_envs", "rollout_steps", "epochs", "minibatch_size", "snapshot_interval",
                     "pool_size"):
            pos_int(name)
        for name, lo, hi in (("lr", 0.0, 1.0), ("gamma", 0.0, 1.0), ("gae_lambda", 0.0, 1.0), ("clip", 0.0, 10.0),
                             ("ent_coef", -1.0, 10.0), ("vf_coef", 0.0, 100.0), ("max_grad_norm", 0.0, 1e9),
                             ("reward_scale", 0.0, 1e9), ("win_reward", 0.0, 1e9)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not (lo <= v <= hi) or \
                    (name in ("lr", "reward_scale", "max_grad_norm") and v <= 0):
                raise ValueError(f"{name}: expected a number in {'(' if name in ('lr', 'reward_scale', 'max_grad_norm') else '['}"
                                 f"{lo}, {hi}], got {v!r}")
        if not isinstance(self.compact_obs, bool):
            raise ValueError(f"compact_obs: expected True or False, got {self.compact_obs!r}")
        if self.compact_obs and self.game != "take5":
            raise ValueError(f"compact_obs: expected game 'take5' (the compact observation is Take 5's), got {self.game!r}")
        if self.compact_obs and self.config.get("draft"):
            raise ValueError("compact_obs: expected draft=False (the compact observation does not encode the "
                             "draft's public hands), got config draft=True")
        if self.lr_schedule not in ("constant", "linear"):
            raise ValueError(f"lr_schedule: expected 'constant' or 'linear', got {self.lr_schedule!r}")
        if not self.opponents:
            raise ValueError("opponents: expected at least one opponent kind (self, pool or an agent name)")
        for name, w in self.opponents:
            if not (w > 0 and math.isfinite(w)):
                raise ValueError(f"opponents: expected a positive weight for {name!r}, got {w}")
        if not self.hidden or any(h < 1 for h in self.hidden):
            raise ValueError(f"hidden: expected one or more layer sizes >= 1, got {list(self.hidden)}")

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["hidden"] = list(self.hidden)
        d["opponents"] = [[n, w] for n, w in self.opponents]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "TrainConfig":
        d = dict(d)
        d["opponents"] = [(n, w) for n, w in d["opponents"]]
        d["hidden"] = tuple(d["hidden"])
        return cls(**d)


def parse_opponents(items: list[str]) -> list[tuple[str, float]]:
    """``["take5-safest@2", "self", "pool@0.5"]`` -> ``[("take5-safest", 2.0), ("self", 1.0), ("pool", 0.5)]``.

    The weight is what follows the last ``@`` when it is a number; the default weight is 1."""
    out = []
    for item in items:
        name, w = item, 1.0
        if "@" in item:
            head, tail = item.rsplit("@", 1)
            try:
                w = float(tail)
                name = head
            except ValueError:
                pass
        if not name:
            raise ValueError(f"opponents: expected NAME or NAME@WEIGHT, got {item!r}")
        out.append((name, w))
    return out


# --- sampling ---------------------------------------------------------------------------------------------

def sample_actions(logits: torch.Tensor, gen: torch.Generator | None, greedy: bool = False) -> torch.Tensor:
    """int64 [B]: argmax of the masked logits, plus Gumbel noise from ``gen`` unless ``greedy``."""
    if greedy:
        return logits.argmax(dim=1)
    u = torch.rand(logits.shape, generator=gen).clamp_(1e-12, 1.0 - 1e-7)
    return (logits - torch.log(-torch.log(u))).argmax(dim=1)


def mean_ci(x: np.ndarray) -> tuple[float, float]:
    """(mean, half-width of the 95% normal-approximation confidence interval)."""
    x = np.asarray(x, np.float64)
    if x.size == 0:
        return float("nan"), float("nan")
    if x.size == 1:
        return float(x[0]), float("nan")
    return float(x.mean()), float(Z95 * x.std(ddof=1) / math.sqrt(x.size))


# --- devices ----------------------------------------------------------------------------------------------

DEVICES = ("auto", "cpu", "cuda")


def resolve_device(device: str) -> torch.device:
    """``"auto"`` (CUDA when ``torch.cuda.is_available()``, else the CPU), ``"cpu"``, ``"cuda"`` or
    ``"cuda:K"``. ``ValueError`` for another name or for CUDA on a machine without a usable GPU."""
    name = str(device)
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cpu":
        return torch.device("cpu")
    if name == "cuda" or name.startswith("cuda:"):
        if not torch.cuda.is_available():
            build = "a CPU-only build of torch" if torch.version.cuda is None else f"torch built for CUDA {torch.version.cuda}"
            raise ValueError(f"device: expected a usable GPU for {name!r}, but torch.cuda.is_available() is False "
                             f"({build}); use --device cpu or auto")
        try:
            dev = torch.device(name)
        except RuntimeError as exc:
            raise ValueError(f"device: expected cuda or cuda:K, got {name!r}") from exc
        if dev.index is not None and dev.index >= torch.cuda.device_count():
            raise ValueError(f"device: expected a GPU index below {torch.cuda.device_count()}, got {name!r}")
        return dev
    raise ValueError(f"device: expected one of {list(DEVICES)} (or cuda:K), got {device!r}")


def model_device(model: Any) -> torch.device:
    """The device of a network's parameters (the CPU for anything else)."""
    if isinstance(model, torch.nn.Module):
        for p in model.parameters():
            return p.device
    return torch.device("cpu")


def cpu_state_dict(module: torch.nn.Module) -> dict[str, torch.Tensor]:
    """``module.state_dict()`` with every tensor on the CPU: what checkpoints hold, whatever the device."""
    return {k: _to_cpu(v) for k, v in module.state_dict().items()}


# --- evaluation -------------------------------------------------------------------------------------------

def evaluate(model: Any, game: str, config: dict[str, Any], baseline: str, games: int, seed: int,
             greedy: bool = True, batch: int = 512, backend: str = "auto") -> dict[str, Any]:
    """Learner (``model``: a network, or any agent with ``act_batch``) in one seat, n-1 copies of agent
    ``baseline`` in the others: ``games`` games (rounded up to a multiple of n) in the duplicate format of
    the module docstring.

    Returns ``games``, ``deals``, ``score_name``, ``lower_is_better``, ``score`` / ``opp_score`` /
    ``diff`` (learner minus the baseline's mean, per game) / ``win`` as ``[mean, ci95]`` (intervals over
    deals), and the raw per-game arrays under ``per_game``.

    A baseline that needs the engine (``uses_engine``: ``ismcts:...``) plays on the reference-engine loop
    (``backend`` "auto" picks it; "batched" is a ``ValueError``), one instance per (game, seat), reset for
    game g's seat q with ``engine_seats.seat_seed(derive(seed, 2**51), g, q, n)`` and driven like
    ``agents.arena.play_game`` drives it (``agents.learned.engine_seats``).
    """
    from agents.learned.engine_seats import EngineSeats, seat_seed
    from agents.registry import make_agent

    agent_seed = seeding.derive(seed, 1 << 51)
    agent = make_agent(baseline, game, seed=agent_seed, allow_import=True)
    engine_names = [baseline] if agent.uses_engine else []
    probe = envs_mod.make_training_env(game, 1, 0, config, backend, engine_agents=engine_names)
    n = probe.num_players
    total = int(math.ceil(games / n) * n)
    sinfo = envs_mod.score_info(game)
    own_score = np.zeros(total)
    opp_score = np.zeros(total)
    win = np.zeros(total)
    gen = torch.Generator().manual_seed(seeding.derive(seed, 1 << 50) & 0x7FFFFFFFFFFFFFFF)
    is_net = isinstance(model, torch.nn.Module)
    dev = model_device(model)  # the network stays where it is; observations go to it
    was_training = model.training if is_net else False
    if is_net:
        model.eval()
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
                seated = EngineSeats(env, game, {0: baseline})
                for j in range(m):
                    others = [q for q in range(n) if q != seat[j]]
                    seated.start(j, 0, others, [seat_seed(agent_seed, int(g[j]), q, n) for q in others])
            while not done.all():
                learner = cur == seat
                actions = np.zeros(m, np.int64)
                li = np.flatnonzero(learner)
                if li.size and is_net:
                    with torch.no_grad():
                        logits, _ = model(torch.from_numpy(obs[li]).to(dev), torch.from_numpy(mask[li]).to(dev))
                    actions[li] = sample_actions(logits.cpu(), gen, greedy).numpy()
                elif li.size:
                    actions[li] = model.act_batch(obs[li], mask[li])
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
        "score": mean_ci(deal(own_score)), "opp_score": mean_ci(deal(opp_score)), "diff": mean_ci(deal(diff)),
        "win": mean_ci(deal(win)),
        "per_game": {"score": own_score, "opp_score": opp_score, "win": win, "seat": np.arange(total) % n},
    }


# --- the trainer ------------------------------------------------------------------------------------------

@dataclass
class Timers:
    """Seconds spent per part of training (see ``Trainer.throughput``)."""

    engine: float = 0.0     # env.step + observations
    network: float = 0.0    # learner and snapshot forward passes while collecting
    opponents: float = 0.0  # baseline agents' act_batch
    update: float = 0.0     # PPO update (forward, backward, optimizer)
    other: float = 0.0      # bookkeeping while collecting
    eval: float = 0.0       # periodic evaluation (not part of collection)

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


class Trainer:
    """A PPO run: the network, the optimizer, the opponent pool and the collector (see the module docstring)."""

    def __init__(self, cfg: TrainConfig, device: str = "cpu") -> None:
        from agents.learned.engine_seats import EngineSeats
        from agents.registry import make_agent

        self.cfg = cfg
        self.device = resolve_device(device)
        self.kinds = [name for name, _ in cfg.opponents]
        # opponents acting on observations (one instance per kind, act_batch); those that need the engine
        # (uses_engine: the search agent) are seated per (slot, seat) by engine_seats, on the reference loop
        self.agents: dict[int, Any] = {}
        engine_kinds: dict[int, str] = {}
        for k, name in enumerate(self.kinds):
            if name not in SPECIAL_KINDS:
                agent = make_agent(name, cfg.game, seed=seeding.derive(cfg.seed, 100 + k), allow_import=True)
                if agent.uses_engine:
                    engine_kinds[k] = name
                else:
                    self.agents[k] = agent
        self.env = envs_mod.make_training_env(cfg.game, cfg.num_envs, cfg.seed, cfg.config, cfg.backend,
                                              compact_obs=cfg.compact_obs, engine_agents=list(engine_kinds.values()))
        self.engine_seats = EngineSeats(self.env, cfg.game, engine_kinds) if engine_kinds else None
        self.kind_is_engine = np.array([k in engine_kinds for k in range(len(self.kinds))])
        self.backend = getattr(self.env, "backend", "batched")
        self.n = self.env.num_players
        self.A = self.env.num_actions
        self.D = self.env.obs_dim
        self.game_config = self._canonical_config()
        self.obs_scale = obs_scale_for(cfg.game, self.n, self.D)
        # the observation as the collector keeps it: float32 [D], or the compact uint8 form decoded by torch
        self.layout: Any = None
        self.decoder: Any = None
        self.obs_width, self.obs_dtype = self.D, np.float32
        if cfg.compact_obs:
            from agents.learned.compact import CompactDecoder
            from fiveplay_env.take5.compact import layout

            self.layout = layout(self.n, int(self.env.engine.config.end_score))
            self.decoder = CompactDecoder(self.layout, self.device)
            self.obs_width, self.obs_dtype = self.layout.size, np.uint8
        kwargs: dict[str, Any] = {"obs_dim": self.D, "num_actions": self.A, "hidden": list(cfg.hidden)}
        with torch.random.fork_rng(devices=[]):  # seeded initialisation without touching the caller's RNG
            torch.manual_seed(seeding.derive(cfg.seed, 1) & 0x7FFFFFFFFFFFFFFF)
            self.model = build_model(cfg.arch, kwargs, self.obs_scale)
        self.model.to(self.device)  # initialised on the CPU: the same network whatever the device
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=cfg.lr, eps=1e-5)
        self.gen = torch.Generator().manual_seed(seeding.derive(cfg.seed, 2) & 0x7FFFFFFFFFFFFFFF)
        self.rng = np.random.default_rng(seeding.derive(cfg.seed, 3))
        w = np.array([wt for _, wt in cfg.opponents], np.float64)
        self.kind_p = w / w.sum()
        self.kind_is_pool = np.array([name == "pool" for name in self.kinds])
        self.has_pool = bool(self.kind_is_pool.any())
        self.pool: list[MaskedActorCritic] = []
        self.pool_updates: list[int] = []
        self.update_idx = 0
        self.decisions = 0
        self.env_steps = 0
        self.games = 0
        self.timers = Timers()
        self.recent: list[dict[str, float]] = []
        # collector state
        B, n = cfg.num_envs, self.n
        self.obs, self.mask, self.cur = self.env.reset(cfg.seed)
        self.slot_kind = np.zeros(B, np.int64)
        self.slot_snap = np.full(B, -1, np.int64)
        self.learner_seat = np.zeros((B, n), bool)
        self.ep_return = np.zeros((B, n), np.float64)
        self.carry = self._empty_carry()
        self._assign(np.arange(B))

    # ------------------------------------------------------------------ setup helpers

    def _canonical_config(self) -> dict[str, Any]:
        from agents import games as games_mod

        g = games_mod.get_game(self.cfg.game)
        return g.config_dict(g.make_config(self.cfg.config))

    def _empty_carry(self) -> dict[str, np.ndarray]:
        B, n = self.cfg.num_envs, self.n
        return {"obs": np.zeros((n, B, self.obs_width), self.obs_dtype), "mask": np.zeros((n, B, self.A), bool),
                "act": np.zeros((n, B), np.int64), "logp": np.zeros((n, B), np.float32),
                "val": np.zeros((n, B), np.float32), "rew": np.zeros((n, B), np.float32),
                "valid": np.zeros((n, B), bool)}

    def _assign(self, slots: np.ndarray) -> None:
        """New games in ``slots``: draw each one's opponent kind, learner seat(s) and snapshot."""
        if slots.size == 0:
            return
        n = self.n
        kinds = self.rng.choice(len(self.kinds), size=slots.size, p=self.kind_p)
        seats = self.rng.integers(0, n, size=slots.size)
        snaps = self.rng.integers(0, max(len(self.pool), 1), size=slots.size)
        self.slot_kind[slots] = kinds
        self.learner_seat[slots] = False
        self.slot_snap[slots] = -1
        for j, (i, k) in enumerate(zip(slots, kinds)):
            name = self.kinds[k]
            if name == "self" or (name == "pool" and not self.pool):
                self.learner_seat[i] = True
            else:
                self.learner_seat[i, seats[j]] = True
                if name == "pool":
                    self.slot_snap[i] = snaps[j]
        if self.engine_seats is not None:
            self._seat_engine_agents(slots)

    def _seat_engine_agents(self, slots: np.ndarray) -> None:
        """Seat (or clear) the engine-using opponents of the new games in ``slots`` (engine_seats)."""
        from agents.learned.engine_seats import seat_seed

        es, n = self.engine_seats, self.n
        for i in slots.tolist():
            k = int(self.slot_kind[i])
            if not self.kind_is_engine[k]:
                es.clear(i)
                continue
            seats = np.flatnonzero(~self.learner_seat[i]).tolist()
            base, game = seeding.derive(self.cfg.seed, 100 + k), int(self.env.game_index[i])
            es.start(i, k, seats, [seat_seed(base, game, q, n) for q in seats])

    def _net_obs(self, obs: np.ndarray) -> torch.Tensor:
        """Observations (float32, or compact uint8) as the network's float32 input on the device."""
        t = torch.from_numpy(np.ascontiguousarray(obs)).to(self.device)
        return t if self.decoder is None else self.decoder(t)

    def lr_now(self) -> float:
        cfg = self.cfg
        if cfg.lr_schedule == "constant":
            return cfg.lr
        frac = min(self.decisions / cfg.total_decisions, 1.0)
        return cfg.lr * max(1.0 - frac, 0.05)

    # ------------------------------------------------------------------ collection

    def collect(self) -> dict[str, Any]:
        """One rollout of ``rollout_steps`` vector-env steps; returns the training batch and stats."""
        cfg, n, B = self.cfg, self.n, self.cfg.num_envs
        T = cfg.rollout_steps
        R = n + T
        D, A = self.D, self.A
        buf_obs = np.zeros((R, B, self.obs_width), self.obs_dtype)
        buf_mask = np.zeros((R, B, A), bool)
        buf_act = np.zeros((R, B), np.int64)
        buf_logp = np.zeros((R, B), np.float32)
        buf_val = np.zeros((R, B), np.float32)
        buf_rew = np.zeros((R, B), np.float32)
        buf_done = np.zeros((R, B), bool)
        buf_valid = np.zeros((R, B), bool)
        buf_seat = np.zeros((R, B), np.int64)
        last_row = np.full((B, n), -1, np.int64)
        c = self.carry
        buf_obs[:n], buf_mask[:n], buf_act[:n] = c["obs"], c["mask"], c["act"]
        buf_logp[:n], buf_val[:n], buf_rew[:n], buf_valid[:n] = c["logp"], c["val"], c["rew"], c["valid"]
        buf_seat[:n] = np.arange(n)[:, None]
        cs, ci = np.nonzero(c["valid"])
        last_row[ci, cs] = cs
        arangeB = np.arange(B)
        finished: list[tuple[int, float]] = []  # (kind, learner return) of games that ended
        tm = self.timers
        perf = time.perf_counter
        dev = self.device
        self.model.eval()
        for t in range(T):
            row = n + t
            t0 = perf()
            obs, mask, cur = self.obs, self.mask, self.cur
            actions = np.zeros(B, np.int64)
            is_learner = self.learner_seat[arangeB, cur]
            li = np.flatnonzero(is_learner)
            t1 = perf()
            tm.other += t1 - t0
            # one parameter-free preparation (the Take 5 features) for every row a network plays: the
            # learner's and the pool snapshots'; then each network's head on its rows
            oi = np.flatnonzero(~is_learner)
            kinds = self.slot_kind[oi]
            pool_rows = oi[self.kind_is_pool[kinds]] if self.has_pool and oi.size else oi[:0]
            ni = np.concatenate([li, pool_rows]) if pool_rows.size else li
            if ni.size:
                mk_all = torch.from_numpy(mask[ni]).to(dev).bool()
                with torch.no_grad():
                    prep = self.model.prepare(self._net_obs(obs[ni]), mk_all)
            if li.size:
                nl = li.size
                mk = mk_all[:nl]
                with torch.no_grad():
                    lp = prep if nl == ni.size else {k: v[:nl] for k, v in prep.items()}
                    logits, value = self.model.head(lp, mk)
                    logits, value = logits.cpu(), value.cpu()  # sampled on the CPU: the same stream on any device
                    a = sample_actions(logits, self.gen)
                    logp = torch.log_softmax(logits, dim=1).gather(1, a[:, None]).squeeze(1)
                a_np = a.numpy()
                actions[li] = a_np
                buf_obs[row, li] = obs[li]
                buf_mask[row, li] = mask[li] != 0
                buf_act[row, li] = a_np
                buf_logp[row, li] = logp.numpy()
                buf_val[row, li] = value.numpy()
                buf_valid[row, li] = True
                buf_seat[row, li] = cur[li]
                last_row[li, cur[li]] = row
            if pool_rows.size:
                snaps = self.slot_snap[pool_rows]
                for s in np.unique(snaps):
                    j = np.flatnonzero(snaps == s)
                    pj = torch.from_numpy(li.size + j).to(dev)
                    with torch.no_grad():
                        lg, _ = self.pool[s].head({k: v[pj] for k, v in prep.items()}, mk_all[pj])
                        actions[pool_rows[j]] = sample_actions(lg.cpu(), self.gen).numpy()
            t2 = perf()
            tm.network += t2 - t1
            if oi.size:
                for k in np.unique(kinds):
                    if self.kinds[k] in SPECIAL_KINDS:
                        continue
                    sel = oi[kinds == k]
                    t3 = perf()
                    if self.kind_is_engine[k]:
                        actions[sel] = self.engine_seats.act(sel, cur[sel], obs[sel], mask[sel])
                    else:
                        o = obs[sel] if self.layout is None else self.layout.decode(obs[sel])
                        actions[sel] = self.agents[k].act_batch(o, mask[sel])
                    tm.opponents += perf() - t3
            t4 = perf()
            self.obs, self.mask, self.cur, rewards, term, info = self.env.step(actions)
            t5 = perf()
            tm.engine += t5 - t4
            if self.engine_seats is not None:  # engine-using opponents follow every step
                self.engine_seats.after_step(term)
                t5b = perf()
                tm.opponents += t5b - t5
                t5 = t5b
            self.env_steps += 1
            self.ep_return += rewards
            has = last_row >= 0
            if has.any():
                hi, hs = np.nonzero(has)
                buf_rew[last_row[hi, hs], hi] += rewards[hi, hs] * cfg.reward_scale
            if term.any():
                ti = np.flatnonzero(term)
                if cfg.win_reward:  # win option: + win_reward * (win share - 1/n) on each seat's last decision
                    _, wins = envs_mod.outcome(cfg.game, info, ti, self.ep_return)
                    bonus = cfg.win_reward * (wins - 1.0 / n)
                    for j, i in enumerate(ti):
                        seats = np.flatnonzero(last_row[i] >= 0)
                        buf_rew[last_row[i, seats], i] += bonus[j, seats]
                for i in ti:
                    seats = np.flatnonzero(self.learner_seat[i])
                    rows = last_row[i, seats]
                    ok = rows >= 0
                    buf_done[rows[ok], i] = True
                    finished.append((int(self.slot_kind[i]), float(self.ep_return[i, seats].mean())))
                last_row[ti] = -1
                self.ep_return[ti] = 0.0
                self.games += ti.size
                self._assign(ti)
            tm.other += perf() - t5
        t0 = perf()
        # held-back transitions: each trajectory's last decision whose game has not ended
        pend = np.zeros((R, B), bool)
        pi, ps = np.nonzero(last_row >= 0)
        pend[last_row[pi, ps], pi] = True
        carry = self._empty_carry()
        pr = last_row[pi, ps]
        carry["obs"][ps, pi] = buf_obs[pr, pi]
        carry["mask"][ps, pi] = buf_mask[pr, pi]
        carry["act"][ps, pi] = buf_act[pr, pi]
        carry["logp"][ps, pi] = buf_logp[pr, pi]
        carry["val"][ps, pi] = buf_val[pr, pi]
        carry["rew"][ps, pi] = buf_rew[pr, pi]
        carry["valid"][ps, pi] = True
        self.carry = carry
        # GAE along each (slot, seat) trajectory, newest row first
        adv = np.zeros((R, B), np.float32)
        next_val = np.zeros((B, n), np.float32)
        next_adv = np.zeros((B, n), np.float32)
        g, lam = cfg.gamma, cfg.gae_lambda
        for r in range(R - 1, -1, -1):
            i = np.flatnonzero(buf_valid[r])
            if not i.size:
                continue
            s = buf_seat[r, i]
            v = buf_val[r, i]
            p = pend[r, i]
            notdone = (~buf_done[r, i]).astype(np.float32)
            delta = buf_rew[r, i] + g * next_val[i, s] * notdone - v
            a = delta + g * lam * next_adv[i, s] * notdone
            a = np.where(p, 0.0, a).astype(np.float32)
            adv[r, i] = a
            next_val[i, s] = v
            next_adv[i, s] = a
        train = buf_valid & ~pend
        batch = {
            "obs": buf_obs[train], "mask": buf_mask[train], "act": buf_act[train], "logp": buf_logp[train],
            "val": buf_val[train], "adv": adv[train], "ret": adv[train] + buf_val[train],
        }
        tm.other += perf() - t0
        return {"batch": batch, "finished": finished}

    # ------------------------------------------------------------------ update

    def update(self, batch: dict[str, np.ndarray]) -> dict[str, float]:
        """``epochs`` passes of clipped PPO over ``batch``; returns loss statistics."""
        cfg = self.cfg
        N = batch["act"].shape[0]
        if N == 0:
            return {"samples": 0}
        lr = self.lr_now()
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        dev = self.device
        t = {k: torch.from_numpy(v).to(dev) for k, v in batch.items()}  # to the device once per rollout
        with torch.no_grad():
            obs_t = t["obs"] if self.decoder is None else self.decoder(t["obs"])
            prep = self.model.prepare(obs_t, t["mask"])  # parameter-free: once per rollout, not per minibatch
        self.model.train()
        stats = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "approx_kl": 0.0, "clipfrac": 0.0}
        count = 0
        mb = min(cfg.minibatch_size, N)
        for _ in range(cfg.epochs):
            perm = self.rng.permutation(N)
            for start in range(0, N, mb):
                idx = torch.from_numpy(perm[start:start + mb]).to(dev)
                if idx.numel() < 2:
                    continue
                logits, value = self.model.head({k: v[idx] for k, v in prep.items()}, t["mask"][idx])
                logp_all = torch.log_softmax(logits, dim=1)
                logp = logp_all.gather(1, t["act"][idx][:, None]).squeeze(1)
                probs = logp_all.exp()
                entropy = -(probs * torch.where(t["mask"][idx], logp_all, torch.zeros_like(logp_all))).sum(1).mean()
                adv = t["adv"][idx]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                ratio = torch.exp(logp - t["logp"][idx])
                pg = torch.max(-adv * ratio, -adv * ratio.clamp(1 - cfg.clip, 1 + cfg.clip)).mean()
                vloss = 0.5 * (value - t["ret"][idx]).pow(2).mean()
                loss = pg + cfg.vf_coef * vloss - cfg.ent_coef * entropy
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), cfg.max_grad_norm)
                self.optimizer.step()
                with torch.no_grad():
                    log_ratio = logp - t["logp"][idx]
                    stats["approx_kl"] += float(((ratio - 1) - log_ratio).mean())
                    stats["clipfrac"] += float(((ratio - 1).abs() > cfg.clip).float().mean())
                stats["policy_loss"] += float(pg.detach())
                stats["value_loss"] += float(vloss.detach())
                stats["entropy"] += float(entropy.detach())
                count += 1
        out = {k: v / max(count, 1) for k, v in stats.items()}
        ret = batch["ret"]
        var = float(np.var(ret))
        out["explained_variance"] = float(1 - np.var(ret - batch["val"]) / var) if var > 0 else float("nan")
        out["samples"] = N
        out["lr"] = lr
        return out

    def train_update(self) -> dict[str, Any]:
        """Collect one rollout, update on it, maybe snapshot into the pool; returns statistics."""
        roll = self.collect()
        t0 = time.perf_counter()
        stats = self.update(roll["batch"])
        self.timers.update += time.perf_counter() - t0
        self.decisions += int(roll["batch"]["act"].shape[0])
        self.update_idx += 1
        if "pool" in self.kinds and self.update_idx % self.cfg.snapshot_interval == 0:
            self.add_snapshot()
        for k, ret in roll["finished"]:
            self.recent.append({"kind": float(k), "return": ret})
        self.recent = self.recent[-2000:]
        stats.update(update=self.update_idx, decisions=self.decisions, games=self.games,
                     finished=len(roll["finished"]))
        by_kind: dict[str, list[float]] = {}
        for k, ret in roll["finished"]:
            by_kind.setdefault(self.kinds[k], []).append(ret)
        stats["return_by_kind"] = {k: float(np.mean(v)) for k, v in by_kind.items()}
        return stats

    def add_snapshot(self) -> None:
        """Freeze a copy of the current network into the opponent pool (oldest dropped beyond ``pool_size``)."""
        snap = build_model(self.cfg.arch, self.model.kwargs(), self.obs_scale).to(self.device)
        snap.load_state_dict(self.model.state_dict())
        snap.eval()
        for p in snap.parameters():
            p.requires_grad_(False)
        self.pool.append(snap)
        self.pool_updates.append(self.update_idx)
        if len(self.pool) > self.cfg.pool_size:
            drop = len(self.pool) - self.cfg.pool_size
            self.pool = self.pool[drop:]
            self.pool_updates = self.pool_updates[drop:]
            # slots playing a dropped snapshot keep a valid index (their game finishes against another copy)
            self.slot_snap = np.where(self.slot_snap >= 0, np.maximum(self.slot_snap - drop, 0), self.slot_snap)

    def throughput(self, wall: float | None = None) -> dict[str, float]:
        """Decisions of experience per second of collection + update time, and each part's share."""
        tm = self.timers
        total = tm.engine + tm.network + tm.opponents + tm.update + tm.other
        shares = {k: (getattr(tm, k) / total if total > 0 else float("nan"))
                  for k in ("engine", "network", "opponents", "update", "other")}
        return {"decisions": self.decisions, "env_steps": self.env_steps, "seconds": total,
                "decisions_per_s": self.decisions / total if total > 0 else float("nan"),
                "env_steps_per_s": self.env_steps * self.cfg.num_envs / total if total > 0 else float("nan"),
                "share": shares, "eval_seconds": tm.eval}

    # ------------------------------------------------------------------ checkpoints

    def state(self, args: dict[str, Any] | None = None) -> dict[str, Any]:
        """The checkpoint payload (see ``agents.learned.checkpoint``)."""
        agents_rng = {str(k): _rng_state(a) for k, a in self.agents.items()}
        trainer = {
            "pool": [{"update": u, "state_dict": cpu_state_dict(m)} for u, m in zip(self.pool_updates, self.pool)],
            "env": envs_mod.engine_snapshot(self.env),
            "obs": torch.from_numpy(self.obs.copy()), "mask": torch.from_numpy(np.asarray(self.mask).copy()),
            "cur": torch.from_numpy(np.asarray(self.cur).astype(np.int64)),
            "slot_kind": torch.from_numpy(self.slot_kind.copy()), "slot_snap": torch.from_numpy(self.slot_snap.copy()),
            "learner_seat": torch.from_numpy(self.learner_seat.copy()),
            "ep_return": torch.from_numpy(self.ep_return.copy()),
            "carry": {k: torch.from_numpy(v.copy()) for k, v in self.carry.items()},
            "rng_numpy": self.rng.bit_generator.state, "rng_torch_sample": self.gen.get_state(),
            "agents_rng": agents_rng,
            "engine_seats": self.engine_seats.state() if self.engine_seats is not None else None,
            "timers": self.timers.as_dict(), "recent": self.recent[-200:],
        }
        return {
            "kind": KIND, "version": CHECKPOINT_VERSION, "game": self.cfg.game, "config": self.game_config,
            "num_players": self.n, "obs_dim": self.D, "num_actions": self.A, "backend": self.backend,
            "model": {"arch": self.cfg.arch, "kwargs": self.model.kwargs(), "obs_scale": self.obs_scale,
                      "state_dict": cpu_state_dict(self.model)},
            "optimizer": _to_cpu(self.optimizer.state_dict()),
            "train_config": self.cfg.to_dict(), "args": dict(args or {}),
            "progress": {"update": self.update_idx, "decisions": self.decisions, "env_steps": self.env_steps,
                         "games": self.games},
            "trainer": trainer,
        }

    def load_state(self, ckpt: dict[str, Any]) -> None:
        """Continue from a checkpoint ``state()`` wrote for this same configuration (``CheckpointError`` if not)."""
        check_matches(ckpt, "game", ckpt["game"], self.cfg.game)
        check_matches(ckpt, "game config", ckpt["config"], self.game_config)
        check_matches(ckpt, "observation size", ckpt["obs_dim"], self.D)
        check_matches(ckpt, "number of actions", ckpt["num_actions"], self.A)
        check_matches(ckpt, "architecture", ckpt["model"]["arch"], self.cfg.arch)
        try:
            saved_kwargs = build_model(ckpt["model"]["arch"], ckpt["model"]["kwargs"]).kwargs()
        except (TypeError, ValueError) as exc:
            raise CheckpointError(f"checkpoint {ckpt.get('path')}: mismatched network: {exc}") from exc
        check_matches(ckpt, "network shape", saved_kwargs, self.model.kwargs())
        if "trainer" not in ckpt or "optimizer" not in ckpt:
            raise CheckpointError(f"checkpoint {ckpt.get('path')}: holds a policy only (no trainer state): it cannot be resumed")
        saved_cfg = ckpt.get("train_config", {})
        for key in ("num_envs", "seed", "opponents"):
            want = self.cfg.to_dict()[key]
            check_matches(ckpt, f"training setting {key}", saved_cfg.get(key), want)
        check_matches(ckpt, "vector env (the games in progress were saved from it)", ckpt.get("backend"), self.backend)
        tr = ckpt["trainer"]
        try:
            self.model.load_state_dict(ckpt["model"]["state_dict"])
            self.optimizer.load_state_dict(ckpt["optimizer"])
            self.pool, self.pool_updates = [], []
            for item in tr["pool"]:
                snap = build_model(self.cfg.arch, self.model.kwargs(), self.obs_scale).to(self.device)
                snap.load_state_dict(item["state_dict"])
                snap.eval()
                for p in snap.parameters():
                    p.requires_grad_(False)
                self.pool.append(snap)
                self.pool_updates.append(int(item["update"]))
            envs_mod.restore_engine(self.env, tr["env"])
            self.obs = tr["obs"].numpy().copy()
            self.mask = tr["mask"].numpy().copy()
            self.cur = tr["cur"].numpy().astype(np.int32)
            self.slot_kind = tr["slot_kind"].numpy().copy()
            self.slot_snap = tr["slot_snap"].numpy().copy()
            self.learner_seat = tr["learner_seat"].numpy().copy()
            self.ep_return = tr["ep_return"].numpy().copy()
            self.carry = {k: v.numpy().copy() for k, v in tr["carry"].items()}
            self.rng.bit_generator.state = tr["rng_numpy"]
            self.gen.set_state(tr["rng_torch_sample"])
            for k, st in tr["agents_rng"].items():
                if int(k) in self.agents and st is not None:
                    self.agents[int(k)].rng.bit_generator.state = st
            if self.engine_seats is not None:
                expected = {i: (int(self.slot_kind[i]), np.flatnonzero(~self.learner_seat[i]).tolist())
                            for i in range(self.cfg.num_envs) if self.kind_is_engine[self.slot_kind[i]]}
                self.engine_seats.load_state(tr.get("engine_seats"), expected, str(ckpt.get("path")))
            self.timers = Timers(**tr["timers"])
            self.recent = list(tr["recent"])
        except CheckpointError:
            raise
        except (KeyError, RuntimeError, ValueError, TypeError) as exc:
            raise CheckpointError(f"checkpoint {ckpt.get('path')}: mismatched or damaged trainer state: "
                                  f"{type(exc).__name__}: {exc}") from exc
        prog = ckpt["progress"]
        self.update_idx = int(prog["update"])
        self.decisions = int(prog["decisions"])
        self.env_steps = int(prog["env_steps"])
        self.games = int(prog["games"])


def _to_cpu(value: Any) -> Any:
    """``value`` (nested dicts and lists) with every tensor copied to the CPU (CPU tensors as they are)."""
    if isinstance(value, torch.Tensor):
        return value.detach().to("cpu", copy=True) if value.device.type != "cpu" else value
    if isinstance(value, dict):
        return {k: _to_cpu(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_to_cpu(v) for v in value)
    return value


def _rng_state(agent: Any) -> dict[str, Any] | None:
    rng = getattr(agent, "rng", None)
    return rng.bit_generator.state if isinstance(rng, np.random.Generator) else None


def model_from_checkpoint(ckpt: dict[str, Any], device: str = "cpu") -> MaskedActorCritic:
    """The policy network stored in a loaded checkpoint (``CheckpointError`` if it does not fit), on
    ``device`` (``resolve_device``; checkpoints hold CPU tensors, whatever device trained them)."""
    dev = resolve_device(device)
    m = ckpt["model"]
    try:
        model = build_model(m["arch"], m["kwargs"], m.get("obs_scale"))
        model.load_state_dict(m["state_dict"])
    except (KeyError, RuntimeError, ValueError, TypeError) as exc:
        raise CheckpointError(f"checkpoint {ckpt.get('path')}: the network does not fit its recorded shape: "
                              f"{type(exc).__name__}: {exc}") from exc
    model.eval()
    return model.to(dev)
