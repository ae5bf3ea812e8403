"""Checkpoints: damage is detected (checksum manifest, orbax's own errors, the values read), named,
and skipped for the newest intact checkpoint; ``--from-step`` picks one; a different network is
still told apart from damage; wall-clock checkpoints resume to the uninterrupted run's numbers.

One tiny run (one compile) is shared; the copies damaged here are restored without training, so only
the resume-equivalence test compiles again.
"""

import csv
import gc
import shutil
import sys
import time
from pathlib import Path

import jax
import numpy as np
import orbax.checkpoint as ocp
import pytest

from jaxsched import experiment as experiment_mod
from jaxsched.core.checkpoint_manifest import MANIFEST_NAME, verify_manifest
from jaxsched.core.config import build_config, to_dict
from jaxsched.core.runs import Checkpointer, shown_path, write_run_config
from jaxsched.errors import CheckpointError, DamagedCheckpointError
from jaxsched.evaluate import main as evaluate_main
from jaxsched.experiment import Experiment, TrainConfig, load_run, train, train_config
from jaxsched.train import main as train_main

TINY = dict(
    env="deeprm",
    env_options=dict(num_slots=3, horizon=8, max_job_len=6, capacity=5, max_job_size=5, backlog_size=8,
                     simu_len=8, load=0.8),
    algo_options=dict(num_jobsets=2, num_rollouts=3, episode_len=30),
    iterations=6, chunk=2, seeds=[0], baselines=["sjf"], eval_jobsets=0,
    checkpoint_every=6, checkpoint_minutes=1e-6,  # every save before the last is a wall-clock one
)
NOISE = ("Traceback", "Event loop is closed")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("checkpoints") / "run"
    lines = []
    train(build_config(TrainConfig, TINY), out, log=lines.append)
    return out, lines


@pytest.fixture
def copy(run, tmp_path):
    destination = tmp_path / "run"
    shutil.copytree(run[0], destination)
    return destination


def _zero(path):
    path.write_bytes(b"\0" * path.stat().st_size)


def _truncate(path, size):
    with open(path, "r+b") as f:
        f.truncate(size)


def _data_files(step_dir):
    return sorted((step_dir / "default" / "ocdbt.process_0" / "d").iterdir(), key=lambda p: p.stat().st_size)


DAMAGE = {
    "zeroed _METADATA": lambda step_dir: _zero(step_dir / "default" / "_METADATA"),
    "truncated data file": lambda step_dir: _truncate(_data_files(step_dir)[-1], 1000),
    "truncated small file": lambda step_dir: _truncate(_data_files(step_dir)[0], 10),  # orbax alone misses it
}


def _damage(run_dir, kind, steps=(6,), keep_manifest=True):
    for step in steps:
        step_dir = run_dir / "checkpoints" / str(step)
        DAMAGE[kind](step_dir)
        if not keep_manifest:
            (step_dir / MANIFEST_NAME).unlink()


def _steps(run_dir):
    with Checkpointer(run_dir) as checkpointer:
        return checkpointer.steps()


def _metrics(path):
    with open(path, newline="") as f:
        return [{k: v for k, v in row.items() if k not in experiment_mod.TIMING_COLUMNS} for row in csv.DictReader(f)]


def test_wall_clock_saves_and_sealed_steps(run):
    out, lines = run
    assert _steps(out) == [2, 4, 6]  # checkpoint_every is 6: 2 and 4 were saved by the clock
    assert all(verify_manifest(out / "checkpoints" / str(s)) is None for s in (2, 4, 6))
    assert any(line.startswith("compiling the training step") for line in lines)


@pytest.mark.parametrize("kind, keep_manifest", [(kind, True) for kind in DAMAGE]
                         + [("zeroed _METADATA", False), ("truncated data file", False)])
def test_load_falls_back_to_the_newest_intact_checkpoint(copy, kind, keep_manifest):
    """With the manifest, and (for what orbax notices) without it: steps saved by older versions."""
    _damage(copy, kind, keep_manifest=keep_manifest)
    warnings = []
    _, states = load_run(copy, log=warnings.append)
    assert int(states.iteration[0]) == 4
    assert len(warnings) == 1 and "\n" not in warnings[0]
    assert "checkpoint 6" in warnings[0] and "damaged" in warnings[0] and "using checkpoint 4" in warnings[0]


@pytest.mark.parametrize("kind, keep_manifest", [(kind, True) for kind in DAMAGE]
                         + [("zeroed _METADATA", False), ("truncated data file", False)])
def test_resume_falls_back_quietly(copy, kind, keep_manifest, capfd, caplog, monkeypatch):
    """Also no asyncio noise in the form it takes later: unraisable reports ("Event loop is closed")
    and asyncio's log ("Future exception was never retrieved"), looked for a second after."""
    unraisable = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    _damage(copy, kind, keep_manifest=keep_manifest)
    assert train_main(["--resume", str(copy), "iterations=4"]) == 0  # up to the fallback: no training
    time.sleep(1.0)
    gc.collect()
    out, err = capfd.readouterr()
    assert "checkpoint 6" in out and "damaged" in out and "resuming" in out
    assert not any(noise in out + err for noise in NOISE)
    assert not unraisable and not [r for r in caplog.records if r.name == "asyncio"]
    assert _steps(copy) == [2, 4]  # the damaged one is gone (a resume would replay it)


