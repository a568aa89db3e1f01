"""Rule scenarios written by hand from docs/rules.md section 2: each card kind, every [R] and [D] line."""
from __future__ import annotations

import numpy as np
import pytest

from fiveplay_env.core import seeding
from fiveplay_env.core.errors import IllegalActionError
from fiveplay_env.five_alive import engine as eng
from fiveplay_env.five_alive.config import DEFAULT_DECK, FiveAliveConfig
from fiveplay_env.five_alive.state import (
    BOMB, BOMB_ANSWER, BUST, DRAW1, DRAW2, EQ0, EQ10, EQ21, N0, N1, N2, N3, N4, N5, N6, N7, OVER, PASS, PLAY,
    REDEAL, REVERSE, SKIP, build_table,
)

C2, C3, C4, C6 = (FiveAliveConfig(num_players=n, first_player="seat0") for n in (2, 3, 4, 6))


def legal(state):
    return [int(a) for a in np.flatnonzero(eng.legal_mask(state))]


def hand(state, p):
    return state.hand(p)


def pos(cfg, hands, **kw):
    return eng.from_position(cfg, hands, **kw)


def snapshot(state):
    return {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in vars(state).items()}


def check_sync(state):
    assert np.array_equal(state.tab, build_table(state)), "the table mirror is out of sync"


# --- the deck and the set-up (2.1, 2.2) ---------------------------------------------------------------
def test_deck_table():
    assert sum(DEFAULT_DECK) == 77
    assert DEFAULT_DECK[:8] == (8, 8, 8, 8, 8, 4, 2, 1)
    assert DEFAULT_DECK[8:] == (6, 5, 4, 4, 3, 2, 2, 2, 1, 1)


@pytest.mark.parametrize("n", [2, 4, 6])
def test_set_up_deals_ten_each_from_one_documented_permutation(n):
    cfg = FiveAliveConfig(num_players=n)
    s = eng.new_game(cfg, seed=1234)
    canonical = [k for k in range(18) for _ in range(DEFAULT_DECK[k])]
    shuffled = [canonical[i] for i in seeding.permutation(s.seed, 0, 77)]
    for p in range(n):
        assert hand(s, p) == sorted(shuffled[10 * p:10 * p + 10])
        assert s.lives[p] == 5
    assert s.draw[::-1] == shuffled[10 * n:]  # drawn in order
    assert s.total == 0 and s.direction == 1 and s.phase == PLAY and s.round == 0
    assert s.current == seeding.below(s.seed, 1, n)  # first_player="random": event 1
    assert s.counter == 2 and s.discard_size == 0 and s.top == -1
    check_sync(s)


def test_first_player_seat0():
    s = eng.new_game(FiveAliveConfig(num_players=5, first_player="seat0"), seed=9)
    assert s.current == 0 and s.counter == 1


def test_custom_deck_counts():
    cfg = FiveAliveConfig(num_players=2, deck_counts={"bomb": 0, "n7": 3})
    s = eng.new_game(cfg, seed=3)
    counts = s.card_counts()
    assert counts[BOMB] == 0 and counts[N7] == 3 and sum(counts) == 78


# --- a turn (2.3) -------------------------------------------------------------------------------------
def test_numbers_add_their_value_and_are_legal_only_up_to_21():
    s = pos(C2, [[N0, N1, N2, N3, N4, N5, N6, N7], [N1]], total=17)
    assert legal(s) == [N0, N1, N2, N3, N4]
    eng.step(C2, s, N4)
    assert s.total == 21 and s.current == 1
    check_sync(s)


def test_eq21_is_playable_at_21():
    s = pos(C2, [[EQ21, N1], [N1]], total=21)
    assert legal(s) == [EQ21]
    eng.step(C2, s, EQ21)
    assert s.total == 21 and s.current == 1 and hand(s, 0) == [N1]


def test_every_wild_card_is_legal_at_21():
    wilds = [REVERSE, EQ21, SKIP, PASS, EQ0, EQ10, DRAW1, DRAW2, REDEAL, BOMB]
    s = pos(C2, [wilds + [N1], [N1]], total=21)
    assert legal(s) == wilds


