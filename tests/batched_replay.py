"""The batched == reference harness both games' equivalence tests share.

``BatchedReplay`` runs B games in a batched engine (slot i seeded ``derive(base, i)``) next to B
reference games ``engine.new_game(config, seed)``, feeds both the same random legal actions (drawn from
the batched mask, which must equal the reference mask) and compares at every step: the acting player,
the mask, the acting player's observation, the game's own state fields (``compare``), and after each
step every player's rewards, termination and the finished game's outcome (``compare_outcome``).
Finished games are replaced in their slot (same-step autoreset) and the new game is compared with a
fresh reference game of its seed. A difference names the config, the seed, the slot, the step of that
game and the field.
"""
from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from fiveplay_env.core import seeding
from fiveplay_env.vector import random_actions


class BatchedReplay:
    """A batch and its reference twins, stepped together and compared field by field.

    A game's subclass sets ``engine`` (the reference engine module: ``new_game``, ``legal_mask``,
    ``step``), ``batched_cls``, ``observe`` (the reference encoder) and ``OVER`` (its phase code), and may
    override the hooks ``fields`` / ``compare`` (state after each step), ``before_step`` / ``after_step``
    (per-game facts around a step) and ``compare_outcome`` (a finished game's outputs).
    """

    engine: ModuleType
    batched_cls: type
    observe: Callable[..., np.ndarray]
    OVER: int

    def __init__(self, cfg: Any, batch: int, base: int) -> None:
        self.cfg, self.base = cfg, base
        self.env = self.batched_cls(cfg, batch, seed=base)
        self.refs = [self.engine.new_game(cfg, int(s)) for s in self.env.seeds]
        self.steps = [0] * batch  # steps taken in each slot's current game
        self.games = [0] * batch  # games finished in each slot
        self.seeds_seen: set[int] = {int(s) for s in self.env.seeds}
        for i, s in enumerate(self.env.seeds):
            assert int(s) == seeding.derive(base, i), f"slot {i}: seed of game 0 is not derive(base, {i})"

    # --- hooks -------------------------------------------------------------------------------------
    def fields(self) -> Any:
        """What ``compare`` needs from the batched engine, read once per check."""
        return None

    def compare(self, i: int, s: Any, fields: Any) -> None:
        """Compare slot i's state with reference state ``s`` (after the generic checks)."""

    def before_step(self, i: int, s: Any, mask: np.ndarray) -> Any:
        """Facts about slot i from before a step, handed to ``after_step``."""
        return None

    def after_step(self, i: int, s: Any, before: Any) -> None:
        """Called after slot i's reference game took the step."""

    def compare_outcome(self, i: int, s: Any) -> None:
        """Slot i's game just ended in reference state ``s``: compare the batched engine's outcome."""

    # --- the harness -----------------------------------------------------------------------------
    def where(self, i: int) -> str:
        return f"{self.cfg} seed {self.refs[i].seed} (slot {i}), step {self.steps[i]}"

    def fail(self, i: int, field: str, got: object, expected: object) -> None:
        raise AssertionError(f"{self.where(i)}: {field} {got} != reference {expected}")

    def check(self) -> None:
        env, cfg, eng = self.env, self.cfg, self.engine
        obs, mask, cur = env.observe(), env.legal_action_mask, env.current_player
        fields = self.fields()
        for i, s in enumerate(self.refs):
            if cur[i] != s.current:
                self.fail(i, "current_player", cur[i], s.current)
            ref_mask = eng.legal_mask(s)
            if not np.array_equal(mask[i], ref_mask):
                raise AssertionError(f"{self.where(i)}: legal_action_mask differs at ids "
                                     f"{np.flatnonzero(mask[i] != ref_mask).tolist()}")
            ref_obs = self.observe(cfg, s, s.current)
            if not np.array_equal(obs[i], ref_obs):
                bad = np.flatnonzero(obs[i] != ref_obs)
                raise AssertionError(f"{self.where(i)}: observation differs at offsets {bad.tolist()[:12]}: "
                                     f"batched {obs[i][bad][:12]}, reference {ref_obs[bad][:12]}")
            self.compare(i, s, fields)

    def step(self, rng: np.random.Generator) -> None:
        env, cfg, eng = self.env, self.cfg, self.engine
        mask = env.legal_action_mask
        actions = random_actions(mask, rng)
        before = [self.before_step(i, s, mask) for i, s in enumerate(self.refs)]
        rewards = env.step(actions)
        assert rewards.dtype == np.float32 and rewards.shape == (env.batch_size, cfg.num_players)
        for i, s in enumerate(self.refs):
            ref_rewards = eng.step(cfg, s, int(actions[i]))
            if rewards[i].tolist() != [float(r) for r in ref_rewards]:
                self.fail(i, "rewards", rewards[i].tolist(), ref_rewards)
            over = s.phase == self.OVER
            if bool(env.terminated[i]) != over:
                self.fail(i, "terminated", bool(env.terminated[i]), over)
            self.after_step(i, s, before[i])
            self.steps[i] += 1
            if over:
                self.compare_outcome(i, s)
                self.games[i] += 1
                seed = int(env.seeds[i])
                expected = seeding.derive(self.base, i + self.games[i] * env.batch_size)
                if seed != expected:
                    raise AssertionError(f"slot {i}: game {self.games[i]} has seed {seed}, expected {expected}")
                self.refs[i] = eng.new_game(cfg, seed)  # autoreset: the slot's new game must match it
                self.steps[i] = 0
                self.seeds_seen.add(seed)

    def load(self, i: int, state: Any) -> None:
        """Slot i continues from ``state`` (a hand-built position), in both engines."""
        self.env.load(i, state)
        self.refs[i] = state.clone()
        self.steps[i] = 0

    def run(self, games: int, rng_seed: int, positions: Any = None, max_steps: int = 200_000) -> None:
        """Until ``games`` games have finished (at least one in every slot). ``positions(rng)``: a
        generator of hand-built positions (engines with ``load``): every slot starts from one, and after
        each finished game the slot is loaded with a new one (after checking the autoreset game)."""
        rng = np.random.default_rng(rng_seed)
        if positions is not None:
            for i in range(self.env.batch_size):
                self.load(i, positions(rng))
        for _ in range(max_steps):
            self.check()
            if sum(self.games) >= games and min(self.games) >= 1:
                return
            before = list(self.games)
            self.step(rng)
            if positions is not None:
                ended = [i for i, g in enumerate(self.games) if g != before[i]]
                if ended:
                    self.check()  # the autoreset games are right, then new positions replace them
                    for i in ended:
                        self.load(i, positions(rng))
        raise AssertionError("the games did not finish")


