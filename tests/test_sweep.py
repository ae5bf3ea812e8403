"""The sweep command: cells x seeds as run directories, resumable, bit-for-bit summary, clear errors."""

from __future__ import annotations

import csv
import json
import shutil
import signal

import pytest

import jaxsched.sweep as sweep
from jaxsched.core.runs import config_hash, result_config
from jaxsched.core.signals import Interrupted, StopOnSignal, exit_status
from jaxsched.sweep import first_reaching, main, parse_grid, running_mean

import numpy as np

TINY = """
env: deeprm
env_options: {num_slots: 3, simu_len: 5, backlog_size: 4}
algo: reinforce
algo_options: {num_jobsets: 2, num_rollouts: 2, episode_len: 12}
iterations: 2
chunk: 1
checkpoint_every: 1
eval_jobsets: 3
baselines: [sjf, random]
"""


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    root = tmp_path_factory.mktemp("sweep")
    (root / "tiny.yaml").write_text(TINY)
    out = root / "a"
    argv = ["--config", str(root / "tiny.yaml"), "--seeds", "0:2", "algo_options.lr=1e-3,1e-2", "--out", str(out)]
    assert main(argv) == 0
    return root, argv, out


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_summary_has_a_row_per_cell_and_seed(swept):
    _, _, out = swept
    table = rows(out / "summary.csv")
    assert [(r["algo_options.lr"], r["seed"]) for r in table] == [("1e-3", "0"), ("1e-3", "1"), ("1e-2", "0"),
                                                                 ("1e-2", "1")]
    for column in ("run_dir", "final_mean_slowdown", "final_sampled_mean_slowdown", "final_sjf_mean_slowdown",
                   "final_random_mean_slowdown", "final_finished", "final_jobs", "iterations_to_sjf"):
        assert column in table[0]
    assert all((out / r["run_dir"] / "eval.json").exists() for r in table)
    assert float(table[0]["final_sjf_mean_slowdown"]) == float(table[2]["final_sjf_mean_slowdown"])  # same held-out set
    report = (out / "report.md").read_text()
    assert "IQM" in report and "seeds beating sjf" in report
    assert (out / "learning_curves.png").exists() and (out / "performance_profile.png").exists()


def test_figures_name_cells_by_what_differs_between_them(swept, monkeypatch):
    """Legends carry the cell number and the swept values that vary, not the full names (which overflow)."""
    _, _, out = swept
    seen = {}
    monkeypatch.setattr(sweep, "curves_with_bands", lambda series, *a, **k: seen.update(curves=list(series)))
    monkeypatch.setattr(sweep, "performance_profiles", lambda scores, *a, **k: seen.update(profile=list(scores)))
    report = out.parent / "labels"
    report.mkdir()
    (report / "cells").symlink_to(out / "cells")
    table = sweep.summary_rows(out, ["algo_options.lr"])
    sweep.write_report(report, ["algo_options.lr", "iterations"], [{**r, "iterations": 2} for r in table])
    assert seen["curves"] == seen["profile"] == ["cell000 algo_options.lr=1e-3", "cell001 algo_options.lr=1e-2"]
    assert (report / "report.md").read_text().startswith("# Sweep report: deeprm, reinforce")


def test_same_command_same_summary_and_finished_cells_skipped(swept, capsys):
    root, argv, out = swept
    again = root / "b"  # the first cell again, in another directory (shard 0 of 2)
    assert main(argv[:-1] + [str(again), "--shard", "0/2"]) == 0
    assert rows(again / "summary.csv") == rows(out / "summary.csv")[:2]
    capsys.readouterr()
    assert main(argv) == 0  # everything finished: nothing retrained
    assert capsys.readouterr().out.count("finished before") == 2


def test_workers_run_the_cells_in_child_processes_and_summarize_once(swept):
    root, argv, out = swept
    before = (out / "summary.csv").read_bytes()
    (out / "summary.csv").unlink()
    assert main(argv + ["--workers", "2"]) == 0  # both children find their cell finished; the parent summarizes
    assert (out / "summary.csv").read_bytes() == before


