"""grid_tables' pieces that need no trained run: the over-seeds table, the speed-up table (paper
Table 5), the pooled interactive values of the distribution plots, and the held-out windows' key."""

import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from jaxsched.core import instances as instance_ranges
from jaxsched.core.stats import summarize_over_seeds
from jaxsched.envs.grid.types import BATCH, INTERACTIVE
from jaxsched.errors import UsageError
from jaxsched.studies.grid_tables import (delay_markdown, delay_tail, interactive_values, markdown, parse_runs,
                                         pool_at_bounds, rigid_rows_from, speedup_markdown)


def _row(w: float, wait: float, seeds: int = 5) -> dict:
    values = [w + 0.01 * k for k in range(seeds)]
    row = {"interactive_W_mean": w, "interactive_wait_mean": wait, "finished": 10, "jobs": 10, "seeds": seeds,
           "iterations": 150, "queue_peak": 40, "hidden_decisions": 0}
    row["over_seeds"] = {"interactive_W_mean": summarize_over_seeds(values),
                         "interactive_wait_mean": summarize_over_seeds([wait + k for k in range(seeds)], False)}
    row["interactive_W_over_seeds"] = row["over_seeds"]["interactive_W_mean"]
    return row


def test_markdown_reports_the_iqm_with_a_ci_from_five_seeds_and_the_overflow():
    text = markdown("t", {"fifo": {"interactive_W_mean": 0.6, "finished": 10, "jobs": 10, "hidden_decisions": 0},
                          "rig-ora": _row(0.8, 900.0)})
    assert "5 seeds; IQM W int 0.820, 95% CI [" in text
    assert "Trained policies over seeds" in text
    assert "| rig-ora | 5 | 150 | 0.820 95% CI [" in text
    assert "| overflow |" in text.splitlines()[2]
    assert "range [" in markdown("t", {"x": _row(0.8, 900.0, seeds=3)})


def test_markdown_marks_a_run_evaluated_on_its_training_windows():
    row = _row(0.8, 900.0) | {instance_ranges.FLAG: True}
    text = markdown("t", {"rig-ora": row})
    assert f"rig-ora {instance_ranges.MARK}" in text


def test_speedup_is_one_minus_the_wait_ratio():
    text, out = speedup_markdown({"ela": "rig"}, {"ela": {"interactive_wait_mean": 250.0}},
                                 {"rig": {"interactive_wait_mean": 1000.0}})
    assert out["ela"]["speedup"] == pytest.approx(0.75)
    assert "| ela | rig | 250 | 1000 | 75% |" in text
    with pytest.raises(UsageError):
        speedup_markdown({"ela": "nope"}, {"ela": {"interactive_wait_mean": 1.0}}, {})


def test_interactive_values_pools_kept_finished_interactive_jobs_of_every_seed():
    table = {"W": np.array([0.5, 0.9, 1.0, 0.2]), "kept": np.array([True, True, False, True]),
             "finished": np.array([True, True, True, False]),
             "class": np.array([INTERACTIVE, BATCH, INTERACTIVE, INTERACTIVE])}
    assert interactive_values([table, table], "W").tolist() == [0.5, 0.5]


@pytest.mark.parametrize("name", ["grid_sarsa_esn", "grid_sarsa_mlp", "grid_elastic_esn"])
def test_grid_configs_train_apart_from_the_study_windows_on_the_whole_queue(name):
    config = yaml.safe_load((Path(__file__).parent.parent / "configs" / f"{name}.yaml").read_text())
    assert config["jobsets_seed"] != 12345 and config["eval_seed"] == 12345
    assert config["env_options"].get("candidates", "queue") == "queue"
    assert len(config["seeds"]) >= 5 or name == "grid_sarsa_mlp"


