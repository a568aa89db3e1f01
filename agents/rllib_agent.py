"""Policies trained with RLlib as agents: the ``rllib:`` registry names.

    from agents.registry import make_agent
    agent = make_agent("rllib:runs/rllib_train__take5__0__20260101-120000", "take5", seed=0)

Name syntax: ``rllib:PATH[?greedy|?sample]``. ``PATH`` is an RLlib algorithm checkpoint (``algo.save``), a run
folder of ``experiments.rllib_train`` or an RLModule folder (``fiveplay_env.integrations.rllib.module_path``).
``greedy`` (default): the most probable legal action; ``sample``: drawn from the masked policy with the
agent's own generator. The module is loaded once per process (a tournament worker loads it once).
A module trained for another game or number of players raises ``ValueError`` at its first decision.
Needs the ``distributed`` extra (Ray RLlib, torch).

Loading never runs code from the folder. RLlib's own ``RLModule.from_checkpoint`` unpickles
``class_and_ctor_args.pkl`` and ``module_state.pkl``, and a pickle can call anything, so a crafted folder
would run code; ``load_safe_module`` reads both with a restricted unpickler instead (``SafeUnpickler``:
only the classes and functions in ``SAFE_GLOBALS`` may appear: the module class this project saves, the
observation and action spaces (and their numpy generators), numpy arrays and dtypes), checks what it found (the class is
``MaskedPPOTorchRLModule``, the constructor's arguments are spaces and plain data, the state is arrays
that fit the module exactly), builds the module itself and loads the weights. Anything else (another
class, a function call, a missing or oversized file, a state that does not fit) is a ``CheckpointError``
(a ``ValueError``) naming the file and what was found, by kind, never by value; nothing in it is called.
"""
from __future__ import annotations

import io
import os
import pickle
from typing import Any

import numpy as np

from agents.base import Agent, check_batch
from agents.registry import file_fingerprint, register_prefix
from fiveplay_env.core.errors import CheckpointError
from fiveplay_env.integrations.rllib import MASK_KEY, OBS_KEY, module_path

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
    from fiveplay_env.integrations import rllib as R

    R._require_ray()
    import torch
    from ray.rllib.algorithms.ppo.ppo_catalog import PPOCatalog

    module_cls = R.__getattr__("MaskedPPOTorchRLModule")
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


class RLlibAgent(Agent):
    """A policy trained with RLlib (an RLModule over the ``FiveplayMultiAgentEnv`` layout), playing through
    its masked logits: greedy (the most probable legal action) or sampled with the agent's generator."""

    def __init__(self, module: Any, seed: int | None = None, greedy: bool = True) -> None:
        super().__init__(seed)
        self.module = module
        obs_space = getattr(module, "observation_space_with_mask", module.observation_space)
        self.obs_dim = int(obs_space[OBS_KEY].shape[0])
        self.num_actions = int(module.action_space.n)
        self.greedy = greedy

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        import torch

        obs, m = check_batch(observations, masks)
        if obs.shape[1] != self.obs_dim or m.shape[1] != self.num_actions:
            raise ValueError(f"rllib agent: the module expects observations [B, {self.obs_dim}] and masks "
                             f"[B, {self.num_actions}] (its game and number of players), got {obs.shape} and {m.shape}")
        with torch.no_grad():
            out = self.module.forward_inference({"obs": {
                OBS_KEY: torch.as_tensor(obs, dtype=torch.float32),
                MASK_KEY: torch.as_tensor(m, dtype=torch.float32)}})
            logits = out["action_dist_inputs"].double().numpy()
        logits = np.where(m > 0, logits, -np.inf)
        if self.greedy:
            return logits.argmax(axis=1).astype(np.int64)
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        return np.array([self.rng.choice(len(row), p=row) for row in p], dtype=np.int64)


def make_rllib_agent(rest: str, game: str, seed: int | None) -> RLlibAgent:
    """Registry factory for ``rllib:PATH[?greedy|?sample]`` (see the module docstring)."""
    path, _, query = rest.partition("?")
    if not path or query not in ("", "greedy", "sample"):
        raise ValueError(f"rllib name: expected rllib:PATH[?greedy|?sample], got 'rllib:{rest}'")
    return RLlibAgent(load_safe_module(path), seed, greedy=query != "sample")


def _rllib_fingerprint(rest: str) -> str | None:
    """The content hash of the RLModule folder the name loads (``module_path``), whatever its ``?options``
    (None if there is none: loading it will say why)."""
    try:
        folder = module_path(rest.partition("?")[0])
    except ValueError:
        return None
    return file_fingerprint(folder)


register_prefix("rllib", make_rllib_agent, _rllib_fingerprint)
