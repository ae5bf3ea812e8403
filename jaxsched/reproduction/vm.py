"""The VM placement items (CVD-RL, SchedRL), bench_vm among them.
"""

from __future__ import annotations

import functools
from typing import Callable, Mapping

from jaxsched.reproduction.items import (VM_QUICK, Item, Step, copy, resume, rounded, sweep_cell_name, train,
                                         with_prose)
from jaxsched.reproduction.numbers import (Number, NumberError, at, change, column, computed, csv_rows, json_value,
                                       seed_interval, seeds, sweep)


def distill_step(name: str, options: str) -> Step:
    """One run of the planner's distillation (vm-frag, trained at 10 PMs on 32 training starts, 5 seeds,
    measured on vm_planner's 50 held-out starts at 10 and 20 PMs) into ``{out}/vm_distill/name.json``."""
    common = "jaxsched.studies.vm_distill --env vm-frag --held-out-from 7000"
    return Step(f"{common} --num-pms 10,20 --train-starts 32 --seeds 5 {options} --out {{out}}/vm_distill/{name}.json",
                quick_command=f"{common} --num-pms 3 --train-starts 1 --held-out-label-starts 1 --eval-starts 2 "
                              f"--seeds 1 --steps 20 {options} --out {{out}}/vm_distill/{name}.json")


VM_CVD = "configs/vm_cvd_frag.yaml"
VM_DQN = "configs/vm_dqn_frag.yaml"
VM_IMPACT = "configs/vm_cvd_frag_impact.yaml"
VM_TABLE_QUICK = "--num-pms 5 --warm-start 0 --starts 2"


def _vm_runs(folder: str, config: str, runs: dict[str, str], common: str = "") -> tuple[Step, ...]:
    return tuple(train(f"{{out}}/{folder}/{name}", config, *f"{common} {extra}".split(), quick=VM_QUICK)
                 for name, extra in runs.items())


def _vm_outputs(folder: str, names) -> tuple[str, ...]:
    return tuple(f"{folder}/{name}/eval.json" for name in names)


def _curves(name: str, window: int, **runs: str) -> Step:
    labels = " ".join(f"{label}={{out}}/{run}" for label, run in runs.items())
    return Step(f"jaxsched.studies.compare_runs --out {{out}}/{name} --baseline pm_best_fit --window {window} {labels}")


CANDIDATE_SETS_50PM = {  # run name: CVD-RL's top-k candidate set (k_best_fit + k_pm_best_fit + k_room_fit)
    "k3": "algo_options.k_best_fit=1 algo_options.k_pm_best_fit=1",
    "k5_paper": "algo_options.k_room_fit=0",  # the paper's 2 + 3, without our room_fit candidate
    "k7": "algo_options.k_best_fit=3 algo_options.k_pm_best_fit=3",
    "k10": "algo_options.k_best_fit=5 algo_options.k_pm_best_fit=4",
    "bf_top5": "algo_options.k_best_fit=5 algo_options.k_pm_best_fit=0 algo_options.k_room_fit=0",
    "internal_top5": "algo_options.k_best_fit=0 algo_options.k_pm_best_fit=5 algo_options.k_room_fit=0",
    "room_fit_top5": "algo_options.k_best_fit=0 algo_options.k_pm_best_fit=0 algo_options.k_room_fit=5"}
K_OVER_SEEDS = {name: CANDIDATE_SETS_50PM[name] for name in ("k3", "k5_paper")}  # Fig. 12's two key sets, more seeds


# ---- VM placement numbers: eval.json (``policies``), vm_table files (``rows``: PMs x warm start x policy) and
# the impact sweeps' summary.csv (scheduled length: higher is better) --------------------------------------------

_PICK = {"min": min, "max": max, "low": min, "high": max}
ABLATION_5PM = tuple((f"{run}/eval.json", "trained-s0") for run in (
    *(f"vm_cvd_frag_ablation/{name}" for name in ("full_k5_3000it", "no_top_k", "no_decomposition", "no_lookahead",
                                                  "k3", "k7", "k10")), "vm_cvd_frag_5pm_gamma1"))
CVD_WS05 = "vm_cvd_frag_impact_50pm_ws0.5"  # the CVD-RL run at the paper's Table 2 setting (50 PMs, warm start 0.5)
SWEEP_WS05 = "sweep_vm_cvd_frag_impact_50pm_ws0.5"  # the same over seeds


def vs_ws05_seed0(file: str, fmt: str = "+.1f", name: str = SWEEP_WS05) -> Number:
    """A run's greedy held-out scheduled length (eval.json ``file``, seed 0) relative to seed 0 of the 3-seed sweep
    at the same setting (``name``: the sweep's summary folder), in percent."""
    seed0 = seeds(f"{name}/summary.csv", "final_scheduled_length", "value", ".17g", seed=0)
    return computed(file, lambda root: 100 * (float(json_value(root, file, "policies/trained-s0/scheduled_length")) /
                                              float(seed0.text(root)) - 1), fmt)


def vs_ws05_iqm(file: str, fmt: str = "+.1f", name: str = SWEEP_WS05) -> Number:
    """A run's greedy held-out scheduled length (eval.json ``file``, seed 0) relative to the 3-seed sweep's IQM
    (``name``: the sweep's summary folder)."""
    iqm = sweep(name, "scheduled_length", "", fmt=".17g")
    return computed(file, lambda root: 100 * (float(json_value(root, file, "policies/trained-s0/scheduled_length")) /
                                              float(iqm.text(root)) - 1), fmt)


K_SEED_RUNS = {run: ((f"vm_cvd_frag_impact_k_50pm_ws0.5/{run}/eval.json", "trained-s0"),  # Fig. 12's two sets
                     *((f"vm_cvd_frag_impact_k_50pm_ws0.5_seeds/{run}/eval.json", f"trained-s{seed}")
                       for seed in (1, 2)))
               for run in ("k3", "k5_paper")}
IMPACT_LEARNED = tuple((f"vm_cvd_frag_impact_variants/{run}/eval.json", "trained-s0")
                       for run in ("imp10", "imp3", "imp10_g75", "imp10_g5"))


def _timing_50pm(root) -> float:
    """vm_cvd_frag_50pm_timing's seconds per iteration over iterations 101-300 (the first chunks compile)."""
    rows = csv_rows(root, "vm_cvd_frag_50pm_timing/metrics.csv")
    late = [float(r["wall_s"]) for r in rows if int(r["iteration"]) > 100]
    return sum(late) / len(late)


def vm_eval(file: str, policy: str = "trained-s0", fmt: str = ".1f") -> Number:
    """A policy's held-out scheduled length in a VM run's eval.json ``file``."""
    return at(file, f"policies/{policy}/scheduled_length", fmt)


def vm_evals(runs: tuple[tuple[str, str], ...], stat: str, fmt: str = ".1f") -> Number:
    """``stat`` (min / low, max / high or mean) of the held-out scheduled lengths of ``runs`` ((eval.json, policy)
    pairs)."""
    pick = {**_PICK, "mean": lambda values: sum(values) / len(values)}[stat]
    return computed(runs[0][0], lambda root: pick([float(json_value(root, file, f"policies/{policy}/scheduled_length"))
                                                   for file, policy in runs]), fmt)


def _vm_cells(root, file: str, num_pms: tuple[int, ...] = ()) -> dict:
    """{(PMs, warm start): {policy: scheduled length}} of the vm_table file ``file`` (``num_pms``: only these)."""
    cells: dict = {}
    for row in json_value(root, file, "rows"):
        if not num_pms or row["num_pms"] in num_pms:
            cells.setdefault((row["num_pms"], row["warm_start"]), {})[row["policy"]] = float(row["scheduled_length"])
    if not cells:
        raise NumberError(f"{file}: no rows at {num_pms} PMs")
    return cells


def vm_table_gain(file: str, policy: str, over: str, stat: str, num_pms: tuple[int, ...] = (), fmt: str = "+.0f",
                  below: bool = False) -> Number:
    """``stat`` (min or max) over the cells of the vm_table ``file`` (``num_pms``: only these) of ``policy``'s
    scheduled length relative to ``over``'s, in percent (``below``: how far below, ``100 (1 - policy / over)``)."""
    def value(root) -> float:
        gains = [100 * ((1 - c[policy] / c[over]) if below else (c[policy] / c[over] - 1))
                 for c in _vm_cells(root, file, num_pms).values()]
        return _PICK[stat](gains)
    return computed(file, value, fmt)


