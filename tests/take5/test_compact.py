"""The compact Take 5 observation decodes exactly to the float observation, at every step."""
from __future__ import annotations

import numpy as np
import pytest

from fiveplay_env import vector
from fiveplay_env.take5 import compact
from fiveplay_env.take5 import observation as obs_mod

CONFIGS = [
    {"num_players": 4},
    {"num_players": 2, "mode": "round"},
    {"num_players": 10, "end_score": 30},
    {"num_players": 3, "row_pick": "player"},
    {"num_players": 5, "professional": True},
    {"num_players": 6, "professional": True, "mode": "rounds:2", "row_pick": "player"},
]


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype == np.float32 and np.array_equal(a.view(np.uint32), b.view(np.uint32))


@pytest.mark.parametrize("config", CONFIGS)
def test_compact_decodes_exactly_at_every_step(config):
    torch = pytest.importorskip("torch")
    from fiveplay_env.agents.learned.compact import CompactDecoder

    env = vector.make_vec("take5", 32, seed=11, **config)
    eng = env.engine
    obs, mask, _ = env.reset(11)
    lay = compact.layout(eng.num_players, eng.config.end_score)
    assert lay.size == 136 + 6 * eng.num_players and lay.obs_size == eng.observation_size
    dec = CompactDecoder(lay)
    rng = np.random.default_rng(3)
    games = 0
    seen = []
    for step in range(240):
        c = eng.observe_compact()
        assert c.dtype == np.uint8 and c.shape == (32, lay.size)
        assert _same_bits(lay.decode(c), obs)
        seen.append((c, obs.copy()))
        if len(seen) == 40:  # the torch decoder on many steps at once (one call per 40 steps)
            cs, os_ = (np.concatenate(x) for x in zip(*seen))
            assert _same_bits(dec(torch.from_numpy(cs)).numpy(), os_)
            seen = []
        obs, mask, _, _, term, _ = env.step(vector.random_actions(mask, rng))
        games += int(term.sum())
    assert games > 0  # finished games and autoreset were covered


def test_compact_vec_env_and_out_buffer():
    env = vector.make_vec("take5", 8, seed=1, compact_obs=True, num_players=4)
    c, mask, _ = env.reset(1)
    lay = compact.layout(4, 66)
    assert c.dtype == np.uint8 and c.shape == (8, lay.size) and env.obs_dim == 860
    buf = np.empty_like(c)
    assert env.engine.observe_compact(out=buf) is buf and np.array_equal(buf, c)
    with pytest.raises(ValueError, match="expected a C-contiguous uint8 array"):
        env.engine.observe_compact(out=np.empty((8, lay.size), np.float32))
    with pytest.raises(ValueError, match="compact: expected uint8"):
        lay.decode(np.zeros((2, 5), np.uint8))
    with pytest.raises(ValueError, match="compact_obs: expected a game with a compact observation"):
        vector.make_vec("five_alive", 2, compact_obs=True, num_players=3)


def test_layout_follows_the_float_layout(monkeypatch):
    """The codec is derived from the data of ``observation.LAYOUT``: a new 0/1 plane before row_stats is
    packed (a second byte per card), and a piece without a code is refused by name."""
    from fiveplay_env.core.layout import BITS, Layout, N, Piece

    real = obs_mod.LAYOUT
    i = real.names.index("row_stats")
    with_plane = Layout(real.pieces[:i] + (Piece("drafted", 104, "a ninth plane", code=BITS),) + real.pieces[i:])
    monkeypatch.setattr(obs_mod, "LAYOUT", with_plane)
    lay = compact.CompactTake5Layout(4, 66)
    assert lay.planes[-1] == "drafted" and lay.bytes_per_card == 2 and lay.tail_start == obs_mod.ROW_STATS + 104
    assert lay.obs_size == with_plane.size(4) == real.size(4) + 104 and lay.size == 208 + 2 * (12 + 3 * 4 + 4)
    rng = np.random.default_rng(0)
    x = np.zeros((3, lay.obs_size), np.float32)
    x[:, :9 * 104] = rng.random((3, 9 * 104)) < 0.3
    planes = x[:, :9 * 104].reshape(3, 9, 104).transpose(0, 2, 1).astype(np.uint8)   # [3, 104, 9]
    packed = np.packbits(np.concatenate([planes, np.zeros((3, 104, 7), np.uint8)], axis=2), axis=2, bitorder="little")
    c = np.zeros((3, lay.size), np.uint8)
    c[:, :208] = packed.reshape(3, 208)
    assert np.array_equal(lay.decode(c)[:, :9 * 104], x[:, :9 * 104])

    mystery = Layout(real.pieces[:-1] + (Piece("mystery", 2 * N, "no code declared"), real.pieces[-1]))
    monkeypatch.setattr(obs_mod, "LAYOUT", mystery)
    with pytest.raises(ValueError, match="no code for the observation piece 'mystery'"):
        compact.CompactTake5Layout(4, 66)


