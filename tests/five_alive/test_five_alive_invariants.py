"""Invariants over thousands of seeded random games, determinism, cloning, and no hidden-information leak."""
from __future__ import annotations

import numpy as np
import pytest

from fiveplay_env.five_alive import determinize
from fiveplay_env.five_alive import engine as eng
from fiveplay_env.five_alive.config import LIVES, FiveAliveConfig
from fiveplay_env.five_alive.observation import observe
from fiveplay_env.five_alive.state import (
    BOMB, BOMB_ANSWER, BUST, DRAW2, N0, N1, N2, N3, N5, N6, N7, OVER, PLAY, PLAYABLE_BITS, build_table,
)
from tests.util import pick

# (config, games): 2,000+ games in all, every variant and every option that changes the flow.
RUNS = [
    (dict(num_players=2), 300),
    (dict(num_players=3, bomb_zero_optional=True), 200),
    (dict(num_players=4), 300),
    (dict(num_players=5, draw_order="round_robin", empty_draw_pile="skip"), 150),
    (dict(num_players=6, deck_counts={"draw2": 12, "redeal": 4}), 200),
    (dict(num_players=4, variant="sudden_death", allow_voluntary_bust=True), 250),
    (dict(num_players=2, variant="sudden_death", final_tiebreak="shared"), 150),
    (dict(num_players=4, variant="teams", bomb_zero_optional=True), 250),
    (dict(num_players=6, variant="teams", new_round_start="dealer", new_round_direction="keep"), 150),
    (dict(num_players=3, bomb_last_card_resolves=False, reward="win_loss+lives"), 100),
]
assert sum(g for _, g in RUNS) >= 2000


def satisfies_known(world, q) -> bool:
    for allowed, count in world.known[q].items():
        if sum(c for k, c in enumerate(world.hands[q]) if (allowed >> k) & 1) < count:
            return False
    return True


def check_state(cfg: FiveAliveConfig, s, prev_lives: list[int]) -> None:
    n = s.num_players
    assert s.card_counts() == list(cfg.deck_counts)  # every card in a hand, the draw or the discard pile
    assert np.array_equal(s.tab, build_table(s))
    assert s.discard_size == sum(s.discard) and (s.top < 0 or s.discard[s.top] > 0)
    for p in range(n):
        assert s.hand_size[p] == sum(s.hands[p])
        assert s.held[p] == sum(1 << k for k in range(18) if s.hands[p][k])
        assert 0 <= s.lives[p] <= prev_lives[p] <= LIVES
        if cfg.variant == "teams":
            assert s.lives[p] == s.lives[p % 2] and s.alive[p]
        else:
            assert s.alive[p] == (s.lives[p] > 0)
            if not s.alive[p]:
                assert s.hand_size[p] == 0
    assert s.n_alive == sum(s.alive)
    assert 0 <= s.total <= 21
    # the public facts recorded for determinization hold in the true state
    draw = s.draw_counts()
    for p in range(n):
        assert satisfies_known(s, p)
        if s.draw_cap[p] is not None:
            assert all(c <= s.draw_cap[p][k] for k, c in enumerate(draw))
    if s.phase == OVER:
        assert s.current == -1 and eng.legal_mask(s).sum() == 0
        return
    assert s.alive[s.current]
    if s.phase == PLAY:  # an empty hand ends the round at once (after the Bomb answers, 2.3.4)
        assert all(s.hand_size[p] > 0 for p in range(n) if s.alive[p])
    mask = eng.legal_mask(s)
    assert mask.dtype == np.int8 and mask.shape == (19,) and mask.sum() > 0
    if s.phase == PLAY:
        playable = s.held[s.current] & PLAYABLE_BITS[s.total]
        assert bool(mask[BUST]) == (playable == 0 or cfg.allow_voluntary_bust)
    else:
        assert s.phase == BOMB_ANSWER and s.current != s.bomber
        # every responder answers; discarding a 0 is legal only for one holding a 0
        assert list(np.flatnonzero(mask)) == ([N0, BUST] if s.hands[s.current][N0] > 0 else [BUST])


def check_end(cfg: FiveAliveConfig, s) -> None:
    n = s.num_players
    assert s.phase == OVER and s.winners
    if cfg.variant == "teams":
        assert len({p % 2 for p in s.winners}) == 1 and len(s.winners) == n // 2
        assert all(s.lives[p] == 0 for p in range(n) if p not in s.winners)
    elif cfg.final_tiebreak == "turn_order" or cfg.variant == "standard":
        assert len(s.winners) == 1
    if cfg.variant == "standard":
        assert s.n_alive == 1 and s.alive[s.winners[0]]
    assert s.result == [1 if p in s.winners else -1 for p in range(n)]


