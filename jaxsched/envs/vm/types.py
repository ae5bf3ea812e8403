"""The VM-placement family's data types: the env's params (the trace window is data in them), state
and observation."""

from __future__ import annotations

import jax
from flax import struct
from gymnax.environments import environment

from jaxsched.envs.vm.trace import VmRequests


@struct.dataclass
class EnvParams(environment.EnvParams):
    requests: VmRequests | None = None
    numa_cpu: float = 40.0  # per NUMA (VMAgent's config; another branch: 42)
    numa_mem: float = 90.0  # per NUMA, GB (another branch: 160)
    double_mem_above: float = 32.0  # double-NUMA when mem > this ...
    double_cpu_from: float = float("inf")  # ... or cpu >= this
    warm_start: float = 0.0  # ρ_ws: Best-Fit pre-fills until this share of CPU is allocated
    initial_pms: int = 0  # PMs in service at the start; 0 = all (non-expansion)
    pms_per_expansion: int = 10  # PMs added when a create fits nowhere (expansion scenario)
    price_per_cpu_hour: float = 0.03  # income's price model (per vCPU-hour) ...
    price_per_gb_hour: float = 0.004  # ... plus per GB-hour
    max_steps_in_episode: int = 1_000_000


@struct.dataclass
class EnvState(environment.EnvState):
    time: jax.Array  # decisions taken
    pos: jax.Array  # int32 row of the create being decided (= length when none is left)
    cpu: jax.Array  # float32[N, 2] remaining cpu per NUMA
    mem: jax.Array  # float32[N, 2] remaining mem per NUMA
    placed_pm: jax.Array  # int32[L] PM each create row was placed on (kept after its delete), -1 if never
    taken: jax.Array  # float32[L, 4] what each create row took: cpu per NUMA, then mem (freed by its delete)
    placed: jax.Array  # int32 number of VMs placed (by the agent; warm start excluded)
    active: jax.Array  # int32 PMs in service (the first ``active`` of N)
    income: jax.Array  # float32 Σ lifetime (h) × hourly price of the VMs the agent placed
    requests: VmRequests


@struct.dataclass
class Observation:
    """Per-PM features share one layout, so a network can be applied to every PM alike."""

    features: jax.Array  # float32[N, 7] see NUM_FEATURES
    action_mask: jax.Array  # bool[2N] feasible placements (for a double VM both NUMAs of a PM)
    cpu: jax.Array  # float32[N, 2] remaining cpu (raw units; heuristics use these)
    mem: jax.Array  # float32[N, 2] remaining mem
    request_cpu: jax.Array  # float32 the create's total cpu (0 when none is left)
    request_mem: jax.Array  # float32
    is_double: jax.Array  # bool
    numa_cpu: jax.Array  # float32 capacity per NUMA
    numa_mem: jax.Array  # float32
