"""Training settings, declared once: dataclass fields whose metadata (help, bounds, choices, command-line
form) generate ``experiments/train.py``'s options and this module's validation.

``TrainConfig`` holds what every algorithm's run shares (the game, the opponents, the budget, the seed, the
learning-rate schedule, the returns' discount, the network, the warm start); each algorithm extends it with
its own options (``fiveplay_env.agents.learned.algorithms.ppo.PPOConfig``, ``...expit.ExpitConfig``), as
RLlib's ``PPOConfig`` extends ``AlgorithmConfig``; ``OnPolicyConfig`` adds the collector's (games side by
side, rollout length, GAE, the snapshot pool) for the algorithms that learn from self-play rollouts. An
option a config does not declare is a ``ValueError`` naming it, the algorithm, and the algorithms that
have it (``check_option_names``): PPO's ``clip`` given to expert iteration is refused, not ignored.
A config is saved in checkpoints as one flat dict (``to_dict``; the algorithm's name beside it, under the
checkpoint's ``algo``) and rebuilt with ``fiveplay_env.agents.learned.algorithms.config_from_dict``.

A field is declared with ``option(default, help, ...)``:

| metadata     | meaning                                                                               |
|--------------|---------------------------------------------------------------------------------------|
| ``help``     | the option's help text, or a callable making it (the default is appended unless        |
|              | ``cli_default_text`` says otherwise)                                                  |
| ``lo``, ``hi`` | an int field: ``>= lo``; a float field: in ``[lo, hi]`` (``(lo, hi]`` with ``open_lo``) |
| ``choices``  | the allowed values (or a callable returning them, evaluated when the parser is built) |
| ``group``    | the option group of ``--help``                                                        |
| ``cli``      | how the command line spells it: ``nargs``, ``metavar``, ``default`` (the value when the |
|              | option is not given, if it differs from the field's), ``parse`` (command-line value -> |
|              | field value, given the other resolved options)                                        |

``parse_opponents`` turns ``NAME[@WEIGHT]`` items into ``(name, weight)`` pairs.
"""
from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Sequence
from dataclasses import MISSING, Field, asdict, dataclass, field, fields
from typing import Any, ClassVar

from fiveplay_env.core.config import plain, show_value
from fiveplay_env.games import default_game

SPECIAL_KINDS = ("self", "pool")
"""Opponent kinds that are not agent names: the learner itself, and its past snapshots."""


def option(default: Any = MISSING, help: str | Callable[[], str] = "", *, lo: float | None = None,
           hi: float | None = None, open_lo: bool = False,
           choices: Sequence[Any] | Callable[[], Sequence[Any]] | None = None,
           group: str = "training", nargs: str | None = None, metavar: str | None = None,
           cli_default: Any = MISSING, cli_default_text: str | None = None,
           parse: Callable[[Any, dict[str, Any]], Any] | None = None, flag: bool = False,
           boolean_optional: bool = False) -> Any:
    """A dataclass field with the metadata of the module docstring (``flag``: a ``--name`` switch
    meaning True; ``boolean_optional``: ``--name`` / ``--no-name``)."""
    meta = {"help": help, "lo": lo, "hi": hi, "open_lo": open_lo, "choices": choices, "group": group,
            "cli": {"nargs": nargs, "metavar": metavar, "default": cli_default, "default_text": cli_default_text,
                    "parse": parse, "flag": flag, "boolean_optional": boolean_optional}}
    if isinstance(default, (list, dict)):
        return field(default_factory=lambda: type(default)(default), metadata=meta)
    return field(default=default, metadata=meta)


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


def default_opponents(game: str) -> list[str]:
    """The opponents of a run that names none: the game's best heuristic (weight 2), self-play, the pool."""
    from fiveplay_env.agents.learned.defaults import best_heuristic

    return [f"{best_heuristic(game)}@2", "self", "pool"]


def _game_names() -> list[str]:
    from fiveplay_env.agents.games import GAMES

    return list(GAMES)


def _arch_names() -> list[str]:
    from fiveplay_env.agents.learned.nets import ARCHS

    return sorted(ARCHS)


def _by_game(what: str) -> str:
    """``"1.0 for take5, 0.995 for five_alive"``: a per-game default (``fiveplay_env.agents.learned.defaults``) in words."""
    from fiveplay_env.agents.learned.defaults import default_arch, game_defaults

    value = (lambda g: default_arch(g)) if what == "arch" else (lambda g: game_defaults(g, {})[what])
    return ", ".join(f"{value(g)} for {g}" for g in _game_names())


def _parse_config(value: Any, resolved: dict[str, Any]) -> dict[str, Any]:
    from fiveplay_env.agents.games import parse_config

    return parse_config(value or [])


