"""Policy and value networks for the DeepRM family, and the glue that turns them into policies.

Every network maps ONE observation's features (the image ``[T, W]`` or a vector) to outputs; batches
are handled by ``jax.vmap`` (see ``apply_batched``), so the same module serves a single decision, a
step of J x N rollouts and a minibatch of demonstrations without knowing the feature rank.
A learned policy has the heuristics' signature ``policy(key, obs) -> int32 action``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from jax.tree_util import Partial

NETWORKS = ("mlp", "cnn", "slots")

_small_normal = nn.initializers.normal(stddev=0.01)  # DeepRM's N(0, 0.01^2): a near-uniform start


class DeepRMPolicy(nn.Module):
    """DeepRM's policy: flattened features -> Dense(hidden) ReLU -> Dense(num_actions) logits.

    Weights N(0, 0.01^2) and zero biases as the reference; 89,851 parameters for M = 10 (20 x 224).
    """

    num_actions: int
    hidden: int = 20

    @nn.compact
    def __call__(self, features: jax.Array) -> jax.Array:
        x = jnp.reshape(features, (-1,)).astype(jnp.float32)
        x = nn.relu(nn.Dense(self.hidden, kernel_init=_small_normal, bias_init=nn.initializers.zeros)(x))
        return nn.Dense(self.num_actions, kernel_init=_small_normal, bias_init=nn.initializers.zeros)(x)


class DeepRM2CNN(nn.Module):
    """DeepRM2's CNN (Table 1): conv 5x5x8 ReLU, avg-pool 2, conv 5x5x16 ReLU, avg-pool 2, Dense 72
    tanh, Dense num_actions. SAME padding keeps 20x224 -> 10x112 -> 5x56 as the table states.

    Flax default initialisers, except the last layer N(0, 0.01^2) so the initial policy is near
    uniform like DeepRM's.
    """

    num_actions: int
    hidden: int = 72

    @nn.compact
    def __call__(self, features: jax.Array) -> jax.Array:
        if features.ndim != 2:
            raise ValueError(f"the CNN needs the image observation [T, W], got features of shape {features.shape}")
        x = features.astype(jnp.float32)[..., None]  # [T, W, 1]: one channel
        x = nn.relu(nn.Conv(8, (5, 5), strides=1, padding="SAME")(x))
        x = nn.avg_pool(x, (2, 2), strides=(2, 2))
        x = nn.relu(nn.Conv(16, (5, 5), strides=1, padding="SAME")(x))
        x = nn.avg_pool(x, (2, 2), strides=(2, 2))
        x = jnp.tanh(nn.Dense(self.hidden)(jnp.reshape(x, (-1,))))
        return nn.Dense(self.num_actions, kernel_init=_small_normal, bias_init=nn.initializers.zeros)(x)


@dataclass(frozen=True)
class ImageLayout:
    """Where the DeepRM image keeps what (:func:`jaxsched.envs.deeprm.observations.build_image_full`):
    per resource the cluster grid (``capacity`` columns) then ``num_slots`` job blocks
    (``slot_columns`` each); after the resources, the backlog and clock columns."""

    num_res: int
    capacity: int
    num_slots: int
    slot_columns: int

    @classmethod
    def of(cls, env) -> "ImageLayout | None":
        """The layout of ``env``'s image observation; None for envs without one."""
        if getattr(env, "observation", None) != "image" or not hasattr(env, "slot_columns"):
            return None
        return cls(env.num_res, env.capacity, env.num_slots, env.slot_columns)


class SlotScorer(nn.Module):
    """A policy that scores every waiting job with ONE shared network: the job's own cells (its slot
    block, every resource) beside a summary of the rest of the image (cluster grid, backlog, clock);
    the void action is scored from the summary alone.

    Why: a rule such as SJF is one function of a job's cells. The MLP must learn it once per slot
    from whichever slot the teacher happened to pick (DeepRM_Off's clone stalled at ~88% accuracy);
    here every decision trains the same scorer, and the policy is equivariant to slot order. Logits
    ``[num_slots + 1]``, the void action last as the env numbers it; the output layers start at
    N(0, 0.01^2) so the initial policy is near uniform, as DeepRM's."""

    num_actions: int
    layout: ImageLayout
    hidden: int = 32

    @nn.compact
    def __call__(self, features: jax.Array) -> jax.Array:
        lay = self.layout
        if features.ndim != 2 or self.num_actions != lay.num_slots + 1:
            raise ValueError(f"the slot scorer needs the DeepRM image [T, W] and num_slots + 1 actions, got features "
                             f"{features.shape} and {self.num_actions} actions")
        x = features.astype(jnp.float32)
        rows, block = x.shape[0], lay.capacity + lay.num_slots * lay.slot_columns
        per_resource = x[:, :lay.num_res * block].reshape(rows, lay.num_res, block)
        jobs = per_resource[:, :, lay.capacity:].reshape(rows, lay.num_res, lay.num_slots, lay.slot_columns)
        jobs = jnp.transpose(jobs, (2, 0, 1, 3)).reshape(lay.num_slots, -1)  # [M, T d S]
        summary = jnp.concatenate([per_resource[:, :, :lay.capacity].reshape(-1),
                                   x[:, lay.num_res * block:].reshape(-1)])
        context = nn.relu(nn.Dense(self.hidden, name="context")(summary))
        hidden = nn.relu(nn.Dense(self.hidden, name="job")(jobs)
                         + nn.Dense(self.hidden, use_bias=False, name="job_context")(context)[None, :])
        out = dict(kernel_init=_small_normal, bias_init=nn.initializers.zeros)
        scores = nn.Dense(1, name="job_score", **out)(hidden)[:, 0]
        void = nn.Dense(1, name="void_score", **out)(context)
        return jnp.concatenate([scores, void])


