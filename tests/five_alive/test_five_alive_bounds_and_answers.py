"""Regressions from the rules and reliability audits (issue 12): optional Bomb answers leak nothing,
Hand In & Re-Deal deals clockwise, the mask cache is bounded, every valid config's games end."""
from __future__ import annotations

import numpy as np
import pytest

from fiveplay_env.core import seeding
from fiveplay_env.five_alive import engine as eng
from fiveplay_env.five_alive.batched import BatchedFiveAlive
from fiveplay_env.five_alive.config import FiveAliveConfig
from fiveplay_env.five_alive.observation import observe
from fiveplay_env.five_alive.state import BOMB, BOMB_ANSWER, BUST, N0, N1, N2, N3, N4, N5, N6, N7, PLAY, REDEAL

OPT = FiveAliveConfig(num_players=4, first_player="seat0", bomb_zero_optional=True)


def _worlds():
    """Two positions that differ only in whether player 1 holds a 0 (player 3 holds it otherwise):
    player 2 cannot tell them apart."""
    a = eng.from_position(OPT, [[BOMB, N1, N1], [N0, N3], [N2, N4], [N5, N3]], total=4, draw=[N6, N7])
    b = eng.from_position(OPT, [[BOMB, N1, N1], [N5, N3], [N2, N4], [N0, N3]], total=4, draw=[N6, N7])
    return a, b


def test_optional_bomb_answers_do_not_show_who_holds_a_0():
    a, b = _worlds()
    np.testing.assert_array_equal(observe(OPT, a, 2), observe(OPT, b, 2))
    seen = []
    # the Bomb, then every other survivor's answer in turn order; both worlds answer "lose a life"
    for action in (BOMB, BUST, BUST, BUST):
        eng.step(OPT, a, action)
        eng.step(OPT, b, action)
        np.testing.assert_array_equal(observe(OPT, a, 2), observe(OPT, b, 2))
        assert (a.phase, a.current) == (b.phase, b.current)
        seen.append((a.phase, a.current))
    assert seen == [(BOMB_ANSWER, 1), (BOMB_ANSWER, 2), (BOMB_ANSWER, 3), (PLAY, 1)]
    assert a.lives == b.lives == [5, 4, 4, 4]
    # what the answers tell determinization: nothing about who held the 0
    assert a.known == b.known == [{}, {}, {}, {}]


def test_optional_bomb_answers_leak_nothing_in_the_batched_engine_either():
    env = BatchedFiveAlive(OPT, 2, seed=0)
    for i, s in enumerate(_worlds()):
        env.load(i, s)
    for action in (BOMB, BUST, BUST, BUST):
        obs = env.observe()
        np.testing.assert_array_equal(env.current_player[0], env.current_player[1])
        if env.current_player[0] == 2:
            np.testing.assert_array_equal(obs[0], obs[1])
        env.step(np.array([action, action]))
        np.testing.assert_array_equal(env.phase[0], env.phase[1])
    np.testing.assert_array_equal(env.lives[0], env.lives[1])
    np.testing.assert_array_equal(env.hands()[:, 2], env.hands()[[1, 0], 2])


def test_a_responder_without_a_0_has_only_the_life_answer_in_both_engines():
    a, _ = _worlds()
    eng.step(OPT, a, BOMB)
    assert list(np.flatnonzero(eng.legal_mask(a))) == [N0, BUST]  # player 1 holds a 0
    eng.step(OPT, a, BUST)
    assert list(np.flatnonzero(eng.legal_mask(a))) == [BUST]  # player 2 does not
    env = BatchedFiveAlive(OPT, 1, seed=0)
    env.load(0, _worlds()[0])
    env.step(np.array([BOMB]))
    assert list(np.flatnonzero(env.legal_action_mask[0])) == [N0, BUST]
    env.step(np.array([BUST]))
    assert list(np.flatnonzero(env.legal_action_mask[0])) == [BUST]


@pytest.mark.parametrize("direction", [1, -1])
def test_redeal_deals_clockwise_from_p_left_in_both_engines(direction):
    """docs/rules.md 2.4: one card at a time from the player to P's left (seat + 1), P last, whatever the
    direction: with 7 cards for 3 players, P's left neighbour gets the odd card."""
    cfg = FiveAliveConfig(num_players=3, first_player="seat0")
    s = eng.from_position(cfg, [[REDEAL, N1, N2], [N3, N4], [N5, N6, N7]], total=9, direction=direction,
                          seed=5, counter=3)
    env = BatchedFiveAlive(cfg, 1, seed=0)
    env.load(0, s)
    eng.step(cfg, s, REDEAL)
    env.step(np.array([REDEAL]))
    perm = seeding.permutation(s.seed, 3, 7)
    canonical = [N1, N2, N3, N4, N5, N6, N7]
    expect = {p: [0] * 18 for p in range(3)}
    for i, j in enumerate(perm):
        expect[[1, 2, 0][i % 3]][canonical[j]] += 1
    assert s.hand_size == [2, 3, 2]
    assert s.hands == [expect[p] for p in range(3)]
    np.testing.assert_array_equal(env.hands()[0], np.array(s.hands))
    assert s.current == env.current_player[0] == (1 if direction == 1 else 2)


