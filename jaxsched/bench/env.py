"""``python -m jaxsched.bench env``: jaxsched's steps per second beside the reference simulators of
``../shared/reference`` (DeepRM, the BRACIS'21 compact state, VM placement), on the same jobs, SJF schedules
(VM: First-Fit placements) checked first; the "vector env" rows come from :mod:`jaxsched.bench.vector`.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec

from jaxsched.baselines.vm import first_fit
from jaxsched.bench.common import (COMPACT_JOBS, PINNED, check_deeprm_schedules, check_vm_placements,
                                   check_vmagent_rows, hardware, interleave, make_public_scan, markdown_page,
                                   over_devices, print_row, row_cores, sides, spread)
from jaxsched.bench.reference import (CompactReference, DeepRMReference, ForkedTimer, ReferenceMissing, VmReference,
                                      check_reference, dense_sequences, how_to_get, load_vmagent, timed_loop,
                                      write_vmagent_events)
from jaxsched.bench.vector import run_pinned
from jaxsched.core.devices import make_mesh, threads_on_one_core
from jaxsched.core.plotting import plt, save_figure
from jaxsched.core.rollout import make_evaluator
from jaxsched.envs.vm.env import VmPlacement
from jaxsched.envs.vm.episodes import draw_starts
from jaxsched.gymnasium_env import make_gymnasium
from jaxsched.registry import build
from jaxsched.workloads.datasets import resolve_path


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
    ``batch x steps`` decisions of ``policy`` (default SJF) through the public ``env.step`` under
    ``jax.vmap`` (:func:`make_public_scan`: what a user's PureJaxRL-style loop calls), compiled by the first
    call (not timed); ``read_only``: :func:`make_read_scan`'s steps instead. ``devices`` > 1: the batch split
    over that many local devices (:func:`over_devices`; one device when the batch does not divide)."""

    def __init__(self, env, params, steps: int, policy=None, read_only: bool = False, devices: int = 1):
        batch = jax.tree.leaves(params)[0].shape[0]
        mesh = make_mesh(devices) if devices > 1 and batch % devices == 0 else None
        self.devices = 1 if mesh is None else mesh.size
        self.run = make_read_scan(env, steps, mesh) if read_only else make_public_scan(env, steps, policy, mesh)
        initial = jax.jit(jax.vmap(env.initial_state))(params)
        obs = jax.jit(jax.vmap(env.get_obs))(initial, params)
        carry = jax.tree.map(jnp.copy, (obs, initial))  # donated: must not alias params or initial
        carry = (*carry, jnp.zeros(batch, jnp.float32))
        last = initial if read_only else jax.random.split(jax.random.PRNGKey(0), batch)  # the public step's keys
        if mesh is not None:
            params, last, carry = jax.device_put((params, last, carry), NamedSharding(mesh, PartitionSpec("batch")))
        self.params, self.steps, self.initial, self.last, self.batch = params, steps, initial, last, batch
        self.carry = jax.block_until_ready(self.run(carry, params, last))

    def __call__(self, window_s: float) -> tuple[int, float]:
        calls, t0 = 0, time.perf_counter()
        while True:
            self.carry = jax.block_until_ready(self.run(self.carry, self.params, self.last))
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
                row = on_equal_cores({"family": "deeprm", "size_name": "M", "size": num_slots, "load": load,
                                      "workload": workload.format(batch=batch)},
                                     reference.stepper(env, image), timer, repeats, window_s)
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
           "devices": devices}  # its cores: the image row's (the one-device ceiling is not pinned)
    row["ratio"] = row["jaxsched"]["median"] / row["reference"]["median"]
    return row


def timed_loop_of(step):
    return lambda window_s: timed_loop(step, window_s)


