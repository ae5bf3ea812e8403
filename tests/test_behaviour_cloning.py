"""Behaviour cloning: demonstrations are the labeller's decisions, SJF is learnt to >= 90% validation
accuracy, early stopping keeps the best epoch, and the result seeds REINFORCE."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxsched.algos.bc import BCConfig, collect_demonstrations, l2_penalty, train_behaviour_cloning
from jaxsched.algos.reinforce import ReinforceConfig, make_train
from jaxsched.baselines.deeprm import random_policy, sjf
from jaxsched.core.networks import init_network, make_network
from jaxsched.core.rollout import make_evaluator
from jaxsched.envs.deeprm.generator import generate_many
from jaxsched.envs.deeprm.types import with_jobsets
from jaxsched.registry import build

SMALL = dict(num_slots=3, horizon=8, max_job_len=6, capacity=5, max_job_size=5, backlog_size=8, simu_len=10)


@pytest.fixture(scope="module")
def small():
    return build("deeprm", **SMALL)


def test_demonstrations_are_every_valid_labeller_decision(small):
    env, params = small.env, small.params
    jobsets = generate_many(jax.random.PRNGKey(0), small.workload, 3)
    batched = with_jobsets(params, jobsets)
    demos = collect_demonstrations(env, batched, jax.random.PRNGKey(1), 60, sjf)
    episodes = make_evaluator(env, sjf, 1)(batched, jax.random.PRNGKey(1))
    assert demos.action.shape[0] == int(np.sum(np.asarray(episodes.decisions)))
    np.testing.assert_array_equal(np.bincount(np.asarray(demos.jobset)), np.asarray(episodes.decisions)[:, 0])
    # SJF's labels are its own choices on the recorded observations.
    m = env.num_slots
    assert set(np.unique(np.asarray(demos.action))) <= set(range(m + 1))
    assert np.any(np.asarray(demos.action) < m) and np.any(np.asarray(demos.action) == m)

    # A labeller that picks invalid slots: recorded as "move on", which is what the env did.
    noisy = collect_demonstrations(env, batched, jax.random.PRNGKey(1), 60, random_policy)
    mask, action = np.asarray(noisy.action_mask), np.asarray(noisy.action)
    assert np.all(mask[np.arange(action.size), action])


def test_l2_penalty_counts_kernels_only():
    network = make_network("mlp", 3, hidden=2)
    params = init_network(network, jax.random.PRNGKey(0), (4,))
    params = jax.tree.map(jnp.ones_like, params)
    assert float(l2_penalty(params)) == 4 * 2 + 2 * 3  # biases (2 + 3 ones) excluded


def test_bc_learns_sjf_and_seeds_reinforce(small):
    config = BCConfig(num_jobsets=80, episode_len=60, batch_size=64, max_epochs=40, patience=8, lr=3e-3)
    result = train_behaviour_cloning(small, config, jax.random.PRNGKey(0))
    assert result.num_train > 0 and result.num_val > 0
    assert result.best_val_acc >= 0.9, result.history
    epochs = [h["epoch"] for h in result.history]
    assert epochs == list(range(1, len(epochs) + 1))
    assert result.best_val_acc == max(h["val_acc"] for h in result.history)
    assert result.history[result.best_epoch - 1]["val_acc"] == result.best_val_acc
    # Early stopping: ran at most `patience` epochs past the best one.
    assert len(epochs) - result.best_epoch <= config.patience
    assert result.history[-1]["train_loss"] < result.history[0]["train_loss"]

    # The cloned params are REINFORCE's initial params, unchanged.
    init_fn, _ = make_train(small, ReinforceConfig(num_jobsets=2, num_rollouts=2), jax.random.PRNGKey(0))
    state = init_fn(jax.random.PRNGKey(1), initial_params=result.params)
    for a, b in zip(jax.tree.leaves(state.params), jax.tree.leaves(result.params)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    with pytest.raises(ValueError, match="initial_params"):
        init_fn(jax.random.PRNGKey(1), initial_params={"params": {}})


def test_config_rejects_unknown_optimiser():
    with pytest.raises(ValueError, match="optimiser"):
        BCConfig(optimiser="sgd")


def test_cnn_cloning_runs_minibatches_from_python_and_learns(small):
    """The CNN's epochs loop over jitted minibatch steps (not a scan); they still fit the labels."""
    config = BCConfig(num_jobsets=12, episode_len=40, batch_size=32, max_epochs=4, patience=4, network="cnn")
    result = train_behaviour_cloning(small, config, jax.random.PRNGKey(0))
    assert [h["epoch"] for h in result.history] == [1, 2, 3, 4]
    assert result.history[-1]["train_loss"] < result.history[0]["train_loss"]
    cnn = init_network(make_network("cnn", small.env.num_actions), jax.random.PRNGKey(0), small.env.feature_shape())
    assert jax.tree.structure(result.params) == jax.tree.structure(cnn)
