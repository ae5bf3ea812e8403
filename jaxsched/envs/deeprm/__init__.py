"""The DeepRM family: online multi-resource job scheduling (DeepRM, DeepRM2, DeepRM_Off and the
MDP-design paper's compact state, event stepping and reduced reward)."""

from jaxsched.envs.deeprm.env import DeepRM
from jaxsched.envs.deeprm.types import EnvParams, EnvState, Jobset, Observation

__all__ = ["DeepRM", "EnvParams", "EnvState", "Jobset", "Observation"]
