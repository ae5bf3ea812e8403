"""The public reference simulators of ``../shared/reference`` driven for ``python -m jaxsched.bench env``.

They are imported from their folder at run time (never copied into jaxsched) so that a benchmark can
run the reference and jaxsched in one process, on the same jobs, and print the ratio it measured.
Each loader raises :class:`ReferenceMissing` (a one-line reason) when a folder or a package it needs
is absent. The bench checks every requested family first (:func:`check_reference`) and, where one is
missing, prints how to get it (:func:`how_to_get`) and exits 2 before timing anything: the reference
simulators are other projects' code, never shipped with jaxsched, so a user has to put them in place.
"""

from __future__ import annotations

import importlib
import importlib.util
import multiprocessing
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from jaxsched.workloads.datasets import find

DEFAULT_REFERENCE = Path(__file__).resolve().parents[3] / "shared" / "reference"
CHUNK = 128  # reference steps between two reads of the clock


class ReferenceMissing(RuntimeError):
    """A reference simulator (or a package it needs) is not available here."""


# family -> (folder under --reference, upstream repository, the commit the copies were taken from, what to
# do to it). Each copy keeps only what steps the env, and its licence (MIT); its README lists the patches.
REFERENCES = {
    "deeprm": ("deeprm", "https://github.com/hongzimao/deeprm", "fa7841122d4c2993fa0a7ce1667ea1f171865d9d",
               "environment.py, parameters.py, job_distribution.py, other_agents.py ported to Python 3 "
               "(xrange -> range, print(), // where Python 2 divided ints, no theano import: FLOATX = "
               "'float64') and Env(..., build_obs=True): with False step() returns ob=None without observe()"),
    "compact": ("sched-rl-gym", "https://github.com/renatolfc/sched-rl-gym",
                "44b7f1471739bc239877e2da3b49c98056d23107",
                "its schedgym/ package with `import gym` -> `import gymnasium as gym` (envs/base.py, "
                "compact_env.py, deeprm_env.py, envs/__init__.py), parallelworkloads imported lazily in "
                "envs/workload.py; pip install intervaltree gymnasium"),
    "vm": ("vmagent", "https://github.com/mail-ecnu/VMAgent", "1ffabd6952df7bb6694d346390762033028e2d89",
           "schedgym/sched_env.py and an empty schedgym/__init__.py, `import gym` -> `import gymnasium as gym`; "
           "pip install pandas gymnasium; and the trace: python -m jaxsched.data build huawei-east-1"),
}


def how_to_get(families, folder: Path) -> list[str]:
    """The lines that say where each of ``families``' reference simulators comes from and where it goes."""
    lines = [f"The reference simulators are not part of jaxsched (other projects' code, MIT licence). Put each "
             f"under {folder} (or pass --reference DIR):"]
    for family in families:
        name, repository, commit, what = REFERENCES[family]
        target = folder / name
        lines.append(f"  {family}: git clone {repository} {target} && git -C {target} checkout {commit[:12]}; "
                     f"then {what}")
    return lines


def check_reference(family: str, folder: Path) -> None:
    """Raises :class:`ReferenceMissing` unless ``family``'s reference under ``folder`` imports (and, for
    the VM family, the Huawei trace is here): cheap, so that a bench fails before it times anything."""
    path = folder / REFERENCES[family][0]
    if family == "deeprm":
        _import_from(path, ["environment", "parameters", "other_agents", "job_distribution"])
    elif family == "compact":
        _import_from(path, ["schedgym.envs.compact_env"])
    else:
        load_vmagent(path)
        if find("huawei-east-1") is None:
            raise ReferenceMissing("the dataset huawei-east-1 is not here (python -m jaxsched.data build huawei-east-1)")


