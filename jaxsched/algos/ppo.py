"""PPO (Schulman et al. 2017), one jitted iteration in the PureJaxRL shape, for any family.

One iteration: E environments step T decisions in a ``lax.scan`` (``vmap`` over environments; a
finished episode restarts at once on a fresh jobset), then GAE, then ``update_epochs`` passes over
the E T decisions in shuffled minibatches of the clipped surrogate

    loss = -mean(min(rho A, clip(rho, 1 - eps, 1 + eps) A)) + c_v mean((V - R)^2) - c_e mean(H(pi))

with advantages normalised per minibatch, gradients clipped to a global norm, Adam (eps 1e-5): the
Stable-Baselines3 algorithm the MDP-design paper trained with, and its hyper-parameters as defaults
(``docs/semantics/mdp-design.md``). The policy and value share a 2 x 64 tanh MLP (``ActorCritic``), or each
has its own (``separate_critic``).

Semi-MDP: with ``stepping="event"`` one decision may span several clock ticks; the environment
returns their rewards discounted within the transition and ``info["elapsed_ticks"]`` = k, and GAE
discounts the next state by gamma^k (k = 0 after a schedule that let no time pass). Time-based
stepping discounts by gamma per decision, as SB3 does. The env's ``params.gamma`` is set to the
config's gamma so the two discounts agree.

Episodes cut by the env's caps (clock or decision limit) are treated as terminal; the caps are far
above any work-conserving episode. ``jax.vmap(update_fn)`` trains several seeds at once.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import jax
import jax.numpy as jnp
import optax
from flax import struct

from jaxsched.core.devices import shard_batch
from jaxsched.core.networks import (ActorCritic, SlotActorCritic, apply_batched, make_policy_fn, masked_entropy,
                                    masked_log_probs)
from jaxsched.core.rollout import select_tree
from jaxsched.core.variant import Variant
from jaxsched.errors import check_positive


PPO_NETWORKS = ("mlp", "slots")


@dataclasses.dataclass(frozen=True)
class PPOConfig:
    """Static hyper-parameters (hashable). Defaults: the paper's (SB3) values; E is ours."""

    num_envs: int = 32  # E environments stepped in parallel
    num_steps: int = 50  # T decisions per environment per iteration (SB3 n_steps)
    minibatch_size: int = 64  # must divide E T
    update_epochs: int = 10
    lr: float = 1e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_eps: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: int = 64
    layers: int = 2
    separate_critic: bool = False  # True: the value head has its own torso (the paper's parameter counts)
    network: str = "mlp"  # "mlp" (flat features) | "slots" (one job scorer shared by the slots: SlotActorCritic)
    normalize_advantages: bool = True
    resample_jobsets: bool = True  # False: episodes start on jobsets drawn from a fixed pool
    num_jobsets: int = 64  # size of that pool

    def __post_init__(self):
        check_positive(self, "num_envs", "num_steps", "minibatch_size", "update_epochs", "hidden", "layers",
                       "num_jobsets")
        if (self.num_envs * self.num_steps) % self.minibatch_size:
            raise ValueError(f"minibatch_size {self.minibatch_size} must divide num_envs x num_steps = "
                             f"{self.num_envs * self.num_steps}")
        if not 0.0 <= self.gamma <= 1.0 or not 0.0 <= self.gae_lambda <= 1.0:
            raise ValueError(f"gamma and gae_lambda must lie in [0, 1], got {self.gamma}, {self.gae_lambda}")
        if self.clip_eps <= 0 or self.lr <= 0:
            raise ValueError(f"clip_eps and lr must be > 0, got {self.clip_eps}, {self.lr}")
        if self.network not in PPO_NETWORKS:
            raise ValueError(f"unknown network {self.network!r}; choose one of {', '.join(PPO_NETWORKS)}")
        if self.network == "slots" and self.separate_critic:
            raise ValueError("network 'slots' has its own value head; separate_critic applies to 'mlp'")


class TrainState(struct.PyTreeNode):
    params: object
    opt_state: object
    env_state: object  # [E] the environments' current states
    obs: object  # [E] what the policy sees next
    episode_return: jax.Array  # float32[E] undiscounted return of the running episodes so far
    key: jax.Array
    iteration: jax.Array  # int32


@struct.dataclass
class Transition:
    features: jax.Array  # [T, E, *feature_shape]
    action_mask: jax.Array  # bool[T, E, A]
    action: jax.Array  # int32[T, E]
    log_prob: jax.Array  # [T, E] under the behaviour policy
    value: jax.Array  # [T, E]
    reward: jax.Array  # [T, E]
    discount: jax.Array  # [T, E] gamma^(elapsed ticks) (event) or gamma (time); 0 after an episode end


