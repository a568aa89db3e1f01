"""Agents that need the engine (``uses_engine``: the search agent) as training opponents and baselines.

The collector (``fiveplay_env.agents.learned.collector``) and ``evaluate`` (``fiveplay_env.agents.learned.evaluation``) call
ordinary opponents once per step on a batch of observations (``act_batch``). An agent with
``uses_engine = True`` (``ismcts:...``) instead decides one game at a time: it reads the game's reference
engine through ``observe_engine(engine, seat)`` (only through an ``InformationSet``: ``fiveplay_env.agents.base``) and
keeps per-game memory (5 Alive: its beliefs about the hidden hands). So it plays only on ``LoopVecEnv``
(the vector API's reference backend: one reference engine per slot; the trainer picks it for
``backend="auto"``, ``envs.resolve_backend``), and ``EngineSeats`` seats one instance per (opponent
kind, slot, seat), made by the ``make_agent`` resolver it is given (the registry's ``make_agent``: this
module does not import the registry), and drives them exactly as ``fiveplay_env.agents.arena.play_game`` drives
search agents:

| when                                  | call                                                          |
|---------------------------------------|---------------------------------------------------------------|
| a game starts in a slot (``start``)   | each seated agent: ``reset(seed)``, then ``observe_engine(engine, seat)`` |
| before each decision of one (``act``) | ``observe_engine(engine, seat)``, then ``act(observation, mask)`` |
| after every step (``after_step``)     | every seated agent of every slot: ``observe_engine(engine, seat)``; a slot whose game that |
|                                       | step finished: the finished game's engine (``LoopVecEnv.ended``), then its seats are cleared |

An agent only ever receives the engine of its own slot's current game, with its own seat.

Seeds: a seated agent is reset for each game with ``seat_seed(base, game, seat, n)`` =
``derive(base, game * n + seat)``: the trainer uses the kind's agent seed ``derive(run seed, 100 + kind)``
as ``base`` and the slot's game counter (``LoopVecEnv.game_index``: unique per game of the run) as
``game``; ``evaluate`` its baseline seed and the evaluation game's number. Runs are reproducible
(``sims=`` budgets; a ``time=`` budget depends on the machine's speed) and every game is reproducible on
its own: ``play_game`` with agents reset to the same seeds plays it again.

Checkpoints (``state`` / ``load_state``): the seated agents' ``get_state()`` (the search agent: seed,
generator state, per-game memory), restored into fresh instances after the games in progress have been
replayed into the env, so a resumed run continues exactly as the uninterrupted one. An engine-using agent
whose ``get_state()`` is None cannot be saved that way: its checkpoint is marked so, and resuming it
raises ``CheckpointError`` (the policy in it still loads).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from fiveplay_env.core import seeding
from fiveplay_env.core.config import plain
from fiveplay_env.core.errors import CheckpointError


def seat_seed(base: int, game: int, seat: int, num_players: int) -> int:
    """The seed of the agent in ``seat`` for game number ``game`` of a run whose agent seed is ``base``."""
    return seeding.derive(int(base), int(game) * int(num_players) + int(seat))


def engine_agent_names(game: str, names: Iterable[str], make_agent: Callable[..., Any]) -> list[str]:
    """Those of the agent ``names`` (registry names, made with ``make_agent``; ``self`` and ``pool`` are
    skipped) whose agents need the engine (``uses_engine``), in order."""
    from fiveplay_env.agents.learned.config import SPECIAL_KINDS

    return [name for name in names if name not in SPECIAL_KINDS and make_agent(name, game, seed=0).uses_engine]


class EngineSeats:
    """Engine-using agents seated in the games of ``env`` (a ``LoopVecEnv``); see the module docstring.

    ``names`` maps an opponent kind (the caller's index) to the registry name of its agent;
    ``make_agent(name, game, seed=...)`` makes one (``fiveplay_env.agents.registry.make_agent``).
    """

    def __init__(self, env: Any, game: str, names: dict[int, str], make_agent: Callable[..., Any]) -> None:
        from fiveplay_env.vector import LoopVecEnv

        if not isinstance(env, LoopVecEnv):
            raise ValueError(f"engine seats: expected the reference-engine loop (LoopVecEnv) for agents "
                             f"{sorted(names.values())} that use the engine, got {type(env).__name__}")
        self.env = env
        self.game = game
        self.names = dict(names)
        self.make_agent = make_agent
        self._agents: dict[tuple[int, int, int], Any] = {}
        self.seated: list[dict[int, Any]] = [{} for _ in range(env.num_envs)]
        """Per slot, the seated agents of its game in progress ({seat: agent}; empty: none)."""
        self.kind = np.full(env.num_envs, -1, np.int64)

    def agent(self, kind: int, slot: int, seat: int) -> Any:
        """The agent instance of ``kind`` for (``slot``, ``seat``), made on first use."""
        key = (int(kind), int(slot), int(seat))
        a = self._agents.get(key)
        if a is None:
            a = self.make_agent(self.names[key[0]], self.game, seed=0)
            self._agents[key] = a
        return a

    def start(self, slot: int, kind: int, seats: Sequence[int], seeds: Sequence[int]) -> None:
        """A new game in ``slot``: ``kind``'s agents in ``seats``, reset with ``seeds``, each shown its
        seat of the new game."""
        engine = self.env.engines[slot]
        seated = {}
        for s, sd in zip(seats, seeds):
            a = self.agent(kind, slot, s)
            a.reset(seed=int(sd))
            seated[int(s)] = a
        self.seated[slot] = seated
        self.kind[slot] = kind
        for s, a in seated.items():
            a.observe_engine(engine, s)

    def clear(self, slot: int) -> None:
        """No engine-using agent in ``slot``'s game."""
        self.seated[slot] = {}
        self.kind[slot] = -1

    def act(self, slots: np.ndarray, players: np.ndarray, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """int64 [m]: the decision of the agent seated in ``players[j]`` of slot ``slots[j]``, given its
        observation and mask (the env's rows of those slots)."""
        out = np.empty(len(slots), np.int64)
        engines = self.env.engines
        for j, (i, p) in enumerate(zip(slots.tolist(), players.tolist())):
            a = self.seated[i].get(p)
            if a is None:
                raise ValueError(f"engine seats: expected an engine-using agent in seat {p} of slot {i}, "
                                 f"got none (seated: {sorted(self.seated[i])})")
            a.observe_engine(engines[i], p)
            out[j] = a.act(observations[j], masks[j])
        return out

    def after_step(self, terminated: np.ndarray) -> None:
        """Every seated agent follows the step the env just took (see the module docstring)."""
        env = self.env
        for i, seated in enumerate(self.seated):
            if not seated:
                continue
            done = bool(terminated[i])
            engine = env.ended[i] if done else env.engines[i]
            for s, a in seated.items():
                a.observe_engine(engine, s)
            if done:
                self.clear(i)

    # --- checkpoints ----------------------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """The seated agents' states (plain data) per slot; ``resumable`` False (with the ``reason``) when
        an agent's ``get_state()`` is None."""
        slots: list[dict[str, Any]] = []
        reason = None
        for i, seated in enumerate(self.seated):
            if not seated:
                continue
            states = []
            for s, a in sorted(seated.items()):
                st = a.get_state()
                if st is None and reason is None:
                    reason = (f"opponent {self.names[int(self.kind[i])]!r} uses the engine and cannot save its "
                              f"per-game state (its get_state() is None)")
                states.append(plain(st))
            slots.append({"slot": i, "kind": int(self.kind[i]), "seats": sorted(seated), "states": states})
        return {"resumable": reason is None, "reason": reason, "slots": slots}

    def load_state(self, saved: dict[str, Any] | None, expected: dict[int, tuple[int, list[int]]], where: str) -> None:
        """Seat the agents of ``saved`` (from ``state``) again, with their saved states; ``expected``
        ({slot: (kind, seats)}) is where the caller's own restored state says they sit.
        ``CheckpointError`` if the checkpoint cannot resume them exactly."""
        if saved is None:
            raise CheckpointError(f"checkpoint {where}: holds no state of the engine-using opponents "
                                  f"{sorted(set(self.names.values()))}: it cannot be resumed exactly")
        if not saved["resumable"]:
            raise CheckpointError(f"checkpoint {where}: cannot be resumed exactly: {saved['reason']}; start a new "
                                  f"run (its policy still loads as ckpt:)")
        got = {int(e["slot"]): (int(e["kind"]), [int(s) for s in e["seats"]]) for e in saved["slots"]}
        if got != expected:
            raise CheckpointError(f"checkpoint {where}: the engine-using opponents' seats do not match the games "
                                  f"in progress: it cannot be resumed exactly")
        for i in range(len(self.seated)):
            self.clear(i)
        for e in saved["slots"]:
            i, k = int(e["slot"]), int(e["kind"])
            seated = {}
            for s, st in zip(e["seats"], e["states"]):
                a = self.agent(k, i, int(s))
                a.set_state(st)
                seated[int(s)] = a
            self.seated[i] = seated
            self.kind[i] = k