def on_equal_cores(row: dict, step, timer, repeats: int, window_s: float) -> dict:
    """``row`` with the reference's ``step`` (a stepper of :mod:`jaxsched.bench.reference`) and jaxsched's
    ``timer`` timed in turn on equal cores: a timer split over D devices (one per core) against the reference
    in D forked processes (:class:`ForkedTimer`); a one-device timer (batch 1, one step per Python call, or a
    batch that stayed on one device) with both sides in this process and every thread pinned to one core."""
    devices = getattr(timer, "devices", 1)
    if devices > 1:
        reference = ForkedTimer(step, devices)
        try:
            return {**row, **interleave(reference, timer, repeats, window_s)}
        finally:
            reference.close()
    with threads_on_one_core():
        return {**row, **interleave(timed_loop_of(step), timer, repeats, window_s, how=PINNED)}


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
        row = on_equal_cores({"family": "compact", "size_name": "W", "size": env.num_slots, "load": workload.rate,
                              "workload": workload_name}, reference.stepper(), timer, repeats, window_s)
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
                row = on_equal_cores({"family": "vm", "size_name": "PMs", "size": num_pms, "load": "-",
                                      "workload": workload.format(batch=batch)},
                                     reference.stepper(played, trace_window), timer, repeats, window_s)
                rows.append(row)
                print_row(row)
    return rows


def env_summary(rows: list[dict]) -> list[str]:
    """One line per family: every row's ratio of medians (vector rows: per env-step)."""
    lines = []
    for family in dict.fromkeys(r["family"] for r in rows):
        parts = [f"{r['size_name']}={r['size']} load {r['load']} {r['workload']}: {r['ratio']:.2f}x "
                 f"(cores jaxsched {row_cores(r)['jaxsched']} vs reference {row_cores(r)['reference']}"
                 f"{', load average %.1f' % r['load_average'][0] if 'load_average' in r else ''})"
                 for r in rows if r["family"] == family]
        lines.append(f"{family} jaxsched / reference (medians"
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
    XLA:CPU devices for jaxsched, Python processes for the reference) and, for the compact state, that
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
    return markdown_page("Environment steps/s beside the reference simulators, one run", meta, table)


def vector_markdown(rows: list[dict]) -> list[str]:
    """The "vector env, N copies per Python call" section (:mod:`jaxsched.bench.vector`): rates per env-step,
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
    split = [r for r in rows if "jaxsched_us_per_call" in r]
    if split:
        lines += ["", "Where a jaxsched call's time goes (us per call, over every timed call: the Python policy reading "
                      "the batched observation, the jitted step of the N copies, the read of the returned observation):",
                  "", "| family | size | load | N | policy | env step | read |", "|---|---|---|---:|---:|---:|---:|"]
        lines += [f"| {r['family']} | {r['size_name']} = {r['size']} | {r['load']} | {r['copies']} | "
                  + " | ".join(f"{r['jaxsched_us_per_call'][part]:,.0f}" for part in ("policy", "step", "read")) + " |"
                  for r in split]
    return lines


def plot_env_scaling(rows: list[dict], path: Path) -> None:
    """Median steps/s against the size (M slots; PMs) for both simulators, one line per workload and load."""
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
    save_figure(fig, path, dpi=120)


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
    copies per Python call" rows (:mod:`jaxsched.bench.vector`, in a process pinned to one core) after the
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
        rows += run_pinned(dict(families=families, folder=str(folder), slots=vector["slots"], loads=loads,
                                pms=vector["pms"], copies_list=vector["copies"], repeats=repeats,
                                window_s=window_s, seed=seed, vm_window=vm_window))
    for line in env_summary(rows):
        print(line)
    if out is not None and rows:
        meta = {"hardware": hardware(), "load_average": os.getloadavg(), "reference": str(folder),
                "batch": batch, "steps_per_call": steps, "batch_1_steps_per_call": single_steps,
                "devices": f"equal cores on both sides: the batch-{batch} rows split over {devices} XLA:CPU host "
                           f"device(s), one per core, against the reference in as many forked processes (the "
                           "steps of all of them over the wall-clock of the window); the batch-1 and one-call rows "
                           "on one device, both sides in this process with every thread pinned to one core",
                "api": "jaxsched's batched and batch-1 rows step the public gymnax env.step (auto-reset) under "
                       "jax.vmap, as a PureJaxRL loop does; the one-call rows the Gymnasium adapter's step",
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
