"""The public step against the internal one: ``python -m jaxsched.bench public-step [--batch 256]``.

A PureJaxRL-style loop calls gymnax's public ``env.step`` (auto-reset) under ``jax.vmap``; jaxsched's
own learners and ``bench env`` call the internal transition + restart
(:func:`jaxsched.core.rollout.auto_reset_step`, the initial states computed once outside the loop).
This bench times both on one XLA device, in one process, in alternating windows, on the same
instances with the same heuristic: DeepRM with the image at M = 10 and 50 (SJF), VM placement at 50
PMs (First-Fit, the synthetic trace's 600-row windows) and the grid site (FIFO). Each side is a
jitted ``lax.scan`` of ``--steps`` batched decisions whose observation is summed every step (as a
network reads it; XLA would drop an unread one). Before timing, one call of each side from the same
start must end in the same observations, states and sums, bit for bit: both play the same episodes.
Compilation is excluded, every call ends in ``block_until_ready``; the medians of ``--repeats``
windows per side give the ratio internal / public (above 1: the public step is slower).
Steps per CPU-second (all threads) are reported beside steps per second, as a check on a loaded host.
"""

from __future__ import annotations

import functools
import json
import os
import platform
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from gymnax.environments import environment

from jaxsched.bench.common import make_policy_scan, make_public_scan
from jaxsched.registry import build

# (row name, registered env, overrides, heuristic)
ROWS = (
    ("deeprm-10", "deeprm", dict(num_slots=10), "sjf"),
    ("deeprm-50", "deeprm", dict(num_slots=50), "sjf"),
    ("vm-50", "vm-synthetic", dict(num_pms=50), "first_fit"),
    ("grid", "grid", {}, "fifo"),
)
TARGET = 1.1  # the public step within 1.1x of the internal one


def public_scan(env, policy, steps: int, gymnax_base: bool = False):
    """:func:`jaxsched.bench.common.make_public_scan` on one device; ``gymnax_base``: gymnax's own
    ``Environment.step`` instead (two observations, a restart of every copy and a select of every leaf per
    step: the public step before ``ObserveOnceStep``)."""
    base = functools.partial(environment.Environment.step, env) if gymnax_base else None
    return make_public_scan(env, steps, policy, step=base)


class Side:
    """One side of a row: a jitted scan whose episodes go on from call to call (the carry kept)."""

    def __init__(self, run, carry, *args, steps: int, batch: int):
        self.run, self.args, self.per_call = run, args, steps * batch
        self.carry = jax.block_until_ready(run(carry, *args))  # compiles

    def __call__(self, window_s: float) -> tuple[int, float, float]:
        """``(steps, wall seconds, CPU seconds of this process)`` of calls filling ``window_s``."""
        calls, wall0, cpu0 = 0, time.perf_counter(), time.process_time()
        while True:
            self.carry = jax.block_until_ready(self.run(self.carry, *self.args))
            calls += 1
            wall = time.perf_counter() - wall0
            if wall >= window_s:
                return calls * self.per_call, wall, time.process_time() - cpu0


def fresh_carry(env, params, initial):
    """``(obs, state, seen)`` at the episodes' start, in new buffers (a scan's carry is donated)."""
    obs = jax.jit(jax.vmap(env.get_obs))(initial, params)
    batch = jax.tree.leaves(params)[0].shape[0]
    return (*jax.tree.map(jnp.copy, (obs, initial)), jnp.zeros(batch, jnp.float32))


def check_same_play(internal, public, env, params, initial, keys) -> None:
    """One call of each side from the same start must agree bit for bit (exits otherwise)."""
    mine = internal(fresh_carry(env, params, initial), params, initial)
    theirs = public(fresh_carry(env, params, initial), params, keys)
    for a, b in zip(jax.tree.leaves(mine), jax.tree.leaves(theirs)):
        if not np.array_equal(np.asarray(a), np.asarray(b)):
            raise SystemExit(f"bench public-step: {env.name}: the public and the internal step played different "
                             "episodes; refusing to time")


