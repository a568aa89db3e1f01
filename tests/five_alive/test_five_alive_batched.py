"""Batched 5 Alive engine == reference engine, step by step, for every player count, variant and option.

Each case runs B games at once in ``BatchedFiveAlive`` (slot i seeded ``derive(base, i)``, every slot a
different seed) next to B reference games ``engine.new_game(config, seed)``, feeds both the same random
legal actions (drawn from the batched mask, which must equal the reference mask) and compares at every
step: the acting player, the mask, the acting player's observation, and the whole true state (every
hand, the draw pile in drawing order, the discard pile and its top card, T, the direction, lives,
survivors, results, rounds, the phase and the random-event counter); after every step the rewards of
every player, termination and the finished game's outcome. Finished games are replaced in their slot
(same-step autoreset) and the new game is compared with a fresh reference game of its seed, so
autoreset is covered by every case. A difference names the seed, the step of that game and the field.
Each case also checks that the rare events it was built for (reshuffles, skipped draws, Bomb answers,
eliminations in a Bomb, sudden-death ties, ...) happened.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest

from fiveplay_env import vector
from fiveplay_env.core import seeding
from fiveplay_env.core.errors import IllegalActionError
from fiveplay_env.five_alive import batched as fb
from fiveplay_env.five_alive import engine as eng
from fiveplay_env.five_alive.batched import BatchedFiveAlive, make_batched
from fiveplay_env.five_alive.config import FiveAliveConfig
from fiveplay_env.five_alive.observation import observation_size, observe
from fiveplay_env.five_alive.state import (
    BOMB, BUST, DRAW1, DRAW2, N0, NUM_ACTIONS, OVER, REDEAL,
)
from fiveplay_env.vector import random_actions
from tests.batched_replay import BatchedReplay, check_sampled_slots


def _events(cfg: FiveAliveConfig, s: Any, before: dict[str, Any]) -> list[str]:
    """The rare events of the step just taken in reference state ``s`` (``before``: facts from before it)."""
    ev: list[str] = []
    a, answer = s.ev_action, s.ev_answer
    over = s.phase == OVER
    bomb_step = answer or a == BOMB
    if s.ev_dealer >= 0:
        ev.append("round")
    if s.ev_elim:
        ev.append("elim")
        if bomb_step:
            ev.append("bomb_elim")
    if s.ev_reshuffled:
        ev.append("reshuffle")
    if not answer and a in (DRAW1, DRAW2) and len(s.ev_drawn) < (1 + (a == DRAW2)) * (before["alive"] - 1):
        ev.append("draw_short")
    if not answer and a == REDEAL and before["hand"] > 1:
        ev.append("redeal")
    if answer:
        ev.append("answer0" if a == N0 else "answer_life")
    if not answer and a == BOMB and before["hand"] == 1:
        ev.append("last_bomb")
    if len(s.ev_out) > 1:
        ev.append("multi_out")
    if not answer and a == BUST and before["choices"] > 1:
        ev.append("voluntary")
    if over and eng.truncated(s):
        ev.append("truncated")
    if over:
        ev.append("over")
        if bomb_step:
            ev.append("bomb_over")
        if a == BUST and not answer:
            ev.append("bust_over")
        if cfg.variant == "sudden_death":
            lives = [v for v in s.lives if v > 0]
            if lives.count(max(lives)) > 1:
                ev.append("sd_tie")
    return ev


class Replay(BatchedReplay):
    """5 Alive's twins (``tests.batched_replay``): also the whole true state, the outcome, and a count
    of the rare events that happened."""

    engine = eng
    batched_cls = BatchedFiveAlive
    observe = staticmethod(observe)
    OVER = OVER

    def __init__(self, cfg: FiveAliveConfig, batch: int, base: int) -> None:
        super().__init__(cfg, batch, base)
        self.events: Counter[str] = Counter()

    def fields(self) -> dict[str, Any]:
        env = self.env
        return {"hands": env.hands(), "discard": env.discard(), "top": env.top(), "total": env.total,
                "direction": env.direction, "lives": env.lives, "alive": env.alive, "result": env.result,
                "phase": env.phase, "round": env.round, "counter": env.counter, "reshuffles": env.reshuffles,
                "steps": env.steps}

    def compare(self, i: int, s: Any, f: dict[str, Any]) -> None:
        for field, got, exp in (
            ("hands", f["hands"][i].tolist(), s.hands),
            ("draw pile", self.env.draw_pile(i), s.draw[::-1]),
            ("discard", f["discard"][i].tolist(), s.discard),
            ("top", f["top"][i], s.top),
            ("total", f["total"][i], s.total),
            ("direction", f["direction"][i], s.direction),
            ("lives", f["lives"][i].tolist(), s.lives),
            ("alive", f["alive"][i].tolist(), s.alive),
            ("result", f["result"][i].tolist(), s.result),
            ("phase", f["phase"][i], s.phase),
            ("round", f["round"][i], s.round),
            ("counter", f["counter"][i], s.counter),
            ("reshuffles", f["reshuffles"][i], s.reshuffles),
            ("steps", f["steps"][i], s.turns),
        ):
            if got != exp:
                self.fail(i, field, got, exp)

    def before_step(self, i: int, s: Any, mask: np.ndarray) -> dict[str, int]:
        return {"alive": s.n_alive, "hand": s.hand_size[s.current], "choices": int(mask[i].sum())}

    def after_step(self, i: int, s: Any, before: dict[str, int]) -> None:
        self.events.update(_events(self.cfg, s, before))

    def compare_outcome(self, i: int, s: Any) -> None:
        env, cfg = self.env, self.cfg
        if env.final_lives[i].tolist() != s.lives:
            self.fail(i, "final_lives", env.final_lives[i].tolist(), s.lives)
        if env.final_result[i].tolist() != s.result:
            self.fail(i, "final_result", env.final_result[i].tolist(), s.result)
        share = 1.0 if cfg.variant == "teams" else 1.0 / max(len(s.winners), 1)  # (truncated: no winner)
        win = [np.float32(share) if q in s.winners else 0.0 for q in range(cfg.num_players)]
        if env.final_win[i].tolist() != win:
            self.fail(i, "final_win", env.final_win[i].tolist(), win)
        if bool(env.truncated[i]) != eng.truncated(s) or bool(env.info()["truncated"][i]) != eng.truncated(s):
            self.fail(i, "truncated", bool(env.truncated[i]), eng.truncated(s))


# Decks that make rare events common: many Bombs and few 0s (eliminations and game ends inside a Bomb),
# many Draw 2 (empty draw piles), a deck of exactly 10 cards per player (no draw pile at the deal).
BOMBS = {"bomb": 10, "n0": 3, "draw2": 4}
DRAWS = {"draw2": 12, "draw1": 6, "redeal": 4}
ZEROS = {"n0": 40, "bomb": 12}  # 0s discarded to Bombs as last cards: several players go out at once
ONLY_DRAWS = {k: 0 for k in ("n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "reverse", "eq21", "skip", "pass",
                              "eq0", "eq10", "redeal", "bomb")} | {"draw1": 20, "draw2": 30}  # ends by max_reshuffles
WORST = {k: 0 for k in ONLY_DRAWS} | {"draw1": 255}  # with max_reshuffles=1000: games of about 2 million decisions
TIGHT = (7, 7, 6, 6, 6, 3, 2, 1, 2, 2, 1, 1, 1, 1, 0, 3, 0, 1)  # 50 cards for 5 players
BIG = {"n0": 120, "n1": 40, "draw2": 20, "bomb": 10}  # 248 cards: counts near the uint8 limits
NUMBERS = (8,) * 8 + (0,) * 10  # no wild card: busts everywhere


def _cases() -> list[tuple[str, dict[str, Any], int, int, bool, set[str]]]:
    """(id, config, batch size, games to finish, slow, events the case must produce)."""
    base = {"round", "elim", "over"}
    return [
        ("n2-standard", dict(num_players=2), 16, 80, False, base | {"redeal", "bust_over", "bomb_over"}),
        ("n4-standard", dict(num_players=4), 16, 64, False, base | {"redeal", "bomb_elim", "bust_over"}),
        ("n6-standard", dict(num_players=6), 16, 48, False, base | {"reshuffle", "redeal", "draw_short"}),
        ("n2-sudden-shared", dict(num_players=2, variant="sudden_death", final_tiebreak="shared"), 16, 40, False,
         base),
        ("n4-sudden-wild-voluntary", dict(num_players=4, variant="sudden_death", tiebreak_wild_value=3,
                                          allow_voluntary_bust=True), 16, 40, False, base | {"sd_tie", "voluntary"}),
        ("n6-sudden", dict(num_players=6, variant="sudden_death"), 16, 24, False, base | {"sd_tie"}),
        ("n4-teams-optional", dict(num_players=4, variant="teams", bomb_zero_optional=True), 16, 48, False,
         {"round", "over", "answer0", "answer_life", "bomb_over"}),
        ("n6-teams-dealer-keep", dict(num_players=6, variant="teams", new_round_start="dealer",
                                      new_round_direction="keep"), 16, 32, False, {"round", "over", "reshuffle"}),
        ("n4-teams-zeros", dict(num_players=4, variant="teams", deck_counts=ZEROS), 16, 40, False,
         {"round", "over", "bomb_over"}),  # several going out at once in teams: test_five_alive_audit
        ("n6-zeros", dict(num_players=6, deck_counts=ZEROS), 16, 24, False, base | {"multi_out", "bomb_elim"}),
        ("n2-optional-lives", dict(num_players=2, bomb_zero_optional=True, reward="lives"), 16, 40, False,
         base | {"answer0", "answer_life"}),
        ("n6-optional-both", dict(num_players=6, bomb_zero_optional=True, reward="win_loss+lives"), 16, 24, False,
         base | {"answer0", "answer_life"}),
        ("n4-bombs", dict(num_players=4, deck_counts=BOMBS), 16, 40, False,
         base | {"bomb_elim", "bomb_over", "last_bomb"}),
        ("n4-bombs-optional-unresolved", dict(num_players=4, deck_counts=BOMBS, bomb_zero_optional=True,
                                              bomb_last_card_resolves=False), 16, 32, False,
         base | {"bomb_elim", "bomb_over", "answer0", "answer_life", "last_bomb"}),
        ("n4-roundrobin-skip", dict(num_players=4, draw_order="round_robin", empty_draw_pile="skip",
                                    deck_counts=DRAWS), 16, 32, False, base | {"draw_short", "redeal"}),
        ("n6-draws-reshuffle", dict(num_players=6, deck_counts=DRAWS), 16, 24, False,
         base | {"reshuffle", "draw_short", "redeal"}),
        ("n3-only-draws-capped", dict(num_players=3, deck_counts=ONLY_DRAWS, max_reshuffles=3), 16, 24, False,
         base | {"reshuffle", "draw_short"}),
        ("n3-seat0-unresolved", dict(num_players=3, first_player="seat0", bomb_last_card_resolves=False,
                                     reward="win_loss+lives"), 16, 32, False, base | {"last_bomb"}),
        ("n5-tight-deck", dict(num_players=5, deck_counts=TIGHT), 16, 24, False, base | {"reshuffle", "draw_short"}),
        ("n6-big-deck", dict(num_players=6, deck_counts=BIG), 8, 16, True, base | {"reshuffle", "draw_short"}),
        ("n6-teams-numbers-only", dict(num_players=6, variant="teams", deck_counts=NUMBERS), 8, 24, False,
         {"round", "over", "bust_over"}),
        # max_steps: games cut short, mid-round and mid-Bomb, next to games that end by the rules
        ("n4-max-steps", dict(num_players=4, max_steps=120, bomb_zero_optional=True), 16, 64, False,
         base | {"truncated", "answer0"}),
        ("n2-worst-deck-truncated", dict(num_players=2, deck_counts=WORST, max_reshuffles=1000, max_steps=1500), 4, 8,
         False, {"truncated", "reshuffle"}),
        # longer runs
        ("n4-standard-long", dict(num_players=4), 64, 512, True, base | {"multi_out", "redeal", "bomb_over"}),
        ("n6-teams-optional-long", dict(num_players=6, variant="teams", bomb_zero_optional=True,
                                        draw_order="round_robin"), 32, 192, True,
         {"round", "over", "answer0", "answer_life", "draw_short"}),
        ("n6-sudden-zeros-long", dict(num_players=6, variant="sudden_death", deck_counts=ZEROS,
                                      final_tiebreak="shared"), 32, 192, True,
         base | {"bomb_over", "sd_tie"}),
        ("n2-sudden-bombs-long", dict(num_players=2, variant="sudden_death", deck_counts=BOMBS), 32, 256, True,
         base | {"bomb_over", "last_bomb"}),
    ]


CASES = _cases()


def test_the_cases_cover_500_seeds_and_every_variant():
    fast = [(FiveAliveConfig(**kw), games) for _, kw, _, games, slow, _ in CASES if not slow]
    assert sum(games for _, games in fast) >= 500  # without the slow cases
    cfgs = [c for c, _ in fast]
    assert {c.num_players for c in cfgs} >= {2, 4, 6}
    for n in (2, 4, 6):
        assert {c.variant for c in cfgs if c.num_players == n} >= ({"standard", "sudden_death", "teams"} if n > 2
                                                                   else {"standard", "sudden_death"})
    for field, default in ((f, getattr(FiveAliveConfig(), f)) for f in (
            "first_player", "allow_voluntary_bust", "bomb_zero_optional", "deck_counts", "bomb_last_card_resolves",
            "draw_order", "empty_draw_pile", "new_round_start", "new_round_direction", "tiebreak_wild_value",
            "final_tiebreak", "max_reshuffles", "max_steps")):
        assert any(getattr(c, field) != default for c in cfgs), f"no case changes {field}"
    assert {c.reward for c in cfgs} == {"win_loss", "lives", "win_loss+lives"}


@pytest.mark.parametrize(
    "kw, batch, games, expect",
    [pytest.param(kw, b, g, e, id=i, marks=[pytest.mark.slow] if slow else []) for i, kw, b, g, slow, e in CASES],
)
def test_batched_equals_reference_step_by_step(kw, batch, games, expect):
    cfg = FiveAliveConfig(**kw)
    rep = Replay(cfg, batch, base=2000 + 7 * cfg.num_players)
    rep.run(games, rng_seed=cfg.num_players)
    assert len(rep.seeds_seen) >= games  # every finished game had its own seed
    missing = expect - set(rep.events)
    assert not missing, f"the case never produced {sorted(missing)} (events seen: {dict(rep.events)})"


# --- hand-built positions: low lives, small hands, rare cases at every turn -------------------------------

def random_position(cfg: FiveAliveConfig, rng: np.random.Generator, bomb_setup: bool = False) -> Any:
    """A random position of ``cfg`` in the middle of a round: 1 or 2 lives (standard: some seats already
    eliminated), 1 to 3 cards per hand, a draw pile of 0 to 4 cards, the rest of the deck in the
    discard pile (its last card on top), a random T, direction, acting seat, seed and counter.
    ``bomb_setup``: the acting seat's first card is a Bomb and every other hand's a 0 (when the deck
    has them), so that Bombs often empty several hands at once."""
    n = cfg.num_players
    deck = [int(k) for k in rng.permutation([k for k in range(18) for _ in range(cfg.deck_counts[k])])]
    if cfg.variant == "teams":
        team = rng.integers(1, 3, 2)
        lives = [int(team[q % 2]) for q in range(n)]
    else:
        low = 0 if cfg.variant == "standard" else 1
        lives = [int(v) for v in rng.integers(low, 3, n)]
        for q in rng.permutation(n)[:2]:
            lives[q] = max(lives[q], 1)  # at least two survivors
    alive = [q for q in range(n) if lives[q] > 0]
    current = int(rng.choice(alive))
    hands: list[list[int]] = []
    for q in range(n):
        k = int(rng.integers(1, 4)) if lives[q] > 0 else 0
        hand: list[int] = []
        want = BOMB if q == current else N0
        if bomb_setup and k and want in deck:
            deck.remove(want)
            hand.append(want)
        rest = k - len(hand)
        hand += deck[:rest]
        deck = deck[rest:]
        hands.append(hand)
    d = int(rng.integers(0, 5))
    draw, discard = deck[:d], deck[d:]
    return eng.from_position(
        cfg, hands, current=current, total=int(rng.integers(0, 22)),
        direction=int(rng.choice([-1, 1])), draw=draw, discard=discard, lives=lives,
        seed=int(rng.integers(0, 2**63)), counter=int(rng.integers(0, 20)), round=int(rng.integers(0, 3)))


POSITION_CASES = [  # (id, config, bomb_setup, events the case must produce)
    ("n4-teams-zeros", dict(num_players=4, variant="teams", deck_counts=ZEROS), True, {"multi_out", "bomb_over"}),
    ("n6-teams-optional-zeros", dict(num_players=6, variant="teams", deck_counts=ZEROS, bomb_zero_optional=True),
     True, {"multi_out", "answer0", "answer_life"}),
    ("n2-sudden-bombs", dict(num_players=2, variant="sudden_death", deck_counts=BOMBS), False,
     {"bomb_over", "bust_over"}),
    ("n4-sudden-wild", dict(num_players=4, variant="sudden_death", deck_counts=ZEROS, tiebreak_wild_value=2), True,
     {"sd_tie", "bomb_over", "multi_out"}),
    ("n6-sudden-shared", dict(num_players=6, variant="sudden_death", final_tiebreak="shared", deck_counts=BOMBS),
     False, {"sd_tie", "bomb_over"}),
    ("n3-standard-bombs", dict(num_players=3, deck_counts=BOMBS, bomb_last_card_resolves=False), True,
     {"bomb_elim", "bomb_over", "multi_out", "last_bomb"}),
    ("n5-standard-zeros", dict(num_players=5, deck_counts=ZEROS), True, {"bomb_elim", "bomb_over", "multi_out"}),
    ("n5-standard-draws", dict(num_players=5, deck_counts=DRAWS, draw_order="round_robin"), False,
     {"reshuffle", "redeal", "elim"}),
    ("n6-standard-skip-optional", dict(num_players=6, deck_counts=DRAWS, empty_draw_pile="skip",
                                       bomb_zero_optional=True, new_round_start="dealer", new_round_direction="keep"),
     False, {"draw_short", "redeal", "answer0", "answer_life", "elim"}),
]


@pytest.mark.parametrize("kw, bomb_setup, expect", [pytest.param(kw, b, e, id=i) for i, kw, b, e in POSITION_CASES])
def test_batched_equals_reference_from_hand_built_positions(kw, bomb_setup, expect):
    cfg = FiveAliveConfig(**kw)
    rep = Replay(cfg, 16, base=3000 + cfg.num_players)
    rep.run(200, rng_seed=cfg.num_players, positions=lambda rng: random_position(cfg, rng, bomb_setup))
    missing = expect - set(rep.events)
    assert not missing, f"the case never produced {sorted(missing)} (events seen: {dict(rep.events)})"


def test_load_rejects_bad_slots_and_states():
    cfg = FiveAliveConfig(num_players=3)
    env = BatchedFiveAlive(cfg, 2, seed=0)
    s = eng.new_game(cfg, 1)
    with pytest.raises(ValueError, match="i: expected an integer in 0..1, got 2"):
        env.load(2, s)
    with pytest.raises(ValueError, match="state: expected a FiveAliveState of 3 players"):
        env.load(0, eng.new_game(FiveAliveConfig(num_players=4), 1))
    s.phase = OVER
    with pytest.raises(ValueError, match="over"):
        env.load(0, s)


# --- seeding, autoreset, reset ---------------------------------------------------------------------------

def test_explicit_seeds_replay_the_reference_games():
    cfg = FiveAliveConfig(num_players=5)
    seeds = [0, 1, 2**64 - 1, 12345678901234567890]
    env = BatchedFiveAlive(cfg, len(seeds), seed=7)
    env.reset(seed=7, seeds=seeds)
    assert env.seeds.tolist() == seeds
    rng = np.random.default_rng(0)
    refs = [eng.new_game(cfg, s) for s in seeds]
    for _ in range(150):
        for i, r in enumerate(refs):
            assert env.hands()[i].tolist() == r.hands and env.draw_pile(i) == r.draw[::-1]
        a = random_actions(env.legal_action_mask, rng)
        env.step(a)
        for i, r in enumerate(refs):
            eng.step(cfg, r, int(a[i]))
            if r.phase == OVER:
                refs[i] = eng.new_game(cfg, int(env.seeds[i]))
    with pytest.raises(ValueError, match="seeds: expected 4 seeds"):
        env.reset(seed=0, seeds=[1, 2])
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=-1)


def test_batch_of_one_and_the_seed_of_each_slot():
    cfg = FiveAliveConfig(num_players=3)
    env = BatchedFiveAlive(cfg, 1, seed=99)
    ref = eng.new_game(cfg, seeding.derive(99, 0))
    rng = np.random.default_rng(3)
    finished = 0
    while finished < 3:
        np.testing.assert_array_equal(env.observe()[0], observe(cfg, ref, ref.current))
        a = random_actions(env.legal_action_mask, rng)
        env.step(a)
        eng.step(cfg, ref, int(a[0]))
        if ref.phase == OVER:
            finished += 1
            assert env.terminated[0]
            assert env.game_index[0] == finished and int(env.seeds[0]) == seeding.derive(99, finished)
            ref = eng.new_game(cfg, int(env.seeds[0]))


def test_reset_starts_over_or_moves_on():
    env = BatchedFiveAlive(FiveAliveConfig(num_players=4), 3, seed=5)
    first = env.observe()
    rng = np.random.default_rng(0)
    for _ in range(20):
        env.step(random_actions(env.legal_action_mask, rng))
    env.reset(seed=5)
    np.testing.assert_array_equal(env.observe(), first)
    assert env.game_index.tolist() == [0, 1, 2]
    env.reset()
    assert env.game_index.tolist() == [3, 4, 5]
    assert env.seeds.tolist() == [seeding.derive(5, i) for i in (3, 4, 5)]


# --- errors ---------------------------------------------------------------------------------------------

def _snapshot(env: BatchedFiveAlive) -> list[np.ndarray]:
    return [v.copy() for v in vars(env).values() if isinstance(v, np.ndarray)]


def test_illegal_actions_raise_naming_the_game_and_change_nothing():
    cfg = FiveAliveConfig(num_players=4, bomb_zero_optional=True, deck_counts=BOMBS)
    env = BatchedFiveAlive(cfg, 6, seed=5)
    refs = [eng.new_game(cfg, int(s)) for s in env.seeds]
    rng = np.random.default_rng(0)
    answers = 0
    for t in range(300):
        mask = env.legal_action_mask
        i = t % 6
        illegal = np.flatnonzero(mask[i] == 0)
        bad = [-1, NUM_ACTIONS, 2**40, int(illegal[0]), int(illegal[-1])]
        if env.phase[i] == 1:  # a Bomb answer: only 0 (if held) and BUST are legal
            answers += 1
            has0 = env.hands()[i, env.current_player[i], N0] > 0
            assert np.flatnonzero(mask[i]).tolist() == ([N0, BUST] if has0 else [BUST])
        before = _snapshot(env)
        for b in bad:
            a = random_actions(mask, rng)
            a[i] = b
            with pytest.raises(IllegalActionError, match=f"player_{env.current_player[i]} of game {i}") as info:
                env.step(a)
            assert info.value.game_index == i and isinstance(info.value, ValueError)
            assert info.value.legal == np.flatnonzero(mask[i]).tolist()
        for x, y in zip(before, _snapshot(env), strict=True):
            np.testing.assert_array_equal(x, y)
        # and the games go on exactly as before
        a = random_actions(mask, rng)
        env.step(a)
        for j, r in enumerate(refs):
            eng.step(cfg, r, int(a[j]))
            if r.phase == OVER:
                refs[j] = eng.new_game(cfg, int(env.seeds[j]))
            np.testing.assert_array_equal(env.observe()[j], observe(cfg, refs[j], refs[j].current))
    assert answers > 0


def test_bad_actions_and_configs_raise_value_errors():
    env = BatchedFiveAlive(FiveAliveConfig(num_players=2), 4, seed=0)
    with pytest.raises(ValueError, match=r"actions: expected an integer array of shape \(4,\), got shape \(3,\)"):
        env.step(np.zeros(3, np.int64))
    with pytest.raises(ValueError, match=r"shape \(4,\), got shape \(4, 1\)"):
        env.step(np.zeros((4, 1), np.int64))
    with pytest.raises(ValueError, match="integer dtype, got float64"):
        env.step(np.zeros(4))
    with pytest.raises(ValueError, match="integer dtype, got bool"):
        env.step(np.zeros(4, bool))
    with pytest.raises(ValueError, match="out: expected a C-contiguous float32 array of shape"):
        env.observe(out=np.zeros((4, 10), np.float32))
    with pytest.raises(ValueError, match="out: expected"):
        env.observe(out=np.zeros((4, observation_size(2)), np.float64))
    with pytest.raises(ValueError, match="config: expected a FiveAliveConfig"):
        BatchedFiveAlive({"num_players": 4}, 4)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="batch_size: expected an integer in 1..16777216, got 0"):
        BatchedFiveAlive(FiveAliveConfig(), 0)
    with pytest.raises(ValueError, match="max_cycles: expected None"):
        make_batched(4, max_cycles=100)
    with pytest.raises(ValueError, match="num_players"):
        make_batched(4, num_players=7)
    with pytest.raises(ValueError, match="num_players: variant='teams'"):
        make_batched(4, num_players=3, variant="teams")
    with pytest.raises(ValueError, match="deck_counts"):
        make_batched(4, num_players=6, deck_counts=TIGHT)
    with pytest.raises(ValueError, match="unknown config field 'players'"):
        make_batched(4, players=4)


def test_observe_into_a_buffer_and_state_is_compact():
    env = BatchedFiveAlive(FiveAliveConfig(num_players=4), 32, seed=1)
    buf = np.full((32, observation_size(4)), 7.0, np.float32)
    assert env.observe(out=buf) is buf
    np.testing.assert_array_equal(buf, env.observe())
    assert env.bytes_per_game() < 400
    mask = env.legal_action_mask
    assert mask.dtype == np.int8 and mask.shape == (32, NUM_ACTIONS) and not mask.flags.writeable
    assert env.current_player.dtype == np.int32


def test_benchmark_function_runs():
    assert fb.bench_five_alive_batched(4, 16, True, 0.05) > 0


# --- the vector API and the training code --------------------------------------------------------------

def test_vector_api_runs_five_alive_with_same_step_autoreset():
    B, n = 8, 3
    env = vector.make_vec("five_alive", B, seed=11, num_players=n, reward="win_loss")
    assert isinstance(env.engine, vector.BatchedGame)
    assert (env.num_envs, env.num_players, env.num_actions, env.obs_dim) == (B, n, 19, observation_size(n))
    obs, mask, player = env.reset()
    cfg = FiveAliveConfig(num_players=n)
    refs = [eng.new_game(cfg, seeding.derive(11, i)) for i in range(B)]
    returns = np.zeros((B, n))
    games = [0] * B
    rng = np.random.default_rng(1)
    finished = 0
    while min(games) < 2:
        actions = random_actions(mask, rng)
        obs, mask, player, rewards, terminated, info = env.step(actions)
        assert set(info) >= {"seed", "final_scores", "final_win", "final_result", "lives", "round"}
        returns += rewards
        for i in range(B):
            eng.step(cfg, refs[i], int(actions[i]))
            assert terminated[i] == (refs[i].phase == OVER)
            if terminated[i]:
                games[i] += 1
                finished += 1
                # win/loss rewards: the return is the result, +1 for the winner and -1 for the others
                np.testing.assert_array_equal(returns[i], info["final_result"][i])
                assert returns[i].sum() == 1 - (n - 1) and info["final_win"][i].sum() == 1.0
                assert info["final_scores"][i].tolist() == refs[i].lives
                returns[i] = 0
                assert int(info["seed"][i]) == seeding.derive(11, i + games[i] * B)
                refs[i] = eng.new_game(cfg, int(info["seed"][i]))
            np.testing.assert_array_equal(obs[i], observe(cfg, refs[i], refs[i].current))
            assert player[i] == refs[i].current
    assert finished >= 2 * B


def test_training_envs_agree_with_the_reference_loop_and_snapshots_restore():
    from fiveplay_env.agents.learned.envs import LoopVecEnv, engine_snapshot, make_training_env, restore_engine

    B, kw = 6, dict(num_players=4, variant="teams", bomb_zero_optional=True)
    fast = make_training_env("five_alive", B, 4, kw, "batched")
    slow = LoopVecEnv("five_alive", B, 4, **kw)
    o1, m1, c1 = fast.reset(4)
    o2, m2, c2 = slow.reset(4)
    rng = np.random.default_rng(0)
    snap = None
    for t in range(300):
        assert np.array_equal(o1, o2) and np.array_equal(m1, m2) and np.array_equal(c1, c2)
        a = random_actions(m1, rng)
        o1, m1, c1, r1, t1, i1 = fast.step(a)
        o2, m2, c2, r2, t2, i2 = slow.step(a)
        assert np.array_equal(r1, r2) and np.array_equal(t1, t2)
        if t1.any():
            assert np.array_equal(i1["final_scores"][t1], i2["final_scores"][t1])
            assert np.array_equal(i1["final_win"][t1], i2["final_win"][t1])
        if t == 100:
            snap = (engine_snapshot(fast), o1.copy(), m1.copy(), rng.bit_generator.state)
    # restore step 101 into a fresh env and replay: the same games continue
    fast2 = make_training_env("five_alive", B, 4, kw, "batched")
    restore_engine(fast2, snap[0])
    np.testing.assert_array_equal(fast2.engine.observe(), snap[1])
    np.testing.assert_array_equal(fast2.engine.legal_action_mask, snap[2])
    ref = make_training_env("five_alive", B, 4, kw, "batched")
    ref.reset(4)
    rng_ref = np.random.default_rng(0)
    mk = ref.engine.legal_action_mask
    for _ in range(101):
        _, mk, *_ = ref.step(random_actions(mk, rng_ref))
    mask = fast2.engine.legal_action_mask
    for _ in range(100):
        a = random_actions(mask, rng_ref)
        x = fast2.step(a)
        y = ref.step(a)
        for u, v in zip(x[:5], y[:5], strict=True):
            np.testing.assert_array_equal(u, v)
        mask = x[1]


@pytest.mark.slow
@pytest.mark.parametrize("kw", [dict(num_players=6, variant="teams", bomb_zero_optional=True),
                                dict(num_players=2, deck_counts=BOMBS)], ids=["n6-teams-optional", "n2-bombs"])
def test_a_large_batch_matches_on_sampled_slots(kw):
    """B = 20,000: 100 sampled slots are compared with their reference games."""
    cfg = FiveAliveConfig(**kw)
    check_sampled_slots(Replay, cfg, 20_000, 150)


def test_redeal_keeps_the_seat_view_and_draws_as_sample_world():
    """``redeal`` (slots: copies of one canonical world) leaves the seat's observation and mask as they are and
    draws the other seats' hands as ``determinize.sample_world`` does (column means within 5 standard errors,
    from both samples' variances: the hand columns are counts, not 0/1 flags)."""
    from fiveplay_env.five_alive import determinize
    from fiveplay_env.five_alive.batched import BatchedFiveAlive
    from fiveplay_env.five_alive.config import FiveAliveConfig
    from fiveplay_env.five_alive.engine import legal_mask, new_game, step
    from fiveplay_env.five_alive.observation import observe

    config = FiveAliveConfig(num_players=4)
    rng = np.random.default_rng(3)
    state = new_game(config, 11)
    for _ in range(25):
        step(config, state, int(rng.choice(np.flatnonzero(legal_mask(state)))))
    p = state.current
    canon = determinize.canonical(config, state, p)
    W = 500
    vec = BatchedFiveAlive(config, W, seed=0)
    vec.load_states([canon] * W)
    vec.redeal(p, np.random.default_rng(1))
    assert (vec.observe_as(np.full(W, p)) == observe(config, state, p)).all()
    assert (vec.legal_action_mask == legal_mask(state)).all()
    assert len(set(vec.seeds.tolist())) == W
    worlds = [determinize.sample_world(config, canon, p, np.random.default_rng(100 + j)) for j in range(W)]
    for q in range(4):
        a = vec.observe_as(np.full(W, q)).astype(np.float64)
        b = np.array([observe(config, w, q) for w in worlds], np.float64)
        tol = 5 * np.sqrt((a.var(0) + b.var(0)) / W) + 1e-9
        assert (np.abs(a.mean(0) - b.mean(0)) <= tol).all(), q
