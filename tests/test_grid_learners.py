"""The grid family's learners (SARSA with an ESN or an MLP Q) and its command-line contract: the ridge
readout against numpy, the reservoir's construction, SARSA's targets, the train CLI (checkpoints,
resume, eval.json) for every grid config, and ``evaluate --env grid`` with its summary and per-job files."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxsched.algos import ALGORITHMS
from jaxsched.baselines.grid import make_heuristic
from jaxsched.algos.sarsa import SarsaConfig, fit_readout, init_reservoir, reservoir_features, ridge
from jaxsched.evaluate import main as evaluate_main
from jaxsched.experiment import Experiment, load_train_config
from jaxsched.registry import build
from jaxsched.train import main as train_main

TINY_ENV = ["env_options.num_jobs=120", "env_options.exclude=10", "env_options.num_cores=6"]
TINY_ALGO = ["algo_options.num_envs=2", "algo_options.rollout_steps=8", "algo_options.buffer_size=64",
             "algo_options.num_starts=2", "algo_options.warm_start_iterations=1", "algo_options.gradient_steps=2",
             "algo_options.batch_size=8"]
SUMMARY_KEYS = {"interactive_W_mean", "interactive_W_std", "batch_W_mean", "batch_W_std",
                "interactive_wait_under_120s", "interactive_W_over_0.9", "mean_wait", "jobs", "finished"}


def test_ridge_matches_numpy_lstsq():
    rng = np.random.default_rng(0)
    features = rng.normal(size=(200, 6)).astype(np.float32)
    targets = (features @ np.arange(1, 7) + 0.1 * rng.normal(size=200)).astype(np.float32)
    weights = (rng.uniform(size=200) < 0.8).astype(np.float32)  # rows outside the buffer weigh 0
    theta = jax.jit(ridge, static_argnums=3)(jnp.asarray(features), jnp.asarray(targets), jnp.asarray(weights), 0.0)
    kept = weights > 0
    expected = np.linalg.lstsq(features[kept], targets[kept], rcond=None)[0]
    np.testing.assert_allclose(np.asarray(theta), expected, rtol=1e-3, atol=1e-3)
    # with a penalty: the augmented least-squares problem [X; sqrt(l) I] theta = [y; 0]
    penalty = 5.0
    augmented = np.vstack([features[kept], np.sqrt(penalty) * np.eye(6)])
    expected = np.linalg.lstsq(augmented, np.concatenate([targets[kept], np.zeros(6)]), rcond=None)[0]
    np.testing.assert_allclose(np.asarray(ridge(features, targets, weights, penalty)), expected, rtol=1e-3, atol=1e-3)


def test_reservoir_is_sparse_contracting_and_reads_a_subset():
    config = SarsaConfig()
    reservoir = init_reservoir(jax.random.PRNGKey(0), 19, config)
    w = np.asarray(reservoir["w"])
    assert w.shape == (100, 100) and np.all(w >= 0)
    assert 0.07 < np.mean(w > 0) < 0.13  # 10% connectivity
    assert np.max(np.abs(np.linalg.eigvals(w))) == pytest.approx(0.9, rel=1e-3)
    units = np.asarray(reservoir["readout_units"])
    assert 8 <= units.sum() <= 25  # ~15% of the units reach the output
    z = reservoir_features(reservoir, jnp.ones((3, 19)), config.washout)
    assert z.shape == (3, 101) and np.all(np.asarray(z)[:, :100][:, units == 0] == 0)
    assert np.all(np.asarray(z)[:, -1] == 1.0)  # the bias


def test_sarsa_esn_refits_its_readout_to_the_sarsa_targets():
    variant = build("grid", num_jobs=120, exclude=10, num_cores=6)
    config = SarsaConfig(num_envs=2, rollout_steps=8, buffer_size=64, num_starts=2, warm_start_iterations=1)
    init_fn, update_fn = ALGORITHMS["sarsa"].make_train(variant, config, jax.random.PRNGKey(0))
    initial = init_fn(jax.random.PRNGKey(1))
    update = jax.jit(update_fn)
    state, first = update(initial)
    assert float(first["warm_start"]) == 1.0 and int(state.buffer.size) == 16
    # Q = 0 before the first fit, so its targets are Q + η (r + γ Q' − Q) = η r on the 16 rows filled
    filled = (np.arange(64) < 16).astype(np.float32)
    expected = fit_readout(state.buffer.z, config.eta * state.buffer.reward, jnp.asarray(filled), config.ridge)
    np.testing.assert_allclose(expected, ridge(state.buffer.z, config.eta * state.buffer.reward, jnp.asarray(filled),
                                               16 * config.ridge), rtol=1e-6)
    # compare fitted values (the readout's features are nearly collinear: its coefficients are not well
    # determined, its predictions are)
    fitted = np.asarray(state.buffer.z[:16] @ state.params["theta"])
    np.testing.assert_allclose(fitted, np.asarray(state.buffer.z[:16] @ expected), rtol=1e-3, atol=1e-4)
    assert np.corrcoef(fitted, config.eta * np.asarray(state.buffer.reward[:16]))[0, 1] > 0.5
    assert np.any(np.asarray(state.params["theta"]) != 0)
    state, second = update(state)
    assert float(second["warm_start"]) == 0.0 and int(state.buffer.size) == 32
    assert np.isfinite(float(second["loss"])) and float(second["decisions"]) == 16
    np.testing.assert_array_equal(state.params["reservoir"]["w"], initial.params["reservoir"]["w"])  # fixed


def test_sarsa_refuses_envs_without_state_action_vectors():
    with pytest.raises(ValueError, match="state_action_inputs"):
        ALGORITHMS["sarsa"].make_train(build("deeprm"), SarsaConfig(), jax.random.PRNGKey(0))


@pytest.mark.parametrize("config", ["grid_sarsa_mlp", "grid_elastic_esn"])
def test_every_grid_config_builds_and_iterates(config):
    """Each config's learner (the MLP Q; the elastic env's pool actions) takes a jitted iteration."""
    overrides = [*TINY_ENV, *TINY_ALGO, "seeds=[0]"]
    if "elastic" in config:
        overrides += ["env_options.pool_sizes=[4, 6, 8]", "env_options.initial_pool=6"]
    experiment = Experiment.from_config(load_train_config(Path(f"configs/{config}.yaml"), overrides))
    state, metrics = jax.jit(experiment.update_fn)(experiment.init_fn(jax.random.PRNGKey(0)))
    assert int(state.iteration) == 1 and float(metrics["decisions"]) == 16 and np.isfinite(float(metrics["loss"]))
    if "elastic" in config:
        assert experiment.variant.env.num_actions == 120 * 3  # every waiting job (capacity: the 120-job window) x 3 sizes


def test_train_cli_runs_grid_end_to_end_and_resumes(tmp_path):
    out = tmp_path / "run"
    args = ["--config", "configs/grid_sarsa_esn.yaml", "--out", str(out), "iterations=2", "chunk=1",
            "checkpoint_every=1", "seeds=[0]", "eval_jobsets=2", "baselines=[fifo]", *TINY_ENV, *TINY_ALGO]
    assert train_main(args) == 0
    with open(out / "metrics.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["iteration"]) for r in rows] == [1, 2]
    assert {"loss", "decisions", "mean_reward", "mean_return", "warm_start"} <= set(rows[0])
    summary = json.loads((out / "eval.json").read_text())["policies"]
    assert set(summary) == {"fifo", "trained-s0", "trained-s0-sampled"}
    for stats in summary.values():
        assert SUMMARY_KEYS <= set(stats) and stats["finished"] == stats["jobs"] > 0
    assert (out / "learning_curve_reward.png").exists()
    assert train_main(["--resume", str(out), "iterations=3"]) == 0  # continues from the checkpoint
    with open(out / "metrics.csv", newline="") as f:
        assert [int(r["iteration"]) for r in csv.DictReader(f)] == [1, 2, 3]


def test_evaluate_cli_grid_contract(tmp_path):
    summary, per_job = tmp_path / "s.json", tmp_path / "jobs.csv"
    code = evaluate_main(["--env", "grid", "--policies", "fifo,edf,sjf,fairshare", "--runtime-model", "estimated",
                          "--episodes", "2", "--seed", "3", "--num-jobs", "150", "--exclude", "10",
                          "--summary", str(summary), "--per-job", str(per_job)])
    assert code == 0
    stats = json.loads(summary.read_text())
    assert set(stats) == {"fifo", "edf", "sjf", "fairshare"}
    for row in stats.values():
        assert SUMMARY_KEYS <= set(row) and row["jobs"] == row["finished"] == 2 * 130
        for key in ("interactive_wait_under_120s", "interactive_W_over_0.9", "interactive_W_mean", "batch_W_mean"):
            assert 0.0 <= row[key] <= 1.0
    with open(per_job, newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["policy", "episode", "job", "class", "vo", "submit", "start", "finish", "wait", "W"]
    assert len(rows) == 4 * 2 * 150  # every job, the excluded ones too
    for row in rows[:50]:
        assert int(row["finish"]) - int(row["start"]) >= 1 and int(row["wait"]) == int(row["start"]) - int(row["submit"])


def test_evaluate_cli_grid_bad_input(tmp_path, capsys):
    assert evaluate_main(["--env", "grid", "--policies", "tetris", "--num-jobs", "50", "--exclude", "5"]) == 2
    assert "unknown grid baseline" in capsys.readouterr().err
    assert evaluate_main(["--env", "grid", "--num-jobs", "50"]) == 2  # exclude 500 of 50 jobs
    assert "--exclude" in capsys.readouterr().err
    assert evaluate_main(["--env", "grid", "--swf", str(tmp_path / "missing.swf"), "--num-jobs", "50",
                          "--exclude", "5"]) == 2
    assert "not found" in capsys.readouterr().err
    assert evaluate_main(["--env", "grid-elastic", "--policies", "fixed_30,queue_proportional", "--num-jobs", "60",
                          "--exclude", "5", "--episodes", "1", "--summary", str(tmp_path / "e.json")]) == 0
    pools = json.loads((tmp_path / "e.json").read_text())
    assert pools["fixed_30"]["mean_pool"] == pytest.approx(30.0)


def test_a_fixed_pool_with_a_job_rule_takes_that_rules_job_and_the_nearest_allowed_size():
    """``fixed_<cores>_<rule>`` (grid_tables' elastic references): the rule's job (SJF: the shortest, ties to
    the oldest) and the allowed pool size nearest the target; an unlisted combination is refused."""
    sizes = jnp.asarray((30, 40, 50, 60, 70, 80, 81, 90, 100, 110, 120), jnp.int32)
    allowed = sizes != 90  # 90 not allowed now: the nearest allowed to 90 is 81 (9 cores off; 100 is 10)
    obs = type("Obs", (), dict(job=jnp.asarray([5, 3, 7, -1]), exec_time=jnp.asarray([100.0, 10.0, 10.0, 0.0]),
                               size_allowed=allowed, pool_sizes=sizes))()
    num_sizes = len(sizes)
    assert int(make_heuristic("fixed_120_sjf")(None, obs)) == 1 * num_sizes + 10  # job 3 (slot 1), 120 cores
    assert int(make_heuristic("fixed_90_sjf")(None, obs)) == 1 * num_sizes + 6  # 81 cores
    assert int(make_heuristic("fixed_120")(None, obs)) == 1 * num_sizes + 10  # FIFO: job 3 is the oldest too
    with pytest.raises(ValueError, match="unknown grid heuristic"):
        make_heuristic("fixed_100_sjf")


def test_a_state_steps_on_its_own_window_whatever_the_params():
    """Learners step every episode with the variant's default params; the window lives in the state."""
    variant = build("grid", num_jobs=60, exclude=5, num_cores=3)
    windows = variant.sample_params(jax.random.PRNGKey(5), 2)
    first, second = (jax.tree.map(lambda x, i=i: x[i], windows) for i in range(2))
    env = variant.env
    step = jax.jit(env.transition)
    state_own, state_other = env.initial_state(first), env.initial_state(first)
    for _ in range(20):
        state_own, reward_own, _, _ = step(state_own, 0, first)
        state_other, reward_other, _, _ = step(state_other, 0, second)  # another window's params
        assert float(reward_own) == float(reward_other)
    np.testing.assert_array_equal(state_own.start, state_other.start)
    assert int(state_own.clock) == int(state_other.clock)
