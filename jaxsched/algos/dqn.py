"""Double DQN for VM placement, fully jitted: the SchedRL baseline and the learner behind CVD-RL.

One iteration (``update_fn``): ``num_envs`` parallel episodes take ``rollout_steps`` ε-greedy steps
each (``vmap`` over episodes, ``lax.scan`` over steps; finished episodes restart from a pool of
initial states at fixed start points), the transitions go into the replay buffer, then
``gradient_steps`` minibatch updates of the Double-DQN loss

    y = r + γ (1 − done) Q_target(s', argmax_{a' ∈ M(s')} Q_online(s', a'))
    loss = mean Huber(Q_online(s, a) − y)

each followed by a soft target update θ⁻ ← τ θ + (1 − τ) θ⁻. ε-greedy explores among the acting
mask M(s) only (the env's feasibility mask, or CVD-RL's top-k candidates within it), and the
argmax of the target uses the same M(s'), stored with the transition.

The replay buffer is our own circular buffer pytree (:class:`Replay`): fixed-shape arrays and an
insert index, so pushing and sampling are plain ``.at[].set`` / gathers inside the jitted
iteration and the whole buffer is part of the train state (checkpointed and vmapped over seeds like
the params). A library buffer (flashbax) would do the same; this one is ~30 lines and has no
extra dependency. Episodes cut by ``max_steps_in_episode`` are stored as terminal (no bootstrap
across the restart).

A Q-model (:class:`QModel`) says how Q-values come from one observation's features ``[N, 7]``;
this module's SchedRL model is an MLP over the whole flattened cluster state with 2N outputs (so it
is tied to its N). ``jaxsched.algos.cvd`` supplies the decomposed per-PM model.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, NamedTuple

import flax.linen as nn
import jax
import jax.numpy as jnp
import optax
from flax import struct

from jaxsched.core.devices import shard_batch
from jaxsched.errors import check_positive


@dataclasses.dataclass(frozen=True)
class DQNConfig:
    """Defaults: the CVD-RL paper's learner settings (lr, γ, ε, batch, replay, τ, 5 parallel
    episodes, 6-layer ReLU MLP); the paper gives no width, steps per epoch or warm-up: ours."""

    num_envs: int = 5  # parallel episodes
    rollout_steps: int = 64  # env steps per episode per iteration
    gradient_steps: int = 8  # minibatch updates per iteration
    batch_size: int = 2048
    buffer_size: int = 100_000
    learning_starts: int = 2048  # transitions in the buffer before the first update
    lr: float = 5e-4
    gamma: float = 0.75
    epsilon: float = 0.1
    tau: float = 0.01
    hidden: int = 64
    layers: int = 6  # Dense layers including the output
    max_grad_norm: float = 10.0
    num_starts: int = 64  # fixed training start points (reused every iteration, as VMAgent)

    def __post_init__(self):
        check_positive(self, "num_envs", "rollout_steps", "gradient_steps", "batch_size", "buffer_size", "hidden",
                       "num_starts")
        if self.layers < 2:
            raise ValueError("layers must be >= 2 (at least one hidden layer)")
        if not 0.0 <= self.epsilon <= 1.0 or not 0.0 < self.tau <= 1.0 or not 0.0 <= self.gamma <= 1.0:
            raise ValueError("need 0 <= epsilon <= 1, 0 < tau <= 1, 0 <= gamma <= 1")
        if self.num_envs * self.rollout_steps > self.buffer_size:
            raise ValueError("buffer_size must hold at least one iteration's transitions")


class MLP(nn.Module):
    """``layers`` Dense layers, ReLU between them."""

    hidden: int
    layers: int
    outputs: int

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        for _ in range(self.layers - 1):
            x = nn.relu(nn.Dense(self.hidden)(x))
        return nn.Dense(self.outputs)(x)


class QModel(NamedTuple):
    """How a learner values placements: ``init(key, features) -> params``, ``q_values(params,
    features[N, 7]) -> float32[2N]`` for one observation, ``acting_mask(obs) -> bool[2N]``, and
    optionally ``q_value_at(params, features, action) -> float32``, the value of one action, which
    the loss uses where it needs no other (a model can compute it with less work than all 2N)."""

    init: Callable
    q_values: Callable
    acting_mask: Callable
    q_value_at: Callable | None = None


def schedrl_model(num_pms: int, config: DQNConfig) -> QModel:
    """SchedRL: an MLP on the whole cluster's features, one Q-value per action (2N)."""
    network = MLP(config.hidden, config.layers, 2 * num_pms)
    return QModel(init=lambda key, features: network.init(key, features.reshape(-1)),
                  q_values=lambda params, features: network.apply(params, features.reshape(-1)),
                  acting_mask=lambda obs: obs.action_mask)


