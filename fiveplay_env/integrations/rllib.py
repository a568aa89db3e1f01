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

**Agents** ``rllib:PATH`` names a policy for ``fiveplay_env.agents.registry.make_agent`` (``fiveplay_env.agents.rllib_agent``,
built on ``load_module`` here): PATH is an algorithm
checkpoint folder (``algo.save(PATH)``), a run folder of ``fiveplay_env.experiments.rllib_train`` (its ``checkpoint``)
or an RLModule checkpoint folder. ``rllib:PATH?sample`` samples from the masked policy with the agent's
generator instead of taking the most probable legal action. Modules are loaded once per process.
"""
from __future__ import annotations

import io
import os
import pickle
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np

from fiveplay_env.core import seeding
from fiveplay_env.core.errors import CheckpointError

MODULE_ID = "shared"
OBS_KEY = "observations"
MASK_KEY = "action_mask"
_MAX_EMPTY_GAMES = 100


def _require_ray() -> Any:
    try:
        import ray  # noqa: F401
        from ray.rllib.env.multi_agent_env import MultiAgentEnv
    except ImportError as e:
        from fiveplay_env.core import extras

        raise ImportError("fiveplay_env.integrations.rllib needs Ray RLlib and torch, of the 'distributed' extra: "
                          + extras.install_hint("distributed")) from e
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



def module_path(path: str) -> str:
    """The RLModule checkpoint folder inside ``path`` (a run folder of ``fiveplay_env.experiments.rllib_train``, an algorithm
    checkpoint or the module's own folder); ``CheckpointError`` (a ``ValueError``) if there is none."""

    for base in (path, os.path.join(path, "checkpoint")):
        for sub in (os.path.join("learner_group", "learner", "rl_module", MODULE_ID),
                    os.path.join("rl_module", MODULE_ID), ""):
            p = os.path.join(base, sub) if sub else base
            if (os.path.isfile(os.path.join(p, "class_and_ctor_args.pkl"))
                    and any(f.startswith("module_state") for f in os.listdir(p))):
                return p
    raise CheckpointError(f"rllib checkpoint: expected an RLlib algorithm checkpoint, an rllib_train run folder or an "
                          f"RLModule folder at {path!r}; found no module '{MODULE_ID}' there")


CTOR_FILE = "class_and_ctor_args.pkl"
STATE_FILE = "module_state.pkl"
MAX_PICKLE_BYTES = 1 << 30
"""The largest pickle file read (1 GiB): bigger ones are refused before reading."""
MODULE_CLASS = ("fiveplay_env.integrations.rllib", "MaskedPPOTorchRLModule")
CATALOG_CLASS = ("ray.rllib.algorithms.ppo.ppo_catalog", "PPOCatalog")
SAFE_GLOBALS: frozenset[tuple[str, str]] = frozenset({
    MODULE_CLASS, CATALOG_CLASS,
    ("collections", "OrderedDict"),
    ("gymnasium.spaces.dict", "Dict"), ("gymnasium.spaces.box", "Box"), ("gymnasium.spaces.discrete", "Discrete"),
    ("numpy", "dtype"), ("numpy", "ndarray"),
    ("numpy._core.numeric", "_frombuffer"), ("numpy.core.numeric", "_frombuffer"),
    ("numpy._core.multiarray", "scalar"), ("numpy.core.multiarray", "scalar"),
    ("numpy._core.multiarray", "_reconstruct"), ("numpy.core.multiarray", "_reconstruct"),
    # a seeded space's generator (numpy's own pickling helpers and bit generators: they build generators only)
    ("numpy.random._pickle", "__generator_ctor"), ("numpy.random._pickle", "__bit_generator_ctor"),
    ("numpy.random._pickle", "__randomstate_ctor"), ("numpy.random._generator", "Generator"),
    ("numpy.random.bit_generator", "SeedSequence"), ("numpy.random.bit_generator", "__pyx_unpickle_SeedSequence"),
    ("numpy.random._mt19937", "MT19937"), ("numpy.random._pcg64", "PCG64"), ("numpy.random._pcg64", "PCG64DXSM"),
    ("numpy.random._philox", "Philox"), ("numpy.random._sfc64", "SFC64"),
})
"""Every global an RLModule checkpoint of this project's module may name (the pickles RLlib 2.x writes)."""
CTOR_KWARGS = ("observation_space", "action_space", "inference_only", "learner_only", "model_config", "catalog_class")


class _ClassRef:
    """A class named by the pickle, kept as a name: resolved only after the whole file is checked."""

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise pickle.UnpicklingError(f"the pickle calls {self.module}.{self.name}")


class SafeUnpickler(pickle.Unpickler):
    """An unpickler that knows only ``SAFE_GLOBALS``: any other class or function in the file is an
    ``UnpicklingError`` before anything runs. The module and catalog classes come back as references
    (``_ClassRef``), so reading the file imports nothing heavy and calls neither."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in SAFE_GLOBALS:
            raise pickle.UnpicklingError(f"it names {module}.{name}, which is not among the classes an RLModule "
                                         f"checkpoint of this project holds")
        if (module, name) in (MODULE_CLASS, CATALOG_CLASS):
            return _ClassRef(module, name)
        return super().find_class(module, name)


def _read_pickle(path: str) -> Any:
    if not os.path.isfile(path):
        raise CheckpointError(f"rllib checkpoint {path}: missing (expected a regular file)")
    size = os.path.getsize(path)
    if size > MAX_PICKLE_BYTES:
        raise CheckpointError(f"rllib checkpoint {path}: expected at most {MAX_PICKLE_BYTES} bytes, got {size}")
    with open(path, "rb") as f:
        data = f.read(MAX_PICKLE_BYTES + 1)
    try:
        return SafeUnpickler(io.BytesIO(data)).load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, IndexError, KeyError,
            MemoryError, RecursionError, ImportError) as e:
        raise CheckpointError(f"rllib checkpoint {path}: refused, not loaded: {type(e).__name__}: {e}") from None


def _plain_config(value: Any, where: str) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain_config(v, where) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: _plain_config(v, where) for k, v in value.items()}
    raise CheckpointError(f"{where}: model_config: expected plain data (numbers, strings, lists, dicts), "
                          f"got a {type(value).__name__}")


def load_safe_module(path: str) -> Any:
    """The RLModule under ``path`` (``module_path``: an algorithm checkpoint, an ``rllib_train`` run folder
    or the module's folder), read without running code from it (module docstring); cached per process
    by folder and file times. ``CheckpointError`` for anything it cannot verify."""
    folder = os.path.abspath(module_path(path))
    ctor_file, state_file = os.path.join(folder, CTOR_FILE), os.path.join(folder, STATE_FILE)
    if not os.path.isfile(state_file):
        raise CheckpointError(f"rllib checkpoint {folder}: expected the module's weights in {STATE_FILE} "
                              f"(other state formats are not read)")
    key = (folder, os.path.getmtime(ctor_file), os.path.getmtime(state_file))
    if key in _SAFE_MODULES:
        return _SAFE_MODULES[key]
    ctor = _read_pickle(ctor_file)
    state = _read_pickle(state_file)
    where = f"rllib checkpoint {ctor_file}"
    if not isinstance(ctor, dict) or not isinstance(ctor.get("class"), _ClassRef) \
            or (ctor["class"].module, ctor["class"].name) != MODULE_CLASS:
        raise CheckpointError(f"{where}: expected the class {'.'.join(MODULE_CLASS)}")
    args = ctor.get("ctor_args_and_kwargs")
    if not isinstance(args, (tuple, list)) or len(args) != 2 or list(args[0] or []) or not isinstance(args[1], dict):
        raise CheckpointError(f"{where}: expected constructor keyword arguments only")
    kwargs = dict(args[1])
    unknown = [k for k in kwargs if k not in CTOR_KWARGS]
    if unknown:
        raise CheckpointError(f"{where}: unexpected constructor argument {unknown[0]!r}; expected among {list(CTOR_KWARGS)}")
    import gymnasium

    if not isinstance(kwargs.get("observation_space"), gymnasium.spaces.Dict) \
            or not isinstance(kwargs.get("action_space"), gymnasium.spaces.Discrete):
        raise CheckpointError(f"{where}: expected a Dict observation space and a Discrete action space")
    for flag in ("inference_only", "learner_only"):
        if not isinstance(kwargs.get(flag, False), bool):
            raise CheckpointError(f"{where}: {flag}: expected true or false, got a {type(kwargs[flag]).__name__}")
    kwargs["model_config"] = _plain_config(kwargs.get("model_config") or {}, where)
    catalog = kwargs.pop("catalog_class", None)
    if catalog is not None and (not isinstance(catalog, _ClassRef) or (catalog.module, catalog.name) != CATALOG_CLASS):
        raise CheckpointError(f"{where}: catalog_class: expected {'.'.join(CATALOG_CLASS)}")
    where = f"rllib checkpoint {state_file}"
    if not isinstance(state, dict) or not all(isinstance(k, str) and isinstance(v, np.ndarray) and v.dtype.kind in "fiub"
                                              for k, v in state.items()):
        raise CheckpointError(f"{where}: expected a mapping of parameter names to numeric arrays")
    _require_ray()
    import torch
    from ray.rllib.algorithms.ppo.ppo_catalog import PPOCatalog

    module_cls = __getattr__("MaskedPPOTorchRLModule")
    if catalog is not None:
        kwargs["catalog_class"] = PPOCatalog
    try:
        module = module_cls(**kwargs)
    except Exception as e:  # noqa: BLE001 - spaces or a model config the module cannot be built from
        raise CheckpointError(f"rllib checkpoint {folder}: the module cannot be built from its saved arguments "
                              f"({type(e).__name__})") from None
    own = module.state_dict()
    missing = [k for k in own if k not in state]
    if missing:
        raise CheckpointError(f"{where}: missing weights for {missing[0]!r}")
    bad = [k for k in own if tuple(state[k].shape) != tuple(own[k].shape)]
    if bad:
        raise CheckpointError(f"{where}: {bad[0]!r}: expected shape {tuple(own[bad[0]].shape)}, got {tuple(state[bad[0]].shape)}")
    module.load_state_dict({k: torch.as_tensor(np.array(state[k])) for k in own}, strict=True)
    module.eval()
    _SAFE_MODULES.clear()
    _SAFE_MODULES[key] = module
    return module


_SAFE_MODULES: dict[tuple[str, float, float], Any] = {}


def load_module(path: str) -> Any:
    """The RLModule saved under ``path`` (see ``module_path``), read without running code from the folder
    (``load_safe_module``; RLlib's own ``RLModule.from_checkpoint`` would unpickle whatever the folder holds)."""
    return load_safe_module(path)


__all__ = ["MODULE_ID", "OBS_KEY", "MASK_KEY", "FiveplayMultiAgentEnv", "MaskedPPOTorchRLModule", "ppo_config",
           "policy_mapping_fn", "load_module", "load_safe_module", "module_path", "SafeUnpickler",
           "SAFE_GLOBALS"]
