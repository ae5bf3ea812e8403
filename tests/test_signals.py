"""Runs survive their scheduler: SIGTERM stops ``python -m jaxsched.train`` at an iteration boundary with
a checkpoint, one line and exit status 143, and ``--resume`` then ends where the uninterrupted run does,
bit for bit; a second SIGINT stops at once, a repeated SIGTERM does not.

The runs are real command-line processes (the portable XLA flags, the signal reaching the process from
outside); the in-process SIGINT path is in test_train_cli.py.
"""

from __future__ import annotations

import csv
import json
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import jax
import numpy as np
import pytest

from jaxsched.core.config import build_config
from jaxsched.core.runs import Checkpointer
from jaxsched.experiment import Experiment, TrainConfig, TIMING_COLUMNS

ITERATIONS = 60
CONFIG = dict(
    env="deeprm",
    env_options=dict(num_slots=3, horizon=8, max_job_len=6, capacity=5, max_job_size=5, backlog_size=8,
                     simu_len=8, load=0.8),
    algo_options=dict(num_jobsets=2, num_rollouts=3, episode_len=30),
    iterations=ITERATIONS, chunk=1, seeds=[0, 1], baselines=["sjf"], eval_jobsets=3,
    checkpoint_every=ITERATIONS, checkpoint_minutes=0,  # the signal's checkpoint is the only one before the end
)
TIMEOUT_S = 300


def _train(*argv: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "jaxsched.train", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _iterations_logged(run_dir: Path) -> int:
    try:
        with open(run_dir / "metrics.csv", newline="") as f:
            return max((int(row["iteration"]) for row in csv.DictReader(f)), default=0)
    except (FileNotFoundError, ValueError, KeyError):  # not written yet, or a row being written
        return 0


def _stop_after(process: subprocess.Popen, run_dir: Path, iterations: int, signum: int) -> None:
    """Sends ``signum`` once ``run_dir`` has logged ``iterations``; the process is paused meanwhile
    (SIGSTOP), so that the signal lands mid-run however fast the iterations go."""
    deadline = time.monotonic() + TIMEOUT_S
    while _iterations_logged(run_dir) < iterations:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the run logged no iterations in time"
        time.sleep(0.005)
    process.send_signal(signal.SIGSTOP)
    process.send_signal(signum)
    process.send_signal(signal.SIGCONT)


def _metrics(run_dir: Path) -> list[dict]:
    with open(run_dir / "metrics.csv", newline="") as f:
        return [{k: v for k, v in row.items() if k not in TIMING_COLUMNS} for row in csv.DictReader(f)]


@pytest.fixture(scope="module")
def interrupted_and_whole(tmp_path_factory):
    root = tmp_path_factory.mktemp("signals")
    (root / "tiny.yaml").write_text(json.dumps(CONFIG))
    whole = _train("--config", str(root / "tiny.yaml"), "--out", str(root / "whole"))
    killed = _train("--config", str(root / "tiny.yaml"), "--out", str(root / "killed"))
    _stop_after(killed, root / "killed", 3, signal.SIGTERM)
    killed_out, killed_err = killed.communicate(timeout=TIMEOUT_S)
    whole_out, whole_err = whole.communicate(timeout=TIMEOUT_S)
    assert whole.returncode == 0, whole_err
    return root, killed.returncode, killed_err


def test_sigterm_saves_at_the_next_boundary_in_one_line(interrupted_and_whole):
    root, code, err = interrupted_and_whole
    assert code == 143, err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if "interrupted" in line]
    assert len(lines) == 1 and err.rstrip().endswith(lines[0]), err
    with Checkpointer(root / "killed") as checkpointer:
        steps = checkpointer.steps()
    stopped_at = _iterations_logged(root / "killed")
    assert steps == [stopped_at] and 3 <= stopped_at < ITERATIONS  # saved where it stopped, mid-run
    assert lines[0].startswith(f"interrupted by SIGTERM: saved the checkpoint of iteration {stopped_at} in ")
    assert "--resume" in lines[0]
    assert not (root / "killed" / "eval.json").exists()


def test_resume_after_sigterm_is_the_uninterrupted_run_bit_for_bit(interrupted_and_whole):
    root, _, _ = interrupted_and_whole
    resumed = _train("--resume", str(root / "killed"))
    _, err = resumed.communicate(timeout=TIMEOUT_S)
    assert resumed.returncode == 0, err
    killed, whole = root / "killed", root / "whole"
    assert _metrics(killed) == _metrics(whole)
    assert json.loads((killed / "eval.json").read_text()) == json.loads((whole / "eval.json").read_text())
    template = Experiment.from_config(build_config(TrainConfig, CONFIG)).state_template()
    with Checkpointer(killed) as a, Checkpointer(whole) as b:
        jax.tree.map(np.testing.assert_array_equal, a.restore(template, step=ITERATIONS),
                     b.restore(template, step=ITERATIONS))


SIGNALLED = textwrap.dedent("""
    import os, signal, sys, time
    from jaxsched.core.signals import StopOnSignal
    with StopOnSignal() as stop:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.1)
        os.kill(os.getpid(), signal.SIGTERM)  # a repeated SIGTERM: the stop is under way
        time.sleep(0.1)
        print("first", stop.signum == signal.SIGTERM, flush=True)
        os.kill(os.getpid(), signal.SIGINT)  # a second signal, SIGINT: at once
        time.sleep(5)
        print("not reached", flush=True)
""")


def test_a_second_sigint_stops_at_once_and_a_repeated_sigterm_does_not():
    process = subprocess.run([sys.executable, "-c", SIGNALLED], capture_output=True, text=True, timeout=120)
    assert process.returncode == 130, process.stderr
    assert process.stdout.splitlines() == ["first True"]
    assert process.stderr.strip().splitlines() == [
        "stopped at once by a second SIGINT, without saving (a resume continues from the newest checkpoint)"]
