"""Invariants over thousands of seeded random games, and AEC == parallel trajectories."""
from __future__ import annotations

import numpy as np
import pytest

from fiveplay_env import take5_v0
from fiveplay_env.take5 import engine as eng
from fiveplay_env.take5.config import Take5Config
from fiveplay_env.take5.observation import observe
from fiveplay_env.take5.state import BULL, OVER
from tests.util import pick

# (config, games): 2,000+ games in all, every player count and each mode and variant.
PLAN = (
    [(Take5Config(num_players=n, mode="round"), 170) for n in range(2, 11)]
    + [(Take5Config(num_players=n, mode="round", row_pick="min_bullheads"), 40) for n in (2, 5, 10)]
    + [(Take5Config(num_players=n, mode="rounds:2"), 40) for n in (3, 7)]
    + [(Take5Config(num_players=n), 25) for n in (2, 4, 6, 10)]
    + [(Take5Config(num_players=n, end_inclusive=False, end_score=30), 30) for n in (3, 8)]
    + [(Take5Config(num_players=n, professional=True, mode="round"), 40) for n in (2, 4, 6)]
    + [(Take5Config(num_players=n, professional=True, draft=True, mode="round"), 30) for n in (2, 5)]
)


def check_state(cfg: Take5Config, s) -> None:
    loc = s.card_locations()  # raises if a card is in two places
    assert sorted(loc) == list(range(cfg.deck_size)), "a card went missing"
    for p in range(s.num_players):
        assert sum(BULL[c] for c in s.taken[p]) == s.round_pen[p]
        assert s.hand_size[p] == int(s.hands[p].sum())
    for row in s.rows:
        assert 1 <= len(row) <= 5 and row == sorted(row)
    if s.phase != OVER:
        assert eng.legal_mask(s).any(), "the acting player's mask is empty"


@pytest.mark.slow
@pytest.mark.parametrize("cfg, games", PLAN, ids=lambda x: str(x) if isinstance(x, int) else
                         f"n{x.num_players}-{x.mode}-{x.row_pick}-{'pro' if x.professional else ''}{'draft' if x.draft else ''}")
def test_random_games_keep_every_invariant(cfg, games):
    rng = np.random.default_rng(cfg.num_players * 1000 + games)
    for g in range(games):
        s = eng.new_game(cfg, seed=g)
        returns = [0] * cfg.num_players
        score_from_rounds = [0] * cfg.num_players
        while s.phase != OVER:
            check_state(cfg, s)
            round_before = s.round
            pens = s.round_pen[:]
            for p, r in enumerate(eng.step(cfg, s, pick(eng.legal_mask(s), rng))):
                returns[p] += r
                assert r <= 0
            if s.round != round_before:
                score_from_rounds = [a + b for a, b in zip(score_from_rounds, pens)]
        check_state(cfg, s)
        # each score equals the bull heads its player took, and the episode return is minus it
        assert returns == [-x for x in s.scores]
        if cfg.num_rounds is not None:
            assert s.round == cfg.num_rounds
        else:
            top = max(s.scores)
            assert top >= cfg.end_score if cfg.end_inclusive else top > cfg.end_score


@pytest.mark.slow
@pytest.mark.parametrize("n, extra", [(2, {}), (4, {}), (10, {}), (3, {"row_pick": "min_bullheads"}),
                                      (4, {"professional": True, "draft": True}), (5, {"mode": "rounds:2"})])
def test_aec_and_parallel_envs_play_the_same_game(n, extra):
    """Same seed, same actions: the parallel env and the AEC env produce the same trajectory."""
    for seed in range(25):
        aec = take5_v0.env(num_players=n, **extra)
        par = take5_v0.parallel_env(num_players=n, **extra)
        aec.reset(seed=seed)
        obs, _ = par.reset(seed=seed)
        rng = np.random.default_rng(seed)
        ret_par = dict.fromkeys(par.possible_agents, 0.0)
        ret_aec = dict.fromkeys(par.possible_agents, 0.0)
        while par.agents:
            # everyone's observation matches at the start of every parallel step
            for p, a in enumerate(par.possible_agents):
                np.testing.assert_array_equal(obs[a]["observation"], aec.observe(a)["observation"])
            acts = {a: pick(o["action_mask"], rng) for a, o in obs.items()}
            deciders = [a for a in par.possible_agents if acts[a] != 108]
            for a in deciders:  # the AEC env asks the same players, in seat order
                assert aec.agent_selection == a
                aec.step(acts[a])
                for b in aec.agents:
                    ret_aec[b] += aec.rewards[b]
            obs, rew, term, trunc, _ = par.step(acts)
            for a, r in rew.items():
                ret_par[a] += r
        assert ret_par == ret_aec
        assert aec.unwrapped.engine.state.scores == par.engine.state.scores
        assert all(aec.terminations.values())


def reference_observation(cfg: Take5Config, s, p: int) -> np.ndarray:
    """The observation table written out plainly, independent of observation.py's caching."""
    n = s.num_players
    hand = np.zeros(104)
    hand[s.hand(p)] = 1
    seen = s.seen.astype(float)
    trick = np.zeros(104)
    trick[s.trick_cards] = 1
    pool = s.pool[:104].astype(float) if s.phase == 0 else np.zeros(104)
    rows = np.zeros((4, 104))
    stats = np.zeros((4, 3))
    for r, row in enumerate(s.rows):
        rows[r, row] = 1
        stats[r] = [(row[-1] + 1) / 104, len(row) / 5, sum(BULL[c] for c in row) / 10]
    rel = [(p + i) % n for i in range(n)]
    scores = [s.scores[q] / cfg.end_score for q in rel]
    pens = [s.round_pen[q] / cfg.end_score for q in rel]
    seat = np.zeros(n)
    seat[p] = 1
    phase = np.zeros(3)
    if s.phase != OVER:
        phase[s.phase] = 1
    others = []
    if cfg.draft:  # every other player's hand is public, its unrevealed choice included (docs/rules.md 1.5)
        for q in rel[1:]:
            h = np.zeros(104)
            h[s.hand(q) + ([s.pending[q]] if s.pending[q] >= 0 else [])] = 1
            others.append(h)
    return np.concatenate([hand, seen, trick, pool, rows.ravel(), stats.ravel(), scores, pens, seat,
                           phase, [s.trick / 10], *others]).astype(np.float32)


@pytest.mark.parametrize("cfg", [Take5Config(num_players=4), Take5Config(num_players=2, professional=True, draft=True),
                                 Take5Config(num_players=7, row_pick="min_bullheads"),
                                 Take5Config(num_players=3, mode="rounds:2", end_score=40)])
def test_observation_matches_the_documented_table(cfg):
    """The engine's incrementally kept observations equal the table written out plainly, at every
    step, for every player, including across clones and states whose buffer was dropped."""
    rng = np.random.default_rng(0)
    for g in range(15):
        s = eng.new_game(cfg, seed=g)
        while s.phase != OVER:
            for p in range(cfg.num_players):
                np.testing.assert_array_equal(observe(cfg, s, p), reference_observation(cfg, s, p))
            if rng.random() < 0.05:
                s = s.clone(view=rng.random() < 0.5)
            eng.step(cfg, s, pick(eng.legal_mask(s), rng))
        for p in range(cfg.num_players):
            np.testing.assert_array_equal(observe(cfg, s, p), reference_observation(cfg, s, p))
