"""5 Alive for agents: ``heuristics`` (the five-alive-* agents), ``adapter`` (what the arena, tournaments
and search need to know about the game: ``GAME``), ``rollouts`` (the search agent's opponent model and
playouts). The same file names as ``agents/take5/``."""
