"""Benchmarks: ``python -m jaxsched.bench env|train|vm|grid|dispatch|event|public-step|train-sb3``.

``env [--family deeprm,compact,vm] [--sizes 10,20,50] [--loads 1.3,0.7] [--pms 20,50,100,200] [--reference DIR]
[--cpu-devices N] [--vector-sizes 1,8,64,256] [--vector-only] [--quick]``: the reference simulators of
``../shared/reference`` (``--reference``) and jaxsched in one process, on the same jobs, timed in turn; SJF
schedules (VM: First-Fit placements) checked first (see :func:`bench_env`); the batched rows split over N
XLA:CPU devices, default one per core; then the "vector env, N copies per Python call" rows
(:mod:`jaxsched.bench_vector`: ``make_vec``'s env stepped from Python against N reference envs stepped in a
Python loop, as ``SyncVectorEnv`` does; both in one process pinned to one core).
``train [--devices 1,auto] [--config X.yaml key=value ...]``: seconds per training iteration on one
device and on all (paper-size REINFORCE and CVD-RL at 50 PMs by default), each in its own process.
``vm [--num-pms 50,100] [--batch 1024] [--steps 200] [--trace FILE] [--cpu-devices N]``: VM placement
steps per second, the batch split over N XLA:CPU devices, default one per core (see :func:`bench_vm`).
``grid [--batches 1,64,1024] [--jobs 500] [--repeats 3] [--out FILE]``: FIFO decisions per second of
the grid site against the plain-Python heapq simulator on the same windows (see :func:`bench_grid`).
``dispatch [--sizes 10,20,50]``: where one env step called from Python spends its time (XLA:CPU's thunk
executor; :mod:`jaxsched.bench_dispatch`).
``event [--scenario bracis-7] [--batches 32,1024]``: what an event-based (sparse) decision of the MDP-design
study costs under ``vmap`` against a time-based one (:mod:`jaxsched.bench_event`).
``public-step [--batch 256]``: the public gymnax ``env.step`` (vmapped, auto-reset) against the internal
transition + restart, one XLA device, interleaved (:mod:`jaxsched.bench_public_step`).
``train-sb3 [--cores 1,2] [--sb3-decisions N] [--jax-decisions N]``: PPO training decisions/s, SB3 (torch CPU) on
sched-rl-gym against jaxsched, same scenario, hyper-parameters and cores (:mod:`jaxsched.bench_sb3`).

``env`` reports steps per second of both simulators, excluding compilation, timed after
``block_until_ready``: a step is one SJF (VM: First-Fit) decision plus one transition (episode restarts
included), and every observation is summed each step on both sides (as a network would read it) so that
XLA cannot drop an unused image. Rows: image / no observation at batch ``--batch``, image at batch 1, and
one step per Python call through :func:`jaxsched.make_gymnasium`'s ``step`` (compact state and VM: the
same at batch ``--batch``, batch 1, one step per Python call); DeepRM also gets a ceiling row, the image
built and read at batch ``--batch`` with the dynamics frozen (:func:`make_read_scan`), against the image
row's reference.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from jaxsched import bench_dispatch, bench_event, bench_public_step, bench_sb3, bench_vector
from jaxsched.baselines.vm import best_fit, first_fit
from jaxsched.bench_common import (COMPACT_JOBS, check_deeprm_schedules, check_vm_placements, check_vmagent_rows,
                                   _batch_split, interleave, make_policy_scan, over_devices, plural, print_row, sides,
                                   spread)
from jaxsched.bench_reference import (DEFAULT_REFERENCE, CompactReference, DeepRMReference, ReferenceMissing,
                                      VmReference, check_reference, dense_sequences, how_to_get, load_vmagent,
                                      timed_loop, write_vmagent_events)
from jaxsched.core.devices import make_mesh, pinned_to_one_core, restart_for_devices, usable_cores
from jaxsched.core.rollout import auto_reset_step, make_evaluator
from jaxsched.datasets import resolve_path
from jaxsched.envs.deeprm.variants import VARIANTS as DEEPRM_VARIANTS
from jaxsched.envs.grid.heapq_sim import simulate_fifo, simulate_observed
from jaxsched.envs.vm.env import VmPlacement
from jaxsched.envs.vm.episodes import draw_starts
from jaxsched.errors import ConfigError, DatasetError
from jaxsched.experiment import Experiment, load_train_config
from jaxsched.gymnasium_env import make_gymnasium
from jaxsched.registry import build


def _hardware() -> str:
    return f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, jax {jax.__version__} " \
           f"on {jax.devices()[0].platform}"


def make_read_scan(env, steps: int, mesh=None):
    """:func:`make_policy_scan`'s shape with the dynamics frozen: each step only moves the time since the last
    arrival (the image's last column, so XLA cannot hoist the observation out of the loop), builds the
    observation into the carry and sums its features. What producing and reading the image costs alone: a
    ceiling for the image rows on this machine, whatever the transition costs."""
    observe = jax.vmap(env.get_obs)

    def run(carry, params, initial):
        def one(carry, _):
            _, state, seen = carry
            state = state.replace(since_arrival=state.since_arrival + 1)
            obs = observe(state, params)
            return (obs, state, seen + jnp.sum(obs.features.reshape(seen.shape[0], -1), axis=-1)), None

        return jax.lax.scan(one, carry, None, length=steps)[0]

    return over_devices(run, mesh)


class ScanTimer:
    """jaxsched's side of a batched row: the episodes go on from call to call (``carry`` kept), each call
    ``batch x steps`` decisions of ``policy`` (default SJF), compiled by the first call (not timed);
    ``read_only``: :func:`make_read_scan`'s steps instead. ``devices`` > 1: the batch split over that many
    local devices (:func:`over_devices`; one device when the batch does not divide)."""

    def __init__(self, env, params, steps: int, policy=None, read_only: bool = False, devices: int = 1):
        batch = jax.tree.leaves(params)[0].shape[0]
        mesh = make_mesh(devices) if devices > 1 and batch % devices == 0 else None
        self.devices = 1 if mesh is None else mesh.size
        self.run = make_read_scan(env, steps, mesh) if read_only else make_policy_scan(env, steps, policy, mesh)
        initial = jax.jit(jax.vmap(env.initial_state))(params)
        obs = jax.jit(jax.vmap(env.get_obs))(initial, params)
        carry = jax.tree.map(jnp.copy, (obs, initial))  # donated: must not alias params or initial
        carry = (*carry, jnp.zeros(batch, jnp.float32))
        if mesh is not None:
            params, initial, carry = jax.device_put((params, initial, carry), NamedSharding(mesh, PartitionSpec("batch")))
        self.params, self.steps, self.initial, self.batch = params, steps, initial, batch
        self.carry = jax.block_until_ready(self.run(carry, params, initial))

    def __call__(self, window_s: float) -> tuple[int, float]:
        calls, t0 = 0, time.perf_counter()
        while True:
            self.carry = jax.block_until_ready(self.run(self.carry, self.params, self.initial))
            calls += 1
            elapsed = time.perf_counter() - t0
            if elapsed >= window_s:
                return calls * self.batch * self.steps, elapsed


def sjf_from_flat_image(flat: np.ndarray, env) -> int:
    """SJF read from the Gymnasium adapter's observation (the flat DeepRM image, then the mask), as a
    Python policy would: the shortest waiting job that fits now (lowest slot on ties), else move on."""
    T, cap, S, M, R = env.horizon, env.capacity, env.slot_columns, env.num_slots, env.num_res
    block = cap + M * S
    image = flat[:T * (R * block + env.backlog_width + 1)].reshape(T, -1)
    per_resource = image[:, :R * block].reshape(T, R, block)
    used = per_resource[:, :, :cap].sum(-1)  # [T, R]
    slots = per_resource[:, :, cap:].reshape(T, R, M, S)
    duration = slots[:, 0, :, 0].sum(0)  # [M]: every job asks for >= 1 unit of each resource
    demand = slots[0].sum(-1).T  # [M, R]
    fits = (used[:, None, :] + demand[None] <= cap) | (np.arange(T)[:, None, None] >= duration[None, :, None])
    candidates = (duration > 0) & fits.all(axis=(0, 2))
    if not candidates.any():
        return M
    return int(np.argmin(np.where(candidates, duration, np.inf)))


def sjf_from_compact(flat: np.ndarray, env) -> int:
    """SJF read from the Gymnasium adapter's BRACIS'21 compact observation (``bracis_vector``, then the
    mask): the schedulable slot with the shortest requested time (its second field, (d + 1) / (L + 1),
    increasing in d), lowest slot on ties, else move on."""
    M = env.num_slots
    first = 2 * env.num_res * env.horizon  # past the (free, used) per resource and future step
    requested = flat[first:first + 7 * M].reshape(M, 7)[:, 1]
    schedulable = flat[flat.shape[0] - (M + 1):-1] > 0.5
    if not schedulable.any():
        return M
    return int(np.argmin(np.where(schedulable, requested, np.inf)))


def first_fit_from_flat(flat: np.ndarray, env) -> int:
    """First-Fit read from the Gymnasium adapter's VM observation: the first action its mask (the tail
    of the observation) allows, lowest PM and NUMA 0 first."""
    return int(np.argmax(flat[flat.shape[0] - env.num_actions:] > 0.5))


class AdapterTimer:
    """jaxsched's side of the "one step per Python call" row: :func:`make_gymnasium`'s public ``step``
    with the action read from its numpy observation by ``policy(obs, inner env)`` (default
    :func:`sjf_from_flat_image`), the instances of ``params`` played one after the other (``reset``
    after each episode, as Gymnasium's rules ask)."""

    def __init__(self, name: str, params, overrides: dict, policy=sjf_from_flat_image):
        self.adapter = make_gymnasium(name, seed=0, fresh_instances=False, **overrides)
        self.inner, self.policy = self.adapter.env.inner, policy
        self.field = self.adapter.env.instance_field  # jobset, requests
        self.instances = getattr(params, self.field)
        self.count, self.next = int(jax.tree.leaves(self.instances)[0].shape[0]), 0
        self.obs = self.reset()
        self.adapter.step(self.policy(self.obs, self.inner))  # compile
        self.obs = self.reset()

    def reset(self) -> np.ndarray:
        instance = jax.tree.map(lambda x: x[self.next % self.count], self.instances)
        self.adapter.params = self.adapter.params.replace(**{self.field: instance})
        self.next += 1
        return self.adapter.reset()[0]

    def step(self) -> bool:
        """One decision; True where it ended the episode (terminated or truncated: the next is reset)."""
        self.obs, _, terminated, truncated, _ = self.adapter.step(self.policy(self.obs, self.inner))
        if terminated or truncated:
            self.obs = self.reset()
        return terminated or truncated

    def episode_decisions(self, count: int) -> list[int]:
        """Decisions per episode on the first ``count`` jobsets (to check against the reference's)."""
        self.next, decisions, self.obs = 0, [], None
        self.obs = self.reset()
        while len(decisions) < count:
            steps = 1
            while not self.step():
                steps += 1
            decisions.append(steps)
        return decisions

    def __call__(self, window_s: float) -> tuple[int, float]:
        return timed_loop(self.step, window_s)


def checked_adapter(name: str, params, overrides: dict, expected: list[int],
                    policy=sjf_from_flat_image) -> AdapterTimer:
    """The :class:`AdapterTimer`, checked first to play episodes exactly as long as jaxsched's jitted
    heuristic did on the first ``len(expected)`` instances (``expected`` decisions each; exits otherwise)."""
    adapter = AdapterTimer(name, params, overrides, policy)
    if adapter.episode_decisions(len(expected)) != list(expected):
        shown = ", ".join(f"{k}={v}" for k, v in overrides.items() if k != "trace")
        raise SystemExit(f"bench env: the Gymnasium adapter's {policy.__name__} (read from its observation) plays "
                         f"episodes of other lengths than jaxsched's jitted heuristic on {name} ({shown}); "
                         "refusing to time")
    return adapter


DEEPRM_WORKLOADS = ("image, batch {batch}", "no observation, batch {batch}", "image, batch 1",
                    "image, one step per Python call")
CEILING_WORKLOAD = "ceiling: image built and read, no dynamics, batch {batch}"


def bench_deeprm(folder: Path, sizes, loads, batch: int, steps: int, single_steps: int, repeats: int,
                 window_s: float, check: int, seed: int, devices: int = 1) -> list[dict]:
    """The DeepRM rows (:data:`DEEPRM_WORKLOADS`) at each M (slots) and load against hongzimao/deeprm,
    on ``batch`` jobsets drawn by the reference's own generator (``seed``); the batched rows split over
    ``devices`` (:class:`ScanTimer`)."""
    rows = []
    for num_slots in sizes:
        for load in loads:
            overrides = dict(num_slots=num_slots, load=load)
            variant = build("deeprm", **overrides)
            blind = build("deeprm", observation="none", **overrides)
            max_time = int(variant.params.max_time)
            reference = DeepRMReference(folder, num_slots, variant.workload.rate, variant.workload.simu_len,
                                        batch, max_time, seed)
            params = variant.reference_instances(seed, batch)
            for got, want, what in zip(dense_sequences(params.jobset, variant.workload.simu_len),
                                       (reference.lengths, reference.sizes), ("durations", "demands")):
                if not np.array_equal(got[:, 1:], want[:, 1:]):  # the reference never reads step 0
                    raise SystemExit(f"bench env: the reference generator's {what} differ from jaxsched's "
                                     f"reference_jobsets (seed {seed}); refusing to time")
            decisions = check_deeprm_schedules(reference, variant, params, min(check, batch))
            adapter = checked_adapter("deeprm", params, overrides, decisions)
            print(f"deeprm  M={num_slots} load={load}: SJF schedules equal job for job on {len(decisions)} "
                  f"jobsets ({sum(decisions)} decisions)", flush=True)
            single = jax.tree.map(lambda x: x[:1], params)
            sides = [(True, ScanTimer(variant.env, params, steps, devices=devices)),
                     (False, ScanTimer(blind.env, params, steps, devices=devices)),
                     (True, ScanTimer(variant.env, single, single_steps)), (True, adapter)]
            for workload, (image, timer) in zip(DEEPRM_WORKLOADS, sides):
                env = reference.make_env(build_obs=image)
                row = {"family": "deeprm", "size_name": "M", "size": num_slots, "load": load,
                       "workload": workload.format(batch=batch),
                       **interleave(timed_loop_of(reference.stepper(env, image)), timer, repeats, window_s)}
                rows.append(row)
                print_row(row)
            ceilings = [ScanTimer(variant.env, params, steps, read_only=True, devices=count)
                        for count in sorted({1, devices})]
            rows.append(ceiling_row(rows[-len(sides)], ceilings, repeats, window_s, CEILING_WORKLOAD.format(batch=batch)))
            print_row(rows[-1])
    return rows


def ceiling_row(image_row: dict, timers: list["ScanTimer"], repeats: int, window_s: float, workload: str) -> dict:
    """The image row's ceiling (:func:`make_read_scan`) timed alone, on each of ``timers`` (the batch on one
    device and split over all) and the faster kept: the split pays for the whole step but not always for the
    image alone, which is memory-bound (at M = 50 on 2 cores: ~250k steps/s on one device, ~190k split). Its
    ratio is taken against the reference median of ``image_row`` (the same workload, not timed again)."""
    best, devices = None, 1
    for timer in timers:
        rates = []
        for _ in range(repeats):
            steps, seconds = timer(window_s)
            rates.append(steps / seconds)
        if best is None or spread(rates)["median"] > best["median"]:
            best, devices = spread(rates), timer.devices
    row = {**image_row, "workload": workload, "jaxsched": best, "ceiling_of": image_row["workload"],
           "devices": devices}
    row["ratio"] = row["jaxsched"]["median"] / row["reference"]["median"]
    return row


def timed_loop_of(step):
    return lambda window_s: timed_loop(step, window_s)


def bench_compact(folder: Path, batch: int, steps: int, single_steps: int, repeats: int, window_s: float,
                  check: int, seed: int, devices: int = 1) -> list[dict]:
    """The BRACIS'21 compact state (W = 10 slots, processors + memory, scenario 1's jobs) against
    sched-rl-gym's ``CompactRmEnv``, SJF on both. Each side draws its own jobs from the same distribution
    (the two generators differ), so there is no job-for-job check; the one-step-per-Python-call row's SJF
    (read from the adapter's observation) is checked to play jaxsched's jitted SJF's episodes."""
    variant = build("bracis-1", num_res=2)
    env, workload = variant.env, variant.workload
    reference = CompactReference(folder, env.num_slots, env.capacity, workload.max_job_len, workload.max_job_size,
                                 workload.rate, int(variant.params.max_time), seed)
    params = variant.sample_params(jax.random.PRNGKey(seed), batch)
    count = min(check, batch)
    first = jax.tree.map(lambda x: x[:count], params)
    expected = np.asarray(make_evaluator(env, variant.heuristic("sjf"))(first, jax.random.PRNGKey(0)).state.time)
    adapter = checked_adapter("bracis-1", params, dict(num_res=2), expected.reshape(-1).tolist(), sjf_from_compact)
    single = jax.tree.map(lambda x: x[:1], params)
    rows = []
    for workload_name, timer in ((f"compact state, batch {batch}", ScanTimer(env, params, steps, devices=devices)),
                                 ("compact state, batch 1", ScanTimer(env, single, single_steps)),
                                 ("compact state, one step per Python call", adapter)):
        row = {"family": "compact", "size_name": "W", "size": env.num_slots, "load": workload.rate,
               "workload": workload_name,
               **interleave(timed_loop_of(reference.stepper()), timer, repeats, window_s)}
        rows.append(row)
        print_row(row)
    return rows


VM_WORKLOADS = ("First-Fit, batch {batch}", "First-Fit, batch 1", "First-Fit, one step per Python call")
VM_TRACE = "dataset:huawei-east-1"


def bench_vm_env(folder: Path, sizes, batch: int, steps: int, single_steps: int, repeats: int, window_s: float,
                 check: int, seed: int, trace_window: int, devices: int = 1) -> list[dict]:
    """VM placement (:data:`VM_WORKLOADS`) at each number of PMs against mail-ecnu/VMAgent, First-Fit on
    both, on the same ``batch`` windows of ``trace_window`` rows of the derived Huawei trace (start rows
    drawn as ``vm-huawei`` draws them, ``seed``); PMs of 2 NUMAs x (40 cpu, 90 GB), deletes applied,
    double-NUMA when memory > 32 GB. Placements are checked on ``check`` windows before timing."""
    module = load_vmagent(folder)
    path = resolve_path(VM_TRACE)
    if not path.exists():
        raise ReferenceMissing(f"the Huawei trace {path} not found")
    base = build("vm-huawei", trace=str(path), num_pms=sizes[0], window=trace_window)
    starts = np.asarray(draw_starts(jax.random.PRNGKey(seed), base, batch))
    p = base.params
    rows, used = [], int(starts.max()) + trace_window
    with tempfile.TemporaryDirectory() as scratch:
        events = Path(scratch) / "events.csv"
        write_vmagent_events(base.trace, used, events)
        for num_pms in sizes:
            variant = dataclasses.replace(base, env=VmPlacement(num_pms=num_pms))
            params = variant.params_at_starts(jnp.asarray(starts))
            reference = VmReference(module, num_pms, events, p.numa_cpu, p.numa_mem, p.double_mem_above)
            if num_pms == sizes[0]:
                check_vmagent_rows(reference, base.trace, used)
            decisions = check_vm_placements(reference, variant, params, starts[:min(check, batch)], trace_window)
            adapter = checked_adapter("vm-huawei", params, dict(trace=str(path), num_pms=num_pms, window=trace_window),
                                      decisions, first_fit_from_flat)
            print(f"vm      N={num_pms}: First-Fit placements equal on {len(decisions)} windows "
                  f"({sum(decisions)} placements)", flush=True)
            single = jax.tree.map(lambda x: x[:1], params)
            sides = [(starts, ScanTimer(variant.env, params, steps, first_fit, devices=devices)),
                     (starts[:1], ScanTimer(variant.env, single, single_steps, first_fit)), (starts, adapter)]
            for workload, (played, timer) in zip(VM_WORKLOADS, sides):
                row = {"family": "vm", "size_name": "PMs", "size": num_pms, "load": "-",
                       "workload": workload.format(batch=batch),
                       **interleave(timed_loop_of(reference.stepper(played, trace_window)), timer, repeats,
                                    window_s)}
                rows.append(row)
                print_row(row)
    return rows


def env_summary(rows: list[dict]) -> list[str]:
    """One line per family: every row's ratio of medians (vector rows: per env-step)."""
    lines = []
    for family in dict.fromkeys(r["family"] for r in rows):
        parts = [f"{r['size_name']}={r['size']} load {r['load']} {r['workload']}: {r['ratio']:.2f}x "
                 f"(jaxsched {plural(int(r.get('devices', 1)), 'core')} vs 1"
                 f"{', load average %.1f' % r['load_average'][0] if 'load_average' in r else ''})"
                 for r in rows if r["family"] == family]
        lines.append(f"{family} jaxsched / reference (medians; reference 1 core, 1 Python process"
                     + (f"; {COMPACT_JOBS}" if family == "compact" else "") + "): " + "; ".join(parts))
    return lines


def write_env_results(rows: list[dict], meta: dict, out: Path) -> None:
    """``out`` (json), the markdown table beside it, and the steps/s-against-size plot."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    out.with_suffix(".md").write_text(env_markdown(rows, meta))
    plot = out.with_name(out.stem + "_scaling.png")
    plot_env_scaling(rows, plot)
    print(f"wrote {out} and {out.with_suffix('.md')}" + (f" and {plot}" if plot.exists() else ""))


def env_markdown(rows: list[dict], meta: dict) -> str:
    """bench_env.md from its JSON's rows and meta: every ratio row says what each side ran on (cores:
    XLA:CPU devices for jaxsched, one Python process for the reference) and, for the compact state, that
    the two sides draw different jobs."""
    header = ["| family | size | load | workload | reference steps/s median (min-max) | "
              "jaxsched steps/s median (min-max) | cores: jaxsched vs reference | ratio |",
              "|---|---|---|---|---:|---:|---|---:|"]
    lines = [f"| {r['family']} | {r['size_name']} = {r['size']} | {r['load']} | {r['workload']} | "
             f"{r['reference']['median']:,.0f} ({r['reference']['min']:,.0f}-{r['reference']['max']:,.0f}) | "
             f"{r['jaxsched']['median']:,.0f} ({r['jaxsched']['min']:,.0f}-{r['jaxsched']['max']:,.0f}) | "
             f"{sides(r)} | {r['ratio']:.2f}x |" for r in rows if not r.get("vector")]
    table = header + lines if lines else []
    vector = [r for r in rows if r.get("vector")]
    if vector:
        table += ([""] if table else []) + vector_markdown(vector)
    return _markdown_page("Environment steps/s beside the reference simulators, one run", meta, table)


def vector_markdown(rows: list[dict]) -> list[str]:
    """The "vector env, N copies per Python call" section (:mod:`jaxsched.bench_vector`): rates per env-step,
    N, the cores of each side and the load average when the row was timed."""
    lines = ["## Vector env, N copies per Python call", "",
             "jaxsched: `make_vec`'s JaxschedVectorEnv stepped from Python, its batched numpy observation read by "
             "the policy (DeepRM, compact: SJF; VM: the first action `action_masks()` allows); reference: N reference "
             "envs stepped in a Python loop per call, as gymnasium.vector.SyncVectorEnv does, observations stacked. "
             "Every copy's decisions checked against jaxsched's jitted heuristic step for step over an episode (whose "
             "schedule is checked against the reference's) before timing. Steps/s per env-step.", "",
             "| family | size | load | N | reference env-steps/s median (min-max) | "
             "jaxsched env-steps/s median (min-max) | cores: jaxsched vs reference | load average | ratio |",
             "|---|---|---|---:|---:|---:|---|---|---:|"]
    lines += [f"| {r['family']} | {r['size_name']} = {r['size']} | {r['load']} | {r['copies']} | "
              f"{r['reference']['median']:,.0f} ({r['reference']['min']:,.0f}-{r['reference']['max']:,.0f}) | "
              f"{r['jaxsched']['median']:,.0f} ({r['jaxsched']['min']:,.0f}-{r['jaxsched']['max']:,.0f}) | "
              f"{sides(r)} | {', '.join(f'{x:.2f}' for x in r['load_average'])} | {r['ratio']:.2f}x |" for r in rows]
    return lines


def _markdown_page(title: str, meta: dict, table: list[str]) -> str:
    """A bench's markdown file: its title, the run's metadata as a list, then its table."""
    notes = "\n".join(f"- {k}: {v}" for k, v in meta.items())
    return f"# {title}\n\n{notes}\n\n" + "\n".join(table) + "\n"


def grid_sides(row: dict) -> str:
    devices = int(row.get("devices", 1))
    return f"JAX {plural(devices, 'core')} ({plural(devices, 'XLA:CPU device')}) vs Python 1 core (1 process)"


def grid_markdown(rows: list[dict], meta: dict) -> str:
    """bench_grid.md from its JSON's rows and meta, each ratio with the cores of both sides."""
    header = ["| batch | devices | JAX decisions/s (median) | Python decisions/s | cores: JAX vs Python "
              "| JAX / Python |",
              "|---:|---:|---:|---:|---|---:|"]
    lines = [f"| {r['batch']} | {r['devices']} | {r['jax_decisions_per_s']:,.0f} "
             f"({r['jax_decisions_per_s_median']:,.0f}) | {r['python_decisions_per_s']:,.0f} | {grid_sides(r)} | "
             f"{r['ratio']:.2f}x |" for r in rows]
    return _markdown_page("Grid site: FIFO decisions per second, JAX vs the heapq simulator", meta, header + lines)


