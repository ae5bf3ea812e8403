"""The site command end to end at a tiny size: python -m jaxsched.studies.trace_policy trains PPO on
the CTC excerpt's training windows and evaluates it and the HPC rules on the later held-out windows."""

import csv
import json

import pytest
import yaml

from jaxsched import registry
from jaxsched.core.runs import read_run_config
from jaxsched.studies.swf_eval import ranking
from jaxsched.studies.trace_policy import DEFAULT_CONFIG, main

TINY = {"iterations": 2, "chunk": 2, "checkpoint_every": 2,
        "algo_options": {"num_envs": 4, "num_steps": 16, "minibatch_size": 32, "update_epochs": 1}}


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """One tiny run (2 PPO iterations, windows of 32 jobs, three heuristics), shared by the tests."""
    root = tmp_path_factory.mktemp("trace_policy")
    config = yaml.safe_load(DEFAULT_CONFIG.read_text())
    config.update(TINY)
    config["algo_options"] = {**config["algo_options"], **TINY["algo_options"]}
    (root / "tiny.yaml").write_text(yaml.safe_dump(config))
    out = root / "out"
    code = main(["--trace", "dataset:ctc-sp2-first969", "--out", str(out), "--config", str(root / "tiny.yaml"),
                 "--window", "32", "--policies", "fcfs,easy,f1", "--episodes", "1"])
    return code, out


def test_the_command_writes_the_report_files(study):
    code, out = study
    assert code == 0
    for name in ("report.md", "eval.json", "learning_curve.png", "held_out_jobs.csv", "run/config.json",
                 "run/metrics.csv"):
        assert (out / name).stat().st_size > 0, name
    report = (out / "report.md").read_text()
    for row in ("| fcfs |", "| easy |", "| f1 |", "| ppo-s0 |", "| ppo-s0-sampled |", "Disjoint: true"):
        assert row in report
    assert "swf-compact" not in registry.registered()  # registered only while the command ran


def test_training_and_held_out_jobs_are_disjoint_and_recorded(study):
    _, out = study
    result = json.loads((out / "eval.json").read_text())
    facts, instances = result["trace_facts"], result["instances"]
    assert instances["disjoint"] is True and facts["disjoint"] is True
    assert facts["training"]["job_index"][1] <= min(instances["evaluation"]["window_starts"])
    assert facts["training"]["submit_s"][1] < facts["split"]["split_submit_s"] <= facts["held_out"]["submit_s"][0]
    run_config = read_run_config(out / "run")
    assert run_config["env"] == "swf-compact"
    assert run_config["env_options"]["train_fraction"] == facts["split"]["train_fraction"] == 0.7
    last_training_id = facts["training"]["job_ids"][1]
    with open(out / "held_out_jobs.csv", newline="") as file:
        rows = list(csv.DictReader(file))
    assert rows and all(int(r["job_id"]) > last_training_id for r in rows)
    jobs = facts["held_out"]["windows"] * 32
    for name, stats in result["policies"].items():
        mine = [r for r in rows if r["policy"] == name]
        assert len(mine) == stats["jobs"] == jobs, name
        assert sum(r["status"] == "finished" for r in mine) == stats["finished"]
        assert stats["mean_bounded_slowdown"] >= 1.0 and stats["mean_wait_s"] >= 0.0


def test_an_unfinished_row_is_never_ranked():
    text = ranking({"done": {"mean_bounded_slowdown": 2.0, "finished": 4, "jobs": 4},
                    "cut": {"mean_bounded_slowdown": 1.0, "finished": 3, "jobs": 4}}, "mean_bounded_slowdown")
    assert "done 2.000." in text and "Not ranked" in text and "cut 1.000 over 3 of 4 jobs" in text


def test_a_missing_trace_is_one_line_error(tmp_path, capsys):
    assert main(["--trace", str(tmp_path / "nope.swf"), "--out", str(tmp_path / "o")]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("error:") and "\n" not in error
