"""The HPC priority rules (baselines/hpc.py) on a hand-computed queue of four visible jobs.

The queue (slot: job index, wait w s, requested r s, processors n, submit s s, run time s):
  slot 0: job 3, w 100, r 100, n 1, s 1000, run 50
  slot 1: job 1, w 200, r 100, n 2, s  900, run 90
  slot 2: job 2, w  50, r 100, n 8, s  950, run 20
  slot 3: job 0, w 300, r 600, n 4, s  800, run 600
Expected orders, worked by hand (lower score first, ties to the older job = smaller job index):
  FCFS          job order 0, 1, 2, 3                          -> slots 3, 1, 2, 0
  SJF requested r = 100, 100, 100, 600; ties by job index      -> slots 1 (job 1), 2 (job 2), 0 (job 3), 3
  SJF actual    run 50, 90, 20, 600                            -> slots 2, 0, 1, 3
  WFP3 -(w/r)^3 n: slot0 -1, slot1 -(2^3)2 = -16, slot2 -(1/8)8 = -1, slot3 -(1/8)4 = -0.5
                -> slot 1, then the tie -1: slot 2 (job 2) before slot 0 (job 3), then slot 3
  UNICEP -w/(log2(n) r): slot0 n = 1 -> -inf, slot1 -200/100 = -2, slot2 -50/300 = -0.167,
                slot3 -300/1200 = -0.25                        -> slots 0, 1, 3, 2
  F1 log10(r) n + 870 log10(s): slot0 2 + 870*3 = 2612, slot1 4 + 870*2.9542 = 2574.2,
                slot2 16 + 870*2.9777 = 2606.6, slot3 4*2.7782 + 870*2.9031 = 2536.8 -> slots 3, 1, 2, 0
"""

import jax.numpy as jnp
import numpy as np
import pytest

from baselines.hpc import HPC_HEURISTICS, SCORES, make_hpc_heuristic, priority_rank
from jaxsched.envs.deeprm.trace_windows import TraceObservation

EXPECTED_ORDER = {"sjf-requested": [1, 2, 0, 3], "sjf-actual": [2, 0, 1, 3], "wfp3": [1, 2, 0, 3],
                  "unicep": [0, 1, 3, 2], "f1": [3, 1, 2, 0]}
MOVE_ON = 4


def queue(fits_now=(True, True, True, True), free_now=16, free_later=16, later_from=2, durations=(1, 1, 1, 6)):
    """The module docstring's queue; the cluster has ``free_now`` processors free until step
    ``later_from`` and ``free_later`` from then on (what EASY's reservation reads)."""
    rows = 12
    profile = np.where(np.arange(rows + 1) < later_from, free_now, free_later)[:, None]
    return TraceObservation(
        features=jnp.zeros((1,)), action_mask=jnp.ones((5,), bool), fits_now=jnp.array(fits_now),
        slot_job=jnp.array([3, 1, 2, 0], jnp.int32), slot_duration=jnp.array(durations, jnp.int32),
        slot_demand=jnp.array([[1], [2], [8], [4]], jnp.int32), free=jnp.asarray(profile[:4], jnp.int32),
        free_profile=jnp.asarray(profile, jnp.int32),
        slot_wait_s=jnp.array([100.0, 200.0, 50.0, 300.0]), slot_requested_s=jnp.array([100.0, 100.0, 100.0, 600.0]),
        slot_submit_s=jnp.array([1000.0, 900.0, 950.0, 800.0]), slot_run_s=jnp.array([50.0, 90.0, 20.0, 600.0]))


@pytest.mark.parametrize("name", sorted(EXPECTED_ORDER))
def test_each_rule_orders_the_queue_as_computed_by_hand(name):
    rank = np.asarray(priority_rank(queue(), SCORES[name](queue())))
    assert list(np.argsort(rank)) == EXPECTED_ORDER[name]


def test_fcfs_and_the_strict_rules_start_the_head_when_it_fits():
    obs = queue()
    assert int(make_hpc_heuristic("fcfs")(None, obs)) == 3  # job 0, the oldest
    for name, order in EXPECTED_ORDER.items():
        assert int(HPC_HEURISTICS[name](None, obs)) == order[0], name


def test_a_strict_rule_waits_when_its_head_does_not_fit():
    """WFP3's head is slot 1 (2 processors); with only 1 free nothing starts, though slot 0 fits."""
    obs = queue(fits_now=(True, False, False, False), free_now=1)
    assert int(HPC_HEURISTICS["wfp3"](None, obs)) == MOVE_ON


def test_easy_backfills_in_priority_order_only_where_the_head_is_not_delayed():
    """WFP3 + EASY: the head (slot 1, 2 processors, 1 step) cannot start with 1 free processor; its
    reservation is at step 2, when processors free up. Slot 0 (1 processor) fits now: with a 1-step
    length it ends before the reservation and backfills; with 5 steps it still runs at step 2 and is
    allowed only if the free processors there cover the head's 2 besides its own 1."""
    short = queue(fits_now=(True, False, False, False), free_now=1, free_later=16)
    assert int(HPC_HEURISTICS["wfp3+easy"](None, short)) == 0
    long_spare = queue(fits_now=(True, False, False, False), free_now=1, free_later=3, durations=(5, 1, 1, 6))
    assert int(HPC_HEURISTICS["wfp3+easy"](None, long_spare)) == 0  # 3 - 1 = 2 left for the head
    long_tight = queue(fits_now=(True, False, False, False), free_now=1, free_later=2, durations=(5, 1, 1, 6))
    assert int(HPC_HEURISTICS["wfp3+easy"](None, long_tight)) == MOVE_ON  # 2 - 1 = 1 < 2: it would delay the head


def test_empty_slots_rank_last_and_an_empty_queue_moves_on():
    obs = queue().replace(slot_job=jnp.array([3, -1, 2, -1], jnp.int32))
    assert list(np.asarray(priority_rank(obs, SCORES["f1"](obs)))) == [1, -1, 0, -1]  # F1: slot 2 before slot 0
    empty = queue().replace(slot_job=jnp.full((4,), -1, jnp.int32), fits_now=jnp.zeros((4,), bool))
    assert int(HPC_HEURISTICS["f1+easy"](None, empty)) == MOVE_ON


def test_unknown_names_and_observations_without_trace_facts_are_refused():
    with pytest.raises(ValueError, match="unknown policy 'wfp4'"):
        make_hpc_heuristic("wfp4")
    assert make_hpc_heuristic("sjf") is not None  # the DeepRM family's rules stay available
    plain = queue().replace(slot_wait_s=None)
    with pytest.raises(ValueError, match="trace env's observation"):
        HPC_HEURISTICS["wfp3"](None, plain)
