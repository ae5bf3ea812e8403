"""Environments (gymnax-compatible, jittable, vmappable)."""

from jaxsched.envs.deeprm import DeepRM, EnvParams, EnvState, Observation

__all__ = ["DeepRM", "EnvParams", "EnvState", "Observation"]
