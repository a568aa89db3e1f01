"""The engine contract, for every game of the table: the vector API (``make_vec``, with the game's
batched engine where it has one, the reference loop otherwise) equals the reference engine at every
step; records replay exactly and refuse an edited action; determinizations keep what the player sees."""
from __future__ import annotations

import copy

import numpy as np
import pytest

from fiveplay_env import games, records
from fiveplay_env.core import seeding
from fiveplay_env.vector import make_vec, random_actions
from tests.contracts.cases import CASES, GAME_NAMES, IDS


def _backends(game: str) -> list[str]:
    return ["numpy", "reference"] if games.get(game).batched else ["reference"]


@pytest.mark.parametrize("game, preset, cfg", CASES, ids=IDS)
def test_vector_api_equals_the_reference_engine_at_every_step(game, preset, cfg):
    g = games.get(game)
    fields = g.config_dict(cfg)
    for backend in _backends(game):
        B, seed = 6, 3
        env = make_vec(game, B, seed=seed, backend=backend, **fields)
        obs, mask, cur = env.reset()
        refs = [g.new_engine(cfg, seeding.derive(seed, i)) for i in range(B)]
        played = [0] * B
        rng = np.random.default_rng(0)
        for _ in range(300):
            for i, e in enumerate(refs):
                assert cur[i] == e.current_player, (backend, i)
                np.testing.assert_array_equal(mask[i], e.legal_mask(), err_msg=f"{backend} slot {i}")
                np.testing.assert_array_equal(obs[i], g.observe(e, e.current_player), err_msg=f"{backend} slot {i}")
            actions = random_actions(mask, rng)
            obs, mask, cur, rewards, terminated, info = env.step(actions)
            for i, e in enumerate(refs):
                r = e.step(int(actions[i]))
                assert rewards[i].tolist() == [float(x) for x in r], (backend, i)
                assert bool(terminated[i]) == e.is_over, (backend, i)
                if e.is_over:
                    played[i] += 1
                    refs[i] = g.new_engine(cfg, seeding.derive(seed, i + played[i] * B))
                    assert int(info["seed"][i]) == refs[i].state.seed


@pytest.mark.parametrize("game, preset, cfg", CASES, ids=IDS)
def test_records_replay_exactly_and_refuse_an_edit(game, preset, cfg):
    g = games.get(game)
    rng = np.random.default_rng(1)
    engine = g.new_engine(cfg, 77)
    actions = []
    while not engine.is_over and len(actions) < 50_000:
        a = int(rng.choice(np.flatnonzero(engine.legal_mask())))
        engine.step(a)
        actions.append(a)
    rec = records.make_record(game, cfg, 77, actions, agents=["random"] * cfg.num_players, engine=engine)
    line = records.dumps(rec)
    rep = records.replay(records.parse_records(line)[0])
    assert rep.engine.is_over and records.summary(game, rep.engine.state) == rec["final"] == g.summary(engine.state)
    bad = copy.deepcopy(rec)
    bad["actions"] = bad["actions"][:-1]
    with pytest.raises(records.RecordError):
        records.replay(bad)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_determinization_keeps_what_the_player_sees(game):
    g = games.get(game)
    cfg = g.config_cls()
    engine = g.new_engine(cfg, 9)
    rng = np.random.default_rng(2)
    for _ in range(12):
        if engine.is_over:
            break
        p = engine.current_player
        seen = g.observe(engine, p)
        canon = g.canonical_state(engine, p)
        for k in range(3):
            world = g.sample_engine(cfg, canon, p, np.random.default_rng(k))
            np.testing.assert_array_equal(g.observe(world, p), seen)
            np.testing.assert_array_equal(world.legal_mask(), engine.legal_mask())
        engine.step(int(rng.choice(np.flatnonzero(engine.legal_mask()))))