@pytest.mark.parametrize("card, before, after", [(EQ10, 20, 10), (EQ10, 3, 10), (EQ0, 19, 0), (EQ21, 4, 21)])
def test_set_cards(card, before, after):
    s = pos(C3, [[card, N1], [N1], [N1]], total=before)
    eng.step(C3, s, card)
    assert s.total == after and s.current == 1
    check_sync(s)


def test_forced_bust_loses_a_life_keeps_the_hand_resets_t_and_passes():
    s = pos(C3, [[N5, N6, N7], [N1], [N1]], total=20)
    assert legal(s) == [BUST]
    before = hand(s, 0)
    rewards = eng.step(C3, s, BUST)
    assert s.lives == [4, 5, 5] and hand(s, 0) == before and s.total == 0 and s.current == 1
    assert rewards == [0, 0, 0]  # win_loss: nothing is decided yet
    assert eng.last_event(s)["lives_lost"] == {0: 1}
    check_sync(s)


def test_bust_is_illegal_while_a_card_is_playable_and_the_state_is_untouched():
    s = pos(C3, [[N1, N7], [N1], [N1]], total=20)
    assert legal(s) == [N1]
    snap = snapshot(s)
    for bad in (BUST, N7, 99, -1, "1", 1.0, True, None):
        with pytest.raises(IllegalActionError) as err:
            eng.step(C3, s, bad)
        assert err.value.legal == [N1] and err.value.agent == "player_0"
        assert snapshot(s) == snap


def test_voluntary_bust():
    cfg = FiveAliveConfig(num_players=2, allow_voluntary_bust=True)
    s = pos(cfg, [[N1, N2], [N1]])
    assert legal(s) == [N1, N2, BUST]
    eng.step(cfg, s, BUST)
    assert s.lives == [4, 5] and s.current == 1 and s.known[0] == {}  # a voluntary bust tells nothing


def test_pass_me_by():
    s = pos(C3, [[PASS, N1], [N1], [N1]], total=7)
    eng.step(C3, s, PASS)
    assert s.total == 7 and s.current == 1 and s.direction == 1


# --- Skip and Reverse (2.4) ---------------------------------------------------------------------------
def test_skip_with_three_or_more_survivors_skips_the_next():
    s = pos(C4, [[SKIP, N1], [N1], [N1], [N1]])
    eng.step(C4, s, SKIP)
    assert s.current == 2


def test_skip_skips_the_next_survivor_not_the_next_seat():
    s = pos(C4, [[SKIP, N1], [], [N1], [N1]], lives=[5, 0, 5, 5])
    eng.step(C4, s, SKIP)
    assert s.current == 3  # seat 1 is out: 2 is the next survivor, skipped


def test_skip_with_two_survivors_plays_again():
    s = pos(C2, [[SKIP, N1], [N1]])
    eng.step(C2, s, SKIP)
    assert s.current == 0
    s = pos(C3, [[N1], [SKIP, N1], []], lives=[5, 5, 0], current=1)
    eng.step(C3, s, SKIP)
    assert s.current == 1


def test_reverse_with_three_or_more_survivors():
    s = pos(C4, [[REVERSE, N1], [N1], [N1], [N1, N2]])
    eng.step(C4, s, REVERSE)
    assert s.direction == -1 and s.current == 3
    check_sync(s)
    eng.step(C4, s, N1)  # player 3 plays: the turn goes on counter-clockwise
    assert s.current == 2


def test_reverse_with_two_survivors_is_like_pass_me_by():
    s = pos(C2, [[REVERSE, N1], [N1, N2]])
    eng.step(C2, s, REVERSE)
    assert s.direction == -1 and s.current == 1
    eng.step(C2, s, N1)
    assert s.current == 0


def test_skip_counter_clockwise():
    s = pos(C4, [[SKIP, N1], [N1], [N1], [N1]], direction=-1)
    eng.step(C4, s, SKIP)
    assert s.current == 2  # 3 is skipped


