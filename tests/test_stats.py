"""jaxsched.core.stats: the IQM against hand-computed values (rliable's trim_mean convention), the
stratified bootstrap's resampling and intervals, performance profiles, the probability of
improvement, refusal of empty or NaN input, and of a bootstrap interval over fewer than 5 runs (seeds),
where tables get the labelled range (min, max) instead."""

from __future__ import annotations

import numpy as np
import pytest

from jaxsched.core.stats import (MIN_SEEDS_FOR_CI, SeedInterval, TooFewRunsError, compare, iqm,
                                 performance_profile, profile_ci, seed_interval, stratified_bootstrap_ci,
                                 summarize_over_seeds, summary_interval)
from jaxsched.errors import InputError

# Geometric values make the integer cut differ from a fractionally weighted trim (checked below).
GEO = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]


# --------------------------------------------------------------------------------------------------
# iqm


@pytest.mark.parametrize("scores, expected", [
    # n=4: cut int(1.0)=1 per end; sorted [0, 1, 7, 10] -> mean(1, 7) = 4.0
    ([10, 0, 7, 1], 4.0),
    # n=8: cut int(2.0)=2 per end; sorted [0..6, 100] -> mean(2, 3, 4, 5) = 14 / 4 = 3.5
    ([100, 6, 5, 4, 3, 2, 1, 0], 3.5),
    # n=9: cut int(2.25)=2 per end; keep [4, 8, 16, 32, 64]: 124 / 5 = 24.8
    # (a fractional trim would give (0.75*4 + 8 + 16 + 32 + 0.75*64) / 4.5 = 23.78; rliable: 24.8)
    (GEO[:9][::-1], 24.8),
    # n=10: cut int(2.5)=2 per end; keep [4, 8, 16, 32, 64, 128]: 252 / 6 = 42.0
    # (a fractional trim would give (0.5*4 + 8 + 16 + 32 + 64 + 0.5*128) / 5 = 37.2)
    ([GEO[i] for i in (3, 9, 0, 5, 7, 1, 8, 2, 6, 4)], 42.0),
    # n=3: cut int(0.75)=0 -> the plain mean (1 + 2 + 30) / 3 = 11.0
    ([30, 1, 2], 11.0),
    # n=1: the value itself
    ([-3.5], -3.5),
])
def test_iqm_hand_computed(scores, expected):
    assert iqm(scores) == pytest.approx(expected, abs=1e-12)
    assert iqm(np.asarray(scores)) == pytest.approx(expected, abs=1e-12)


def test_iqm_of_a_constant_is_the_constant():
    assert iqm(np.full(17, 3.25)) == 3.25


def test_iqm_ignores_outlying_seeds_and_pools_tasks():
    # One diverged seed moves the mean a lot and the IQM not at all.
    assert iqm([1, 2, 3, 4, 5, 6, 7, 1e9]) == pytest.approx(iqm([1, 2, 3, 4, 5, 6, 7, 8]))
    # [runs, tasks] and a dict of tasks pool every value: the same as the flattened sample.
    m = np.asarray(GEO, dtype=float).reshape(5, 2)
    assert iqm(m) == pytest.approx(42.0)
    assert iqm({"x": m[:, 0], "y": m[:, 1]}) == pytest.approx(42.0)


def test_iqm_matches_scipy_trim_mean():
    trim_mean = pytest.importorskip("scipy.stats").trim_mean
    rng = np.random.default_rng(3)
    for n in range(1, 41):
        x = rng.standard_exponential(n) ** 3  # skewed, so the trimming convention matters
        assert iqm(x) == pytest.approx(trim_mean(x, 0.25), rel=1e-12, abs=1e-12)


# --------------------------------------------------------------------------------------------------
# stratified bootstrap


def test_ci_contains_the_iqm_and_narrows_with_more_runs():
    # The same empirical distribution observed 1, 4 and 16 times over (8, 32, 128 runs): only the
    # number of runs changes, so the interval should shrink about 2x per step (1 / sqrt(n)).
    base = np.random.default_rng(0).normal(10.0, 2.0, size=8)
    widths = []
    for copies in (1, 4, 16):
        x = np.tile(base, copies)
        low, high = stratified_bootstrap_ci(x, reps=500, seed=1)
        assert low <= iqm(x) <= high
        assert low < high
        widths.append(high - low)
    assert widths[0] > 1.4 * widths[1] and widths[1] > 1.4 * widths[2]


