"""``--pretrained NAME`` in ``evaluate`` and ``studies.withholding``: a shipped policy gives what
``--checkpoint RUN --seed-index K`` of the run and seed it was exported from gives (results/ keeps no
checkpoints, so the registry's DeepRM Fig. 4 and Fig. 7 items evaluate the shipped policies).

On a small setting (2 jobsets at the run's load 0.7): the shipped DeepRM MLP's rows equal the numbers its
checkpoint gave (recorded below from ``--checkpoint results/deeprm_bc_load0.7 --seed-index 0``), and, where
the checkpoint is in this checkout, the two summaries are the same bytes. Both evaluations share one
compilation (a learner's policy reaches the evaluator as an argument)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jaxsched import evaluate, pretrained
from jaxsched.studies import withholding

ROOT = Path(__file__).resolve().parents[1]
NAME, RUN = "deeprm-mlp-load0.7", ROOT / "results" / "deeprm_bc_load0.7"
SMALL = ["--policies", "checkpoint,checkpoint-sampled", "--jobsets", "2", "--seed", "3"]
FIELDS = ("mean_slowdown", "mean_bounded_slowdown", "mean_completion_time", "jobs", "finished", "unfinished", "dropped")
# `evaluate --checkpoint results/deeprm_bc_load0.7 --seed-index 0 ${SMALL}`, before results/ dropped its checkpoints
RECORDED = {
    "checkpoint": {"mean_slowdown": 1.2988505747126438, "mean_bounded_slowdown": 1.2988505747126438,
                   "mean_completion_time": 2.793103448275862, "jobs": 34, "finished": 29, "unfinished": 5,
                   "dropped": 0},
    "checkpoint-sampled": {"mean_slowdown": 2.1141725921137686, "mean_bounded_slowdown": 2.1141725921137686,
                           "mean_completion_time": 9.0, "jobs": 34, "finished": 34, "unfinished": 0, "dropped": 0},
}


@pytest.fixture(scope="module")
def shipped(tmp_path_factory) -> Path:
    """The summary of ``evaluate --pretrained NAME`` on the small setting."""
    summary = tmp_path_factory.mktemp("pretrained") / "pretrained.json"
    assert evaluate.main(["--pretrained", NAME, *SMALL, "--summary", str(summary)]) == 0
    return summary


def test_the_shipped_policy_gives_its_checkpoints_numbers(shipped):
    rows = json.loads(shipped.read_text())
    assert list(rows) == ["checkpoint", "checkpoint-sampled"]
    assert {name: {field: row[field] for field in FIELDS} for name, row in rows.items()} == RECORDED
    source = pretrained.record(NAME)
    instances = rows["checkpoint"]["instances"]  # the run's training instances, as --checkpoint records them
    assert instances["disjoint"] and instances["training"]["seed_streams"] == source["config"]["seeds"]


def test_pretrained_and_its_checkpoint_give_the_same_bytes(shipped, tmp_path):
    if not (RUN / "checkpoints").is_dir():
        pytest.skip(f"{RUN.relative_to(ROOT)}/checkpoints is not in this checkout (results/ keeps none); the "
                    "shipped policy was checked against the numbers recorded from it")
    summary = tmp_path / "checkpoint.json"
    assert evaluate.main(["--checkpoint", str(RUN), "--seed-index", "0", *SMALL, "--summary", str(summary)]) == 0
    assert summary.read_text() == shipped.read_text()


@pytest.mark.parametrize("argv, message", [
    (["--pretrained", "nope"], "no pretrained policy 'nope'"),
    (["--pretrained", NAME, "--seed-index", "0"], "--seed-index K applies to --checkpoint DIR"),
    (["--pretrained", NAME, "--env", "vm"], "differs from the pretrained policy's env deeprm"),
])
def test_evaluate_pretrained_mistakes_are_one_line(argv, message, capsys):
    assert evaluate.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err


def test_pretrained_and_checkpoint_exclude_each_other(capsys, tmp_path):
    for main in (evaluate.main, withholding.main):
        with pytest.raises(SystemExit) as exit_:
            main(["--pretrained", NAME, "--checkpoint", str(tmp_path)])
        assert exit_.value.code == 2 and "not allowed with argument" in capsys.readouterr().err
    assert withholding.main(["--pretrained", "nope", "--out", str(tmp_path / "out")]) == 2
    assert "no pretrained policy 'nope'" in capsys.readouterr().err and not (tmp_path / "out").exists()
