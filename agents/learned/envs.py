"""Vector environments for training and evaluation, game outcomes, and engine snapshots for checkpoints.

``make_training_env(game, num_envs, seed, config)`` returns the game's batched engine behind the vector
API (``fiveplay_env.vector.make_vec``) when one is registered, and otherwise the vector API's reference
backend (``make_vec(..., backend="reference")``: ``fiveplay_env.vector.LoopVecEnv``, re-exported here):
the same contract (``reset``/``step`` tuples, same-step autoreset, rewards for every player, the same
per-slot seeding ``derive(seed, i + k*B)``) implemented by a Python loop over the game's reference
engines. The fallback is slower but exact, so a game without a batched engine still trains.
It is also the only vector env that can seat agents that need the engine (``uses_engine``: the search
agent, which reads each game's reference engine through ``observe_engine``; ``fiveplay_env.agents.learned.engine_seats``):
``engine_agents`` names them, and ``backend="auto"`` then picks the loop (``resolve_backend``). The
learner's backend names are ``"batched"`` (the vector API's ``"numpy"``) and ``"reference"``; a
checkpoint records ``"batched"`` or ``"reference-loop"``.

``outcome(game, info, terminated)``: per finished game, every seat's score (Take 5: final bull heads,
lower is better; 5 Alive: lives left, higher is better: ``fiveplay_env.agents.learned.defaults.score_info``) and win
share (ties share a win).

``engine_snapshot(env)`` / ``restore_engine(env, snap)``: the complete state of a vector env's games as
plain data (dicts, lists, numbers, arrays as uint8 tensors: what ``torch.load(weights_only=True)`` reads,
no pickled objects), restored *in place* into a freshly built env of the same game,
size and config, so a resumed training run continues with exactly the same games.
"""
from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

import numpy as np

from fiveplay_env.agents.learned.defaults import ScoreInfo, score_info
from fiveplay_env.core.errors import CheckpointError
from fiveplay_env.vector import LoopVecEnv


__all__ = ["LoopVecEnv", "ScoreInfo", "engine_snapshot", "has_batched_engine", "make_training_env",
           "outcome", "reset_with_seeds", "resolve_backend", "restore_engine", "score_info"]


def has_batched_engine(game: str) -> bool:
    """Whether ``fiveplay_env.vector.REGISTRY`` has a batched engine for ``game``."""
    from fiveplay_env import vector

    return game in vector.REGISTRY


def resolve_backend(game: str, backend: str = "auto", engine_agents: Sequence[str] = ()) -> str:
    """``"batched"`` or ``"reference"``: the vector env ``make_training_env`` builds for ``backend``
    ("auto": batched when registered, else reference) when the games seat the agents ``engine_agents``
    (names of agents with ``uses_engine``, which play on the reference loop only: "auto" picks it,
    "batched" is a ``ValueError`` naming the agent)."""
    if backend not in ("auto", "batched", "reference", "jax"):
        raise ValueError(f"backend: expected one of ['auto', 'batched', 'reference', 'jax'], got {backend!r}")
    if backend == "jax":  # a JAX-trained run's evaluations (and engine-using agents) play on the numpy engines
        backend = "auto"
    if engine_agents:
        if backend == "batched":
            raise ValueError(f"backend: agent {engine_agents[0]!r} uses the engine (it reads each game's reference "
                             f"engine through observe_engine, one game at a time), so it plays only on the "
                             f"reference-engine loop; expected backend 'reference' or 'auto', got 'batched'")
        return "reference"
    return "batched" if backend == "batched" or (backend == "auto" and has_batched_engine(game)) else "reference"


def make_training_env(game: str, num_envs: int, seed: int, config: dict[str, Any],
                      backend: str = "auto", compact_obs: bool = False, engine_agents: Sequence[str] = ()) -> Any:
    """A vector env of ``game``: ``backend`` "batched" (the registered batched engine), "reference"
    (``LoopVecEnv``) or "auto" (batched when registered, else the reference fallback; the reference loop
    whenever ``engine_agents`` names agents that need the engine: ``resolve_backend``). The returned env
    has a ``backend`` attribute saying which."""
    resolved = resolve_backend(game, backend, engine_agents)
    if resolved == "batched":
        from fiveplay_env import vector

        if game not in vector.REGISTRY:
            raise ValueError(f"backend: game {game!r} has no batched engine yet (registered: {sorted(vector.REGISTRY)}); "
                             f"use backend 'reference' or 'auto'")
        env = vector.make_vec(game, num_envs, seed=seed, compact_obs=compact_obs, **config)
        env.backend = "batched"  # type: ignore[attr-defined]
        return env
    if compact_obs and engine_agents:
        raise ValueError(f"compact_obs: expected opponents that act on observations; {engine_agents[0]!r} uses the "
                         f"engine and plays on the reference-engine loop, which has no compact observation")
    if compact_obs:
        raise ValueError(f"compact_obs: expected the batched engine (backend 'batched', or 'auto' for a game with "
                         f"one), got backend {backend!r} for {game!r}")
    from fiveplay_env import vector

    return vector.make_vec(game, num_envs, seed=seed, backend="reference", **config)


