"""Schedulers on windows of a real trace (``jaxsched.studies.swf_eval``): jobs wider than the modelled
cluster are listed and removed, never clamped; every remaining job runs to completion."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from conftest import dataset_file
from unfinished_policies import short_jobs_only
from jaxsched.core.config import build_config, to_dict
from jaxsched.core.runs import Checkpointer, write_run_config
from jaxsched.core.unfinished import LEGEND
from jaxsched.experiment import Experiment, TrainConfig
from jaxsched.studies import swf_eval
from jaxsched.studies.swf_eval import evaluate_trace, main, markdown, trace_jobsets


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


def swf_args(**changes):
    args = dict(trace=ctc(), window=16, quantum=600.0, num_windows=2, num_procs=None, policies="sjf", seed=0,
                mode="both", episodes=3)
    return argparse.Namespace(**(args | changes))


def test_sampled_mode_counts_and_penalises_unfinished_jobs():
    result = evaluate_trace(swf_args(), {"short": (short_jobs_only, short_jobs_only)})
    rows = result["policies"]
    assert list(rows) == ["sjf", "short", "short-sampled"]
    greedy, sampled, sjf = rows["short"], rows["short-sampled"], rows["sjf"]
    assert sampled["episodes_per_window"] == 3 and sampled["jobs"] == 3 * greedy["jobs"] == 3 * 32
    assert 0 < greedy["finished"] < greedy["jobs"] and greedy["leaves_unfinished"]
    # the penalty only adds: each unfinished job counts at least as if it started at the episode's end
    assert greedy["mean_slowdown_penalised"] > greedy["mean_slowdown"]
    assert greedy["mean_bounded_slowdown_penalised"] > greedy["mean_bounded_slowdown"]
    assert sjf["finished"] == sjf["jobs"] and not sjf["leaves_unfinished"]
    assert sjf["mean_slowdown_penalised"] == sjf["mean_slowdown"]  # nothing to penalise
    assert "lower bound" in result["unfinished_penalty"] and result["mode"] == "both"
    table = markdown(result)
    assert "| short * | 1 |" in table and "| sjf | 1 |" in table and LEGEND in table
    assert f"{greedy['finished']} / {greedy['jobs']}" in table


def test_greedy_mode_leaves_out_the_sampled_rows():
    rows = evaluate_trace(swf_args(mode="greedy", policies="fcfs"), {"short": (short_jobs_only, None)})["policies"]
    assert list(rows) == ["fcfs", "short"]


def test_episodes_below_one_is_a_usage_error(capsys):
    assert main(["--trace", str(ctc()), "--episodes", "0"]) == 2
    assert "--episodes must be >= 1" in capsys.readouterr().err


def _compact_run(folder: Path, stepping: str) -> Path:
    """A compact PPO run folder on bracis-7 as training writes it (config.json, a checkpoint), with zero
    parameters: what the loader checks is the run's config, not its weights (no training, no compilation)."""
    config = build_config(TrainConfig, dict(
        env="bracis-7", env_options=dict(observation="bracis", stepping=stepping, reward_jobs="visible"), algo="ppo",
        algo_options=dict(num_envs=2, num_steps=4, minibatch_size=4, update_epochs=1), iterations=1, chunk=1,
        seeds=[0], eval_jobsets=0, checkpoint_every=1, baselines=["sjf"]))
    run = folder / f"bracis-7_{stepping}"
    write_run_config(run, to_dict(config))
    with Checkpointer(run) as checkpointer:
        checkpointer.save(1, Experiment.from_config(config).state_template())
    return run


def test_an_event_trained_agent_is_flagged_on_time_based_trace_steps(tmp_path, capsys):
    """The trace runs time-based steps; an agent trained with event-based ones never saw a state where
    nothing fits, so loading it says so on stderr, not a silently bad row; a time-based one loads quietly."""
    event, timed = _compact_run(tmp_path, "event"), _compact_run(tmp_path, "time")
    assert list(swf_eval.load_agents([event])) == ["ppo:bracis-7_event"]
    err = capsys.readouterr().err
    assert "warning:" in err and "event-based steps" in err and str(event) in err
    assert list(swf_eval.load_agents([timed])) == ["ppo:bracis-7_time"]
    assert "warning:" not in capsys.readouterr().err
