"""``python -m experiments VERB ...``: the ``fiveplay`` command without its console script
(``experiments.cli``)."""
from __future__ import annotations

import sys

from experiments.cli import console

if __name__ == "__main__":
    console()
