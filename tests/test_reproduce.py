"""``python -m jaxsched.reproduce``: its registry covers every item of results/, its commands parse, the
README's index is the generated one, and a quick form runs end to end outside results/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jaxsched import evaluate, pretrained, reproduce, sweep
from jaxsched.core.config import _parse_override
from jaxsched.core.runs import FORMAT_VERSION, stored_exists
from jaxsched.experiment import load_train_config
from jaxsched.reproduction import BY_ID, ITEMS, sweep_cell_name

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"


def _steps(quick: bool):
    for item in ITEMS:
        for step in item.steps:
            yield item.id, step.argv("OUT", "SCRATCH", quick)


def test_every_results_entry_has_an_item_and_every_output_exists():
    covered = {path.split("/")[0] for item in ITEMS for path in item.outputs}
    entries = {p.name for p in RESULTS.iterdir() if p.name != "README.md"}
    assert not entries - covered, f"results/ entries without a registry item: {sorted(entries - covered)}"
    missing = [f"{item.id}: {path}" for item in ITEMS for path in item.outputs if not stored_exists(RESULTS / path)]
    assert not missing, f"registry outputs missing from results/: {missing}"


def test_ids_are_unique_and_needs_name_items():
    assert len(BY_ID) == len(ITEMS)
    for item in ITEMS:
        assert set(item.needs) <= set(BY_ID), item.id
        assert bool(item.inputs) == bool(item.needs), item.id
        assert item.wall_s > 0 and item.headline and item.paper


@pytest.mark.parametrize("quick", [False, True])
def test_every_command_parses(quick):
    """Train commands load their config with the overrides (typed and checked, learner config included);
    evaluate commands parse; every other command names a module of the package."""
    for item_id, argv in _steps(quick):
        module, args = argv[0], argv[1:]
        if module == "copy":
            assert len(args) == 2, item_id
        elif module == "jaxsched.train":
            options = dict(zip(args[0::2], args[1::2]))
            overrides = [a for a in args if "=" in a and not a.startswith("--")]
            if "--resume" in options:
                for text in overrides:
                    _parse_override(text)
                continue
            config = load_train_config(Path(ROOT / options["--config"]), overrides)
            config.algo_config()
            config.bc_config()
        elif module == "jaxsched.evaluate":
            evaluate.build_parser().parse_args(args)
        else:
            path = ROOT / module.replace(".", "/")  # a module, or a package run by its __main__
            assert path.with_suffix(".py").exists() or (path / "__main__.py").exists(), f"{item_id}: no module {module}"
        for token in argv:
            assert "{" not in token, f"{item_id}: unformatted placeholder in {token}"


def test_list_names_every_item(capsys):
    assert reproduce.main(["--list"]) == 0
    listed = capsys.readouterr().out
    for item in ITEMS:
        assert item.id in listed and reproduce.format_wall(item) in listed


def test_unknown_id_is_a_one_line_error(capsys):
    assert reproduce.main(["no_such_result"]) == 2
    assert capsys.readouterr().err.strip() == \
        "error: unknown result id no_such_result (python -m jaxsched.reproduce --list)"


def test_quick_never_writes_into_results(capsys):
    assert reproduce.main(["deeprm_reference_jobsets", "--quick", "--out", str(RESULTS)]) == 2


def test_readme_index_is_the_generated_one():
    text = (RESULTS / "README.md").read_text()
    assert reproduce.current_section(text) == reproduce.readme_section(), \
        "results/README.md's index is stale: python -m jaxsched.reproduce --write-readme"
    assert reproduce.readme_with_section(text) == text  # regenerating changes nothing else


def test_write_readme_keeps_the_hand_written_text():
    text = "# Results\n\nIntro.\n\n## A section\nAnalysis.\n"
    once = reproduce.readme_with_section(text)
    assert once.startswith("# Results\n\nIntro.\n\n" + reproduce.BEGIN) and once.endswith("## A section\nAnalysis.\n")
    assert reproduce.readme_with_section(once) == once


def test_dry_run_runs_missing_needs_first(capsys, tmp_path):
    assert reproduce.main(["deeprm2_fig6_load0.7", "--quick", "--dry-run", "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    assert printed.index("jaxsched.train") < printed.index("jaxsched.evaluate --checkpoint")
    assert not any(tmp_path.iterdir())


def test_results_keeps_no_checkpoints_and_the_shipped_policies_stand_in():
    """No item's outputs are checkpoints (results/ keeps tables, figures and compressed metrics); the DeepRM
    Fig. 4 and Fig. 7 items evaluate the shipped policies, so they need no training run; the items that
    restore other runs name those checkpoints among their inputs (reproduce trains them first)."""
    assert not [f"{item.id}: {path}" for item in ITEMS for path in item.outputs if "checkpoints" in path.split("/")]
    for item_id, name in (("deeprm_fig4_trained_at_0.7", "deeprm-mlp-load0.7"), ("deeprm_fig7_load1.1", "deeprm-mlp-load1.1")):
        item = BY_ID[item_id]
        assert not item.inputs and not item.needs
        assert all(f"--pretrained {name}" in step.command and "--checkpoint" not in step.command for step in item.steps)
        assert name in pretrained.list()
    for item_id in ("deeprm2_fig6_load0.7", "mdp_transfer_3m", "mdp_transfer_3m_separate_critic", "mdp_swf_3m"):
        item = BY_ID[item_id]
        assert item.inputs and all(path.endswith("/checkpoints") for path in item.inputs), item_id
        assert "not committed" in item.note, item_id


def test_an_item_reading_finished_sweep_cells_is_refused_where_their_checkpoints_are_gone(tmp_path, capsys):
    """As in results/: the sweep's cell finished (eval.json) without its checkpoints; remaking the sweep there
    would skip the cell, so the item says to use a fresh --out and runs nothing."""
    cell = tmp_path / "sweep_mdp_compact_3m" / "cells" / BY_ID["mdp_swf_3m"].inputs[0].split("/")[-2]
    cell.mkdir(parents=True)
    (cell / "eval.json").write_text("{}")
    before = sorted(tmp_path.rglob("*"))
    assert reproduce.main(["mdp_swf_3m", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "does not re-train a finished cell" in err and "--out runs/mdp_swf_3m" in err
    assert sorted(tmp_path.rglob("*")) == before
    assert reproduce.main(["mdp_swf_3m", "--dry-run", "--out", str(tmp_path)]) == 0  # a dry run says so and goes on
    assert "note: mdp_swf_3m restores the checkpoints of finished sweep cells" in capsys.readouterr().out


def test_quick_item_runs_into_its_out_and_then_is_skipped(tmp_path, capsys):
    """The reference-jobsets check (SJF and Packer on the reference code's jobsets), tiny: ~20 s on 2 cores."""
    assert reproduce.main(["deeprm_reference_jobsets", "--quick", "--out", str(tmp_path)]) == 0
    summary = json.loads((tmp_path / "deeprm_reference_jobsets.json").read_text())
    assert set(summary["0.7"]) == {"sjf", "packer"} and summary["0.7"]["sjf"]["finished"] > 0
    assert reproduce.main(["deeprm_reference_jobsets", "--quick", "--out", str(tmp_path)]) == 0
    assert "skipped" in capsys.readouterr().out


@pytest.mark.slow
def test_quick_heuristics_table_runs(tmp_path):
    assert reproduce.main(["vm_heuristics_frag_room", "--quick", "--out", str(tmp_path)]) == 0
    table = (tmp_path / "vm_heuristics_frag_room.md").read_text()
    assert "room_fit" in table


def test_a_train_step_into_an_existing_run_resumes_or_is_skipped(tmp_path):
    run = tmp_path / "run"
    (run / "checkpoints" / "5").mkdir(parents=True)
    (run / "config.json").write_text(json.dumps({"format": FORMAT_VERSION, "config": {"iterations": 10}}))
    argv = ["jaxsched.train", "--config", "configs/quickstart.yaml", "--out", str(run), "iterations=10"]
    assert reproduce._train_step(argv, force=False) == [a if a != "--out" else "--resume" for a in argv]
    (run / "eval.json").write_text("{}")
    assert reproduce._train_step(argv, force=False) is None  # finished and evaluated
    assert reproduce._train_step(argv[:-1] + ["iterations=20"], force=False)[3] == "--resume"
    resume = ["jaxsched.train", "--resume", str(run), "iterations=10"]
    assert reproduce._train_step(resume, force=False) is None
    assert reproduce._train_step(argv, force=True) == argv and not run.exists()  # a remake starts afresh


def test_the_registry_names_sweep_cells_as_the_sweep_does():
    overrides = ["iterations=2", "chunk=1", "checkpoint_every=1", "eval_jobsets=2", "algo_options.learning_starts=64",
                 "env_options.num_pms=50", "env_options.warm_start=0.5"]  # long enough to be cut
    values = dict(override.split("=", 1) for override in overrides)
    assert sweep_cell_name(overrides) == sweep.cell_name(0, values)
    assert len(sweep_cell_name(overrides)) == 150
