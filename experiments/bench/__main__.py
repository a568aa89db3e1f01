"""``python -m fiveplay_env.experiments.bench`` (``fiveplay bench``)."""
import sys

from fiveplay_env.experiments.bench.cli import main

if __name__ == "__main__":
    main(sys.argv[1:])
