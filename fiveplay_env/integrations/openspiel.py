"""OpenSpiel (``pyspiel``) for both games: OpenSpiel's algorithms, bots and tools on Take 5 and 5 Alive.

    import pyspiel
    import fiveplay_env.integrations.openspiel                      # registers the two games
    take5 = pyspiel.load_game("python_fiveplay_take5(players=4,mode=round)")
    turn_based = pyspiel.convert_to_turn_based(take5)                # or pyspiel.load_game_as_turn_based(...)
    five = pyspiel.load_game("python_fiveplay_five_alive(players=4,variant=teams)")
    game = load("take5", num_players=4, mode="round")                # the same from our config fields

Requires the ``openspiel`` extra (``pip install -e '.[openspiel]'``: the ``open_spiel`` package, which
installs ``pyspiel``); ``fiveplay_env`` itself never imports it. Importing this module registers both
games with ``pyspiel.register_game`` (worker processes that load them by name import it first).

**Games and parameters.** ``FORMS`` lists the games of the game table (``fiveplay_env.games``) that
have an OpenSpiel form, by table name (``form(name)``: a clear error for any other game). Every
parameter is a field of the game's config class (the table's ``config_cls``; ``players`` is
``num_players``), with the config's default; values are validated by the config class, so a bad one
raises its ``ValueError`` (for example ``mode: expected 'game', 'round' or 'rounds:K' ...``).

| game                         | parameters (default)                                                       |
|------------------------------|----------------------------------------------------------------------------|
| ``python_fiveplay_take5``    | ``players`` (4), ``row_pick`` ("player"), ``end_score`` (66),              |
|                              | ``end_inclusive`` (true), ``mode`` ("game"; "round", "rounds:K"),          |
|                              | ``professional`` (false), ``draft`` (false): ``Take5Config``                |
| ``python_fiveplay_five_alive`` | ``players`` (4), ``variant``, ``first_player``, ``allow_voluntary_bust``, |
|                              | ``bomb_zero_optional``, ``deck_counts``, ``bomb_last_card_resolves``,      |
|                              | ``draw_order``, ``empty_draw_pile``, ``max_reshuffles``,                   |
|                              | ``new_round_start``, ``new_round_direction``, ``tiebreak_wild_value``,     |
|                              | ``final_tiebreak``, ``reward``, ``max_cycles`` (1000), ``max_steps``:      |
|                              | ``FiveAliveConfig``                                                        |

``deck_counts`` is a string (OpenSpiel parameters are scalars): the 18 counts in kind order separated by
spaces (``"8 8 8 8 8 4 2 1 6 5 4 4 3 2 2 2 1 1"``, the default), or ``kind:count`` items for the kinds
that differ from the rule book's deck (``"bomb:3 draw2:4"``; kind keys as in ``KIND_KEYS``).
``max_cycles`` (decisions per player, after which the game ends as a truncation, as in our AEC env)
defaults to 1000 here, where our config's default is None: OpenSpiel needs a finite game length, and
a rule book game is far shorter (at most 76 decisions per player in 900 random games of 2, 4 and 6).

**Game type** (declared once, ``TAKE5_TYPE`` / ``FIVE_ALIVE_TYPE``):

| field                 | Take 5                                   | 5 Alive                              |
|-----------------------|------------------------------------------|--------------------------------------|
| dynamics              | SIMULTANEOUS                             | SEQUENTIAL                           |
| chance mode           | EXPLICIT_STOCHASTIC                      | EXPLICIT_STOCHASTIC                  |
| information           | IMPERFECT_INFORMATION                    | IMPERFECT_INFORMATION                |
| utility               | GENERAL_SUM                              | GENERAL_SUM                          |
| reward model          | TERMINAL                                 | TERMINAL                             |
| players               | 2..10                                    | 2..6                                 |
| actions               | 108: 0..103 play/draft card id+1, 104..107 take row 0..3 | 19: our codec (``five_alive.state``) |
| chance outcomes       | 104: the card dealt                      | 18: the kind dealt or drawn (or the first player) |
| strings and tensors   | information state and observation, both  | the same                             |

**Nodes.** Take 5: every trick is ONE simultaneous node (each player's legal actions: its hand; the
joint action is placed by our engine). The row choice (``row_pick="player"``) and the draft picks are
ordinary decision nodes of their single mover inside the simultaneous game (OpenSpiel states may mix
both kinds), not simultaneous nodes where the others play a no-op: OpenSpiel's
``convert_to_turn_based`` then turns each trick into n decisions (each player sees only its own card
among those chosen so far, like our AEC env) and passes the row choices and draft picks through as
they are, with no dummy decisions for the search to branch on; ``random_sim_test`` and ``evaluate_bots``
handle both kinds of node. OpenSpiel's IS-MCTS and MCTS need a sequential game, so they play Take 5
through ``convert_to_turn_based``. 5 Alive is sequential (Bomb answers with ``bomb_zero_optional`` are
decisions of the responder).

**Chance.** Explicit, one card at a time, as OpenSpiel's card games (hearts, bridge, crazy eights) deal:
a deal of 104 cards has far too many outcomes to list, one card has at most 104 (Take 5) or 18 (5
Alive). Take 5 deals each round's 10n + 4 cards (player 0's ten, then player 1's, ..., then the four
row starters; the rest is set aside unseen); the draft has no chance. 5 Alive: each deal (game start,
every new round) gives every survivor its cards one at a time, a kind drawn with probability
proportional to the cards of that kind not yet dealt; ``first_player="random"`` is one more chance node
(n outcomes). The draw pile is shuffled lazily: its order is hidden from everyone, so each card drawn
(Draw 1 / Draw 2) is a chance node over the pile's composition, and a reshuffle needs none of its own
(the pile simply becomes the reshuffled cards). Hand In & Re-Deal re-deals the gathered cards to each
survivor the same way. Our engine plays every rule; the cards its own shuffles chose are then dealt
again through these chance nodes, so every card's kind comes from OpenSpiel's chance, with one
exception: when a Draw card was a player's last card and the round end it causes also ends the game,
the cards drawn in that final step come from the engine's shuffle (seeded by the state: the game is
still a deterministic function of its history); they matter only to a sudden-death tie-break.

**Tensors and strings.** The observation tensor and the information-state tensor are both our
observation vector (``take5.observation.observe`` / ``five_alive.observation.observe``, the env's
``obs["observation"]``; the observer's ``dict`` names its pieces: ``hand``, ``rows`` [4, 104],
``scores``, ...): it is what every agent and learner of this project reads, and a perfect-recall tensor
of a game of unbounded length would have no fixed size. The observation string is that vector in
words (decoded from the vector itself, so it shows nothing more). The information-state string is
perfect recall: the player's whole history (every public event in order, and its own private ones:
the cards it was dealt and drew), followed by the observation string.

**Rewards.** The reward model is TERMINAL (so OpenSpiel's MCTS, which requires it, plays our games):
``rewards()`` and ``returns()`` are 0 until the end; ``returns()`` then equals what our env's rewards
add up to over the game: Take 5, minus each player's final score (bull heads); 5 Alive, the sum of the
config's ``reward`` signal (``win_loss``: +1 to the winner or winning team, -1 to the others; 0 to the
undecided players of a game ended by ``max_cycles``).

**Determinization.** ``state.resample_from_infostate(player, sampler)`` (at decision and simultaneous
nodes; ``sampler()`` returns uniform floats, e.g. ``pyspiel.UniformProbabilitySampler``) re-deals every
card ``player`` cannot see with our engine's ``sample_world``, which depends only on what the player
knows: the returned state has the same information-state string and tensor for ``player``. The other
players' histories are not re-sampled: in the returned state their private lines are replaced by one,
their sampled hand, after the public history. The returned state has an empty ``history()`` (its
hidden past is not the true one, and it must not carry the true deal). OpenSpiel's Python IS-MCTS
(``open_spiel.python.algorithms.ismcts``) uses it. Its C++ ``pyspiel.ISMCTSBot`` cannot reach a Python
method (it calls C++'s ``ResampleFromInfostate``, whose "not implemented" error, raised while the bot
has released Python's lock, kills the process): do not use it on these games. OpenSpiel's turn-based
conversion does not forward ``resample_from_infostate`` either: for Take 5 give the Python bot
``set_resampler(turn_based_resampler(game, tb_game))``.

**Clone and serialization.** ``clone()`` is cheap (our engines' ``clone``). OpenSpiel serializes a
Python game's state as its history plus a pickle of its Python attributes: deserialize only strings you
made yourself (unpickling runs code). ``pyspiel.serialize_game_and_state`` / ``pickle`` round-trip.

**Positions from our engines.** ``state_from_engine(game, engine_state)`` is an OpenSpiel state at the
position of one of our engine states (for example a determinization drawn through
``agents.base.InformationSet``), with the history replaced by a "position" line;
``turn_based_from_engine(tb_game, game, engine_state)`` is the same position in the turn-based Take 5
(our AEC env's choices already made in the trick become the turn-based game's buffered actions).
``agents.openspiel_agent`` plays OpenSpiel's bots in our tournaments this way.
"""
from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Union

