"""Game-theoretic rankings of a field of agents from head-to-head results: Nash averaging and alpha-Rank,
with bootstrap intervals.

Ratings such as openskill's assume a transitive field (a single strength per agent). A field of agents
can be cyclic (A beats B beats C beats A), and then the question "who is best" has the answers of
evaluation by equilibria (Balduzzi, Tuyls, Perolat and Graepel 2018, "Re-evaluating evaluation") and by
evolutionary dynamics (Omidshafiei et al. 2019, "alpha-Rank"). Both start from the same data here:

``pairwise(games, k)``: for every game of a multiplayer tournament (the entrants in its seats and
their placings), each pair of entrants that sat at the same table is a head-to-head: the one with the
better placing wins it (a tie is half a win each). ``P[i, j]`` is then the share of i's head-to-heads
with j that i won (0.5 where they never met), so ``P + P.T = 1``.

| method | what it computes | reads as |
|---|---|---|
| ``nash_averaging(P)`` | the maximum-entropy Nash equilibrium ``p`` of the symmetric zero-sum meta-game ``A = logit(P)`` (antisymmetric), and the ratings ``A @ p`` | ``p[i] > 0``: agent i is in the equilibrium mixture, the part of the field not dominated by a mixture of the others; rating ``r[i] <= 0`` for every agent, ``0`` exactly for those in the support: how much i loses against the equilibrium field. Invariant to adding copies of an agent. |
| ``alpha_rank(P, alpha, m)`` | the stationary distribution of the single-population evolutionary dynamics (a population of ``m`` agents; a mutant r invades a population of s with Fermi fixation probability at selection intensity ``alpha``) | the mass each agent keeps in the long run: agents on the top cycle share it, dominated agents get ~0 |

``bootstrap(games, k, fn, samples, rng)`` resamples the games with replacement and recomputes ``fn``
(either method, or any function of ``P``): the 2.5 and 97.5 percentiles are the 95% interval of each
entry, the uncertainty the report prints beside it. ``report(...)`` renders both as a Markdown table
for the ladder.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

Game = tuple[Sequence[int], Sequence[float]]
"""One game: the entrant index in each seat, and each seat's placing (1 = best, ties share)."""

CLIP = 1e-3  # win shares are clipped to [CLIP, 1 - CLIP] before the logit: a 100% record is finite


def pairwise(games: Sequence[Game], k: int) -> tuple[np.ndarray, np.ndarray]:
    """``(P, N)``: ``P[i, j]`` the share of head-to-heads between entrants i and j that i won (0.5 where
    they never met, and on the diagonal), ``N[i, j]`` how many there were. ``ValueError`` for an
    entrant index outside ``0..k-1`` or a game whose seats and placings differ in length."""
    wins = np.zeros((k, k))
    n = np.zeros((k, k))
    for g, (seats, places) in enumerate(games):
        if len(seats) != len(places):
            raise ValueError(f"game {g}: expected a placing per seat, got {len(seats)} seats and {len(places)} placings")
        bad = [int(i) for i in seats if not 0 <= int(i) < k]
        if bad:
            raise ValueError(f"game {g}: entrant index {bad[0]} outside 0..{k - 1}")
        for a in range(len(seats)):
            i = int(seats[a])
            for b in range(a + 1, len(seats)):
                j = int(seats[b])
                if i == j:
                    continue  # an entrant against its own copy says nothing about the field
                s = 1.0 if places[a] < places[b] else 0.0 if places[a] > places[b] else 0.5
                wins[i, j] += s
                wins[j, i] += 1.0 - s
                n[i, j] += 1
                n[j, i] += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(n > 0, wins / np.maximum(n, 1), 0.5)
    np.fill_diagonal(p, 0.5)
    return p, n


def _check(P: np.ndarray) -> np.ndarray:
    P = np.asarray(P, dtype=float)
    if P.ndim != 2 or P.shape[0] != P.shape[1] or P.shape[0] < 1:
        raise ValueError(f"P: expected a square matrix of win shares, got shape {P.shape}")
    if not np.all((P >= 0) & (P <= 1)) or not np.allclose(P + P.T, 1.0, atol=1e-9):
        raise ValueError("P: expected win shares in 0..1 with P[i, j] + P[j, i] = 1")
    return P


def meta_game(P: np.ndarray) -> np.ndarray:
    """The antisymmetric payoff ``A = logit(P)`` (win shares clipped to [CLIP, 1 - CLIP])."""
    q = np.clip(_check(P), CLIP, 1.0 - CLIP)
    A = np.log(q) - np.log1p(-q)
    return (A - A.T) / 2.0  # exactly antisymmetric


