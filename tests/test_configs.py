"""Every shipped config parses, validates and builds its experiment (no training)."""

from pathlib import Path

import pytest

from jaxsched.experiment import TrainConfig, load_train_config
from jaxsched.registry import build
from jaxsched.workloads.datasets import DATASET_PREFIX, find

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = sorted((ROOT / "configs").glob("*.yaml"))


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.stem)
def test_config_is_valid(path):
    config = load_train_config(path)
    config.algo_config()
    config.bc_config()
    options = dict(config.env_options)
    trace = options.get("trace")
    if config.env == "vm-huawei":  # no default trace: the config names the dataset
        assert trace == "dataset:huawei-east-1"
    if trace not in (None, "synthetic"):  # configs name datasets, never paths beside the project
        assert trace.startswith(DATASET_PREFIX), f"{path.name}: trace={trace}; name a dataset instead"
        if find(trace[len(DATASET_PREFIX):]) is None:
            pytest.skip(f"{path.name} needs the dataset {trace} (python -m jaxsched.data fetch)")
    variant = build(config.env, **options)
    assert variant.env.num_actions >= 2
    if config.baselines is not None:
        variant.check_baselines(config.baselines)


def test_the_readme_configs_exist():
    names = {p.stem for p in CONFIGS}
    assert {"quickstart", "deeprm_slowdown", "deeprm_completion", "deeprm2_cnn_bc", "deeprm_off"} <= names


def test_exponent_floats_without_a_dot_are_numbers():
    """PyYAML reads ``1e-4`` (no dot) as a string; a float field still takes it as a number."""
    from jaxsched.algos.reinforce import ReinforceConfig
    from jaxsched.core.config import ConfigError, build_config

    assert build_config(ReinforceConfig, {"lr": "3e-4"}, ["value_lr=1e-4"]).value_lr == 1e-4
    assert build_config(ReinforceConfig, {"lr": "3e-4"}).lr == 3e-4
    with pytest.raises(ConfigError, match="expected a number"):
        build_config(ReinforceConfig, {}, ["lr=fast"])


def test_eval_jobsets_zero_skips_the_evaluation_and_negative_is_refused():
    assert TrainConfig(eval_jobsets=0).eval_jobsets == 0
    with pytest.raises(ValueError, match="eval_jobsets"):
        TrainConfig(eval_jobsets=-1)
