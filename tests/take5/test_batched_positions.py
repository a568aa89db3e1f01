"""Positions into the batched Take 5 engine, what is particular to Take 5: ``observe_as`` (any seat's view)
and refused positions. That loaded positions and ``gather`` copies play on as the reference engine does is
the ``batched_positions`` contract of ``fiveplay_env.testing`` (every game, every preset)."""
from __future__ import annotations

import numpy as np
import pytest

from fiveplay_env.take5 import engine as eng
from fiveplay_env.take5.batched import BatchedTake5
from fiveplay_env.take5.config import Take5Config
from fiveplay_env.take5.observation import observe
from fiveplay_env.take5.state import OVER

CONFIGS = [
    Take5Config(num_players=4),
    Take5Config(num_players=4, mode="round"),
    Take5Config(num_players=10, mode="rounds:2"),
    Take5Config(num_players=3, row_pick="min_bullheads", end_score=20),
    Take5Config(num_players=4, professional=True, draft=True, mode="rounds:2"),
]


def positions(cfg: Take5Config, count: int, seed: int) -> list:
    """``count`` reference states reached by random legal play from seeded games (never over)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        s = eng.new_game(cfg, int(rng.integers(2**32)))
        for _ in range(int(rng.integers(0, 120))):
            legal = eng.legal_actions(s)
            before = s.clone()
            eng.step(cfg, s, int(rng.choice(legal)))
            if s.phase == OVER:
                s = before
                break
        out.append(s)
    return out


def test_observe_as_gives_every_seat_its_own_view():
    cfg = Take5Config(num_players=5)
    states = positions(cfg, 20, seed=5)
    env = BatchedTake5(cfg, len(states), seed=0)
    env.load_states(states)
    cur = env.current_player.copy()
    for q in range(cfg.num_players):
        obs = env.observe_as(np.full(len(states), q))
        for i, s in enumerate(states):  # every phase: play, row choices, drafts
            assert np.array_equal(obs[i], observe(cfg, s, q)), (i, q)
    assert np.array_equal(env.current_player, cur)  # nothing moved
    with pytest.raises(ValueError, match="seats: expected 20 seats in 0..4"):
        env.observe_as(np.full(len(states), 5))


def test_bad_positions_are_refused_by_name_and_change_nothing():
    cfg = Take5Config(num_players=4)
    states = positions(cfg, 3, seed=2)
    env = BatchedTake5(cfg, 3, seed=0)
    before = env.get_state()
    with pytest.raises(ValueError, match="expected 3 states"):
        env.load_states(states[:2])
    bad = states[1].clone()
    bad.hands[0, :] = 0  # a hand gone missing: cards no longer conserved
    with pytest.raises(ValueError, match=r"state\['arrays'\]\['loc'\]: game 1: expected hands of 10 - tricks"):
        env.load_states([states[0], bad, states[2]])
    worse = states[2].clone()
    worse.rows = [[200]] * 4
    with pytest.raises(ValueError, match=r"states\[2\]\.(rows|loc): expected values in -?\d+\.\.\d+ of shape"):
        env.load_states([states[0], states[1], worse])
    other = eng.new_game(Take5Config(num_players=5), 1)
    with pytest.raises(ValueError, match=r"states\[0\]\.num_players: expected 4, got 5"):
        env.load_states([other, states[1], states[2]])
    after = env.get_state()
    assert all(np.array_equal(before["arrays"][k], after["arrays"][k]) for k in before["arrays"])
    with pytest.raises(ValueError, match="source: expected a BatchedTake5 of the same config"):
        env.gather(BatchedTake5(Take5Config(num_players=4, mode="round"), 3), [0, 1, 2])
    with pytest.raises(ValueError, match="index: expected slot numbers in 0..2"):
        env.gather(env, [0, 1, 3])