def time_row(name: str, env_name: str, overrides: dict, heuristic: str, batch: int, steps: int, repeats: int,
             window_s: float, seed: int, gymnax_base: bool = False) -> dict:
    """One row: both sides checked equal, then timed in alternating windows (``gymnax_base``: a third
    side, gymnax's own step, timed beside them and reported as ``ratio_gymnax``)."""
    variant = build(env_name, **overrides)
    env, policy = variant.env, variant.heuristic(heuristic)
    params = variant.sample_params(jax.random.PRNGKey(seed), batch)
    initial = jax.jit(jax.vmap(env.initial_state))(params)
    internal_run, public_run = make_policy_scan(env, steps, policy), public_scan(env, policy, steps)
    keys = jax.random.split(jax.random.PRNGKey(seed + 1), batch)  # one per copy
    check_same_play(internal_run, public_run, env, params, initial, keys)
    side = lambda run, last: Side(run, fresh_carry(env, params, initial), params, last, steps=steps, batch=batch)
    sides = {"internal": side(internal_run, initial), "public": side(public_run, keys)}
    if gymnax_base:
        sides["gymnax"] = side(public_scan(env, policy, steps, gymnax_base=True), keys)
    wall = {side: [] for side in sides}
    cpu = {side: [] for side in sides}
    for _ in range(repeats):
        for side, timer in sides.items():
            count, wall_s, cpu_s = timer(window_s)
            wall[side].append(count / wall_s)
            cpu[side].append(count / max(cpu_s, 1e-9))
    row = {"row": name, "env": env_name, "overrides": overrides, "policy": heuristic, "batch": batch,
           "steps_per_call": steps}
    for side in sides:
        row[side] = {"steps_per_s": float(np.median(wall[side])), "steps_per_s_runs": wall[side],
                     "steps_per_cpu_s": float(np.median(cpu[side])), "steps_per_cpu_s_runs": cpu[side]}
    row["ratio"] = row["internal"]["steps_per_s"] / row["public"]["steps_per_s"]
    row["ratio_cpu"] = row["internal"]["steps_per_cpu_s"] / row["public"]["steps_per_cpu_s"]
    if gymnax_base:
        row["ratio_gymnax"] = row["internal"]["steps_per_s"] / row["gymnax"]["steps_per_s"]
        row["ratio_gymnax_cpu"] = row["internal"]["steps_per_cpu_s"] / row["gymnax"]["steps_per_cpu_s"]
    # alternating windows pair up: the spread of the per-pair ratios shows how far the load moved them
    pairs = [i / p for i, p in zip(wall["internal"], wall["public"])]
    row["ratio_pairs"] = {"min": min(pairs), "median": float(np.median(pairs)), "max": max(pairs)}
    return row


def hardware() -> dict:
    """What the numbers ran on: CPU model, cores this process may use, XLA device, jax version."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {"cpu": model, "cores_used": cores, "device": str(jax.devices()[0]), "jax": jax.__version__}


def print_row(row: dict) -> None:
    internal, public = row["internal"], row["public"]
    verdict = "within" if row["ratio"] <= TARGET else "MISSES"
    print(f"{row['row']:10s} batch {row['batch']:<5d} internal {internal['steps_per_s']:>11,.0f}  public "
          f"{public['steps_per_s']:>11,.0f} steps/s  internal / public {row['ratio']:.3f} (per CPU-second "
          f"{row['ratio_cpu']:.3f}; window pairs {row['ratio_pairs']['min']:.2f}-{row['ratio_pairs']['max']:.2f}) "
          f"{verdict} {TARGET}x  load {row['load_average']:.2f}", flush=True)
    if "gymnax" in row:
        print(f"{'':10s} gymnax's own step {row['gymnax']['steps_per_s']:>11,.0f} steps/s  internal / gymnax "
              f"{row['ratio_gymnax']:.3f} (per CPU-second {row['ratio_gymnax_cpu']:.3f})", flush=True)


def bench_public_step(rows: list[str], batch: int, steps: int, repeats: int, window_s: float, seed: int,
                      out: Path | None, gymnax_base: bool = False) -> dict:
    """Times the named rows (:data:`ROWS`); prints them and writes ``out`` (JSON) when given."""
    meta = {**hardware(), "batch": batch, "steps_per_call": steps, "repeats": repeats, "window_s": window_s,
            "timing": "median of alternating windows per side, compilation excluded, after block_until_ready",
            "load_average_start": os.getloadavg()[0]}
    print(f"hardware: {meta['cpu']}, {meta['cores_used']} cores used, one XLA device ({meta['device']}), "
          f"jax {meta['jax']}; batch {batch}; load average {meta['load_average_start']:.2f}", flush=True)
    results = []
    for name, env_name, overrides, heuristic in ROWS:
        if name in rows:
            row = time_row(name, env_name, overrides, heuristic, batch, steps, repeats, window_s, seed, gymnax_base)
            row["load_average"] = os.getloadavg()[0]
            results.append(row)
            print_row(row)
    report = {"meta": meta, "rows": results}
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, indent=1))
        print(f"wrote {out}")
    return report


def add_parser(sub) -> None:
    """The ``public-step`` subcommand of ``python -m jaxsched.bench``."""
    parser = sub.add_parser("public-step", help="the public env.step (vmapped, auto-reset) against the internal "
                            "transition + restart, one XLA device, interleaved")
    parser.add_argument("--batch", type=int, default=256, help="copies stepped per call (vmap)")
    parser.add_argument("--steps", type=int, default=50, help="batched steps per jitted call")
    parser.add_argument("--repeats", type=int, default=5, help="alternating windows per side")
    parser.add_argument("--window", type=float, default=1.0, help="seconds per timed window")
    parser.add_argument("--rows", default=",".join(name for name, *_ in ROWS),
                        help=f"comma list of: {', '.join(name for name, *_ in ROWS)}")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--gymnax", action="store_true",
                        help="also time gymnax's own Environment.step (the public step before ObserveOnceStep)")
    parser.add_argument("--out", type=Path, help="write the rows and the hardware as JSON")


def run(args, parser) -> int:
    rows = [r.strip() for r in args.rows.split(",") if r.strip()]
    known = [name for name, *_ in ROWS]
    if not rows or any(r not in known for r in rows):
        parser.error(f"--rows must be a comma list of {', '.join(known)}, got {args.rows!r}")
    if min(args.batch, args.steps, args.repeats) < 1 or args.window <= 0:
        parser.error("--batch, --steps, --repeats and --window must be > 0")
    bench_public_step(rows, args.batch, args.steps, args.repeats, args.window, args.seed, args.out, args.gymnax)
    return 0
