"""``python -m jaxsched.bench env``: the reference DeepRM simulator and jaxsched on the same jobsets,
SJF schedules checked job for job before anything is timed, the image really consumed; the compact
state's Python SJF; VMAgent and jaxsched placing every VM alike under First-Fit.

Every default-run test runs everywhere. Those that compare against a reference simulator run the full
comparison where ``../shared/reference`` (and, for VM, the Huawei trace) is here; where it is absent (a
fresh clone) they check instead that the bench refuses before timing, and the jaxsched side alone (e.g.
the job-for-job comparison against jaxsched's own schedules, which must still refuse other jobsets). The
two ``slow`` tests skip there; their default-run counterparts say which.
"""

from __future__ import annotations

import csv
import functools
import json
import os
import re

import jax
import numpy as np
import pytest

from jaxsched.bench import cli, common, env as env_rows, vector
from jaxsched.bench.reference import (CHUNK, DEFAULT_REFERENCE, REFERENCES, DeepRMReference, ForkedTimer,
                                      ReferenceMissing, VmReference, load_vmagent, write_vmagent_events)
from jaxsched.baselines.vm import first_fit
from jaxsched.core.devices import threads_on_one_core
from jaxsched.core.rollout import make_evaluator
from jaxsched.envs.deeprm.metrics import job_table
from jaxsched.envs.vm.episodes import draw_starts
from jaxsched.registry import build
from jaxsched.workloads.datasets import find

M, LOAD, BATCH = 5, 1.3, 4


@functools.cache
def missing(family: str) -> str | None:
    """Why ``family``'s reference cannot run here (the bench's own check), None where it can."""
    return env_rows.missing_references([family], DEFAULT_REFERENCE).get(family)


def refuses(family: str):
    """``pytest.raises`` for the bench refusing ``family`` here, before timing, for the reason it gives."""
    return pytest.raises(ReferenceMissing, match=re.escape(missing(family)))


def deeprm_reference(variant, seed: int = 0, batch: int = BATCH):
    return DeepRMReference(DEFAULT_REFERENCE / "deeprm", variant.env.num_slots, variant.workload.rate,
                           variant.workload.simu_len, batch, int(variant.params.max_time), seed)


def reference_params(seed: int = 0):
    """The reference's jobsets (re-drawn by its numpy generator here: no reference simulator needed)."""
    return build("deeprm", num_slots=M, load=LOAD).reference_instances(seed, BATCH)


class OwnSchedules:
    """Stands in for :class:`DeepRMReference` where it is absent: SJF's start times as jaxsched's jitted SJF
    schedules ``params`` (each jobset's admitted jobs in arrival order), so that the job-for-job check's
    comparison runs; it must pass on those jobsets and refuse others."""

    def __init__(self, variant, params):
        table = job_table(make_evaluator(variant.env, variant.heuristic("sjf"))(params, jax.random.PRNGKey(0)))
        count = int(np.asarray(params.jobset.arrival).shape[0])
        self.episodes = [{"start": table["start"][(table["jobset"] == j) & (table["status"] != "dropped")]}
                         for j in range(count)]

    def sjf_schedules(self, count: int) -> list[dict]:
        return self.episodes[:count]


def test_the_job_for_job_check_passes_on_the_same_jobsets_and_refuses_others():
    """Against the reference where it is here; where not, the reference refuses to load (the bench stops
    there), and the check's comparison runs against jaxsched's own schedules."""
    variant, params = build("deeprm", num_slots=M, load=LOAD), reference_params()
    if missing("deeprm"):
        with refuses("deeprm"):
            deeprm_reference(variant)
        reference = OwnSchedules(variant, jax.tree.map(lambda x: x[:2], params))
    else:
        reference = deeprm_reference(variant)
    decisions = common.check_deeprm_schedules(reference, variant, params, 2)
    assert len(decisions) == 2 and min(decisions) > variant.workload.simu_len  # every step a decision or more
    other = variant.reference_instances(1, BATCH)  # another seed: other jobs, other start times
    with pytest.raises(SystemExit, match="SJF schedules differ"):
        common.check_deeprm_schedules(reference, variant, other, 2)


