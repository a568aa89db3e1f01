"""No hidden-information leak: re-dealing what a player cannot see leaves its observation unchanged."""
from __future__ import annotations

import numpy as np
import pytest

from fiveplay_env.take5 import engine as eng
from fiveplay_env.take5.config import Take5Config
from fiveplay_env.take5.observation import observe
from fiveplay_env.take5.state import OVER
from tests.util import pick


@pytest.mark.parametrize("cfg", [Take5Config(num_players=4), Take5Config(num_players=2),
                                 Take5Config(num_players=10), Take5Config(num_players=3, professional=True),
                                 Take5Config(num_players=3, professional=True, draft=True)],
                         ids=["n4", "n2", "n10", "pro", "draft"])
def test_redealing_hidden_cards_leaves_the_observation_unchanged(cfg):
    rng = np.random.default_rng(1)
    changed = 0
    for g in range(12 if cfg.num_players < 8 else 4):
        s = eng.new_game(cfg, seed=g)
        while s.phase != OVER:
            for p in range(cfg.num_players):
                world = eng.sample_world(cfg, s, p, rng)
                np.testing.assert_array_equal(observe(cfg, s, p), observe(cfg, world, p))
                assert sorted(world.card_locations()) == list(range(cfg.deck_size))
                assert world.hand_size == s.hand_size and world.rows == s.rows
                assert [x >= 0 for x in world.pending] == [x >= 0 for x in s.pending]
                others = [q for q in range(cfg.num_players) if q != p]
                if cfg.draft:  # draft picks are public: each other player's cards stay theirs
                    assert all(set(world.hand(q)) | {world.pending[q]} == set(s.hand(q)) | {s.pending[q]}
                               for q in others)
                    continue
                if any(world.hand(q) != s.hand(q) for q in others):
                    changed += 1
                    # ... while what those players see of their own hands did change
                    q = next(q for q in others if world.hand(q) != s.hand(q))
                    assert not np.array_equal(observe(cfg, s, q), observe(cfg, world, q))
            eng.step(cfg, s, pick(eng.legal_mask(s), rng))
    if not cfg.draft:
        assert changed > 100  # the test really re-dealt hidden cards


def test_unseen_pending_choice_is_part_of_the_hidden_cards():
    cfg = Take5Config(num_players=3)
    s = eng.new_game(cfg, seed=5)
    eng.step(cfg, s, s.hand(0)[0])  # player 0 has chosen, not revealed
    rng = np.random.default_rng(0)
    pendings = {eng.sample_world(cfg, s, 1, rng).pending[0] for _ in range(50)}
    assert len(pendings) > 5  # player 1 cannot know which card player 0 chose
    assert all(eng.sample_world(cfg, s, 0, rng).pending[0] == s.pending[0] for _ in range(5))


def test_draft_world_redraws_only_the_unrevealed_choices():
    cfg = Take5Config(num_players=2, professional=True, draft=True)
    s = eng.new_game(cfg, seed=1)
    rng = np.random.default_rng(0)
    while s.phase == 0:
        eng.step(cfg, s, pick(eng.legal_mask(s), rng))
    eng.step(cfg, s, s.hand(0)[0])
    worlds = [eng.sample_world(cfg, s, 1, rng) for _ in range(40)]
    known = set(s.hand(0)) | {s.pending[0]}
    assert all(set(w.hand(0)) | {w.pending[0]} == known for w in worlds)
    assert len({w.pending[0] for w in worlds}) > 3


def test_sample_depends_only_on_what_the_player_knows():
    """Two states that differ only in hidden cards give the same sample for the same rng, with a
    seed that is not the real one (the real seed would reveal the next deals)."""
    cfg = Take5Config(num_players=3)
    s = eng.new_game(cfg, seed=9)
    other = eng.sample_world(cfg, s, 0, np.random.default_rng(5))  # same view for player 0
    other.seed = s.seed
    a = eng.sample_world(cfg, s, 0, np.random.default_rng(1))
    b = eng.sample_world(cfg, other, 0, np.random.default_rng(1))
    assert a.hands.tobytes() == b.hands.tobytes() and a.set_aside == b.set_aside
    assert a.seed == b.seed != s.seed


@pytest.mark.parametrize("cfg", [Take5Config(num_players=4), Take5Config(num_players=3, professional=True, draft=True)],
                         ids=["n4", "draft"])
def test_canonical_depends_only_on_what_the_player_knows(cfg):
    """``determinize.canonical``: two states that differ only in hidden cards (hands, unrevealed choices,
    set-aside cards) give the same canonical copy; it keeps everything the player sees."""
    from fiveplay_env.take5 import determinize

    rng = np.random.default_rng(3)
    s = eng.new_game(cfg, seed=4)
    while s.phase == 0:
        eng.step(cfg, s, pick(eng.legal_mask(s), rng))
    eng.step(cfg, s, s.hand(0)[0])  # player 0 has chosen, not revealed
    for p in (1, 2):
        other = next(w for w in (determinize.sample_world(cfg, s, p, rng) for _ in range(50))
                     if w.pending[0] != s.pending[0] or w.hands.tobytes() != s.hands.tobytes())
        a, b = determinize.canonical(cfg, s, p), determinize.canonical(cfg, other, p)
        assert a.hands.tobytes() == b.hands.tobytes() and a.pending == b.pending and a.set_aside == b.set_aside
        assert a.view is None  # no stale observation buffer (other seats' hands changed)
        np.testing.assert_array_equal(observe(cfg, a, p), observe(cfg, s, p))
        assert sorted(a.card_locations()) == list(range(cfg.deck_size))
        if cfg.draft:  # the choice is the owner's lowest card; the owner's cards are unchanged
            assert a.pending[0] == min(s.hand(0) + [s.pending[0]])
        else:
            assert a.set_aside == sorted(a.set_aside)
    assert eng.sample_world is determinize.sample_world  # the engine re-exports it
