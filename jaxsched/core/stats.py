"""Statistics for reporting RL results over seeds, after Agarwal et al., "Deep RL at the edge of the
statistical precipice" (NeurIPS 2021): the interquartile mean, stratified percentile-bootstrap
confidence intervals, run-score performance profiles and the probability of improvement.

Scores come as a 1-D array (runs of one task), a 2-D array ``[runs, tasks]`` or a dict
``{task: 1-D runs}`` (tasks may then have different run counts). Only numpy; every function
refuses empty input and NaN/inf with an :class:`~jaxsched.errors.InputError` (a ``ValueError``)
rather than dropping values, since a silently dropped diverged seed flatters the result.

Few seeds: a percentile bootstrap over n runs can only return values built from those n runs; over
3 seeds the "95% CI" of the IQM (the mean there) is exactly the seeds' min and max (each extreme is
drawn three times in 1/27 = 3.7% > 2.5% of the resamples). So every bootstrap here refuses fewer than
:data:`MIN_SEEDS_FOR_CI` runs (:class:`TooFewRunsError`), and tables call :func:`seed_interval`, which
gives the bootstrap CI from 5 runs and the plain range (min, max) below, labelled as such
(:class:`SeedInterval`), so no text calls three seeds' extremes a confidence interval.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Callable

import numpy as np

from jaxsched.errors import InputError

__all__ = ["MIN_SEEDS_FOR_CI", "TooFewRunsError", "SeedInterval", "iqm", "stratified_bootstrap_ci",
           "seed_interval", "summary_interval", "summarize_over_seeds", "performance_profile", "profile_ci",
           "compare"]

# Below this many runs (seeds) no bootstrap interval is computed: seed_interval gives the range instead.
MIN_SEEDS_FOR_CI = 5

# At most this many pairwise comparisons are held in memory at once by the probability of improvement.
_PAIR_CHUNK = 4_000_000


# --------------------------------------------------------------------------------------------------
# Input checks


class TooFewRunsError(InputError):
    """A bootstrap interval was asked of fewer than :data:`MIN_SEEDS_FOR_CI` runs: over so few it is
    (nearly) the runs' min-max range, and must be reported as a range (:func:`seed_interval`)."""


def _finite(values, name: str, ndim: tuple[int, ...] | None = None) -> np.ndarray:
    """``values`` as a float array, refused if empty, non-numeric, of the wrong rank or not finite."""
    try:
        x = np.asarray(values, dtype=float)
    except (TypeError, ValueError) as e:
        raise InputError(f"{name}: not an array of numbers ({e})") from None
    if ndim is not None and x.ndim not in ndim:
        raise InputError(f"{name}: expected a {' or '.join(f'{d}-D' for d in ndim)} array, got shape {x.shape}")
    if x.size == 0:
        raise InputError(f"{name}: empty (shape {x.shape}); no statistic of zero values")
    nan, inf = int(np.isnan(x).sum()), int(np.isinf(x).sum())
    if nan or inf:
        parts = [f"{nan} NaN" if nan else "", f"{inf} infinite" if inf else ""]
        raise InputError(f"{name}: {' and '.join(p for p in parts if p)} value(s) among {x.size}; "
                         "remove or repair them explicitly rather than have them ignored")
    return x


def _tasks(scores, name: str) -> tuple[list[np.ndarray], Callable]:
    """Per-task 1-D run arrays and a function that rebuilds the input's own form from such a list
    (so a statistic sees resampled scores exactly as the caller passed them)."""
    if isinstance(scores, Mapping):
        if not scores:
            raise InputError(f"{name}: empty dict (no tasks)")
        keys = list(scores)
        runs = [_finite(scores[k], f"{name}[{k!r}]", ndim=(1,)) for k in keys]
        return runs, lambda parts: dict(zip(keys, parts))
    x = _finite(scores, name, ndim=(1, 2))
    if x.ndim == 1:
        return [x], lambda parts: parts[0]
    return [x[:, t] for t in range(x.shape[1])], lambda parts: np.stack(parts, axis=1)


def _pooled(scores, name: str) -> np.ndarray:
    """Every score of every task in one 1-D array."""
    if isinstance(scores, Mapping):
        runs, _ = _tasks(scores, name)
        return np.concatenate(runs)
    return _finite(scores, name).ravel()