def test_the_python_sjf_reads_the_same_decisions_from_the_adapters_image():
    """The one-step-per-Python-call row's SJF, read from the flat image, plays episodes exactly as long
    as jaxsched's jitted SJF on the same jobsets (whose start times equal the reference's: the test above);
    a policy that only moves on does not."""
    params = reference_params()
    first = jax.tree.map(lambda x: x[:2], params)
    variant = build("deeprm", num_slots=M, load=LOAD)
    expected = make_evaluator(variant.env, variant.heuristic("sjf"))(first, jax.random.PRNGKey(0)).state.time
    adapter = env_rows.AdapterTimer("deeprm", params, dict(num_slots=M, load=LOAD))
    assert adapter.episode_decisions(2) == np.asarray(expected).reshape(-1).tolist()
    idle = env_rows.AdapterTimer("deeprm", params, dict(num_slots=M, load=LOAD), policy=lambda obs, env: M)
    assert idle.episode_decisions(2) != adapter.episode_decisions(2)


def test_the_image_is_consumed_and_the_blind_scan_reads_nothing():
    params = reference_params()
    image = env_rows.ScanTimer(build("deeprm", num_slots=M, load=LOAD).env, params, 5)
    blind = env_rows.ScanTimer(build("deeprm", num_slots=M, load=LOAD, observation="none").env, params, 5)
    assert np.all(np.asarray(image.carry[2]) > 0)  # the image's cells summed every step
    assert np.all(np.asarray(blind.carry[2]) == 0)
    steps, seconds = image(0.01)
    assert steps >= BATCH * 5 and seconds >= 0.01


def test_the_batched_rows_step_the_public_env_step_and_play_the_internal_steps_episodes():
    """``bench env``'s batched side calls the public gymnax ``env.step`` (auto-reset, a key per copy), as a
    user's vmapped loop does; it plays the episodes of the internal transition + restart, bit for bit."""
    params = reference_params()
    env = build("deeprm", num_slots=M, load=LOAD).env
    public = env_rows.ScanTimer(env, params, 5)
    initial = jax.vmap(env.initial_state)(params)
    carry = jax.tree.map(jax.numpy.copy, (jax.vmap(env.get_obs)(initial, params), initial))  # donated
    carry = (*carry, jax.numpy.zeros(BATCH, jax.numpy.float32))
    internal = common.make_policy_scan(env, 5)(carry, params, initial)
    for mine, theirs in zip(jax.tree.leaves(public.carry), jax.tree.leaves(internal)):
        assert np.array_equal(np.asarray(mine), np.asarray(theirs))
    assert public.last.shape[0] == BATCH  # one key per copy


def test_the_forked_reference_counts_every_process_steps_and_ends_them():
    """The batched rows' reference on as many cores as jaxsched's devices: each forked copy steps its own
    simulator, the parent adds their steps; one process runs in-process; ``close`` ends the copies."""
    calls = []
    forked = ForkedTimer(lambda: calls.append(1), 2)
    steps, seconds = forked(0.02)
    assert steps >= 2 * CHUNK and steps % CHUNK == 0 and seconds >= 0.02
    assert calls == []  # the parent's list: the steps ran in the copies
    workers = list(forked.workers)
    forked.close()
    assert all(not worker.is_alive() for worker in workers) and forked.pipes == []
    single = ForkedTimer(lambda: calls.append(1), 1)
    steps, _ = single(0.0)
    assert steps == CHUNK == len(calls) and single.workers == []


def test_one_core_rows_pin_every_thread_and_give_the_cores_back():
    before = os.sched_getaffinity(0)
    with threads_on_one_core():
        inside = {thread: os.sched_getaffinity(int(thread)) for thread in os.listdir("/proc/self/task")}
    assert os.sched_getaffinity(0) == before
    expected = {min(before)} if len(before) > 1 else before
    assert inside and all(cores == expected for cores in inside.values())


