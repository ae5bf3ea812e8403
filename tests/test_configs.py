"""Every shipped config parses, validates and builds its experiment (no training)."""

from pathlib import Path

import pytest

from jaxsched.config import load_config
from jaxsched.train import TrainConfig

CONFIGS = sorted((Path(__file__).resolve().parents[1] / "configs").glob("*.yaml"))


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.stem)
def test_config_is_valid(path):
    config = load_config(TrainConfig, path)
    config.algo_config()
    config.bc_config()
    from jaxsched.registry import HUAWEI_TRACE, VM_VARIANTS, build

    trace = {**VM_VARIANTS.get(config.env, {}), **config.env_options}.get("trace")
    if trace == HUAWEI_TRACE and not Path(trace).exists():
        pytest.skip(f"{path.name} needs {trace} (absent here)")
    variant = build(config.env, **config.env_options)
    assert variant.env.num_actions >= 2


def test_the_readme_configs_exist():
    names = {p.stem for p in CONFIGS}
    assert {"quickstart", "deeprm_slowdown", "deeprm_completion", "deeprm2_cnn_bc", "deeprm_off"} <= names


def test_exponent_floats_without_a_dot_are_numbers():
    """PyYAML reads ``1e-4`` (no dot) as a string; a float field still takes it as a number."""
    from jaxsched.algos.reinforce import ReinforceConfig
    from jaxsched.config import ConfigError, build_config

    assert build_config(ReinforceConfig, {"lr": "3e-4"}, ["value_lr=1e-4"]).value_lr == 1e-4
    assert build_config(ReinforceConfig, {"lr": "3e-4"}).lr == 3e-4
    with pytest.raises(ConfigError, match="expected a number"):
        build_config(ReinforceConfig, {}, ["lr=fast"])


def test_eval_jobsets_zero_skips_the_evaluation_and_negative_is_refused():
    assert TrainConfig(eval_jobsets=0).eval_jobsets == 0
    with pytest.raises(ValueError, match="eval_jobsets"):
        TrainConfig(eval_jobsets=-1)
