"""gymnax and Gymnasium compatibility: ``make_gymnax`` (flat Box observation) under gymnax's own wrappers
and a PureJaxRL-shaped PPO written here, masked actions as documented per family, and the Gymnasium
adapter (``make_gymnasium``) against ``check_env`` and against the jitted gymnax env.

One small variant per family runs by default; every registered env is covered by the ``slow`` tests
(each compiles its own step, tens of seconds apiece on a 2-core CPU)."""

from __future__ import annotations

import warnings

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from gymnasium.utils.env_checker import check_env
from gymnax.wrappers.gym import GymnaxToGymWrapper
from gymnax.wrappers.purerl import FlattenObservationWrapper, LogWrapper

import jaxsched
from jaxsched.envs.grid.types import NEVER
from jaxsched.gymnasium_env import JaxschedGymnasiumEnv

# one small variant per family: what the fast tests run
SMALL = {
    "deeprm": dict(num_slots=3, backlog_size=6, horizon=10, max_job_len=6, capacity=5, max_job_size=5, simu_len=20),
    "vm-synthetic": dict(window=200, initial_pms=1, pms_per_expansion=1),  # PMs 2, 3 out of service: masked
    "grid": dict(num_jobs=40, exclude=0, num_cores=8, num_candidates=4, scan_width=8),
}
# what every registered env needs to be built here (vm-huawei reads a trace file otherwise)
NEEDS = {"vm-huawei": dict(trace="synthetic", window=300), "grid": dict(num_jobs=100, exclude=0),
         "grid-elastic": dict(num_jobs=100, exclude=0)}
EVERY = [pytest.param(name, NEEDS.get(name, {}), id=f"{name}-registered", marks=pytest.mark.slow)
         for name in jaxsched.registered()]


_SMALL_ENVS: dict = {}


def small_env(name: str):
    """``make_gymnax(name, **SMALL[name])``, one per module: the tests share its compiled gymnax ``reset``
    and ``step`` (called, as ``GymnaxToGymWrapper`` calls them, with typed keys and int32 actions)."""
    if name not in _SMALL_ENVS:
        _SMALL_ENVS[name] = jaxsched.make_gymnax(name, **SMALL[name])
    return _SMALL_ENVS[name]


def leaves_equal(a, b) -> bool:
    return all(np.array_equal(np.asarray(x), np.asarray(y)) for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b)))


# ---------------------------------------------------------------------------------------- gymnax wrappers
def run_wrapped(env, params, num_envs: int = 3, steps: int = 6):
    """LogWrapper(FlattenObservationWrapper(env)) under jit, vmap and scan, with random actions."""
    wrapped = LogWrapper(FlattenObservationWrapper(env))

    @jax.jit
    def run(key):
        obs, state = jax.vmap(wrapped.reset, in_axes=(0, None))(jax.random.split(key, num_envs), params)

        def one(carry, step_key):
            obs, state = carry
            act_key, env_key = jax.random.split(step_key)
            action = jax.random.randint(act_key, (num_envs,), 0, env.num_actions)
            obs, state, reward, terminated, truncated, info = jax.vmap(wrapped.step, in_axes=(0, 0, 0, None))(
                jax.random.split(env_key, num_envs), state, action, params)
            inside = jax.vmap(env.observation_space(params).contains)(obs)
            return (obs, state), (obs, reward, inside, info["returned_episode_returns"])

        return jax.lax.scan(one, (obs, state), jax.random.split(key, steps))[1]

    return run(jax.random.PRNGKey(0))


def check_scanned(env, params, obs, reward, inside, logged):
    """What a scan of LogWrapper(FlattenObservationWrapper(env)) steps recorded (``[..., obs]``)."""
    space = env.observation_space(params)
    assert obs.shape[-1:] == space.shape == (env.num_features + env.num_actions,) and obs.dtype == jnp.float32
    assert bool(inside.all()), "observations leave the declared Box"
    assert np.isfinite(np.asarray(reward)).all() and np.isfinite(np.asarray(logged)).all()
    mask = np.asarray(obs[..., env.num_features:])
    assert set(np.unique(mask)) <= {0.0, 1.0}