import numpy as np

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    from fiveplay_env.core import extras as _extras

    raise ImportError("fiveplay_env.integrations.openspiel needs OpenSpiel (the open_spiel package), of the "
                      "'openspiel' extra: " + _extras.install_hint("openspiel"), name="pyspiel") from exc

from fiveplay_env import games
from fiveplay_env.core import seeding
from fiveplay_env.core.errors import IllegalActionError
from fiveplay_env.five_alive import engine as faeng
from fiveplay_env.five_alive import observation as faobs
from fiveplay_env.five_alive import state as fastate
from fiveplay_env.five_alive.config import KIND_KEYS, KIND_NAMES, LIVES, NUM_KINDS, FiveAliveConfig
from fiveplay_env.five_alive.config import MAX_PLAYERS as FA_MAX_PLAYERS
from fiveplay_env.five_alive.config import MIN_PLAYERS as FA_MIN_PLAYERS
from fiveplay_env.five_alive.render import describe_event, hand_text
from fiveplay_env.take5 import engine as t5eng
from fiveplay_env.take5 import observation as t5obs
from fiveplay_env.take5 import state as t5state
from fiveplay_env.take5.config import MAX_PLAYERS as T5_MAX_PLAYERS
from fiveplay_env.take5.config import MIN_PLAYERS as T5_MIN_PLAYERS
from fiveplay_env.take5.config import Take5Config

TAKE5 = "python_fiveplay_take5"
FIVE_ALIVE = "python_fiveplay_five_alive"

MAX_CYCLES = 1000
"""5 Alive's ``max_cycles`` when none is given (OpenSpiel needs a finite game length)."""
ENGINE_SEED = 0
"""Seed of the engine state inside every OpenSpiel state: the cards come from chance nodes, the seed
only orders the draw pile of the one implicit case (see the module docstring)."""

_CHANCE = int(pyspiel.PlayerId.CHANCE)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
_SIMULTANEOUS = int(pyspiel.PlayerId.SIMULTANEOUS)

T5_NUM_ACTIONS = t5state.ACTION_WAIT  # 108: the WAIT id of our parallel env is never needed here
_T5_DEAL = t5state.HAND_SIZE  # cards per hand


# --- parameters ----------------------------------------------------------------------------------------
def _field_defaults(cls: type) -> dict[str, Any]:
    return {f.name: f.default for f in dataclasses.fields(cls)}


def _deck_string(counts: Sequence[int]) -> str:
    return " ".join(str(int(c)) for c in counts)


def _parse_deck(text: object) -> object:
    """The ``deck_counts`` parameter as what ``FiveAliveConfig`` takes (18 counts or a mapping); a value
    that is not a string is passed on as it is, for the config to judge."""
    if not isinstance(text, str):
        return text
    items = text.replace(",", " ").split()
    if items and all(":" in item for item in items):
        out: dict[str, object] = {}
        for item in items:
            key, _, raw = item.partition(":")
            out[key] = int(raw) if raw.strip().lstrip("-").isdigit() else raw
        return out
    if all(item.lstrip("-").isdigit() for item in items):
        return tuple(int(item) for item in items)
    raise ValueError(f"deck_counts: expected 18 counts separated by spaces, or kind:count items with kinds "
                     f"among {list(KIND_KEYS)}, got {text!r}")


def _param(field: str, value: Any) -> tuple[str, Any]:
    """One config field as an OpenSpiel parameter (name, value): ``num_players`` is ``players``,
    ``deck_counts`` its string, ``max_cycles`` None is ``MAX_CYCLES``."""
    if field == "num_players":
        return "players", value
    if field == "deck_counts":
        return field, _deck_string(value)
    if field == "max_cycles" and value is None:
        return field, MAX_CYCLES
    return field, value


def _param_spec(config_cls: type) -> dict[str, Any]:
    """OpenSpiel's parameter specification of a config class: every field, with its default."""
    return dict(_param(k, v) for k, v in _field_defaults(config_cls).items())


def form(game: str) -> "OpenSpielForm":
    """The OpenSpiel form of the game called ``game`` in the game table (``fiveplay_env.games``):
    ``ValueError`` listing the table's games for an unknown name, or the games with an OpenSpiel form
    for a game of the table without one."""
    games.get(game)
    if game not in FORMS:
        raise ValueError(f"game: expected a game with an OpenSpiel form, one of {sorted(FORMS)}; "
                         f"{game!r} has none")
    return FORMS[game]


def form_of_config(config: object) -> "OpenSpielForm":
    """The OpenSpiel form of the game whose config class (in the game table) ``config`` is."""
    for f in FORMS.values():
        if type(config) is games.get(f.game).config_cls:
            return f
    raise ValueError(f"config: expected the config of a game with an OpenSpiel form ({sorted(FORMS)}), "
                     f"got {type(config).__name__}")


