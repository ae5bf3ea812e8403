"""``python -m jaxsched.studies.checkpoint_map`` on a small results/ tree of its own: a run a registry command
restores is kept (older steps listed apart), one a notebook restores too, one nothing reads is safe to
delete (the DeepRM run whose shipped policy the registry now evaluates among them), and a one-seed run
that a shipped policy holds is marked droppable once its readers move."""

from __future__ import annotations

import json
from pathlib import Path

from jaxsched.studies import checkpoint_map


def _run(folder: Path, steps: dict[int, int], seeds=(0,), metrics: int = 10) -> None:
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({"format": 1, "config": {"seeds": list(seeds)}}))
    (folder / "metrics.csv").write_bytes(b"x" * metrics)
    for step, size in steps.items():
        (folder / "checkpoints" / str(step)).mkdir(parents=True)
        (folder / "checkpoints" / str(step) / "data").write_bytes(b"\0" * size)


def test_the_map_tells_read_from_unread(tmp_path):
    results = tmp_path / "results"
    # the registry's deeprm_fig7_load1.1 runs `withholding --pretrained deeprm-mlp-load1.1`, the policy shipped
    # from this run: nothing reads its checkpoints any more
    _run(results / "deeprm_bc_load1.1", {450: 30, 500: 40})
    # a notebook (below) restores this one, whose seed 0 ships too: droppable once it loads the shipped policy
    _run(results / "deeprm_bc_load0.7", {700: 20})
    # deeprm2_fig6_load0.7 evaluates `--checkpoint {scratch}/deeprm2_fig3/cnn_bc_l0.7` and names its checkpoints
    _run(results / "deeprm2_fig6_load0.7" / "scratch" / "deeprm2_fig3" / "cnn_bc_l0.7", {190: 9}, seeds=(0, 1, 2))
    # mdp_transfer_3m restores every cell of this sweep (all seeds): kept, older steps apart
    _run(results / "sweep_mdp_sparse_reduced_3m_scenarios" / "cells" / "cell000__x", {1250: 5, 1875: 7}, seeds=(0, 1))
    _run(results / "unread_sweep" / "cells" / "cell000", {10: 11, 20: 13}, metrics=100)
    _run(results / "notebook_run", {5: 3})
    _run(results / "no_checkpoints", {})
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "n.ipynb").write_text('"evaluate.main([\\"--checkpoint\\",\\n",\n'
                                                    '"  \\"results/notebook_run\\"])"\n'
                                                    '"withholding.main([\\"--checkpoint\\", \\"results/deeprm_bc_load0.7\\"])"\n')
    runs = {run.path: run for run in checkpoint_map.build_map(results)}

    fig7 = runs["results/deeprm_bc_load1.1"]
    assert (fig7.checkpoint_bytes, fig7.older_step_bytes, fig7.metrics_bytes) == (70, 30, 10)
    assert fig7.registry == fig7.required == fig7.mentions == []
    assert fig7.pretrained == ["deeprm-mlp-load1.1 (seed 0)"] and fig7.status == "safe to delete now"
    fig4 = runs["results/deeprm_bc_load0.7"]
    assert fig4.registry == fig4.required == [] and fig4.mentions == ["notebooks/n.ipynb:3"]
    assert fig4.pretrained == ["deeprm-mlp-load0.7 (seed 0)"] and fig4.coverable
    assert fig4.status == "read; droppable once its readers load jaxsched.pretrained"
    fig6 = runs["results/deeprm2_fig6_load0.7/scratch/deeprm2_fig3/cnn_bc_l0.7"]
    assert fig6.registry == ["deeprm2_fig6_load0.7 (evaluate)"] and fig6.required == ["deeprm2_fig6_load0.7"]
    assert fig6.status == "read: keep the newest step"
    sweep = runs["results/sweep_mdp_sparse_reduced_3m_scenarios/cells/cell000__x"]
    assert sweep.registry == ["mdp_transfer_3m (studies.mdp_transfer)"] and sweep.status == "read: keep the newest step"
    assert runs["results/notebook_run"].mentions == ["notebooks/n.ipynb:2"]
    assert runs["results/unread_sweep/cells/cell000"].status == "safe to delete now"
    assert runs["results/no_checkpoints"].status == "no checkpoints"

    text = checkpoint_map.markdown(list(runs.values()), results, top=3)
    assert text.count("\n| results/") == 3  # the top 3 rows, largest first
    assert text.index("| results/unread_sweep") < text.index("| results/deeprm_bc_load1.1")
    safe = text.split("safe to delete now:")[1].split("Droppable")[0]
    assert "results/unread_sweep/cells/cell000/checkpoints (0.0 MB)" in safe and "notebook_run" not in safe
    assert "results/deeprm_bc_load1.1/checkpoints" in safe
    droppable = text.split("Droppable")[1].split("Older steps")[0]
    assert "results/deeprm_bc_load0.7/checkpoints" in droppable and "deeprm_bc_load1.1" not in droppable
    assert "cell000__x/checkpoints/{1250}" in text.split("Older steps")[1]


def test_a_missing_results_folder_is_one_line(tmp_path, capsys):
    assert checkpoint_map.main(["--results", str(tmp_path / "nope")]) == 2
    assert capsys.readouterr().err.strip() == f"error: {tmp_path / 'nope'} is not a folder"