def _import_from(folder: Path, names: list[str]) -> list:
    """The modules ``names`` imported with ``folder`` first on ``sys.path`` (their own imports resolve
    there), checked to come from ``folder``."""
    if not folder.is_dir():
        raise ReferenceMissing(f"{folder} not found")
    sys.path.insert(0, str(folder))
    try:
        modules = [importlib.import_module(name) for name in names]
    except ImportError as error:
        raise ReferenceMissing(f"{folder}: {error}") from None
    finally:
        sys.path.remove(str(folder))
    for module in modules:
        if not Path(module.__file__).resolve().is_relative_to(folder.resolve()):
            raise ReferenceMissing(f"{module.__name__} resolves to {module.__file__}, not under {folder}")
    return modules


def timed_loop(step, window_s: float) -> tuple[int, float]:
    """``(steps, seconds)``: ``step()`` called in chunks of :data:`CHUNK` until ``window_s`` passed."""
    steps, t0 = 0, time.perf_counter()
    while True:
        for _ in range(CHUNK):
            step()
        steps += CHUNK
        elapsed = time.perf_counter() - t0
        if elapsed >= window_s:
            return steps, elapsed


class ForkedTimer:
    """A reference side on ``processes`` cores, as jaxsched's batched side uses that many: ``step`` (a stepper
    of this module) run in ``processes`` forked copies of this process at once, each from its own copy of the
    simulator. A call ``(window_s) -> (steps, seconds)``: the steps of every copy, and the wall-clock from
    the parent's go to the last copy's answer (each copy runs :func:`timed_loop` for ``window_s``). Between
    calls the copies wait on their pipes (no CPU); :meth:`close` ends them. One process: no fork."""

    def __init__(self, step, processes: int):
        self.step, self.processes, self.pipes, self.workers = step, processes, [], []
        if processes == 1:
            return
        context = multiprocessing.get_context("fork")
        with warnings.catch_warnings():  # JAX warns at every fork; the copies only run the reference (numpy)
            warnings.filterwarnings("ignore", message=r"os\.fork\(\) was called", category=RuntimeWarning)
            for _ in range(processes):
                mine, theirs = context.Pipe()
                worker = context.Process(target=_serve_windows, args=(step, theirs), daemon=True)
                worker.start()
                theirs.close()
                self.pipes.append(mine)
                self.workers.append(worker)

    def __call__(self, window_s: float) -> tuple[int, float]:
        if not self.pipes:
            return timed_loop(self.step, window_s)
        t0 = time.perf_counter()
        for pipe in self.pipes:
            pipe.send(window_s)
        steps = sum(pipe.recv() for pipe in self.pipes)
        return steps, time.perf_counter() - t0

    def close(self) -> None:
        for pipe, worker in zip(self.pipes, self.workers):
            pipe.send(None)
            worker.join()
            pipe.close()
        self.pipes, self.workers = [], []


def _serve_windows(step, pipe) -> None:
    """A :class:`ForkedTimer` copy: a window's steps for each window length received, until ``None``."""
    while (window_s := pipe.recv()) is not None:
        pipe.send(timed_loop(step, window_s)[0])