# --- Draw 1 / Draw 2 (2.4) ----------------------------------------------------------------------------
def test_draw_two_each_drawer_takes_all_cards_in_turn_order():
    s = pos(C4, [[DRAW2, N1], [N1], [N1], [N1]], current=0, draw=[N2, N3, N4, N5, N6, N7, EQ0])
    eng.step(C4, s, DRAW2)
    assert hand(s, 1) == [N1, N2, N3] and hand(s, 2) == [N1, N4, N5] and hand(s, 3) == [N1, N6, N7]
    assert s.draw == [EQ0] and s.current == 1 and hand(s, 0) == [N1]
    assert eng.last_event(s)["drawn"] == {1: 2, 2: 2, 3: 2}
    check_sync(s)


def test_draw_one_counter_clockwise_starts_with_the_next_player():
    s = pos(C4, [[N1], [N1], [DRAW1, N1], [N1]], current=2, direction=-1, draw=[N2, N3, N4])
    eng.step(C4, s, DRAW1)
    assert hand(s, 1) == [N1, N2] and hand(s, 0) == [N1, N3] and hand(s, 3) == [N1, N4]
    assert s.current == 1


def test_draw_round_robin_option():
    cfg = FiveAliveConfig(num_players=3, draw_order="round_robin")
    s = pos(cfg, [[DRAW2, N1], [N1], [N1]], draw=[N2, N3, N4, N5])
    eng.step(cfg, s, DRAW2)
    assert hand(s, 1) == [N1, N2, N4] and hand(s, 2) == [N1, N3, N5]


def test_draw_from_an_empty_pile_reshuffles_all_but_the_top_discard():
    discard = [N4, EQ10, N0, N4]
    s = pos(C3, [[DRAW2, N1], [N1], [N1]], draw=[N7], discard=discard, seed=77, counter=5)
    eng.step(C3, s, DRAW2)
    # Player 1 takes the last card (7), then the pile is empty: the discard pile except its top card
    # (the Draw 2 just played) is reshuffled in canonical order (kinds ascending) with event 5.
    canonical = sorted(discard)
    perm = seeding.permutation(s.seed, 5, len(canonical))
    new_pile = [canonical[i] for i in perm]
    assert hand(s, 1) == sorted([N1, N7, new_pile[0]])
    assert hand(s, 2) == sorted([N1, new_pile[1], new_pile[2]])
    assert s.draw[::-1] == new_pile[3:]
    assert s.discard_size == 1 and s.top == DRAW2 and s.discard[DRAW2] == 1 and s.counter == 6
    assert eng.last_event(s)["reshuffled"] == 4
    assert s.draw_cap[0] == [1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0]
    assert sum(s.card_counts()) == 4 + 1 + 3 + 1
    check_sync(s)


def test_draws_are_skipped_when_nothing_is_left_to_draw():
    s = pos(C3, [[DRAW2, N1], [N1], [N1]], draw=[N7], discard=[])
    eng.step(C3, s, DRAW2)
    assert hand(s, 1) == [N1, N7] and hand(s, 2) == [N1]  # the Draw 2 alone is the discard pile
    assert s.draw == [] and s.counter == 2 and s.current == 1


def test_empty_draw_pile_skip_option_never_reshuffles():
    cfg = FiveAliveConfig(num_players=3, first_player="seat0", empty_draw_pile="skip")
    s = pos(cfg, [[DRAW1, N1], [N1], [N1]], draw=[N7], discard=[N3, N4])
    eng.step(cfg, s, DRAW1)
    assert hand(s, 1) == [N1, N7] and hand(s, 2) == [N1] and s.discard_size == 3


# --- Hand In & Re-Deal (2.4) --------------------------------------------------------------------------
@pytest.mark.parametrize("direction, nxt", [(1, 1), (-1, 2)])
def test_redeal_deals_one_at_a_time_clockwise_from_p_left_p_last(direction, nxt):
    order = [1, 2, 0]  # clockwise from P's left whatever the direction (docs/rules.md 2.4)
    s = pos(C3, [[REDEAL, N1, N2], [N3, N4], [N5, N6, N7]], total=9, direction=direction, seed=5,
            counter=3, draw=[EQ0], discard=[BOMB])
    eng.step(C3, s, REDEAL)
    canonical = [N1, N2, N3, N4, N5, N6, N7]
    perm = seeding.permutation(s.seed, 3, 7)
    expect = {p: [] for p in range(3)}
    for i, j in enumerate(perm):
        expect[order[i % 3]].append(canonical[j])
    for p in range(3):
        assert hand(s, p) == sorted(expect[p])
    assert [s.hand_size[p] for p in order] == [3, 2, 2]
    assert s.total == 0 and s.current == nxt and s.counter == 4  # the turn passes in the direction
    assert s.draw == [EQ0] and s.discard[BOMB] == 1 and s.top == REDEAL  # piles untouched
    check_sync(s)


