"""CVD-RL (paper §4): a decomposed, look-ahead value over PMs, acting inside a top-k candidate set.

Three operators on top of Double DQN (:mod:`jaxsched.algos.dqn`), each switchable for the ablation:

- **decomposition**: Q(s, a) = Σ_i u(x_i(a)) with one network u shared by all PMs, x_i(a) the
  input of PM i under action a. Only the chosen PM's input changes with a, so the decision is the
  PM with the largest gain Δ_a = u(x_pm(a)(a)) − u(x_pm(a)(∅)), and one trained u serves any N.
  Off: one network on the whole flattened cluster (tied to its N).
- **look-ahead**: x_i(a) is PM i's *post-placement* state (its 4 remaining cpu/mem ratios), not
  (state, VM, action). Off: x_i(a) = (PM i's 4 ratios, the request's 3 features, a one-hot of
  {not chosen, NUMA 0, NUMA 1}), i.e. u(s_i, s_v, ā_i) as in the paper's Q̄ without look-ahead.
- **top-k**: act (and take the target's argmax) only among k candidates: the top-``k_best_fit``
  by Best-Fit ∪ top-``k_pm_best_fit`` by the PM-level Best-Fit variant
  (:func:`jaxsched.baselines.vm.cvd_candidates`; paper: 2 + 3). Off: all feasible actions.

With decomposition and look-ahead both off this is SchedRL's network (``dqn.schedrl_model``).

Ours, beyond the paper (off by default): an immediate-impact reward (``impact_reward``, see
:func:`impact_bonus`) whose known value is added to Q exactly (:func:`with_mix`), and room_fit's
best placements in the candidate set (``k_room_fit``).
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import jax
import jax.numpy as jnp

from jaxsched.baselines.vm import RequestMix, cvd_candidates, ratios_after, request_mix, room_lost_between
from jaxsched.algos import dqn


@dataclasses.dataclass(frozen=True)
class CVDConfig(dqn.DQNConfig):
    """DQNConfig (the paper's learner settings) plus the three operators and the candidate sizes."""

    decomposition: bool = True
    lookahead: bool = True
    top_k: bool = True
    k_best_fit: int = 2
    k_pm_best_fit: int = 3
    k_room_fit: int = 0  # ours: also the top ones by room_fit (jaxsched.baselines.vm); 0 = the paper's set
    impact_reward: float = 0.0  # λ of the immediate-impact term (see impact_bonus); 0 = +1 per placement only
    impact_in_q: bool = True  # add that known term to Q exactly (see with_mix); False: learn it too

    def __post_init__(self):
        super().__post_init__()
        if self.top_k and self.k_best_fit + self.k_pm_best_fit + self.k_room_fit < 1:
            raise ValueError("top-k needs k_best_fit + k_pm_best_fit + k_room_fit >= 1")
        if self.impact_reward < 0:
            raise ValueError("impact_reward must be >= 0")


def split_features(features: jax.Array):
    """``(pm_state[N, 4], request[3])`` from the env's per-PM features: remaining cpu0, cpu1, mem0,
    mem1 over capacity; the request's cpu, mem over capacity and its double flag."""
    return features[:, :4], features[0, 4:7]


def post_placement(features: jax.Array) -> jax.Array:
    """float32[2N, 4]: the chosen PM's remaining ratios after each action (a double VM takes half of
    its cpu and mem from both NUMAs); infeasible actions simply go negative (they are masked)."""
    pm_state, (cpu, mem, double) = split_features(features)
    return ratios_after(pm_state, cpu, mem, double > 0.5)


def room_lost(mix: RequestMix, features: jax.Array) -> jax.Array:
    """float32[2N] the usable room each action costs its PM (``jaxsched.baselines.vm.room_loss``
    from the per-PM features, which is all a replayed transition keeps)."""
    return room_lost_between(mix, split_features(features)[0], post_placement(features))


def cvd_model(num_pms: int, config: CVDConfig, mix: RequestMix | None = None) -> dqn.QModel:
    """The Q-model for ``config``'s operators (see the module doc); ``mix`` (the training trace's
    request mix) is needed to initialise a model that adds the known impact term."""
    model = operator_model(num_pms, config)
    if config.top_k and config.k_room_fit > 0:
        if mix is None:
            raise ValueError("k_room_fit > 0 needs the training trace's request mix")
        model = model._replace(acting_mask=lambda obs: cvd_candidates(
            obs, config.k_best_fit, config.k_pm_best_fit, config.k_room_fit, mix))
    if uses_mix(config):
        return with_mix(model, config.impact_reward if config.impact_in_q else 0.0, mix)
    return model


def uses_mix(config: CVDConfig) -> bool:
    """Whether the model needs the request mix (then it rides along with the params)."""
    return (config.impact_reward > 0 and config.impact_in_q) or (config.top_k and config.k_room_fit > 0)


def mix_in(params) -> RequestMix | None:
    """The request mix a model's params carry (see :func:`with_mix`), None if they carry none."""
    if not isinstance(params, dict) or "mix" not in params:
        return None
    table = params["mix"]
    return RequestMix(cpu=table["cpu"], mem=table["mem"], double=table["double"] > 0.5, weight=table["weight"])


def with_mix(model: dqn.QModel, scale: float, mix: RequestMix | None) -> dqn.QModel:
    """The params become ``{"value": the model's, "mix": the request mix}``, so a checkpoint's
    policy knows its mix at any N (under ``stop_gradient``, so Adam leaves it exactly unchanged).

    With ``scale`` λ > 0, Q(s, a) = −λ room_loss(s, a) + the model's Q: the immediate-impact reward
    is a known function of the PM before and after the placement, so it is added exactly and the
    network learns only the rest (the future), in the spirit of the paper's folding of the reward
    into the post-placement value."""

    def known(params, features):  # float32[2N] (zeros when scale is 0)
        lost = room_lost(jax.lax.stop_gradient(mix_in(params)), features)
        return -scale * lost if scale else jnp.zeros_like(lost)

    def init(key, features):
        if mix is None:
            raise ValueError("initialising this model (impact term or room_fit candidates) needs the request mix")
        table = {"cpu": mix.cpu, "mem": mix.mem, "double": mix.double.astype(jnp.float32), "weight": mix.weight}
        return {"value": model.init(key, features), "mix": table}

    q_value_at = model.q_value_at or (lambda params, features, action: model.q_values(params, features)[action])
    return dqn.QModel(
        init=init, acting_mask=model.acting_mask,
        q_values=lambda params, features: known(params, features) + model.q_values(params["value"], features),
        q_value_at=lambda params, features, action: known(params, features)[action]
        + q_value_at(params["value"], features, action))


def operator_model(num_pms: int, config: CVDConfig) -> dqn.QModel:
    """The learned part of the Q-model for ``config``'s three operators."""
    pm_of_action = jnp.arange(2 * num_pms) // 2
    if config.top_k:
        acting_mask = lambda obs: cvd_candidates(obs, config.k_best_fit, config.k_pm_best_fit)  # noqa: E731
    else:
        acting_mask = lambda obs: obs.action_mask  # noqa: E731
    if not config.decomposition and not config.lookahead:
        return dqn.schedrl_model(num_pms, config)._replace(acting_mask=acting_mask)

    if config.decomposition and config.lookahead:
        unit = dqn.MLP(config.hidden, config.layers, 1)
        value = lambda params, x: unit.apply(params, x)[..., 0]

        def q_values(params, features):
            pm_state, _ = split_features(features)
            unchanged = value(params, pm_state)  # [N]
            gain = value(params, post_placement(features)) - unchanged[pm_of_action]
            return jnp.sum(unchanged) + gain

        def q_value_at(params, features, action):  # N + 1 network rows instead of 3N
            pm_state, _ = split_features(features)
            unchanged = value(params, pm_state)
            after = value(params, post_placement(features)[action])
            return jnp.sum(unchanged) + after - unchanged[pm_of_action[action]]

        return dqn.QModel(init=lambda key, features: unit.init(key, jnp.zeros(4)), q_values=q_values,
                          acting_mask=acting_mask, q_value_at=q_value_at)

    if config.decomposition:  # per-PM u(s_i, s_v, ā_i) without look-ahead
        unit = dqn.MLP(config.hidden, config.layers, 1)

        def inputs(features, choice):
            pm_state, request = split_features(features)
            rows = pm_state.shape[0] if choice.ndim == 0 else choice.shape[0]
            state = pm_state if choice.ndim == 0 else pm_state[pm_of_action]
            return jnp.concatenate([state, jnp.broadcast_to(request, (rows, 3)),
                                    jnp.broadcast_to(jax.nn.one_hot(choice, 3), (rows, 3))], axis=-1)

        def q_values(params, features):
            unchanged = unit.apply(params, inputs(features, jnp.int32(0)))[:, 0]  # [N]
            chosen = unit.apply(params, inputs(features, 1 + jnp.arange(2 * num_pms) % 2))[:, 0]  # [2N]
            return jnp.sum(unchanged) + chosen - unchanged[pm_of_action]

        return dqn.QModel(init=lambda key, features: unit.init(key, jnp.zeros(10)), q_values=q_values,
                          acting_mask=acting_mask)

    # look-ahead without decomposition: one network on the whole post-placement cluster
    whole = dqn.MLP(config.hidden, config.layers, 1)

    def q_values(params, features):
        pm_state, _ = split_features(features)
        after = jax.vmap(lambda a, row: pm_state.at[pm_of_action[a]].set(row))(
            jnp.arange(2 * num_pms), post_placement(features))  # [2N, N, 4]
        return whole.apply(params, after.reshape(2 * num_pms, -1))[:, 0]

    return dqn.QModel(init=lambda key, features: whole.init(key, jnp.zeros(4 * num_pms)), q_values=q_values,
                      acting_mask=acting_mask)


def impact_bonus(mix: RequestMix, config: CVDConfig) -> Callable | None:
    """``bonus(obs, action) = −λ room_loss``: our immediate-impact term, None when λ = 0.

    The paper "adopts the δ-reward mechanism proposed by [SHZ+22], which evaluates the immediate
    impact of scheduling decisions" and defines it no further. With +1 per placement alone every
    candidate earns the same reward and only the episode's end, often hundreds of decisions later
    (beyond γ = 0.95's horizon), tells placements apart. The learner's reward per placement is
    therefore 1 − λ (Φ(PM before) − Φ(PM after)), Φ the PM's usable room for the training trace's
    request mix ``mix`` (:func:`jaxsched.baselines.vm.usable_room`); the env's reward and returns stay +1."""
    if config.impact_reward == 0:
        return None
    return lambda obs, action: -config.impact_reward * room_lost(mix, obs.features)[action]


def make_train(variant, config: CVDConfig, data_key: jax.Array):
    mix = request_mix(variant.trace, variant.params) if uses_mix(config) or config.impact_reward > 0 else None
    return dqn.make_train(variant, config, data_key, cvd_model(variant.env.num_pms, config, mix),
                          reward_bonus=impact_bonus(mix, config))


def policy_from(config: CVDConfig, env, params, greedy: bool = True) -> Callable:
    return dqn.greedy_policy(cvd_model(env.num_pms, config, mix_in(params)), params, greedy)
