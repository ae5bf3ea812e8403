"""Learning algorithms behind one interface, so ``python -m jaxsched.train`` runs any of them.

An :class:`Algorithm` is three functions in the PureJaxRL shape (static config in, pure functions
out), the same for every learner:

- ``make_train(variant, config, data_key) -> (init_fn, update_fn)`` where
  ``init_fn(key, initial_params=None) -> state`` (a pytree with ``params`` and ``iteration``) and
  ``update_fn(state) -> (state, metrics)`` is one jittable iteration; ``metrics`` is a dict of
  scalars holding at least ``loss`` and ``decisions`` (env steps taken in the iteration).
  ``variant`` is a :class:`jaxsched.core.variant.Variant`; ``data_key`` draws any fixed training
  data (fixed jobsets, start points).
- ``policy_from(config, env, params, greedy) -> policy(key, obs) -> action``, the heuristics'
  signature, for evaluation.

``TrainConfig.algo_options`` holds the fields of ``config_cls``.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

from jaxsched.algos import cvd, dqn, ppo, reinforce, sarsa


@dataclasses.dataclass(frozen=True)
class Algorithm:
    config_cls: type
    make_train: Callable
    policy_from: Callable
    supports_bc: bool = False  # behaviour-cloning pre-training can supply its initial params


ALGORITHMS: dict[str, Algorithm] = {
    "reinforce": Algorithm(reinforce.ReinforceConfig, reinforce.make_train, reinforce.policy_from, supports_bc=True),
    "ppo": Algorithm(ppo.PPOConfig, ppo.make_train, ppo.policy_from),
    "dqn": Algorithm(dqn.DQNConfig, dqn.make_train, dqn.policy_from),  # SchedRL's Double DQN (VM placement)
    "cvd": Algorithm(cvd.CVDConfig, cvd.make_train, cvd.policy_from),  # CVD-RL (VM placement)
    "sarsa": Algorithm(sarsa.SarsaConfig, sarsa.make_train, sarsa.policy_from),  # grid: SARSA, ESN or MLP Q
}
