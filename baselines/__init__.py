"""Non-learned schedulers with the same call signature as a learned policy: ``policy(key, obs) -> action``."""

from baselines.heuristics import HEURISTICS, fcfs, make_heuristic, packer, random_policy, sjf, tetris

__all__ = ["HEURISTICS", "fcfs", "make_heuristic", "packer", "random_policy", "sjf", "tetris"]
