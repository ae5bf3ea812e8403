"""Episodes of the VM-placement env at trace start points: start draws, initial-state pools, evaluation.

An episode is the trace window ``[start, start + variant.window)``. VMAgent draws start rows once and
reuses them every epoch; :func:`draw_starts` does the same from a key. Learners restart finished
episodes from a *pool* of precomputed initial states (one per start point): the initial state may
hold a warm start (a Best-Fit loop over hundreds of creates), which would otherwise be recomputed on
every vmapped step by an auto-reset.
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np

from jaxsched.core.progress import progress
from jaxsched.core.rollout import run_episode
from jaxsched.envs.vm.env import mean_cpu_allocation
from jaxsched.envs.vm.trace import window


def draw_starts(key: jax.Array, variant, count: int, held_out: bool = False) -> jax.Array:
    """int32[count] start rows uniform in the variant's training range, or its held-out range
    (:meth:`~jaxsched.envs.vm.variants.VmVariant.start_range`; the same range unless
    ``held_out_from`` splits it)."""
    low, high = variant.start_range(held_out)
    return jax.random.randint(key, (count,), low, high, jnp.int32)


def params_at(variant, start: jax.Array):
    """The variant's params with the window starting at row ``start`` (may be traced)."""
    return variant.params.replace(requests=window(variant.trace, start, variant.window))


def initial_state_pool(variant, starts: jax.Array):
    """EnvState batched over ``starts`` (warm start included)."""
    env = variant.env
    return jax.jit(jax.vmap(lambda s: env.initial_state(params_at(variant, s))))(starts)


def evaluate_policies(variant, policies: dict[str, Callable], starts: jax.Array, key: jax.Array) -> dict:
    """:func:`evaluate_at` on the windows starting at ``starts``."""
    return evaluate_at(variant, policies, jax.vmap(lambda s: params_at(variant, s))(starts), key)


def evaluate_at(variant, policies: dict[str, Callable], batched_params, key: jax.Array) -> dict:
    """``{name: {metric: float64[starts]}}``: one episode per start point and policy, to its end.

    Metrics: ``scheduled_length``, ``cpu_allocation`` (at the episode's end), ``cpu_allocation_mean``
    (averaged over the episode's time, :func:`jaxsched.envs.vm.env.mean_cpu_allocation`: the episode
    runs on the env with the ``"allocation"`` reward, whose return is the sum it needs), ``income``,
    ``active_pms``, ``decisions``, ``window_exhausted`` (the episode ended because the window ran
    out of creates, not because a create fit nowhere: lengthen the window if this is common) and
    ``ended`` (1 where the episode ended, 0 where the step cap cut it: VM placement's unfinished work,
    since a placement episode has no jobs left over, only a score that a cut episode understates)."""
    env = variant.env.with_reward("allocation")  # same dynamics; the return is Σ_t allocation rate
    results = {}
    count = jax.tree.leaves(batched_params)[0].shape[0]
    for name, policy in progress(policies.items(), "VM episodes", total=len(policies)):
        def episode(params, k, policy=policy):
            result = run_episode(env, params, policy, k)
            metrics = env.metrics(result.state, params)
            metrics["cpu_allocation_mean"] = mean_cpu_allocation(result.episode_return, result.state.placed,
                                                                 metrics["cpu_allocation"])
            metrics["decisions"] = result.decisions
            metrics["window_exhausted"] = result.state.pos >= variant.window
            metrics["ended"] = result.terminated
            return metrics

        keys = jax.random.split(key, count)
        out = jax.jit(jax.vmap(episode))(batched_params, keys)
        results[name] = {k: np.asarray(v, np.float64) for k, v in out.items()}
    return results


def summarize_vm(table: dict) -> dict:
    """Means (and the scheduled length's std) of :func:`evaluate_policies`' per-start arrays, and how
    many episodes ended (``episodes_ended`` of ``episodes``; the rest were cut by the step cap)."""
    summary = {k: float(np.mean(v)) for k, v in table.items() if k != "ended"}
    summary["scheduled_length_std"] = float(np.std(table["scheduled_length"]))
    summary["episodes"] = int(len(table["scheduled_length"]))
    if "ended" in table:
        summary["episodes_ended"] = int(np.sum(table["ended"]))
    return summary
