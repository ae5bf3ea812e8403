"""Trace-window instances (jaxsched/envs/deeprm/trace_windows.py): the split, the windows, dropped
jobs, and what a policy sees of run times under runtime_model requested / actual."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxsched.envs.deeprm import trace_windows as tw
from jaxsched.envs.deeprm.swf_jobsets import to_jobsets
from jaxsched.envs.deeprm.types import EnvParams
from jaxsched.errors import InputError
from jaxsched.workloads.datasets import find
from jaxsched.workloads.swf import read_swf

CTC = "dataset:ctc-sp2-first969"


@pytest.fixture(scope="module")
def ctc():
    return tw.build(trace=CTC, window=32)


def test_the_split_puts_every_training_job_before_every_held_out_one(ctc):
    trace = read_swf(CTC)
    facts, jobs = ctc.facts, ctc.jobs
    assert jobs.num_train == int(0.7 * trace.num_jobs)  # no ties at the split in this excerpt
    assert facts["split"]["split_submit_s"] == trace.submit[jobs.num_train]
    assert trace.submit[:jobs.num_train].max() < facts["split"]["split_submit_s"] <= trace.submit[jobs.num_train:].min()
    assert facts["disjoint"] is True
    assert facts["training"]["job_ids"] == [int(trace.job_id[0]), int(trace.job_id[jobs.num_train - 1])]
    starts = ctc.held_out_starts()
    assert starts.min() >= jobs.num_train and starts.max() + ctc.window <= trace.num_jobs  # no straddling
    assert facts["held_out"]["windows"] == (trace.num_jobs - jobs.num_train) // 32
    assert "differ from their run time" in facts["requested_times"]


def test_held_out_windows_match_the_swf_readers_windows(ctc):
    """Cut inside jit here, by to_jobsets in numpy there: same arrivals, run times and widths."""
    batched, info = ctc.held_out()
    trace = read_swf(CTC)
    rest = dataclasses.replace(trace, **{f: getattr(trace, f)[ctc.jobs.num_train:]
                                         for f in ("job_id", "submit", "run_time", "procs", "requested_time",
                                                   "memory", "user", "group")})
    reference = to_jobsets(rest, num_procs=430, quantum=600, window=32)
    assert info["windows"] == reference.arrival.shape[0]
    for field in ("arrival", "duration", "demand"):
        np.testing.assert_array_equal(np.asarray(getattr(batched.jobset, field)), np.asarray(getattr(reference, field)))
    requested = np.asarray(batched.jobset.requested)
    assert (requested >= np.asarray(batched.jobset.duration)).all() and (requested > batched.jobset.duration).any()


def test_training_windows_are_drawn_in_jit_from_the_training_part_only(ctc):
    draw = jax.jit(lambda key: ctc.sample_params(key, 16))
    a, b = draw(jax.random.PRNGKey(0)), draw(jax.random.PRNGKey(1))
    split = ctc.facts["split"]["split_submit_s"]
    for params in (a, b):
        assert float(params.jobset.submit_s.max()) < split
        assert (np.asarray(params.jobset.arrival)[:, 0] == 0).all()
        assert (np.diff(np.asarray(params.jobset.arrival), axis=1) >= 0).all()
    assert not np.array_equal(np.asarray(a.jobset.submit_s), np.asarray(b.jobset.submit_s))


def test_jobs_wider_than_the_cluster_are_dropped_and_counted():
    trace = read_swf(CTC)
    jobs = tw.trace_jobs(CTC, window=32, quantum=600.0, num_procs=64)
    wide = int((trace.procs > 64).sum())
    assert wide > 0 and jobs.facts["too_wide"]["count"] == wide
    assert jobs.procs.max() <= 64 and len(jobs.procs) == trace.num_jobs - wide
    assert jobs.facts["num_procs_from"] == "--num-procs"


def test_a_trace_without_requested_times_says_so():
    if find("lublin-256") is None:
        pytest.skip("dataset lublin-256 is not available here (python -m jaxsched.data fetch lublin-256)")
    jobs = tw.trace_jobs("dataset:lublin-256", window=64, quantum=600.0)
    assert jobs.facts["requested_times"].startswith("ABSENT")
    np.testing.assert_array_equal(jobs.requested, jobs.duration)


def test_validation_windows_are_cut_from_the_end_of_the_training_part(ctc):
    """The held-out part stays as it is; training windows are drawn only before the validation part."""
    split = tw.build(trace=CTC, window=32, validation_fraction=0.1)
    jobs, facts = split.jobs, split.facts
    assert jobs.num_train == ctc.jobs.num_train and np.array_equal(split.held_out_starts(), ctc.held_out_starts())
    assert jobs.num_fit == facts["training"]["job_index"][1] == facts["validation"]["job_index"][0]
    assert facts["validation"]["job_index"][1] == jobs.num_train and facts["disjoint"] is True
    batched, info = split.validation()
    assert info["windows"] == split.num_validation == (jobs.num_train - jobs.num_fit) // 32 > 0
    assert min(info["window_starts"]) == jobs.num_fit and max(info["window_starts"]) + 32 <= jobs.num_train
    first = float(batched.jobset.submit_s.min())
    assert first == facts["split"]["validation_submit_s"]
    drawn = jax.jit(lambda key: split.sample_params(key, 256))(jax.random.PRNGKey(0))
    assert float(drawn.jobset.submit_s.max()) < first
    assert ctc.num_validation == 0 and "validation" not in ctc.facts


@pytest.mark.parametrize("options, message", [
    (dict(train_fraction=1.5), "train_fraction must lie in"), (dict(window=900), "at least window=900"),
    (dict(validation_fraction=0.7), "validation_fraction must lie in"),
    (dict(validation_fraction=0.01), "validation jobs at validation_fraction=0.01"),
    (dict(runtime_model="oracle"), "unknown runtime_model"), (dict(bogus=1), "unknown option")])
def test_bad_options_are_refused_in_one_line(options, message):
    with pytest.raises((InputError, ValueError), match=message):
        tw.build(trace=CTC, **options)


def two_job_env(runtime_model: str, **options):
    """4 processors; job 0: 3 processors, runs 2 steps, requested 5; job 1: 2 processors, 1 step."""
    options = {"observation": "bracis", "stepping": "time", **options}
    env = tw.TraceDeepRM(runtime_model=runtime_model, quantum=60.0, num_res=1, capacity=4, max_job_size=4,
                         max_job_len=6, horizon=6, num_slots=2, backlog_size=2, allocation="fits_now", **options)
    jobset = tw.TraceJobset(arrival=jnp.array([0, 0]), duration=jnp.array([2, 1]), demand=jnp.array([[3], [2]]),
                            valid=jnp.array([True, True]), requested=jnp.array([5, 1]),
                            submit_s=jnp.array([0.0, 0.0]), requested_s=jnp.array([300.0, 60.0]),
                            run_s=jnp.array([120.0, 60.0]))
    return env, EnvParams(jobset=jobset, simu_len=1, max_time=50, max_steps_in_episode=100)


def test_requested_model_shows_requested_times_while_jobs_run_their_real_ones():
    env, params = two_job_env("requested")
    step = jax.jit(env.step_env)
    obs, state = env.reset(jax.random.PRNGKey(0), params)
    assert list(np.asarray(obs.slot_duration)) == [5, 1] and list(np.asarray(obs.slot_requested_s)) == [300.0, 60.0]
    obs, state, *_ = step(None, state, 0, params)  # start job 0 (3 of 4 processors)
    assert list(np.asarray(obs.free[:, 0])) == [1, 1, 1, 1, 1, 4]  # held until its requested end, step 5
    for _ in range(2):
        obs, state, *_ = step(None, state, 2, params)  # move on twice: job 0 really ends at step 2
    assert int(obs.free[0, 0]) == 4 and bool(obs.fits_now[1])  # the scheduler sees it gone; job 1 fits
    assert float(obs.slot_wait_s[1]) == 2 * 60.0  # job 1 waited two steps of 60 s


def test_actual_model_shows_the_real_run_times():
    jobs = tw.trace_jobs(CTC, window=32, quantum=600.0, runtime_model="actual")
    np.testing.assert_array_equal(jobs.requested, jobs.duration)
    np.testing.assert_array_equal(jobs.requested_s, jobs.run_s)
    env, params = two_job_env("actual")
    params = params.replace(jobset=params.jobset.replace(requested=params.jobset.duration))
    obs, state = env.reset(jax.random.PRNGKey(0), params)
    obs, state, *_ = env.step_env(None, state, 0, params)
    assert list(np.asarray(obs.free[:, 0])) == [1, 1, 4, 4, 4, 4]


def test_seconds_features_append_requested_and_waited_seconds_per_slot():
    """seconds_features: the bracis state unchanged, then per slot log1p(requested s), log1p(waited s) over
    log1p(a month); a job that starts leaves its slot, which reads 0 again."""
    plain, params = two_job_env("requested")
    env, _ = two_job_env("requested", seconds_features=True)
    assert env.feature_shape() == (plain.feature_shape()[0] + 2 * 2,)
    scale = np.log1p(tw.SECONDS_SCALE)
    obs, state = env.reset(jax.random.PRNGKey(0), params)
    base, _ = plain.reset(jax.random.PRNGKey(0), params)
    assert obs.features.shape == env.feature_shape()
    np.testing.assert_array_equal(np.asarray(obs.features[:-4]), np.asarray(base.features))
    np.testing.assert_allclose(np.asarray(obs.features[-4:]), np.log1p([300.0, 0.0, 60.0, 0.0]) / scale, rtol=1e-6)
    obs, state, *_ = env.step_env(None, state, 0, params)  # start job 0; job 1 waits
    obs, state, *_ = env.step_env(None, state, 2, params)  # move on: a step of 60 s passes
    slot = int(np.flatnonzero(np.asarray(obs.slot_job) == 1)[0])
    tail = np.asarray(obs.features[-4:]).reshape(2, 2)
    np.testing.assert_allclose(tail[slot], np.log1p([60.0, float(obs.slot_wait_s[slot])]) / scale, rtol=1e-6)
    assert float(obs.slot_wait_s[slot]) > 0 and (tail[1 - slot] == 0).all()


def test_seconds_features_need_the_bracis_state():
    with pytest.raises(ValueError, match="seconds_features extends the bracis state"):
        tw.TraceDeepRM(seconds_features=True, observation="compact", num_res=1, capacity=4, max_job_size=4,
                       max_job_len=6, horizon=6, num_slots=2, backlog_size=2)


@pytest.mark.parametrize("stepping", ["time", "event"])
def test_reward_seconds_charges_each_job_its_bounded_slowdown(stepping):
    """reward_seconds: an episode's return (gamma 1) is minus the sum over jobs of their steps in the system x
    quantum / max(run seconds, 10 s), the bounded slowdown in seconds, on both steppings; without it, steps / length
    (both jobs arrive at reset, whose step the env does not charge: DeepRM._reward)."""
    returns = {}
    for seconds in (False, True):
        env, params = two_job_env("actual", stepping=stepping, reward_seconds=seconds)
        jobs = params.jobset.replace(run_s=jnp.array([120.0, 5.0]), requested=params.jobset.duration)
        params = params.replace(jobset=jobs)
        obs, state = env.reset(jax.random.PRNGKey(0), params)
        total, done = 0.0, False
        while not done:
            fits = np.asarray(obs.fits_now)
            action = int(np.argmax(fits)) if fits.any() else len(fits)
            obs, state, reward, done, _ = env.step_env(None, state, action, params)
            total += float(reward)
        stay = np.asarray(state.start + jobs.duration - jobs.arrival, float) - 1  # present at reset: t = 0 unpaid
        weight = 60.0 / np.maximum([120.0, 5.0], tw.BSLD_TAU_S) if seconds else 1.0 / np.asarray(jobs.duration)
        np.testing.assert_allclose(total, -np.sum(stay * weight), rtol=1e-6)
        returns[seconds] = total
    assert returns[True] < returns[False]  # the 5 s job weighs 6 per minute in the system, not 1


def test_reward_seconds_weighs_only_the_slowdown_reward():
    with pytest.raises(ValueError, match="reward_seconds weighs the slowdown reward"):
        two_job_env("actual", reward="makespan", reward_seconds=True)


def test_start_when_idle_closes_waiting_only_while_the_cluster_is_empty_and_a_job_can_start():
    """start_when_idle: with nothing running and a job that fits, the void action leaves the mask; a policy that
    waits whenever its mask lets it then finishes both jobs, where without the option it idles past the clock cap
    (max_time 50) with both still waiting."""
    finished = {}
    for idle in (False, True):
        env, params = two_job_env("requested", start_when_idle=idle)
        step = jax.jit(env.step_env)
        obs, state = env.reset(jax.random.PRNGKey(0), params)
        assert list(np.asarray(obs.action_mask)) == [True, True, not idle]
        for _ in range(params.max_time + 5):
            mask = np.asarray(obs.action_mask)
            obs, state, _, done, _ = step(None, state, len(mask) - 1 if mask[-1] else int(np.argmax(mask)), params)
            if done:
                break
        jobs = params.jobset
        finished[idle] = int(np.sum((np.asarray(state.start) >= 0)
                                    & (np.asarray(state.start + jobs.duration) <= int(state.clock))))
        assert bool(done) == idle and (int(state.clock) < params.max_time) == idle
    assert finished == {False: 0, True: 2}
