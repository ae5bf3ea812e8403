"""The training CLI: config validation, checkpoints, resume equivalence, NaN handling, evaluation."""

import csv
import json
import os
import signal
import time

import numpy as np
import pytest

from jaxsched import experiment as experiment_mod
from jaxsched import train as train_cli
from jaxsched.core.config import build_config
from jaxsched.core.runs import Checkpointer, CheckpointError
from jaxsched.experiment import TrainConfig, train
from jaxsched.train import main

TINY = dict(
    env="deeprm",
    env_options=dict(num_slots=3, horizon=8, max_job_len=6, capacity=5, max_job_size=5, backlog_size=8,
                     simu_len=8, load=0.8),
    algo_options=dict(num_jobsets=2, num_rollouts=3, episode_len=30),
    chunk=2, checkpoint_every=2, eval_jobsets=3, seeds=[0, 1], baselines=["sjf"],
)


def tiny(**overrides) -> TrainConfig:
    return build_config(TrainConfig, {**TINY, **overrides})


def read_metrics(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return [{k: v for k, v in r.items() if k not in experiment_mod.TIMING_COLUMNS} for r in rows]


@pytest.fixture(scope="module")
def full_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("full") / "run"
    train(tiny(iterations=4), out, log=lambda *_: None)
    return out


def test_outputs(full_run):
    assert json.loads((full_run / "config.json").read_text())["config"]["iterations"] == 4
    rows = read_metrics(full_run / "metrics.csv")
    assert [(int(r["iteration"]), int(r["seed"])) for r in rows] == [(i, s) for i in range(1, 5) for s in (0, 1)]
    assert {"mean_return", "max_return", "mean_slowdown", "mean_completion_time", "entropy"} <= set(rows[0])
    evaluation = json.loads((full_run / "eval.json").read_text())["policies"]
    assert {"sjf", "trained-s0", "trained-s1", "trained-s0-sampled"} <= set(evaluation)
    assert (full_run / "learning_curve_slowdown.png").exists()
    # the two seeds train different policies
    assert rows[-1]["mean_return"] != rows[-2]["mean_return"]


def test_resume_after_interruption_matches_uninterrupted(full_run, tmp_path):
    out = tmp_path / "run"
    train(tiny(iterations=2), out, log=lambda *_: None)  # "killed" after the checkpoint at 2 ...
    with open(out / "metrics.csv", "a", newline="") as f:  # ... having logged past it
        f.write("3,0" + ",0" * (len(read_metrics(out / "metrics.csv")[0]) + len(experiment_mod.TIMING_COLUMNS) - 2)
                + "\n")
    assert main(["--resume", str(out), "iterations=4"]) == 0
    assert read_metrics(out / "metrics.csv") == read_metrics(full_run / "metrics.csv")
    assert json.loads((out / "eval.json").read_text()) == json.loads((full_run / "eval.json").read_text())


def test_sigint_saves_at_the_next_boundary_and_resumes_to_the_uninterrupted_run(full_run, tmp_path, monkeypatch,
                                                                                capsys):
    """Ctrl-C mid-run: a checkpoint at the boundary reached (checkpoint_every alone would save none
    before the end), one line, status 130; the resume then gives full_run's numbers and policies.
    (The command-line process and SIGTERM: test_signals.py.)"""
    real = experiment_mod.Experiment.make_chunk

    def interrupted(self, length):
        chunk = real(self, length)

        def run_chunk(states):
            os.kill(os.getpid(), signal.SIGINT)  # arrives while the first chunk runs
            return chunk(states)
        return run_chunk

    monkeypatch.setattr(experiment_mod.Experiment, "make_chunk", interrupted)
    before = signal.getsignal(signal.SIGINT)  # SIG_IGN where the suite runs in the background, else Python's own
    config = tmp_path / "tiny.yaml"
    config.write_text(json.dumps({**TINY, "iterations": 4, "checkpoint_every": 4, "checkpoint_minutes": 0}))
    out = tmp_path / "run"
    assert main(["--config", str(config), "--out", str(out)]) == 130
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("train:")]  # not the bar's
    assert "Traceback" not in err and lines == [f"interrupted by SIGINT: saved the checkpoint of iteration 2 in {out}; "
                                                f"continue with python -m jaxsched.train --resume {out}"]
    assert Checkpointer(out).steps() == [2] and not (out / "eval.json").exists()
    assert signal.getsignal(signal.SIGINT) is before  # the handlers are given back
    monkeypatch.setattr(experiment_mod.Experiment, "make_chunk", real)
    assert main(["--resume", str(out)]) == 0
    assert read_metrics(out / "metrics.csv") == read_metrics(full_run / "metrics.csv")
    assert json.loads((out / "eval.json").read_text()) == json.loads((full_run / "eval.json").read_text())


