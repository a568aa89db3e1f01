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
have an OpenSpiel form, by table name (``form(name)``: a clear error for any other game): each game
declares its form's module (``GameDef.openspiel``: ``fiveplay_env/<game>/openspiel.py``, whose ``FORM``
is an ``OpenSpielForm``); this module holds what the forms share (parameters, observers, strings, the
game type, determinization helpers, the turn-based positions) and finds each game's form through its
definition, never by its name. The forms' own names (``Take5Game``, ``FiveAliveState``, ``TAKE5_TYPE``
...) are importable from here too. Every
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
``fiveplay_env.agents.base.InformationSet``), with the history replaced by a "position" line;
``turn_based_from_engine(tb_game, game, engine_state)`` is the same position in the turn-based Take 5
(our AEC env's choices already made in the trick become the turn-based game's buffered actions).
``fiveplay_env.agents.openspiel_agent`` plays OpenSpiel's bots in our tournaments this way.

**A game's form** (``fiveplay_env/<game>/openspiel.py``, a module with ``FORM``, ``GAME_NAME`` and
``load(config)``) builds on the parts every form shares, ``fiveplay_env.core.openspiel`` (the game type,
the observer, the history lines, parameters, the turn-based wrapper; a game's package imports nothing
above the core); they are importable from here too. This module finds the forms through the game table
(``GameDef.openspiel``), registers them with ``pyspiel`` and looks a game's form up by name, config or
game object.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    from fiveplay_env.core import extras as _extras

    raise ImportError("fiveplay_env.integrations.openspiel needs OpenSpiel (the open_spiel package), of the "
                      "'openspiel' extra: " + _extras.install_hint("openspiel"), name="pyspiel") from exc

from fiveplay_env import games
from fiveplay_env.core.openspiel import (  # noqa: F401 - the shared parts, importable from here too
    CHANCE, ENGINE_SEED, MAX_CYCLES, SIMULTANEOUS, TERMINAL, Event, Observer, OpenSpielForm, config_of_params,
    game_type, history_text, observation_layout, param_spec, params_of_config, resampled_events, seed_from,
    turn_based_state,
)


# --- parameters and games --------------------------------------------------------------------------------
def config_from_params(game: str, params: Mapping[str, Any]) -> Any:
    """Our validated config from OpenSpiel parameters (``game``: a name of the game table with an
    OpenSpiel form, ``FORMS``).

    ``players`` is ``num_players``; missing keys take the defaults; bad values raise the config's
    ``ValueError``.
    """
    f = form(game)
    return config_of_params(games.get(f.game).config_cls, params, f.params_encode, f.params_decode)


def params_from_config(config: Any) -> dict[str, Any]:
    """OpenSpiel parameters of our config (a field its game's form encodes, e.g. 5 Alive's ``deck_counts``,
    as its string, ``max_cycles`` None as ``MAX_CYCLES``): ``pyspiel.load_game(name, params_from_config(config))``
    is that game."""
    f = _form_of_config_or_none(config)
    return params_of_config(config, f.params_encode if f is not None else None)


def load(game: str, config: Any = None, **fields: Any) -> Any:
    """The OpenSpiel game of ``game`` (a name of the game table with an OpenSpiel form, ``FORMS``) under
    ``config`` or the config ``fields`` (``num_players=4, mode="round"``); ``ValueError`` for an unknown
    game, a game without an OpenSpiel form, or a bad field."""
    f = form(game)
    gdef = games.get(game)
    if config is None:
        config = gdef.make_config(fields)
    elif fields:
        raise ValueError(f"config: expected config= or config fields, not both: got config= and {sorted(fields)}")
    if not isinstance(config, gdef.config_cls):
        raise ValueError(f"config: expected a {gdef.config_cls.__name__} for {game!r}, got {type(config).__name__}")
    return pyspiel.load_game(f.short_name, params_from_config(config))


def _declared() -> dict[str, str]:
    """Game name -> the module of its OpenSpiel form (``GameDef.openspiel``), for the games that declare one."""
    return {name: g.openspiel for name, g in games.table().items() if g.openspiel}


def _module_form(module: str) -> OpenSpielForm:
    """The ``FORM`` of a game's OpenSpiel module."""
    f = getattr(importlib.import_module(module), "FORM", None)
    if not isinstance(f, OpenSpielForm):
        raise ValueError(f"{module}.FORM: expected an OpenSpielForm, got {type(f).__name__}")
    return f


class _Forms(Mapping[str, OpenSpielForm]):
    """A read-only live view, game name -> ``OpenSpielForm``, of the games that declare one (their forms'
    modules imported on first use)."""

    def __getitem__(self, name: str) -> OpenSpielForm:
        module = _declared().get(name) if isinstance(name, str) else None
        if not module:
            raise KeyError(name)
        return _module_form(module)

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(_declared()))

    def __len__(self) -> int:
        return len(_declared())

    def __repr__(self) -> str:
        return f"FORMS({sorted(_declared())})"


FORMS: Mapping[str, OpenSpielForm] = _Forms()
"""The games of the game table (``fiveplay_env.games``) that have an OpenSpiel form, by table name."""