def _check_bootstrap(reps: int, confidence: float) -> None:
    if isinstance(reps, bool) or not isinstance(reps, (int, np.integer)) or reps < 1:
        raise InputError(f"reps must be a positive integer, got {reps!r}")
    if not 0.0 < confidence < 1.0:
        raise InputError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")


def _check_runs(runs: list[np.ndarray], name: str) -> None:
    """Refuse a bootstrap of fewer than :data:`MIN_SEEDS_FOR_CI` runs (counted over all tasks: a statistic
    pooled over several tasks, rliable's setting, resamples every task's runs)."""
    n = sum(r.size for r in runs)
    if n < MIN_SEEDS_FOR_CI:
        raise TooFewRunsError(
            f"{name}: a bootstrap confidence interval needs at least {MIN_SEEDS_FOR_CI} runs (seeds), got {n}; "
            f"over so few runs the percentile bootstrap returns (about) the runs' min and max. Report the range "
            f"instead: jaxsched.core.stats.seed_interval() does, labelled 'range'")


def _percentile_interval(samples: np.ndarray, confidence: float):
    """The percentile interval of bootstrap replicates along axis 0 (floats for scalar statistics)."""
    tail = 100.0 * (1.0 - confidence) / 2.0
    low, high = np.percentile(samples, [tail, 100.0 - tail], axis=0)
    if np.ndim(low) == 0:
        return float(low), float(high)
    return low, high