def test_a_killed_cell_resumes_from_its_checkpoint(swept, capsys):
    root, argv, out = swept
    cell = sorted((out / "cells").iterdir())[0]
    (cell / "eval.json").unlink()  # as if killed after its last checkpoint, before the evaluation
    before = (out / "summary.csv").read_bytes()
    capsys.readouterr()
    assert main(argv) == 0
    assert "resumed (newest checkpoint: iteration 2;" in capsys.readouterr().out
    assert (out / "summary.csv").read_bytes() == before


def test_each_cell_records_its_resolved_config_and_hash(swept):
    _, _, out = swept
    for cell in (out / "cells").iterdir():
        record = json.loads((cell / "sweep_cell.json").read_text())
        resolved = json.loads((cell / "config.json").read_text())["config"]
        assert record["config_hash"] == config_hash(resolved) and record["config"] == result_config(resolved)
        assert record["config"]["algo_options"]["lr"] == record["values"]["algo_options.lr"]
    assert config_hash({**resolved, "devices": "auto"}) == config_hash(resolved)  # how it runs, not what
    assert config_hash({**resolved, "iterations": 3}) != config_hash(resolved)


def _refused(argv, capsys) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err.strip()


def test_another_base_config_grid_or_seeds_into_the_same_out_is_refused(swept, capsys):
    root, argv, out = swept
    before = {path: path.read_bytes() for path in out.rglob("*") if path.is_file()}
    (root / "other.yaml").write_text(TINY.replace("iterations: 2", "iterations: 3").replace("num_rollouts: 2",
                                                                                            "num_rollouts: 3"))
    config = argv.index("--config") + 1
    other_base = argv[:config] + [str(root / "other.yaml")] + argv[config + 1:]
    assert _refused(other_base, capsys) == (f"error: {out} holds a sweep run with another config: its cell000 differs "
                                            "in algo_options.num_rollouts, iterations; give another --out")
    other_grid = [a if a != "algo_options.lr=1e-3,1e-2" else "algo_options.lr=1e-3,3e-3,1e-2" for a in argv]
    assert "cell001 differs in algo_options.lr" in _refused(other_grid, capsys)
    other_seeds = [a if a != "0:2" else "0:3" for a in argv]
    assert "cell000 differs in seeds" in _refused(other_seeds, capsys)
    fewer_cells = [a if a != "algo_options.lr=1e-3,1e-2" else "algo_options.lr=1e-3" for a in argv]
    assert "is not one of this sweep's 1 cell(s)" in _refused(fewer_cells, capsys)
    assert {path: path.read_bytes() for path in out.rglob("*") if path.is_file()} == before


def test_a_training_runs_folder_is_refused(swept, capsys):
    _, argv, out = swept
    run = sorted((out / "cells").iterdir())[0]  # a cell is a training run
    err = _refused(argv[:-1] + [str(run)], capsys)
    assert err == f"error: {run} is a training run's folder (config.json, checkpoints/); give the sweep another --out"
    assert not (run / "cells").exists()


def test_cells_of_an_older_sweep_without_a_hash_are_checked_and_adopt_one(swept, tmp_path, capsys):
    """Sweeps written before the hash (results/sweep_*): their config.json tells the config."""
    root, argv, out = swept
    old = tmp_path / "old"
    shutil.copytree(out, old)
    for record_path in (old / "cells").glob("*/sweep_cell.json"):
        record = json.loads(record_path.read_text())
        record_path.write_text(json.dumps({"values": record["values"], "seeds": record["seeds"]}))
    summary = (old / "summary.csv").read_bytes()
    other_seeds = [a if a != "0:2" else "0,1,2" for a in argv[:-1]] + [str(old)]
    assert "cell000 differs in seeds" in _refused(other_seeds, capsys)
    assert main(argv[:-1] + [str(old)]) == 0
    assert capsys.readouterr().out.count("finished before") == 2
    for cell in (old / "cells").iterdir():
        resolved = json.loads((cell / "config.json").read_text())["config"]
        assert json.loads((cell / "sweep_cell.json").read_text())["config_hash"] == config_hash(resolved)
    assert (old / "summary.csv").read_bytes() == summary


