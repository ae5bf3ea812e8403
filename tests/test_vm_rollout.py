"""One exact step of policy improvement over a VM heuristic (jaxsched.studies.vm_rollout)."""

from __future__ import annotations

import jax
import numpy as np
import pytest

from jaxsched.envs.vm.episodes import draw_starts
from jaxsched.registry import build
from jaxsched.studies.vm_rollout import compare


@pytest.mark.parametrize("cvd_k", [None, (1, 1, 1)], ids=["every action", "CVD-RL candidates"])
def test_improved_policy_is_never_worse_and_departs_only_to_gain(cvd_k):
    """The env is deterministic, so rollout values are exact and the policy improvement theorem
    holds start by start (also over a candidate set that holds the heuristic's own action): never
    below the heuristic; where it never leaves it, equal to it."""
    variant = build("vm-frag", num_pms=3, window=120)
    starts = draw_starts(jax.random.PRNGKey(0), variant, 8)
    result = compare(variant, "best_fit", starts, cvd_k)
    assert np.all(result["scheduled_length"] >= result["base"])
    same = result["departures"] == 0
    np.testing.assert_array_equal(result["scheduled_length"][same], result["base"][same])
    assert result["departures"].sum() > 0 and np.any(result["scheduled_length"] > result["base"])
