"""Non-learned schedulers with the same call signature as a learned policy: ``policy(key, obs) -> action``."""

from jaxsched.baselines.deeprm import (HEURISTICS, easy_backfilling, fcfs, make_heuristic, packer, random_policy, sjf,
                                  tetris)

__all__ = ["HEURISTICS", "easy_backfilling", "fcfs", "make_heuristic", "packer", "random_policy", "sjf", "tetris"]