def test_stratified_resampling_keeps_each_tasks_runs():
    # Tasks with disjoint value ranges and different run counts: each resampled task must hold exactly
    # its own number of runs, drawn only from its own values.
    scores = {"a": np.arange(3.0), "b": 100 + np.arange(7.0), "c": 1000 + np.arange(1.0)}
    seen = []

    def record(resampled):
        seen.append({k: np.asarray(v).copy() for k, v in resampled.items()})
        return 0.0

    stratified_bootstrap_ci(scores, record, reps=50, seed=0)
    assert len(seen) == 50
    for rep in seen:
        assert list(rep) == ["a", "b", "c"]
        for k in scores:
            assert rep[k].shape == scores[k].shape
            assert np.isin(rep[k], scores[k]).all()
    # With replacement: some replicate of "b" (7 runs) repeats a run.
    assert any(len(np.unique(rep["b"])) < 7 for rep in seen)


def test_stratified_resampling_of_a_runs_by_tasks_matrix():
    m = np.stack([np.arange(6.0), 10 + np.arange(6.0), 20 + np.arange(6.0)], axis=1)  # [6 runs, 3 tasks]
    shapes, columns_ok = set(), []

    def record(resampled):
        shapes.add(resampled.shape)
        columns_ok.append(all(np.isin(resampled[:, t], m[:, t]).all() for t in range(3)))
        return float(resampled.mean())

    low, high = stratified_bootstrap_ci(m, record, reps=100, seed=0)
    assert shapes == {(6, 3)} and all(columns_ok)
    assert low <= m.mean() <= high


def test_bootstrap_is_deterministic_for_a_seed():
    x = np.random.default_rng(5).normal(size=(8, 3))
    first = stratified_bootstrap_ci(x, reps=500, seed=7)
    assert stratified_bootstrap_ci(x, reps=500, seed=7) == first
    assert stratified_bootstrap_ci(x, reps=500, seed=8) != first


def test_bootstrap_of_a_single_repeated_value_is_degenerate():
    assert stratified_bootstrap_ci(np.full(6, 2.0), reps=200) == (2.0, 2.0)


def test_higher_confidence_gives_a_wider_interval():
    x = np.random.default_rng(2).normal(size=30)
    lo90, hi90 = stratified_bootstrap_ci(x, reps=500, confidence=0.90, seed=0)
    lo99, hi99 = stratified_bootstrap_ci(x, reps=500, confidence=0.99, seed=0)
    assert lo99 <= lo90 and hi90 <= hi99 and (hi99 - lo99) > (hi90 - lo90)


# --------------------------------------------------------------------------------------------------
# summarize_over_seeds


def test_summarize_over_seeds():
    values = [4.0, 1.0, 3.0, 2.0, 100.0]
    s = summarize_over_seeds(values, higher_is_better=False, reps=500, seed=0)
    assert s["n"] == 5
    assert s["mean"] == pytest.approx(22.0)
    assert s["median"] == 3.0
    assert s["iqm"] == pytest.approx(3.0)  # n=5: cut 1 per end -> mean(2, 3, 4)
    assert s["std"] == pytest.approx(np.std(values, ddof=1))
    assert s["ci_low"] <= s["iqm"] <= s["ci_high"]
    assert s["higher_is_better"] is False
    assert summarize_over_seeds(values, reps=500, seed=0)["ci_low"] == s["ci_low"]
    assert "range_low" not in s and summary_interval(s) == SeedInterval(s["ci_low"], s["ci_high"], 5, True)
    one = summarize_over_seeds([7.0], reps=100)
    assert one["iqm"] == one["range_low"] == one["range_high"] == 7.0 and np.isnan(one["std"])
    assert "ci_low" not in one


# --------------------------------------------------------------------------------------------------
# fewer than 5 seeds: no bootstrap interval, the range instead


def test_the_threshold_is_five_seeds():
    assert MIN_SEEDS_FOR_CI == 5


@pytest.mark.parametrize("call", [
    lambda v: stratified_bootstrap_ci(v, reps=100),
    lambda v: profile_ci(v, [0.0], reps=100),
    lambda v: compare(v, np.arange(8.0), reps=100),
    lambda v: compare(np.arange(8.0), v, reps=100),
], ids=["bootstrap", "profile_ci", "compare_a", "compare_b"])
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_bootstrap_refuses_fewer_than_five_runs(call, n):
    values = np.arange(1.0, n + 1.0)
    with pytest.raises(TooFewRunsError, match=rf"at least 5 runs \(seeds\), got {n};.*range"):
        call(values)
    with pytest.raises(ValueError):  # an InputError, so a ValueError, like every refused input
        call(values)


