"""CPU allocation over an episode's time, per policy: the CVD-RL paper's Fig. 9 (the expansion scenario's
allocation dynamics, where the moment a policy first needs more PMs shows) and Fig. 8's time average.

    python -m jaxsched.studies.vm_allocation_trace --env vm-frag --num-pms 110 --warm-start 0.5 \
        --option initial_pms=50 --option pms_per_expansion=10 [--checkpoint RUN] --out DIR

One held-out start point (the first that ``vm_table`` draws with the same ``--seed``, past a checkpoint's
training rows as there), every policy on the same trace window. Per decision t (the paper's time step: one create served) it records the allocation
rate of the PMs in service after the decision and how many PMs are in service; ``DIR/trace.json`` holds
the series, ``DIR/trace.png`` plots them, and each policy's time average equals ``vm_table``'s
"CPU allocation (time average)" on that start.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxsched.core.plotting import series_over_time
from jaxsched.core.runs import shown_path
from jaxsched.envs.vm.episodes import draw_starts, params_at
from jaxsched.errors import CheckpointError, InputError
from jaxsched.studies.vm_table import checkpoint_policies, held_out_variant, parse_options


@struct.dataclass
class AllocationTrace:
    allocation: jax.Array  # float32[L]: allocation rate of the PMs in service after decision t
    active_pms: jax.Array  # int32[L]: PMs in service after decision t
    placed: jax.Array  # bool[L]: decision t placed its create (False on the last, failed one and past the end)
    decisions: jax.Array  # int32: decisions taken (the series' valid length)


def allocation_trace(env, params, policy: Callable, key: jax.Array, length: int) -> AllocationTrace:
    """Runs ``policy`` from the instance's initial state for at most ``length`` decisions, stopping at the
    episode's end, and records each decision's allocation rate and PMs in service (zeros past the end)."""
    zeros = AllocationTrace(allocation=jnp.zeros(length, jnp.float32), active_pms=jnp.zeros(length, jnp.int32),
                            placed=jnp.zeros(length, jnp.bool_), decisions=jnp.int32(0))
    key, reset_key = jax.random.split(key)
    obs, state = env.reset_env(reset_key, params)

    def running(carry):
        _, _, state, trace, done = carry
        return ~done & (trace.decisions < length)

    def decide(carry):
        key, obs, state, trace, _ = carry
        key, act_key, step_key = jax.random.split(key, 3)
        obs, state, _, terminated, info = env.step_env(step_key, state, policy(act_key, obs), params)
        t = trace.decisions
        trace = trace.replace(allocation=trace.allocation.at[t].set(info["cpu_allocation"]),
                              active_pms=trace.active_pms.at[t].set(state.active),
                              placed=trace.placed.at[t].set(info["placed"]), decisions=t + 1)
        return key, obs, state, trace, terminated | env.is_truncated(state, params)

    *_, trace, _ = jax.lax.while_loop(running, decide, (key, obs, state, zeros, jnp.bool_(False)))
    return trace


def summary(trace: AllocationTrace) -> dict:
    """The series cut to the placed decisions, their time average (``mean_cpu_allocation``'s) and the decisions
    (numbered from 1, the plot's x) at whose end PMs joined."""
    placed = np.asarray(trace.placed)
    allocation = np.asarray(trace.allocation)[placed]
    active = np.asarray(trace.active_pms)[placed]
    expansions = (np.flatnonzero(np.diff(active)) + 2).tolist()
    return {"scheduled_length": int(placed.sum()), "allocation_time_average": float(allocation.mean())
            if len(allocation) else None, "expansions_at": expansions,
            "first_expansion_at": expansions[0] if expansions else None,
            "final_active_pms": int(active[-1]) if len(active) else None,
            "allocation": allocation.round(5).tolist(), "active_pms": active.tolist()}


def main(argv=None) -> int:
    """``python -m jaxsched.studies.vm_allocation_trace``: allocation over time per policy (JSON + PNG)."""
    parser = argparse.ArgumentParser(prog="python -m jaxsched.studies.vm_allocation_trace", description=main.__doc__)
    parser.add_argument("--env", default="vm-frag")
    parser.add_argument("--num-pms", type=int, default=110)
    parser.add_argument("--warm-start", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=2024, help="draws the start point as vm_table does")
    parser.add_argument("--window", type=int, default=None, help="trace events per episode (default: the variant's)")
    parser.add_argument("--policies", default="first_fit,best_fit,pm_best_fit,room_fit")
    parser.add_argument("--checkpoint", type=Path, help="a CVD-RL run directory: adds its greedy policy, 'trained'")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="further variant option, e.g. initial_pms=50 (repeatable)")
    parser.add_argument("--out", type=Path, default=Path("runs/vm_allocation_trace"))
    args = parser.parse_args(argv)
    options = parse_options(parser, args.option)
    try:
        trained, training = checkpoint_policies(args.checkpoint) if args.checkpoint else (None, None)
        variant, instances = held_out_variant(  # vm_table's start rows (past the training rows)
            args.env, dict(num_pms=args.num_pms, warm_start=args.warm_start, **options,
                           **({} if args.window is None else {"window": args.window})), training, False, 1, args.seed)
        policies = tuple(p for p in args.policies.split(",") if p)
        variant.check_baselines(policies)
        chosen = {p: variant.heuristic(p) for p in policies} | (trained(variant.env) if trained else {})
    except (CheckpointError, InputError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    # the first start and key of vm_table's draw, the one start batched as vm_table batches its starts (so
    # that near-ties between PMs, e.g. pm_best_fit's, break alike)
    starts = draw_starts(jax.random.PRNGKey(args.seed), variant, 1, held_out=True)
    batched_params = jax.vmap(lambda s: params_at(variant, s))(starts)
    keys = jax.random.split(jax.random.PRNGKey(args.seed + 1), 1)
    start, env = int(starts[0]), variant.env
    results = {}
    for name, policy in chosen.items():
        batched = jax.vmap(lambda p, k, policy=policy: allocation_trace(env, p, policy, k, variant.window))
        trace = jax.tree.map(lambda x: x[0], jax.jit(batched)(batched_params, keys))
        results[name] = summary(jax.device_get(trace))
        r = results[name]
        print(f"{name:12s} scheduled length {r['scheduled_length']:6d}  allocation time average "
              f"{r['allocation_time_average']:.3f}  first expansion at decision {r['first_expansion_at']}  "
              f"PMs in service at the end {r['final_active_pms']}")
    args.out.mkdir(parents=True, exist_ok=True)
    setting = (f"{args.env}, {args.num_pms} PMs, warm start {args.warm_start:g}, start row {start}"
               + "".join(f", {k}={v}" for k, v in options.items()))
    (args.out / "trace.json").write_text(json.dumps({"setting": setting, "seed": args.seed, "start": start,
                                                     "checkpoint": shown_path(args.checkpoint),
                                                     "instances": instances, "policies": results}))
    series = {f"{name} (avg {r['allocation_time_average']:.3f})": (r["allocation"], r["active_pms"])
              for name, r in results.items()}
    series_over_time(series, args.out / "trace.png", "CPU allocation rate", "PMs in service",
                     "decision (create served)", f"CPU allocation over time\n{setting}")
    print(f"wrote {args.out / 'trace.json'} and {args.out / 'trace.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
