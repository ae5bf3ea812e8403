"""The held-out learning curve: every ``eval_every`` iterations, each seed's current policy on the
held-out instances of the final evaluation (``eval_jobsets`` drawn with ``eval_seed``, disjoint from
the training data), next to the heuristics on the same instances, as rows of ``eval_curve.csv``.

The numbers are the family's jittable training metrics (``episode_statistics`` ->
``summarize_statistics``) plus the mean episode return and reward per decision, so the training
metric plotted from ``metrics.csv`` has a held-out counterpart of the same definition. One function
of the stacked params is compiled once and reused at every evaluation; the key is the final
evaluation's, so the last point equals ``eval.json``'s sampled policy up to float32 rounding.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np

from jaxsched.core.rollout import make_evaluator
from jaxsched.core.runs import read_csv_rows

EVAL_CURVE_FILE = "eval_curve.csv"
TRAINED_POLICY = "sampled"  # the trained policy is evaluated sampling its actions (the greedy one starves jobs)


def _statistics(variant, policy: Callable, batched, key) -> dict:
    """One policy's held-out numbers (jittable): the family's metrics over all episodes, the mean
    episode return and the reward per decision."""
    result = make_evaluator(variant.env, policy, 1)(batched, key)  # [instances, 1 rollout]
    stats = variant.episode_statistics(result.state)
    summary = variant.summarize_statistics(stats, jnp.ones(result.episode_return.shape, bool))
    decisions = jnp.sum(result.decisions)
    summary["mean_return"] = jnp.mean(result.episode_return)
    summary["mean_reward"] = jnp.where(decisions > 0, jnp.sum(result.episode_return) / jnp.maximum(decisions, 1),
                                       jnp.nan)
    return summary


class HeldOutCurve:
    """Evaluates stacked per-seed params on the held-out instances; ``policy_of(params)`` builds the
    trained policy (sampled) of one seed's params."""

    def __init__(self, variant, policy_of: Callable, seeds: list[int], count: int, seed: int):
        self.variant, self.seeds = variant, list(seeds)
        self.batched, _ = variant.held_out(count, seed)
        self.key = jax.random.PRNGKey(seed + 1)  # the final evaluation's key (experiment.evaluate_run)
        self.description = f"{count} held-out instances, seed {seed}"
        self._trained = jax.jit(jax.vmap(lambda params: _statistics(variant, policy_of(params), self.batched,
                                                                     self.key)))

    def heuristic_rows(self, names) -> list[dict]:
        """One row per heuristic (iteration 0, no seed): computed once, at the start of a run."""
        rows = []
        for name in names:
            stats = jax.jit(lambda b, k, name=name: _statistics(self.variant, self.variant.heuristic(name), b, k))(
                self.batched, self.key)
            rows.append(_row(0, "", name, {k: np.asarray(v) for k, v in stats.items()}))
        return rows

    def trained_rows(self, iteration: int, stacked_params) -> list[dict]:
        """One row per seed for the policies of ``stacked_params`` (leading axis: seeds)."""
        stats = jax.tree.map(np.asarray, self._trained(stacked_params))
        return [_row(iteration, seed, TRAINED_POLICY, {k: v[s] for k, v in stats.items()})
                for s, seed in enumerate(self.seeds)]


def _row(iteration: int, seed, policy: str, stats: dict) -> dict:
    return {"iteration": iteration, "seed": seed, "policy": policy,
            **{k: (int(v) if np.issubdtype(v.dtype, np.integer) else float(v)) for k, v in sorted(stats.items())}}


def _read(path: Path) -> list[dict]:
    return read_csv_rows(path)


def _by_seed(rows: list[dict], metric: str) -> tuple[np.ndarray, np.ndarray]:
    """``(iterations [n], values [seeds, n])`` of ``metric`` in rows with iteration and seed columns."""
    iterations = np.array(sorted({int(r["iteration"]) for r in rows}), dtype=int)
    seeds = sorted({int(r["seed"]) for r in rows})
    values = np.full((len(seeds), len(iterations)), np.nan)
    column = {int(i): k for k, i in enumerate(iterations)}
    for r in rows:
        values[seeds.index(int(r["seed"])), column[int(r["iteration"])]] = float(r[metric])
    return iterations, values


def read_eval_curve(path: Path, metric: str) -> tuple[np.ndarray, np.ndarray, dict[str, float]]:
    """``(iterations [n], trained values [seeds, n], {heuristic: value})`` of ``metric`` in an
    ``eval_curve.csv``."""
    rows = _read(path)
    iterations, values = _by_seed([r for r in rows if r["policy"] == TRAINED_POLICY], metric)
    return iterations, values, {r["policy"]: float(r[metric]) for r in rows if r["policy"] != TRAINED_POLICY}


def read_training_curve(path: Path, metric: str) -> tuple[np.ndarray, np.ndarray]:
    """``(iterations [n], values [seeds, n])`` of ``metric`` in a ``metrics.csv``."""
    return _by_seed(_read(path), metric)
