"""Behaviour cloning of a heuristic (DeepRM2 §3.3): imitate SJF, then hand the policy to REINFORCE.

Roll the labeller out on generated jobsets and record every visited (observation, action) pair; fit
the policy network by cross-entropy on the masked softmax plus an L2 penalty on the weight matrices
(the reference's 1e-3, Lasagne-style: sum of squares, biases excluded). The jobsets are split into
training and validation sets (by jobset, so no episode leaks into both), training runs in shuffled
minibatches, and stops when validation accuracy has not improved for ``patience`` epochs; the params
of the best validation epoch are returned. Accuracy is also counted up to the teacher's ties (the
variant's ``heuristic_ties``: SJF's equally short eligible jobs, whose label is only its lowest-slot
tie-break), and the best epoch is chosen on that count. The default optimiser is Adam (lr 1e-3): it needs fewer
epochs than the reference's RMSProp for this supervised problem; ``optimiser="rmsprop"`` uses the
reference's RMSProp.

The returned params have the structure of ``network_for(env, config.network, config.hidden)``'s,
so they are REINFORCE's ``initial_params`` when the two configs name the same network.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import struct

from jaxsched.algos.reinforce import rmsprop
from jaxsched.core.networks import NETWORKS, apply_batched, init_network, masked_logits, network_for
from jaxsched.core.rollout import collect_batch, num_instances
from jaxsched.core.variant import Variant

OPTIMISERS = ("adam", "rmsprop")


@dataclasses.dataclass(frozen=True)
class BCConfig:
    num_jobsets: int = 100  # jobsets rolled out by the labeller (train + validation)
    episode_len: int = 200  # decisions recorded per episode at most
    val_fraction: float = 0.2  # share of the jobsets held out for validation
    batch_size: int = 256
    max_epochs: int = 100
    patience: int = 5  # epochs without a better validation accuracy before stopping
    lr: float = 1e-3
    l2: float = 1e-3
    optimiser: str = "adam"  # "adam" | "rmsprop" (the reference's, rho 0.9, eps 1e-9)
    network: str = "mlp"
    hidden: int | None = None
    teacher: str = "sjf"  # the heuristic imitated (a name the variant's family knows)

    def __post_init__(self):
        if self.optimiser not in OPTIMISERS:
            raise ValueError(f"unknown optimiser {self.optimiser!r}; choose one of {', '.join(OPTIMISERS)}")
        if self.network not in NETWORKS:
            raise ValueError(f"unknown network {self.network!r}; choose one of {', '.join(NETWORKS)}")
        if self.num_jobsets < 2:
            raise ValueError("behaviour cloning needs at least 2 jobsets (training and validation)")
        if not 0.0 < self.val_fraction < 1.0:
            raise ValueError(f"val_fraction must lie in (0, 1), got {self.val_fraction}")
        if self.batch_size < 1 or self.max_epochs < 1 or self.patience < 1:
            raise ValueError("batch_size, max_epochs and patience must be >= 1")


@struct.dataclass
class Demonstrations:
    """Labelled decisions, flat over (jobset, step), padding already removed."""

    features: jax.Array  # [n, *feature_shape]
    action_mask: jax.Array  # bool[n, A]
    action: jax.Array  # int32[n] the labeller's choice (an invalid one relabelled as move-on)
    jobset: jax.Array  # int32[n] which jobset the decision came from
    equivalent: jax.Array  # bool[n, A] actions the labeller rates as good as its label (the label included)


@dataclasses.dataclass
class BCResult:
    params: object  # the best validation epoch's params
    history: list[dict]  # per epoch: epoch, train_loss, train_acc (means over its minibatches), val_acc
    best_epoch: int
    best_val_acc: float
    num_train: int  # decisions in the training split
    num_val: int
    best_val_acc_ties: float = float("nan")  # the best epoch's validation accuracy up to the teacher's ties
    val_tie_fraction: float = 0.0  # share of validation decisions where the teacher had tied choices


def collect_demonstrations(env, batched_params, key: jax.Array, episode_len: int,
                           labeller: Callable, ties: Callable | None = None,
                           chunk: int = 250) -> Demonstrations:
    """One labeller episode per instance (jobset), every visited decision kept (valid ones only).

    An action outside the mask is what the env treats as "move on", so it is recorded as M.
    ``ties(obs, action) -> bool[A]`` marks the actions the labeller rates as good as its choice
    (SJF's equally short jobs); without it only the label counts. Episodes run ``chunk`` jobsets at
    a time (each chunk's key folded from ``key``), so memory holds one chunk's padded trajectories.
    """
    run = jax.jit(lambda p, k: collect_batch(env, p, labeller, k, 1, episode_len, ties))
    total = num_instances(batched_params)
    parts = []
    for index, start in enumerate(range(0, total, chunk)):
        part = jax.tree.map(lambda x: x[start:start + chunk], batched_params)
        traj = run(part, key if total <= chunk else jax.random.fold_in(key, index))
        valid = np.asarray(traj.valid)  # [L, J, 1]
        flat = lambda x: np.asarray(x)[valid]  # kept decisions, time-major
        mask, action = flat(traj.action_mask), flat(traj.action)
        action = np.where(mask[np.arange(action.size), action], action, mask.shape[-1] - 1).astype(np.int32)
        jobset = np.broadcast_to(np.arange(start, start + valid.shape[1], dtype=np.int32)[None, :, None],
                                 valid.shape)[valid]
        equivalent = np.eye(mask.shape[-1], dtype=bool)[action]
        if ties is not None:
            equivalent |= flat(traj.extra).astype(bool) & mask
        parts.append([flat(traj.features), mask, action, jobset, equivalent])
        del traj
    fields = []
    while parts[0]:  # field by field, each chunk's copy freed as soon as it is joined
        fields.append(jnp.asarray(np.concatenate([part.pop(0) for part in parts])))
    return Demonstrations(*fields)


def l2_penalty(params) -> jax.Array:
    """Sum of squared weight-matrix entries (kernels), biases excluded."""
    leaves = jax.tree_util.tree_leaves_with_path(params)
    return sum(jnp.sum(x ** 2) for path, x in leaves if getattr(path[-1], "key", None) == "kernel")


def cross_entropy(logits: jax.Array, mask: jax.Array, action: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Per-decision cross-entropy of the masked softmax, and whether its argmax is the label."""
    logits = masked_logits(logits, mask)
    loss = optax.softmax_cross_entropy_with_integer_labels(logits, action)
    return loss, jnp.argmax(logits, axis=-1) == action


def train_behaviour_cloning(variant: Variant, config: BCConfig, key: jax.Array,
                            batched_params=None) -> BCResult:
    """Collects the teacher heuristic's demonstrations on ``config.num_jobsets`` instances drawn from
    the variant (or on the given ``batched_params``) and fits the policy network to them with early
    stopping."""
    env = variant.env
    data_key, init_key, train_key = jax.random.split(key, 3)
    if batched_params is None:
        batched_params = variant.sample_params(data_key, config.num_jobsets)
    num_jobsets = num_instances(batched_params)
    ties = getattr(variant, "heuristic_ties", lambda name: None)(config.teacher)
    demos = collect_demonstrations(env, batched_params, data_key, config.episode_len,
                                   variant.heuristic(config.teacher), ties)
    num_val_jobsets = min(max(int(round(num_jobsets * config.val_fraction)), 1), num_jobsets - 1)
    is_val = np.asarray(demos.jobset) >= num_jobsets - num_val_jobsets
    train = jax.tree.map(lambda x: x[~is_val], demos)
    val = jax.tree.map(lambda x: x[is_val], demos)
    num_train, num_val = int(train.action.shape[0]), int(val.action.shape[0])
    if num_train == 0 or num_val == 0:
        raise ValueError(f"empty split: {num_train} training and {num_val} validation decisions")

    network = network_for(env, config.network, config.hidden)
    optimiser = optax.adam(config.lr) if config.optimiser == "adam" else rmsprop(config.lr)
    params = init_network(network, init_key, env.feature_shape())
    opt_state = optimiser.init(params)
    batch_size = min(config.batch_size, num_train)
    num_batches = num_train // batch_size  # the remainder changes each epoch with the shuffle

    def batch_loss(params, batch):
        logits = apply_batched(network, params, batch.features, 1)
        loss, correct = cross_entropy(logits, batch.action_mask, batch.action)
        return jnp.mean(loss) + config.l2 * l2_penalty(params), jnp.mean(correct)

    def train_step(carry, index, data: Demonstrations):
        """One optimiser step on the minibatch ``data[index]``."""
        params, opt_state = carry
        batch = jax.tree.map(lambda x: x[index], data)
        (loss, acc), grads = jax.value_and_grad(batch_loss, has_aux=True)(params, batch)
        updates, opt_state = optimiser.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state), (loss, acc)

    def epoch_order(key):
        return jax.random.permutation(key, num_train)[: num_batches * batch_size].reshape(num_batches, -1)

    @jax.jit
    def scanned_epoch(params, opt_state, key, data: Demonstrations):
        (params, opt_state), (losses, accs) = jax.lax.scan(lambda carry, index: train_step(carry, index, data),
                                                           (params, opt_state), epoch_order(key))
        return params, opt_state, jnp.mean(losses), jnp.mean(accs)

    jitted_step = jax.jit(train_step)

    def looped_epoch(params, opt_state, key, data: Demonstrations):
        """The CNN's epoch: one jitted step per minibatch from Python, because XLA:CPU runs
        convolution gradients inside ``lax.scan`` ~10x slower than at top level (measured)."""
        carry, losses, accs = (params, opt_state), [], []
        for index in np.asarray(epoch_order(key)):
            carry, (loss, acc) = jitted_step(carry, index, data)
            losses.append(loss)
            accs.append(acc)
        return *carry, jnp.mean(jnp.stack(losses)), jnp.mean(jnp.stack(accs))

    train_epoch = looped_epoch if config.network == "cnn" else scanned_epoch

    @jax.jit
    def accuracy(params, data: Demonstrations):
        """Accuracy on the label, and up to the teacher's ties (the argmax is one of its equals)."""
        logits = apply_batched(network, params, data.features, 1)
        _, correct = cross_entropy(logits, data.action_mask, data.action)
        chosen = jnp.argmax(masked_logits(logits, data.action_mask), axis=-1)
        return jnp.mean(correct), jnp.mean(jnp.take_along_axis(data.equivalent, chosen[:, None], axis=-1))

    # the best epoch is chosen on the tie-aware accuracy (the plain one where the teacher has no ties)
    best_params, best, best_epoch, history = params, (-1.0, -1.0), 0, []
    for epoch in range(1, config.max_epochs + 1):
        train_key, epoch_key = jax.random.split(train_key)
        params, opt_state, train_loss, train_acc = train_epoch(params, opt_state, epoch_key, train)
        val_acc, val_acc_ties = (float(x) for x in accuracy(params, val))
        history.append({"epoch": epoch, "train_loss": float(train_loss), "train_acc": float(train_acc),
                        "val_acc": val_acc, "val_acc_ties": val_acc_ties})
        if val_acc_ties > best[1]:
            best_params, best, best_epoch = params, (val_acc, val_acc_ties), epoch
        elif epoch - best_epoch >= config.patience:
            break
    tie_fraction = float(jnp.mean(jnp.sum(val.equivalent, axis=-1) > 1))
    return BCResult(params=best_params, history=history, best_epoch=best_epoch, best_val_acc=best[0],
                    num_train=num_train, num_val=num_val, best_val_acc_ties=best[1], val_tie_fraction=tie_fraction)
