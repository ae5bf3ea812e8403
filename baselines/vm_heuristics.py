"""First-Fit and Best-Fit for :class:`jaxsched.envs.vm.VmPlacement`, as ``../shared/spec/vm.md`` defines them.

Both are ``policy(key, obs) -> int32 action`` and jittable. For a double-NUMA VM both actions of a
PM mean the same placement; the policies return the PM's NUMA-0 action. With nothing feasible they
return 0 (the env then ends the episode, which it would do anyway).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def first_fit(key: jax.Array, obs) -> jax.Array:
    """The first feasible action: lowest PM, NUMA 0 before NUMA 1."""
    return jnp.argmax(obs.action_mask).astype(jnp.int32)


def best_fit_scores(obs) -> jax.Array:
    """float32[2N] remaining-CPU ratio of the chosen NUMA after placing (a double VM: the larger
    of its PM's two NUMAs); +inf where infeasible. Lower is a tighter fit."""
    num_actions = obs.action_mask.shape[-1]
    pm, numa = jnp.arange(num_actions) // 2, jnp.arange(num_actions) % 2
    single = (obs.cpu[pm, numa] - obs.request_cpu) / obs.numa_cpu
    double = jnp.max(obs.cpu[pm] - 0.5 * obs.request_cpu, axis=-1) / obs.numa_cpu
    score = jnp.where(obs.is_double, double, single)
    return jnp.where(obs.action_mask, score, jnp.inf)


def best_fit(key: jax.Array, obs) -> jax.Array:
    """The feasible action leaving the smallest remaining-CPU ratio; ties to the lowest index."""
    return jnp.argmin(best_fit_scores(obs)).astype(jnp.int32)


VM_HEURISTICS = {"first_fit": first_fit, "best_fit": best_fit}
