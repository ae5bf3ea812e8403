"""First-Fit, Best-Fit, a PM-level Best-Fit and a room-keeping fit for
:class:`jaxsched.envs.vm.env.VmPlacement` (``docs/semantics/vm.md``), and top-k candidate masks from any
heuristic score.

``pm_best_fit`` stands in for the CVD-RL paper's unpublished in-house scheduler ("a Best-Fit
variant"). Its rule: choose the feasible placement that leaves the **whole PM** (both NUMAs) with the
least remaining capacity, cpu and memory ratios summed over the two NUMAs after placing; within a PM
(where that sum is the same for both NUMAs) the NUMA Best-Fit prefers (its ratio enters with weight
1/1024); remaining ties to the lowest index. Best-Fit looks at one NUMA's CPU only, so the two rank candidates differently (PM-level
and memory-aware), which is what a top-k union of the two needs.

``room_fit`` (ours, a reference beyond the issue's three; a fragmentation-gradient rule in the spirit
of FGD, Weng et al., ATC'23) chooses the placement that loses the least of the PM's *usable room*
for the trace's request mix (:func:`usable_room`), so it needs the mix: :func:`heuristic_policy`
builds any of the four for a variant.

All are ``policy(key, obs) -> int32 action`` and jittable. For a double-NUMA VM both actions of a
PM mean the same placement; the policies return the PM's NUMA-0 action. With nothing feasible they
return 0 (the env then ends the episode, which it would do anyway).
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxsched.envs.vm.env import best_fit, best_fit_scores  # the env's default scheduler (warm start)
from jaxsched.envs.vm.trace import CREATE

MAX_TYPES = 16  # the most frequent create sizes a request mix keeps (the synthetic mixes have 8-10)
ROUNDING = 1e-4  # ratio slack so that a VM filling a NUMA exactly counts as fitting


def first_fit(key: jax.Array, obs) -> jax.Array:
    """The first feasible action: lowest PM, NUMA 0 before NUMA 1."""
    return jnp.argmax(obs.action_mask).astype(jnp.int32)


def pm_best_fit_scores(obs) -> jax.Array:
    """float32[2N] Σ over the PM's two NUMAs of remaining cpu and mem ratios after placing, plus
    Best-Fit's ratio / 1024 to choose the NUMA; +inf where infeasible. Lower is a fuller PM."""
    num_actions = obs.action_mask.shape[-1]
    share = jnp.where(obs.is_double, jnp.full((num_actions, 2), 0.5), jax.nn.one_hot(jnp.arange(num_actions) % 2, 2))
    cpu_left = (jnp.repeat(obs.cpu, 2, axis=0) - share * obs.request_cpu) / obs.numa_cpu
    mem_left = (jnp.repeat(obs.mem, 2, axis=0) - share * obs.request_mem) / obs.numa_mem
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


class RequestMix(NamedTuple):
    """Request types and their shares of creates, sizes in ratios of a NUMA's capacity."""

    cpu: jax.Array  # float32[T] cpu / numa_cpu (a double type's total)
    mem: jax.Array  # float32[T]
    double: jax.Array  # bool[T]
    weight: jax.Array  # float32[T] summing to 1


def request_mix(requests, params, max_types: int = MAX_TYPES) -> RequestMix:
    """The ``max_types`` most frequent (cpu, mem) create sizes of ``requests`` and their shares."""
    valid = np.asarray(requests.valid) & (np.asarray(requests.kind) == CREATE)
    sizes = np.stack([np.asarray(requests.cpu)[valid], np.asarray(requests.mem)[valid]], axis=1)
    if len(sizes) == 0:
        raise ValueError("the trace has no create to take a request mix from")
    types, counts = np.unique(sizes, axis=0, return_counts=True)
    keep = np.argsort(-counts, kind="stable")[:max_types]
    types, counts = types[keep], counts[keep]
    double = (types[:, 1] > params.double_mem_above) | (types[:, 0] >= params.double_cpu_from)
    return RequestMix(cpu=jnp.asarray(types[:, 0] / params.numa_cpu, jnp.float32),
                      mem=jnp.asarray(types[:, 1] / params.numa_mem, jnp.float32),
                      double=jnp.asarray(double), weight=jnp.asarray(counts / counts.sum(), jnp.float32))


def usable_room(mix: RequestMix, pm_state: jax.Array) -> jax.Array:
    """Φ(PM) = Σ_t w_t s_t n_t(PM) for PMs ``pm_state[..., 4]`` (remaining cpu0, cpu1, mem0, mem1
    over a NUMA's capacity): n_t how many more type-t VMs fit (per NUMA for a single-NUMA type, half
    on each NUMA for a double one), s_t the type's cpu share of a PM, w_t its share of creates. In PMs
    of cpu the mix can still use: a hole no type fits counts 0."""
    return jnp.sum(mix.weight * 0.5 * mix.cpu * type_fits(mix, pm_state), axis=-1)


