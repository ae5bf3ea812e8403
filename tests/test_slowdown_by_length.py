"""DeepRM2 Fig. 6's tool: slowdown box statistics per job length, read from evaluate's per-job CSV."""

import json

import numpy as np
import pytest

from jaxsched.evaluate import _write_per_job
from jaxsched.studies import slowdown_by_length as study


def _table(durations, slowdowns, statuses, jobset=0):
    n = len(durations)
    return {"jobset": np.full(n, jobset), "job": np.arange(n), "arrival": np.arange(n), "duration": np.array(durations),
            "start": np.arange(n), "finish": np.arange(n) + np.array(durations),
            "slowdown": np.array(slowdowns, float), "bounded_slowdown": np.array(slowdowns, float),
            "status": np.array(statuses)}


@pytest.fixture
def per_job_csv(tmp_path):
    path = tmp_path / "eval.csv"
    fast = _table([1, 1, 1, 1, 2, 2], [1.0, 2.0, 3.0, 10.0, 1.0, 1.5], ["finished"] * 6)
    slow = _table([1, 1, 1, 1, 2, 2], [5.0, 6.0, 7.0, 8.0, np.nan, 2.0], ["finished"] * 4 + ["unfinished", "finished"])
    _write_per_job(path, [(None, "fast", fast), (None, "slow", slow)])
    return path


def test_box_statistics_per_length_and_counts(per_job_csv):
    series, _ = study.compare_series([f"F={per_job_csv}:fast", f"S={per_job_csv}:slow"])
    fast, slow = series["F"], series["S"]
    assert (fast["finished"], fast["jobs"], slow["finished"], slow["jobs"], slow["unfinished"]) == (6, 6, 5, 6, 1)
    ones = fast["by_length"][1]
    assert ones["count"] == 4 and ones["median"] == pytest.approx(2.5) and ones["mean"] == pytest.approx(4.0)
    assert (ones["q1"], ones["q3"]) == (pytest.approx(1.75), pytest.approx(4.75))
    assert ones["whisker_high"] == 3.0 and ones["max"] == 10.0  # 10 lies beyond q3 + 1.5 IQR = 9.25
    assert slow["by_length"][2]["count"] == 1  # the unfinished length-2 job has no slowdown
    assert slow["mean_slowdown"] == pytest.approx(28.0 / 5)


def test_series_must_cover_the_same_jobs(per_job_csv, tmp_path):
    other = tmp_path / "other.csv"
    _write_per_job(other, [(None, "fast", _table([1, 3], [1.0, 1.0], ["finished"] * 2, jobset=4))])
    with pytest.raises(study.UsageError, match="covers other jobs"):
        study.compare_series([f"A={per_job_csv}:fast", f"B={other}:fast"])


@pytest.mark.parametrize("spec, message", [("nolabel.csv:fast", "LABEL=CSV:POLICY"), ("A={csv}", "LABEL=CSV:POLICY"),
                                           ("A={csv}:sjf", "no rows of policy 'sjf'"),
                                           ("A=missing.csv:fast", "no such per-job CSV")])
def test_bad_series_are_refused(per_job_csv, spec, message):
    with pytest.raises(study.UsageError, match=message):
        study.compare_series([spec.format(csv=per_job_csv)])


def test_cli_writes_json_and_plot_and_marks_unfinished(per_job_csv, tmp_path, capsys):
    out = tmp_path / "fig6"
    assert study.main(["--series", f"F={per_job_csv}:fast", "--series", f"S={per_job_csv}:slow", "--out", str(out)]) == 0
    written = json.loads((out / "slowdown_by_length.json").read_text())
    assert written["series"]["S"]["by_length"]["1"]["median"] == pytest.approx(6.5)
    assert (out / "slowdown_by_length.png").stat().st_size > 0
    printed = capsys.readouterr().out
    assert "S *" in printed and "leaves jobs unfinished" in printed
