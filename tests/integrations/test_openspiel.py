"""Both games in OpenSpiel, with the real ``open_spiel`` package: OpenSpiel's own consistency checks
(``random_sim_test`` with serialization, its Python-game sim test), every config family played to the
end, exact replays of our engines' games (returns equal), ``resample_from_infostate`` without leaks,
clone / serialize round-trips, OpenSpiel's IS-MCTS, MCTS and ``evaluate_bots``, and the ``openspiel:``
agents in our tournament."""
from __future__ import annotations

import importlib
import pickle
import sys
import types

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import evaluate_bots, ismcts, mcts  # noqa: E402
from open_spiel.python.observation import make_observation  # noqa: E402

from fiveplay_env.agents import games  # noqa: E402
from fiveplay_env.agents.base import InformationSet  # noqa: E402
from fiveplay_env.agents.registry import known_agents, make_agent  # noqa: E402
from fiveplay_env.five_alive import engine as faeng  # noqa: E402
from fiveplay_env.five_alive import observation as faobs  # noqa: E402
from fiveplay_env.five_alive.config import DEFAULT_DECK, KIND_KEYS, FiveAliveConfig  # noqa: E402
from fiveplay_env.five_alive.state import DRAW1, DRAW2  # noqa: E402
from fiveplay_env.integrations import openspiel as osi  # noqa: E402
from fiveplay_env.take5 import engine as t5eng  # noqa: E402
from fiveplay_env.take5 import observation as t5obs  # noqa: E402
from fiveplay_env.take5.config import Take5Config  # noqa: E402

# Every config family (issue 28): Take 5 modes, professional, draft, row picks, 2 and 10 players;
# 5 Alive variants, Bomb answers, custom decks (one rich in Draw cards: reshuffles), 2 and 6 players.
DRAWS_DECK = "draw1:10 draw2:10 n0:4 n1:4"
TAKE5_FAMILIES = [
    {"players": 4, "mode": "round"}, {"players": 3, "mode": "game", "end_score": 20},
    {"players": 4, "mode": "rounds:2", "row_pick": "min_bullheads"}, {"players": 2, "mode": "round"},
    {"players": 10, "mode": "round"}, {"players": 4, "professional": True, "mode": "rounds:2"},
    {"players": 3, "professional": True, "draft": True, "mode": "round"},
    {"players": 5, "mode": "game", "end_score": 15, "end_inclusive": False},
]
FIVE_ALIVE_FAMILIES = [
    {"players": 4}, {"players": 2}, {"players": 6, "first_player": "seat0"}, {"players": 3, "variant": "sudden_death"},
    {"players": 4, "variant": "teams"}, {"players": 6, "variant": "teams"}, {"players": 4, "bomb_zero_optional": True},
    {"players": 4, "deck_counts": DRAWS_DECK, "draw_order": "round_robin"},
    {"players": 3, "deck_counts": "bomb:6 redeal:6 draw2:6", "allow_voluntary_bust": True, "reward": "win_loss+lives"},
    {"players": 5, "reward": "lives", "max_cycles": 30},
]


def _name(game: str, params: dict) -> str:
    return f"{osi.GAME_NAMES[game]}({','.join(f'{k}={v}' for k, v in params.items())})"


def _random_chance(state, rng):
    outcomes = state.chance_outcomes()
    probs = np.array([p for _, p in outcomes])
    assert np.all(probs > 0) and abs(probs.sum() - 1.0) < 1e-9
    return outcomes[int(rng.choice(len(outcomes), p=probs))][0]


def _random_play(state, rng, check=None):
    """Random play to the end (chance by its probabilities); ``check(state)`` at every player node."""
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(_random_chance(state, rng))
        elif state.is_simultaneous_node():
            if check:
                check(state)
            n = state.get_game().num_players()
            state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in range(n)])
        else:
            if check:
                check(state)
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def _until_decision(state, rng):
    while state.is_chance_node():
        state.apply_action(_random_chance(state, rng))
    return state