def vm_table_cell(file: str, num_pms: int, warm_start: float, policy: str = "trained", fmt: str = ".1f") -> Number:
    """One cell's scheduled length in the vm_table ``file``."""
    def value(root) -> float:
        try:
            return _vm_cells(root, file, (num_pms,))[(num_pms, warm_start)][policy]
        except KeyError:
            raise NumberError(f"{file}: no {policy} at {num_pms} PMs, warm start {warm_start}") from None
    return computed(file, value, fmt)


def vm_table_below(file: str, policy: str, than: str) -> Number:
    """``k/n``: of the vm_table ``file``'s cells, how many place fewer VMs with ``policy`` than with ``than``."""
    def read(root) -> str:
        cells = _vm_cells(root, file).values()
        return f"{sum(c[policy] < c[than] for c in cells)}/{len(cells)}"
    return Number(file, read)


def vm_seed_gain(files: tuple[str, ...], over: str, stat: str, fmt: str = "+.0f") -> Number:
    """``stat`` (min or max) over the cells of vm_table ``--all-seeds`` files (``seed_summary``) of the trained
    policy's IQM over seeds relative to the heuristic ``over``, in percent."""
    def value(root) -> float:
        gains = [100 * (s["trained"]["iqm"] / s["heuristics"][over] - 1)
                 for file in files for s in json_value(root, file, "seed_summary")]
        return _PICK[stat](gains)
    return computed(files[0], value, fmt)


def vm_seeds_above(name: str, baseline: str) -> Number:
    """``k/n``: seeds of the VM sweep ``name`` whose greedy policy places more VMs than ``baseline``."""
    file = f"{name}/summary.csv"

    def read(root) -> str:
        rows = csv_rows(root, file)
        above = sum(float(r["final_scheduled_length"]) > float(r[f"final_{baseline}_scheduled_length"]) for r in rows)
        return f"{above}/{len(rows)}"
    return Number(file, read)


def vm_sweep_change(name: str, baseline: str, fmt: str = "+.0f") -> Number:
    """The VM sweep ``name``'s greedy IQM over seeds relative to ``baseline`` (one value), in percent."""
    iqm = sweep(name, "scheduled_length", "", fmt=".17g")
    base = sweep(name, "scheduled_length", baseline, "value", fmt=".17g")
    return computed(f"{name}/summary.csv", lambda root: 100 * (float(iqm.text(root)) / float(base.text(root)) - 1),
                    fmt)


def vm_ci_against(name: str, baseline: str) -> Number:
    """Where the VM sweep ``name``'s seed interval of the greedy IQM lies against ``baseline``: "holds" (contains
    it), "lies above" or "lies below"."""
    file = f"{name}/summary.csv"

    def read(root) -> str:
        interval = seed_interval(column(root, file, "final_scheduled_length"))
        low, high = interval.low, interval.high
        base = float(sweep(name, "scheduled_length", baseline, "value", fmt=".17g").text(root))
        return "holds" if low <= base <= high else ("lies above" if low > base else "lies below")
    return Number(file, read)


def vm_sweep_numbers(name: str) -> dict[str, Number]:
    """The fields every impact sweep's headline quotes: seeds, greedy IQM and interval (a range under 5 seeds),
    room_fit and PM-level Best-Fit, and how many seeds place more VMs than each."""
    return {"seeds": sweep(name, "scheduled_length", "", "count"),
            "iqm": sweep(name, "scheduled_length", "", fmt=".1f"),
            "ci": sweep(name, "scheduled_length", "", "interval", fmt=".1f"),
            "room_fit": sweep(name, "scheduled_length", "room_fit", "value", fmt=".1f"),
            "pm_best_fit": sweep(name, "scheduled_length", "pm_best_fit", "value", fmt=".1f"),
            "above_room_fit": vm_seeds_above(name, "room_fit"),
            "ci_vs_room_fit": vm_ci_against(name, "room_fit"),
            "above_pm_best_fit": vm_seeds_above(name, "pm_best_fit")}


def vm_impact_sweep(num_pms: int, seeds: int, wall_s: int, headline: str, *, iterations: int = 600,
                    warm_start: str = "", tables: Callable[[str, str], tuple[Step, ...]] | None = None,
                    outputs: tuple[str, ...] = (), numbers: Mapping[str, Number] | None = None,
                    held_out_after: int = 0) -> Item:
    """``configs/vm_cvd_frag_impact.yaml`` swept over ``seeds`` seeds at ``num_pms`` PMs (the config's own 20 PMs
    are not repeated on the command line, as the recorded 20-PM sweep ran) and ``warm_start`` if given;
    ``held_out_after``: held-out starts in that many rows after the training windows (disjoint from training's);
    ``tables(cell, quick_cell)``: further steps reading the sweep's cell (its first seed), files in ``outputs``."""
    name = f"sweep_vm_cvd_frag_impact_{num_pms}pm" + (f"_ws{warm_start}" if warm_start else "")
    options = ([] if num_pms == 20 else [f"env_options.num_pms={num_pms}"]) + \
        ([f"env_options.warm_start={warm_start}"] if warm_start else []) + \
        ([f"env_options.held_out_after={held_out_after}"] if held_out_after else [])
    full = [f"iterations={iterations}", f"checkpoint_every={iterations // 3}", "devices=auto", *options]
    quick = ["iterations=2", "chunk=1", "checkpoint_every=1", "eval_jobsets=2", "algo_options.learning_starts=64",
             *options]

    def sweep(count: int, overrides: list[str]) -> str:
        return f"jaxsched.sweep --config {VM_IMPACT} --seeds 0:{count} --out {{out}}/{name} {' '.join(overrides)}"

    def cell(overrides: list[str]) -> str:  # the sweep's first cell, named by its overrides (sweep.cell_name)
        return f"{{out}}/{name}/cells/{sweep_cell_name(overrides)}"

    return Item(
        id=name,
        paper=f"CVD-RL + impact reward at {num_pms} PMs" + (f", warm start {warm_start}" if warm_start else "") +
              f" over {seeds} seeds ({iterations} iterations): IQM and " +
              ("95% CI" if seeds >= 5 else "range over seeds"),
        steps=(Step(sweep(seeds, full), quick_command=sweep(2, quick)),
               *(tables(cell(full), cell(quick)) if tables else ())),
        outputs=tuple(f"{name}/{file}" for file in ("summary.csv", "report.md")) + outputs,
        wall_s=wall_s, headline=headline, numbers={**vm_sweep_numbers(name), **(numbers or {})})


_TABLE = "--starts 20 --window 40000"
_EXPANSION, _QUICK_EXPANSION = ("--option initial_pms=50 --option pms_per_expansion=10",
                                "--option initial_pms=10 --option pms_per_expansion=5")
_TABLE3 = (f"--num-pms 100 --warm-start 0.3,0.4,0.5,0.6 {_TABLE}",
           f"--num-pms 5 --warm-start 0 {_TABLE} --starts 2 --window 2000")
_TABLE4 = (f"--num-pms 110 --warm-start 0,0.5 {_EXPANSION} {_TABLE}",
           f"--num-pms 20 --warm-start 0 {_QUICK_EXPANSION} {_TABLE} --starts 2 --window 2000")
PAPER_TABLES = {  # vm_paper_tables' files: (vm_table settings, quick settings, every seed of the cell)
    "table3_100pm": (*_TABLE3, False),
    "table4_expansion": (*_TABLE4, False),
    "table2_50pm_seeds": (f"--num-pms 50 --warm-start 0,0.3,0.4,0.5,0.6 {_TABLE}", _TABLE3[1], True),
    "table3_100pm_seeds": (*_TABLE3, True),
    "table4_expansion_seeds": (*_TABLE4, True),
}


def table2_50pm(run: str, quick: str) -> Step:
    """The CVD-RL paper's Table 2 (50 PMs, warm starts 0-0.6) with the policy of ``{out}/run`` beside the
    heuristics, into ``{out}/run_table.json`` (``quick`` appended in the quick form; Double DQN's network runs at
    50 PMs only, so its quick form keeps them)."""
    return Step("jaxsched.studies.vm_table --env vm-frag --num-pms 50 --warm-start 0,0.3,0.4,0.5,0.6 --window 40000 "
                f"--starts 20 --policies first_fit,best_fit,pm_best_fit,room_fit --checkpoint {{out}}/{run} "
                f"--out {{out}}/{run}_table.json", quick=quick)


