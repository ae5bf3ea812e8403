"""PPO: semi-MDP GAE by hand, learning a two-job instance where one order is clearly better,
determinism, the image observation, one compact network on two cluster sizes, and the train CLI."""

from __future__ import annotations

import dataclasses
import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxsched.algos.ppo import PPOConfig, Transition, gae, make_train, policy_from
from jaxsched.core.config import build_config
from jaxsched.core.networks import ActorCritic, count_params
from jaxsched.core.rollout import run_episode
from jaxsched.envs.deeprm.env import DeepRM, EnvParams
from jaxsched.envs.deeprm.types import from_arrays, stack
from jaxsched.experiment import TrainConfig, train
from jaxsched.registry import build
from jaxsched.train import main

from conftest import fixed_variant

# Two jobs at t = 0 that cannot run together on a 2-processor cluster: slot 0 holds a 4-step job,
# slot 1 a 1-step job. Short first: slowdowns 1 + (1 + 4) / 4 = 2.25; long first: 1 + 5 = 6.
TWO_JOBS = dict(num_res=1, capacity=2, horizon=4, num_slots=2, backlog_size=0, max_job_len=4, max_job_size=2,
                allocation="fits_now", time_limit=10)
TWO_JOBSET = from_arrays([0, 0], [4, 1], [[2], [2]])
TWO_PARAMS = EnvParams(jobset=TWO_JOBSET, simu_len=1, max_time=50, max_steps_in_episode=100)
FAST = PPOConfig(num_envs=8, num_steps=16, minibatch_size=32, update_epochs=4, lr=3e-3, resample_jobsets=False)


def test_a_finished_episode_restarts_on_the_fresh_instance():
    """An environment whose episode ended continues on the restart's jobset, not on the old one
    (its slots index the new jobset's jobs)."""
    env = DeepRM(**TWO_JOBS, observation="bracis")
    other = from_arrays([0, 0], [1, 3], [[1], [1]])  # a different jobset
    variant = fixed_variant(env, TWO_PARAMS, stack([TWO_JOBSET, other]))
    switching = type(variant)(**{**variant.__dict__, "jobsets": stack([other, TWO_JOBSET])})
    config = PPOConfig(num_envs=2, num_steps=8, minibatch_size=16, update_epochs=1, lr=1e-3)
    init_fn, _ = make_train(variant, config, jax.random.PRNGKey(0))
    _, update_fn = make_train(switching, config, jax.random.PRNGKey(0))  # restarts swap the two jobsets
    state, episodes = init_fn(jax.random.PRNGKey(0)), 0
    for _ in range(4):  # 32 decisions per environment: each two-job episode ends several times
        state, metrics = update_fn(state)
        episodes += int(metrics["episodes"])
    assert episodes >= 4
    first, second = (jax.tree.map(lambda x: np.asarray(x[i]), state.env_state.jobset) for i in range(2))
    np.testing.assert_array_equal(first.duration, np.asarray(other.duration))
    np.testing.assert_array_equal(second.duration, np.asarray(TWO_JOBSET.duration))


def test_gae_discounts_by_elapsed_ticks_by_hand():
    """Three decisions of one environment: a schedule (0 ticks, discount 1), a 2-tick skip (0.25 at
    gamma = 0.5), an episode end (0); lambda = 0.5."""
    reward, discount, value = [0.0, -1.0, -2.0], [1.0, 0.25, 0.0], [-1.0, -2.0, -1.5]
    col = lambda xs: jnp.asarray(xs, jnp.float32)[:, None]
    transitions = Transition(features=None, action_mask=None, action=None, log_prob=None, value=col(value),
                             reward=col(reward), discount=col(discount))
    advantages, targets = gae(transitions, jnp.array([7.0]), 0.5)
    a2 = -2.0 + 0.0 * 7.0 - (-1.5)  # -0.5: the last value is not used after the episode end
    a1 = (-1.0 + 0.25 * -1.5 - (-2.0)) + 0.25 * 0.5 * a2  # 0.625 - 0.0625
    a0 = (0.0 + 1.0 * -2.0 - (-1.0)) + 1.0 * 0.5 * a1
    np.testing.assert_allclose(np.asarray(advantages[:, 0]), [a0, a1, a2], rtol=1e-6)
    np.testing.assert_allclose(np.asarray(targets[:, 0]), np.array([a0, a1, a2]) + value, rtol=1e-6)


