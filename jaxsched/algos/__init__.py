"""Learning algorithms behind one interface, so ``python -m jaxsched.train`` runs any of them.

An :class:`Algorithm` is three functions in the PureJaxRL shape (static config in, pure functions
out):

- ``make_train(variant, config, data_key) -> (init_fn, update_fn)`` where
  ``init_fn(key, initial_params=None) -> state`` (a pytree with ``params`` and ``iteration``) and
  ``update_fn(state) -> (state, metrics)`` is one jittable iteration; ``metrics`` is a dict of
  scalars holding at least ``loss`` and ``decisions`` (env steps taken in the iteration).
  ``data_key`` draws any fixed training data (e.g. DeepRM's fixed jobsets).
- ``policy_from(config, env, params, greedy) -> policy(key, obs) -> action``, the heuristics'
  signature, for evaluation.

``TrainConfig.<name>`` (a mapping in the YAML) holds the fields of ``config_cls``.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

from jaxsched.algos import cvd, dqn, ppo, reinforce


@dataclasses.dataclass(frozen=True)
class Algorithm:
    config_cls: type
    make_train: Callable
    policy_from: Callable
    supports_bc: bool = False  # behaviour-cloning pre-training can supply its initial params


def _on_jobsets(make_train: Callable) -> Callable:
    """Adapts a job-scheduling learner's ``make_train(env, env_params, workload, config, fixed_jobsets)``:
    fixed jobsets are drawn with ``data_key`` unless the config resamples them every iteration."""

    def adapted(variant, config, data_key):
        from jaxsched.workloads.deeprm import generate_many

        fixed = None if config.resample_jobsets else generate_many(data_key, variant.workload, config.num_jobsets)
        return make_train(variant.env, variant.params, variant.workload, config, fixed)

    return adapted


ALGORITHMS: dict[str, Algorithm] = {
    "reinforce": Algorithm(reinforce.ReinforceConfig, _on_jobsets(reinforce.make_train), reinforce.policy_from,
                           supports_bc=True),
    "ppo": Algorithm(ppo.PPOConfig, _on_jobsets(ppo.make_train), ppo.policy_from),
    # VM placement (issue 4): SchedRL's Double DQN over 2N actions, and CVD-RL.
    "dqn": Algorithm(dqn.DQNConfig, dqn.make_train, dqn.policy_from),
    "cvd": Algorithm(cvd.CVDConfig, cvd.make_train, cvd.policy_from),
}