def test_bootstrap_counts_the_runs_of_every_task():
    # Pooled over tasks (rliable's setting) the runs of all tasks count: 2 + 2 refused, 3 + 2 accepted.
    with pytest.raises(TooFewRunsError, match="got 4"):
        stratified_bootstrap_ci({"a": [1.0, 2.0], "b": [3.0, 4.0]}, reps=10)
    low, high = stratified_bootstrap_ci({"a": [1.0, 2.0, 3.0], "b": [3.0, 4.0]}, reps=200)
    assert 1.0 <= low <= high <= 4.0


@pytest.mark.parametrize("values", [[3.0], [2.0, 9.0], [4.0, 1.0, 2.5], [1.0, 8.0, 2.0, 3.0]])
def test_under_five_seeds_the_interval_is_the_labelled_range(values):
    interval = seed_interval(values, reps=500, seed=0)
    assert (interval.low, interval.high) == (min(values), max(values))
    assert interval.n == len(values) and not interval.is_ci
    assert interval.label == "range"
    assert interval.text(".2f") == f"[range {min(values):.2f}, {max(values):.2f}]"
    assert interval.keys() == {"range_low": min(values), "range_high": max(values)}
    s = summarize_over_seeds(values, reps=500)
    assert (s["range_low"], s["range_high"]) == (min(values), max(values)) and "ci_low" not in s
    assert s["iqm"] == pytest.approx(iqm(values))
    assert summary_interval(s) == interval


def test_from_five_seeds_the_interval_is_the_bootstrap_ci():
    for n in (5, 6, 12):
        values = np.random.default_rng(n).normal(3.0, 1.0, size=n)
        interval = seed_interval(values, reps=500, seed=4)
        assert interval.is_ci and interval.n == n and interval.label == "95% CI"
        assert (interval.low, interval.high) == stratified_bootstrap_ci(values, iqm, reps=500, seed=4)
        assert interval.text() == f"[{interval.low:.3f}, {interval.high:.3f}]"
        s = summarize_over_seeds(values, reps=500, seed=4)
        assert (s["ci_low"], s["ci_high"]) == (interval.low, interval.high) and "range_low" not in s
        # narrower than the range (a trimmed statistic's resamples rarely reach the extremes)
        assert values.min() <= interval.low <= interval.high <= values.max()
    assert seed_interval(np.arange(5.0), reps=200, confidence=0.9).label == "90% CI"


def test_three_seeds_bootstrap_would_have_been_the_range():
    # Why the refusal: a 3-seed "95% CI" (2000 resamples) is the min and max exactly. Resampling by hand:
    x = np.array([1.3, 2.9, 2.2])
    draws = x[np.random.default_rng(0).integers(0, 3, size=(2000, 3))]
    low, high = np.percentile(draws.mean(axis=1), [2.5, 97.5])  # iqm of 3 values is their mean
    assert (low, high) == (x.min(), x.max())
    assert (seed_interval(x).low, seed_interval(x).high) == (x.min(), x.max())


def test_summary_interval_refuses_a_summary_without_one():
    with pytest.raises(InputError, match="neither"):
        summary_interval({"n": 3, "iqm": 1.0})


# --------------------------------------------------------------------------------------------------
# performance profiles


def test_performance_profile_values():
    # strictly above tau: 4 of [1, 2, 3, 4] above 0; 3 above 1; 2 above 2.5; none above 4
    np.testing.assert_allclose(performance_profile([3, 1, 4, 2], [0, 1, 2.5, 4]), [1.0, 0.75, 0.5, 0.0])
    # two tasks with different run counts: the per-task fractions are averaged
    prof = performance_profile({"x": [0.0, 1.0], "y": [0.0, 0.0, 0.0, 1.0]}, [0.5])
    np.testing.assert_allclose(prof, [(0.5 + 0.25) / 2])


def test_profile_is_monotone_in_tau_and_in_unit_interval():
    scores = np.random.default_rng(4).normal(size=(15, 3))
    tau = np.linspace(-3, 3, 41)
    prof = performance_profile(scores, tau)
    assert prof.shape == tau.shape
    assert np.all(np.diff(prof) <= 0)
    assert prof.min() >= 0.0 and prof.max() <= 1.0
    assert prof[0] == 1.0 and prof[-1] == 0.0  # every run lies inside [-3, 3] for this seed

    low, high = profile_ci(scores, tau, reps=500, seed=0)
    assert low.shape == high.shape == tau.shape
    assert np.all(low <= high)
    assert np.all(np.diff(low) <= 1e-12) and np.all(np.diff(high) <= 1e-12)
    assert low.min() >= 0.0 and high.max() <= 1.0
    assert np.all(low <= prof + 1e-12) and np.all(prof <= high + 1e-12)
    assert np.any(high - low > 0)


# --------------------------------------------------------------------------------------------------
# probability of improvement


