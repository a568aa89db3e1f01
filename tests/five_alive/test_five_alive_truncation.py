"""5 Alive's bound on a game's length (issue 27, item 8): ``max_steps`` truncates a game the rules have not
ended, the same way in the reference engine, the batched engine, the vector API, the AEC env, records and
tournaments; the bounds derived from the config hold on random games."""
from __future__ import annotations

import numpy as np
import pytest

from fiveplay_env import five_alive_v0, vector
from fiveplay_env.five_alive import engine as eng
from fiveplay_env.five_alive.batched import BatchedFiveAlive
from fiveplay_env.five_alive.config import DEFAULT_MAX_STEPS, KIND_KEYS, FiveAliveConfig
from fiveplay_env.five_alive.state import BUST, OVER

WORST = {k: 0 for k in KIND_KEYS} | {"draw1": 255}


def test_the_worst_legal_game_ends_at_the_default_max_steps_in_both_engines():
    """2 players, 255 Draw 1 cards, 1,000 reshuffles a round: about 2.1 million decisions by the rules
    (minutes of play); the default max_steps ends it at 10,000."""
    cfg = FiveAliveConfig(num_players=2, deck_counts=WORST, max_reshuffles=1000)
    assert cfg.max_steps == DEFAULT_MAX_STEPS == 10_000 and cfg.max_decisions == 10_000
    assert cfg.rules_decision_bound == 11 * (255 + 1000 * 254) + 10  # finite: no Bomb, no 0
    s = eng.new_game(cfg, 1)
    rng = np.random.default_rng(0)
    while s.phase != OVER:
        rewards = eng.step(cfg, s, int(rng.choice(np.flatnonzero(eng.legal_mask(s)))))
    assert s.turns == 10_000 and eng.truncated(s) and s.winners == [] and s.result == [0, 0]
    assert rewards == [0, 0] and s.current == -1 and not eng.legal_mask(s).any()
    # the batched engine on the same deck: ``n2-worst-deck-truncated`` in test_five_alive_batched.py (equal to
    # the reference step by step); here, that a game cut short moves its slot on with no winner
    env = BatchedFiveAlive(FiveAliveConfig(num_players=2, deck_counts=WORST, max_reshuffles=1000, max_steps=300), 2,
                           seed=1)
    for t in range(300):
        assert not env.terminated.any()
        env.step(env.legal_action_mask.argmax(axis=1))
    assert env.terminated.all() and env.truncated.all() and env.info()["truncated"].all()
    assert (env.final_result == 0).all() and (env.final_win == 0).all() and (env.steps == 0).all()


def test_bounds_derived_from_the_config():
    rule_book = FiveAliveConfig()
    assert rule_book.rules_decision_bound is None  # a Bomb and 0s: rounds in which all go out can repeat
    assert rule_book.round_decision_bound == 77 + 50 * 76 and rule_book.max_decisions == DEFAULT_MAX_STEPS
    assert FiveAliveConfig(max_steps=None).max_decisions is None
    teams = FiveAliveConfig(variant="teams", max_steps=None)
    assert teams.life_losses_bound == 9 and teams.max_decisions == 10 * 3877 + 9
    assert FiveAliveConfig(empty_draw_pile="skip", bomb_last_card_resolves=False).rules_decision_bound == 21 * 77 + 20
    assert FiveAliveConfig(max_steps=5, variant="teams").max_decisions == 5
    with pytest.raises(ValueError, match=r"max_steps: expected an integer in 1\.\.1000000000, got 0"):
        FiveAliveConfig(max_steps=0)


