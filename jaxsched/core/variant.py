"""The ``Variant`` protocol: what an environment family gives everything above it.

A variant is one registered setting of a family (``jaxsched.make(name)`` builds it): the env, its
default params, and the few family-specific answers that learners, the training loop, the evaluation
CLI and the benchmarks need, so that none of them branches on a family. A family implements it in
``jaxsched/envs/<family>/variants.py``.

Params are *instances*: an episode's data (a jobset, a trace window) lives in the params and is copied
into the state at reset; ``sample_params(key, n)`` returns n of them batched along a leading axis,
which :mod:`jaxsched.core.rollout` vmaps over.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, NamedTuple, Protocol

import jax

Policy = Callable[[jax.Array, Any], jax.Array]  # policy(key, obs) -> action, heuristics and learned alike


def variant_config(name: str, defaults: dict, overrides: dict, *key_groups) -> dict:
    """A family's ``build`` settings: ``defaults`` (its VARIANTS entry) updated with ``overrides``;
    ``ValueError`` naming any override outside the ``key_groups`` and listing the valid ones."""
    valid = sorted(set().union(*map(set, key_groups)))
    unknown = sorted(set(overrides) - set(valid))
    if unknown:
        raise ValueError(f"unknown option(s) {', '.join(unknown)} for {name!r}; valid: {', '.join(valid)}")
    return {**defaults, **overrides}


class Headline(NamedTuple):
    """The number a family is judged by: its training-metric column, its held-out summary key, and
    which way is better (DeepRM: mean slowdown, lower; VM placement: scheduled length, higher)."""

    train_metric: str
    eval_metric: str
    higher_is_better: bool


class Variant(Protocol):
    name: str  # the registered name
    env: Any  # a gymnax Environment with initial_state / transition / get_obs / is_truncated,
    # num_actions, feature_shape() and instance_field (see jaxsched.core.rollout)
    params: Any  # one instance's params (the default episode)
    default_baselines: tuple[str, ...]  # the heuristics a trained policy is compared with
    headline: Headline

    def sample_params(self, key: jax.Array, count: int) -> Any:
        """``count`` instances' params batched along a leading axis; jittable (``count`` static)."""

    def heuristic(self, name: str) -> Policy:
        """The named heuristic of this family; ``ValueError`` naming the valid ones otherwise."""

    def check_baselines(self, names) -> None:
        """Raises ``ValueError`` (before any training) for names that are not this family's heuristics."""

    def episode_statistics(self, final_state) -> dict[str, jax.Array]:
        """Per-episode additive numbers of a final state (any leading axes); jittable."""

    def summarize_statistics(self, stats: dict[str, jax.Array], weight: jax.Array) -> dict[str, jax.Array]:
        """Training metrics from ``episode_statistics`` over the episodes where ``weight``; jittable."""

    def held_out(self, count: int, seed: int) -> tuple[Any, dict]:
        """``(batched params, header)``: the evaluation instances drawn with ``seed``, and what
        ``eval.json`` records of them."""

    def evaluate(self, policies: dict[str, Policy], batched_params, key: jax.Array,
                 num_rollouts: int = 1) -> dict[str, dict]:
        """Each policy's result table (numpy columns) on the same instances, every episode to its end."""

    def summarize(self, table: dict) -> dict:
        """One policy's summary (floats and counts) of its table."""

    def describe(self, stats: dict) -> str:
        """One log line of a summary."""

    def plot_learning_curves(self, run_dir: Path, summary: dict[str, dict], baselines, title: str) -> None:
        """The run's learning-curve plots against the baselines' held-out levels."""
