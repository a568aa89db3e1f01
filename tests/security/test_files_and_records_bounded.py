"""Third audit, files and run folders: checkpoints opened only when they are regular files of a bounded
size, ``--games`` bounded and the schedule generated lazily, legacy formats read only when asked."""
from __future__ import annotations

import copy
import itertools
import json
import os
import resource
import threading
import time

import pytest

from fiveplay_env.experiments import tournament as T
from fiveplay_env.experiments.tournament.schedule import Schedule
from fiveplay_env.experiments.tournament.spec import MAX_GAMES
from fiveplay_env import records
from fiveplay_env.core.errors import CheckpointError


# --- checkpoints ------------------------------------------------------------------------------------------

def _load(path):
    pytest.importorskip("torch")
    from fiveplay_env.agents.learned.checkpoint import load_checkpoint

    return load_checkpoint(path)


def test_a_device_is_refused_before_it_is_read():
    """The audit's reproducer: ``--agents ckpt:/dev/zero`` was killed by the kernel for memory."""
    with pytest.raises(CheckpointError, match="/dev/zero: expected a regular file, got a device"):
        _load("/dev/zero")


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = str(tmp_path / "ckpt.pt")
    os.mkfifo(fifo)
    out: list[BaseException] = []
    t = threading.Thread(target=lambda: out.append(pytest.raises(CheckpointError, _load, fifo).value), daemon=True)
    t.start()
    t.join(20)
    assert not t.is_alive(), "load_checkpoint blocked on a FIFO"
    assert "expected a regular file, got a FIFO" in str(out[0])


def test_a_huge_file_is_refused_by_its_size(tmp_path):
    pytest.importorskip("torch")
    from fiveplay_env.agents.learned import checkpoint

    big = tmp_path / "big.pt"
    with open(big, "wb") as f:  # sparse: no disk used
        f.truncate(checkpoint.MAX_CHECKPOINT_BYTES + 1)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(CheckpointError, match=f"expected at most {checkpoint.MAX_CHECKPOINT_BYTES} bytes"):
        _load(str(big))
    assert (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024 < 50


def test_a_ckpt_agent_of_a_device_is_a_clear_error():
    pytest.importorskip("torch")
    from fiveplay_env.agents.registry import make_agent

    with pytest.raises(ValueError, match="expected a regular file"):
        make_agent("ckpt:/dev/zero", "take5", seed=0)


# --- tournaments: --games bounded, the schedule lazy ------------------------------------------------------

def test_games_beyond_the_bound_are_refused_at_once(tmp_path):
    """The audit's reproducer: ``--games 100000000000`` reached 8.4 GB in 20 s without a word."""
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=f"games: expected an integer >= 1 and at most {MAX_GAMES}"):
        T.main(["--game", "take5", "--agents", "random", "random", "--games", "100000000000",
                "--out", str(tmp_path), "--quiet", "--no-plots"])
    assert time.perf_counter() - t0 < 5 and not os.listdir(tmp_path)


def test_the_largest_tournament_costs_no_memory_before_its_games(tmp_path):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    s = T.main(["--game", "take5", "--config", "mode=round", "--agents", "random", "random", "--games",
                str(MAX_GAMES), "--max-games", "3", "--out", str(tmp_path), "--quiet", "--no-plots"])
    assert s["games_completed"] == 3 and s["games_planned"] == MAX_GAMES
    assert (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024 < 100


def test_the_schedule_is_computed_not_listed():
    for m, n in ((5, 2), (6, 3), (7, 7), (4, 1)):
        sched = Schedule(m, n, 0)
        assert [sched.group(i) for i in range(sched.subsets)] == [list(c) for c in itertools.combinations(range(m), n)]
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    sched = Schedule(60, 10, 0)  # 75,394,027,566 subsets: never listed
    assert sched.cycle == 10 * 75_394_027_566 and sorted(set(sched.seating(10**12))) == sorted(sched.seating(10**12))
    assert (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024 < 20


# --- legacy formats only when asked -----------------------------------------------------------------------

def _v2_record():
    from fiveplay_env.take5.config import Take5Config
    from fiveplay_env.take5.engine import Take5Engine

    import numpy as np

    config = Take5Config(num_players=3, mode="round")
    eng = Take5Engine(config, 7)
    rng = np.random.default_rng(0)
    actions = []
    while not eng.is_over:
        a = int(rng.choice(np.flatnonzero(eng.legal_mask())))
        eng.step(a)
        actions.append(a)
    return records.make_record("take5", config, 7, actions, agents=["a", "b", "c"])


def test_a_version_1_record_is_refused_unless_asked():
    rec = _v2_record()
    v1 = {k: v for k, v in rec.items() if k != "chain"} | {"version": 1}
    line = records.dumps(v1)
    for read in (lambda: records.parse_records(line), lambda: records.replay(v1),
                 lambda: list(records.iter_states(v1))):
        with pytest.raises(records.RecordError, match="version-1 record .* allow_legacy=True"):
            read()
    assert records.replay(records.parse_records(line, allow_legacy=True)[0], allow_legacy=True).engine.is_over
    up = records.upgrade(v1)  # the documented migration
    assert up["version"] == 2 and up["chain"] == rec["chain"] and records.replay(up).engine.is_over


def test_a_downgrade_to_version_1_no_longer_hides_an_edited_action():
    """The audit: 89 of 1,509 single-action edits passed once the record said version 1."""
    rec = _v2_record()
    caught = 0
    for i in range(len(rec["actions"])):
        bad = copy.deepcopy(rec)
        bad["actions"][i] = (bad["actions"][i] + 1) % 104
        v1 = {k: v for k, v in bad.items() if k != "chain"} | {"version": 1}
        with pytest.raises(records.RecordError):
            records.replay(json.loads(records.dumps(v1)))
        caught += 1
    assert caught == len(rec["actions"])


def test_a_record_upload_is_counted_before_decoding():
    rec = _v2_record()
    big = dict(rec, actions=[1] * 200_000)
    with pytest.raises(records.RecordTooLarge, match="refused before decoding"):
        records.parse_records(records.dumps(big), max_actions=100)
    with pytest.raises(records.RecordTooLarge, match="expected at most 5000 actions, got 200000"):
        records.parse_records(records.dumps(big), max_actions=5000)  # few enough values: decoded, then counted
    with pytest.raises(ValueError, match="max_actions: expected an integer"):
        records.parse_records(records.dumps(rec), max_actions=0)
    # commas inside strings do not count against a record
    assert records.parse_records(records.dumps(dict(rec, agents=["," * 10_000] * 3)), max_actions=len(rec["actions"]))