def config_from_params(game: str, params: Mapping[str, Any]) -> Any:
    """Our validated config from OpenSpiel parameters (``game``: a name of the game table with an
    OpenSpiel form, ``"take5"`` or ``"five_alive"``).

    ``players`` is ``num_players``; missing keys take the defaults; bad values raise the config's
    ``ValueError``.
    """
    f = form(game)
    gdef = games.get(f.game)
    values = {**_param_spec(gdef.config_cls), **dict(params)}
    fields = {("num_players" if k == "players" else k): v for k, v in values.items()}
    if "deck_counts" in fields:
        fields["deck_counts"] = _parse_deck(fields["deck_counts"])
    return gdef.make_config(fields)


def params_from_config(config: Any) -> dict[str, Any]:
    """OpenSpiel parameters of our config (``deck_counts`` as its string, ``max_cycles`` None as
    ``MAX_CYCLES``): ``pyspiel.load_game(name, params_from_config(config))`` is that game."""
    return dict(_param(f.name, getattr(config, f.name)) for f in dataclasses.fields(config))


def load(game: str, config: Any = None, **fields: Any) -> Any:
    """The OpenSpiel game of ``game`` (a name of the game table with an OpenSpiel form: ``"take5"`` or
    ``"five_alive"``) under ``config`` or the config ``fields`` (``num_players=4, mode="round"``);
    ``ValueError`` for an unknown game, a game without an OpenSpiel form, or a bad field."""
    f = form(game)
    gdef = games.get(game)
    if config is None:
        config = gdef.make_config(fields)
    elif fields:
        raise ValueError(f"config: expected config= or config fields, not both: got config= and {sorted(fields)}")
    if not isinstance(config, gdef.config_cls):
        raise ValueError(f"config: expected a {gdef.config_cls.__name__} for {game!r}, got {type(config).__name__}")
    return pyspiel.load_game(f.short_name, params_from_config(config))


def _seed_from(sampler: Any) -> int:
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


def _history(events: list[Event], player: int) -> str:
    """``player``'s history: the public events and its own private ones, in order, one per line."""
    return "\n".join([e if e.__class__ is str else e[1] for e in events if e.__class__ is str or e[0] == player])


def _resampled_events(events: list[Event], player: int, n: int, token: Callable[[int], str]) -> list[Event]:
    """The history of a determinization for ``player``: its own private events kept, every other
    player's replaced by one line, ``token(q)`` (its sampled hand), after the public ones."""
    kept = [e for e in events if e.__class__ is str or e[0] == player]
    return kept + [(q, token(q)) for q in range(n) if q != player]


# --- observers (tensors and strings) -----------------------------------------------------------------
class _Observer:
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


def _layout(pieces: Mapping[str, tuple[int, int]], shapes: Mapping[str, tuple[int, ...]],
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


def _game_type(short_name: str, long_name: str, dynamics: Any, min_players: int, max_players: int,
               config_cls: type) -> Any:
    """An OpenSpiel game type of this module: chance deals explicit, imperfect information, general-sum
    terminal rewards, every information/observation string and tensor provided, parameters from
    ``config_cls``; only the name, the dynamics and the players range differ between the games."""
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
        parameter_specification=_param_spec(config_cls),
        default_loadable=True,
        provides_factored_observation_string=False,
    )


# --- Take 5 --------------------------------------------------------------------------------------------
TAKE5_TYPE = _game_type(TAKE5, "fiveplay Take 5 (6 nimmt!)", pyspiel.GameType.Dynamics.SIMULTANEOUS,
                        T5_MIN_PLAYERS, T5_MAX_PLAYERS, Take5Config)
"""The Take 5 game type (see the module docstring's table)."""


def _take5_bounds(config: Take5Config) -> tuple[int, int]:
    """(the highest final score possible, the most decisions in a game), for the game info.

    Every round gives someone at least one bull head (4 rows take at most 16 more cards without a take,
    and at least 20 cards are played), so in ``mode="game"`` the scores' sum grows each round and the
    game ends within n (end_score - 1) + 1 rounds (n end_score + 1 when the threshold is exclusive)."""
    n = config.num_players
    per_round = int(t5state.BULLHEADS[:config.deck_size].sum())
    k = config.num_rounds
    if k is None:
        top = config.end_score - (1 if config.end_inclusive else 0) + per_round
        k = n * (config.end_score - (1 if config.end_inclusive else 0)) + 1
    else:
        top = k * per_round
    per = t5state.NUM_TRICKS * 2 + (n * t5state.HAND_SIZE if config.draft else 0)  # tricks, row choices, picks
    return top, k * per


class _Take5Core:
    """Everything a Take 5 OpenSpiel state holds (one object, so that OpenSpiel's clone deep-copies one
    attribute, with our engine's cheap ``clone``).

    ``st``: our engine state; ``deal``: the undealt cards (sorted) while a deal is in progress, else
    None; ``dealt``: cards dealt so far in it; ``events``: the history (public and private lines).
    """

    def __init__(self, config: Take5Config, st: t5state.Take5State, deal: list[int] | None, dealt: int,
                 events: list[Event]) -> None:
        self.config = config
        self.st = st
        self.deal = deal
        self.dealt = dealt
        self.events = events

    def copy(self) -> "_Take5Core":
        return _Take5Core(self.config, self.st.clone(), None if self.deal is None else self.deal[:], self.dealt,
                          self.events[:])

    def __deepcopy__(self, memo: dict[int, Any]) -> "_Take5Core":
        return self.copy()


class Take5Game(pyspiel.Game):
    """Take 5 as an OpenSpiel game (``python_fiveplay_take5``); ``config`` is our ``Take5Config``."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        config = config_from_params("take5", params or {})
        top, length = _take5_bounds(config)
        super().__init__(
            TAKE5_TYPE,
            pyspiel.GameInfo(num_distinct_actions=T5_NUM_ACTIONS, max_chance_outcomes=t5state.NUM_CARDS,
                             num_players=config.num_players, min_utility=-float(top), max_utility=0.0,
                             utility_sum=None, max_game_length=length),
            params_from_config(config),
        )
        self.config = config
        st = t5eng.new_game(config, ENGINE_SEED)
        deal = None
        if not config.draft:
            deal = _undo_take5_deal(config, st)
        self._template = _Take5Core(config, st, deal, 0, [])
        self._injected: list[Any] = []
        n = config.num_players
        shapes = {"rows": (t5state.NUM_ROWS, t5state.NUM_CARDS), "row_stats": (t5state.NUM_ROWS, 3)}
        if config.draft:
            shapes["others"] = (n - 1, t5state.NUM_CARDS)
        self._layout = _layout(t5obs.pieces(n, config.draft), shapes, t5obs.observation_size(n, config.draft))

    def new_initial_state(self) -> "Take5State":
        """A new game (its first deal is the first chance node; a draft has none)."""
        if self._injected:
            return self._injected.pop()
        return Take5State(self, self._template.copy())

    def make_py_observer(self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None) -> _Observer:
        return _Observer(self, iig_obs_type, params)

    def observation_layout(self) -> tuple[int, dict[str, tuple[int, int, tuple[int, ...]]]]:
        """(size, {piece: (offset, length, shape)}) of the observation tensor."""
        return self._layout


def _undo_take5_deal(config: Take5Config, st: t5state.Take5State) -> list[int]:
    """Take back the engine's deal of a new round; return the undealt cards (the whole deck)."""
    st.hands[:] = 0
    st.hand_size = [0] * st.num_players
    st.rows = []
    st.seen[:] = 0
    st.set_aside = []
    st.view = None
    return list(range(config.deck_size))


