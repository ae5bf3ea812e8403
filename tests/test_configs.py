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