def check_gym_wrapper(env, params):
    space = env.observation_space(params)
    gym_env = GymnaxToGymWrapper(env, params, seed=0)
    assert gym_env.observation_space.shape == space.shape and gym_env.action_space.n == env.num_actions
    gym_obs, _ = gym_env.reset()
    assert gym_env.observation_space.contains(np.asarray(gym_obs))
    for action in (0, env.num_actions - 1):
        gym_obs, reward, terminated, truncated, _ = gym_env.step(jnp.int32(action))
        assert gym_env.observation_space.contains(np.asarray(gym_obs)) and np.isfinite(float(reward))


@pytest.mark.parametrize("name", ["vm-synthetic", "grid"])  # deeprm's: the PPO test runs the same wrappers
def test_gymnax_wrappers_run_jitted_vmapped_scanned(name):
    env, params = small_env(name)
    check_scanned(env, params, *run_wrapped(env, params))


@pytest.mark.parametrize("name", SMALL)
def test_gymnax_to_gym_wrapper_runs(name):
    check_gym_wrapper(*small_env(name))


# the kinds of registered env that SMALL leaves out, small: the compact (BRACIS) observation and the
# elastic grid site (every registered env, full size: the slow test below)
OTHER_KINDS = {"bracis-1": dict(simu_len=10, num_slots=4, horizon=6),
               "grid-elastic": dict(num_jobs=40, exclude=0, pool_sizes=(2, 3, 4), initial_pool=3)}


@pytest.mark.parametrize("name", OTHER_KINDS)
def test_gymnax_wrappers_run_on_the_other_kinds_of_env(name):
    env, params = jaxsched.make_gymnax(name, **OTHER_KINDS[name])
    check_scanned(env, params, *run_wrapped(env, params))
    check_gym_wrapper(env, params)


@pytest.mark.parametrize("name,overrides", EVERY)
def test_gymnax_wrappers_run_on_every_registered_env(name, overrides):
    env, params = jaxsched.make_gymnax(name, **overrides)
    check_scanned(env, params, *run_wrapped(env, params))
    check_gym_wrapper(env, params)


def test_plain_make_fails_gymnax_wrappers_and_make_gymnax_is_its_flat_view():
    """Why make_gymnax exists, and that its observation is make's, flattened (features, then the mask)."""
    env, params = jaxsched.make("deeprm", **SMALL["deeprm"])
    with pytest.raises(TypeError):
        FlattenObservationWrapper(env).reset(jax.random.PRNGKey(0), params)
    flat, flat_params = jaxsched.make_gymnax("deeprm", fresh_instances=False, **SMALL["deeprm"])
    obs, _ = env.reset(jax.random.PRNGKey(0), params)
    flat_obs, _ = flat.reset(jax.random.PRNGKey(0), flat_params)
    expected = np.concatenate([np.asarray(obs.features).ravel(), np.asarray(obs.action_mask, np.float32)])
    np.testing.assert_array_equal(np.asarray(flat_obs), expected)


def test_reset_draws_a_fresh_instance_unless_asked_not_to():
    env, params = small_env("deeprm")
    _, first = env.reset(jax.random.key(1), params)
    _, second = env.reset(jax.random.key(2), params)
    assert not leaves_equal(first.jobset, second.jobset)
    _, again = env.reset(jax.random.key(1), params)
    assert leaves_equal(first.jobset, again.jobset)  # a function of the key
    fixed, _ = jaxsched.make_gymnax("deeprm", fresh_instances=False, **SMALL["deeprm"])
    assert fixed.episode_params(jax.random.key(1), params) is params


# ---------------------------------------------------------------------------------------- masked actions
def step(env, params, state, action):
    """gymnax's jitted ``step`` (auto-reset included) with a fixed key."""
    return env.step(jax.random.key(0), state, jnp.int32(action), params)


def mask_of(env, obs) -> np.ndarray:
    return np.asarray(obs[env.num_features:]) > 0.5


def test_deeprm_masked_actions_are_the_void_action():
    env, params = small_env("deeprm")
    void = env.void_action
    assert void == env.num_actions - 1 == 3
    obs, state = env.reset(jax.random.key(0), params)
    for _ in range(6):  # move on until jobs wait in some slots
        obs, state, *_ = step(env, params, state, void)
    masked = [a for a in range(env.num_actions) if not mask_of(env, obs)[a]] + [-1, env.num_actions, 99]
    expected = step(env, params, state, void)
    for action in masked:
        assert leaves_equal(step(env, params, state, action), expected), action


