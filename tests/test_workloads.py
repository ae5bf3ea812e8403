"""DeepRM synthetic workloads: ranges of durations and demands (both named demand ranges),
arrival times, offline jobsets, the offered load, and Bernoulli rate capping.

Compiling the generator is the expensive part (seconds per workload), so the workloads sampled here
are the registry's (``deeprm``, ``deeprm-paper``, ``deeprm2``, ``deeprm-off``): their ``generate``
compilations are shared with the registry tests. Many jobsets = the jitted ``generate`` called on
split keys; ``generate_many`` is checked against exactly that on the cheapest (offline) workload."""

from __future__ import annotations

import warnings

import jax
import numpy as np
import pytest

from jaxsched.envs.deeprm.generator import Workload, generate, generate_many

SHORT = set(range(1, 4))  # {1, 2, 3}
LONG = set(range(10, 16))  # {10 .. 15}
RANGES = {"code": ((5, 10), (1, 2)), "paper": ((3, 5), (1, 1))}  # dominant, other (units of 10)


FIELDS = ("arrival", "duration", "demand", "valid")


def numpy_jobsets(jobsets) -> dict[str, np.ndarray]:
    return {f: np.asarray(getattr(jobsets, f)) for f in FIELDS}


def sample(workload: Workload, num_jobsets: int, seed: int) -> dict[str, np.ndarray]:
    """``num_jobsets`` jobsets, one jitted ``generate`` call per key (stacked as numpy)."""
    drawn = [generate(key, workload) for key in jax.random.split(jax.random.PRNGKey(seed), num_jobsets)]
    return {f: np.stack([np.asarray(getattr(js, f)) for js in drawn]) for f in FIELDS}


@pytest.fixture(scope="module", params=["code", "paper"])
def sampled(request):
    workload = Workload(demand_range=request.param, load=0.7)
    return request.param, workload, sample(workload, 500, seed=1)


def test_the_named_ranges(sampled):
    name, workload, _ = sampled
    assert workload.short_range == (1, 3) and workload.long_range == (10, 15)
    assert (workload.dominant_range, workload.other_range) == RANGES[name]


def test_durations_are_bimodal(sampled):
    _, _, js = sampled
    duration = js["duration"][js["valid"]]
    assert set(np.unique(duration)) == SHORT | LONG  # every value occurs, nothing else
    short = np.isin(duration, list(SHORT)).mean()
    assert short == pytest.approx(0.8, abs=0.02)


def test_one_dominant_resource_in_its_range_the_other_in_its_range(sampled):
    name, _, js = sampled
    (dlo, dhi), (olo, ohi) = RANGES[name]
    demand = js["demand"][js["valid"]]
    dominant = (demand >= dlo) & (demand <= dhi)
    other = (demand >= olo) & (demand <= ohi)
    assert (dominant.sum(axis=1) == 1).all() and (other.sum(axis=1) == 1).all()
    # Both resources are dominant about half of the time; every value of each range occurs.
    assert dominant[:, 0].mean() == pytest.approx(0.5, abs=0.03)
    assert set(np.unique(demand[dominant])) == set(range(dlo, dhi + 1))
    assert set(np.unique(demand[other])) == set(range(olo, ohi + 1))


def test_online_arrivals_sorted_in_1_to_simu_len(sampled):
    _, workload, js = sampled
    valid, arrival = js["valid"], js["arrival"]
    # Valid jobs first, padding after; at most one Bernoulli arrival per step.
    assert (np.diff(valid.astype(int), axis=1) <= 0).all()
    assert valid.shape[1] == workload.max_jobs == workload.simu_len - 1
    for k in range(valid.shape[0]):
        a = arrival[k][valid[k]]
        assert (a >= 1).all() and (a < workload.simu_len).all()
        assert (np.diff(a) > 0).all()


