"""REINFORCE: hand-computed pieces (returns, time baseline, loss gradient, RMSProp), the fixed-length
trajectory, determinism, vmap over seeds, and a real learning run on a toy jobset with a known optimum."""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxsched.baselines.deeprm import sjf
from jaxsched.algos.reinforce import (ReinforceConfig, chunked_value_and_grad, discounted_returns,
                                      make_train, policy_from, reinforce_loss, rmsprop, run_iterations,
                                      time_baseline)
from jaxsched.core.networks import DeepRMPolicy, apply_batched, init_network
from jaxsched.core.rollout import collect, make_evaluator, run_episode
from jaxsched.envs.deeprm import metrics
from jaxsched.envs.deeprm.env import DeepRM, EnvParams
from jaxsched.envs.deeprm.types import from_arrays, stack, with_jobsets
from jaxsched.registry import build

from conftest import fixed_variant

SMALL = dict(num_slots=3, horizon=8, max_job_len=6, capacity=5, max_job_size=5, backlog_size=8, simu_len=10)


# ---------------------------------------------------------------------------- pure pieces
def test_discounted_returns_by_hand_with_padding():
    # Time-major: [L = 4, 2 episodes]; episode 0 lasts 3 decisions, episode 1 one.
    reward = jnp.array([[1.0, 2.0, 3.0, 99.0], [-1.0, 99.0, 99.0, 99.0]]).T
    valid = jnp.array([[True, True, True, False], [True, False, False, False]]).T
    returns = np.asarray(discounted_returns(reward, valid, 0.5))
    np.testing.assert_allclose(returns[:, 0], [1 + 0.5 * 2 + 0.25 * 3, 2 + 0.5 * 3, 3, 0])
    np.testing.assert_allclose(returns[:, 1], [-1, 0, 0, 0])
    np.testing.assert_allclose(discounted_returns(reward, valid, 1.0)[:, 0], [6, 5, 3, 0])


def test_time_baseline_on_padded_episodes_of_unequal_length():
    # N = 3 rollouts of one jobset, lengths 4, 2 and 1 decisions; rows are rollouts, so transpose
    # to the time-major [L, N].
    returns = jnp.array([[-10.0, -8.0, -5.0, -1.0],
                         [-4.0, -2.0, 0.0, 0.0],
                         [-3.0, 0.0, 0.0, 0.0]]).T
    valid = jnp.array([[1, 1, 1, 1], [1, 1, 0, 0], [1, 0, 0, 0]], bool).T
    np.testing.assert_allclose(time_baseline(returns, valid), [(-10 - 4 - 3) / 3, (-8 - 2) / 2, -5, -1])
    # The reference's variant: padding counts as a return of 0 in a mean over all N.
    np.testing.assert_allclose(time_baseline(returns, valid, count_padding=True),
                               [-17 / 3, -10 / 3, -5 / 3, -1 / 3])
    # A jobset axis [L, J, N] is carried through; no rollout valid at t gives a baseline of 0.
    batched = time_baseline(jnp.stack([returns, returns], axis=1), jnp.stack([valid, valid & False], axis=1))
    assert batched.shape == (4, 2)
    np.testing.assert_allclose(batched[:, 0], time_baseline(returns, valid))
    np.testing.assert_allclose(batched[:, 1], 0.0)


