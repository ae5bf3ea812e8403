"""REINFORCE with DeepRM's time-dependent baseline (Mao et al. 2016, Fig. 3), fully jitted.

One iteration: draw J jobsets (or reuse fixed ones), run N rollouts of the current policy on each
(``vmap`` over jobsets x rollouts, ``lax.scan`` over L decisions with a valid mask), compute the
returns-to-go v_t, subtract a baseline b_t and take one optimiser step on

    loss = -(1 / (J N)) * sum_{j, i, t} valid * (log pi(a_t | s_t) * (v_t - b_t) + beta * H(pi(. | s_t)))

i.e. the sum over decisions of each episode, averaged over the J*N episodes (the reference sums the
per-step gradients; RMSProp makes the update almost invariant to this constant). Baselines:

- ``"time"``: b_t = mean of v_t over the N rollouts of the same jobset that are still running at
  decision t (0 if none is); the reference pads finished episodes with zeros and averages over all
  N, which is ``"time_padded"``;
- ``"value"``: b_t = V(s_t, t / L), a ``ValueNetwork`` regressed on v_t by its own optimiser.

The default optimiser is the reference's RMSProp: acc = rho acc + (1 - rho) g^2;
theta -= lr g / sqrt(acc + eps) (optax's ``rmsprop`` with ``eps_in_sqrt=True`` is exactly this).

Episodes still running after L decisions are cut there: their returns-to-go miss the rest of the
episode (as with the reference's episode_max_length), so pick L above the typical episode length and
watch ``unfinished_episode_fraction``. Memory: the observations of all J N L decisions are kept for
the gradient, J N L T W floats (717 MB for J = 10, N = 20, L = 200 and the M = 10 image).

``make_train`` follows PureJaxRL: static config in, pure ``init_fn`` / ``update_fn`` out;
``jax.vmap(update_fn)`` trains several seeds at once.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import jax
import jax.numpy as jnp
import optax
from flax import struct

from jaxsched.core.networks import (NETWORKS, ValueNetwork, apply_batched, init_network, make_policy_fn,
                                    masked_entropy, masked_log_probs, network_for)
from jaxsched.core.devices import mean_over_instances, shard_batch
from jaxsched.core.rollout import Trajectory, collect_batch
from jaxsched.core.variant import Variant
from jaxsched.errors import check_positive

BASELINES = ("time", "time_padded", "value")


@dataclasses.dataclass(frozen=True)
class ReinforceConfig:
    """Static hyper-parameters (hashable). Defaults: the reference's DeepRM settings, except J and L."""

    num_jobsets: int = 10  # J jobsets per iteration (the paper: 100; pg_re: 50)
    num_rollouts: int = 20  # N Monte-Carlo rollouts per jobset
    episode_len: int = 200  # L decisions scanned per episode; longer episodes are cut (counted)
    gamma: float = 1.0
    lr: float = 1e-3
    rho: float = 0.9  # RMSProp decay
    eps: float = 1e-9  # RMSProp epsilon, inside the square root
    baseline: str = "time"  # "time" | "time_padded" | "value"
    entropy_coef: float = 0.0
    network: str = "mlp"  # "mlp" (DeepRM) | "cnn" (DeepRM2) | "slots" (one scorer shared by the job slots)
    hidden: int | None = None  # policy hidden width; None: the network's default (20 / 72 / 32)
    value_hidden: int = 32
    value_lr: float = 1e-3
    resample_jobsets: bool = True  # False: every iteration uses the fixed jobsets given to make_train
    grad_chunk_len: int | None = None  # backprop through L in chunks of this many decisions (must
    # divide L): same gradient, less memory (the CNN over all J N L images does not fit in 23 GB)

    def __post_init__(self):
        if self.baseline not in BASELINES:
            raise ValueError(f"unknown baseline {self.baseline!r}; choose one of {', '.join(BASELINES)}")
        if self.network not in NETWORKS:
            raise ValueError(f"unknown network {self.network!r}; choose one of {', '.join(NETWORKS)}")
        check_positive(self, "num_jobsets", "num_rollouts", "episode_len")
        if self.grad_chunk_len is not None and (self.grad_chunk_len < 1 or self.episode_len % self.grad_chunk_len):
            raise ValueError(f"grad_chunk_len {self.grad_chunk_len} must divide episode_len {self.episode_len}")
        if not 0.0 <= self.gamma <= 1.0:
            raise ValueError(f"gamma must lie in [0, 1], got {self.gamma}")