def play(cfg: FiveAliveConfig, seed: int, check: bool = True):
    s = eng.new_game(cfg, seed)
    rng = np.random.default_rng(seed)
    actions, total_rewards = [], [0] * cfg.num_players
    prev = s.lives[:]
    while s.phase != OVER:
        a = pick(eng.legal_mask(s), rng)
        actions.append(a)
        for p, r in enumerate(eng.step(cfg, s, a)):
            total_rewards[p] += r
        if check:
            check_state(cfg, s, prev)
        prev = s.lives[:]
        assert len(actions) < 20000
    return s, actions, total_rewards


@pytest.mark.slow
@pytest.mark.parametrize("kw, games", RUNS, ids=[str(i) for i in range(len(RUNS))])
def test_invariants_over_random_games(kw, games):
    cfg = FiveAliveConfig(**kw)
    for seed in range(games):
        s, actions, rewards = play(cfg, seed)
        check_end(cfg, s)
        if cfg.reward == "win_loss":
            assert rewards == s.result
        if seed % 50 == 0:  # determinism: the same seed and actions give the same game
            t = eng.new_game(cfg, seed)
            for a in actions:
                eng.step(cfg, t, a)
            assert vars(t).keys() == vars(s).keys()
            for k, v in vars(s).items():
                assert np.array_equal(v, vars(t)[k]) if isinstance(v, np.ndarray) else v == vars(t)[k], k


def test_invariants_quick():
    for kw, _ in RUNS:
        cfg = FiveAliveConfig(**kw)
        for seed in range(5):
            s, _, _ = play(cfg, 10_000 + seed)
            check_end(cfg, s)


def test_clone_is_independent_and_replays_identically():
    cfg = FiveAliveConfig(num_players=4, bomb_zero_optional=True)
    s = eng.new_game(cfg, 8)
    rng = np.random.default_rng(8)
    for _ in range(40):
        eng.step(cfg, s, pick(eng.legal_mask(s), rng))
    c = s.clone()
    assert c.hands is not s.hands and c.tab is not s.tab
    while s.phase != OVER:
        a = pick(eng.legal_mask(s), rng)
        eng.step(cfg, s, a)
        eng.step(cfg, c, a)
        assert np.array_equal(s.tab, c.tab) and s.hands == c.hands and s.draw == c.draw
    engine = eng.FiveAliveEngine(cfg, 3)
    copy = engine.clone()
    engine.step(pick(engine.legal_mask(), rng))
    assert copy.state.turns == 0 and engine.state.turns == 1


def test_same_seed_same_game_different_seed_different_game():
    cfg = FiveAliveConfig(num_players=4)
    a, b = eng.new_game(cfg, 42), eng.new_game(cfg, 42)
    assert a.hands == b.hands and a.draw == b.draw and a.current == b.current
    assert eng.new_game(cfg, 43).hands != a.hands


# --- no leak --------------------------------------------------------------------------------------------
def random_positions(cfg: FiveAliveConfig, games: int, every: int):
    for seed in range(games):
        s = eng.new_game(cfg, 500 + seed)
        rng = np.random.default_rng(seed)
        i = 0
        while s.phase != OVER:
            if i % every == 0:
                yield s
            eng.step(cfg, s, pick(eng.legal_mask(s), rng))
            i += 1


@pytest.mark.parametrize("kw", [
    dict(num_players=2), dict(num_players=4, bomb_zero_optional=True),
    dict(num_players=6, deck_counts={"draw2": 10, "draw1": 10, "redeal": 3}), dict(num_players=4, variant="teams"),
])
def test_no_leak_resampling_hidden_cards_leaves_the_observation_unchanged(kw):
    cfg = FiveAliveConfig(**kw)
    rng = np.random.default_rng(1)
    changed = 0
    for s in random_positions(cfg, 12, 7):
        for p in range(s.num_players):
            if not s.alive[p]:
                continue
            world = determinize.sample_world(cfg, s, p, rng)
            assert np.array_equal(observe(cfg, world, p), observe(cfg, s, p))
            if p == s.current:
                assert np.array_equal(eng.legal_mask(world), eng.legal_mask(s))
            assert world.card_counts() == list(cfg.deck_counts)
            assert np.array_equal(world.tab, build_table(world))
            assert world.hand_size == s.hand_size and len(world.draw) == len(s.draw)
            assert world.seed != s.seed
            for q in range(s.num_players):
                assert satisfies_known(world, q)
            cap = s.draw_cap[p]
            if cap is not None:
                assert all(c <= cap[k] for k, c in enumerate(world.draw_counts()))
            others = [q for q in range(s.num_players) if q != p]
            changed += any(world.hands[q] != s.hands[q] for q in others) or world.draw != s.draw
            # the world is a valid game: play it out
            if rng.random() < 0.05:
                w = world
                while w.phase != OVER:
                    eng.step(cfg, w, pick(eng.legal_mask(w), rng))
    assert changed > 0


