"""The shipped policies load by name, in a fresh process too, and play legal moves in every variant."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fiveplay_env.agents import games
from fiveplay_env.agents.learned import pretrained
from fiveplay_env.agents.registry import known_agents, make_agent

ROOT = Path(__file__).resolve().parents[2]

# (game, config fields) of every variant the policies claim to play: Take 5 policies any rules and
# 2..10 players (observation adapted), 5 Alive 4 players under any rule option.
VARIANTS = {
    "take5": [{"num_players": 4, "mode": "round"}, {"num_players": 4, "mode": "game", "end_score": 30},
              {"num_players": 3, "mode": "round"}, {"num_players": 5, "mode": "round"},
              {"num_players": 2, "mode": "round"}, {"num_players": 10, "mode": "round"},
              {"num_players": 4, "mode": "round", "professional": True, "draft": True}],
    "five_alive": [{"num_players": 4}, {"num_players": 4, "bomb_zero_optional": True}],
}


def _play_checked(game_name: str, fields: dict, names: list[str], seed: int) -> int:
    """Play one game with a legality check on every decision; the number of decisions checked."""
    game = games.get_game(game_name)
    config = game.make_config(fields)
    n = config.num_players
    agents = [make_agent(names[i % len(names)], game_name, seed=seed + i) for i in range(n)]
    engine = game.new_engine(config, seed)
    checked = 0
    while not engine.is_over:
        p = engine.current_player
        mask = engine.legal_mask()
        if agents[p].uses_engine:
            agents[p].observe_engine(engine, p)
        a = agents[p].act(game.observe(engine, p), mask)
        assert mask[a], (names, p, a)
        engine.step(int(a))
        checked += 1
    return checked


def test_every_model_is_shipped_and_listed() -> None:
    assert set(pretrained.available()) == set(pretrained.MODELS) >= {"take5-round-4p", "take5-game-4p", "five-alive-4p"}
    assert "pretrained:..." in known_agents("take5")
    for name, spec in pretrained.MODELS.items():
        path = pretrained.path_of(name)
        assert os.path.getsize(path) < 4_000_000  # small package data: the network only
        card = pretrained.model_card(name)
        assert card["command"].startswith(("python -m experiments.train", "python -m fiveplay_env.experiments.train")) and card["wall_minutes"] > 0, name
        assert "strength" in card


@pytest.mark.parametrize("name", sorted(pretrained.MODELS))
def test_pretrained_plays_legal_moves_in_every_variant(name: str) -> None:
    spec = pretrained.MODELS[name]
    for k, fields in enumerate(VARIANTS[spec.game]):
        assert _play_checked(spec.game, fields, [f"pretrained:{name}", "random"], seed=k) > 0
    # sampling options are the ckpt: ones
    assert _play_checked(spec.game, VARIANTS[spec.game][0], [f"pretrained:{name}?temperature=0.5"], seed=9) > 0


def test_bad_names_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="expected one of"):
        make_agent("pretrained:nope", "take5")
    with pytest.raises(ValueError, match="five_alive policy"):
        make_agent("pretrained:five-alive-4p", "take5")
    with pytest.raises(ValueError, match="temperature"):
        make_agent("pretrained:take5-round-4p?temperature=0", "take5")


def test_take5_observation_adapter_keeps_the_cards_and_maps_the_tail() -> None:
    from fiveplay_env.agents.take5.obs_adapt import adapt_take5_observation
    from fiveplay_env.take5 import observation as t5obs

    game = games.get_game("take5")
    for n in (3, 5):
        engine = game.new_engine(game.make_config({"num_players": n, "mode": "game"}), 1)
        for _ in range(2 * n):
            engine.step(int(np.flatnonzero(engine.legal_mask())[0]))
        obs = game.observe(engine, engine.current_player)[None, :]
        out = adapt_take5_observation(obs, n, 4)
        S = t5obs.SCORES
        assert out.shape == (1, t5obs.observation_size(4))
        assert np.array_equal(out[:, :S], obs[:, :S])
        m = min(n, 4)
        assert np.array_equal(out[0, S:S + m], obs[0, S:S + m])
        assert out[0, S + 8:S + 12].sum() == 1.0  # one seat flag
        assert np.array_equal(out[0, S + 12:], obs[0, S + 3 * n:])
    assert adapt_take5_observation(obs, 5, 5) is obs
    # a draft observation ends with the other players' public hands: dropped for the non-draft policy
    for n in (4, 5):
        engine = game.new_engine(game.make_config({"num_players": n, "professional": True, "draft": True}), 2)
        while engine.state.phase == 0:  # the draft
            engine.step(int(np.flatnonzero(engine.legal_mask())[0]))
        obs = game.observe(engine, engine.current_player)[None, :]
        assert obs.shape[1] == t5obs.observation_size(n) + 104 * (n - 1)
        out = adapt_take5_observation(obs, n, 4)
        assert out.shape == (1, t5obs.observation_size(4))
        assert np.array_equal(out[:, :t5obs.SCORES], obs[:, :t5obs.SCORES])
        assert np.array_equal(out[0, -4:], obs[0, t5obs.SCORES + 3 * n:t5obs.SCORES + 3 * n + 4])


def test_loads_by_name_in_a_fresh_process_from_the_installed_package() -> None:
    """No import but the registry's: the lazy prefix brings the package data in."""
    code = ("from fiveplay_env.agents.registry import make_agent; import numpy as np\n"
            "a = make_agent('pretrained:take5-game-4p', 'take5', seed=0)\n"
            "from fiveplay_env.agents import games; g = games.get_game('take5'); e = g.new_engine(g.make_config({'num_players': 4}), 0)\n"
            "m = e.legal_mask(); print(int(m[a.act(g.observe(e, e.current_player), m)]))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd="/", capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "1"


@pytest.mark.slow
def test_the_model_card_table_is_the_cards() -> None:
    """agents/learned/pretrained/README.md is what fiveplay_env.experiments.ship writes from the files' cards."""
    from fiveplay_env.experiments.ship import readme

    text = readme()
    for name in pretrained.MODELS:
        assert f"| `{name}` |" in text and pretrained.model_card(name)["command"] in text
    assert (Path(pretrained.HERE) / "README.md").read_text(encoding="utf-8") == text


def test_ship_writes_only_into_a_source_checkout(tmp_path) -> None:
    """``fiveplay_env.experiments.ship`` rewrites the package data of a checkout, never an installed package's files."""
    from fiveplay_env.agents.learned import pretrained
    from fiveplay_env.experiments.ship import source_checkout

    assert os.path.samefile(source_checkout(pretrained.HERE), os.path.join(os.path.dirname(__file__), "..", ".."))
    installed = tmp_path / "site-packages" / "fiveplay_env" / "agents" / "learned" / "pretrained"
    installed.mkdir(parents=True)
    with pytest.raises(ValueError, match=r"^ship: expected a source checkout of fiveplay .*ckpt:RUN_DIR"):
        source_checkout(str(installed))
