"""``python -m jaxsched.bench``: the benchmarks' command line (:mod:`jaxsched.bench.cli`)."""

import sys

from jaxsched.bench.cli import main

if __name__ == "__main__":
    sys.exit(main())
