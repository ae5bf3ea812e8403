"""Shared machinery below every family and learner: the episode engine, the run directory,
networks, typed configs, plots and the Variant protocol."""
