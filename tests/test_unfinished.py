"""A policy that leaves jobs unfinished is marked and never ranked as beating a heuristic
(``jaxsched.core.unfinished``), whatever its finished-only mean."""

from __future__ import annotations

from jaxsched.core.unfinished import LEGEND, MARK, VM_LEGEND, beats, finished_cell, leaves_unfinished, legend, marked, with_counts
from jaxsched.studies.grid_tables import markdown as grid_markdown
from jaxsched.studies.vm_table import markdown as vm_markdown
from jaxsched.studies.vm_table import seed_summary as vm_seed_summary
from jaxsched.sweep import _seeds_beating

SJF = {"mean_slowdown": 2.87, "jobs": 100, "finished": 100}
GREEDY = {"mean_slowdown": 2.31, "jobs": 100, "finished": 83}  # the quick start's "win" with 17 left over
SAMPLED = {"mean_slowdown": 2.50, "jobs": 100, "finished": 100}


def test_a_lower_mean_over_fewer_jobs_does_not_beat_the_heuristic():
    assert not beats(GREEDY, SJF, "mean_slowdown")
    assert beats(SAMPLED, SJF, "mean_slowdown")
    assert not beats(SJF, SAMPLED, "mean_slowdown")
    assert not beats(SJF, SJF, "mean_slowdown")  # a tie is no win


def test_higher_is_better_metrics_and_vm_episodes():
    ended = {"scheduled_length": 90.0, "episodes": 4, "episodes_ended": 4}
    cut = {"scheduled_length": 95.0, "episodes": 4, "episodes_ended": 3}
    base = {"scheduled_length": 80.0, "episodes": 4, "episodes_ended": 4}
    assert beats(ended, base, "scheduled_length", higher_is_better=True)
    assert not beats(cut, base, "scheduled_length", higher_is_better=True)
    assert finished_cell(cut) == "3/4 episodes ended" and leaves_unfinished(cut)


def test_marks_counts_and_legend():
    assert marked("trained-s0", GREEDY) == f"trained-s0 {MARK}" and marked("sjf", SJF) == "sjf"
    assert finished_cell(GREEDY) == "83/100 jobs" and finished_cell({"mean_slowdown": 1.0}) == ""
    assert legend([SJF, SAMPLED]) == [] and legend([SJF, GREEDY]) == [LEGEND]
    assert "VM" not in LEGEND and "step cap" not in LEGEND  # job tables speak of jobs only
    assert with_counts("slowdown 2.310", GREEDY).endswith(f"(83/100 jobs)  {MARK}")
    assert with_counts("slowdown 2.870  finished 100/100", SJF) == "slowdown 2.870  finished 100/100"


def test_vm_and_grid_tables_mark_rows_with_unfinished_work():
    vm = {"num_pms": 5, "warm_start": 0.0, "scheduled_length": 90.0, "scheduled_length_std": 1.0,
          "cpu_allocation": 0.8, "income": 10.0, "window_exhausted": 0.0, "episodes": 4}
    text = vm_markdown([{**vm, "policy": "best_fit", "episodes_ended": 4},
                        {**vm, "policy": "trained", "episodes_ended": 3}])
    assert "| best_fit | 90.0" in text and "| trained * | 90.0" in text and "| 3 / 4 |" in text
    assert text.rstrip().endswith(VM_LEGEND) and LEGEND not in text  # no jobs in a VM table
    grid = {"finished": 99.5, "jobs": 100}  # a mean over two seeds, one of them short of a job
    text = grid_markdown("rigid", {"fifo": {"finished": 100, "jobs": 100}, "sarsa": grid})
    assert "| fifo |" in text and "| sarsa * |" in text and "| 99.5 / 100 |" in text and LEGEND in text
    assert LEGEND not in grid_markdown("rigid", {"fifo": {"finished": 100, "jobs": 100}})


def test_sweep_counts_no_seed_with_unfinished_jobs_as_beating():
    rows = [{"final_mean_slowdown": 2.31, "final_finished": 83, "final_jobs": 100},
            {"final_mean_slowdown": 2.50, "final_finished": 100, "final_jobs": 100},
            {"final_mean_slowdown": 3.00, "final_finished": 100, "final_jobs": 100}]
    assert _seeds_beating(rows, "final_", "mean_slowdown", 2.87, False, jobs=True) == 1
    assert _seeds_beating(rows, "final_", "mean_slowdown", 2.87, False, jobs=False) == 2  # a family without jobs
    vm = [{"final_scheduled_length": 95.0, "final_episodes_ended": 3, "final_episodes": 4},
          {"final_scheduled_length": 90.0, "final_episodes_ended": 4, "final_episodes": 4}]
    assert _seeds_beating(vm, "final_", "scheduled_length", 80.0, True, jobs=False) == 1


def test_vm_seed_summary_counts_no_seed_with_cut_episodes_above_a_heuristic():
    def row(policy, length, ended=4):
        return {"num_pms": 5, "warm_start": 0.5, "policy": policy, "scheduled_length": length, "episodes": 4,
                "episodes_ended": ended, "scheduled_length_std": 1.0, "cpu_allocation": 0.9, "income": 1.0,
                "window_exhausted": 0.0, "leaves_unfinished": ended < 4}

    rows = [row("room_fit", 100.0), row("trained_seed0", 110.0), row("trained_seed1", 120.0, ended=3),
            row("trained_seed2", 90.0), row("trained_seed3", 105.0)]
    [summary] = vm_seed_summary(rows)
    assert summary["seed_lengths"] == [110.0, 120.0, 90.0, 105.0]
    assert summary["seeds_above"] == {"room_fit": 2}  # seed 1's longer mean has an episode cut: no win
    assert summary["trained"]["iqm"] == (110.0 + 105.0) / 2  # the middle two of four
    assert "2/4 above" in vm_markdown(rows)
