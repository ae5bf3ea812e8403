"""Jobsets as CSV files, so that evaluation workloads can be written down, reviewed and replayed.

Format (integer time steps and resource units, one row per job)::

    jobset,job,arrival,duration,res0,res1
    0,0,0,3,2,1
    0,1,2,1,0,4
    1,0,0,5,1,1

Rows are grouped by jobset id (0, 1, ... K-1) and, within a jobset, numbered 0, 1, ... n-1 in
arrival order. There is at least one ``resN`` column, numbered consecutively from 0. The reader
rejects anything an environment could not replay faithfully (a job that can never fit, arrivals
out of order, ...) with a :class:`JobsetFileError` naming the file, the line and the problem,
because a silently "repaired" workload makes results incomparable.
"""

from __future__ import annotations

import csv
import os
import re
from pathlib import Path

import numpy as np

from jaxsched.envs.deeprm.types import Jobset, from_arrays, stack
from jaxsched.errors import JobsetFileError

JOB_COLUMNS = ("jobset", "job", "arrival", "duration")
_RESOURCE_COLUMN = re.compile(r"res(\d+)")
_INTEGER = re.compile(r"[+-]?\d+")
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1


def _expected_header(num_res: int) -> list[str]:
    return [*JOB_COLUMNS, *(f"res{i}" for i in range(num_res))]


def _check_header(path: str, header: list[str]) -> int:
    """Returns the number of resource columns, or raises naming the first column that is wrong."""
    names = [name.strip() for name in header]

    def fail(problem: str) -> JobsetFileError:
        example = ",".join(_expected_header(max(len(names) - len(JOB_COLUMNS), 1)))
        return JobsetFileError(path, 1, f"{problem} (expected header like '{example}')")

    for name in names:
        if name not in JOB_COLUMNS and not _RESOURCE_COLUMN.fullmatch(name):
            raise fail(f"unknown column {name!r}")
    for name in JOB_COLUMNS:
        if name not in names:
            raise fail(f"missing column {name!r}")
    for name in names:
        if names.count(name) > 1:
            raise fail(f"duplicate column {name!r}")
    num_res = len(names) - len(JOB_COLUMNS)
    if num_res < 1:
        raise fail("missing column 'res0': at least one resource column is needed")
    for position, (name, expected) in enumerate(zip(names, _expected_header(num_res)), start=1):
        if name != expected:
            raise fail(f"column {position} is {name!r} where {expected!r} is expected "
                       "(resource columns are numbered consecutively from res0)")
    return num_res


def _parse_row(path: str, line: int, row: list[str], columns: list[str]) -> list[int]:
    if len(row) != len(columns):
        raise JobsetFileError(path, line, f"wrong number of fields: expected {len(columns)} "
                                          f"(as in the header), found {len(row)}")
    values = []
    for column, field in zip(columns, row):
        text = field.strip()
        if not _INTEGER.fullmatch(text):
            raise JobsetFileError(path, line, f"field {column!r} is not an integer: {field!r}")
        value = int(text)
        if not _INT32_MIN <= value <= _INT32_MAX:
            raise JobsetFileError(path, line, f"field {column!r} = {value} does not fit in int32")
        values.append(value)
    return values


def _check_job(path: str, line: int, jobset_id: int, arrival: int, duration: int,
               demand: list[int], previous_arrival: int | None,
               capacity: int | None, horizon: int | None) -> None:
    """Rejects a job that an environment could never replay as written."""
    if arrival < 0:
        raise JobsetFileError(path, line, f"negative arrival {arrival}")
    if duration < 1:
        kind = "negative duration" if duration < 0 else "zero duration"
        raise JobsetFileError(path, line, f"{kind} {duration}: duration must be >= 1")
    for r, units in enumerate(demand):
        if units < 0:
            raise JobsetFileError(path, line, f"negative demand {units} for res{r}")
        if capacity is not None and units > capacity:
            raise JobsetFileError(path, line, f"demand {units} for res{r} is above the capacity "
                                              f"{capacity}: the job can never fit")
    if horizon is not None and duration > horizon:
        raise JobsetFileError(path, line, f"duration {duration} is above the horizon {horizon}: "
                                          "the job can never be scheduled within the horizon")
    if previous_arrival is not None and arrival < previous_arrival:
        raise JobsetFileError(path, line, f"arrivals not sorted in jobset {jobset_id}: arrival "
                                          f"{arrival} comes after arrival {previous_arrival}; "
                                          "arrivals must be non-decreasing within a jobset")