def gae(transitions: Transition, last_value: jax.Array, lam: float) -> tuple[jax.Array, jax.Array]:
    """Generalised advantage estimation with a per-step discount (semi-MDP aware):
    delta_t = r_t + d_t V_{t+1} - V_t, A_t = delta_t + d_t lam A_{t+1}; returns (A, A + V)."""

    def back(carry, step):
        advantage, next_value = carry
        reward, discount, value = step
        delta = reward + discount * next_value - value
        advantage = delta + discount * lam * advantage
        return (advantage, value), advantage

    _, advantages = jax.lax.scan(back, (jnp.zeros_like(last_value), last_value),
                                 (transitions.reward, transitions.discount, transitions.value), reverse=True)
    return advantages, advantages + transitions.value


def ppo_loss(network, params, batch: Transition, advantages, targets, config: PPOConfig):
    """The clipped surrogate + value + entropy loss over a flat minibatch; returns (loss, aux)."""
    logits, values = apply_batched(network, params, batch.features, 1)
    log_probs = masked_log_probs(logits, batch.action_mask)
    log_prob = jnp.take_along_axis(log_probs, batch.action[:, None], axis=-1)[:, 0]
    if config.normalize_advantages:
        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    log_ratio = log_prob - batch.log_prob
    ratio = jnp.exp(log_ratio)
    clipped = jnp.clip(ratio, 1.0 - config.clip_eps, 1.0 + config.clip_eps)
    policy_loss = -jnp.mean(jnp.minimum(ratio * advantages, clipped * advantages))
    value_loss = jnp.mean((values - targets) ** 2)
    entropy = jnp.mean(masked_entropy(logits, batch.action_mask))
    loss = policy_loss + config.vf_coef * value_loss - config.ent_coef * entropy
    aux = {"policy_loss": policy_loss, "value_loss": value_loss, "entropy": entropy,
           "approx_kl": jnp.mean((ratio - 1.0) - log_ratio),
           "clip_fraction": jnp.mean(jnp.abs(ratio - 1.0) > config.clip_eps)}
    return loss, aux