def test_vm_masked_actions_end_the_episode():
    env, params = small_env("vm-synthetic")
    assert env.void_action is None
    obs, state = env.reset(jax.random.key(0), params)
    mask = mask_of(env, obs)
    assert mask[:2].any() and not mask[2:].any()  # one PM in service
    _, _, reward, terminated, _, _ = step(env, params, state, int(np.argmax(mask)))
    assert not bool(terminated) and float(reward) == 1.0
    for action in (2, 5, -1, env.num_actions):
        _, _, reward, terminated, _, info = step(env, params, state, action)
        assert bool(terminated) and float(reward) == 0.0
        np.testing.assert_array_equal(info["final_observation"], obs)  # nothing placed


def test_grid_masked_actions_dispatch_the_oldest_candidate():
    env, params = small_env("grid")
    assert env.void_action is None
    _, state = env.reset(jax.random.key(0), params)
    candidates = np.asarray(state.candidates)
    oldest = int(np.argmin(np.where(candidates >= 0, candidates, NEVER)))
    masked = [int(a) for a in np.flatnonzero(candidates < 0)] + [-1, env.num_actions]
    assert len(masked) > 2  # one job waits at the first decision
    expected = step(env, params, state, oldest)
    for action in masked:
        outcome = step(env, params, state, action)
        assert leaves_equal(outcome[:5], expected[:5]), action  # obs, state, reward, terminated, truncated
        assert not bool(outcome[5]["legal"]) and bool(outcome[5]["dispatched"])


# ---------------------------------------------------------------------------------------- PureJaxRL-style PPO
class ActorCritic(nn.Module):
    num_actions: int

    @nn.compact
    def __call__(self, x):
        actor = nn.Dense(self.num_actions)(nn.tanh(nn.Dense(32)(x)))
        critic = nn.Dense(1)(nn.tanh(nn.Dense(32)(x)))
        return actor, critic[..., 0]


def make_ppo(env, params, num_envs=4, num_steps=16, num_minibatches=2, iterations=3, gamma=0.99, lam=0.95):
    """PPO as PureJaxRL writes it: gymnax wrappers, vmapped envs, a scan of rollouts and updates."""
    env = LogWrapper(FlattenObservationWrapper(env))
    network = ActorCritic(env.action_space(params).n)
    optimizer = optax.chain(optax.clip_by_global_norm(0.5), optax.adam(3e-3))

    def log_prob(logits, action):
        return jnp.take_along_axis(jax.nn.log_softmax(logits), action[..., None], axis=-1)[..., 0]

    def loss_fn(weights, batch):
        obs, action, old_log_prob, advantage, target = batch
        logits, value = network.apply(weights, obs)
        ratio = jnp.exp(log_prob(logits, action) - old_log_prob)
        advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
        policy_loss = -jnp.minimum(ratio * advantage, jnp.clip(ratio, 0.8, 1.2) * advantage).mean()
        entropy = -(jax.nn.softmax(logits) * jax.nn.log_softmax(logits)).sum(-1).mean()
        return policy_loss + 0.5 * ((value - target) ** 2).mean() - 0.01 * entropy

    def train(key):
        key, init_key, reset_key = jax.random.split(key, 3)
        weights = network.init(init_key, jnp.zeros(env.observation_space(params).shape))
        obs, state = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(reset_key, num_envs), params)

        def update(carry, _):
            weights, opt_state, obs, state, key = carry

            def env_step(carry, _):
                obs, state, key = carry
                key, act_key, step_key = jax.random.split(key, 3)
                logits, value = network.apply(weights, obs)
                action = jax.random.categorical(act_key, logits)
                next_obs, state, reward, terminated, truncated, info = jax.vmap(env.step, in_axes=(0, 0, 0, None))(
                    jax.random.split(step_key, num_envs), state, action, params)
                done = (terminated | truncated).astype(jnp.float32)
                seen = (next_obs, reward, env.observation_space(params).contains(next_obs),
                        info["returned_episode_returns"])
                return (next_obs, state, key), (obs, action, log_prob(logits, action), value, reward, done, seen)

            (obs, state, key), (t_obs, action, t_log_prob, value, reward, done, seen) = jax.lax.scan(
                env_step, (obs, state, key), None, num_steps)
            _, last_value = network.apply(weights, obs)

            def gae(carry, t):
                advantage, next_value = carry
                done, value, reward = t
                delta = reward + gamma * next_value * (1 - done) - value
                advantage = delta + gamma * lam * (1 - done) * advantage
                return (advantage, value), advantage

            _, advantage = jax.lax.scan(gae, (jnp.zeros_like(last_value), last_value), (done, value, reward),
                                        reverse=True)
            batch = (t_obs, action, t_log_prob, advantage, advantage + value)
            key, perm_key = jax.random.split(key)
            order = jax.random.permutation(perm_key, num_steps * num_envs)
            minibatches = jax.tree.map(
                lambda x: x.reshape((num_steps * num_envs,) + x.shape[2:])[order].reshape(
                    (num_minibatches, -1) + x.shape[2:]), batch)

            def minibatch_step(carry, minibatch):
                weights, opt_state = carry
                loss, grads = jax.value_and_grad(loss_fn)(weights, minibatch)
                updates, opt_state = optimizer.update(grads, opt_state)
                return (optax.apply_updates(weights, updates), opt_state), loss

            (weights, opt_state), losses = jax.lax.scan(minibatch_step, (weights, opt_state), minibatches)
            return (weights, opt_state, obs, state, key), (losses, seen)

        carry = (weights, optimizer.init(weights), obs, state, key)
        (trained, *_), (losses, seen) = jax.lax.scan(update, carry, None, iterations)
        return weights, trained, losses, seen

    return jax.jit(train)


