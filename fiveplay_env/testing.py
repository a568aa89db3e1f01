"""The contracts every game keeps, as library code a game's author can run (like Pgx's ``api_test`` and
PettingZoo's ``api_test``); no pytest needed.

    from fiveplay_env.testing import check_game
    check_game("take5")                                         # a registered game, each of its presets
    check_game(MY_GAME, configs={"small": {"num_players": 2}})   # a GameDef (registered if new)

``check_game`` runs every contract below on every config (``configs``, else the game's presets, else its
default config) and raises ``ContractError`` (an ``AssertionError``) naming the contract, the game and the
config at the first one broken; it returns a ``Result`` per contract and config, saying whether it ran or
why it does not apply. ``run_contract(name, game, config)`` runs one: the project's own tests
(``tests/contracts``) call it once per contract, game and preset, so a failure reads as its contract.

| group  | contract                    | scope  | what                                                      |
|--------|-----------------------------|--------|-----------------------------------------------------------|
| facts  | ``dynamics``                | game   | ``dynamics`` matches whether the env module has           |
|        |                             |        | ``parallel_env``                                          |
| facts  | ``preset_labels``           | game   | every preset has a label (``preset_label``), all distinct |
| facts  | ``reward_range``            | config | ``reward_range(config)`` bounds every reward of random    |
|        |                             |        | games, AEC and parallel (where declared)                  |
| env    | ``pettingzoo_api``          | config | PettingZoo's ``api_test`` and ``seed_test``               |
| env    | ``pettingzoo_parallel_api`` | config | ``parallel_api_test``; seeded parallel episodes repeat    |
|        |                             |        | (a simultaneous game)                                     |
| env    | ``spaces_and_masks``        | config | spaces cached and sized from the definition; float32      |
|        |                             |        | observations; only the acting agent has an int8 mask      |
| env    | ``illegal_action``          | config | ``IllegalActionError`` naming the agent and the legal     |
|        |                             |        | ids; nothing changes                                      |
| env    | ``seeded_episodes``         | config | ``reset(seed)`` reproduces a game; every episode ends     |
| env    | ``render``                  | game   | PettingZoo's ``render_test``; ``human`` prints            |
| env    | ``make_by_name``            | game   | ``make(name)``; a bad config value names the field        |
| engine | ``vector_equals_reference`` | config | ``make_vec`` (batched engine, reference loop) equals the  |
|        |                             |        | reference engine at every step                            |
| engine | ``records_round_trip``      | config | a record replays exactly and refuses an edit              |
| engine | ``determinization``         | game   | sampled worlds keep what the player sees                  |
| engine | ``batched_positions``       | config | reference positions loaded into the batched engine play   |
|        |                             |        | on as the reference; ``set_state`` and ``gather`` copies  |
| engine | ``batched_redeal``          | config | the batched ``redeal`` hides nothing the seat sees and    |
|        |                             |        | draws as ``sample_world`` (column means, 5 std errors)    |
| engine | ``jax_equals_reference``    | game   | ``make_vec(backend="jax")`` equals the reference engine   |
|        |                             |        | at every step (where jax is installed)                    |
| engine | ``compact_observation``     | config | ``compact_layout(config)`` decodes to the float           |
|        |                             |        | observation (where declared)                              |

A game-scope contract runs once, under the game's default config. Records, ``make`` and the vector API
find a game by name, so a ``GameDef`` not yet in ``fiveplay_env.games`` is registered first. Checks raise
``AssertionError`` explicitly (never a bare ``assert``, which ``python -O`` would drop).

One module of about 800 lines, on purpose: a game's author reads the whole suite top to bottom in one
place, and a package here (``fiveplay_env/testing/``) would be taken for a game's folder by the layer
rules of ``docs/architecture.md``.
"""
from __future__ import annotations

import contextlib
import copy
import io
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fiveplay_env import games, records
from fiveplay_env.core import seeding
from fiveplay_env.core.errors import IllegalActionError
from fiveplay_env.core.gamedef import GameDef
from fiveplay_env.vector import make_vec, random_actions

__all__ = ["CONTRACTS", "Contract", "ContractError", "GROUPS", "Result", "applies", "cases", "check_game",
           "contract_names", "game_def", "run_contract"]

GROUPS = ("facts", "env", "engine")
"""The contract groups, in the order ``check_game`` runs them (the cheap declared facts first)."""

SCOPES = ("config", "game")
"""``config``: once per config (preset); ``game``: once per game, under its default config."""

NUM_CYCLES = 300
"""Cycles of PettingZoo's ``api_test`` and ``parallel_api_test`` (its seed tests: 200)."""

MAX_STEPS = 200_000
"""Steps after which a random game that has not ended breaks the contract."""

MASK_STEPS = 60
"""Steps of a random game along which ``spaces_and_masks`` checks every agent's observation and mask."""

NUM_ENVS = 6
"""Games side by side in the vector contracts."""

VECTOR_STEPS = 300
"""Vector steps compared with the reference engines (finished games restart: several games per slot)."""

REWARD_GAMES = 3
"""Random games per env kind in which ``reward_range`` checks every step's rewards."""


