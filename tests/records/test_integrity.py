"""Records, format version 2 (issue 27, items 3 and 4): the chained step hash reports the first step where an
edited record's game differs; version 1 is still read; every malformed record is a ``RecordError`` naming
the field or the step (bounded depth, digits and size; no TypeError, RecursionError or MemoryError)."""
from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fiveplay_env import records
from fiveplay_env.core.config import from_kwargs
from fiveplay_env.five_alive.config import FiveAliveConfig

CONFIGS = [
    ("take5", {"num_players": 4, "mode": "round"}), ("take5", {"num_players": 3, "mode": "rounds:2"}),
    ("take5", {"num_players": 3, "professional": True, "draft": True, "mode": "round"}),
    ("five_alive", {"num_players": 4}), ("five_alive", {"num_players": 2}),
    ("five_alive", {"num_players": 4, "variant": "teams", "bomb_zero_optional": True}),
    ("five_alive", {"num_players": 6, "allow_voluntary_bust": True}),
]


def _game(game: str, cfg: dict, seed: int) -> tuple[dict, list]:
    """A random game's record and the engine states before each action."""
    h = records.hooks(game)
    config = from_kwargs(h.config_cls, cfg)
    engine = h.engine_cls(config, seed)
    rng = np.random.default_rng(seed)
    actions, states = [], []
    while not engine.is_over:
        states.append(engine.state.clone())
        a = int(rng.choice(np.flatnonzero(engine.legal_mask())))
        engine.step(a)
        actions.append(a)
    return records.make_record(game, config, seed, actions, engine=engine), states


_CACHE: dict[int, tuple[dict, list]] = {}


def _rec(k: int) -> tuple[dict, list]:
    if k not in _CACHE:
        game, cfg = CONFIGS[k % len(CONFIGS)]
        _CACHE[k] = _game(game, cfg, 100 + k)
    return _CACHE[k]


def test_a_record_has_one_chain_entry_for_the_start_and_one_per_action():
    rec, _ = _rec(0)
    assert rec["version"] == records.RECORD_VERSION == 2
    assert len(rec["chain"]) == records.CHAIN_TAG * (len(rec["actions"]) + 1)
    assert records.replay(json.loads(records.dumps(rec))).engine.is_over


def test_every_single_edit_is_reported_at_the_edited_step():
    """The audit's attack: one action replaced by another legal one (there, 89 of 1,509 such edits replayed
    to the recorded result and digest, and 13 named a later step). Here every edit names its own step."""
    tried = 0
    rng = np.random.default_rng(0)
    for k in range(14):
        rec, states = _rec(k)
        h = records.hooks(rec["game"])
        config = records.record_config(rec)
        for i in sorted(set(rng.choice(len(rec["actions"]), size=12).tolist())):
            legal = np.flatnonzero(h.engine_cls(config, state=states[i].clone()).legal_mask())
            others = [int(a) for a in legal if a != rec["actions"][i]]
            if not others:
                continue
            bad = copy.deepcopy(rec)
            bad["actions"][i] = int(rng.choice(others))
            with pytest.raises(records.RecordError) as e:
                records.replay(bad)
            assert e.value.step == i, (rec["game"], i, str(e.value))
            assert "chain entry" in str(e.value) or "not legal" in str(e.value)
            tried += 1
    assert tried >= 100