@pytest.fixture(scope="module")
def two_job_training():
    env = DeepRM(**TWO_JOBS, observation="bracis")
    init_fn, update_fn = make_train(fixed_variant(env, TWO_PARAMS, stack([TWO_JOBSET])), FAST, jax.random.PRNGKey(0))
    state = init_fn(jax.random.PRNGKey(0))
    history = []
    for _ in range(15):
        state, metrics = update_fn(state)
        history.append(jax.tree.map(float, metrics))
    return env, init_fn, update_fn, state, history


def test_ppo_learns_the_better_order(two_job_training):
    env, _, _, state, history = two_job_training
    assert history[0]["mean_slowdown"] > 2.0  # the near-uniform start often runs the long job first
    assert history[-1]["mean_slowdown"] < 1.2  # (1 + 1.25) / 2 = 1.125 is the best order
    assert all(np.isfinite(h["loss"]) for h in history)
    result = run_episode(env, TWO_PARAMS, policy_from(FAST, env, state.params, greedy=True), jax.random.PRNGKey(1))
    np.testing.assert_array_equal(np.asarray(result.state.start)[:2], [1, 0])  # short job first
    assert bool(result.terminated)


def test_ppo_is_deterministic(two_job_training):
    _, init_fn, update_fn, _, history = two_job_training
    state = init_fn(jax.random.PRNGKey(0))
    state, metrics = update_fn(state)
    assert jax.tree.map(float, metrics) == history[0]


def test_ppo_with_the_shared_slot_scorer_learns_the_better_order():
    """algo_options.network: slots trains end to end like the MLP and finds the short-job-first order."""
    env = DeepRM(**TWO_JOBS, observation="bracis")
    config = dataclasses.replace(FAST, network="slots")
    init_fn, update_fn = make_train(fixed_variant(env, TWO_PARAMS, stack([TWO_JOBSET])), config, jax.random.PRNGKey(0))
    state = init_fn(jax.random.PRNGKey(0))
    slowdowns = []
    for _ in range(15):
        state, metrics = update_fn(state)
        slowdowns.append(float(metrics["mean_slowdown"]))
    assert np.isfinite(float(metrics["loss"]))
    assert slowdowns[0] > 2.0 and max(slowdowns[-5:]) < 1.3  # from a near-uniform start to near the best 1.125
    result = run_episode(env, TWO_PARAMS, policy_from(config, env, state.params, greedy=True), jax.random.PRNGKey(1))
    np.testing.assert_array_equal(np.asarray(result.state.start)[:2], [1, 0])  # short job first


def test_ppo_runs_on_the_image_observation():
    env = DeepRM(**TWO_JOBS, observation="image", stepping="event")
    config = PPOConfig(num_envs=2, num_steps=4, minibatch_size=4, update_epochs=1, resample_jobsets=False)
    init_fn, update_fn = make_train(fixed_variant(env, TWO_PARAMS, stack([TWO_JOBSET])), config, jax.random.PRNGKey(0))
    state, metrics = update_fn(init_fn(jax.random.PRNGKey(0)))
    assert all(np.isfinite(float(metrics[k])) for k in ("loss", "value_loss", "entropy"))
    assert int(metrics["decisions"]) == 8 and int(state.iteration) == 1


def test_one_compact_network_runs_on_two_cluster_sizes():
    """Trained on 10 processors, evaluated on 64 without retraining (the paper's transfer)."""
    small, large = build("bracis-1"), build("bracis-9")
    network = ActorCritic(small.env.num_actions)
    params = network.init(jax.random.PRNGKey(0), jnp.zeros(small.env.feature_shape()))
    assert count_params(params) == (118 * 64 + 64) + (64 * 64 + 64) + (64 * 11 + 11) + (64 + 1)
    for variant in (small, large):
        obs, _ = variant.env.reset(jax.random.PRNGKey(1), variant.params)
        logits, value = network.apply(params, obs.features)
        assert logits.shape == (11,) and np.isfinite(np.asarray(logits)).all() and np.isfinite(float(value))
    image = build("bracis-1", observation="image").env
    with pytest.raises(Exception):  # the image network has no such portability
        network.apply(params, jnp.zeros(image.feature_shape()))


