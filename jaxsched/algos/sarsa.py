"""SARSA with an Echo State Network (or an MLP) action value, batch re-learning: the grid paper's learner.

Each iteration (``update_fn``): ``num_envs`` episodes take ``rollout_steps`` decisions each,
ε-greedy on Q (or, during the first ``warm_start_iterations``, the EDF heuristic's decisions: the
paper's warm start), and their transitions (s, a, r, s', a') go into a replay buffer. Then Q is
re-learned on the whole buffer towards the SARSA targets of the paper's update

    y = Q(s, a) + η [r + γ (1 − done) Q(s', a') − Q(s, a)]

(ε = 0.05, γ = 0.8, η = 0.2). Q(s, a) reads the paper's state–action vector
(the env's ``state_action_inputs``: 19 numbers in the grid family; elastic adds the chosen and
current pool size and the cool-down).

**ESN** (``q_model: esn``): 100 sigmoid reservoir units; reservoir weights uniform in [0, 1] with 10%
connectivity, rescaled to spectral radius ``spectral_radius`` (< 1, the echo-state property: the
paper's raw [0, 1] weights at 10% density have a radius of ~5); input weights uniform in [−1, 1]
times ``input_scale`` (the paper gives no range; all-positive inputs would drive every unit alike);
the readout sees a fixed random 15% of the units plus a bias, and is fitted in closed form by ridge
regression (:func:`ridge`), re-learned from the buffer every iteration (the paper's batch re-learning).
**Memory** (``esn_memory: true``, the default, as in the paper): the reservoir state is carried across
decisions. At a decision with reservoir state h (the state after the previous decision), every
candidate action a (every waiting job; elastic: every (job, pool size)) is scored by the readout of
h_a = sigmoid(W_in x(s, a) + W h), Q(s, a) = θ · [mask ⊙ h_a, 1], the argmax is taken (ε-greedy), and
the state moves on to h_a of the action taken: the running reservoir state driven by each decision's
input, so Q depends on the past inputs (non-Markovian arrivals, delayed rewards: the paper's Sections
3 and 6). The state is part of the learner's carry (``SarsaState.memory``, one per parallel episode,
checkpointed with the rest), restarts from rest (zeros) with each episode, and a trained policy is a
:class:`RecurrentPolicy` that carries it through an evaluation episode. The ablation
``esn_memory: false`` runs the reservoir from rest for ``washout`` steps on each decision's input, so
Q is a fixed random feature map of the present decision only (the former model).

**MLP** (``q_model: mlp``): the paper's feed-forward comparison, trained by Adam on the squared error
to the same targets (``gradient_steps`` minibatches per iteration).
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import struct

from jaxsched.core.devices import shard_batch
from jaxsched.core.rollout import select_tree
from jaxsched.errors import check_positive

Q_MODELS = ("esn", "mlp")


@dataclasses.dataclass(frozen=True)
class SarsaConfig:
    """Defaults: the paper's constants (ε, γ, η, 100 units, 10% / 15% connectivity); the rest ours."""

    q_model: str = "esn"
    # Q's input: "paper" (the 19-number state-action vector) or "extended" (+ the job's class and wait)
    q_inputs: str = "paper"
    # elastic: the chosen pool size as "scalar" (size / P, one input) or "one_hot" (one input per allowed size)
    size_input: str = "scalar"
    num_envs: int = 8  # parallel episodes
    rollout_steps: int = 128  # decisions per episode per iteration
    epsilon: float = 0.05
    gamma: float = 0.8
    eta: float = 0.2
    buffer_size: int = 16384  # transitions the batch re-learning fits
    warm_start_iterations: int = 10  # iterations acting with EDF (learning from its decisions)
    warm_start_policy: str = "edf"
    num_starts: int = 16  # training windows (fixed), restarted from when an episode ends
    # ESN
    reservoir: int = 100
    connectivity: float = 0.10
    readout_connectivity: float = 0.15
    spectral_radius: float = 0.9
    input_scale: float = 1.0
    washout: int = 3  # esn_memory false: reservoir steps from rest per decision
    esn_memory: bool = True  # carry the reservoir state across decisions (false: the from-rest ablation)
    # score every action from the input's parts and the readout's units only (see factored_values): the same
    # Q up to float rounding, ~10x less work on the elastic site's 22,528 actions; needs esn_memory
    factored_q: bool = False
    ridge: float = 1e-3  # per transition (see fit_readout)
    # MLP
    hidden: int = 64
    layers: int = 2
    lr: float = 1e-3
    gradient_steps: int = 32
    batch_size: int = 256

    def __post_init__(self):
        if self.q_inputs not in ("paper", "extended"):
            raise ValueError(f"q_inputs must be 'paper' or 'extended', got {self.q_inputs!r}")
        if self.size_input not in ("scalar", "one_hot"):
            raise ValueError(f"size_input must be 'scalar' or 'one_hot', got {self.size_input!r}")
        if self.q_model not in Q_MODELS:
            raise ValueError(f"q_model must be one of {', '.join(Q_MODELS)}, got {self.q_model!r}")
        check_positive(self, "num_envs", "rollout_steps", "buffer_size", "num_starts", "reservoir", "washout",
                       "hidden", "layers", "gradient_steps", "batch_size")
        for name in ("epsilon", "gamma", "eta", "connectivity", "readout_connectivity"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], got {getattr(self, name)}")
        if not 0.0 < self.spectral_radius < 1.0 or self.ridge < 0:
            raise ValueError("need 0 < spectral_radius < 1 and ridge >= 0")
        if self.factored_q and not (self.q_model == "esn" and self.esn_memory):
            raise ValueError("factored_q scores actions from the carried reservoir state: it needs q_model: esn "
                             "and esn_memory: true")
        if self.num_envs * self.rollout_steps > self.buffer_size:
            raise ValueError("buffer_size must hold at least one iteration's transitions")


