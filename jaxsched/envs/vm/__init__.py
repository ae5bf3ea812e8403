"""The VM-placement family: double-NUMA physical machines fed a VM trace (VMAgent / CVD-RL)."""

from jaxsched.envs.vm.env import VmPlacement
from jaxsched.envs.vm.types import EnvParams, EnvState, Observation

__all__ = ["VmPlacement", "EnvParams", "EnvState", "Observation"]