def test_redeal_skips_eliminated_players():
    s = pos(C4, [[REDEAL, N1], [], [N2], [N3]], lives=[5, 0, 5, 5])
    eng.step(C4, s, REDEAL)
    assert s.hand_size == [1, 0, 1, 1] and s.current == 2


def test_redeal_as_last_card_ends_the_round_without_a_redeal():
    s = pos(C3, [[REDEAL], [N1, N2], [N3]], total=9, seed=11, counter=2)
    eng.step(C3, s, REDEAL)
    ev = eng.last_event(s)
    assert ev["went_out"] == [0] and ev["lives_lost"] == {1: 1, 2: 1} and ev["dealer"] == 0
    assert s.lives == [5, 4, 4] and s.round == 1
    assert s.counter == 3  # the only random event was the new round's deal


# --- Bomb (2.4) ---------------------------------------------------------------------------------------
def test_bomb_without_zeros_costs_each_other_player_a_life():
    s = pos(C4, [[BOMB, N1], [N1], [N2], [N3]], total=12)
    eng.step(C4, s, BOMB)
    assert s.lives == [5, 4, 4, 4] and s.total == 0 and s.current == 1
    assert eng.last_event(s)["lives_lost"] == {1: 1, 2: 1, 3: 1}
    check_sync(s)


def test_bomb_with_zeros_discards_exactly_one_zero_automatically():
    s = pos(C4, [[BOMB, N1], [N0, N0, N1], [N2], [N0, N3]], total=12)
    eng.step(C4, s, BOMB)
    assert s.lives == [5, 5, 4, 5]
    assert hand(s, 1) == [N0, N1] and hand(s, 3) == [N3]
    assert s.discard[N0] == 2 and s.top == N0  # the answers go on the discard pile
    assert eng.last_event(s)["zeros_discarded"] == [1, 3]
    assert s.total == 0 and s.current == 1 and s.phase == PLAY  # the bomber gets no extra turn


def test_bomb_as_the_bombers_last_card_both_losses():
    s = pos(C3, [[BOMB], [N1, N2], [N0, N3]])
    eng.step(C3, s, BOMB)
    # player 1: no 0, loses one life to the Bomb and one at the round end; player 2 discards a 0 and
    # still holds a card at the round end.
    assert s.lives == [5, 3, 4]
    ev = eng.last_event(s)
    assert ev["lives_lost"] == {1: 2, 2: 1} and ev["went_out"] == [0] and ev["dealer"] == 0
    assert s.round == 1 and s.current == 1


def test_bomb_last_card_resolves_false_ends_the_round_at_once():
    cfg = FiveAliveConfig(num_players=3, bomb_last_card_resolves=False)
    s = pos(cfg, [[BOMB], [N1, N2], [N0, N3]])
    eng.step(cfg, s, BOMB)
    assert s.lives == [5, 4, 4] and eng.last_event(s)["zeros_discarded"] == []


def test_a_responders_last_card_being_the_zero_ends_the_round():
    s = pos(C4, [[BOMB, N1], [N1], [N0], [N3]], total=5)
    eng.step(C4, s, BOMB)
    ev = eng.last_event(s)
    assert ev["went_out"] == [2] and ev["dealer"] == 2
    # Bomb losses first (1 and 3 have no 0), then the round end (0, 1, 3 hold cards).
    assert s.lives == [4, 3, 5, 3]
    assert s.round == 1 and s.current == 3 and s.total == 0


def test_several_go_out_at_once_the_bomber_deals():
    s = pos(C3, [[BOMB], [N0], [N1]])
    eng.step(C3, s, BOMB)
    ev = eng.last_event(s)
    assert ev["went_out"] == [0, 1] and ev["dealer"] == 0 and s.lives == [5, 5, 3]


