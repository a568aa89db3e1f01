"""Vector environments for training and evaluation, game outcomes, and engine snapshots for checkpoints.

``make_training_env(game, num_envs, seed, config)`` returns the game's batched engine behind the vector
API (``fiveplay_env.vector.make_vec``) when one is registered, and otherwise ``LoopVecEnv``: the same
contract (``reset``/``step`` tuples, same-step autoreset, rewards for every player, the same per-slot
seeding ``derive(seed, i + k*B)``) implemented by a Python loop over the game's reference engines. The
fallback is slower but exact, so a game without a batched engine (5 Alive, for now) still trains.
It is also the only vector env that can seat agents that need the engine (``uses_engine``: the search
agent, which reads each game's reference engine through ``observe_engine``; ``agents.learned.engine_seats``):
``engine_agents`` names them, and ``backend="auto"`` then picks the loop (``resolve_backend``).

``outcome(game, info, terminated)``: per finished game, every seat's score (Take 5: final bull heads,
lower is better; 5 Alive: lives left, higher is better) and win share (ties share a win).

``engine_snapshot(env)`` / ``restore_engine(env, snap)``: the complete state of a vector env's games as
plain data (dicts, lists, numbers, arrays as uint8 tensors: what ``torch.load(weights_only=True)`` reads,
no pickled objects), restored *in place* into a freshly built env of the same game,
size and config, so a resumed training run continues with exactly the same games.
"""
from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fiveplay_env.core import seeding
from fiveplay_env.core.errors import CheckpointError


@dataclass(frozen=True)
class ScoreInfo:
    """How a game's per-seat score reads: its name and whether lower is better."""

    name: str
    lower_is_better: bool


SCORES: dict[str, ScoreInfo] = {
    "take5": ScoreInfo("score", True),        # final bull heads
    "five_alive": ScoreInfo("lives", False),  # lives left at the end
}


def score_info(game: str) -> ScoreInfo:
    return SCORES.get(game, ScoreInfo("score", False))


