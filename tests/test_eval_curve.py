"""The held-out learning curve (eval_every -> eval_curve.csv): its rows, its resume, its agreement with
eval.json, and the learning-curve plot drawn from it."""

import csv
import json

import jax
import numpy as np
import pytest

from jaxsched.core.config import build_config
from jaxsched.core.eval_curve import HeldOutCurve, read_eval_curve, read_training_curve
from jaxsched.core.plotting import moving_average, run_learning_curve
from jaxsched.errors import ConfigError
from jaxsched.experiment import Experiment, TrainConfig, train
from jaxsched.train import main

TINY = dict(
    env="deeprm",
    env_options=dict(num_slots=3, horizon=8, max_job_len=6, capacity=5, max_job_size=5, backlog_size=8,
                     simu_len=8, load=0.8),
    algo_options=dict(num_jobsets=2, num_rollouts=3, episode_len=30),
    chunk=2, checkpoint_every=2, eval_jobsets=3, seeds=[0, 1], baselines=["sjf", "random"], eval_every=2,
)


def tiny(**overrides) -> TrainConfig:
    return build_config(TrainConfig, {**TINY, **overrides})


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_heuristic_rows_equal_the_final_evaluations_numbers():
    """The curve's jitted numbers against the float64 tables of eval.json, on the same instances and key."""
    experiment = Experiment.from_config(tiny())
    variant = experiment.variant
    curve = HeldOutCurve(variant, None, [0], 3, 99991)
    (row,) = curve.heuristic_rows(["sjf"])
    batched, _ = variant.held_out(3, 99991)
    table = variant.evaluate({"sjf": variant.heuristic("sjf")}, batched, jax.random.PRNGKey(99992))["sjf"]
    summary = variant.summarize(table)
    assert (row["iteration"], row["seed"], row["policy"]) == (0, "", "sjf")
    assert row["mean_slowdown"] == pytest.approx(summary["mean_slowdown"], rel=1e-6)
    assert (row["finished_jobs"], row["dropped_jobs"]) == (summary["finished"], summary["dropped"])