def test_removed_and_added_actions_are_reported_where_the_game_first_differs():
    rec, _ = _rec(3)
    n = len(rec["actions"])
    for i in (0, n // 2, n - 1):
        cut = copy.deepcopy(rec)
        del cut["actions"][i]
        with pytest.raises(records.RecordError) as e:
            records.replay(cut)
        assert e.value.step == i or (i == n - 1 and e.value.step == n - 1), str(e.value)
        added = copy.deepcopy(rec)
        added["actions"].insert(i, added["actions"][i])
        with pytest.raises(records.RecordError) as e:
            records.replay(added)
        assert e.value.step is not None and e.value.step <= i + 1, str(e.value)


@pytest.mark.parametrize("edit", [lambda r: r.update(seed=r["seed"] + 1),
                                  lambda r: r["config"].update(reward="lives" if r["game"] == "five_alive" else "x"),
                                  lambda r: r.update(chain="0" * 8 + r["chain"][8:])])
def test_an_edited_header_is_reported_at_the_start(edit):
    rec = copy.deepcopy(_rec(3)[0])
    edit(rec)
    with pytest.raises(records.RecordError, match=r"chain: the game's start .* differs") as e:
        records.replay(rec)
    assert e.value.step is None


def test_version_1_records_are_still_read_when_asked():
    for k in range(7):
        rec, _ = _rec(k)
        v1 = {key: v for key, v in rec.items() if key != "chain"} | {"version": 1}
        if rec["game"] == "five_alive":  # written before max_steps existed: it replays without it
            v1["config"] = {key: v for key, v in v1["config"].items() if key != "max_steps"}
            assert records.record_config(v1).max_steps is None
        rep = records.replay(records.parse_records(records.dumps(v1), allow_legacy=True)[0], allow_legacy=True)
        assert records.summary(rec["game"], rep.engine.state) == rec["final"]
    assert records.record_config(_rec(3)[0]).max_steps == FiveAliveConfig().max_steps


def test_a_truncated_game_is_recorded_and_replays_truncated():
    from fiveplay_env.five_alive import engine as fa

    rec, _ = _game("five_alive", {"num_players": 4, "max_steps": 40}, 5)
    assert len(rec["actions"]) == 40 and rec["final"]["over"] and rec["final"]["winners"] == []
    rep = records.replay(json.loads(records.dumps(rec)))
    assert fa.truncated(rep.engine.state)


def test_make_record_takes_the_documented_action_forms_only():
    from fiveplay_env.take5.config import Take5Config
    from fiveplay_env.take5.engine import Take5Engine

    cfg = Take5Config(num_players=2, mode="round")
    e = Take5Engine(cfg, 1)
    a = int(np.flatnonzero(e.legal_mask())[0])
    e.step(a)
    assert records.make_record("take5", cfg, 1, [np.array(a)], engine=e)["actions"] == [a]
    assert records.make_record("take5", cfg, 1, [np.int16(a)])["actions"] == [a]
    for bad in (float(a), np.array([a]), True, str(a)):
        with pytest.raises(ValueError, match=r"actions\[0\]: expected an action id"):
            records.make_record("take5", cfg, 1, [bad])
    with pytest.raises(ValueError, match="engine: expected the engine of the game"):
        records.make_record("take5", cfg, 1, [], engine=e)


# --- malformed records: each one a RecordError naming the field ------------------------------------------

def _text(**changes) -> str:
    rec = dict(_rec(0)[0])
    rec.update(changes)
    return records.dumps(rec)


MALFORMED = [
    (lambda: _text(seed=2**64), r"line 1: seed: expected an integer in 0\.\.2\*\*64-1, got 18446744073709551616"),
    (lambda: _text()[:-1] + ',"meta":{"x":' + "7" * 5000 + "}}",
     r"line 1: expected integers of at most 30 digits, got one of 5000 digits"),
    (lambda: _text()[:-1].replace('"seed":', '"seed":' + "9" * 5000, 1) + "}", r"line 1: expected integers of at most 30"),
    (lambda: _text()[:-1] + ',"meta":{"x":' + "[" * 100_000 + "]" * 100_000 + "}}",
     r"line 1: expected JSON nested at most 32 deep, got 100002 levels"),
    (lambda: _text(game=["take5"]), r"line 1: game: expected one of \['five_alive', 'take5'(, '[a-z_]+')*\], got \['take5'\]"),
    (lambda: _text(game={"a": 1}), r"line 1: game: expected one of"),
    (lambda: _text(agents=["\ud800"]), r"line 1: agents\[0\]: expected text, got a string with a lone surrogate"),
    (lambda: _text(meta={"\udfff": 1}), r"line 1: meta key '\\udfff': expected text"),
    (lambda: _text()[:-1] + ',"meta":{"x":NaN}}', r"line 1: expected JSON numbers, got NaN"),
    (lambda: _text()[:-1] + ',"seed":3}', r"line 1: field 'seed' appears twice in one object"),
    (lambda: _text(version=True), r"line 1: version: expected one of \[1, 2\]"),
    (lambda: _text(version=2.0), r"line 1: version: expected one of \[1, 2\]"),
    (lambda: _text(chain="xyz"), r"line 1: chain: expected 8 hex digits per entry"),
    (lambda: _text(chain=None), r"line 1: chain: expected 8 hex digits per entry"),
    (lambda: _text(config=[1, 2]), r"line 1: config: expected an object of config fields, got list"),
    (lambda: _text(agents="abc"), r"line 1: agents: expected a list of names"),
    (lambda: _text(final=[]), r"line 1: final: expected an object, got list"),
    (lambda: _text(meta=3), r"line 1: meta: expected an object, got int"),
    (lambda: _text(digest=5), r"line 1: digest: expected a string, got int"),
    (lambda: _text(format=["fiveplay-record"]), r"line 1: format: expected 'fiveplay-record'"),
    (lambda: _text(actions={"0": 1}), r"line 1: actions: expected a list of action ids, got dict"),
    (lambda: "[" * 50 + "]" * 50, r"line 1: expected JSON nested at most 32 deep"),
    (lambda: "123", r"line 1: expected a JSON object, got int"),
]


@pytest.mark.parametrize("make, match", MALFORMED)
def test_malformed_records_raise_a_record_error_naming_the_field(make, match):
    with pytest.raises(records.RecordError, match=match):
        records.parse_records(make(), "f.jsonl")


@pytest.mark.parametrize("edit, match", [
    (lambda r: r["config"].update(num_players=10**25), r"config: num_players: expected an integer in 2\.\.10"),
    (lambda r: r["config"].update(mode=["round"]), r"config: mode: expected 'game', 'round' or 'rounds:K'"),
    (lambda r: r["actions"].__setitem__(2, 10**29), r"step 2: action 1{1}0{29} is not legal here"),
    (lambda r: r["actions"].__setitem__(2, [1]), r"step 2: action: expected an integer action id, got \[1\]"),
    (lambda r: r["actions"].__setitem__(2, 1.5), r"step 2: action: expected an integer action id, got 1\.5"),
])
def test_records_with_bad_values_fail_replay_naming_the_field_or_step(edit, match):
    rec = copy.deepcopy(_rec(0)[0])
    edit(rec)
    with pytest.raises(records.RecordError, match=match):
        records.replay(records.parse_records(records.dumps(rec))[0])


def test_files_are_bounded_and_must_be_utf8(tmp_path, monkeypatch):
    good = _text() + "\n"
    path = tmp_path / "r.jsonl"
    path.write_bytes(good.encode() + b'{"format": "\xed\xa0\x80"}\n')  # a UTF-8-encoded lone surrogate
    with pytest.raises(records.RecordError, match=r"r\.jsonl line 2: expected UTF-8 text, got the byte 0xed"):
        records.read_records(str(path))
    path.write_text(good * 3, encoding="utf-8")
    monkeypatch.setattr(records, "MAX_FILE_BYTES", len(good) * 2)
    with pytest.raises(records.RecordError, match=r"expected a file of at most"):
        records.read_records(str(path))
    monkeypatch.setattr(records, "MAX_FILE_BYTES", len(good) * 3)
    assert len(records.read_records(str(path))) == 3
    monkeypatch.setattr(records, "MAX_LINE_CHARS", len(good) - 2)
    with pytest.raises(records.RecordError, match=r"line 1: expected a record of at most"):
        records.parse_records(good)
    with pytest.raises(records.RecordError, match="cannot read the file"):
        records.read_records(str(tmp_path / "missing.jsonl"))


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(field=st.sampled_from([*records.KNOWN_FIELDS, "config.num_players", "config.mode", "config.deck_counts",
                              "config.max_steps", "actions[0]", "actions[-1]"]), value=JSON,
       k=st.sampled_from([0, 3]))
def test_any_value_in_any_field_replays_or_raises_a_record_error(field, value, k):
    rec = copy.deepcopy(_rec(k)[0])
    if field.startswith("config."):
        rec["config"][field[7:]] = value
    elif field.startswith("actions["):
        rec["actions"][int(field[8:-1])] = value
    else:
        rec[field] = value
    try:
        parsed = records.parse_records(records.dumps(rec))[0]
        records.replay(parsed)
    except records.RecordError:
        pass