GAME_GROUP = "game and opponents"
LEGACY_SHARED = ("num_envs", "rollout_steps", "gae_lambda", "snapshot_interval", "pool_size")
"""Options every algorithm's config held before the learner seam (expert iteration ignored them); now the on-policy
algorithms' (``fiveplay_env.agents.learned.onpolicy.OnPolicyConfig``)."""


def algorithm_configs() -> list[type["TrainConfig"]]:
    """The config classes of the algorithms imported so far (every subclass of ``TrainConfig`` naming an
    ``algo``)."""
    out, todo = [], list(TrainConfig.__subclasses__())
    while todo:
        c = todo.pop()
        todo.extend(c.__subclasses__())
        if c.algo:
            out.append(c)
    return out


def check_option_names(cls: type["TrainConfig"], names: Sequence[str]) -> None:
    """``ValueError`` naming the first of ``names`` that is not a field of ``cls``, the algorithm it was given
    to, and the algorithms that have it (an option of PPO given to expert iteration, or the reverse)."""
    known = {f.name for f in fields(cls)}
    for name in names:
        if name in known:
            continue
        owners = sorted({c.algo for c in algorithm_configs() if c.algo != cls.algo
                         and name in {f.name for f in fields(c)}})
        where = f"algorithm {cls.algo!r}" if cls.algo else f"{cls.__name__} (the options every algorithm shares)"
        theirs = f" (it is an option of {', '.join(repr(o) for o in owners)})" if owners else ""
        raise ValueError(f"{name}: not an option of {where}{theirs}; expected one of {sorted(known)}")


