"""The evaluation CLI: outputs on a small case, and clear errors with a non-zero exit on bad input."""

import csv
import json
import subprocess
import sys

import jax
import numpy as np
import pytest

from jaxsched.core.unfinished import LEGEND
from jaxsched.errors import UsageError
from jaxsched.envs.vm.episodes import draw_starts
from jaxsched.evaluate import PER_JOB_COLUMNS, generated_instances, main, parse_range
from jaxsched.registry import build
from unfinished_policies import short_jobs_only

SMALL = ["--env", "deeprm", "--jobsets", "2", "--simu-len", "12", "--num-slots", "5"]


def test_summary_and_per_job_outputs(tmp_path, capsys):
    summary, per_job = tmp_path / "s.json", tmp_path / "jobs.csv"
    assert main(SMALL + ["--policies", "sjf,random", "--summary", str(summary), "--per-job", str(per_job)]) == 0
    out = json.loads(summary.read_text())
    assert set(out) == {"sjf", "random"}
    for stats in out.values():
        assert {"mean_slowdown", "mean_completion_time", "jobs", "finished", "unfinished", "dropped"} <= set(stats)
        assert stats["finished"] + stats["unfinished"] + stats["dropped"] == stats["jobs"]
        assert stats["mean_slowdown"] >= 1.0
    rows = list(csv.DictReader(per_job.open()))
    assert tuple(rows[0]) == PER_JOB_COLUMNS
    assert len(rows) == out["sjf"]["jobs"] + out["random"]["jobs"]
    for r in rows:
        if r["status"] == "finished":
            assert int(r["finish"]) == int(r["start"]) + int(r["duration"])
            assert int(r["start"]) >= int(r["arrival"])
        else:
            assert int(r["finish"]) == -1
    assert "sjf" in capsys.readouterr().out


def test_a_policy_leaving_jobs_unfinished_is_marked_in_table_json_and_csv(tmp_path, capsys):
    summary = tmp_path / "s.json"
    argv = SMALL + ["--policies", "sjf,short", "--loads", "0.9", "--results-dir", str(tmp_path),
                    "--summary", str(summary)]
    assert main(argv, extra_policies={"short": short_jobs_only}) == 0
    out = json.loads(summary.read_text())["0.9"]
    short, sjf = out["short"], out["sjf"]
    assert short["finished"] < short["jobs"] and short["leaves_unfinished"] is True
    assert sjf["finished"] == sjf["jobs"] and sjf["leaves_unfinished"] is False
    printed = capsys.readouterr().out.splitlines()
    short_line = next(line for line in printed if " short" in line)
    assert "short *" in short_line and f"{short['finished']}/{short['jobs']}" in short_line
    assert "sjf *" not in "\n".join(printed) and LEGEND in printed
    rows = {r["policy"]: r for r in csv.DictReader((tmp_path / "deeprm_slowdown_vs_load.csv").open())}
    assert rows["short"]["leaves_unfinished"] == "1" and rows["sjf"]["leaves_unfinished"] == "0"


def test_load_sweep_writes_curve(tmp_path):
    summary = tmp_path / "s.json"
    assert main(SMALL + ["--policies", "sjf", "--loads", "0.3:0.7:0.4", "--results-dir", str(tmp_path),
                         "--summary", str(summary)]) == 0
    assert set(json.loads(summary.read_text())) == {"0.3", "0.7"}
    assert (tmp_path / "deeprm_slowdown_vs_load.csv").exists()
    assert (tmp_path / "deeprm_slowdown_vs_load.png").stat().st_size > 0


def test_jobsets_file(tmp_path):
    path = tmp_path / "js.csv"
    path.write_text("jobset,job,arrival,duration,res0,res1\n0,0,1,2,3,1\n0,1,1,1,10,1\n1,0,2,3,1,1\n")
    summary = tmp_path / "s.json"
    assert main(["--policies", "sjf", "--jobsets-file", str(path), "--summary", str(summary)]) == 0
    stats = json.loads(summary.read_text())["sjf"]
    assert stats["jobs"] == 3 and stats["finished"] == 3


