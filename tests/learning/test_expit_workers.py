"""Expert iteration on the compiled search (``fiveplay_env.agents.learned.search_games``): a tiny run with the
default expert (compiled, unguided) and with a guided one trains, checkpoints and resumes bit-identically, and
its games do not depend on who plays them (``workers=2`` processes here; Ray actors in
``tests/distributed/test_ray.py``)."""
from __future__ import annotations

import numpy as np
import torch

from tests.learning.conftest import TAKE5_CFG

COMPILED = "ismcts:worlds=2,rollout=strong"
TOPK = "ismcts:worlds=2,topk=3"  # guided by the learner's network: the weights travel to the workers


def _cfg(**kw):
    from fiveplay_env.agents.learned.algorithms.expit import ExpitConfig

    base = dict(game="take5", config=dict(TAKE5_CFG), opponents=[("take5-safest", 1.0), ("self", 1.0)],
                total_decisions=10_000, hidden=(16,), search=COMPILED, games_per_update=3, minibatch_size=16,
                buffer_size=60, lr_schedule="constant", win_reward=3.0)
    return ExpitConfig(**{**base, **kw})


def _run(updates, learner=None, **kw):
    from fiveplay_env.agents.learned.trainer import make_learner

    tr = learner or make_learner(_cfg(**kw))
    try:
        for _ in range(updates):
            tr.train_update()
    finally:
        tr.close()
    return tr


def _same_run(a, b):
    assert a.decisions == b.decisions and a.games == b.games and a.update_idx == b.update_idx
    for k, v in a.buffer.arrays().items():
        np.testing.assert_array_equal(v, b.buffer.arrays()[k])
    sa, sb = a.model.state_dict(), b.model.state_dict()
    assert sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)
    assert a.rng.bit_generator.state == b.rng.bit_generator.state


def test_the_default_expert_is_a_compiled_unguided_search():
    from fiveplay_env.agents.learned.algorithms.expit import DEFAULT_SEARCH, ExpitConfig
    from fiveplay_env.agents.learned.search_games import search_needs_policy
    from fiveplay_env.agents.search_params import SearchParams

    assert ExpitConfig(game="take5").search == DEFAULT_SEARCH
    params = SearchParams.parse(DEFAULT_SEARCH.partition(":")[2])
    assert params.rollout != "policy" and params.worlds and not search_needs_policy(DEFAULT_SEARCH)
    assert search_needs_policy(TOPK) and search_needs_policy("ismcts:worlds=2,rollout=policy,depth=1,value=1")
    assert not search_needs_policy("ismcts:worlds=2,topk=3,prior=take5-round-4p")


def test_a_compiled_expert_run_resumes_bit_identically(tmp_path):
    from fiveplay_env.agents.learned.checkpoint import load_checkpoint, save_checkpoint
    from fiveplay_env.agents.learned.trainer import make_learner

    straight = _run(3)
    half = _run(1)
    path = str(tmp_path / "checkpoint.pt")
    save_checkpoint(path, half.state(args={"algo": "expit"}))
    again = make_learner(_cfg(), warm_start=False)
    again.load_state(load_checkpoint(path))
    _run(2, learner=again)
    assert len(straight.buffer) == straight.cfg.buffer_size  # the ring wrapped
    _same_run(straight, again)
    assert straight.update_idx == 3 and straight.decisions > 0


def test_two_worker_processes_play_the_games_of_one():
    """The same seed gives the same games (samples in the same order), weights and generator with the games
    played by two spawned processes as in the learner's own process; a guided expert gets the weights."""
    one = _run(2, search=TOPK)
    two = _run(2, search=TOPK, workers=2)
    _same_run(one, two)


# with Ray actors: tests/distributed/test_ray.py (its module's local Ray instance: Ray starts slowly)
