"""The search agent sees only what its player may see, keeps its budget, and finds obvious moves."""
from __future__ import annotations

import time

import numpy as np
import pytest

from fiveplay_env.agents import games
from fiveplay_env.agents.registry import make_agent
from fiveplay_env.agents.arena import play_game
from fiveplay_env.five_alive.determinize import ALL_KINDS
from fiveplay_env.agents.five_alive.rollouts import attacker_excludes
from fiveplay_env.agents.base import InformationSet
from fiveplay_env.agents.search import SearchParams
from fiveplay_env.five_alive import engine as faeng
from fiveplay_env.take5 import engine as t5eng
from fiveplay_env.take5.config import Take5Config


def _positions(game_name: str, config: object, count: int, seed: int) -> list[tuple[object, int]]:
    """(engine, acting player) pairs with a real choice, from random play."""
    game = games.get_game(game_name)
    rng = np.random.default_rng(seed)
    out = []
    g = 0
    while len(out) < count:
        engine = game.new_engine(config, seed * 1000 + g)
        g += 1
        while not engine.is_over and len(out) < count:
            mask = engine.legal_mask()
            legal = np.flatnonzero(mask)
            drafting = game_name == "take5" and engine.state.phase == t5eng.DRAFT  # nothing hidden then
            if len(legal) > 1 and not drafting and rng.random() < 0.15:
                out.append((engine.clone(), engine.current_player))
            engine.step(int(legal[rng.integers(len(legal))]))
    return out


def _other_world(game_name: str, engine: object, player: int, rng: np.random.Generator) -> object:
    """The same position with every card ``player`` cannot see re-dealt and another game seed."""
    if game_name == "take5":
        state = t5eng.sample_world(engine.config, engine.state, player, rng)
        state.seed = int(rng.integers(2**63))
        return t5eng.Take5Engine(engine.config, state=state)
    state = faeng.sample_world(engine.config, engine.state, player, rng)
    return faeng.FiveAliveEngine(engine.config, state=state)


def _decide(agent_name: str, game_name: str, engine: object, player: int, seed: int) -> int:
    game = games.get_game(game_name)
    agent = make_agent(agent_name, game_name, seed=seed)
    agent.observe_engine(engine, player)
    return agent.act(game.observe(engine, player), engine.legal_mask())


def _guided(game_name: str) -> tuple[str, ...]:
    """Policy-guided search settings (pruning to the policy's top k; PUCT priors; rollouts played by the
    policy, in Take 5 also cut off by its value head), when torch is there. The first prunes to top 3."""
    try:
        import torch  # noqa: F401
    except ImportError:  # pragma: no cover - the train extra is part of make test
        return ()
    prior = "take5-round-4p" if game_name == "take5" else "five-alive-4p"
    names = (f"ismcts:sims=24,prior={prior},topk=3", f"ismcts:sims=24,alloc=ucb,prior={prior},cpuct=2",
             f"ismcts:sims=24,prior={prior},rollout=policy", f"ismcts:sims=24,prior={prior},rollout=policy,model=none")
    names += (f"ismcts:sims=24,prior={prior},rollout=policy,depth=1,value=1,topk=3",
              f"ismcts:sims=24,alloc=ucb,prior={prior},rollout=policy,depth=2,value=1,eps=0")
    return names


CONFIGS = [
    ("take5", Take5Config(mode="round")),
    ("take5", Take5Config(professional=True, draft=True, mode="round", num_players=3)),
    ("five_alive", games.get_game("five_alive").make_config({"num_players": 4})),
    ("five_alive", games.get_game("five_alive").make_config({"num_players": 4, "bomb_zero_optional": True})),
]


