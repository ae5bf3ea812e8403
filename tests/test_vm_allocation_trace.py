"""The allocation-over-time study (the CVD-RL paper's Fig. 9): its per-decision series agree with the
episode metrics that vm_table reports for the same start, and the command writes what it says."""

from __future__ import annotations

import json

import jax
import numpy as np
import pytest

from jaxsched.envs.vm.episodes import draw_starts, evaluate_policies, params_at
from jaxsched.registry import build
from jaxsched.studies import vm_allocation_trace
from jaxsched.studies.vm_allocation_trace import allocation_trace, summary

# an expansion scenario small enough to compile fast: 3 PMs in service, +1 whenever a create fits nowhere
OPTIONS = dict(num_pms=6, warm_start=0.5, initial_pms=3, pms_per_expansion=1, window=400)


@pytest.fixture(scope="module")
def variant():
    return build("vm-frag", **OPTIONS)


@pytest.mark.parametrize("policy", ["first_fit", "room_fit"])
def test_series_agree_with_the_episode_metrics(variant, policy):
    start = draw_starts(jax.random.PRNGKey(3), variant, 1, held_out=True)
    key = jax.random.PRNGKey(4)
    table = evaluate_policies(variant, {policy: variant.heuristic(policy)}, start, key)[policy]
    trace = jax.device_get(jax.jit(lambda p, k: allocation_trace(variant.env, p, variant.heuristic(policy), k,
                                                                 variant.window))(
        params_at(variant, start[0]), jax.random.split(key, 1)[0]))
    result = summary(trace)
    assert result["scheduled_length"] == int(table["scheduled_length"][0]) > 0
    assert result["allocation_time_average"] == pytest.approx(float(table["cpu_allocation_mean"][0]), rel=1e-5)
    assert result["allocation"][-1] == pytest.approx(float(table["cpu_allocation"][0]), abs=1e-5)
    assert result["final_active_pms"] == int(table["active_pms"][0])
    active = np.asarray(result["active_pms"])
    assert np.all(np.diff(active) >= 0) and active[0] >= OPTIONS["initial_pms"]
    # PMs joined at the end of exactly the listed decisions (numbered from 1)
    joined = [t for t in range(2, len(active) + 1) if active[t - 1] > active[t - 2]]
    assert result["expansions_at"] == joined and result["first_expansion_at"] == (joined[0] if joined else None)
    # past the episode's end nothing is recorded; the last decision (a create that fits nowhere) is unplaced
    decisions = int(trace.decisions)
    assert not trace.placed[decisions:].any() and not trace.allocation[decisions:].any()
    assert int(trace.placed.sum()) <= decisions <= variant.window


def test_command_writes_the_series_and_the_plot(tmp_path, capsys):
    argv = ["--num-pms", "6", "--warm-start", "0.5", "--option", "initial_pms=3", "--option", "pms_per_expansion=1",
            "--window", "400", "--policies", "first_fit,room_fit", "--out", str(tmp_path)]
    assert vm_allocation_trace.main(argv) == 0
    saved = json.loads((tmp_path / "trace.json").read_text())
    assert set(saved["policies"]) == {"first_fit", "room_fit"}
    for result in saved["policies"].values():
        assert len(result["allocation"]) == len(result["active_pms"]) == result["scheduled_length"]
    assert (tmp_path / "trace.png").stat().st_size > 0
    assert "first expansion at decision" in capsys.readouterr().out


def test_command_rejects_an_unknown_heuristic(tmp_path, capsys):
    assert vm_allocation_trace.main(["--num-pms", "6", "--policies", "no_such_fit", "--out", str(tmp_path)]) == 2
    assert "no_such_fit" in capsys.readouterr().err