def nash_averaging(P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(p, ratings)``: the maximum-entropy Nash equilibrium of the meta-game and ``A @ p``.

    The equilibria of a symmetric zero-sum game with antisymmetric ``A`` are the mixtures ``p`` with
    ``A.T @ p >= 0`` (no pure strategy does better than the value, 0, against them): a polytope, of
    which the point of maximum entropy is unique (Balduzzi et al. 2018). It is found by a linear program
    (a point of the polytope) and a convex program (its entropy maximized over it)."""
    from scipy.optimize import linprog, minimize

    A = meta_game(P)
    k = A.shape[0]
    # linear program: maximise v s.t. A.T p >= v, sum p = 1, p >= 0 (the value is 0)
    res = linprog(np.r_[np.zeros(k), -1.0], A_ub=np.c_[-A.T, np.ones(k)], b_ub=np.zeros(k),
                  A_eq=np.r_[np.ones(k), 0.0][None, :], b_eq=[1.0], bounds=[(0, None)] * k + [(None, None)],
                  method="highs")
    if not res.success:  # pragma: no cover - the LP of a finite zero-sum game always has a solution
        raise RuntimeError(f"nash_averaging: the linear program failed ({res.message})")
    p0 = np.clip(res.x[:k], 0, None)
    p0 /= p0.sum()
    tol = 1e-9

    def neg_entropy(p: np.ndarray) -> float:
        q = np.clip(p, 1e-300, None)
        return float(np.sum(q * np.log(q)))

    def grad(p: np.ndarray) -> np.ndarray:
        return np.log(np.clip(p, 1e-300, None)) + 1.0

    cons = [{"type": "eq", "fun": lambda p: p.sum() - 1.0, "jac": lambda p: np.ones(k)},
            {"type": "ineq", "fun": lambda p: A.T @ p + tol, "jac": lambda p: A.T}]
    start = 0.5 * p0 + 0.5 * np.full(k, 1.0 / k)  # a mixture is in the polytope only if uniform is too
    if np.min(A.T @ start) < -tol:
        start = p0
    out = minimize(neg_entropy, start, jac=grad, bounds=[(0.0, 1.0)] * k, constraints=cons, method="SLSQP",
                   options={"maxiter": 500, "ftol": 1e-12})
    p = np.clip(out.x if out.success and np.min(A.T @ out.x) > -1e-6 else p0, 0, None)
    p[p < 1e-7] = 0.0
    p /= p.sum()
    return p, A @ p


def alpha_rank(P: np.ndarray, alpha: float = 10.0, m: int = 50) -> np.ndarray:
    """The stationary distribution of single-population alpha-Rank over the entrants.

    A population of ``m`` copies of agent s is invaded by a mutant r (chosen uniformly among the other
    k - 1 agents) with the Fermi fixation probability ``(1 - exp(-alpha d)) / (1 - exp(-m alpha d))``,
    ``d = A[r, s]`` the mutant's advantage in the meta-game (``1/m`` when ``d = 0``); the stationary
    distribution of that Markov chain is the ranking (Omidshafiei et al. 2019)."""
    if not alpha > 0 or not isinstance(m, (int, np.integer)) or m < 2:
        raise ValueError(f"alpha_rank: expected alpha > 0 and an integer m >= 2, got alpha={alpha!r}, m={m!r}")
    A = meta_game(P)
    k = A.shape[0]
    if k == 1:
        return np.ones(1)
    C = np.zeros((k, k))
    for s in range(k):
        for r in range(k):
            if r == s:
                continue
            d = A[r, s]
            if abs(alpha * d) < 1e-12:
                rho = 1.0 / m
            else:
                x = -alpha * d
                # (1 - e^x) / (1 - e^{m x}) computed stably for either sign of x
                rho = float(np.expm1(x) / np.expm1(m * x)) if x < 0 else float(np.exp(-(m - 1) * x)
                                                                                  * np.expm1(-x) / np.expm1(-m * x))
            C[s, r] = rho / (k - 1)
        C[s, s] = 1.0 - C[s].sum()
    w, v = np.linalg.eig(C.T)
    pi = np.real(v[:, np.argmin(np.abs(w - 1.0))])
    pi = np.abs(pi) / np.abs(pi).sum()
    return pi


def bootstrap(games: Sequence[Game], k: int, fn: Callable[[np.ndarray], np.ndarray], samples: int = 200,
              rng: np.random.Generator | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(estimate, low, high)``: ``fn(P)`` of all games and the 2.5 / 97.5 percentiles of ``fn`` over
    ``samples`` resamplings of the games with replacement."""
    rng = rng or np.random.default_rng(0)
    est = np.asarray(fn(pairwise(games, k)[0]))
    if not games:
        return est, est.copy(), est.copy()
    draws = []
    for _ in range(samples):
        idx = rng.integers(0, len(games), len(games))
        draws.append(np.asarray(fn(pairwise([games[i] for i in idx], k)[0])))
    d = np.array(draws)
    return est, np.percentile(d, 2.5, axis=0), np.percentile(d, 97.5, axis=0)


def report(names: Sequence[str], games: Sequence[Game], samples: int = 200, seed: int = 0,
           alpha: float = 10.0) -> str:
    """A Markdown table: each entrant's Nash-averaging mass and rating and its alpha-Rank mass, each with
    its 95% bootstrap interval, sorted by alpha-Rank mass then rating."""
    k = len(names)
    rng = np.random.default_rng(seed)
    p, p_lo, p_hi = bootstrap(games, k, lambda P: nash_averaging(P)[0], samples, rng)
    r, r_lo, r_hi = bootstrap(games, k, lambda P: nash_averaging(P)[1], samples, rng)
    a, a_lo, a_hi = bootstrap(games, k, lambda P: alpha_rank(P, alpha), samples, rng)
    order = sorted(range(k), key=lambda i: (-a[i], -r[i]))
    lines = [f"| agent | Nash mass | Nash rating | alpha-Rank mass (alpha={alpha:g}) |", "|---|---|---|---|"]
    for i in order:
        lines.append(f"| `{names[i]}` | {p[i]:.2f} [{p_lo[i]:.2f}, {p_hi[i]:.2f}] | {r[i]:+.2f} [{r_lo[i]:+.2f}, "
                     f"{r_hi[i]:+.2f}] | {a[i]:.2f} [{a_lo[i]:.2f}, {a_hi[i]:.2f}] |")
    lines.append("")
    lines.append(f"From {len(games)} games' head-to-heads (each pair of entrants at one table: the better placing "
                 f"wins); intervals: 95% bootstrap over games ({samples} resamples). Nash rating 0 = in the "
                 "equilibrium mixture; negative = loses against it.")
    return "\n".join(lines)
