"""``python -m jaxsched.bench grid``: FIFO decisions per second of the grid site against the plain-Python
heapq simulator on the same windows, then SJF against a Python RL loop (the RL-loop reference rows).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path

import jax
import numpy as np

from jaxsched.bench.common import hardware, markdown_page, plural, split_over_devices
from jaxsched.core.devices import threads_on_one_core
from jaxsched.envs.grid.fifo import fifo_starts
from jaxsched.envs.grid.heapq_sim import simulate_fifo, simulate_observed
from jaxsched.registry import build


def make_grid_runner(variant, policy):
    """``(batched params, key) -> (start, decisions, return)`` of one episode per window: the jitted
    vmapped ``lax.scan`` of exactly ``num_jobs`` decisions of :meth:`GridVariant.run_episodes` (the
    grid evaluation path). Rewards are summed and the observation built every step, as in evaluation
    (FIFO reads only its mask)."""

    def run(params, key):
        final, total = variant.run_episodes(policy, params, key)
        return final.start[:, 0], final.time[:, 0], total[:, 0]

    return run


def make_fifo_runner(num_cores: int):
    """``(batched params, key) -> start`` of the closed-form FIFO (:func:`fifo_starts`) on every window: the
    FIFO-only JAX simulator, the like-for-like match of the heapq one (the env row pays for a general
    decision over its whole queue)."""
    return lambda params, key: jax.vmap(lambda jobs: fifo_starts(jobs, num_cores))(params.jobs)


MIN_TIMED_S, MAX_REPEATS = 1.0, 200  # short runs (batch 1) repeat until a second is timed


def bench_grid(batches, num_jobs: int, repeats: int, out: Path | None, python_windows: int | None = None,
               seed: int = 1, reference_windows: int = 16) -> list[dict]:
    """FIFO decisions/s of :class:`GridSite` (81 cores, the registered ``grid`` variant with ``num_jobs``
    jobs per window) at each batch size against :func:`jaxsched.envs.grid.heapq_sim.simulate_fifo` on
    the same synthetic windows. JAX: compiled ahead (compilation excluded), timed after
    ``block_until_ready``, best and median of ``repeats`` runs (more until ``MIN_TIMED_S`` are timed);
    the batch split over the local devices (``--cpu-devices``, default one) where it splits evenly.
    Python: the same windows one after the other (at most ``python_windows`` of them), total decisions
    / total seconds, best and median likewise. Beside the env, the FIFO-only JAX simulator
    (:func:`make_fifo_runner`, the closed-form FIFO: what the heapq simulator does, no observation, no
    policy) on the same windows and cores, its starts checked equal to the env's. The start times of every window the simulator runs are
    checked job for job against the env's before the batch is reported (a mismatch exits). Then the
    RL-loop reference rows (:func:`bench_grid_reference`, SJF on ``reference_windows`` windows)."""
    variant = build("grid", num_jobs=num_jobs, exclude=0)
    policy = variant.heuristic("fifo")
    devices = jax.local_devices()
    runners = {}
    for name, run in (("env", make_grid_runner(variant, policy)), ("fast", make_fifo_runner(variant.env.num_cores))):
        runners[name] = (jax.jit(run), split_over_devices(run, devices) if len(devices) > 1 else jax.jit(run))
    sample = jax.jit(variant.sample_params, static_argnums=1)
    key = jax.random.PRNGKey(0)
    rows = []
    for batch in batches:
        used = len(devices) if batch % len(devices) == 0 else 1  # a batch that does not split runs on one
        params = sample(jax.random.PRNGKey(seed), batch)
        t0 = time.perf_counter()
        compiled = {name: (split if used > 1 else single).lower(params, key).compile()
                    for name, (single, split) in runners.items()}
        compile_s = time.perf_counter() - t0
        with on_cores(used):
            row = _fifo_row(variant, compiled, params, key, batch, num_jobs, repeats, python_windows, used)
        row["compile_s"] = compile_s
        rows.append(row)
        print(f"batch={batch:5d}  jax env {row['jax_decisions_per_s']:>12,.0f} decisions/s (median "
              f"{row['jax_decisions_per_s_median']:,.0f}; compile {compile_s:.0f} s)  python "
              f"{row['python_decisions_per_s']:>10,.0f} decisions/s on {row['python_windows']} windows  ratio "
              f"{row['ratio']:.2f}; FIFO-only JAX {row['fast_decisions_per_s']:,.0f} decisions/s, ratio "
              f"{row['fast_ratio']:.2f} ({grid_sides(row)})", flush=True)
    reference = bench_grid_reference(variant, batches, repeats, seed, reference_windows, devices)
    meta = {"hardware": hardware(), "devices": [str(d) for d in devices], "load_average": os.getloadavg(),
            "env": f"grid: GridSite, {variant.env.num_cores} cores, candidates: every waiting job "
                   f"(queue capacity {variant.env.queue_capacity}), oracle runtimes",
            "workload": f"synthetic Table 1 windows of {num_jobs} jobs (seed {seed})", "policy": "fifo",
            "batches": list(batches),
            "timing": f"best (and median) of at least {repeats} runs and {MIN_TIMED_S:.0f} s, compilation excluded",
            "python": "jaxsched.envs.grid.heapq_sim.simulate_fifo, one window after another, one core",
            "fifo_only": "jaxsched.envs.grid.fifo.fifo_starts vmapped over the windows (the P-server recursion, "
                         "one scan step per job), starts checked equal to the env's",
            "cores": "a batch on one XLA:CPU device: both sides timed with every thread of the process pinned to one "
                     "core; a batch split over several devices (one per core): the Python side one process"}
    print(f"\n{meta['env']}; {meta['workload']}; {meta['timing']}\n" + grid_markdown(rows, meta).split("\n\n", 2)[2])
    if out is not None:
        if out.suffix != ".json":  # a folder
            out = out / "bench_grid.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps({"meta": meta, "rows": rows, "reference_rows": reference}, indent=1))
        out.with_suffix(".md").write_text(grid_markdown(rows, meta) + grid_reference_markdown(reference))
        print(f"wrote {out} and {out.with_suffix('.md')}")
    for row in rows:  # the RL-loop reference's ratio beside each FIFO row
        row["reference"] = next((r for r in reference if r["batch"] == row["batch"]), None)
    return rows


def _fifo_row(variant, compiled, params, key, batch: int, num_jobs: int, repeats: int, python_windows,
              used: int) -> dict:
    """One FIFO row: the compiled JAX batch timed (``compiled["env"]``, the env's episode; ``compiled["fast"]``,
    the closed-form FIFO, its starts checked equal to the env's), then the heapq simulator on the same windows
    (start times checked job for job on the first pass)."""
    times, fast_times = [], []
    while len(times) < repeats or (sum(times) < MIN_TIMED_S and len(times) < MAX_REPEATS):
        t0 = time.perf_counter()
        start, decisions, _ = jax.block_until_ready(compiled["env"](params, key))
        times.append(time.perf_counter() - t0)
    jax_decisions, start = int(np.sum(decisions)), np.asarray(start)
    while len(fast_times) < repeats or (sum(fast_times) < MIN_TIMED_S and len(fast_times) < MAX_REPEATS):
        t0 = time.perf_counter()
        fast = jax.block_until_ready(compiled["fast"](params, key))
        fast_times.append(time.perf_counter() - t0)
    if not np.array_equal(np.asarray(fast), start):
        raise SystemExit(f"grid bench: the closed-form FIFO's starts differ from the env's at batch {batch}")

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
           "jax_decisions_per_s_median": jax_decisions / float(np.median(times)),
           "jax_repeats": len(times), "python_windows": count, "python_repeats": len(py_times),
           "python_decisions": py_decisions, "python_seconds_min": min(py_times),
           "python_seconds_median": float(np.median(py_times)), "python_decisions_per_s": py_rate,
           "ratio": jax_rate / py_rate, "checked_windows": count, "cores": _cores(used),
           "fast_seconds_min": min(fast_times), "fast_decisions_per_s": jax_decisions / min(fast_times),
           "fast_decisions_per_s_median": jax_decisions / float(np.median(fast_times)),
           "fast_ratio": jax_decisions / min(fast_times) / py_rate}
    return row


def bench_grid_reference(variant, batches, repeats: int, seed: int, windows: int, devices) -> list[dict]:
    """The RL-loop reference (issue 51): SJF decisions/s of the JAX env (every waiting job a candidate,
    the observation built each step, one policy call on it) at each batch size against
    :func:`jaxsched.envs.grid.heapq_sim.simulate_observed`, a Python simulator that per decision builds
    the same observation and makes one policy call (SJF reading it), on the first ``windows`` windows
    of each batch. The decisions (start times, job for job) are checked equal before anything is
    reported (a mismatch exits)."""
    policy = variant.heuristic("sjf")
    single = jax.jit(make_grid_runner(variant, policy))
    split = split_over_devices(make_grid_runner(variant, policy), devices) if len(devices) > 1 else single
    sample = jax.jit(variant.sample_params, static_argnums=1)
    key, rows, env = jax.random.PRNGKey(0), [], variant.env
    for batch in batches:
        used = len(devices) if batch % len(devices) == 0 else 1
        params = sample(jax.random.PRNGKey(seed), batch)
        compiled = (split if used > 1 else single).lower(params, key).compile()
        with on_cores(used):  # both sides on one core where JAX runs on one device
            times = []
            while len(times) < repeats or (sum(times) < MIN_TIMED_S and len(times) < MAX_REPEATS):
                t0 = time.perf_counter()
                start, decisions, _ = jax.block_until_ready(compiled(params, key))
                times.append(time.perf_counter() - t0)
            start, jax_decisions = np.asarray(start), int(np.sum(decisions))
            columns = jax.tree.map(np.asarray, params.jobs)
            count = min(batch, windows)
            py_times = []
            while len(py_times) < repeats or (sum(py_times) < MIN_TIMED_S and len(py_times) < MAX_REPEATS):
                total_s, py_decisions = 0.0, 0
                for i in range(count):
                    t0 = time.perf_counter()
                    expected, made = simulate_observed(columns.submit[i], columns.runtime[i], columns.klass[i],
                                                       columns.vo[i], env.num_cores, env.vo_shares,
                                                       time_scale=env.time_scale,
                                                       prior_runtime=tuple(variant.params.prior_runtime))
                    total_s += time.perf_counter() - t0
                    py_decisions += made
                    if len(py_times) == 0 and not np.array_equal(start[i], expected):
                        raise SystemExit(f"grid bench: the JAX env's SJF and the Python RL-loop reference disagree on "
                                         f"window {i} at batch {batch}")
                py_times.append(total_s)
        jax_rate, py_rate = jax_decisions / min(times), py_decisions / min(py_times)
        row = {"batch": batch, "devices": used, "policy": "sjf", "jax_decisions": jax_decisions,
               "jax_seconds_min": min(times), "jax_decisions_per_s": jax_rate,
               "jax_decisions_per_s_median": jax_decisions / float(np.median(times)),
               "reference_windows": count, "reference_decisions": py_decisions,
               "reference_seconds_min": min(py_times), "reference_decisions_per_s": py_rate,
               "ratio": jax_rate / py_rate, "checked_windows": count, "cores": _cores(used)}
        rows.append(row)
        print(f"batch={batch:5d}  jax sjf {jax_rate:>12,.0f} decisions/s  Python RL-loop reference {py_rate:>10,.0f} "
              f"decisions/s on {count} windows (decisions checked equal)  ratio {row['ratio']:.2f}", flush=True)
    return rows


def grid_reference_markdown(rows: list[dict]) -> str:
    """The RL-loop reference's section of bench_grid.md."""
    lines = ["", "## SJF over the whole queue: JAX vs a Python RL loop over a Python simulator", "",
             "Per decision the reference builds the env's observation (site state, then every waiting job) and "
             "makes one policy call (SJF reading it): jaxsched.envs.grid.heapq_sim.simulate_observed, one window "
             "after another, one core. Start times checked equal job for job on the windows it runs.", "",
             "| batch | devices | JAX decisions/s (median) | reference decisions/s (windows) | cores: JAX vs Python "
             "| JAX / reference |",
             "|---:|---:|---:|---:|---|---:|"]
    lines += [f"| {r['batch']} | {r['devices']} | {r['jax_decisions_per_s']:,.0f} "
              f"({r['jax_decisions_per_s_median']:,.0f}) | {r['reference_decisions_per_s']:,.0f} "
              f"({r['reference_windows']}) | {grid_sides(r)} | {r['ratio']:.2f}x |" for r in rows]
    return "\n".join(lines) + "\n"


def on_cores(devices: int):
    """Equal cores for a row: with JAX on one device, every thread of this process pinned to one core while
    both sides are timed (XLA:CPU's intra-op threads would otherwise use the other core); split over
    several devices (one per core) the Python side stays one process, and the row says so."""
    return threads_on_one_core() if devices == 1 else contextlib.nullcontext()


def _cores(devices: int) -> dict:
    return {"jax": devices, "python": 1, "pinned": devices == 1}


def grid_sides(row: dict) -> str:
    devices = int(row.get("devices", 1))
    pinned = row.get("cores", {}).get("pinned", False)
    return (f"JAX {plural(devices, 'core')} ({plural(devices, 'XLA:CPU device')}) vs Python 1 core (1 process)"
            + (", both in one process pinned to one core" if pinned else ""))


def grid_markdown(rows: list[dict], meta: dict) -> str:
    """bench_grid.md from its JSON's rows and meta, each ratio with the cores of both sides."""
    fast = all("fast_ratio" in r for r in rows)  # files written before the closed-form FIFO have no such column
    header = ["| batch | devices | JAX env decisions/s (median) | Python decisions/s | cores: JAX vs Python "
              "| JAX env / Python |" + (" JAX FIFO-only decisions/s (median) | FIFO-only / Python |" if fast else ""),
              "|---:|---:|---:|---:|---|---:|" + ("---:|---:|" if fast else "")]
    lines = [f"| {r['batch']} | {r['devices']} | {r['jax_decisions_per_s']:,.0f} "
             f"({r['jax_decisions_per_s_median']:,.0f}) | {r['python_decisions_per_s']:,.0f} | {grid_sides(r)} | "
             f"{r['ratio']:.2f}x |" + (f" {r['fast_decisions_per_s']:,.0f} ({r['fast_decisions_per_s_median']:,.0f}) "
                                       f"| {r['fast_ratio']:.2f}x |" if fast else "") for r in rows]
    return markdown_page("Grid site: FIFO decisions per second, JAX vs the heapq simulator", meta, header + lines)
