"""First-Fit, Best-Fit and a PM-level Best-Fit for :class:`jaxsched.envs.vm.VmPlacement`
(``../shared/spec/vm.md``), and top-k candidate masks from any heuristic score.

``pm_best_fit`` stands in for the CVD-RL paper's unpublished in-house scheduler ("a Best-Fit
variant"). Its rule: choose the feasible placement that leaves the **whole PM** (both NUMAs) with the
least remaining capacity, cpu and memory ratios summed over the two NUMAs after placing; within a PM
(where that sum is the same for both NUMAs) the NUMA Best-Fit prefers (its ratio enters with weight
1/1024); remaining ties to the lowest index. Best-Fit looks at one NUMA's CPU only, so the two rank candidates differently (PM-level
and memory-aware), which is what a top-k union of the two needs.

All are ``policy(key, obs) -> int32 action`` and jittable. For a double-NUMA VM both actions of a
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


def pm_best_fit_scores(obs) -> jax.Array:
    """float32[2N] Σ over the PM's two NUMAs of remaining cpu and mem ratios after placing, plus
    Best-Fit's ratio / 1024 to choose the NUMA; +inf where infeasible. Lower is a fuller PM."""
    num_actions = obs.action_mask.shape[-1]
    pm, numa = jnp.arange(num_actions) // 2, jnp.arange(num_actions) % 2
    share = jnp.where(obs.is_double, jnp.full((num_actions, 2), 0.5), jax.nn.one_hot(numa, 2))
    cpu_left = (obs.cpu[pm] - share * obs.request_cpu) / obs.numa_cpu
    mem_left = (obs.mem[pm] - share * obs.request_mem) / obs.numa_mem
    return jnp.sum(cpu_left + mem_left, axis=-1) + best_fit_scores(obs) / 1024.0


def pm_best_fit(key: jax.Array, obs) -> jax.Array:
    """The feasible action leaving the fullest PM (see the module doc); ties to the lowest index."""
    return jnp.argmin(pm_best_fit_scores(obs)).astype(jnp.int32)


def top_k_mask(scores: jax.Array, k: int, obs) -> jax.Array:
    """bool[2N]: the ``k`` feasible actions with the lowest ``scores`` (ties to the lowest index).

    For a double-NUMA VM both actions of a PM are one placement, so only NUMA 0's counts and the
    ``k`` candidates are ``k`` distinct PMs. Fewer than ``k`` feasible actions: all of them."""
    num_actions = scores.shape[-1]
    duplicate = obs.is_double & (jnp.arange(num_actions) % 2 == 1)
    scores = jnp.where(obs.action_mask & ~duplicate, scores, jnp.inf)
    k = min(int(k), num_actions)
    _, chosen = jax.lax.top_k(-scores, k)  # stable: equal scores keep the lower index first
    picked = jnp.zeros(num_actions, bool).at[chosen].set(True)
    return picked & jnp.isfinite(scores)


def cvd_candidates(obs, k_best_fit: int = 2, k_pm_best_fit: int = 3) -> jax.Array:
    """CVD-RL's candidate set: top-``k_best_fit`` by Best-Fit ∪ top-``k_pm_best_fit`` by the second
    Best-Fit variant (k = 5 in the paper; the union may hold fewer when the two agree)."""
    return (top_k_mask(best_fit_scores(obs), k_best_fit, obs)
            | top_k_mask(pm_best_fit_scores(obs), k_pm_best_fit, obs))


VM_HEURISTICS = {"first_fit": first_fit, "best_fit": best_fit, "pm_best_fit": pm_best_fit}
