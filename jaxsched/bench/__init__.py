"""The benchmarks, ``python -m jaxsched.bench SUBCOMMAND`` (:mod:`jaxsched.bench.cli` parses it): one module per
subcommand (env, train, vm, grid, dispatch, event, public_step, train-sb3's sb3; vector: env's "vector env"
rows), what they share in :mod:`~jaxsched.bench.common` and the reference simulators they are timed against in
:mod:`~jaxsched.bench.reference`. Nothing here is imported by the library."""