def test_several_go_out_at_once_first_in_turn_order_from_p_deals():
    s = pos(C4, [[BOMB, N1], [N1], [N0], [N0]], current=0, direction=-1)
    eng.step(C4, s, BOMB)  # turn order from 0 counter-clockwise: 3, 2, 1
    ev = eng.last_event(s)
    assert ev["went_out"] == [3, 2] and ev["dealer"] == 3


def test_bomb_zero_optional_every_responder_answers_as_its_own_step():
    cfg = FiveAliveConfig(num_players=4, first_player="seat0", bomb_zero_optional=True)
    s = pos(cfg, [[BOMB, N1], [N0, N1], [N2], [N0, N3]], total=12)
    eng.step(cfg, s, BOMB)
    assert s.phase == BOMB_ANSWER and s.current == 1 and legal(s) == [N0, BUST]
    check_sync(s)
    with pytest.raises(IllegalActionError):
        eng.step(cfg, s, N1)
    eng.step(cfg, s, BUST)  # keep the 0, lose a life
    assert hand(s, 1) == [N0, N1]
    # player 2 has no 0: it answers too (docs/rules.md 2.4), with the one legal answer
    assert s.lives == [5, 4, 5, 5] and s.phase == BOMB_ANSWER and s.current == 2 and legal(s) == [BUST]
    with pytest.raises(IllegalActionError):
        eng.step(cfg, s, N0)
    eng.step(cfg, s, BUST)
    assert s.lives == [5, 4, 4, 5] and s.phase == BOMB_ANSWER and s.current == 3
    eng.step(cfg, s, N0)
    assert hand(s, 3) == [N3] and s.lives[3] == 5
    assert s.phase == PLAY and s.total == 0 and s.current == 1
    check_sync(s)


# --- going out and the new round (2.3.4, 2.5) ---------------------------------------------------------
def test_going_out_ends_the_round_and_the_dealer_starts_a_new_one():
    s = pos(C4, [[N1], [N1, N2], [N3], [N4, N5]], direction=-1, total=3, seed=21, counter=4,
            draw=[EQ0], discard=[BOMB])
    eng.step(C4, s, N1)
    assert s.lives == [5, 4, 4, 4]
    assert s.round == 1 and s.total == 0
    assert s.direction == 1 and s.current == 1  # clockwise again; the player after the dealer starts
    assert s.hand_size == [10, 10, 10, 10] and len(s.draw) == 37 and s.discard_size == 0 and s.top == -1
    canonical = [k for k in range(18) for _ in range(DEFAULT_DECK[k])]
    shuffled = [canonical[i] for i in seeding.permutation(s.seed, 4, 77)]
    assert hand(s, 2) == sorted(shuffled[20:30])
    assert eng.last_event(s)["dealer"] == 0
    check_sync(s)


def test_new_round_deals_only_to_survivors():
    s = pos(C4, [[N1], [], [N3], [N4, N5]], lives=[5, 0, 5, 5], seed=2)
    eng.step(C4, s, N1)
    assert s.hand_size == [10, 0, 10, 10] and len(s.draw) == 47 and s.current == 2


@pytest.mark.parametrize("start, direction, expect", [
    ("after_dealer", "keep", (-1, 3)), ("dealer", "clockwise", (1, 0)), ("dealer", "keep", (-1, 0)),
])
def test_new_round_start_and_direction_options(start, direction, expect):
    cfg = FiveAliveConfig(num_players=4, new_round_start=start, new_round_direction=direction)
    s = pos(cfg, [[N1], [N1, N2], [N3], [N4, N5]], direction=-1)
    eng.step(cfg, s, N1)
    assert (s.direction, s.current) == expect


