"""Rule scenarios written by hand from docs/rules.md section 1 (each printed example)."""
from __future__ import annotations

import numpy as np
import pytest

from fiveplay_env.core.errors import IllegalActionError
from fiveplay_env.take5 import engine as eng
from fiveplay_env.take5.config import Take5Config
from fiveplay_env.take5.state import (
    ACTION_ROW0, BULLHEADS, DRAFT, OVER, PLAY, ROW_CHOICE, TOTAL_BULLHEADS, bullheads_of,
)


def numbers(rows):
    return [[c + 1 for c in r] for r in rows]


def play_numbers(cfg, state, cards):
    """Each player in seat order plays the card with the given number; returns summed rewards."""
    total = [0] * state.num_players
    for card in cards:
        for p, r in enumerate(eng.step(cfg, state, card - 1)):
            total[p] += r
    return total


def test_bullhead_table_and_deck_total():
    assert TOTAL_BULLHEADS == 171
    assert bullheads_of(55) == 7
    assert [bullheads_of(c) for c in (11, 22, 33, 44, 66, 77, 88, 99)] == [5] * 8
    assert [bullheads_of(c) for c in (10, 20, 50, 100)] == [3] * 4
    assert [bullheads_of(c) for c in (5, 15, 45, 95)] == [2] * 4
    assert [bullheads_of(c) for c in (1, 2, 54, 56, 104)] == [1] * 5
    counts = {b: int((BULLHEADS == b).sum()) for b in (1, 2, 3, 5, 7)}
    assert counts == {1: 76, 2: 9, 3: 10, 5: 8, 7: 1}


def test_cards_placed_in_ascending_order_each_seeing_the_rows_left_by_the_previous():
    cfg = Take5Config(num_players=4)
    s = eng.from_position(cfg, [[93, 5], [17, 6], [90, 7], [4, 8]], [[1], [10], [50], [85]])
    rewards = play_numbers(cfg, s, [93, 17, 90, 4])  # chosen in seat order, placed 4, 17, 90, 93
    assert numbers(s.rows) == [[1, 4], [10, 17], [50], [85, 90, 93]]
    assert rewards == [0, 0, 0, 0]
    assert s.phase == PLAY and s.trick == 9 and s.current == 0


def test_sixth_card_takes_the_five_and_starts_the_row():
    cfg = Take5Config(num_players=2)
    row = [60, 62, 65, 66, 70]  # 3 + 1 + 2 + 5 + 3 = 14 bull heads
    s = eng.from_position(cfg, [[74, 3], [80, 4]], [row, [1], [2], [90]])
    rewards = play_numbers(cfg, s, [74, 80])
    assert numbers(s.rows) == [[74, 80], [1], [2], [90]]
    assert rewards == [-14, 0]
    assert s.round_pen == [14, 0] and numbers(s.taken) == [row, []]


def test_too_low_card_owner_chooses_a_row_after_all_cards_are_revealed():
    cfg = Take5Config(num_players=3, row_pick="player")
    s = eng.from_position(cfg, [[2, 40], [30, 41], [60, 42]], [[10, 11], [20], [50, 55], [70]])
    play_numbers(cfg, s, [2, 30, 60])
    assert s.phase == ROW_CHOICE and s.current == 0
    assert sorted(c + 1 for c in s.trick_cards) == [2, 30, 60]  # the chooser sees the whole trick
    mask = eng.legal_mask(s)
    assert list(np.flatnonzero(mask)) == [ACTION_ROW0 + r for r in range(4)]
    with pytest.raises(IllegalActionError):
        eng.step(cfg, s, 39)  # a card is not a row choice
    rewards = eng.step(cfg, s, ACTION_ROW0 + 2)  # take row [50, 55]: 3 + 7 bull heads
    assert rewards == [-10, 0, 0]
    assert numbers(s.rows) == [[10, 11], [20, 30, 60], [2], [70]]  # 60 follows 30, placed first
    assert s.phase == PLAY and s.trick == 9


def test_too_low_card_min_bullheads_takes_the_cheapest_row_automatically():
    cfg = Take5Config(num_players=2, row_pick="min_bullheads")
    # bull heads per row: [10, 11] = 3 + 5 = 8; [20] = 3; [52, 53] = 2; [54, 56] = 2 -> tie on
    # bull heads between rows 2 and 3 with the same length: the lower index (row 2) is taken.
    s = eng.from_position(cfg, [[2, 40], [30, 41]], [[10, 11], [20], [52, 53], [54, 56]])
    rewards = play_numbers(cfg, s, [2, 30])
    assert rewards == [-2, 0]
    assert numbers(s.rows) == [[10, 11], [20, 30], [2], [54, 56]]


def test_cheapest_row_prefers_fewer_cards_on_a_bullhead_tie():
    rows = [[c - 1 for c in r] for r in ([10], [1, 2, 3], [21, 23, 24], [30])]  # 3, 3, 3, 3 bull heads
    assert eng.cheapest_row(rows) == 0
    rows = [[c - 1 for c in r] for r in ([1, 2, 3], [10], [21, 23, 24], [30])]
    assert eng.cheapest_row(rows) == 1


