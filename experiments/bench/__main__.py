"""``python -m experiments.bench`` (``fiveplay bench``)."""
import sys

from experiments.bench.cli import main

if __name__ == "__main__":
    main(sys.argv[1:])
