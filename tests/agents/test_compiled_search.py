"""The search in compiled code equals the reference (Take 5 here; 5 Alive in test_compiled_five_alive.py).

``compiled_search_contract`` compares the compiled evaluator's values with ``PythonValues`` (the reference
engine, the game's ``prepare`` and ``simulate``) on the same worlds, bit for bit; whole games then show
that both backends make the same decisions."""
from __future__ import annotations

import numpy as np
import pytest

from fiveplay_env import games
from fiveplay_env.agents.registry import make_agent
from fiveplay_env.agents.search import SearchAgent, compiled_search_contract
from fiveplay_env.agents.search_params import SearchParams
from fiveplay_env.take5.config import Take5Config

TAKE5_FAMILIES = {
    "4p": dict(num_players=4),
    "2p-auto-rows": dict(num_players=2, row_pick="min_bullheads"),
    "10p": dict(num_players=10),
    "professional-draft": dict(num_players=5, professional=True, draft=True),
    "professional": dict(num_players=3, professional=True),
    "rounds-2": dict(num_players=6, mode="rounds:2", end_score=20, end_inclusive=False),
}


@pytest.mark.parametrize("family", sorted(TAKE5_FAMILIES))
def test_take5_compiled_values_equal_the_reference(family: str) -> None:
    checks = compiled_search_contract("take5", Take5Config(**TAKE5_FAMILIES[family]), seed=3, positions=3)
    assert checks >= 8


def test_the_contract_catches_a_wrong_value(monkeypatch) -> None:
    from fiveplay_env.agents.take5 import compiled

    real = compiled.evaluator
    monkeypatch.setattr(compiled, "evaluator", lambda *a: lambda *b: real(*a)(*b) + 1e-9)
    with pytest.raises(AssertionError, match="compiled values differ"):
        compiled_search_contract("take5", Take5Config(num_players=3), seed=1, positions=2, settings=("",))


def _game(spec: str, seed: int, game: str = "take5") -> list[int]:
    g = games.get(game)
    config = Take5Config(num_players=3, mode="round") if game == "take5" else g.config_cls(num_players=3)
    engine = g.new_engine(config, seed=seed)
    agents = [make_agent(spec, game, seed=10 + q) for q in range(3)]
    actions = []
    while not engine.is_over:
        p = engine.current_player
        for q, a in enumerate(agents):
            a.observe_engine(engine, q)
        actions.append(agents[p].act(g.observe(engine, p), engine.legal_mask()))
        engine.step(actions[-1])
    return actions


@pytest.mark.parametrize("game,opts", [("take5", "sims=40"), ("take5", "sims=24,alloc=ucb"),
                                       ("take5", "worlds=3,eps=0.3"), ("five_alive", "sims=30")])
def test_both_backends_make_the_same_decisions_and_seeds_repeat(game: str, opts: str) -> None:
    compiled = _game(f"ismcts:{opts}", 4, game)
    assert _game(f"ismcts:{opts},backend=python", 4, game) == compiled
    assert _game(f"ismcts:{opts},backend=compiled", 4, game) == compiled  # the same seed, the same game


def test_round9_is_pythons_round() -> None:
    from fiveplay_env.agents.take5.compiled import round9

    rng = np.random.default_rng(0)
    ties = (np.floor(rng.random(3000) * 1e9) + 0.5) / 1e9  # the decimal ties, and their binary neighbours
    values = np.concatenate([rng.random(3000) * 30, ties, np.nextafter(ties, 0), np.nextafter(ties, 1)])
    assert [round9(float(v)) for v in values] == [round(float(v), 9) for v in values]


def test_backend_and_budget_options() -> None:
    assert SearchAgent(game="take5").compiled
    assert not SearchAgent(game="take5", params=SearchParams(backend="python")).compiled
    assert SearchParams.parse("worlds=16").worlds == 16 and SearchParams.parse("worlds=16").sims is None
    with pytest.raises(ValueError, match="backend"):
        SearchParams(backend="gpu")
    with pytest.raises(ValueError, match="backend=compiled"):
        SearchParams(backend="compiled", rollout="policy", prior="take5-game-4p")
    with pytest.raises(ValueError, match="worlds"):
        SearchParams(worlds=4, sims=10)
    with pytest.raises(ValueError, match="no compiled search"):
        SearchAgent(game="toybid", params=SearchParams(backend="compiled"))  # the test table's toy game: none
    alias = make_agent("bsearch:worlds=2", "take5", seed=0)  # the retired name: the same search
    assert isinstance(alias, SearchAgent) and alias.params.worlds == 2


@pytest.mark.parametrize("players,variant", [(4, "standard"), (3, "sudden_death"), (4, "teams")])
def test_five_alive_compiled_values_equal_the_reference_with_and_without_beliefs(players: int, variant: str) -> None:
    from fiveplay_env.five_alive.config import FiveAliveConfig

    checks = compiled_search_contract("five_alive", FiveAliveConfig(num_players=players, variant=variant), seed=3,
                                      positions=3, settings=("", "eps=0.3,depth=4,alpha=1.5,insure=0", "rollout=random"))
    assert checks >= 6