def test_prob_improvement_dominance_and_identical_samples():
    a, b = np.array([5.0, 6.0, 7.0, 8.0, 9.0]), np.array([1.0, 2.0, 3.0, 4.0, 4.5, 0.0])
    assert compare(a, b, reps=200) == {"prob_improvement": 1.0, "ci_low": 1.0, "ci_high": 1.0}
    assert compare(b, a, reps=200)["prob_improvement"] == 0.0
    # lower is better (e.g. slowdown): then b dominates a
    assert compare(a, b, higher_is_better=False, reps=200)["prob_improvement"] == 0.0
    x = np.random.default_rng(6).normal(size=10)
    same = compare(x, x.copy(), reps=500)
    assert same["prob_improvement"] == 0.5
    assert same["ci_low"] < 0.5 < same["ci_high"]


def test_prob_improvement_hand_computed_with_ties():
    # a=1 beats only 0: 1; a=2 ties 2 and 2 (0.5 each) and beats 0: 2; a=3 beats all three: 3 -> 6/9
    # (each run twice over, so each side has the 5 runs a bootstrap needs; the proportions are the same)
    a, b = [1.0, 2.0, 3.0] * 2, [2.0, 2.0, 0.0] * 2
    r = compare(a, b, reps=500, seed=0)
    assert r["prob_improvement"] == pytest.approx(6 / 9)
    assert r["ci_low"] <= 6 / 9 <= r["ci_high"]
    # P(A better) + P(B better) = 1 when ties count half each way
    assert compare(a, b, higher_is_better=False, reps=10)["prob_improvement"] == pytest.approx(3 / 9)
    # deterministic for a seed
    assert compare(a, b, reps=500, seed=0) == r


def test_prob_improvement_averages_over_tasks():
    # task x: A dominates (1.0); task y: identical (0.5) -> 0.75; dict and [runs, tasks] agree
    a = {"x": [3.0, 4.0, 3.0], "y": [1.0, 2.0, 1.0]}
    b = {"y": [1.0, 2.0, 1.0], "x": [0.0, 1.0, 0.0]}  # key order must not matter
    assert compare(a, b, reps=100)["prob_improvement"] == pytest.approx(0.75)
    am, bm = np.array([[3.0, 1.0], [4.0, 2.0], [3.0, 1.0]]), np.array([[0.0, 1.0], [1.0, 2.0], [0.0, 1.0]])
    assert compare(am, bm, reps=100)["prob_improvement"] == pytest.approx(0.75)
    with pytest.raises(ValueError, match="same tasks"):
        compare(a, {"x": [1.0], "z": [1.0]})
    with pytest.raises(ValueError, match="task"):
        compare(am, np.ones((3, 3)))


# --------------------------------------------------------------------------------------------------
# refused input


@pytest.mark.parametrize("call", [
    lambda v: iqm(v),
    lambda v: stratified_bootstrap_ci(v, reps=10),
    lambda v: summarize_over_seeds(v, reps=10),
    lambda v: performance_profile(v, [0.0]),
    lambda v: profile_ci(v, [0.0], reps=10),
    lambda v: compare(v, [1.0, 2.0], reps=10),
    lambda v: compare([1.0, 2.0], v, reps=10),
], ids=["iqm", "bootstrap", "summarize", "profile", "profile_ci", "compare_a", "compare_b"])
def test_nan_and_empty_are_refused(call):
    with pytest.raises(ValueError, match=r"2 NaN value\(s\) among 4"):
        call([1.0, np.nan, 3.0, np.nan])
    with pytest.raises(ValueError, match="empty"):
        call([])


def test_other_bad_input_is_refused():
    with pytest.raises(InputError, match="empty"):
        stratified_bootstrap_ci({}, reps=10)
    with pytest.raises(InputError, match=r"\['b'\]"):
        stratified_bootstrap_ci({"a": [1.0], "b": []}, reps=10)
    with pytest.raises(InputError, match="empty"):
        stratified_bootstrap_ci(np.zeros((0, 3)), reps=10)
    with pytest.raises(InputError, match="infinite"):
        iqm([1.0, np.inf])
    with pytest.raises(InputError, match="NaN"):
        performance_profile([1.0, 2.0], [0.0, np.nan])
    with pytest.raises(InputError, match="empty"):
        performance_profile([1.0, 2.0], [])
    with pytest.raises(InputError, match="1-D"):
        summarize_over_seeds(np.ones((3, 2)), reps=10)
    with pytest.raises(InputError, match="reps"):
        stratified_bootstrap_ci([1.0, 2.0], reps=0)
    with pytest.raises(InputError, match="confidence"):
        stratified_bootstrap_ci([1.0, 2.0], reps=10, confidence=95)
