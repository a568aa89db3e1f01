"""5 Alive support for agents and tournaments: the game adapter and the search agent's rollouts.

Adapter (see ``agents.games``): results per seat are ``win`` (winners share: 1/k each of k winners,
except in teams where each member of the winning team wins), ``placing`` (1 = winner; then by how late
a player was eliminated, survivors first, then by lives left) and ``lives`` (lives left at the end).

Determinization: ``engine.sample_world(state, player, rng)`` re-deals the other hands and the draw pile
from their combined composition (per kind: canonical), honouring the public facts the state records
(forced busts, Bomb answers, what a reshuffle or Re-Deal revealed). As canonical copy we take one such
world drawn with a fixed generator: it depends only on what ``player`` knows, except in the rare case
where ``sample_world`` falls back on the true draw pile's composition (documented there).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from agents.five_alive_heuristics import EMERGENCY_ORDER, attacker_card
from fiveplay_env.five_alive import engine as faeng
from fiveplay_env.five_alive.config import FiveAliveConfig
from fiveplay_env.five_alive.observation import observe
from fiveplay_env.five_alive.state import (
    BOMB, BOMB_ANSWER, BUST, DRAW1, DRAW2, REDEAL, MAX_TOTAL, N0, NUM_ACTIONS, NUM_NUMBERS, OVER, FiveAliveState,
)

CANONICAL_SEED = 0x5A11


def _canonical(config: FiveAliveConfig, state: FiveAliveState, player: int) -> FiveAliveState:
    return faeng.sample_world(state, player, np.random.default_rng(CANONICAL_SEED))


def _sample(config: FiveAliveConfig, state: FiveAliveState, player: int, rng: np.random.Generator) -> FiveAliveState:
    return faeng.sample_world(state, player, rng)


def _results(engine: faeng.FiveAliveEngine, elimination_turn: list[int | None]) -> dict[str, list[float]]:
    state = engine.state
    n = state.num_players
    win = list(state.winners) if state.phase == OVER else []
    teams = engine.config.variant == "teams"
    share = 1.0 if teams else (1.0 / len(win) if win else 0.0)
    big = 1 << 40
    keys = []
    for p in range(n):
        turn = elimination_turn[p]
        keys.append((0 if p in win else 1, -(turn if turn is not None else big), -state.lives[p]))
    from agents.games import placings

    return {
        "placing": [float(x) for x in placings(keys)],
        "lives": [float(v) for v in state.lives],
        "win": [share if p in win else 0.0 for p in range(n)],
    }


def make_game(game_cls: type, metric_cls: type, placings: Any) -> Any:
    """The ``agents.games.Game`` of 5 Alive (called by ``agents.games``)."""
    from fiveplay_env import five_alive_v0

    return game_cls(
        name="five_alive",
        config_cls=FiveAliveConfig,
        engine_cls=faeng.FiveAliveEngine,
        num_actions=NUM_ACTIONS,
        env_module=five_alive_v0,
        observe_state=observe,
        canonical=_canonical,
        sample_world=_sample,
        results=_results,
        metrics=(
            metric_cls("placing", True, "finishing place, 1 = winner, then by elimination order (later is better)"),
            metric_cls("lives", False, "lives left at the end (higher is better)"),
        ),
        alive=lambda state: state.alive,
    )


# --- rollouts ------------------------------------------------------------------------------------------

WIN_WEIGHT = 3.0  # value of a decided game (+1 win / -1 loss) in lives


def rollout_card(hand: list[int], total: int) -> int:
    """The rollout policy (five-alive-saver, inlined for speed): the largest number that fits, then a 0,
    then a wild card in ``EMERGENCY_ORDER``; BUST if nothing is playable."""
    v = MAX_TOTAL - total
    if v > NUM_NUMBERS - 1:
        v = NUM_NUMBERS - 1
    while v > 0:
        if hand[v]:
            return v
        v -= 1
    if hand[N0]:
        return N0
    for k in EMERGENCY_ORDER:
        if hand[k]:
            return k
    return BUST


SPECIAL_BITS = (1 << BOMB) | (1 << DRAW1) | (1 << DRAW2) | (1 << REDEAL)


def _attacker(s: FiveAliveState, q: int, teams: bool) -> int:
    """five-alive-attacker's card for player q, from the state (opponents: the other survivors;
    teams: the other team)."""
    opp = [r for r in range(s.num_players) if r != q and s.alive[r] and (not teams or r % 2 != q % 2)]
    return attacker_card(s.hands[q], s.total, s.hand_size[q], [s.hand_size[r] for r in opp],
                         [s.lives[r] for r in opp])


def five_alive_prepare(world: faeng.FiveAliveEngine, player: int, params: Any) -> None:
    """Nothing is shared between the candidates of one world beyond the world itself."""
    return None


def five_alive_simulate(world: faeng.FiveAliveEngine, action: int, player: int, noise: list[float],
                        plan: Any, params: Any) -> float:
    """Play ``action`` in ``world``, roll out to the end of the round (or of the game, or ``depth``
    turns if given, then estimating the round end from the hand sizes) with the rollout
    policy (epsilon-greedy five-alive-attacker, which is five-alive-saver unless it holds a Bomb, Draw or
    Re-Deal card), and return ``own lives change - rel * mean(other players'
    lives change) + 3 * result`` (result: +1 won, -1 lost, 0 undecided; the "lives" are the team's in
    teams)."""
    cfg = world.config
    s = world.state
    n = s.num_players
    step = faeng.step
    lives0 = s.lives[:]
    alive0 = s.alive[:]
    step(cfg, s, action)
    r0 = s.round
    eps = params.eps
    noise_len = len(noise)
    k = 0
    bits_of = faeng.legal_bits
    teams = cfg.variant == "teams"
    limit = params.depth if params.depth else 400  # 400: a round cannot last forever, but guard anyway
    while s.phase != OVER and s.round == r0 and limit:
        limit -= 1
        if s.phase == BOMB_ANSWER:
            a = N0
        else:
            u = noise[k % noise_len]
            k += 1
            if u < eps:
                bits = bits_of(s)
                legal = [b for b in range(NUM_ACTIONS) if (bits >> b) & 1]
                a = legal[int(u / eps * len(legal))]
            else:
                q = s.current
                if s.held[q] & SPECIAL_BITS:
                    a = _attacker(s, q, teams)
                else:
                    a = rollout_card(s.hands[q], s.total)
        step(cfg, s, a)
    delta = [float(s.lives[q] - lives0[q]) for q in range(n)]
    if s.phase != OVER and s.round == r0:
        # Stopped at the depth limit: the round end is still to come. Estimate it: everyone but the
        # player(s) with the fewest cards loses a life (k tied players: each loses with chance (k-1)/k).
        alive = [q for q in range(n) if s.alive[q]]
        low = min(s.hand_size[q] for q in alive)
        tied = sum(1 for q in alive if s.hand_size[q] == low)
        for q in alive:
            delta[q] -= (tied - 1) / tied if s.hand_size[q] == low else 1.0
    others = [q for q in range(n) if q != player and alive0[q]]
    if cfg.variant == "teams":
        others = [q for q in others if q % 2 != player % 2]
    value = delta[player]
    if others and params.rel:
        value -= params.rel * sum(delta[q] for q in others) / len(others)
    if s.phase == OVER or s.result[player]:
        value += WIN_WEIGHT * s.result[player]
    return value