class ActorCritic(nn.Module):
    """The MDP-design paper's PPO network: flattened features -> ``layers`` x Dense(hidden) tanh,
    shared by a policy head (logits) and a value head (Stable-Baselines3's shared ``[64, 64]``), or,
    with ``separate_critic``, a second such torso for the value head alone. The paper's text says the
    torso is shared, but its parameter counts (24,332 compact; 301,068 / 1,089,548 / 1,821,708 image)
    are those of two torsos: ``separate_critic=True`` matches them.

    Orthogonal initialisation as SB3 (gain sqrt(2) in the torso, 0.01 for the logits so the initial
    policy is near uniform, 1 for the value). Returns ``(logits, value)``."""

    num_actions: int
    hidden: int = 64
    layers: int = 2
    separate_critic: bool = False

    @nn.compact
    def __call__(self, features: jax.Array) -> tuple[jax.Array, jax.Array]:
        x = jnp.reshape(features, (-1,)).astype(jnp.float32)

        def torso(h, names):  # names None: flax numbers the layers (the shared torso's saved names)
            for name in names:
                h = jnp.tanh(orthogonal_dense(self.hidden, jnp.sqrt(2.0), name)(h))
            return h

        actor = torso(x, [None] * self.layers)
        critic = torso(x, [f"critic_{i}" for i in range(self.layers)]) if self.separate_critic else actor
        logits = orthogonal_dense(self.num_actions, 0.01)(actor)
        value = orthogonal_dense(1, 1.0)(critic)
        return logits, value[0]


def orthogonal_dense(size: int, gain, name: str | None = None) -> nn.Dense:
    """A Dense layer initialised as SB3's PPO: orthogonal kernel with ``gain``, zero bias."""
    return nn.Dense(size, kernel_init=nn.initializers.orthogonal(gain), bias_init=nn.initializers.zeros, name=name)


class SlotActorCritic(nn.Module):
    """PPO's network with ONE shared job scorer, for a vector state whose per-slot features the env names
    (``slot_index``: one row of feature indices per slot): each slot's logit is one function of its own
    features beside a summary of the rest of the state (the context torso); the void action's logit reads the
    context, the value the context and the mean slot embedding. Returns ``(logits, value)`` as
    :class:`ActorCritic`.

    Why: a priority rule (SJF, F1) is one function of a job's features; a flat MLP has to learn it once per
    slot position, from whichever slot held the job (the image's :class:`SlotScorer` for the same reason)."""

    num_actions: int
    slot_index: tuple[tuple[int, ...], ...]  # [M][F] indices into the flat features; void is action M
    hidden: int = 64
    layers: int = 2

    @nn.compact
    def __call__(self, features: jax.Array) -> tuple[jax.Array, jax.Array]:
        x = jnp.reshape(features, (-1,)).astype(jnp.float32)
        index = np.asarray(self.slot_index, np.int32)
        if self.num_actions != index.shape[0] + 1:
            raise ValueError(f"{index.shape[0]} slots need {index.shape[0] + 1} actions, not {self.num_actions}")
        in_slot = np.zeros(x.shape[0], bool)
        in_slot[index.ravel()] = True

        def torso(h, prefix):
            for i in range(self.layers):
                h = jnp.tanh(orthogonal_dense(self.hidden, jnp.sqrt(2.0), f"{prefix}_{i}")(h))
            return h

        context = torso(x[np.flatnonzero(~in_slot)], "context")
        per_slot = jnp.concatenate([x[index], jnp.broadcast_to(context, (index.shape[0], self.hidden))], axis=-1)
        slots = torso(per_slot, "slot")  # [M, hidden]: the same weights for every slot
        logits = jnp.concatenate([orthogonal_dense(1, 0.01, "slot_logit")(slots)[:, 0],
                                  orthogonal_dense(1, 0.01, "void_logit")(context)])
        value = orthogonal_dense(1, 1.0, "value")(jnp.concatenate([context, jnp.mean(slots, axis=0)]))
        return logits, value[0]


