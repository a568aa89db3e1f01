"""Third audit, the OpenSpiel games: every view defined at every node, chance nodes included, and
OpenSpiel's consistency checks on states at every depth."""
from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from fiveplay_env.integrations import openspiel as osi  # noqa: E402
from fiveplay_env.take5 import observation as t5obs  # noqa: E402


def test_the_views_at_the_last_chance_nodes_of_a_deal():
    """The audit's reproducer: 41 chance outcomes in, ``information_state_string(0)`` raised
    ``ValueError: could not broadcast`` (rows 1..3 of 4 dealt)."""
    s = osi.load("take5", num_players=4, mode="round").new_initial_state()
    for _ in range(41):
        s.apply_action(s.legal_actions()[0])
    for k in range(3):  # chance nodes 41, 42, 43: 1, 2, 3 rows on the table
        assert s.is_chance_node() and len(s.engine_state.rows) == k + 1
        text = s.information_state_string(0)
        rows_line = next(line for line in text.splitlines() if line.startswith("rows:"))
        assert rows_line.count("-") == 3 - k  # the rows still to come show empty
        obs = np.asarray(s.observation_tensor(0))
        assert obs[t5obs.ROWS:t5obs.ROWS + 104 * 4].sum() == k + 1
        assert obs[t5obs.ROW_STATS + 3 * (k + 1):t5obs.ROW_STATS + 12].sum() == 0
        for view in (s.information_state_tensor, s.observation_string):
            view(0)
        s.apply_action(s.legal_actions()[0])
    # the deal complete: the observation is the engine's own, and agrees with the partial one where it can
    assert not s.is_chance_node()
    assert np.array_equal(np.asarray(s.observation_tensor(1)), t5obs.observe(s.config, s.engine_state, 1))


def _views(game, state, n):
    info = game.information_state_tensor_size()
    obs = game.observation_tensor_size()
    for p in range(n):
        assert isinstance(state.information_state_string(p), str)
        assert isinstance(state.observation_string(p), str)
        assert len(state.information_state_tensor(p)) == info
        t = np.asarray(state.observation_tensor(p))
        assert t.shape == (obs,) and np.isfinite(t).all()


def _check_state(game, state, n):
    """OpenSpiel's invariants of one state (what ``random_sim_test`` checks along its games, here at every
    node): a clone and a serialized copy are the same state, the legal actions agree with the mask,
    chance outcomes are a distribution, every view is defined."""
    _views(game, state, n)
    copy = state.clone()
    assert str(copy) == str(state) and copy.history() == state.history()
    again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]
    assert str(again) == str(state)
    if state.is_chance_node():
        probs = [p for _, p in state.chance_outcomes()]
        assert probs and abs(sum(probs) - 1.0) < 1e-9 and min(probs) > 0
    elif not state.is_terminal() and not state.is_simultaneous_node():
        p = state.current_player()
        mask = state.legal_actions_mask(p)
        assert [a for a, m in enumerate(mask) if m] == state.legal_actions(p)


@pytest.mark.parametrize("name, params", [
    ("take5", "players=4,mode=round"), ("take5", "players=3,mode=rounds:2"),
    ("take5", "players=10,mode=round"), ("take5", "players=3,professional=True,draft=True,mode=round"),
    ("five_alive", "players=3"),
])
@pytest.mark.parametrize("turn_based", [False, True])
def test_every_view_is_defined_at_every_node(name, params, turn_based):
    game = pyspiel.load_game(f"{osi.GAME_NAMES[name]}({params})")
    if turn_based:
        if game.get_type().dynamics != pyspiel.GameType.Dynamics.SIMULTANEOUS:
            pytest.skip("a sequential game already")
        game = pyspiel.convert_to_turn_based(game)
    n = game.num_players()
    rng = np.random.default_rng(11)
    state = game.new_initial_state()
    nodes = 0
    while not state.is_terminal() and nodes < 3000:
        _check_state(game, state, n)
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
        elif state.is_simultaneous_node():
            state.apply_actions([int(rng.choice(state.legal_actions(p))) if state.legal_actions(p) else 0
                                 for p in range(n)])
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
        nodes += 1
    _check_state(game, state, n)
    assert state.is_terminal() or name == "five_alive"