@pytest.mark.parametrize("game_name,config", CONFIGS, ids=["take5", "take5-draft", "five_alive", "five_alive-bombchoice"])
def test_search_never_reads_hidden_state(game_name: str, config: object) -> None:
    """Two worlds differing only in cards the player cannot see: same agent seed, same decision."""
    game = games.get_game(game_name)
    differed = 0
    for i, (engine, player) in enumerate(_positions(game_name, config, 12, seed=5)):
        rng = np.random.default_rng(i)
        other = _other_world(game_name, engine, player, rng)
        assert np.array_equal(game.observe(other, player), game.observe(engine, player))
        assert np.array_equal(other.legal_mask(), engine.legal_mask())
        if game_name == "take5":
            differed += not np.array_equal(other.state.hands, engine.state.hands) or other.state.pending != engine.state.pending
        else:
            differed += other.state.hands != engine.state.hands or other.state.draw != engine.state.draw
        # The determinizations themselves are identical, not only the decision.
        from fiveplay_env.agents.base import InformationSet

        wa = InformationSet(engine, player).sample(np.random.default_rng(99)).state
        wb = InformationSet(other, player).sample(np.random.default_rng(99)).state
        if game_name == "take5":
            assert np.array_equal(wa.hands, wb.hands) and wa.set_aside == wb.set_aside and wa.pending == wb.pending
        else:
            assert wa.hands == wb.hands and wa.draw == wb.draw
            # With beliefs from an opponent model (public plays read as a heuristic's), too.
            facts = {(player + 1) % config.num_players: ALL_KINDS & ~0b11100000}
            fa = InformationSet(engine, player).sample(np.random.default_rng(5), facts).state
            fb = InformationSet(other, player).sample(np.random.default_rng(5), facts).state
            assert fa.hands == fb.hands and fa.draw == fb.draw
        assert wa.seed == wb.seed
        net = ("ismcts:sims=40,rollout=net",) if game_name == "take5" else ()  # the compiled rollout network
        for name in ("ismcts:sims=40", "ismcts:sims=40,alloc=ucb", *net, *_guided(game_name)):
            assert _decide(name, game_name, engine, player, seed=i) == _decide(name, game_name, other, player, seed=i)
    # The worlds really differed in hidden cards (after a draft only this trick's choices are hidden).
    assert differed >= (4 if getattr(config, "draft", False) else 8)


def test_search_state_is_not_touched() -> None:
    game = games.get_game("take5")
    engine, player = _positions("take5", Take5Config(), 1, seed=2)[0]
    before = engine.state.clone()
    _decide("ismcts:sims=50", "take5", engine, player, seed=0)
    assert np.array_equal(before.hands, engine.state.hands) and before.rows == engine.state.rows
    assert before.counter == engine.state.counter and before.pending == engine.state.pending
    assert game.observe(engine, player).shape == (860,)


def test_time_budget_is_kept() -> None:
    for game_name, config in (CONFIGS[0], CONFIGS[2]):
        for engine, player in _positions(game_name, config, 3, seed=7):
            t0 = time.perf_counter()
            _decide("ismcts:time=0.03", game_name, engine, player, seed=1)
            assert time.perf_counter() - t0 < 0.03 * 3 + 0.05


def test_search_takes_an_obvious_win_of_points() -> None:
    """A card that would be the 6th card of a 7-bull-head row (55 on it) is avoided; a free one is played."""
    cfg = Take5Config(num_players=2, mode="round")
    # Row 0 has 5 cards including 55 (7 heads): 40 41 42 43 55 -> playing 60 takes 11+ heads.
    state = t5eng.from_position(cfg, hands=[[60, 90], [20, 21]], rows=[[40, 41, 42, 43, 55], [70], [80], [85]])
    engine = t5eng.Take5Engine(cfg, state=state)
    assert _decide("ismcts:sims=60", "take5", engine, 0, seed=0) == 89  # card 90 (id 89)


def test_params_validation() -> None:
    assert SearchParams().sims == 200
    assert SearchParams.parse("time=0.1").time == 0.1
    with pytest.raises(ValueError, match="alloc"):
        SearchParams(alloc="mcts")
    with pytest.raises(ValueError, match="eps"):
        SearchParams(eps=2.0)
    with pytest.raises(ValueError, match="time"):
        SearchParams(time=-1.0)