def vm_paper_tables(name: str) -> Callable[[str, str], tuple[Step, ...]]:
    """The CVD-RL paper's Table 3 (100 PMs, warm starts 0.3-0.6), Table 4 (expansion: 50 PMs in service, +10
    whenever a create fits nowhere, up to 110) and Fig. 9 (allocation over time in the expansion scenario at
    warm start 0.5, one start) from a sweep cell's policy (its first seed), into ``{out}/name/table{3,4}_*`` and
    ``fig9_*/``; Tables 2 (50 PMs, warm starts 0-0.6), 3 and 4 with every seed of the cell (``*_seeds``: IQM and CI
    over seeds). Their files: :func:`vm_paper_table_outputs`."""
    policies = "--policies first_fit,best_fit,pm_best_fit,room_fit"

    def tables(cell: str, quick_cell: str) -> tuple[Step, ...]:
        def step(study: str, settings: str, out: str, quick_settings: str, all_seeds: bool = False) -> Step:
            def command(run: str, these: str) -> str:
                seeds = " --all-seeds" if all_seeds else ""
                return (f"jaxsched.studies.{study} --env vm-frag {these} {policies} --checkpoint {run}{seeds} "
                        f"--out {{out}}/{name}/{out}")
            return Step(command(cell, settings), quick_command=command(quick_cell, quick_settings))

        def vm_tables(every_seed: bool) -> tuple[Step, ...]:
            return tuple(step("vm_table", full, f"{stem}.json", quick, all_seeds)
                         for stem, (full, quick, all_seeds) in PAPER_TABLES.items() if all_seeds == every_seed)
        fig9 = step("vm_allocation_trace", f"--warm-start 0.5 --num-pms 110 --window 40000 {_EXPANSION}",
                    "fig9_expansion", f"--warm-start 0.5 --num-pms 20 --window 2000 {_QUICK_EXPANSION}")
        return (*vm_tables(False), fig9, *vm_tables(True))
    return tables


def vm_paper_table_outputs(name: str) -> tuple[str, ...]:
    """The files :func:`vm_paper_tables` writes into ``{out}/name``."""
    return tuple(f"{name}/{stem}.{ext}" for stem in PAPER_TABLES for ext in ("json", "md")) + \
        tuple(f"{name}/fig9_expansion/trace.{ext}" for ext in ("json", "png"))