# --- loading and parameters ----------------------------------------------------------------------------
def test_games_load_by_name_with_our_config_fields_and_declare_their_type():
    take5 = pyspiel.load_game("python_fiveplay_take5(players=4)")
    five = pyspiel.load_game("python_fiveplay_five_alive(players=6,variant=teams)")
    assert take5.config == Take5Config(num_players=4)
    # OpenSpiel needs a finite game length: max_cycles (None in our config) defaults to osi.MAX_CYCLES
    assert five.config == FiveAliveConfig(num_players=6, variant="teams", max_cycles=osi.MAX_CYCLES)
    t, f = take5.get_type(), five.get_type()
    assert t.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS and f.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    for ty in (t, f):
        assert ty.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
        assert ty.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
        assert ty.reward_model == pyspiel.GameType.RewardModel.TERMINAL
        assert ty.provides_information_state_tensor and ty.provides_observation_tensor
    assert (t.min_num_players, t.max_num_players, f.min_num_players, f.max_num_players) == (2, 10, 2, 6)
    assert take5.num_distinct_actions() == 108 and five.num_distinct_actions() == 19
    assert take5.observation_tensor_shape() == [t5obs.observation_size(4)]
    assert five.information_state_tensor_shape() == [faobs.observation_size(6)]
    # the parameters are the config fields with their defaults
    assert take5.get_parameters() == osi.params_from_config(Take5Config(num_players=4))
    assert pyspiel.load_game("python_fiveplay_take5(mode=rounds:3,draft=true,professional=true)").config.num_rounds == 3
    assert osi.load("five_alive", num_players=3, max_cycles=40).config == FiveAliveConfig(num_players=3, max_cycles=40)
    custom = pyspiel.load_game(f"python_fiveplay_five_alive(deck_counts={DRAWS_DECK})").config.deck_counts
    assert custom[KIND_KEYS.index("draw2")] == 10 and custom[KIND_KEYS.index("n5")] == DEFAULT_DECK[5]
    assert pyspiel.load_game("python_fiveplay_five_alive", {"deck_counts": " ".join(["5"] * 18)}).config.deck_counts \
        == (5,) * 18


@pytest.mark.parametrize(("name", "message"), [
    ("python_fiveplay_take5(mode=rounds:0)", "mode: expected 'game', 'round' or 'rounds:K'"),
    ("python_fiveplay_take5(players=11)", "num_players: expected an integer in 2..10"),
    ("python_fiveplay_take5(draft=true)", "draft: expected False unless professional=True"),
    ("python_fiveplay_five_alive(variant=teams,players=3)", "variant='teams' needs one of [4, 6] players"),
    ("python_fiveplay_five_alive(deck_counts=1 2 3)", "deck_counts: expected 18 counts"),
    ("python_fiveplay_five_alive(deck_counts=joker:3)", "deck_counts: expected keys among"),
    ("python_fiveplay_five_alive(max_cycles=0)", "max_cycles: expected an integer in >= 1"),
])
def test_bad_parameters_raise_our_config_errors(name, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]").replace("'", ".")):
        pyspiel.load_game(name)




def test_the_openspiel_forms_are_games_of_the_game_table():
    """Every OpenSpiel form is a game of ``fiveplay_env.games`` with that game's config class; a game of
    the table without one (the toy game of tests/toy_game, registered by conftest) and an unknown name
    are clear errors, in the integration and for the agents."""
    from fiveplay_env.agents.registry import make_agent
    from fiveplay_env import games

    assert set(osi.FORMS) <= set(games.names()) and "toybid" in games.names()
    for name, f in osi.FORMS.items():
        game = osi.load(name)
        assert type(game) is f.game_cls and game.get_type().short_name == f.short_name == osi.GAME_NAMES[name]
        assert isinstance(game.config, games.get(name).config_cls)
        assert osi.form_of_config(game.config) is f
        assert f.simultaneous == (game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS)
    toy_config = games.get("toybid").make_config({})
    for call in (lambda: osi.load("toybid"), lambda: osi.config_from_params("toybid", {}),
                 lambda: make_agent("openspiel:ismcts", "toybid", seed=0)):
        with pytest.raises(ValueError, match=r"expected a game with an OpenSpiel form, one of \['five_alive', "
                                             r"'take5'\]; 'toybid' has none"):
            call()
    with pytest.raises(ValueError, match="expected the config of a game with an OpenSpiel form"):
        osi.form_of_config(toy_config)
    with pytest.raises(ValueError, match=r"game: expected one of \[.*'toybid'.*\], got 'chess'"):
        osi.load("chess")