@pytest.mark.parametrize("game_name,config", CONFIGS, ids=["take5", "take5-draft", "five_alive", "five_alive-bombchoice"])
def test_guided_search_plays_legal_moves(game_name: str, config: object) -> None:
    """Whole games with policy-guided searchers in every seat: each move is legal; top-k keeps to k."""
    names = _guided(game_name)
    if not names:
        pytest.skip("policy guidance needs torch")
    game = games.get_game(game_name)
    for g, first in enumerate(range(0, len(names), config.num_players)):
        seats = [names[(first + q) % len(names)] for q in range(config.num_players)]
        agents = [make_agent(nm.replace("sims=24", "sims=8"), game_name, seed=q) for q, nm in enumerate(seats)]
        engine = game.new_engine(config, 3 + g)
        decisions = 0
        while not engine.is_over and decisions < 120:
            p = engine.current_player
            mask = engine.legal_mask()
            agents[p].observe_engine(engine, p)
            a = agents[p].act(game.observe(engine, p), mask)
            assert mask[a]
            if "topk=3" in seats[p] and mask.sum() > 3:
                assert agents[p].last_stats["actions"] == 3  # searched only the policy's top 3
            engine.step(int(a))
            decisions += 1
        assert decisions > 10


def test_guided_params_validation() -> None:
    p = SearchParams.parse("sims=50,prior=take5-game-4p,topk=3")
    assert p.prior == "pretrained:take5-game-4p" and p.topk == 3
    assert SearchParams.parse("alloc=ucb,prior=ckpt:runs/x,cpuct=1.5").prior == "ckpt:runs/x"
    with pytest.raises(ValueError, match="prior"):
        SearchParams(topk=3)
    with pytest.raises(ValueError, match="alloc=ucb"):
        SearchParams(prior="take5-game-4p", cpuct=1.0)
    with pytest.raises(ValueError, match="topk"):
        SearchParams(prior="take5-game-4p", topk=-1)
    with pytest.raises(ValueError, match="rollout=policy: expected a prior"):
        SearchParams(rollout="policy")
    with pytest.raises(ValueError, match="rollout: expected 'heuristic', 'strong', 'random', 'policy' or 'net'"):
        SearchParams.parse("prior=take5-game-4p,rollout=network")
    with pytest.raises(ValueError, match="value=1: expected rollout=policy and a depth"):
        SearchParams.parse("prior=take5-game-4p,rollout=policy,value=1")  # no depth
    with pytest.raises(ValueError, match="value=1: expected rollout=policy"):
        SearchParams.parse("prior=take5-game-4p,depth=2,value=1")  # heuristic rollouts
    with pytest.raises(ValueError, match="value: expected 0 or 1"):
        SearchParams.parse("prior=take5-game-4p,rollout=policy,depth=2,value=0.5")
    with pytest.raises(ValueError, match="value: expected a number"):
        SearchParams.parse("prior=take5-game-4p,rollout=policy,depth=2,value=yes")
    assert make_agent("ismcts:prior=five-alive-4p,rollout=policy,depth=2,value=1", "five_alive", seed=0).params.value
    with pytest.raises(ValueError, match="pretrained"):  # a Take 5 policy cannot play 5 Alive's rollouts
        agent = make_agent("ismcts:sims=5,prior=take5-game-4p,rollout=policy", "five_alive", seed=0)
        engine, player = _positions("five_alive", CONFIGS[2][1], 1, seed=2)[0]
        agent.observe_engine(engine, player)
        agent.act(games.get_game("five_alive").observe(engine, player), engine.legal_mask())
    # The options round-trip through the agent name parser.
    agent = make_agent("ismcts:sims=30,prior=take5-game-4p,rollout=policy,depth=2,value=1,eps=0.05", "take5", seed=0)
    p = agent.params
    assert (p.sims, p.prior, p.rollout, p.depth, p.value, p.eps) == (30, "pretrained:take5-game-4p", "policy", 2, True, 0.05)
    assert not make_agent("ismcts:prior=take5-game-4p,rollout=policy", "take5", seed=0).params.value
    with pytest.raises(ValueError, match="learned policy"):
        agent = make_agent("ismcts:sims=5,prior=random:,topk=2", "take5", seed=0)
        engine, player = _positions("take5", Take5Config(), 1, seed=2)[0]
        agent.observe_engine(engine, player)
        agent.act(games.get_game("take5").observe(engine, player), engine.legal_mask())