ITEMS: list[Item] = [
    # ---- VM placement (CVD-RL, SchedRL) -------------------------------------------------------------
    Item(
        id="vm_heuristics",
        paper="CVD-RL paper's heuristics on the Huawei East-1 trace",
        steps=(Step("jaxsched.studies.vm_table --env vm-huawei --option trace=dataset:huawei-east-1 --num-pms 5,10,20 "
                    "--warm-start 0,0.5 --starts 20 --window 10000 --out {out}/vm_heuristics.json",
                    quick=VM_TABLE_QUICK),),
        outputs=("vm_heuristics.json", "vm_heuristics.md"),
        wall_s=300, estimate=True,
        headline="First-Fit, Best-Fit, PM-level Best-Fit within {spread}% of each other",
        numbers={"spread": computed("vm_heuristics.json", lambda root: max(
            100 * (max(c.values()) / min(c.values()) - 1) for c in _vm_cells(root, "vm_heuristics.json").values()), ".1f")},
    ),
    Item(
        id="bench_vm",
        paper="VM env throughput (Best-Fit decisions/s, batch 1024)",
        steps=(Step("jaxsched.bench vm --out {out}/bench_vm.json",
                    quick="--num-pms 5 --batch 8 --steps 10 --window 200 --repeats 1 --cpu-devices 1"),),
        outputs=("bench_vm.json",),
        wall_s=180, estimate=True,
        headline="{rate} M decisions/s at 50 PMs on 2 cores",
        numbers={"rate": at("bench_vm.json", "rows/0/steps_per_s", ".2f", scale=1e-6),
                 **{f"steps_{row['pms']}": at("bench_vm.json", f"rows/{row['index']}/steps_per_s", ",.0f")  # prose
                    for row in ({"pms": 50, "index": 0}, {"pms": 100, "index": 1})}},
    ),
    Item(
        id="vm_synthetic_300it",
        paper="first CVD-RL and SchedRL runs (3 synthetic PMs)",
        steps=(train("{out}/vm_cvd_synthetic_300it", "configs/vm_cvd_synthetic.yaml", "iterations=300",
                     "checkpoint_every=100", "eval_jobsets=16", quick=VM_QUICK),
               train("{out}/vm_dqn_synthetic_300it", "configs/vm_dqn_synthetic.yaml", "iterations=300",
                     "checkpoint_every=100", "eval_jobsets=16", quick=VM_QUICK)),
        outputs=("vm_cvd_synthetic_300it/eval.json", "vm_dqn_synthetic_300it/eval.json"),
        wall_s=193,
        headline="CVD-RL {cvd}, Double DQN {dqn} vs Best-Fit {best_fit}",
        numbers={"cvd": vm_eval("vm_cvd_synthetic_300it/eval.json"), "dqn": vm_eval("vm_dqn_synthetic_300it/eval.json"),
                 "best_fit": vm_eval("vm_cvd_synthetic_300it/eval.json", "best_fit")},
    ),
    Item(
        id="vm_heuristics_frag",
        paper="CVD-RL paper Tables 2-3 shape, heuristics in vm-frag",
        steps=(Step("jaxsched.studies.vm_table --env vm-frag --num-pms 5,20,50,100 --warm-start 0,0.3,0.5 --starts 20 "
                    "--out {out}/vm_heuristics_frag.json", quick=VM_TABLE_QUICK),),
        outputs=("vm_heuristics_frag.json", "vm_heuristics_frag.md"),
        wall_s=256,
        headline="PM-level Best-Fit {low}-{high}% over Best-Fit",
        numbers={"low": vm_table_gain("vm_heuristics_frag.json", "pm_best_fit", "best_fit", "min"),
                 "high": vm_table_gain("vm_heuristics_frag.json", "pm_best_fit", "best_fit", "max", fmt=".0f")},
    ),
    Item(
        id="vm_frag_5pm",
        paper="CVD-RL and Double DQN at 5 PMs (+1 reward)",
        steps=(train("{out}/vm_cvd_frag_5pm", VM_CVD, quick=VM_QUICK),
               train("{out}/vm_cvd_frag_5pm_gamma099", VM_CVD, "iterations=3000", "algo_options.gamma=0.99",
                     quick=VM_QUICK),
               train("{out}/vm_dqn_frag_5pm", VM_DQN, quick=VM_QUICK)),
        outputs=("vm_cvd_frag_5pm/eval.json", "vm_cvd_frag_5pm_gamma099/eval.json", "vm_dqn_frag_5pm/eval.json"),
        wall_s=864,
        headline="CVD-RL {cvd}, Double DQN {dqn} vs Best-Fit {best_fit}, PM-level Best-Fit {pm_best_fit}",
        numbers={"cvd": vm_eval("vm_cvd_frag_5pm/eval.json"), "dqn": vm_eval("vm_dqn_frag_5pm/eval.json"),
                 "best_fit": vm_eval("vm_cvd_frag_5pm/eval.json", "best_fit"),
                 "pm_best_fit": vm_eval("vm_cvd_frag_5pm/eval.json", "pm_best_fit")},
    ),
    Item(
        id="vm_cvd_frag_ablation",
        paper="CVD-RL paper's ablation (operators, k) at 5 PMs, +1 reward",
        steps=(*_vm_runs("vm_cvd_frag_ablation", VM_CVD, {
            "full_k5_3000it": "", "no_top_k": "algo_options.top_k=false",
            "no_decomposition": "algo_options.decomposition=false", "no_lookahead": "algo_options.lookahead=false",
            "k3": "algo_options.k_best_fit=1 algo_options.k_pm_best_fit=2",
            "k7": "algo_options.k_best_fit=3 algo_options.k_pm_best_fit=4",
            "k10": "algo_options.k_best_fit=5 algo_options.k_pm_best_fit=5"},
            common="iterations=3000"),
               train("{out}/vm_cvd_frag_5pm_gamma1", VM_CVD, "iterations=3000", "algo_options.gamma=1.0",
                     quick=VM_QUICK)),
        outputs=(*_vm_outputs("vm_cvd_frag_ablation", ("full_k5_3000it", "no_top_k", "no_decomposition",
                                                       "no_lookahead", "k3", "k7", "k10")),
                 "vm_cvd_frag_5pm_gamma1/eval.json"),
        wall_s=1626,
        note="full_k5_3000it was recorded with k overrides that an old bug ignored; it is the plain k = 5 run.",
        headline="every variant {low}-{high} greedy, all below PM-BF {pm_best_fit}; {below}/{variants} below Best-Fit "
                 "{best_fit} (above it: k=3 {k3}, no look-ahead {no_lookahead})",
        numbers={"low": vm_evals(ABLATION_5PM, "min", ".0f"), "high": vm_evals(ABLATION_5PM, "max", ".0f"),
                 "variants": computed(ABLATION_5PM[0][0], lambda root: len(ABLATION_5PM), "d"),
                 "below": computed(ABLATION_5PM[0][0], lambda root: sum(
                     float(json_value(root, file, "policies/trained-s0/scheduled_length")) <
                     float(json_value(root, file, "policies/best_fit/scheduled_length")) for file, _ in ABLATION_5PM),
                     "d"),
                 "best_fit": vm_eval("vm_cvd_frag_5pm_gamma1/eval.json", "best_fit"),
                 "pm_best_fit": vm_eval("vm_cvd_frag_5pm_gamma1/eval.json", "pm_best_fit"),
                 "k3": vm_eval("vm_cvd_frag_ablation/k3/eval.json"),
                 "no_lookahead": vm_eval("vm_cvd_frag_ablation/no_lookahead/eval.json")},
    ),
    Item(
        id="vm_frag_20pm",
        paper="CVD-RL paper Tables 2-4 shape at 20 PMs (+1 reward), the 20-PM policy at 50/100 PMs and in expansion",
        steps=(train("{out}/vm_cvd_frag_20pm", VM_CVD, "iterations=3000", "env_options.num_pms=20", quick=VM_QUICK),
               copy("{out}/vm_cvd_frag_20pm/eval.json", "{out}/vm_cvd_frag_20pm/eval_3000it.json"),
               Step("jaxsched.studies.vm_table --env vm-frag --num-pms 20,50,100 --warm-start 0,0.5 --starts 20 "
                    "--checkpoint {out}/vm_cvd_frag_20pm --out {out}/vm_cvd_frag_20pm_at_n.json", quick=VM_TABLE_QUICK),
               Step("jaxsched.studies.vm_table --env vm-frag --num-pms 110 --warm-start 0,0.5 --starts 20 "
                    "--option initial_pms=50 --option pms_per_expansion=10 --checkpoint {out}/vm_cvd_frag_20pm "
                    "--out {out}/vm_cvd_frag_20pm_expansion.json",
                    quick="--num-pms 20 --warm-start 0 --starts 2 --option initial_pms=10 "
                          "--option pms_per_expansion=5"),
               resume("{out}/vm_cvd_frag_20pm", 6000, 4),
               train("{out}/vm_dqn_frag_20pm", VM_DQN, "iterations=6000", "env_options.num_pms=20", quick=VM_QUICK),
               train("{out}/vm_cvd_frag_20pm_seed1", VM_CVD, "iterations=3000", "env_options.num_pms=20", seeds="1",
                     quick=VM_QUICK)),
        outputs=("vm_cvd_frag_20pm/eval.json", "vm_cvd_frag_20pm/eval_3000it.json", "vm_cvd_frag_20pm_at_n.json",
                 "vm_cvd_frag_20pm_at_n.md", "vm_cvd_frag_20pm_expansion.json", "vm_cvd_frag_20pm_expansion.md",
                 "vm_dqn_frag_20pm/eval.json", "vm_cvd_frag_20pm_seed1/eval.json"),
        wall_s=2140,
        headline="CVD-RL {cvd} vs Best-Fit {best_fit}, PM-level Best-Fit {pm_best_fit}; at 50/100 PMs {low}-{high}% over "
                 "Best-Fit",
        numbers={"cvd": vm_eval("vm_cvd_frag_20pm/eval_3000it.json"),  # the 3000-iteration policy the tables read
                 "best_fit": vm_eval("vm_cvd_frag_20pm/eval_3000it.json", "best_fit"),
                 "pm_best_fit": vm_eval("vm_cvd_frag_20pm/eval_3000it.json", "pm_best_fit"),
                 "low": vm_table_gain("vm_cvd_frag_20pm_at_n.json", "trained", "best_fit", "min", (50, 100)),
                 "high": vm_table_gain("vm_cvd_frag_20pm_at_n.json", "trained", "best_fit", "max", (50, 100), ".0f")},
    ),
    Item(
        id="vm_cvd_frag_50pm_timing",
        paper="CVD-RL at the paper's 50 PMs: time per iteration only",
        steps=(train("{out}/vm_cvd_frag_50pm_timing", VM_CVD, "iterations=300", "chunk=50", "checkpoint_every=300",
                     "eval_jobsets=5", "env_options.num_pms=50", "env_options.warm_start=0.5", quick=VM_QUICK),),
        outputs=("vm_cvd_frag_50pm_timing/eval.json",),
        wall_s=184,
        headline="{per_iteration} s per iteration (~{hours} h for the paper's budget of ~100k iterations)",
        numbers={"per_iteration": computed("vm_cvd_frag_50pm_timing/metrics.csv", _timing_50pm, ".2f"),
                 "hours": computed("vm_cvd_frag_50pm_timing/metrics.csv",
                                   lambda root: _timing_50pm(root) * 100_000 / 3600, ".0f")},
    ),
    Item(
        id="vm_heuristics_frag_room",
        paper="room_fit, the impact reward's greedy rule, beside the paper's heuristics",
        steps=(Step("jaxsched.studies.vm_table --env vm-frag --num-pms 5,20 --warm-start 0,0.3,0.5 --starts 20 "
                    "--policies first_fit,best_fit,pm_best_fit,room_fit --out {out}/vm_heuristics_frag_room.json",
                    quick=VM_TABLE_QUICK),),
        outputs=("vm_heuristics_frag_room.json", "vm_heuristics_frag_room.md"),
        wall_s=123,
        headline="room_fit {low}-{high}% over PM-level Best-Fit at 5 / 20 PMs",
        numbers={"low": vm_table_gain("vm_heuristics_frag_room.json", "room_fit", "pm_best_fit", "min"),
                 "high": vm_table_gain("vm_heuristics_frag_room.json", "room_fit", "pm_best_fit", "max", fmt=".0f")},
    ),
    Item(
        id="vm_cvd_frag_impact_variants",
        paper="the impact reward learned vs added to Q exactly (20 PMs)",
        steps=_vm_runs("vm_cvd_frag_impact_variants", VM_CVD, {
            "imp10": "algo_options.impact_reward=10 algo_options.impact_in_q=false",
            "imp3": "algo_options.impact_reward=3 algo_options.impact_in_q=false",
            "imp10_g75": "algo_options.impact_reward=10 algo_options.gamma=0.75 algo_options.impact_in_q=false",
            "imp10_g5": "algo_options.impact_reward=10 algo_options.gamma=0.5 algo_options.impact_in_q=false",
            "known10_g95": "algo_options.impact_reward=10",
            "known10_g5": "algo_options.impact_reward=10 algo_options.gamma=0.5"},
            common="iterations=3000 env_options.num_pms=20"),
        outputs=_vm_outputs("vm_cvd_frag_impact_variants",
                            ("imp10", "imp3", "imp10_g75", "imp10_g5", "known10_g95", "known10_g5")),
        wall_s=3996,
        headline="learned {low}-{high}, added exactly {known10_g95} / {known10_g5}",
        numbers={"low": vm_evals(IMPACT_LEARNED, "min", ".0f"), "high": vm_evals(IMPACT_LEARNED, "max", ".0f"),
                 **{run: vm_eval(f"vm_cvd_frag_impact_variants/{run}/eval.json") for run in ("known10_g95", "known10_g5")}},
    ),
    Item(
        id="vm_frag_impact_5pm",
        paper="CVD-RL + impact reward at 5 PMs",
        steps=(train("{out}/vm_cvd_frag_impact_5pm", VM_IMPACT, "env_options.num_pms=5", quick=VM_QUICK),
               _curves("vm_frag_5pm_curves", 200, **{"cvd_gamma0.95": "vm_cvd_frag_5pm",
                                                     "cvd_gamma0.99": "vm_cvd_frag_5pm_gamma099",
                                                     "dqn_gamma0.95": "vm_dqn_frag_5pm",
                                                     "cvd_impact": "vm_cvd_frag_impact_5pm"})),
        outputs=("vm_cvd_frag_impact_5pm/eval.json", "vm_frag_5pm_curves/summary.json"),
        wall_s=220,
        inputs=("{out}/vm_cvd_frag_5pm/metrics.csv",), needs=("vm_frag_5pm",),
        headline="{cvd} vs room_fit {room_fit}, PM-level Best-Fit {pm_best_fit}",
        numbers={"cvd": vm_eval("vm_cvd_frag_impact_5pm/eval.json"),
                 **{p: vm_eval("vm_cvd_frag_impact_5pm/eval.json", p) for p in ("room_fit", "pm_best_fit")}},
    ),
    Item(
        id="vm_frag_impact_10pm",
        paper="CVD-RL + impact reward and Double DQN at 10 PMs",
        steps=(train("{out}/vm_cvd_frag_impact_10pm", VM_IMPACT, "env_options.num_pms=10", quick=VM_QUICK),
               train("{out}/vm_dqn_frag_10pm", VM_DQN, "iterations=6000", "env_options.num_pms=10", quick=VM_QUICK),
               _curves("vm_frag_10pm_curves", 100, cvd_impact="vm_cvd_frag_impact_10pm", dqn="vm_dqn_frag_10pm")),
        outputs=("vm_cvd_frag_impact_10pm/eval.json", "vm_dqn_frag_10pm/eval.json", "vm_frag_10pm_curves/summary.json"),
        wall_s=480,
        headline="{cvd} vs room_fit {room_fit}, PM-level Best-Fit {pm_best_fit}; Double DQN {dqn}",
        numbers={"cvd": vm_eval("vm_cvd_frag_impact_10pm/eval.json"), "dqn": vm_eval("vm_dqn_frag_10pm/eval.json"),
                 **{p: vm_eval("vm_cvd_frag_impact_10pm/eval.json", p) for p in ("room_fit", "pm_best_fit")}},
    ),
    Item(
        id="vm_frag_impact_20pm",
        paper="CVD-RL + impact reward at 20 PMs (two seeds), unchanged at 50 / 100 PMs",
        steps=(train("{out}/vm_cvd_frag_impact_20pm", VM_IMPACT, quick=VM_QUICK),
               train("{out}/vm_cvd_frag_impact_20pm_seed1", VM_IMPACT, "seeds=[1]", quick=VM_QUICK),
               _curves("vm_frag_20pm_curves", 100, cvd="vm_cvd_frag_20pm", cvd_impact="vm_cvd_frag_impact_20pm",
                       dqn="vm_dqn_frag_20pm"),
               Step("jaxsched.studies.vm_table --env vm-frag --num-pms 50,100 --warm-start 0,0.5 --window 40000 "
                    "--starts 20 --policies first_fit,best_fit,pm_best_fit,room_fit "
                    "--checkpoint {out}/vm_cvd_frag_impact_20pm --out {out}/vm_cvd_frag_impact_20pm_at_n.json",
                    quick=f"{VM_TABLE_QUICK} --window 2000")),
        outputs=("vm_cvd_frag_impact_20pm/eval.json", "vm_cvd_frag_impact_20pm_seed1/eval.json",
                 "vm_frag_20pm_curves/summary.json", "vm_cvd_frag_impact_20pm_at_n.json",
                 "vm_cvd_frag_impact_20pm_at_n.md"),
        wall_s=2350,
        inputs=("{out}/vm_cvd_frag_20pm/metrics.csv", "{out}/vm_dqn_frag_20pm/metrics.csv"),
        needs=("vm_frag_20pm",),
        headline="{cvd} (seed 1: {seed1}) vs room_fit {room_fit}, PM-level Best-Fit {pm_best_fit}",
        numbers={"cvd": vm_eval("vm_cvd_frag_impact_20pm/eval.json"),
                 "seed1": vm_eval("vm_cvd_frag_impact_20pm_seed1/eval.json", "trained-s1"),
                 **{p: vm_eval("vm_cvd_frag_impact_20pm/eval.json", p) for p in ("room_fit", "pm_best_fit")}},
    ),
    Item(
        id="vm_frag_impact_50pm",
        paper="CVD-RL paper Tables 2-4 shape at 50 PMs: impact reward, Double DQN, 50/100 PMs and expansion",
        steps=(train("{out}/vm_cvd_frag_impact_50pm", VM_IMPACT, "env_options.num_pms=50", quick=VM_QUICK),
               train("{out}/vm_dqn_frag_50pm", VM_DQN, "iterations=6000", "env_options.num_pms=50", quick=VM_QUICK),
               _curves("vm_frag_50pm_curves", 100, cvd_impact="vm_cvd_frag_impact_50pm", dqn="vm_dqn_frag_50pm"),
               Step("jaxsched.studies.vm_table --env vm-frag --num-pms 50,100 --warm-start 0,0.5 --window 40000 "
                    "--starts 20 --policies first_fit,best_fit,pm_best_fit,room_fit "
                    "--checkpoint {out}/vm_cvd_frag_impact_50pm --out {out}/vm_cvd_frag_impact_50pm_at_n.json",
                    quick=f"{VM_TABLE_QUICK} --window 2000"),
               Step("jaxsched.studies.vm_table --env vm-frag --num-pms 110 --warm-start 0,0.5 --window 40000 "
                    "--starts 20 --policies first_fit,best_fit,pm_best_fit,room_fit --option initial_pms=50 "
                    "--option pms_per_expansion=10 --checkpoint {out}/vm_cvd_frag_impact_50pm "
                    "--out {out}/vm_cvd_frag_impact_50pm_expansion.json",
                    quick="--num-pms 20 --warm-start 0 --starts 2 --window 2000 --option initial_pms=10 "
                          "--option pms_per_expansion=5")),
        outputs=("vm_cvd_frag_impact_50pm/eval.json", "vm_dqn_frag_50pm/eval.json", "vm_frag_50pm_curves/summary.json",
                 "vm_cvd_frag_impact_50pm_at_n.json", "vm_cvd_frag_impact_50pm_at_n.md",
                 "vm_cvd_frag_impact_50pm_expansion.json", "vm_cvd_frag_impact_50pm_expansion.md"),
        wall_s=3700,
        headline="{cvd} vs PM-level Best-Fit {pm_best_fit} ({vs_pm_best_fit}%), room_fit {room_fit}; Double DQN {dqn}",
        numbers={"cvd": vm_eval("vm_cvd_frag_impact_50pm/eval.json"), "dqn": vm_eval("vm_dqn_frag_50pm/eval.json"),
                 **{p: vm_eval("vm_cvd_frag_impact_50pm/eval.json", p) for p in ("room_fit", "pm_best_fit")},
                 "vs_pm_best_fit": change("vm_cvd_frag_impact_50pm/eval.json",
                                          "policies/trained-s0/scheduled_length",
                                          "policies/pm_best_fit/scheduled_length")},
    ),
    Item(
        id="vm_frag_impact_50pm_ws0.5",
        paper="CVD-RL paper Table 2's setting: CVD-RL (impact reward) and Double DQN (SchedRL) trained at 50 PMs with "
              "warm start 0.5; the CVD-RL policy evaluated at warm starts 0-0.6 beside the heuristics (one seed)",
        steps=(train("{out}/vm_cvd_frag_impact_50pm_ws0.5", VM_IMPACT, "env_options.num_pms=50",
                     "env_options.warm_start=0.5", quick=VM_QUICK),
               train("{out}/vm_dqn_frag_50pm_ws0.5", VM_DQN, "iterations=6000", "env_options.num_pms=50",
                     "env_options.warm_start=0.5", "env_options.held_out_after=10000", quick=VM_QUICK),
               table2_50pm("vm_cvd_frag_impact_50pm_ws0.5", quick=f"{VM_TABLE_QUICK} --window 2000"),
               table2_50pm("vm_dqn_frag_50pm_ws0.5", quick="--warm-start 0 --starts 2 --window 2000")),
        outputs=("vm_cvd_frag_impact_50pm_ws0.5/eval.json", "vm_dqn_frag_50pm_ws0.5/eval.json",
                 "vm_cvd_frag_impact_50pm_ws0.5_table.json", "vm_cvd_frag_impact_50pm_ws0.5_table.md",
                 "vm_dqn_frag_50pm_ws0.5_table.json", "vm_dqn_frag_50pm_ws0.5_table.md"),
        wall_s=880,
        headline="held-out at warm start 0.5: CVD-RL {cvd} vs PM-level Best-Fit {pm_best_fit} ({vs_pm_best_fit}%), "
                 "room_fit {room_fit} ({vs_room_fit}%); Double DQN {dqn}, below Best-Fit {dqn_best_fit}; at warm starts 0-0.6 "
                 "CVD-RL is {pm_low}-{pm_high}% above PM-level Best-Fit and {room_low}% to {room_high}% against "
                 "room_fit (start rows past the training rows); "
                 "Double DQN at warm starts 0-0.6 {dqn_ws0}-{dqn_ws06}, below Best-Fit at {dqn_below} warm starts; "
                 "checkpoints not kept",
        numbers={"cvd": vm_eval(f"{CVD_WS05}/eval.json"), "dqn": vm_eval("vm_dqn_frag_50pm_ws0.5/eval.json"),
                 "dqn_best_fit": vm_eval("vm_dqn_frag_50pm_ws0.5/eval.json", "best_fit"),  # on the DQN run's starts
                 **{p: vm_eval(f"{CVD_WS05}/eval.json", p) for p in ("pm_best_fit", "room_fit", "best_fit", "first_fit")},
                 **{f"vs_{p}": change(f"{CVD_WS05}/eval.json", "policies/trained-s0/scheduled_length",
                                      f"policies/{p}/scheduled_length") for p in ("pm_best_fit", "room_fit")},
                 **{f"pm_{stat}": vm_table_gain(f"{CVD_WS05}_table.json", "trained", "pm_best_fit", stat, fmt=".0f")
                    for stat in ("low", "high")},
                 **{f"room_{stat}": vm_table_gain(f"{CVD_WS05}_table.json", "trained", "room_fit", stat)
                    for stat in ("low", "high")},
                 "dqn_ws0": vm_table_cell("vm_dqn_frag_50pm_ws0.5_table.json", 50, 0.0, fmt=".0f"),
                 "dqn_ws06": vm_table_cell("vm_dqn_frag_50pm_ws0.5_table.json", 50, 0.6, fmt=".0f"),
                 "dqn_below": vm_table_below("vm_dqn_frag_50pm_ws0.5_table.json", "trained", "best_fit")},
    ),
    vm_impact_sweep(20, 8, 2460, "{seeds} seeds: IQM {iqm} {ci} vs room_fit {room_fit} ({above_room_fit} seeds above), "
                                 "PM-level Best-Fit {pm_best_fit} ({above_pm_best_fit} above); checkpoints not kept "
                                 "(37 MB of replay buffer)"),
    vm_impact_sweep(5, 5, 240, "{seeds} seeds: IQM {iqm} {ci} vs room_fit {room_fit} ({above_room_fit} seeds above, "
                               "the CI {ci_vs_room_fit} room_fit), PM-level Best-Fit {pm_best_fit} ({above_pm_best_fit} "
                               "above); "
                               "checkpoints not kept", held_out_after=10000),
    vm_impact_sweep(10, 5, 300, "{seeds} seeds: IQM {iqm} {ci} vs room_fit {room_fit} ({above_room_fit} seeds above), "
                                "PM-level Best-Fit {pm_best_fit} ({above_pm_best_fit} above); checkpoints not kept"),
    vm_impact_sweep(
        50, 3, 4000,
        "{seeds} seeds at the paper's Table 2 setting, on start rows past training: IQM {iqm} {ci} vs PM-level "
        "Best-Fit {pm_best_fit} "
        "({above_pm_best_fit} above, {vs_pm_best_fit}%), room_fit {room_fit} ({above_room_fit}, {vs_room_fit}%); seed 0 "
        "at 100 PMs (Table 3) {t3_pm_low}-{t3_pm_high}% over PM-BF and {t3_room_low}% to {t3_room_high}% vs room_fit, "
        "in expansion (Table 4) {t4_room_high}% / {t4_room_low}% vs room_fit; Tables 2-4 over the {table_seeds} seeds: "
        "{all_pm_low}-{all_pm_high}% over PM-BF, {all_room_low}% to {all_room_high}% vs room_fit; Fig. 9: expands "
        "when room_fit does, after First-Fit / Best-Fit / PM-BF; checkpoints not kept", iterations=3000,
        warm_start="0.5", tables=vm_paper_tables("sweep_vm_cvd_frag_impact_50pm_ws0.5"),
        outputs=vm_paper_table_outputs("sweep_vm_cvd_frag_impact_50pm_ws0.5"),
        numbers={**{f"seed{seed}": seeds(f"{SWEEP_WS05}/summary.csv", "final_scheduled_length", "value", ".1f",
                                         seed=seed) for seed in range(3)},  # prose: each seed, and rounded figures
                 "table_seeds": computed(f"{SWEEP_WS05}/table2_50pm_seeds.json", lambda root: len(json_value(
                     root, f"{SWEEP_WS05}/table2_50pm_seeds.json", "seed_summary/0/seed_lengths")), "d"),
                 "iqm_rounded": sweep(SWEEP_WS05, "scheduled_length", "", fmt=".0f"),
                 "ci_rounded": sweep(SWEEP_WS05, "scheduled_length", "", "interval", fmt=".0f"),
                 "pm_best_fit_rounded": sweep(SWEEP_WS05, "scheduled_length", "pm_best_fit", "value", fmt=".0f"),
                 "below_room_fit": computed(f"{SWEEP_WS05}/summary.csv", lambda root: -float(
                     vm_sweep_change(SWEEP_WS05, "room_fit", ".17g").text(root)), ".0f"),
                 "vs_pm_best_fit": vm_sweep_change("sweep_vm_cvd_frag_impact_50pm_ws0.5", "pm_best_fit"),
                 "vs_room_fit": vm_sweep_change("sweep_vm_cvd_frag_impact_50pm_ws0.5", "room_fit"),
                 **{f"t3_{short}_{stat}": vm_table_gain("sweep_vm_cvd_frag_impact_50pm_ws0.5/table3_100pm.json",
                                                        "trained", over, stat, fmt=fmt)
                    for short, over in (("pm", "pm_best_fit"), ("room", "room_fit"))
                    for stat, fmt in ((("low", "+.1f"), ("high", "+.1f")) if short == "room" else
                                      (("low", "+.0f"), ("high", ".0f")))},
                 **{f"t4_room_{stat}": vm_table_gain("sweep_vm_cvd_frag_impact_50pm_ws0.5/table4_expansion.json",
                                                     "trained", "room_fit", stat, fmt="+.1f") for stat in ("low", "high")},
                 **{f"all_{short}_{stat}": vm_seed_gain(
                     tuple(f"sweep_vm_cvd_frag_impact_50pm_ws0.5/{table}_seeds.json"
                           for table in ("table2_50pm", "table3_100pm", "table4_expansion")), over, stat, fmt)
                    for short, over in (("pm", "pm_best_fit"), ("room", "room_fit"))
                    for stat, fmt in (("low", "+.0f"), ("high", ".0f" if short == "pm" else "+.1f"))}}),
    Item(
        id="vm_cvd_frag_impact_ablation_10pm",
        paper="CVD-RL paper's ablation and k sweep with the impact reward at 10 PMs",
        steps=_vm_runs("vm_cvd_frag_impact_ablation_10pm", VM_IMPACT, {
            "full": "", "no_top_k": "algo_options.top_k=false", "no_decomposition": "algo_options.decomposition=false",
            "no_lookahead": "algo_options.lookahead=false",
            "k3": "algo_options.k_best_fit=1 algo_options.k_pm_best_fit=1",
            "k7": "algo_options.k_best_fit=3 algo_options.k_pm_best_fit=3",
            "k10": "algo_options.k_best_fit=5 algo_options.k_pm_best_fit=4",
            "lambda30": "algo_options.impact_reward=30"}, common="env_options.num_pms=10"),
        outputs=_vm_outputs("vm_cvd_frag_impact_ablation_10pm", ("full", "no_top_k", "no_decomposition",
                                                                  "no_lookahead", "k3", "k7", "k10", "lambda30")),
        wall_s=3936,
        headline="every variant {low}-{high} greedy vs room_fit {room_fit}: no operator or k matters",
        numbers={**{stat: vm_evals(tuple((f"vm_cvd_frag_impact_ablation_10pm/{run}/eval.json", "trained-s0") for run in (
                     "full", "no_top_k", "no_decomposition", "no_lookahead", "k3", "k7", "k10", "lambda30")), stat, ".0f")
                    for stat in ("low", "high")},
                 "room_fit": vm_eval("vm_cvd_frag_impact_ablation_10pm/full/eval.json", "room_fit")},
    ),
    Item(
        id="vm_cvd_frag_impact_ablation_50pm_ws0.5",
        paper="CVD-RL paper's ablations (Figs. 10-11: no top-k, no decomposition, no look-ahead) at its Table 2 "
              "setting, 50 PMs with warm start 0.5, one seed each, beside seed 0 of the 3-seed sweep there",
        steps=_vm_runs("vm_cvd_frag_impact_ablation_50pm_ws0.5", VM_IMPACT, {
            "no_top_k": "algo_options.top_k=false", "no_decomposition": "algo_options.decomposition=false",
            "no_lookahead": "algo_options.lookahead=false"}, common="env_options.num_pms=50 env_options.warm_start=0.5"),
        outputs=_vm_outputs("vm_cvd_frag_impact_ablation_50pm_ws0.5", ("no_top_k", "no_decomposition", "no_lookahead")),
        wall_s=3533,
        headline="seed 0 each: no top-k {no_top_k}, no decomposition {no_decomposition}, no look-ahead {no_lookahead} vs "
                 "the full model's {full_low}-{full_high} over {seeds} seeds (room_fit {room_fit}), all on the same start "
                 "rows past training: no top-k falls below every full seed ({no_top_k_change}% from the full model's "
                 "seed 0), no decomposition is level with the lowest full seed, no look-ahead inside the seed spread; "
                 "checkpoints not kept",
        numbers={**{run: vm_eval(f"vm_cvd_frag_impact_ablation_50pm_ws0.5/{run}/eval.json")
                    for run in ("no_top_k", "no_decomposition", "no_lookahead")},
                 "full_low": sweep(SWEEP_WS05, "scheduled_length", "", "min", fmt=".1f"),
                 "full_high": sweep(SWEEP_WS05, "scheduled_length", "", "max", fmt=".1f"),
                 "seeds": sweep(SWEEP_WS05, "scheduled_length", "", "count"),
                 "room_fit": vm_eval("vm_cvd_frag_impact_ablation_50pm_ws0.5/no_top_k/eval.json", "room_fit"),
                 "no_top_k_change": vs_ws05_seed0("vm_cvd_frag_impact_ablation_50pm_ws0.5/no_top_k/eval.json", "+.0f"),
                 **{f"{run}_vs_seed0": vs_ws05_seed0(f"vm_cvd_frag_impact_ablation_50pm_ws0.5/{run}/eval.json")  # prose
                    for run in ("no_top_k", "no_decomposition", "no_lookahead")}},
        note="Re-run on the held-out start rows past training (issue 56), one or two runs at a time on the 2-core "
             "CPU (about 1 s per iteration, 50-60 min a run).",
    ),
    Item(
        id="vm_cvd_frag_impact_k_50pm_ws0.5",
        paper="CVD-RL paper's Fig. 12 (k in {3, 5, 7, 10}) and Fig. 11 (BF-Top-5 vs Internal-Top-5; PM-level Best-Fit "
              "stands in for the paper's undisclosed internal scheduler) at its Table 2 setting, 50 PMs with warm "
              "start 0.5, one seed each; room_fit-Top-5 is ours",
        steps=_vm_runs("vm_cvd_frag_impact_k_50pm_ws0.5", VM_IMPACT, CANDIDATE_SETS_50PM,
                       common="env_options.num_pms=50 env_options.warm_start=0.5"),
        outputs=_vm_outputs("vm_cvd_frag_impact_k_50pm_ws0.5", CANDIDATE_SETS_50PM),
        wall_s=14996,  # the seven runs' training wall-clock summed (metrics.csv), one or two at a time on 2 cores
        headline="seed 0 each (full 2 + 3 + 1: {full} over {seeds} seeds; room_fit {room_fit}): k = 3 {k3}, the paper's "
                 "2 + 3 {k5_paper}, k = 7 {k7}, k = 10 {k10}; BF-Top-5 {bf_top5} vs Internal-Top-5 {internal_top5} (Fig. 11 "
                 "holds), room_fit-Top-5 {room_fit_top5}; on the full model's 50 start rows past training: the paper's "
                 "set is the lowest and k = 3, 7 and 10 lie within the full model's seed range (Fig. 12's k = 5 optimum "
                 "not reproduced); checkpoints not kept",
        numbers={**{run: vm_eval(f"vm_cvd_frag_impact_k_50pm_ws0.5/{run}/eval.json") for run in CANDIDATE_SETS_50PM},
                 "full": sweep(SWEEP_WS05, "scheduled_length", "", fmt=".1f"),
                 "seeds": sweep(SWEEP_WS05, "scheduled_length", "", "count"),
                 "room_fit": vm_eval("vm_cvd_frag_impact_k_50pm_ws0.5/k3/eval.json", "room_fit"),
                 # prose: the table of candidate sets
                 **{f"{run}_sampled": vm_eval(f"vm_cvd_frag_impact_k_50pm_ws0.5/{run}/eval.json", "trained-s0-sampled")
                    for run in CANDIDATE_SETS_50PM},
                 **{f"{run}_vs_full": vs_ws05_iqm(f"vm_cvd_frag_impact_k_50pm_ws0.5/{run}/eval.json")
                    for run in CANDIDATE_SETS_50PM},
                 "full_ci": sweep(SWEEP_WS05, "scheduled_length", "", "interval", fmt=".1f"),
                 **{p: vm_eval("vm_cvd_frag_impact_k_50pm_ws0.5/k3/eval.json", p)
                    for p in ("pm_best_fit", "first_fit", "best_fit")}},
        note="Re-run on the held-out start rows past training (issue 56), one or two runs at a time on the 2-core CPU "
             "(17-35 min per run).",
    ),
    Item(
        id="vm_cvd_frag_impact_k_50pm_ws0.5_seeds",
        paper="CVD-RL paper's Fig. 12 over seeds: k = 3 and the paper's k = 5 (2 + 3) at 50 PMs, warm start 0.5, seeds "
              "1 and 2 (seed 0 of each: vm_cvd_frag_impact_k_50pm_ws0.5)",
        steps=(*_vm_runs("vm_cvd_frag_impact_k_50pm_ws0.5_seeds", VM_IMPACT, K_OVER_SEEDS,
                         common="env_options.num_pms=50 env_options.warm_start=0.5 seeds=[1,2] devices=1"),
               _curves("vm_cvd_frag_impact_k_50pm_ws0.5_seeds/compare", 100,
                       **{name: f"vm_cvd_frag_impact_k_50pm_ws0.5_seeds/{name}" for name in K_OVER_SEEDS})),
        outputs=(*_vm_outputs("vm_cvd_frag_impact_k_50pm_ws0.5_seeds", K_OVER_SEEDS),
                 "vm_cvd_frag_impact_k_50pm_ws0.5_seeds/compare/summary.json"),
        wall_s=5233,
        headline="seeds 0 / 1 / 2: k = 3 {k3_0} / {k3_1} / {k3_2} (mean {k3_mean}), the paper's k = 5 {k5_paper_0} / "
                 "{k5_paper_1} / {k5_paper_2} ({k5_paper_mean}): k = 3 above k = 5 on {k3_above} seeds ({k3_vs_k5}% in "
                 "the mean); room_fit {room_fit}; {ended} greedy episodes ended; on the 50 held-out start rows past training",
        numbers={**{f"{run}_{seed}": vm_eval(*K_SEED_RUNS[run][seed]) for run in K_OVER_SEEDS for seed in range(3)},
                 **{f"{run}_mean": vm_evals(K_SEED_RUNS[run], "mean") for run in K_OVER_SEEDS},
                 "k3_above": Number(K_SEED_RUNS["k3"][1][0], lambda root: "{}/{}".format(sum(
                     float(vm_eval(*k3).text(root)) > float(vm_eval(*k5).text(root))
                     for k3, k5 in zip(K_SEED_RUNS["k3"], K_SEED_RUNS["k5_paper"])), len(K_SEED_RUNS["k3"]))),
                 "k3_vs_k5": computed(K_SEED_RUNS["k3"][1][0], lambda root: 100 * (
                     float(vm_evals(K_SEED_RUNS["k3"], "mean", ".17g").text(root)) /
                     float(vm_evals(K_SEED_RUNS["k5_paper"], "mean", ".17g").text(root)) - 1), "+.0f"),
                 "room_fit": vm_eval("vm_cvd_frag_impact_k_50pm_ws0.5_seeds/k3/eval.json", "room_fit"),
                 "ended": Number(K_SEED_RUNS["k3"][1][0], lambda root: "{}/{}".format(*(sum(
                     int(json_value(root, file, f"policies/{policy}/{key}")) for run in K_SEED_RUNS.values()
                     for file, policy in run) for key in ("episodes_ended", "episodes"))))},
        note="Re-run on the held-out start rows past training (issue 56), the two runs side by side on a 2-core CPU "
             "shared with other training runs, one device each; checkpoints and return-curve plots not kept.",
    ),
    Item(
        id="vm_rollout_improvement",
        paper="one exact step of policy improvement over room_fit (headroom for a learned value)",
        steps=(Step("jaxsched.studies.vm_rollout --num-pms 5 --starts-from {out}/vm_cvd_frag_impact_10pm/eval.json "
                    "--out {out}/vm_rollout_improvement.json",
                    quick_command="jaxsched.studies.vm_rollout --num-pms 5 --starts 2 "
                                  "--out {out}/vm_rollout_improvement.json"),
               Step("jaxsched.studies.vm_rollout --num-pms 5,10 --cvd-k 2,3,1 "
                    "--starts-from {out}/vm_cvd_frag_impact_10pm/eval.json "
                    "--out {out}/vm_rollout_improvement_cvd_k.json",
                    quick_command="jaxsched.studies.vm_rollout --num-pms 5 --cvd-k 2,3,1 --starts 2 "
                                  "--out {out}/vm_rollout_improvement_cvd_k.json")),
        outputs=("vm_rollout_improvement.json", "vm_rollout_improvement_cvd_k.json"),
        wall_s=1168,
        inputs=("{out}/vm_cvd_frag_impact_10pm/eval.json",), needs=("vm_frag_impact_10pm",),
        headline="{gain5}% over room_fit at 5 PMs ({planned5} vs {room_fit5}), {gain10}% at 10 PMs ({planned10} vs "
                 "{room_fit10})",
        numbers={**{f"{key}{pms}": at(file, f"rows/{row}/{path}", ".1f")
                    for pms, file, row in ((5, "vm_rollout_improvement.json", 0),
                                           (10, "vm_rollout_improvement_cvd_k.json", 1))
                    for key, path in (("planned", "improved_length"), ("room_fit", "base_length"))},
                 "gain5": change("vm_rollout_improvement.json", "rows/0/improved_length", "rows/0/base_length"),
                 "gain10": change("vm_rollout_improvement_cvd_k.json", "rows/1/improved_length", "rows/1/base_length")},
    ),
    Item(
        id="vm_planner",
        paper="decision-time planning (the rollout step over CVD-RL's candidates, base room_fit) on held-out start "
              "points from a trace range disjoint from training's",
        steps=(Step("jaxsched.studies.vm_planner --env vm-frag --num-pms 10 --starts 50 --held-out-from 7000 "
                    "--out {out}/vm_planner_10pm.json",
                    quick_command="jaxsched.studies.vm_planner --env vm-frag --num-pms 5 --starts 2 "
                                  "--held-out-from 7000 --out {out}/vm_planner_10pm.json"),
               Step("jaxsched.studies.vm_planner --env vm-frag --num-pms 20 --starts 10 --held-out-from 7000 "
                    "--out {out}/vm_planner_20pm.json",
                    quick_command="jaxsched.studies.vm_planner --env vm-frag --num-pms 5 --starts 2 "
                                  "--held-out-from 7000 --out {out}/vm_planner_20pm.json")),
        outputs=("vm_planner_10pm.json", "vm_planner_20pm.json"),
        wall_s=1100,
        headline="planner / room_fit IQM {iqm10} {ci10} at 10 PMs ({starts10} starts), {iqm20} {ci20} at 20 PMs "
                 "({starts20} starts); better on {better10} and {better20} starts; {seconds10} / {seconds20} s per "
                 "episode on CPU",
        numbers={key: number for pms in (10, 20) for key, number in (
            (f"iqm{pms}", at(f"vm_planner_{pms}pm.json", "rows/0/planner_vs_room_fit/ratio_iqm")),
            (f"ci{pms}", Number(f"vm_planner_{pms}pm.json", lambda root, pms=pms: "[{:.3f}, {:.3f}]".format(
                *json_value(root, f"vm_planner_{pms}pm.json", "rows/0/planner_vs_room_fit/ratio_ci95")))),
            (f"starts{pms}", at(f"vm_planner_{pms}pm.json", "rows/0/starts", ".0f")),
            (f"better{pms}", Number(f"vm_planner_{pms}pm.json", lambda root, pms=pms: "{}/{}".format(
                json_value(root, f"vm_planner_{pms}pm.json", "rows/0/planner_vs_room_fit/starts_improved"),
                json_value(root, f"vm_planner_{pms}pm.json", "rows/0/starts")))),
            (f"seconds{pms}", at(f"vm_planner_{pms}pm.json", "rows/0/seconds_per_episode/planner", ".1f")))},
    ),
    Item(
        id="vm_distill",
        paper="issue 18's expert iteration: the planner distilled into a learned placer that sees only the "
              "observation, on the planner's held-out starts",
        steps=(distill_step("rounds2", "--rounds 2"),
               distill_step("departure20", "--rounds 1 --departure-weight 20"),
               distill_step("departure200", "--rounds 1 --departure-weight 200")),
        outputs=("vm_distill/rounds2.json", "vm_distill/departure20.json", "vm_distill/departure200.json"),
        wall_s=1867,
        headline="negative: learned / room_fit IQM {iqm10} at 10 and {iqm20} at 20 PMs (5 seeds, CIs contain 1); the "
                 "planner leaves room_fit at ~{departures}% of decisions and the observation predicts "
                 "{matched_low}-{matched_high}% of those",
        numbers={"iqm10": at("vm_distill/rounds2.json", "rounds/1/sizes/0/learned_vs_room_fit/ratio_iqm"),
                 "iqm20": at("vm_distill/rounds2.json", "rounds/1/sizes/1/learned_vs_room_fit/ratio_iqm"),
                 "departures": computed("vm_distill/rounds2.json", lambda root: 100 * json_value(
                     root, "vm_distill/rounds2.json", "rounds/0/imitation/0/train/departures") / json_value(
                     root, "vm_distill/rounds2.json", "rounds/0/imitation/0/train/decisions"), ".0f"),
                 **{f"matched_{stat}": computed("vm_distill/departure20.json", lambda root, stat=stat: 100 * _PICK[stat](
                     seed["held_out"]["departures_matched"] for run in ("departure20", "departure200")
                     for seed in json_value(root, f"vm_distill/{run}.json", "rounds/0/imitation")), ".0f")
                    for stat in ("low", "high")}},
    ),
]