def test_study_windows_are_disjoint_from_the_configs_training_windows():
    """The study's windows come from PRNGKey(--seed 12345); the grid configs train on jobsets_seed 0."""
    training = {"kind": "generator", "keys": [0], "fresh_per_iteration": False, "count": 64, "seed_streams": [0]}
    held_out = {"kind": "generator", "keys": [12345], "count": 8}
    assert instance_ranges.record(training, held_out)["disjoint"]
    assert not instance_ranges.record(training | {"keys": [12345]}, held_out)["disjoint"]


def test_a_run_may_name_a_checkpoint_step(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    assert parse_runs([f"a={tmp_path}@50", f"b={tmp_path}"]) == {"a": (tmp_path, 50), "b": (tmp_path, None)}
    with pytest.raises(UsageError):
        parse_runs([f"a={tmp_path}@x"])


def test_delay_tail_and_table_3():
    table = {"wait": np.array([0.0, 10.0, 5000.0, 9e9]), "kept": np.array([True, True, True, False]),
             "finished": np.ones(4, bool), "class": np.full(4, INTERACTIVE)}
    tail = delay_tail(table)
    assert tail["interactive_wait_over_3600s"] == pytest.approx(1 / 3)
    assert tail["interactive_wait_p99"] == pytest.approx(np.percentile([0.0, 10.0, 5000.0], 99))
    row = {"interactive_wait_mean": 1670.0, "interactive_wait_std": 2353.0, "interactive_wait_median": 10.0,
           "interactive_wait_under_120s": 2 / 3} | tail
    text = delay_markdown("t", {"rl": row}, {"native (paper)": (2756, 8844)})
    assert "| rl | 1670 | 2353 | 10 | 4900 | 0.333 | 0.667 |" in text
    assert "| native (paper) | 2756 | 8844 |" in text


def test_rigid_rows_come_from_an_earlier_study_only_on_the_same_windows(tmp_path):
    """``--rigid-rows``: the trained rows of an earlier grid_tables.json join the table (marked), once its
    windows (episodes, seed, options) and its heuristic rows are this study's; otherwise an error."""
    fifo = {"interactive_W_mean": 0.6, "batch_W_mean": 0.8, "finished": 10}
    study = {"episodes": 8, "seed": 12345, "options": {}, "swf": None}
    earlier = tmp_path / "grid_tables.json"
    earlier.write_text(json.dumps(study | {"rigid": {"fifo": fifo, "rig-ora": _row(0.8, 900.0)}}))
    rows = rigid_rows_from(earlier, study, {"fifo": fifo})
    assert list(rows) == ["rig-ora"] and rows["rig-ora"]["rows_from"] == str(earlier)
    assert rows["rig-ora"]["interactive_wait_mean"] == 900.0
    with pytest.raises(UsageError, match="seed"):
        rigid_rows_from(earlier, study | {"seed": 1}, {"fifo": fifo})
    with pytest.raises(UsageError, match="'fifo' row differs"):
        rigid_rows_from(earlier, study, {"fifo": fifo | {"interactive_W_mean": 0.61}})
    with pytest.raises(UsageError, match="cannot read"):
        rigid_rows_from(tmp_path / "missing.json", study, {"fifo": fifo})


def test_pool_at_bounds_counts_kept_dispatches_at_the_smallest_or_largest_pool_and_only_elastic_tables_show_it():
    table = {"pool": np.array([30, 120, 60, 30, 90, 120]), "start": np.array([0, 5, 9, -1, 3, 7]),
             "kept": np.array([True, True, True, True, True, False])}
    assert pool_at_bounds(table, (30, 60, 90, 120)) == pytest.approx(2 / 4)  # not started / not kept: not counted
    rigid = markdown("t", {"fifo": {"interactive_W_mean": 0.6, "finished": 1, "jobs": 1}})
    elastic = markdown("t", {"fixed_30": {"interactive_W_mean": 0.6, "pool_at_bounds": 1.0, "finished": 1, "jobs": 1}})
    assert "at min / max pool" not in rigid and "at min / max pool" in elastic
