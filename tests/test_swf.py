"""SWF traces: cleaning rules, malformed lines, windows, and the shipped traces checked by hand."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from conftest import dataset_file
from jaxsched.envs.deeprm.swf_jobsets import to_jobsets
from jaxsched.workloads.swf import SwfFormatError, SwfTrace, clamp_to_machine, read_swf



def swf_line(job_id, submit, run, allocated, requested=-1, requested_time=-1,
             used_memory=-1, requested_memory=-1) -> str:
    fields = [job_id, submit, 0, run, allocated, -1, used_memory, requested, requested_time,
              requested_memory, 1, 1, 1, 1, 1, -1, -1, -1]
    return " ".join(str(f) for f in fields)


def write_swf(tmp_path: Path, lines: list[str], name: str = "trace.swf") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


SMALL = [
    "; Version: 2.2",
    "; Computer: toy",
    "; Note: first note",
    "; Note: second note",
    ";   a free comment without a key",
    "; MaxProcs: 8",
    swf_line(1, 0, 100, 4),                                       # requested procs unknown
    swf_line(2, 10, 50, -1, requested=2, requested_time=30),      # allocated unknown; req time < run
    swf_line(3, 10, 0, 4),                                        # run 0: dropped
    swf_line(4, 20, 60, -1),                                      # procs unknown: dropped
    "",
    swf_line(5, 30, 10, 16, requested=16, requested_time=500,     # wider than the machine: kept
             used_memory=1024, requested_memory=2048),
    swf_line(6, 45, -1, 2),                                       # run unknown: dropped
    swf_line(7, 50, 1, 0, requested=0),                           # zero procs: dropped
    swf_line(8, 61, 7, 1, requested_memory=512),
]


def test_cleaning_rules(tmp_path):
    trace = read_swf(write_swf(tmp_path, SMALL))
    np.testing.assert_array_equal(trace.job_id, [1, 2, 5, 8])
    np.testing.assert_array_equal(trace.submit, [0, 10, 30, 61])
    np.testing.assert_array_equal(trace.run_time, [100, 50, 10, 7])
    np.testing.assert_array_equal(trace.procs, [4, 2, 16, 1])
    np.testing.assert_array_equal(trace.requested_time, [100, 50, 500, 7])
    np.testing.assert_array_equal(trace.memory, [-1, -1, 1024, 512])
    assert trace.skipped == {"nonpositive_run_time": 2, "nonpositive_procs": 2, "unknown_submit": 0}
    assert trace.max_procs == 8
    np.testing.assert_array_equal(trace.oversized, [5])
    assert trace.header["Computer"] == "toy"
    assert trace.header["Note"] == "first note\nsecond note"
    assert len(trace) == 4 and trace.path.endswith("trace.swf")


def test_max_nodes_is_used_without_max_procs(tmp_path):
    trace = read_swf(write_swf(tmp_path, ["; MaxNodes: 3", swf_line(1, 0, 5, 4)]))
    assert trace.max_procs == 3
    np.testing.assert_array_equal(trace.oversized, [1])
    np.testing.assert_array_equal(trace.procs, [4])  # kept as is, not clamped


def test_unknown_submit_is_dropped(tmp_path):
    trace = read_swf(write_swf(tmp_path, [swf_line(1, -1, 5, 1), swf_line(2, 3, 5, 1)]))
    np.testing.assert_array_equal(trace.job_id, [2])
    assert trace.skipped["unknown_submit"] == 1
    assert trace.max_procs is None and trace.oversized.size == 0


def test_clamp_to_machine(tmp_path):
    trace = read_swf(write_swf(tmp_path, SMALL))
    clamped = clamp_to_machine(trace)
    np.testing.assert_array_equal(clamped.procs, [4, 2, 8, 1])
    assert clamped.oversized.size == 0 and clamped.max_procs == 8
    np.testing.assert_array_equal(trace.procs, [4, 2, 16, 1])  # the original is untouched
    np.testing.assert_array_equal(clamp_to_machine(trace, 3).procs, [3, 2, 3, 1])
    no_header = read_swf(write_swf(tmp_path, [swf_line(1, 0, 5, 4)], name="plain.swf"))
    with pytest.raises(ValueError, match="plain.swf.*pass max_procs"):
        clamp_to_machine(no_header)


# (line text, words the message must contain); the bad line is line 3 of the file
MALFORMED = {
    "too few fields": ("1 0 0 10 4", "expected 18 fields, found 5"),
    "too many fields": (swf_line(2, 5, 10, 4) + " 7", "expected 18 fields, found 19"),
    "non-numeric": (swf_line(2, 5, 10, 4).replace(" 10 ", " ten ", 1), "field 'run_time' is not a number: 'ten'"),
    "not finite": (swf_line(2, "nan", 10, 4), "field 'submit' is not a finite number"),
    "submit out of order": (swf_line(2, -1, 10, 4) + "\n" + swf_line(3, 4, 10, 4),
                            "submit time 4 is before 5 (line 2)"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_line_names_file_and_line(tmp_path, case):
    bad, problem = MALFORMED[case]
    line = 4 if case == "submit out of order" else 3
    path = write_swf(tmp_path, ["; MaxProcs: 8", swf_line(1, 5, 10, 4), bad], name="broken.swf")
    with pytest.raises(SwfFormatError) as error:
        read_swf(path)
    message = str(error.value)
    assert "broken.swf" in message and f"line {line}:" in message and problem in message


def test_malformed_max_procs_header(tmp_path):
    path = write_swf(tmp_path, ["; Version: 2", "; MaxProcs: many", swf_line(1, 0, 1, 1)], "hdr.swf")
    with pytest.raises(SwfFormatError, match=r"hdr\.swf, line 2: header MaxProcs is not an integer"):
        read_swf(path)


def toy_trace() -> SwfTrace:
    return SwfTrace(
        job_id=np.array([11, 12, 13, 14, 15]), submit=np.array([100, 130, 219, 220, 400]),
        run_time=np.array([60, 1, 61, 600, 5]), procs=np.array([2, 4, 9, 1, 3]),
        requested_time=np.array([60, 1, 61, 600, 5]), memory=np.full(5, -1),
        max_procs=None, header={}, skipped={}, oversized=np.zeros(0, np.int64), path="toy.swf")


def test_to_jobsets_hand_computed():
    jobset = to_jobsets(toy_trace(), num_procs=9, quantum=60, window=2, max_jobs=3)
    assert jobset.arrival.shape == (2, 3) and jobset.demand.shape == (2, 3, 1)
    # window 0: submits 100, 130 -> 0 // 60, 30 // 60; window 1: 219, 220 -> 0, 1 // 60
    np.testing.assert_array_equal(np.asarray(jobset.arrival), [[0, 0, 0], [0, 0, 0]])
    np.testing.assert_array_equal(np.asarray(jobset.duration), [[1, 1, 0], [2, 10, 0]])
    np.testing.assert_array_equal(np.asarray(jobset.demand)[..., 0], [[2, 4, 0], [9, 1, 0]])
    np.testing.assert_array_equal(np.asarray(jobset.valid), [[True, True, False]] * 2)
    # A fractional quantum is exact: 219 - 100 = 119 s is 1190 steps of 0.1 s, not 1189.
    fine = to_jobsets(toy_trace(), num_procs=9, quantum=0.1, window=5)
    np.testing.assert_array_equal(np.asarray(fine.arrival)[0], [0, 300, 1190, 1200, 3000])
    np.testing.assert_array_equal(np.asarray(fine.duration)[0], [600, 10, 610, 6000, 50])


def test_memory_becomes_a_second_resource():
    """Memory is KB per processor in SWF: units = ceil(procs x KB / unit); unknown memory is 0 units."""
    trace = toy_trace()
    trace.memory = np.array([100, -1, 50, 200, 10])
    with pytest.warns(UserWarning, match="1 of 5 jobs have unknown memory"):
        jobset = to_jobsets(trace, num_procs=9, quantum=60, window=5, memory_unit_kb=64)
    # 2 x 100 / 64 = 3.1 -> 4; unknown -> 0; 9 x 50 / 64 = 7.03 -> 8; 200 / 64 -> 4; 30 / 64 -> 1
    np.testing.assert_array_equal(np.asarray(jobset.demand)[0], [[2, 4], [4, 0], [9, 8], [1, 4], [3, 1]])
    with pytest.warns(UserWarning), pytest.raises(ValueError, match=r"jobs 13 need more than num_procs=9 memory units"):
        to_jobsets(trace, num_procs=9, quantum=60, window=5, memory_unit_kb=40)  # 9 x 50 / 40 -> 12 units
    with pytest.warns(UserWarning):
        clamped = to_jobsets(trace, num_procs=9, quantum=60, window=5, memory_unit_kb=40, oversized="clamp")
    np.testing.assert_array_equal(np.asarray(clamped.demand)[0, 2], [9, 9])
    with pytest.raises(ValueError, match="memory_unit_kb must be > 0"):
        to_jobsets(trace, num_procs=9, quantum=60, window=5, memory_unit_kb=0)


def test_to_jobsets_window_count():
    assert to_jobsets(toy_trace(), num_procs=9, quantum=1, window=2, num_windows=1).arrival.shape == (1, 2)
    with pytest.raises(ValueError, match="toy.swf: 5 jobs make 2 full windows of 2 jobs; cannot cut 3"):
        to_jobsets(toy_trace(), num_procs=9, quantum=1, window=2, num_windows=3)
    with pytest.raises(ValueError, match="max_jobs=1 cannot hold a window of 2"):
        to_jobsets(toy_trace(), num_procs=9, quantum=1, window=2, max_jobs=1)


def test_oversized_jobs_error_clamp_drop():
    trace = toy_trace()
    with pytest.raises(ValueError, match=r"toy\.swf: jobs 13 need more than num_procs=8"):
        to_jobsets(trace, num_procs=8, quantum=60, window=2)
    clamped = to_jobsets(trace, num_procs=8, quantum=60, window=2, oversized="clamp")
    np.testing.assert_array_equal(np.asarray(clamped.demand)[..., 0], [[2, 4], [8, 1]])
    with pytest.warns(UserWarning, match="dropped 1 jobs"):
        dropped = to_jobsets(trace, num_procs=8, quantum=60, window=2, oversized="drop")
    np.testing.assert_array_equal(np.asarray(dropped.demand)[..., 0], [[2, 4], [1, 3]])
    with pytest.raises(ValueError, match="oversized must be one of"):
        to_jobsets(trace, num_procs=8, quantum=60, window=2, oversized="ignore")


def test_durations_above_horizon_follow_the_oversized_policy():
    trace = toy_trace()  # durations at quantum 60: 1, 1, 2, 10, 1
    with pytest.raises(ValueError, match=r"jobs 14 need a duration above horizon=5"):
        to_jobsets(trace, num_procs=9, quantum=60, window=2, horizon=5)
    capped = to_jobsets(trace, num_procs=9, quantum=60, window=2, horizon=5, oversized="clamp")
    np.testing.assert_array_equal(np.asarray(capped.duration), [[1, 1], [2, 5]])
    with pytest.warns(UserWarning, match="dropped 1 jobs"):
        dropped = to_jobsets(trace, num_procs=9, quantum=60, window=2, horizon=5, oversized="drop")
    np.testing.assert_array_equal(np.asarray(dropped.duration), [[1, 1], [2, 1]])


def expected_by_hand(path: Path) -> tuple[list[int], list[int], int | None]:
    """Kept job ids and their procs, and the machine size, by a plain loop over the file."""
    kept_ids, kept_procs, header_procs = [], [], {}
    for text in path.read_text().splitlines():
        if text.lstrip().startswith(";"):
            for key in ("MaxProcs", "MaxNodes"):
                if text.replace(" ", "").startswith(f";{key}:"):
                    header_procs[key] = int(text.split(":")[1])
            continue
        if not text.strip():
            continue
        fields = [float(x) for x in text.split()]
        assert len(fields) == 18
        allocated, requested = int(fields[4]), int(fields[7])
        procs = allocated if requested == -1 else requested
        if fields[3] <= 0 or procs <= 0 or fields[1] < 0:
            continue
        kept_ids.append(int(fields[0]))
        kept_procs.append(procs)
    return kept_ids, kept_procs, header_procs.get("MaxProcs", header_procs.get("MaxNodes"))


def shipped(name: str) -> Path:
    return dataset_file({"ctc-sp2-1996-first969.swf": "ctc-sp2-first969", "lublin-256.swf": "lublin-256"}[name])


@pytest.mark.parametrize("name, machine, header_key, jobs", [
    ("ctc-sp2-1996-first969.swf", 430, "MaxProcs", 969),
    ("lublin-256.swf", 256, "MaxNodes", 10_000),
])
def test_shipped_trace(name, machine, header_key, jobs):
    path = shipped(name)
    kept_ids, kept_procs, max_procs = expected_by_hand(path)
    trace = read_swf(path)
    assert len(kept_ids) == jobs  # as the data README says
    np.testing.assert_array_equal(trace.job_id, kept_ids)
    np.testing.assert_array_equal(trace.procs, kept_procs)
    assert trace.max_procs == max_procs == machine
    assert trace.header[header_key] == str(machine)
    assert sum(trace.skipped.values()) == 0
    assert np.all(trace.run_time >= 1) and np.all(trace.requested_time >= trace.run_time)
    assert np.all(np.diff(trace.submit) >= 0)
    np.testing.assert_array_equal(trace.oversized,
                                  [i for i, p in zip(kept_ids, kept_procs) if p > machine])

    jobset = to_jobsets(trace, num_procs=machine, quantum=60, window=128, num_windows=4)
    assert jobset.arrival.shape == jobset.duration.shape == jobset.valid.shape == (4, 128)
    assert jobset.demand.shape == (4, 128, 1)
    arrival = np.asarray(jobset.arrival)
    assert np.all(arrival[:, 0] == 0) and np.all(np.diff(arrival, axis=1) >= 0)
    assert np.all(np.asarray(jobset.valid)) and np.all(np.asarray(jobset.duration) >= 1)
    np.testing.assert_array_equal(np.asarray(jobset.demand)[1, :, 0], kept_procs[128:256])


def test_ctc_jobs_wider_than_a_smaller_cluster():
    path = shipped("ctc-sp2-1996-first969.swf")
    kept_ids, kept_procs, _ = expected_by_hand(path)
    wide = [i for i, p in zip(kept_ids, kept_procs) if p > 256]
    assert wide, "the CTC trace has jobs wider than 256 processors"
    trace = read_swf(path)
    with pytest.raises(ValueError, match=f"ctc-sp2-1996-first969.swf: jobs {wide[0]}, {wide[1]}"):
        to_jobsets(trace, num_procs=256, quantum=60, window=64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dropped = to_jobsets(trace, num_procs=256, quantum=60, window=64, oversized="drop")
    assert dropped.arrival.shape == ((len(kept_ids) - len(wide)) // 64, 64)
    assert int(np.asarray(dropped.demand).max()) <= 256