def make_train(variant: Variant, config: PPOConfig, data_key: jax.Array) -> tuple[Callable, Callable]:
    """``(init_fn(key, initial_params=None) -> TrainState, update_fn(TrainState) -> (TrainState, metrics))``.

    New episodes start on instances drawn from the variant (``resample_jobsets``) or from a fixed
    pool of ``num_jobsets`` drawn once with ``data_key``. Within one iteration, an environment whose
    episode ends restarts on that iteration's instance for it (drawn once per iteration: an episode
    is longer than T decisions, so rarely twice).
    """
    env = variant.env
    network = actor_critic(config, env)
    optimiser = optax.chain(optax.clip_by_global_norm(config.max_grad_norm), optax.adam(config.lr, eps=1e-5))
    # the env's own discount of skipped ticks (event stepping) agrees with the learner's
    def with_gamma(params, count=None):
        if not hasattr(params, "gamma"):
            return params
        return params.replace(gamma=config.gamma if count is None else jnp.full((count,), config.gamma, jnp.float32))

    env_params = with_gamma(variant.params)  # the caps and static fields; the instance comes with the state
    pool = None if config.resample_jobsets else variant.sample_params(data_key, config.num_jobsets)
    E, T = config.num_envs, config.num_steps
    num_minibatches = E * T // config.minibatch_size
    event_based = getattr(env, "stepping", "time") == "event"

    observe = jax.vmap(env.get_obs, in_axes=(0, None))  # [E] states -> [E] observations

    def fresh_starts(key) -> object:
        """[E] initial states on new instances."""
        if config.resample_jobsets:
            batch = variant.sample_params(key, E)
        else:
            pick = jax.random.randint(key, (E,), 0, config.num_jobsets)
            batch = jax.tree.map(lambda x: x[pick], pool)
        return shard_batch(jax.vmap(env.initial_state)(with_gamma(batch, E)))  # split over devices, if asked

    def init_fn(key: jax.Array, initial_params=None) -> TrainState:
        key, net_key, env_key = jax.random.split(key, 3)
        params = network.init(net_key, jnp.zeros(env.feature_shape(), jnp.float32))
        if initial_params is not None:
            if jax.tree.structure(initial_params) != jax.tree.structure(params):
                raise ValueError("initial_params do not match the configured actor-critic network")
            params = initial_params
        env_state = fresh_starts(env_key)
        return TrainState(params=params, opt_state=optimiser.init(params), env_state=env_state,
                          obs=observe(env_state, env_params), episode_return=jnp.zeros((E,), jnp.float32),
                          key=key, iteration=jnp.int32(0))

    def env_step(params, restarts, carry, key):
        env_state, obs, episode_return = carry
        logits, value = apply_batched(network, params, obs.features, 1)
        log_probs = masked_log_probs(logits, obs.action_mask)
        action = jax.random.categorical(key, log_probs).astype(jnp.int32)
        log_prob = jnp.take_along_axis(log_probs, action[:, None], axis=-1)[:, 0]
        next_state, reward, terminated, info = jax.vmap(env.transition, in_axes=(0, 0, None))(
            env_state, action, env_params)
        done = terminated | jax.vmap(env.is_truncated, in_axes=(0, None))(next_state, env_params)
        discount = config.gamma ** info["elapsed_ticks"] if event_based else jnp.full((E,), config.gamma)
        episode_return = episode_return + reward
        ended = {"done": done, "return": jnp.where(done, episode_return, 0.0),
                 "max_return": jnp.where(done, episode_return, -jnp.inf),
                 # of the ended episodes, before the restart replaces them
                 "statistics": variant.episode_statistics(next_state)}
        next_state = jax.vmap(select_tree)(done, restarts, next_state)  # a restart is another instance: whole state
        record = Transition(features=obs.features, action_mask=obs.action_mask, action=action,
                            log_prob=log_prob, value=value, reward=reward,
                            discount=jnp.where(done, 0.0, discount).astype(jnp.float32))
        carry = (next_state, observe(next_state, env_params), jnp.where(done, 0.0, episode_return))
        return carry, (record, ended)

    @jax.jit
    def update_fn(state: TrainState) -> tuple[TrainState, dict[str, jax.Array]]:
        key, restart_key, rollout_key, shuffle_key = jax.random.split(state.key, 4)
        restarts = fresh_starts(restart_key)
        carry = shard_batch((state.env_state, state.obs, state.episode_return))
        carry, (transitions, ended) = jax.lax.scan(lambda c, k: env_step(state.params, restarts, c, k), carry,
                                                   jax.random.split(rollout_key, T))
        _, last_value = apply_batched(network, state.params, carry[1].features, 1)
        advantages, targets = gae(transitions, last_value, config.gae_lambda)

        flat = lambda x: x.reshape((E * T,) + x.shape[2:])
        data = jax.tree.map(flat, (transitions, advantages, targets))
        grad_fn = jax.value_and_grad(lambda p, b, a, t: ppo_loss(network, p, b, a, t, config), has_aux=True)

        def minibatch_step(train, minibatch):
            params, opt_state = train
            (loss, aux), grads = grad_fn(params, *minibatch)
            updates, opt_state = optimiser.update(grads, opt_state, params)
            return (optax.apply_updates(params, updates), opt_state), dict(aux, loss=loss)

        def epoch(train, key):
            order = jax.random.permutation(key, E * T)
            shuffled = jax.tree.map(lambda x: x[order].reshape((num_minibatches, -1) + x.shape[1:]), data)
            return jax.lax.scan(minibatch_step, train, shuffled)

        (params, opt_state), losses = jax.lax.scan(epoch, (state.params, state.opt_state),
                                                   jax.random.split(shuffle_key, config.update_epochs))
        episodes = jnp.sum(ended["done"])
        metrics = {k: jnp.mean(v) for k, v in losses.items()}
        metrics.update(
            decisions=jnp.int32(E * T), episodes=episodes.astype(jnp.int32),
            mean_return=jnp.where(episodes > 0, jnp.sum(ended["return"]) / jnp.maximum(episodes, 1), jnp.nan),
            max_return=jnp.where(episodes > 0, jnp.max(ended["max_return"]), jnp.nan),
            mean_reward=jnp.mean(transitions.reward), mean_value=jnp.mean(transitions.value),
            **variant.summarize_statistics(ended["statistics"], ended["done"]))
        new_state = state.replace(params=params, opt_state=opt_state, env_state=carry[0], obs=carry[1],
                                  episode_return=carry[2], key=key, iteration=state.iteration + 1)
        return new_state, metrics

    return init_fn, update_fn


def policy_from(config: PPOConfig, env, params, greedy: bool = True) -> Callable:
    """The trained actor with the heuristics' signature, for ``jaxsched.core.rollout.make_evaluator``."""
    return make_policy_fn(actor_critic(config, env), params, greedy)


def actor_critic(config: PPOConfig, env):
    """The configured network: :class:`ActorCritic` over the flat features, or :class:`SlotActorCritic` over
    the slots the env names (``env.slot_feature_index()``; only vector states with per-slot blocks have one)."""
    if config.network == "mlp":
        return ActorCritic(env.num_actions, config.hidden, config.layers, config.separate_critic)
    index = getattr(env, "slot_feature_index", lambda: None)()
    if index is None:
        raise ValueError(f"network 'slots' needs a state whose per-slot features the env names (the bracis state); "
                         f"{getattr(env, 'name', type(env).__name__)} with observation "
                         f"{getattr(env, 'observation', '?')!r} has none")
    return SlotActorCritic(env.num_actions, index, config.hidden, config.layers)
