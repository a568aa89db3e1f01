"""Contract tests written once, in the library (``fiveplay_env.testing``, which a game's author runs with
``check_game``), and run here on every game of the table (``fiveplay_env.games``, the toy game of
``tests/toy_game`` included), each contract on each preset as its own test: the declared facts, the
PettingZoo AEC and parallel APIs, spaces, masks, errors, seeding, the vector API against the reference
engine, records and determinization. Each game's own folder keeps only what is particular to it."""
