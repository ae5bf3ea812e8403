"""The MDP-study tables from hand-made results (no training, no compilation)."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from jaxsched.core.runs import FORMAT_VERSION
from jaxsched.core.unfinished import LEGEND
from jaxsched.errors import UsageError
from jaxsched.core import stats
from jaxsched.studies import mdp_budget_figures, mdp_transfer
from jaxsched.studies.mdp_study import fig4_markdown, read_metrics


def test_fig4_markdown_marks_unfinished_jobs_and_seed_spread():
    seed = lambda sd, unfinished: {"mean_slowdown": sd, "unfinished": unfinished, "dropped": 0,
                                   "finished": 10 - unfinished, "jobs": 10}
    results = {"jobsets": 2, "seed": 7, "scenarios": {"bracis-1": {
        "sjf": {"mean_slowdown": 2.0, "unfinished": 0, "dropped": 0, "finished": 10, "jobs": 10},
        "ppo-compact": {"seed_mean_slowdown": 2.5, "seed_std_slowdown": 0.5, "seeds": [seed(2.0, 0), seed(3.0, 4)]}}},
        "transfer": {"jobsets": 2, "trained_on": {"bracis-1": {"bracis-1": {
            "seed_mean_slowdown": 2.0, "seed_std_slowdown": 0.0, "seeds": [seed(2.0, 0)]}}}}}
    text = fig4_markdown(results)
    assert "| sjf | 2.000 (10/10) |" in text
    assert "| ppo-compact | 2.500 ± 0.500 (16/20)* |" in text
    assert "| bracis-1 | 2.000 ± 0.000 (10/10) |" in text
    assert LEGEND in text


def test_read_metrics_counts_agent_steps_per_seed_and_excludes_the_compiling_chunk(tmp_path):
    rows = [{"iteration": i, "seed": s, "decisions": 100.0, "mean_slowdown": 2.0 + s, "wall_s": w}
            for i, w in ((1, 5.0), (2, 5.0), (3, 1.0), (4, 1.0)) for s in (0, 1)]
    with open(tmp_path / "metrics.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    m = read_metrics(tmp_path)
    np.testing.assert_array_equal(m["steps"], [100, 200, 300, 400])
    assert m["agent_steps_per_seed"] == 400 and m["train_wall_s"] == 12.0
    assert m["s_per_million_steps_all_seeds"] == pytest.approx(12.0 / 800 * 1e6)
    assert m["s_per_million_steps_after_compile"] == pytest.approx(2.0 / 400 * 1e6)
    np.testing.assert_array_equal(m["slowdown"][:, 0], [2.0, 3.0])


def _transfer_results(transferred: list[float], specialised: list[float] | None, unfinished: int = 0) -> dict:
    seeds = lambda values, lost: {f"s{i}": {"mean_slowdown": v, "finished": 10 - (lost if i == 0 else 0), "jobs": 10}
                                  for i, v in enumerate(values)}
    row = {"transferred": seeds(transferred, unfinished), "sjf": {"mean_slowdown": 2.0, "finished": 10, "jobs": 10},
           "packer": {"mean_slowdown": 3.0, "finished": 10, "jobs": 10},
           "random": {"mean_slowdown": 9.0, "finished": 10, "jobs": 10}}
    if specialised is not None:
        row["specialised"] = seeds(specialised, 0)
    for agent in ("transferred", "specialised"):
        if agent in row:
            row[f"{agent}_over_seeds"] = mdp_transfer.over_seeds(row[agent])
    return {"trained_on": "bracis-7", "env_options": {}, "run": "r", "seeds": list(range(len(transferred))),
            "policy": "sampled", "stepping": "time", "jobsets": 2, "seed": 1, "specialised": ["s"] if specialised else [],
            "scenarios": {"bracis-1": row}}


def test_transfer_table_says_whether_the_transferred_agent_beats_the_specialised_one():
    apart = mdp_transfer.markdown(_transfer_results([1.0, 1.1, 1.2, 1.1, 1.0], [2.0, 2.1, 2.2, 2.1, 2.0]))
    assert "| bracis-1 | 1.067 [" in apart and apart.rstrip().endswith("| yes |")
    worse = mdp_transfer.markdown(_transfer_results([2.0, 2.1, 2.2, 2.1, 2.0], [1.0, 1.1, 1.2, 1.1, 1.0]))
    assert worse.rstrip().endswith("| no |")
    close = mdp_transfer.markdown(_transfer_results([1.0, 2.0, 1.5, 1.2, 1.8], [1.1, 1.9, 1.4, 1.3, 1.7]))
    assert close.rstrip().endswith("| CIs overlap |")
    lost = mdp_transfer.markdown(_transfer_results([1.0, 1.1, 1.2, 1.1, 1.0], [2.0, 2.1, 2.2, 2.1, 2.0], unfinished=3))
    assert "(47/50)*" in lost and "(unfinished jobs)" in lost and LEGEND in lost
    alone = mdp_transfer.markdown(_transfer_results([1.0, 1.1], None))
    assert "specialised" not in alone.split("\n")[2]


def test_transfer_refuses_a_sweep_without_finished_cells_and_a_scenario_trained_twice(tmp_path):
    (tmp_path / "empty" / "cells" / "c0").mkdir(parents=True)
    with pytest.raises(UsageError, match="no finished cell"):
        mdp_transfer.cells_by_scenario([tmp_path / "empty"])
    for sweep in ("a", "b"):
        cell = tmp_path / sweep / "cells" / "c0"
        cell.mkdir(parents=True)
        (cell / "eval.json").write_text("{}")
        (cell / "config.json").write_text(json.dumps({"format": FORMAT_VERSION, "config": {"env": "bracis-1"}}))
    with pytest.raises(UsageError, match="bracis-1 is trained in both"):
        mdp_transfer.cells_by_scenario([tmp_path / "a", tmp_path / "b"])


def _sweep(root, name: str, cells: dict, sjf: float = 2.0, packer: float = 3.0):
    """A hand-made sweep folder: ``{env: [(sampled slowdown, finished of 10), ...]}``, one cell per scenario."""
    for index, (env, seeds) in enumerate(cells.items()):
        cell = root / name / "cells" / f"cell{index:03d}"
        cell.mkdir(parents=True)
        config = {"env": env, "seeds": list(range(len(seeds)))}
        (cell / "config.json").write_text(json.dumps({"format": FORMAT_VERSION, "config": config}))
        policies = {"sjf": {"mean_slowdown": sjf}, "packer": {"mean_slowdown": packer},
                    "fcfs": {"mean_slowdown": 4.0}}
        for seed, (value, finished) in enumerate(seeds):
            policies[f"trained-s{seed}-sampled"] = {"mean_slowdown": value, "finished": finished, "jobs": 10}
        (cell / "eval.json").write_text(json.dumps({"jobsets": 2, "seed": 7, "policies": policies}))
        rows = [{"iteration": i + 1, "seed": seed, "decisions": 100.0, "mean_slowdown": 3.0 - i / 60 + 0.1 * seed,
                 "wall_s": 1.0} for i in range(60) for seed in range(len(seeds))]
        with open(cell / "metrics.csv", "w", newline="") as f:
            writer = csv.DictWriter(f, list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    return root / name


def test_budget_figures_pool_seeds_per_scenario_and_relative_to_sjf_over_scenarios(tmp_path):
    a = _sweep(tmp_path, "a", {"bracis-2": [(1.0, 10), (1.2, 10), (1.1, 10), (1.3, 10)],
                               "bracis-10": [(1.5, 10), (1.9, 4), (1.6, 10), (1.4, 10)]})
    b = _sweep(tmp_path, "b", {"bracis-2": [(2.5, 10), (2.6, 10), (3.1, 10)]})
    result = mdp_budget_figures.study({"good": [a], "poor": [b]}, tmp_path / "out")
    good = result["agents"]["good"]
    assert list(good["scenarios"]) == ["bracis-2", "bracis-10"]  # natural order
    assert good["scenarios"]["bracis-2"]["iqm"] == pytest.approx(stats.iqm([1.0, 1.2, 1.1, 1.3]))
    relative = {"bracis-2": np.array([1.0, 1.2, 1.1, 1.3]) / 2.0, "bracis-10": np.array([1.5, 1.9, 1.6, 1.4]) / 2.0}
    assert good["relative_to_sjf"]["iqm"] == pytest.approx(stats.iqm(relative))
    low, high = stats.stratified_bootstrap_ci(relative, stats.iqm, reps=mdp_budget_figures.REPS)
    assert (good["relative_to_sjf"]["ci_low"], good["relative_to_sjf"]["ci_high"]) == pytest.approx((low, high))
    assert result["common_scenarios"] == ["bracis-2"]
    assert good["relative_to_sjf_common"]["iqm"] == pytest.approx(stats.iqm(relative["bracis-2"]))
    # the seed at 1.9 finished 4 of 10 jobs: below SJF's 2.0 but not counted as beating it
    assert (good["seeds_beating_sjf"], good["seeds"], good["finished"], good["jobs"]) == (7, 8, 74, 80)
    assert result["agents"]["poor"]["seeds_beating_packer"] == 2
    text = (tmp_path / "out" / "fig4.md").read_text()
    assert "| bracis-2 | **1.150 [" in text and "| bracis-10 | 1.550 [" in text and " (4) * |" in text
    assert "| poor | 1 | 1.367 [" in text and LEGEND in text
    assert (tmp_path / "out" / "fig4.png").stat().st_size > 0
    assert json.loads((tmp_path / "out" / "fig4.json").read_text())["heuristics"]["bracis-2"]["sjf"] == 2.0
    # Fig. 3: per seed s the curve is 3 - i / 60 + 0.1 s over 60 iterations; the IQM of 4 seeds keeps s = 1, 2
    curve = json.loads((tmp_path / "out" / "fig3.json").read_text())["curves"]["good"]["bracis-10"]
    assert curve["first"]["iqm"] == pytest.approx(3.0 - 29.5 / 60 + 0.15)  # all 60 iterations (fewer than 100)
    assert curve["last_iterations"] == 12 and curve["last"]["iqm"] == pytest.approx(3.0 - 53.5 / 60 + 0.15)
    assert curve["steps"] == [2500.0, 5000.0]  # every 25th iteration, 100 agent steps each
    assert curve["iqm"][1] == pytest.approx(np.mean([3.0 - (i - 1) / 60 for i in range(1, 51)]) + 0.15)
    assert "| bracis-10 | 2.66 -> 2.26 [" in (tmp_path / "out" / "fig3.md").read_text()


def test_budget_figures_refuse_other_held_out_jobsets_and_a_scenario_trained_twice(tmp_path):
    a = _sweep(tmp_path, "a", {"bracis-1": [(1.0, 10)]})
    other = _sweep(tmp_path, "other", {"bracis-1": [(1.0, 10)]}, sjf=2.5)
    with pytest.raises(UsageError, match="sjf is 2.0 in .* but 2.5 .* not the same held-out jobsets"):
        mdp_budget_figures.study({"x": [a], "y": [other]}, tmp_path / "out")
    with pytest.raises(UsageError, match="bracis-1 is trained in both"):
        mdp_budget_figures.study({"x": [a, other]}, tmp_path / "out")
    with pytest.raises(UsageError, match="expected LABEL=SWEEP_DIR"):
        mdp_budget_figures.parse_agents(["nolabel"])
    with pytest.raises(UsageError, match="not a sweep folder"):
        mdp_budget_figures.parse_agents([f"x={tmp_path / 'missing'}"])