def test_vm_env_summary_per_episode(tmp_path, capsys):
    """vm-* envs evaluate too: one episode per start point, summarized per policy (no per-job table)."""
    summary = tmp_path / "s.json"
    argv = ["--env", "vm-synthetic", "--policies", "first_fit,pm_best_fit", "--jobsets", "2"]
    assert main(argv + ["--summary", str(summary)]) == 0
    out = json.loads(summary.read_text())
    assert set(out) == {"first_fit", "pm_best_fit"}
    for stats in out.values():
        assert stats["episodes"] == 2 and stats["scheduled_length"] > 0
        assert 0 < stats["cpu_allocation"] <= 1 and stats["income"] > 0
        assert stats["window_exhausted"] == 0.0  # the episodes ended on a create that fit nowhere
        assert stats["episodes_ended"] == 2 and stats["leaves_unfinished"] is False  # none cut by the step cap
    assert "scheduled length" in capsys.readouterr().out
    assert main(argv + ["--per-job", str(tmp_path / "jobs.csv")]) == 2
    assert "results are per episode" in capsys.readouterr().err
    assert not (tmp_path / "jobs.csv").exists()


def test_generated_vm_instances_come_from_the_held_out_range():
    """A VM variant with ``held_out_from`` (as a checkpoint trained with it records) is evaluated on
    windows from the held-out rows, never on the training range's draws."""
    split = build("vm-synthetic", held_out_from=4000)
    instances = generated_instances(split, [0, 1], 3)
    held_out = [split.held_out(3, seed)[0] for seed in (0, 1)]
    expected = jax.tree.map(lambda *xs: np.concatenate(xs), *held_out)
    for got, want in zip(jax.tree.leaves(instances), jax.tree.leaves(expected)):
        np.testing.assert_array_equal(got, want)
    starts = np.asarray(draw_starts(jax.random.PRNGKey(0), split, 50, held_out=True))
    assert starts.min() >= 4000  # what held_out draws from
    training = jax.tree.leaves(split.sample_params(jax.random.PRNGKey(0), 3).requests)
    assert not all(np.array_equal(a, b) for a, b in zip(training, jax.tree.leaves(held_out[0].requests)))


@pytest.mark.parametrize("argv, message", [
    (["--policies", "sjf,nosuch"], "unknown policy 'nosuch'"),
    (["--env", "nosuch"], "unknown environment 'nosuch'"),
    (["--loads", "0.1:oops"], "cannot read"),
    (["--jobsets", "0"], "--jobsets and --rollouts must be >= 1"),
    (["--policies", "tetris:2"], "knob must lie in [0, 1]"),
    (["--num-slots", "0"], "num_slots must be >= 1"),
    (["--env", "deeprm2", "--reference-rng"], "Bernoulli arrivals only"),
    (["--reference-rng", "--jobsets-file", "x.csv"], "cannot be combined"),
    (["--env", "vm-synthetic", "--policies", "best_fit", "--reference-rng"], "has no reference generator"),
    (["--env", "vm-synthetic", "--policies", "best_fit", "--jobsets-file", "x.csv"], "does not take them"),
    (["--env", "vm-synthetic", "--policies", "best_fit", "--num-slots", "5"], "unknown option(s) num_slots"),
])
def test_bad_input_is_a_clear_error(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_bad_file_names_line_and_exits_nonzero(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("jobset,job,arrival,duration,res0,res1\n0,0,1,-2,3,1\n")
    proc = subprocess.run([sys.executable, "-m", "jaxsched.evaluate", "--policies", "sjf",
                           "--jobsets-file", str(path)], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "bad.csv, line 2" in proc.stderr and "duration" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_demand_above_capacity_in_file(tmp_path, capsys):
    path = tmp_path / "big.csv"
    path.write_text("jobset,job,arrival,duration,res0,res1\n0,0,1,2,11,1\n")
    assert main(["--policies", "sjf", "--jobsets-file", str(path)]) == 2
    assert "line 2" in capsys.readouterr().err


def test_seeds_read_the_same_in_every_command():
    """One parser for train, evaluate and sweep: a:b or a,b,c."""
    import jaxsched.evaluate
    import jaxsched.sweep
    import jaxsched.train
    from jaxsched.core.config import parse_seeds

    assert jaxsched.evaluate.parse_seeds is jaxsched.sweep.parse_seeds is jaxsched.train.parse_seeds is parse_seeds
    assert parse_seeds("2:5") == parse_seeds("2,3,4") == [2, 3, 4]
    for bad in ("5:2", "1,1", "a:b", "1:2:3", ""):
        with pytest.raises(UsageError, match="--seeds"):
            parse_seeds(bad)


def test_parse_range():
    assert parse_range("0.1:0.5:0.2") == [0.1, 0.3, 0.5]
    assert parse_range("0:3", int) == [0, 1, 2]
    assert parse_range("1,4", int) == [1, 4]
