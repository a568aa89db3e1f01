"""Take 5 (6 nimmt!, Take 6!, Category 5) for 2 to 10 players, as PettingZoo environments.

    from fiveplay_env import take5_v0
    env = take5_v0.env(num_players=4, render_mode="ansi")       # AEC: one decision at a time
    penv = take5_v0.parallel_env(num_players=4)                 # parallel: all cards in one step

Rules: ``docs/rules.md`` section 1, exactly; every [D] choice is a config field (``Take5Config``):
``num_players`` (2..10), ``row_pick`` ("player" | "min_bullheads"), ``end_score`` (66),
``end_inclusive`` (True), ``mode`` ("game" | "round" | "rounds:K"), ``professional`` (False),
``draft`` (False). Env options: ``render_mode`` (None | "ansi" | "human").

Agents: ``player_0 .. player_{n-1}``.

Actions (``Discrete(109)``):

| id       | meaning                                                              |
|----------|----------------------------------------------------------------------|
| 0..103   | play (or, in the draft, take) the card numbered id + 1               |
| 104..107 | take row 0..3 (only after your card turned out lower than every row) |
| 108      | WAIT: parallel env only, the one legal action of a player who has    |
|          | nothing to decide this step (another player's row choice or pick)    |

Observations: ``{"observation": float32[848 + 3n], "action_mask": int8[109]}``; the pieces are the
table in ``fiveplay_env.take5.observation`` (own hand, cards seen this round, the current trick during
a row choice, the draft pool, the four rows, scores and round penalties in seat order relative to the
observer, the observer's seat, the phase and the trick; with ``draft=True`` also every other player's
hand, public since every pick was made face up, so the size is then ``848 + 3n + 104 (n - 1)``). Values
lie in ``[0, observation_high(config)]`` (scores over ``end_score`` can pass 1). In AEC, an agent that
does not act has an all-zero mask.

| offset | size     | piece     | meaning                                                            |
|--------|----------|-----------|--------------------------------------------------------------------|
| 0      | 104      | hand      | 1 where the observer holds card id (number id+1)                   |
| 104    | 104      | seen      | 1 for every card revealed this round (row starters, played, taken) |
| 208    | 104      | trick     | cards revealed in the current trick (set while its cards are       |
|        |          |           | placed, i.e. visible during a row choice)                          |
| 312    | 104      | pool      | the face-up draft pool (draft phase only)                          |
| 416    | 416      | rows      | 104 columns per row r = 0..3, in row order: 1 where card id lies   |
|        |          |           | in row r                                                           |
| 832    | 12       | row_stats | 3 columns per row r = 0..3, in row order: last card number/104,    |
|        |          |           | length/5, bull heads/10                                            |
| 844    | n        | scores    | each player's score / end_score (relative seats)                   |
| 844+n  | n        | round_pen | each player's penalty this round / end_score (relative seats)      |
| 844+2n | n        | seat      | one-hot of the observer's absolute seat (AEC choice order, draft   |
|        |          |           | order)                                                             |
| 844+3n | 3        | phase     | one-hot: draft, play, row choice (all 0 once the game is over)     |
| 847+3n | 1        | tricks    | tricks completed this round / 10                                   |
| 848+3n | 104(n-1) | others    | ``draft=True`` only: 104 per other player (relative seats 1..n-1), |
|        |          |           | 1 where that player holds card id, its unrevealed choice of this   |
|        |          |           | trick included (every draft pick is public: docs/rules.md 1.5)     |

(``fiveplay_env.take5.observation.LAYOUT`` is this table as data; ``observation.pieces(n, draft)`` gives
each piece's offset and size for code.)

Misuse: a bad config value raises ``ValueError`` naming the field; ``config=`` is a ``Take5Config``
given alone (with other config keywords it is refused); an illegal action raises ``IllegalActionError``
(nothing changes); ``step``/``last``/``observe`` before ``reset()``, or ``step`` once every agent is
done, raise ``ResetNeededError``; a parallel step takes a dict with one action per live agent (unknown
agent keys are refused). An action is an action id as an int, a numpy integer (``np.int64(3)``) or a
0-d integer array (``np.array(3)``); anything else, a float (``3.0``), a bool, or an array with a
dimension (``np.array([3])``: a batch of one is not one action), raises ``IllegalActionError`` saying
which forms are accepted (``core.errors.action_id``), and nothing changes. ``engine.new_game`` and the
engine classes refuse anything but a ``Take5Config`` (``ValueError``).

Decision order (AEC): draft picks first (draft mode); each trick, players 0..n-1 choose in turn
without seeing the choices made before them; the trick then resolves; a too-low card with
``row_pick="player"`` asks its owner for a row after all cards of the trick are revealed.

Rewards: minus the bull heads a player takes, at the step they are taken (so an episode's return is
minus the final score). ``infos[agent]`` (AEC and parallel) has the same keys and numeric types at every
step, reset and the last step included (``fiveplay_env.take5.env.info_of``): ``score`` (int),
``round_penalty`` (int), ``round`` (int) and ``winner`` (bool: False until the game is over; tied lowest
scores share the win); at the last step ``score`` is the final score. SuperSuit's vector env merges the
next game's reset infos over the last step's: ``fiveplay_env.integrations.supersuit.sb3_vec_env`` adds
``final_score`` and ``final_winner`` to the last step's infos for it. ``state()`` / ``state_space``: every seat's observation concatenated in seat order, float32
[n * (848 + 3n)] (``fiveplay_env.core.state_view``), for centralised critics.

Errors: an illegal action raises ``IllegalActionError`` (a ``ValueError`` naming the agent, the action
and the legal ids) and changes nothing; ``fiveplay_env.wrappers.IllegalActionPenalty`` (AEC) and
``IllegalActionPenaltyParallel`` turn it into a penalty and the end of the episode instead. A bad
config value raises ``ValueError`` naming the field. ``reset(seed=...)`` is reproducible, and the AEC
and parallel envs give the same game for the same seed and actions.
"""
from __future__ import annotations

from typing import Any

from fiveplay_env.take5.config import PRESETS, Take5Config
from fiveplay_env.take5.env import METADATA, SPEC, Take5AEC, Take5Parallel

metadata = METADATA
raw_env = Take5AEC
ParallelEnv = Take5Parallel

__all__ = ["env", "raw_env", "parallel_env", "metadata", "SPEC", "Take5Config", "PRESETS"]


def env(**kwargs: Any) -> Take5AEC:
    """The AEC environment (no wrapper stack: checks happen once, inside the env)."""
    return Take5AEC(**kwargs)


def parallel_env(**kwargs: Any) -> Take5Parallel:
    """The native parallel environment."""
    return Take5Parallel(**kwargs)
