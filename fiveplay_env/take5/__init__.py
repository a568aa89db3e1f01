"""Take 5 (6 nimmt!): config, state, reference engine, observation encoder, determinization, results,
renderer, PettingZoo env and batched engine. ``GAME`` is the game's definition
(``fiveplay_env.core.gamedef.GameDef``), listed in the table ``fiveplay_env.games``."""
from fiveplay_env.core.gamedef import GameDef
from fiveplay_env.core.spec import GameSpec
from fiveplay_env.take5 import determinize, results
from fiveplay_env.take5.config import MAX_PLAYERS, MIN_PLAYERS, PRESETS, Take5Config
from fiveplay_env.take5.engine import Take5Engine
from fiveplay_env.take5.observation import observation_size, observe
from fiveplay_env.take5.state import ACTION_WAIT, NUM_ACTIONS

SPEC = GameSpec("take5_v0", MIN_PLAYERS, MAX_PLAYERS, NUM_ACTIONS, version=0)
"""The game's facts that no config changes."""

GAME = GameDef(
    name="take5",
    title="Take 5",
    spec=SPEC,
    config_cls=Take5Config,
    presets=PRESETS,
    engine_cls=Take5Engine,
    observe_state=observe,
    observation_size=lambda config: observation_size(config.num_players, config.draft),
    env_module="fiveplay_env.take5_v0",
    batched="fiveplay_env.take5.batched:make_batched",
    jax_engine="fiveplay_env.take5.jax_engine",
    gym_id="fiveplay/Take5-v0",
    illegal_action_penalty=-200.0,  # worse than any game's score: bull heads
    summary=results.summary,
    digest_fields=results.digest_fields,
    step_bytes=results.step_bytes,
    results=results.results,
    metrics=results.METRICS,
    score="score",
    canonical=determinize.canonical,
    sample_world=determinize.sample_world,
    describe=("Take 5 (6 nimmt!, Take 6!, Category 5) for 2 to 10 players: every trick, all players choose "
              "a card at once; the cards are placed in ascending order on four rows, and the sixth card of "
              "a row takes it. Lowest score wins."),
    dynamics="simultaneous",
    wait_action=ACTION_WAIT,
    # one env step: at most one row taken per player (five cards of at most 7 bull heads)
    reward_bounds=lambda config: (-35.0, 0.0),
    preset_labels={"standard": "Standard game (to 66)", "single_round": "One round",
                   "auto_rows": "Automatic row choice", "professional": "Professional (known cards)",
                   "professional_draft": "Professional with draft"},
    compact="fiveplay_env.take5.compact:layout_of",
    openspiel="fiveplay_env.take5.openspiel",
    quick_preset="single_round",
    history=((0, "first release (0.1): the rules of docs/rules.md section 1, every default a config field"),),
)

__all__ = ["GAME", "SPEC"]
