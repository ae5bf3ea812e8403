"""The toy family's registered variant and its answers to the Variant protocol."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from jaxsched.core.rollout import make_evaluator
from jaxsched.core.variant import Headline
from tests.toy.baselines import HEURISTICS
from tests.toy.env import EnvParams, Toy

VARIANTS = {"toy": dict(num_jobs=4)}


@dataclasses.dataclass(frozen=True)
class ToyVariant:
    name: str
    env: Toy
    params: EnvParams
    headline: Headline = Headline("mean_return", "mean_return", higher_is_better=True)
    default_baselines: tuple[str, ...] = ("first", "shortest")

    def sample_params(self, key, count):
        durations = jax.random.randint(key, (count, self.env.num_jobs), 1, 10, jnp.int32)
        batched = jax.tree.map(lambda x: jnp.broadcast_to(jnp.asarray(x), (count,) + jnp.shape(x)),
                               self.params.replace(durations=None))
        return batched.replace(durations=durations)

    def heuristic(self, name):
        if name not in HEURISTICS:
            raise ValueError(f"unknown toy heuristic {name!r}; choose from {', '.join(HEURISTICS)}")
        return HEURISTICS[name]

    def check_baselines(self, names):
        for name in names:
            self.heuristic(name)

    def episode_statistics(self, final_state):
        return {"completion": jnp.sum(final_state.completion, axis=-1), "jobs": jnp.sum(final_state.done, axis=-1)}

    def summarize_statistics(self, stats, weight):
        jobs = jnp.sum(jnp.where(weight, stats["jobs"], 0))
        return {"mean_completion": jnp.sum(jnp.where(weight, stats["completion"], 0)) / jnp.maximum(jobs, 1)}

    def held_out(self, count, seed):
        return self.sample_params(jax.random.PRNGKey(seed), count), {"instances": count, "seed": seed}

    def evaluate(self, policies, batched_params, key, num_rollouts=1):
        tables = {}
        for name, policy in policies.items():
            result = make_evaluator(self.env, policy, num_rollouts)(batched_params, key)
            tables[name] = {"return": np.asarray(result.episode_return).reshape(-1)}
        return tables

    def summarize(self, table):
        return {"mean_return": float(np.mean(table["return"])), "episodes": int(table["return"].size)}

    def describe(self, stats):
        return f"return {stats['mean_return']:8.2f} over {stats['episodes']} episodes"

    def plot_learning_curves(self, run_dir, summary, baselines, title):
        (run_dir / "toy_curves.txt").write_text(title)


def build(name: str, **overrides) -> ToyVariant:
    config = {**VARIANTS[name], **overrides}
    env = Toy(num_jobs=config["num_jobs"])
    return ToyVariant(name=name, env=env, params=env.default_params)