def _random_config(rng: np.random.Generator) -> FiveAliveConfig:
    n = int(rng.integers(2, 7))
    variant = str(rng.choice(["standard", "sudden_death", "teams"] if n in (4, 6) else ["standard", "sudden_death"]))
    while True:
        counts = [0] * 18
        for k in rng.choice(18, size=int(rng.integers(2, 6)), replace=False):
            counts[k] = int(rng.integers(1, 40))
        if 10 * n <= sum(counts) <= 255:
            break
    return FiveAliveConfig(num_players=n, variant=variant, deck_counts=counts, max_reshuffles=int(rng.integers(0, 6)),
                           bomb_last_card_resolves=bool(rng.integers(2)), bomb_zero_optional=bool(rng.integers(2)),
                           allow_voluntary_bust=bool(rng.integers(2)), max_steps=None)


def test_random_games_of_random_configs_stay_within_the_derived_bounds():
    rng = np.random.default_rng(27)
    for i in range(60):
        cfg = _random_config(rng)
        s = eng.new_game(cfg, i)
        per_round, round_, losses = 0, 0, 0
        while s.phase != OVER:
            eng.step(cfg, s, int(rng.choice(np.flatnonzero(eng.legal_mask(s)))))
            if s.ev_action == BUST:
                losses += 1  # a BUST or a "lose a life" answer
            else:
                per_round += 1
            assert per_round <= cfg.round_decision_bound, cfg
            if s.round != round_:
                round_, per_round = s.round, 0
        assert losses <= cfg.life_losses_bound, cfg
        if cfg.rules_decision_bound is not None:
            assert s.turns <= cfg.rules_decision_bound, cfg


def test_the_aec_env_truncates_every_remaining_agent():
    env = five_alive_v0.env(num_players=3, max_steps=25)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    decisions = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            if trunc:
                assert not term and not info["winner"]
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        decisions += 1
    state = env.unwrapped.engine.state
    assert decisions == 25 and eng.truncated(state)


def test_the_vector_api_reports_truncated_games():
    v = vector.make_vec("five_alive", 8, seed=0, num_players=4, max_steps=30)
    v.reset()
    rng = np.random.default_rng(0)
    steps = np.zeros(8, int)
    seen = 0
    for _ in range(90):
        *_, terminated, info = v.step(vector.random_actions(v.engine.legal_action_mask, rng))
        steps += 1
        t = info["truncated"]
        assert not (t & ~terminated).any()
        assert (steps[t] == 30).all() and (info["final_win"][t] == 0).all() and (info["final_result"][t] >= -1).all()
        assert (info["final_result"][t] <= 0).all()
        seen += int(t.sum())
        steps[terminated] = 0
    assert seen >= 8
    t5 = vector.make_vec("take5", 2)  # Take 5 games always end by their rules: the key is there, all False
    t5.reset()
    *_, info = t5.step(vector.random_actions(t5.engine.legal_action_mask, rng))
    assert info["truncated"].dtype == bool and not info["truncated"].any()


def test_arena_and_tournament_rows_show_the_truncation(tmp_path):
    import csv

    from fiveplay_env.five_alive import GAME
    from fiveplay_env.agents.arena import play_game
    from fiveplay_env.agents.registry import make_agent
    from fiveplay_env.experiments import tournament
    from fiveplay_env import records

    cfg = FiveAliveConfig(num_players=3, max_steps=20)
    rec = play_game(GAME, cfg, [make_agent("random", "five_alive", seed=s) for s in range(3)], seed=5)
    assert rec.truncated and rec.steps == 20 and rec.results["win"] == [0.0, 0.0, 0.0]
    summary = tournament.main(["--game", "five_alive", "--agents", "random", "five-alive-saver", "random",
                               "--config", "max_steps=20", "--games", "3", "--out", str(tmp_path), "--record",
                               "--quiet", "--no-plots"])
    with open(f"{summary['run_dir']}/games.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert rows and all(r["truncated"] == "1" and r["steps"] == "20" for r in rows)
    (r0,) = records.read_records(f"{summary['run_dir']}/records/game_000000.jsonl")
    assert r0["meta"]["truncated"] and eng.truncated(records.replay(r0).engine.state)