class TrainState(struct.PyTreeNode):
    params: object  # policy network parameters
    opt_state: object
    value_params: object  # None unless baseline == "value"
    value_opt_state: object
    key: jax.Array
    iteration: jax.Array  # int32, updates applied so far


def rmsprop(lr: float, rho: float = 0.9, eps: float = 1e-9) -> optax.GradientTransformation:
    """The reference's RMSProp (accumulator starts at 0, eps inside the square root)."""
    return optax.rmsprop(lr, decay=rho, eps=eps, eps_in_sqrt=True, initial_scale=0.0)


# ---------------------------------------------------------------------------- pure pieces
def discounted_returns(reward: jax.Array, valid: jax.Array, gamma: float) -> jax.Array:
    """Returns-to-go v_t = sum_{s >= t} gamma^(s - t) r_s along the leading (time) axis; 0 on padding."""
    reward = jnp.where(valid, reward, 0.0)

    def back(future, r):
        v = r + gamma * future
        return v, v

    _, returns = jax.lax.scan(back, jnp.zeros(reward.shape[1:], reward.dtype), reward, reverse=True)
    return jnp.where(valid, returns, 0.0)


def time_baseline(returns: jax.Array, valid: jax.Array, count_padding: bool = False) -> jax.Array:
    """b_t: mean over the rollouts axis (the last) of the returns at decision t, over the rollouts
    still running at t (0 where none is). ``count_padding``: the reference's mean over all N with
    padding counted as 0.

    ``returns`` and ``valid`` are ``[L, ..., N]`` (e.g. ``[L, J, N]``); the result is ``[L, ...]``.
    """
    masked = jnp.where(valid, returns, 0.0)
    if count_padding:
        return jnp.mean(masked, axis=-1)
    count = jnp.sum(valid, axis=-1)
    return jnp.where(count > 0, jnp.sum(masked, axis=-1) / jnp.maximum(count, 1), 0.0)


def reinforce_loss(logits: jax.Array, action_mask: jax.Array, action: jax.Array, advantage: jax.Array,
                   valid: jax.Array, entropy_coef: float = 0.0) -> tuple[jax.Array, dict]:
    """The policy-gradient surrogate over ``[L, ...]`` decisions (logits ``[L, ..., A]``), normalised
    by the number of episodes (the size of all axes but the leading time axis). ``advantage`` is
    treated as a constant."""
    advantage = jax.lax.stop_gradient(advantage)
    log_probs = masked_log_probs(logits, action_mask)
    taken = jnp.take_along_axis(log_probs, action[..., None], axis=-1)[..., 0]
    entropy = masked_entropy(logits, action_mask)
    num_episodes = valid.size // valid.shape[0]
    surrogate = jnp.sum(jnp.where(valid, taken * advantage + entropy_coef * entropy, 0.0))
    loss = -surrogate / num_episodes
    num_valid = jnp.maximum(jnp.sum(valid), 1)
    return loss, {"entropy": jnp.sum(jnp.where(valid, entropy, 0.0)) / num_valid}