def test_reinforce_loss_gradient_matches_the_hand_formula():
    # L = 2 decisions x 2 episodes x 3 actions (time-major); episode 1's second decision is padding.
    logits = jnp.array([[[0.5, -1.0, 2.0], [1.5, 0.2, -0.7]],
                        [[0.0, 1.0, 0.3], [9.0, 9.0, 9.0]]])
    mask = jnp.array([[[True, True, True], [False, True, True]],
                      [[True, True, False], [True, True, True]]])
    action = jnp.array([[2, 1], [1, 0]])
    advantage = jnp.array([[1.5, 0.7], [-2.0, 5.0]])
    valid = jnp.array([[True, True], [True, False]])
    beta = 0.1

    loss, aux = reinforce_loss(logits, mask, action, advantage, valid, entropy_coef=beta)
    grad = np.asarray(jax.grad(lambda z: reinforce_loss(z, mask, action, advantage, valid, beta)[0])(logits))

    expected_loss, expected_grad, entropies = 0.0, np.zeros((2, 2, 3)), []
    for t, e in itertools.product(range(2), range(2)):
        if not valid[t, e]:
            continue
        m = np.asarray(mask[t, e])
        z = np.where(m, np.asarray(logits[t, e], np.float64), -np.inf)
        p = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
        logp = np.where(m, np.log(np.where(m, p, 1.0)), 0.0)
        h = -np.sum(p * logp)
        entropies.append(h)
        a, adv = int(action[t, e]), float(advantage[t, e])
        expected_loss -= (logp[a] * adv + beta * h) / 2  # 2 episodes
        onehot = np.eye(3)[a]
        # d log p_a / dz = onehot - p;  d H / dz = -p (log p + H), both zero on masked actions.
        d_surrogate = adv * (onehot - p) + beta * (-p * (logp + h))
        expected_grad[t, e] = np.where(m, -d_surrogate / 2, 0.0)
    np.testing.assert_allclose(float(loss), expected_loss, rtol=1e-5)
    np.testing.assert_allclose(grad, expected_grad, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(float(aux["entropy"]), np.mean(entropies), rtol=1e-5)


def test_chunked_gradient_equals_the_whole_batch_gradient():
    network = DeepRMPolicy(4, hidden=5)
    params = init_network(network, jax.random.PRNGKey(0), (3, 2))
    rng = np.random.default_rng(1)
    L, J, N = 6, 2, 3
    features = jnp.asarray(rng.normal(size=(L, J, N, 3, 2)), jnp.float32)
    mask_np = rng.uniform(size=(L, J, N, 4)) < 0.7
    mask_np[..., -1] = True
    mask = jnp.asarray(mask_np)
    action = jnp.full((L, J, N), 3, jnp.int32)
    advantage = jnp.asarray(rng.normal(size=(L, J, N)), jnp.float32)
    valid = jnp.asarray(np.arange(L)[:, None, None] < np.array([[6, 2, 4], [1, 5, 3]])[None])

    def loss_fn(p, f, m, a, adv, v):
        return reinforce_loss(apply_batched(network, p, f, 3), m, a, adv, v, 0.05)

    batch = (features, mask, action, advantage, valid)
    chunked_fn = jax.jit(chunked_value_and_grad, static_argnums=(0, 3))
    whole = chunked_fn(loss_fn, params, batch, L)
    (loss, aux), grads = jax.jit(jax.value_and_grad(loss_fn, has_aux=True))(params, *batch)
    np.testing.assert_allclose(float(whole[0]), float(loss), rtol=1e-6)
    for chunk in (2, 4):  # 4 leaves a shorter last chunk
        chunked = chunked_fn(loss_fn, params, batch, chunk)
        np.testing.assert_allclose(float(chunked[0]), float(loss), rtol=1e-5)
        np.testing.assert_allclose(float(chunked[1]), float(aux["entropy"]), rtol=1e-5)
        for a, b in zip(jax.tree.leaves(chunked[2]), jax.tree.leaves(grads)):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-4, atol=1e-7)
    with pytest.raises(ValueError, match="grad_chunk_len"):
        ReinforceConfig(episode_len=10, grad_chunk_len=3)


def test_rmsprop_puts_eps_inside_the_square_root_as_the_reference():
    lr, rho, eps = 0.1, 0.9, 0.5  # a large eps tells inside from outside the square root
    opt = rmsprop(lr, rho, eps)
    theta = jnp.array([1.0, -2.0])
    state = opt.init(theta)
    acc = np.zeros(2)
    expected = np.asarray(theta, np.float64)
    for g in (np.array([0.3, -1.0]), np.array([-2.0, 0.5])):
        updates, state = opt.update(jnp.asarray(g, jnp.float32), state, theta)
        theta = optax.apply_updates(theta, updates)
        acc = rho * acc + (1 - rho) * g ** 2
        expected = expected - lr * g / np.sqrt(acc + eps)
        np.testing.assert_allclose(np.asarray(theta), expected, rtol=1e-5)