def check_sampled_slots(replay: type[BatchedReplay], cfg: Any, batch: int, steps: int, samples: int = 100) -> None:
    """A large batch (``batch`` games, e.g. 20,000: index arithmetic past int16) against reference games on
    ``samples`` sampled slots, for ``steps`` steps: masks, observations and rewards."""
    eng, observe = replay.engine, replay.observe
    env = replay.batched_cls(cfg, batch, seed=5)
    rng = np.random.default_rng(0)
    sample = rng.choice(batch, samples, replace=False)
    refs = {int(i): eng.new_game(cfg, int(env.seeds[i])) for i in sample}
    for t in range(steps):
        obs, mask = env.observe(), env.legal_action_mask
        for i, s in refs.items():
            assert np.array_equal(mask[i], eng.legal_mask(s)), f"seed {s.seed} (slot {i}), step {t}: mask"
            assert np.array_equal(obs[i], observe(cfg, s, s.current)), f"seed {s.seed} (slot {i}), step {t}: observation"
        actions = random_actions(mask, rng)
        rewards = env.step(actions)
        for i in refs:
            ref_rewards = eng.step(cfg, refs[i], int(actions[i]))
            assert rewards[i].tolist() == [float(r) for r in ref_rewards], f"seed {refs[i].seed} (slot {i}), step {t}: rewards"
            if refs[i].phase == replay.OVER:
                refs[i] = eng.new_game(cfg, int(env.seeds[i]))
