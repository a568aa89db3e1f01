"""Contract tests written once and run on every game of the table (``fiveplay_env.games``, the toy game of
``tests/toy_game`` included): the PettingZoo AEC and parallel APIs, spaces, errors, seeding, the vector
API against the reference engine, and records. Each game's own folder keeps only its rule scenarios
and what is particular to it."""