def read_jobsets(path: str | os.PathLike, *, capacity: int | None = None,
                 horizon: int | None = None, max_jobs: int | None = None) -> Jobset:
    """Reads every jobset of a CSV file into one batched Jobset (leading axis = jobset).

    Jobsets are padded to ``max_jobs`` jobs, or to the largest jobset when it is None. ``capacity``
    (units of every resource) and ``horizon`` (time steps), when given, reject jobs that could
    never run. Raises :class:`JobsetFileError` on the first problem found.
    """
    if max_jobs is not None and max_jobs < 1:
        raise ValueError(f"max_jobs must be >= 1, got {max_jobs}")
    name = str(path)
    jobsets: list[tuple[list[int], list[int], list[list[int]]]] = []
    with open(path, newline="", encoding="utf-8-sig") as file:
        reader = csv.reader(file)
        header = next(reader, None)
        if header is None:
            raise JobsetFileError(name, 1, "empty file: no header and no jobs")
        if not header:
            raise JobsetFileError(name, 1, "blank line where the header is expected")
        num_res = _check_header(name, header)
        columns = _expected_header(num_res)
        for row in reader:
            line = reader.line_num
            if not row:  # a blank line carries no job
                continue
            jobset_id, job_id, arrival, duration, *demand = _parse_row(name, line, row, columns)
            if jobset_id == len(jobsets):
                if job_id != 0:
                    raise JobsetFileError(name, line, f"jobs out of order: jobset {jobset_id} "
                                                      f"starts with job {job_id}, not job 0")
                jobsets.append(([], [], []))
            elif jobset_id != len(jobsets) - 1:
                expected = "0" if not jobsets else f"{len(jobsets) - 1} or {len(jobsets)}"
                raise JobsetFileError(name, line, f"jobset ids not contiguous from 0 (rows must be "
                                                  f"grouped by jobset): expected jobset {expected}, "
                                                  f"found {jobset_id}")
            arrivals, durations, demands = jobsets[-1]
            if job_id != len(arrivals):
                raise JobsetFileError(name, line, f"jobs out of order in jobset {jobset_id}: "
                                                  f"expected job {len(arrivals)}, found {job_id}")
            if max_jobs is not None and job_id >= max_jobs:
                raise JobsetFileError(name, line, f"jobset {jobset_id} has more than "
                                                  f"max_jobs={max_jobs} jobs")
            _check_job(name, line, jobset_id, arrival, duration, demand,
                       arrivals[-1] if arrivals else None, capacity, horizon)
            arrivals.append(arrival)
            durations.append(duration)
            demands.append(demand)
    if not jobsets:
        raise JobsetFileError(name, 1, "no jobs: the file holds a header and no job rows")
    padded_jobs = max_jobs if max_jobs is not None else max(len(a) for a, _, _ in jobsets)
    return stack([from_arrays(a, d, np.asarray(r, dtype=np.int32).reshape(len(a), num_res),
                              max_jobs=padded_jobs)
                  for a, d, r in jobsets])


def _check_writable(arrival: np.ndarray, duration: np.ndarray, demand: np.ndarray,
                    jobset_id: int) -> None:
    """Refuses to write a jobset that read_jobsets would reject, so every written file reads back."""
    if arrival.size == 0:
        raise ValueError(f"jobset {jobset_id} has no valid jobs: the CSV format cannot represent "
                         "an empty jobset (jobset ids are contiguous)")
    problems = [(arrival < 0, "negative arrival"), (duration < 1, "duration < 1"),
                (np.any(demand < 0, axis=-1), "negative demand"),
                (np.concatenate([[False], np.diff(arrival) < 0]), "arrival before the previous job's")]
    for bad, what in problems:
        if np.any(bad):
            raise ValueError(f"jobset {jobset_id}, valid job {int(np.argmax(bad))}: {what}")


def write_jobsets(path: str | os.PathLike, jobset: Jobset) -> None:
    """Writes a batched (or single) Jobset in the CSV format, skipping padding rows.

    Valid jobs are renumbered 0..n-1 in index order, so ``read_jobsets(path, max_jobs=J)``
    gives back exactly the same arrays for a jobset whose padding rows come last (as built by
    ``from_arrays``).
    """
    valid = np.asarray(jobset.valid, dtype=bool)
    arrival = np.asarray(jobset.arrival)
    duration = np.asarray(jobset.duration)
    demand = np.asarray(jobset.demand)
    if valid.ndim == 1:
        valid, arrival, duration, demand = valid[None], arrival[None], duration[None], demand[None]
    if valid.ndim != 2 or demand.ndim != 3:
        raise ValueError(f"expected a single or batched jobset, got valid of shape {valid.shape}")
    rows: list[list[int]] = []
    for k in range(valid.shape[0]):
        keep = valid[k]
        a, d, r = arrival[k][keep], duration[k][keep], demand[k][keep]
        _check_writable(a, d, r, k)  # before opening the file: no half-written file on error
        rows.extend([k, j, int(a[j]), int(d[j]), *(int(x) for x in r[j])] for j in range(a.shape[0]))
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file, lineterminator="\n")
        writer.writerow(_expected_header(demand.shape[-1]))
        writer.writerows(rows)
