"""``python -m jaxsched.bench vm``: VM placement steps per second of a batch of episodes, split over the
XLA:CPU devices.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import jax
import jax.numpy as jnp

from jaxsched.baselines.vm import best_fit
from jaxsched.bench.common import hardware, split_over_devices
from jaxsched.core.rollout import auto_reset_step
from jaxsched.registry import build


def make_vm_runner(env, params, policy, steps: int):
    """``(states, key) -> int32[batch]`` placements of ``steps`` batched decisions of ``policy``;
    finished episodes restart from their own initial state. Counts only decisions that placed a VM."""

    step = jax.vmap(lambda s, a, i: auto_reset_step(env, s, a, params, i))

    def run(initial, key):
        def one(carry, step_key):
            obs, state, placed = carry
            action = jax.vmap(policy)(jax.random.split(step_key, placed.shape[0]), obs)
            obs, state, _, _, info = step(state, action, initial)
            return (obs, state, placed + info["placed"]), None

        placed = jnp.zeros(initial.time.shape, jnp.int32)
        obs = jax.vmap(env.get_obs, in_axes=(0, None))(initial, params)
        (_, _, placed), _ = jax.lax.scan(one, (obs, initial, placed), jax.random.split(key, steps))
        return placed

    return run


def bench_vm(num_pms_list, batch: int, steps: int, repeats: int, window: int, out: Path | None,
             trace: Path | None = None) -> list[dict]:
    """Placement steps/s of Best-Fit on a batch of episodes at distinct start points of the Huawei
    trace file ``trace`` (the synthetic trace when none is given), compilation excluded, after
    ``block_until_ready``. A step is one decision (observation, mask, policy, transition and the
    deletes that follow); the reference is the spec's numpy simulator, ~43k steps/s at 50 PMs.
    The batch is split over all local devices (see ``--cpu-devices``)."""
    devices = jax.local_devices()
    if batch % len(devices):
        raise SystemExit(f"--batch {batch} does not split evenly over {len(devices)} devices")
    rows = []
    for num_pms in num_pms_list:
        options = dict(num_pms=num_pms, window=window)
        variant = build("vm-huawei", trace=str(trace), **options) if trace is not None else \
            build("vm-synthetic", synthetic_vms=20_000, start_high=20_000, **options)
        initial = jax.jit(jax.vmap(variant.env.initial_state))(variant.sample_params(jax.random.PRNGKey(0), batch))
        runner = split_over_devices(make_vm_runner(variant.env, variant.params, best_fit, steps), devices)
        key = jax.random.PRNGKey(1)
        placed = int(jnp.sum(runner(initial, key)))  # compile
        best = float("inf")
        for _ in range(repeats):
            t0 = time.perf_counter()
            runner(initial, key).block_until_ready()
            best = min(best, time.perf_counter() - t0)
        row = {"num_pms": num_pms, "batch": batch, "devices": len(devices), "steps": steps, "window": window,
               "trace": str(trace or "synthetic"), "placements": placed, "seconds": best, "placement_steps_per_s": placed / best,
               "steps_per_s": batch * steps / best}
        rows.append(row)
        print(f"N={num_pms:4d} batch={batch:5d} devices={len(devices)} {row['placement_steps_per_s']:>13,.0f} "
              f"placement steps/s ({placed} placements in {best:.3f} s)", flush=True)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        meta = {"hardware": hardware(), "devices": [str(d) for d in devices], "policy": "best_fit",
                "trace": str(trace or "synthetic"),
                "window": window, "timing": f"best of {repeats}, compilation excluded",
                "reference": "numpy ~43k steps/s at 50 PMs"}
        out.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
        print(f"wrote {out}")
    return rows