class _ShortNames(Mapping[str, str]):
    """Our game names -> OpenSpiel short names (a live view of ``FORMS``)."""

    def __getitem__(self, name: str) -> str:
        return FORMS[name].short_name

    def __iter__(self) -> Iterator[str]:
        return iter(FORMS)

    def __len__(self) -> int:
        return len(FORMS)

    def __repr__(self) -> str:
        return repr(dict(self))


GAME_NAMES: Mapping[str, str] = _ShortNames()
"""Our game names -> OpenSpiel short names."""


def form(game: str) -> OpenSpielForm:
    """The OpenSpiel form of the game called ``game`` in the game table (``fiveplay_env.games``):
    ``ValueError`` listing the table's games for an unknown name, or the games with an OpenSpiel form
    for a game of the table without one."""
    games.get(game)
    if game not in _declared():
        raise ValueError(f"game: expected a game with an OpenSpiel form, one of {sorted(FORMS)}; "
                         f"{game!r} has none")
    return FORMS[game]


def _form_of_config_or_none(config: object) -> OpenSpielForm | None:
    for name in FORMS:
        if type(config) is games.get(name).config_cls:
            return FORMS[name]
    return None


def form_of_config(config: object) -> OpenSpielForm:
    """The OpenSpiel form of the game whose config class (in the game table) ``config`` is."""
    f = _form_of_config_or_none(config)
    if f is None:
        raise ValueError(f"config: expected the config of a game with an OpenSpiel form ({sorted(FORMS)}), "
                         f"got {type(config).__name__}")
    return f


def _form_of_game(game: Any) -> OpenSpielForm:
    f = _form_of_config_or_none(getattr(game, "config", None))
    if f is None or not isinstance(game, f.game_cls):
        raise ValueError(f"game: expected a game of {sorted(GAME_NAMES.values())}, got {game}")
    return f


# --- positions from our engines ----------------------------------------------------------------------------
def state_from_engine(game: Any, engine_state: Any) -> Any:
    """An OpenSpiel state of ``game`` at the position of our engine state ``engine_state`` (copied), by the
    game's form (``OpenSpielForm.state_from_engine``).

    Take 5: our AEC state may be in the middle of a trick (the players before the acting one have
    chosen); the OpenSpiel state is the trick's simultaneous node, those cards back in their hands
    (``turn_based_from_engine`` keeps them as chosen). The history is one line, "position" (each
    information-state string is then that line, what follows, and the player's observation); a 5 Alive
    state's returns count the results and lives already lost. Raises ``ValueError`` for another game's
    state or another number of players.
    """
    return _form_of_game(game).state_from_engine(game, engine_state)


def _turn_based_form(game: Any) -> OpenSpielForm:
    f = _form_of_game(game)
    if f.turn_based_from_engine is None or f.turn_based_resampler is None:
        have = sorted(x.short_name for x in FORMS.values() if x.turn_based_from_engine is not None)
        raise ValueError(f"game: expected a game with a turn-based form ({' or '.join(have)}), got {game}")
    return f


def turn_based_from_engine(tb_game: Any, game: Any, engine_state: Any) -> Any:
    """A state of ``tb_game = pyspiel.convert_to_turn_based(game)`` at the position of our engine state, for a
    simultaneous game (Take 5: our AEC order and the turn-based one agree: in each trick players 0..n-1
    choose in turn, each seeing none of the earlier choices; the cards already chosen are its buffered
    actions)."""
    return _turn_based_form(game).turn_based_from_engine(tb_game, game, engine_state)


def turn_based_resampler(game: Any, tb_game: Any, seed: int = 0) -> Callable[[Any, int], Any]:
    """A resampler for OpenSpiel's Python IS-MCTS on ``tb_game = pyspiel.convert_to_turn_based(game)``
    (``bot.set_resampler(turn_based_resampler(game, tb_game))``): OpenSpiel's conversion does not forward
    ``resample_from_infostate``, so this rebuilds our state from the turn-based state's history, re-deals
    what the player cannot see (our ``sample_world``, with a generator seeded by ``seed``) and wraps it
    again. The states it returns have an empty history (they are for search, not to be resampled again)."""
    return _turn_based_form(game).turn_based_resampler(game, tb_game, seed)


def register() -> None:
    """Register every game of ``FORMS`` with OpenSpiel (done on import; a second call does nothing)."""
    known = {g.short_name for g in pyspiel.registered_games()}
    for f in FORMS.values():
        if f.short_name not in known:
            pyspiel.register_game(f.game_type, f.game_cls)
            known.add(f.short_name)


def __getattr__(name: str) -> Any:
    """A name of a game's form (``Take5Game``, ``FiveAliveState``, ``TAKE5_TYPE`` ...): every form module's
    ``__all__`` is importable from here, as before the forms moved to their games."""
    for module in _declared().values():
        mod = importlib.import_module(module)
        if name in getattr(mod, "__all__", ()) and name not in ("FORM", "GAME_NAME", "load"):
            return getattr(mod, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


register()

__all__ = ["FORMS", "GAME_NAMES", "MAX_CYCLES", "OpenSpielForm", "config_from_params", "form", "form_of_config", "load",
           "params_from_config", "register", "state_from_engine", "turn_based_from_engine", "turn_based_resampler"]