@struct.dataclass
class Replay:
    """Circular buffer of transitions; ``size`` filled rows, ``insert`` the next row written."""

    features: jax.Array  # float32[C, N, 7]
    action: jax.Array  # int32[C]
    reward: jax.Array  # float32[C]
    next_features: jax.Array  # float32[C, N, 7]
    next_mask: jax.Array  # bool[C, 2N] acting mask at s'
    done: jax.Array  # bool[C]
    size: jax.Array
    insert: jax.Array

    @classmethod
    def empty(cls, capacity: int, num_pms: int, num_features: int) -> "Replay":
        return cls(features=jnp.zeros((capacity, num_pms, num_features), jnp.float32),
                   action=jnp.zeros(capacity, jnp.int32), reward=jnp.zeros(capacity, jnp.float32),
                   next_features=jnp.zeros((capacity, num_pms, num_features), jnp.float32),
                   next_mask=jnp.zeros((capacity, 2 * num_pms), bool), done=jnp.zeros(capacity, bool),
                   size=jnp.int32(0), insert=jnp.int32(0))

    def push(self, features, action, reward, next_features, next_mask, done) -> "Replay":
        """Appends a batch (leading axis B), overwriting the oldest rows when full."""
        capacity = self.action.shape[0]
        rows = (self.insert + jnp.arange(action.shape[0])) % capacity
        return self.replace(features=self.features.at[rows].set(features), action=self.action.at[rows].set(action),
                            reward=self.reward.at[rows].set(reward),
                            next_features=self.next_features.at[rows].set(next_features),
                            next_mask=self.next_mask.at[rows].set(next_mask), done=self.done.at[rows].set(done),
                            size=jnp.minimum(self.size + action.shape[0], capacity),
                            insert=(self.insert + action.shape[0]) % capacity)

    def sample(self, key: jax.Array, batch: int):
        """``batch`` rows uniformly (with replacement) among the filled ones."""
        rows = jax.random.randint(key, (batch,), 0, jnp.maximum(self.size, 1))
        return jax.tree.map(lambda x: x[rows], (self.features, self.action, self.reward, self.next_features,
                                                self.next_mask, self.done))


@struct.dataclass
class DQNState:
    params: dict
    target_params: dict
    opt_state: optax.OptState
    replay: Replay
    env_state: object  # EnvState batched over num_envs
    episode_return: jax.Array  # float32[num_envs] return so far of the running episodes
    last_mean_return: jax.Array  # mean return of the episodes finished most recently
    key: jax.Array
    iteration: jax.Array


def masked_argmax(q: jax.Array, mask: jax.Array) -> jax.Array:
    """Index of the largest ``q`` among ``mask`` (the lowest index on ties; 0 when nothing is allowed)."""
    return jnp.argmax(jnp.where(mask, q, -jnp.inf)).astype(jnp.int32)


def epsilon_greedy(key: jax.Array, q: jax.Array, mask: jax.Array, epsilon) -> jax.Array:
    """Greedy among ``mask`` with probability 1 − ε, else uniform among ``mask``."""
    explore_key, pick_key = jax.random.split(key)
    uniform = jax.random.categorical(pick_key, jnp.where(mask, 0.0, -jnp.inf)).astype(jnp.int32)
    return jnp.where(jax.random.uniform(explore_key) < epsilon, uniform, masked_argmax(q, mask))


