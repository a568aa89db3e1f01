"""Games being played in the web app: one human seat, bots in the others, every step logged as public events.

``PlaySession`` holds one game: the reference engine, the bots, the human's seat, the event log, the
actions so far, and what the bots thought at each of their decisions (kept on the server until the game
is over: a bot's thoughts describe its hand). Each game has a public ``id`` and a secret ``token``
(``secrets.token_urlsafe``); every request for the game must carry both (``SessionStore.get``).

Moves. The human's move names the step it is for (``act(action, step)``: ``step`` is the number of
actions played so far, the snapshot's ``steps``): the same move sent twice is answered, not played twice,
and a move for a step already past is refused (409). Bots then move until it is the human's turn or the
game ends, at most ``MAX_BOT_MOVES`` moves and ``MAX_BOT_SECONDS`` of bot time per request, each move
(and each hint) under a hard deadline of at most ``MAX_MOVE_SECONDS`` that also ends with the request's
budget (``move_deadline``: a search stops inside its simulations and plays its best move so far; a new
game's budget includes the time its bots took to build, ``PlaySession(spent=...)``); if that is not enough the snapshot says ``pending`` and ``advance(step)`` goes on. A game longer than
``MAX_GAME_STEPS`` actions is stopped with an error. A bot that raises or returns an illegal action ends
that game only, with ``error``.

Hints: ``hint(agent, step)`` asks an agent what it would play from the human's seat, shown only what that
seat sees (the observation and legal mask, or the ``InformationSet`` for a search agent), plus its
thoughts when it keeps them.

The games in play are held by ``fiveplay_env.experiments.web.store.SessionStore`` (per-client caps, expiry). Each
session has its own lock: moves in one game are serialized, different games run in parallel.
"""
from __future__ import annotations

import dataclasses
import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from fiveplay_env.agents import games as games_mod
from fiveplay_env.agents.base import Agent
from fiveplay_env.experiments.web import games as web_views
from fiveplay_env.experiments.web import hints, views
from fiveplay_env import records
from fiveplay_env.core import seeding
from fiveplay_env.core.config import from_kwargs
from fiveplay_env.core.errors import IllegalActionError

MAX_BOT_MOVES = 400
"""Bot moves answered by one request at most (then ``pending``: the client asks for more)."""
MAX_BOT_SECONDS = 4.0
"""Bot thinking time spent by one request at most: checked between moves, and inside a move through the
move's deadline (``move_deadline``)."""
MAX_MOVE_SECONDS = 2.0
"""One bot decision's (or hint's) hard deadline in seconds: every agent with a ``deadline`` attribute (the
searches: ``fiveplay_env.agents.search.SearchAgent.deadline``) stops there and plays its best move so far."""
MIN_MOVE_SECONDS = 0.05
"""The least deadline a decision gets (the first move of a request always gets ``MAX_MOVE_SECONDS``)."""
MAX_GAME_STEPS = 20_000
"""Actions in one game at most: a game that goes on longer (a custom deck) is stopped with an error."""
MAX_SEED = 2**64 - 1
MAX_CONFIG_INT = 100_000
"""The largest integer a game config field may have in the web app (``CONFIG_LIMITS`` names tighter ones)."""
CONFIG_LIMITS = {"end_score": 1000, "max_cycles": MAX_GAME_STEPS, "max_steps": MAX_GAME_STEPS}
"""Per config field, the largest value the web app accepts (a game must end within ``MAX_GAME_STEPS``)."""
MAX_ROUNDS = 100
"""The most rounds a config's ``num_rounds`` (Take 5's ``mode="rounds:K"``) may ask for in the web app."""
THOUGHTS_KEY = "thoughts_v1"
"""The record ``meta`` key holding the bots' thoughts: ``{"version": 1, "steps": {step: thoughts}}``."""


def web_games() -> list[str]:
    """The games the web app serves, sorted: every registered game (``fiveplay_env.games``), each drawn by
    its own web view or the generic one (``fiveplay_env.experiments.web.games``)."""
    return sorted(web_views.served())