# ------------------------------------------------------------------ ESN
def init_reservoir(key: jax.Array, inputs: int, config: SarsaConfig) -> dict:
    """Fixed random weights: input [D, N], reservoir [N, N] (spectral radius set), readout units mask."""
    in_key, w_key, mask_key, out_key = jax.random.split(key, 4)
    n = config.reservoir
    w = jax.random.uniform(w_key, (n, n)) * (jax.random.uniform(mask_key, (n, n)) < config.connectivity)
    radius = jnp.max(jnp.abs(jnp.linalg.eigvals(w)))
    w = w * jnp.where(radius > 0, config.spectral_radius / jnp.maximum(radius, 1e-12), 0.0)
    readout = jax.random.uniform(out_key, (n,)) < config.readout_connectivity
    readout = readout.at[0].set(True)  # at least one unit
    return {"w_in": config.input_scale * jax.random.uniform(in_key, (inputs, n), minval=-1.0, maxval=1.0),
            "w": w.astype(jnp.float32), "readout_units": readout.astype(jnp.float32)}


def reservoir_features(reservoir: dict, x: jax.Array, washout: int) -> jax.Array:
    """float32[..., N + 1]: the readout's view (masked unit activations, then a bias of 1) of the
    reservoir after ``washout`` steps on input ``x`` from rest."""
    drive = x @ reservoir["w_in"]
    h = jnp.zeros(drive.shape, jnp.float32)
    for _ in range(washout):
        h = jax.nn.sigmoid(drive + h @ reservoir["w"])
    return jnp.concatenate([h * reservoir["readout_units"], jnp.ones(h.shape[:-1] + (1,), jnp.float32)], axis=-1)


def reservoir_step(reservoir: dict, h: jax.Array, x: jax.Array) -> jax.Array:
    """float32[..., N]: one reservoir update from state ``h`` [N] driven by inputs ``x`` [..., D] (the
    recurrent term is computed once and shared by every input row)."""
    return jax.nn.sigmoid(x @ reservoir["w_in"] + h @ reservoir["w"])


