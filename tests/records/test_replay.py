"""Game records: 1,000 recorded games of both games replay exactly; bad records fail naming the step."""
from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from fiveplay_env import records
from fiveplay_env.core.config import from_kwargs

CONFIGS = {
    "take5": [{"num_players": 4, "mode": "round"}, {"num_players": 2, "mode": "rounds:2", "row_pick": "min_bullheads"},
              {"num_players": 5, "mode": "game", "end_score": 20}, {"num_players": 3, "professional": True, "draft": True,
                                                                   "mode": "round"}],
    "five_alive": [{"num_players": 4}, {"num_players": 2, "variant": "sudden_death"},
                   {"num_players": 4, "variant": "teams", "bomb_zero_optional": True},
                   {"num_players": 6, "allow_voluntary_bust": True}],
}


def random_game(game: str, cfg: dict, seed: int, rng: np.random.Generator, max_steps: int = 3000):
    """(record, list of every state) of a game played by uniformly random legal actions."""
    h = records.hooks(game)
    config = from_kwargs(h.config_cls, cfg)
    engine = h.engine_cls(config, seed)
    actions, states = [], [engine.state.clone()]
    while not engine.is_over and len(actions) < max_steps:
        a = int(rng.choice(np.flatnonzero(engine.legal_mask())))
        engine.step(a)
        actions.append(a)
        states.append(engine.state.clone())
    return records.make_record(game, config, seed, actions, agents=["random"] * config.num_players, engine=engine), states


def test_thousand_recorded_games_replay_exactly():
    rng = np.random.default_rng(2024)
    lines, expected = [], []
    for i in range(1000):
        game = "take5" if i % 2 == 0 else "five_alive"
        cfg = CONFIGS[game][(i // 2) % len(CONFIGS[game])]
        rec, states = random_game(game, cfg, 10_000 + i, rng)
        lines.append(records.dumps(rec))
        expected.append((rec["final"], records.state_digest(game, states[-1])))
    parsed = records.parse_records("\n".join(lines) + "\n", "games.jsonl")
    assert len(parsed) == 1000
    for rec, (final, digest) in zip(parsed, expected):
        rep = records.replay(rec)
        assert rep.engine.is_over
        assert records.summary(rec["game"], rep.engine.state) == final
        assert records.state_digest(rec["game"], rep.engine.state) == digest


@pytest.mark.parametrize("game", ["take5", "five_alive"])
def test_every_intermediate_state_is_rebuilt(game):
    rec, states = random_game(game, CONFIGS[game][0], 7, np.random.default_rng(1))
    rep = records.replay(json.loads(records.dumps(rec)), keep_states=True)
    assert len(rep.states) == len(states) == len(rec["actions"]) + 1
    for i, (a, b) in enumerate(zip(rep.states, states)):
        assert records.state_digest(game, a) == records.state_digest(game, b), f"state {i} differs"


def _good(game: str = "take5") -> dict:
    return random_game(game, CONFIGS[game][0], 3, np.random.default_rng(0))[0]


def test_edited_action_names_the_step():
    rec = _good()
    bad = copy.deepcopy(rec)
    bad["actions"][5] = bad["actions"][4]  # that card was just played: no longer in hand
    with pytest.raises(records.RecordError, match=r"record r\.jsonl line 1, step 5: action \d+ is not legal") as e:
        records.replay(records.parse_records(records.dumps(bad), "r.jsonl")[0], "r.jsonl line 1")
    assert e.value.step == 5


def test_a_removed_last_action_is_caught_at_its_step():
    rec = _good("five_alive")
    bad = copy.deepcopy(rec)
    # cut the last action: every action is legal; the chain (version 2) goes on one step further
    bad["actions"].pop()
    with pytest.raises(records.RecordError, match=rf"step {len(bad['actions'])}: actions: .*actions were removed"):
        records.replay(bad)
    # a version-1 record (no chain) still catches it by the final check
    v1 = {k: v for k, v in bad.items() if k != "chain"} | {"version": 1}
    with pytest.raises(records.RecordError, match=rf"step {len(bad['actions'])}: final"):
        records.replay(v1, allow_legacy=True)


def test_extra_actions_after_the_end():
    rec = _good()
    rec["actions"].append(0)
    with pytest.raises(records.RecordError, match=rf"step {len(rec['actions']) - 1}: .*already over"):
        records.replay(rec)


@pytest.mark.parametrize("edit, message", [
    (lambda r: r.update(version=3), r"version: expected one of \[1, 2\]"),
    (lambda r: r.update(version=True), r"version: expected one of \[1, 2\]"),
    (lambda r: r.update(format="other"), r"format: expected 'fiveplay-record'"),
    (lambda r: r.update(game="chess"), r"game: expected one of \['five_alive', 'take5'.*\], got 'chess'"),
    (lambda r: r["config"].update(colour="red"), r"config: unknown config field 'colour'"),
    (lambda r: r["config"].update(num_players=11), r"config: num_players: expected an integer in 2\.\.10"),
    (lambda r: r.pop("seed"), r"missing field 'seed'"),
    (lambda r: r.update(surprise=1), r"unknown field 'surprise'"),
    (lambda r: r.update(seed=-1), r"seed: expected an integer in 0\.\.2\*\*64-1"),
    (lambda r: r.update(seed=2**64), r"seed: expected an integer in 0\.\.2\*\*64-1"),
    (lambda r: r.update(game=["take5"]), r"game: expected one of \['five_alive', 'take5'(, '[a-z_]+')*\], got \['take5'\]"),
    (lambda r: r["actions"].__setitem__(0, "x"), r"step 0: action: expected an integer action id"),
    (lambda r: r.update(digest="0" * 64), r"digest: the replayed final state differs"),
])
def test_bad_records_get_clear_errors(edit, message):
    rec = _good()
    edit(rec)
    with pytest.raises(records.RecordError, match=message):
        records.replay(rec)


def test_parse_errors_name_the_line():
    good = records.dumps(_good())
    with pytest.raises(records.RecordError, match=r"f\.jsonl line 2: not valid JSON"):
        records.parse_records(good + "\n{oops\n", "f.jsonl")
    with pytest.raises(records.RecordError, match=r"expected at least one JSON line"):
        records.parse_records("\n\n", "f.jsonl")
    with pytest.raises(records.RecordError, match=r"line 1: expected a JSON object, got list"):
        records.parse_records("[1, 2]", "f.jsonl")


def test_write_and_read_round_trip(tmp_path):
    recs = [_good(), _good("five_alive")]
    path = tmp_path / "g.jsonl"
    records.write_records(str(path), recs)
    assert records.read_records(str(path)) == recs
    assert all(records.replay(r).engine.is_over for r in records.read_records(str(path)))


def test_tournament_record_writes_one_replayable_record_per_game(tmp_path):
    import csv

    from fiveplay_env.experiments import tournament

    summary = tournament.main(["--game", "take5", "--agents", "take5-safest", "random", "--config", "mode=round",
                               "--games", "4", "--out", str(tmp_path), "--record", "--quiet", "--no-plots"])
    run = summary["run_dir"]
    with open(f"{run}/games.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for g in range(4):
        (rec,) = records.read_records(f"{run}/records/game_{g:06d}.jsonl")
        rep = records.replay(rec)
        scores = [float(r["score"]) for r in sorted((r for r in rows if r["game"] == str(g)), key=lambda r: int(r["seat"]))]
        assert [float(s) for s in rep.engine.state.scores] == scores
        assert rec["meta"]["game"] == g and len(rec["agents"]) == 2
