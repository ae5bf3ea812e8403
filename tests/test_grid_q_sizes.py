"""grid_q_sizes: the share of decisions at which a trained elastic ESN's Q is monotone in the pool size."""

from pathlib import Path

import jax
import numpy as np
import pytest

from jaxsched.algos.sarsa import make_q
from jaxsched.errors import UsageError
from jaxsched.experiment import Experiment, load_train_config
from jaxsched.studies.grid_q_sizes import q_over_sizes, size_profile

TINY = ["env_options.num_jobs=60", "env_options.exclude=5", "seeds=[0]"]


def test_size_profile_counts_monotone_rows_and_argmax_at_an_end_over_rows_with_three_sizes():
    rows = [np.array([1.0, 2.0, 3.0]),        # increasing: monotone, argmax last
            np.array([3.0, 1.0, 2.0]),        # not monotone, argmax first
            np.array([1.0, 3.0, 2.0, 0.0]),   # not monotone, argmax inside
            np.array([5.0, 1.0])]             # two sizes: not counted
    profile = size_profile(rows)
    assert profile == {"decisions": 3, "monotone": pytest.approx(1 / 3), "argmax_at_end": pytest.approx(2 / 3)}
    assert size_profile([np.array([1.0])])["decisions"] == 0


def test_q_over_sizes_reads_the_dispatched_jobs_q_over_the_allowed_sizes():
    overrides = [*TINY, "env_options.pool_sizes=[2, 3, 4, 5]", "env_options.initial_pool=3"]
    experiment = Experiment.from_config(load_train_config(Path("configs/grid_elastic_esn.yaml"), overrides))
    params = make_q(experiment.variant.env, experiment.algo).init(jax.random.PRNGKey(0))
    params = {**params, "theta": jax.random.normal(jax.random.PRNGKey(1), params["theta"].shape)}
    rows = q_over_sizes(experiment, experiment.variant.params, 12)(params)
    assert len(rows) == 12 and all(1 <= row.size <= 4 and np.all(np.isfinite(row)) for row in rows)
    rigid_config = load_train_config(Path("configs/grid_sarsa_esn.yaml"), [*TINY, "env_options.num_cores=3"])
    rigid = Experiment.from_config(rigid_config)
    with pytest.raises(UsageError, match="not elastic"):
        q_over_sizes(rigid, rigid.variant.params, 1)