def readout_view(reservoir: dict, h: jax.Array) -> jax.Array:
    """float32[..., N + 1]: what the readout sees of reservoir states ``h``: the masked units, then 1."""
    return jnp.concatenate([h * reservoir["readout_units"], jnp.ones(h.shape[:-1] + (1,), jnp.float32)], axis=-1)


def readout_cap(config: SarsaConfig) -> int:
    """A static bound on how many units the readout sees (each is drawn with probability
    ``readout_connectivity``; unit 0 always): the mean plus 4 standard deviations (31 of the paper's 100
    units at 15%), so that a reservoir drawing more is rare (~3 in 100,000), and one that does is refused
    (:func:`check_readout_cap`). Its sigmoid work scales with this bound."""
    n, p = config.reservoir, config.readout_connectivity
    return min(n, int(np.ceil(n * p + 4 * np.sqrt(n * p * (1 - p)))) + 1)


def check_readout_cap(reservoir: dict, cap: int) -> None:
    """Raises (from inside jit too) when the reservoir's readout sees more than ``cap`` units."""
    def check(count):
        if int(count) > cap:
            raise ValueError(f"the ESN readout sees {int(count)} units, more than factored_q's bound {cap}: "
                             "set factored_q: false for this reservoir")

    jax.debug.callback(check, jnp.sum(reservoir["readout_units"] > 0))


def factored_values(reservoir: dict, theta: jax.Array, parts, h: jax.Array, cap: int) -> jax.Array:
    """float32[K * S]: Q of every action ``k * S + s`` whose input is ``shared + per_candidate[k] +
    per_size[s]`` (``parts``, e.g. the grid env's ``state_action_parts``) from reservoir state ``h``.
    The same function as scoring each action's full input (``readout_view(reservoir_step(...)) @
    theta``), computed with K + S input products instead of K x S, and the sigmoid only on the (at most
    ``cap``) units the readout sees; float rounding differs from the joint product."""
    shared, per_candidate, per_size = parts
    seen = reservoir["readout_units"] > 0
    units = jnp.nonzero(seen, size=cap, fill_value=0)[0]
    weight = jnp.where(jnp.arange(cap) < jnp.sum(seen), theta[units], 0.0)
    w_in, w = reservoir["w_in"][:, units], reservoir["w"][:, units]
    drive = ((shared @ w_in + h @ w)[None, None, :] + (per_candidate @ w_in)[:, None, :]
             + (per_size @ w_in)[None, :, :])
    return (jnp.sum(jax.nn.sigmoid(drive) * weight, axis=-1) + theta[-1]).reshape(-1)  # one fused loop


def ridge(features: jax.Array, targets: jax.Array, weights: jax.Array, penalty: float) -> jax.Array:
    """argmin_θ Σ_i weights_i (features_i θ − targets_i)² + penalty |θ|²: closed form, jittable."""
    fw = features * weights[:, None]
    gram = fw.T @ features + penalty * jnp.eye(features.shape[-1], dtype=features.dtype)
    return jnp.linalg.solve(gram, fw.T @ targets)


def fit_readout(features: jax.Array, targets: jax.Array, weights: jax.Array, penalty: float) -> jax.Array:
    """The ESN readout: :func:`ridge` with the penalty per transition (``penalty`` × rows), so its
    weight against the data does not shrink as the buffer fills. The reservoir's sigmoid units are
    nearly collinear; with a fixed penalty the repeated SARSA re-fits diverged (NaN within 10
    iterations at full readout connectivity)."""
    return ridge(features, targets, weights, penalty * jnp.maximum(jnp.sum(weights), 1.0))