def test_config_rejects_unknown_choices():
    with pytest.raises(ValueError, match="baseline"):
        ReinforceConfig(baseline="critic")
    with pytest.raises(ValueError, match="network"):
        ReinforceConfig(network="rnn")


# ---------------------------------------------------------------------------- trajectories
def test_trajectory_pads_after_the_episode_and_freezes_the_state():
    variant = build("deeprm", observation="none", **SMALL)
    env, params = variant.env, variant.params
    traj = jax.jit(lambda k: collect(env, params, sjf, k, 60))(jax.random.PRNGKey(0))
    valid = np.asarray(traj.valid)
    n = int(valid.sum())
    assert valid[:n].all() and not valid[n:].any() and n < 60  # a prefix, then padding
    assert bool(traj.terminated)
    assert np.all(np.asarray(traj.reward)[n:] == 0.0)
    # The frozen final state is the one a run to the end reaches (no auto-reset, no extra steps).
    whole = jax.jit(lambda k: run_episode(env, params, sjf, k))(jax.random.PRNGKey(0))
    assert int(whole.decisions) == n
    assert int(traj.final_state.clock) == int(whole.state.clock)
    np.testing.assert_array_equal(np.asarray(traj.final_state.start), np.asarray(whole.state.start))
    np.testing.assert_allclose(float(np.sum(traj.reward)), float(whole.episode_return), rtol=1e-6)
    # Cut at L: not terminated, every step valid.
    short = jax.jit(lambda k: collect(env, params, sjf, k, 5))(jax.random.PRNGKey(0))
    assert np.asarray(short.valid).all() and not bool(short.terminated)


def tiny_config(**overrides) -> ReinforceConfig:
    return ReinforceConfig(**{**dict(num_jobsets=2, num_rollouts=3, episode_len=24), **overrides})


@pytest.fixture(scope="module")
def small_train():
    variant = build("deeprm", observation="compact", **SMALL)  # compact: compiles faster than the image
    init_fn, update_fn = make_train(variant, tiny_config(), jax.random.PRNGKey(0))
    return init_fn, update_fn


def test_one_iteration_reports_finite_scalar_metrics(small_train):
    init_fn, update_fn = small_train
    state = init_fn(jax.random.PRNGKey(0))
    new_state, m = update_fn(state)
    assert int(new_state.iteration) == 1
    for name in ("mean_return", "max_return", "mean_slowdown", "mean_completion_time", "entropy", "loss",
                 "unfinished_episode_fraction", "decisions", "grad_norm"):
        assert m[name].shape == () and np.isfinite(float(m[name])), name
    assert float(m["max_return"]) >= float(m["mean_return"])
    assert float(m["mean_slowdown"]) >= 1.0
    assert 0.0 <= float(m["unfinished_episode_fraction"]) <= 1.0
    assert 0 < int(m["decisions"]) <= 2 * 3 * 24
    changed = jax.tree.map(lambda a, b: bool(jnp.any(a != b)), state.params, new_state.params)
    assert all(jax.tree.leaves(changed))


def test_same_key_gives_bit_identical_metrics(small_train):
    init_fn, update_fn = small_train
    runs = []
    for _ in range(2):
        state = init_fn(jax.random.PRNGKey(7))
        state, m1 = update_fn(state)
        state, m2 = update_fn(state)
        runs.append((m1, m2, state.params))
    for a, b in zip(jax.tree.leaves(runs[0]), jax.tree.leaves(runs[1])):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    other = update_fn(init_fn(jax.random.PRNGKey(8)))[1]
    assert float(other["mean_return"]) != float(runs[0][0]["mean_return"])


def test_vmap_over_two_seeds_equals_each_seed_alone(small_train):
    init_fn, update_fn = small_train
    keys = jax.random.split(jax.random.PRNGKey(3), 2)
    batched, batched_metrics = jax.jit(jax.vmap(update_fn))(jax.vmap(init_fn)(keys))
    for i in range(2):
        alone, alone_metrics = update_fn(init_fn(keys[i]))
        for name, value in alone_metrics.items():
            np.testing.assert_allclose(np.asarray(batched_metrics[name][i]), np.asarray(value), rtol=1e-5,
                                       atol=1e-6, err_msg=name)
        for a, b in zip(jax.tree.leaves(batched.params), jax.tree.leaves(alone.params)):
            np.testing.assert_allclose(np.asarray(a[i]), np.asarray(b), rtol=1e-5, atol=1e-7)