# ---------------------------------------------------------------------------------------------- DeepRM
class DeepRMReference:
    """hongzimao/deeprm's ``Env`` with the parameters of ``../shared/reference/README.md``: 2 resources x
    capacity 10, T = 20, backlog 60, jobs up to 15 steps and 10 units, ``num_slots`` slots (``num_nw``),
    simu_len 50, Bernoulli arrivals at ``rate``, termination ``all_done``, ``episode_max_length`` =
    jaxsched's clock cap (so neither side cuts an episode), ``num_jobsets`` jobsets cycled by its
    auto-reset."""

    def __init__(self, folder: Path, num_slots: int, rate: float, simu_len: int, num_jobsets: int,
                 max_time: int, seed: int):
        self.environment, parameters, self.agents, job_distribution = _import_from(
            folder, ["environment", "parameters", "other_agents", "job_distribution"])
        pa = parameters.Parameters()
        pa.num_nw, pa.simu_len, pa.num_ex, pa.new_job_rate = num_slots, simu_len, num_jobsets, rate
        pa.episode_max_length = max_time
        pa.compute_dependent_parameters()
        self.pa = pa
        # The reference's own generator: np.random.seed(seed), then simu_len x num_jobsets draws.
        self.lengths, self.sizes = job_distribution.generate_sequence_work(pa, seed=seed)

    def make_env(self, build_obs: bool, first: int | None = None):
        """A fresh ``Env`` over all jobsets (or the first ``first``), image observation built or not."""
        lengths, sizes, pa = self.lengths, self.sizes, self.pa
        if first is not None:
            pa = _copy_parameters(pa, num_ex=first)
            lengths, sizes = lengths[:first], sizes[:first]
        return self.environment.Env(pa, nw_len_seqs=lengths, nw_size_seqs=sizes, end="all_done",
                                    build_obs=build_obs)

    def sjf_schedules(self, count: int) -> list[dict]:
        """SJF on the first ``count`` jobsets, one episode each: per jobset the start time of every job
        it admitted (in arrival order) and the number of decisions the episode took."""
        env = self.make_env(build_obs=False, first=count)
        episodes, decisions = [], 0
        while len(episodes) < count:
            _, _, done, record = env.step(self.agents.get_sjf_action(env.machine, env.job_slot))
            decisions += 1
            if done:
                jobs = [record.record[i] for i in sorted(record.record)]
                episodes.append({"start": np.array([job.start_time for job in jobs]), "decisions": decisions})
                decisions = 0
        return episodes

    def stepper(self, env, image: bool):
        """One SJF decision plus one ``step()`` (auto-reset included); the image, when built, is summed
        as a network would read it."""
        sjf, machine_slot = self.agents.get_sjf_action, lambda: (env.machine, env.job_slot)
        seen = [0.0]

        def step():
            ob, _, _, _ = env.step(sjf(*machine_slot()))
            if image:
                seen[0] += ob.sum()

        return step


def _copy_parameters(pa, **changes):
    copy = type(pa).__new__(type(pa))
    copy.__dict__.update(pa.__dict__, **changes)
    return copy


def dense_sequences(jobsets, simu_len: int) -> tuple[np.ndarray, np.ndarray]:
    """jaxsched jobsets as the reference's per-step arrays: ``lengths[j, t]`` and ``sizes[j, t, r]`` of
    the job arriving at step t of jobset j (0 where none), to check both sides hold the same jobs."""
    valid, arrival = np.asarray(jobsets.valid), np.asarray(jobsets.arrival)
    duration, demand = np.asarray(jobsets.duration), np.asarray(jobsets.demand)
    lengths = np.zeros((valid.shape[0], simu_len), np.int64)
    sizes = np.zeros((valid.shape[0], simu_len, demand.shape[-1]), np.int64)
    rows, cols = np.nonzero(valid)
    lengths[rows, arrival[rows, cols]] = duration[rows, cols]
    sizes[rows, arrival[rows, cols]] = demand[rows, cols]
    return lengths, sizes


# ------------------------------------------------------------------------------ BRACIS'21 compact state
class CompactReference:
    """sched-rl-gym's ``CompactRmEnv`` (BRACIS'21 compact state, with memory) on its ``deeprm``
    workload, SJF by its own scheduler (``env.scheduler.sjf_action``)."""

    def __init__(self, folder: Path, num_slots: int, capacity: int, max_job_len: int, max_job_size: int,
                 job_rate: float, time_limit: int, seed: int):
        (compact_env,) = _import_from(folder, ["schedgym.envs.compact_env"])
        np.random.seed(seed)
        workload = {"type": "deeprm", "new_job_rate": job_rate, "max_job_size": max_job_size,
                    "max_job_len": max_job_len, "small_job_chance": 0.8}
        self.env = compact_env.CompactRmEnv(job_slots=num_slots, processors=capacity, memory=capacity,
                                            time_horizon=20, backlog_size=60, time_limit=time_limit,
                                            workload=workload)
        self.env.reset()

    def stepper(self):
        env = self.env
        seen = [0.0]

        def step():
            state, _, done, _ = env.step(env.scheduler.sjf_action(env.job_slots))
            seen[0] += state.sum()
            if done:
                env.reset()

        return step