@dataclass
class TrainConfig:
    """What defines a training run, for every algorithm (saved in checkpoints; see ``experiments/train.py``).

    ``gamma``, ``reward_scale`` and ``arch`` left None take the game's defaults
    (``fiveplay_env.agents.learned.defaults``); a bad value raises ``ValueError`` naming the field.
    """

    algo: ClassVar[str] = ""
    """The algorithm's name in ``fiveplay_env.agents.learned.algorithms.ALGORITHMS`` (set by each algorithm's config)."""

    game: str = option(default_game(), "the game", choices=_game_names, group=GAME_GROUP)
    config: dict[str, Any] = option({}, "game config fields, e.g. num_players=4 mode=round", group=GAME_GROUP,
                                    nargs="*", metavar="FIELD=VALUE", cli_default=[], cli_default_text="",
                                    parse=_parse_config)
    opponents: list[tuple[str, float]] | None = option(
        None, "opponent kinds with weights: self, pool, or agent names (default: the game's best heuristic@2 "
              "self pool)", group=GAME_GROUP, nargs="+", metavar="NAME[@W]", cli_default_text="",
        parse=lambda v, a: parse_opponents(v) if v else None)
    total_decisions: int = option(200_000, "learner decisions to train on (with --max-minutes: a cap only when "
                                           "given, the time is the budget)", lo=1, metavar="N")
    seed: int = option(0, "run seed", lo=0)
    lr: float = option(3e-4, "Adam learning rate", lo=0.0, hi=1.0, open_lo=True)
    lr_schedule: str = option("linear", "learning-rate schedule", choices=("constant", "linear"),
                              cli_default_text="(default linear decay)")
    gamma: float | None = option(None, lambda: f"discount (default: the game's: {_by_game('gamma')})", lo=0.0, hi=1.0,
                                 cli_default_text="")
    reward_scale: float | None = option(None, lambda: f"reward multiplier (default: the game's: "
                                                      f"{_by_game('reward_scale')})",
                                        lo=0.0, hi=1e9, open_lo=True, cli_default_text="")
    win_reward: float = option(0.0, "win option of the reward: at a game's end each seat also gets W * (win share "
                                    "- 1/n) (default 0: the game's own rewards only)", lo=0.0, hi=1e9, metavar="W",
                               cli_default_text="")
    arch: str | None = option(None, lambda: f"network (default: the game's: {_by_game('arch')})", choices=_arch_names,
                              cli_default_text="")
    # was 256x256: the 892-wide first layer was most of the update; equal curves at equal time
    hidden: tuple[int, ...] = option((128, 128), "trunk layer sizes", nargs="+", metavar="H",
                                     cli_default=[128, 128], cli_default_text="(default 128 128)")
    backend: str = option("auto", "vector env: the batched engine, a loop over reference engines, auto (default), or "
                                  "jax: the rollouts compiled on the game's JAX engine with the policy and the "
                                  "opponents inside (fiveplay_env.agents.learned.jax; the jax extra)",
                          choices=("auto", "batched", "reference", "jax"), group=GAME_GROUP, cli_default_text="")
    compact_obs: bool = option(False, "games that declare a compact observation (Take 5; GameDef.compact): collect "
                                      "it (uint8) and decode it in torch (21x less rollout memory at 4 players; the "
                                      "same training)",
                               group=GAME_GROUP, flag=True, cli_default_text="")

    sparse_input: bool = option(False, "compute the trunk's first layer from the observation's nonzero entries only "
                                       "(an embedding bag: the same network and checkpoints; measured slower than the "
                                       "dense product on a CPU, docs/training.md)", flag=True, cli_default_text="")

    init_from: str | None = option(None, "warm start: a fresh run's network starts from this policy's weights instead of "
                                         "a random initialisation: pretrained:NAME, ckpt:PATH or a checkpoint file or "
                                         "run folder (same game, observation size, actions and network; the optimizer, "
                                         "pool and games start fresh; a resumed run keeps its own weights)",
                                   metavar="POLICY", cli_default_text="(default none: random initialisation)")

    def __new__(cls, *args: Any, **kwargs: Any) -> "TrainConfig":
        check_option_names(cls, kwargs)  # an option of another algorithm is an error, not silently ignored
        return super().__new__(cls)

    @classmethod
    def opponents_by_default(cls, game: str) -> list[str]:
        """The opponents of a run that names none (``opponents=None``): the game's best heuristic (weight 2),
        self-play and the pool (an algorithm may say otherwise)."""
        return default_opponents(game)

    def __post_init__(self) -> None:
        from fiveplay_env.agents.learned.defaults import default_arch, game_defaults

        if self.opponents is None:
            self.opponents = parse_opponents(type(self).opponents_by_default(self.game))

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
        """``ValueError`` naming the first bad field (bounds and fixed choices from the fields' metadata; the
        game, its config and the network are checked where they are built)."""
        from fiveplay_env.agents.learned.defaults import check_compact_obs

        for f in fields(self):
            lo, hi, choices = f.metadata.get("lo"), f.metadata.get("hi"), f.metadata.get("choices")
            v = getattr(self, f.name)
            if choices is not None and not callable(choices) and v not in choices:
                raise ValueError(f"{f.name}: expected one of {list(choices)}, got {v!r}")
            if lo is None:
                continue
            if f.type in ("int", int):
                if hi is not None and (isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi):
                    raise ValueError(f"{f.name}: expected an integer in {lo}..{hi:,} (at most {hi:,}), got "
                                     f"{show_value(v)}")
                if isinstance(v, bool) or not isinstance(v, int) or v < lo:
                    raise ValueError(f"{f.name}: expected an integer >= {lo}, got {v!r}")
                continue
            open_lo = f.metadata["open_lo"]
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not (lo <= v <= hi) or (open_lo and v <= lo):
                raise ValueError(f"{f.name}: expected a number in {'(' if open_lo else '['}{lo}, {hi}], got {v!r}")
        if not isinstance(self.compact_obs, bool):
            raise ValueError(f"compact_obs: expected True or False, got {self.compact_obs!r}")
        if self.compact_obs:
            check_compact_obs(self.game, self.config)
        if not self.opponents:
            raise ValueError("opponents: expected at least one opponent kind (self, pool or an agent name)")
        for name, w in self.opponents:
            if not (w > 0 and math.isfinite(w)):
                raise ValueError(f"opponents: expected a positive weight for {name!r}, got {w}")
        if self.init_from is not None and (not isinstance(self.init_from, str) or not self.init_from.strip()):
            raise ValueError(f"init_from: expected pretrained:NAME, ckpt:PATH or a checkpoint path, got {self.init_from!r}")
        if not self.hidden or any(h < 1 for h in self.hidden):
            raise ValueError(f"hidden: expected one or more layer sizes >= 1, got {list(self.hidden)}")

    def to_dict(self) -> dict[str, Any]:
        """The config as plain data (what checkpoints hold under ``train_config``); ``cls(**d)`` rebuilds it."""
        d = asdict(self)
        d["hidden"] = list(self.hidden)
        d["opponents"] = [[n, w] for n, w in self.opponents]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "TrainConfig":
        """The config ``to_dict`` gave (a checkpoint's ``train_config``). The rollout options every config held
        before they became the on-policy algorithms' own (``LEGACY_SHARED``) are dropped from an older
        checkpoint's dict when ``cls`` has no such field; any other unknown key is a ``ValueError``."""
        own = {f.name for f in fields(cls)}
        d = {k: v for k, v in d.items() if k in own or k not in LEGACY_SHARED}
        d["opponents"] = [(n, w) for n, w in d["opponents"]]
        d["hidden"] = tuple(d["hidden"])
        return cls(**d)

    @classmethod
    def own_fields(cls) -> list[Field]:
        """The fields ``cls`` adds to ``TrainConfig`` (an algorithm's hyperparameters)."""
        base = {f.name for f in fields(TrainConfig)}
        return [f for f in fields(cls) if f.name not in base]


