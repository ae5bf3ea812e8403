"""How much could a learned value add to a VM heuristic? One exact step of policy improvement.

At each decision every feasible action is tried, then the heuristic runs to the episode's end; the
action whose rollout places the most VMs is taken (ties: the heuristic's own choice). The env is
deterministic given the trace, so one rollout is the action's exact value under the heuristic, and
the result is the first step of policy iteration from it (a "rollout algorithm"). CVD-RL's policy
is greedy in a learned value of the next placement, so this measures the headroom such a value has
over the heuristic: if the improved policy gains little, no value that ranks the next action can
gain much more over one improvement step.

``python -m jaxsched.studies.vm_rollout --env vm-frag --num-pms 5,10 --base room_fit --starts-from RUN/eval.json``

The improved policy as a placer of its own, against the heuristics on held-out start points:
:mod:`jaxsched.studies.vm_planner`. Reading the real future makes it a clairvoyant bound; with
``futures`` (:func:`action_values`) the rollouts follow the present request with imagined futures
instead (other windows of the trace, drawn departures of the running VMs), so the plan uses only what
a placer can know.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxsched.baselines.vm import HEURISTIC_NAMES, cvd_candidates, heuristic_policy, request_mix
from jaxsched.core.progress import progress
from jaxsched.core.rollout import finish_episode, run_episode
from jaxsched.envs.vm.env import mean_cpu_allocation
from jaxsched.envs.vm.episodes import draw_starts, params_at
from jaxsched.envs.vm.trace import VmRequests, imagined_window, running_vms
from jaxsched.errors import UsageError
from jaxsched.registry import build


def improved_action(env, params, policy, state, candidates: Callable | None = None,
                    num_tried: int | None = None, futures: ImaginedFutures | None = None) -> tuple[jax.Array, jax.Array]:
    """``(improved, own)``: the action with the most placements when ``policy`` follows it (ties to
    ``policy``'s), and ``policy``'s own action.

    Tries every feasible action, or only ``candidates(obs)`` (a bool mask, e.g. CVD-RL's top-k set)
    plus ``policy``'s own action: at most ``num_tried`` of them, so the batch of rollouts is smaller.
    ``futures``: see :func:`action_values`."""
    values, own = action_values(env, params, policy, state, candidates, num_tried, futures)
    return improved_choice(values, own, 0.0 if futures is None else futures.margin), own


def improved_choice(values: jax.Array, own: jax.Array, margin=0.0) -> jax.Array:
    """The action of :func:`action_values`' ``values`` with the most placements, ``own`` unless another's
    beats it by more than ``margin`` (0: ties to ``own``)."""
    return jnp.where(jnp.max(values) > values[own] + margin, jnp.argmax(values), own).astype(jnp.int32)


@struct.dataclass
class ImaginedFutures:
    """What a non-clairvoyant planner rolls out instead of the real future (:func:`imagined_states`)."""

    windows: VmRequests  # K windows of the trace's training range, batched
    lifetimes: jax.Array  # float32[D] sorted VM lifetimes (s) of that range: the running VMs' departures
    key: jax.Array  # folded with the decision's index: fresh departures per decision, shared by its actions
    margin: float = 0.0  # leave the base policy's action only for a mean gain above this many VMs


def imagined_states(state, futures: ImaginedFutures):
    """``state`` once per window of ``futures``, its trace after the pending create replaced by an
    imagined one (:func:`jaxsched.envs.vm.trace.imagined_window`: that window's requests and a drawn
    departure for every running VM), 2L rows long; the cluster, counters and pending request kept."""
    running = running_vms(state.requests, state.pos, state.placed_pm)
    length = state.requests.length

    def imagine(window, key):
        requests = imagined_window(state.requests, state.pos, running, window, futures.lifetimes, key)
        return state.replace(requests=requests,
                             placed_pm=jnp.concatenate([state.placed_pm, jnp.full(length, -1, jnp.int32)]),
                             taken=jnp.concatenate([state.taken, jnp.zeros_like(state.taken)]))

    count = jax.tree.leaves(futures.windows)[0].shape[0]
    keys = jax.random.split(jax.random.fold_in(futures.key, state.time), count)
    return jax.vmap(imagine)(futures.windows, keys)


def action_values(env, params, policy, state, candidates: Callable | None = None,
                  num_tried: int | None = None, futures: ImaginedFutures | None = None) -> tuple[jax.Array, jax.Array]:
    """``(values, own)``: [2N] VMs placed from ``state`` to the episode's end taking each tried
    action first and then following ``policy`` (-1 where not tried: infeasible, or outside
    ``candidates`` and not ``policy``'s own), and ``policy``'s own action (see :func:`improved_action`).

    ``futures`` None: the rollouts read the episode's real trace (exact values; the planner is
    clairvoyant; int32 values). ``futures``: each action's value is the mean over the K
    :func:`imagined_states` (the same K for every action; float32 values), so nothing after the
    present request is read."""
    obs = env.get_obs(state, params)
    own = policy(None, obs)
    allowed = tried_mask(obs, own, candidates)
    count = env.num_actions if num_tried is None else min(num_tried, env.num_actions)
    _, tried = jax.lax.top_k(allowed.astype(jnp.int32), count)  # the allowed ones first

    def value(start, action):  # VMs placed from ``start`` to the end, ``action`` first, then ``policy``
        obs, after, _, terminated, _ = env.step_env(None, start, action, params)
        end = finish_episode(env, params, policy, jax.random.PRNGKey(0), obs, after, terminated).state
        return end.placed - start.placed

    if futures is None:
        estimate = jax.vmap(lambda action: value(state, action))
    else:
        starts = imagined_states(state, futures)
        estimate = jax.vmap(lambda action: jnp.mean(jax.vmap(value, in_axes=(0, None))(starts, action)))
    estimates = estimate(tried)
    values = jnp.full(env.num_actions, -1, estimates.dtype).at[tried].set(jnp.where(allowed[tried], estimates, -1))
    return values, own


def tried_mask(obs, own: jax.Array, candidates: Callable | None = None) -> jax.Array:
    """bool[2N] the actions :func:`action_values` tries: the feasible ones among ``candidates(obs)``
    and ``own`` (every feasible one when ``candidates`` is None)."""
    if candidates is None:
        return obs.action_mask
    return obs.action_mask & (candidates(obs) | (jnp.arange(obs.action_mask.shape[-1]) == own))


def improved_episode(env, params, policy, candidates: Callable | None = None,
                     num_tried: int | None = None, futures: ImaginedFutures | None = None) -> dict[str, jax.Array]:
    """One episode of the improved policy: the env's metrics (scheduled length, end-of-episode and
    time-averaged CPU allocation, income, ...), how often it left ``policy`` and how many decisions
    before the episode's end it last did (-1: never). ``futures``: see :func:`action_values`."""
    state = env.initial_state(params)
    terminated = ~jnp.any(env.feasible(state, params))
    allocation_env = env.with_reward("allocation")  # same dynamics; its reward is the step's allocation rate

    def body(carry):
        state, _, changed, last, allocation_sum = carry
        action, own = improved_action(env, params, policy, state, candidates, num_tried, futures)
        departs = action != own
        last = jnp.where(departs, state.time, last)
        state, allocation, done, _ = allocation_env.transition(state, action, params)
        return state, done, changed + departs.astype(jnp.int32), last, allocation_sum + allocation

    state, _, changed, last, allocation_sum = jax.lax.while_loop(
        lambda carry: ~carry[1], body, (state, terminated, jnp.int32(0), jnp.int32(-1), jnp.float32(0.0)))
    metrics = env.metrics(state, params)
    metrics["cpu_allocation_mean"] = mean_cpu_allocation(allocation_sum, state.placed, metrics["cpu_allocation"])
    return {**metrics, "decisions": state.time, "departures": changed,
            "last_departure_before_end": jnp.where(last >= 0, state.time - last, -1)}


def candidate_set(variant, cvd_k: tuple[int, int, int] | None) -> tuple[Callable | None, int | None]:
    """``(candidates, num_tried)`` for :func:`improved_action`: CVD-RL's top-k set with ``cvd_k`` =
    (Best-Fit, PM-Best-Fit, room_fit) counts, plus the base policy's own action; None: every action."""
    if cvd_k is None:
        return None, None
    mix = request_mix(variant.trace, variant.params)
    return (lambda obs: cvd_candidates(obs, *cvd_k, mix=mix)), sum(cvd_k) + 1


def compare(variant, base: str, starts: jax.Array, cvd_k: tuple[int, int, int] | None = None) -> dict[str, np.ndarray]:
    """Per start point: the heuristic's scheduled length, the improved policy's, and its departures.
    ``cvd_k`` = (Best-Fit, PM-Best-Fit, room_fit) counts: try only CVD-RL's candidate set."""
    env, policy = variant.env, heuristic_policy(base, variant)
    candidates, num_tried = candidate_set(variant, cvd_k)

    def one(start):
        params = params_at(variant, start)
        own = run_episode(env, params, policy, jax.random.PRNGKey(0)).state.placed
        return {"base": own, **improved_episode(env, params, policy, candidates, num_tried)}

    return {k: np.asarray(v) for k, v in jax.jit(jax.vmap(one))(starts).items()}


def parse_cvd_k(text: str) -> tuple[int, int, int]:
    """``--cvd-k K_BF,K_PMBF,K_ROOM``: CVD-RL's candidate counts (one-line UsageError otherwise)."""
    try:
        cvd_k = tuple(int(k) for k in text.split(","))
    except ValueError:
        raise UsageError(f"--cvd-k takes comma-separated integers, got {text!r}") from None
    if len(cvd_k) != 3 or min(cvd_k) < 0:
        raise UsageError("--cvd-k takes three counts >= 0: K_BF,K_PMBF,K_ROOM")
    return cvd_k


def _inputs(args):
    """``({num_pms: variant}, start points of --starts-from or None, cvd_k)``, checked before any work."""
    try:
        sizes = [int(n) for n in args.num_pms.split(",")]
    except ValueError:
        raise UsageError("--num-pms takes comma-separated integers") from None
    if min(sizes) < 1 or args.starts < 1:
        raise UsageError("--num-pms and --starts must be >= 1")
    cvd_k = parse_cvd_k(args.cvd_k) if args.cvd_k else None
    starts = None
    if args.starts_from:
        try:
            starts = jnp.asarray(json.loads(args.starts_from.read_text())["start_points"], jnp.int32)
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise UsageError(f"--starts-from {args.starts_from}: no start_points to read ({error})") from None
    if args.base not in HEURISTIC_NAMES:
        raise UsageError(f"--base {args.base!r}: choose from {', '.join(HEURISTIC_NAMES)}")
    try:
        variants = {n: build(args.env, num_pms=n) for n in sizes}
    except (ValueError, TypeError) as error:
        raise UsageError(str(error)) from None
    return variants, starts, cvd_k


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jaxsched.studies.vm_rollout", description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="vm-frag")
    parser.add_argument("--num-pms", default="5,10")
    parser.add_argument("--base", default="room_fit", help="the heuristic to improve (vm_episodes --policies names)")
    parser.add_argument("--starts", type=int, default=50)
    parser.add_argument("--seed", type=int, default=99991)
    parser.add_argument("--starts-from", type=Path, help="an eval.json whose start_points to use instead")
    parser.add_argument("--cvd-k", help="K_BF,K_PMBF,K_ROOM: try only CVD-RL's candidate set (default: every action)")
    parser.add_argument("--out", type=Path, default=Path("runs/vm_rollout_improvement.json"))
    args = parser.parse_args(argv)
    try:
        variants, given_starts, cvd_k = _inputs(args)
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    rows = []
    bar = progress(variants.items(), "vm_rollout", unit="cluster", total=len(variants))
    for num_pms, variant in bar:
        if given_starts is not None:
            starts = given_starts
        else:
            starts = draw_starts(jax.random.PRNGKey(args.seed), variant, args.starts, held_out=True)
        t0 = time.perf_counter()
        result = compare(variant, args.base, starts, cvd_k)
        gain, late = result["scheduled_length"] - result["base"], result["last_departure_before_end"]
        row = {"num_pms": num_pms, "base": args.base, "starts": len(starts), "cvd_k": cvd_k,
               "base_length": float(result["base"].mean()), "improved_length": float(result["scheduled_length"].mean()),
               "gain_mean": float(gain.mean()), "gain_se": float(gain.std(ddof=1) / np.sqrt(len(gain))),
               "starts_improved": int((gain > 0).sum()), "starts_worse": int((gain < 0).sum()),
               "departures_per_episode": float(result["departures"].mean()),
               "last_departure_before_end_median": float(np.median(late[late >= 0])) if np.any(late >= 0) else None,
               "seconds": time.perf_counter() - t0,
               "per_start": {k: v.tolist() for k, v in result.items()}}
        rows.append(row)
        bar.write(f"N={num_pms:3d} {args.base}: {row['base_length']:.1f} -> improved {row['improved_length']:.1f} "
                  f"(gain {row['gain_mean']:+.1f} ± {row['gain_se']:.1f} SE; better on {row['starts_improved']}, "
                  f"worse on {row['starts_worse']} of {len(starts)}; {row['departures_per_episode']:.1f} departures "
                  f"per episode, the last a median {row['last_departure_before_end_median']} decisions before the "
                  f"end; {row['seconds']:.0f} s)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"env": args.env, "rows": rows}, indent=1))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