# ------------------------------------------------------------------------------------- VM placement
def load_vmagent(folder: Path):
    """VMAgent's ``sched_env`` module (needs pandas and gymnasium), loaded by path as
    ``vmagent_sched_env``: its package is also called ``schedgym``, as sched-rl-gym's."""
    path, name = folder / "schedgym" / "sched_env.py", "vmagent_sched_env"
    if not path.is_file():
        raise ReferenceMissing(f"{path} not found")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except ImportError as error:
        raise ReferenceMissing(f"{path}: {error}") from None
    return module


VMAGENT_HEADER = "vmid,cpu,memory,time,type"


def write_vmagent_events(requests, rows: int, path: Path) -> None:
    """The first ``rows`` events of a jaxsched trace (:class:`jaxsched.envs.vm.trace.VmRequests`) in
    VMAgent's ``vmid,cpu,memory,time,type`` format, so that both simulators read the same rows in the
    same order (its ``getData`` is then checked to read them back as jaxsched holds them)."""
    columns = [np.asarray(getattr(requests, name))[:rows] for name in ("vm", "cpu", "mem", "time", "kind")]
    with open(path, "w") as handle:
        handle.write(VMAGENT_HEADER + "\n")
        for vm, cpu, mem, when, kind in zip(*columns):
            handle.write(f"{int(vm)},{int(cpu)},{float(mem)!r},{float(when)!r},{int(kind)}\n")


class VmReference:
    """VMAgent's ``SchedEnv`` as ``../shared/reference/vmagent/README.md`` drives it: ``num_pms`` PMs of 2
    NUMAs x (``numa_cpu``, ``numa_mem``), deletes applied, double-NUMA when memory > ``double_above``,
    First-Fit (action -1); ``module`` is :func:`load_vmagent`'s. An episode is the rows
    ``[start, start + window)`` plus a sentinel create (so every create of the window can be placed and
    the episode ends there, see that README)."""

    def __init__(self, module, num_pms: int, events: Path, numa_cpu: float, numa_mem: float,
                 double_above: float):
        self.env = module.SchedEnv(num_pms, numa_cpu, numa_mem, str(events), allow_release=True,
                                   double_thr=double_above)
        self.rows = self.env.requests  # every event of the file, as its getData read them

    def read_back(self) -> dict[str, np.ndarray]:
        """The rows as VMAgent holds them (to compare with jaxsched's trace)."""
        return {name: np.array([row[key] for row in self.rows], np.float64)
                for name, key in (("vm", "uuid"), ("cpu", "cpu"), ("mem", "mem"), ("kind", "type"),
                                  ("double", "is_double"))}

    def start(self, start: int, window: int) -> None:
        sentinel = dict(self.rows[start + window - 1], uuid=-1, type=0, is_double=0)
        self.env.requests = self.rows[start:start + window] + [sentinel]
        self.env.reset(0)

    def first_fit_episode(self, start: int, window: int) -> dict:
        """One whole First-Fit episode: the action (``pm * 2 + numa``) taken at each window row placed,
        the row where it ended and the final remaining cpu / memory per PM and NUMA."""
        self.start(start, window)
        env, actions, done = self.env, {}, False
        while not done:
            row = env.t
            actions[row], _, _, done = env.step(-1)
        return {"actions": actions, "end": env.t, "remaining": env.cluster.describe()}

    def stepper(self, starts, window: int):
        """One First-Fit ``step()`` (the next start row's episode after each end), the returned cluster
        state summed as a network would read it."""
        env, order, seen = self.env, list(starts), [0.0]
        position = [0]
        self.start(order[0], window)

        def step():
            _, state, _, done = env.step(-1)
            seen[0] += state.sum()
            if done:
                position[0] = (position[0] + 1) % len(order)
                self.start(order[position[0]], window)

        return step
