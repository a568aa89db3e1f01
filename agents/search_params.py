"""The search agent's options as a validated, frozen dataclass: ``SearchParams`` (``ismcts:KEY=VALUE,...``,
``fiveplay_env.agents.search``; ``bsearch:...``, the retired batched search's name, is an alias kept for one
release).

Every field is checked on construction (a bad value raises ``ValueError`` naming the key and what was
expected) and normalised (numbers to ``int``/``float``, a bare prior name to ``pretrained:NAME``);
``parse("sims=200,eps=0.1")`` builds one from the text of an agent name. The meaning of each key is in
``fiveplay_env.agents.search``'s docstring.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

MAX_SIMS = 100_000
"""The largest ``sims`` budget per decision (memory: ``alloc=ucb`` keeps a world per pull of its most pulled
action, a few kB each)."""
MAX_TIME = 3600.0
"""The largest ``time`` budget per decision (seconds)."""
MAX_DEPTH = 1000
"""The largest ``depth`` (rollout length in tricks or turns; larger is the end of the round anyway)."""
MAX_TOPK = 256
"""The largest ``topk`` (no game here has more actions)."""
MAX_WORLDS = 100_000
"""The largest ``worlds`` budget (worlds per candidate)."""


def shown(v: Any) -> str:
    """A number as an error message shows it (a huge integer by its size only)."""
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool) and int(v).bit_length() > 64:
        return f"an integer of {int(v).bit_length()} bits"
    return repr(v)


def _is_int(v: Any) -> bool:
    return not isinstance(v, bool) and isinstance(v, (int, np.integer))


def _is_number(v: Any) -> bool:
    return not isinstance(v, bool) and isinstance(v, (int, float))


@dataclass(frozen=True)
class SearchParams:
    """The search agent's options (see ``fiveplay_env.agents.search``); validated and normalised on construction."""

    KEYS: ClassVar[tuple[str, ...]] = ("sims", "time", "alloc", "c", "eps", "rollout", "rel", "model", "win",
                                       "depth", "alpha", "insure", "prior", "topk", "cpuct", "value", "worlds",
                                       "backend", "tree")
    TEXT_KEYS: ClassVar[tuple[str, ...]] = ("alloc", "rollout", "model", "prior", "backend")
    INT_KEYS: ClassVar[tuple[str, ...]] = ("sims", "depth", "topk", "worlds", "tree")
    PREFIX: ClassVar[str] = "search option"

    sims: int | None = None
    time: float | None = None
    alloc: str = "halving"
    c: float = 0.7
    eps: float = 0.1
    rollout: str = "heuristic"
    rel: float = 1.0
    model: str = "heuristic"
    win: float = 0.0
    depth: int = 0
    alpha: float = 0.0
    insure: bool = True
    prior: str | None = None
    topk: int = 0
    cpuct: float = 0.0
    value: bool = False
    worlds: int | None = None
    backend: str = "auto"
    tree: int = 0

    def _set(self, **values: Any) -> None:
        for k, v in values.items():
            object.__setattr__(self, k, v)

    def __post_init__(self) -> None:
        sims, time, worlds = self.sims, self.time, self.worlds
        if worlds is not None:
            if not _is_int(worlds) or not 1 <= worlds <= MAX_WORLDS:
                raise ValueError(f"worlds: expected an integer in 1..{MAX_WORLDS}, got {shown(worlds)}")
            if sims is not None or time is not None:
                raise ValueError(f"search budget: expected one of worlds, sims or time, got worlds={worlds!r} "
                                 f"with sims={sims!r}, time={time!r}")
        elif sims is None and time is None:
            sims = 200
        if sims is not None and time is not None:
            raise ValueError(f"search budget: expected sims or time, not both, got sims={sims!r} and time={time!r}")
        if sims is not None and (not _is_int(sims) or not 1 <= sims <= MAX_SIMS):
            raise ValueError(f"sims: expected an integer in 1..{MAX_SIMS}, got {shown(sims)}")
        if time is not None and (not _is_number(time) or not 0 < time <= MAX_TIME):
            raise ValueError(f"time: expected a number of seconds > 0 and at most {MAX_TIME:g}, got {shown(time)}")
        if self.backend not in ("auto", "compiled", "python"):
            raise ValueError(f"backend: expected 'auto', 'compiled' or 'python', got {self.backend!r}")
        if self.backend == "compiled" and self.rollout == "policy":
            raise ValueError("backend=compiled: the policy's rollouts run its network in Python; expected "
                             "backend=auto or python with rollout=policy")
        if self.tree not in (0, 1) or isinstance(self.tree, bool):
            raise ValueError(f"tree: expected 0 or 1 (1: an open-loop node over the searcher's next card), "
                             f"got {shown(self.tree)}")
        if self.tree and self.backend == "python":
            raise ValueError("backend=python: the open-loop node (tree=1) runs in compiled code only; expected "
                             "backend=auto or compiled with tree=1")
        if self.tree and self.rollout == "policy":
            raise ValueError("tree=1: expected a compiled rollout (heuristic, strong, random or net), not "
                             "rollout=policy")
        if self.alloc not in ("halving", "ucb"):
            raise ValueError(f"alloc: expected 'halving' or 'ucb', got {self.alloc!r}")
        if self.rollout not in ("heuristic", "strong", "random", "policy", "net"):
            raise ValueError(f"rollout: expected 'heuristic', 'strong', 'random', 'policy' or 'net', "
                             f"got {self.rollout!r}")
        if self.backend == "python" and self.rollout == "net":
            raise ValueError("backend=python: the rollout network (rollout=net) runs in compiled code only; "
                             "expected backend=auto or compiled with rollout=net")
        if self.model not in ("heuristic", "none"):
            raise ValueError(f"model: expected 'heuristic' or 'none', got {self.model!r}")
        for key, lo, hi in (("c", 0.0, 100.0), ("eps", 0.0, 1.0), ("rel", 0.0, 10.0), ("win", 0.0, 1000.0),
                            ("alpha", 0.0, 10.0)):
            v = getattr(self, key)
            if not _is_number(v) or not lo <= v <= hi:
                raise ValueError(f"{key}: expected a number in {lo}..{hi}, got {v!r}")
        depth = self.depth
        if not _is_int(depth) or not 0 <= depth <= MAX_DEPTH:
            raise ValueError(f"depth: expected an integer in 0..{MAX_DEPTH} (0: to the end of the round), "
                             f"got {shown(depth)}")
        if self.insure not in (0, 1):
            raise ValueError(f"insure: expected 0 or 1, got {self.insure!r}")
        prior = self.prior
        if prior is not None and (not isinstance(prior, str) or not prior.strip()):
            raise ValueError(f"prior: expected a policy name (pretrained:NAME, ckpt:PATH or NAME), got {prior!r}")
        topk, cpuct = self.topk, self.cpuct
        if not _is_int(topk) or not 0 <= topk <= MAX_TOPK:
            raise ValueError(f"topk: expected an integer in 0..{MAX_TOPK} (0: every legal action), got {shown(topk)}")
        if not _is_number(cpuct) or not 0.0 <= cpuct <= 100.0:
            raise ValueError(f"cpuct: expected a number in 0.0..100.0, got {cpuct!r}")
        if prior is None and (topk or cpuct):
            raise ValueError("topk, cpuct: expected a prior=POLICY to go with them")
        if prior is None and self.rollout == "policy":
            raise ValueError("rollout=policy: expected a prior=POLICY to play the rollouts with")
        value = self.value
        if not (isinstance(value, bool) or _is_number(value)) or value not in (0, 1):
            raise ValueError(f"value: expected 0 or 1, got {value!r}")
        if value and (self.rollout != "policy" or not depth):
            raise ValueError(f"value=1: expected rollout=policy and a depth=D >= 1 (the value head scores the "
                             f"rollout cut off after D tricks in Take 5, at the searcher's D-th next decision in "
                             f"5 Alive), got rollout={self.rollout!r}, depth={depth!r}")
        if cpuct and self.alloc != "ucb":
            raise ValueError(f"cpuct: PUCT needs alloc=ucb, got alloc={self.alloc!r}")
        self._set(sims=None if sims is None else int(sims), time=None if time is None else float(time),
                  c=float(self.c), eps=1.0 if self.rollout == "random" else float(self.eps), rel=float(self.rel),
                  win=float(self.win), alpha=float(self.alpha), depth=int(depth), insure=bool(self.insure),
                  prior=None if prior is None else (prior.strip() if ":" in prior else f"pretrained:{prior.strip()}"),
                  topk=int(topk), cpuct=float(cpuct), value=bool(value),
                  worlds=None if worlds is None else int(worlds), tree=int(self.tree))

    def replace(self, **changes: Any) -> "SearchParams":
        """A copy with ``changes``, validated again."""
        return dataclasses.replace(self, **changes)

    @classmethod
    def parse(cls, spec: str) -> "SearchParams":
        """``"sims=200,eps=0.1"`` -> params (``ValueError`` naming a bad or unknown key)."""
        kwargs: dict[str, Any] = {}
        for item in filter(None, (s.strip() for s in spec.split(","))):
            key, sep, raw = (s.strip() for s in item.partition("="))
            if not sep:
                raise ValueError(f"{cls.PREFIX}: expected 'key=value' with key in {list(cls.KEYS)}, got {item!r}")
            if key not in cls.KEYS:
                raise ValueError(f"{cls.PREFIX}: expected a key in {list(cls.KEYS)}, got {key!r}")
            if key in cls.TEXT_KEYS:
                kwargs[key] = raw
                continue
            try:
                kwargs[key] = int(raw) if key in cls.INT_KEYS else float(raw)
            except ValueError:
                raise ValueError(f"{key}: expected a number, got {raw!r}") from None
        return cls(**kwargs)


BatchSearchParams = SearchParams
"""The retired batched search's options (``bsearch:...``): now ``SearchParams`` itself (kept for one release)."""


__all__ = ["SearchParams", "BatchSearchParams", "MAX_SIMS", "MAX_TIME", "MAX_DEPTH", "MAX_TOPK", "MAX_WORLDS"]
