"""Non-learned schedulers with the same call signature as a learned policy: ``policy(key, obs) -> action``."""

from jaxsched.baselines.deeprm import (HEURISTICS, easy_backfilling, fcfs, make_heuristic, packer, random_policy, sjf,
                                  tetris)
from jaxsched.baselines.hpc import HPC_HEURISTICS, make_hpc_heuristic

__all__ = ["HEURISTICS", "HPC_HEURISTICS", "easy_backfilling", "fcfs", "make_heuristic", "make_hpc_heuristic", "packer",
           "random_policy", "sjf", "tetris"]
