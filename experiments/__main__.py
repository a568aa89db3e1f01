"""``python -m fiveplay_env.experiments VERB ...``: the ``fiveplay`` command without its console script
(``fiveplay_env.experiments.cli``)."""
from __future__ import annotations

import sys

from fiveplay_env.experiments.cli import console

if __name__ == "__main__":
    console()
