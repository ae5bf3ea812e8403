"""``python -m jaxsched``: the version, and the commands the package offers (each is its own module,
so each keeps its own ``--help``)."""

from __future__ import annotations

import sys

from jaxsched import __version__

COMMANDS = (
    ("jaxsched.train", "train a learner from a config (configs/*.yaml)"),
    ("jaxsched.evaluate", "evaluate heuristics or a checkpoint on any registered env"),
    ("jaxsched.sweep", "seed and hyper-parameter sweeps of a config"),
    ("jaxsched.bench", "benchmarks: env, train, vm, grid"),
    ("jaxsched.data", "datasets: list, fetch, build, path"),
    ("jaxsched.studies.<name>", "the studies behind results/ (see README)"),
    ("jaxsched.reproduce", "remake any item of results/: --list, ID, all, --quick"),
)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv in (["--version"], ["-V"]):
        print(f"jaxsched {__version__}")
        return 0
    print("jaxsched: JAX environments, baselines and learners for cluster scheduling.\n\n"
          "usage: python -m jaxsched --version\n       python -m <command> --help\n\ncommands:")
    for module, what in COMMANDS:
        print(f"  python -m {module:<24} {what}")
    if not argv or argv in (["-h"], ["--help"]):
        return 0
    print(f"error: unknown arguments {' '.join(argv)}; give --version, --help or none", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
