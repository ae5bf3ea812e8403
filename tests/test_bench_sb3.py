"""``python -m jaxsched.bench train-sb3`` (issue 52 item 3): the hyper-parameter mapping onto SB3 and the skip
path run by default (no torch or SB3 needed); training SB3 itself is skipped with a message when it is absent."""

import importlib.util
from pathlib import Path

import pytest

from jaxsched.bench import sb3 as bench_sb3
from jaxsched.bench.cli import main as bench_main
from jaxsched.experiment import Experiment, load_train_config

CONFIG = Path("configs/mdp_ppo_compact.yaml")


def compact_experiment(*overrides):
    return Experiment.from_config(load_train_config(CONFIG, list(overrides)))


def test_mapping_carries_every_value_of_the_config():
    algo = compact_experiment().algo
    kwargs = bench_sb3.sb3_kwargs(algo)
    assert kwargs == {"n_envs": 32, "n_steps": 50, "batch_size": 64, "n_epochs": 10, "learning_rate": 1e-4,
                      "gamma": 0.99, "gae_lambda": 0.95, "clip_range": 0.2, "ent_coef": 0.01, "vf_coef": 0.5,
                      "max_grad_norm": 0.5, "normalize_advantage": True,
                      "policy_kwargs": {"net_arch": [], "features_extractor_kwargs": {"hidden": 64, "layers": 2}}}
    # the same decisions per update and gradient steps per update on both sides
    assert kwargs["n_envs"] * kwargs["n_steps"] == algo.num_envs * algo.num_steps
    lines = bench_sb3.mapping_lines(algo)
    assert any("num_steps" in line and "n_steps 50" in line for line in lines)
    assert any("clip_eps" in line and "clip_range 0.2" in line for line in lines)


def test_mapping_follows_overrides_and_the_separate_critic():
    algo = compact_experiment("algo_options.lr=3.0e-4", "algo_options.separate_critic=true").algo
    kwargs = bench_sb3.sb3_kwargs(algo)
    assert kwargs["learning_rate"] == 3e-4
    assert kwargs["policy_kwargs"] == {"net_arch": {"pi": [64, 64], "vf": [64, 64]}}  # SB3's default MlpPolicy


def test_reference_env_is_the_config_scenario():
    variant = compact_experiment().variant  # bracis-7, event stepping, visible-slot reward
    kwargs = bench_sb3.reference_env_kwargs(variant)
    assert kwargs["processors"] == 64 and kwargs["job_slots"] == 10 and kwargs["time_horizon"] == 20
    assert kwargs["workload"]["max_job_len"] == 33 and kwargs["workload"]["max_job_size"] == 32
    assert kwargs["workload"]["new_job_rate"] == pytest.approx(0.3)
    assert kwargs["simulation_type"] == "event_based" and kwargs["reward_jobs"] == "job_slots"
    assert kwargs["ignore_memory"] and kwargs["time_limit"] == 100
    with pytest.raises(ValueError, match="bracis"):
        bench_sb3.reference_env_kwargs(compact_experiment("env_options.observation=image").variant)


def test_rows_skip_with_one_line_unless_named():
    why = "torch not installed (pip install ...)"
    rows, messages, status = bench_sb3.plan_rows(None, {"sb3": why, "jaxsched": None})
    assert rows == ["jaxsched"] and status == 0
    assert messages == [f"skipped: the SB3 PPO row: {why}"]
    rows, messages, status = bench_sb3.plan_rows(["sb3", "jaxsched"], {"sb3": why, "jaxsched": None})
    assert status == 2 and len(messages) == 1
    assert bench_sb3.plan_rows(None, {"sb3": None, "jaxsched": None}) == (["sb3", "jaxsched"], [], 0)


def test_named_sb3_row_without_the_reference_exits_2(tmp_path, capsys):
    status = bench_main(["train-sb3", "--rows", "sb3", "--reference", str(tmp_path), "--out",
                        str(tmp_path / "out.json")])
    out = capsys.readouterr().out.strip().splitlines()
    assert status == 2 and len(out) == 1 and out[0].startswith("skipped: the SB3 PPO row:")
    assert not (tmp_path / "out.json").exists()


SB3_MISSING = bench_sb3.sb3_missing()
REFERENCE_MISSING = bench_sb3.reference_missing(Path(__file__).resolve().parents[2] / "shared" / "reference")


@pytest.mark.skipif(SB3_MISSING is not None or REFERENCE_MISSING is not None,
                    reason=f"SB3 PPO on sched-rl-gym cannot run here: {SB3_MISSING or REFERENCE_MISSING}")
def test_sb3_trains_on_the_reference_with_jaxsched_s_network():
    experiment = compact_experiment("algo_options.num_envs=2", "algo_options.minibatch_size=50")
    algo = experiment.algo
    reference_env = dict(bench_sb3.reference_env_kwargs(experiment.variant), gamma=algo.gamma)
    root = Path(__file__).resolve().parents[2] / "shared" / "reference"
    sb3_worker = pytest.importorskip("jaxsched.bench.sb3_worker")  # the process that imports torch and SB3
    row = sb3_worker.run_sb3({"sb3": bench_sb3.sb3_kwargs(algo), "reference_env": reference_env, "seed": 0,
                              "reference": str(root / "sched-rl-gym"), "decisions": 100, "cores": 1})
    assert row["decisions"] == 100 and row["decisions_per_s"] > 0
    # 118 compact features -> 2 x 64 shared tanh torso -> 11 logits + 1 value: jaxsched's ActorCritic
    assert row["parameters"] == 118 * 64 + 64 + 64 * 64 + 64 + 64 * 11 + 11 + 64 + 1