def test_draft_configs_are_refused_by_name() -> None:
    """A draft observation also holds the other players' public hands, which the compact form does not
    encode: asking for it is a clear error, in the engine and in the trainer."""
    env = vector.make_vec("take5", 4, seed=0, num_players=5, professional=True, draft=True)
    with pytest.raises(ValueError, match="expected draft=False"):
        env.engine.observe_compact()
    pytest.importorskip("torch")
    from fiveplay_env.agents.learned.algorithms.ppo import PPOConfig as TrainConfig
    from fiveplay_env.agents.learned.config import parse_opponents

    with pytest.raises(ValueError, match="compact_obs: expected draft=False"):
        TrainConfig(game="take5", config={"num_players": 5, "professional": True, "draft": True},
                    opponents=parse_opponents(["random"]), total_decisions=1000, compact_obs=True)


@pytest.mark.parametrize("config", [{"num_players": 4}, {"num_players": 3, "row_pick": "player", "mode": "rounds:3"}])
def test_compact_bits_kept_by_step_survive_late_starts_set_state_and_copies(config):
    """``observe_compact`` keeps the cards' public bits up to date as the games move (from its first
    call on); an engine first asked late, one restored with ``set_state`` mid-game and a deep copy all
    encode what ``observe`` shows."""
    import copy

    from fiveplay_env.take5.batched import make_batched

    a = make_batched(24, 5, **config)
    b = make_batched(24, 99, **config)
    lay = compact.layout(a.num_players, a.config.end_score)
    rng = np.random.default_rng(7)
    for step in range(150):
        if step == 37:  # a first call mid-round
            assert _same_bits(lay.decode(a.observe_compact()), a.observe())
        if step == 61:  # b (tracking since its first step) takes a's games; c copies a
            b.set_state(a.get_state())
            c = copy.deepcopy(a)
        if step > 37:
            assert _same_bits(lay.decode(a.observe_compact()), a.observe())
        if step < 61 or step % 3 == 0:  # b encodes from step 0 (its own games, then a's)
            assert _same_bits(lay.decode(b.observe_compact()), b.observe())
        actions = vector.random_actions(a.legal_action_mask, rng)
        a.step(actions)
        if step >= 61:
            b.step(actions)
            c.step(actions)
            assert _same_bits(lay.decode(c.observe_compact()), a.observe())
    assert np.array_equal(b.observe_compact(), a.observe_compact())


def test_compact_batches_larger_than_one_block():
    """A batch of several encoding blocks (4,096 games each) encodes every game, the last partial block too."""
    from fiveplay_env.take5.batched import make_batched

    eng = make_batched(4096 + 37, 2, num_players=4)
    lay = compact.layout(4, 66)
    rng = np.random.default_rng(1)
    for _ in range(12):
        assert _same_bits(lay.decode(eng.observe_compact()), eng.observe())
        eng.step(vector.random_actions(eng.legal_action_mask, rng))


# every path where ``step`` keeps the compact bits (``pub``) up to date: row choices by the player and by
# the cheapest-row rule (a chosen or cheapest row may be short), full rows, new deals and finished games
# (autoreset), 2..10 players, professional decks
UPKEEP_CONFIGS = [
    {"num_players": 2, "row_pick": "min_bullheads", "end_score": 20},
    {"num_players": 4, "row_pick": "min_bullheads", "professional": True, "end_score": 25},
    {"num_players": 10, "row_pick": "min_bullheads", "end_score": 30},
    {"num_players": 7, "row_pick": "player", "end_score": 30},
    {"num_players": 6, "row_pick": "player", "professional": True, "end_score": 25},
]


@pytest.mark.parametrize("config", UPKEEP_CONFIGS)
def test_compact_bits_kept_by_step_decode_exactly_and_survive_pickling(config):
    """From its first call on, ``observe_compact`` decodes to ``observe()`` at every step (numpy decoder),
    through row choices of both kinds, taken rows, new rounds and autoreset; an engine pickled
    mid-game (its compact bits dropped, rebuilt on its next call) encodes the same games the same way."""
    import pickle

    from fiveplay_env.take5.batched import make_batched

    eng = make_batched(16, 3, **config)
    lay = compact.layout(eng.num_players, eng.config.end_score)
    rng = np.random.default_rng(5)
    copy_ = None
    games = taken = 0
    for step in range(260):
        c = eng.observe_compact()
        assert _same_bits(lay.decode(c), eng.observe())
        if copy_ is not None:
            assert np.array_equal(copy_.observe_compact(), c)
        if step == 97:
            copy_ = pickle.loads(pickle.dumps(eng))
        actions = vector.random_actions(eng.legal_action_mask, rng)
        rewards = eng.step(actions)
        if copy_ is not None:
            copy_.step(actions)
        games += int(eng.terminated.sum())
        taken += int((rewards < 0).sum())
    assert games > 0 and taken > 0
