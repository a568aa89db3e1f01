"""What the OpenSpiel forms of our games share (the ``openspiel`` extra: importing this module imports
``pyspiel``; nothing in ``fiveplay_env`` imports it but the forms).

Each game's form lives with the game (``fiveplay_env/<game>/openspiel.py``, named by ``GameDef.openspiel``;
its ``FORM`` is an ``OpenSpielForm``) and builds on the pieces here; the integration
``fiveplay_env.integrations.openspiel`` finds the forms through the game table, registers them with
``pyspiel`` and documents what the games look like in OpenSpiel (parameters, nodes, chance, tensors,
strings, rewards, determinization).

| name                                   | what                                                              |
|----------------------------------------|-------------------------------------------------------------------|
| ``OpenSpielForm``                      | a game's OpenSpiel form: names, game type and class, positions    |
| ``game_type``                          | the ``pyspiel.GameType`` of our games (only names, dynamics and   |
|                                        | players differ), parameters from the config class (``param_spec``)|
| ``config_of_params``, ``params_of_config`` | OpenSpiel parameters <-> our config (``players`` is ``num_players``) |
| ``Observer``, ``observation_layout``   | the Python observer: our observation vector and its named pieces  |
| ``Event``, ``history_text``, ``resampled_events`` | the perfect-recall history lines and a determinization's |
| ``seed_from``                          | a seed from OpenSpiel's sampler of uniform floats                  |
| ``turn_based_state``                   | a state of ``pyspiel.convert_to_turn_based(game)`` around ours     |
| ``CHANCE``, ``TERMINAL``, ``SIMULTANEOUS``, ``ENGINE_SEED``, ``MAX_CYCLES`` | player ids and constants |
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Union

import numpy as np

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    from fiveplay_env.core import extras as _extras

    raise ImportError("the OpenSpiel forms of fiveplay_env need OpenSpiel (the open_spiel package), of the "
                      "'openspiel' extra: " + _extras.install_hint("openspiel"), name="pyspiel") from exc

from fiveplay_env.core.config import from_kwargs

MAX_CYCLES = 1000
"""A config's ``max_cycles`` when it is None (unbounded; 5 Alive's default): OpenSpiel needs a finite game
length."""
ENGINE_SEED = 0
"""Seed of the engine state inside every OpenSpiel state: the cards come from chance nodes, the seed
only orders the draw pile of the one implicit case (see the module docstring)."""

CHANCE = int(pyspiel.PlayerId.CHANCE)
TERMINAL = int(pyspiel.PlayerId.TERMINAL)
SIMULTANEOUS = int(pyspiel.PlayerId.SIMULTANEOUS)


# --- parameters ----------------------------------------------------------------------------------------
def _field_defaults(cls: type) -> dict[str, Any]:
    return {f.name: f.default for f in dataclasses.fields(cls)}


def _param(field: str, value: Any, encode: Mapping[str, Callable[[Any], Any]]) -> tuple[str, Any]:
    """One config field as an OpenSpiel parameter (name, value): ``num_players`` is ``players``, a field of
    ``encode`` its encoding (5 Alive's ``deck_counts`` string), ``max_cycles`` None is ``MAX_CYCLES``."""
    if field == "num_players":
        return "players", value
    if field in encode:
        return field, encode[field](value)
    if field == "max_cycles" and value is None:
        return field, MAX_CYCLES
    return field, value


def param_spec(config_cls: type, encode: Mapping[str, Callable[[Any], Any]] | None = None) -> dict[str, Any]:
    """OpenSpiel's parameter specification of a config class: every field, with its default (``encode``: the
    fields whose parameter is not the value itself, field -> value -> parameter)."""
    return dict(_param(k, v, encode or {}) for k, v in _field_defaults(config_cls).items())


def config_of_params(config_cls: type, params: Mapping[str, Any],
                     encode: Mapping[str, Callable[[Any], Any]] | None = None,
                     decode: Mapping[str, Callable[[Any], Any]] | None = None) -> Any:
    """Our validated config (of ``config_cls``) from OpenSpiel parameters: ``players`` is ``num_players``,
    missing keys take the defaults, a field of ``decode`` is decoded (``encode``: as ``param_spec``); bad
    values raise the config's ``ValueError``."""
    values = {**param_spec(config_cls, encode), **dict(params)}
    fields = {("num_players" if k == "players" else k): v for k, v in values.items()}
    for k, fn in (decode or {}).items():
        if k in fields:
            fields[k] = fn(fields[k])
    return from_kwargs(config_cls, fields)


def params_of_config(config: Any, encode: Mapping[str, Callable[[Any], Any]] | None = None) -> dict[str, Any]:
    """OpenSpiel parameters of our config (a field of ``encode`` encoded, ``max_cycles`` None as
    ``MAX_CYCLES``)."""
    return dict(_param(f.name, getattr(config, f.name), encode or {}) for f in dataclasses.fields(config))


def seed_from(sampler: Any) -> int:
    """A 64-bit seed from a sampler of uniform floats (``pyspiel.UniformProbabilitySampler`` or any
    callable), an int, or a ``np.random.Generator``."""
    if isinstance(sampler, (int, np.integer)) and not isinstance(sampler, bool):
        return int(sampler) % 2**64
    if isinstance(sampler, np.random.Generator):
        return int(sampler.integers(2**63))
    if not callable(sampler):
        raise ValueError(f"sampler: expected a callable returning uniform floats in [0, 1), an int or a "
                         f"numpy Generator, got {type(sampler).__name__}")
    return (int(float(sampler()) * 2**32) << 32) ^ int(float(sampler()) * 2**32)


Event = Union[str, tuple[int, str]]
"""A history line: a public event (a str) or a private one, ``(player, text)``, seen by that player only."""


def history_text(events: list[Event], player: int) -> str:
    """``player``'s history: the public events and its own private ones, in order, one per line."""
    return "\n".join([e if e.__class__ is str else e[1] for e in events if e.__class__ is str or e[0] == player])


def resampled_events(events: list[Event], player: int, n: int, token: Callable[[int], str]) -> list[Event]:
    """The history of a determinization for ``player``: its own private events kept, every other
    player's replaced by one line, ``token(q)`` (its sampled hand), after the public ones."""
    kept = [e for e in events if e.__class__ is str or e[0] == player]
    return kept + [(q, token(q)) for q in range(n) if q != player]


# --- observers (tensors and strings) -----------------------------------------------------------------
class Observer:
    """OpenSpiel's Python observer for our games: ``tensor`` is our observation vector, ``dict`` its
    named pieces (views), ``string_from`` the observation string or (``perfect_recall``) the
    information-state string."""

    def __init__(self, game: Any, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None) -> None:
        if params:
            raise ValueError(f"observer params: expected none, got {dict(params)}")
        if iig_obs_type is not None and (not iig_obs_type.public_info
                                         or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise ValueError("observation type: expected public information and the observer's private "
                             f"information (PrivateInfoType.SINGLE_PLAYER), got {iig_obs_type}")
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        size, pieces = game.observation_layout()
        self.tensor = np.zeros(size, np.float32)
        self.dict: dict[str, np.ndarray] = {}
        for name, (off, length, shape) in pieces.items():
            self.dict[name] = self.tensor[off:off + length].reshape(shape)

    def set_from(self, state: Any, player: int) -> None:
        self.tensor[:] = state.observation_vector(player)

    def string_from(self, state: Any, player: int) -> str:
        return state.info_string(player) if self.perfect_recall else state.obs_string(player)


def observation_layout(pieces: Mapping[str, tuple[int, int]], shapes: Mapping[str, tuple[int, ...]],
                       size: int) -> tuple[int, dict[str, tuple[int, int, tuple[int, ...]]]]:
    """Pieces in offset order (contiguous, as OpenSpiel's allocator writes them) with their shapes."""
    out: dict[str, tuple[int, int, tuple[int, ...]]] = {}
    pos = 0
    for name, (off, length) in sorted(pieces.items(), key=lambda kv: kv[1][0]):
        if off != pos:  # pragma: no cover - our layouts are contiguous
            raise ValueError(f"observation layout: piece {name!r} at {off}, expected {pos}")
        out[name] = (off, length, shapes.get(name, (length,)))
        pos += length
    if pos != size:  # pragma: no cover
        raise ValueError(f"observation layout: pieces cover {pos} of {size} values")
    return size, out


def game_type(short_name: str, long_name: str, dynamics: Any, min_players: int, max_players: int,
              config_cls: type, encode: Mapping[str, Callable[[Any], Any]] | None = None) -> Any:
    """An OpenSpiel game type of our games: chance deals explicit, imperfect information, general-sum
    terminal rewards, every information/observation string and tensor provided, parameters from
    ``config_cls`` (``encode``: as ``param_spec``); only the name, the dynamics and the players range
    differ between the games."""
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=dynamics,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max_players,
        min_num_players=min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=param_spec(config_cls, encode),
        default_loadable=True,
        provides_factored_observation_string=False,
    )


def turn_based_state(tb_game: Any, game: Any, state: Any, chosen: Sequence[int]) -> Any:
    """The state of ``tb_game = pyspiel.convert_to_turn_based(game)`` wrapping our ``state`` of ``game``, with
    the players 0..k-1 of the simultaneous node having chosen ``chosen`` (OpenSpiel builds the wrapper around
    ``game.new_initial_state()``, so that one call hands it ``state``: a form's game keeps a list
    ``_injected`` that ``new_initial_state`` pops first)."""
    game._injected.append(state)
    try:
        tb = tb_game.new_initial_state()
        consumed = not game._injected
    finally:
        game._injected.clear()
    if not consumed:
        raise ValueError("tb_game: expected pyspiel.convert_to_turn_based(game) of this very game object "
                         "(a turn-based game loaded separately wraps another one)")
    for a in chosen:
        tb.apply_action(int(a))
    return tb


# --- a game's form ----------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class OpenSpielForm:
    """A game of the game table (``fiveplay_env.games``) as an OpenSpiel game: the ``FORM`` of the module its
    definition names (``GameDef.openspiel``), read by ``fiveplay_env.integrations.openspiel``.

    | field                     | what                                                                 |
    |---------------------------|----------------------------------------------------------------------|
    | ``game``                  | its name in the game table                                           |
    | ``short_name``            | OpenSpiel's name (``pyspiel.load_game(short_name)``)                 |
    | ``game_type``             | the ``pyspiel.GameType`` (declared once; its parameters are the config's) |
    | ``game_cls``              | the ``pyspiel.Game`` subclass (its ``config``: our config)            |
    | ``simultaneous``          | OpenSpiel's searches play it through ``pyspiel.convert_to_turn_based`` |
    | ``state_from_engine``     | ``(game, engine_state) -> state`` at our engine state's position      |
    | ``turn_based_from_engine``| ``(tb_game, game, engine_state) -> state`` of the turn-based game (a   |
    |                           | simultaneous game), or None                                           |
    | ``turn_based_resampler``  | ``(game, tb_game, seed) -> resample(tb_state, player)`` for OpenSpiel's |
    |                           | Python IS-MCTS on the turn-based game, or None                        |
    | ``params_encode``, ``params_decode`` | config fields whose OpenSpiel parameter is not the value: field -> |
    |                           | value -> parameter, and back                                          |
    """

    game: str
    short_name: str
    game_type: Any
    game_cls: type
    simultaneous: bool
    state_from_engine: Callable[[Any, Any], Any]
    turn_based_from_engine: Callable[[Any, Any, Any], Any] | None = None
    turn_based_resampler: Callable[..., Callable[[Any, int], Any]] | None = None
    params_encode: Mapping[str, Callable[[Any], Any]] = dataclasses.field(default_factory=dict)
    params_decode: Mapping[str, Callable[[Any], Any]] = dataclasses.field(default_factory=dict)

__all__ = ["CHANCE", "ENGINE_SEED", "MAX_CYCLES", "SIMULTANEOUS", "TERMINAL", "Event", "Observer", "OpenSpielForm",
           "config_of_params", "game_type", "history_text", "observation_layout", "param_spec", "params_of_config",
           "pyspiel", "resampled_events", "seed_from", "turn_based_state"]
