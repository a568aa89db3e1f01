"""Regressions from the audits of issue 12 for Take 5: every observation lies in its declared space for
every valid config, the draft's hands are public."""
from __future__ import annotations

import numpy as np
import pytest

from fiveplay_env import take5_v0
from fiveplay_env.take5 import engine as eng
from fiveplay_env.take5.config import Take5Config
from fiveplay_env.take5.observation import observation_high, observation_size, observe
from fiveplay_env.take5.state import OVER
from tests.util import pick

EXTREME = [
    dict(num_players=2, end_score=1, mode="rounds:2"),
    dict(num_players=10, end_score=1, mode="rounds:2"),
    dict(num_players=3, end_score=1),
    dict(num_players=4, end_score=2, end_inclusive=False),
    dict(num_players=2, end_score=1, mode="round", row_pick="min_bullheads"),
    dict(num_players=5, end_score=1, mode="rounds:2", professional=True, draft=True),
    dict(num_players=6, end_score=10_000, mode="round"),
]


@pytest.mark.parametrize("kw", EXTREME, ids=[str(i) for i in range(len(EXTREME))])
def test_every_observation_lies_in_the_declared_space(kw):
    rng = np.random.default_rng(4)
    for env in (take5_v0.env(**kw), take5_v0.parallel_env(**kw)):
        space = env.observation_space("player_0")["observation"]
        top = 0.0
        for g in range(2):
            if hasattr(env, "agent_iter"):
                env.reset(seed=g)
                for agent in env.agent_iter():
                    obs, _, term, trunc, _ = env.last()
                    assert space.contains(obs["observation"]), (kw, obs["observation"].max(), space.high.max())
                    top = max(top, float(obs["observation"].max()))
                    env.step(None if term or trunc else pick(obs["action_mask"], rng))
            else:
                obs, _ = env.reset(seed=g)
                while env.agents:
                    for o in obs.values():
                        assert space.contains(o["observation"]), (kw, o["observation"].max(), space.high.max())
                        top = max(top, float(o["observation"].max()))
                    obs, *_ = env.step({a: pick(obs[a]["action_mask"], rng) for a in env.agents})
        assert top > 1.0 or kw.get("end_score", 66) > 1000  # the scores really went past end_score


def test_the_declared_high_is_tight_enough_to_mean_something():
    assert observation_high(Take5Config()) < 4.0  # (65 + 171) / 66
    assert observation_high(Take5Config(end_score=1, mode="rounds:2")) >= 2 * 171
    assert observation_high(Take5Config(end_score=10_000)) == 2.7  # a row's bull heads / 10


@pytest.mark.parametrize("n", [2, 4, 6])
def test_draft_hands_are_public_in_every_observation(n):
    """docs/rules.md 1.5: with draft=True every pick is made face up, so each observation shows every other
    player's remaining hand (its unrevealed choice of the trick included: which card it chose stays
    hidden until the reveal)."""
    from fiveplay_env.take5.observation import pieces

    cfg = Take5Config(num_players=n, professional=True, draft=True, mode="round")
    off, size = pieces(n, draft=True)["others"]
    assert size == 104 * (n - 1) and off + size == observation_size(n, True)
    rng = np.random.default_rng(n)
    s = eng.new_game(cfg, seed=n)
    steps = 0
    while s.phase != OVER:
        for p in range(n):
            obs = observe(cfg, s, p)
            for i in range(1, n):
                q = (p + i) % n
                public = set(s.hand(q)) | ({s.pending[q]} if s.pending[q] >= 0 else set())
                shown = np.flatnonzero(obs[off + 104 * (i - 1):off + 104 * i]).tolist()
                assert shown == sorted(public)
        eng.step(cfg, s, pick(eng.legal_mask(s), rng))
        steps += 1
    assert steps > 10 * n
    env = take5_v0.env(num_players=n, professional=True, draft=True)
    env.reset(seed=1)
    assert env.observation_space("player_0")["observation"].shape == (848 + 3 * n + 104 * (n - 1),)