def test_the_ceiling_reads_the_image_every_step_and_moves_nothing_else():
    params = reference_params()
    env = build("deeprm", num_slots=M, load=LOAD).env
    ceiling = env_rows.ScanTimer(env, params, 5, read_only=True)
    obs, state, seen = ceiling.carry
    assert np.all(np.asarray(seen) > 0)
    assert np.array_equal(np.asarray(state.clock), np.asarray(ceiling.initial.clock))  # no transition ran
    assert np.array_equal(np.asarray(state.since_arrival), np.asarray(ceiling.initial.since_arrival) + 5)
    rendered = jax.vmap(env.get_obs)(state, params).features
    assert np.array_equal(np.asarray(obs.features), np.asarray(rendered))


@pytest.mark.slow
def test_quick_bench_writes_every_row_and_image_and_blind_figures_differ(tmp_path, capsys):
    if missing("deeprm"):  # the default run's small bench below checks the refusal there
        pytest.skip(f"the DeepRM reference is not usable here: {missing('deeprm')}")
    out = tmp_path / "bench_env.json"
    assert cli.main(["env", "--family", "deeprm", "--sizes", str(M), "--loads", str(LOAD), "--quick",
                       "--vector-sizes", "2", "--vector-slots", str(M), "--cpu-devices", "1",  # 1: no re-exec of pytest
                       "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "SJF schedules equal job for job on 2 jobsets" in printed
    assert "deeprm jaxsched / reference (medians): M=" in printed
    rows = json.loads(out.read_text())["rows"]
    assert [r["workload"] for r in rows] == [w.format(batch=8) for w in env_rows.DEEPRM_WORKLOADS +
                                             (env_rows.CEILING_WORKLOAD,)] + ["vector env, 2 copies per Python call"]
    assert rows[-1]["cores"] == {"jaxsched": 1, "reference": 1, "how": vector.PINNED}  # its own pinned process
    check_deeprm_rows(rows[:-1], 8)
    assert out.with_suffix(".md").exists()


def check_deeprm_rows(rows: list[dict], batch: int) -> None:
    """The DeepRM rows of ``bench env``: every workload in order, the ceiling row reusing the image row's
    reference, image and blind figures apart on both sides, each ratio the ratio of the medians."""
    assert [r["workload"] for r in rows] == [w.format(batch=batch) for w in env_rows.DEEPRM_WORKLOADS +
                                             (env_rows.CEILING_WORKLOAD,)]
    assert all((r["family"], r["size"], r["load"]) == ("deeprm", M, LOAD) for r in rows)
    assert rows[-1]["reference"] == rows[0]["reference"] and rows[-1]["ceiling_of"] == rows[0]["workload"]
    for row in rows[:-1]:  # equal cores: D devices against D reference processes, else both pinned to one core
        cores = row["cores"]
        assert cores["jaxsched"] == cores["reference"] == row["devices"]
        assert cores["how"] == (common.FORKED if row["devices"] > 1 else common.PINNED)
    image, blind = rows[0], rows[1]
    assert image["reference"]["median"] != blind["reference"]["median"]
    assert image["jaxsched"]["median"] != blind["jaxsched"]["median"]
    for row in rows:
        assert row["ratio"] == pytest.approx(row["jaxsched"]["median"] / row["reference"]["median"])


def test_a_small_bench_writes_every_deeprm_row_and_image_and_blind_figures_differ(tmp_path, capsys):
    """The slow test above at a smaller size: DeepRM only, batch 4, 5-step calls, one timed window of
    10 ms per side, no vector rows (those run by default in test_vector_rows_check_every_copy_...).
    Without the reference: the same command refuses, exit 2, nothing written."""
    out = tmp_path / "bench_env.json"
    code = cli.main(["env", "--family", "deeprm", "--sizes", str(M), "--loads", str(LOAD), "--batch", str(BATCH),
                     "--steps", "5", "--single-steps", "5", "--repeats", "1", "--window", "0.01", "--check", "2",
                     "--vector-sizes", "none", "--cpu-devices", "1", "--out", str(out)])
    printed = capsys.readouterr().out
    if missing("deeprm"):
        assert code == 2 and not out.exists() and "hardware:" not in printed
        assert f"deeprm: rows cannot run, reference not available ({missing('deeprm')})" in printed
        return
    assert code == 0
    assert "SJF schedules equal job for job on 2 jobsets" in printed
    assert "deeprm jaxsched / reference (medians): M=" in printed
    written = json.loads(out.read_text())
    check_deeprm_rows(written["rows"], BATCH)
    assert written["meta"]["batch"] == BATCH and "vector" not in written["meta"]
    assert out.with_suffix(".md").exists()


def test_a_missing_reference_says_how_to_get_it_and_exits_2_before_timing(tmp_path, capsys):
    """What a user without ``../shared/reference`` sees: for every requested family why it cannot run and
    where its reference comes from (repository, commit), one error line, exit 2, nothing written."""
    out = tmp_path / "bench_env.json"
    code = cli.main(["env", "--quick", "--reference", str(tmp_path / "nowhere"), "--cpu-devices", "1",
                       "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 2 and not out.exists()
    assert "hardware:" not in captured.out  # refused before any jitting or timing
    for family, (folder, repository, commit, _) in REFERENCES.items():
        assert f"{family}: rows cannot run, reference not available ({tmp_path / 'nowhere' / folder}" in captured.out
        target = tmp_path / "nowhere" / folder
        assert f"git clone {repository} {target} && git -C {target} checkout {commit[:12]}; then " in captured.out
    assert "python -m jaxsched.data build huawei-east-1" in captured.out
    assert captured.err.count("\n") == 1
    assert captured.err.startswith("python -m jaxsched.bench: error: bench env: no usable reference for "
                                   "deeprm, compact, vm; nothing was timed")
    with pytest.raises(ReferenceMissing, match="deeprm: .*nowhere/deeprm not found"):
        env_rows.bench_env(["deeprm"], tmp_path / "nowhere", [M], [LOAD], BATCH, 2, 2, 1, 0.01, 1, 0, None)


def test_one_missing_family_is_enough_to_refuse_the_run(tmp_path, monkeypatch, capsys):
    """A requested family that cannot run fails the command although another could; the VM family also
    needs the Huawei trace (absent here: patched), and says how to build it."""
    (tmp_path / "vmagent" / "schedgym").mkdir(parents=True)
    (tmp_path / "vmagent" / "schedgym" / "sched_env.py").write_text("VALUE = 1\n")  # loads; the trace does not
    monkeypatch.setattr("jaxsched.bench.reference.find", lambda name: None)
    missing = env_rows.missing_references(["vm", "deeprm"], tmp_path)
    assert list(missing) == ["vm", "deeprm"]
    assert missing["vm"] == "the dataset huawei-east-1 is not here (python -m jaxsched.data build huawei-east-1)"
    monkeypatch.setattr("jaxsched.bench.reference.find", lambda name: tmp_path / "trace.csv")
    assert list(env_rows.missing_references(["vm", "deeprm"], tmp_path)) == ["deeprm"]
    assert cli.main(["env", "--family", "vm,deeprm", "--reference", str(tmp_path), "--cpu-devices", "1"]) == 2
    out = capsys.readouterr().out
    assert "deeprm: rows cannot run" in out and "vm: rows cannot run" not in out


def test_bad_family_is_a_one_line_error(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["env", "--family", "nope"])
    assert exit_.value.code == 2
    assert "--family must be" in capsys.readouterr().err


def test_the_compact_python_sjf_reads_the_jitted_sjfs_decisions_from_the_compact_state():
    """The compact one-step-per-Python-call row's SJF, read from the adapter's flat compact state, plays
    episodes as long as jaxsched's jitted SJF on the same jobsets; a policy that only moves on does not."""
    variant = build("bracis-1", num_res=2)
    params = variant.sample_params(jax.random.PRNGKey(0), 2)
    expected = make_evaluator(variant.env, variant.heuristic("sjf"))(params, jax.random.PRNGKey(0)).state.time
    adapter = env_rows.AdapterTimer("bracis-1", params, dict(num_res=2), policy=env_rows.sjf_from_compact)
    assert adapter.episode_decisions(2) == np.asarray(expected).reshape(-1).tolist()
    idle = env_rows.AdapterTimer("bracis-1", params, dict(num_res=2), policy=lambda obs, env: env.num_slots)
    assert idle.episode_decisions(2) != adapter.episode_decisions(2)


# ---------------------------------------------------------------------------------------------- VM
PMS, VM_ROWS = 3, 300  # at 3 PMs the first window ends on a create that fits nowhere, the second runs out
HUAWEI = find(env_rows.VM_TRACE.removeprefix("dataset:"))  # None where the trace is not here (a fresh clone)


def test_first_fit_places_every_vm_alike_in_vmagent_and_a_shifted_window_is_refused(tmp_path):
    """VMAgent reads the events file jaxsched writes row for row and places every VM as jaxsched's First-Fit;
    a window shifted by a row is refused. Without VMAgent or the Huawei trace: the events file (of a
    synthetic trace) reads back as the trace jaxsched holds."""
    variant = build("vm-huawei", trace=str(HUAWEI) if HUAWEI else "synthetic", num_pms=PMS, window=VM_ROWS)
    starts = np.asarray(draw_starts(jax.random.PRNGKey(0), variant, 2))
    params = variant.params_at_starts(starts)
    used = int(starts.max()) + VM_ROWS
    write_vmagent_events(variant.trace, used, tmp_path / "events.csv")
    if missing("vm"):
        assert str(DEFAULT_REFERENCE / "vmagent") in missing("vm") or "huawei-east-1" in missing("vm")
        with open(tmp_path / "events.csv", newline="") as f:
            rows = list(csv.reader(f))
        assert ",".join(rows[0]) == "vmid,cpu,memory,time,type" and len(rows) == 1 + used
        for column, name in enumerate(("vm", "cpu", "mem", "time", "kind")):
            written = np.array([float(row[column]) for row in rows[1:]])
            np.testing.assert_allclose(written, np.asarray(getattr(variant.trace, name))[:used], err_msg=name)
        return
    module = load_vmagent(DEFAULT_REFERENCE / "vmagent")
    p = variant.params
    reference = VmReference(module, PMS, tmp_path / "events.csv", p.numa_cpu, p.numa_mem, p.double_mem_above)
    common.check_vmagent_rows(reference, variant.trace, used)
    decisions = common.check_vm_placements(reference, variant, params, starts, VM_ROWS)
    assert len(decisions) == 2 and min(decisions) > 50
    with pytest.raises(SystemExit, match="First-Fit placements differ"):
        common.check_vm_placements(reference, variant, params, starts + 1, VM_ROWS)


def test_vm_rows_carry_every_field_and_the_ratio_of_medians(capsys):
    """Where VMAgent or the Huawei trace is absent, the VM rows refuse before timing anything."""
    if missing("vm"):
        with pytest.raises(ReferenceMissing):  # VMAgent (or pandas) missing, or the trace
            env_rows.bench_vm_env(DEFAULT_REFERENCE / "vmagent", [PMS], 2, 5, 5, 1, 0.01, 1, 0, VM_ROWS)
        assert "First-Fit placements" not in capsys.readouterr().out
        return
    rows = env_rows.bench_vm_env(DEFAULT_REFERENCE / "vmagent", [PMS], 2, 5, 5, 1, 0.01, 1, 0, VM_ROWS)
    assert [r["workload"] for r in rows] == [w.format(batch=2) for w in env_rows.VM_WORKLOADS]
    for row in rows:
        assert (row["family"], row["size_name"], row["size"]) == ("vm", "PMs", PMS)
        for side in ("reference", "jaxsched"):
            assert set(row[side]) == {"min", "median", "max", "runs"} and row[side]["median"] > 0
        assert row["ratio"] == pytest.approx(row["jaxsched"]["median"] / row["reference"]["median"])
    assert f"N={PMS}: First-Fit placements equal on 1 windows" in capsys.readouterr().out


class FakeTimer:
    """A timer that reports a fixed rate: ``steps`` per call of ``window_s`` seconds."""

    def __init__(self, rate: float, devices: int):
        self.rate, self.devices = rate, devices

    def __call__(self, window_s: float):
        return int(self.rate * window_s), window_s


def test_the_ceiling_keeps_the_faster_layout_and_the_image_rows_reference():
    image_row = {"family": "deeprm", "workload": "image, batch 8", "reference": {"median": 100.0}, "devices": 2}
    row = env_rows.ceiling_row(image_row, [FakeTimer(5000.0, 1), FakeTimer(3000.0, 2)], 2, 1.0, "ceiling")
    assert row["devices"] == 1 and row["jaxsched"]["median"] == 5000.0 and row["ratio"] == 50.0
    row = env_rows.ceiling_row(image_row, [FakeTimer(2000.0, 1), FakeTimer(3000.0, 2)], 2, 1.0, "ceiling")
    assert row["devices"] == 2 and row["ratio"] == 30.0 and row["ceiling_of"] == "image, batch 8"


# ------------------------------------------------------------------- vector env, N copies per Python call
def test_the_batched_sjf_reads_the_same_actions_as_the_one_copy_sjf():
    """:func:`vector.sjf_batch_from_image` is :func:`env_rows.sjf_from_flat_image` on every row."""
    params = reference_params()
    vec = vector.vector_env("deeprm", dict(num_slots=M, load=LOAD), params, 1, 3)
    obs = vec.reset(seed=0)[0]
    for _ in range(30):
        actions = vector.sjf_batch_from_image(obs, vec)
        assert actions.tolist() == [env_rows.sjf_from_flat_image(row, vec.env.inner) for row in obs]
        obs = vec.step(actions)[0]


def test_vector_rows_check_every_copy_then_time_both_sides_per_env_step(capsys):
    """The default-run vector rows at a tiny size: decisions checked, then both sides timed per env-step.
    Without the reference: the rows refuse before timing, and jaxsched's side is timed into a row against
    a stand-in for the reference's copies."""
    if missing("deeprm"):
        with refuses("deeprm"):
            vector.vector_rows(["deeprm"], DEFAULT_REFERENCE, [M], [LOAD], [], [2], 1, 0.01, 0, 300)
        vec = vector.vector_env("deeprm", dict(num_slots=M, load=LOAD), reference_params(), 0, 2)
        jaxsched = vector.VectorTimer(vec, vector.sjf_batch_from_image)
        stand_in = vector.SyncReference([lambda: np.ones(3)] * 2)  # two copies' steps, each returning a vector
        rows = [vector._row("deeprm", "M", M, LOAD, 2, stand_in, jaxsched, 1, 0.01)]
        assert jaxsched.seen > 0 and stand_in.seen > 0  # both sides' observations were summed
    else:
        rows = vector.vector_rows(["deeprm"], DEFAULT_REFERENCE, [M], [LOAD], [], [2], 1, 0.01, 0, 300)
        assert f"M={M} load={LOAD} N=2: every copy's SJF equals the jitted SJF" in capsys.readouterr().out
    (row,) = rows
    assert row["workload"] == vector.VECTOR_WORKLOAD.format(copies=2) and row["copies"] == 2 and row["vector"]
    assert row["cores"]["jaxsched"] == row["cores"]["reference"] == 1 and len(row["load_average"]) == 3
    split = row["jaxsched_us_per_call"]  # where a call's time went, every part timed
    assert set(split) == {"policy", "step", "read"} and min(split.values()) > 0
    assert row["ratio"] == pytest.approx(row["jaxsched"]["median"] / row["reference"]["median"])
    assert min(row["reference"]["runs"] + row["jaxsched"]["runs"]) > 0
    page = env_rows.env_markdown(rows, {"load_average": (1.0, 1.0, 1.0)})
    assert "## Vector env, N copies per Python call" in page and "| deeprm | M = 5 | 1.3 | 2 |" in page
    assert "| policy | env step | read |" in page


def test_the_vector_decision_check_refuses_another_policy_another_jobset_and_a_wrong_end():
    """Negative controls: the check that gates the timing fails on a policy that is not SJF, on the jitted
    SJF's decisions of another jobset, and on an episode end one step early."""
    variant = build("deeprm", num_slots=M, load=LOAD)
    params = reference_params()
    sjf = variant.heuristic("sjf")
    expected = vector.heuristic_actions(variant.env, sjf, jax.tree.map(lambda x: x[0], params))
    vec = vector.vector_env("deeprm", dict(num_slots=M, load=LOAD), params, 0, 2)
    vector.check_vector_decisions(vec, vector.sjf_batch_from_image, expected, "the same jobset")
    with pytest.raises(SystemExit, match="vector env decisions differ"):
        vector.check_vector_decisions(vec, lambda obs, v: np.full(v.num_envs, M), expected, "move on")
    other = vector.heuristic_actions(variant.env, sjf, jax.tree.map(lambda x: x[1], params))
    with pytest.raises(SystemExit, match="vector env (decisions differ|episodes end otherwise)"):
        vector.check_vector_decisions(vec, vector.sjf_batch_from_image, other, "jobset 1")
    with pytest.raises(SystemExit, match="episodes end otherwise"):
        vector.check_vector_decisions(vec, vector.sjf_batch_from_image, expected + [M], "one more")


def test_the_vm_vector_check_passes_first_fit_and_refuses_another_policy():
    """The gate of the VM vector rows at a small size, no reference needed (the slow test below runs the rows
    against VMAgent): every copy's first allowed action is the jitted First-Fit's, step for step to the
    episode's end; a policy taking the last allowed action is refused, and so is an episode one step longer."""
    overrides = dict(num_pms=PMS, window=VM_ROWS)
    variant = build("vm-synthetic", **overrides)
    params = variant.params_at_starts(draw_starts(jax.random.PRNGKey(0), variant, 1))
    expected = vector.heuristic_actions(variant.env, first_fit, jax.tree.map(lambda x: x[0], params))
    assert len(expected) > 50 and len(set(expected)) > 1  # a long episode over several PMs
    vec = vector.vector_env("vm-synthetic", overrides, params, 0, 2)
    vector.check_vector_decisions(vec, vector.first_allowed, expected, "First-Fit")

    def last_allowed(obs, vec):
        masks = vec.action_masks()
        return masks.shape[1] - 1 - np.argmax(masks[:, ::-1], axis=1)

    with pytest.raises(SystemExit, match="vector env decisions differ on last allowed"):
        vector.check_vector_decisions(vec, last_allowed, expected, "last allowed")
    with pytest.raises(SystemExit, match="episodes end otherwise"):
        vector.check_vector_decisions(vec, vector.first_allowed, expected + [0], "one more")


@pytest.mark.slow
def test_vm_vector_rows_place_every_copy_first_fit_as_vmagent(capsys):
    if missing("vm"):  # the default run's test above checks the jaxsched side
        pytest.skip(f"the VM reference is not usable here: {missing('vm')}")
    (row,) = vector.vector_rows(["vm"], DEFAULT_REFERENCE, [], [], [PMS], [2], 1, 0.01, 0, VM_ROWS)
    assert (row["family"], row["size"], row["copies"]) == ("vm", PMS, 2) and row["jaxsched"]["median"] > 0
    assert f"PMs={PMS} N=2: every copy's first allowed action equals the jitted First-Fit" in capsys.readouterr().out


def test_vector_sizes_none_and_bad_values(capsys):
    for flags in (["--vector-sizes", "0"], ["--vector-only", "--vector-sizes", "none"], ["--vector-slots", "x"]):
        with pytest.raises(SystemExit) as exit_:
            cli.main(["env", "--family", "deeprm", *flags])
        assert exit_.value.code == 2
    assert "--vector-slots must be comma-separated integers" in capsys.readouterr().err
