"""``python -m fiveplay_env.experiments.tournament``: see ``fiveplay_env.experiments.tournament.cli``."""
from __future__ import annotations

import sys

from fiveplay_env.experiments.tournament.cli import cli

if __name__ == "__main__":
    sys.exit(cli())