def test_offered_load_is_the_requested_load(sampled):
    """Offered load per resource = sum(duration x units) / (capacity x arrival steps), over 500
    jobsets."""
    _, workload, js = sampled
    work = (js["duration"][..., None] * js["demand"] * js["valid"][..., None]).sum(axis=1)  # [K, d]
    load = work.mean(axis=0) / (workload.capacity * (workload.simu_len - 1))
    np.testing.assert_allclose(load, workload.load, rtol=0.05)


def test_poisson_arrivals_offer_the_load_with_several_jobs_per_step():
    workload = Workload(arrivals="poisson", load=1.0)
    js = sample(workload, 500, seed=2)
    valid, arrival = js["valid"], js["arrival"]
    assert (np.diff(valid.astype(int), axis=1) <= 0).all()
    assert valid.sum(axis=1).max() < workload.max_jobs  # nothing cut by the padding
    a = np.where(valid, arrival, 1)
    assert (a >= 1).all() and (a < workload.simu_len).all() and (np.diff(a, axis=1)[valid[:, 1:]] >= 0).all()
    assert (np.diff(a, axis=1)[valid[:, 1:]] == 0).any()  # several arrivals in one step occur
    work = (js["duration"][..., None] * js["demand"] * valid[..., None]).sum(axis=1)
    load = work.mean(axis=0) / (workload.capacity * (workload.simu_len - 1))
    np.testing.assert_allclose(load, 1.0, rtol=0.05)


def test_offline_jobs_all_arrive_at_zero():
    workload = Workload(arrivals="offline", num_jobs=20)
    js = numpy_jobsets(generate(jax.random.PRNGKey(3), workload))
    assert js["arrival"].shape == (20,)
    assert (js["arrival"] == 0).all() and js["valid"].all()
    assert set(np.unique(js["duration"])) <= SHORT | LONG


def test_bernoulli_rate_above_one_warns_and_caps():
    workload = Workload(load=3.0, simu_len=20)  # needs 3 / 1.845 = 1.63 arrivals per step
    with pytest.warns(UserWarning, match="at most 1"):
        assert workload.rate == 1.0
    with pytest.warns(UserWarning, match="at most 1"):
        js = numpy_jobsets(generate(jax.random.PRNGKey(4), workload))
    assert js["valid"].all()
    np.testing.assert_array_equal(js["arrival"], np.arange(1, 20))  # one job every step


def test_rate_below_one_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert Workload(load=1.8).rate == pytest.approx(1.8 / 1.845)
        assert Workload(arrivals="poisson", load=3.0).rate == pytest.approx(3.0 / 1.845)


def test_rate_exactly_one_does_not_warn():
    """A load that needs exactly one arrival per step is reachable: no warning. The tiny test
    workload (L = 4, S = 3, capacity 3) offers 1.4 x 1.5 / 3 = 0.7 per job per step."""
    workload = Workload(num_res=2, capacity=3, max_job_len=4, max_job_size=3, load=0.7)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert workload.rate == pytest.approx(1.0)


def test_same_key_same_jobsets_different_key_different():
    workload = Workload(load=0.7)  # the "code" workload sampled above: no new compilation
    a, b, c = sample(workload, 3, seed=7), sample(workload, 3, seed=7), sample(workload, 3, seed=8)
    for field in FIELDS:
        np.testing.assert_array_equal(a[field], b[field])
    assert not np.array_equal(a["arrival"], c["arrival"])


def test_generate_many_is_generate_on_split_keys():
    workload = Workload(arrivals="offline", num_jobs=20)
    many = numpy_jobsets(generate_many(jax.random.PRNGKey(5), workload, 8))
    one_by_one = sample(workload, 8, seed=5)
    for field in FIELDS:
        np.testing.assert_array_equal(many[field], one_by_one[field])


def test_invalid_workloads_are_rejected():
    with pytest.raises(ValueError, match="bernoulli"):
        Workload(arrivals="sometimes")
    with pytest.raises(ValueError, match="code"):
        Workload(demand_range="huge")
    with pytest.raises(ValueError):
        Workload(arrivals="offline")  # num_jobs missing
