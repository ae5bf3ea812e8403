"""Benchmarks: ``python -m jaxsched.bench env|train|vm``.

``env [--batch-sizes 1,64,1024,4096] [--steps 200]``: environment steps per second.
``train [--config configs/deeprm_slowdown.yaml] [key=value ...]``: seconds per REINFORCE iteration.
``vm [--num-pms 50,100] [--batch 1024] [--steps 200] [--trace FILE] [--cpu-devices N]``: VM placement
steps per second, the batch split over N XLA:CPU devices, default one per core (see :func:`bench_vm`).

Reports environment steps per second for a batch of environments (one jobset each, restarted on
the same jobset when an episode ends), excluding compilation, timed after ``block_until_ready``.
The policy's own cost is included: a step is one decision of the policy plus one transition. The
features are summed each step (as a network would read them) so that XLA cannot drop an unused image.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from jaxsched.baselines.vm import best_fit
from jaxsched.core.rollout import auto_reset_step
from jaxsched.experiment import Experiment, load_train_config
from jaxsched.registry import build


def _hardware() -> str:
    return f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, jax {jax.__version__} " \
           f"on {jax.devices()[0].platform}"


def make_env_runner(env, policy, steps: int):
    """A jitted ``(params_batched, key) -> total reward`` that runs ``steps`` batched steps."""

    def run(params, key):
        obs, state = jax.vmap(env.reset_env, in_axes=(None, 0))(key, params)
        initial = state

        def one(carry, step_key):
            obs, state, total = carry
            keys = jax.random.split(step_key, total.shape[0])
            action = jax.vmap(policy)(keys, obs)
            obs, state, reward, done, _ = jax.vmap(lambda s, a, p, i: auto_reset_step(env, s, a, p, i))(
                state, action, params, initial)
            # Consume the features as a network would, or XLA drops the unused image entirely.
            seen = jnp.sum(obs.features.reshape(total.shape[0], -1), axis=-1)
            return (obs, state, total + reward + 0.0 * seen), None

        total = jnp.zeros(params.simu_len.shape, jnp.float32)
        (obs, state, total), _ = jax.lax.scan(one, (obs, state, total), jax.random.split(key, steps))
        return total

    return jax.jit(run)


def bench_env(batch_sizes, steps: int, repeats: int, load: float, out: Path | None) -> list[dict]:
    rows = []
    for observation in ("none", "image"):
        variant = build("deeprm", observation=observation, load=load)
        for policy_name in ("random", "sjf"):
            runner = make_env_runner(variant.env, variant.heuristic(policy_name), steps)
            for batch in batch_sizes:
                params = variant.sample_params(jax.random.PRNGKey(1), batch)
                key = jax.random.PRNGKey(0)
                runner(params, key).block_until_ready()  # compile
                best = float("inf")
                for _ in range(repeats):
                    t0 = time.perf_counter()
                    runner(params, key).block_until_ready()
                    best = min(best, time.perf_counter() - t0)
                row = {"observation": "image" if observation == "image" else "not built",
                       "policy": policy_name, "batch": batch, "steps": steps,
                       "steps_per_s": batch * steps / best, "seconds": best}
                rows.append(row)
                print(f"obs={row['observation']:9s} policy={policy_name:6s} batch={batch:5d} "
                      f"{row['steps_per_s']:>13,.0f} steps/s", flush=True)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        meta = {"hardware": _hardware(), "env": "deeprm (M=10, T=20, capacity 10, backlog 60)",
                "load": load, "steps_per_run": steps, "timing": f"best of {repeats}, compilation excluded"}
        out.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
        table = ["| observation | policy | batch | steps/s |", "|---|---|---|---|"]
        table += [f"| {r['observation']} | {r['policy']} | {r['batch']} | {r['steps_per_s']:,.0f} |" for r in rows]
        out.with_suffix(".md").write_text(f"# Environment throughput\n\n{meta}\n\n" + "\n".join(table) + "\n")
        print(f"wrote {out} and {out.with_suffix('.md')}")
    return rows


def bench_train(config_path: Path, overrides: list[str], repeats: int, out: Path | None) -> dict:
    """Seconds per REINFORCE iteration (rollouts + update, one jitted call), compilation excluded."""
    config = load_train_config(config_path, overrides + ["seeds=[0]"])
    experiment = Experiment.from_config(config)
    state = experiment.init_fn(jax.random.PRNGKey(0))
    t0 = time.perf_counter()
    state, metrics = experiment.update_fn(state)
    jax.block_until_ready(metrics)
    first = time.perf_counter() - t0
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        state, metrics = experiment.update_fn(state)
        jax.block_until_ready(metrics)
        times.append(time.perf_counter() - t0)
    algo = experiment.algo
    row = {"config": str(config_path), "overrides": overrides, "env": config.env,
           "env_options": config.env_options, "network": algo.network, "jobsets": algo.num_jobsets,
           "rollouts": algo.num_rollouts, "episode_len": algo.episode_len,
           "seconds_per_iteration_median": float(np.median(times)), "seconds_per_iteration_min": min(times),
           "first_call_with_compile_s": first, "decisions_per_iteration": float(metrics["decisions"]),
           "hardware": _hardware(), "repeats": repeats}
    print(f"{algo.network} J={algo.num_jobsets} N={algo.num_rollouts} L={algo.episode_len}: "
          f"{row['seconds_per_iteration_median']:.2f} s/iteration (median of {repeats}; min "
          f"{row['seconds_per_iteration_min']:.2f}; first call with compilation {first:.1f} s), "
          f"{row['decisions_per_iteration'] / row['seconds_per_iteration_median']:,.0f} decisions/s")
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(row, indent=1))
        print(f"wrote {out}")
    return row


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


def split_over_devices(run, devices):
    """``run`` jitted with its batch (axis 0 of the first argument and of the result) split evenly
    over ``devices``; each device runs its share on its own, with its own key (``fold_in``; the
    shards never communicate, so the replication check is off)."""
    from jax.sharding import Mesh, PartitionSpec

    def shard(batch, key):
        return run(batch, jax.random.fold_in(key, jax.lax.axis_index("batch")))

    mesh = Mesh(np.asarray(devices), ("batch",))
    return jax.jit(jax.shard_map(shard, mesh=mesh, in_specs=(PartitionSpec("batch"), PartitionSpec()),
                                 out_specs=PartitionSpec("batch"), check_vma=False))


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
        meta = {"hardware": _hardware(), "devices": [str(d) for d in devices], "policy": "best_fit",
                "trace": str(trace or "synthetic"),
                "window": window, "timing": f"best of {repeats}, compilation excluded",
                "reference": "numpy ~43k steps/s at 50 PMs"}
        out.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
        print(f"wrote {out}")
    return rows


def rerun_with_cpu_devices(count: int, argv: list[str]) -> None:
    """Starts this command again with ``count`` XLA:CPU devices, unless it already has them.

    One XLA:CPU computation keeps about one core busy however large its batch (measured: 1 and 2
    cores give the same VM steps/s), so the batch is split over one CPU device per core. XLA reads
    the device count only when it starts, hence the new process."""
    flags = os.environ.get("XLA_FLAGS", "")
    if count <= 1 or "xla_force_host_platform_device_count" in flags:
        return
    environment = dict(os.environ, XLA_FLAGS=f"{flags} --xla_force_host_platform_device_count={count}".strip())
    sys.stdout.flush()
    os.execve(sys.executable, [sys.executable, "-m", "jaxsched.bench", *argv], environment)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jaxsched.bench", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    env = sub.add_parser("env", help="environment steps/s, random and SJF policies, image built or not")
    env.add_argument("--batch-sizes", default="1,64,1024,4096")
    env.add_argument("--steps", type=int, default=200, help="steps per timed run")
    env.add_argument("--repeats", type=int, default=3)
    env.add_argument("--load", type=float, default=0.7)
    env.add_argument("--out", type=Path, default=Path("results/bench_env.json"))
    train = sub.add_parser("train", help="seconds per REINFORCE iteration at the paper's size")
    train.add_argument("--config", type=Path, default=Path("configs/deeprm_slowdown.yaml"))
    train.add_argument("overrides", nargs="*", help="key=value config overrides")
    train.add_argument("--repeats", type=int, default=3)
    train.add_argument("--out", type=Path, default=Path("results/bench_train.json"))
    vm = sub.add_parser("vm", help="VM placement steps/s (Best-Fit) for a batch of episodes")
    vm.add_argument("--num-pms", default="50,100")
    vm.add_argument("--batch", type=int, default=1024)
    vm.add_argument("--steps", type=int, default=200, help="decisions per episode per timed run")
    vm.add_argument("--window", type=int, default=1000, help="trace events per episode (state size)")
    vm.add_argument("--repeats", type=int, default=3)
    vm.add_argument("--trace", type=Path, help="Huawei trace file (huawei-east-1-lifetimes.csv); default: synthetic")
    vm.add_argument("--out", type=Path, default=Path("results/bench_vm.json"))
    vm.add_argument("--cpu-devices", type=int, default=len(os.sched_getaffinity(0)),
                    help="XLA:CPU devices to split the batch over (default: the cores this process may use)")
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)

    def int_list(flag: str, text: str) -> list[int]:
        try:
            return [int(x) for x in text.split(",")]
        except ValueError:
            parser.error(f"{flag} must be comma-separated integers, got {text!r}")

    if args.what == "vm":
        sizes = int_list("--num-pms", args.num_pms)
        rerun_with_cpu_devices(args.cpu_devices, argv)
        print(f"hardware: {_hardware()}")
        if args.trace is not None and not args.trace.exists():
            parser.error(f"--trace {args.trace}: file not found")
        bench_vm(sizes, args.batch, args.steps, args.repeats, args.window, args.out, args.trace)
    if args.what == "train":
        bench_train(args.config, args.overrides, args.repeats, args.out)
    if args.what == "env":
        sizes = int_list("--batch-sizes", args.batch_sizes)
        print(f"hardware: {_hardware()}")
        bench_env(sizes, args.steps, args.repeats, args.load, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