def make_train(variant, config: DQNConfig, data_key: jax.Array, model: QModel | None = None,
               reward_bonus: Callable | None = None):
    """PureJaxRL-style ``(init_fn, update_fn)`` (see ``jaxsched.algos``); ``model`` defaults to SchedRL.

    ``reward_bonus(obs, action) -> float``, if given, is added to the reward of every placement in
    the transitions the learner stores (e.g. ``jaxsched.algos.cvd.impact_bonus``); the returns it
    reports stay the env's."""
    env, env_params = variant.env, variant.params
    model = model or schedrl_model(env.num_pms, config)
    # fixed training start points, their initial states computed once (a warm start is a long loop)
    pool = jax.jit(jax.vmap(env.initial_state))(variant.sample_params(data_key, config.num_starts))
    optimizer = optax.chain(optax.clip_by_global_norm(config.max_grad_norm), optax.adam(config.lr))
    q_batch = jax.vmap(model.q_values, in_axes=(None, 0))
    q_value_at = model.q_value_at or (lambda params, features, action: model.q_values(params, features)[action])
    q_at_batch = jax.vmap(q_value_at, in_axes=(None, 0, 0))

    def restart(key):
        return jax.tree.map(lambda x: x[jax.random.randint(key, (), 0, config.num_starts)], pool)

    def init_fn(key, initial_params=None):
        init_key, env_key, key = jax.random.split(key, 3)
        sample_obs = env.get_obs(jax.tree.map(lambda x: x[0], pool), env_params)
        params = initial_params if initial_params is not None else model.init(init_key, sample_obs.features)
        env_state = jax.vmap(restart)(jax.random.split(env_key, config.num_envs))
        return DQNState(params=params, target_params=params, opt_state=optimizer.init(params),
                        replay=Replay.empty(config.buffer_size, env.num_pms, sample_obs.features.shape[-1]),
                        env_state=env_state, episode_return=jnp.zeros(config.num_envs, jnp.float32),
                        last_mean_return=jnp.float32(0.0), key=key, iteration=jnp.int32(0))

    def env_step(params, state, episode_return, key):
        """One ε-greedy step of one episode, restarting it when it ends."""
        act_key, reset_key = jax.random.split(key)
        obs = env.get_obs(state, env_params)
        action = epsilon_greedy(act_key, model.q_values(params, obs.features), model.acting_mask(obs),
                                config.epsilon)
        next_state, reward, terminated, info = env.transition(state, action, env_params)
        done = terminated | env.is_truncated(next_state, env_params)
        next_obs = env.get_obs(next_state, env_params)
        finished_return = episode_return + reward
        if reward_bonus is not None:
            reward = reward + jnp.where(info["placed"], reward_bonus(obs, action), 0.0)
        # a whole-tree select: the restart comes from another start point, with its own trace window
        state = jax.tree.map(lambda new, old: jnp.where(done, new, old), restart(reset_key), next_state)
        transition = (obs.features, action, reward, next_obs.features, model.acting_mask(next_obs), done)
        return state, jnp.where(done, 0.0, finished_return), transition, (done, finished_return)

    def loss_fn(params, target_params, batch):
        features, action, reward, next_features, next_mask, done = batch
        q = q_at_batch(params, features, action)
        next_action = jax.vmap(masked_argmax)(q_batch(jax.lax.stop_gradient(params), next_features), next_mask)
        next_q = q_at_batch(target_params, next_features, next_action)
        bootstrap = ~done & jnp.any(next_mask, axis=-1)
        target = reward + config.gamma * jnp.where(bootstrap, jax.lax.stop_gradient(next_q), 0.0)
        return jnp.mean(optax.huber_loss(q, target)), jnp.mean(q)

    def gradient_step(carry, key):
        params, target_params, opt_state, replay = carry
        batch = replay.sample(key, config.batch_size)
        (loss, mean_q), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, target_params, batch)
        updates, new_opt_state = optimizer.update(grads, opt_state, params)
        new_params = optax.apply_updates(params, updates)
        ready = replay.size >= config.learning_starts
        keep = lambda new, old: jax.tree.map(lambda a, b: jnp.where(ready, a, b), new, old)
        params, opt_state = keep(new_params, params), keep(new_opt_state, opt_state)
        target_params = keep(optax.incremental_update(params, target_params, config.tau), target_params)
        return (params, target_params, opt_state, replay), (loss, mean_q, ready)

    def update_fn(train_state: DQNState):
        key, rollout_key, grad_key = jax.random.split(train_state.key, 3)

        def rollout_step(carry, step_key):
            env_state, episode_return = carry
            keys = jax.random.split(step_key, config.num_envs)
            env_state, episode_return, transition, finished = jax.vmap(env_step, in_axes=(None, 0, 0, 0))(
                train_state.params, env_state, episode_return, keys)
            return (env_state, episode_return), (transition, finished)

        (env_state, episode_return), (transitions, (done, returns)) = jax.lax.scan(
            rollout_step, shard_batch((train_state.env_state, train_state.episode_return)),  # over devices
            jax.random.split(rollout_key, config.rollout_steps))
        flat = jax.tree.map(lambda x: x.reshape((-1,) + x.shape[2:]), transitions)
        replay = train_state.replay.push(*flat)
        (params, target_params, opt_state, replay), (loss, mean_q, ready) = jax.lax.scan(
            gradient_step, (train_state.params, train_state.target_params, train_state.opt_state, replay),
            jax.random.split(grad_key, config.gradient_steps))
        finished = jnp.sum(done)
        mean_return = jnp.where(finished > 0, jnp.sum(jnp.where(done, returns, 0.0)) / jnp.maximum(finished, 1),
                                train_state.last_mean_return)
        metrics = {"loss": jnp.where(jnp.any(ready), jnp.sum(loss * ready) / jnp.maximum(jnp.sum(ready), 1), 0.0),
                   "mean_q": jnp.mean(mean_q), "decisions": jnp.float32(config.num_envs * config.rollout_steps),
                   "episodes_finished": finished.astype(jnp.float32), "mean_return": mean_return,
                   "max_return": jnp.where(finished > 0, jnp.max(jnp.where(done, returns, -jnp.inf)), mean_return),
                   "replay_size": replay.size.astype(jnp.float32)}
        new_state = DQNState(params=params, target_params=target_params, opt_state=opt_state, replay=replay,
                             env_state=env_state, episode_return=episode_return, last_mean_return=mean_return,
                             key=key, iteration=train_state.iteration + 1)
        return new_state, metrics

    return init_fn, update_fn


def greedy_policy(model: QModel, params, greedy: bool = True, epsilon: float = 0.05) -> Callable:
    """``policy(key, obs) -> action``: argmax over the acting mask (ε-greedy when not ``greedy``)."""

    def policy(key, obs):
        q = model.q_values(params, obs.features)
        if greedy:
            return masked_argmax(q, model.acting_mask(obs))
        return epsilon_greedy(key, q, model.acting_mask(obs), epsilon)

    return policy


def policy_from(config: DQNConfig, env, params, greedy: bool = True) -> Callable:
    return greedy_policy(schedrl_model(env.num_pms, config), params, greedy)
