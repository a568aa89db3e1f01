"""Agents: only legal actions over many seeded games of both games and every variant; batches; registry."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from fiveplay_env.agents import games
from fiveplay_env.agents.arena import play_game
from fiveplay_env.agents.base import Agent, InformationSet
from fiveplay_env.agents.registry import known_agents, make_agent, register_prefix
from fiveplay_env.agents.random_agent import RandomAgent
from fiveplay_env.core import seeding
from fiveplay_env.five_alive.config import PRESETS as FA_PRESETS
from fiveplay_env.take5.config import PRESETS as T5_PRESETS

T5_AGENTS = ["random", "take5-safest", "take5-closest", "take5-dumphigh", "take5-undercut", "ismcts:sims=6",
             "ismcts:sims=6,alloc=ucb,depth=2,model=none,win=20"]
FA_AGENTS = ["random", "five-alive-saver", "five-alive-attacker", "five-alive-squeezer", "five-alive-lowball",
             "ismcts:sims=6", "ismcts:sims=6,alloc=ucb,depth=5,eps=0,insure=0,alpha=2"]


class Checked(Agent):
    """Wraps an agent and checks every action against the mask it was given."""

    uses_engine = False

    def __init__(self, inner: Agent) -> None:
        super().__init__(0)
        self.inner = inner
        self.uses_engine = inner.uses_engine
        self.calls = 0

    def reset(self, seed: int | None = None) -> None:
        self.inner.reset(seed)

    def observe_engine(self, engine, player) -> None:
        self.inner.observe_engine(engine, player)

    def act(self, observation, action_mask) -> int:
        a = self.inner.act(observation, action_mask)
        assert isinstance(a, int), f"{self.inner.name} returned {type(a).__name__}"
        assert action_mask[a] == 1, f"{self.inner.name} chose illegal action {a}; legal {np.flatnonzero(action_mask)}"
        self.calls += 1
        return a


def _configs(game: str) -> list[tuple[str, object]]:
    if game == "take5":
        out = [(k, dataclasses.replace(c, mode="round") if c.mode == "game" else c) for k, c in T5_PRESETS.items()]
        out.append(("standard_game", T5_PRESETS["standard"]))
        out.append(("3p_round", dataclasses.replace(T5_PRESETS["single_round"], num_players=3)))
        out.append(("10p_round", dataclasses.replace(T5_PRESETS["single_round"], num_players=10)))
        out.append(("auto_rows_pro", dataclasses.replace(T5_PRESETS["professional"], row_pick="min_bullheads", mode="round")))
        return out
    out = list(FA_PRESETS.items())
    out.append(("voluntary_bust", dataclasses.replace(FA_PRESETS["standard"], allow_voluntary_bust=True)))
    out.append(("round_robin_skip", dataclasses.replace(FA_PRESETS["standard"], draw_order="round_robin",
                                                        empty_draw_pile="skip", new_round_direction="keep")))
    return out


CASES = [(g, k, c) for g in ("take5", "five_alive") for k, c in _configs(g)]


@pytest.mark.parametrize("game_name,preset,config", CASES, ids=[f"{g}-{k}" for g, k, _ in CASES])
def test_every_agent_plays_only_legal_actions(game_name: str, preset: str, config: object) -> None:
    game = games.get_game(game_name)
    names = T5_AGENTS if game_name == "take5" else FA_AGENTS
    n = config.num_players
    games_to_play = 3 if preset == "standard_game" else 4 if n >= 6 else 16
    calls = dict.fromkeys(names, 0)
    for g in range(games_to_play):
        seated = [names[(g * n + s) % len(names)] for s in range(n)]
        agents = [Checked(make_agent(nm, game_name, seed=100 * g + s)) for s, nm in enumerate(seated)]
        rec = play_game(game, config, agents, seeding.derive(1234, g))
        assert sum(rec.decisions) == rec.steps
        assert sorted(rec.results) == sorted({"win", "placing", *(m.name for m in game.metrics)})
        for nm, a in zip(seated, agents):
            calls[nm] += a.calls
        if not rec.truncated:
            assert sum(rec.results["win"]) > 0
    assert all(c > 0 for c in calls.values()), calls


@pytest.mark.parametrize("game_name", ["take5", "five_alive"])
def test_act_batch_is_legal_and_matches_act(game_name: str) -> None:
    game = games.get_game(game_name)
    config = game.make_config({"num_players": 4})
    obs, masks = [], []
    engine = game.new_engine(config, 3)
    rng = np.random.default_rng(0)
    while not engine.is_over and len(obs) < 60:
        p = engine.current_player
        m = engine.legal_mask()
        obs.append(game.observe(engine, p))
        masks.append(m)
        legal = np.flatnonzero(m)
        engine.step(int(legal[rng.integers(len(legal))]))
    O, M = np.stack(obs), np.stack(masks)
    for name in known_agents(game_name):
        if name.startswith(("ismcts", "bsearch")) or name.endswith("..."):
            continue
        agent = make_agent(name, game_name, seed=5)
        acts = agent.act_batch(O, M)
        assert acts.shape == (len(O),) and acts.dtype == np.int64
        assert all(M[i, a] == 1 for i, a in enumerate(acts)), name
        if name != "random":  # heuristics are deterministic: the batch equals one-by-one
            assert acts.tolist() == [agent.act(o, m) for o, m in zip(O, M)]


def test_random_agent_is_uniform_and_seeded() -> None:
    mask = np.zeros(109, np.int8)
    mask[[3, 50, 104]] = 1
    a = RandomAgent(7)
    picks = [a.act(np.zeros(860, np.float32), mask) for _ in range(3000)]
    counts = np.bincount(picks, minlength=109)[[3, 50, 104]]
    assert counts.min() > 850
    b = RandomAgent(7)
    assert [b.act(np.zeros(860, np.float32), mask) for _ in range(3000)] == picks
    batch = RandomAgent(1).act_batch(np.zeros((5000, 860)), np.tile(mask, (5000, 1)))
    assert set(batch.tolist()) == {3, 50, 104}
    assert np.bincount(batch, minlength=109)[[3, 50, 104]].min() > 1400


def test_bad_inputs_raise_value_errors() -> None:
    agent = make_agent("take5-safest", "take5", seed=0)
    with pytest.raises(ValueError, match="at least one legal action"):
        agent.act(np.zeros(860, np.float32), np.zeros(109, np.int8))
    with pytest.raises(ValueError, match="expected observations"):
        agent.act_batch(np.zeros(860), np.zeros(109))
    with pytest.raises(ValueError, match="as many masks"):
        agent.act_batch(np.zeros((2, 860)), np.ones((3, 109)))
    with pytest.raises(ValueError, match="Take 5 observation"):
        agent.act(np.zeros(100, np.float32), np.ones(109, np.int8))
    fa = make_agent("five-alive-saver", "five_alive", seed=0)
    with pytest.raises(ValueError, match="5 Alive observation"):
        fa.act(np.zeros(10, np.float32), np.ones(19, np.int8))
    search = make_agent("ismcts:sims=5", "take5", seed=0)
    mask = np.zeros(109, np.int8)
    mask[[1, 2]] = 1
    with pytest.raises(ValueError, match="observe_engine"):
        search.act(np.zeros(860, np.float32), mask)
    with pytest.raises(ValueError, match="act_batch"):
        search.act_batch(np.zeros((1, 860)), mask[None])


def test_registry_names_errors_and_prefix_hook() -> None:
    for game in ("take5", "five_alive"):
        names = known_agents(game)
        assert "random" in names and "ismcts:sims=N" in names
        assert sum(1 for nm in names if nm.startswith(("take5-", "five-alive-"))) >= 3
    assert make_agent("take5-safest", "take5", 0).name == "take5-safest"
    s = make_agent("ismcts:time=0.05,eps=0.2", "five_alive", 0)
    assert s.params.time == 0.05 and s.params.eps == 0.2 and s.params.sims is None
    with pytest.raises(ValueError, match="take5-safest"):
        make_agent("nope", "take5", 0)
    with pytest.raises(ValueError, match="five-alive-saver"):
        make_agent("take5-safest", "five_alive", 0)
    with pytest.raises(ValueError, match="game"):
        make_agent("random", "chess", 0)
    with pytest.raises(ValueError, match="sims"):
        make_agent("ismcts:sims=0", "take5", 0)
    with pytest.raises(ValueError, match="not both"):
        make_agent("ismcts:sims=5,time=1", "take5", 0)
    with pytest.raises(ValueError, match="key in"):
        make_agent("ismcts:horizon=3", "take5", 0)
    with pytest.raises(ValueError, match="number"):
        make_agent("ismcts:time=fast", "take5", 0)
    with pytest.raises(ValueError, match="insure"):
        make_agent("ismcts:insure=0.5", "five_alive", 0)
    with pytest.raises(ValueError, match="model"):
        make_agent("ismcts:model=oracle", "five_alive", 0)

    made = []

    def factory(rest: str, game: str, seed: int | None) -> Agent:
        made.append((rest, game, seed))
        return RandomAgent(seed)

    register_prefix("testprefix", factory)
    agent = make_agent("testprefix:some/path.pt", "take5", 3)
    assert made == [("some/path.pt", "take5", 3)] and agent.name == "testprefix:some/path.pt"
    assert "testprefix:..." in known_agents("take5")
    with pytest.raises(ValueError, match="prefix"):
        register_prefix("ismcts", factory)


def test_information_set_hides_the_engine() -> None:
    game = games.get_game("take5")
    engine = game.new_engine(game.make_config(), 1)
    info = InformationSet(engine, 2)
    assert not info.is_acting() and not info.legal_mask().any()
    assert np.array_equal(info.observation(), game.observe(engine, 2))
    world = info.sample(np.random.default_rng(0))
    assert world is not engine and world.state.seed != engine.state.seed
    assert np.array_equal(world.state.hands[2], engine.state.hands[2])
    with pytest.raises(ValueError, match="seat"):
        InformationSet(engine, 4)
    with pytest.raises(ValueError, match="engine"):
        InformationSet(object(), 0)


def test_kit_slots_are_checked_and_read_by_the_learner() -> None:
    """A kit's networks, JAX heuristics and guided search are declared as data (bad forms are clear errors);
    the learner's architecture table and observation adaptation read them."""
    from fiveplay_env.agents.kit import AgentKit

    for kw, match in (({"networks": {"big": "no_colon"}}, "AgentKit.networks"),
                      ({"networks": {"mlp": "m:C"}}, "'mlp' is the generic network"),
                      ({"jax_heuristics": {"x": ""}}, "AgentKit.jax_heuristics"),
                      ({"guided": "sims=5"}, "AgentKit.guided")):
        with pytest.raises(ValueError, match=match):
            AgentKit(game="toybid", **kw)
    pytest.importorskip("torch")
    from fiveplay_env.agents.learned import defaults, nets

    assert list(nets.ARCHS) == ["mlp", *sorted(a for g in games.GAMES for a in games.kit(g).networks)]
    assert nets.ARCHS["take5"].__module__ == "fiveplay_env.agents.take5.nets" and nets.Take5ActorCritic is nets.ARCHS["take5"]
    with pytest.raises(ValueError, match=r"arch: expected one of \['mlp'"):
        nets.build_model("chess", {"obs_dim": 3, "num_actions": 2})
    obs = np.zeros((2, 7), np.float32)
    assert defaults.adapt_observation("toybid", obs, 2, 5) is obs  # no adapter: as it is
