"""Jobset CSV files: exact round trips, and every malformed file rejected with file, line and why."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jaxsched.envs.deeprm.types import Jobset, from_arrays, stack
from jaxsched.envs.deeprm.csv_jobsets import JobsetFileError, read_jobsets, write_jobsets


def assert_same_jobset(a: Jobset, b: Jobset) -> None:
    for field in ("arrival", "duration", "demand", "valid"):
        x, y = np.asarray(getattr(a, field)), np.asarray(getattr(b, field))
        assert x.shape == y.shape, field
        assert x.dtype == y.dtype, field
        np.testing.assert_array_equal(x, y, err_msg=field)


def two_jobsets(max_jobs: int = 3) -> Jobset:
    return stack([
        from_arrays([0, 0, 4], [3, 1, 2], [[2, 1, 0], [0, 0, 0], [5, 5, 5]], max_jobs=max_jobs),
        from_arrays([1, 2], [7, 1], [[1, 2, 3], [4, 0, 1]], max_jobs=max_jobs),
    ])


def write_text(tmp_path: Path, text: str, name: str = "jobs.csv") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_round_trip_is_exact(tmp_path):
    original = two_jobsets(max_jobs=5)
    path = tmp_path / "out" / "jobs.csv"
    write_jobsets(path, original)
    assert_same_jobset(read_jobsets(path, max_jobs=5), original)
    # Without max_jobs, jobsets are padded to the largest one.
    assert_same_jobset(read_jobsets(path), two_jobsets(max_jobs=3))


def test_written_file_skips_padding_and_numbers_jobs(tmp_path):
    path = tmp_path / "jobs.csv"
    write_jobsets(path, two_jobsets(max_jobs=6))
    lines = path.read_text().splitlines()
    assert lines[0] == "jobset,job,arrival,duration,res0,res1,res2"
    assert lines[1:] == ["0,0,0,3,2,1,0", "0,1,0,1,0,0,0", "0,2,4,2,5,5,5",
                         "1,0,1,7,1,2,3", "1,1,2,1,4,0,1"]


def test_single_jobset_round_trip(tmp_path):
    single = from_arrays([0, 3], [2, 2], [[1], [0]], max_jobs=4)
    path = tmp_path / "one.csv"
    write_jobsets(path, single)
    batched = read_jobsets(path, max_jobs=4)
    assert batched.arrival.shape == (1, 4)
    assert_same_jobset(batched, stack([single]))


def test_write_refuses_an_empty_jobset(tmp_path):
    empty = from_arrays(np.zeros(0), np.zeros(0), np.zeros((0, 2)), max_jobs=3)
    full = from_arrays([0], [1], [[1, 1]], max_jobs=3)
    path = tmp_path / "jobs.csv"
    with pytest.raises(ValueError, match="jobset 1 has no valid jobs"):
        write_jobsets(path, stack([full, empty]))
    assert not path.exists()


jobsets_strategy = st.lists(
    st.lists(st.tuples(st.integers(0, 5), st.integers(1, 9), st.integers(0, 4), st.integers(0, 4)),
             min_size=1, max_size=5),
    min_size=1, max_size=4)


@settings(max_examples=20, deadline=None)
@given(jobsets_strategy)
def test_round_trip_random(tmp_path_factory, jobs_per_jobset):
    built = []
    for jobs in jobs_per_jobset:
        gaps, durations, cpu, mem = zip(*jobs)
        built.append(from_arrays(np.cumsum(gaps), durations, np.stack([cpu, mem], axis=1), max_jobs=5))
    original = stack(built)
    path = tmp_path_factory.mktemp("rt") / "jobs.csv"
    write_jobsets(path, original)
    assert_same_jobset(read_jobsets(path, max_jobs=5), original)


def test_all_zero_demand_is_allowed(tmp_path):
    path = write_text(tmp_path, "jobset,job,arrival,duration,res0\n0,0,0,1,0\n")
    jobset = read_jobsets(path, capacity=1, horizon=1)
    np.testing.assert_array_equal(np.asarray(jobset.demand), [[[0]]])


def test_blank_lines_are_ignored_and_whitespace_tolerated(tmp_path):
    path = write_text(tmp_path, "jobset, job, arrival, duration, res0\n\n0, 0, 2, 3, 1\n\n")
    jobset = read_jobsets(path)
    assert int(jobset.arrival[0, 0]) == 2 and int(jobset.duration[0, 0]) == 3


HEADER = "jobset,job,arrival,duration,res0,res1\n"

# (file text, line number of the error, words the message must contain)
MALFORMED = {
    "empty file": ("", 1, "empty file"),
    "header only": (HEADER, 1, "no jobs"),
    "missing column": ("jobset,job,duration,res0\n0,0,1,1\n", 1, "missing column 'arrival'"),
    "no resource column": ("jobset,job,arrival,duration\n0,0,0,1\n", 1, "missing column 'res0'"),
    "unknown column": ("jobset,job,arrival,duration,cpu\n0,0,0,1,1\n", 1, "unknown column 'cpu'"),
    "misnumbered resource": ("jobset,job,arrival,duration,res0,res2\n0,0,0,1,1,1\n", 1,
                             "column 6 is 'res2' where 'res1' is expected"),
    "columns out of order": ("job,jobset,arrival,duration,res0\n0,0,0,1,1\n", 1,
                             "column 1 is 'job' where 'jobset' is expected"),
    "duplicate column": ("jobset,job,arrival,duration,res0,res0\n0,0,0,1,1,1\n", 1,
                         "duplicate column 'res0'"),
    "non-integer": (HEADER + "0,0,0,1,1,1\n0,1,1.5,1,1,1\n", 3, "field 'arrival' is not an integer"),
    "empty field": (HEADER + "0,0,0,,1,1\n", 2, "field 'duration' is not an integer"),
    "too few fields": (HEADER + "0,0,0,1,1\n", 2, "wrong number of fields: expected 6"),
    "too many fields": (HEADER + "0,0,0,1,1,1,1\n", 2, "wrong number of fields: expected 6"),
    "int32 overflow": (HEADER + "0,0,0,3000000000,1,1\n", 2, "does not fit in int32"),
    "negative arrival": (HEADER + "0,0,-1,1,1,1\n", 2, "negative arrival -1"),
    "negative duration": (HEADER + "0,0,0,-2,1,1\n", 2, "negative duration -2: duration must be >= 1"),
    "zero duration": (HEADER + "0,0,0,0,1,1\n", 2, "duration must be >= 1"),
    "negative demand": (HEADER + "0,0,0,1,1,1\n0,1,0,1,1,-3\n", 3, "negative demand -3 for res1"),
    "unsorted arrivals": (HEADER + "0,0,5,1,1,1\n0,1,4,1,1,1\n", 3, "arrivals not sorted in jobset 0"),
    "first jobset not 0": (HEADER + "1,0,0,1,1,1\n", 2, "jobset ids not contiguous from 0"),
    "jobset id gap": (HEADER + "0,0,0,1,1,1\n2,0,0,1,1,1\n", 3, "expected jobset 0 or 1, found 2"),
    "jobsets not grouped": (HEADER + "0,0,0,1,1,1\n1,0,0,1,1,1\n0,1,0,1,1,1\n", 4,
                            "jobset ids not contiguous from 0"),
    "job skipped": (HEADER + "0,0,0,1,1,1\n0,2,0,1,1,1\n", 3, "expected job 1, found 2"),
    "jobset starts at job 1": (HEADER + "0,0,0,1,1,1\n1,1,0,1,1,1\n", 3,
                               "jobset 1 starts with job 1, not job 0"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_file_names_file_line_and_problem(tmp_path, case):
    text, line, problem = MALFORMED[case]
    path = write_text(tmp_path, text, name="bad_jobs.csv")
    with pytest.raises(JobsetFileError) as error:
        read_jobsets(path)
    message = str(error.value)
    assert "bad_jobs.csv" in message
    assert f"line {line}:" in message
    assert problem in message
    assert error.value.line == line


def test_demand_above_capacity(tmp_path):
    path = write_text(tmp_path, HEADER + "0,0,0,1,10,4\n0,1,0,1,3,11\n", name="cap.csv")
    read_jobsets(path, capacity=11)
    with pytest.raises(JobsetFileError, match=r"cap\.csv, line 3: demand 11 for res1 is above "
                                              r"the capacity 10"):
        read_jobsets(path, capacity=10)


def test_duration_above_horizon(tmp_path):
    path = write_text(tmp_path, HEADER + "0,0,0,20,1,1\n1,0,0,21,1,1\n", name="hor.csv")
    read_jobsets(path, horizon=21)
    with pytest.raises(JobsetFileError) as error:
        read_jobsets(path, horizon=20)
    message = str(error.value)
    assert "hor.csv, line 3:" in message
    assert "duration 21 is above the horizon 20" in message
    assert "can never be scheduled within the horizon" in message


def test_jobset_larger_than_max_jobs(tmp_path):
    path = write_text(tmp_path, HEADER + "0,0,0,1,1,1\n1,0,0,1,1,1\n1,1,0,1,1,1\n1,2,0,1,1,1\n",
                      name="big.csv")
    assert read_jobsets(path, max_jobs=3).arrival.shape == (2, 3)
    with pytest.raises(JobsetFileError, match=r"big\.csv, line 5: jobset 1 has more than max_jobs=2"):
        read_jobsets(path, max_jobs=2)
