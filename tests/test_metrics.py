"""Per-job metrics on a hand-made final state: slowdown and bounded slowdown by hand."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from jaxsched.envs.deeprm.types import from_arrays
from jaxsched.envs.deeprm.metrics import bounded_slowdown, job_table, summarize


def final_state():
    # Job 0: waits 5 for 1 step; job 1: runs 20 at once; job 2: waits 8 for 4; job 3 never starts.
    jobs = from_arrays([0, 0, 2, 3], [1, 20, 4, 2], [[1], [1], [1], [1]], max_jobs=5)
    return SimpleNamespace(state=SimpleNamespace(jobset=jobs, start=np.array([5, 0, 10, -1, -1]),
                                                 dropped=np.zeros(5, bool), clock=np.int32(30)))


def test_bounded_slowdown_by_hand():
    # max(1, (wait + run) / max(run, tau)) with tau = 10.
    np.testing.assert_allclose(bounded_slowdown([5, 0, 8], [1, 20, 4], 10.0), [1.0, 1.0, 1.2])
    np.testing.assert_allclose(bounded_slowdown([0.5], [0.2], 10.0), [1.0])  # never below 1


def test_job_table_reports_bounded_slowdown_beside_slowdown():
    table = job_table(final_state(), bsld_tau=10.0)
    np.testing.assert_allclose(table["slowdown"][:3], [6.0, 1.0, 3.0])
    np.testing.assert_allclose(table["bounded_slowdown"][:3], [1.0, 1.0, 1.2])
    assert np.isnan(table["bounded_slowdown"][3]) and table["status"][3] == "unfinished"
    stats = summarize(table)
    assert stats["mean_slowdown"] == pytest.approx(10.0 / 3)
    assert stats["mean_bounded_slowdown"] == pytest.approx(3.2 / 3)
    assert (stats["finished"], stats["unfinished"]) == (3, 1)
    # tau = 1 step (the default for generated jobs, all >= 1 step long): bounded = plain slowdown.
    np.testing.assert_allclose(job_table(final_state())["bounded_slowdown"][:3], [6.0, 1.0, 3.0])