def chunked_value_and_grad(loss_fn: Callable, params, batch: tuple, chunk_len: int):
    """(loss, mean entropy, grads) of ``loss_fn(params, *batch) -> (loss, {"entropy"})`` with the
    time-major ``batch`` cut into chunks of ``chunk_len`` decisions. The REINFORCE loss is a sum over
    decisions with a normalisation that does not depend on L, so the chunks' losses and gradients add
    up to the whole batch's exactly (up to float rounding) while only one chunk's activations need
    to be alive. The chunks are unrolled, not scanned: XLA:CPU runs convolution gradients inside a
    loop about 7x slower (measured); the price is compile time linear in the number of chunks."""
    grad_fn = jax.value_and_grad(loss_fn, has_aux=True)
    length, valid = batch[0].shape[0], batch[-1]
    loss, entropy_sum, grads = jnp.float32(0.0), jnp.float32(0.0), None
    for start in range(0, length, chunk_len):
        chunk = tuple(x[start:start + chunk_len] for x in batch)
        if grads is not None:  # start this chunk only once the previous one is done: bounded memory
            grads, chunk = jax.lax.optimization_barrier((grads, chunk))
        (chunk_loss, aux), chunk_grads = grad_fn(params, *chunk)
        loss = loss + chunk_loss
        entropy_sum = entropy_sum + aux["entropy"] * jnp.sum(chunk[-1])
        grads = chunk_grads if grads is None else jax.tree.map(jnp.add, grads, chunk_grads)
    return loss, entropy_sum / jnp.maximum(jnp.sum(valid), 1), grads


def value_loss(values: jax.Array, returns: jax.Array, valid: jax.Array) -> jax.Array:
    """Mean squared error over the valid decisions."""
    return jnp.sum(jnp.where(valid, (values - returns) ** 2, 0.0)) / jnp.maximum(jnp.sum(valid), 1)


def episode_metrics(variant: Variant, traj: Trajectory, returns: jax.Array) -> dict[str, jax.Array]:
    """Scalars over all J x N episodes, with the family's own (e.g. job means over finished jobs)."""
    episode_return = returns[0]
    decisions = jnp.sum(traj.valid, axis=0)
    stats = variant.episode_statistics(traj.final_state)
    return {
        "mean_return": jnp.mean(episode_return),
        "max_return": jnp.max(episode_return),
        **variant.summarize_statistics(stats, jnp.ones(traj.terminated.shape, bool)),
        "unfinished_episode_fraction": jnp.mean(~traj.terminated),
        "decisions": jnp.sum(decisions).astype(jnp.int32),
        "mean_episode_decisions": jnp.mean(decisions),
    }