def test_five_alive_opponent_model_beliefs_are_exact_and_honoured() -> None:
    """Against five-alive-attacker opponents, the beliefs read from their public plays never exclude a
    card they hold, and sampled worlds honour them; against other opponents nothing breaks."""
    game = games.get_game("five_alive")
    config = game.make_config({"num_players": 4})
    checked = honoured = 0
    for g in range(8):
        engine = game.new_engine(config, 60 + g)  # seeds that never need the sampler fallback
        search = make_agent("ismcts:sims=4", "five_alive", seed=g)
        bots = [make_agent("five-alive-attacker", "five_alive", seed=s) for s in range(4)]
        search.observe_engine(engine, 0)
        while not engine.is_over:
            p = engine.current_player
            engine.step(bots[p].act(game.observe(engine, p), engine.legal_mask()))
            search.observe_engine(engine, 0)
            facts = search._memory.get("facts", {})
            for q, allowed in facts.items():
                checked += 1
                assert all((allowed >> k) & 1 for k in range(18) if engine.state.hands[q][k]), (q, allowed)
            if facts and not engine.is_over and len(facts) >= 2:
                world = search._info.sample(np.random.default_rng(g), facts).state
                for q, allowed in facts.items():
                    assert all((allowed >> k) & 1 for k in range(18) if world.hands[q][k])
                    honoured += 1
    assert checked > 500 and honoured > 50
    assert attacker_excludes(3, 10) == 0b11110000  # a 3 at T=10: no 4..7
    assert attacker_excludes(0, 18) == 0b1110  # a 0 at T=18: no 1..3
    mixed = ["ismcts:sims=6", "random", "five-alive-lowball", "five-alive-squeezer"]
    for g in range(4):
        rec = play_game(game, config, [make_agent(nm, "five_alive", seed=g) for nm in mixed], g)
        assert sum(rec.results["win"]) == 1


