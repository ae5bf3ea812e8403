"""The MDP-study tables from hand-made results (no training, no compilation)."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from jaxsched.core.unfinished import LEGEND
from jaxsched.studies.mdp_study import fig4_markdown, read_metrics


def test_fig4_markdown_marks_unfinished_jobs_and_seed_spread():
    seed = lambda sd, unfinished: {"mean_slowdown": sd, "unfinished": unfinished, "dropped": 0,
                                   "finished": 10 - unfinished, "jobs": 10}
    results = {"jobsets": 2, "seed": 7, "scenarios": {"bracis-1": {
        "sjf": {"mean_slowdown": 2.0, "unfinished": 0, "dropped": 0, "finished": 10, "jobs": 10},
        "ppo-compact": {"seed_mean_slowdown": 2.5, "seed_std_slowdown": 0.5, "seeds": [seed(2.0, 0), seed(3.0, 4)]}}},
        "transfer": {"jobsets": 2, "trained_on": {"bracis-1": {"bracis-1": {
            "seed_mean_slowdown": 2.0, "seed_std_slowdown": 0.0, "seeds": [seed(2.0, 0)]}}}}}
    text = fig4_markdown(results)
    assert "| sjf | 2.000 (10/10) |" in text
    assert "| ppo-compact | 2.500 ± 0.500 (16/20)* |" in text
    assert "| bracis-1 | 2.000 ± 0.000 (10/10) |" in text
    assert LEGEND in text


def test_read_metrics_counts_agent_steps_per_seed_and_excludes_the_compiling_chunk(tmp_path):
    rows = [{"iteration": i, "seed": s, "decisions": 100.0, "mean_slowdown": 2.0 + s, "wall_s": w}
            for i, w in ((1, 5.0), (2, 5.0), (3, 1.0), (4, 1.0)) for s in (0, 1)]
    with open(tmp_path / "metrics.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    m = read_metrics(tmp_path)
    np.testing.assert_array_equal(m["steps"], [100, 200, 300, 400])
    assert m["agent_steps_per_seed"] == 400 and m["train_wall_s"] == 12.0
    assert m["s_per_million_steps_all_seeds"] == pytest.approx(12.0 / 800 * 1e6)
    assert m["s_per_million_steps_after_compile"] == pytest.approx(2.0 / 400 * 1e6)
    np.testing.assert_array_equal(m["slowdown"][:, 0], [2.0, 3.0])
