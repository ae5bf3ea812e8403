"""Held-out means held out: every evaluation records the training and the evaluation instances
(``instances`` in eval.json and in evaluate's summary), an evaluation on training instances is refused
(exit code 2, nothing written) unless asked for, and then its trained rows are marked
(jaxsched.core.instances)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jaxsched.core import instances
from jaxsched.evaluate import main as evaluate_main
from jaxsched.experiment import Experiment, load_train_config
from jaxsched.train import main as train_main

# configs/vm_cvd_synthetic.yaml at the size of tests/test_vm_learners.py's end-to-end run (same programs)
TINY_VM = ["--config", "configs/vm_cvd_synthetic.yaml", "iterations=4", "chunk=2", "checkpoint_every=2",
           "eval_jobsets=3", "algo_options.learning_starts=32", "algo_options.batch_size=32",
           "algo_options.rollout_steps=8", "env_options.window=300", "baselines=[first_fit]",
           "env_options.held_out_from=null"]  # the config's split removed: both sides draw from [0, 5000)


def _experiment(config: str, *overrides: str) -> Experiment:
    return Experiment.from_config(load_train_config(Path(config), list(overrides)))


def test_vm_ranges_and_disjointness_follow_held_out_from():
    """vm-synthetic's starts [0, 5000) with window 300: without a split both sides read the same rows;
    with held_out_from 4000 training starts end at 3701 (windows end before row 4000)."""
    shared = _experiment("configs/vm_cvd_synthetic.yaml", "env_options.window=300",
                         "env_options.held_out_from=null").instances()
    assert shared["training"]["start_range"] == shared["evaluation"]["start_range"] == [0, 5000]
    assert not shared["disjoint"] and shared["allowed_overlap"] is False
    split = _experiment("configs/vm_cvd_synthetic.yaml", "env_options.window=300",
                        "env_options.held_out_from=4000").instances()
    assert split["disjoint"] and "allowed_overlap" not in split
    assert split["training"]["start_range"] == [0, 3701] and split["training"]["rows"] == [0, 4000]
    assert split["evaluation"]["start_range"] == [4000, 5000]
    assert split["training"]["trace"] == split["evaluation"]["trace"] == "synthetic seed 0"


def test_held_out_after_puts_the_held_out_starts_after_every_training_window():
    after = _experiment("configs/vm_cvd_synthetic.yaml", "env_options.window=300", "env_options.start_high=3000",
                        "env_options.held_out_from=null", "env_options.held_out_after=1000").instances()
    assert after["disjoint"]
    assert after["training"]["start_range"] == [0, 3000] and after["training"]["rows"] == [0, 3299]
    assert after["evaluation"]["start_range"] == [3299, 4299]


def test_generator_families_overlap_on_the_same_key():
    """DeepRM: the held-out jobsets are disjoint from a fixed training pool unless eval_seed is its key;
    resampling training draws from the seeds' key streams, never the eval key."""
    fixed = ["algo_options.resample_jobsets=false", "algo_options.num_jobsets=2", "eval_jobsets=2"]
    assert _experiment("configs/deeprm_slowdown.yaml", *fixed).instances()["disjoint"]
    same = _experiment("configs/deeprm_slowdown.yaml", *fixed, "eval_seed=12345").instances()
    assert not same["disjoint"] and same["training"]["keys"] == same["evaluation"]["keys"] == [12345]
    resampled = _experiment("configs/deeprm_slowdown.yaml", "algo_options.resample_jobsets=true", "eval_seed=0").instances()
    assert resampled["disjoint"] and resampled["training"]["fresh_per_iteration"]


@pytest.mark.parametrize("config", ["grid_sarsa_esn", "grid_sarsa_mlp", "grid_elastic_esn"])
def test_grid_configs_hold_their_evaluation_windows_out(config):
    record = _experiment(f"configs/{config}.yaml", "env_options.num_jobs=300", "env_options.exclude=20").instances()
    assert record["disjoint"], record


def test_overlap_is_refused_without_the_flag_and_marked_with_it(tmp_path, capsys):
    refused = tmp_path / "refused"
    assert train_main(TINY_VM + ["--out", str(refused)]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and "overlap the training instances" in error
    assert "start rows [0, 5000)" in error and "allow_training_instances" in error
    assert not refused.exists()  # nothing written

    run = tmp_path / "run"
    assert train_main(TINY_VM + ["--out", str(run), "--allow-training-instances"]) == 0
    out = capsys.readouterr().out
    written = json.loads((run / "eval.json").read_text())
    record = written["instances"]
    assert record["disjoint"] is False and record["allowed_overlap"] is True
    assert record["training"]["start_range"] == record["evaluation"]["start_range"] == [0, 5000]
    assert written["held_out_disjoint_from_training"] is False  # the older VM fields stay
    assert written["instances_legend"] == instances.LEGEND and instances.LEGEND in out
    policies = written["policies"]
    assert policies["trained-s0"][instances.FLAG] and policies["trained-s0-sampled"][instances.FLAG]
    assert instances.FLAG not in policies["first_fit"]

    summary = tmp_path / "s.json"
    assert evaluate_main(["--checkpoint", str(run), "--jobsets", "2", "--policies", "first_fit",
                          "--summary", str(summary)]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and "--allow-training-instances" in error and not summary.exists()
    assert evaluate_main(["--checkpoint", str(run), "--jobsets", "2", "--policies", "first_fit",
                          "--summary", str(summary), "--allow-training-instances"]) == 0
    out = capsys.readouterr().out
    stats = json.loads(summary.read_text())
    assert stats["checkpoint"][instances.FLAG] and not stats["first_fit"].get(instances.FLAG)
    assert stats["first_fit"]["instances"]["disjoint"] is False
    assert f"checkpoint {instances.MARK}" in out and instances.LEGEND in out


def test_heuristic_evaluation_records_no_training():
    """Without a checkpoint nothing was trained: the record says so, and nothing is refused."""
    record = instances.record(None, {"kind": "generator", "keys": [0], "count": 2})
    assert record["disjoint"] and record["training"] is None
