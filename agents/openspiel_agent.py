"""OpenSpiel's searches as agents of our tournaments: the ``openspiel:`` registry names.

    from fiveplay_env.agents.registry import make_agent
    agent = make_agent("openspiel:ismcts:sims=100", "five_alive", seed=0)
    fiveplay tournament --game take5 --config mode=round \\
        --agents openspiel:ismcts:sims=100 ismcts:sims=100 --games 100 --workers 1

| name                                 | agent                                                              |
|--------------------------------------|--------------------------------------------------------------------|
| ``openspiel:ismcts[:k=v,...]``       | OpenSpiel's IS-MCTS (``open_spiel.python.algorithms.ismcts``, Cowling, Powley and Whitehouse 2012) with OpenSpiel's random-rollout evaluator |
| ``openspiel:mcts[:k=v,...]``         | determinized MCTS: OpenSpiel's ``MCTSBot`` (UCT, random rollouts) on ``worlds`` determinizations, root visit counts summed (perfect-information Monte Carlo) |

Options (``key=value`` separated by commas; defaults in brackets):

| key      | meaning                                                                               |
|----------|---------------------------------------------------------------------------------------|
| sims     | simulations per decision (mcts: in all, split evenly over the worlds) [100]           |
| c        | UCT exploration constant, on the game's returns (Take 5: bull heads; 5 Alive: +-1) [2] |
| rollouts | random rollouts per leaf evaluation [1]                                               |
| worlds   | ismcts: at most this many determinizations, reused (0: a new one every simulation) [0]; |
|          | mcts: the number of determinizations [4]                                              |
| final    | ismcts: the move played, ``visits`` (most visited), ``value`` (best mean) [visits]     |
| obs      | ismcts: 1 = tree nodes keyed by the observation string instead of the perfect-recall |
|          | information-state string (OpenSpiel's ``use_observation_string``) [0]                 |

How it plays our game, seeing only what its seat may see: ``observe_engine`` wraps the engine in an
``fiveplay_env.agents.base.InformationSet`` (as ``fiveplay_env.agents.search`` does) and the agent touches nothing else. Every
OpenSpiel state the bot sees, the root included, is built from a determinization drawn through that
information set (``InformationSet.sample``: the cards the seat cannot see re-dealt, later deals
re-seeded) and converted by ``fiveplay_env.integrations.openspiel.state_from_engine`` (5 Alive) or
``turn_based_from_engine`` (Take 5, through OpenSpiel's ``convert_to_turn_based``: IS-MCTS and MCTS
need a sequential game). IS-MCTS draws a fresh world for every simulation through the resampler it is
given (``ISMCTSBot.set_resampler``), never from the true state; its tree keys are the seat's
information-state string (a "position" line, then the simulated moves, then the observation), the same
in every world. Each decision runs a fresh search (no tree is kept between decisions); a decision with
one legal action is played without search. The bots draw their randomness from a
``np.random.RandomState`` seeded by the agent's own generator, so a seeded agent is reproducible.

The bots are OpenSpiel's Python ones: its C++ ``pyspiel.ISMCTSBot`` calls C++'s ``ResampleFromInfostate``,
which a Python game cannot provide, and C++ ``pyspiel.MCTSBot`` would search the state it is given,
hidden cards included. Needs the ``openspiel`` extra (``pip install -e '.[openspiel]'``).
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from fiveplay_env.agents.base import SearchAgentBase
from fiveplay_env.agents.registry import register_prefix
from fiveplay_env.core.config import plain

ALGORITHMS = ("ismcts", "mcts")
_KEYS = {"ismcts": ("sims", "c", "rollouts", "worlds", "final", "obs"), "mcts": ("sims", "c", "rollouts", "worlds")}
FINALS = ("visits", "value")


def _openspiel() -> tuple[Any, Any, Any, Any]:
    """(pyspiel, our integration, OpenSpiel's ismcts module, its mcts module), imported on first use."""
    try:
        import pyspiel
        from open_spiel.python.algorithms import ismcts, mcts

        from fiveplay_env.integrations import openspiel as osi
    except ImportError as exc:
        from fiveplay_env.core import extras

        raise ImportError("the openspiel: agents need OpenSpiel (the open_spiel package), of the 'openspiel' extra: "
                          + extras.install_hint("openspiel"), name="pyspiel") from exc
    return pyspiel, osi, ismcts, mcts


class OpenSpielParams:
    """The options of an ``openspiel:`` agent (see the module docstring); validated on construction."""

    def __init__(self, algo: str = "ismcts", sims: int = 100, c: float = 2.0, rollouts: int = 1,
                 worlds: int | None = None, final: str = "visits", obs: int = 0) -> None:
        if algo not in ALGORITHMS:
            raise ValueError(f"openspiel agent: expected one of {list(ALGORITHMS)}, got {algo!r}")
        for key, v, lo in (("sims", sims, 1), ("rollouts", rollouts, 1)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
                raise ValueError(f"{key}: expected an integer >= {lo}, got {v!r}")
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not 0.0 <= c <= 1000.0:
            raise ValueError(f"c: expected a number in 0.0..1000.0, got {c!r}")
        if worlds is None:
            worlds = 0 if algo == "ismcts" else 4
        lo = 0 if algo == "ismcts" else 1
        if isinstance(worlds, bool) or not isinstance(worlds, (int, np.integer)) or worlds < lo:
            raise ValueError(f"worlds: expected an integer >= {lo}, got {worlds!r}")
        if algo == "mcts" and worlds > sims:
            raise ValueError(f"worlds: expected at most sims={sims} worlds (each gets sims // worlds), got {worlds}")
        if final not in FINALS:
            raise ValueError(f"final: expected one of {list(FINALS)}, got {final!r}")
        if obs not in (0, 1) or isinstance(obs, bool):
            raise ValueError(f"obs: expected 0 or 1, got {obs!r}")
        self.algo = algo
        self.sims = int(sims)
        self.c = float(c)
        self.rollouts = int(rollouts)
        self.worlds = int(worlds)
        self.final = final
        self.obs = int(obs)

    @classmethod
    def parse(cls, rest: str) -> "OpenSpielParams":
        """``"ismcts:sims=200,c=2"`` -> params (``ValueError`` naming a bad or unknown key)."""
        algo, _, spec = rest.strip().partition(":")
        if algo not in ALGORITHMS:
            raise ValueError(f"openspiel name: expected openspiel:ismcts[:k=v,...] or openspiel:mcts[:k=v,...], "
                             f"got 'openspiel:{rest}'")
        keys = _KEYS[algo]
        kwargs: dict[str, Any] = {}
        for item in filter(None, (s.strip() for s in spec.split(","))):
            key, eq, raw = (s.strip() for s in item.partition("="))
            if not eq or key not in keys:
                raise ValueError(f"openspiel:{algo} option: expected 'key=value' with key in {list(keys)}, got {item!r}")
            if key == "final":
                kwargs[key] = raw
                continue
            try:
                kwargs[key] = float(raw) if key == "c" else int(raw)
            except ValueError:
                raise ValueError(f"{key}: expected a number, got {raw!r}") from None
        return cls(algo, **kwargs)


_GAMES: dict[Any, tuple[Any, Any]] = {}


def _games(config: Any) -> tuple[Any, Any]:
    """(our OpenSpiel game for ``config``, the game the bots search: Take 5's turn-based form, or the
    game itself), loaded once per config and process."""
    if config not in _GAMES:
        pyspiel, osi, _, _ = _openspiel()
        form = osi.form_of_config(config)
        game = osi.load(form.game, config)
        _GAMES[config] = (game, pyspiel.convert_to_turn_based(game) if form.simultaneous else game)
    return _GAMES[config]


class OpenSpielAgent(SearchAgentBase):
    """One of OpenSpiel's searches (IS-MCTS or determinized MCTS) in a seat of our game; needs
    ``observe_engine`` before each ``act`` (see the module docstring)."""

    label = "openspiel agent"

    def __init__(self, seed: int | None = None, game: str | None = None, params: OpenSpielParams | None = None) -> None:
        if not isinstance(game, str):
            raise ValueError(f"game: expected the name of a game with an OpenSpiel form, got {game!r}")
        super().__init__(seed)
        _, osi, _, _ = _openspiel()  # a missing extra fails here, when the agent is made, not in a game
        osi.form(game)  # a name of the game table (fiveplay_env.games) with an OpenSpiel form
        self.game = game
        self.params = params or OpenSpielParams()
        self.name = f"openspiel:{self.params.algo}"
        self.last_stats: dict[str, Any] = {}

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._info = None

    def get_state(self) -> dict[str, Any]:
        """The seed and the generator's state (the agent keeps nothing else between decisions)."""
        return {"seed": plain(self.seed), "rng": plain(self.rng.bit_generator.state)}

    def set_state(self, state: dict[str, Any]) -> None:
        self.seed = state["seed"]
        self.rng = np.random.default_rng(self.seed)
        self.rng.bit_generator.state = state["rng"]
        self._info = None

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        raise ValueError("openspiel agents: act_batch is not available: a search agent decides one game at a "
                         "time (observe_engine, then act)")

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal, info = self.take_information_set(action_mask)
        if info is None:
            return int(legal[0])
        _, osi, ismcts, mcts = _openspiel()
        game, search_game = _games(info.config)
        p = self.params
        rs = np.random.RandomState(int(self.rng.integers(2**31)))
        world_rng = np.random.default_rng(int(self.rng.integers(2**63)))
        turn_based = search_game is not game  # a simultaneous game, searched in its turn-based form

        def world() -> Any:  # a determinization of the seat's information set, as an OpenSpiel state
            engine = info.sample(world_rng)
            if turn_based:
                return osi.turn_based_from_engine(search_game, game, engine.state)
            return osi.state_from_engine(game, engine.state)

        start = time.perf_counter()
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=p.rollouts, random_state=rs)
        if p.algo == "ismcts":
            final = (ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT if p.final == "visits"
                     else ismcts.ISMCTSFinalPolicyType.MAX_VALUE)
            bot = ismcts.ISMCTSBot(search_game, evaluator, p.c, p.sims,
                                   max_world_samples=p.worlds if p.worlds else ismcts.UNLIMITED_NUM_WORLD_SAMPLES,
                                   random_state=rs, final_policy_type=final, use_observation_string=bool(p.obs))
            bot.set_resampler(lambda state, player: world())
            action = int(bot.step(world()))
        else:
            visits: dict[int, int] = {}
            per = p.sims // p.worlds
            for _ in range(p.worlds):
                bot = mcts.MCTSBot(search_game, p.c, per, evaluator, solve=False, random_state=rs)
                root = bot.mcts_search(world())
                for child in root.children:
                    visits[child.action] = visits.get(child.action, 0) + child.explore_count
            best = max(visits.values())
            ties = sorted(a for a, v in visits.items() if v == best)
            action = int(ties[rs.randint(len(ties))])
        self.last_stats = {"sims": p.sims, "seconds": time.perf_counter() - start, "actions": len(legal)}
        if not 0 <= action < len(action_mask) or not action_mask[action]:  # pragma: no cover - a bot bug
            raise RuntimeError(f"openspiel:{p.algo} chose {action}, not a legal action {legal.tolist()}")
        return action


def make_openspiel_agent(rest: str, game: str, seed: int | None) -> OpenSpielAgent:
    """Registry factory for ``openspiel:ismcts[:k=v,...]`` and ``openspiel:mcts[:k=v,...]``."""
    return OpenSpielAgent(seed, game=game, params=OpenSpielParams.parse(rest))


register_prefix("openspiel", make_openspiel_agent)
