"""``load_states`` and ``gather`` of the batched 5 Alive engine: reference positions reached by random
play (Bomb answers, low lives, later rounds) loaded into every slot at once and played on beside the
reference with the harness of ``tests/five_alive/test_five_alive_batched.py``."""
from __future__ import annotations

import numpy as np
import pytest

from fiveplay_env.five_alive import engine as eng
from fiveplay_env.five_alive.batched import BatchedFiveAlive
from fiveplay_env.five_alive.config import FiveAliveConfig
from fiveplay_env.five_alive.observation import observe
from fiveplay_env.five_alive.state import OVER
from tests.five_alive.test_five_alive_batched import Replay

CONFIGS = [dict(num_players=4), dict(num_players=2), dict(num_players=6, variant="teams"),
           dict(num_players=3, variant="sudden_death", bomb_zero_optional=True)]


def positions(cfg: FiveAliveConfig, count: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        s = eng.new_game(cfg, int(rng.integers(2**32)))
        for _ in range(int(rng.integers(0, 150))):
            before = s.clone()
            eng.step(cfg, s, int(rng.choice(np.flatnonzero(eng.legal_mask(s)))))
            if s.phase == OVER:
                s = before
                break
        out.append(s)
    return out


@pytest.mark.parametrize("kw", CONFIGS, ids=lambda k: "-".join(f"{v}" for v in k.values()))
def test_loaded_positions_play_on_as_the_reference(kw):
    cfg = FiveAliveConfig(**kw)
    states = positions(cfg, 10, seed=cfg.num_players)
    rep = Replay(cfg, len(states), base=9)
    rep.env.load_states(states)
    rep.refs = [s.clone() for s in states]
    rep.run(len(states), rng_seed=1)


def test_gathered_copies_play_the_same_future_and_bad_states_are_refused():
    cfg = FiveAliveConfig(num_players=4)
    states = positions(cfg, 5, seed=3)
    src = BatchedFiveAlive(cfg, 5, seed=0)
    src.load_states(states)
    index = np.array([4, 4, 0, 1, 3, 2, 0])
    dst = BatchedFiveAlive(cfg, len(index), seed=0)
    dst.gather(src, index)
    refs = [states[i].clone() for i in index]
    rng = np.random.default_rng(1)
    live = np.ones(len(index), bool)
    for _ in range(3000):
        mask, obs = dst.legal_action_mask, dst.observe()
        for j, s in enumerate(refs):
            if live[j]:
                assert np.array_equal(mask[j], eng.legal_mask(s)) and np.array_equal(obs[j], observe(cfg, s, s.current))
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        rewards = dst.step(acts)
        for j, s in enumerate(refs):
            if live[j]:
                assert rewards[j].tolist() == [float(r) for r in eng.step(cfg, s, int(acts[j]))]
                live[j] = s.phase != OVER
        if not live.any():
            break
    assert not live.any()
    before = src.get_state()
    bad = states[1].clone()
    bad.lives = [9] * 4
    with pytest.raises(ValueError, match="lives"):
        src.load_states([states[0], bad, *states[2:]])
    with pytest.raises(ValueError, match=r"states\[0\]: expected a FiveAliveState of 4 players"):
        src.load_states([eng.new_game(FiveAliveConfig(num_players=3), 0), *states[1:]])
    after = src.get_state()
    assert all(np.array_equal(before["arrays"][k], after["arrays"][k]) for k in before["arrays"])
