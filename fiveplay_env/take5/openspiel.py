"""Take 5 as an OpenSpiel game (``python_fiveplay_take5``): the game's form for the OpenSpiel integration
(``fiveplay_env.integrations.openspiel``, which finds it through ``GAME.openspiel`` and registers it with
``pyspiel``; that module's docstring describes the parameters, nodes, chance, tensors, strings, rewards and
determinization of both games). Needs the ``openspiel`` extra; ``fiveplay_env`` never imports this module.

| name                        | what                                                                       |
|-----------------------------|----------------------------------------------------------------------------|
| ``Take5Game``, ``Take5State`` | the ``pyspiel.Game`` / ``pyspiel.State`` over our reference engine       |
| ``TAKE5_TYPE``              | the game type: SIMULTANEOUS, explicit chance (one card a node), 2..10 players |
| ``state_from_engine``       | an OpenSpiel state at the position of one of our engine states             |
| ``turn_based_from_engine``, | the same position in ``pyspiel.convert_to_turn_based(game)``, and a        |
| ``turn_based_resampler``    | resampler for OpenSpiel's Python IS-MCTS on that turn-based game           |
| ``FORM``, ``GAME_NAME``, ``load`` | what the integration reads (``OpenSpielForm``), the short name, the game of a config |

Every trick is one simultaneous node; the row choices and the draft picks are decision nodes of their
single mover. Over 450 lines because it is one game's whole OpenSpiel form (game, state, chance deals,
strings, determinization and the turn-based conversion's positions), which reads best in one place.
"""
from __future__ import annotations

import bisect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from fiveplay_env.core.errors import IllegalActionError
from fiveplay_env.core.openspiel import (
    CHANCE, ENGINE_SEED, SIMULTANEOUS, TERMINAL, Event, Observer, OpenSpielForm, config_of_params, game_type,
    history_text, observation_layout, params_of_config, pyspiel, resampled_events, seed_from,
    turn_based_state,
)
from fiveplay_env.take5 import GAME
from fiveplay_env.take5 import engine as t5eng
from fiveplay_env.take5 import observation as t5obs
from fiveplay_env.take5 import state as t5state
from fiveplay_env.take5.config import MAX_PLAYERS as T5_MAX_PLAYERS
from fiveplay_env.take5.config import MIN_PLAYERS as T5_MIN_PLAYERS
from fiveplay_env.take5.config import Take5Config

TAKE5 = "python_fiveplay_take5"
GAME_NAME = TAKE5
COMPARE_BUDGETS = (20, 80)
"""``fiveplay openspiel-compare``'s OpenSpiel budgets for this game (a Take 5 simulation is cheap)."""
"""OpenSpiel's name of the game (``pyspiel.load_game(GAME_NAME)``)."""

T5_NUM_ACTIONS = t5state.ACTION_WAIT  # 108: the WAIT id of our parallel env is never needed here
_T5_DEAL = t5state.HAND_SIZE  # cards per hand


TAKE5_TYPE = game_type(TAKE5, "fiveplay Take 5 (6 nimmt!)", pyspiel.GameType.Dynamics.SIMULTANEOUS,
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
        config = config_of_params(Take5Config, params or {})
        top, length = _take5_bounds(config)
        super().__init__(
            TAKE5_TYPE,
            pyspiel.GameInfo(num_distinct_actions=T5_NUM_ACTIONS, max_chance_outcomes=t5state.NUM_CARDS,
                             num_players=config.num_players, min_utility=-float(top), max_utility=0.0,
                             utility_sum=None, max_game_length=length),
            params_of_config(config),
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
        self._layout = observation_layout(t5obs.pieces(n, config.draft), shapes, t5obs.observation_size(n, config.draft))

    def new_initial_state(self) -> "Take5State":
        """A new game (its first deal is the first chance node; a draft has none)."""
        if self._injected:
            return self._injected.pop()
        return Take5State(self, self._template.copy())

    def make_py_observer(self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None) -> Observer:
        return Observer(self, iig_obs_type, params)

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
            return CHANCE
        phase = c.st.phase
        if phase == t5state.PLAY:
            return SIMULTANEOUS
        if phase == t5state.OVER:
            return TERMINAL
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
        if player == CHANCE:
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
        rng = np.random.default_rng(seed_from(probability_sampler))
        world = t5eng.sample_world(c.config, c.st, int(player_id), rng)
        events = resampled_events(c.events, int(player_id), n,
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
        return f"{history_text(self._c.events, player)}\n{self.obs_string(player)}"

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


# --- positions from our engine, and the turn-based game ------------------------------------------------
def state_from_engine(game: "Take5Game", engine_state: t5state.Take5State) -> "Take5State":
    """An OpenSpiel state of ``game`` at the position of our engine state ``engine_state`` (copied): our AEC
    state may be in the middle of a trick (the players before the acting one have chosen); the OpenSpiel
    state is the trick's simultaneous node, those cards back in their hands (``turn_based_from_engine``
    keeps them as chosen). The history is one line, "position". ``ValueError`` for another game's state
    or another number of players."""
    config = game.config
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
    return Take5State(game, _Take5Core(config, st, None, 0, ["position"]))


def turn_based_from_engine(tb_game: Any, game: Take5Game, engine_state: t5state.Take5State) -> Any:
    """A state of ``tb_game = pyspiel.convert_to_turn_based(game)`` at the position of our Take 5 engine
    state (our AEC order and the turn-based one agree: in each trick players 0..n-1 choose in turn, each
    seeing none of the earlier choices; the cards already chosen are its buffered actions)."""
    if not isinstance(game, Take5Game):
        raise ValueError(f"game: expected a {TAKE5} game, got {game}")
    chosen = [c for c in engine_state.pending if c >= 0] if engine_state.phase == t5state.PLAY else []
    if chosen and any(c < 0 for c in engine_state.pending[:len(chosen)]):  # pragma: no cover
        raise ValueError("engine_state: expected the cards of a trick chosen in seat order")
    return turn_based_state(tb_game, game, state_from_engine(game, engine_state), chosen)


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
        events = resampled_events(c.events, int(player), st.num_players,
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
        return turn_based_state(tb_game, game, state, again)

    return resample


def _replay_turn_based(game: Take5Game, history: Sequence[int]) -> tuple[Take5State, list[int]]:
    """Our simultaneous state after a turn-based history, and the cards chosen so far in the current
    trick (the turn-based game's buffered actions)."""
    state = game.new_initial_state()
    n = game.config.num_players
    chosen: list[int] = []
    for a in history:
        player = state.current_player()
        if player == SIMULTANEOUS:
            chosen.append(int(a))
            if len(chosen) == n:
                state._apply_actions(chosen)
                chosen = []
        else:
            state._apply_action(int(a))
    return state, chosen


FORM = OpenSpielForm(GAME.name, TAKE5, TAKE5_TYPE, Take5Game, simultaneous=True,
                     state_from_engine=state_from_engine, turn_based_from_engine=turn_based_from_engine,
                     turn_based_resampler=turn_based_resampler)
"""Take 5's OpenSpiel form (what the integration reads)."""


def load(config: Take5Config) -> Take5Game:
    """The OpenSpiel game of our ``config``."""
    return pyspiel.load_game(TAKE5, params_of_config(config))


__all__ = ["FORM", "GAME_NAME", "T5_NUM_ACTIONS", "TAKE5", "TAKE5_TYPE", "Take5Game", "Take5State", "load",
           "state_from_engine", "turn_based_from_engine", "turn_based_resampler"]