# ---------------------------------------------------------------------------- learning
def toy_problem():
    """Four jobs at t = 0, each needing the whole single-resource machine: any schedule is a sequence,
    idling only delays, so the best mean slowdown is the best job order (shortest first)."""
    env = DeepRM(num_res=1, capacity=4, horizon=8, num_slots=4, backlog_size=0, max_job_len=4, max_job_size=4)
    durations = [4, 1, 2, 1]  # slot 0 holds the long job: "always slot 0" is the worst first pick
    jobset = from_arrays([0, 0, 0, 0], durations, [[4]] * 4)
    params = EnvParams(jobset=jobset, simu_len=1, max_time=60, max_steps_in_episode=200)
    best = min(np.mean(np.cumsum(np.take(durations, order)) / np.take(durations, order))
               for order in itertools.permutations(range(4)))
    return env, params, jobset, best


def evaluate(env, params, jobset, policy, rollouts):
    result = make_evaluator(env, policy, rollouts)(with_jobsets(params, stack([jobset])), jax.random.PRNGKey(11))
    return metrics.summarize(metrics.job_table(result))


def test_learns_the_optimal_order_on_a_toy_jobset():
    env, params, jobset, best = toy_problem()
    assert best == pytest.approx(1.75)  # 1, 1, 2, 4 -> finishes 1, 2, 4, 8

    def masked_random(key, obs):
        return jax.random.categorical(key, jnp.where(obs.action_mask, 0.0, -jnp.inf)).astype(jnp.int32)

    random = evaluate(env, params, jobset, masked_random, 64)
    assert random["mean_slowdown"] > best + 0.5

    config = ReinforceConfig(num_jobsets=1, num_rollouts=16, episode_len=40, lr=1e-2, resample_jobsets=False)
    init_fn, update_fn = make_train(fixed_variant(env, params, stack([jobset])), config, jax.random.PRNGKey(0))
    state, history = run_iterations(update_fn, 60)(init_fn(jax.random.PRNGKey(0)))
    slowdown = np.asarray(history["mean_slowdown"])
    assert slowdown[-5:].mean() < slowdown[:5].mean()
    assert slowdown[-5:].mean() < best + 0.1
    assert np.all(np.asarray(history["unfinished_episode_fraction"])[-5:] == 0.0)

    greedy = evaluate(env, params, jobset, policy_from(config, env, state.params, greedy=True), 1)
    assert greedy["finished"] == 4
    assert greedy["mean_slowdown"] == pytest.approx(best)


def test_value_baseline_trains_and_fits_the_returns():
    env, params, jobset, best = toy_problem()
    config = ReinforceConfig(num_jobsets=1, num_rollouts=8, episode_len=40, lr=1e-2, baseline="value",
                             value_lr=3e-2, resample_jobsets=False)
    init_fn, update_fn = make_train(fixed_variant(env, params, stack([jobset])), config, jax.random.PRNGKey(0))
    state = init_fn(jax.random.PRNGKey(0))
    assert state.value_params is not None
    state, history = run_iterations(update_fn, 40)(state)
    value_loss = np.asarray(history["value_loss"])
    assert np.all(np.isfinite(value_loss)) and np.all(np.isfinite(np.asarray(history["loss"])))
    assert value_loss[-5:].mean() < 0.2 * value_loss[:2].mean()
    assert np.asarray(history["mean_slowdown"])[-5:].mean() < np.asarray(history["mean_slowdown"])[:5].mean()


def test_cnn_policy_trains_one_iteration_on_the_toy_jobset():
    env, params, jobset, _ = toy_problem()
    config = ReinforceConfig(num_jobsets=1, num_rollouts=2, episode_len=16, network="cnn", resample_jobsets=False)
    init_fn, update_fn = make_train(fixed_variant(env, params, stack([jobset])), config, jax.random.PRNGKey(0))
    state, m = update_fn(init_fn(jax.random.PRNGKey(0)))
    assert np.isfinite(float(m["loss"])) and int(state.iteration) == 1
