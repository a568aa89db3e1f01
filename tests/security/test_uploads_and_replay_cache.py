"""Record uploads bounded by what decoding allocates (values, containers and depth), a replay cache bounded
in bytes that keeps only what paging needs, and no ``MemoryError`` reaching a client (issue 53, item 1)."""
from __future__ import annotations

import json
import threading

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from fiveplay_env import records  # noqa: E402
from fiveplay_env.experiments.web import replays as R  # noqa: E402
from fiveplay_env.experiments.web.app import create_app  # noqa: E402
from fiveplay_env.experiments.web.sessions import THOUGHTS_KEY, GameError  # noqa: E402


def _record(seed: int = 7, **extra):
    from fiveplay_env.take5.config import Take5Config
    from fiveplay_env.take5.engine import Take5Engine

    config = Take5Config(num_players=3, mode="round")
    eng = Take5Engine(config, seed)
    rng = np.random.default_rng(seed)
    actions = []
    while not eng.is_over:
        a = int(rng.choice(np.flatnonzero(eng.legal_mask())))
        eng.step(a)
        actions.append(a)
    return records.make_record("take5", config, seed, actions, agents=["a", "b", "c"], **extra)


@pytest.fixture()
def client(tmp_path):
    with TestClient(create_app(str(tmp_path), save_games=False), base_url="http://127.0.0.1",
                    raise_server_exceptions=False) as c:
        yield c


def _upload(client, text, **extra):
    return client.post("/api/replay", json={"text": text, **extra})


def test_nested_containers_count_before_decoding(client):
    """The audit's reproducer: ``meta`` holding 146,896 elements, each ``[[[...]]]`` 28 deep (8.4 MB; 390 MB
    once decoded). Refused before decoding, with a message naming the limit."""
    deep = "[" * 28 + "]" * 28
    line = records.dumps(_record()).rstrip("}") + ',"meta":{"x":[' + ",".join([deep] * 146_896) + "]}}"
    assert len(line) > 8_000_000
    r = _upload(client, line)
    assert r.status_code == 413, r.text
    msg = r.json()["error"]
    assert "JSON values and containers" in msg and "refused before decoding" in msg
    # the reader alone: 28 deep counts 28
    assert records.json_units(deep) == 29
    with pytest.raises(records.RecordTooLarge, match="values and containers"):
        records.parse_records(line, max_actions=200)


def test_a_flat_record_of_a_million_empty_lists_is_refused(client):
    """The audit's flat case: 1.28 M ``[]`` (3.9 MB) kept 88 MB each in the cache; now over the upload's
    unit budget."""
    line = records.dumps(_record()).rstrip("}") + ',"meta":{"x":[' + ",".join(["[]"] * 1_280_000) + "]}}"
    r = _upload(client, line)
    assert r.status_code == 413 and "refused before decoding" in r.json()["error"]


def test_brackets_and_commas_inside_strings_do_not_count():
    rec = dict(_record(), agents=["[{," * 3000] * 3)
    assert records.parse_records(records.dumps(rec), max_actions=100, max_values=500)


def test_max_values_is_checked():
    with pytest.raises(ValueError, match="max_values: expected a positive integer"):
        records.parse_records(records.dumps(_record()), max_values=0)


def test_the_cache_is_bounded_in_bytes_and_keeps_only_what_paging_needs(tmp_path):
    """15 distinct uploads held 5.7 GB; now the cache holds at most its bytes, and what it keeps of a
    record has no ``meta`` beyond the human's seat; thoughts are kept as compact text."""
    thoughts = {"version": 1, "steps": {"0": {"player": 1, "values": list(range(20))}}}
    junk = {"junk": [[i] for i in range(20_000)], THOUGHTS_KEY: thoughts, "human_seat": 0}
    one = R.size_of(R.check_record(records.dumps(_record(0, meta=junk)), "upload", 0))
    assert one < 60_000  # a 30-action record and one thought, not its 20,000 lists
    reps = R.Replays(str(tmp_path), cache_bytes=3 * one + one // 2)
    sizes = []
    for seed in range(12):
        rec = _record(seed, meta=junk)
        page = reps.page(records.dumps(rec), "upload", 0, 0, 5)
        assert page["frames"][1]["thoughts"] == thoughts["steps"]["0"]
        assert page["human_seat"] == 0
        assert reps.cache.bytes <= reps.cache.max_bytes
        sizes.append(reps.cache.bytes)
    item = next(iter(reps.cache._items.values()))[0]
    assert set(item["rec"]["meta"]) == {"human_seat"} and "junk" not in json.dumps(item["rec"])
    assert all(isinstance(t, str) for t in item["thoughts"].values())
    assert len(reps.cache) == 3 and item["rec"]["seed"] == 9  # the least recently used dropped first


def test_an_item_larger_than_the_cache_is_served_not_kept(tmp_path):
    reps = R.Replays(str(tmp_path), cache_bytes=1_000)
    page = reps.page(records.dumps(_record()), "upload", 0, 0, 3)
    assert len(page["frames"]) == 3 and len(reps.cache) == 0 and reps.cache.bytes == 0


def test_checks_wait_their_turn_then_get_a_503(tmp_path):
    reps = R.Replays(str(tmp_path), checks_at_once=1, check_wait_s=0.05)
    reps._checks.acquire()  # another check is under way
    try:
        with pytest.raises(GameError) as e:
            reps.page(records.dumps(_record()), "upload", 0, 0, 3)
        assert e.value.status == 503 and "try again" in e.value.message
    finally:
        reps._checks.release()
    assert reps.page(records.dumps(_record()), "upload", 0, 0, 3)["total_frames"] > 3


def test_a_memory_error_is_a_503_not_a_500(client, monkeypatch):
    def boom(*a, **k):
        raise MemoryError

    monkeypatch.setattr(R, "check_record", boom)
    r = _upload(client, records.dumps(_record()))
    assert r.status_code == 503 and "short of memory" in r.json()["error"]


def test_eight_distinct_uploads_at_once_all_answer(client):
    """Beyond the reproducer: concurrent distinct uploads wait their turn and all succeed (or 503 with a
    message), never a 500."""
    texts = [records.dumps(_record(s)) for s in range(8)]
    out: list[int] = []

    def go(t):
        out.append(_upload(client, t, count=5).status_code)

    ts = [threading.Thread(target=go, args=(t,)) for t in texts]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert sorted(set(out)) <= [200, 503] and out.count(200) >= 1 and len(out) == 8
