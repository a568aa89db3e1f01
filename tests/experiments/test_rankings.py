"""Nash averaging and alpha-Rank on known cases: a rock-paper-scissors cycle (no best agent), a cycle
plus a dominated agent (it gets nothing), a transitive field (the best takes all), invariance of Nash
averaging to copies, head-to-heads read off multiplayer placings, and bootstrap intervals."""
from __future__ import annotations

import numpy as np
import pytest

from fiveplay_env.experiments import rankings

RPS = np.array([[0.5, 0.9, 0.1],
                [0.1, 0.5, 0.9],
                [0.9, 0.1, 0.5]])  # 0 beats 1, 1 beats 2, 2 beats 0: each 90% of the time


def with_dominated(P: np.ndarray, share: float = 0.3) -> np.ndarray:
    """P plus an agent that wins only ``share`` of its games against everyone."""
    k = P.shape[0]
    out = np.full((k + 1, k + 1), 0.5)
    out[:k, :k] = P
    out[k, :k] = share
    out[:k, k] = 1 - share
    return out


def test_a_cycle_has_no_best_agent():
    p, r = rankings.nash_averaging(RPS)
    np.testing.assert_allclose(p, [1 / 3] * 3, atol=1e-6)
    np.testing.assert_allclose(r, 0.0, atol=1e-6)
    np.testing.assert_allclose(rankings.alpha_rank(RPS), [1 / 3] * 3, atol=1e-9)


def test_a_dominated_agent_gets_nothing_and_the_cycle_keeps_its_shares():
    P = with_dominated(RPS)
    p, r = rankings.nash_averaging(P)
    np.testing.assert_allclose(p, [1 / 3, 1 / 3, 1 / 3, 0.0], atol=1e-6)
    assert r[3] < -0.5 and np.allclose(r[:3], 0.0, atol=1e-6)
    pi = rankings.alpha_rank(P, alpha=10)
    assert pi[3] < 1e-3 and np.allclose(pi[:3], pi[:3].mean(), atol=1e-6)


def test_a_transitive_field_is_won_by_its_best_agent():
    # 0 > 1 > 2 (each beats the next 70%, the last 80%): openskill's kind of field
    P = np.array([[0.5, 0.7, 0.8], [0.3, 0.5, 0.7], [0.2, 0.3, 0.5]])
    p, r = rankings.nash_averaging(P)
    np.testing.assert_allclose(p, [1, 0, 0], atol=1e-6)
    assert r[0] == pytest.approx(0.0, abs=1e-6) and r[0] > r[1] > r[2]
    assert rankings.alpha_rank(P)[0] > 0.99
    pi = rankings.alpha_rank(P, alpha=0.5)  # weak selection: the order of the others shows
    assert pi[0] > pi[1] > pi[2]


def test_nash_averaging_ignores_copies_where_elo_like_averages_do_not():
    """Adding a copy of agent 2 to the cycle changes no rating (the mass of 2 is split between copies)."""
    P4 = np.full((4, 4), 0.5)
    P4[:3, :3] = RPS
    P4[3, :3], P4[:3, 3] = RPS[2], RPS[:, 2]
    p, r = rankings.nash_averaging(P4)
    np.testing.assert_allclose(r, 0.0, atol=1e-6)
    assert p[2] + p[3] == pytest.approx(1 / 3, abs=1e-6) and p[2] == pytest.approx(p[3], abs=1e-4)


def test_head_to_heads_from_multiplayer_placings():
    # 4-seat games: entrant 0 always first, 3 always last; 1 and 2 tie for second
    games = [((0, 1, 2, 3), (1, 2, 2, 4)), ((3, 2, 1, 0), (4, 2, 2, 1))]
    P, N = rankings.pairwise(games, 4)
    assert N[0, 1] == 2 and N[1, 2] == 2
    assert P[0, 1] == 1.0 and P[1, 2] == 0.5 and P[2, 3] == 1.0 and P[3, 0] == 0.0
    np.testing.assert_allclose(P + P.T, 1.0)
    with pytest.raises(ValueError, match="entrant index"):
        rankings.pairwise([((0, 7), (1, 2))], 4)
    with pytest.raises(ValueError, match="placing per seat"):
        rankings.pairwise([((0, 1), (1,))], 2)
    with pytest.raises(ValueError, match="win shares"):
        rankings.nash_averaging(np.array([[0.5, 0.9], [0.9, 0.5]]))


def test_bootstrap_intervals_cover_the_estimate_and_shrink_with_data():
    rng = np.random.default_rng(0)

    def games_of(count):
        out = []
        for _ in range(count):  # two-player games of the RPS field
            i, j = rng.choice(3, 2, replace=False)
            win = rng.random() < RPS[i, j]
            out.append(((i, j), (1, 2) if win else (2, 1)))
        return out

    small, large = games_of(60), games_of(2000)
    fn = lambda P: rankings.alpha_rank(P)  # noqa: E731
    e1, lo1, hi1 = rankings.bootstrap(small, 3, fn, samples=60, rng=np.random.default_rng(1))
    e2, lo2, hi2 = rankings.bootstrap(large, 3, fn, samples=60, rng=np.random.default_rng(1))
    assert np.all(lo1 <= e1 + 1e-9) and np.all(e1 <= hi1 + 1e-9)
    assert np.mean(hi2 - lo2) < np.mean(hi1 - lo1)
    np.testing.assert_allclose(e2, 1 / 3, atol=0.06)
    text = rankings.report(["rock", "paper", "scissors"], large, samples=30)
    assert text.count("\n| `") == 3 and "alpha-Rank" in text and "bootstrap" in text
