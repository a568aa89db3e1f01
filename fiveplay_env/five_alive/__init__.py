"""5 Alive: config, state, reference engine, observation encoder, determinization, results, renderer,
PettingZoo env and batched engine. ``GAME`` is the game's definition
(``fiveplay_env.core.gamedef.GameDef``), listed in the table ``fiveplay_env.games``."""
from fiveplay_env.core.gamedef import GameDef
from fiveplay_env.core.spec import GameSpec
from fiveplay_env.five_alive import determinize, engine, results
from fiveplay_env.five_alive.config import MAX_PLAYERS, MIN_PLAYERS, PRESETS, FiveAliveConfig
from fiveplay_env.five_alive.engine import FiveAliveEngine
from fiveplay_env.five_alive.observation import observation_size, observe
from fiveplay_env.five_alive.state import NUM_ACTIONS

SPEC = GameSpec("five_alive_v0", MIN_PLAYERS, MAX_PLAYERS, NUM_ACTIONS, version=0)
"""The game's facts that no config changes."""

GAME = GameDef(
    name="five_alive",
    title="5 Alive",
    spec=SPEC,
    config_cls=FiveAliveConfig,
    presets=PRESETS,
    engine_cls=FiveAliveEngine,
    observe_state=observe,
    observation_size=lambda config: observation_size(config.num_players),
    env_module="fiveplay_env.five_alive_v0",
    batched="fiveplay_env.five_alive.batched:make_batched",
    jax_engine="fiveplay_env.five_alive.jax_engine",
    gym_id="fiveplay/FiveAlive-v0",
    illegal_action_penalty=-10.0,  # worse than any result: +-1 and lives
    summary=results.summary,
    digest_fields=results.digest_fields,
    step_bytes=results.step_bytes,
    results=results.results,
    metrics=results.METRICS,
    score="lives",
    canonical=determinize.canonical,
    sample_world=determinize.sample_world,
    condition=determinize.condition,
    sample_conditioned=determinize.sample_conditioned,
    alive=lambda state: state.alive,
    public_event=results.public_event,
    truncated=engine.truncated,
    describe=("5 Alive for 2 to 6 players: a shedding game around a running total that must not pass 21, "
              "with wild cards (Reverse, Skip, =21, =10, =0, Draw, Hand In & Re-Deal, Bomb); a player "
              "who cannot play loses a life, the last one alive wins."),
    dynamics="sequential",
    # one env step: a win or loss (+-1) and/or one life lost (-1), as config.reward says
    reward_bounds=lambda config: {"win_loss": (-1.0, 1.0), "lives": (-1.0, 0.0),
                                  "win_loss+lives": (-2.0, 1.0)}[config.reward],
    preset_labels={"standard": "Standard (4 players)", "two_player": "Two players", "six_player": "Six players",
                   "sudden_death": "Sudden death", "teams": "Teams (2 against 2)", "teams_6": "Teams of three",
                   "bomb_choice": "Bomb: 0 optional", "lives_reward": "Reward per life"},
    openspiel="fiveplay_env.five_alive.openspiel",
    record_v1_defaults={"max_steps": None},  # version-1 records: 5 Alive had no max_steps truncation yet
    history=((0, "first release (0.1): the rules of docs/rules.md section 2, every default a config field"),),
)

__all__ = ["GAME", "SPEC"]