class _LowestFirst:
    """A stand-in policy for the rollouts: the lowest legal action (the lowest card, the first row); its
    value is 1 for seat ``favoured`` (read from the observation's seat one-hot) and 0 for the others."""

    points = 10.0

    def __init__(self, num_players: int, favoured: int = -1) -> None:
        from fiveplay_env.take5 import observation as t5obs

        self.seat = slice(t5obs.SCORES + 2 * num_players, t5obs.SCORES + 3 * num_players)
        self.favoured = favoured
        self.rows = 0

    def evaluate(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.rows += len(obs)
        logits = np.where(masks != 0, -np.arange(masks.shape[1], dtype=np.float64), -1e9)
        return logits, (obs[:, self.seat].argmax(axis=1) == self.favoured).astype(np.float64)


def test_take5_policy_rollouts_play_the_policy_and_add_its_value_at_the_depth_limit() -> None:
    """Batched policy rollouts equal a plain replay in which every player follows the policy, and with
    value=1 the leaf adds each player's value head estimate (in points) to its gains."""
    from fiveplay_env.agents.take5 import rollouts as t5r

    cfg = Take5Config(mode="game")
    for engine, player in _positions("take5", cfg, 6, seed=11):
        if engine.state.phase != t5eng.PLAY:
            continue
        n = cfg.num_players
        world = InformationSet(engine, player).sample(np.random.default_rng(0))
        legal = np.flatnonzero(world.legal_mask())[:3].tolist()
        params = SearchParams(prior="take5-game-4p", rollout="policy", eps=0.0, model="none")
        got = t5r.simulate_policy([(world.clone(), a, [0.5], None) for a in legal], player, params, _LowestFirst(n))
        for a, v in zip(legal, got):  # the replay: everyone plays its lowest card, row choices take row 0
            e = world.clone()
            gains = [0.0] * n
            rw = t5eng.step(t5r._round_config(cfg), e.state, a)
            while True:
                gains = [x + y for x, y in zip(gains, rw)]
                s = e.state
                if s.phase == t5eng.OVER or s.round != engine.state.round:
                    break
                act = int(np.flatnonzero(s.hands[s.current])[0]) if s.phase == t5eng.PLAY else t5eng.ACTION_ROW0
                rw = t5eng.step(t5r._round_config(cfg), s, act)
            assert v == pytest.approx(t5r.score(cfg, e.state, gains, player, params))
        # The value leaf: cut after one trick, every player's value (here 1 for the searcher only) is added.
        cut = SearchParams(prior="take5-game-4p", rollout="policy", eps=0.0, model="none", depth=1)
        leaf = SearchParams(prior="take5-game-4p", rollout="policy", eps=0.0, model="none", depth=1, value=1)
        if engine.state.trick >= 9:
            continue
        plain = t5r.simulate_policy([(world.clone(), a, [0.5], None) for a in legal], player, cut, _LowestFirst(n))
        guide = _LowestFirst(n, favoured=player)
        valued = t5r.simulate_policy([(world.clone(), a, [0.5], None) for a in legal], player, leaf, guide)
        assert valued == pytest.approx([v + guide.points for v in plain])


class _FiveAliveLowest:
    """A stand-in 5 Alive policy: the lowest legal action; its value is ``base`` plus a tenth of the
    observer's own hand size (read from the observation), so a test can tell where a leaf was taken."""

    points = 2.0

    def __init__(self, num_players: int, base: float = 0.25) -> None:
        from fiveplay_env.five_alive import observation as faob

        self.size_col = faob.SEATS + 2 * num_players  # relative seat 0's hand size
        self.base = base
        self.rows = 0

    def evaluate(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.rows += len(obs)
        logits = np.where(masks != 0, -np.arange(masks.shape[1], dtype=np.float64), -1e9)
        return logits, self.base + obs[:, self.size_col].astype(np.float64) / 10.0


def test_five_alive_value_leaf_is_the_value_head_at_the_searchers_next_decision() -> None:
    """5 Alive ``value=1,depth=D``: each rollout is played by the policy (the rule's Bomb answers) across
    round ends until the searcher is about to make its D-th next decision, and is worth ``points`` times
    the value head there, on the searcher's own observation; a decided result counts +-points."""
    from fiveplay_env.agents.five_alive import rollouts as far
    from fiveplay_env.five_alive import observation as faob

    game = games.get_game("five_alive")
    config = game.make_config({"num_players": 4})
    checked = decided = crossed = 0
    for engine, player in _positions("five_alive", config, 10, seed=21):
        if engine.state.phase != faeng.PLAY:
            continue
        world = InformationSet(engine, player).sample(np.random.default_rng(3))
        legal = np.flatnonzero(world.legal_mask()).tolist()[:4]
        for depth in (1, 3, 15):
            params = SearchParams(prior="five-alive-4p", rollout="policy", eps=0.0, depth=depth, value=1)
            guide = _FiveAliveLowest(config.num_players)
            got = far.simulate_policy([(world.clone(), a, [0.5], None) for a in legal], player, params, guide)
            for a, v in zip(legal, got):  # the replay: everyone plays its lowest legal action
                e = world.clone()
                s = e.state
                r0 = s.round
                faeng.step(config, s, a)
                left = depth
                while True:
                    if s.phase == faeng.BOMB_ANSWER:
                        faeng.step(config, s, faeng.N0 if s.hands[s.current][faeng.N0] else faeng.BUST)
                        continue
                    if s.phase == faeng.OVER or s.result[player]:
                        want = guide.points * s.result[player]
                        decided += 1
                        break
                    if s.current == player:
                        left -= 1
                        if not left:
                            o = faob.observe(config, s, player)
                            want = guide.points * (guide.base + o[guide.size_col] / 10.0)
                            crossed += s.round != r0
                            break
                    faeng.step(config, s, int(np.flatnonzero(faeng.legal_mask(s))[0]))
                assert v == pytest.approx(want)
                checked += 1
    assert checked > 40 and crossed > 0


def engine_choices(engine: object) -> int:
    return int(np.count_nonzero(engine.legal_mask()))


def _search_agents(game_name: str) -> list[object]:
    """One of each search agent kind: ours, the best response by search, and OpenSpiel's (if installed)."""
    from fiveplay_env.agents.random_agent import RandomAgent
    from fiveplay_env.agents.best_response import BestResponseSearch

    out = [make_agent("ismcts:sims=4", game_name, seed=0),
           BestResponseSearch(lambda sd: RandomAgent(sd), game_name, seed=0, sims=4)]
    try:
        import pyspiel  # noqa: F401
    except ImportError:  # pragma: no cover - the openspiel extra is part of make test
        return out
    return out + [make_agent("openspiel:ismcts:sims=4", game_name, seed=0)]


@pytest.mark.parametrize("game_name,config", CONFIGS[::2], ids=["take5", "five_alive"])
def test_every_search_agent_takes_one_information_set_per_decision(game_name: str, config: object) -> None:
    """The shared preamble (fiveplay_env.agents.base.SearchAgentBase.take_information_set): a decision without
    observe_engine, or with a mask that is not the engine's, is refused naming the agent; the set is used
    up by the decision; a single legal action needs no set."""
    game = games.get_game(game_name)
    engine, player = next((e, p) for e, p in _positions(game_name, config, 20, seed=3)
                          if engine_choices(e) >= 3)  # still a choice with one legal action taken away
    obs, mask = game.observe(engine, player), engine.legal_mask()
    for agent in _search_agents(game_name):
        with pytest.raises(ValueError, match=rf"^{agent.label}: expected observe_engine\(engine, player\) before act"):
            agent.act(obs, mask)
        agent.observe_engine(engine, player)
        other = mask.copy()
        other[np.flatnonzero(mask)[0]] = 0
        with pytest.raises(ValueError, match=rf"^{agent.label}: the action mask does not match"):
            agent.act(obs, other)
        with pytest.raises(ValueError, match="expected observe_engine"):  # the refused decision used it up
            agent.act(obs, mask)
        agent.observe_engine(engine, player)
        assert mask[agent.act(obs, mask)] == 1
        with pytest.raises(ValueError, match="expected observe_engine"):
            agent.act(obs, mask)
        only = np.zeros_like(mask)
        only[np.flatnonzero(mask)[-1]] = 1
        assert agent.act(obs, only) == int(np.flatnonzero(mask)[-1])


def test_the_guided_searches_and_the_game_are_the_kits() -> None:
    """``GUIDED`` is a live view of the kits' guided searches (a game without one, the toy game, is absent),
    and a search agent must be told its game."""
    from fiveplay_env.agents.openspiel_agent import OpenSpielAgent
    from fiveplay_env.agents.search import GUIDED, SearchAgent, guided_prior

    assert dict(GUIDED) == {name: games.kit(name).guided for name in ("five_alive", "take5")}
    assert "toybid" in games.GAMES and "toybid" not in GUIDED and GUIDED.get("toybid") is None
    assert guided_prior(GUIDED["take5"]) == "take5-game-4p"
    for cls in (SearchAgent, OpenSpielAgent):
        with pytest.raises(ValueError, match="game: expected"):
            cls(0)
    assert SearchAgent(0, "toybid").game == "toybid"