def _take5_text(config: Take5Config, obs: np.ndarray) -> str:
    """Take 5 observation vector in words (decoded from the vector: it shows nothing more)."""
    n = config.num_players
    pc = t5obs.pieces(n, config.draft)

    def cards(name: str, start: int = 0, size: int = t5state.NUM_CARDS) -> str:
        off = pc[name][0] + start
        got = np.flatnonzero(obs[off:off + size]) + 1
        return " ".join(str(int(c)) for c in got) if len(got) else "-"

    def ints(name: str, scale: float) -> str:
        off, size = pc[name]
        return " ".join(str(int(round(float(x) * scale))) for x in obs[off:off + size])

    seat = int(np.argmax(obs[pc["seat"][0]:pc["seat"][0] + n]))
    ph = obs[pc["phase"][0]:pc["phase"][0] + 3]
    phase = t5state.PHASE_NAMES[int(np.argmax(ph))] if ph.any() else "over"
    trick = int(round(float(obs[pc["tricks"][0]]) * t5state.NUM_TRICKS))
    rows = " | ".join(cards("rows", r * t5state.NUM_CARDS) for r in range(t5state.NUM_ROWS))
    lines = [f"seat {seat}, {phase}, tricks done {trick}",
             f"hand: {cards('hand')}",
             f"rows: {rows}",
             f"scores (from seat {seat} on): {ints('scores', config.end_score)}",
             f"this round: {ints('round_pen', config.end_score)}",
             f"seen: {cards('seen')}",
             f"trick: {cards('trick')}"]
    if config.draft:
        lines.append(f"pool: {cards('pool')}")
        for i in range(1, n):
            lines.append(f"seat +{i} holds: {cards('others', (i - 1) * t5state.NUM_CARDS)}")
    return "\n".join(lines)