def test_plot_from_the_csv_files(tmp_path):
    """The learning curve from a metrics.csv with a NaN iteration and an eval_curve.csv whose two
    heuristics coincide."""
    with open(tmp_path / "metrics.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["iteration", "seed", "mean_slowdown"])
        writer.writerows([[i, s, "nan" if i == 3 else 3 - i / 40 + s / 10] for i in range(1, 41) for s in (0, 1)])
    with open(tmp_path / "eval_curve.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["iteration", "seed", "policy", "mean_slowdown"])
        writer.writerows([[0, "", "sjf", 2.5], [0, "", "packer", 2.5]]
                         + [[i, s, "sampled", 3 - i / 50 + s / 5] for i in (0, 20, 40) for s in (0, 1)])
    iterations, values, heuristics = read_eval_curve(tmp_path / "eval_curve.csv", "mean_slowdown")
    assert iterations.tolist() == [0, 20, 40] and values.shape == (2, 3) and heuristics == {"sjf": 2.5, "packer": 2.5}
    training = read_training_curve(tmp_path / "metrics.csv", "mean_slowdown")
    assert training[1].shape == (2, 40)
    png = tmp_path / "learning_curve.png"
    run_learning_curve(png, training, (iterations, values, heuristics, "3 held-out instances"), "mean_slowdown",
                       "deeprm at load 0.8, reinforce, run x", higher_is_better=False)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000


def test_moving_average_skips_nan():
    assert moving_average(np.array([1.0, np.nan, 3.0, 5.0]), 2).tolist() == [1.0, 1.0, 3.0, 4.0]


# The full-size run (2 seeds, 4 iterations, a chunk of 2) is slow; its small counterpart (1 seed, 2
# iterations, a chunk of 1, so that a resume can start at iteration 1) runs by default, with the same checks.
FULL = dict(iterations=4)
SMALL = dict(iterations=2, chunk=1, checkpoint_every=1, eval_every=1, eval_jobsets=2, seeds=[0], baselines=["sjf"])


def run_curve(out, sizes: dict):
    train(tiny(**sizes), out, log=lambda *_: None)
    return out


@pytest.fixture(scope="module")
def curve_run(tmp_path_factory):
    return run_curve(tmp_path_factory.mktemp("curve") / "run", FULL)


@pytest.fixture(scope="module")
def small_curve_run(tmp_path_factory):
    return run_curve(tmp_path_factory.mktemp("small_curve") / "run", SMALL)


def check_rows(run, sizes):
    config = tiny(**sizes)
    rows = read_rows(run / "eval_curve.csv")
    evaluated = range(0, config.iterations + 1, config.eval_every)
    assert [(r["iteration"], r["seed"], r["policy"]) for r in rows] == [
        *[("0", "", b) for b in config.baselines],
        *[(str(i), str(s), "sampled") for i in evaluated for s in config.seeds]]
    assert {"mean_slowdown", "finished_jobs", "dropped_jobs", "mean_return"} <= set(rows[0])
    assert all(int(r["finished_jobs"]) > 0 for r in rows)


def check_matches_the_final_evaluation(run, sizes):
    """Same instances and key as eval.json: the baselines' and the last sampled policies' slowdowns
    agree (float32 inside jit against float64 tables)."""
    config = tiny(**sizes)
    rows = read_rows(run / "eval_curve.csv")
    policies = json.loads((run / "eval.json").read_text())["policies"]
    expected = {**{b: policies[b] for b in config.baselines},
                **{f"{config.iterations}-{s}": policies[f"trained-s{s}-sampled"] for s in config.seeds}}
    compared = set()
    for r in rows:
        name = r["policy"] if r["policy"] != "sampled" else f"{r['iteration']}-{r['seed']}"
        if name in expected:
            assert float(r["mean_slowdown"]) == pytest.approx(expected[name]["mean_slowdown"], rel=1e-5)
            assert int(r["finished_jobs"]) == expected[name]["finished"]
            compared.add(name)
    assert compared == set(expected)  # every baseline and every seed's last row was compared


def check_resume_continues_the_curve(run, sizes, out):
    """Trained to a checkpoint before the end, evaluated past it, then killed: the resumed curve is
    the uninterrupted one."""
    config = tiny(**sizes)
    run_curve(out, {**sizes, "iterations": config.checkpoint_every})
    with open(out / "eval_curve.csv", "a", newline="") as f:  # evaluated past the checkpoint, then killed
        f.write(f"{config.checkpoint_every + 1},0,sampled" + ",0" * (len(read_rows(out / "eval_curve.csv")[0]) - 3)
                + "\n")
    assert main(["--resume", str(out), f"iterations={config.iterations}"]) == 0
    assert read_rows(out / "eval_curve.csv") == read_rows(run / "eval_curve.csv")


def check_learning_curve_png(run):
    png = run / "learning_curve.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000


@pytest.mark.slow  # a tiny training run: about 40-100 s on 2 busy cores
def test_rows_at_every_eval_iteration(curve_run):
    check_rows(curve_run, FULL)


@pytest.mark.slow  # a tiny training run: about 40-100 s on 2 busy cores
def test_matches_the_final_evaluation(curve_run):
    check_matches_the_final_evaluation(curve_run, FULL)


@pytest.mark.slow  # a tiny training run: about 40-100 s on 2 busy cores
def test_resume_continues_the_curve(curve_run, tmp_path):
    check_resume_continues_the_curve(curve_run, FULL, tmp_path / "run")


@pytest.mark.slow  # a tiny training run: about 40-100 s on 2 busy cores
def test_learning_curve_png(curve_run):
    check_learning_curve_png(curve_run)


def test_small_run_rows_match_the_final_evaluation_and_draw_the_curve(small_curve_run):
    check_rows(small_curve_run, SMALL)
    check_matches_the_final_evaluation(small_curve_run, SMALL)
    check_learning_curve_png(small_curve_run)


def test_small_run_resume_continues_the_curve(small_curve_run, tmp_path):
    check_resume_continues_the_curve(small_curve_run, SMALL, tmp_path / "run")


@pytest.mark.parametrize("values, message", [
    (dict(eval_every=3), "multiple of chunk"),
    (dict(eval_every=-2), "multiple of chunk"),
    (dict(eval_jobsets=0), "eval_jobsets must be > 0"),
    (dict(logger="wandb"), "logger must be one of csv, tensorboard"),
])
def test_config_errors(values, message):
    with pytest.raises(ConfigError, match=message):
        tiny(**values)