class MLPQ(nn.Module):
    hidden: int
    layers: int

    @nn.compact
    def __call__(self, x):
        for _ in range(self.layers):
            x = nn.relu(nn.Dense(self.hidden)(x))
        return nn.Dense(1)(x)[..., 0]


@dataclasses.dataclass(frozen=True)
class QFunction:
    """``inputs(obs) -> x[A, D]`` (every action's state-action vector), ``init(key) -> params``,
    ``embed(params, x[..., D]) -> z`` (the from-rest view: what the buffer stores without memory),
    ``features(params, x[A, D], h[M]) -> (z[A, E], h'[A, M])`` (each action's embedding and the
    carried state after it: with ESN memory the reservoir driven from ``h``; otherwise ``embed`` and
    ``h`` unchanged), ``value(params, z) -> Q``; ``carry_size`` M (1 when nothing is carried);
    ``scores(params, obs, h) -> Q[A]`` of every action (None: ``value`` of ``features`` of every input;
    ``factored_q``: :func:`factored_values`) and ``input_of(obs, action) -> x[D]`` (None: that row of
    ``inputs``)."""

    inputs: Callable
    init: Callable
    embed: Callable
    value: Callable
    embed_size: int
    features: Callable = None
    carry_size: int = 1
    memory: bool = False
    scores: Callable | None = None
    input_of: Callable | None = None

    def initial_carry(self) -> jax.Array:
        return jnp.zeros(self.carry_size, jnp.float32)

    def all_values(self, params, obs, h) -> jax.Array:
        """Q of every action at ``obs`` from carried state ``h``."""
        if self.scores is not None:
            return self.scores(params, obs, h)
        return self.value(params, self.features(params, self.inputs(obs), h)[0])

    def input_at(self, obs, action) -> jax.Array:
        """x[D], the input of one ``action``."""
        return self.input_of(obs, action) if self.input_of is not None else self.inputs(obs)[action]


