"""The grid family: one grid site, fair-share scheduling and elastic provisioning (SARSA + ESN paper)."""

from jaxsched.envs.grid.env import GridSite
from jaxsched.envs.grid.types import EnvParams, EnvState, GridJobs, Observation

__all__ = ["GridSite", "EnvParams", "EnvState", "GridJobs", "Observation"]
