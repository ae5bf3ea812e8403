"""Multi-process training (``jax.distributed``): two local CPU processes joined on 127.0.0.1 give the
metrics of one process; bad multi-process options are one-line errors with nothing written.

The two processes each hold one CPU device, so the mesh has two devices and the two seeds are split
over the processes (gloo collectives gather the metrics). Tolerance as in ``test_devices`` (rtol 2e-3,
atol 1e-4: only float32 reduction order may differ); measured: identical.
"""

from __future__ import annotations

import csv
import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from jaxsched.core.devices import with_host_devices
from jaxsched.train import main as train_main

ROOT = Path(__file__).resolve().parents[1]
TINY = ["env=deeprm", "env_options={num_slots: 3, simu_len: 5, backlog_size: 4}", "algo=reinforce",
        "algo_options={num_jobsets: 4, num_rollouts: 2, episode_len: 12}", "iterations=2", "chunk=2",
        "checkpoint_every=2", "eval_jobsets=2", "seeds=[0,1]"]
TIMING = {"steps_per_s", "wall_s"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def train_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "jaxsched.train", *TINY, *args]


def child_environment() -> dict:
    environment = {k: v for k, v in os.environ.items() if k != "JAXSCHED_JOIN"}
    return dict(environment, PYTHONPATH=str(ROOT),
                XLA_FLAGS=with_host_devices(os.environ.get("XLA_FLAGS", ""), None))  # one device each


def read_metrics(run_dir: Path) -> list[dict]:
    with open(run_dir / "metrics.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_two_processes_give_the_metrics_of_one(tmp_path):
    port = free_port()
    joined = tmp_path / "two_processes"
    processes = [subprocess.Popen(train_command("--out", str(joined), "--coordinator", f"127.0.0.1:{port}",
                                                "--num-processes", "2", "--process-id", str(i), "--join-timeout", "60"),
                                  cwd=ROOT, env=child_environment(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True)
                 for i in range(2)]
    outputs = [p.communicate(timeout=600)[0] for p in processes]
    for i, p in enumerate(processes):
        assert p.returncode == 0, f"process {i}:\n{outputs[i][-3000:]}"
    assert "held-out evaluation" in outputs[0] and "held-out evaluation" not in outputs[1]  # logged once

    alone = tmp_path / "one_process"
    assert train_main([*TINY, "--out", str(alone)]) == 0

    one, two = read_metrics(alone), read_metrics(joined)
    assert [(r["iteration"], r["seed"]) for r in two] == [(r["iteration"], r["seed"]) for r in one]
    for key in set(one[0]) - TIMING:
        np.testing.assert_allclose([float(r[key]) for r in two], [float(r[key]) for r in one], rtol=2e-3, atol=1e-4,
                                   err_msg=key)
    assert sorted(p.name for p in (joined / "checkpoints").iterdir()) == ["2"]
    assert (joined / "eval.json").exists()


@pytest.mark.parametrize("args, message", [
    (["--coordinator", "127.0.0.1:1"], "need all of"),
    (["--coordinator", "nohostport", "--num-processes", "2", "--process-id", "0"], "expected HOST:PORT"),
    (["--coordinator", "127.0.0.1:5000", "--num-processes", "2", "--process-id", "2"], "expected 0 <= I < N"),
    (["--distributed", "--coordinator", "127.0.0.1:5000"], "either --distributed"),
    (["--distributed", "--join-timeout", "0"], "--join-timeout"),
])
def test_bad_multi_process_options(tmp_path, capsys, args, message):
    assert train_main([*TINY, "--out", str(tmp_path / "run"), *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]
    assert not (tmp_path / "run").exists()


def test_unreachable_coordinator_is_a_bounded_one_line_error(tmp_path):
    done = subprocess.run(train_command("--out", str(tmp_path / "run"), "--coordinator", f"127.0.0.1:{free_port()}",
                                        "--num-processes", "2", "--process-id", "1", "--join-timeout", "2"),
                          cwd=ROOT, env=child_environment(), capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines == [lines[-1]] and "could not reach the coordinator" in lines[-1], done.stderr[-2000:]
    assert not (tmp_path / "run").exists()
