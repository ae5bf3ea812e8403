"""``bench env``'s "vector env, N copies per Python call" rows (issue 52 item 2).

jaxsched's side is :class:`jaxsched.vector_env.JaxschedVectorEnv` (what :func:`jaxsched.make_vec` returns;
built here with ``fresh_instances=False`` and the checked instance in its params, so every copy plays the
same jobs as the reference) stepped from Python: each call reads the batched numpy observation (DeepRM:
SJF from the image, :func:`sjf_batch_from_image`; compact: SJF from the compact state and
``action_masks()``; VM: the first action ``action_masks()`` allows, First-Fit), steps all N copies in one
jitted call and sums the returned observations. The reference's side is what
``gymnasium.vector.SyncVectorEnv`` does with N reference envs: each stepped in turn in a Python loop (its
own SJF / First-Fit, its own restart after an episode end), every observation copied into one batched
array, which is then summed. A row's rate is per env-step: N x calls / seconds.

Before timing, every copy's decisions are checked (:func:`check_vector_decisions`): over the first episode,
step for step, the batched numpy policy must pick exactly the actions jaxsched's jitted heuristic picks on
the same instance (:func:`heuristic_actions`), and every copy must end the episode on the same step; that
heuristic's schedule is checked against the reference's first (DeepRM start times, VM placements: the
checks of :mod:`jaxsched.bench.env`). The compact state's two simulators draw their jobs from two generators
(not job for job), as in its other rows.

The rows run in a process of their own pinned to one core (:func:`run_pinned`), both sides in it, timed in
turn: jaxsched on one XLA:CPU device with one intra-op thread and synchronous dispatch (each call runs on the
caller's thread), the reference in one Python process.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from jaxsched.baselines.vm import first_fit
from jaxsched.bench.common import (PINNED, check_deeprm_schedules, check_vm_placements, check_vmagent_rows, interleave,
                                   print_row)
from jaxsched.bench.reference import CompactReference, DeepRMReference, VmReference, load_vmagent, \
    write_vmagent_events
from jaxsched.core.devices import pinned_to_one_core, usable_cores, with_host_devices
from jaxsched.core.rollout import make_evaluator
from jaxsched.envs.vm.episodes import draw_starts
from jaxsched.gymnax_env import make_gymnax
from jaxsched.registry import build
from jaxsched.vector_env import JaxschedVectorEnv
from jaxsched.workloads.datasets import resolve_path

VECTOR_SIZES, VECTOR_SIZES_QUICK = (1, 8, 64, 256), (1, 8)
VECTOR_SLOTS, VECTOR_PMS = (10, 50), (50,)
VECTOR_WORKLOAD = "vector env, {copies} copies per Python call"
VM_TRACE = "dataset:huawei-east-1"


# ------------------------------------------------------------------------ the batched numpy policies
def sjf_batch_from_image(obs: np.ndarray, vec: JaxschedVectorEnv) -> np.ndarray:
    """int[N]: SJF read from each copy's flat DeepRM image (as :func:`jaxsched.bench.env.sjf_from_flat_image`,
    all copies at once): the shortest waiting job that fits now (lowest slot on ties), else M (move on)."""
    env = vec.env.inner
    T, cap, S, M, R = env.horizon, env.capacity, env.slot_columns, env.num_slots, env.num_res
    n, block = obs.shape[0], cap + M * S
    image = obs[:, :T * (R * block + env.backlog_width + 1)].reshape(n, T, -1)
    per_resource = image[:, :, :R * block].reshape(n, T, R, block)
    used = per_resource[..., :cap].sum(-1)  # [n, T, R]
    slots = per_resource[..., cap:].reshape(n, T, R, M, S)
    duration = slots[:, :, 0, :, 0].sum(1)  # [n, M]: every job asks for >= 1 unit of each resource
    demand = slots[:, 0].sum(-1).transpose(0, 2, 1)  # [n, M, R]
    fits = (used[:, :, None, :] + demand[:, None] <= cap) | \
        (np.arange(T)[None, :, None, None] >= duration[:, None, :, None])
    candidates = (duration > 0) & fits.all(axis=(1, 3))
    action = np.argmin(np.where(candidates, duration, np.inf), axis=1)
    return np.where(candidates.any(axis=1), action, M)


def sjf_batch_from_compact(obs: np.ndarray, vec: JaxschedVectorEnv) -> np.ndarray:
    """int[N]: SJF read from each copy's BRACIS'21 compact state (as
    :func:`jaxsched.bench.env.sjf_from_compact`): among the slots ``action_masks()`` allows, the shortest
    requested time (lowest slot on ties), else M."""
    env = vec.env.inner
    M, first = env.num_slots, 2 * env.num_res * env.horizon
    requested = obs[:, first:first + 7 * M].reshape(-1, M, 7)[:, :, 1]
    schedulable = vec.action_masks()[:, :M]
    action = np.argmin(np.where(schedulable, requested, np.inf), axis=1)
    return np.where(schedulable.any(axis=1), action, M)


def first_allowed(obs: np.ndarray, vec: JaxschedVectorEnv) -> np.ndarray:
    """int[N]: the first action ``action_masks()`` allows (VM: lowest PM, NUMA 0 first: First-Fit)."""
    return np.argmax(vec.action_masks(), axis=1)


# ------------------------------------------------------------------------------------------ sides
def vector_env(name: str, overrides: dict, instances, index: int, copies: int) -> JaxschedVectorEnv:
    """``copies`` copies of ``name`` (``make_vec``'s class, ``fresh_instances=False``), every copy playing
    instance ``index`` of the batched ``instances`` params (the instance the reference plays)."""
    env, params = make_gymnax(name, fresh_instances=False, **overrides)
    instance = jax.tree.map(lambda x: x[index], getattr(instances, env.instance_field))
    return JaxschedVectorEnv(env, params.replace(**{env.instance_field: instance}), copies, seed=0)


class VectorTimer:
    """jaxsched's side: ``policy(obs, vec)`` on the batched observation, one ``vec.step`` for all copies,
    the returned observations summed; ``(env-steps, seconds)`` per window (the clock read every call).
    ``split`` adds up the seconds of each part of a call (the Python policy, the env step, the read), so a
    row can say which part bounds it."""

    def __init__(self, vec: JaxschedVectorEnv, policy):
        self.vec, self.policy, self.seen = vec, policy, 0.0
        self.split, self.calls = {"policy": 0.0, "step": 0.0, "read": 0.0}, 0
        self.obs = vec.reset(seed=0)[0]
        for _ in range(2):  # compile
            self.step()
        self.split, self.calls = dict.fromkeys(self.split, 0.0), 0  # the compiling calls are not timed

    def step(self) -> None:
        t0 = time.perf_counter()
        actions = self.policy(self.obs, self.vec)
        t1 = time.perf_counter()
        self.obs = self.vec.step(actions)[0]
        t2 = time.perf_counter()
        self.seen += float(self.obs.sum())
        t3 = time.perf_counter()
        for part, seconds in zip(("policy", "step", "read"), (t1 - t0, t2 - t1, t3 - t2)):
            self.split[part] += seconds
        self.calls += 1

    def us_per_call(self) -> dict:
        """Microseconds per call of each part, over every timed call so far."""
        return {part: 1e6 * seconds / max(self.calls, 1) for part, seconds in self.split.items()}

    def __call__(self, window_s: float) -> tuple[int, float]:
        return _calls(self.step, window_s, self.vec.num_envs)


class SyncReference:
    """The reference's side, as ``gymnasium.vector.SyncVectorEnv`` steps N envs: each copy's ``step()``
    (decision, transition, restart after an end; returns its observation) called in turn, the
    observations copied into one batched array, which is summed."""

    def __init__(self, steps: list):
        self.steps, self.seen = steps, 0.0
        first = np.asarray(steps[0]())
        self.batch = np.zeros((len(steps),) + first.shape, np.float64)

    def step(self) -> None:
        batch = self.batch
        for i, step in enumerate(self.steps):
            batch[i] = step()
        self.seen += float(batch.sum())

    def __call__(self, window_s: float) -> tuple[int, float]:
        return _calls(self.step, window_s, len(self.steps))


def _calls(step, window_s: float, copies: int) -> tuple[int, float]:
    calls, t0 = 0, time.perf_counter()
    while True:
        step()
        calls += 1
        elapsed = time.perf_counter() - t0
        if elapsed >= window_s:
            return calls * copies, elapsed


def deeprm_copy(reference: DeepRMReference):
    """One reference DeepRM env on its first jobset (its auto-reset replays it), SJF, image built."""
    env = reference.make_env(build_obs=True, first=1)
    sjf = reference.agents.get_sjf_action

    def step():
        return env.step(sjf(env.machine, env.job_slot))[0]

    return step


def compact_copy(reference: CompactReference):
    env = reference.env

    def step():
        state, _, done, _ = env.step(env.scheduler.sjf_action(env.job_slots))
        return env.reset() if done else state

    return step


def vm_copy(base: VmReference, module):
    """A VMAgent env sharing ``base``'s window rows (never written to), with its own cluster; First-Fit."""
    env = copy.copy(base.env)
    env.cluster = module.Cluster(env.N, env.cpu, env.mem)
    env.reset(0)

    def step():
        _, state, _, done = env.step(-1)
        if done:
            env.reset(0)
            return env.cluster.describe()
        return state

    return step


# ------------------------------------------------------------------------------------------ checks
def heuristic_actions(env, policy, params) -> list[int]:
    """The actions jaxsched's jitted ``policy`` takes over one episode of ``env`` (an inner, structured
    env) on ``params`` (one instance), until it terminates or is truncated."""
    @jax.jit
    def one(state):
        action = policy(jax.random.PRNGKey(0), env.get_obs(state, params))
        state, _, terminated, _ = env.transition(state, action, params)
        return action, state, terminated | env.is_truncated(state, params)

    state, actions, done = jax.jit(env.initial_state)(params), [], False
    while not done:
        action, state, done = one(state)
        actions.append(int(action))
    return actions


def check_vector_decisions(vec: JaxschedVectorEnv, policy, expected: list[int], what: str) -> None:
    """Every copy of ``vec``, driven by the batched numpy ``policy``, takes the actions ``expected`` step
    for step over its first episode and ends it on the same step (exits otherwise, naming ``what``)."""
    obs = vec.reset(seed=0)[0]
    for t, want in enumerate(expected):
        actions = np.asarray(policy(obs, vec))
        if not np.all(actions == want):
            wrong = np.flatnonzero(actions != want)
            raise SystemExit(f"bench env: vector env decisions differ on {what}: at step {t} copies {wrong[:5].tolist()} "
                             f"chose {actions[wrong[:5]].tolist()}, the jitted heuristic {want}; refusing to time")
        obs, _, terminated, truncated, _ = vec.step(actions)
        done = terminated | truncated
        last = t == len(expected) - 1
        if not np.all(done == last):
            raise SystemExit(f"bench env: vector env episodes end otherwise than the jitted heuristic's on {what} "
                             f"(step {t} of {len(expected)}: {int(done.sum())} of {vec.num_envs} copies ended); "
                             "refusing to time")


# ------------------------------------------------------------------------------------------ rows
def _row(family: str, size_name: str, size: int, load, copies: int, reference, jaxsched, repeats: int,
         window_s: float) -> dict:
    row = {"family": family, "size_name": size_name, "size": size, "load": load,
           "workload": VECTOR_WORKLOAD.format(copies=copies), "copies": copies, "vector": True,
           **interleave(reference, jaxsched, repeats, window_s),
           "cores": {"jaxsched": 1, "reference": 1, "how": PINNED if _pinned() else "unpinned"},
           "load_average": list(os.getloadavg())}
    if hasattr(jaxsched, "us_per_call"):  # where a call's time goes (policy, env step, read of the observation)
        row["jaxsched_us_per_call"] = jaxsched.us_per_call()
    print_row(row)
    return row


def _pinned() -> bool:
    return usable_cores() == 1


def deeprm_rows(folder: Path, slots, loads, copies_list, repeats: int, window_s: float, seed: int) -> list[dict]:
    """DeepRM image, SJF, on the reference generator's first jobset (``seed``), at each M and load."""
    rows = []
    for num_slots in slots:
        for load in loads:
            overrides = dict(num_slots=num_slots, load=load)
            variant = build("deeprm", **overrides)
            reference = DeepRMReference(folder, num_slots, variant.workload.rate, variant.workload.simu_len, 1,
                                        int(variant.params.max_time), seed)
            params = variant.reference_instances(seed, 1)
            decisions = check_deeprm_schedules(reference, variant, params, 1)
            single = jax.tree.map(lambda x: x[0], params)
            expected = heuristic_actions(variant.env, variant.heuristic("sjf"), single)
            if len(expected) != decisions[0]:
                raise SystemExit(f"bench env: the jitted SJF's episode takes {len(expected)} decisions, the evaluator's "
                                 f"{decisions[0]} (M={num_slots}); refusing to time")
            for copies in copies_list:
                vec = vector_env("deeprm", overrides, params, 0, copies)
                check_vector_decisions(vec, sjf_batch_from_image, expected, f"deeprm M={num_slots} load={load}")
                print(f"deeprm  M={num_slots} load={load} N={copies}: every copy's SJF equals the jitted SJF "
                      f"({len(expected)} decisions; start times equal the reference's)", flush=True)
                ref = SyncReference([deeprm_copy(reference) for _ in range(copies)])
                rows.append(_row("deeprm", "M", num_slots, load, copies, ref,
                                 VectorTimer(vec, sjf_batch_from_image), repeats, window_s))
    return rows


def compact_rows(folder: Path, copies_list, repeats: int, window_s: float, seed: int) -> list[dict]:
    """The BRACIS'21 compact state, SJF; each side draws its own jobs (same distribution)."""
    variant = build("bracis-1", num_res=2)
    env, workload = variant.env, variant.workload
    params = variant.sample_params(jax.random.PRNGKey(seed), 1)
    expected = heuristic_actions(env, variant.heuristic("sjf"), jax.tree.map(lambda x: x[0], params))
    decisions = int(np.asarray(make_evaluator(env, variant.heuristic("sjf"))(params, jax.random.PRNGKey(0))
                               .state.time).reshape(-1)[0])
    if len(expected) != decisions:
        raise SystemExit(f"bench env: the jitted SJF's compact episode takes {len(expected)} decisions, the "
                         f"evaluator's {decisions}; refusing to time")
    rows = []
    for copies in copies_list:
        vec = vector_env("bracis-1", dict(num_res=2), params, 0, copies)
        check_vector_decisions(vec, sjf_batch_from_compact, expected, "compact")
        print(f"compact N={copies}: every copy's SJF equals the jitted SJF ({len(expected)} decisions)", flush=True)
        copies_of = [CompactReference(folder, env.num_slots, env.capacity, workload.max_job_len,
                                      workload.max_job_size, workload.rate, int(variant.params.max_time), seed + i)
                     for i in range(copies)]
        rows.append(_row("compact", "W", env.num_slots, workload.rate, copies,
                         SyncReference([compact_copy(r) for r in copies_of]),
                         VectorTimer(vec, sjf_batch_from_compact), repeats, window_s))
    return rows


def vm_rows(folder: Path, pms, copies_list, repeats: int, window_s: float, seed: int, trace_window: int) -> list[dict]:
    """VM First-Fit on the first window ``vm-huawei`` draws with ``seed``; placements checked against VMAgent."""
    module = load_vmagent(folder)
    path = resolve_path(VM_TRACE)
    if not path.exists():
        print(f"vm      vector rows skipped: the Huawei trace {path} is not here (python -m jaxsched.data build "
              "huawei-east-1)", flush=True)
        return []
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for num_pms in pms:
            overrides = dict(trace=str(path), num_pms=num_pms, window=trace_window)
            variant = build("vm-huawei", **overrides)
            starts = np.asarray(draw_starts(jax.random.PRNGKey(seed), variant, 1))
            params = variant.params_at_starts(jnp.asarray(starts))
            events = Path(scratch) / f"events_{num_pms}.csv"
            used = int(starts[0]) + trace_window
            write_vmagent_events(variant.trace, used, events)
            p = variant.params
            base = VmReference(module, num_pms, events, p.numa_cpu, p.numa_mem, p.double_mem_above)
            check_vmagent_rows(base, variant.trace, used)
            decisions = check_vm_placements(base, variant, params, starts, trace_window)
            expected = heuristic_actions(variant.env, first_fit,
                                         jax.tree.map(lambda x: x[0], params))
            if len(expected) != decisions[0]:
                raise SystemExit(f"bench env: the jitted First-Fit's episode takes {len(expected)} decisions, the "
                                 f"evaluator's {decisions[0]} (N={num_pms}); refusing to time")
            base.start(int(starts[0]), trace_window)  # the copies share this window's rows
            for copies in copies_list:
                vec = vector_env("vm-huawei", overrides, params, 0, copies)
                check_vector_decisions(vec, first_allowed, expected, f"vm N={num_pms}")
                print(f"vm      PMs={num_pms} N={copies}: every copy's first allowed action equals the jitted "
                      f"First-Fit ({len(expected)} decisions; placements equal VMAgent's)", flush=True)
                ref = SyncReference([vm_copy(base, module) for _ in range(copies)])
                rows.append(_row("vm", "PMs", num_pms, "-", copies, ref, VectorTimer(vec, first_allowed), repeats,
                                 window_s))
    return rows


def vector_rows(families, folder: Path, slots, loads, pms, copies_list, repeats: int, window_s: float, seed: int,
                vm_window: int) -> list[dict]:
    """Every requested family's vector rows, in this process (:func:`run_pinned` runs them on one core)."""
    rows = []
    for family in families:
        if family == "deeprm":
            rows += deeprm_rows(folder / "deeprm", slots, loads, copies_list, repeats, window_s, seed)
        elif family == "compact":
            rows += compact_rows(folder / "sched-rl-gym", copies_list, repeats, window_s, seed)
        elif family == "vm":
            rows += vm_rows(folder / "vmagent", pms, copies_list, repeats, window_s, seed, vm_window)
    return rows


ROW_PREFIX = "VECTOR-ROW "


def run_pinned(options: dict) -> list[dict]:
    """:func:`vector_rows` with ``options`` in a fresh process pinned to one core (one XLA:CPU device, one
    intra-op thread; the reference beside it on the same core), its lines printed as they come."""
    environment = dict(os.environ, XLA_FLAGS=with_host_devices(os.environ.get("XLA_FLAGS", ""), None))
    command = [sys.executable, "-m", "jaxsched.bench.vector", json.dumps(options)]
    if usable_cores() > 1:
        command = pinned_to_one_core(command)
    rows = []
    with subprocess.Popen(command, env=environment, stdout=subprocess.PIPE, text=True) as worker:
        for line in worker.stdout:
            if line.startswith(ROW_PREFIX):
                rows.append(json.loads(line[len(ROW_PREFIX):]))
            else:
                print(line, end="", flush=True)
    if worker.returncode != 0:
        raise SystemExit(f"bench env: the vector rows' process failed (exit {worker.returncode}); see above")
    return rows


def main(argv=None) -> int:
    # Python steps the env: each call runs on the caller's thread, not handed to an XLA thread and waited for
    # (on a loaded core every hand-off waits for a time slice; measured 3.0 -> 2.1 ms per call at N = 64, M = 10)
    jax.config.update("jax_cpu_enable_async_dispatch", False)
    options = json.loads((sys.argv[1:] if argv is None else argv)[0])
    options["folder"] = Path(options["folder"])
    for row in vector_rows(**options):
        print(ROW_PREFIX + json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