def _resample(runs: list[np.ndarray], reps: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Per task, ``reps`` resamples of its own runs with replacement: ``[reps, n_task]`` each."""
    return [r[rng.integers(0, r.size, size=(reps, r.size))] for r in runs]


# --------------------------------------------------------------------------------------------------
# Point statistics


def iqm(scores) -> float:
    """Interquartile mean: the mean of the middle 50% of the pooled scores, robust to a few outlying
    seeds yet less noisy than the median.

    Exactly ``scipy.stats.trim_mean(scores, 0.25, axis=None)`` (rliable's convention): sort, drop
    ``int(0.25 * n)`` values from each end, average the rest (no fractional weighting), so for
    ``n < 4`` it is the plain mean. A 2-D array or a dict of tasks is pooled over all its values.
    """
    x = np.sort(_pooled(scores, "iqm scores"))
    cut = int(0.25 * x.size)
    return float(x[cut:x.size - cut].mean())


def stratified_bootstrap_ci(scores, statistic: Callable = iqm, reps: int = 2000, confidence: float = 0.95,
                            seed: int = 0):
    """Percentile-bootstrap confidence interval ``(low, high)`` of ``statistic(scores)``.

    Each task's runs are resampled with replacement independently (stratified by task), so every
    replicate keeps each task's run count and a task with few runs cannot be dropped or duplicated.
    ``statistic`` receives each replicate in the input's own form: a 1-D array, a ``[runs, tasks]``
    array, or a dict with the same keys; it returns a number (the interval is two floats) or an array
    (two arrays). Deterministic for a ``seed`` (``np.random.default_rng(seed)``).

    Refuses fewer than :data:`MIN_SEEDS_FOR_CI` runs in all (:class:`TooFewRunsError`); use
    :func:`seed_interval` where a table must show something for few seeds.
    """
    _check_bootstrap(reps, confidence)
    runs, rebuild = _tasks(scores, "scores")
    _check_runs(runs, "scores")
    draws = _resample(runs, reps, np.random.default_rng(seed))
    replicates = np.asarray([statistic(rebuild([d[i] for d in draws])) for i in range(reps)], dtype=float)
    if np.isnan(replicates).any():
        raise InputError(f"statistic returned NaN on {int(np.isnan(replicates).sum())} bootstrap replicate value(s)")
    return _percentile_interval(replicates, confidence)


@dataclasses.dataclass(frozen=True)
class SeedInterval:
    """An interval around a statistic over runs that says what it is: the percentile-bootstrap CI
    (``is_ci``; ``confidence``) from :data:`MIN_SEEDS_FOR_CI` runs, else the runs' range (min, max)."""

    low: float
    high: float
    n: int
    is_ci: bool
    confidence: float = 0.95

    @property
    def label(self) -> str:
        """``"95% CI"`` or ``"range"``: what a table header or a text calls this interval."""
        return f"{100 * self.confidence:g}% CI" if self.is_ci else "range"

    def text(self, fmt: str = ".3f") -> str:
        """``[low, high]`` for a CI (its header says so), ``[range low, high]`` for a range."""
        bounds = f"{format(self.low, fmt)}, {format(self.high, fmt)}"
        return f"[{bounds}]" if self.is_ci else f"[range {bounds}]"

    def keys(self) -> dict:
        """The bounds as a JSON summary stores them: ``ci_low`` / ``ci_high`` for a CI, ``range_low`` /
        ``range_high`` for a range (a reader of ``ci_low`` never gets a range)."""
        prefix = "ci" if self.is_ci else "range"
        return {f"{prefix}_low": self.low, f"{prefix}_high": self.high}


def seed_interval(values, statistic: Callable = iqm, reps: int = 2000, confidence: float = 0.95,
                  seed: int = 0) -> SeedInterval:
    """The interval a table shows around ``statistic(values)`` over runs (seeds): the stratified
    percentile-bootstrap CI (:func:`stratified_bootstrap_ci`, same arguments, same numbers) from
    :data:`MIN_SEEDS_FOR_CI` runs in all, else the range (min, max) of the pooled values, marked as a
    range. ``values`` as :func:`stratified_bootstrap_ci` takes them."""
    runs, _ = _tasks(values, "values")
    n = sum(r.size for r in runs)
    if n >= MIN_SEEDS_FOR_CI:
        low, high = stratified_bootstrap_ci(values, statistic, reps=reps, confidence=confidence, seed=seed)
        return SeedInterval(low, high, n, True, confidence)
    _check_bootstrap(reps, confidence)
    pooled = np.concatenate(runs)
    return SeedInterval(float(pooled.min()), float(pooled.max()), n, False, confidence)


def summary_interval(summary: Mapping) -> SeedInterval:
    """The :class:`SeedInterval` of a summary dict holding ``n`` and ``ci_low`` / ``ci_high`` or
    ``range_low`` / ``range_high`` (:func:`summarize_over_seeds`, or a JSON file it wrote)."""
    n = int(summary.get("n", 0))
    if "ci_low" in summary:
        return SeedInterval(float(summary["ci_low"]), float(summary["ci_high"]), n, True)
    if "range_low" in summary:
        return SeedInterval(float(summary["range_low"]), float(summary["range_high"]), n, False)
    raise InputError(f"summary has neither ci_low/ci_high nor range_low/range_high: {sorted(summary)}")


def summarize_over_seeds(values, higher_is_better: bool = True, reps: int = 2000, seed: int = 0,
                         confidence: float = 0.95) -> dict:
    """One metric over seeds as the numbers a results table needs: ``n``, ``mean``, ``median``,
    ``iqm``, the interval of the IQM (:func:`seed_interval`: ``ci_low`` / ``ci_high``, the bootstrap
    CI, from :data:`MIN_SEEDS_FOR_CI` seeds; ``range_low`` / ``range_high``, the seeds' min and max,
    below), ``std`` (sample standard deviation, ddof=1; NaN for a single seed, where it is undefined)
    and ``higher_is_better``. :func:`summary_interval` reads the interval back either way.

    None of the statistics depends on the metric's direction; ``higher_is_better`` is carried into the
    result so that a table or a later comparison reads the numbers the right way round.
    """
    x = _finite(values, "values", ndim=(1,))
    interval = seed_interval(x, iqm, reps=reps, confidence=confidence, seed=seed)
    return {
        "n": int(x.size),
        "mean": float(x.mean()),
        "median": float(np.median(x)),
        "iqm": iqm(x),
        **interval.keys(),
        "std": float(x.std(ddof=1)) if x.size > 1 else float("nan"),
        "higher_is_better": bool(higher_is_better),
    }


# --------------------------------------------------------------------------------------------------
# Performance profiles


def performance_profile(scores, thresholds) -> np.ndarray:
    """Run-score distribution: for each threshold tau, the fraction of runs scoring strictly above tau
    (averaged over tasks for several tasks), the whole distribution rather than one summary number.

    ``scores``: 1-D runs, ``[runs, tasks]`` or a dict of tasks; ``thresholds``: 1-D. Returns an array
    shaped like ``thresholds``, non-increasing where the thresholds increase, with values in [0, 1].
    """
    tau = _finite(thresholds, "thresholds", ndim=(1,))
    runs, _ = _tasks(scores, "scores")
    return np.mean([(r[:, None] > tau[None, :]).mean(axis=0) for r in runs], axis=0)


def profile_ci(scores, thresholds, reps: int = 2000, confidence: float = 0.95, seed: int = 0):
    """Pointwise bootstrap band ``(low, high)`` (arrays like ``thresholds``) around the performance
    profile, resampling runs within each task as :func:`stratified_bootstrap_ci` does."""
    tau = _finite(thresholds, "thresholds", ndim=(1,))
    return stratified_bootstrap_ci(scores, lambda s: performance_profile(s, tau), reps=reps,
                                   confidence=confidence, seed=seed)


# --------------------------------------------------------------------------------------------------
# Comparing two methods


def _prob_improvement_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per row (replicate) of ``a [reps, na]`` and ``b [reps, nb]``: mean over all (x, y) pairs of
    1[x > y] + 0.5 * 1[x = y]; the rows are taken in chunks to bound memory."""
    reps, na = a.shape
    nb = b.shape[1]
    chunk = max(1, _PAIR_CHUNK // (na * nb))
    out = np.empty(reps)
    for start in range(0, reps, chunk):
        x, y = a[start:start + chunk, :, None], b[start:start + chunk, None, :]
        out[start:start + chunk] = ((x > y).mean(axis=(1, 2)) + 0.5 * (x == y).mean(axis=(1, 2)))
    return out


def compare(a, b, higher_is_better: bool = True, reps: int = 2000, confidence: float = 0.95,
            seed: int = 0) -> dict:
    """Probability of improvement P(A > B): the chance that a run of A beats a run of B on the same
    task (ties count half), averaged over tasks, with a stratified bootstrap interval. Unlike a
    difference of means it says how often A wins, not by how much, so one huge seed cannot carry it.

    ``a`` and ``b``: 1-D runs, ``[runs, tasks]`` arrays with the same number of tasks, or dicts with the
    same task keys; run counts may differ between A and B. With ``higher_is_better=False`` (a cost such
    as slowdown) "beats" means "scores lower". The runs of A and of B are resampled independently
    within each task; each side needs :data:`MIN_SEEDS_FOR_CI` runs (:class:`TooFewRunsError`).
    Returns ``{"prob_improvement", "ci_low", "ci_high"}``.
    """
    _check_bootstrap(reps, confidence)
    if isinstance(a, Mapping) != isinstance(b, Mapping):
        raise InputError("a and b must both be dicts of tasks or both be arrays")
    if isinstance(a, Mapping) and set(a) != set(b):
        raise InputError(f"a and b must have the same tasks; only in a: {sorted(map(str, set(a) - set(b)))}, "
                         f"only in b: {sorted(map(str, set(b) - set(a)))}")
    if isinstance(b, Mapping):
        b = {k: b[k] for k in a}  # the same task order as a
    runs_a, _ = _tasks(a, "a")
    runs_b, _ = _tasks(b, "b")
    _check_runs(runs_a, "a")
    _check_runs(runs_b, "b")
    if len(runs_a) != len(runs_b):
        raise InputError(f"a has {len(runs_a)} task(s) but b has {len(runs_b)}")
    sign = 1.0 if higher_is_better else -1.0
    runs_a = [sign * r for r in runs_a]
    runs_b = [sign * r for r in runs_b]

    point = float(np.mean([_prob_improvement_rows(x[None], y[None])[0] for x, y in zip(runs_a, runs_b)]))
    rng = np.random.default_rng(seed)
    draws_a, draws_b = _resample(runs_a, reps, rng), _resample(runs_b, reps, rng)
    replicates = np.mean([_prob_improvement_rows(x, y) for x, y in zip(draws_a, draws_b)], axis=0)
    low, high = _percentile_interval(replicates, confidence)
    return {"prob_improvement": point, "ci_low": low, "ci_high": high}
