"""Adapters for RL libraries that need one; each module imports its library lazily (only when called).

| module       | library                       | what it gives                                                  |
|--------------|-------------------------------|----------------------------------------------------------------|
| ``rllib``    | Ray RLlib                     | ``FiveplayMultiAgentEnv``, a masked PPO RLModule, ``ppo_config`` |
| ``tianshou`` | Tianshou 2.x                  | ``tianshou_env(game, **config)``: ``PettingZooEnv`` over the AEC env with eliminated players' dead steps skipped |
| ``supersuit``| SuperSuit + Stable-Baselines3 | ``sb3_vec_env(parallel_env, num_vec_envs)``: SuperSuit's SB3 vector env with ``action_masks`` for ``MaskablePPO`` |
| ``sb3``      | Stable-Baselines3             | ``Sb3VecEnv``: the batched engines as an SB3 ``VecEnv`` (one learning seat per game) |
| ``openspiel``| OpenSpiel (``pyspiel``)       | both games registered as OpenSpiel Python games (``python_fiveplay_take5``, ``python_fiveplay_five_alive``); importing it registers them |

The plain Gymnasium vector env over the batched engines is ``fiveplay_env.vector_gym.GymVectorEnv``.
"""