# --- elimination and winning (2.6) --------------------------------------------------------------------
def test_elimination_mid_round_hand_to_the_discard_pile_beneath_its_top():
    s = pos(C3, [[N5, N6], [N1], [N1, N2]], total=20, lives=[1, 5, 5], discard=[N3, EQ10])
    rewards = eng.step(C3, s, BUST)
    assert s.alive == [False, True, True] and s.lives == [0, 5, 5] and s.n_alive == 2
    assert s.hand_size[0] == 0 and s.discard[N5] == 1 and s.discard[N6] == 1 and s.top == EQ10
    assert s.current == 1 and s.phase == PLAY and s.total == 0
    assert rewards == [-1, 0, 0] and eng.last_event(s)["eliminated"] == [0]
    check_sync(s)


def test_game_over_mid_round():
    s = pos(C2, [[N1], [N5, N6]], total=20, current=1, lives=[3, 1])
    rewards = eng.step(C2, s, BUST)
    assert s.phase == OVER and s.current == -1 and s.winners == [0] and rewards == [1, -1]
    assert eng.legal_mask(s).sum() == 0
    with pytest.raises(IllegalActionError):
        eng.step(C2, s, N1)
    check_sync(s)


def test_game_over_in_the_middle_of_a_bomb():
    s = pos(C3, [[BOMB, N1], [N1], [N2]], lives=[2, 1, 1])
    rewards = eng.step(C3, s, BOMB)
    assert s.phase == OVER and s.winners == [0] and rewards == [1, -1, -1]
    assert eng.last_event(s)["eliminated"] == [1, 2]


def test_round_end_eliminations_and_game_over():
    s = pos(C3, [[N1], [N1, N2], [N3]], lives=[1, 1, 1])
    rewards = eng.step(C3, s, N1)
    assert s.phase == OVER and s.winners == [0] and rewards == [1, -1, -1]


def test_eliminated_player_reward_comes_at_elimination_then_the_end():
    s = pos(C3, [[N1, N1], [N5], [BOMB, N2]], total=20, current=1, lives=[1, 1, 5])
    assert eng.step(C3, s, BUST) == [0, -1, 0]
    assert s.current == 2
    assert eng.step(C3, s, BOMB) == [-1, 0, 1]
    assert s.phase == OVER and s.winners == [2]


# --- rewards ------------------------------------------------------------------------------------------
def test_lives_reward_gives_minus_one_per_life_as_it_happens():
    cfg = FiveAliveConfig(num_players=3, reward="lives")
    s = pos(cfg, [[BOMB, N1], [N1], [N0, N2]])
    assert eng.step(cfg, s, BOMB) == [0, -1, 0]
    cfg = FiveAliveConfig(num_players=2, reward="win_loss+lives")
    s = pos(cfg, [[N1], [N5, N6]], total=20, current=1, lives=[3, 1])
    assert eng.step(cfg, s, BUST) == [1, -2]


# --- sudden death (2.7) -------------------------------------------------------------------------------
SD = FiveAliveConfig(num_players=4, variant="sudden_death", first_player="seat0")


def test_sudden_death_ends_at_the_first_elimination_most_lives_wins():
    s = pos(SD, [[N5, N6], [N1], [N2], [N3]], total=20, lives=[1, 3, 4, 2])
    rewards = eng.step(SD, s, BUST)
    assert s.phase == OVER and s.winners == [2] and rewards == [-1, -1, 1, -1]


def test_sudden_death_tie_goes_to_the_lowest_number_sum_wild_cards_count_zero():
    s = pos(SD, [[N5, N6], [N7, N1], [N3, N4, BOMB, EQ21], [N0, N1]], total=20, lives=[1, 4, 4, 2])
    eng.step(SD, s, BUST)
    assert s.winners == [2]  # 8 against 7 + 0 + 0: player 2
    cfg = FiveAliveConfig(num_players=4, variant="sudden_death", tiebreak_wild_value=3)
    s = pos(cfg, [[N5, N6], [N7, N1], [N3, N4, BOMB, EQ21], [N0, N1]], total=20, lives=[1, 4, 4, 2])
    eng.step(cfg, s, BUST)
    assert s.winners == [1]  # 8 against 7 + 3 + 3


