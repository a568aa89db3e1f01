"""Take 5's compiled-only search options: the rollout network (``rollout=net``: a per-card network distilled from
a policy that runs inside the compiled rollouts; ``agents/take5/compiled.py``: ``card_features``, ``net_scores``;
``agents/take5/distill.py``) and the open-loop node over the searcher's next card (``tree=1``: ``_tree_pick``).

They have no Python twin, so they are checked on their own: the network's inputs see only what the seat may
see, its scores are the network's arithmetic, the shipped file loads and a bad one is refused with a clear
error, distillation learns; the node's first visit is take5-safest's card and it touches nothing but the
searcher's next card; the search plays legal whole games with either in every config family,
deterministically by seed (information-set discipline: ``tests/agents/test_search.py``)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from fiveplay_env import games
from fiveplay_env.agents.registry import make_agent
from fiveplay_env.agents.search import SearchAgent
from fiveplay_env.agents.search_params import SearchParams
from fiveplay_env.agents.take5 import compiled as C
from fiveplay_env.take5 import engine as t5eng
from fiveplay_env.take5 import kernel as K
from fiveplay_env.take5 import positions
from fiveplay_env.take5.config import Take5Config
from fiveplay_env.take5.state import NUM_CARDS

from tests.agents.test_compiled_search import TAKE5_FAMILIES


def _kernel_state(engine: object) -> tuple:
    config = engine.config
    st = positions.SCHEMA.from_states([engine.state], positions.dims(config))
    return K.state_tuple(st), K.params(config)


def _features(engine: object, player: int) -> np.ndarray:
    S, P = _kernel_state(engine)
    hand = np.flatnonzero(engine.state.hands[player, :NUM_CARDS]).astype(np.int64)
    feats = np.full((NUM_CARDS, C.NET_FEATURES), np.nan)
    C.card_features(S, 0, player, P[K.N], P[K.DECK], hand, len(hand), np.empty(NUM_CARDS + 1, np.int64), feats)
    return feats[:len(hand)]


def test_card_features_see_only_the_seats_information() -> None:
    """The features of a hand do not change when the cards the seat cannot see are re-dealt."""
    config = Take5Config(num_players=4, mode="round")
    rng = np.random.default_rng(0)
    seen = 0
    for seed in range(6):
        engine = games.get("take5").new_engine(config, seed=seed)
        while not engine.is_over:
            p = engine.current_player
            if engine.state.phase == t5eng.PLAY:
                feats = _features(engine, p)
                assert np.isfinite(feats).all() and feats.shape[0] == engine.state.hands[p].sum()
                state = t5eng.sample_world(config, engine.state, p, rng)
                other = t5eng.Take5Engine(config, state=state)
                assert np.array_equal(_features(other, p), feats)
                seen += 1
            legal = np.flatnonzero(engine.legal_mask())
            engine.step(int(legal[rng.integers(len(legal))]))
    assert seen >= 200


def test_net_scores_are_the_networks_arithmetic() -> None:
    rng = np.random.default_rng(1)
    W1, b1, w2 = rng.normal(size=(7, C.NET_FEATURES)), rng.normal(size=7), rng.normal(size=7)
    feats = rng.normal(size=(10, C.NET_FEATURES))
    out = np.zeros(10)
    C.net_scores(feats, 6, W1, b1, w2, out)
    expect = np.maximum(feats[:6] @ W1.T + b1, 0.0) @ w2
    np.testing.assert_allclose(out[:6], expect, rtol=1e-12)
    assert (out[6:] == 0).all()  # only the m cards asked for


def test_the_shipped_network_loads_and_names_its_source() -> None:
    W1, b1, w2 = C.rollout_net()
    assert W1.shape[1] == C.NET_FEATURES and b1.shape == w2.shape == (W1.shape[0],)
    with np.load(C.NET_FILE, allow_pickle=False) as z:
        meta = json.loads(str(z["meta"]))
    assert meta["policy"].startswith("pretrained:take5-") and meta["features"] == C.NET_FEATURES
    assert 0.5 < meta["agreement"] <= 1.0  # distilled: its best card is mostly the policy's


def test_a_bad_network_file_is_refused_clearly(tmp_path) -> None:
    W1, b1, w2 = C.rollout_net()
    cases = {
        "shape.npz": dict(W1=W1[:, :5], b1=b1, w2=w2),
        "bias.npz": dict(W1=W1, b1=b1[:3], w2=w2),
        "nan.npz": dict(W1=W1, b1=np.full_like(b1, np.nan), w2=w2),
        "missing.npz": dict(W1=W1, b1=b1),
        "pickle.npz": dict(W1=np.array([{"x": 1}], dtype=object), b1=b1, w2=w2),
    }
    for name, arrays in cases.items():
        np.savez(tmp_path / name, **arrays)
        with pytest.raises(ValueError, match=f"rollout network {name}: expected"):
            C.load_net(tmp_path / name)
    (tmp_path / "junk.npz").write_bytes(b"not a zip file")
    with pytest.raises(ValueError, match="rollout network junk.npz: expected an .npz"):
        C.load_net(tmp_path / "junk.npz")
    (tmp_path / "big.npz").write_bytes(b"\0" * (C.MAX_NET_BYTES + 1))
    with pytest.raises(ValueError, match="at most"):
        C.load_net(tmp_path / "big.npz")
    with pytest.raises(ValueError, match="readable"):
        C.load_net(tmp_path / "absent.npz")


def test_rollout_net_options() -> None:
    assert SearchAgent(game="take5", params=SearchParams(rollout="net")).compiled
    with pytest.raises(ValueError, match="backend=python: the rollout network"):
        SearchParams(rollout="net", backend="python")
    with pytest.raises(ValueError, match="rollout=net: 'five_alive' has no compiled rollout network"):
        SearchAgent(game="five_alive", params=SearchParams(rollout="net"))
    with pytest.raises(ValueError, match="rollout: expected"):
        SearchParams(rollout="nets")


def _play(config: Take5Config, spec: str, seed: int) -> list[int]:
    game = games.get("take5")
    engine = game.new_engine(config, seed=seed)
    agents = [make_agent(spec if q == 0 else "take5-safest", "take5", seed=seed + q) for q in range(config.num_players)]
    actions = []
    while not engine.is_over:
        p = engine.current_player
        for q, a in enumerate(agents):
            a.observe_engine(engine, q)
        mask = engine.legal_mask()
        a = agents[p].act(game.observe(engine, p), mask)
        assert mask[a], f"illegal action {a}"
        actions.append(a)
        engine.step(a)
    return actions


@pytest.mark.parametrize("family", sorted(TAKE5_FAMILIES))
def test_whole_games_with_the_network_or_the_node_are_legal_and_repeat_by_seed(family: str) -> None:
    config = Take5Config(**{**TAKE5_FAMILIES[family], "mode": "round"}) if "rounds" not in family else \
        Take5Config(**TAKE5_FAMILIES[family])
    for spec in ("ismcts:sims=24,rollout=net", "ismcts:sims=40,tree=1,rollout=strong"):
        first = _play(config, spec, 3)
        assert _play(config, spec, 3) == first


def test_the_network_changes_the_rollouts() -> None:
    """The values with the network's rollouts are not the heuristics' (the mode reaches the rollouts)."""
    from fiveplay_env.agents.base import InformationSet

    engine = games.get("take5").new_engine(Take5Config(num_players=4), seed=5)
    info = InformationSet(engine, 0)
    acts = [int(a) for a in np.flatnonzero(engine.legal_mask())]
    v = {r: C.evaluate(info, 9, 0, 6, acts, SearchParams(rollout=r, eps=0.0), None) for r in ("net", "strong",
                                                                                                "heuristic")}
    assert not np.array_equal(v["net"], v["strong"]) and not np.array_equal(v["net"], v["heuristic"])
    np.testing.assert_array_equal(v["net"], C.evaluate(info, 9, 0, 6, acts, SearchParams(rollout="net", eps=0.0),
                                                       None))


def test_distillation_learns_the_policys_choices(tmp_path) -> None:
    pytest.importorskip("torch")
    from fiveplay_env.agents.take5 import distill

    policy = make_agent("pretrained:take5-game-4p", "take5", seed=0)
    data = distill.collect(policy, Take5Config(num_players=4, mode="game"), 3000, batch=64, seed=0)
    assert data["feats"].shape == (3000, 10, C.NET_FEATURES)
    np.testing.assert_allclose(data["target"].sum(axis=1), 1.0, rtol=1e-5)
    assert (data["target"][np.arange(10)[None, :] >= data["sizes"][:, None]] == 0).all()
    net, stats = distill.fit(data, hidden=8, epochs=4, batch=64, seed=0)
    # chance picks one of ~5.5 cards; the heuristic features alone get the policy's card about 3 times in 5
    assert stats["agreement"] > 0.45 and stats["loss"] < 1.7
    path = distill.save(tmp_path / "n.npz", net, {"policy": "pretrained:take5-game-4p", **stats})
    W1, b1, w2 = C.load_net(path)
    np.testing.assert_array_equal(W1, net[0])
    assert W1.shape == (8, C.NET_FEATURES)


def test_tree_options() -> None:
    assert SearchAgent(game="take5", params=SearchParams.parse("tree=1")).compiled
    with pytest.raises(ValueError, match="tree: expected 0 or 1"):
        SearchParams(tree=2)
    with pytest.raises(ValueError, match="backend=python: the open-loop node"):
        SearchParams(tree=1, backend="python")
    with pytest.raises(ValueError, match="tree=1: expected a compiled rollout"):
        SearchParams(tree=1, rollout="policy", prior="take5-game-4p")
    with pytest.raises(ValueError, match="tree=1: 'five_alive' has no compiled open-loop node"):
        SearchAgent(game="five_alive", params=SearchParams(tree=1))


def test_the_node_starts_with_safest_and_touches_only_the_next_card() -> None:
    from fiveplay_env.agents.base import InformationSet

    game = games.get("take5")
    rng = np.random.default_rng(4)
    engine = game.new_engine(Take5Config(num_players=4), seed=8)
    for _ in range(5):  # a position mid-round
        legal = np.flatnonzero(engine.legal_mask())
        engine.step(int(legal[rng.integers(len(legal))]))
    info = InformationSet(engine, engine.current_player)
    acts = [int(a) for a in np.flatnonzero(engine.legal_mask())]

    def values(first: int, count: int, **kw) -> np.ndarray:
        return C.evaluator(info, 7, SearchParams(rollout="strong", eps=0.0, **kw), None)(first, count, acts)

    # The first simulation of each candidate opens with the card take5-safest ranks first: the strong rollout's own.
    np.testing.assert_array_equal(values(0, 1, tree=1), values(0, 1))
    # With depth=1 (the candidate's trick only) the node never acts: the same values.
    np.testing.assert_array_equal(values(0, 12, tree=1, depth=1), values(0, 12, depth=1))
    # Later simulations follow the statistics: the node changes the values, and repeats them from the same start.
    many = values(0, 40, tree=1)
    assert not np.array_equal(many, values(0, 40))
    np.testing.assert_array_equal(many, values(0, 40, tree=1))