@pytest.mark.parametrize("extra,message", [
    (["no_such_key=1,2"], "unknown config key"),
    (["algo_options.no_such=1"], "unknown config key"),
    (["--shard", "3/2"], "--shard"),
    (["--workers", "0"], "--workers"),
    (["--seeds", "a:b"], "--seeds"),
])
def test_bad_input_is_one_line_and_writes_nothing(swept, tmp_path, capsys, extra, message):
    root, _, _ = swept
    out = tmp_path / "never"
    assert main(["--config", str(root / "tiny.yaml"), "--out", str(out), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_grid_and_curve_helpers():
    assert parse_grid(["a=1,2", "b.c=x", "d=[1, 2]"]) == [("a", [1, 2]), ("b.c", ["x"]), ("d", [[1, 2]])]
    curve = running_mean(np.array([5.0, 3.0, np.nan, 1.0]), 2)
    np.testing.assert_allclose(curve, [5.0, 4.0, 3.0, 1.0])
    assert first_reaching(np.array([1, 2, 3, 4]), curve, 3.0, higher_is_better=False) == 3
    assert first_reaching(np.array([1, 2, 3, 4]), curve, 0.5, higher_is_better=False) is None


def test_a_null_value_switches_a_section_off(tmp_path):
    """``bc=null`` (no behaviour cloning) reaches the cell's config as None, not as the string 'None'."""
    (tmp_path / "tiny.yaml").write_text(TINY + "bc: {num_jobsets: 4}\n")
    [(name, values, config)] = sweep.plan(tmp_path / "tiny.yaml", [0], parse_grid(["bc=null"]))
    assert values == {"bc": None} and "bc=null" in name
    assert config.bc is None


def test_a_diverged_cell_is_recorded_and_the_others_still_run(tmp_path, monkeypatch, capsys):
    (tmp_path / "tiny.yaml").write_text(TINY)
    calls = []

    def fake_run_cell(config, run_dir, log=print):
        calls.append(run_dir.name)
        if len(calls) == 1:
            raise FloatingPointError("training produced NaN at iteration 2; stopped")
        return "trained"

    monkeypatch.setattr(sweep, "run_cell", fake_run_cell)
    code = main(["--config", str(tmp_path / "tiny.yaml"), "--seeds", "0:1", "algo_options.lr=1e-3,1e-2",
                 "--out", str(tmp_path / "out")])
    assert code == 1 and len(calls) == 2  # the second cell ran after the first diverged
    failed = list((tmp_path / "out" / "cells").glob("*/failed.json"))
    assert len(failed) == 1 and "NaN" in failed[0].read_text()
    assert "1 cell(s) diverged" in capsys.readouterr().err


def test_a_signal_stops_the_sweep_in_one_line_with_its_status(tmp_path, monkeypatch, capsys):
    """The running cell saved its checkpoint (train's part: test_signals.py); the next cells do not start."""
    (tmp_path / "tiny.yaml").write_text(TINY)
    calls = []

    def interrupted_cell(config, run_dir, log=print):
        calls.append(run_dir.name)
        raise Interrupted(signal.SIGTERM, "saved the checkpoint of iteration 1")

    monkeypatch.setattr(sweep, "run_cell", interrupted_cell)
    code = main(["--config", str(tmp_path / "tiny.yaml"), "--seeds", "0:1", "algo_options.lr=1e-3,1e-2",
                 "--out", str(tmp_path / "out")])
    assert code == 143 and len(calls) == 1
    assert capsys.readouterr().err.strip() == (f"interrupted by SIGTERM in {calls[0]} (its last iteration boundary "
                                               "saved); the same sweep command continues the sweep")


def test_the_parent_of_workers_passes_a_signal_on_once():
    class Worker:
        def __init__(self):
            self.signals, self.returncode = [], None

        def poll(self):
            return self.returncode

        def send_signal(self, signum):
            self.signals.append(signum)
            self.returncode = exit_status(signum)

    stop = StopOnSignal()
    stop.signum = signal.SIGINT  # as the handler records it
    workers = [Worker(), Worker()]
    assert sweep._wait_forwarding(workers, stop) == [143, 143]
    assert [w.signals for w in workers] == [[signal.SIGTERM], [signal.SIGTERM]]  # SIGTERM: never a second SIGINT
