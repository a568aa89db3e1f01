"""Ray RLlib (new API stack) for both games: a ``MultiAgentEnv``, a masking PPO ``RLModule``, a config.

    from fiveplay_env.integrations.rllib import ppo_config
    config = ppo_config("take5", env_config={"num_players": 4, "mode": "round"}, opponents="random")
    algo = config.build_algo()            # PPO; RLlib's env pre-check is off (see below)
    algo.train()
    algo.save("runs/my_ckpt")             # an agent for tournaments: "rllib:runs/my_ckpt"

Requires the ``distributed`` extra (``ray[rllib]``, torch); this module imports Ray only when one of its
functions or classes is used, so ``fiveplay_env`` itself stays free of Ray.

**Env** ``FiveplayMultiAgentEnv(config)`` (``config``: a dict or RLlib ``EnvContext``):

| key          | meaning                                                                              |
|--------------|--------------------------------------------------------------------------------------|
| ``game``     | ``"take5"`` or ``"five_alive"`` (required)                                           |
| ``opponents``| ``None`` (default): every seat is an RLlib agent (self-play); else a registry name,  |
|              | or a list of n-1 names, for fixed agents in the other seats; one seat learns          |
| ``seat``     | with ``opponents``: the learning seat, an int or ``"random"`` (default, per episode)  |
| other keys   | the game's config (``num_players``, ``mode``, ``variant`` ...)                         |

Agent ids are the PettingZoo ones (``player_0`` ...). Observations are what RLlib's action-masking
modules expect: ``{"observations": float32[obs_dim], "action_mask": float32[A]}`` (the game's documented
observation vector and its legal mask, as 0.0/1.0). Only the player who must act gets an observation; its
reward is everything it received since its previous decision (other players' moves included). When a
player's game ends (5 Alive: elimination) it gets a last observation (all-zero mask), its last reward and
``terminated`` (``truncated`` at the env's ``max_cycles``); ``__all__`` ends the episode. Fixed opponents
are played inside ``step`` (search agents get ``observe_engine``), so RLlib sees only the learner.
``reset(seed=s)`` makes the episode reproducible (the game seed and the learning seat come from ``s``).
An illegal action raises ``IllegalActionError`` and changes nothing: the masking module never samples
one, and RLlib's env pre-check (which steps an unmasked random action) is disabled by ``ppo_config``.

**Module** ``MaskedPPOTorchRLModule``: RLlib's default PPO torch module (MLP encoder, policy and value
heads; ``model_config`` as ``DefaultModelConfig``) run on ``observations``, with ``log(mask)`` (clamped)
added to the action logits in every forward pass (exploration, inference, training), so an illegal action
has probability 0. RLlib's own example module ``ActionMaskingTorchRLModule`` (under
``ray.rllib.examples``) reads the same layout and would work too; this one does not depend on an example
file and never mutates the batch it is given.

**Config** ``ppo_config(game, ...)``: a ``PPOConfig`` with this env, one shared module ``"shared"`` that
every RLlib agent maps to (self-play with parameter sharing; with ``opponents``, the learner's seat),
env checking off, and the given env runners.

**Agents** ``rllib:PATH`` names a policy for ``agents.registry.make_agent`` (``agents.rllib_agent``,
built on ``load_module`` here): PATH is an algorithm
checkpoint folder (``algo.save(PATH)``), a run folder of ``experiments.rllib_train`` (its ``checkpoint``)
or an RLModule checkpoint folder. ``rllib:PATH?sample`` samples from the masked policy with the agent's
generator instead of taking the most probable legal action. Modules are loaded once per process.
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np

from fiveplay_env.core import seeding

MODULE_ID = "shared"
OBS_KEY = "observations"
MASK_KEY = "action_mask"
_MAX_EMPTY_GAMES = 100


def _require_ray() -> Any:
    try:
        import ray  # noqa: F401
        from ray.rllib.env.multi_agent_env import MultiAgentEnv
    except ImportError as e:
        raise ImportError(
            "fiveplay_env.integrations.rllib needs Ray RLlib and torch: pip install 'fiveplay-env[distributed]'"
        ) from e
    return MultiAgentEnv


def policy_mapping_fn(agent_id: Any, episode: Any = None, **kwargs: Any) -> str:
    """Every RLlib agent plays the one shared module (self-play with shared parameters)."""
    return MODULE_ID


# --- the env -----------------------------------------------------------------------------------------------


def _env_class() -> type:
    MultiAgentEnv = _require_ray()

    class FiveplayMultiAgentEnv(MultiAgentEnv):
        """A game of ``fiveplay_env`` as an RLlib ``MultiAgentEnv`` (see the module docstring)."""

        metadata = {"render_modes": ["ansi", "human"]}

        def __init__(self, config: dict[str, Any] | None = None) -> None:
            super().__init__()
            from fiveplay_env import games
            from fiveplay_env.single_agent import resolve_agent

            cfg = dict(config or {})
            game = cfg.pop("game", None)
            if not isinstance(game, str) or game not in games.table():
                raise ValueError(f"env_config['game']: expected one of {games.names()}, got {game!r}")
            opponents = cfg.pop("opponents", None)
            seat = cfg.pop("seat", "random")
            self.game = game
            self._env = games.get(game).make_env(**cfg)
            self.possible_agents = list(self._env.possible_agents)
            n = len(self.possible_agents)
            self._fixed: dict[str, Any] = {}
            if opponents is None:
                self.seat_option: int | str | None = None
            else:
                if seat != "random" and (isinstance(seat, bool) or not isinstance(seat, (int, np.integer))
                                         or not 0 <= seat < n):
                    raise ValueError(f"env_config['seat']: expected 'random' or a seat in 0..{n - 1}, got {seat!r}")
                self.seat_option = seat
                if isinstance(opponents, str) or callable(getattr(opponents, "act", None)):
                    specs: list[Any] = [opponents] * (n - 1)
                elif isinstance(opponents, Sequence) and len(opponents) == n - 1:
                    specs = list(opponents)
                else:
                    raise ValueError(f"env_config['opponents']: expected None, an agent name or a list of {n - 1} "
                                     f"names (one per other seat), got {opponents!r}")
                self._opponents = [resolve_agent(s, game, seed=k) for k, s in enumerate(specs)]
            self.seat = 0
            space = self._env.observation_space(self.possible_agents[0])
            num_actions = int(space["action_mask"].shape[0])
            single_obs = gymnasium.spaces.Dict({
                OBS_KEY: space["observation"],
                MASK_KEY: gymnasium.spaces.Box(0.0, 1.0, (num_actions,), np.float32),
            })
            single_act = gymnasium.spaces.Discrete(num_actions)
            self.observation_spaces = {a: single_obs for a in self.possible_agents}
            self.action_spaces = {a: single_act for a in self.possible_agents}
            self.agents = []
            self._learners: set[str] = set()
            self._seen: set[str] = set()
            self._acting: str | None = None

        @property
        def aec_env(self) -> Any:
            """The underlying PettingZoo AEC env (read-only use)."""
            return self._env

        @staticmethod
        def _pack(obs: dict[str, np.ndarray], done: bool) -> dict[str, np.ndarray]:
            mask = np.zeros(obs["action_mask"].shape, np.float32) if done else obs["action_mask"].astype(np.float32)
            return {OBS_KEY: np.asarray(obs["observation"], np.float32), MASK_KEY: mask}

        def _advance(self) -> tuple[dict, dict, dict, dict, dict]:
            """Play fixed agents and dead steps until a learner must act or the game is over."""
            env = self._env
            engine = env.unwrapped.engine
            obs_d: dict[str, Any] = {}
            rew_d: dict[str, float] = {}
            term_d: dict[str, bool] = {}
            trunc_d: dict[str, bool] = {}
            info_d: dict[str, Any] = {}
            self._acting = None
            while env.agents:
                agent = env.agent_selection
                obs, rew, term, trunc, info = env.last()
                learner = agent in self._learners
                if term or trunc:
                    if learner and agent in self._seen:
                        obs_d[agent] = self._pack(obs, True)
                        rew_d[agent] = float(rew)
                        term_d[agent] = bool(term)
                        trunc_d[agent] = bool(trunc) and not term
                        info_d[agent] = dict(info)
                    env.step(None)
                    continue
                if learner:
                    obs_d[agent] = self._pack(obs, False)
                    rew_d[agent] = float(rew) if agent in self._seen else 0.0
                    info_d[agent] = dict(info)
                    self._seen.add(agent)
                    self._acting = agent
                    break
                p = self.possible_agents.index(agent)
                opp = self._by_seat[p]
                if getattr(opp, "uses_engine", False):
                    opp.observe_engine(engine, p)
                env.step(int(opp.act(obs["observation"], obs["action_mask"])))
            over = not env.agents
            any_trunc = any(trunc_d.values())
            term_d["__all__"] = over and not any_trunc
            trunc_d["__all__"] = over and any_trunc
            self.agents = [] if over else sorted(self._learners - {a for a in term_d if a != "__all__" and term_d[a]}
                                                 - {a for a in trunc_d if a != "__all__" and trunc_d[a]})
            return obs_d, rew_d, term_d, trunc_d, info_d

        def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
            super().reset(seed=seed, options=options)
            n = len(self.possible_agents)
            for _ in range(_MAX_EMPTY_GAMES):
                game_seed = int(self.np_random.integers(0, 2**63))
                if self.seat_option is None:
                    self._learners = set(self.possible_agents)
                    self._by_seat: list[Any] = [None] * n
                else:
                    self.seat = (int(self.np_random.integers(0, n)) if self.seat_option == "random"
                                 else int(self.seat_option))
                    self._learners = {self.possible_agents[self.seat]}
                    it = iter(self._opponents)
                    self._by_seat = [None if p == self.seat else next(it) for p in range(n)]
                    for k, opp in enumerate(self._opponents):
                        if hasattr(opp, "reset"):
                            opp.reset(seed=seeding.derive(game_seed, k + 1))
                self._seen = set()
                self._env.reset(seed=game_seed)
                obs, _, _, _, infos = self._advance()
                if self._acting is not None:
                    return obs, infos
            raise RuntimeError(f"reset: {_MAX_EMPTY_GAMES} games in a row ended before a learner's first decision")

        def step(self, action_dict: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
            if self._acting is None:
                raise RuntimeError("step: the episode is over (or reset() was never called); call reset() first")
            extra = set(action_dict) - {self._acting}
            if self._acting not in action_dict or extra:
                raise ValueError(f"step: expected an action for {self._acting!r} only, got {sorted(action_dict)}")
            a = action_dict[self._acting]
            a = int(a.item() if isinstance(a, np.ndarray) else a)
            self._env.step(a)  # IllegalActionError before anything changes
            return self._advance()

        def render(self) -> Any:
            return self._env.render()

        def close(self) -> None:
            self._env.close()

    FiveplayMultiAgentEnv.__module__ = __name__
    FiveplayMultiAgentEnv.__qualname__ = "FiveplayMultiAgentEnv"
    return FiveplayMultiAgentEnv


# --- the module --------------------------------------------------------------------------------------------


def _module_class() -> type:
    _require_ray()
    import torch
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
    from ray.rllib.core.columns import Columns
    from ray.rllib.utils.torch_utils import FLOAT_MIN

    class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
        """RLlib's default PPO torch module on ``observations``, with illegal actions masked out of the
        logits (see the module docstring)."""

        def __init__(self, *, observation_space: Any = None, **kwargs: Any) -> None:
            if not isinstance(observation_space, gymnasium.spaces.Dict) or set(observation_space.spaces) != {OBS_KEY, MASK_KEY}:
                raise ValueError(f"observation_space: expected Dict({{'{OBS_KEY}': Box, '{MASK_KEY}': Box}}), "
                                 f"got {observation_space}")
            self.observation_space_with_mask = observation_space
            super().__init__(observation_space=observation_space[OBS_KEY], **kwargs)

        def setup(self) -> None:
            super().setup()
            self.observation_space = self.observation_space_with_mask  # what the env runners check against

        @staticmethod
        def _split(batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
            obs = batch[Columns.OBS]
            if not isinstance(obs, dict) or MASK_KEY not in obs or OBS_KEY not in obs:
                raise ValueError(f"batch['obs']: expected a dict with '{OBS_KEY}' and '{MASK_KEY}' "
                                 f"(the FiveplayMultiAgentEnv layout), got {type(obs).__name__}")
            out = dict(batch)
            out[Columns.OBS] = obs[OBS_KEY]
            return obs[MASK_KEY], out

        @staticmethod
        def _mask(outs: dict[str, Any], mask: Any) -> dict[str, Any]:
            outs[Columns.ACTION_DIST_INPUTS] = outs[Columns.ACTION_DIST_INPUTS] + torch.clamp(torch.log(mask), min=FLOAT_MIN)
            return outs

        def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            mask, b = self._split(batch)
            return self._mask(super()._forward(b, **kwargs), mask)

        def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            mask, b = self._split(batch)
            return self._mask(super()._forward_train(b, **kwargs), mask)

        def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
            if embeddings is None:
                _, batch = self._split(batch)
            return super().compute_values(batch, embeddings)

    MaskedPPOTorchRLModule.__module__ = __name__
    MaskedPPOTorchRLModule.__qualname__ = "MaskedPPOTorchRLModule"
    return MaskedPPOTorchRLModule


_LAZY = {"FiveplayMultiAgentEnv": _env_class, "MaskedPPOTorchRLModule": _module_class}
_MADE: dict[str, type] = {}


def __getattr__(name: str) -> Any:
    """``FiveplayMultiAgentEnv`` and ``MaskedPPOTorchRLModule`` are built on first access (they subclass
    RLlib classes, so Ray is imported then); pickles refer to them by this module's name."""
    if name in _LAZY:
        if name not in _MADE:
            _MADE[name] = _LAZY[name]()
        return _MADE[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --- the config --------------------------------------------------------------------------------------------


def ppo_config(game: str, env_config: dict[str, Any] | None = None, opponents: Any = None, seat: int | str = "random",
               num_env_runners: int = 0, hidden: Sequence[int] = (256, 256), seed: int | None = None) -> Any:
    """A ``PPOConfig`` that trains the shared masked module on ``game`` (see the module docstring).

    Args:
        game: ``"take5"`` or ``"five_alive"``.
        env_config: the game's config fields (``num_players``, ``mode`` ...).
        opponents: ``None`` (self-play: every seat is the shared module) or fixed agents' names.
        seat: the learning seat with ``opponents`` (``"random"``: drawn each episode).
        num_env_runners: RLlib env runners (0: sample in the driver process).
        hidden: the MLP's hidden layer sizes (policy and value nets).
        seed: RLlib's ``debugging(seed=...)``: seeds the env runners' envs and the module's initialization.

    Training hyperparameters are RLlib's PPO defaults except a learning rate of 3e-4 and
    ``entropy_coeff`` 0.01; change them on the returned config (``.training(...)``).
    """
    _require_ray()
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    env_cls = __getattr__("FiveplayMultiAgentEnv")
    module_cls = __getattr__("MaskedPPOTorchRLModule")
    cfg = {"game": game, **(env_config or {})}
    if opponents is not None:
        cfg.update(opponents=opponents, seat=seat)
    env_cls(dict(cfg))  # validates the game, the config and the opponents here, with a clear error
    config = (
        PPOConfig()
        .environment(env=env_cls, env_config=cfg, disable_env_checking=True)
        .multi_agent(policies={MODULE_ID}, policy_mapping_fn=policy_mapping_fn, policies_to_train=[MODULE_ID])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            MODULE_ID: RLModuleSpec(module_class=module_cls, model_config={
                "fcnet_hiddens": list(hidden), "fcnet_activation": "relu", "vf_share_layers": False}),
        }))
        .env_runners(num_env_runners=num_env_runners)
        .training(lr=3e-4, entropy_coeff=0.01)
    )
    if seed is not None:
        config = config.debugging(seed=seed)
    return config