def test_sudden_death_final_tiebreak():
    hands = [[N5, N6], [N3], [N3], [N0, N1]]
    s = pos(SD, hands, total=20, lives=[1, 4, 4, 2], direction=-1)
    eng.step(SD, s, BUST)
    assert s.winners == [2]  # tied on lives and sums: first in turn order from player 0 (ccw: 3, 2)
    cfg = FiveAliveConfig(num_players=4, variant="sudden_death", final_tiebreak="shared")
    s = pos(cfg, hands, total=20, lives=[1, 4, 4, 2])
    rewards = eng.step(cfg, s, BUST)
    assert s.winners == [1, 2] and rewards == [-1, 1, 1, -1]


def test_sudden_death_round_end_losses_are_simultaneous():
    s = pos(SD, [[N1], [N1, N2], [N3], [N4]], lives=[2, 1, 1, 3])
    eng.step(SD, s, N1)
    assert s.phase == OVER and s.lives == [2, 0, 0, 2]
    assert s.winners == [0]  # tied with player 3 on 2 lives: 0 holds nothing (sum 0)


# --- teams (2.7) --------------------------------------------------------------------------------------
TEAMS = FiveAliveConfig(num_players=4, variant="teams", first_player="seat0")


def test_teams_share_lives_and_a_bust_costs_the_busters_team():
    s = pos(TEAMS, [[N5, N6], [N1], [N2], [N3]], total=20)
    eng.step(TEAMS, s, BUST)
    assert s.lives == [4, 5, 4, 5] and s.current == 1
    check_sync(s)


def test_teams_going_out_costs_the_other_team_one_life_only():
    s = pos(TEAMS, [[N1], [N1, N2], [N3], [N4, N5]])
    eng.step(TEAMS, s, N1)
    assert s.lives == [5, 4, 5, 4] and s.round == 1


def test_teams_bomb_costs_a_team_one_life_per_member_without_a_zero():
    s = pos(FiveAliveConfig(num_players=6, variant="teams"),
            [[BOMB, N1], [N1], [N2], [N0, N3], [N4], [N5]])
    eng.step(FiveAliveConfig(num_players=6, variant="teams"), s, BOMB)
    # team A (0, 2, 4): 2 and 4 have no 0 -> 2 lives; team B (1, 3, 5): 1 and 5 -> 2 lives
    assert s.lives == [3, 3, 3, 3, 3, 3]


def test_teams_game_over_when_a_team_has_no_life_left():
    s = pos(TEAMS, [[BOMB, N1], [N1], [N2], [N3]], lives=[1, 2, 1, 2])
    rewards = eng.step(TEAMS, s, BOMB)
    # player 1 (team B) loses a life, then player 2 (team A, the bomber's teammate) the last one
    assert s.phase == OVER and s.winners == [1, 3] and rewards == [-1, 1, -1, 1]
    assert s.lives == [0, 1, 0, 1] and s.alive == [True] * 4


def test_teams_lives_reward_goes_to_every_member():
    cfg = FiveAliveConfig(num_players=4, variant="teams", reward="lives")
    s = pos(cfg, [[N5, N6], [N1], [N2], [N3]], total=20)
    assert eng.step(cfg, s, BUST) == [-1, 0, -1, 0]


# --- public knowledge recorded for determinization ----------------------------------------------------
def test_public_facts_from_a_forced_bust_and_a_bomb():
    s = pos(C3, [[N4, N7], [BOMB, N1], [N1]], total=18)
    eng.step(C3, s, BUST)  # at T = 18 every card up to 3 is playable: player 0 holds only 4..7
    assert s.known[0] == {sum(1 << v for v in (4, 5, 6, 7)): 2}
    eng.step(C3, s, BOMB)  # player 2 and player 0 answer with a life: neither holds a 0
    assert s.known[2] == {((1 << 18) - 1) & ~1: 1}
    assert s.known[0] == {sum(1 << v for v in (4, 5, 6, 7)): 2}


def test_teams_both_sides_go_out_at_once_on_their_last_lives_first_in_turn_order_wins():
    s = pos(TEAMS, [[BOMB], [N0], [N0, N1], [N0, N2]], lives=[1, 1, 1, 1])
    rewards = eng.step(TEAMS, s, BOMB)
    assert eng.last_event(s)["went_out"] == [0, 1]
    assert s.phase == OVER and s.winners == [0, 2] and rewards == [1, -1, 1, -1]
