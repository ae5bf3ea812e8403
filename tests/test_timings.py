"""``python -m jaxsched.reproduce --timings`` (issue 52 item 4): every item's wall-clock read from its runs'
files (plain or compressed metrics.csv, seeds vmapped), the hardware that took it, and the host a new run
records in its config.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jaxsched import reproduce
from jaxsched.core import host
from jaxsched.core.config import build_config
from jaxsched.core.runs import compress_csv, read_run_config, read_run_hosts
from jaxsched.experiment import TrainConfig, train
from jaxsched.reproduction import ITEMS, Item, Step
from jaxsched.reproduction.items import CPU, H200
from jaxsched.reproduction import timings

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"
TINY = dict(
    env="deeprm",
    env_options=dict(num_slots=3, horizon=8, max_job_len=6, capacity=5, max_job_size=5, backlog_size=8,
                     simu_len=8, load=0.8),
    algo_options=dict(num_jobsets=2, num_rollouts=3, episode_len=30),
    chunk=2, checkpoint_every=2, eval_jobsets=0, seeds=[0, 1], baselines=["sjf"],
)


def write_metrics(run: Path, walls: list[float], seeds=(0, 1), decisions: float = 100.0) -> None:
    """A metrics.csv of ``len(walls)`` iterations, every seed's row of an iteration with its wall_s."""
    run.mkdir(parents=True, exist_ok=True)
    lines = ["iteration,seed,decisions,loss,wall_s"]
    lines += [f"{i + 1},{seed},{decisions},0.5,{wall}" for i, wall in enumerate(walls) for seed in seeds]
    (run / "metrics.csv").write_text("\n".join(lines) + "\n")


def fake_item(*commands: str, **options) -> Item:
    return Item(id="fake", paper="a test", steps=tuple(Step(c) for c in commands), outputs=("fake/eval.json",),
                headline="", **{"wall_s": 60, **options})


def test_timings_prints_a_row_per_item_from_the_committed_results(capsys):
    assert reproduce.main(["--timings"]) == 0
    lines = capsys.readouterr().out.splitlines()
    firsts = [line.split("  ")[0] for line in lines]
    assert all(item.id in firsts for item in ITEMS)
    row = next(line for line in lines if line.startswith("sweep_mdp_image_3m "))  # trained on the GPU alone
    assert "on NVIDIA H200" in row and f"not measured on the {CPU}" in row


@pytest.mark.parametrize("compressed", [False, True])
def test_a_run_sums_one_seeds_wall_clock_plain_or_compressed(tmp_path, compressed):
    run = tmp_path / "fake_run"
    write_metrics(run, [1.5, 2.0, 2.5])
    (run / "behaviour_cloning.json").write_text(json.dumps([{"seed": 0, "wall_s": 3.0}, {"seed": 1, "wall_s": 4.0}]))
    if compressed:
        compress_csv(run / "metrics.csv")
        assert not (run / "metrics.csv").exists()
    timing = timings.item_timing(fake_item("jaxsched.train --config c.yaml --out {out}/fake_run"), tmp_path)
    assert timing.seconds() == {CPU: pytest.approx(6.0 + 7.0)}  # the seeds vmapped; cloning one seed after another
    (one,) = timing.runs
    assert (one.iterations, one.seeds, one.decisions) == (3, 2, 300.0)
    assert timing.cpu() == (60, "recorded")  # the registry's whole item is longer than its training
    assert timings.budget(timing) == "2 seeds, 3 it., 300 decisions per seed"


def test_sweep_cells_and_copied_scratch_runs_count_and_read_runs_do_not(tmp_path):
    for cell, walls in (("cell000__a=1", [10.0, 10.0]), ("cell001__a=2", [20.0])):
        write_metrics(tmp_path / "fake_sweep" / "cells" / cell, walls)
    write_metrics(tmp_path / "fake" / "mine", [100.0])  # compare_runs' copy of the item's scratch run
    write_metrics(tmp_path / "fake" / "theirs", [1000.0])  # a copy of another item's run
    item = fake_item("jaxsched.sweep --config c.yaml --out {out}/fake_sweep",
                     "jaxsched.train --config c.yaml --out {scratch}/mine",
                     "jaxsched.studies.compare_runs --out {out}/fake mine={scratch}/mine theirs={scratch}/theirs",
                     "jaxsched.train --config c.yaml --out {scratch}/dropped")
    timing = timings.item_timing(item, tmp_path)
    assert timing.seconds() == {CPU: 140.0} and timing.cpu() == (140.0, "metrics")
    assert timing.missing == ("{scratch}/dropped",)


def test_hardware_comes_from_the_recorded_hosts_else_from_the_item(tmp_path):
    run = tmp_path / "fake_run"
    write_metrics(run, [1.0, 1.0, 5.0, 5.0])
    gpu = {"cpu": "x", "cores": 16, "platform": "gpu", "devices": {H200: 1}, "jax": "0"}
    (run / "config.json").write_text(json.dumps({"format": 1, "config": {}, "hosts": [
        {"from_iteration": 0, "cpu": "x", "cores": 2, "platform": "cpu", "devices": {"cpu": 1}, "jax": "0"},
        {"from_iteration": 2, **gpu}]}))
    command = "jaxsched.train --config c.yaml --out {out}/fake_run"
    timing = timings.item_timing(fake_item(command), tmp_path)
    assert timing.seconds() == {CPU: 2.0, H200: 10.0}
    fits, text = timings.verdict(timing, {})
    assert fits is None and text.startswith(f"not measured on the {CPU}: 10 s on {H200}")
    estimated = timings.item_timing(fake_item(command, wall_s=4 * 3600, estimate=True), tmp_path)  # a CPU estimate
    assert estimated.cpu() == (4 * 3600, "estimate") and timings.verdict(estimated, {}) == (False, "no: ~4.0 h")
    (run / "config.json").unlink()  # a run older than the record: the item's run_hardware, else its hardware
    assert timings.item_timing(fake_item(command, run_hardware={"fake_*": H200}), tmp_path).seconds() == {H200: 12.0}
    assert timings.item_timing(fake_item(command, hardware=H200), tmp_path).cpu() is None


def test_items_recorded_on_a_gpu_say_so():
    on_gpu = [item for item in ITEMS if "NVIDIA H200" in item.note]
    assert on_gpu, "no item's note names the H200: the check below would check nothing"
    for item in on_gpu:
        assert H200 in item.hardware or H200 in item.run_hardware.values(), item.id


def test_a_trained_run_records_its_host_and_a_resume_adds_its_own(tmp_path):
    out = tmp_path / "run"
    train(build_config(TrainConfig, {**TINY, "iterations": 2}), out, log=lambda *_: None)
    (first,) = read_run_hosts(out)
    assert first == {"from_iteration": 0, **host.describe()} and first["cores"] == host.usable_cores()
    assert read_run_config(out)["iterations"] == 2  # old readers see the config alone
    train(build_config(TrainConfig, {**TINY, "iterations": 4}), out, resume=True, log=lambda *_: None)
    assert [h["from_iteration"] for h in read_run_hosts(out)] == [0, 2]
    timing = timings.item_timing(fake_item(f"jaxsched.train --config c.yaml --out {out}"), tmp_path)
    assert set(timing.seconds()) == {host.label(first)} and timing.runs[0].iterations == 4
