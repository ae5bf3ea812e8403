"""Every command refuses bad input the same way: exit status 2, one error line, no traceback, nothing
written.

The rule checked: the last line on stderr is the one error line, ``error: ...`` (jaxsched's own) or
``<prog>: error: ...`` (argparse's, after its usage lines); no other stderr line is an error line;
neither stream holds a traceback; the working directory (an empty tmp_path) stays empty. Each
command's ``main(argv)`` runs in-process (argparse's exits are caught), so the table runs in seconds.
"""

import importlib
import re
from pathlib import Path

import pytest

from jaxsched.workloads import datasets

QUICKSTART = str(Path(__file__).resolve().parents[1] / "configs" / "quickstart.yaml")
ERROR_LINE = re.compile(r"^(python -m [\w.]+: )?error: \S")

CASES = [
    # train
    ("jaxsched.train", ["--config", "nope.yaml"]),
    ("jaxsched.train", ["--resume", "nope"]),
    ("jaxsched.train", ["iterations=-1"]),
    ("jaxsched.train", ["iterationz=3"]),  # an unknown config key
    ("jaxsched.train", ["iterations"]),  # not key=value
    ("jaxsched.train", ["env=nope"]),
    ("jaxsched.train", ["algo=nope"]),
    ("jaxsched.train", ["checkpoint_minutes=-1"]),
    ("jaxsched.train", ["chunk=0"]),
    ("jaxsched.train", ["--config", QUICKSTART, "--seeds", "a,b"]),
    ("jaxsched.train", ["--config", QUICKSTART, "--seeds", "3:1"]),
    ("jaxsched.train", ["--config", "/dev/null"]),  # an empty config file
    ("jaxsched.train", ["--from-step", "3", "iterations=2"]),
    ("jaxsched.train", ["--config", QUICKSTART, "--num-processes", "2"]),
    ("jaxsched.train", ["--bogus"]),
    ("jaxsched.train", ["--from-step", "x"]),
    ("jaxsched.train", ["env=vm-synthetic", "algo=dqn", "env_options={held_out_from: 10}"]),
    # evaluate
    ("jaxsched.evaluate", ["--env", "nope"]),
    ("jaxsched.evaluate", ["--jobsets", "-1"]),
    ("jaxsched.evaluate", ["--jobsets", "many"]),
    ("jaxsched.evaluate", ["--rollouts", "0"]),
    ("jaxsched.evaluate", ["--loads", "0.5:0.1:0.2"]),
    ("jaxsched.evaluate", ["--loads", "a:b:c"]),
    ("jaxsched.evaluate", ["--loads", "0.1:0.5:0"]),
    ("jaxsched.evaluate", ["--loads", "-0.5"]),
    ("jaxsched.evaluate", ["--seeds", "5:2"]),
    ("jaxsched.evaluate", ["--load", "-1"]),
    ("jaxsched.evaluate", ["--num-slots", "0"]),
    ("jaxsched.evaluate", ["--policies", "nope"]),
    ("jaxsched.evaluate", ["--policies", ","]),
    ("jaxsched.evaluate", ["--multi-core", "bad"]),
    ("jaxsched.evaluate", ["--jobsets-file", "nope.csv"]),
    ("jaxsched.evaluate", ["--checkpoint", "nope"]),
    ("jaxsched.evaluate", ["--from-step", "3"]),
    ("jaxsched.evaluate", ["--seed-index", "1"]),
    ("jaxsched.evaluate", ["--seeds", "1,1"]),
    ("jaxsched.evaluate", ["--env", "grid", "--swf", "nope.swf"]),
    ("jaxsched.evaluate", ["--env", "grid", "--swf", "dataset:nope"]),
    ("jaxsched.evaluate", ["--env", "grid", "--swf", "dataset:lublin-256"]),  # a known dataset, absent here
    ("jaxsched.evaluate", ["--bogus"]),
    # sweep
    ("jaxsched.sweep", ["--config", "nope.yaml", "--out", "o"]),
    ("jaxsched.sweep", ["--config", QUICKSTART]),
    ("jaxsched.sweep", ["--config", QUICKSTART, "--out", "o", "--seeds", "x"]),
    ("jaxsched.sweep", ["--config", QUICKSTART, "--out", "o", "--seeds", "3:1"]),
    ("jaxsched.sweep", ["--config", "/dev/null", "--out", "o"]),
    ("jaxsched.sweep", ["--config", QUICKSTART, "--out", "o", "--shard", "2/2"]),
    ("jaxsched.sweep", ["--config", QUICKSTART, "--out", "o", "--workers", "0"]),
    ("jaxsched.sweep", ["--config", QUICKSTART, "--out", "o", "nokey"]),
    ("jaxsched.sweep", ["--config", QUICKSTART, "--out", "o", "iterationz=1,2"]),
    ("jaxsched.sweep", ["--config", QUICKSTART, "--out", "o", "iterations=-1,2"]),
    ("jaxsched.sweep", ["--config", QUICKSTART, "--out", "o", "env=nope"]),
    # bench (vm with --cpu-devices 1: more would restart the process)
    ("jaxsched.bench", ["nope"]),
    ("jaxsched.bench", ["env", "--batch-sizes", "a"]),
    ("jaxsched.bench", ["env", "--steps", "-1"]),
    ("jaxsched.bench", ["train", "--devices", "x"]),
    ("jaxsched.bench", ["train", "--config", "nope.yaml", "--devices", "1"]),
    ("jaxsched.bench", ["train", "--config", QUICKSTART, "--devices", "1", "iterationz=3"]),
    ("jaxsched.bench", ["vm", "--num-pms", "x"]),
    ("jaxsched.bench", ["vm", "--cpu-devices", "1", "--trace", "dataset:nope"]),
    ("jaxsched.bench", ["vm", "--cpu-devices", "1", "--trace", "nope.csv"]),
    ("jaxsched.bench", ["grid", "--jobs", "0"]),
    ("jaxsched.bench", ["grid", "--batches", "a"]),
    ("jaxsched.bench", ["event", "--scenario", "vm-frag"]),
    ("jaxsched.bench", ["event", "--batches", "0"]),
    # data
    ("jaxsched.data", ["frob"]),
    ("jaxsched.data", ["fetch", "nope"]),
    ("jaxsched.data", ["path", "nope"]),
    ("jaxsched.data", ["path", "lublin-256"]),  # absent here
    # reproduce
    ("jaxsched.reproduce", []),
    ("jaxsched.reproduce", ["nope-id"]),
    ("jaxsched.reproduce", ["--bogus"]),
    # the studies
    ("jaxsched.studies.compare_runs", ["noequals", "--out", "o"]),
    ("jaxsched.studies.compare_runs", ["x=nope", "--out", "o"]),
    ("jaxsched.studies.grid_tables", ["--episodes", "-1"]),
    ("jaxsched.studies.grid_tables", ["--option", "nokv"]),
    ("jaxsched.studies.grid_tables", ["--option", "nope=3"]),
    ("jaxsched.studies.grid_tables", ["--run", "x"]),
    ("jaxsched.studies.grid_tables", ["--run", "x=nope"]),
    ("jaxsched.studies.grid_tables", ["--swf", "dataset:nope"]),
    ("jaxsched.studies.mdp_study", ["bogus", "--out", "o"]),
    ("jaxsched.studies.mdp_study", ["fig4", "--out", "o.json", "--jobsets", "-1"]),
    ("jaxsched.studies.mdp_study", ["fig4", "--out", "o.json", "--scenarios", "nope"]),
    ("jaxsched.studies.mdp_study", ["fig4", "--out", "o.json", "--runs", "nope", "--scenarios", "bracis-1"]),
    ("jaxsched.studies.mdp_study", ["curves", "--out", "o", "--runs", "nope"]),
    ("jaxsched.studies.swf_eval", ["--trace", "nope.swf"]),
    ("jaxsched.studies.swf_eval", ["--trace", "dataset:nope"]),
    ("jaxsched.studies.swf_eval", ["--trace", "dataset:lublin-256"]),  # absent here
    ("jaxsched.studies.vm_rollout", ["--num-pms", "x"]),
    ("jaxsched.studies.vm_rollout", ["--env", "nope", "--num-pms", "5"]),
    ("jaxsched.studies.vm_rollout", ["--starts", "0"]),
    ("jaxsched.studies.vm_rollout", ["--starts-from", "nope.json"]),
    ("jaxsched.studies.vm_rollout", ["--base", "nope"]),
    ("jaxsched.studies.vm_rollout", ["--cvd-k", "a,b"]),
    ("jaxsched.studies.vm_planner", ["--starts", "0"]),
    ("jaxsched.studies.vm_planner", ["--num-pms", "5,10", "--starts", "1,2,3"]),
    ("jaxsched.studies.vm_planner", ["--heuristics", "first_fit"]),
    ("jaxsched.studies.vm_planner", ["--cvd-k", "1,1"]),
    ("jaxsched.studies.vm_planner", ["--held-out-from", "1"]),
    ("jaxsched.studies.vm_table", ["--num-pms", "x"]),
    ("jaxsched.studies.vm_table", ["--starts", "0"]),
    ("jaxsched.studies.vm_table", ["--env", "nope"]),
    ("jaxsched.studies.vm_table", ["--policies", "nope"]),
    ("jaxsched.studies.vm_table", ["--option", "nope=1"]),
    ("jaxsched.studies.vm_table", ["--env", "vm-synthetic", "--option", "held_out_from=99999"]),
    ("jaxsched.studies.vm_table", ["--checkpoint", "nope"]),
    ("jaxsched.studies.vm_table", ["--all-seeds"]),
    ("jaxsched.studies.withholding", []),
    ("jaxsched.studies.withholding", ["--checkpoint", "nope"]),
    ("jaxsched.env_cards", ["--bogus"]),
    ("jaxsched.__main__", ["--bogus"]),
]


@pytest.fixture
def empty_cwd(tmp_path, tmp_path_factory, monkeypatch):
    """An empty working directory, and no dataset found (an empty cache, no checkout copies)."""
    monkeypatch.setenv("JAXSCHED_DATA", str(tmp_path_factory.mktemp("empty_cache")))
    monkeypatch.setattr(datasets, "checkout_data_dir", lambda: None)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("module, argv", CASES, ids=[f"{m.split('.')[-1]} {' '.join(a)}" for m, a in CASES])
def test_bad_input_is_one_error_line(module, argv, empty_cwd, capsys):
    try:
        loaded = importlib.import_module(module)  # a command module, or a package run by its __main__
        code = (loaded if hasattr(loaded, "main") else importlib.import_module(f"{module}.__main__")).main(argv)
    except SystemExit as exit_:  # argparse's
        code = exit_.code
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2, err
    assert "Traceback" not in out + err
    assert lines and ERROR_LINE.match(lines[-1]), err
    assert sum(bool(ERROR_LINE.match(line)) for line in lines) == 1, err
    assert list(empty_cwd.iterdir()) == []
