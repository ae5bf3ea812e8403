"""Schedulers on windows of a real trace (``jaxsched.studies.swf_eval``): jobs wider than the modelled
cluster are listed and removed, never clamped; every remaining job runs to completion."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from conftest import dataset_file
from jaxsched.studies.swf_eval import main, trace_jobsets



def ctc() -> Path:
    return dataset_file("ctc-sp2-first969")


def test_jobs_wider_than_the_cluster_are_reported_not_clamped():
    jobsets, run_s, info = trace_jobsets(ctc(), window=16, quantum=600, num_windows=2, num_procs=128)
    assert info["oversized"]["count"] > 0 and len(info["oversized"]["job_ids"]) == info["oversized"]["count"]
    assert np.asarray(jobsets.demand).max() <= 128  # removed, so nothing needs clamping
    assert run_s.shape == (2, 16) and info["windows"] == 2


def test_swf_eval_runs_easy_on_two_windows(tmp_path):
    out = tmp_path / "ctc.json"
    assert main(["--trace", str(ctc()), "--window", "16", "--num-windows", "2", "--quantum", "600",
                 "--policies", "easy", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["num_procs"] == 430 and result["oversized"]["count"] == 0
    easy = result["policies"]["easy"]
    assert easy["finished"] == easy["jobs"] == 32
    assert easy["mean_bounded_slowdown"] <= easy["mean_slowdown"]
    assert easy["mean_bounded_slowdown_seconds"] >= 1.0
    assert "| easy |" in out.with_suffix(".md").read_text()


def test_missing_trace_is_a_usage_error(tmp_path, capsys):
    assert main(["--trace", str(tmp_path / "none.swf")]) == 2
    assert "trace not found" in capsys.readouterr().err