def test_every_checkpoint_damaged_is_one_clear_error(copy, capfd):
    _damage(copy, "zeroed _METADATA", steps=(2, 4, 6))
    with pytest.raises(DamagedCheckpointError, match="every checkpoint"):
        load_run(copy)
    capfd.readouterr()
    assert train_main(["--resume", str(copy)]) == 2
    assert evaluate_main(["--checkpoint", str(copy)]) == 2
    out, err = capfd.readouterr()
    assert [line for line in err.splitlines() if line.startswith("error:")] == err.splitlines()
    assert len(err.splitlines()) == 2 and "every checkpoint" in err and "checkpoint 2 " in err
    assert not any(noise in out + err for noise in NOISE)


def test_from_step_picks_a_checkpoint(copy, capfd):
    _, states = load_run(copy, step=2)
    assert int(states.iteration[0]) == 2
    assert train_main(["--resume", str(copy), "--from-step", "4", "iterations=4"]) == 0
    assert _steps(copy) == [2, 4]
    assert max(int(r["iteration"]) for r in _metrics(copy / "metrics.csv")) == 4
    capfd.readouterr()
    _damage(copy, "truncated data file", steps=(4,))  # a chosen step is not replaced by another
    assert train_main(["--resume", str(copy), "--from-step", "4"]) == 2
    assert train_main(["--resume", str(copy), "--from-step", "5"]) == 2
    assert evaluate_main(["--checkpoint", str(copy), "--from-step", "5"]) == 2
    assert train_main(["--from-step", "4", "iterations=4"]) == 2  # without --resume
    err = capfd.readouterr().err.splitlines()
    assert "checkpoint 4" in err[0] and "damaged" in err[0]
    assert "no checkpoint of iteration 5" in err[1] and "saved: 2, 4" in err[1]
    assert "no checkpoint of iteration 5" in err[2]
    assert err[-1] == "error: --from-step N applies to --resume DIR"


def test_a_different_network_is_not_damage(run):
    other = Experiment.from_config(train_config({**TINY, "algo_options": {**TINY["algo_options"], "hidden": 7}}))
    with Checkpointer(run[0]) as checkpointer:
        with pytest.raises(CheckpointError, match="different network, seeds or algorithm") as error:
            checkpointer.restore(other.state_template())
    assert not isinstance(error.value, DamagedCheckpointError)


def test_non_finite_parameters_are_damage(copy, monkeypatch):
    """What was read is checked too (training never saves NaN parameters)."""
    real = ocp.CheckpointManager.restore

    def poisoned(self, step, *args, **kwargs):
        states = real(self, step, *args, **kwargs)
        return states.replace(params=jax.tree.map(lambda x: x * np.nan, states.params)) if step == 6 else states

    monkeypatch.setattr(ocp.CheckpointManager, "restore", poisoned)
    warnings = []
    _, states = load_run(copy, log=warnings.append)
    assert int(states.iteration[0]) == 4 and "checkpoint 6" in warnings[0] and "NaN" in warnings[0]


def test_resume_after_a_wall_clock_save_matches_uninterrupted(run, copy):
    shutil.rmtree(copy / "checkpoints" / "6")  # killed after the wall-clock save of iteration 4 ...
    with open(copy / "metrics.csv", "a", newline="") as f:  # ... having logged past it
        f.write("5,0" + ",0" * (len(_metrics(copy / "metrics.csv")[0]) + len(experiment_mod.TIMING_COLUMNS) - 2)
                + "\n")
    assert train_main(["--resume", str(copy)]) == 0
    assert _metrics(copy / "metrics.csv") == _metrics(run[0] / "metrics.csv")
    template = Experiment.from_config(build_config(TrainConfig, TINY)).state_template()
    with Checkpointer(copy) as resumed, Checkpointer(run[0]) as uninterrupted:
        a, b = resumed.restore(template, step=6), uninterrupted.restore(template, step=6)
    jax.tree.map(np.testing.assert_array_equal, a, b)


def test_progress_lines_around_the_bar(copy, monkeypatch):
    """"compiling ..." before the first chunk (none to run here) and "evaluating ..." before the
    held-out evaluation (stubbed: its own tests are elsewhere)."""
    config = build_config(TrainConfig, {**TINY, "eval_jobsets": 2})
    write_run_config(copy, to_dict(config))
    evaluated = []
    monkeypatch.setattr(experiment_mod, "evaluate_run", lambda *args, **kwargs: evaluated.append(args))
    lines = []
    train(config, copy, resume=True, log=lines.append)
    assert evaluated and lines[-1] == "evaluating the trained policy on 2 held-out instances..."
    assert not any(line.startswith("compiling") for line in lines)


def test_result_files_name_paths_relative_to_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert shown_path((tmp_path / "results" / "run").resolve()) == "results/run"
    assert shown_path(Path("/elsewhere/run")) == "/elsewhere/run"
    assert shown_path(None) is None