# --- the table of contracts ----------------------------------------------------------------------------

class ContractError(AssertionError):
    """A contract a game does not keep. Attributes: ``contract``, ``game`` (its name), ``label`` (the
    config's preset name or label), ``config`` and ``detail`` (what was expected and what was found)."""

    def __init__(self, contract: str, game: str, label: str, config: Any, detail: str) -> None:
        self.contract, self.game, self.label, self.config, self.detail = contract, game, label, config, detail
        super().__init__(f"{game}: contract {contract!r} failed for config {label!r} ({config!r}): {detail}")


Applies = Callable[[GameDef, Any], "str | None"]
"""``(game, config) -> None`` when a contract applies, else the reason it does not."""

Check = Callable[[GameDef, Any, int], None]
"""``(game, config, seed) -> None``; raises ``AssertionError`` (or crashes) when the game breaks it."""


def _always(game: GameDef, config: Any) -> None:
    return None


@dataclass(frozen=True)
class Contract:
    """One contract: ``name``, ``group`` (``GROUPS``), ``scope`` (``SCOPES``), a one-line ``doc``, ``run``
    (``Check``) and ``applies`` (``Applies``)."""

    name: str
    group: str
    scope: str
    doc: str
    run: Check
    applies: Applies = _always


CONTRACTS: dict[str, Contract] = {}
"""Every contract by name, in the order they are defined below."""