# --- OpenSpiel's own checks ------------------------------------------------------------------------------
@pytest.mark.parametrize(("game", "params", "turn_based"), [
    ("take5", {"players": 4, "mode": "round"}, False), ("take5", {"players": 3, "mode": "round"}, True),
    ("take5", {"players": 3, "professional": True, "draft": True, "mode": "round"}, True),
    ("five_alive", {"players": 3}, False), ("five_alive", {"players": 4, "bomb_zero_optional": True, "max_cycles": 25},
                                             False),
])
def test_openspiel_random_sim_test_with_serialization(game, params, turn_based):
    g = pyspiel.load_game(_name(game, params))
    if turn_based:
        g = pyspiel.convert_to_turn_based(g)
        assert g.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    pyspiel.random_sim_test(g, num_sims=2 if game == "take5" else 1, serialize=True, verbose=False)


def test_openspiel_python_game_sim_test(monkeypatch):
    """OpenSpiel's own test of Python games (``games_sim_test.sim_game``: pickling of the game, its type
    and states, ``serialize_game_and_state``, clones at every step), on both games and on Take 5
    converted to turn-based."""
    # the test module registers OpenSpiel's mean-field games on import (scipy.stats: seconds); not needed here
    if "open_spiel.python.tests.games_sim_test" not in sys.modules:
        monkeypatch.setitem(sys.modules, "open_spiel.python.mfg.games", types.ModuleType("open_spiel.python.mfg.games"))
    from open_spiel.python.tests.games_sim_test import GamesSimTest

    case = GamesSimTest("sim_game")
    take5 = pyspiel.load_game("python_fiveplay_take5(players=2,mode=round)")
    for g in (take5, pyspiel.convert_to_turn_based(take5), pyspiel.load_game("python_fiveplay_five_alive(players=2,max_cycles=25)"),
              pyspiel.load_game_as_turn_based("python_fiveplay_take5(players=2,mode=round)")):
        case.sim_game(g)


# --- every config family, to the end -------------------------------------------------------------------
@pytest.mark.parametrize("params", TAKE5_FAMILIES, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()))
def test_take5_families_play_to_the_end(params):
    g = pyspiel.load_game(_name("take5", params))
    config = g.config
    rng = np.random.default_rng(len(str(params)))

    def check(state):
        st = state.engine_state
        assert len(st.card_locations()) == config.deck_size  # every card in exactly one place
        for p in range(config.num_players):
            assert np.array_equal(np.asarray(state.observation_tensor(p), np.float32), t5obs.observe(config, st, p))
            if state.is_simultaneous_node():
                assert state.legal_actions(p) == st.hand(p)
        if not state.is_simultaneous_node():
            assert state.legal_actions() == t5eng.legal_actions(st)

    state = _random_play(g.new_initial_state(), rng, check)
    st = state.engine_state
    assert t5eng.game_over(config, st) and state.returns() == [-float(s) for s in st.scores]
    assert all(g.min_utility() <= r <= 0 for r in state.returns()) and sum(state.returns()) < 0


@pytest.mark.parametrize("params", FIVE_ALIVE_FAMILIES, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()))
def test_five_alive_families_play_to_the_end(params):
    g = pyspiel.load_game(_name("five_alive", params))
    config = g.config
    rng = np.random.default_rng(len(str(params)))

    def check(state):
        st = state.engine_state
        assert st.card_counts() == list(config.deck_counts)
        assert state.legal_actions() == faeng.legal_actions(st)
        p = st.current
        assert np.array_equal(np.asarray(state.information_state_tensor(p), np.float32), faobs.observe(config, st, p))

    for _ in range(2):
        state = _random_play(g.new_initial_state(), rng, check)
        st = state.engine_state
        assert st.phase == faeng.OVER or (config.max_cycles is not None and max(state._c.decisions) == config.max_cycles)
        assert all(g.min_utility() <= r <= g.max_utility() for r in state.returns())
        if config.reward == "win_loss" and st.phase == faeng.OVER:
            assert sorted(set(state.returns())) in ([-1.0, 1.0], [1.0])