def test_a_signal_before_training_starts_saves_nothing_and_says_so(tmp_path, monkeypatch, capsys):
    """Before the initial states (behaviour cloning can take minutes) there is nothing to save."""
    monkeypatch.setattr(experiment_mod, "sync_processes", lambda *_: os.kill(os.getpid(), signal.SIGTERM))
    config = tmp_path / "tiny.yaml"
    config.write_text(json.dumps(TINY))
    out = tmp_path / "run"
    assert main(["--config", str(config), "--out", str(out)]) == 143
    assert capsys.readouterr().err.strip() == ("interrupted by SIGTERM: before training started (nothing to save); "
                                               "the same command starts it")
    assert not (out / "config.json").exists() and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_seeds_take_a_range_or_a_list(tmp_path, monkeypatch, capsys):
    """``--seeds`` reads as in evaluate and sweep (one parser); what trains is the list."""
    trained = []
    monkeypatch.setattr(train_cli, "train", lambda config, out, **kwargs: trained.append(config.seeds))
    config = tmp_path / "tiny.yaml"
    config.write_text(json.dumps(TINY))
    for seeds in ("0:3", "0,1,2", "2:5"):
        assert main(["--config", str(config), "--out", str(tmp_path / "out"), "--seeds", seeds]) == 0
    assert trained == [[0, 1, 2], [0, 1, 2], [2, 3, 4]]
    assert main(["--config", str(config), "--seeds", "3:1"]) == 2
    assert capsys.readouterr().err.strip() == "error: --seeds '3:1': expected a non-empty set of distinct integers"


def test_an_empty_config_file_is_an_error(tmp_path, capsys):
    for text in ("", "# only a comment\n", "{}\n"):
        config = tmp_path / "empty.yaml"
        config.write_text(text)
        assert main(["--config", str(config), "--out", str(tmp_path / "out")]) == 2
        assert capsys.readouterr().err.strip() == f"error: {config} is empty: give at least one key (see configs/), " \
                                                  "or no config file"
    assert not (tmp_path / "out").exists()


def test_resume_refuses_a_different_config(full_run, tmp_path, capsys):
    config = tmp_path / "other.yaml"
    config.write_text(json.dumps({**TINY, "algo_options": {**TINY["algo_options"], "lr": 0.5}}))
    assert main(["--config", str(config), "--resume", str(full_run)]) == 2
    err = capsys.readouterr().err
    assert "different config" in err and "algo_options" in err and "'lr': 0.5" in err


def test_existing_run_directory_is_not_overwritten(full_run):
    with pytest.raises(CheckpointError, match="already holds a run"):
        train(tiny(iterations=4), full_run, log=lambda *_: None)