def render(path: Path) -> Path:
    """``bench render``: rewrite the markdown beside a saved bench_env / bench_grid JSON, timing nothing."""
    saved = json.loads(path.read_text())
    rows, meta = saved["rows"], saved["meta"]
    # os.getloadavg()'s tuple comes back from JSON as a list: written as the run wrote it
    meta = {k: tuple(v) if k == "load_average" and isinstance(v, list) else v for k, v in meta.items()}
    text = grid_markdown(rows, meta) if rows and "jax_decisions_per_s" in rows[0] else env_markdown(rows, meta)
    path.with_suffix(".md").write_text(text)
    return path.with_suffix(".md")


def plot_env_scaling(rows: list[dict], path: Path) -> None:
    """Median steps/s against the size (M slots; PMs) for both simulators, one line per workload and load."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in rows if not r.get("vector")]  # N copies, not the size: their own table
    families = [f for f in dict.fromkeys(r["family"] for r in rows)
                if len({r["size"] for r in rows if r["family"] == f}) > 1]
    if not families:
        return
    fig, axes = plt.subplots(1, len(families), figsize=(7 * len(families), 6.5), squeeze=False)
    for ax, family in zip(axes[0], families):
        mine = [r for r in rows if r["family"] == family]
        for (workload, load) in dict.fromkeys((r["workload"], r["load"]) for r in mine):
            line = sorted((r for r in mine if (r["workload"], r["load"]) == (workload, load)), key=lambda r: r["size"])
            sizes = [r["size"] for r in line]
            at_load = "" if load in (None, "-") else f", load {load}"
            drawn = ax.plot(sizes, [r["jaxsched"]["median"] for r in line], "o-", label=f"jaxsched {workload}{at_load}")
            if "ceiling_of" not in line[0]:  # a ceiling row's reference is its image row's, drawn there
                ax.plot(sizes, [r["reference"]["median"] for r in line], "s--", color=drawn[0].get_color(),
                        label=f"reference {workload}{at_load}")
        ax.set_yscale("log")
        ax.set_xlabel(mine[0]["size_name"])
        ax.set_ylabel("steps/s (median)")
        ax.set_title(f"{family}: jaxsched (solid) vs reference (dashed)")
        ax.legend(fontsize=6, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2)  # below: hides no line
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


ENV_FAMILIES = ("deeprm", "compact", "vm")
VM_PMS, VM_PMS_QUICK, VM_WINDOW = (20, 50, 100, 200), (20, 50), 2000


def missing_references(families, folder: Path) -> dict[str, str]:
    """``{family: why}`` for each of ``families`` whose reference simulator (or VM trace) is not usable here."""
    missing = {}
    for family in families:
        try:
            check_reference(family, folder)
        except ReferenceMissing as error:
            missing[family] = str(error)
    return missing


def refuse_missing(missing: dict[str, str], folder: Path) -> int:
    """Prints why each family cannot run and how to get its reference, then one error line; returns 2."""
    for family, why in missing.items():
        print(f"{family}: rows cannot run, reference not available ({why})", flush=True)
    for line in how_to_get(missing, folder):
        print(line, flush=True)
    print(f"python -m jaxsched.bench: error: bench env: no usable reference for {', '.join(missing)}; "
          "nothing was timed (how to get them: above)", file=sys.stderr, flush=True)
    return 2


def bench_env(families, folder: Path, sizes, loads, batch: int, steps: int, single_steps: int, repeats: int,
              window_s: float, check: int, seed: int, out: Path | None, pms=VM_PMS,
              vm_window: int = VM_WINDOW, devices: int = 1, vector: dict | None = None) -> list[dict]:
    """Every requested family's rows. Every family's reference is checked first: a missing one raises
    :class:`ReferenceMissing` before anything is timed (a bench that skips rows would pass unnoticed).
    The batched rows split over ``devices`` local devices, the batch-1 and one-call rows run on one.
    ``vector``: ``{"copies": [N, ...], "slots": [M, ...], "pms": [...], "only": bool}``, the "vector env, N
    copies per Python call" rows (:mod:`jaxsched.bench_vector`, in a process pinned to one core) after the
    others (``only``: instead of them)."""
    missing = missing_references(families, folder)
    if missing:
        raise ReferenceMissing("; ".join(f"{family}: {why}" for family, why in missing.items()))
    vector = vector or {"copies": []}
    rows = []
    for family in ([] if vector.get("only") else families):
        if family == "deeprm":
            rows += bench_deeprm(folder / "deeprm", sizes, loads, batch, steps, single_steps, repeats,
                                 window_s, check, seed, devices)
        elif family == "compact":
            rows += bench_compact(folder / "sched-rl-gym", batch, steps, single_steps, repeats, window_s, check,
                                  seed, devices)
        elif family == "vm":
            rows += bench_vm_env(folder / "vmagent", pms, batch, steps, single_steps, repeats, window_s, check,
                                 seed, vm_window, devices)
    if vector["copies"]:
        rows += bench_vector.run_pinned(dict(families=families, folder=str(folder), slots=vector["slots"], loads=loads,
                                             pms=vector["pms"], copies_list=vector["copies"], repeats=repeats,
                                             window_s=window_s, seed=seed, vm_window=vm_window))
    for line in env_summary(rows):
        print(line)
    if out is not None and rows:
        meta = {"hardware": _hardware(), "load_average": os.getloadavg(), "reference": str(folder),
                "batch": batch, "steps_per_call": steps, "batch_1_steps_per_call": single_steps,
                "devices": f"the batch-{batch} rows split over {devices} XLA:CPU host device(s), one per core "
                           "(jaxsched's batched side uses every core, the reference one); the batch-1 and "
                           "one-call rows on one device",
                "timing": f"{repeats} alternating windows of >= {window_s} s per side, compilation excluded, "
                          "after block_until_ready; min / median / max per side, ratio of medians",
                "step": "one SJF decision + one transition, episode restarts included; observations summed "
                        "every step on both sides",
                "deeprm": "2 resources x capacity 10, T = 20, backlog 60, jobs <= 15 steps / 10 units, "
                          "simu_len 50, Bernoulli arrivals at load / 1.845, all_done, jobsets drawn by the "
                          f"reference's generator (seed {seed}); SJF start times checked on {check} jobsets",
                "compact": "bracis-1 with memory (W = 10, capacity 10, rate 0.3) vs sched-rl-gym CompactRmEnv; "
                           "each side draws its own jobs (same distribution, two generators: not job for job)",
                "vm": f"First-Fit vs VMAgent SchedEnv at {', '.join(map(str, pms))} PMs of 2 NUMAs x (40 cpu, 90 GB), "
                      f"deletes applied, double-NUMA when mem > 32 GB; the same {batch} windows of {vm_window} rows "
                      f"of the derived Huawei East-1 trace (start rows as vm-huawei draws them, seed {seed}); "
                      f"placements checked on {check} windows"}
        if vector.get("only"):  # no batched rows ran
            for key in ("batch", "steps_per_call", "batch_1_steps_per_call", "devices"):
                meta.pop(key)
        if vector["copies"]:
            meta["vector"] = (f"N = {', '.join(map(str, vector['copies']))} copies per Python call; DeepRM image at M = "
                              f"{', '.join(map(str, vector['slots']))} (the reference generator's first jobset, seed "
                              f"{seed}), compact state, VM First-Fit at {', '.join(map(str, vector['pms']))} PMs (the first "
                              f"window drawn, seed {seed}); every copy plays the same instance on both sides (compact: "
                              "each side its own jobs); both sides in one process pinned to one core (jaxsched one "
                              "XLA:CPU device, synchronous dispatch), timed in turn; rates per env-step; load average per row")
        write_env_results(rows, meta, out)
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
                command = pinned_to_one_core(command)
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
    over ``devices``; each device runs its share on its own, with its own key (``fold_in``)."""
    def shard(batch, key):
        return run(batch, jax.random.fold_in(key, jax.lax.axis_index("batch")))

    return _batch_split(shard, Mesh(np.asarray(devices), ("batch",)), (PartitionSpec("batch"), PartitionSpec()))


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
               seed: int = 1, reference_windows: int = 16) -> list[dict]:
    """FIFO decisions/s of :class:`GridSite` (81 cores, the registered ``grid`` variant with ``num_jobs``
    jobs per window) at each batch size against :func:`jaxsched.envs.grid.heapq_sim.simulate_fifo` on
    the same synthetic windows. JAX: compiled ahead (compilation excluded), timed after
    ``block_until_ready``, best and median of ``repeats`` runs (more until ``MIN_TIMED_S`` are timed);
    the batch split over the local devices (``--cpu-devices``, default one) where it splits evenly.
    Python: the same windows one after the other (at most ``python_windows`` of them), total decisions
    / total seconds, best and median likewise. The start times of every window the simulator runs are
    checked job for job against the env's before the batch is reported (a mismatch exits). Then the
    RL-loop reference rows (:func:`bench_grid_reference`, SJF on ``reference_windows`` windows)."""
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
    reference = bench_grid_reference(variant, batches, repeats, seed, reference_windows, devices)
    meta = {"hardware": _hardware(), "devices": [str(d) for d in devices], "load_average": os.getloadavg(),
            "env": f"grid: GridSite, {variant.env.num_cores} cores, candidates: every waiting job "
                   f"(queue capacity {variant.env.queue_capacity}), oracle runtimes",
            "workload": f"synthetic Table 1 windows of {num_jobs} jobs (seed {seed})", "policy": "fifo",
            "batches": list(batches),
            "timing": f"best (and median) of at least {repeats} runs and {MIN_TIMED_S:.0f} s, compilation excluded",
            "python": "jaxsched.envs.grid.heapq_sim.simulate_fifo, one window after another, one core"}
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
               "ratio": jax_rate / py_rate, "checked_windows": count}
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
             "| batch | devices | JAX decisions/s (median) | reference decisions/s (windows) | JAX / reference |",
             "|---:|---:|---:|---:|---:|"]
    lines += [f"| {r['batch']} | {r['devices']} | {r['jax_decisions_per_s']:,.0f} ({r['jax_decisions_per_s_median']:,.0f}) "
              f"| {r['reference_decisions_per_s']:,.0f} ({r['reference_windows']}) | {r['ratio']:.2f}x |" for r in rows]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jaxsched.bench", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    env = sub.add_parser("env", help="steps/s beside the reference simulators (SJF, interleaved; the same jobs "
                         "except the compact state's)")
    rendered = sub.add_parser("render", help="rewrite the markdown beside a saved bench_env / bench_grid JSON")
    rendered.add_argument("json", type=Path, nargs="+")
    env.add_argument("--family", default="deeprm,compact,vm", help="comma list of: deeprm, compact, vm")
    env.add_argument("--sizes", default="10,20,50", help="DeepRM: the numbers of job slots M to time")
    env.add_argument("--loads", default="1.3,0.7", help="DeepRM: offered loads")
    env.add_argument("--pms", help=f"VM: the numbers of PMs (default {','.join(map(str, VM_PMS))}; "
                     f"with --quick {','.join(map(str, VM_PMS_QUICK))})")
    env.add_argument("--vm-window", type=int, default=VM_WINDOW, help="VM: trace rows per episode")
    env.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE,
                     help="the folder of the reference simulators (default: ../shared/reference); they are not "
                     "part of jaxsched: where one is absent the command says how to get it and exits 2")
    env.add_argument("--batch", type=int, default=1024, help="jobsets in the batched rows (and the reference's)")
    env.add_argument("--steps", type=int, default=50, help="batched steps per jitted call")
    env.add_argument("--single-steps", type=int, default=2000, help="steps per jitted call at batch 1")
    env.add_argument("--repeats", type=int, default=3, help="alternating windows per side")
    env.add_argument("--window", type=float, default=2.5, help="seconds per timed window")
    env.add_argument("--check", type=int, default=20, help="jobsets whose SJF schedules are checked first")
    env.add_argument("--seed", type=int, default=0, help="the reference generator's seed")
    env.add_argument("--quick", action="store_true",
                     help="a smoke run: batch 8, 10 steps per call, one 0.2 s window per side, 2 checked jobsets")
    env.add_argument("--cpu-devices", type=int, default=usable_cores(),
                     help="XLA:CPU devices the batched rows split over (default: the cores this process may use)")
    env.add_argument("--vector-sizes", default=",".join(map(str, bench_vector.VECTOR_SIZES)),
                     help="the \"vector env, N copies per Python call\" rows: the copies N (default "
                     f"{','.join(map(str, bench_vector.VECTOR_SIZES))}; with --quick "
                     f"{','.join(map(str, bench_vector.VECTOR_SIZES_QUICK))}); 'none': no vector rows")
    env.add_argument("--vector-slots", default=",".join(map(str, bench_vector.VECTOR_SLOTS)),
                     help="DeepRM: the M of the vector rows (at every --loads)")
    env.add_argument("--vector-pms", default=",".join(map(str, bench_vector.VECTOR_PMS)),
                     help="VM: the numbers of PMs of the vector rows")
    env.add_argument("--vector-only", action="store_true", help="only the vector rows")
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
    grid.add_argument("--reference-windows", type=int, default=16,
                      help="windows of each batch the Python RL-loop reference (observation + one SJF call per "
                           "decision) runs and is checked on")
    grid.add_argument("--out", type=Path, default=Path("runs/bench_grid.json"),
                      help="JSON file (the .md beside it), or a folder for bench_grid.json/.md")
    grid.add_argument("--cpu-devices", type=int, default=1,
                      help="XLA:CPU devices to split each batch over (default 1: one vmapped call)")
    dispatch = sub.add_parser("dispatch", help="one env step per Python call, taken apart: XLA:CPU's thunk executor")
    dispatch.add_argument("--sizes", default="10,20,50", help="DeepRM: the numbers of job slots M")
    dispatch.add_argument("--calls", type=int, default=2000, help="calls per timed window")
    dispatch.add_argument("--repeats", type=int, default=3, help="timed windows (the fastest is kept)")
    dispatch.add_argument("--out", type=Path, default=Path("runs/bench_dispatch.json"))
    dispatch_worker = sub.add_parser("dispatch-worker", help=argparse.SUPPRESS)
    for flag, default in (("--sizes", "10,20,50"), ("--calls", 2000), ("--repeats", 3)):
        dispatch_worker.add_argument(flag, type=type(default), default=default)
    event = sub.add_parser("event", help="event-based vs time-based decisions/s under vmap (MDP-design study)")
    event.add_argument("--scenario", default="bracis-7", help="a DeepRM-family env (default: the study's bracis-7)")
    event.add_argument("--observation", default="bracis", choices=("bracis", "compact", "image", "none"))
    event.add_argument("--batches", default="32,1024", help="comma list of batch sizes")
    event.add_argument("--steps", type=int, default=50, help="decisions per jitted call")
    event.add_argument("--repeats", type=int, default=3, help="timed windows per row (median kept)")
    event.add_argument("--window", type=float, default=2.0, help="seconds per timed window")
    event.add_argument("--seed", type=int, default=0)
    event.add_argument("--out", type=Path, default=Path("runs/bench_event.json"))
    bench_public_step.add_parser(sub)
    bench_sb3.add_parser(sub)
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)
    if args.what == "public-step":
        return bench_public_step.run(args, parser)
    if args.what == "train-sb3":
        return bench_sb3.run(args, parser)

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
    if args.what == "render":
        for path in args.json:
            print(f"wrote {render(path)}")
        return 0
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
        rows = bench_grid(sizes, args.jobs, args.repeats, args.out, args.python_windows,
                          reference_windows=max(args.reference_windows, 1))
        at = next((r for r in rows if r["batch"] == 1024), max(rows, key=lambda r: r["batch"]))
        digits = 1 if at["ratio"] >= 0.95 else 2  # a slow-down shows as 0.xx, not 0.0
        print(f"grid speedup over the Python simulator at batch {at['batch']}: {at['ratio']:.{digits}f}x")
        if at.get("reference"):
            print(f"grid SJF speedup over the Python RL-loop reference at batch {at['batch']}: "
                  f"{at['reference']['ratio']:.2f}x")
    if args.what in ("dispatch", "dispatch-worker"):
        sizes = int_list("--sizes", args.sizes)
        if min(args.calls, args.repeats, *sizes) < 1:
            parser.error("--calls, --repeats and every size must be >= 1")
        if args.what == "dispatch-worker":
            print("RESULT " + json.dumps(bench_dispatch.measure(sizes, args.calls, args.repeats)))
        else:
            print(f"hardware: {_hardware()}; load average {os.getloadavg()[0]:.2f}")
            bench_dispatch.bench_dispatch(sizes, args.calls, args.repeats, args.out, _hardware(), sjf_from_flat_image)
    if args.what == "event":
        batches = int_list("--batches", args.batches)
        if min(args.steps, args.repeats, *batches) < 1 or args.window <= 0:
            parser.error("--steps, --repeats, --window and every batch size must be > 0")
        if args.scenario not in DEEPRM_VARIANTS:
            parser.error(f"--scenario must be a DeepRM-family env (it has event stepping): {', '.join(DEEPRM_VARIANTS)}; "
                         f"got {args.scenario!r}")
        print(f"hardware: {_hardware()}; load average {os.getloadavg()[0]:.2f}")
        bench_event.bench_event(args.scenario, {"observation": args.observation}, batches, args.steps, args.repeats,
                                args.window, args.seed, args.out, _hardware())
    if args.what == "env":
        families = [f.strip() for f in args.family.split(",") if f.strip()]
        if not families or any(f not in ENV_FAMILIES for f in families):
            parser.error(f"--family must be a comma list of {', '.join(ENV_FAMILIES)}, got {args.family!r}")
        sizes = int_list("--sizes", args.sizes)
        try:
            loads = [float(x) for x in args.loads.split(",")]
        except ValueError:
            parser.error(f"--loads must be comma-separated numbers, got {args.loads!r}")
        pms = int_list("--pms", args.pms) if args.pms else list(VM_PMS_QUICK if args.quick else VM_PMS)
        vector_default = args.vector_sizes == ",".join(map(str, bench_vector.VECTOR_SIZES))
        if args.quick:
            args.batch, args.steps, args.single_steps, args.repeats, args.window, args.check = 8, 10, 20, 1, 0.2, 2
            if vector_default:
                args.vector_sizes = ",".join(map(str, bench_vector.VECTOR_SIZES_QUICK))
        copies = [] if args.vector_sizes.strip().lower() == "none" else int_list("--vector-sizes", args.vector_sizes)
        vector = {"copies": copies, "slots": int_list("--vector-slots", args.vector_slots),
                  "pms": int_list("--vector-pms", args.vector_pms), "only": args.vector_only}
        if min(copies + vector["slots"] + vector["pms"], default=1) < 1:
            parser.error("--vector-sizes, --vector-slots and --vector-pms must be > 0")
        if args.vector_only and not copies:
            parser.error("--vector-only needs vector rows (--vector-sizes is 'none')")
        if min(args.batch, args.steps, args.single_steps, args.repeats, args.check, args.vm_window, *sizes, *pms) < 1 \
                or args.window <= 0:
            parser.error("--batch, --steps, --single-steps, --repeats, --check, --window, --vm-window and every size "
                         "must be > 0")
        if min(loads) <= 0:
            parser.error("every load must be > 0")
        if args.cpu_devices < 1:
            parser.error("--cpu-devices must be >= 1")
        missing = missing_references(families, args.reference)  # before the restart: fail fast, say how to fix
        if missing:
            return refuse_missing(missing, args.reference)
        restart_for_devices(args.cpu_devices, "jaxsched.bench", argv)
        devices = min(args.cpu_devices, len(jax.local_devices()))
        print(f"hardware: {_hardware()}; load average {os.getloadavg()[0]:.2f}; batched rows on {devices} device(s)")
        bench_env(families, args.reference, sizes, loads, args.batch, args.steps, args.single_steps, args.repeats,
                  args.window, args.check, args.seed, args.out, pms, args.vm_window, devices, vector)
    return 0


if __name__ == "__main__":
    sys.exit(main())
