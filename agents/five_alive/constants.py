"""The 5 Alive heuristics' tuning, shared by the per-game rules (``heuristics``), their batched twin
(``batch``) and the search rollouts (``rollouts``): one definition each."""
from __future__ import annotations

from fiveplay_env.five_alive.state import BOMB, DRAW1, DRAW2, EQ0, EQ10, EQ21, PASS, REDEAL, REVERSE, SKIP

EMERGENCY_ORDER: tuple[int, ...] = (EQ21, SKIP, REVERSE, PASS, DRAW2, DRAW1, BOMB, EQ10, EQ0, REDEAL)
"""Wild cards in the order the bots spend them when no number fits (most harmful to others first)."""
KEEP_TOTAL = (SKIP, REVERSE, PASS, DRAW1, DRAW2)
"""Wild kinds that leave T as it is."""
BOMB_MEAN_CARDS = 3.0
"""five-alive-attacker plays its Bomb once the opponents hold this many cards on average (or fewer)."""
DRAW_ALERT_CARDS = 2
"""... and a Draw card once some opponent holds this many cards (or fewer)."""
REDEAL_MARGIN = 3.0
"""... and Hand In & Re-Deal when it holds this many cards more than the opponents' mean."""