class LoopVecEnv:
    """The vector-API contract (``fiveplay_env.vector``) over ``num_envs`` reference engines.

    ``info()`` holds ``seed`` [B], ``final_scores`` [B, n] (Take 5: scores; 5 Alive: lives; valid where
    ``terminated``) and ``final_win`` [B, n] (win shares of the finished games).
    ``engines[i]`` is slot i's game in progress (a new one as soon as a game ends) and, after a step,
    ``ended`` maps each slot whose game that step finished to the finished game's engine.
    """

    backend = "reference-loop"

    def __init__(self, game: str, num_envs: int, seed: int | None = 0, **config: Any) -> None:
        from agents import games as games_mod

        self.game = game
        self.adapter = games_mod.get_game(game)
        self.config = self.adapter.make_config(config)
        self.num_envs = int(num_envs)
        if self.num_envs < 1:
            raise ValueError(f"num_envs: expected an integer >= 1, got {num_envs!r}")
        self.num_players = self.config.num_players
        self.num_actions = self.adapter.num_actions
        probe = self.adapter.new_engine(self.config, 0)
        self.obs_dim = int(self.adapter.observe(probe, probe.current_player).shape[0])
        self.engines: list[Any] = []
        self.history: list[list[int]] = []  # actions of each slot's current game (for snapshots)
        self.ended: dict[int, Any] = {}  # slot -> the engine of the game the last step finished there
        self.base_seed = 0
        self.game_index = np.zeros(self.num_envs, np.int64)
        self.seeds = np.zeros(self.num_envs, np.uint64)
        self._final = np.zeros((self.num_envs, self.num_players), np.float32)
        self._final_win = np.zeros((self.num_envs, self.num_players), np.float32)
        self._seed_arg = seed

    def _new(self, i: int, seed: int) -> None:
        self.seeds[i] = np.uint64(seed)
        self.engines[i] = self.adapter.new_engine(self.config, int(seed))
        self.history[i] = []

    def reset(self, seed: int | None = None, seeds: Any = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Start ``num_envs`` games; slot i's k-th game has seed ``derive(seed, i + k*B)`` (``seeds``:
        explicit seeds of the first games)."""
        self.base_seed = seeding.normalize_seed(seed if seed is not None else self._seed_arg)
        B = self.num_envs
        self.engines = [None] * B
        self.history = [[] for _ in range(B)]
        self.ended = {}
        self.game_index = np.arange(B, dtype=np.int64)
        if seeds is not None and len(seeds) != B:
            raise ValueError(f"seeds: expected {B} seeds (one per game), got {len(seeds)}")
        for i in range(B):
            self._new(i, seeds[i] if seeds is not None else seeding.derive(self.base_seed, i))
        return self._outputs()

    def _outputs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        obs = np.empty((self.num_envs, self.obs_dim), np.float32)
        mask = np.empty((self.num_envs, self.num_actions), np.int8)
        cur = np.empty(self.num_envs, np.int32)
        observe = self.adapter.observe
        for i, e in enumerate(self.engines):
            p = e.current_player
            cur[i] = p
            obs[i] = observe(e, p)
            mask[i] = e.legal_mask()
        return obs, mask, cur

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                                  dict[str, np.ndarray]]:
        a = np.asarray(actions)
        B, n = self.num_envs, self.num_players
        if a.shape != (B,) or a.dtype.kind not in "iu":
            raise ValueError(f"actions: expected an integer array of shape ({B},), got {a.dtype} {a.shape}")
        # check every action first, so an illegal one changes nothing
        from fiveplay_env.core.errors import IllegalActionError

        for i, e in enumerate(self.engines):
            m = e.legal_mask()
            if not (0 <= a[i] < self.num_actions) or not m[a[i]]:
                err = IllegalActionError(f"player_{e.current_player} of game {i}", int(a[i]), np.flatnonzero(m))
                err.game_index = i  # type: ignore[attr-defined]
                raise err
        rewards = np.zeros((B, n), np.float32)
        term = np.zeros(B, bool)
        results = self.adapter.results
        self.ended = {}
        for i, e in enumerate(self.engines):
            r = e.step(int(a[i]))
            self.history[i].append(int(a[i]))
            rewards[i] = r
            if e.is_over:
                term[i] = True
                res = results(e, [None] * n)
                sc = res.get(score_info(self.game).name)
                self._final[i] = sc if sc is not None else res["win"]
                self._final_win[i] = res["win"]
                self.ended[i] = e
                self.game_index[i] += B
                self._new(i, seeding.derive(self.base_seed, int(self.game_index[i])))
        obs, mask, cur = self._outputs()
        info = {"seed": self.seeds.copy(), "final_scores": self._final.copy(), "final_win": self._final_win.copy()}
        return obs, mask, cur, rewards, term, info

    # snapshots (see engine_snapshot): a game is its seed and the actions played so far (replayed on restore)
    def get_state(self) -> dict[str, Any]:
        return {"base_seed": self.base_seed, "game_index": self.game_index.copy(), "seeds": self.seeds.copy(),
                "history": [np.asarray(h, np.int16) for h in self.history]}

    def set_state(self, state: dict[str, Any]) -> None:
        B = self.num_envs
        if len(state["history"]) != B:
            raise CheckpointError(f"cannot restore the games: expected {B} slots, the checkpoint has {len(state['history'])}")
        self.base_seed = state["base_seed"]
        self.engines = [None] * B
        self.history = [[] for _ in range(B)]
        self.ended = {}
        for i in range(B):
            self._new(i, int(state["seeds"][i]))
            for a in state["history"][i].tolist():
                self.engines[i].step(int(a))
            self.history[i] = [int(a) for a in state["history"][i].tolist()]
        self.game_index = state["game_index"].copy()


def has_batched_engine(game: str) -> bool:
    """Whether ``fiveplay_env.vector.REGISTRY`` has a batched engine for ``game``."""
    from fiveplay_env import vector

    return game in vector.REGISTRY


def resolve_backend(game: str, backend: str = "auto", engine_agents: Sequence[str] = ()) -> str:
    """``"batched"`` or ``"reference"``: the vector env ``make_training_env`` builds for ``backend``
    ("auto": batched when registered, else reference) when the games seat the agents ``engine_agents``
    (names of agents with ``uses_engine``, which play on the reference loop only: "auto" picks it,
    "batched" is a ``ValueError`` naming the agent)."""
    if backend not in ("auto", "batched", "reference"):
        raise ValueError(f"backend: expected one of ['auto', 'batched', 'reference'], got {backend!r}")
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
        raise ValueError(f"compact_obs: expected the batched engine (backend 'batched' or 'auto' for take5), "
                         f"got backend {backend!r} for {game!r}")
    return LoopVecEnv(game, num_envs, seed, **config)


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

    Take 5: ``final_scores`` (bull heads), the lowest score wins, ties share. 5 Alive: lives left and
    the engine's win shares (``final_win``) when given; otherwise the winner is read off the finished
    game's ``returns`` (win/loss rewards: the one positive return)."""
    fs = np.asarray(info["final_scores"])[idx].astype(np.float64)
    if "final_win" in info:
        return fs, np.asarray(info["final_win"])[idx].astype(np.float64)
    if game == "take5":
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