def make_q(env, config: SarsaConfig) -> QFunction:
    extended = config.q_inputs == "extended"
    # the one-hot size input exists on the grid env alone; the default reads like any env's
    sized = {"sizes_one_hot": True} if config.size_input == "one_hot" else {}
    d = env.state_action_size(extended, **sized)
    inputs = lambda obs: env.state_action_inputs(obs, extended, **sized)

    def stateless(embed):
        return lambda p, x, h: (embed(p, x), jnp.broadcast_to(h, x.shape[:-1] + h.shape[-1:]))

    if config.q_model == "esn":
        def init(key):
            return {"reservoir": init_reservoir(key, d, config), "theta": jnp.zeros(config.reservoir + 1, jnp.float32)}

        embed = lambda p, x: reservoir_features(p["reservoir"], x, config.washout)
        if config.esn_memory:
            def features(p, x, h):
                h_next = reservoir_step(p["reservoir"], h, x)
                return readout_view(p["reservoir"], h_next), h_next

            fast = {}
            if config.factored_q:
                if not hasattr(env, "state_action_parts"):
                    raise ValueError("factored_q reads the input's parts (env.state_action_parts); this env has none")
                cap = readout_cap(config)
                parts = lambda obs: env.state_action_parts(obs, extended, **sized)

                def input_of(obs, action):
                    shared, per_candidate, per_size = parts(obs)
                    sizes = per_size.shape[0]
                    return shared + per_candidate[action // sizes] + per_size[action % sizes]

                fast = dict(scores=lambda p, obs, h: factored_values(p["reservoir"], p["theta"], parts(obs), h, cap),
                            input_of=input_of)
            return QFunction(inputs=inputs, init=init, embed=embed, value=lambda p, z: z @ p["theta"],
                             embed_size=config.reservoir + 1, features=features, carry_size=config.reservoir,
                             memory=True, **fast)
        return QFunction(inputs=inputs, init=init, embed=embed, value=lambda p, z: z @ p["theta"],
                         embed_size=config.reservoir + 1, features=stateless(embed))
    network = MLPQ(config.hidden, config.layers)
    return QFunction(inputs=inputs, init=lambda key: network.init(key, jnp.zeros(d, jnp.float32)), embed=lambda p, x: x,
                     value=network.apply, embed_size=d, features=stateless(lambda p, x: x))


def q_values(q: QFunction, params, obs, carry=None) -> jax.Array:
    """Q of every action at ``obs``; with memory, from reservoir state ``carry`` (default: rest)."""
    return q.all_values(params, obs, q.initial_carry() if carry is None else carry)


def choose(key, q: jax.Array, mask: jax.Array, epsilon) -> jax.Array:
    explore_key, pick_key = jax.random.split(key)
    uniform = jax.random.categorical(pick_key, jnp.where(mask, 0.0, -jnp.inf)).astype(jnp.int32)
    greedy = jnp.argmax(jnp.where(mask, q, -jnp.inf)).astype(jnp.int32)
    return jnp.where(jax.random.uniform(explore_key) < epsilon, uniform, greedy)


# ------------------------------------------------------------------ learner
@struct.dataclass
class Buffer:
    z: jax.Array  # [C, E] embedded (s, a)
    reward: jax.Array  # [C]
    next_z: jax.Array  # [C, E] embedded (s', a')
    done: jax.Array  # [C]
    size: jax.Array
    insert: jax.Array

    def push(self, z, reward, next_z, done) -> "Buffer":
        capacity = self.reward.shape[0]
        rows = (self.insert + jnp.arange(reward.shape[0])) % capacity
        return self.replace(z=self.z.at[rows].set(z), reward=self.reward.at[rows].set(reward),
                            next_z=self.next_z.at[rows].set(next_z), done=self.done.at[rows].set(done),
                            size=jnp.minimum(self.size + reward.shape[0], capacity),
                            insert=(self.insert + reward.shape[0]) % capacity)


@struct.dataclass
class SarsaState:
    params: dict
    opt_state: optax.OptState
    buffer: Buffer
    env_state: object  # [num_envs]
    action: jax.Array  # int32[num_envs] the next action, already chosen (SARSA's a')
    z: jax.Array  # [num_envs, E] its embedding (the ESN's readout features depend on fixed weights only)
    memory: jax.Array  # [num_envs, M] the reservoir state after that action (ESN memory; zeros otherwise)
    episode_return: jax.Array
    last_mean_return: jax.Array
    key: jax.Array
    iteration: jax.Array


def make_train(variant, config: SarsaConfig, data_key: jax.Array):
    """PureJaxRL-style ``(init_fn, update_fn)`` (see ``jaxsched.algos``)."""
    env, env_params = variant.env, variant.params
    if not hasattr(env, "state_action_inputs"):
        raise ValueError(f"the SARSA learner reads state-action vectors (env.state_action_inputs); {variant.name}'s "
                         "env has none (the grid family's do)")
    q = make_q(env, config)
    pool = jax.jit(jax.vmap(env.initial_state))(variant.sample_params(data_key, config.num_starts))
    teacher = variant.heuristic(config.warm_start_policy)
    optimizer = optax.adam(config.lr) if config.q_model == "mlp" else optax.set_to_zero()  # ESN: closed form

    def restart(key):
        return jax.tree.map(lambda x: x[jax.random.randint(key, (), 0, config.num_starts)], pool)

    def act(params, key, obs, warm, carry):
        """``(action, its embedding, the carry after it)``: the teacher's action during the warm start, else
        ε-greedy on Q of every action from ``carry``; ``warm`` is the same for every episode (unbatched),
        so only one of the two choices is computed."""
        q_key, teacher_key = jax.random.split(key)
        action = jax.lax.cond(warm, lambda: jnp.asarray(teacher(teacher_key, obs), jnp.int32),
                              lambda: choose(q_key, q.all_values(params, obs, carry), obs.action_mask, config.epsilon))
        z, carry = q.features(params, q.input_at(obs, action)[None], carry)
        return action, z[0], carry[0]

    def start(params, key, warm):
        """A fresh episode on a training window (the reservoir at rest), its first action, that action's
        embedding and the carry after it."""
        reset_key, act_key = jax.random.split(key)
        state = restart(reset_key)
        obs = env.get_obs(state, env_params)
        return (state, *act(params, act_key, obs, warm, q.initial_carry()))

    @jax.jit
    def init_fn(key, initial_params=None):
        init_key, env_key, key = jax.random.split(key, 3)
        params = initial_params if initial_params is not None else q.init(init_key)
        if config.factored_q:
            check_readout_cap(params["reservoir"], readout_cap(config))
        env_state, action, z, memory = jax.vmap(lambda k: start(params, k, config.warm_start_iterations > 0))(
            jax.random.split(env_key, config.num_envs))
        c, e = config.buffer_size, q.embed_size
        buffer = Buffer(z=jnp.zeros((c, e), jnp.float32), reward=jnp.zeros(c, jnp.float32),
                        next_z=jnp.zeros((c, e), jnp.float32), done=jnp.zeros(c, bool), size=jnp.int32(0),
                        insert=jnp.int32(0))
        return SarsaState(params=params, opt_state=optimizer.init(params), buffer=buffer, env_state=env_state,
                          action=action, z=z, memory=memory, episode_return=jnp.zeros(config.num_envs, jnp.float32),
                          last_mean_return=jnp.float32(0.0), key=key, iteration=jnp.int32(0))

    def env_step(params, warm, state, action, z, memory, episode_return, key):
        """Take ``action`` (embedded ``z``, reservoir state ``memory`` after it), restart a finished episode on
        another window (its reservoir from rest), choose the next action (a') where the episode goes on.
        One observation per step: a terminal (s', a') is never bootstrapped from, so its place holds the
        restarted episode's first decision."""
        act_key, reset_key = jax.random.split(key)
        next_state, reward, terminated, _ = env.transition(state, action, env_params)
        done = terminated | env.is_truncated(next_state, env_params)
        state = select_tree(done, restart(reset_key), next_state)
        next_obs = env.get_obs(state, env_params)
        memory = jnp.where(done, q.initial_carry(), memory)
        next_action, next_z, next_memory = act(params, act_key, next_obs, warm, memory)
        finished_return = episode_return + reward
        return state, next_action, next_z, next_memory, jnp.where(done, 0.0, finished_return), \
            (z, reward, next_z, done), (done, finished_return)

    def targets(params, buffer: Buffer):
        value = q.value(params, buffer.z)
        bootstrap = q.value(params, buffer.next_z)
        sarsa = buffer.reward + config.gamma * jnp.where(buffer.done, 0.0, bootstrap)
        return jax.lax.stop_gradient(value + config.eta * (sarsa - value))

    def relearn(params, opt_state, buffer: Buffer, key):
        y = targets(params, buffer)
        filled = (jnp.arange(buffer.reward.shape[0]) < buffer.size).astype(jnp.float32)
        if config.q_model == "esn":
            theta = fit_readout(buffer.z, y, filled, config.ridge)
            params = {**params, "theta": theta}
        else:
            def step(carry, k):
                p, o = carry
                rows = jax.random.randint(k, (config.batch_size,), 0, jnp.maximum(buffer.size, 1))
                grads = jax.grad(lambda p: jnp.mean((q.value(p, buffer.z[rows]) - y[rows]) ** 2))(p)
                updates, o = optimizer.update(grads, o, p)
                return (optax.apply_updates(p, updates), o), None

            (params, opt_state), _ = jax.lax.scan(step, (params, opt_state),
                                                  jax.random.split(key, config.gradient_steps))
        residual = jnp.sum(filled * (q.value(params, buffer.z) - y) ** 2) / jnp.maximum(jnp.sum(filled), 1.0)
        return params, opt_state, residual

    def update_fn(train_state: SarsaState):
        key, rollout_key, fit_key = jax.random.split(train_state.key, 3)
        warm = train_state.iteration < config.warm_start_iterations
        params = train_state.params

        def rollout_step(carry, step_key):
            env_state, action, z, memory, episode_return = carry
            keys = jax.random.split(step_key, config.num_envs)
            env_state, action, z, memory, episode_return, transition, finished = jax.vmap(
                env_step, in_axes=(None, None, 0, 0, 0, 0, 0, 0))(params, warm, env_state, action, z, memory,
                                                                  episode_return, keys)
            return (env_state, action, z, memory, episode_return), (transition, finished)

        carry = shard_batch((train_state.env_state, train_state.action, train_state.z, train_state.memory,
                             train_state.episode_return))
        (env_state, action, z, memory, episode_return), (transitions, (done, returns)) = jax.lax.scan(
            rollout_step, carry, jax.random.split(rollout_key, config.rollout_steps))
        flat = jax.tree.map(lambda x: x.reshape((-1,) + x.shape[2:]), transitions)
        buffer = train_state.buffer.push(*flat)
        params, opt_state, residual = relearn(params, train_state.opt_state, buffer, fit_key)
        finished = jnp.sum(done)
        mean_return = jnp.where(finished > 0, jnp.sum(jnp.where(done, returns, 0.0)) / jnp.maximum(finished, 1),
                                train_state.last_mean_return)
        metrics = {"loss": residual, "mean_reward": jnp.mean(flat[1]),
                   "decisions": jnp.float32(config.num_envs * config.rollout_steps),
                   "episodes_finished": finished.astype(jnp.float32), "mean_return": mean_return,
                   "mean_q": jnp.mean(q.value(params, flat[0])), "warm_start": warm.astype(jnp.float32)}
        new_state = SarsaState(params=params, opt_state=opt_state, buffer=buffer, env_state=env_state, action=action,
                               z=z, memory=memory, episode_return=episode_return, last_mean_return=mean_return, key=key,
                               iteration=train_state.iteration + 1)
        return new_state, metrics

    return init_fn, update_fn


@dataclasses.dataclass(frozen=True)
class RecurrentPolicy:
    """A policy that carries a state through an episode (the ESN's reservoir): ``initial_carry()`` at
    the episode's start, then ``step(carry, key, obs) -> (action, carry)`` at each decision. Calling it
    as a stateless ``policy(key, obs)`` is an error (it would silently drop the memory); the grid
    variant's ``run_episodes`` / ``evaluate`` carry it."""

    initial_carry: Callable
    step: Callable

    def __call__(self, key, obs):
        raise TypeError("this policy carries the ESN's reservoir state across decisions: run it with "
                        "GridVariant.run_episodes / evaluate (or train with algo_options.esn_memory: false)")


def greedy_policy(q: QFunction, env, params, greedy: bool = True, epsilon: float = 0.05) -> Callable:
    epsilon = 0.0 if greedy else epsilon
    if q.memory:
        def step(carry, key, obs):
            if q.scores is not None:  # factored: every action's Q, then the state after the one taken
                action = choose(key, q.all_values(params, obs, carry), obs.action_mask, epsilon)
                return action, q.features(params, q.input_at(obs, action)[None], carry)[1][0]
            z, after = q.features(params, q.inputs(obs), carry)
            action = choose(key, q.value(params, z), obs.action_mask, epsilon)
            return action, after[action]

        return RecurrentPolicy(initial_carry=q.initial_carry, step=step)

    def policy(key, obs):
        return choose(key, q_values(q, params, obs), obs.action_mask, epsilon)

    return policy


def policy_from(config: SarsaConfig, env, params, greedy: bool = True) -> Callable:
    return greedy_policy(make_q(env, config), env, params, greedy, config.epsilon)