class GameError(Exception):
    """A request this game cannot take: ``status`` is the HTTP code (400 bad, 404 unknown, 409 not now);
    ``headers``: extra headers of the answer (a 503's ``Retry-After``)."""

    def __init__(self, status: int, message: str, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = dict(headers or {})


def check_int(name: str, value: Any, lo: int, hi: int) -> int:
    """``value`` as an int in ``lo..hi``; ``GameError`` 400 naming ``name`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise GameError(400, f"{name}: expected an integer in {lo}..{hi}, got {type(value).__name__}")
    if not lo <= value <= hi:
        shown = str(value) if value.bit_length() <= 96 else f"an integer of {value.bit_length()} bits"
        raise GameError(400, f"{name}: expected an integer in {lo}..{hi}, got {shown}")
    return value


def parse_seed(value: Any) -> int:
    """A game's seed from a request: a JSON integer, or its decimal digits as a string (the browser sends and
    shows seeds as text: its numbers are exact only up to 2**53, a seed goes up to 2**64 - 1); ``GameError``
    400 otherwise. Snapshots give the seed back as text (``PlaySession.snapshot``)."""
    if isinstance(value, str):
        digits = value.strip()
        if not (digits.isascii() and digits.isdigit() and len(digits) <= 20):
            shown = repr(value[:30]) + ("..." if len(value) > 30 else "")
            raise GameError(400, f"seed: expected an integer in 0..{MAX_SEED} (a number, or its digits as text), got {shown}")
        value = int(digits)
    return check_int("seed", value, 0, MAX_SEED)


def labelled(game: str, thoughts: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """An agent's ``last_thoughts`` as JSON data with each action's label."""
    if not thoughts:
        return None
    out = dict(thoughts)
    if "probs" in out:
        out["probs"] = [{"action": int(a), "label": views.action_label(game, int(a)), "p": float(p)}
                        for a, p in sorted(out["probs"].items(), key=lambda kv: -kv[1])]
    if "candidates" in out:
        out["candidates"] = [dict(c, label=views.action_label(game, c["action"])) for c in out["candidates"]]
    if "prior" in out:
        out["prior"] = {str(a): p for a, p in out["prior"].items()}
    if "chosen" in out:
        out["chosen_label"] = views.action_label(game, int(out["chosen"]))
    return out


def move_deadline(agent: Agent, seconds: float) -> None:
    """Give ``agent`` a hard deadline of ``seconds`` for its next decision, if it takes one (a search)."""
    if hasattr(type(agent), "deadline"):
        agent.deadline = max(MIN_MOVE_SECONDS, min(MAX_MOVE_SECONDS, float(seconds)))  # type: ignore[attr-defined]


def _keep_thoughts(agent: Agent) -> None:
    if hasattr(type(agent), "keep_thoughts"):
        agent.keep_thoughts = True  # type: ignore[attr-defined]


class PlaySession:
    """One game: the human plays ``seat``; ``bots[q]`` is the agent of every other seat ``q``.

    ``on_over(session)`` (optional) is called once, under the session's lock, when the game ends (the app
    saves the record)."""

    def __init__(self, game: str, config: Mapping[str, Any], seat: Any, bots: Mapping[int, Agent], seed: int,
                 client: tuple[str, str] = ("", ""), on_over: Callable[["PlaySession"], None] | None = None,
                 spent: float = 0.0) -> None:
        self.adapter = games_mod.get_game(game)
        self.game = game
        self.config = config
        n = self.config.num_players
        self.seat = check_int("seat", seat, 0, n - 1)
        self.seed = check_int("seed", seed, 0, MAX_SEED)
        if sorted(bots) != [q for q in range(n) if q != self.seat]:
            raise GameError(400, f"bots: expected one agent for each seat but {self.seat}")
        self.agents = dict(bots)
        for agent in self.agents.values():
            _keep_thoughts(agent)
        self.names = ["you" if q == self.seat else self.agents[q].name for q in range(n)]
        self.engine = self.adapter.new_engine(self.config, self.seed)
        self.actions: list[int] = []
        self.human_steps: set[int] = set()
        self.events: list[dict[str, Any]] = []
        self.thoughts: dict[int, dict[str, Any]] = {}
        self.error: str | None = None
        self.pending = False
        self.saved: dict[str, Any] | None = None
        self.bot_seconds = 0.0
        self.lock = threading.Lock()
        self.id = secrets.token_hex(8)
        self.token = secrets.token_urlsafe(24)
        self.hint_seed = secrets.randbits(62)
        self.client = client
        self.on_over = on_over
        self._over_done = False
        self.created = self.used = time.monotonic()
        for q, agent in self.agents.items():
            if agent.uses_engine:
                agent.observe_engine(self.engine, q)
        with self.lock:
            self._advance(spent)

    @staticmethod
    def make_config(game: str, config: Any) -> Any:
        """The game's config from a request's ``config`` object; ``GameError`` 400 naming the field."""
        if not isinstance(game, str) or game not in web_games():
            got = repr(game) if isinstance(game, str) and len(game) <= 40 else type(game).__name__
            raise GameError(400, f"game: expected one of {web_games()} (the games the web app draws), got {got}")
        if not isinstance(config, Mapping):
            raise GameError(400, f"config: expected an object of config fields, got {type(config).__name__}")
        try:
            made = from_kwargs(games_mod.get_game(game).config_cls, dict(config))
        except (ValueError, TypeError, OverflowError) as e:
            msg = str(e)
            raise GameError(400, f"config: {msg if len(msg) < 400 else msg[:397] + '...'}") from None
        for f in dataclasses.fields(made):  # every number bounded, beyond what the game itself allows
            v = getattr(made, f.name)
            hi = CONFIG_LIMITS.get(f.name, MAX_CONFIG_INT)
            if isinstance(v, int) and not isinstance(v, bool) and not -hi <= v <= hi:
                raise GameError(400, f"config: {f.name}: expected at most {hi} in the web app, got "
                                     f"{v if v.bit_length() <= 96 else 'a larger integer'}")
        rounds = getattr(made, "num_rounds", None)
        if isinstance(rounds, int) and rounds > MAX_ROUNDS:
            raise GameError(400, f"config: mode: expected at most rounds:{MAX_ROUNDS} in the web app, got rounds:{rounds}")
        return made

    # --- state ---------------------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.engine.is_over or self.error is not None

    def legal(self) -> list[int]:
        """The human's legal actions now ([] when it is not their turn)."""
        if self.over or self.pending or self.engine.current_player != self.seat:
            return []
        return [int(a) for a in self.engine.legal_mask().nonzero()[0]]

    def snapshot(self, since: int = 0) -> dict[str, Any]:
        """What the human's browser gets: the table from their seat, the events from index ``since`` on,
        the seats, whose turn, the legal actions, ``pending`` (bots still to move), the error (if a bot
        failed); once the game is over also its seed and where its record was saved. Waits for a move in
        progress."""
        with self.lock:
            return self._snapshot(since)

    def _snapshot(self, since: int) -> dict[str, Any]:
        self.used = time.monotonic()
        since = max(0, min(since, len(self.events)))
        legal = self.legal()
        out = {
            "id": self.id, "game": self.game, "seat": self.seat, "names": self.names,
            "config": records.config_dict(self.config),
            "view": views.view(self.game, self.config, self.engine.state, self.seat),
            "events": self.events[since:], "event_base": since, "event_count": len(self.events),
            "your_turn": bool(legal), "legal": legal, "over": self.over, "error": self.error,
            "steps": len(self.actions), "pending": self.pending and not self.over,
        }
        if self.over:  # the seed rebuilds every hand: only once nothing is hidden any more; as text (exact in a browser)
            out["seed"] = str(self.seed)
            out["saved"] = self.saved
        return out

    def record(self) -> dict[str, Any]:
        """The finished game as a record (``fiveplay_env.records``), the bots' thoughts in ``meta``;
        ``GameError`` 409 while the game is on (the record's seed would reveal every hand)."""
        with self.lock:
            if not self.over:
                raise GameError(409, "the record of a game is served only once it is over (it holds the seed, "
                                     "which reveals every hand)")
            return self._record()

    def _record(self) -> dict[str, Any]:
        meta: dict[str, Any] = {"source": "web", "human_seat": self.seat}
        if self.error:
            meta["error"] = self.error
        if self.thoughts:
            meta[THOUGHTS_KEY] = {"version": 1, "steps": {str(k): v for k, v in sorted(self.thoughts.items())}}
        return records.make_record(self.game, self.config, self.seed, self.actions, agents=self.names,
                                   engine=self.engine, meta=meta)

    # --- moves ---------------------------------------------------------------------------------------
    def act(self, action: Any, step: Any) -> bool:
        """The human plays ``action`` at step ``step`` (the number of actions played before it); then the
        bots move (module docstring). Returns False when this exact move was already played (a repeat:
        nothing changes), True otherwise.

        Raises ``GameError`` 400 for a malformed or illegal action (nothing changes), 409 when the game is
        over, it is not the human's turn, or ``step`` is not the current one."""
        if isinstance(action, bool) or not isinstance(action, int):
            raise GameError(400, f"action: expected an integer action id, got {type(action).__name__}")
        if isinstance(step, bool) or not isinstance(step, int):
            raise GameError(400, "step: expected the integer step the move is for (the snapshot's \"steps\")")
        with self.lock:
            if 0 <= step < len(self.actions) and step in self.human_steps and self.actions[step] == action:
                return False  # the same move again (a retry): already played
            if self.error is not None:
                raise GameError(409, f"this game has ended with an error: {self.error}")
            if self.engine.is_over:
                raise GameError(409, "this game is over; start a new one")
            if step != len(self.actions):
                raise GameError(409, f"step: this move is for step {step}, but the game is at step {len(self.actions)} "
                                     f"(reload the game)")
            if self.pending or self.engine.current_player != self.seat:
                raise GameError(409, f"not your turn: seat {self.engine.current_player} is to play")
            legal = self.legal()
            if action not in legal:
                raise GameError(400, f"illegal move: {self._label(action)} is not playable now; "
                                     f"legal: {[self._label(a) for a in legal]}")
            self.human_steps.add(len(self.actions))
            self._step(action)
            self._advance()
            return True

    def advance(self, step: Any) -> None:
        """Let the bots go on after a ``pending`` answer (``step``: the snapshot's ``steps``; a stale one
        is answered without moving)."""
        if isinstance(step, bool) or not isinstance(step, int):
            raise GameError(400, "step: expected the integer step (the snapshot's \"steps\")")
        with self.lock:
            if step == len(self.actions) and self.pending and not self.over:
                self._advance()

    def _label(self, action: int) -> str:
        if not 0 <= action < self.adapter.num_actions:
            return f"action {action}" if abs(action) < 10**9 else "an out-of-range action"
        return views.action_label(self.game, action)

    def _step(self, action: int) -> None:
        before = self.engine.state.clone()
        self.engine.step(action)
        self.actions.append(action)
        self.events.extend(views.step_events(self.game, self.config, before, action, self.engine.state))
        for q, agent in self.agents.items():  # search agents follow the public events of every step
            if agent.uses_engine:
                agent.observe_engine(self.engine, q)

    def _fail(self, text: str, player: int) -> None:
        self.error = text
        self.events.append({"type": "error", "player": player, "text": text})

    def _advance(self, spent: float = 0.0) -> None:
        """Bots move until the human's turn, the end, or this request's budget (then ``pending``).
        ``spent``: seconds of the budget the request has used already (a new game: building its bots);
        then even the first move waits for the budget (else one move at least)."""
        moves, start = 0, time.perf_counter() - max(0.0, spent)
        self.pending = False
        while not self.engine.is_over and self.error is None and self.engine.current_player != self.seat:
            if len(self.actions) >= MAX_GAME_STEPS:
                self._fail(f"the game reached {MAX_GAME_STEPS} actions without ending; stopped", -1)
                break
            if (moves or spent > 0) and (moves >= MAX_BOT_MOVES or time.perf_counter() - start > MAX_BOT_SECONDS
                                         - (MIN_MOVE_SECONDS if not moves else 0.0)):
                self.pending = True
                break
            q = self.engine.current_player
            agent = self.agents[q]
            t0 = time.perf_counter()
            try:
                if agent.uses_engine:
                    agent.observe_engine(self.engine, q)
                move_deadline(agent, MAX_BOT_SECONDS - (time.perf_counter() - start))
                mask = self.engine.legal_mask()
                action = int(agent.act(self.adapter.observe(self.engine, q), mask))
                if not 0 <= action < len(mask) or not mask[action]:
                    raise IllegalActionError(f"player_{q}", action, mask.nonzero()[0])
            except Exception as e:  # noqa: BLE001 - any bot failure ends this game only; the server keeps serving
                self._fail(f"bot {agent.name!r} in seat {q} failed: {type(e).__name__}: {str(e)[:300]}", q)
                break
            finally:
                self.bot_seconds += time.perf_counter() - t0
            t = labelled(self.game, getattr(agent, "last_thoughts", None))
            if t:
                self.thoughts[len(self.actions)] = dict(t, player=q)
            self._step(action)
            moves += 1
        if self.over and not self._over_done:
            self._over_done = True
            if self.on_over is not None:
                self.on_over(self)

    # --- hints ---------------------------------------------------------------------------------------
    def hint(self, make: Callable[[int], Agent], step: Any) -> dict[str, Any]:
        """What the agent ``make(seed)`` would play now from the human's seat, seeing only what that seat
        sees; ``{"step", "bot", "action", "label", "thoughts", "cost", "reason"}`` (``cost`` and ``reason``:
        the player's terms, ``fiveplay_env.experiments.web.hints``). 409 unless it is the human's turn."""
        if isinstance(step, bool) or not isinstance(step, int):
            raise GameError(400, "step: expected the integer step (the snapshot's \"steps\")")
        with self.lock:
            if step != len(self.actions) or not self.legal():
                raise GameError(409, "a hint is for your turn: it is not your turn at this step")
            agent = make(seeding.derive(self.hint_seed, step))
            _keep_thoughts(agent)
            move_deadline(agent, MAX_MOVE_SECONDS)
            if agent.uses_engine:
                agent.observe_engine(self.engine, self.seat)  # an InformationSet: the seat's knowledge only
            mask = self.engine.legal_mask()
            t0 = time.perf_counter()
            try:
                action = int(agent.act(self.adapter.observe(self.engine, self.seat), mask))
            except Exception as e:  # noqa: BLE001
                raise GameError(400, f"bot {agent.name!r} cannot give a hint here: {type(e).__name__}: {str(e)[:300]}") from None
            if not 0 <= action < len(mask) or not mask[action]:
                raise GameError(400, f"bot {agent.name!r} suggested an illegal move")
            out = {"step": step, "bot": agent.name, "action": action, "label": views.action_label(self.game, action),
                   "thoughts": labelled(self.game, getattr(agent, "last_thoughts", None)),
                   "seconds": round(time.perf_counter() - t0, 3)}
            # in the player's terms: the move's expected cost to the seat and why (its information set only)
            return dict(out, **hints.explain(self.game, self.engine, self.seat, action, mask.nonzero()[0].tolist(),
                                             seeding.derive(seeding.derive(self.hint_seed, step), 1)))


def bot_seeds(seed: int, seats: Sequence[int]) -> dict[int, int]:
    """Each bot seat's agent seed, derived from the game's seed."""
    return {q: seeding.derive(seed, 1 + q) for q in seats}
