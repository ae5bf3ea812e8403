"""Seeds trained one call each (``seed_batching: loop``, CNN policies' default) learn what the vmapped
seeds learn: same metrics and parameters up to float32 reduction order, in the same [length, seeds] layout."""

from __future__ import annotations

import jax
import numpy as np
import pytest

from jaxsched.experiment import Experiment, train_config
from tests.test_layout import ENVS, SMALL


def two_seeds(seed_batching: str, network: str = "mlp") -> Experiment:
    return Experiment.from_config(train_config({
        "env": "deeprm", "env_options": ENVS["deeprm"], "algo": "reinforce",
        "algo_options": dict(SMALL["reinforce"], network=network), "seeds": [0, 1], "seed_batching": seed_batching}))


def test_seeds_in_turn_match_vmapped_seeds():
    results = {}
    for mode in ("vmap", "loop"):
        experiment = two_seeds(mode)
        assert experiment.seeds_in_turn == (mode == "loop")
        states, _ = experiment.initial_states(log=lambda *a: None)
        results[mode] = experiment.make_chunk(2)(states)
    (vmap_states, vmap_metrics), (loop_states, loop_metrics) = results["vmap"], results["loop"]
    assert set(vmap_metrics) == set(loop_metrics)
    for key, value in vmap_metrics.items():
        assert loop_metrics[key].shape == value.shape == (2, 2), key  # [length, seeds]
        np.testing.assert_allclose(loop_metrics[key], value, rtol=1e-4, atol=1e-5, err_msg=key)
    for a, b in zip(jax.tree.leaves(loop_states), jax.tree.leaves(vmap_states)):
        assert a.shape == b.shape
        np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-4, atol=1e-5)
    assert not np.allclose(loop_metrics["loss"][:, 0], loop_metrics["loss"][:, 1])  # the seeds differ


def test_auto_loops_for_cnn_policies_only():
    assert two_seeds("auto", network="cnn").seeds_in_turn
    assert not two_seeds("auto", network="mlp").seeds_in_turn


def test_bad_seed_batching_is_a_clear_error():
    with pytest.raises(ValueError, match="seed_batching must be one of"):
        train_config({"seed_batching": "parallel"})