def test_five_alive_max_steps_ends_the_openspiel_game_undecided():
    """Our engine's ``max_steps`` bound (the game table's ``truncated``) ends the OpenSpiel game too:
    terminal after that many decisions, nobody won (returns 0), and OpenSpiel's own checks accept it."""
    from fiveplay_env import games as table

    g = pyspiel.load_game("python_fiveplay_five_alive(players=3,max_steps=20)")
    decisions = []
    state = _random_play(g.new_initial_state(), np.random.default_rng(1),
                         lambda s: decisions.append(s.current_player()))
    assert len(decisions) == 20 and state.returns() == [0.0, 0.0, 0.0]
    assert table.get("five_alive").truncated(state.engine_state)
    pyspiel.random_sim_test(g, num_sims=2, serialize=True, verbose=False)


# --- the OpenSpiel game is our engine's game: exact replays ---------------------------------------------
def _take5_outcome(state, engine) -> int:
    kind, i = state.chance_slot()
    st = state.engine_state
    if kind == "hand":
        return next(c for c in engine.state.hand(i) if not st.hands[i, c])
    return engine.state.rows[i][0]


@pytest.mark.parametrize("params", [{"players": 4, "mode": "rounds:2"}, {"players": 3, "mode": "game", "end_score": 30},
                                    {"players": 2, "professional": True, "mode": "round", "row_pick": "min_bullheads"},
                                    {"players": 3, "professional": True, "draft": True, "mode": "rounds:2"}])
def test_take5_replays_our_engine_exactly(params):
    g = pyspiel.load_game(_name("take5", params))
    config = g.config
    for seed in range(3):
        rng = np.random.default_rng(seed)
        engine = t5eng.Take5Engine(config, seed)
        state = g.new_initial_state()
        while not engine.is_over:
            while state.is_chance_node():
                state.apply_action(_take5_outcome(state, engine))
            n = config.num_players
            for p in range(n):
                assert np.array_equal(state.observation_vector(p), t5obs.observe(config, engine.state, p))
            if state.is_simultaneous_node():
                joint = [int(rng.choice(engine.state.hand(p))) for p in range(n)]
                for a in joint:
                    engine.step(a)
                state.apply_actions(joint)
            else:
                a = int(rng.choice(t5eng.legal_actions(engine.state)))
                engine.step(a)
                state.apply_action(a)
        assert state.is_terminal() and state.returns() == [-float(s) for s in engine.state.scores]


def _five_alive_outcome(state, engine, old_draws: list[int]) -> int:
    """The chance outcome that gives the OpenSpiel state the engine's cards."""
    kind, q = state.chance_slot()
    if kind == "first":
        return engine.state.current
    src = state._c.queue[0][2]
    if src == "old":  # the engine drew its old pile to the last card, in this order
        return old_draws.pop(0)
    have, want = state.engine_state.hands[q], engine.state.hands[q]
    return next(k for k in range(len(want)) if have[k] < want[k] and state._c.sources[src][k] > 0)


@pytest.mark.parametrize("params", [{"players": 4}, {"players": 3, "variant": "sudden_death"}, {"players": 4, "variant": "teams"},
                                    {"players": 4, "deck_counts": DRAWS_DECK}, {"players": 3, "bomb_zero_optional": True,
                                                                                 "reward": "win_loss+lives"},
                                    {"players": 3, "deck_counts": "redeal:8 draw2:8", "draw_order": "round_robin"}])
def test_five_alive_replays_our_engine_exactly(params):
    """Chance outcomes chosen to give the OpenSpiel state the engine's deals, draws and re-deals: the
    same observations for every player at every step, and returns equal to the sum of our rewards."""
    g = pyspiel.load_game(_name("five_alive", params))
    config = g.config
    reshuffled = 0
    for seed in range(4):
        rng = np.random.default_rng(seed)
        engine = faeng.FiveAliveEngine(config, seed)
        state = g.new_initial_state()
        total = [0.0] * config.num_players
        old: list[int] = []
        while True:
            while state.is_chance_node():
                state.apply_action(_five_alive_outcome(state, engine, old))
            if engine.is_over:
                break
            st = state.engine_state
            assert sorted(st.draw) == sorted(engine.state.draw)  # the same draw pile (its order is chance's)
            for p in range(config.num_players):
                assert np.array_equal(state.observation_vector(p), faobs.observe(config, engine.state, p))
            # the one implicit case (a Draw card as the last card ending the game) draws in the state's
            # pile order: give it the engine's order and seed, which chance nodes otherwise overrule
            st.draw[:] = engine.state.draw
            st.seed, st.counter = engine.state.seed, engine.state.counter
            a = int(rng.choice(faeng.legal_actions(engine.state)))
            old = list(reversed(engine.state.draw)) if a in (DRAW1, DRAW2) else []
            rewards = engine.step(a)
            reshuffled += bool(engine.state.ev_reshuffled)
            total = [t + r for t, r in zip(total, rewards)]
            state.apply_action(a)
        assert state.is_terminal() and state.returns() == total
        assert state.engine_state.winners == engine.state.winners
    if "deck_counts" in params and "draw1" in params["deck_counts"]:
        assert reshuffled > 0  # the Draw-rich deck really reshuffled