def type_fits(mix: RequestMix, pm_state: jax.Array) -> jax.Array:
    """float32[..., T] how many more VMs of each type of ``mix`` fit on PMs ``pm_state[..., 4]``
    (see :func:`usable_room`)."""
    cpu, mem = pm_state[..., None, 0:2], pm_state[..., None, 2:4]  # [..., 1, 2]
    single = jnp.floor(jnp.minimum(cpu / mix.cpu[:, None], mem / mix.mem[:, None]) + ROUNDING)  # [..., T, 2]
    single = jnp.sum(jnp.maximum(single, 0.0), axis=-1)
    double = jnp.floor(jnp.min(jnp.minimum(cpu / (0.5 * mix.cpu[:, None]), mem / (0.5 * mix.mem[:, None])),
                               axis=-1) + ROUNDING)
    return jnp.where(mix.double, jnp.maximum(double, 0.0), single)


def pm_ratios(obs) -> jax.Array:
    """float32[N, 4] remaining cpu0, cpu1, mem0, mem1 over a NUMA's capacity."""
    return jnp.concatenate([obs.cpu / obs.numa_cpu, obs.mem / obs.numa_mem], axis=-1)


def ratios_after(pm_state: jax.Array, cpu, mem, double) -> jax.Array:
    """float32[2N, 4] the chosen PM's remaining ratios ``pm_state[N, 4]`` after each action, for a
    request of ``cpu`` / ``mem`` (ratios of a NUMA) that is ``double`` (half from each NUMA) or not;
    infeasible actions may go negative."""
    num_actions = 2 * pm_state.shape[0]
    numa = jnp.arange(num_actions) % 2
    share = jnp.where(double, jnp.full((num_actions, 2), 0.5), jax.nn.one_hot(numa, 2))
    return pm_state[jnp.arange(num_actions) // 2] - jnp.concatenate([share * cpu, share * mem], axis=-1)


def after_placement(obs) -> jax.Array:
    """float32[2N, 4] the chosen PM's :func:`pm_ratios` after each action (:func:`ratios_after`)."""
    return ratios_after(pm_ratios(obs), obs.request_cpu / obs.numa_cpu, obs.request_mem / obs.numa_mem,
                        obs.is_double)


def room_lost_between(mix: RequestMix, pm_state: jax.Array, after: jax.Array) -> jax.Array:
    """float32[2N] Φ(PM before) − Φ(PM after) of each action's PM, from ``pm_state[N, 4]`` and the
    actions' ``after[2N, 4]`` (see :func:`usable_room`)."""
    return usable_room(mix, pm_state)[jnp.arange(after.shape[0]) // 2] - usable_room(mix, after)


def room_loss(mix: RequestMix, obs) -> jax.Array:
    """float32[2N] the usable room each action costs its PM (:func:`room_lost_between`)."""
    return room_lost_between(mix, pm_ratios(obs), after_placement(obs))


def room_fit_scores(mix: RequestMix, obs) -> jax.Array:
    """float32[2N] :func:`room_loss`, ties to the PM-level Best-Fit; +inf where infeasible."""
    return jnp.where(obs.action_mask, room_loss(mix, obs) + 1e-3 * pm_best_fit_scores(obs), jnp.inf)


def room_fit(mix: RequestMix) -> Callable:
    """The policy choosing the feasible action with the least :func:`room_loss`, ties to the
    PM-level Best-Fit (then the lowest index)."""
    return lambda key, obs: jnp.argmin(room_fit_scores(mix, obs)).astype(jnp.int32)


def cvd_candidates(obs, k_best_fit: int = 2, k_pm_best_fit: int = 3, k_room_fit: int = 0,
                   mix: RequestMix | None = None) -> jax.Array:
    """CVD-RL's candidate set: top-``k_best_fit`` by Best-Fit ∪ top-``k_pm_best_fit`` by the second
    Best-Fit variant (k = 5 in the paper; the union may hold fewer when they agree) ∪
    top-``k_room_fit`` by :func:`room_fit_scores` (ours; needs the ``mix``)."""
    candidates = top_k_mask(best_fit_scores(obs), k_best_fit, obs) | top_k_mask(pm_best_fit_scores(obs),
                                                                                k_pm_best_fit, obs)
    if k_room_fit > 0:
        if mix is None:
            raise ValueError("room_fit candidates need the request mix")
        candidates = candidates | top_k_mask(room_fit_scores(mix, obs), k_room_fit, obs)
    return candidates


VM_HEURISTICS = {"first_fit": first_fit, "best_fit": best_fit, "pm_best_fit": pm_best_fit}
MIX_HEURISTICS = {"room_fit": room_fit}  # built from the variant's request mix
HEURISTIC_NAMES = tuple(VM_HEURISTICS) + tuple(MIX_HEURISTICS)


def heuristic_policy(name: str, variant) -> Callable:
    """The heuristic ``name`` for ``variant`` (the mix-based ones read its whole trace)."""
    if name not in HEURISTIC_NAMES:
        raise ValueError(f"unknown VM heuristic {name!r}; choose from {', '.join(HEURISTIC_NAMES)}")
    if name in MIX_HEURISTICS:
        return MIX_HEURISTICS[name](request_mix(variant.trace, variant.params))
    return VM_HEURISTICS[name]
