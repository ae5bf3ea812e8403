"""logger: tensorboard: the event file, read back record by record, holds the scalars of metrics.csv
and eval_curve.csv; without tensorboardX the key is a one-line config error."""

import csv
import struct

import pytest

from jaxsched.core import loggers
from jaxsched.core.config import build_config
from jaxsched.core.loggers import RunLog
from jaxsched.errors import ConfigError
from jaxsched.experiment import TrainConfig, train

tensorboardX = pytest.importorskip("tensorboardX")
from tensorboardX.proto import event_pb2  # noqa: E402

TINY = dict(
    env="deeprm",
    env_options=dict(num_slots=3, horizon=8, max_job_len=6, capacity=5, max_job_size=5, backlog_size=8,
                     simu_len=8, load=0.8),
    algo_options=dict(num_jobsets=2, num_rollouts=3, episode_len=30),
    iterations=2, chunk=1, checkpoint_every=2, eval_jobsets=2, eval_every=2, seeds=[0, 1], baselines=["sjf"],
    logger="tensorboard",
)


def read_scalars(directory) -> dict[tuple[str, int], float]:
    """``{(tag, step): value}`` of every event file under ``directory`` (TFRecord framing: length,
    its CRC, the serialized Event, its CRC)."""
    scalars = {}
    for path in sorted(directory.glob("events.out.tfevents.*")):
        data = path.read_bytes()
        offset = 0
        while offset < len(data):
            (length,) = struct.unpack("<Q", data[offset:offset + 8])
            event = event_pb2.Event.FromString(data[offset + 12:offset + 12 + length])
            offset += 12 + length + 4
            for value in event.summary.value:
                scalars[(value.tag, event.step)] = value.simple_value
    return scalars


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_run_log_writes_csv_and_scalars(tmp_path):
    """RunLog alone (no training): rows to both files, NaN skipped, a resume purges the replayed steps."""
    log = RunLog(tmp_path, "tensorboard", None)
    log.training([{"iteration": 1, "seed": 0, "loss": 0.5, "steps_per_s": 9.0},
                  {"iteration": 2, "seed": 0, "loss": float("nan"), "steps_per_s": 9.0}])
    log.held_out([{"iteration": 0, "seed": "", "policy": "sjf", "mean_slowdown": 2.5}])
    log.close()
    assert read_scalars(tmp_path / "tensorboard") == {("train/loss/seed0", 1): 0.5,
                                                       ("held_out/mean_slowdown/sjf", 0): 2.5}
    assert [r["loss"] for r in read_rows(tmp_path / "metrics.csv")] == ["0.5", "nan"]
    assert read_rows(tmp_path / "eval_curve.csv")[0]["policy"] == "sjf"


# The default run is one seed, evaluated every iteration (tests/test_eval_curve.py's small run, with the
# same programs: XLA's compilation cache shares them); the slow one two seeds, evaluated every other.
SMALL = dict(seeds=[0], checkpoint_every=1, eval_every=1)


def check_event_file(out, config: dict):
    train(build_config(TrainConfig, config), out, log=lambda *_: None)
    scalars = read_scalars(out / "tensorboard")
    expected = {}
    for r in read_rows(out / "metrics.csv"):
        for key in ("mean_return", "mean_slowdown", "loss", "entropy"):
            expected[(f"train/{key}/seed{r['seed']}", int(r["iteration"]))] = float(r[key])
    for r in read_rows(out / "eval_curve.csv"):
        who = f"seed{r['seed']}" if r["seed"] else r["policy"]
        expected[(f"held_out/mean_slowdown/{who}", int(r["iteration"]))] = float(r["mean_slowdown"])
    seeds, iterations = len(config["seeds"]), config["iterations"]
    evaluations = iterations // config["eval_every"] + 1  # iteration 0 included
    assert len(expected) == 4 * iterations * seeds + len(config["baselines"]) + evaluations * seeds
    for key, value in expected.items():
        assert scalars[key] == pytest.approx(value, rel=1e-6), key  # float32 in the event file
    assert ("train/steps_per_s/seed0", 1) not in scalars  # timings are not scalars of the run


@pytest.mark.slow
def test_event_file_holds_the_csv_scalars(tmp_path):
    check_event_file(tmp_path / "run", TINY)  # 4 x 2 iterations x 2 seeds; sjf and the seeds at 0 and 2


def test_event_file_holds_the_csv_scalars_of_a_small_run(tmp_path):
    check_event_file(tmp_path / "run", {**TINY, **SMALL})  # 4 x 2 iterations; sjf and the seed at 0, 1, 2


def test_missing_tensorboardx_is_a_config_error(monkeypatch):
    monkeypatch.setattr(loggers, "tensorboardX", None)
    with pytest.raises(ConfigError, match=r"needs tensorboardX.*jaxsched\[tensorboard\]"):
        build_config(TrainConfig, TINY)