def test_no_leak_shuffling_other_hands_and_the_draw_pile_by_hand():
    cfg = FiveAliveConfig(num_players=4)
    rng = np.random.default_rng(3)
    for s in random_positions(cfg, 5, 5):
        p = s.current
        t = s.clone()
        others = [q for q in range(4) if q != p and t.alive[q]]
        cards = t.draw[:] + [k for q in others for k in t.hand(q)]
        rng.shuffle(cards)
        pos = len(t.draw)
        t.draw = cards[:pos]
        for q in others:
            h = [0] * 18
            for k in cards[pos:pos + t.hand_size[q]]:
                h[k] += 1
            pos += t.hand_size[q]
            t.hands[q] = h
        eng.refresh(t)
        assert np.array_equal(observe(cfg, t, p), observe(cfg, s, p))
        assert np.array_equal(eng.legal_mask(t), eng.legal_mask(s))


def test_sample_world_respects_a_forced_bust_and_bomb_answers():
    cfg = FiveAliveConfig(num_players=3, first_player="seat0", bomb_zero_optional=True)
    deck = [N0] * 6 + [N1] * 6 + [N2] * 6 + [N7] * 3 + [BOMB]
    s = eng.from_position(cfg, [[N2, N7], [N1, BOMB, N1], [N0, N2]], total=20, draw=deck)
    eng.step(cfg, s, BUST)  # player 0 at T = 20: holds only numbers >= 2
    eng.step(cfg, s, BOMB)  # every other survivor answers in turn order: player 2 (holds a 0) first
    assert s.phase == BOMB_ANSWER and s.current == 2
    eng.step(cfg, s, BUST)  # keeps its 0: a choice, which tells nothing about its hand
    assert s.phase == BOMB_ANSWER and s.current == 0 and list(np.flatnonzero(eng.legal_mask(s))) == [BUST]
    eng.step(cfg, s, BUST)  # player 0 has no 0: its only answer, but the others cannot tell
    rng = np.random.default_rng(0)
    seen = set()
    zero_in_2 = set()
    for _ in range(200):
        w = determinize.sample_world(cfg, s, 1, rng)
        assert all(k in (N2, N7) for k in w.hand(0))  # numbers >= 2 (only 2s and 7s exist)
        zero_in_2.add(N0 in w.hand(2))
        seen.add((tuple(w.hand(0)), tuple(w.hand(2))))
    assert len(seen) > 3
    assert zero_in_2 == {True, False}  # the answers revealed no 0


def test_sample_world_respects_the_composition_of_a_reshuffled_draw_pile():
    cfg = FiveAliveConfig(num_players=3, first_player="seat0")
    s = eng.from_position(cfg, [[DRAW2, N1], [N5, N6, N5], [N6, N5]], draw=[],
                          discard=[N3, N3, N3, N3, N3, N3, N2])
    eng.step(cfg, s, DRAW2)  # reshuffle: the draw pile holds only 3s and 2s from now on
    rng = np.random.default_rng(0)
    for _ in range(100):
        w = determinize.sample_world(cfg, s, 0, rng)
        assert set(w.draw) <= {N2, N3}


def test_canonical_depends_only_on_what_the_player_knows():
    cfg = FiveAliveConfig(num_players=4)
    rng = np.random.default_rng(5)
    for s in random_positions(cfg, 6, 4):
        p = s.current
        other = determinize.sample_world(cfg, s, p, rng)  # the same information set for p
        a, b = determinize.canonical(cfg, s, p), determinize.canonical(cfg, other, p)
        assert a.hands == b.hands and a.draw == b.draw and a.seed == b.seed
        assert np.array_equal(observe(cfg, a, p), observe(cfg, s, p))