# ---------------------------------------------------------------------------- training
def make_train(variant: Variant, config: ReinforceConfig, data_key: jax.Array) -> tuple[Callable, Callable]:
    """``(init_fn(key, initial_params=None) -> TrainState, update_fn(TrainState) -> (TrainState, metrics))``.

    ``update_fn`` is one jitted iteration. With ``config.resample_jobsets`` it draws J fresh instances
    (jobsets, trace windows) from the variant each iteration; otherwise it replays the J drawn once
    with ``data_key``.
    """
    env = variant.env
    fixed = None if config.resample_jobsets else variant.sample_params(data_key, config.num_jobsets)
    network = network_for(env, config.network, config.hidden)
    value_network = ValueNetwork(config.value_hidden)
    use_value = config.baseline == "value"
    optimiser = rmsprop(config.lr, config.rho, config.eps)
    value_optimiser = rmsprop(config.value_lr, config.rho, config.eps)
    feature_shape = env.feature_shape()
    L = config.episode_len

    def init_fn(key: jax.Array, initial_params=None) -> TrainState:
        key, policy_key, value_key = jax.random.split(key, 3)
        params = init_network(network, policy_key, feature_shape)
        if initial_params is not None:
            if jax.tree.structure(initial_params) != jax.tree.structure(params):
                raise ValueError("initial_params do not match the configured policy network")
            params = jax.tree.map(lambda x: jnp.asarray(x, jnp.float32), initial_params)
        value_params = value_opt_state = None
        if use_value:
            value_params = value_network.init(value_key, jnp.zeros(feature_shape, jnp.float32), 0.0)
            value_opt_state = value_optimiser.init(value_params)
        return TrainState(params=params, opt_state=optimiser.init(params), value_params=value_params,
                          value_opt_state=value_opt_state, key=key, iteration=jnp.int32(0))

    @jax.jit
    def update_fn(state: TrainState) -> tuple[TrainState, dict[str, jax.Array]]:
        key, jobset_key, rollout_key = jax.random.split(state.key, 3)
        batched_params = shard_batch(variant.sample_params(jobset_key, config.num_jobsets)
                                     if config.resample_jobsets else fixed)  # split over devices, if asked
        policy = make_policy_fn(network, state.params, greedy=False)
        traj = collect_batch(env, batched_params, policy, rollout_key, config.num_rollouts, L)
        returns = discounted_returns(traj.reward, traj.valid, config.gamma)  # [L, J, N]

        metrics = {}
        value_params, value_opt_state = state.value_params, state.value_opt_state
        if use_value:
            step_fraction = jnp.broadcast_to((jnp.arange(L, dtype=jnp.float32) / L)[:, None, None],
                                             traj.valid.shape)

            def fit_value(vp):
                values = apply_batched(value_network, vp, traj.features, 3, step_fraction)
                return value_loss(values, returns, traj.valid), values

            (v_loss, values), v_grads = jax.value_and_grad(fit_value, has_aux=True)(value_params)
            v_updates, value_opt_state = value_optimiser.update(v_grads, value_opt_state, value_params)
            value_params = optax.apply_updates(value_params, v_updates)
            baseline = values
            metrics["value_loss"] = v_loss
        else:
            baseline = time_baseline(returns, traj.valid, config.baseline == "time_padded")[..., None]
        advantage = jnp.where(traj.valid, returns - baseline, 0.0)

        def loss_fn(params, features, action_mask, action, advantage, valid):
            logits = apply_batched(network, params, features, 3)
            return reinforce_loss(logits, action_mask, action, advantage, valid, config.entropy_coef)

        def episodes_gradient(*batch):  # a mean over the episodes of ``batch`` (instance axis 1)
            loss, entropy, grads = chunked_value_and_grad(loss_fn, state.params, batch, config.grad_chunk_len or L)
            decisions = jnp.sum(batch[-1]).astype(jnp.float32)
            return loss, grads, entropy * decisions, decisions

        loss, grads, entropy_sum, decisions = mean_over_instances(  # each device its jobsets, if asked
            episodes_gradient, (traj.features, traj.action_mask, traj.action, advantage, traj.valid), (1,) * 5)
        entropy = entropy_sum / jnp.maximum(decisions, 1.0)
        updates, opt_state = optimiser.update(grads, state.opt_state, state.params)
        params = optax.apply_updates(state.params, updates)

        metrics.update(episode_metrics(variant, traj, returns))
        metrics.update(loss=loss, entropy=entropy, grad_norm=optax.tree.norm(grads))
        new_state = state.replace(params=params, opt_state=opt_state, value_params=value_params,
                                  value_opt_state=value_opt_state, key=key, iteration=state.iteration + 1)
        return new_state, metrics

    return init_fn, update_fn


def run_iterations(update_fn: Callable, num_iterations: int) -> Callable:
    """A jitted ``state -> (state, metrics stacked over iterations)`` that scans ``update_fn``:
    one dispatch per chunk, for an outer Python loop that logs and checkpoints between chunks."""

    @jax.jit
    def run(state: TrainState):
        return jax.lax.scan(lambda s, _: update_fn(s), state, None, length=num_iterations)

    return run


def policy_from(config: ReinforceConfig, env, params, greedy: bool = True) -> Callable:
    """The trained policy with the heuristics' signature, for ``jaxsched.core.rollout.make_evaluator``."""
    return make_policy_fn(network_for(env, config.network, config.hidden), params, greedy)
