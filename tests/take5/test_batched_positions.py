"""Positions into the batched Take 5 engine: ``load_states`` (reference states, checked as ``set_state``
checks a state), ``gather`` (copies of loaded games) and ``observe_as`` (any seat's view).

Reference games are played to random points (mid-trick, row choices, drafts, later rounds), loaded into
a batched engine, and then both engines are stepped together with the same random legal actions and
compared at every step, with the harness of ``tests/take5/test_batched.py``, until every slot has
finished its game (and the autoreset game after it matches too)."""
from __future__ import annotations

import numpy as np
import pytest

from fiveplay_env.take5 import engine as eng
from fiveplay_env.take5.batched import BatchedTake5
from fiveplay_env.take5.config import Take5Config
from fiveplay_env.take5.observation import observe
from fiveplay_env.take5.state import OVER
from tests.take5.test_batched import Replay

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


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: f"n{c.num_players}-{c.mode}-{c.row_pick}-d{int(c.draft)}")
def test_loaded_positions_play_on_as_the_reference(cfg):
    states = positions(cfg, 12, seed=cfg.num_players)
    rep = Replay(cfg, len(states), base=77)
    rep.env.load_states(states)
    rep.refs = [s.clone() for s in states]
    assert rep.env.game_index.tolist() == list(range(len(states)))
    rep.run(len(states), rng_seed=3)


@pytest.mark.parametrize("cfg", CONFIGS[:1] + CONFIGS[4:], ids=["n4", "draft"])
def test_gathered_copies_play_the_same_future(cfg):
    states = positions(cfg, 6, seed=11)
    src = BatchedTake5(cfg, 6, seed=0)
    src.load_states(states)
    index = np.array([5, 0, 0, 3, 2, 2, 1, 4, 5])
    dst = BatchedTake5(cfg, len(index), seed=0)
    dst.gather(src, index)
    refs = [states[i].clone() for i in index]
    rng = np.random.default_rng(0)
    live = np.ones(len(index), bool)
    for _ in range(400):
        mask = dst.legal_action_mask
        obs = dst.observe()
        for j, s in enumerate(refs):
            if live[j]:
                assert np.array_equal(mask[j], eng.legal_mask(s))
                assert np.array_equal(obs[j], observe(cfg, s, s.current))
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        rewards = dst.step(acts)
        for j, s in enumerate(refs):
            if live[j]:
                assert rewards[j].tolist() == [float(r) for r in eng.step(cfg, s, int(acts[j]))]
                live[j] = s.phase != OVER
        if not live.any():
            break
    assert not live.any()
    # the source is untouched by its copies' play
    assert np.array_equal(src.observe()[0], observe(cfg, states[0], states[0].current))


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
