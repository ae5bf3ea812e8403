"""compare_runs: time-to-baseline from hand-written run directories (no training needed)."""

import csv
import json

import pytest

from jaxsched.core.unfinished import LEGEND
from jaxsched.studies.compare_runs import compare, main


def _write_run(path, slowdowns, wall_per_it=2.0, cloning_s=None, sjf=3.0, trained=None):
    path.mkdir(parents=True)
    with open(path / "metrics.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["iteration", "seed", "mean_slowdown", "wall_s"])
        writer.writeheader()
        for i, value in enumerate(slowdowns, start=1):
            for seed in (0, 1):  # two seeds: the curve is their mean
                writer.writerow({"iteration": i, "seed": seed, "mean_slowdown": value + (0.5 if seed else -0.5),
                                 "wall_s": wall_per_it})
    policy = {"mean_slowdown": sjf, "mean_completion_time": 9.0, "finished": 10, "jobs": 10}
    (path / "eval.json").write_text(json.dumps({"policies": {"sjf": policy, **(trained or {})}}))
    if cloning_s is not None:
        (path / "behaviour_cloning.json").write_text(json.dumps([{"seed": 0, "wall_s": cloning_s}]))
    return path


def test_time_to_baseline_needs_a_full_window_and_counts_cloning(tmp_path):
    fast = _write_run(tmp_path / "fast", [2.0, 5.0, 5.0, 2.5, 2.5, 2.5], cloning_s=30.0)
    never = _write_run(tmp_path / "never", [4.0] * 6)
    summary = compare({"fast": fast, "never": never}, tmp_path / "out", window=3)
    # iteration 1 is below SJF alone but its window is not full; the running mean of (5, 5, 2.5) is 4.17,
    # of (5, 2.5, 2.5) 3.33, of (2.5, 2.5, 2.5) 2.5 <= 3 at iteration 6: 6 iterations x 2 s + 30 s cloning.
    assert summary["runs"]["fast"]["reaches_sjf"] == {"iteration": 6, "wall_s": 42.0}
    assert summary["runs"]["never"]["reaches_sjf"] == {"iteration": None, "wall_s": None}
    assert summary["runs"]["fast"]["behaviour_cloning_s"] == 30.0
    assert summary["runs"]["fast"]["train_wall_s"] == 12.0
    for name in ("summary.json", "learning_curves_iteration.png", "learning_curves_wallclock.png",
                 "fast/metrics.csv", "fast/behaviour_cloning.json", "never/eval.json"):
        assert (tmp_path / "out" / name).exists(), name


def test_held_out_policies_say_whether_they_leave_jobs_unfinished(tmp_path):
    greedy = {"mean_slowdown": 2.31, "mean_completion_time": 5.0, "finished": 83, "jobs": 100}
    run = _write_run(tmp_path / "run", [4.0] * 3, trained={"trained-s0": greedy})
    summary = compare({"run": run}, tmp_path / "out", window=2)
    heldout = summary["runs"]["run"]["heldout"]
    assert heldout["trained-s0"]["leaves_unfinished"] and not heldout["sjf"]["leaves_unfinished"]
    assert heldout["trained-s0"]["finished"] == 83 and summary["legend"] == LEGEND
    clean = compare({"clean": _write_run(tmp_path / "clean", [4.0] * 3)}, tmp_path / "out2", window=2)
    assert "legend" not in clean


def test_missing_run_files_and_bad_arguments_are_clear_errors(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["--out", str(tmp_path / "out"), f"x={tmp_path / 'empty'}"]) == 2
    assert "no metrics.csv" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--out", str(tmp_path / "out"), "no-label"])


def test_vm_runs_compare_returns_against_scheduled_length(tmp_path):
    run = tmp_path / "vm"
    run.mkdir()
    with open(run / "metrics.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["iteration", "seed", "mean_return", "wall_s"])
        writer.writeheader()
        for i, value in enumerate([50.0, 90.0, 120.0, 130.0], start=1):
            writer.writerow({"iteration": i, "seed": 0, "mean_return": value, "wall_s": 1.0})
    stats = {"scheduled_length": 100.0, "scheduled_length_std": 5.0, "cpu_allocation": 0.8, "income": 3.0}
    (run / "eval.json").write_text(json.dumps({"policies": {"pm_best_fit": stats}}))
    summary = compare({"vm": run}, tmp_path / "out", baseline="pm_best_fit", window=2)
    assert summary["baseline_heldout_scheduled_length"] == 100.0
    # running means 50, 70, 105, 125: first >= 100 with a full window at iteration 3
    assert summary["runs"]["vm"]["reaches_pm_best_fit"] == {"iteration": 3, "wall_s": 3.0}
    assert summary["runs"]["vm"]["final_training_return"] == 125.0


def test_several_seeds_are_summarised_by_their_iqm_and_finished_jobs(tmp_path):
    def policy(slowdown, finished):
        return {"mean_slowdown": slowdown, "mean_completion_time": 2 * slowdown, "finished": finished, "jobs": 10}
    trained = {f"trained-s{i}": policy(1.0 + i, 10) for i in range(3)}
    trained |= {f"trained-s{i}-sampled": policy(5.0 - i, 10 - i) for i in range(3)}
    summary = compare({"run": _write_run(tmp_path / "run", [4.0] * 3, trained=trained)}, tmp_path / "out", window=2)
    seeds = summary["runs"]["run"]["over_seeds"]
    assert seeds["greedy"]["seeds"] == [0, 1, 2] and seeds["greedy"]["mean_slowdown"]["iqm"] == 2.0
    assert seeds["greedy"]["mean_completion_time"]["median"] == 4.0
    assert seeds["sampled"]["finished"] == 27 and seeds["sampled"]["jobs"] == 30
    assert not seeds["sampled"]["mean_slowdown"]["higher_is_better"]
    one = compare({"one": _write_run(tmp_path / "one", [4.0] * 3, trained={"trained-s0": policy(1.0, 10)})},
                  tmp_path / "out1", window=2)
    assert "over_seeds" not in one["runs"]["one"]