def test_separate_critic_has_the_papers_parameter_counts():
    """The paper's Fig. 5 counts at 10 processors: 24,332 (compact) and 301,068 (image) weights, two
    2 x 64 torsos; the shared torso (the default) keeps the saved parameter names."""
    for observation, paper in (("bracis", 24_332), ("image", 301_068)):
        env = build("bracis-1", observation=observation).env
        separate = ActorCritic(env.num_actions, separate_critic=True)
        params = separate.init(jax.random.PRNGKey(0), jnp.zeros(env.feature_shape()))
        assert count_params(params) == paper, observation
        shared = ActorCritic(env.num_actions).init(jax.random.PRNGKey(0), jnp.zeros(env.feature_shape()))
        assert set(params["params"]) == set(shared["params"]) | {"critic_0", "critic_1"}
        logits, value = separate.apply(params, jnp.ones(env.feature_shape()))
        assert logits.shape == (env.num_actions,) and value.shape == ()


def test_image_parameter_counts_follow_the_processor_count():
    """The paper's image counts at 38 and 64 processors (1,089,548; 1,821,708) need slot blocks np
    columns wide (W = 11 np + 4); DeepRM's max_job_size-wide blocks give fewer where js < np."""
    def image_params(name, **overrides):
        env = build(name, observation="image", **overrides).env
        network = ActorCritic(env.num_actions, separate_critic=True)
        shapes = jax.eval_shape(network.init, jax.random.PRNGKey(0), jnp.zeros(env.feature_shape()))
        return env.feature_shape(), count_params(shapes)

    for name, procs, paper in (("bracis-3", 38, 1_089_548), ("bracis-7", 64, 1_821_708), ("bracis-8", 64, 1_821_708)):
        assert image_params(name) == ((20, 11 * procs + 4), paper), name
    assert image_params("bracis-7", slot_width="max_job_size") == ((20, 64 + 10 * 32 + 4), 1_002_508)


def test_config_validation():
    with pytest.raises(ValueError, match="minibatch_size"):
        PPOConfig(num_envs=3, num_steps=5, minibatch_size=4)
    with pytest.raises(ValueError, match="gamma"):
        PPOConfig(gamma=1.5)


TINY_RUN = dict(
    env="bracis-1", algo="ppo",
    env_options=dict(simu_len=8, backlog_size=4, num_slots=3, horizon=6, capacity=4, max_job_len=6,
                     max_job_size=4, stepping="event", reward_jobs="visible"),
    algo_options=dict(num_envs=4, num_steps=8, minibatch_size=16, update_epochs=2),
    iterations=4, chunk=2, checkpoint_every=2, eval_jobsets=3, seeds=[0, 1], baselines=["sjf"],
)


# one seed, two iterations of one chunk each (checkpointed after each): the run of the default resume test
SMALL_RUN = {**TINY_RUN, "iterations": 2, "chunk": 1, "checkpoint_every": 1, "seeds": [0]}


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("ppo") / "run"
    train(build_config(TrainConfig, SMALL_RUN), out, log=lambda *_: None)
    return out


def test_train_cli_runs_ppo(small_run):
    out = small_run
    evaluation = json.loads((out / "eval.json").read_text())["policies"]
    assert {"sjf", "trained-s0", "trained-s0-sampled"} <= set(evaluation)
    lines = (out / "metrics.csv").read_text().splitlines()
    assert len(lines) == 1 + 2 and "clip_fraction" in lines[0]


def check_resume_matches_uninterrupted(out, resumed, config: dict, stop: int):
    """Trained to ``stop``, then resumed to the end: the metrics (timings aside) and the evaluation are
    those of the uninterrupted run in ``out``."""
    train(build_config(TrainConfig, {**config, "iterations": stop}), resumed, log=lambda *_: None)
    assert main(["--resume", str(resumed), f"iterations={config['iterations']}"]) == 0
    strip = lambda text: [line.rsplit(",", 2)[0] for line in text.splitlines()]  # drop the timing columns
    assert strip((resumed / "metrics.csv").read_text()) == strip((out / "metrics.csv").read_text())
    assert len(strip((out / "metrics.csv").read_text())) == 1 + config["iterations"] * len(config["seeds"])
    evaluation = lambda run: json.loads((run / "eval.json").read_text())["policies"]
    assert evaluation(resumed) == evaluation(out)


@pytest.mark.slow
def test_train_cli_resumed_ppo_matches_uninterrupted(tmp_path):
    train(build_config(TrainConfig, TINY_RUN), tmp_path / "run", log=lambda *_: None)
    check_resume_matches_uninterrupted(tmp_path / "run", tmp_path / "resumed", TINY_RUN, stop=2)


def test_train_cli_resumed_ppo_matches_uninterrupted_small(small_run, tmp_path):
    """The small run (one seed, a chunk of one iteration), stopped after its first iteration and resumed."""
    check_resume_matches_uninterrupted(small_run, tmp_path / "resumed", SMALL_RUN, stop=1)
