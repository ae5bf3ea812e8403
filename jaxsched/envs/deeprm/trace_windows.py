"""Trace-window instances: learn from a cluster's own SWF log, evaluate on a later part of it.

The kept jobs of an SWF trace (cleaned by :func:`~jaxsched.workloads.swf.read_swf`; jobs wider
than the cluster dropped and counted) are split at a submit time: the jobs before it (by default the
first 70% of them) are the *training* part, the rest the *held-out* part. Training instances are
windows of ``window`` consecutive training jobs starting anywhere in that part, cut inside ``jit``
(:meth:`TraceWindows.sample_params`); held-out instances tile the held-out part with consecutive,
non-overlapping windows. No window straddles the split. With ``validation_fraction`` > 0 the last
jobs of the training part (that share of all kept jobs, split again at a submit time) are kept out of
the training windows and tiled into *validation* windows instead: a learner may choose among its
checkpoints there without touching the held-out part.

The environment is the MDP-design compact env (:class:`~jaxsched.envs.deeprm.env.DeepRM` with the
"bracis" state, fits-now allocation) on a processor-only cluster of the trace's size, with one
difference that matters on a real log: jobs run for their real run time, but with
``runtime_model="requested"`` (the default) a policy sees only what a real scheduler knows, the
user-requested time. Its observation (:class:`TraceObservation`) shows waiting jobs' requested
lengths, the running jobs' expected ends from their requested times (not when they will really
end), and the queue facts the deployed priority functions read (wait, requested and submit seconds).
Lublin-256 and other model-generated traces give no requested times; then the reader fills them
with the run times and :func:`trace_facts` says so (``requested_times``).
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxsched.baselines.hpc import make_hpc_heuristic
from jaxsched.envs.deeprm.env import DeepRM
from jaxsched.envs.deeprm.types import EnvParams, Jobset, Observation, with_jobsets
from jaxsched.envs.deeprm.variants import DeepRMVariant
from jaxsched.errors import InputError
from jaxsched.workloads.datasets import resolve_path
from jaxsched.workloads.swf import SwfTrace, read_swf, to_steps

RUNTIME_MODELS = ("requested", "actual")
NAME = "swf-compact"
# The family's one setting (a registry family, see :func:`jaxsched.registry.register`); every key
# may be overridden. ``trace`` names a file or ``dataset:NAME``.
VARIANTS: dict[str, dict] = {NAME: dict(
    trace="dataset:ctc-sp2-first969", window=64, quantum=600.0, train_fraction=0.7, num_procs=None,
    runtime_model="requested", observation="bracis", stepping="event", reward="slowdown", reward_jobs="all",
    num_slots=10, horizon=20, time_limit=100, seconds_features=False, reward_seconds=False,
    start_when_idle=False, validation_fraction=0.0)}
# ``seconds_features``: the bracis state shows job lengths on the step grid (``quantum`` seconds a step), so
# every job shorter than a step looks alike; the rules sites deploy read seconds. True appends, per slot,
# log(1 + requested seconds) and log(1 + waited seconds) over log(1 + SECONDS_SCALE) (0 for an empty slot).
SECONDS_SCALE = 30 * 24 * 3600.0  # a month: longer than any job or wait of the shipped traces
# ``reward_seconds``: the slowdown reward charges a job 1 / (its length in steps) per step in the system, so all
# jobs shorter than a step weigh alike; True charges quantum / max(its real run seconds, BSLD_TAU_S) per step,
# so that a job's charges sum to its bounded slowdown (without the clamp at 1), the quantity evaluated.
BSLD_TAU_S = 10.0  # bounded slowdown's floor on the run time, s (the trace_policy study's tau)
# ``start_when_idle``: the void action ("wait") is always in the mask, so a masked policy may keep an empty
# cluster idle while jobs wait, until the episode's clock cap leaves them unfinished (a greedy policy that learnt
# to starve a job does). True masks the void action while no job runs and a visible job can start: the cluster
# never sits empty with work waiting (as under every deployed rule), so every window's jobs finish before the
# cap (:func:`_episode_bound`). The env still treats an unmasked void as "move on"; only masked policies obey.
_ENV_KEYS = ("observation", "stepping", "reward", "reward_jobs", "num_slots", "horizon", "time_limit")


@struct.dataclass
class TraceJobset(Jobset):
    """A window of trace jobs: the env's jobset (``duration``: the real run time in steps) and what
    a scheduler may know of each job."""

    requested: jax.Array  # int32[J] steps a policy sees as the job's length (>= duration)
    submit_s: jax.Array  # float32[J] the trace's submit time, s
    requested_s: jax.Array  # float32[J] requested time, s (the run time under runtime_model="actual")
    run_s: jax.Array  # float32[J] the real run time, s


@struct.dataclass
class TraceObservation(Observation):
    """The compact env's observation plus the per-slot facts that HPC priority functions read
    (0 for an empty slot)."""

    slot_wait_s: jax.Array | None = None  # float32[M] seconds waited so far (on the step grid)
    slot_requested_s: jax.Array | None = None  # float32[M] requested time, s
    slot_submit_s: jax.Array | None = None  # float32[M] submit time in the trace, s
    slot_run_s: jax.Array | None = None  # float32[M] the real run time, s: only oracle baselines read it


class TraceDeepRM(DeepRM):
    """The compact env on trace windows; ``runtime_model="requested"`` shows policies requested
    times while jobs run for their real ones (see the module docstring)."""

    def __init__(self, runtime_model: str = "requested", quantum: float = 600.0, seconds_features: bool = False,
                 reward_seconds: bool = False, start_when_idle: bool = False, **options):
        if runtime_model not in RUNTIME_MODELS:
            raise ValueError(f"unknown runtime_model {runtime_model!r}; choose one of {', '.join(RUNTIME_MODELS)}")
        if not quantum > 0:
            raise ValueError(f"quantum must be > 0 seconds, got {quantum}")
        if options.get("observation") == "image" and runtime_model == "requested":
            raise ValueError("the image observation draws real run times; use observation='bracis' or 'compact' "
                             "with runtime_model='requested'")
        if seconds_features and options.get("observation") != "bracis":
            raise ValueError("seconds_features extends the bracis state; set observation='bracis'")
        if reward_seconds and options.get("reward", "slowdown") != "slowdown":
            raise ValueError(f"reward_seconds weighs the slowdown reward; reward is {options['reward']!r}")
        super().__init__(**options)
        self.runtime_model, self.quantum = runtime_model, float(quantum)
        self.seconds_features, self.reward_seconds = bool(seconds_features), bool(reward_seconds)
        self.start_when_idle = bool(start_when_idle)

    @property
    def name(self) -> str:
        return "DeepRM-trace"

    def scheduler_view(self, state):
        """The state as a scheduler that knows only requested times sees it: job lengths are the
        requested ones, finished jobs are gone and each running job holds its processors until its
        start + requested time. Under ``runtime_model="actual"`` the state itself."""
        if self.runtime_model == "actual":
            return state
        jobs = state.jobset
        finished = (state.start >= 0) & (state.start + jobs.duration <= state.clock)
        running = self.running(state)
        left = jnp.where(running, state.start + jobs.requested - state.clock, 0)
        rows = jnp.arange(self.grid_len)
        used = (rows[:, None] < left[None, :]).astype(jnp.int32) @ jobs.demand  # [G, d]
        return state.replace(jobset=jobs.replace(duration=jobs.requested), used=used,
                             start=jnp.where(finished, -1, state.start))

    def get_obs(self, state, params=None, key=None) -> TraceObservation:
        obs = super().get_obs(self.scheduler_view(state), params, key)
        jobs, filled = state.jobset, state.slots >= 0
        j = jnp.maximum(state.slots, 0)
        per_slot = lambda x: jnp.where(filled, x[j], 0.0).astype(jnp.float32)  # noqa: E731
        wait = (state.clock - jobs.arrival).astype(jnp.float32) * self.quantum
        fields = {f.name: getattr(obs, f.name) for f in dataclasses.fields(obs)}
        if self.seconds_features:
            seconds = jnp.stack([per_slot(jobs.requested_s), per_slot(wait)], axis=-1)
            fields["features"] = jnp.concatenate(
                [obs.features, (jnp.log1p(seconds) / np.log1p(SECONDS_SCALE)).reshape(-1).astype(jnp.float32)])
        if self.start_when_idle:
            fields["action_mask"] = obs.action_mask.at[-1].set(self.may_wait(state, obs.action_mask[:-1]))
        return TraceObservation(**fields, slot_wait_s=per_slot(wait), slot_requested_s=per_slot(jobs.requested_s),
                                slot_submit_s=per_slot(jobs.submit_s), slot_run_s=per_slot(jobs.run_s))

    @staticmethod
    def running(state) -> jax.Array:
        """bool[J]: the jobs started and not yet really ended (a scheduler learns of each end when it happens)."""
        jobs = state.jobset
        return (state.start >= 0) & (state.start + jobs.duration > state.clock) & jobs.valid

    def may_wait(self, state, startable: jax.Array) -> jax.Array:
        """Whether ``start_when_idle`` leaves the void action open: some job runs, or no visible job can start
        (``startable``: bool[M])."""
        return jnp.any(self.running(state)) | ~jnp.any(startable)

    def _slowdown_charge(self, jobs, ticks):
        if not self.reward_seconds:
            return super()._slowdown_charge(jobs, ticks)
        return ticks * self.quantum / jnp.maximum(jobs.run_s, BSLD_TAU_S)

    def slot_feature_index(self) -> tuple[tuple[int, ...], ...] | None:
        """The bracis state's per-slot features, and with ``seconds_features`` each slot's two seconds features
        (appended after the bracis state)."""
        index = super().slot_feature_index()
        if index is None or not self.seconds_features:
            return index
        (first,) = super().feature_shape()
        return tuple(own + (first + 2 * i, first + 2 * i + 1) for i, own in enumerate(index))

    def feature_shape(self) -> tuple[int, ...]:
        shape = super().feature_shape()
        return (shape[0] + 2 * self.num_slots,) if self.seconds_features else shape

    def _submission_snapshot(self, state, arriving, first, admitted_end):
        """The queued work a job sees at submission counts requested times, as a scheduler knows it."""
        view = state.replace(jobset=state.jobset.replace(duration=state.jobset.requested))
        return super()._submission_snapshot(view, arriving, first, admitted_end)


@dataclasses.dataclass(frozen=True)
class TraceJobs:
    """The kept jobs of a trace as step-grid arrays, split into a training and a held-out part."""

    job_id: np.ndarray  # int64[N]
    submit_s: np.ndarray  # int64[N] as the trace gives it
    duration: np.ndarray  # int64[N] ceil(run / quantum) >= 1
    requested: np.ndarray  # int64[N] ceil(requested / quantum) (= duration under runtime_model="actual")
    procs: np.ndarray  # int64[N]
    requested_s: np.ndarray  # int64[N]
    run_s: np.ndarray  # int64[N]
    num_train: int  # jobs [0, num_train) are the training part, [num_train, N) the held-out part
    num_fit: int  # training windows lie in [0, num_fit); [num_fit, num_train) is the validation part (may be empty)
    facts: dict  # what eval.json records: cluster, dropped jobs, split, requested times


def _fraction(quantum: float) -> Fraction:
    """The quantum exactly as written (0.1 is 1/10), as the SWF reader takes it."""
    return Fraction(str(quantum)) if isinstance(quantum, float) else Fraction(quantum)


def _ceil_steps(seconds: np.ndarray, quantum: float) -> np.ndarray:
    return np.maximum(to_steps(seconds, quantum, round_up=True), 1)


def _job_range(trace: SwfTrace, keep: np.ndarray, lo: int, hi: int) -> dict:
    ids, submit = trace.job_id[keep][lo:hi], trace.submit[keep][lo:hi]
    return {"jobs": int(hi - lo), "job_index": [int(lo), int(hi)], "job_ids": [int(ids[0]), int(ids[-1])],
            "submit_s": [int(submit[0]), int(submit[-1])]}


def _split_at(submit: np.ndarray, fraction: float) -> tuple[int, int]:
    """``(submit time, index)`` of the split at ``fraction`` of the jobs; ties go to the later part."""
    split_s = int(submit[min(int(fraction * len(submit)), len(submit) - 1)])
    return split_s, int(np.searchsorted(submit, split_s, side="left"))


def trace_jobs(path, window: int, quantum: float, train_fraction: float = 0.7, num_procs: int | None = None,
               runtime_model: str = "requested", validation_fraction: float = 0.0) -> TraceJobs:
    """Reads, cleans and splits a trace (see the module docstring); ``InputError`` when a part (training,
    validation if asked for, held-out) holds fewer than ``window`` jobs or the cluster size is unknown."""
    if runtime_model not in RUNTIME_MODELS:
        raise InputError(f"unknown runtime_model {runtime_model!r}; choose one of {', '.join(RUNTIME_MODELS)}")
    if not 0.0 < train_fraction < 1.0:
        raise InputError(f"train_fraction must lie in (0, 1), got {train_fraction}")
    if not 0.0 <= validation_fraction < train_fraction:
        raise InputError(f"validation_fraction must lie in [0, train_fraction={train_fraction}), "
                         f"got {validation_fraction}")
    if window < 1 or not quantum > 0:
        raise InputError(f"need window >= 1 and quantum > 0, got {window} and {quantum}")
    path = resolve_path(path)
    if not path.exists():
        raise InputError(f"trace not found: {path}")
    trace = read_swf(path)
    procs = trace.max_procs if num_procs is None else int(num_procs)
    if procs is None or procs < 1:
        raise InputError(f"{trace.path}: the header gives no MaxProcs/MaxNodes; pass num_procs (--num-procs)")
    keep = trace.procs <= procs
    n = int(keep.sum())
    submit = trace.submit[keep]
    # the split: the submit time of the job at train_fraction of the kept jobs; ties go to the held-out part
    split_s, num_train = _split_at(submit, train_fraction)
    fit_s, num_fit = _split_at(submit, train_fraction - validation_fraction) if validation_fraction else (None, num_train)
    if num_train < window or n - num_train < window:
        raise InputError(f"{trace.path}: {num_train} training and {n - num_train} held-out jobs at "
                         f"train_fraction={train_fraction}; each part needs at least window={window} jobs")
    if validation_fraction and (num_fit < window or num_train - num_fit < window):
        raise InputError(f"{trace.path}: {num_fit} training and {num_train - num_fit} validation jobs at "
                         f"validation_fraction={validation_fraction}; each part needs at least window={window} jobs")
    run_s, requested_s = trace.run_time[keep], trace.requested_time[keep]
    if runtime_model == "actual":
        requested_s = run_s
    requests_known = bool(np.any(trace.requested_time != trace.run_time))
    held_windows = (n - num_train) // window
    facts = {
        "trace": str(trace.path), "jobs_in_trace": trace.num_jobs, "cleaning_skipped": trace.skipped,
        "num_procs": procs, "num_procs_from": "header" if num_procs is None else "--num-procs",
        "too_wide": {"count": int((~keep).sum()), "job_ids": [int(i) for i in trace.job_id[~keep]],
                     "handling": "dropped before the split (not clamped)"},
        "quantum_s": float(quantum), "window": int(window), "runtime_model": runtime_model,
        "requested_times": ("given by the trace (unknown ones filled with the run time): "
                            f"{float(np.mean(trace.requested_time != trace.run_time)):.1%} of jobs differ from "
                            "their run time") if requests_known else
                           ("ABSENT: the trace gives no requested times (every one equals the run time), so "
                            "policies see the actual run times whatever runtime_model says"),
        "split": {"by": "submit time", "train_fraction": float(train_fraction), "split_submit_s": split_s,
                  "rule": "training: submit < split_submit_s; held-out: submit >= split_submit_s"},
        "training": _job_range(trace, keep, 0, num_fit) | {"windows": "any start of window consecutive jobs "
                                                                      "inside this range (drawn each iteration)"},
        "held_out": _job_range(trace, keep, num_train, n) | {
            "windows": held_windows, "jobs_used": held_windows * window,
            "jobs_unused_at_end": (n - num_train) - held_windows * window},
        # no job is in both parts and every training job was submitted before every held-out one
        "disjoint": bool(submit[num_train - 1] < submit[num_train]),
    }
    if validation_fraction:  # carved from the end of the training part: not trained on, not held out
        validation_windows = (num_train - num_fit) // window
        facts["split"] |= {"validation_fraction": float(validation_fraction), "validation_submit_s": fit_s,
                           "rule": "training: submit < validation_submit_s; validation: validation_submit_s <= "
                                   "submit < split_submit_s; held-out: submit >= split_submit_s"}
        facts["validation"] = _job_range(trace, keep, num_fit, num_train) | {
            "windows": validation_windows, "jobs_used": validation_windows * window, "use": "choosing a checkpoint"}
        facts["disjoint"] = facts["disjoint"] and bool(submit[num_fit - 1] < submit[num_fit])
    return TraceJobs(job_id=trace.job_id[keep], submit_s=submit, duration=_ceil_steps(run_s, quantum),
                     requested=_ceil_steps(requested_s, quantum), procs=trace.procs[keep], requested_s=requested_s,
                     run_s=run_s, num_train=num_train, num_fit=num_fit, facts=facts)


def cut_windows(jobs: TraceJobs, starts: jax.Array, window: int, quantum: float) -> TraceJobset:
    """The windows of ``window`` consecutive jobs starting at each of ``starts`` (int32[K]), as a
    batched jobset; jittable. Arrivals are (submit - the window's first submit) // quantum steps."""
    q = _fraction(quantum)
    since = jnp.asarray(jobs.submit_s - jobs.submit_s[0], jnp.int32)
    columns = {"duration": jnp.asarray(jobs.duration, jnp.int32), "requested": jnp.asarray(jobs.requested, jnp.int32),
               "procs": jnp.asarray(jobs.procs, jnp.int32), "submit_s": jnp.asarray(jobs.submit_s, jnp.float32),
               "requested_s": jnp.asarray(jobs.requested_s, jnp.float32),
               "run_s": jnp.asarray(jobs.run_s, jnp.float32)}

    def one(start):
        take = lambda x: jax.lax.dynamic_slice_in_dim(x, start, window)  # noqa: E731
        offset = take(since)
        arrival = ((offset - offset[0]) * q.denominator) // q.numerator
        c = {k: take(v) for k, v in columns.items()}
        return TraceJobset(arrival=arrival.astype(jnp.int32), duration=c["duration"], demand=c["procs"][:, None],
                           valid=jnp.ones((window,), bool), requested=c["requested"], submit_s=c["submit_s"],
                           requested_s=c["requested_s"], run_s=c["run_s"])

    return jax.vmap(one)(jnp.asarray(starts, jnp.int32))


def _episode_bound(jobs: TraceJobs, window: int, quantum: float) -> int:
    """An upper bound on any window's clock when a work-conserving policy ends it: the window's
    arrival span plus its total work run one job after another (maximised over all windows)."""
    q = _fraction(quantum)
    since = (jobs.submit_s - jobs.submit_s[0]) * q.denominator // q.numerator
    span = since[window - 1:] - since[:len(since) - window + 1]
    work = np.convolve(jobs.duration, np.ones(window, np.int64), mode="valid")
    return int((span + work).max()) + 1


@dataclasses.dataclass(frozen=True)
class TraceWindows(DeepRMVariant):
    """The ``swf-compact`` variant: training windows drawn from the training part of a trace,
    held-out windows tiling the held-out part, and the HPC heuristics of :mod:`jaxsched.baselines.hpc`."""

    jobs: TraceJobs | None = None
    window: int = 64
    quantum: float = 600.0
    default_baselines: tuple[str, ...] = ("fcfs", "sjf-requested", "easy", "wfp3", "unicep", "f1")

    @property
    def facts(self) -> dict:
        return self.jobs.facts

    @property
    def num_held_out(self) -> int:
        return self.jobs.facts["held_out"]["windows"]

    def held_out_starts(self) -> np.ndarray:
        return self.jobs.num_train + self.window * np.arange(self.num_held_out)

    @property
    def num_validation(self) -> int:
        """Validation windows (0 unless ``validation_fraction`` > 0)."""
        return (self.jobs.num_train - self.jobs.num_fit) // self.window

    def validation(self) -> tuple[EnvParams, dict]:
        """The windows tiling the validation part, in trace order (none are trained on or held out)."""
        return self._tiled(self.jobs.num_fit + self.window * np.arange(self.num_validation))

    def _tiled(self, starts: np.ndarray) -> tuple[EnvParams, dict]:
        """The windows starting at ``starts``, batched, and what eval.json records of them."""
        return (self.with_jobsets(cut_windows(self.jobs, starts, self.window, self.quantum)),
                {"windows": len(starts), "window_starts": [int(s) for s in starts]})

    def sample_params(self, key: jax.Array, count: int) -> EnvParams:
        """``count`` training windows with uniformly drawn starts in the training part (before any
        validation part); jittable."""
        starts = jax.random.randint(key, (count,), 0, self.jobs.num_fit - self.window + 1)
        return self.with_jobsets(cut_windows(self.jobs, starts, self.window, self.quantum))

    def held_out(self, count: int | None = None, seed: int = 0) -> tuple[EnvParams, dict]:
        """The first ``count`` (default all) held-out windows, in trace order (``seed`` is unused:
        they are not drawn)."""
        return self._tiled(self.held_out_starts()[:count])

    def heuristic(self, name: str):
        return make_hpc_heuristic(name)

    def heuristic_ties(self, name: str):
        return None

    def check_baselines(self, names) -> None:
        for name in names:
            make_hpc_heuristic(name)


def build(name: str = NAME, **overrides) -> TraceWindows:
    """The ``swf-compact`` variant on ``trace`` (see :data:`VARIANTS` for the options)."""
    unknown = sorted(set(overrides) - set(VARIANTS[NAME]) - {"seed", "max_time"})
    if unknown:
        raise ValueError(f"unknown option(s) {', '.join(unknown)} for {name!r}; valid: {', '.join(sorted(VARIANTS[NAME]))}")
    config = {**VARIANTS[name], **overrides}
    window, quantum = int(config["window"]), float(config["quantum"])
    jobs = trace_jobs(config["trace"], window, quantum, float(config["train_fraction"]), config["num_procs"],
                      config["runtime_model"], float(config["validation_fraction"]))
    procs = jobs.facts["num_procs"]
    longest = int(max(jobs.duration.max(), jobs.requested.max()))  # the grid holds every job's rows
    env = TraceDeepRM(runtime_model=config["runtime_model"], quantum=quantum,
                      seconds_features=bool(config["seconds_features"]), reward_seconds=bool(config["reward_seconds"]),
                      start_when_idle=bool(config["start_when_idle"]),
                      num_res=1, capacity=procs,
                      max_job_size=procs, max_job_len=longest, backlog_size=window, allocation="fits_now",
                      termination="all_done", **{k: config[k] for k in _ENV_KEYS})
    max_time = int(config.get("max_time") or _episode_bound(jobs, window, quantum) + env.horizon)
    # simu_len 1: an episode ends when its window's jobs have all arrived and left (no idle tail)
    params = EnvParams(jobset=None, simu_len=1, max_time=max_time,
                       max_steps_in_episode=max_time + window + 1)
    variant = TraceWindows(name=name, env=env, workload=None, params=params, jobs=jobs, window=window,
                           quantum=quantum)
    first = cut_windows(jobs, jnp.zeros((1,), jnp.int32), window, quantum)
    return dataclasses.replace(variant, params=params.replace(jobset=jax.tree.map(lambda x: x[0], first)))


__all__ = ["BSLD_TAU_S", "NAME", "RUNTIME_MODELS", "SECONDS_SCALE", "VARIANTS", "TraceDeepRM", "TraceJobs",
           "TraceJobset", "TraceObservation", "TraceWindows", "build", "cut_windows", "trace_jobs"]