def test_nan_stops_and_keeps_last_good_checkpoint(tmp_path, monkeypatch, capsys):
    real = experiment_mod.Experiment.make_chunk
    calls = {"n": 0}

    def poisoned(self, length):
        chunk = real(self, length)

        def run_chunk(states):
            calls["n"] += 1
            new, metrics = chunk(states)
            if calls["n"] == 2:
                metrics = {**metrics, "loss": metrics["loss"] * float("nan")}
            return new, metrics
        return run_chunk

    monkeypatch.setattr(experiment_mod.Experiment, "make_chunk", poisoned)
    out = tmp_path / "run"
    config = tmp_path / "tiny.yaml"
    config.write_text(json.dumps({**TINY, "iterations": 6}))
    assert main(["--config", str(config), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "NaN at iteration 3" in err and "iteration 2" in err
    assert Checkpointer(out).latest_step() == 2
    assert max(int(r["iteration"]) for r in read_metrics(out / "metrics.csv")) == 2


@pytest.mark.parametrize("values, message", [
    ({"iterationz": 3}, "unknown config key(s) iterationz; valid keys:"),
    ({"iterations": "many"}, "iterations: expected an integer"),
    ({"algo_options": {"lr": "fast"}}, "lr: expected a number"),
    ({"algo_options": {"nope": 1}}, "unknown config key(s) nope"),
    ({"reinforce": {"lr": "fast"}}, "lr: expected a number"),  # older configs' per-algorithm mapping
    ({"reinforce": {"nope": 1}}, "unknown config key(s) nope"),
    ({"ppo": {"lr": 1e-3}}, "options for 'ppo' given, but algo is 'reinforce'"),
    ({"env_options": {"num_slotz": 3}}, "unknown option(s) num_slotz"),
    ({"chunk": 3, "checkpoint_every": 4}, "multiple of chunk"),
    ({"chunk": 2, "checkpoint_every": 4, "keep_every": 6}, "keep_every (6) must be 0 (off) or a multiple of"),
    ({"algo": "nope"}, "unknown algo"),
])
def test_config_errors_are_clear(values, message, tmp_path, capsys):
    config = tmp_path / "bad.yaml"
    config.write_text(json.dumps({**TINY, **values}))
    assert main(["--config", str(config), "--out", str(tmp_path / "out")]) == 2
    assert message in capsys.readouterr().err


def test_override_syntax_error(capsys, tmp_path):
    assert main(["--out", str(tmp_path / "o"), "iterations"]) == 2
    assert "is not key=value" in capsys.readouterr().err


def test_bad_yaml(tmp_path, capsys):
    config = tmp_path / "bad.yaml"
    config.write_text("a: [1,\n")
    assert main(["--config", str(config)]) == 2
    assert "not valid YAML" in capsys.readouterr().err


def test_evaluate_accepts_checkpoint(full_run, tmp_path, capsys):
    """Every seed by default, each named; ``--seed-index`` one, as ``checkpoint`` (what it was before)."""
    from jaxsched.evaluate import main as evaluate_main

    every, one = tmp_path / "every.json", tmp_path / "one.json"
    assert evaluate_main(["--checkpoint", str(full_run), "--policies", "sjf,checkpoint,checkpoint-sampled",
                          "--jobsets", "2", "--summary", str(every)]) == 0
    printed = capsys.readouterr().out
    stats = json.loads(every.read_text())
    assert set(stats) == {"sjf", "checkpoint-s0", "checkpoint-s0-sampled", "checkpoint-s1", "checkpoint-s1-sampled"}
    assert stats["checkpoint-s1"]["jobs"] == stats["sjf"]["jobs"]
    assert "seed 0 as checkpoint-s0, checkpoint-s0-sampled, seed 1 as checkpoint-s1, checkpoint-s1-sampled" in printed
    assert evaluate_main(["--checkpoint", str(full_run), "--seed-index", "1", "--policies", "checkpoint",
                          "--jobsets", "2", "--summary", str(one)]) == 0
    assert "seed 1 as checkpoint, checkpoint-sampled (--seed-index 1 of seeds 0, 1)" in capsys.readouterr().out
    assert json.loads(one.read_text()) == {"checkpoint": stats["checkpoint-s1"]}  # the same policy, the same numbers
    assert evaluate_main(["--checkpoint", str(full_run), "--seed-index", "2"]) == 2
    assert "error: --seed-index 2: the run has 2 seed(s) (0, 1); expected 0 .. 1" in capsys.readouterr().err


def test_evaluate_checkpoint_over_loads(full_run, tmp_path):
    """The checkpoint's own load is replaced by each swept load (DeepRM Fig. 4 with a trained policy)."""
    from jaxsched.evaluate import main as evaluate_main

    summary = tmp_path / "s.json"
    assert evaluate_main(["--checkpoint", str(full_run), "--policies", "sjf,checkpoint-sampled", "--loads", "0.4,1.2",
                          "--jobsets", "2", "--summary", str(summary), "--results-dir", str(tmp_path)]) == 0
    stats = json.loads(summary.read_text())
    assert set(stats) == {"0.4", "1.2"}
    assert stats["0.4"]["sjf"]["jobs"] < stats["1.2"]["sjf"]["jobs"]  # more load, more jobs
    assert (tmp_path / "deeprm_slowdown_vs_load.png").exists()


def test_behaviour_cloning_is_recorded_per_seed_with_its_wall_clock(monkeypatch):
    """The record (for time-to-SJF curves) comes from each seed's cloning result; cloning itself is
    tested in test_behaviour_cloning.py, so a stand-in returning fresh params keeps this cheap."""
    from types import SimpleNamespace

    experiment = experiment_mod.Experiment.from_config(tiny(bc=dict(num_jobsets=4)))
    calls = []

    def fake_cloning(variant, bc, key):
        calls.append(bc.num_jobsets)
        time.sleep(0.02)  # the record keeps 10 ms: an instant stand-in would read 0.0 s
        return SimpleNamespace(params=experiment.init_fn(key).params, best_val_acc=0.75 + 0.1 * len(calls),
                               best_val_acc_ties=0.8 + 0.1 * len(calls), val_tie_fraction=0.25,
                               best_epoch=len(calls), num_train=30, num_val=8)

    monkeypatch.setattr(experiment_mod, "train_behaviour_cloning", fake_cloning)
    states, cloning = experiment.initial_states(log=lambda *_: None)
    assert calls == [4, 4]
    assert [(c["seed"], c["best_epoch"], c["train_decisions"]) for c in cloning] == [(0, 1, 30), (1, 2, 30)]
    assert [round(c["best_val_acc"], 2) for c in cloning] == [0.85, 0.95]
    assert [round(c["best_val_acc_ties"], 2) for c in cloning] == [0.9, 1.0]
    assert all(c["val_tie_fraction"] == 0.25 for c in cloning)
    assert all(c["wall_s"] > 0 for c in cloning)
    assert int(states.iteration[0]) == 0


def test_chunk_of_one_iteration_matches_a_scanned_chunk(full_run, tmp_path):
    """chunk 1 (no scan: what CNN configs use) gives the iterations that scanned chunks of 2 give."""
    train(tiny(iterations=2, chunk=1, eval_jobsets=0), tmp_path / "run", log=lambda *_: None)
    one = read_metrics(tmp_path / "run" / "metrics.csv")
    scanned = [r for r in read_metrics(full_run / "metrics.csv") if int(r["iteration"]) <= 2]
    assert [(r["iteration"], r["seed"]) for r in one] == [(r["iteration"], r["seed"]) for r in scanned]
    for a, b in zip(one, scanned):
        np.testing.assert_allclose([float(a[k]) for k in a], [float(b[k]) for k in a], rtol=1e-5)