def _contract(group: str, scope: str = "config", applies: Applies | None = None) -> Callable[[Check], Check]:
    """Register the decorated ``fn(game, config, seed)`` as the contract named after it."""
    def register(fn: Check) -> Check:
        doc = (fn.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
        CONTRACTS[fn.__name__] = Contract(fn.__name__, group, scope, doc, fn, applies or _always)
        return fn
    return register


def _expect(condition: Any, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def _raises(exc: type[Exception], call: Callable[[], Any], what: str, *, naming: str | None = None) -> Exception:
    """The ``exc`` that ``call()`` raises (``AssertionError`` if none, or if its message lacks ``naming``)."""
    try:
        call()
    except exc as e:
        _expect(naming is None or naming in str(e), f"{what} raised a {type(e).__name__} not naming {naming!r}: {e}")
        return e
    raise AssertionError(f"{what} raised no {exc.__name__}")


def _pick(mask: np.ndarray, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(mask)
    _expect(len(legal) > 0, "the acting player's action mask is empty")
    return int(legal[rng.integers(len(legal))])


def _env(game: GameDef, config: Any, **kw: Any) -> Any:
    return game.make_env(config=config, **kw)


def _play_aec(env: Any, rng: np.random.Generator, after_step: Callable[[int], None] | None = None) -> None:
    """Random legal play to the end of the episode (``after_step(step)`` after each step)."""
    for step, _agent in enumerate(env.agent_iter(max_iter=MAX_STEPS)):
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else _pick(obs["action_mask"], rng))
        if after_step is not None:
            after_step(step)
    _expect(env.agents == [], f"the episode did not end within {MAX_STEPS} steps (agents left: {env.agents})")


# --- declared facts ------------------------------------------------------------------------------------

@_contract("facts", scope="game")
def dynamics(game: GameDef, config: Any, seed: int) -> None:
    """``dynamics`` says what the env module holds: a ``parallel_env`` exactly for a simultaneous game."""
    has = hasattr(game.env, "parallel_env")
    _expect(game.parallel == has, f"dynamics is {game.dynamics!r} but the env module {game.env_module} "
            + ("has a parallel_env (declare dynamics='simultaneous')" if has else "has no parallel_env"))


@_contract("facts", scope="game")
def preset_labels(game: GameDef, config: Any, seed: int) -> None:
    """Every preset has a label people can read (``preset_label``), and no two presets share one."""
    labels = {name: game.preset_label(name) for name in game.presets}
    for name, label in labels.items():
        _expect(isinstance(label, str) and label.strip(), f"preset {name!r} has the label {label!r}")
    same = sorted(name for name, label in labels.items() if list(labels.values()).count(label) > 1)
    _expect(not same, f"presets {same} share a label: {[labels[n] for n in same]}")


def _has_reward_bounds(game: GameDef, config: Any) -> str | None:
    return None if game.reward_bounds is not None else "the game declares no reward bounds"


def _within(rewards: Mapping[str, float], low: float, high: float, where: str) -> None:
    for agent, r in rewards.items():
        _expect(low <= r <= high, f"{where}: {agent}'s reward {r} lies outside reward_range {(low, high)}")


@_contract("facts", applies=_has_reward_bounds)
def reward_range(game: GameDef, config: Any, seed: int) -> None:
    """``reward_range(config)`` is a finite ``(low, high)``, low <= high, that bounds every player's reward
    at every step of random games in the AEC env and, for a simultaneous game, in the parallel env."""
    bounds = game.reward_range(config)
    _expect(isinstance(bounds, tuple) and len(bounds) == 2, f"expected a (low, high) pair, got {bounds!r}")
    low, high = (float(b) for b in bounds)
    _expect(math.isfinite(low) and math.isfinite(high) and low <= high, f"expected finite low <= high, got {bounds}")
    rng = np.random.default_rng(seed)
    for g in range(REWARD_GAMES):
        env = _env(game, config)
        env.reset(seed=seed + 100 + g)
        _play_aec(env, rng, lambda step: _within(env.rewards, low, high, f"AEC game {g}, step {step}"))
        if not game.parallel:
            continue
        par = game.make_env(parallel=True, config=config)
        obs, _ = par.reset(seed=seed + 100 + g)
        for step in range(MAX_STEPS):
            if not par.agents:
                break
            obs, rewards, *_ = par.step({a: _pick(obs[a]["action_mask"], rng) for a in par.agents})
            _within(rewards, low, high, f"parallel game {g}, step {step}")
        _expect(not par.agents, f"a parallel game did not end within {MAX_STEPS} steps")


# --- environments --------------------------------------------------------------------------------------

def _needs_parallel(game: GameDef, config: Any) -> str | None:
    return None if game.parallel else "a sequential game has no parallel env"


@_contract("env")
def pettingzoo_api(game: GameDef, config: Any, seed: int) -> None:
    """PettingZoo's own ``api_test`` and ``seed_test`` pass on the AEC env."""
    from pettingzoo.test import api_test, seed_test

    api_test(_env(game, config), num_cycles=NUM_CYCLES)
    seed_test(lambda: _env(game, config), num_cycles=200)


def _parallel_trajectory(game: GameDef, config: Any, seed: int, rng_seed: int) -> list[Any]:
    env = game.make_env(parallel=True, config=config)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(rng_seed)
    out = [sorted((a, o["observation"].tobytes(), o["action_mask"].tobytes()) for a, o in obs.items())]
    for _ in range(MAX_STEPS):
        if not env.agents:
            return out
        obs, rewards, *_ = env.step({a: _pick(obs[a]["action_mask"], rng) for a in env.agents})
        out.append(sorted((a, o["observation"].tobytes(), rewards.get(a)) for a, o in obs.items()))
    raise AssertionError(f"a parallel episode did not end within {MAX_STEPS} steps")


@_contract("env", applies=_needs_parallel)
def pettingzoo_parallel_api(game: GameDef, config: Any, seed: int) -> None:
    """PettingZoo's own ``parallel_api_test`` passes on the parallel env; ``reset(seed)`` reproduces a
    parallel episode (random legal actions; PettingZoo's ``parallel_seed_test`` sends unmasked ones)."""
    from pettingzoo.test import parallel_api_test

    parallel_api_test(game.make_env(parallel=True, config=config), num_cycles=NUM_CYCLES)
    first = _parallel_trajectory(game, config, seed + 11, seed + 7)
    _expect(_parallel_trajectory(game, config, seed + 11, seed + 7) == first,
            f"two parallel episodes with reset(seed={seed + 11}) and the same actions differ")


@_contract("env")
def spaces_and_masks(game: GameDef, config: Any, seed: int) -> None:
    """Spaces are created once and sized from the definition; every observation is float32 of
    ``observation_size(config)`` and inside its space; only the acting agent has a (non-empty) int8 mask,
    for every agent at each of the first ``MASK_STEPS`` steps of a random game."""
    env = _env(game, config)
    env.reset(seed=seed + 1)
    n, A, size = config.num_players, game.num_actions, game.observation_size(config)
    agents = [f"player_{i}" for i in range(n)]
    _expect(env.possible_agents == game.spec.agents(n) == agents,
            f"expected possible_agents {agents}, got {env.possible_agents}")
    space = env.observation_space("player_0")
    _expect(space is env.observation_space(f"player_{n - 1}"), "the observation space is created anew per agent")
    _expect(space["observation"].shape == (size,),
            f"expected an observation space of shape ({size},), got {space['observation'].shape}")
    _expect(space["action_mask"].shape == (A,) and space["action_mask"].dtype == np.int8,
            f"expected an int8 action_mask space of shape ({A},), got {space['action_mask']}")
    _expect(env.action_space("player_0").n == A, f"expected Discrete({A}), got {env.action_space('player_0')}")
    rng = np.random.default_rng(seed)
    for step in range(MASK_STEPS):
        if not env.agents:
            break
        acting = env.agent_selection
        done = env.terminations[acting] or env.truncations[acting]
        for a in env.agents:
            obs = env.observe(a)
            o, m = obs["observation"], obs["action_mask"]
            _expect(o.dtype == np.float32 and o.shape == (size,),
                    f"step {step}: {a}'s observation is {o.dtype} {o.shape}, expected float32 ({size},)")
            _expect(space["observation"].contains(o), f"step {step}: {a}'s observation is outside its space")
            _expect(m.dtype == np.int8 and m.shape == (A,), f"step {step}: {a}'s mask is {m.dtype} {m.shape}, "
                    f"expected int8 ({A},)")
            acts = a == acting and not done
            _expect((m.sum() > 0) == acts, f"step {step}: {a}'s mask has {int(m.sum())} legal actions, expected "
                    + ("some (it acts)" if acts else "none (it does not act)"))
        env.step(None if done else _pick(env.observe(acting)["action_mask"], rng))


@_contract("env")
def illegal_action(game: GameDef, config: Any, seed: int) -> None:
    """An illegal action id, or something that is not an action id, raises ``IllegalActionError`` (a
    ``ValueError``) naming the agent and listing the legal ids, and changes nothing; the game goes on."""
    env = _env(game, config)
    env.reset(seed=seed + 5)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    legal = [int(a) for a in np.flatnonzero(mask)]
    before = [env.observe(a)["observation"].copy() for a in env.agents]
    for bad in [int(a) for a in np.flatnonzero(mask == 0)[:1]] + ["not an action"]:
        e = _raises(IllegalActionError, lambda: env.step(bad), f"action {bad!r} of {agent}", naming=agent)
        _expect(isinstance(e, ValueError), "IllegalActionError is not a ValueError")
        _expect(e.legal == legal, f"the error for action {bad!r} lists legal ids {e.legal}, expected {legal}")
        _expect(env.agent_selection == agent, f"after the illegal {bad!r}, {env.agent_selection} is to act")
        for a, o in zip(env.agents, before):
            _expect(np.array_equal(env.observe(a)["observation"], o), f"the illegal {bad!r} changed {a}'s observation")
    env.step(legal[0])  # the game goes on


def _trajectory(game: GameDef, config: Any, seed: int, rng_seed: int) -> tuple[list[Any], dict[str, float]]:
    env = _env(game, config)
    env.reset(seed=seed)
    rng = np.random.default_rng(rng_seed)
    out, returns = [], dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter(max_iter=MAX_STEPS):
        obs, r, term, trunc, _ = env.last()
        out.append((agent, r, obs["observation"].tobytes()))
        returns[agent] += r
        env.step(None if term or trunc else _pick(obs["action_mask"], rng))
    _expect(env.agents == [], f"the episode did not end within {MAX_STEPS} steps (agents left: {env.agents})")
    return out, returns


@_contract("env")
def seeded_episodes(game: GameDef, config: Any, seed: int) -> None:
    """``reset(seed)`` reproduces the game step for step, every episode ends, returns are finite, and another
    seed plays another game (under the default config: a preset may deal nothing at random)."""
    first, returns = _trajectory(game, config, seed + 11, seed + 7)
    _expect(_trajectory(game, config, seed + 11, seed + 7)[0] == first,
            f"two episodes with reset(seed={seed + 11}) and the same actions differ")
    _expect(all(np.isfinite(list(returns.values()))), f"returns are not finite: {returns}")
    if config == game.config_cls():
        _expect(_trajectory(game, config, seed + 12, seed + 7)[0] != first,
                f"reset(seed={seed + 11}) and reset(seed={seed + 12}) play the same game")


@_contract("env", scope="game")
def render(game: GameDef, config: Any, seed: int) -> None:
    """PettingZoo's ``render_test`` passes; ``render_mode="human"`` prints the table and returns None."""
    from pettingzoo.test import render_test

    render_test(lambda render_mode=None: _env(game, config, render_mode=render_mode))
    env = _env(game, config, render_mode="human")
    env.reset(seed=seed)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = env.render()
    _expect(result is None, f"render() in human mode returned {type(result).__name__}, expected None")
    _expect(out.getvalue().strip(), "render() in human mode printed nothing")


@_contract("env", scope="game")
def make_by_name(game: GameDef, config: Any, seed: int) -> None:
    """``fiveplay_env.make(name, ...)`` builds the env; a bad value or an unknown key raises a ``ValueError``
    naming the field; ``parallel=True`` of a sequential game is refused."""
    from fiveplay_env import make

    lo, hi = game.spec.min_players, game.spec.max_players
    env = make(game.name, num_players=lo)
    _expect(env.possible_agents == game.spec.agents(lo), f"make(num_players={lo}) has agents {env.possible_agents}")
    _raises(ValueError, lambda: make(game.name, num_players=hi + 1), f"make(num_players={hi + 1})",
            naming="num_players")
    _raises(ValueError, lambda: make(game.name, colour="red"), "make(colour='red')", naming="colour")
    if not game.parallel:
        _raises(ValueError, lambda: make(game.name, parallel=True), "make(parallel=True) of a sequential game",
                naming="parallel")


# --- engines -------------------------------------------------------------------------------------------

@_contract("engine")
def vector_equals_reference(game: GameDef, config: Any, seed: int) -> None:
    """``make_vec`` (the batched engine where the game has one, and the reference loop) equals reference
    engines seeded ``derive(seed, i)`` at every step: the acting player, the mask (int8 [B, A], never
    empty), the observation (float32 [B, obs]), the rewards, the ends of games and the next game's seed."""
    fields = game.config_dict(config)
    B, A, size, base = NUM_ENVS, game.num_actions, game.observation_size(config), seed + 3
    for backend in ["numpy", "reference"] if game.batched else ["reference"]:
        env = make_vec(game.name, B, seed=base, backend=backend, **fields)
        obs, mask, cur = env.reset()
        refs = [game.new_engine(config, seeding.derive(base, i)) for i in range(B)]
        played = [0] * B
        rng = np.random.default_rng(seed)
        for step in range(VECTOR_STEPS):
            where = f"backend {backend!r}, step {step}"
            _expect(obs.dtype == np.float32 and obs.shape == (B, size),
                    f"{where}: obs is {obs.dtype} {obs.shape}, expected float32 {(B, size)}")
            _expect(mask.dtype == np.int8 and mask.shape == (B, A),
                    f"{where}: mask is {mask.dtype} {mask.shape}, expected int8 {(B, A)}")
            _expect(mask.any(axis=1).all(), f"{where}: slots {np.flatnonzero(~mask.any(axis=1)).tolist()} "
                    "have an empty mask")
            for i, e in enumerate(refs):
                _expect(cur[i] == e.current_player,
                        f"{where}, slot {i}: current player {cur[i]}, the reference's {e.current_player}")
                np.testing.assert_array_equal(mask[i], e.legal_mask(), err_msg=f"{where}, slot {i}: mask")
                seen = game.observe(e, e.current_player)
                _expect(seen.dtype == np.float32 and seen.shape == (size,), f"{where}, slot {i}: the game's "
                        f"observe gives {seen.dtype} {seen.shape}, expected float32 ({size},)")
                np.testing.assert_array_equal(obs[i], seen, err_msg=f"{where}, slot {i}: observation")
            actions = random_actions(mask, rng)
            obs, mask, cur, rewards, terminated, info = env.step(actions)
            for i, e in enumerate(refs):
                r = [float(x) for x in e.step(int(actions[i]))]
                _expect(rewards[i].tolist() == r, f"{where}, slot {i}: rewards {rewards[i].tolist()}, the "
                        f"reference's {r}")
                _expect(bool(terminated[i]) == e.is_over,
                        f"{where}, slot {i}: terminated {bool(terminated[i])}, the reference's is_over {e.is_over}")
                if e.is_over:
                    played[i] += 1
                    refs[i] = game.new_engine(config, seeding.derive(base, i + played[i] * B))
                    _expect(int(info["seed"][i]) == refs[i].state.seed, f"{where}, slot {i}: the next game's "
                            f"seed {int(info['seed'][i])}, expected {refs[i].state.seed}")


@_contract("engine")
def records_round_trip(game: GameDef, config: Any, seed: int) -> None:
    """A random game's record replays exactly (its ``final`` is the game's ``summary``), and the record with
    its last action removed is refused (``RecordError``)."""
    rng = np.random.default_rng(seed + 1)
    game_seed = seed + 77
    engine = game.new_engine(config, game_seed)
    actions = []
    while not engine.is_over and len(actions) < MAX_STEPS:
        actions.append(_pick(engine.legal_mask(), rng))
        engine.step(actions[-1])
    _expect(engine.is_over, f"a random game did not end within {MAX_STEPS} actions")
    rec = records.make_record(game.name, config, game_seed, actions, agents=["random"] * config.num_players,
                              engine=engine)
    rep = records.replay(records.parse_records(records.dumps(rec))[0])
    replayed = records.summary(game.name, rep.engine.state)
    _expect(rep.engine.is_over and replayed == rec["final"] == game.summary(engine.state),
            f"the replay's summary {replayed} differs from the game's {game.summary(engine.state)}")
    bad = copy.deepcopy(rec)
    bad["actions"] = bad["actions"][:-1]
    _raises(records.RecordError, lambda: records.replay(bad), "replaying a record with its last action removed")


@_contract("engine", scope="game")
def determinization(game: GameDef, config: Any, seed: int) -> None:
    """Worlds sampled from a player's canonical state (``sample_engine``) show that player the same
    observation and the same legal actions, along a random game."""
    engine = game.new_engine(config, seed + 9)
    rng = np.random.default_rng(seed + 2)
    for step in range(12):
        if engine.is_over:
            break
        p = engine.current_player
        seen = game.observe(engine, p)
        canon = game.canonical_state(engine, p)
        for k in range(3):
            world = game.sample_engine(config, canon, p, np.random.default_rng(seed + k))
            np.testing.assert_array_equal(game.observe(world, p), seen,
                                          err_msg=f"step {step}, world {k}: player {p}'s observation")
            np.testing.assert_array_equal(world.legal_mask(), engine.legal_mask(),
                                          err_msg=f"step {step}, world {k}: the legal mask")
        engine.step(_pick(engine.legal_mask(), rng))


def _batched(game: GameDef, config: Any, num_envs: int, seed: int) -> Any:
    """The game's batched engine for ``config`` (``num_envs`` slots), or None when it has none."""
    factory = game.batched_factory()
    return None if factory is None else factory(num_envs, seed, **game.config_dict(config))


def _has_positions(game: GameDef, config: Any) -> str | None:
    if game.batched is None:
        return "the game has no batched engine"
    if not hasattr(_batched(game, config, 1, 0), "load_states"):
        return "its batched engine has no load_states"
    return None


def _mid_game(game: GameDef, config: Any, count: int, seed: int, rng: np.random.Generator,
              ok: Callable[[Any], bool] = lambda e: True) -> list[Any]:
    """``count`` reference engines, each stopped after a random number of random actions (0..60) at a state
    that is not over and satisfies ``ok``."""
    out = []
    k = 0
    while len(out) < count:
        e = game.new_engine(config, seed + k)
        k += 1
        for _ in range(int(rng.integers(0, 60))):
            if e.is_over:
                break
            e.step(_pick(e.legal_mask(), rng))
        while not e.is_over and not ok(e):
            e.step(_pick(e.legal_mask(), rng))
        if not e.is_over:
            out.append(e)
    return out


@_contract("engine", applies=_has_positions)
def batched_positions(game: GameDef, config: Any, seed: int) -> None:
    """Reference positions loaded into the batched engine (``load_states``) play on as the reference engine
    does, at every step until each game ends (masks, acting player, observations, rewards, ends);
    ``get_state`` / ``set_state`` and ``gather`` give engines that play the same games."""
    rng = np.random.default_rng(seed + 5)
    B = NUM_ENVS
    refs = _mid_game(game, config, B, seed + 400, rng)
    vec = _batched(game, config, B, seed)
    vec.load_states([e.state for e in refs])
    copy_ = _batched(game, config, B, seed + 1)
    copy_.set_state(vec.get_state())
    perm = np.arange(B)[::-1].copy()
    gathered = _batched(game, config, B, seed + 2)
    gathered.gather(vec, perm)
    live = [True] * B
    for step in range(VECTOR_STEPS // 3):
        mask, obs = vec.legal_action_mask, vec.observe()
        for name, other in (("set_state", copy_), ("gather", gathered)):
            want = perm if name == "gather" else np.arange(B)
            same = np.array([live[w] for w in want])  # a game over, the slots move on to other games of their runs
            _expect(np.array_equal(other.legal_action_mask[same], mask[want][same])
                    and np.array_equal(other.observe()[same], obs[want][same]),
                    f"step {step}: the engine made by {name} differs from the loaded one")
        for i, e in enumerate(refs):
            if not live[i]:
                continue
            where = f"step {step}, position {i}"
            _expect(int(vec.current_player[i]) == e.current_player, f"{where}: current player "
                    f"{int(vec.current_player[i])}, the reference's {e.current_player}")
            np.testing.assert_array_equal(mask[i], e.legal_mask(), err_msg=f"{where}: mask")
            np.testing.assert_array_equal(obs[i], game.observe(e, e.current_player), err_msg=f"{where}: observation")
        actions = random_actions(mask, rng)
        rewards = vec.step(actions)
        copy_.step(actions)
        own = random_actions(gathered.legal_action_mask, rng)  # the slots whose source game is over play their own
        gathered.step(np.where([live[w] for w in perm], actions[perm], own))
        for i, e in enumerate(refs):
            if not live[i]:
                continue
            r = [float(x) for x in e.step(int(actions[i]))]
            _expect(rewards[i].tolist() == r, f"step {step}, position {i}: rewards {rewards[i].tolist()}, the "
                    f"reference's {r}")
            _expect(bool(vec.terminated[i]) == e.is_over, f"step {step}, position {i}: terminated")
            live[i] = not e.is_over
        if not any(live):
            break


def _has_redeal(game: GameDef, config: Any) -> str | None:
    if game.batched is None:
        return "the game has no batched engine"
    eng = _batched(game, config, 1, 0)
    if not (hasattr(eng, "redeal") and hasattr(eng, "load_states") and hasattr(eng, "observe_as")):
        return "its batched engine has no redeal (with load_states and observe_as)"
    return None


REDEAL_WORLDS = 600
"""Worlds drawn each way (the batched ``redeal`` and the reference ``sample_world``) per position."""


@_contract("engine", applies=_has_redeal)
def batched_redeal(game: GameDef, config: Any, seed: int) -> None:
    """The batched engine's ``redeal(player, rng)`` (every slot a copy of one canonical world of the acting
    player) hides nothing that player may see (its observation and mask stay those of the real game in every
    slot) and draws the hidden cards as the reference ``sample_world`` does: every other seat's observation
    (which shows its hand) has, column by column, the same mean over the redealt slots as over worlds of
    ``sample_engine``, within 5 standard errors."""
    rng = np.random.default_rng(seed + 6)
    W = REDEAL_WORLDS
    positions = _mid_game(game, config, 3, seed + 500, rng)
    for k, engine in enumerate(positions):
        p = engine.current_player
        canon = game.canonical_state(engine, p)
        vec = _batched(game, config, W, seed)
        vec.load_states([canon] * W)
        vec.redeal(p, np.random.default_rng(seed + k))
        seen = game.observe(engine, p)
        obs = vec.observe_as(np.full(W, p))
        bad = np.flatnonzero((obs != seen).any(axis=1))
        _expect(bad.size == 0, f"position {k}: player {p}'s observation changed by the re-deal in slots "
                f"{bad[:5].tolist()} (columns {np.flatnonzero(obs[bad[0]] != seen)[:8].tolist() if bad.size else []})")
        _expect((vec.legal_action_mask == engine.legal_mask()).all(), f"position {k}: the mask changed by the re-deal")
        worlds = [game.sample_engine(config, canon, p, np.random.default_rng(seed + 1000 * k + j)) for j in range(W)]
        for q in range(config.num_players):
            if q == p:
                continue
            xa = vec.observe_as(np.full(W, q)).astype(np.float64)
            xb = np.array([game.observe(w, q) for w in worlds], np.float64)
            a, b = xa.mean(axis=0), xb.mean(axis=0)
            tol = 5 * np.sqrt((xa.var(axis=0) + xb.var(axis=0)) / W) + 1e-6  # counts too, not only 0/1 flags
            off = np.flatnonzero(np.abs(a - b) > tol)
            _expect(off.size == 0, f"position {k}, seat {q}: the re-dealt observations' means differ from "
                    f"sample_world's in columns {off[:8].tolist()} ({a[off[:4]].round(3).tolist()} against "
                    f"{b[off[:4]].round(3).tolist()})")


def _has_jax(game: GameDef, config: Any) -> str | None:
    if game.jax_engine is None:
        return "the game has no JAX engine"
    import importlib.util

    if importlib.util.find_spec("jax") is None:
        return "jax is not installed (the 'jax' extra)"
    return None


JAX_STEPS = 120
"""Steps of the JAX replay per config (each config is one compile)."""


@_contract("engine", scope="game", applies=_has_jax)
def jax_equals_reference(game: GameDef, config: Any, seed: int) -> None:
    """``make_vec(backend="jax")`` (the JAX engine, dealing the reference's cards) equals reference engines
    seeded ``derive(seed, i)`` at every step: acting player, mask, observation, rewards, ends, next seeds.
    Once per game (each config is one compile of a few seconds): a game's own JAX tests replay its config
    families."""
    fields = game.config_dict(config)
    B, base = NUM_ENVS, seed + 13
    env = make_vec(game.name, B, seed=base, backend="jax", **fields)
    obs, mask, cur = env.reset()
    refs = [game.new_engine(config, seeding.derive(base, i)) for i in range(B)]
    played = [0] * B
    rng = np.random.default_rng(seed + 7)
    for step in range(JAX_STEPS):
        for i, e in enumerate(refs):
            where = f"step {step}, slot {i}"
            _expect(int(cur[i]) == e.current_player, f"{where}: current player {int(cur[i])}, the reference's "
                    f"{e.current_player}")
            np.testing.assert_array_equal(mask[i], e.legal_mask(), err_msg=f"{where}: mask")
            np.testing.assert_array_equal(obs[i], game.observe(e, e.current_player), err_msg=f"{where}: observation")
        actions = random_actions(mask, rng)
        obs, mask, cur, rewards, terminated, info = env.step(actions)
        for i, e in enumerate(refs):
            r = [float(x) for x in e.step(int(actions[i]))]
            _expect(np.asarray(rewards[i]).tolist() == r, f"step {step}, slot {i}: rewards "
                    f"{np.asarray(rewards[i]).tolist()}, the reference's {r}")
            _expect(bool(terminated[i]) == e.is_over, f"step {step}, slot {i}: terminated")
            if e.is_over:
                played[i] += 1
                refs[i] = game.new_engine(config, seeding.derive(base, i + played[i] * B))


def _has_compact(game: GameDef, config: Any) -> str | None:
    if game.compact is None:
        return "the game declares no compact observation"
    try:
        game.compact_layout(config)
    except ValueError as e:  # a layout refuses the configs it does not encode (its documented error)
        return f"its compact layout does not encode this config ({e})"
    return None


@_contract("engine", applies=_has_compact)
def compact_observation(game: GameDef, config: Any, seed: int) -> None:
    """``compact_layout(config).decode`` turns ``make_vec(compact_obs=True)``'s uint8 observations into the
    float observations, bit for bit, at every step (finished games and autoreset included)."""
    layout = game.compact_layout(config)
    fields = game.config_dict(config)
    packed = make_vec(game.name, NUM_ENVS, seed=seed + 11, compact_obs=True, **fields)
    plain = make_vec(game.name, NUM_ENVS, seed=seed + 11, **fields)
    c, _, _ = packed.reset()
    obs, mask, _ = plain.reset()
    rng = np.random.default_rng(seed + 3)
    for step in range(VECTOR_STEPS // 2):
        _expect(c.dtype == np.uint8 and c.shape == (NUM_ENVS, layout.size),
                f"step {step}: the compact observation is {c.dtype} {c.shape}, expected uint8 "
                f"{(NUM_ENVS, layout.size)}")
        decoded = layout.decode(c)
        _expect(decoded.dtype == np.float32 and decoded.shape == obs.shape,
                f"step {step}: decode gives {decoded.dtype} {decoded.shape}, expected float32 {obs.shape}")
        _expect(np.array_equal(decoded.view(np.uint32), obs.view(np.uint32)),
                f"step {step}: the decoded compact observation differs from the float one in slots "
                f"{np.flatnonzero((decoded != obs).any(axis=1)).tolist()}")
        actions = random_actions(mask, rng)
        c, *_ = packed.step(actions)
        obs, mask, *_ = plain.step(actions)


# --- running them --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Result:
    """One contract on one config: ``skipped`` is None when it ran and passed, else why it does not apply."""

    contract: str
    game: str
    label: str
    skipped: str | None = None


def contract_names(group: str | None = None) -> list[str]:
    """The contracts' names (of one of ``GROUPS``, or all), in the order ``check_game`` runs them."""
    if group is not None and group not in GROUPS:
        raise ValueError(f"group: expected one of {list(GROUPS)} or None, got {group!r}")
    return [c.name for g in GROUPS for c in CONTRACTS.values() if c.group == g and group in (None, g)]


def game_def(game: str | GameDef) -> GameDef:
    """The ``GameDef`` of a registered name, or ``game`` itself (registered in ``fiveplay_env.games`` when its
    name is free; ``ValueError`` when another game has that name)."""
    if isinstance(game, str):
        return games.get(game)
    if not isinstance(game, GameDef):
        raise ValueError(f"game: expected a game name or a GameDef, got {type(game).__name__}")
    if game.name not in games.table():
        games.register(game)
    elif games.get(game.name) is not game:
        raise ValueError(f"game: another game named {game.name!r} is registered; games.register(game, "
                         f"replace=True) first to check this one")
    return game


def _resolve(g: GameDef, config: Any, label: str | None) -> tuple[str, Any]:
    """``(label, config)`` of a preset name, a dict of config fields, a config, or None (the default)."""
    if config is None:
        return label or "default", g.config_cls()
    if isinstance(config, str):
        if config not in g.presets:
            raise ValueError(f"config: expected a preset of {g.name} ({sorted(g.presets)}), got {config!r}")
        return label or config, g.presets[config]
    if isinstance(config, g.config_cls):
        return label or repr(config), config
    if isinstance(config, Mapping):
        return label or (",".join(f"{k}={v}" for k, v in config.items()) or "default"), g.make_config(config)
    raise ValueError(f"config: expected a preset name, a dict of config fields or a {g.config_cls.__name__}, "
                     f"got {type(config).__name__}")


def cases(game: str | GameDef, configs: Mapping[str, Any] | Sequence[Any] | None = None) -> list[tuple[str, Any]]:
    """``[(label, config)]``: ``configs`` ({label: config or dict of fields}, or a list of them), else the
    game's presets by name, else its default config labelled "default"."""
    g = game_def(game)
    if configs is None:
        return sorted(dict(g.presets).items()) or [("default", g.config_cls())]
    items = list(configs.items()) if isinstance(configs, Mapping) else [(None, c) for c in configs]
    return [_resolve(g, c, None if label is None else str(label)) for label, c in items]


def _get(name: str) -> Contract:
    if name not in CONTRACTS:
        raise ValueError(f"contract: expected one of {list(CONTRACTS)}, got {name!r}")
    return CONTRACTS[name]


def applies(name: str, game: str | GameDef, config: Any = None) -> str | None:
    """None when contract ``name`` applies to ``game`` under ``config``, else the reason it does not."""
    c, g = _get(name), game_def(game)
    return c.applies(g, _resolve(g, None if c.scope == "game" else config, None)[1])


def run_contract(name: str, game: str | GameDef, config: Any = None, *, label: str | None = None,
                 seed: int = 0) -> Result:
    """Run contract ``name`` on ``game`` under ``config`` (a preset name, a dict of config fields, a config,
    or None: the default; a game-scope contract always takes the default). ``ContractError`` if it fails."""
    c, g = _get(name), game_def(game)
    label, cfg = _resolve(g, None if c.scope == "game" else config, label)
    reason = c.applies(g, cfg)
    if reason is not None:
        return Result(name, g.name, label, reason)
    try:
        c.run(g, cfg, seed)
    except AssertionError as e:
        raise ContractError(name, g.name, label, cfg, str(e) or "an assertion failed") from e
    except Exception as e:  # a crash breaks the contract too: say which one
        raise ContractError(name, g.name, label, cfg, f"{type(e).__name__}: {e}") from e
    return Result(name, g.name, label)


def check_game(game: str | GameDef, *, configs: Mapping[str, Any] | Sequence[Any] | None = None, seed: int = 0,
               contracts: Sequence[str] | None = None) -> list[Result]:
    """Run ``contracts`` (default: all, ``contract_names()``) on ``game`` (a registered name or a ``GameDef``)
    under each of ``cases(game, configs)``, seeded from ``seed``. Raises ``ContractError`` naming the
    contract and the config at the first failure; returns every ``Result``."""
    g = game_def(game)
    names = contract_names() if contracts is None else [_get(n).name for n in contracts]
    todo = cases(g, configs)
    out = []
    for name in names:
        if CONTRACTS[name].scope == "game":
            out.append(run_contract(name, g, seed=seed))
        else:
            out += [run_contract(name, g, cfg, label=label, seed=seed) for label, cfg in todo]
    return out