class ValueNetwork(nn.Module):
    """A learned baseline V(s, t) (DeepRM's stated future work instead of the time baseline).

    The features carry no clock, so the decision index as a fraction of the episode length
    (``step_fraction`` in [0, 1]) is an extra input: the returns-to-go shrink with it.
    """

    hidden: int = 32

    @nn.compact
    def __call__(self, features: jax.Array, step_fraction: jax.Array | float = 0.0) -> jax.Array:
        x = jnp.reshape(features, (-1,)).astype(jnp.float32)
        x = jnp.concatenate([x, jnp.reshape(jnp.asarray(step_fraction, jnp.float32), (1,))])
        x = nn.relu(nn.Dense(self.hidden)(x))
        return nn.Dense(1)(x)[0]


def make_network(name: str, num_actions: int, hidden: int | None = None,
                 layout: ImageLayout | None = None) -> nn.Module:
    """A policy network by name: "mlp" (DeepRM, hidden 20), "cnn" (DeepRM2, hidden 72) or "slots"
    (:class:`SlotScorer`, hidden 32; needs the env's image ``layout``, :meth:`ImageLayout.of`)."""
    if name == "slots":
        if layout is None:
            raise ValueError("network 'slots' scores the job blocks of the DeepRM image: this env has no image "
                             "observation (env_options.observation: image)")
        return SlotScorer(num_actions, layout, hidden=32 if hidden is None else hidden)
    if name == "mlp":
        return DeepRMPolicy(num_actions, hidden=20 if hidden is None else hidden)
    if name == "cnn":
        return DeepRM2CNN(num_actions, hidden=72 if hidden is None else hidden)
    raise ValueError(f"unknown network {name!r}; choose one of {', '.join(NETWORKS)}")


def network_for(env, name: str, hidden: int | None = None) -> nn.Module:
    """:func:`make_network` for ``env``'s actions (and image layout, which "slots" reads)."""
    return make_network(name, env.num_actions, hidden, ImageLayout.of(env))


def masked_logits(logits: jax.Array, mask: jax.Array) -> jax.Array:
    """Invalid actions get the most negative finite logit: probability exactly 0, no NaN anywhere."""
    return jnp.where(mask, logits, jnp.finfo(logits.dtype).min)


def masked_log_probs(logits: jax.Array, mask: jax.Array) -> jax.Array:
    return jax.nn.log_softmax(masked_logits(logits, mask), axis=-1)


def masked_entropy(logits: jax.Array, mask: jax.Array) -> jax.Array:
    """Entropy of the masked softmax; masked actions contribute exactly 0."""
    log_probs = masked_log_probs(logits, mask)
    return -jnp.sum(jnp.where(mask, jnp.exp(log_probs) * log_probs, 0.0), axis=-1)


def apply_batched(network: nn.Module, params, features: jax.Array, batch_ndim: int, *args) -> jax.Array:
    """``network.apply`` over ``batch_ndim`` leading axes of ``features`` (and of any extra args)."""
    fn = lambda f, *a: network.apply(params, f, *a)
    for _ in range(batch_ndim):
        fn = jax.vmap(fn)
    return fn(features, *args)


def make_policy_fn(network: nn.Module, params, greedy: bool = False) -> Callable:
    """``policy(key, obs) -> int32 action``: a sample of the masked softmax, or its argmax.
    An actor-critic network's value output is ignored. A :class:`jax.tree_util.Partial` over ``params``,
    so an evaluator takes the params as an argument and compiles once per network, not once per seed."""
    return Partial(_network_policy(network, greedy), params)


@functools.lru_cache(maxsize=None)
def _network_policy(network: nn.Module, greedy: bool) -> Callable:
    """``policy(params, key, obs)``, one function object per (network, greedy): ``Partial`` compares it
    when a jitted evaluator looks up its cache."""

    def policy(params, key: jax.Array, obs) -> jax.Array:
        outputs = network.apply(params, obs.features)
        logits = masked_logits(outputs[0] if isinstance(outputs, tuple) else outputs, obs.action_mask)
        if greedy:
            return jnp.argmax(logits).astype(jnp.int32)
        return jax.random.categorical(key, logits).astype(jnp.int32)

    return policy


def init_network(network: nn.Module, key: jax.Array, feature_shape: tuple[int, ...]):
    return network.init(key, jnp.zeros(feature_shape, jnp.float32))


def count_params(params) -> int:
    return int(sum(x.size for x in jax.tree.leaves(params)))
