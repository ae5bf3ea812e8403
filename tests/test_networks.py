"""Policy / value networks: sizes from the papers, masking that really masks, the policy signature."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxsched.envs.deeprm.env import Observation
from jaxsched.core.networks import (DeepRM2CNN, DeepRMPolicy, ImageLayout, SlotScorer, ValueNetwork, apply_batched,
                                    count_params, init_network, make_network, make_policy_fn, masked_entropy,
                                    masked_log_probs, masked_logits)
from jaxsched.algos.ppo import PPOConfig, actor_critic
from jaxsched.core import rollout
from jaxsched.core.networks import SlotActorCritic
from jaxsched.registry import build

IMAGE = (20, 224)  # M = 10 DeepRM image


def fake_obs(features, mask) -> Observation:
    m = mask.shape[-1] - 1
    zeros = jnp.zeros((m,), jnp.int32)
    return Observation(features=features, action_mask=mask, fits_now=mask[:m], slot_job=zeros,
                       slot_duration=zeros, slot_demand=jnp.zeros((m, 2), jnp.int32),
                       free=jnp.zeros((1, 2), jnp.int32))


def test_deeprm_policy_has_the_reference_parameter_count():
    params = init_network(DeepRMPolicy(11), jax.random.PRNGKey(0), IMAGE)
    assert count_params(params) == 89_851  # 4480*20 + 20 + 20*11 + 11


def test_deeprm_policy_init_is_small_normal_with_zero_biases():
    params = init_network(DeepRMPolicy(11), jax.random.PRNGKey(0), IMAGE)["params"]
    kernel = np.asarray(params["Dense_0"]["kernel"])
    assert kernel.shape == (4480, 20)
    assert abs(kernel.std() - 0.01) < 5e-4 and abs(kernel.mean()) < 5e-4
    assert not np.any(np.asarray(params["Dense_0"]["bias"])) and not np.any(np.asarray(params["Dense_1"]["bias"]))


def test_cnn_shapes_follow_deeprm2_table():
    network = DeepRM2CNN(11)
    # Shapes only (eval_shape): initialising the 4480 x 72 layer for real costs seconds on CPU.
    params = jax.eval_shape(network.init, jax.random.PRNGKey(0), jnp.zeros(IMAGE))
    assert params["params"]["Conv_0"]["kernel"].shape == (5, 5, 1, 8)
    assert params["params"]["Conv_1"]["kernel"].shape == (5, 5, 8, 16)
    assert params["params"]["Dense_0"]["kernel"].shape == (5 * 56 * 16, 72)  # 20x224 -> 10x112 -> 5x56
    assert jax.eval_shape(network.apply, params, jnp.zeros(IMAGE)).shape == (11,)
    small = init_network(network, jax.random.PRNGKey(0), (8, 42))  # the tiny test env's image
    logits = apply_batched(network, small, jnp.ones((2, 3, 8, 42)), 2)
    assert logits.shape == (2, 3, 11) and np.all(np.isfinite(np.asarray(logits)))


def test_value_network_outputs_a_scalar_per_observation():
    network = ValueNetwork(16)
    params = network.init(jax.random.PRNGKey(0), jnp.zeros(IMAGE), 0.0)
    assert network.apply(params, jnp.ones(IMAGE), 0.5).shape == ()
    values = apply_batched(network, params, jnp.ones((4,) + IMAGE), 1, jnp.linspace(0, 1, 4))
    assert values.shape == (4,)


def test_make_network_by_name():
    assert isinstance(make_network("mlp", 4), DeepRMPolicy)
    assert make_network("mlp", 4, hidden=7).hidden == 7
    assert isinstance(make_network("cnn", 4), DeepRM2CNN)
    with pytest.raises(ValueError, match="unknown network"):
        make_network("transformer", 4)
    with pytest.raises(ValueError, match="no image observation"):
        make_network("slots", 4)


def _permute_slots(image, layout: ImageLayout, order):
    """The image with slot ``order[i]``'s block (every resource) moved to slot ``i``."""
    block = layout.capacity + layout.num_slots * layout.slot_columns
    out = np.array(image)
    for r in range(layout.num_res):
        for new, old in enumerate(order):
            start = r * block + layout.capacity
            out[:, start + new * layout.slot_columns:start + (new + 1) * layout.slot_columns] = \
                image[:, start + old * layout.slot_columns:start + (old + 1) * layout.slot_columns]
    return out


