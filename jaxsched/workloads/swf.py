"""Real workload traces in the Standard Workload Format (SWF, Parallel Workloads Archive), for every family.

SWF holds one job per line in 18 whitespace-separated fields; ``;`` starts a header or comment
line (``; MaxProcs: 430``); -1 means unknown; times are in seconds. :func:`read_swf` applies the
usual cleaning and keeps count of what it dropped, so that a reported result can say which jobs it
ran on. The families cut the cleaned trace into their own instances: DeepRM's jobsets
(:func:`jaxsched.envs.deeprm.swf_jobsets.to_jobsets`), trace windows
(:mod:`jaxsched.envs.deeprm.trace_windows`), the grid site's windows (:mod:`jaxsched.envs.grid.workload`).

Nothing is clamped behind the user's back: jobs wider than the machine are kept and listed in
``SwfTrace.oversized``; :func:`clamp_to_machine` and ``to_jobsets(oversized=...)`` decide what to
do with them, explicitly.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import warnings
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from jaxsched.errors import SwfFormatError
from jaxsched.workloads.datasets import resolve_path

SWF_FIELDS = (
    "job_id", "submit", "wait", "run_time", "allocated_procs", "avg_cpu", "used_memory",
    "requested_procs", "requested_time", "requested_memory", "status", "user", "group",
    "executable", "queue", "partition", "preceding_job", "think_time",
)
_F = {name: i for i, name in enumerate(SWF_FIELDS)}
_HEADER_LINE = re.compile(r";\s*([A-Za-z][\w-]*)\s*:\s*(.*)")
# Reasons a job is dropped by the cleaning (keys of SwfTrace.skipped).
NONPOSITIVE_RUN_TIME = "nonpositive_run_time"
NONPOSITIVE_PROCS = "nonpositive_procs"
UNKNOWN_SUBMIT = "unknown_submit"


@dataclass
class SwfTrace:
    """The cleaned jobs of an SWF trace, in file (submit) order, one entry per kept job."""

    job_id: np.ndarray  # int64[N]
    submit: np.ndarray  # int64[N] seconds, non-decreasing
    run_time: np.ndarray  # int64[N] seconds, >= 1
    procs: np.ndarray  # int64[N] requested processors (allocated where the request is unknown), >= 1
    requested_time: np.ndarray  # int64[N] seconds, max(requested, run); run where unknown
    memory: np.ndarray  # int64[N] KB per processor (SWF unit): used, else requested, else -1
    max_procs: int | None  # machine size from the header (MaxProcs, else MaxNodes)
    header: dict[str, str]  # header fields; repeated keys (Note, Queue) joined by newlines
    skipped: dict[str, int]  # jobs dropped by the cleaning, by reason
    oversized: np.ndarray  # int64[M] ids of kept jobs with procs > max_procs
    path: str | None = None
    user: np.ndarray | None = None  # int64[N] user id, -1 unknown
    group: np.ndarray | None = None  # int64[N] group id, -1 unknown

    @property
    def num_jobs(self) -> int:
        return int(self.job_id.shape[0])

    def __len__(self) -> int:
        return self.num_jobs


def _parse_header_line(path: str, line: int, text: str, header: dict[str, str]) -> None:
    match = _HEADER_LINE.fullmatch(text.strip())
    if match is None:  # a free-form comment
        return
    key, value = match.group(1), match.group(2).strip()
    header[key] = f"{header[key]}\n{value}" if key in header else value
    if key in ("MaxProcs", "MaxNodes"):
        try:
            int(value)
        except ValueError:
            raise SwfFormatError(path, line, f"header {key} is not an integer: {value!r}") from None


def _parse_job_line(path: str, line: int, text: str) -> list[float]:
    fields = text.split()
    if len(fields) != len(SWF_FIELDS):
        raise SwfFormatError(path, line, f"expected {len(SWF_FIELDS)} fields, found {len(fields)}")
    values = []
    for name, field in zip(SWF_FIELDS, fields):
        try:
            value = float(field)
        except ValueError:
            raise SwfFormatError(path, line, f"field {name!r} is not a number: {field!r}") from None
        if not math.isfinite(value):
            raise SwfFormatError(path, line, f"field {name!r} is not a finite number: {field!r}")
        values.append(value)
    return values


def read_swf(path: str | os.PathLike) -> SwfTrace:
    """Reads and cleans an SWF trace.

    Cleaning: requested procs <- allocated where unknown (and the reverse); requested time <-
    max(requested, run), or run where unknown; jobs with run <= 0, procs <= 0 or an unknown submit
    time are dropped and counted in ``skipped``. Jobs wider than the machine are kept (see
    ``oversized``). Raises :class:`SwfFormatError` for a malformed line or submit times out of order.
    ``path`` may name a dataset, ``dataset:NAME`` (:func:`jaxsched.workloads.datasets.resolve_path`).
    """
    path = resolve_path(path)
    name = str(path)
    header: dict[str, str] = {}
    rows: list[list[float]] = []
    skipped = {NONPOSITIVE_RUN_TIME: 0, NONPOSITIVE_PROCS: 0, UNKNOWN_SUBMIT: 0}
    previous_submit: tuple[float, int] | None = None
    with open(path, encoding="utf-8", errors="replace") as file:
        for line, text in enumerate(file, start=1):
            stripped = text.strip()
            if not stripped:
                continue
            if stripped.startswith(";"):
                _parse_header_line(name, line, stripped, header)
                continue
            values = _parse_job_line(name, line, stripped)
            submit = values[_F["submit"]]
            if submit >= 0:  # -1 (unknown) is dropped below, so it cannot break the order
                if previous_submit is not None and submit < previous_submit[0]:
                    before, before_line = previous_submit
                    raise SwfFormatError(name, line, f"submit time {submit:g} is before {before:g} "
                                                     f"(line {before_line}): SWF jobs must be sorted "
                                                     "by submit time")
                previous_submit = (submit, line)
            rows.append(values)

    table = np.asarray(rows, dtype=np.float64).reshape(-1, len(SWF_FIELDS))
    column = lambda field: np.rint(table[:, _F[field]]).astype(np.int64)
    allocated, requested = column("allocated_procs"), column("requested_procs")
    procs = np.where(requested == -1, allocated, requested)
    run_time = column("run_time")
    submit = column("submit")
    drop_run = run_time <= 0
    drop_procs = ~drop_run & (procs <= 0)
    drop_submit = ~drop_run & ~drop_procs & (submit < 0)
    skipped[NONPOSITIVE_RUN_TIME] = int(drop_run.sum())
    skipped[NONPOSITIVE_PROCS] = int(drop_procs.sum())
    skipped[UNKNOWN_SUBMIT] = int(drop_submit.sum())
    keep = ~(drop_run | drop_procs | drop_submit)

    requested_time = column("requested_time")
    requested_time = np.where(requested_time == -1, run_time, np.maximum(requested_time, run_time))
    used_memory, requested_memory = column("used_memory"), column("requested_memory")
    memory = np.where(used_memory >= 0, used_memory,
                      np.where(requested_memory >= 0, requested_memory, -1))

    max_procs = next((int(header[key]) for key in ("MaxProcs", "MaxNodes") if key in header), None)
    job_id, procs = column("job_id")[keep], procs[keep]
    oversized = job_id[procs > max_procs] if max_procs is not None else np.zeros(0, np.int64)
    return SwfTrace(job_id=job_id, submit=submit[keep], run_time=run_time[keep], procs=procs,
                    requested_time=requested_time[keep], memory=memory[keep], max_procs=max_procs,
                    header=header, skipped=skipped, oversized=oversized, path=name,
                    user=column("user")[keep], group=column("group")[keep])


def clamp_to_machine(trace: SwfTrace, max_procs: int | None = None) -> SwfTrace:
    """Returns a copy whose jobs ask for at most ``max_procs`` processors (default: the header's)."""
    max_procs = trace.max_procs if max_procs is None else max_procs
    if max_procs is None:
        raise ValueError(f"{trace.path}: the header gives no MaxProcs or MaxNodes; pass max_procs")
    if max_procs < 1:
        raise ValueError(f"max_procs must be >= 1, got {max_procs}")
    return dataclasses.replace(trace, procs=np.minimum(trace.procs, max_procs), max_procs=max_procs,
                               oversized=np.zeros(0, np.int64))


def to_steps(seconds: np.ndarray, quantum: float, round_up: bool) -> np.ndarray:
    """Exact floor/ceil of seconds / quantum (a decimal quantum such as 0.1 is taken as written)."""
    q = Fraction(str(quantum)) if isinstance(quantum, float) else Fraction(quantum)
    scaled = seconds.astype(np.int64) * q.denominator
    return -((-scaled) // q.numerator) if round_up else scaled // q.numerator


def memory_units(trace: SwfTrace, memory_unit_kb: float) -> np.ndarray:
    """Memory as a resource count: ceil(procs x KB per processor / memory_unit_kb); 0 where the
    trace does not know the memory (with a warning that says how many jobs)."""
    if not memory_unit_kb > 0:
        raise ValueError(f"memory_unit_kb must be > 0, got {memory_unit_kb}")
    known = trace.memory >= 0
    if not known.all():
        warnings.warn(f"{trace.path}: {int((~known).sum())} of {trace.num_jobs} jobs have unknown memory; "
                      "they ask for 0 memory units", stacklevel=3)
    return np.where(known, np.ceil(trace.procs * np.maximum(trace.memory, 0) / memory_unit_kb), 0).astype(np.int64)