def test_card_goes_on_the_row_with_the_closest_lower_end():
    cfg = Take5Config(num_players=2)
    s = eng.from_position(cfg, [[23, 3], [99, 4]], [[12], [20], [30], [40]])
    play_numbers(cfg, s, [23, 99])
    assert numbers(s.rows) == [[12], [20, 23], [30], [40, 99]]


def _last_trick(cfg, scores, penalty_row):
    """Player 0's 2 is too low and takes ``penalty_row``; everything else is harmless."""
    n = cfg.num_players
    hands = [[2]] + [[90 + p] for p in range(1, n)]
    rows = [penalty_row, [60], [70], [80]]
    return eng.from_position(cfg, hands, rows, scores=scores)


@pytest.mark.parametrize("inclusive, ends", [(True, True), (False, False)])
def test_game_ends_at_the_threshold(inclusive, ends):
    cfg = Take5Config(num_players=2, end_inclusive=inclusive, row_pick="min_bullheads")
    s = _last_trick(cfg, [63, 10], [10])  # 10 has 3 bull heads: 63 + 3 = 66 exactly
    play_numbers(cfg, s, [2, 91])
    assert s.scores == [66, 10]
    assert (s.phase == OVER) is ends
    if not ends:
        assert s.round == 1 and s.trick == 0 and s.hand_size == [10, 10]


def test_game_past_the_threshold_ends_either_way():
    cfg = Take5Config(num_players=2, end_inclusive=False, row_pick="min_bullheads")
    s = _last_trick(cfg, [64, 10], [10])
    play_numbers(cfg, s, [2, 91])
    assert s.scores == [67, 10] and s.phase == OVER
    assert eng.winners(s) == [1]


def test_tied_lowest_scores_share_the_win():
    cfg = Take5Config(num_players=3, row_pick="min_bullheads")
    s = _last_trick(cfg, [70, 20, 20], [10])
    play_numbers(cfg, s, [2, 91, 92])
    assert s.phase == OVER and s.scores == [73, 20, 20]
    assert eng.winners(s) == [1, 2]


@pytest.mark.parametrize("mode, rounds", [("round", 1), ("rounds:3", 3)])
def test_round_modes_end_after_k_rounds(mode, rounds):
    cfg = Take5Config(num_players=3, mode=mode)
    s = eng.new_game(cfg, 5)
    rng = np.random.default_rng(0)
    steps = 0
    while s.phase != OVER:
        eng.step(cfg, s, int(rng.choice(np.flatnonzero(eng.legal_mask(s)))))
        steps += 1
    assert s.round == rounds
    assert steps >= 30 * rounds  # 10 tricks x 3 players per round, plus row choices


@pytest.mark.parametrize("n", [2, 4, 6])
def test_professional_deck_is_1_to_10n_plus_4(n):
    cfg = Take5Config(num_players=n, professional=True)
    s = eng.new_game(cfg, 3)
    cards = [c for p in range(n) for c in s.hand(p)] + [r[0] for r in s.rows]
    assert sorted(cards) == list(range(10 * n + 4))
    assert s.set_aside == []


def test_professional_is_for_at_most_6_players():
    with pytest.raises(ValueError, match="num_players"):
        Take5Config(num_players=7, professional=True)


def test_draft_picks_in_seat_order_then_the_four_left_start_the_rows():
    cfg = Take5Config(num_players=2, professional=True, draft=True)
    s = eng.new_game(cfg, 0)
    assert s.phase == DRAFT and s.current == 0
    assert list(np.flatnonzero(eng.legal_mask(s))) == list(range(24))
    order = []
    picks = list(range(23, 3, -1))  # take from the top: 24, 23, ..., 5; 1..4 are left for the rows
    for c in picks:
        order.append(s.current)
        assert eng.step(cfg, s, c) == [0, 0]
    assert order == [0, 1] * 10
    assert s.phase == PLAY and s.current == 0
    assert numbers(s.rows) == [[1], [2], [3], [4]]
    assert s.hand(0) == list(range(5, 24, 2)) and s.hand(1) == list(range(4, 23, 2))
    with pytest.raises(IllegalActionError):
        eng.step(cfg, s, 0)  # card 1 lies in a row, not in player 0's hand


def test_draft_requires_professional():
    with pytest.raises(ValueError, match="draft"):
        Take5Config(draft=True)


def test_draft_runs_again_every_round():
    cfg = Take5Config(num_players=2, professional=True, draft=True, mode="rounds:2")
    s = eng.new_game(cfg, 0)
    rng = np.random.default_rng(1)
    drafts = 0
    while s.phase != OVER:
        drafts += s.phase == DRAFT
        eng.step(cfg, s, int(rng.choice(np.flatnonzero(eng.legal_mask(s)))))
    assert drafts == 2 * 20


def test_illegal_action_raises_and_changes_nothing():
    cfg = Take5Config(num_players=2)
    s = eng.new_game(cfg, 1)
    before = s.clone()
    not_held = next(c for c in range(104) if c not in s.hand(0))
    for bad in (not_held, 104, 108, -1, 109, 3.0, "7", None, True):
        with pytest.raises(IllegalActionError) as e:
            eng.step(cfg, s, bad)
        assert "player_0" in str(e.value) and "expected one of" in str(e.value)
    assert e.value.legal == s.hand(0)
    assert s.hands.tobytes() == before.hands.tobytes() and s.rows == before.rows
    assert s.pending == before.pending and s.current == before.current
