"""Throughput benchmark: random legal play, decisions per second, median of several runs.

    fiveplay bench                    # everything, default sizes
    fiveplay bench --games take5 --players 4 --repeats 5 --seconds 2

Written over ``GameDef`` (``fiveplay_env.games``): every registered game is measured with its own
reference engine, envs, batched engine (``batched``), compact observation (``compact``) and JAX engine
(``jax_engine``); a game without one of them has no such rows. The package: ``runners`` (the loops of
the reference engines, the envs and the numpy batched engines), ``jax_rows`` (JAX, Pgx, the paired
protocol, the options), ``cli`` (the command line).

Rows (every mode side by side in one run):
- ``engine``: the reference engine alone, acting player's mask only (card plays / decisions per s);
- ``engine+obs``: the reference engine producing the acting player's observation and mask;
- ``aec``: the AEC env through ``agent_iter`` / ``last`` / ``step`` (observations and masks);
- ``parallel``: the parallel env (games whose ``dynamics`` are simultaneous); one decision per player
  that is not waiting (``GameDef.wait_action``);
- ``batched`` rows: the batched engines, B games at once, with and without observation encoding
  (and with the game's compact uint8 observation where it declares one: ``GameDef.compact``).
- ``jax`` rows (the optional ``jax`` extra; written over any game's ``fiveplay_env.<game>.jax_engine``,
  so every game with a JAX engine gets them): at each ``--jax-batch`` size B, the numpy batched engine
  with observations (what ``make_vec`` returns at every step) beside the JAX engine (Pgx's protocol:
  ``vmap`` of a step with same-step autoreset, random legal actions drawn in JAX, the float observation
  in the state) as a Python loop of jitted steps and as ``lax.scan`` over 64 steps; the compile times of
  both and the bytes per game of the JAX state; and, when ``pgx`` is installed, Pgx's tic-tac-toe and
  Leduc hold'em on the same protocol (``pgx.experimental.auto_reset``), with the ratios of the same run.
- ``--options`` rows: what each rule option costs, per game with a JAX engine, at one batch size (the
  largest ``--jax-batch`` up to 4,096) and 4 players: the numpy batched engine with observations and the
  JAX engine (``lax.scan`` over 64 steps) under each option alone (``jax_rows.options_of``: each of the
  game's presets as the fields it changes, and the compact observation), each beside the
  default rules as a ratio of the same run (below 1: the option slows the engine down), and the default
  rules measured again at the end (its ratio shows the run's drift: compare the options' ratios with it).
- ``--paired ROUNDS`` (the repeatable JAX figure; with ``--cpus`` to pin the process): the JAX section as
  paired rounds instead: per game and batch size, the JAX engine (``lax.scan`` over 64 steps), the numpy
  batched engine with observations and Pgx's two games are all compiled and warmed first, then each
  round runs one ``--seconds`` pass of each, the order rotated by one every round, and every ratio is
  taken within a round (passes seconds apart see the same machine): the median of the rounds' ratios
  with their range. JAX's passes on a shared CPU drift by more than the options cost (1.5-3x within a
  run was seen); a ratio of two passes run side by side moves much less.
Random actions are drawn from the mask inside the timed loop. Quote ratios, not single times.

    fiveplay bench --jax-only --paired 9 --cpus 0 --jax-batch 4096 --seconds 1
"""
from __future__ import annotations

from fiveplay_env.experiments.bench.cli import available_games, main
from fiveplay_env.experiments.bench.jax_rows import _jax_module, _numpy_option_rate, _paired_passes, _Runner, options_of
from fiveplay_env.experiments.bench.runners import (aec_runner, batched_rate, bytes_per_game, compact_rate, default_players,
                                       engine_runner, median_rate, parallel_runner)

__all__ = ["main", "available_games", "options_of", "default_players", "engine_runner", "aec_runner",
           "parallel_runner", "batched_rate", "compact_rate", "bytes_per_game", "median_rate",
           "_jax_module", "_numpy_option_rate", "_paired_passes", "_Runner"]