def reset_with_seeds(env: Any, seed: int, seeds: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``env.reset(seed)``, with explicit first-game seeds where the engine supports them."""
    if seeds is None:
        return env.reset(seed)
    if isinstance(env, LoopVecEnv):
        return env.reset(seed, seeds=seeds)
    engine = env.engine
    if "seeds" in inspect.signature(engine.reset).parameters:
        engine.reset(seed, seeds=[int(s) for s in seeds])
        return engine.observe(), engine.legal_action_mask, engine.current_player
    return env.reset(seed)


# --- outcomes ---------------------------------------------------------------------------------------------

def outcome(game: str, info: dict[str, np.ndarray], idx: np.ndarray,
            returns: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(scores [m, n], win shares [m, n])`` of the games in slots ``idx`` that just ended.

    The engine's win shares (``final_win``) when given (5 Alive, the reference loop); otherwise, for a
    score where lower is better (Take 5's bull heads) the lowest score wins, ties share; else the winner
    is read off the finished game's ``returns`` (win/loss rewards: the one positive return) when given,
    or the highest score wins."""
    fs = np.asarray(info["final_scores"])[idx].astype(np.float64)
    if "final_win" in info:
        return fs, np.asarray(info["final_win"])[idx].astype(np.float64)
    if score_info(game).lower_is_better:
        best = fs.min(axis=1, keepdims=True)
        win = (fs == best).astype(np.float64)
        return fs, win / win.sum(axis=1, keepdims=True)
    if returns is not None:
        r = np.asarray(returns)[idx]
        win = (r == r.max(axis=1, keepdims=True)).astype(np.float64)
        return fs, win / win.sum(axis=1, keepdims=True)
    best = fs.max(axis=1, keepdims=True)
    win = (fs == best).astype(np.float64)
    return fs, win / win.sum(axis=1, keepdims=True)


# --- snapshots --------------------------------------------------------------------------------------------

_SCALARS = (bool, int, float, str, type(None))


def _pack(value: Any, where: str) -> Any:
    if isinstance(value, np.ndarray):
        import torch

        raw = np.ascontiguousarray(value).reshape(-1).view(np.uint8).copy()
        return {"__ndarray__": True, "dtype": value.dtype.str, "shape": list(value.shape),
                "data": torch.from_numpy(raw), "writeable": bool(value.flags.writeable)}
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, (list, tuple)):
        return {"__seq__": type(value).__name__, "items": [_pack(v, where) for v in value]}
    if isinstance(value, dict):
        return {"__dict__": True, "items": {str(k): _pack(v, where) for k, v in value.items()}}
    if hasattr(value, "__dataclass_fields__") or hasattr(value, "__dict__") or hasattr(value, "__slots__"):
        return {"__object__": True, "fields": {k: _pack(v, f"{where}.{k}") for k, v in _fields(value).items()}}
    raise CheckpointError(f"cannot save the engine state: {where} holds a {type(value).__name__}")


def _fields(obj: Any) -> dict[str, Any]:
    out = dict(getattr(obj, "__dict__", {}))
    for cls in type(obj).__mro__:
        for s in getattr(cls, "__slots__", ()):
            if hasattr(obj, s):
                out[s] = getattr(obj, s)
    return out


def _unpack(value: Any) -> Any:
    if isinstance(value, dict):
        if value.get("__ndarray__"):
            data = value["data"]
            raw = data.numpy() if hasattr(data, "numpy") else np.frombuffer(data, np.uint8)
            arr = raw.view(np.dtype(value["dtype"])).reshape(value["shape"]).copy()
            if not value["writeable"]:
                arr.setflags(write=False)
            return arr
        if "__seq__" in value:
            items = [_unpack(v) for v in value["items"]]
            return tuple(items) if value["__seq__"] == "tuple" else items
        if value.get("__dict__"):
            return {k: _unpack(v) for k, v in value["items"].items()}
        if value.get("__object__"):
            return {"__object__": {k: _unpack(v) for k, v in value["fields"].items()}}
    return value


def _restore_into(obj: Any, fields: dict[str, Any], where: str) -> None:
    current = _fields(obj)
    if set(current) != set(fields):
        # the engine's code changed since the checkpoint: restoring part of its state would be silently wrong
        new, gone = sorted(set(current) - set(fields)), sorted(set(fields) - set(current))
        raise CheckpointError(f"cannot restore the engine state of {where}: its attributes changed since the "
                              f"checkpoint (new: {new}, gone: {gone})")
    for name, saved in fields.items():
        if isinstance(saved, dict) and "__object__" in saved:
            if name not in current:
                raise CheckpointError(f"cannot restore the engine state: {where}.{name} is missing in this version")
            cur = current[name]
            if hasattr(cur, "__dataclass_params__") and getattr(cur.__dataclass_params__, "frozen", False):
                continue  # frozen config objects: rebuilt from the saved config already
            _restore_into(cur, saved["__object__"], f"{where}.{name}")
            continue
        cur = current.get(name)
        if isinstance(saved, np.ndarray) and isinstance(cur, np.ndarray) and cur.flags.writeable \
                and saved.flags.writeable and cur.shape == saved.shape and cur.dtype == saved.dtype:
            np.copyto(cur, saved)  # in place: views of this array (flat aliases) stay views
        else:
            object.__setattr__(obj, name, saved)


def engine_snapshot(env: Any) -> dict[str, Any]:
    """The state of every game of ``env`` (a vector env from ``make_training_env``) as nested plain data
    (dicts, lists, numbers, bytes): ``get_state()`` where the engine offers it, else every attribute."""
    target = env if isinstance(env, LoopVecEnv) else env.engine
    if hasattr(target, "get_state"):
        return {"kind": "get_state", "state": _pack(target.get_state(), "state")}
    return {"kind": "fields", "state": _pack(target, type(target).__name__)}


def restore_engine(env: Any, snap: dict[str, Any]) -> None:
    """Put ``snap`` (from ``engine_snapshot``) into ``env``, a fresh env of the same game, size and config."""
    target = env if isinstance(env, LoopVecEnv) else env.engine
    state = _unpack(snap["state"])
    if snap["kind"] == "get_state":
        target.set_state(state)
        return
    if not (isinstance(state, dict) and "__object__" in state):
        raise CheckpointError("cannot restore the engine state: the saved state is not an object's fields")
    _restore_into(target, state["__object__"], type(target).__name__)
