"""Behaviour cloning: demonstrations are the labeller's decisions, SJF is learnt to >= 90% validation
accuracy, early stopping keeps the best epoch, and the result seeds REINFORCE."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxsched.algos.bc import BCConfig, collect_demonstrations, l2_penalty, train_behaviour_cloning
from jaxsched.algos.reinforce import ReinforceConfig, make_train
from jaxsched.baselines.deeprm import random_policy, sjf, sjf_ties
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


def test_sjf_ties_are_the_eligible_slots_as_short_as_the_choice():
    from types import SimpleNamespace

    obs = SimpleNamespace(fits_now=jnp.array([False, True, True, True, True]),
                          slot_duration=jnp.array([1, 3, 2, 2, 0]))  # slot 4 empty, slot 0 does not fit
    assert int(sjf(None, obs)) == 2
    np.testing.assert_array_equal(sjf_ties(obs, sjf(None, obs)), [False, False, True, True, False, False])
    none_fit = SimpleNamespace(fits_now=jnp.zeros(5, bool), slot_duration=obs.slot_duration)
    assert int(sjf(None, none_fit)) == 5
    np.testing.assert_array_equal(sjf_ties(none_fit, jnp.int32(5)), [False] * 5 + [True])


def test_demonstrations_mark_sjf_ties(small):
    batched = with_jobsets(small.params, generate_many(jax.random.PRNGKey(0), small.workload, 8))
    demos = collect_demonstrations(small.env, batched, jax.random.PRNGKey(1), 60, sjf, sjf_ties)
    equivalent, action = np.asarray(demos.equivalent), np.asarray(demos.action)
    assert equivalent[np.arange(action.size), action].all()  # the label is always among its equals
    assert not (equivalent & ~np.asarray(demos.action_mask)).any()
    # without a ties function only the label counts
    plain = collect_demonstrations(small.env, batched, jax.random.PRNGKey(1), 60, sjf)
    np.testing.assert_array_equal(np.asarray(plain.equivalent), np.eye(small.env.num_actions, dtype=bool)[action])
    # collected a few jobsets at a time: the same deterministic SJF decisions, jobsets numbered globally
    chunked = collect_demonstrations(small.env, batched, jax.random.PRNGKey(1), 60, sjf, sjf_ties, chunk=3)
    np.testing.assert_array_equal(np.sort(np.asarray(chunked.jobset)), np.sort(np.asarray(demos.jobset)))
    assert np.asarray(chunked.equivalent).sum() == equivalent.sum()


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
    # The best epoch is the best up to SJF's ties; a tie-aware hit counts any of SJF's equals.
    assert result.best_val_acc_ties == max(h["val_acc_ties"] for h in result.history)
    assert result.history[result.best_epoch - 1]["val_acc"] == result.best_val_acc
    assert all(h["val_acc_ties"] >= h["val_acc"] for h in result.history)
    assert 0.0 <= result.val_tie_fraction < 1.0
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


def test_slot_scorer_clones_sjf_to_95_percent(small):
    """The shared job scorer learns SJF from 40 jobsets to >= 95% up to SJF's ties (the MLP: 90% here)."""
    config = BCConfig(num_jobsets=40, episode_len=60, batch_size=64, max_epochs=30, patience=8, lr=3e-3,
                      network="slots")
    result = train_behaviour_cloning(small, config, jax.random.PRNGKey(0))
    assert result.best_val_acc_ties >= 0.95, result.history


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
