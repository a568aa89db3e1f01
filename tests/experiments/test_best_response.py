"""The search-based approximate best response (``fiveplay_env.agents.best_response.BestResponseSearch``) on the toy
Goofspiel of ``tests/toy_game``, where the exact best response to a fixed opponent is computed here by
brute force (expectimax over the prize order), and its use in ``fiveplay_env.experiments.exploit``."""
from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest

from fiveplay_env.agents.arena import play_game
from fiveplay_env.agents.base import Agent
from fiveplay_env.agents.random_agent import RandomAgent
from fiveplay_env.agents.best_response import BestResponseSearch
from fiveplay_env.agents import games as table
from fiveplay_env.core import seeding

K = 4  # bid cards and prizes 1..K


class MatchPrize(Agent):
    """Seat 1 of the toy game: bids the card equal to the prize if still held, else its lowest card (a
    deterministic policy of its own observation)."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        n = 2
        prize = int(np.argmax(observation[n * K:n * K + K]))
        legal = np.flatnonzero(action_mask)
        return prize if action_mask[prize] else int(legal[0])


def match_prize(hand: tuple[int, ...], prize: int) -> dict[int, float]:
    """The opponent's bid distribution (card index -> probability) on hand ``hand`` for prize value ``prize``."""
    return {prize - 1: 1.0} if prize - 1 in hand else {min(hand): 1.0}


def uniform(hand: tuple[int, ...], prize: int) -> dict[int, float]:
    return {b: 1.0 / len(hand) for b in hand}


def exact(policy):  # noqa: ANN001, ANN201
    """``q(mine, theirs, left, prize, margin) -> {bid: expected win share}`` of seat 0 playing the best
    response against ``policy`` from here on (prizes ``left`` still to come after ``prize``, in a
    uniformly random order; ``margin`` = seat 0's points minus seat 1's)."""

    @functools.lru_cache(maxsize=None)
    def value(mine: tuple[int, ...], theirs: tuple[int, ...], left: tuple[int, ...], margin: int) -> float:
        if not left:
            return 1.0 if margin > 0 else 0.5 if margin == 0 else 0.0
        return sum(max(q(mine, theirs, tuple(x for x in left if x != p), p, margin).values()) for p in left) / len(left)

    @functools.lru_cache(maxsize=None)
    def q(mine: tuple[int, ...], theirs: tuple[int, ...], left: tuple[int, ...], prize: int, margin: int) -> dict[int, float]:
        out = {}
        for b in mine:
            total = 0.0
            for o, pr in policy(theirs, prize).items():
                m = margin + (prize if b > o else -prize if o > b else 0)
                total += pr * value(tuple(x for x in mine if x != b), tuple(x for x in theirs if x != o), left, m)
            out[b] = total
        return out

    return value, q


class Checked(Agent):
    """Seat 0: the responder, with every decision's exact action values recorded (test-only: it reads
    the engine's state to know the position; the responder itself sees only its information set)."""

    uses_engine = True

    def __init__(self, inner: Agent, q) -> None:  # noqa: ANN001
        super().__init__(0)
        self.inner, self.q, self.regrets, self._engine = inner, q, [], None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.inner.reset(seed)

    def observe_engine(self, engine, player: int) -> None:  # noqa: ANN001
        self._engine = engine
        if self.inner.uses_engine:
            self.inner.observe_engine(engine, player)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        s = self._engine.state
        mine = tuple(int(b) for b in np.flatnonzero(s.hands[0]))
        theirs = tuple(int(b) for b in np.flatnonzero(s.hands[1]))
        prize = s.prizes[s.turn]
        left = tuple(sorted(s.prizes[s.turn + 1:]))
        values = self.q(mine, theirs, left, prize, s.scores[0] - s.scores[1])
        a = int(self.inner.act(observation, action_mask))
        self.regrets.append(max(values.values()) - values[a])
        return a


