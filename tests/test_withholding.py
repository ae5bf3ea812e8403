"""DeepRM Figure 7's withholding statistics on hand-checkable policies (tiny env: 2 slots, 3 units)."""

import jax
import jax.numpy as jnp

from baselines import make_heuristic
from conftest import TINY, jobset
from jaxsched.envs.deeprm.types import stack, with_jobsets
from jaxsched.studies.withholding import withholding_stats


def _jobsets():
    # t=1: a 1-step job of 1 unit; t=2: a 2-step job of 2 units (each fits at once on an empty cluster)
    one = jobset([1, 2], [1, 2], [[1, 1], [2, 2]], max_jobs=4)
    two = jobset([1, 1, 3], [3, 1, 2], [[3, 3], [1, 1], [1, 1]], max_jobs=4)
    return stack([one, two])


def test_work_conserving_heuristic_never_withholds(kit):
    k = kit(**TINY)
    stats = withholding_stats(k.env, with_jobsets(k.params(None, simu_len=4), _jobsets()), make_heuristic("sjf"),
                              jax.random.PRNGKey(0), 40)
    assert stats["withholding_move_ons"] == 0
    assert stats["move_ons"] > 0 and stats["unfinished_episodes"] == 0
    assert stats["slowdown_by_job_length"][1] == 1.0  # short jobs start at once under SJF


def test_a_policy_that_never_schedules_withholds_every_fitting_job(kit):
    """Always 'move on', cut at clock 6: decisions at t = 0..5 per jobset. At t = 0 nothing has arrived;
    from t = 1 every slotted job fits the empty cluster. Jobset one holds {1} at t = 1 then {1, 2};
    jobset two holds {3, 1} from t = 1 (its third job waits in the backlog, unseen)."""
    k = kit(**TINY)
    void = lambda key, obs: jnp.int32(k.env.num_slots)
    stats = withholding_stats(k.env, with_jobsets(k.params(None, simu_len=4, max_time=6), _jobsets()), void,
                              jax.random.PRNGKey(0), 40)
    assert (stats["decisions"], stats["move_ons"], stats["withholding_move_ons"]) == (12, 12, 10)
    hist = stats["withheld_job_length_histogram"]
    assert (hist[1], hist[2], hist[3], hist[4]) == (10, 4, 5, 0)
    assert stats["unfinished_episodes"] == 2 and stats["slowdown_by_job_length"] == {}
    assert stats["finished"] == 0 < stats["jobs"]  # its (NaN) mean covers no job: shown as 0/jobs