def test_teams_several_going_out_at_once_in_the_batched_engine():
    cfg = FiveAliveConfig(num_players=4, variant="teams", first_player="seat0")
    s = eng.from_position(cfg, [[BOMB], [N0], [N0, N1], [N0, N2]], lives=[1, 1, 1, 1])
    env = BatchedFiveAlive(cfg, 1, seed=0)
    env.load(0, s)
    rewards = eng.step(cfg, s, BOMB)
    assert eng.last_event(s)["went_out"] == [0, 1] and s.winners == [0, 2]
    np.testing.assert_array_equal(env.step(np.array([BOMB]))[0], rewards)
    assert env.terminated[0] and env.final_result[0].tolist() == [1, -1, 1, -1]


def test_the_mask_cache_is_bounded():
    for bits in range(0, 1 << 19, 7):  # every hand is a new set of bits
        m = eng._mask_of(bits | 1)
        assert [int(x) for x in m] == [(bits | 1) >> a & 1 for a in range(19)]
        assert len(eng._MASKS) <= eng.MASK_CACHE_SIZE


# --- every game ends (item 5) ------------------------------------------------------------------------
def random_config(rng: np.random.Generator) -> FiveAliveConfig:
    """A random valid config: any player count and variant, every option, and odd decks (1..4 kinds,
    often rich in Draw cards, the decks that used to recycle forever)."""
    from fiveplay_env.five_alive import config as fc

    n = int(rng.integers(2, 7))
    variant = str(rng.choice(fc.VARIANTS))
    if variant == "teams" and n not in fc.TEAM_SIZES:
        variant = "standard"
    while True:
        counts = [0] * fc.NUM_KINDS
        for k in rng.choice(fc.NUM_KINDS, size=int(rng.integers(1, 5)), replace=False):
            counts[k] = int(rng.integers(1, 60))
        if rng.random() < 0.3:
            counts[14], counts[15] = int(rng.integers(10, 40)), int(rng.integers(10, 40))  # Draw 1, Draw 2
        if 10 * n <= sum(counts) <= fc.MAX_DECK:
            break
    pick = lambda xs: str(rng.choice(xs))  # noqa: E731
    return FiveAliveConfig(
        num_players=n, variant=variant, first_player=pick(fc.FIRST_PLAYERS),
        allow_voluntary_bust=bool(rng.integers(2)), bomb_zero_optional=bool(rng.integers(2)),
        deck_counts=tuple(counts), bomb_last_card_resolves=bool(rng.integers(2)),
        draw_order=pick(fc.DRAW_ORDERS), empty_draw_pile=pick(fc.EMPTY_DRAW_PILES),
        max_reshuffles=int(rng.integers(0, 60)), new_round_start=pick(fc.NEW_ROUND_STARTS),
        new_round_direction=pick(fc.NEW_ROUND_DIRECTIONS), tiebreak_wild_value=int(rng.integers(0, 22)),
        final_tiebreak=pick(fc.FINAL_TIEBREAKS), reward=pick(fc.REWARDS))


def test_every_game_of_random_valid_configs_ends_in_the_reference_engine():
    rng = np.random.default_rng(12)
    for i in range(150):
        cfg = random_config(rng)
        s = eng.new_game(cfg, i)
        for _ in range(200_000):  # far more than any game needs (the longest here: about 6,000 steps)
            if s.phase == 2:
                break
            eng.step(cfg, s, int(rng.choice(np.flatnonzero(eng.legal_mask(s)))))
        assert s.phase == 2, f"the game of {cfg} (seed {i}) did not end"


def test_every_game_of_random_valid_configs_ends_in_make_vec():
    from dataclasses import asdict

    from fiveplay_env import vector

    rng = np.random.default_rng(13)
    for i in range(30):
        cfg = random_config(rng)
        kw = {k: v for k, v in asdict(cfg).items() if k != "max_cycles"}
        env = vector.make_vec("five_alive", 6, seed=i, **kw)
        env.reset()
        done = np.zeros(6, bool)
        for _ in range(200_000):
            if done.all():
                break
            *_, terminated, _ = env.step(vector.random_actions(env.engine.legal_action_mask, rng))
            done |= terminated
        assert done.all(), f"a game of {cfg} (base seed {i}) did not end"
