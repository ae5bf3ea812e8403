"""Benchmarks: ``python -m jaxsched.bench env|train|vm|grid``.

``env [--batch-sizes 1,64,1024,4096] [--steps 200]``: environment steps per second, and the Gymnasium
adapter's ``step`` per Python call (10 x steps calls).
``train [--devices 1,auto] [--config X.yaml key=value ...]``: seconds per training iteration on one
device and on all (paper-size REINFORCE and CVD-RL at 50 PMs by default), each in its own process.
``vm [--num-pms 50,100] [--batch 1024] [--steps 200] [--trace FILE] [--cpu-devices N]``: VM placement
steps per second, the batch split over N XLA:CPU devices, default one per core (see :func:`bench_vm`).
``grid [--batches 1,64,1024] [--jobs 500] [--repeats 3] [--out FILE]``: FIFO decisions per second of
the grid site against the plain-Python heapq simulator on the same windows (see :func:`bench_grid`).

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
import subprocess
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from jaxsched.baselines.vm import best_fit
from jaxsched.core.devices import restart_for_devices, usable_cores
from jaxsched.core.rollout import auto_reset_step
from jaxsched.datasets import resolve_path
from jaxsched.envs.grid.heapq_sim import simulate_fifo
from jaxsched.errors import ConfigError, DatasetError
from jaxsched.experiment import Experiment, load_train_config
from jaxsched.gymnasium_env import make_gymnasium
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


def time_gymnasium_step(steps: int, repeats: int, load: float) -> dict:
    """The row "gymnasium adapter step per Python call": ``make_gymnasium("deeprm")``'s ``step`` (image
    observation, the void action) called ``steps`` times from a Python loop, host copies included."""
    env = make_gymnasium("deeprm", seed=0, load=load)
    void = env.action_space.n - 1
    env.reset()
    env.step(void)  # compile
    best = float("inf")
    for _ in range(repeats):
        env.reset()
        t0 = time.perf_counter()
        for _ in range(steps):
            _, _, terminated, truncated, _ = env.step(void)
            if terminated or truncated:
                env.reset()
        best = min(best, time.perf_counter() - t0)
    return {"observation": "image", "policy": "gymnasium adapter step per Python call", "batch": 1,
            "steps": steps, "steps_per_s": steps / best, "seconds": best}


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
    rows.append(time_gymnasium_step(10 * steps, repeats, load))
    print(f"{rows[-1]['policy']}: {rows[-1]['steps_per_s']:,.0f} steps/s", flush=True)
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


TRAIN_WORKLOADS = (  # (label, config, overrides): what `bench train` times by default
    ("REINFORCE, paper size (100 jobsets x 20 rollouts), 1 seed", Path("configs/deeprm_slowdown.yaml"), []),
    ("REINFORCE, 20 jobsets x 10 rollouts, 2 seeds", Path("configs/deeprm_slowdown.yaml"),
     ["seeds=[0,1]", "algo_options.num_jobsets=20", "algo_options.num_rollouts=10"]),
    ("CVD-RL, 50 PMs, 1 seed", Path("configs/vm_cvd_frag_impact.yaml"), ["env_options.num_pms=50"]),
)


def time_train_iteration(config_path: Path, overrides: list[str], devices, repeats: int) -> dict:
    """Seconds per training iteration (rollouts + update of every seed, one jitted call; one seed unless
    the overrides set ``seeds``) on ``devices``, compilation excluded, after ``block_until_ready``."""
    seeds = [] if any(o.startswith("seeds=") for o in overrides) else ["seeds=[0]"]
    config = load_train_config(config_path, overrides + seeds + [f"devices={devices}"])
    experiment = Experiment.from_config(config)
    states, _ = experiment.initial_states(log=lambda *_: None)
    step = experiment.make_chunk(1)
    t0 = time.perf_counter()
    states, metrics = step(states)
    jax.block_until_ready(metrics)
    first = time.perf_counter() - t0
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        states, metrics = step(states)
        jax.block_until_ready(metrics)
        times.append(time.perf_counter() - t0)
    mesh = experiment.mesh
    return {"config": str(config_path), "overrides": overrides, "devices": 1 if mesh is None else mesh.size,
            "seconds_per_iteration_median": float(np.median(times)), "seconds_per_iteration_min": min(times),
            "first_call_with_compile_s": first, "decisions_per_iteration": float(metrics["decisions"].sum()),
            "hardware": _hardware(), "repeats": repeats}


ONE_CORE = "1core"  # a --devices spec: one device, its process pinned to one core (no intra-op threads)
PIN_THEN_EXEC = "import os, sys; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); os.execv(sys.argv[1], sys.argv[1:])"


def bench_train(workloads, device_specs: list, repeats: int, out: Path | None) -> list[dict]:
    """Each workload timed once per device spec, each in its own process (XLA fixes its device count
    at start), and the speed-up of all devices over one device. On one device XLA:CPU already runs
    large operations (the gradient's matrix products) on every core; the spec ``1core`` pins that
    process to one core, to show how much of the one-device time is already parallel."""
    rows = []
    for label, config_path, overrides in workloads:
        for spec in device_specs:
            count = 1 if spec == ONE_CORE else usable_cores() if spec == "auto" else int(spec)
            environment = dict(os.environ, XLA_FLAGS=f"{os.environ.get('XLA_FLAGS', '')} "
                                                     f"--xla_force_host_platform_device_count={max(count, 1)}".strip())
            command = [sys.executable, "-m", "jaxsched.bench", "train-worker", "--config", str(config_path),
                       "--devices", str(count), "--repeats", str(repeats), *overrides]
            if spec == ONE_CORE:  # pinned before the worker starts, so every thread XLA makes inherits it
                command = [sys.executable, "-c", PIN_THEN_EXEC, *command]
            done = subprocess.run(command, env=environment, capture_output=True, text=True)
            lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
            if done.returncode != 0 or not lines:
                raise SystemExit(f"bench train worker failed ({' '.join(command)}):\n{done.stderr[-2000:]}")
            row = {"workload": label, "device_spec": spec, **json.loads(lines[-1][len("RESULT "):])}
            rows.append(row)
            shown = "1 (one core)" if spec == ONE_CORE else row["devices"]
            print(f"{label:50s} devices={shown}  {row['seconds_per_iteration_median']:7.2f} s/iteration "
                  f"(min {row['seconds_per_iteration_min']:.2f}; compile {row['first_call_with_compile_s']:.0f} s), "
                  f"{row['decisions_per_iteration'] / row['seconds_per_iteration_median']:,.0f} decisions/s", flush=True)
    speedups = {}
    for label, _, _ in workloads:
        mine = {r["device_spec"]: r for r in rows if r["workload"] == label}
        most = max(mine.values(), key=lambda r: (r["devices"], r["device_spec"] != ONE_CORE))
        for base_spec, what in (("1", "1 device"), (ONE_CORE, "1 device on one core")):
            if base_spec in mine and most["devices"] > 1:
                speedup = mine[base_spec]["seconds_per_iteration_median"] / most["seconds_per_iteration_median"]
                speedups.setdefault(label, {})[base_spec] = speedup
                print(f"{label}: {most['devices']} devices {speedup:.2f}x faster than {what}")
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps({"rows": rows, "speedups": speedups}, indent=1))
        print(f"wrote {out}")
    headline = next((s["1"] for s in speedups.values() if "1" in s), None)  # the first workload's
    if headline is not None:
        print(f"train speedup with all devices: {headline:.1f}x  ({next(iter(speedups))}, against 1 device)")
    return rows


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


def make_grid_runner(variant, policy):
    """``(batched params, key) -> (start, decisions, return)`` of one episode per window: the jitted
    vmapped ``lax.scan`` of exactly ``num_jobs`` decisions of :meth:`GridVariant.run_episodes` (the
    grid evaluation path). Rewards are summed and the observation built every step, as in evaluation
    (FIFO reads only its mask)."""

    def run(params, key):
        final, total = variant.run_episodes(policy, params, key)
        return final.start[:, 0], final.time[:, 0], total[:, 0]

    return run


MIN_TIMED_S, MAX_REPEATS = 1.0, 200  # short runs (batch 1) repeat until a second is timed


def bench_grid(batches, num_jobs: int, repeats: int, out: Path | None, python_windows: int | None = None,
               seed: int = 1) -> list[dict]:
    """FIFO decisions/s of :class:`GridSite` (81 cores, the registered ``grid`` variant with ``num_jobs``
    jobs per window) at each batch size against :func:`jaxsched.envs.grid.heapq_sim.simulate_fifo` on
    the same synthetic windows. JAX: compiled ahead (compilation excluded), timed after
    ``block_until_ready``, best and median of ``repeats`` runs (more until ``MIN_TIMED_S`` are timed);
    the batch split over the local devices (``--cpu-devices``, default one) where it splits evenly.
    Python: the same windows one after the other (at most ``python_windows`` of them), total decisions
    / total seconds, best and median likewise. The start times of every window the simulator runs are
    checked job for job against the env's before the batch is reported (a mismatch exits)."""
    variant = build("grid", num_jobs=num_jobs, exclude=0)
    policy = variant.heuristic("fifo")
    devices = jax.local_devices()
    single = jax.jit(make_grid_runner(variant, policy))
    split = split_over_devices(make_grid_runner(variant, policy), devices) if len(devices) > 1 else single
    sample = jax.jit(variant.sample_params, static_argnums=1)
    key = jax.random.PRNGKey(0)
    rows = []
    for batch in batches:
        used = len(devices) if batch % len(devices) == 0 else 1  # a batch that does not split runs on one
        run = split if used > 1 else single
        params = sample(jax.random.PRNGKey(seed), batch)
        t0 = time.perf_counter()
        compiled = run.lower(params, key).compile()
        compile_s = time.perf_counter() - t0
        times = []
        while len(times) < repeats or (sum(times) < MIN_TIMED_S and len(times) < MAX_REPEATS):
            t0 = time.perf_counter()
            start, decisions, _ = jax.block_until_ready(compiled(params, key))
            times.append(time.perf_counter() - t0)
        jax_decisions, start = int(np.sum(decisions)), np.asarray(start)

        columns = jax.tree.map(np.asarray, params.jobs)
        count = batch if python_windows is None else min(batch, python_windows)
        py_times, py_decisions, mismatched = [], 0, []
        while len(py_times) < repeats or (sum(py_times) < MIN_TIMED_S and len(py_times) < MAX_REPEATS):
            total_s, py_decisions = 0.0, 0
            for i in range(count):
                t0 = time.perf_counter()
                expected, made = simulate_fifo(columns.submit[i], columns.runtime[i], columns.klass[i], columns.vo[i],
                                               num_cores=variant.env.num_cores)
                total_s += time.perf_counter() - t0
                py_decisions += made
                if len(py_times) == 0 and not np.array_equal(start[i], expected):
                    mismatched.append(i)
            py_times.append(total_s)
        if mismatched or jax_decisions != batch * num_jobs or py_decisions != count * num_jobs:
            raise SystemExit(f"grid bench: the JAX env and the heapq simulator disagree at batch {batch} "
                             f"(first window differing: {mismatched[:1]}; decisions {jax_decisions} vs "
                             f"{py_decisions} on {count} windows)")
        jax_rate, py_rate = jax_decisions / min(times), py_decisions / min(py_times)
        row = {"batch": batch, "jobs_per_window": num_jobs, "devices": used,
               "jax_decisions": jax_decisions, "jax_seconds_min": min(times),
               "jax_seconds_median": float(np.median(times)), "jax_decisions_per_s": jax_rate,
               "jax_decisions_per_s_median": jax_decisions / float(np.median(times)), "compile_s": compile_s,
               "jax_repeats": len(times), "python_windows": count, "python_repeats": len(py_times),
               "python_decisions": py_decisions, "python_seconds_min": min(py_times),
               "python_seconds_median": float(np.median(py_times)), "python_decisions_per_s": py_rate,
               "ratio": jax_rate / py_rate, "checked_windows": count}
        rows.append(row)
        print(f"batch={batch:5d}  jax {jax_rate:>12,.0f} decisions/s (median "
              f"{row['jax_decisions_per_s_median']:,.0f}; compile {compile_s:.0f} s)  python {py_rate:>10,.0f} "
              f"decisions/s on {count} windows  ratio {row['ratio']:.2f}", flush=True)
    meta = {"hardware": _hardware(), "devices": [str(d) for d in devices], "load_average": os.getloadavg(),
            "env": f"grid: GridSite, {variant.env.num_cores} cores, K={variant.env.num_candidates}, "
                   f"scan_width={variant.env.scan_width}, oracle runtimes",
            "workload": f"synthetic Table 1 windows of {num_jobs} jobs (seed {seed})", "policy": "fifo",
            "batches": list(batches),
            "timing": f"best (and median) of at least {repeats} runs and {MIN_TIMED_S:.0f} s, compilation excluded",
            "python": "jaxsched.envs.grid.heapq_sim.simulate_fifo, one window after another, one core"}
    header = ["| batch | devices | JAX decisions/s (median) | Python decisions/s | JAX / Python |",
              "|---:|---:|---:|---:|---:|"]
    lines = [f"| {r['batch']} | {r['devices']} | {r['jax_decisions_per_s']:,.0f} "
             f"({r['jax_decisions_per_s_median']:,.0f}) | {r['python_decisions_per_s']:,.0f} | {r['ratio']:.2f}x |"
             for r in rows]
    print(f"\n{meta['env']}; {meta['workload']}; {meta['timing']}\n" + "\n".join(header + lines))
    if out is not None:
        if out.suffix != ".json":  # a folder
            out = out / "bench_grid.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
        notes = "\n".join(f"- {k}: {v}" for k, v in meta.items())
        out.with_suffix(".md").write_text("# Grid site: FIFO decisions per second, JAX vs the heapq simulator\n\n"
                                          f"{notes}\n\n" + "\n".join(header + lines) + "\n")
        print(f"wrote {out} and {out.with_suffix('.md')}")
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jaxsched.bench", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    env = sub.add_parser("env", help="environment steps/s, random and SJF policies, image built or not")
    env.add_argument("--batch-sizes", default="1,64,1024,4096")
    env.add_argument("--steps", type=int, default=200, help="steps per timed run")
    env.add_argument("--repeats", type=int, default=3)
    env.add_argument("--load", type=float, default=0.7)
    env.add_argument("--out", type=Path, default=Path("runs/bench_env.json"))
    train = sub.add_parser("train", help="seconds per training iteration on 1 device and on all (default: "
                           "paper-size REINFORCE and CVD-RL at 50 PMs)")
    train.add_argument("--config", type=Path, help="time this config instead of the default workloads")
    train.add_argument("overrides", nargs="*", help="key=value config overrides (with --config)")
    train.add_argument("--devices", default=f"{ONE_CORE},1,auto",
                       help=f"device counts to compare, e.g. 1,auto or 1,2; {ONE_CORE}: 1 device pinned to one core")
    train.add_argument("--repeats", type=int, default=3)
    train.add_argument("--out", type=Path, default=Path("runs/bench_train.json"))
    worker = sub.add_parser("train-worker", help=argparse.SUPPRESS)
    worker.add_argument("--config", type=Path, required=True)
    worker.add_argument("--devices", required=True)
    worker.add_argument("--repeats", type=int, default=3)
    worker.add_argument("overrides", nargs="*")
    vm = sub.add_parser("vm", help="VM placement steps/s (Best-Fit) for a batch of episodes")
    vm.add_argument("--num-pms", default="50,100")
    vm.add_argument("--batch", type=int, default=1024)
    vm.add_argument("--steps", type=int, default=200, help="decisions per episode per timed run")
    vm.add_argument("--window", type=int, default=1000, help="trace events per episode (state size)")
    vm.add_argument("--repeats", type=int, default=3)
    vm.add_argument("--trace", help="the Huawei trace: dataset:huawei-east-1 or a file path; default: synthetic")
    vm.add_argument("--out", type=Path, default=Path("runs/bench_vm.json"))
    vm.add_argument("--cpu-devices", type=int, default=usable_cores(),
                    help="XLA:CPU devices to split the batch over (default: the cores this process may use)")
    grid = sub.add_parser("grid", help="grid site FIFO decisions/s: JAX at several batch sizes vs the heapq simulator")
    grid.add_argument("--batches", default="1,64,1024", help="comma-separated batch sizes (windows per call)")
    grid.add_argument("--jobs", type=int, default=500,
                      help="jobs per window (= decisions per episode); 500 keeps the default run ~3 min on 2 cores")
    grid.add_argument("--repeats", type=int, default=3)
    grid.add_argument("--python-windows", type=int, default=None,
                      help="time the Python simulator on at most this many windows of each batch (default: all)")
    grid.add_argument("--out", type=Path, default=Path("runs/bench_grid.json"),
                      help="JSON file (the .md beside it), or a folder for bench_grid.json/.md")
    grid.add_argument("--cpu-devices", type=int, default=1,
                      help="XLA:CPU devices to split each batch over (default 1: one vmapped call)")
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)

    def int_list(flag: str, text: str) -> list[int]:
        try:
            return [int(x) for x in text.split(",")]
        except ValueError:
            parser.error(f"{flag} must be comma-separated integers, got {text!r}")

    if args.what == "vm":
        sizes = int_list("--num-pms", args.num_pms)
        restart_for_devices(args.cpu_devices, "jaxsched.bench", argv)
        print(f"hardware: {_hardware()}")
        if args.trace is not None:
            try:
                args.trace = resolve_path(args.trace)
            except DatasetError as error:
                parser.error(str(error))
            if not args.trace.exists():
                parser.error(f"--trace {args.trace}: file not found")
        bench_vm(sizes, args.batch, args.steps, args.repeats, args.window, args.out, args.trace)
    if args.what == "train":
        specs = [s.strip() for s in args.devices.split(",") if s.strip()]
        if not specs or any(s not in ("auto", ONE_CORE) and not s.isdigit() for s in specs):
            parser.error(f"--devices must be a comma list of counts, auto or {ONE_CORE}, got {args.devices!r}")
        if args.repeats < 1:
            parser.error("--repeats must be >= 1")
        if args.config is not None:  # checked here, or each worker process fails with a traceback
            try:
                load_train_config(args.config, args.overrides)
            except ConfigError as error:
                parser.error(str(error))
        workloads = TRAIN_WORKLOADS if args.config is None else ((str(args.config), args.config, args.overrides),)
        print(f"hardware: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, jax {jax.__version__}")
        bench_train(workloads, specs, args.repeats, args.out)
    if args.what == "train-worker":
        devices = args.devices if args.devices == "auto" else int(args.devices)
        print("RESULT " + json.dumps(time_train_iteration(args.config, args.overrides, devices, args.repeats)))
    if args.what == "grid":
        sizes = int_list("--batches", args.batches)
        if args.jobs < 1 or args.repeats < 1 or min(sizes) < 1:
            parser.error("--jobs, --repeats and every batch size must be >= 1")
        restart_for_devices(args.cpu_devices, "jaxsched.bench", argv)
        print(f"hardware: {_hardware()}; batches {', '.join(map(str, sizes))}; {args.jobs} jobs per window")
        rows = bench_grid(sizes, args.jobs, args.repeats, args.out, args.python_windows)
        at = next((r for r in rows if r["batch"] == 1024), max(rows, key=lambda r: r["batch"]))
        digits = 1 if at["ratio"] >= 0.95 else 2  # a slow-down shows as 0.xx, not 0.0
        print(f"grid speedup over the Python simulator at batch {at['batch']}: {at['ratio']:.{digits}f}x")
    if args.what == "env":
        sizes = int_list("--batch-sizes", args.batch_sizes)
        if args.steps < 1 or args.repeats < 1 or min(sizes) < 1:
            parser.error("--steps, --repeats and every batch size must be >= 1")
        print(f"hardware: {_hardware()}")
        bench_env(sizes, args.steps, args.repeats, args.load, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
