"""5 Alive for 2 to 6 players, as a PettingZoo AEC environment.

    from fiveplay_env import five_alive_v0
    env = five_alive_v0.env(num_players=4, render_mode="ansi")

Rules: ``docs/rules.md`` section 2, exactly; every [D] choice is a config field (``FiveAliveConfig``):
``num_players`` (2..6), ``variant`` ("standard" | "sudden_death" | "teams", teams for 4 or 6),
``first_player`` ("random" | "seat0"), ``allow_voluntary_bust`` (False), ``bomb_zero_optional``
(False), ``deck_counts`` (the docs/rules.md 2.1 table), ``bomb_last_card_resolves`` (True), ``draw_order``
("each" | "round_robin"), ``empty_draw_pile`` ("reshuffle" | "skip"), ``max_reshuffles`` (50 per
round: the bound that makes every game end, whatever the deck), ``new_round_start``
("after_dealer" | "dealer"), ``new_round_direction`` ("clockwise" | "keep"), ``tiebreak_wild_value``
(0), ``final_tiebreak`` ("turn_order" | "shared"), ``reward`` ("win_loss" | "lives" |
"win_loss+lives"), ``max_cycles`` (None) and ``max_steps`` (10,000). Env options: ``render_mode``
(None | "ansi" | "human"), ``info_event`` (False: the nested ``event`` entry of infos) and
``keep_eliminated`` (False: eliminated players stay in ``agents`` until the game ends; see Episode).
Named presets: ``PRESETS``.

Agents: ``player_0 .. player_{n-1}``; seats 0, 2, 4 form team A and 1, 3, 5 team B in teams.

Actions (``Discrete(19)``): one id per card kind, plus BUST.

| id | meaning                                                                          |
|----|----------------------------------------------------------------------------------|
| 0-7| play a number card 0..7 (T += value; legal while T + value <= 21)                |
| 8  | Reverse (the direction flips)                                                    |
| 9  | =21 (T = 21; legal at any T, 21 included)                                        |
| 10 | Skip (the next surviving player is skipped)                                      |
| 11 | Pass Me By (no effect)                                                           |
| 12 | =0 (T = 0)                                                                       |
| 13 | =10 (T = 10)                                                                     |
| 14 | Draw 1 (every other survivor draws 1)                                            |
| 15 | Draw 2 (every other survivor draws 2)                                            |
| 16 | Hand In & Re-Deal (all surviving hands re-dealt clockwise from P's left; T = 0)   |
| 17 | Bomb (each other survivor discards a 0 or loses a life; T = 0)                   |
| 18 | BUST: play nothing, lose a life, T = 0; legal only when no card is playable       |
|    | (on every turn with ``allow_voluntary_bust``)                                    |

Bomb answers (``bomb_zero_optional=True`` only): every other survivor acts in turn order with the ids
**0** = discard a 0 (legal only for a responder holding one) and **18** = lose a life (a responder
without a 0 has only this one), so whose turn it is never reveals who holds a 0 (docs/rules.md 2.4); with
``bomb_zero_optional=False`` a 0 is discarded automatically and a responder without one loses a life.

Observations: ``{"observation": float32[80 + 3n], "action_mask": int8[19]}``; the pieces are the table in
``fiveplay_env.five_alive.observation``: own hand as counts per kind, the discard pile (cards played
since the last shuffle) per kind, its top card, T (one-hot), the direction, the draw pile's size, the
phase (play / bomb answer), and per seat relative to the observer: whose turn, lives, hand size. Other
hands and the draw pile's order never appear. An agent that does not act has an all-zero mask.

| offset | size | piece      | meaning                                                                  |
|--------|------|------------|--------------------------------------------------------------------------|
| 0      | 18   | hand       | cards of each kind in the observer's hand                                |
| 18     | 18   | discard    | cards of each kind in the discard pile: every card played (or discarded  |
|        |      |            | to a Bomb, or from an eliminated hand) since the last shuffle            |
| 36     | 18   | top        | one-hot kind of the discard pile's top card (all 0 when it has none)     |
| 54     | 22   | total      | one-hot running total T = 0..21                                          |
| 76     | 1    | direction  | 1 clockwise (turn passes to relative seat 1), 0 counter-clockwise        |
| 77     | 1    | draw_pile  | cards in the draw pile                                                   |
| 78     | 2    | phase      | one-hot: play, bomb answer (both 0 once the game is over)                |
| 80     | n    | turn       | one-hot relative seat of the acting player                               |
| 80+n   | n    | lives      | lives left per relative seat (teams: that seat's team's lives)           |
| 80+2n  | n    | hand_sizes | cards in hand per relative seat (0 once eliminated)                      |

(``fiveplay_env.five_alive.observation.LAYOUT`` is this table as data; ``observation.pieces(n)`` gives
each piece's offset and size for code.)

Rewards (``reward``): ``"win_loss"`` (default): +1 to the winner and -1 to every other player, once
decided (an eliminated player gets -1 at its elimination; teams: +1 to each member of the winning team,
-1 to each member of the other); ``"lives"``: -1 at the step a life is lost (teams: to both or all three
members); ``"win_loss+lives"``: the sum of both.

Episode: an eliminated player (5th life lost) is terminated at once and must then be stepped with
``None`` (PettingZoo's dead step), after which it leaves ``agents``; with ``keep_eliminated=True`` it
stays in ``agents`` instead (not terminated, never selected, all-zero mask, ``alive`` False, its -1 in
``rewards`` at the elimination step) until the game ends, when it is terminated with everyone: for
libraries that read every agent's rewards and infos at every step (TorchRL's ``PettingZooWrapper``); the game ends (every agent terminated) when one player is left (standard), when the first
player is eliminated (sudden death: most lives, then lowest sum of number cards in hand, then the first
in turn order from the player who ended the game), or when a team has no life left (teams).
``max_cycles`` truncates every agent once a player has made that many decisions (PettingZoo's
convention: each agent acts at most ``max_cycles`` times). ``max_steps`` (10,000 decisions of all seats)
ends a game the rules have not ended by then: every remaining agent is truncated (not terminated), no
one wins (``winner`` False for all; no final reward); no rule-book game comes near it. Every game of
every valid config ends: ``max_reshuffles`` bounds each round, ``max_steps`` each game
(``FiveAliveConfig.max_decisions``: the resulting bound, derived from the config).

Misuse: a bad config value raises ``ValueError`` naming the field; ``config=`` is a ``FiveAliveConfig``
given alone (with other config keywords it is refused); an illegal action raises ``IllegalActionError``
(nothing changes); ``step``/``last``/``observe`` before ``reset()``, or ``step`` once every agent is
done, raise ``ResetNeededError``. An action is an action id as an int, a numpy integer (``np.int64(3)``)
or a 0-d integer array (``np.array(3)``); anything else, a float (``3.0``), a bool, or an array with a
dimension (``np.array([3])``: a batch of one is not one action), raises ``IllegalActionError`` saying
which forms are accepted (``core.errors.action_id``), and nothing changes. ``engine.new_game`` and the
engine classes refuse anything but a ``FiveAliveConfig`` (``ValueError``).

``infos[agent]`` has the same keys and numeric types at every step, reset included (what replay
buffers such as Tianshou's and TorchRL's info specs need; ``five_alive.env.info_of``): ``lives`` (int;
teams: the team's), ``round`` (int: rounds completed), ``alive`` (bool) and ``winner`` (bool: False
until the game is over). With ``info_event=True`` infos also hold ``event`` (a nested dict with strings
and per-seat lists, which TorchRL cannot take): the last resolved step, shared by all agents
(read-only; ``five_alive.env.event_info``): ``player``, ``action`` (-1 before the first step), ``card``
(name, "" before the first step; "discard a 0" / "lose a life" for a Bomb answer), ``bomb_answer``,
``total`` (T after it), ``reshuffled`` (cards), ``dealer`` (of a new round, -1 if none), ``game_over``,
and per seat (lists of length n): ``drawn`` (cards), ``zeros_discarded``, ``lives_lost``,
``eliminated``, ``went_out``.

Libraries that end an episode when the next selected agent is terminated (Tianshou) need the dead
steps of eliminated players stepped for them: wrap the env in ``fiveplay_env.wrappers.SkipDeadSteps``
(or use ``fiveplay_env.integrations.tianshou.tianshou_env``).

Centralised critics: ``state()`` is every seat's observation concatenated in seat order, float32
[n * (80 + 3n)], in ``state_space`` (``fiveplay_env.core.state_view``).

Errors: an illegal action raises ``IllegalActionError`` (a ``ValueError`` naming the agent, the action
and the legal ids) and changes nothing; ``fiveplay_env.wrappers.IllegalActionPenalty`` turns it into a
penalty and the end of the episode instead. A bad config value raises ``ValueError`` naming the field
and the allowed values. ``reset(seed=...)`` is reproducible: every shuffle comes from
``fiveplay_env.core.seeding`` with the seed and a counter (the order of random events is documented in
``fiveplay_env.five_alive.engine``).

Engine API (no PettingZoo): ``fiveplay_env.five_alive.engine`` has ``new_game(config, seed)``,
``legal_mask(state)``, ``step(config, state, action) -> rewards``, ``last_event(state)`` and
``FiveAliveEngine``; ``fiveplay_env.five_alive.determinize`` has ``sample_world(config, state, player,
rng)`` and ``canonical(config, state, player)`` (determinization for search, the same signatures as
Take 5's; ``engine.sample_world`` is the same function); ``fiveplay_env.five_alive.observation.observe(config,
state, player)``.
"""
from __future__ import annotations

from typing import Any

from fiveplay_env.five_alive.config import PRESETS, FiveAliveConfig
from fiveplay_env.five_alive.env import METADATA, SPEC, FiveAliveAEC

metadata = METADATA
raw_env = FiveAliveAEC

__all__ = ["env", "raw_env", "metadata", "SPEC", "FiveAliveConfig", "PRESETS"]


def env(**kwargs: Any) -> FiveAliveAEC:
    """The AEC environment (no wrapper stack: checks happen once, inside the env)."""
    return FiveAliveAEC(**kwargs)
