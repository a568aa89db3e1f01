"""Take 5 for agents: ``heuristics`` (the take5-* agents), ``adapter`` (what the arena, tournaments and
search need to know about the game: ``GAME``), ``rollouts`` (the search agent's opponent model and
playouts). The same file names as ``agents/five_alive/``."""
