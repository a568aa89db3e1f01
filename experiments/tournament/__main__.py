"""``python -m experiments.tournament``: see ``experiments.tournament.cli``."""
from __future__ import annotations

import sys

from experiments.tournament.cli import cli

if __name__ == "__main__":
    sys.exit(cli())