def test_a_purejaxrl_style_ppo_trains_on_make_gymnax():
    env, params = small_env("deeprm")
    initial, trained, losses, seen = make_ppo(env, params)(jax.random.PRNGKey(0))
    assert losses.shape == (3, 2) and np.isfinite(np.asarray(losses)).all()
    assert not leaves_equal(initial, trained)
    check_scanned(env, params, *seen)  # the wrappers under jit, vmap and scan, as for the other families


# ---------------------------------------------------------------------------------------- Gymnasium adapter
_ADAPTERS: dict = {}


def adapter(name: str):
    """One adapter per env for the module, on :func:`small_env`'s env (its compiled reset shared)."""
    if name not in _ADAPTERS:
        _ADAPTERS[name] = JaxschedGymnasiumEnv(*small_env(name), seed=0)
    return _ADAPTERS[name]


@pytest.mark.parametrize("name", SMALL)
def test_gymnasium_adapter_passes_check_env(name):
    env = adapter(name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the checker reports problems as warnings too
        check_env(env, skip_render_check=True)
    first, _ = env.reset(seed=123)
    again, info = env.reset(seed=123)
    np.testing.assert_array_equal(first, again)
    np.testing.assert_array_equal(info["action_mask"], env.action_masks())
    assert env.action_masks().shape == (env.action_space.n,) and env.action_masks().any()


@pytest.mark.usefixtures("default_compilation")  # bit for bit as users compile (conftest)
@pytest.mark.parametrize("name", SMALL)
def test_gymnasium_adapter_follows_the_jitted_gymnax_env(name):
    """Same seed, same actions: the adapter's observations and rewards are the gymnax env's (up to the
    episode's end, where gymnax resets by itself and puts the last observation in its info)."""
    env = adapter(name)
    gymnax_env, params = env.env, env.params
    seed = 7
    obs, _ = env.reset(seed=seed)
    expected, state = gymnax_env.reset(jax.random.split(jax.random.key(seed))[1], params)
    np.testing.assert_array_equal(obs, np.asarray(expected))
    rng = np.random.default_rng(0)
    for i in range(25):  # mostly allowed actions (a VM episode ends at its first masked one)
        action = rng.integers(env.action_space.n) if i % 10 == 9 else rng.choice(np.flatnonzero(env.action_masks()))
        obs, reward, terminated, truncated, _ = env.step(action)
        _, state, g_reward, g_terminated, g_truncated, info = gymnax_env.step(
            jax.random.key(i), state, jnp.int32(action), params)
        np.testing.assert_array_equal(obs, np.asarray(info["final_observation"]))
        assert reward == float(g_reward)
        assert (terminated, truncated) == (bool(g_terminated), bool(g_truncated))
        if terminated or truncated:
            break


def test_gymnasium_step_needs_reset_and_returns_host_values():
    env = adapter("deeprm")
    fresh = jaxsched.make_gymnasium("deeprm", **SMALL["deeprm"])  # built, never reset
    with pytest.raises(Exception, match="reset"):
        fresh.step(0)
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_space.n - 1)
    assert type(obs) is np.ndarray and obs.dtype == np.float32 and obs.flags.writeable
    assert type(reward) is float and type(terminated) is bool and type(truncated) is bool