def play(responder: Agent, opponent: Agent, q, games: int) -> tuple[Checked, float]:  # noqa: ANN001
    game = table.get_game("toybid")
    config = game.make_config({"num_players": 2, "cards": K})
    seat0 = Checked(responder, q)
    wins = 0.0
    for g in range(games):
        seat0.reset(seed=g)
        opponent.reset(seed=g)
        wins += play_game(game, config, [seat0, opponent], seeding.derive(7, g)).results["win"][0]
    return seat0, wins / games


@pytest.mark.parametrize("policy, opponent, games", [(match_prize, MatchPrize, 24), (uniform, RandomAgent, 12)],
                         ids=["deterministic", "uniform"])
def test_search_best_response_reaches_the_exact_best_response(policy, opponent, games) -> None:
    """Against the deterministic policy every decision of the search is a best response's (its exact
    regret is 0); against the uniform one (its bids are noise inside the search too) at least 90% are
    and the mean regret is below 0.02 in win share (a random responder's: about 0.13)."""
    value, q = exact(policy)
    br_value = sum(max(q(tuple(range(K)), tuple(range(K)), tuple(x for x in range(1, K + 1) if x != p), p, 0).values())
                   for p in range(1, K + 1)) / K
    responder = BestResponseSearch(lambda seed: opponent(seed), "toybid", seed=0, sims=300)
    checked, mean_win = play(responder, opponent(1), q, games=games)
    regrets = np.array(checked.regrets)
    blind, blind_win = play(RandomAgent(3), opponent(1), q, games=games)
    assert np.mean(blind.regrets) > 0.05  # a uniformly random responder is far from it: the test can fail
    if policy is match_prize:
        assert regrets.max() < 1e-9, checked.regrets
        assert br_value > 0.9 and mean_win == pytest.approx(br_value, abs=0.1)
    else:
        assert np.mean(regrets < 1e-9) >= 0.9 and regrets.mean() < 0.02, checked.regrets
        assert 0.8 < br_value < 0.95 and mean_win > blind_win


def test_best_response_search_validates_its_arguments() -> None:
    with pytest.raises(ValueError, match="opponent: expected a factory"):
        BestResponseSearch("random", "toybid")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="sims: expected an integer >= 1"):
        BestResponseSearch(RandomAgent, "toybid", sims=0)
    with pytest.raises(ValueError, match="horizon: expected objective='return'"):
        BestResponseSearch(RandomAgent, "toybid", horizon=4)
    agent = BestResponseSearch(RandomAgent, "toybid")
    with pytest.raises(ValueError, match="expected observe_engine"):
        agent.act(np.zeros(20, np.float32), np.array([1, 1, 0, 0, 0, 0, 0, 0], np.int8))


def test_exploit_search_best_response_through_the_command(tmp_path, capsys) -> None:
    """``fiveplay exploit --no-ppo --search-sims N``: the search best response's margins against random
    and a fixed agent, in the summary and the printed table; bad combinations are refused."""
    import json

    from fiveplay_env.experiments import cli, exploit

    code = cli.main(["exploit", "--game", "toybid", "--agent", "random", "--config", "num_players=2", "cards=3",
                     "--no-ppo", "--search-sims", "60", "--search-games", "8", "--out", str(tmp_path), "--quiet"])
    out = capsys.readouterr().out
    assert code == 0 and "search best response (60 sims) vs 1 x" in out
    (run_dir,) = [d for d in tmp_path.iterdir() if d.name.startswith("exploit__toybid__")]
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    assert summary["responses"] == {}  # no PPO run
    m = summary["search_responses"]["random"]
    assert m["games"] == 8 and m["sims"] == 60
    assert m["win_margin"] > 0 and m["score_margin"] > 0  # it beats a random opponent on these deals
    with pytest.raises(ValueError, match="no-ppo: expected --search-sims"):
        exploit.ExploitSpec(game="toybid", agents=("random",), config={"num_players": 2}, ppo=False)
    with pytest.raises(ValueError, match="search-horizon: expected --search-objective return"):
        exploit.ExploitSpec(game="toybid", agents=("random",), config={"num_players": 2}, search_sims=4, search_horizon=3)
