"""5 Alive as an OpenSpiel game (``python_fiveplay_five_alive``): the game's form for the OpenSpiel
integration (``fiveplay_env.integrations.openspiel``, which finds it through ``GAME.openspiel`` and
registers it with ``pyspiel``; that module's docstring describes the parameters, nodes, chance, tensors,
strings, rewards and determinization of both games). Needs the ``openspiel`` extra; ``fiveplay_env``
never imports this module.

| name                              | what                                                                  |
|-----------------------------------|-----------------------------------------------------------------------|
| ``FiveAliveGame``, ``FiveAliveState`` | the ``pyspiel.Game`` / ``pyspiel.State`` over our reference engine |
| ``FIVE_ALIVE_TYPE``               | the game type: SEQUENTIAL, explicit chance (one card kind a node), 2..6 players |
| ``state_from_engine``             | an OpenSpiel state at the position of one of our engine states        |
| ``FORM``, ``GAME_NAME``, ``load`` | what the integration reads (``OpenSpielForm``), the short name, the game of a config |

``deck_counts`` is an OpenSpiel parameter string (``PARAMS_ENCODE`` / ``PARAMS_DECODE``): the 18 counts in
kind order separated by spaces, or ``kind:count`` items for the kinds that differ from the rule book's deck.

Over 450 lines because it is one game's whole OpenSpiel form (game, state, chance deals and draws, the
re-deal, strings, determinization), which reads best in one place.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from fiveplay_env.core import seeding
from fiveplay_env.five_alive import GAME
from fiveplay_env.five_alive import determinize
from fiveplay_env.five_alive import engine as faeng
from fiveplay_env.five_alive import observation as faobs
from fiveplay_env.five_alive import state as fastate
from fiveplay_env.five_alive.config import KIND_KEYS, KIND_NAMES, LIVES, NUM_KINDS, FiveAliveConfig
from fiveplay_env.five_alive.config import MAX_PLAYERS as FA_MAX_PLAYERS
from fiveplay_env.five_alive.config import MIN_PLAYERS as FA_MIN_PLAYERS
from fiveplay_env.five_alive.render import describe_event, hand_text
from fiveplay_env.core.openspiel import (
    CHANCE, ENGINE_SEED, MAX_CYCLES, TERMINAL, Event, Observer, OpenSpielForm, config_of_params, game_type,
    history_text, observation_layout, params_of_config, pyspiel, resampled_events, seed_from,
)

FIVE_ALIVE = "python_fiveplay_five_alive"
GAME_NAME = FIVE_ALIVE
COMPARE_BUDGETS = (5, 20)
"""``fiveplay openspiel-compare``'s OpenSpiel budgets for this game (a 5 Alive game is long)."""
"""OpenSpiel's name of the game (``pyspiel.load_game(GAME_NAME)``)."""


# --- parameters ----------------------------------------------------------------------------------------
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


PARAMS_ENCODE = {"deck_counts": _deck_string}
"""Config fields whose OpenSpiel parameter is not the value itself: field -> value -> parameter."""
PARAMS_DECODE = {"deck_counts": _parse_deck}
"""The way back: field -> parameter -> what ``FiveAliveConfig`` takes."""


# --- the game ----------------------------------------------------------------------------------------------
FIVE_ALIVE_TYPE = game_type(FIVE_ALIVE, "fiveplay 5 Alive", pyspiel.GameType.Dynamics.SEQUENTIAL,
                            FA_MIN_PLAYERS, FA_MAX_PLAYERS, FiveAliveConfig, PARAMS_ENCODE)
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
        config = config_of_params(FiveAliveConfig, params or {}, PARAMS_ENCODE, PARAMS_DECODE)
        lo, hi = _five_alive_utilities(config)
        n = config.num_players
        super().__init__(
            FIVE_ALIVE_TYPE,
            pyspiel.GameInfo(num_distinct_actions=fastate.NUM_ACTIONS, max_chance_outcomes=max(NUM_KINDS, n),
                             num_players=n, min_utility=lo, max_utility=hi, utility_sum=None,
                             max_game_length=n * (config.max_cycles or MAX_CYCLES)),
            params_of_config(config, PARAMS_ENCODE),
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
        self._layout = observation_layout(faobs.pieces(n), {}, faobs.observation_size(n))

    def new_initial_state(self) -> "FiveAliveState":
        """A new game: the first deal (and the first player) are its first chance nodes."""
        if self._injected:
            return self._injected.pop()
        return FiveAliveState(self, self._template.copy())

    def make_py_observer(self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None) -> Observer:
        return Observer(self, iig_obs_type, params)

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
            return CHANCE
        if c.truncated or c.st.phase == fastate.OVER:
            return TERMINAL
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
        if player == CHANCE:
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
        rng = np.random.default_rng(seed_from(probability_sampler))
        world = determinize.sample_world(c.config, c.st, int(player_id), rng)
        core = c.copy()
        core.st = world
        core.events = resampled_events(c.events, int(player_id), n,
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
        return f"{history_text(self._c.events, player)}\n{self.obs_string(player)}"

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

# --- positions from our engine ----------------------------------------------------------------------------
def state_from_engine(game: FiveAliveGame, engine_state: fastate.FiveAliveState) -> FiveAliveState:
    """An OpenSpiel state of ``game`` at the position of our engine state ``engine_state`` (copied). The
    history is one line, "position"; the state's returns count the results and lives already lost.
    ``ValueError`` for another game's state or another number of players."""
    config = game.config
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
    return FiveAliveState(game, _FiveAliveCore(config, st, [], {}, "", [[] for _ in range(n)], acc, [0] * n,
                                               False, ["position"], False))


FORM = OpenSpielForm(GAME.name, FIVE_ALIVE, FIVE_ALIVE_TYPE, FiveAliveGame, simultaneous=False,
                     state_from_engine=state_from_engine, params_encode=PARAMS_ENCODE, params_decode=PARAMS_DECODE)
"""5 Alive's OpenSpiel form (what the integration reads)."""


def load(config: FiveAliveConfig) -> FiveAliveGame:
    """The OpenSpiel game of our ``config``."""
    return pyspiel.load_game(FIVE_ALIVE, params_of_config(config, PARAMS_ENCODE))


__all__ = ["FIVE_ALIVE", "FIVE_ALIVE_TYPE", "FORM", "FiveAliveGame", "FiveAliveState", "GAME_NAME", "PARAMS_DECODE",
           "PARAMS_ENCODE", "load", "state_from_engine"]