class Take5State(pyspiel.State):
    """A Take 5 OpenSpiel state over our reference engine (see the module docstring)."""

    def __init__(self, game: Take5Game, core: _Take5Core | None = None) -> None:
        super().__init__(game)
        self._c = core if core is not None else game._template.copy()

    # --- OpenSpiel API -----------------------------------------------------------------------------
    def current_player(self) -> int:
        c = self._c
        if c.deal is not None:
            return _CHANCE
        phase = c.st.phase
        if phase == t5state.PLAY:
            return _SIMULTANEOUS
        if phase == t5state.OVER:
            return _TERMINAL
        return c.st.current

    def _legal_actions(self, player: int) -> list[int]:
        st = self._c.st
        if st.phase == t5state.PLAY:
            return np.flatnonzero(st.hands[player, :t5state.NUM_CARDS]).tolist()
        if player != st.current:
            return []
        return t5eng.legal_actions(st)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = self._c.deal
        if left is None:
            raise ValueError("chance_outcomes: expected a chance node (a deal in progress), got a player node")
        p = 1.0 / len(left)
        return [(c, p) for c in left]

    def _apply_action(self, action: int) -> None:
        c = self._c
        if c.deal is not None:
            self._deal_card(int(action))
            return
        st = c.st
        p, phase, rnd = st.current, st.phase, st.round
        a = int(action)
        t5eng.step(c.config, st, a)  # IllegalActionError (state untouched) for an illegal action
        if phase == t5state.ROW_CHOICE:
            self._public(f"p{p} takes row {a - t5state.ACTION_ROW0}")
        else:
            self._public(f"p{p} drafts {a + 1}")
        self._after(rnd)

    def _apply_actions(self, actions: Sequence[int]) -> None:
        c = self._c
        st = c.st
        n = st.num_players
        acts = [int(a) for a in actions]
        if len(acts) != n:
            raise ValueError(f"joint action: expected {n} actions (one per player), got {len(acts)}")
        for p, a in enumerate(acts):  # all checked first: a bad one changes nothing
            if not (0 <= a < t5state.NUM_CARDS and st.hands[p, a]):
                raise IllegalActionError(f"player_{p}", a, self._legal_actions(p))
        rnd, trick = st.round, st.trick
        for a in acts:
            t5eng.step(c.config, st, a)
        self._public(f"trick {trick + 1}: " + " ".join(f"p{p}={a + 1}" for p, a in enumerate(acts)))
        self._after(rnd)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == _CHANCE:
            return f"deal {action + 1}"
        if action >= t5state.ACTION_ROW0:
            return f"take row {action - t5state.ACTION_ROW0}"
        if self._c.st.phase == t5state.DRAFT:
            return f"draft {action + 1}"
        return f"play {action + 1} ({t5state.BULL[action]} bull heads)" if 0 <= action < t5state.NUM_CARDS \
            else f"action {action}"

    def is_terminal(self) -> bool:
        return self._c.deal is None and self._c.st.phase == t5state.OVER

    def returns(self) -> list[float]:
        st = self._c.st
        if self.is_terminal():
            return [float(-s) for s in st.scores]
        return [0.0] * st.num_players

    def __str__(self) -> str:
        c = self._c
        st = c.st
        lines = [f"round {st.round}, trick {st.trick}, {t5state.PHASE_NAMES[st.phase]}, current {st.current}"]
        for p in range(st.num_players):
            lines.append(f"p{p}: hand {[x + 1 for x in st.hand(p)]} pending "
                         f"{st.pending[p] + 1 if st.pending[p] >= 0 else '-'} score {st.scores[p]} "
                         f"round {st.round_pen[p]} taken {[x + 1 for x in st.taken[p]]}")
        lines.append("rows: " + " | ".join(" ".join(str(x + 1) for x in r) for r in st.rows))
        lines.append(f"queue: {[(x + 1, q) for x, q in st.queue]} set aside: {[x + 1 for x in st.set_aside]}")
        if st.phase == t5state.DRAFT:
            lines.append(f"pool: {[int(x) + 1 for x in np.flatnonzero(st.pool[:t5state.NUM_CARDS])]}")
        if c.deal is not None:
            lines.append(f"dealing: {c.dealt} dealt, {len(c.deal)} left")
        return "\n".join(lines)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> "Take5State":
        """A state with every card ``player_id`` cannot see re-dealt (our ``sample_world``), drawn with
        randomness from ``probability_sampler`` (see the module docstring)."""
        c = self._c
        n = c.st.num_players
        if not isinstance(player_id, (int, np.integer)) or not 0 <= int(player_id) < n:
            raise ValueError(f"player_id: expected a seat in 0..{n - 1}, got {player_id!r}")
        if c.deal is not None:
            raise ValueError("resample_from_infostate: expected a decision, simultaneous or terminal node, "
                             "got a chance node (a deal in progress)")
        rng = np.random.default_rng(_seed_from(probability_sampler))
        world = t5eng.sample_world(c.config, c.st, int(player_id), rng)
        events = _resampled_events(c.events, int(player_id), n,
                                   lambda q: "sampled hand " + " ".join(str(x + 1) for x in world.hand(q)))
        core = _Take5Core(c.config, world, None, 0, events)
        return Take5State(self.get_game(), core)

    # --- our helpers -------------------------------------------------------------------------------
    @property
    def engine_state(self) -> t5state.Take5State:
        """Our engine state inside (not a copy: do not change it)."""
        return self._c.st

    @property
    def config(self) -> Take5Config:
        return self._c.config

    def chance_slot(self) -> tuple[str, int] | None:
        """What the pending chance node deals: ``("hand", player)`` or ``("row", r)``; None if none."""
        c = self._c
        if c.deal is None:
            return None
        k = c.dealt
        n = c.st.num_players
        return ("hand", k // _T5_DEAL) if k < _T5_DEAL * n else ("row", k - _T5_DEAL * n)

    def observation_vector(self, player: int) -> np.ndarray:
        """float32: ``player``'s observation (our ``take5.observation.observe``). While the row starters
        are dealt (the last chance nodes of a deal) the table has fewer than 4 rows, which the engine
        never shows: the rows dealt so far are filled in as the observation fills in a full table (their
        cards and statistics), the rows still to come left at zero."""
        st = self._c.st
        if not 0 < len(st.rows) < t5state.NUM_ROWS:
            return t5obs.observe(self._c.config, st, player)
        bare = st.clone(view=False)
        bare.rows = []
        obs = t5obs.observe(self._c.config, bare, player)
        end, size, bull = t5obs.ROW_STAT_DIVS
        for r, row in enumerate(st.rows):
            obs[[t5obs.ROWS + t5state.NUM_CARDS * r + c for c in row]] = 1.0
            obs[t5obs.ROW_STATS + 3 * r:t5obs.ROW_STATS + 3 * r + 3] = (
                (row[-1] + 1) / end, len(row) / size, sum(int(t5state.BULL[c]) for c in row) / bull)
        return obs

    def obs_string(self, player: int) -> str:
        return _take5_text(self._c.config, self.observation_vector(player))

    def info_string(self, player: int) -> str:
        return f"{_history(self._c.events, player)}\n{self.obs_string(player)}"

    def _public(self, token: str) -> None:
        self._c.events.append(token)

    def _after(self, rnd: int) -> None:
        """A step ended a round and began the next one: its deal goes through chance nodes."""
        c = self._c
        st = c.st
        if st.round != rnd and st.phase != t5state.OVER and not c.config.draft:
            self._public(f"round {st.round + 1}")
            c.deal = _undo_take5_deal(c.config, st)
            c.dealt = 0

    def _deal_card(self, card: int) -> None:
        c = self._c
        st = c.st
        left = c.deal or []
        i = bisect.bisect_left(left, card)
        if i == len(left) or left[i] != card:
            raise ValueError(f"chance outcome: expected an undealt card id in {left[:3]}..., got {card}")
        del left[i]
        n = st.num_players
        k = c.dealt
        if k < _T5_DEAL * n:
            q = k // _T5_DEAL
            st.hands[q, card] = 1
            st.hand_size[q] += 1
        else:
            st.rows.append([card])
            st.seen[card] = 1
        st.view = None
        c.dealt = k + 1
        if c.dealt == _T5_DEAL * n + t5state.NUM_ROWS:
            st.set_aside = left
            c.deal = None
            c.dealt = 0
            self._public("rows " + " | ".join(str(r[0] + 1) for r in st.rows))
            c.events.extend((p, "dealt " + " ".join(str(x + 1) for x in st.hand(p))) for p in range(n))


# --- 5 Alive -------------------------------------------------------------------------------------------
FIVE_ALIVE_TYPE = _game_type(FIVE_ALIVE, "fiveplay 5 Alive", pyspiel.GameType.Dynamics.SEQUENTIAL,
                             FA_MIN_PLAYERS, FA_MAX_PLAYERS, FiveAliveConfig)
"""The 5 Alive game type (see the module docstring's table)."""


def _five_alive_utilities(config: FiveAliveConfig) -> tuple[float, float]:
    """(min, max) of a player's return under ``config.reward``."""
    if config.reward == "win_loss":
        return -1.0, 1.0
    if config.reward == "lives":
        return -float(LIVES), 0.0
    return -1.0 - LIVES, 1.0


class _FiveAliveCore:
    """Everything a 5 Alive OpenSpiel state holds (see ``_Take5Core``).

    ``queue``: pending chance nodes, ``("card", player, source)`` or ``("first", -1, "")``;
    ``sources``: the multisets (counts per kind) they draw from (``"deal"``, ``"pile"``, ``"old"``);
    ``pile``: the source that becomes the draw pile when the queue is empty (or ""); ``got``: what each
    player received in the pending chance events; ``acc``: each player's rewards so far; ``decisions``:
    per player; ``truncated``: ended by ``max_cycles``; ``events``: the history (public and private
    lines); ``dirty``: derived engine fields need a refresh.
    """

    def __init__(self, config: FiveAliveConfig, st: fastate.FiveAliveState, queue: list[tuple[str, int, str]],
                 sources: dict[str, list[int]], pile: str, got: list[list[int]], acc: list[float],
                 decisions: list[int], truncated: bool, events: list[Event], dirty: bool) -> None:
        self.config = config
        self.st = st
        self.queue = queue
        self.sources = sources
        self.pile = pile
        self.got = got
        self.acc = acc
        self.decisions = decisions
        self.truncated = truncated
        self.events = events
        self.dirty = dirty

    def copy(self) -> "_FiveAliveCore":
        return _FiveAliveCore(self.config, self.st.clone(), self.queue[:],
                              {k: v[:] for k, v in self.sources.items()}, self.pile, [g[:] for g in self.got],
                              self.acc[:], self.decisions[:], self.truncated, self.events[:], self.dirty)

    def __deepcopy__(self, memo: dict[int, Any]) -> "_FiveAliveCore":
        return self.copy()


class FiveAliveGame(pyspiel.Game):
    """5 Alive as an OpenSpiel game (``python_fiveplay_five_alive``); ``config`` is our ``FiveAliveConfig``."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        config = config_from_params("five_alive", params or {})
        lo, hi = _five_alive_utilities(config)
        n = config.num_players
        super().__init__(
            FIVE_ALIVE_TYPE,
            pyspiel.GameInfo(num_distinct_actions=fastate.NUM_ACTIONS, max_chance_outcomes=max(NUM_KINDS, n),
                             num_players=n, min_utility=lo, max_utility=hi, utility_sum=None,
                             max_game_length=n * (config.max_cycles or MAX_CYCLES)),
            params_from_config(config),
        )
        self.config = config
        st = faeng.new_game(config, ENGINE_SEED)
        core = _FiveAliveCore(config, st, [], {}, "", [[] for _ in range(n)], [0.0] * n, [0] * n, False, [],
                              False)
        _five_alive_deal(core)
        if config.first_player == "random":
            core.queue.append(("first", -1, ""))
        self._template = core
        self._injected: list[Any] = []
        self._layout = _layout(faobs.pieces(n), {}, faobs.observation_size(n))

    def new_initial_state(self) -> "FiveAliveState":
        """A new game: the first deal (and the first player) are its first chance nodes."""
        if self._injected:
            return self._injected.pop()
        return FiveAliveState(self, self._template.copy())

    def make_py_observer(self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None) -> _Observer:
        return _Observer(self, iig_obs_type, params)

    def observation_layout(self) -> tuple[int, dict[str, tuple[int, int, tuple[int, ...]]]]:
        """(size, {piece: (offset, length, shape)}) of the observation tensor."""
        return self._layout


def _counts(kinds: Sequence[int]) -> list[int]:
    out = [0] * NUM_KINDS
    for k in kinds:
        out[k] += 1
    return out


def _five_alive_deal(core: _FiveAliveCore) -> None:
    """The engine has just dealt a round: every survivor's cards and the draw pile go back into one
    source, dealt again through chance nodes (the rest becomes the draw pile)."""
    st = core.st
    pool = st.draw_counts()
    queue = core.queue
    for q in range(st.num_players):
        if st.alive[q]:
            h = st.hands[q]
            for k in range(NUM_KINDS):
                pool[k] += h[k]
            queue.extend([("card", q, "deal")] * st.hand_size[q])
            st.hands[q] = [0] * NUM_KINDS
    st.draw = []
    core.sources = {"deal": pool}
    core.pile = "deal"
    core.dirty = True


class FiveAliveState(pyspiel.State):
    """A 5 Alive OpenSpiel state over our reference engine (see the module docstring)."""

    def __init__(self, game: FiveAliveGame, core: _FiveAliveCore | None = None) -> None:
        super().__init__(game)
        self._c = core if core is not None else game._template.copy()

    # --- OpenSpiel API -----------------------------------------------------------------------------
    def current_player(self) -> int:
        c = self._c
        if c.queue:
            return _CHANCE
        if c.truncated or c.st.phase == fastate.OVER:
            return _TERMINAL
        return c.st.current

    def _legal_actions(self, player: int) -> list[int]:
        c = self._c
        if player != c.st.current:
            return []
        self._sync()
        return faeng.legal_actions(c.st)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        c = self._c
        if not c.queue:
            raise ValueError("chance_outcomes: expected a chance node, got a player node")
        kind, _, src = c.queue[0]
        if kind == "first":
            n = c.st.num_players
            return [(q, 1.0 / n) for q in range(n)]
        counts = c.sources[src]
        total = sum(counts)
        return [(k, x / total) for k, x in enumerate(counts) if x]

    def _apply_action(self, action: int) -> None:
        c = self._c
        a = int(action)
        if c.queue:
            self._resolve(a)
            return
        self._sync()
        st = c.st
        p, phase, rnd = st.current, st.phase, st.round
        snap = None
        if phase == fastate.PLAY and a in (fastate.DRAW1, fastate.DRAW2):
            snap = (st.draw[:], [h[:] for h in st.hands])
        redeal = phase == fastate.PLAY and a == fastate.REDEAL and st.hand_size[p] > 1
        rewards = faeng.step(c.config, st, a)  # IllegalActionError (state untouched) for an illegal action
        for q, r in enumerate(rewards):
            if r:
                c.acc[q] += r
        c.decisions[p] += 1
        self._public(describe_event(st))
        if st.phase == fastate.OVER:
            return
        if c.config.max_cycles is not None and c.decisions[p] >= c.config.max_cycles:
            c.truncated = True  # the end (our env truncates here): the step's cards stay as dealt
            self._public("truncated: max_cycles decisions")
        elif st.round != rnd:
            _five_alive_deal(c)
        elif redeal:
            self._redeal()
        elif snap is not None and st.ev_drawn:
            self._draws(*snap)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == _CHANCE:
            c = self._c
            if c.queue and c.queue[0][0] == "first":
                return f"player {action} starts"
            return KIND_NAMES[action] if 0 <= action < NUM_KINDS else f"outcome {action}"
        if self._c.st.phase == fastate.BOMB_ANSWER:
            return "discard a 0" if action == fastate.N0 else "lose a life"
        return fastate.ACTION_NAMES[action] if 0 <= action < fastate.NUM_ACTIONS else f"action {action}"

    def is_terminal(self) -> bool:
        c = self._c
        return not c.queue and (c.truncated or c.st.phase == fastate.OVER)

    def returns(self) -> list[float]:
        c = self._c
        if self.is_terminal():
            return [float(x) for x in c.acc]
        return [0.0] * c.st.num_players

    def __str__(self) -> str:
        c = self._c
        self._sync()
        st = c.st
        lines = [f"round {st.round}, {fastate.PHASE_NAMES[st.phase]}, current {st.current}, T {st.total}, "
                 f"direction {st.direction:+d}, top {KIND_NAMES[st.top] if st.top >= 0 else '-'}"]
        for p in range(st.num_players):
            lines.append(f"p{p}: lives {st.lives[p]}{'' if st.alive[p] else ' (out)'} hand {hand_text(st.hands[p])}")
        lines.append(f"draw pile ({len(st.draw)}): {hand_text(st.draw_counts())}")
        lines.append(f"discard ({st.discard_size}): {hand_text(st.discard)}")
        if c.queue:
            lines.append(f"chance: {len(c.queue)} pending, next {c.queue[0][:2]}")
        if c.truncated:
            lines.append("truncated (max_cycles)")
        return "\n".join(lines)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> "FiveAliveState":
        """A state with every card ``player_id`` cannot see re-dealt (our ``sample_world``: the other
        hands and the draw pile, honouring the public facts), drawn with randomness from
        ``probability_sampler`` (see the module docstring)."""
        c = self._c
        n = c.st.num_players
        if not isinstance(player_id, (int, np.integer)) or not 0 <= int(player_id) < n:
            raise ValueError(f"player_id: expected a seat in 0..{n - 1}, got {player_id!r}")
        if c.queue:
            raise ValueError("resample_from_infostate: expected a decision or terminal node, got a chance node")
        self._sync()
        rng = np.random.default_rng(_seed_from(probability_sampler))
        world = faeng.sample_world(c.config, c.st, int(player_id), rng)
        core = c.copy()
        core.st = world
        core.events = _resampled_events(c.events, int(player_id), n,
                                        lambda q: "sampled hand " + hand_text(world.hands[q]))
        return FiveAliveState(self.get_game(), core)

    # --- our helpers -------------------------------------------------------------------------------
    @property
    def engine_state(self) -> fastate.FiveAliveState:
        """Our engine state inside (not a copy: do not change it)."""
        self._sync()
        return self._c.st

    @property
    def config(self) -> FiveAliveConfig:
        return self._c.config

    def chance_slot(self) -> tuple[str, int] | None:
        """What the pending chance node decides: ``("card", player)`` (a card dealt or drawn to that
        player), ``("first", -1)`` (the first player); None if none is pending."""
        c = self._c
        if not c.queue:
            return None
        kind, q, _ = c.queue[0]
        return (kind, q)

    def observation_vector(self, player: int) -> np.ndarray:
        """float32: ``player``'s observation (our ``five_alive.observation.observe``)."""
        self._sync()
        return faobs.observe(self._c.config, self._c.st, player)

    def obs_string(self, player: int) -> str:
        return _five_alive_text(self._c.config, self.observation_vector(player))

    def info_string(self, player: int) -> str:
        return f"{_history(self._c.events, player)}\n{self.obs_string(player)}"

    def _sync(self) -> None:
        c = self._c
        if c.dirty:
            faeng.refresh(c.st)
            c.dirty = False

    def _public(self, token: str) -> None:
        self._c.events.append(token)

    def _resolve(self, a: int) -> None:
        c = self._c
        st = c.st
        kind, q, src = c.queue[0]
        if kind == "first":
            if not 0 <= a < st.num_players:
                raise ValueError(f"chance outcome: expected a first player in 0..{st.num_players - 1}, got {a}")
            st.current = a
            self._public(f"player_{a} starts")
        else:
            counts = c.sources[src]
            if not (0 <= a < NUM_KINDS and counts[a] > 0):
                raise ValueError(f"chance outcome: expected a kind among {[k for k, x in enumerate(counts) if x]}, "
                                 f"got {a}")
            counts[a] -= 1
            st.hands[q][a] += 1
            c.got[q].append(a)
        c.queue.pop(0)
        c.dirty = True
        if not c.queue:
            self._finish()

    def _finish(self) -> None:
        """The pending chance events are resolved: the draw pile is what is left of its source (in an
        order drawn from the state's seed), and each player's private log gets what it received."""
        c = self._c
        st = c.st
        if c.pile:
            cards = [k for k in range(NUM_KINDS) for _ in range(c.sources[c.pile][k])]
            perm = seeding.permutation(st.seed, st.counter, len(cards)).tolist()
            st.counter += 1
            st.draw = [cards[i] for i in perm]
        c.sources = {}
        c.pile = ""
        for q, got in enumerate(c.got):
            if got:
                c.events.append((q, "got " + hand_text(_counts(got))))
                c.got[q] = []
        faeng.refresh(st)
        c.dirty = False

    def _redeal(self) -> None:
        """Hand In & Re-Deal: the survivors' new hands go back into one source, dealt again by chance
        (each keeps its number of cards; which card goes where is all that chance decides)."""
        c = self._c
        st = c.st
        pool = [0] * NUM_KINDS
        for q in range(st.num_players):
            if st.alive[q] and st.hand_size[q]:
                h = st.hands[q]
                for k in range(NUM_KINDS):
                    pool[k] += h[k]
                c.queue.extend([("card", q, "deal")] * st.hand_size[q])
                st.hands[q] = [0] * NUM_KINDS
        c.sources = {"deal": pool}
        c.pile = ""
        c.dirty = True

    def _draws(self, pre_draw: list[int], pre_hands: list[list[int]]) -> None:
        """Draw 1 / Draw 2 (the round goes on): the cards drawn are taken back and drawn again by chance,
        in the same order, from the old pile and, after a reshuffle, from the reshuffled cards."""
        c = self._c
        st = c.st
        drawers = st.ev_drawn[:]
        received = [0] * NUM_KINDS
        for q in set(drawers):
            h, before = st.hands[q], pre_hands[q]
            for k in range(NUM_KINDS):
                d = h[k] - before[k]
                if d:
                    received[k] += d
                    h[k] = before[k]
        pile = st.draw_counts()
        old = _counts(pre_draw)
        if st.ev_reshuffled:  # the old pile was drawn to its last card, then the reshuffled one
            d0 = len(pre_draw)
            c.sources = {"old": old, "pile": [pile[k] + received[k] - old[k] for k in range(NUM_KINDS)]}
            c.queue.extend([("card", q, "old") for q in drawers[:d0]] + [("card", q, "pile") for q in drawers[d0:]])
        else:
            c.sources = {"pile": [pile[k] + received[k] for k in range(NUM_KINDS)]}
            c.queue.extend([("card", q, "pile") for q in drawers])
        st.draw = []
        c.pile = "pile"
        c.dirty = True


def _five_alive_text(config: FiveAliveConfig, obs: np.ndarray) -> str:
    """5 Alive observation vector in words (decoded from the vector: it shows nothing more)."""
    n = config.num_players
    v = [int(x) for x in obs.tolist()]  # every value is a small integer
    H, D, TOP, TOT, DIR, DRAW, PH, S = (faobs.HAND, faobs.DISCARD, faobs.TOP, faobs.TOTAL, faobs.DIRECTION,
                                        faobs.DRAW_PILE, faobs.PHASE, faobs.SEATS)
    top = v[TOP:TOP + NUM_KINDS]
    ph = v[PH:PH + 2]
    turn = v[S:S + n]
    phase = fastate.PHASE_NAMES[ph.index(1)] if 1 in ph else "over"
    who = f"seat +{turn.index(1)}" if 1 in turn else "-"
    return (f"{phase}, turn {who}, T {v[TOT:TOT + 22].index(1)}, "
            f"{'clockwise' if v[DIR] else 'counter-clockwise'}, draw pile {v[DRAW]}\n"
            f"hand: {hand_text(v[H:H + NUM_KINDS])}\n"
            f"top: {KIND_NAMES[top.index(1)] if 1 in top else '-'}\n"
            f"discard: {hand_text(v[D:D + NUM_KINDS])}\n"
            f"lives (from this seat on): {' '.join(map(str, v[S + n:S + 2 * n]))}\n"
            f"hand sizes: {' '.join(map(str, v[S + 2 * n:S + 3 * n]))}")


# --- positions from our engines, and the turn-based Take 5 --------------------------------------------



def state_from_engine(game: Any, engine_state: Any) -> Any:
    """An OpenSpiel state of ``game`` at the position of our engine state ``engine_state`` (copied).

    Take 5: our AEC state may be in the middle of a trick (the players before the acting one have
    chosen); the OpenSpiel state is the trick's simultaneous node, those cards back in their hands
    (``turn_based_from_engine`` keeps them as chosen). The history is one line, "position" (each
    information-state string is then that line, what follows, and the player's observation); a 5 Alive
    state's returns count the results and lives already lost. Raises ``ValueError`` for another game's state or another number of players.
    """
    config = getattr(game, "config", None)
    if isinstance(config, Take5Config):
        if not isinstance(engine_state, t5state.Take5State) or engine_state.num_players != config.num_players:
            raise ValueError(f"engine_state: expected a {config.num_players}-player Take5State, "
                             f"got {type(engine_state).__name__}")
        st = engine_state.clone(view=False)
        for q, card in enumerate(st.pending):
            if card >= 0:
                st.hands[q, card] = 1
                st.hand_size[q] += 1
                st.pending[q] = -1
        if st.phase == t5state.PLAY:
            st.current = 0
        state = Take5State(game, _Take5Core(config, st, None, 0, ["position"]))
    elif isinstance(config, FiveAliveConfig):
        if not isinstance(engine_state, fastate.FiveAliveState) or engine_state.num_players != config.num_players:
            raise ValueError(f"engine_state: expected a {config.num_players}-player FiveAliveState, "
                             f"got {type(engine_state).__name__}")
        n = config.num_players
        st = engine_state.clone()
        acc = [0.0] * n
        for q in range(n):
            if config.reward != "lives":
                acc[q] += st.result[q]
            if config.reward != "win_loss":
                acc[q] -= LIVES - st.lives[q]
        state = FiveAliveState(game, _FiveAliveCore(config, st, [], {}, "", [[] for _ in range(n)], acc, [0] * n,
                                                    False, ["position"], False))
    else:
        raise ValueError(f"game: expected a game of {sorted(GAME_NAMES.values())}, got {game}")
    return state


def _turn_based(tb_game: Any, game: Take5Game, state: Take5State, chosen: Sequence[int]) -> Any:
    """The turn-based state wrapping ``state``, with the players 0..k-1 of the trick having chosen
    ``chosen`` (OpenSpiel builds the wrapper around ``game.new_initial_state()``, so that one call hands
    it ``state``)."""
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


def turn_based_from_engine(tb_game: Any, game: Take5Game, engine_state: t5state.Take5State) -> Any:
    """A state of ``tb_game = pyspiel.convert_to_turn_based(game)`` at the position of our Take 5 engine
    state (our AEC order and the turn-based one agree: in each trick players 0..n-1 choose in turn, each
    seeing none of the earlier choices; the cards already chosen are its buffered actions)."""
    if not isinstance(game, Take5Game):
        raise ValueError(f"game: expected a {TAKE5} game, got {game}")
    chosen = [c for c in engine_state.pending if c >= 0] if engine_state.phase == t5state.PLAY else []
    if chosen and any(c < 0 for c in engine_state.pending[:len(chosen)]):  # pragma: no cover
        raise ValueError("engine_state: expected the cards of a trick chosen in seat order")
    return _turn_based(tb_game, game, state_from_engine(game, engine_state), chosen)


def turn_based_resampler(game: Take5Game, tb_game: Any, seed: int = 0) -> Callable[[Any, int], Any]:
    """A resampler for OpenSpiel's Python IS-MCTS on ``tb_game = pyspiel.convert_to_turn_based(game)``
    (``bot.set_resampler(turn_based_resampler(game, tb_game))``): OpenSpiel's conversion does not forward
    ``resample_from_infostate``, so this rebuilds our state from the turn-based state's history, re-deals
    what the player cannot see (the other hands and the cards chosen before it in the trick: our
    ``sample_world``, with a generator seeded by ``seed``) and wraps it again. The states it returns have
    an empty history (they are for search, not to be resampled again)."""
    if not isinstance(game, Take5Game):
        raise ValueError(f"game: expected a {TAKE5} game, got {game}")
    cache: dict[str, Any] = {}
    rng = np.random.default_rng(seed)

    def resample(tb_state: Any, player: int) -> Any:
        history = tuple(tb_state.history())
        if cache.get("history") != history:
            inner, chosen = _replay_turn_based(game, history)
            cache.update(history=history, inner=inner, chosen=chosen)
        inner, chosen = cache["inner"], cache["chosen"]
        c = inner._c
        st = c.st.clone(view=False)
        for q, card in enumerate(chosen):
            st.hands[q, card] = 0
            st.hand_size[q] -= 1
            st.pending[q] = card
        if chosen:
            st.current = len(chosen)
        world = t5eng.sample_world(c.config, st, int(player), rng)
        events = _resampled_events(c.events, int(player), st.num_players,
                                   lambda q: "sampled hand " + " ".join(str(x + 1) for x in world.hand(q)))
        again = [card for card in world.pending if card >= 0]
        for q, card in enumerate(world.pending):
            if card >= 0:
                world.hands[q, card] = 1
                world.hand_size[q] += 1
                world.pending[q] = -1
        if world.phase == t5state.PLAY:
            world.current = 0
        world.view = None
        state = Take5State(game, _Take5Core(c.config, world, None, 0, events))
        return _turn_based(tb_game, game, state, again)

    return resample


def _replay_turn_based(game: Take5Game, history: Sequence[int]) -> tuple[Take5State, list[int]]:
    """Our simultaneous state after a turn-based history, and the cards chosen so far in the current
    trick (the turn-based game's buffered actions)."""
    state = game.new_initial_state()
    n = game.config.num_players
    chosen: list[int] = []
    for a in history:
        player = state.current_player()
        if player == _SIMULTANEOUS:
            chosen.append(int(a))
            if len(chosen) == n:
                state._apply_actions(chosen)
                chosen = []
        else:
            state._apply_action(int(a))
    return state, chosen


@dataclasses.dataclass(frozen=True)
class OpenSpielForm:
    """A game of the game table (``fiveplay_env.games``) as an OpenSpiel game.

    | field            | what                                                                      |
    |------------------|---------------------------------------------------------------------------|
    | ``game``         | its name in the game table (``"take5"``)                                  |
    | ``short_name``   | OpenSpiel's name (``pyspiel.load_game(short_name)``)                      |
    | ``game_type``    | the ``pyspiel.GameType`` (declared once; its parameters are the config's) |
    | ``game_cls``     | the ``pyspiel.Game`` subclass                                              |
    | ``simultaneous`` | OpenSpiel's searches play it through ``pyspiel.convert_to_turn_based``    |
    """

    game: str
    short_name: str
    game_type: Any
    game_cls: type
    simultaneous: bool


FORMS: dict[str, OpenSpielForm] = {f.game: f for f in (
    OpenSpielForm("take5", TAKE5, TAKE5_TYPE, Take5Game, True),
    OpenSpielForm("five_alive", FIVE_ALIVE, FIVE_ALIVE_TYPE, FiveAliveGame, False),
)}
"""The games of the game table (``fiveplay_env.games``) that have an OpenSpiel form, by table name."""

GAME_NAMES: dict[str, str] = {name: f.short_name for name, f in FORMS.items()}
"""Our game names -> OpenSpiel short names."""


def register() -> None:
    """Register every game of ``FORMS`` with OpenSpiel (done on import; a second call does nothing)."""
    known = {g.short_name for g in pyspiel.registered_games()}
    for f in FORMS.values():
        if f.short_name not in known:
            pyspiel.register_game(f.game_type, f.game_cls)


register()

__all__ = ["FIVE_ALIVE", "FIVE_ALIVE_TYPE", "FORMS", "GAME_NAMES", "MAX_CYCLES", "TAKE5", "TAKE5_TYPE",
           "FiveAliveGame", "FiveAliveState", "OpenSpielForm", "Take5Game", "Take5State", "config_from_params",
           "form", "form_of_config", "load", "params_from_config",
           "register", "state_from_engine", "turn_based_from_engine", "turn_based_resampler"]