def test_slot_scorer_is_equivariant_to_slot_order_and_shares_its_weights():
    """Reordering the jobs reorders their logits and leaves the void action's; one scorer serves
    every slot, so the parameter count does not grow with the number of slots."""
    variant = build("deeprm", num_slots=4, horizon=8, max_job_len=6, capacity=5, max_job_size=4,
                    backlog_size=8, simu_len=10)
    env = variant.env
    layout = ImageLayout.of(env)
    assert layout == ImageLayout(env.num_res, env.capacity, 4, env.slot_columns)
    network = make_network("slots", env.num_actions, layout=layout)
    assert isinstance(network, SlotScorer)
    params = init_network(network, jax.random.PRNGKey(0), env.feature_shape())
    # Big random weights in the output layers, so that the logits differ between jobs.
    params = jax.tree.map(lambda x: jax.random.normal(jax.random.PRNGKey(1), x.shape), params)
    image = np.asarray(jax.random.bernoulli(jax.random.PRNGKey(2), 0.4, env.feature_shape()), np.float32)
    order = [2, 0, 3, 1]
    logits = np.asarray(network.apply(params, image))
    moved = np.asarray(network.apply(params, _permute_slots(image, layout, order)))
    assert logits.shape == (5,) and len(set(np.round(logits[:4], 4))) == 4
    np.testing.assert_allclose(moved[:4], logits[order], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(moved[4], logits[4], rtol=1e-5, atol=1e-5)
    wider = build("deeprm", num_slots=7, horizon=8, max_job_len=6, capacity=5, max_job_size=4,
                  backlog_size=8, simu_len=10).env
    wider_params = init_network(make_network("slots", wider.num_actions, layout=ImageLayout.of(wider)),
                                jax.random.PRNGKey(0), wider.feature_shape())
    assert count_params(wider_params) == count_params(params)
    compact = build("deeprm", observation="compact").env
    assert ImageLayout.of(compact) is None


def test_masked_softmax_gives_masked_actions_zero_probability_and_finite_values():
    logits = jnp.array([50.0, -3.0, 0.0, 80.0])
    mask = jnp.array([False, True, True, False])
    log_probs = masked_log_probs(logits, mask)
    probs = np.asarray(jnp.exp(log_probs))
    assert probs[0] == 0.0 and probs[3] == 0.0
    np.testing.assert_allclose(probs.sum(), 1.0, rtol=1e-6)
    assert np.all(np.isfinite(np.asarray(log_probs)))
    assert np.isfinite(float(masked_entropy(logits, mask)))
    grad = jax.grad(lambda z: masked_entropy(z, mask) + masked_log_probs(z, mask)[1])(logits)
    assert np.all(np.isfinite(np.asarray(grad))) and grad[0] == 0.0 and grad[3] == 0.0
    assert masked_logits(logits, mask)[0] == jnp.finfo(jnp.float32).min


def test_sampled_and_greedy_policies_never_pick_a_masked_action():
    network = DeepRMPolicy(5, hidden=4)
    features = jnp.ones((3, 6))
    params = init_network(network, jax.random.PRNGKey(1), features.shape)
    # Push the logits hard towards the masked actions 0 and 4.
    params["params"]["Dense_1"]["bias"] = jnp.array([100.0, 0.0, 0.0, 1.0, 200.0])
    masks = jnp.array([[False, True, True, True, False], [False, False, True, False, False],
                       [False, False, False, False, True]])
    for greedy in (False, True):
        policy = make_policy_fn(network, params, greedy)
        for mask in masks:
            obs = fake_obs(features, mask)
            actions = np.asarray(jax.vmap(lambda k: policy(k, obs))(jax.random.split(jax.random.PRNGKey(2), 2000)))
            assert actions.dtype == np.int32
            assert np.all(np.asarray(mask)[actions]), (greedy, mask, np.unique(actions))
    # Greedy picks the best allowed action; sampling visits every allowed one when logits are flat.
    assert int(make_policy_fn(network, params, True)(None, fake_obs(features, masks[0]))) == 3
    flat = jax.tree.map(jnp.zeros_like, params)
    obs = fake_obs(features, masks[0])
    sampled = jax.vmap(lambda k: make_policy_fn(network, flat)(k, obs))(jax.random.split(jax.random.PRNGKey(3), 300))
    assert set(np.unique(np.asarray(sampled))) == {1, 2, 3}


def test_learned_policy_runs_in_the_env_like_a_heuristic():
    variant = build("deeprm", num_slots=3, horizon=8, max_job_len=6, capacity=5, max_job_size=5,
                    backlog_size=8, simu_len=10)
    env = variant.env
    for name in ("mlp", "cnn"):
        network = make_network(name, env.num_actions)
        params = init_network(network, jax.random.PRNGKey(0), env.feature_shape())
        policy = jax.jit(make_policy_fn(network, params))
        obs, _ = jax.jit(env.reset_env)(jax.random.PRNGKey(0), variant.params)
        action = policy(jax.random.PRNGKey(1), obs)
        assert action.shape == () and 0 <= int(action) < env.num_actions


def test_evaluator_takes_trained_params_as_an_argument_and_compiles_once_per_network():
    variant = build("deeprm", simu_len=10)
    batched, _ = variant.held_out(3, 7)
    network = make_network("mlp", variant.env.num_actions, None, ImageLayout.of(variant.env))
    first = jax.tree.map(lambda x: x[0], batched)
    shape = variant.env.get_obs(variant.env.reset_env(jax.random.PRNGKey(0), first)[1], first).features.shape
    key = jax.random.PRNGKey(1)
    compiled = rollout._evaluate._cache_size()
    for seed in (0, 1):
        params = init_network(network, jax.random.PRNGKey(seed), shape)
        policy = make_policy_fn(network, params, greedy=False)
        result = rollout.make_evaluator(variant.env, policy)(batched, key)
        as_constants = rollout.make_evaluator(variant.env, lambda k, obs: policy(k, obs))(batched, key)
        for a, b in zip(jax.tree.leaves(result), jax.tree.leaves(as_constants)):
            np.testing.assert_array_equal(a, b)
    assert rollout._evaluate._cache_size() == compiled + 3  # one per lambda; the second seed reused the first


def test_envs_of_one_setting_are_equal_and_share_the_evaluators_compilation():
    """Each build makes a new env object; equal configurations (here two loads of one cluster) compare and
    hash alike, so the evaluator compiled for one serves the other, and a different cluster compiles anew."""
    low, high = (build("deeprm", num_slots=4, simu_len=9, load=load) for load in (0.5, 1.1))
    other = build("deeprm", num_slots=6, simu_len=9)
    assert low.env == high.env and hash(low.env) == hash(high.env) and low.env is not high.env
    assert low.env != other.env and low.env != build("vm-frag").env
    sjf, key = low.heuristic("sjf"), jax.random.PRNGKey(0)
    compiled = rollout._evaluate._cache_size()
    returns = [rollout.make_evaluator(v.env, sjf)(v.held_out(2, 3)[0], key).episode_return for v in (low, high)]
    assert rollout._evaluate._cache_size() == compiled + 1  # a setting no other test evaluates
    assert float(np.mean(returns[0])) != float(np.mean(returns[1]))  # the loads' own jobsets were played
    rollout.make_evaluator(other.env, sjf)(other.held_out(2, 3)[0], key)
    assert rollout._evaluate._cache_size() == compiled + 2


def test_slot_actor_critic_is_equivariant_to_slot_order_on_the_bracis_state():
    """PPO's network: slot_index names each slot's own features (they hold its job's normalised facts);
    reordering the slots' blocks reorders their logits and leaves the void logit and the value; the parameter
    count does not grow with the slots; a state without per-slot blocks is a clear error."""
    variant = build("bracis-1")
    env = variant.env
    index = np.asarray(env.slot_feature_index())
    assert index.shape == (env.num_slots, 7) and len(set(index.ravel())) == index.size
    params = jax.tree.map(lambda x: x[0], variant.sample_params(jax.random.PRNGKey(1), 1))
    obs, state = env.reset(jax.random.PRNGKey(0), params)
    while not (np.asarray(obs.slot_job) >= 0).any():  # move on until a job waits
        obs, state, *_ = env.step_env(None, state, env.num_slots, params)
    features, job = np.asarray(obs.features), np.asarray(obs.slot_job)
    assert (features[index[job < 0]] == 0).all() and (features[index[job >= 0]] > 0).any()
    network = actor_critic(PPOConfig(network="slots"), env)
    assert isinstance(network, SlotActorCritic)
    params = network.init(jax.random.PRNGKey(0), jnp.zeros(env.feature_shape()))
    params = jax.tree.map(lambda x: jax.random.normal(jax.random.PRNGKey(1), x.shape), params)
    x = np.asarray(jax.random.uniform(jax.random.PRNGKey(2), env.feature_shape()))
    order = np.roll(np.arange(env.num_slots), 3)
    moved = x.copy()
    moved[index.ravel()] = x[index[order].ravel()]
    (logits, value), (logits2, value2) = network.apply(params, x), network.apply(params, moved)
    assert logits.shape == (env.num_actions,) and len(set(np.round(np.asarray(logits[:-1]), 4))) == env.num_slots
    np.testing.assert_allclose(logits2[:-1], np.asarray(logits)[order], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose([logits2[-1], value2], [logits[-1], value], rtol=1e-5, atol=1e-5)
    wider = build("bracis-1", num_slots=env.num_slots + 5).env
    wider_params = actor_critic(PPOConfig(network="slots"), wider).init(jax.random.PRNGKey(0),
                                                                        jnp.zeros(wider.feature_shape()))
    assert count_params(wider_params) == count_params(params)
    with pytest.raises(ValueError, match="network 'slots' needs a state whose per-slot features"):
        actor_critic(PPOConfig(network="slots"), build("deeprm").env)
    with pytest.raises(ValueError, match="unknown network"):
        PPOConfig(network="cnn")
