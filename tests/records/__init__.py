"""Game records (``fiveplay_env.records``): exact replay, the chained step hash, malformed input."""
