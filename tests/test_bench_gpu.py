"""``python -m jaxsched.bench gpu`` at a tiny size on the CPU: every row written with its roofline, the
argument checks, and the roofline's arithmetic."""

import json

import pytest

from jaxsched.bench.cli import main
from jaxsched.bench.gpu import ENV_WORKLOADS, bench_gpu, roofline


def test_roofline_is_the_rate_times_the_bytes_over_each_bandwidth():
    row = {"steps_per_s": 2e6, "carry_bytes_per_step": 100.0, "xla_bytes_per_step": 400.0}
    got = roofline(row, measured_bw=1e9, nominal_bw=2e9)
    assert got["carry_bandwidth_Bps"] == pytest.approx(2e8) and got["xla_bandwidth_Bps"] == pytest.approx(8e8)
    assert got["carry_of_copy_bandwidth"] == pytest.approx(0.2) and got["xla_of_copy_bandwidth"] == pytest.approx(0.8)
    assert got["xla_of_nominal_bandwidth"] == pytest.approx(0.4)
    assert "xla_bandwidth_Bps" not in roofline({**row, "xla_bytes_per_step": None}, 1e9, None)


def test_a_tiny_gpu_bench_writes_every_row_with_its_roofline(tmp_path):
    picked = [w for w in ENV_WORKLOADS if w.label in ("DeepRM no observation, M=10",)
              or w.label.startswith("grid FIFO")]
    out = tmp_path / "bench_gpu.json"
    lines = []
    tiny = ("REINFORCE, quickstart, 2 x 2 rollouts", "configs/quickstart.yaml",
            ["algo_options.num_jobsets=2", "algo_options.num_rollouts=2", "algo_options.episode_len=20"])
    result = bench_gpu(picked, batches=(2, 4), steps=3, repeats=1, window_s=0.01, train=(tiny,), train_repeats=2,
                       threads=2, out=out, log=lines.append)
    rows = result["env_rows"]
    assert [(r["workload"], r["batch"]) for r in rows] == [(w.label, b) for w in picked for b in (2, 4)]
    deeprm, grid = rows[:2], rows[2:]
    for row in deeprm:  # batch x steps decisions per call; XLA's bytes from the one-step executable
        assert row["decisions_per_call"] == row["batch"] * 3 and row["steps_per_s"] > 0
        assert row["xla_bytes_per_step"] > 0 and row["carry_bytes_per_step"] > 0
        assert row["xla_bandwidth_Bps"] == pytest.approx(row["steps_per_s"] * row["xla_bytes_per_step"])
    assert deeprm[0]["xla_bytes_per_step"] == deeprm[1]["xla_bytes_per_step"]  # one cost analysis per env
    for row in grid:  # one episode per window: at most one decision per job
        assert 0 < row["decisions_per_call"] <= row["batch"] * 500 and row["xla_bytes_per_step"] is None
    (train,) = result["train_rows"]  # 2 x 2 episodes of at most 20 decisions, one seed
    assert 0 < train["decisions_per_iteration"] <= 80 and train["repeats"] == 2
    assert train["decisions_per_s"] == pytest.approx(train["decisions_per_iteration"]
                                                     / train["seconds_per_iteration_median"])
    saved = json.loads(out.read_text())
    assert saved["env_rows"] == json.loads(json.dumps(rows)) and saved["meta"]["copy_bandwidth_Bps"] > 0
    table = out.with_suffix(".md").read_text()
    assert table.count("| DeepRM no observation, M=10 |") == 2 and "| grid FIFO" in table and "quickstart" in table
    assert len(lines) == 2 + len(rows)  # the bandwidth line, one per env row, one per training row


@pytest.mark.parametrize("argv, message", [
    (["--batches", "12-x"], "--batches"),
    (["--workloads", "no such env"], "match no workload"),
    (["--train", "none", "--group", "0"], "--group"),
])
def test_bad_gpu_arguments_are_one_line_errors(argv, message, capsys):
    with pytest.raises(SystemExit):
        main(["gpu", *argv])
    assert message in capsys.readouterr().err