_HEADLINED = {item.id: item for item in ITEMS}
_rounded = functools.partial(rounded, _HEADLINED)


def _k_seed_gains(stat: str) -> Number:
    """``stat`` (min, max) over the 3 seeds of Fig. 12's k = 3 set's scheduled length above k = 5's, in percent."""
    first = K_SEED_RUNS["k3"][0][0]

    def value(root) -> float:
        gains = [100 * (float(json_value(root, k3, f"policies/{p3}/scheduled_length")) /
                        float(json_value(root, k5, f"policies/{p5}/scheduled_length")) - 1)
                 for (k3, p3), (k5, p5) in zip(K_SEED_RUNS["k3"], K_SEED_RUNS["k5_paper"])]
        return _PICK[stat](gains)
    return computed(first, value, ".0f")


VM_AT_N = "vm_cvd_frag_impact_50pm_at_n.json"
VM_K = "vm_cvd_frag_impact_k_50pm_ws0.5/{}/eval.json"
VM_SYNTHETIC = ("vm_cvd_synthetic_300it/metrics.csv", "vm_dqn_synthetic_300it/metrics.csv")


PROSE: dict[str, dict[str, Number]] = {  # numbers the prose pages quote beside the headlines'
    "vm_synthetic_300it": {"seconds": computed(VM_SYNTHETIC[0], lambda root: sum(
        column(root, file, "wall_s").sum() for file in VM_SYNTHETIC), ".0f")},
    "vm_heuristics_frag_room": {"low_r0": _HEADLINED["vm_heuristics_frag_room"].numbers["low"].to(".0f")},
    "vm_frag_impact_50pm": {
        "at_n_pm_low": vm_table_gain(VM_AT_N, "trained", "pm_best_fit", "min", fmt=".0f"),
        "at_n_pm_high": vm_table_gain(VM_AT_N, "trained", "pm_best_fit", "max", fmt=".0f"),
        "at_n_room_low": vm_table_gain(VM_AT_N, "trained", "room_fit", "min", fmt=".1f", below=True),
        "at_n_room_high": vm_table_gain(VM_AT_N, "trained", "room_fit", "max", fmt=".0f", below=True)},
    "vm_cvd_frag_impact_k_50pm_ws0.5": {
        "internal_over_bf": computed(VM_K.format("internal_top5"), lambda root: 100 * (
            float(json_value(root, VM_K.format("internal_top5"), "policies/trained-s0/scheduled_length")) /
            float(json_value(root, VM_K.format("bf_top5"), "policies/trained-s0/scheduled_length")) - 1), "+.0f"),
        "k10_vs_full_r0": _HEADLINED["vm_cvd_frag_impact_k_50pm_ws0.5"].numbers["k10_vs_full"].to("+.0f")},
    "vm_cvd_frag_impact_k_50pm_ws0.5_seeds": {"k3_over_k5_low": _k_seed_gains("min"),
                                              "k3_over_k5_high": _k_seed_gains("max")},
    "vm_planner": {"ci10_labelled": Number(_HEADLINED["vm_planner"].numbers["ci10"].file, lambda root: "[95% CI " + _HEADLINED[
        "vm_planner"].numbers["ci10"].text(root)[1:])},
    "bench_vm": _rounded("bench_vm", "rate", fmt=".0f", suffix="_r0"),
}
ITEMS = with_prose(ITEMS, PROSE)