# --- determinization: no leak --------------------------------------------------------------------------
class _Sampler:
    """A deterministic stand-in for pyspiel.UniformProbabilitySampler."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self) -> float:
        return float(self.rng.random())


@pytest.mark.parametrize(("game", "params"), [
    ("take5", {"players": 4, "mode": "round"}), ("take5", {"players": 3, "professional": True, "draft": True}),
    ("five_alive", {"players": 4}), ("five_alive", {"players": 4, "bomb_zero_optional": True}),
    ("five_alive", {"players": 4, "variant": "teams", "deck_counts": DRAWS_DECK}),
])
def test_resample_from_infostate_keeps_what_the_player_saw(game, params):
    g = pyspiel.load_game(_name(game, params))
    rng = np.random.default_rng(1)
    state = g.new_initial_state()
    checked = differed = 0
    while not state.is_terminal() and checked < 12:
        if state.is_chance_node():
            state.apply_action(_random_chance(state, rng))
            continue
        players = range(g.num_players()) if state.is_simultaneous_node() else [state.current_player()]
        for p in players:
            a = state.resample_from_infostate(p, _Sampler(checked))
            b = state.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(0.0, 1.0))
            for w in (a, b):
                assert w.information_state_string(p) == state.information_state_string(p)
                assert w.information_state_tensor(p) == state.information_state_tensor(p)
                assert w.observation_string(p) == state.observation_string(p)
                assert w.legal_actions(p) == state.legal_actions(p) and w.history() == []
            differed += str(a) != str(state)
            # only the information set matters: resampling a resampled state gives the same world
            again = a.resample_from_infostate(p, _Sampler(checked))
            assert str(again) == str(a)
            checked += 1
        if state.is_simultaneous_node():
            state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in range(g.num_players())])
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    # after a draft every hand is public and a simultaneous node has no unrevealed choice: nothing to re-deal
    assert checked >= 12 and (differed == 0 if params.get("draft") else differed >= 6)
    # a resampled world plays on to the end
    _random_play(state.resample_from_infostate(0, _Sampler(5)) if not state.is_terminal() else state, rng)


def test_resample_refuses_chance_nodes_and_bad_players():
    g = pyspiel.load_game("python_fiveplay_five_alive(players=3)")
    state = g.new_initial_state()
    with pytest.raises(ValueError, match="chance node"):
        state.resample_from_infostate(0, _Sampler(0))
    _until_decision(state, np.random.default_rng(0))
    with pytest.raises(ValueError, match="player_id: expected a seat in 0..2"):
        state.resample_from_infostate(3, _Sampler(0))
    with pytest.raises(ValueError, match="sampler"):
        state.resample_from_infostate(0, "not a sampler")


def test_turn_based_take5_resampler_keeps_the_players_view():
    game = pyspiel.load_game("python_fiveplay_take5(players=4,mode=round)")
    tb = pyspiel.convert_to_turn_based(game)
    resample = osi.turn_based_resampler(game, tb, seed=3)
    rng = np.random.default_rng(2)
    state = _until_decision(tb.new_initial_state(), rng)
    for _ in range(2):  # two players choose: the third one's view hides their cards
        state.apply_action(int(rng.choice(state.legal_actions())))
    p = state.current_player()
    assert p == 2
    worlds = [resample(state, p) for _ in range(5)]
    for w in worlds:
        assert w.information_state_string(p) == state.information_state_string(p)
        assert w.information_state_tensor(p) == state.information_state_tensor(p)
        assert w.current_player() == p and w.legal_actions() == state.legal_actions()
        _random_play(w, rng)
    assert len({str(w) for w in worlds}) > 1
    with pytest.raises(ValueError, match="convert_to_turn_based"):
        osi.turn_based_from_engine(pyspiel.load_game_as_turn_based("python_fiveplay_take5(players=4,mode=round)"),
                                   game, t5eng.new_game(game.config, 0))


# --- clones, serialization, observers --------------------------------------------------------------------
@pytest.mark.parametrize(("game", "params"), [("take5", {"players": 3, "mode": "rounds:2"}), ("five_alive", {"players": 3})])
def test_clone_and_serialize_round_trips(game, params):
    g = pyspiel.load_game(_name(game, params))
    rng = np.random.default_rng(4)
    state = g.new_initial_state()
    step = 0
    while not state.is_terminal():
        if step % 7 == 0:
            copies = [state.clone(), pickle.loads(pickle.dumps(state)),
                      pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(g, state))[1]]
            if not state.is_chance_node():
                copies.append(state.resample_from_infostate(0, _Sampler(step)).clone())
            for c in copies[:3]:
                assert str(c) == str(state) and c.history() == state.history()
        if state.is_chance_node():
            a = _random_chance(state, rng)
        elif state.is_simultaneous_node():
            a = [int(rng.choice(state.legal_actions(p))) for p in range(g.num_players())]
        else:
            a = int(rng.choice(state.legal_actions()))
        if step % 7 == 0:
            before = str(state)
            for c in copies[:3]:  # a copy follows the same actions to the same state, the original untouched
                c.apply_actions(a) if isinstance(a, list) else c.apply_action(a)
            assert str(state) == before
        state.apply_actions(a) if isinstance(a, list) else state.apply_action(a)
        if step % 7 == 0:
            assert all(str(c) == str(state) for c in copies[:3])
        step += 1


def test_observers_give_our_observation_and_named_pieces():
    g = pyspiel.load_game("python_fiveplay_take5(players=4,mode=round)")
    state = _until_decision(g.new_initial_state(), np.random.default_rng(0))
    obs = make_observation(g, pyspiel.IIGObservationType(perfect_recall=False))
    info = make_observation(g, pyspiel.IIGObservationType(perfect_recall=True))
    obs.set_from(state, 2)
    assert np.array_equal(obs.tensor, t5obs.observe(g.config, state.engine_state, 2))
    assert obs.dict["rows"].shape == (4, 104) and obs.dict["hand"].sum() == 10
    assert info.string_from(state, 2) == state.information_state_string(2) != state.observation_string(2)
    assert "dealt" in state.information_state_string(2) and "hand:" in state.observation_string(2)
    with pytest.raises(ValueError, match="observation type"):
        make_observation(g, pyspiel.IIGObservationType(public_info=False, perfect_recall=False))
    # the strings show nothing the player cannot see: other hands are absent from them
    st = state.engine_state
    other = " ".join(str(c + 1) for c in st.hand(3))
    assert other not in state.information_state_string(2) and other in state.information_state_string(3)


def test_missing_extra_names_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)
    monkeypatch.delitem(sys.modules, "fiveplay_env.integrations.openspiel")
    with pytest.raises(ImportError, match=r"pip install -e '\.\[openspiel\]'"):
        importlib.import_module("fiveplay_env.integrations.openspiel")
    from fiveplay_env.agents import openspiel_agent

    with pytest.raises(ImportError, match=r"\[openspiel\]"):
        openspiel_agent.OpenSpielAgent(0, "take5")


# --- OpenSpiel's bots on our games -----------------------------------------------------------------------
class _RestartableISMCTS(ismcts.ISMCTSBot):
    """OpenSpiel's Python IS-MCTS bot has no ``restart_at``, which its Python ``evaluate_bots`` calls (it
    searches afresh at every step anyway)."""

    def restart_at(self, state):
        self.reset()


def test_openspiel_ismcts_and_evaluate_bots_play_both_games():
    rs = np.random.RandomState(0)
    five = pyspiel.load_game("python_fiveplay_five_alive(players=2,max_cycles=25)")
    bot = _RestartableISMCTS(five, mcts.RandomRolloutEvaluator(1, rs), 2.0, 4, random_state=rs)
    returns = evaluate_bots.evaluate_bots(five.new_initial_state(), [bot, pyspiel.make_uniform_random_bot(1, 0)], rs)
    assert all(r in (-1.0, 0.0, 1.0) for r in returns)
    take5 = pyspiel.load_game("python_fiveplay_take5(players=3,mode=round)")
    tb = pyspiel.convert_to_turn_based(take5)
    bot = ismcts.ISMCTSBot(tb, mcts.RandomRolloutEvaluator(1, rs), 2.0, 6, random_state=rs)
    bot.set_resampler(osi.turn_based_resampler(take5, tb))
    # OpenSpiel's C++ evaluate_bots, with the Python bot unchanged
    returns = pyspiel.evaluate_bots(tb.new_initial_state(), [bot] + [pyspiel.make_uniform_random_bot(p, p)
                                                                    for p in (1, 2)], 0)
    assert all(r <= 0 for r in returns) and sum(returns) < 0
    # the simultaneous game itself, with OpenSpiel's random bots choosing jointly
    returns = evaluate_bots.evaluate_bots(take5.new_initial_state(), [pyspiel.make_uniform_random_bot(p, p)
                                                                    for p in range(3)], rs)
    assert sum(returns) < 0


def _positions(game_name, config, count, seed):
    game = games.get_game(game_name)
    rng = np.random.default_rng(seed)
    out, g = [], 0
    while len(out) < count:
        engine = game.new_engine(config, seed * 1000 + g)
        g += 1
        while not engine.is_over and len(out) < count:
            legal = np.flatnonzero(engine.legal_mask())
            if len(legal) > 1 and rng.random() < 0.2:
                out.append((engine.clone(), engine.current_player))
            engine.step(int(legal[rng.integers(len(legal))]))
    return out


@pytest.mark.parametrize(("game_name", "config"), [("take5", Take5Config(num_players=3, mode="round")),
                                                   ("five_alive", FiveAliveConfig(num_players=3, max_cycles=20))])
def test_openspiel_agents_never_read_hidden_state(game_name, config):
    """Two engines differing only in cards the seat cannot see: the same seeded agent decides the same."""
    game = games.get_game(game_name)
    for i, (engine, player) in enumerate(_positions(game_name, config, 3, seed=7)):
        other = game.new_engine(config, 0)
        other.state = (t5eng.sample_world(config, engine.state, player, np.random.default_rng(i)) if game_name == "take5"
                       else faeng.sample_world(config, engine.state, player, np.random.default_rng(i)))
        assert np.array_equal(game.observe(other, player), game.observe(engine, player))
        for name in ("openspiel:ismcts:sims=6", "openspiel:mcts:sims=4,worlds=2"):
            chosen = []
            for eng in (engine, other):
                agent = make_agent(name, game_name, seed=i)
                agent.observe_engine(eng, player)
                chosen.append(agent.act(game.observe(eng, player), eng.legal_mask()))
            assert chosen[0] == chosen[1] and engine.legal_mask()[chosen[0]]
            # the agent never changes the engine it is shown
        assert InformationSet(engine, player).legal_mask().any()


def test_agent_names_and_options():
    assert "openspiel:..." in known_agents("take5")
    agent = make_agent("openspiel:ismcts:sims=7,c=1.5,worlds=3,final=value,obs=1", "five_alive", seed=1)
    p = agent.params
    assert (p.algo, p.sims, p.c, p.worlds, p.final, p.obs) == ("ismcts", 7, 1.5, 3, "value", 1)
    assert agent.name == "openspiel:ismcts:sims=7,c=1.5,worlds=3,final=value,obs=1"
    for bad, message in [("openspiel:alphazero", "expected openspiel:ismcts"), ("openspiel:ismcts:sims=0", "sims"),
                         ("openspiel:ismcts:depth=3", "key in"), ("openspiel:mcts:sims=2,worlds=3", "worlds"),
                         ("openspiel:ismcts:final=best", "final"), ("openspiel:ismcts:c=x", "c: expected a number")]:
        with pytest.raises(ValueError, match=message):
            make_agent(bad, "take5", seed=0)
    with pytest.raises(ValueError, match="observe_engine"):
        agent.act(np.zeros(92, np.float32), np.ones(19, np.int8))
    state = agent.get_state()
    twin = make_agent("openspiel:ismcts:sims=7", "five_alive", seed=99)
    twin.set_state(state)
    assert twin.rng.random() == agent.rng.random()


@pytest.mark.parametrize(("game", "config", "agents"), [
    ("take5", ["mode=round"], ["openspiel:ismcts:sims=4", "ismcts:sims=4"]),
    ("five_alive", ["max_cycles=12"], ["openspiel:ismcts:sims=3", "openspiel:mcts:sims=4,worlds=2"]),
])
def test_openspiel_agents_play_in_our_tournament(tmp_path, game, config, agents):
    from fiveplay_env.experiments import tournament

    n = len(agents)
    summary = tournament.main(["--game", game, "--agents", *agents, "--config", *config, "--games", str(n),
                               "--workers", "1", "--out", str(tmp_path), "--quiet", "--no-plots"])
    assert summary["complete"] and summary["seat_balanced"]
    for e in summary["entrants"]:
        assert e["games"] == n and e["decisions"] > 0
        if e["agent"].startswith("openspiel:"):
            assert e["ms_per_decision"] > 0


# --- experiments.openspiel_compare (the README's table) ------------------------------------------------

def test_compare_pair_swaps_seats_and_times_searched_decisions_only():
    from fiveplay_env.experiments import openspiel_compare as oc

    task = {"game": "take5", "config": {"num_players": 2, "mode": "round"}, "seed": 3, "pair": 0,
            "cell": ["sims", 3], "ours": "ismcts:sims=4", "theirs": "openspiel:ismcts:sims=3"}
    res = oc.play_pair(task)
    assert len(res["win"]) == 2 and all(0.0 <= w <= 1.0 for w in res["win"])
    # head to head: the two seats' bull heads are the two sides' scores, each game its own
    assert all(s >= 0 for s in res["score"] + res["their_score"])
    (ours_n, ours_s, ours_sims), (their_n, their_s, their_sims) = res["sides"]["ours"], res["sides"]["theirs"]
    # both sides search every trick but the last (one card left) in both games: 9 tricks x 2 games,
    # plus any row choices; OpenSpiel runs exactly its budget, ours at least one world per action
    assert ours_n >= 18 and their_n >= 18 and ours_s > 0 and their_s > 0
    assert their_sims == 3 * their_n and ours_sims >= 4 * ours_n
    cell = oc.summarize({"match": "sims", "budget": 3}, [res, res])
    assert cell["games"] == 4 and cell["their_sims"] == 3.0
    assert cell["our_win_share"]["mean"] == pytest.approx(float(np.mean(res["win"])))
    assert cell["our_win_share"]["half_width"] == 0.0  # two identical pairs
    assert cell["their_ms"] == pytest.approx(1000.0 * their_s / their_n)
    ci = oc.mean_ci([0.0, 1.0])
    assert ci["mean"] == 0.5 and ci["half_width"] == pytest.approx(oc.Z95 * 0.5 ** 0.5 / 2 ** 0.5)


def test_compare_runs_calibrates_the_ms_match_and_writes_its_table(tmp_path, capsys):
    from fiveplay_env.experiments import openspiel_compare as oc

    out = tmp_path / "t.json"
    oc.main(["--game", "take5", "--budgets", "2", "--pairs", "1", "--calibrate", "1", "--workers", "1",
             "--quiet", "--out", str(out)])
    import json

    res = json.loads(out.read_text())
    cells = {c["match"]: c for c in res["cells"]}
    assert set(cells) == {"sims", "ms"} and all(c["games"] == 2 for c in cells.values())
    # the ms match gives ours OpenSpiel's measured seconds per searched decision (its only sims pair)
    assert cells["ms"]["calibrated_ms"] == cells["sims"]["their_ms"] > 0
    assert cells["ms"]["ours"] == f"ismcts:time={cells['sims']['their_ms'] / 1000:.4g}"
    assert res["config"] == {"num_players": 2, "mode": "round"} and len(res["load_before"]) == 3
    capsys.readouterr()
    text = oc.main(["--table", str(out)])
    assert text.count("| Take 5 (num_players=2, mode=round) | `openspiel:ismcts:sims=2` |") == 2
    for bad, message in [(["--budgets", "0"], "budgets: expected"), (["--pairs", "0"], "expected pairs >= ")]:
        with pytest.raises(ValueError, match=message):
            oc.main(["--game", "take5", *bad, "--out", str(tmp_path / "x.json")])
