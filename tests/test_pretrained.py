"""``jaxsched.pretrained``: every shipped policy loads and acts as exported (its greedy fingerprint), its
record is a faithful copy of its run's config and held-out rows, the files ship in the wheel, and an
export of a tiny run round-trips (and refuses what it cannot ship) in a second folder."""

from __future__ import annotations

import fnmatch
import json
import os
import subprocess
import sys
from pathlib import Path

import jax
import numpy as np
import pytest

from jaxsched import pretrained
from jaxsched.core.config import build_config, to_dict
from jaxsched.core.runs import read_run_config
from jaxsched.errors import CheckpointError, UsageError
from jaxsched.experiment import TrainConfig, load_run, train, train_config

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = pretrained.list()
ROWS = ("mean_slowdown", "mean_completion_time", "jobs", "finished", "unfinished", "dropped")

TINY = dict(
    env="deeprm",
    env_options=dict(num_slots=3, horizon=8, max_job_len=6, capacity=5, max_job_size=5, backlog_size=8,
                     simu_len=8, load=0.8),
    algo_options=dict(num_jobsets=2, num_rollouts=2, episode_len=20),
    iterations=2, chunk=1, seeds=[0, 1], baselines=["sjf"], eval_jobsets=2, checkpoint_every=1,
)


def test_the_headline_policies_ship():
    """DeepRM (MLP at 0.7 and 1.1, the slot scorer, DeepRM_Off) and the MDP-design PPO agents, each small."""
    assert {"deeprm-mlp-load0.7", "deeprm-mlp-load1.1", "deeprm-slots-load0.7", "deeprm-off-slots",
            "bracis3-ppo-12m", "bracis7-ppo-6m"} <= set(SHIPPED)
    for name in SHIPPED:
        entry = pretrained.record(name)
        path = pretrained.HERE / entry["file"]
        assert path.stat().st_size == entry["bytes"] <= pretrained.MAX_BYTES, name
        assert entry["seed"] == entry["config"]["seeds"][entry["seed_index"]], name


@pytest.mark.parametrize("name", SHIPPED)
def test_each_loads_and_matches_its_fingerprint(name):
    agent = pretrained.verify(name)
    assert agent.config.env == agent.record["env"] and agent.config.algo == agent.record["algo"]
    assert sum(np.size(x) for x in jax.tree.leaves(agent.params)) == agent.record["parameters"]
    assert len(agent.record["fingerprint"]["actions"]) > 10  # a real episode, not an empty check


@pytest.mark.parametrize("name", SHIPPED)
def test_each_record_copies_its_run(name):
    """The config and held-out rows are the source run's (when results/ is in this checkout)."""
    entry = pretrained.record(name)
    run = ROOT / entry["source"]
    if not (run / "eval.json").exists():
        pytest.skip(f"{entry['source']} is not in this checkout")
    assert to_dict(train_config(entry["config"])) == to_dict(train_config(read_run_config(run)))
    rows = json.loads((run / "eval.json").read_text())["policies"]
    seed = entry["seed"]
    assert entry["held_out"]["greedy"] == rows[f"trained-s{seed}"]
    assert entry["held_out"]["sampled"] == rows[f"trained-s{seed}-sampled"]
    baselines = {k: v for k, v in rows.items() if not k.startswith("trained-")}
    assert baselines and entry["held_out"]["baselines"] == baselines


def test_the_wheel_ships_every_policy_file():
    """pyproject's package data matches every file of pretrained_policies/, and the index names them all."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["jaxsched"]
    files = sorted(p.relative_to(ROOT / "jaxsched").as_posix() for p in pretrained.HERE.iterdir() if p.is_file())
    assert files and all(any(fnmatch.fnmatch(f, g) for g in globs) for f in files), files
    index = json.loads((pretrained.HERE / pretrained.INDEX).read_text())["policies"]
    assert sorted(f"pretrained_policies/{e['file']}" for e in index.values()) + ["pretrained_policies/index.json"] \
        == files


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """A tiny 2-seed run, its second seed exported into a folder of its own."""
    run = tmp_path_factory.mktemp("pretrained") / "run"
    train(build_config(TrainConfig, TINY), run, log=lambda *a: None)
    folder = run.parent / "shipped"
    assert pretrained.main(["--folder", str(folder), "export", "tiny", "--run", str(run), "--seed-index", "1"]) == 0
    return run, folder


def test_an_export_round_trips(exported):
    run, folder = exported
    _, states = load_run(run)
    agent = pretrained.verify("tiny", folder)
    for mine, theirs in zip(jax.tree.leaves(agent.params), jax.tree.leaves(jax.tree.map(lambda x: x[1], states.params))):
        np.testing.assert_array_equal(np.asarray(mine), np.asarray(theirs))
    rows = json.loads((run / "eval.json").read_text())["policies"]
    assert agent.record["seed"] == 1 and agent.record["held_out"]["sampled"] == rows["trained-s1-sampled"]
    assert pretrained.list(folder) == ["tiny"]


def test_a_changed_file_or_fingerprint_is_refused(exported, tmp_path):
    _, folder = exported
    copy = tmp_path / "copy"
    copy.mkdir()
    for path in folder.iterdir():
        copy.joinpath(path.name).write_bytes(path.read_bytes())
    data = bytearray((copy / "tiny.msgpack").read_bytes())
    data[-1] ^= 1
    (copy / "tiny.msgpack").write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="sha256"):
        pretrained.load("tiny", copy)
    (copy / "tiny.msgpack").write_bytes((folder / "tiny.msgpack").read_bytes())
    index = json.loads((copy / "index.json").read_text())
    actions = index["policies"]["tiny"]["fingerprint"]["actions"]
    actions[0] = actions[0] + 1
    (copy / "index.json").write_text(json.dumps(index))
    with pytest.raises(CheckpointError, match="greedy actions"):
        pretrained.verify("tiny", copy)


def test_mistakes_give_one_line_and_write_nothing(exported, tmp_path, capsys):
    run, folder = exported
    with pytest.raises(UsageError, match="no pretrained policy 'nope'; shipped: tiny"):
        pretrained.load("nope", folder)
    target = tmp_path / "out"
    for argv, message in (
            (["export", "x", "--run", str(run), "--seed-index", "2"], "the run has 2 seed(s)"),
            (["export", "x", "--run", str(tmp_path)], "has no eval.json"),
            (["verify", "nope"], "no pretrained policy 'nope'")):
        assert pretrained.main(["--folder", str(target), *argv]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error: ") and message in err[0], err
    assert not target.exists()


@pytest.mark.slow
def test_a_shipped_policy_gives_its_run_numbers_back_exactly(tmp_path):
    """``evaluate`` from the shipped file re-runs the run's held-out evaluation: eval.json's rows, every
    digit (DeepRM MLP at load 0.7: 100 jobsets; about a minute on a 2-core CPU)."""
    name, out = "deeprm-mlp-load0.7", tmp_path / "rows.json"
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}  # the command's own flags, as training's
    subprocess.run([sys.executable, "-m", "jaxsched.pretrained", "evaluate", name, "--summary", str(out)],
                   cwd=ROOT, env=env, check=True, capture_output=True, timeout=900)
    now = json.loads(out.read_text())
    recorded = pretrained.record(name)["held_out"]
    for policy, kind in (("trained-s0", "greedy"), ("trained-s0-sampled", "sampled")):
        assert {k: now[policy][k] for k in ROWS if k in recorded[kind]} == \
            {k: recorded[kind][k] for k in ROWS if k in recorded[kind]}, policy