ROLLOUT_GROUP = "rollouts (on-policy)"


@dataclass
class OnPolicyConfig(TrainConfig):
    """``TrainConfig`` plus the collector's options (``fiveplay_env.agents.learned.collector``): games side by
    side, rollout length, GAE, the pool. The on-policy algorithms' configs (``PPOConfig``) extend it; the
    learner that reads them is ``fiveplay_env.agents.learned.onpolicy.OnPolicyLearner``."""

    # 512 x 32 steps, 2 epochs of 2,048-sample minibatches (round 1: 256, 4 epochs, 1,024): twice the
    # experience per update for the same number of gradient steps per update; on 2 CPU cores 1.8x (Take 5)
    # and 2.2x (5 Alive) the decisions per second, and a 30-minute Take 5 curve at least as good
    num_envs: int = option(512, "games played side by side", lo=1, metavar="B", group=ROLLOUT_GROUP)
    rollout_steps: int = option(32, "vector-env steps per rollout", lo=1, metavar="T", group=ROLLOUT_GROUP)
    gae_lambda: float = option(0.95, "GAE lambda", lo=0.0, hi=1.0, group=ROLLOUT_GROUP)
    snapshot_interval: int = option(10, "updates between pool snapshots", lo=1, metavar="U", group=ROLLOUT_GROUP)
    pool_size: int = option(8, "snapshots kept in the pool", lo=1, group=ROLLOUT_GROUP)


# --- the command line --------------------------------------------------------------------------------------

def cli_default(f: Field) -> Any:
    """The value a field takes when its option is not given on the command line."""
    d = f.metadata["cli"]["default"]
    if d is not MISSING:
        return d
    if f.default is not MISSING:
        return list(f.default) if isinstance(f.default, tuple) else f.default
    return f.default_factory()  # type: ignore[misc]


def cli_defaults(cls: type[TrainConfig]) -> dict[str, Any]:
    """``{field name: its command-line default}`` of every field of ``cls``."""
    return {f.name: cli_default(f) for f in fields(cls)}


def add_options(parser: argparse.ArgumentParser, specs: Sequence[Field],
                groups: dict[str, argparse._ArgumentGroup] | None = None) -> dict[str, argparse._ArgumentGroup]:
    """Add one ``--name`` option per field of ``specs`` (``option`` metadata) to ``parser``, in option
    groups named by the fields' ``group``; every option's argparse default is None (not given), the
    real default being ``cli_default``. Returns the groups (to add more to)."""
    groups = {} if groups is None else groups
    for f in specs:
        meta, cli = f.metadata, f.metadata["cli"]
        group = groups.get(meta["group"])
        if group is None:
            group = groups[meta["group"]] = parser.add_argument_group(meta["group"])
        help_text = meta["help"]() if callable(meta["help"]) else meta["help"]
        text = cli["default_text"]
        if text is None:
            text = f"(default {cli_default(f)})"
        if text:
            help_text = f"{help_text} {text}"
        flag = "--" + f.name.replace("_", "-")
        kw: dict[str, Any] = {"help": help_text}
        if cli["flag"]:
            group.add_argument(flag, action="store_const", const=True, **kw)
            continue
        if cli["boolean_optional"]:
            group.add_argument(flag, action=argparse.BooleanOptionalAction, default=None, **kw)
            continue
        choices = meta["choices"]
        if choices is not None:
            kw["choices"] = list(choices() if callable(choices) else choices)
        if cli["nargs"]:
            kw["nargs"] = cli["nargs"]
        if cli["metavar"]:
            kw["metavar"] = cli["metavar"]
        kind = _element_type(f)
        if kind is not None and "choices" not in kw:
            kw["type"] = kind
        group.add_argument(flag, **kw)
    return groups


def _element_type(f: Field) -> type | None:
    """The argparse ``type`` of a field (of its items for ``nargs``); None: a string."""
    t = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
    t = t.replace(" ", "")
    if t.startswith("tuple[int") or t in ("int", "int|None"):
        return int
    if t in ("float", "float|None"):
        return float
    return None


def from_cli(cls: type[TrainConfig], resolved: dict[str, Any]) -> TrainConfig:
    """The config of ``cls`` from resolved command-line values (``{name: value}``, every field present,
    in their command-line form: see ``option``'s ``parse``)."""
    values = {}
    for f in fields(cls):
        v = resolved[f.name]
        parse = f.metadata["cli"]["parse"]
        if parse is not None:
            v = parse(v, resolved)
        elif f.metadata["cli"]["flag"]:
            v = bool(v)
        elif isinstance(v, list):
            v = tuple(v)
        values[f.name] = v
    return cls(**values)