# --- rllib: agents -------------------------------------------------------------------------------------------

_MODULES: dict[tuple[str, float], Any] = {}


def module_path(path: str) -> str:
    """The RLModule checkpoint folder inside ``path`` (a run folder of ``experiments.rllib_train``, an algorithm
    checkpoint or the module's own folder); ``CheckpointError`` (a ``ValueError``) if there is none."""
    from fiveplay_env.core.errors import CheckpointError

    for base in (path, os.path.join(path, "checkpoint")):
        for sub in (os.path.join("learner_group", "learner", "rl_module", MODULE_ID),
                    os.path.join("rl_module", MODULE_ID), ""):
            p = os.path.join(base, sub) if sub else base
            if (os.path.isfile(os.path.join(p, "class_and_ctor_args.pkl"))
                    and any(f.startswith("module_state") for f in os.listdir(p))):
                return p
    raise CheckpointError(f"rllib checkpoint: expected an RLlib algorithm checkpoint, an rllib_train run folder or an "
                          f"RLModule folder at {path!r}; found no module '{MODULE_ID}' there")


def load_module(path: str) -> Any:
    """The RLModule saved under ``path`` (see ``module_path``), loaded once per process and file version."""
    _require_ray()
    from ray.rllib.core.rl_module.rl_module import RLModule

    p = os.path.abspath(module_path(path))
    key = (p, os.path.getmtime(p))
    if key not in _MODULES:
        __getattr__("MaskedPPOTorchRLModule")  # the class the pickle names must be importable here
        module = RLModule.from_checkpoint(p)
        module.eval()
        _MODULES.clear()
        _MODULES[key] = module
    return _MODULES[key]


__all__ = ["MODULE_ID", "OBS_KEY", "MASK_KEY", "FiveplayMultiAgentEnv", "MaskedPPOTorchRLModule", "ppo_config",
           "policy_mapping_fn", "load_module", "module_path"]
