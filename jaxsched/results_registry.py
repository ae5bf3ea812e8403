"""Every committed item of ``results/``: what paper table or figure it stands for, the commands that
make it, the files it writes and how long it took on the project's 2-core CPU.

One list (:data:`ITEMS`) so that ``python -m jaxsched.reproduce`` and the index of results/README.md
are read from the same place and cannot drift. Commands are jaxsched modules with their arguments;
``{out}`` is the output folder (results/ by default) and ``{scratch}`` a folder for intermediate runs
that results/ does not keep (runs/reproduce_scratch by default). ``quick`` is appended to a command in
``--quick`` mode (train overrides and flags: the last value wins), ``quick_command`` replaces it.
Wall-clock numbers come from the run metadata (metrics.csv ``wall_s``, summed) or from results/README.md;
``estimate=True`` marks those measured by neither. A ``headline`` is a template: each ``{field}`` is one of the
item's ``numbers`` (:mod:`jaxsched.results_numbers`), read from the file it cites whenever the text is written
or checked, so that no measured value is typed by hand.
"""

from __future__ import annotations

import dataclasses
import re
import shlex
from typing import Callable, Mapping

import numpy as np

from jaxsched.core import stats
from jaxsched.results_numbers import (Number, NumberError, at, change, column, computed, csv_rows, given, json_value,
                                       noted, part, seed_interval, seeds, span, sweep,
                                       sweep_summary)


@dataclasses.dataclass(frozen=True)
class Step:
    """One command: a module and its arguments, with placeholders ``{out}`` and ``{scratch}``."""

    command: str
    quick: str = ""  # appended in --quick mode
    quick_command: str | None = None  # replaces the command in --quick mode

    def argv(self, out: str, scratch: str, quick: bool = False) -> list[str]:
        text = self.command
        if quick:
            text = self.quick_command if self.quick_command is not None else f"{text} {self.quick}"
        return [part.format(out=out, scratch=scratch) for part in shlex.split(text)]


@dataclasses.dataclass(frozen=True)
class Item:
    """One entry of results/: ``outputs`` are paths under ``{out}``; the item counts as done when they all
    exist. ``inputs`` must exist before it runs; ``needs`` are the items that make them."""

    id: str
    paper: str
    steps: tuple[Step, ...]
    outputs: tuple[str, ...]
    wall_s: float
    headline: str
    estimate: bool = False
    inputs: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()
    note: str = ""
    numbers: Mapping[str, Number] = dataclasses.field(default_factory=dict)  # the headline's {fields}



# Quick forms: a couple of iterations of a tiny batch, so that every command runs end to end in seconds.
TRAIN_QUICK = "iterations=2 chunk=1 checkpoint_every=1 eval_jobsets=2"
REINFORCE_QUICK = f"{TRAIN_QUICK} algo_options.num_jobsets=2 algo_options.num_rollouts=2"
BC_QUICK = "bc.num_jobsets=4 bc.max_epochs=1"
VM_QUICK = f"{TRAIN_QUICK} algo_options.learning_starts=64"
PPO_QUICK = f"{TRAIN_QUICK} algo_options.num_envs=4 algo_options.num_steps=16"
PPO_SUMMARY_QUICK = f"{PPO_QUICK} iterations=12"  # mdp_summary smooths over 10 iterations
GRID_QUICK = f"{TRAIN_QUICK} env_options.num_jobs=300 env_options.exclude=20 algo_options.num_envs=2 " \
             "algo_options.warm_start_iterations=1"


def train(out: str, config: str, *overrides: str, seeds: str = "", quick: str = TRAIN_QUICK) -> Step:
    """``jaxsched.train`` into ``out`` (options first, overrides last, so quick overrides append)."""
    seeds_flag = f" --seeds {seeds}" if seeds else ""
    return Step(f"jaxsched.train --config {config} --out {out}{seeds_flag} {' '.join(overrides)}".rstrip(),
                quick=quick)


def resume(run: str, iterations: int, quick_iterations: int) -> Step:
    return Step(f"jaxsched.train --resume {run} iterations={iterations}", quick=f"iterations={quick_iterations}")


def mdp_budget_item(name: str, paper: str, mdp: str, wall_s: float, headline: str, *,
                    config: str = "configs/mdp_ppo_compact.yaml", checkpoint_every: int = 625,
                    note: str = "", seeds: int = 5, iterations: int = 1875,
                    numbers: Mapping[str, Number] | None = None) -> Item:
    """A sweep of the MDP-design study's PPO over ``seeds`` seeds (``config``, bracis-7 unless ``mdp`` overrides
    it) at the paper's budget unless ``iterations`` says otherwise: 1875 iterations of 32 envs x 50 steps = 3.0M
    decisions per seed, 200 held-out jobsets; ``mdp``: the swept overrides, written to ``{out}/name``."""
    base, swept = f"jaxsched.sweep --config {config} --out {{out}}/{name}", f" {mdp}" if mdp else ""
    step = Step(f"{base} --seeds 0:{seeds}{swept} iterations={iterations} chunk=25 checkpoint_every={checkpoint_every} "
                "eval_jobsets=200",
                quick_command=f"{base} --seeds 0:2{swept} iterations=2 chunk=1 checkpoint_every=1 eval_jobsets=5")
    return Item(id=name, paper=paper, steps=(step,), outputs=(f"{name}/summary.csv", f"{name}/report.md"),
                wall_s=wall_s, headline=headline, note=note, numbers=numbers or {})


def distill_step(name: str, options: str) -> Step:
    """One run of the planner's distillation (vm-frag, trained at 10 PMs on 32 training starts, 5 seeds,
    measured on vm_planner's 50 held-out starts at 10 and 20 PMs) into ``{out}/vm_distill/name.json``."""
    common = "jaxsched.studies.vm_distill --env vm-frag --held-out-from 7000"
    return Step(f"{common} --num-pms 10,20 --train-starts 32 --seeds 5 {options} --out {{out}}/vm_distill/{name}.json",
                quick_command=f"{common} --num-pms 3 --train-starts 1 --held-out-label-starts 1 --eval-starts 2 "
                              f"--seeds 1 --steps 20 {options} --out {{out}}/vm_distill/{name}.json")


def slot_scorer_sweep(name: str, lead: str = "", cloned: bool = True, seeds: str = "0:8") -> Step:
    """The DeepRM sweep of the shared job scorer over ``seeds`` (150 iterations of 10 x 10; with ``cloned``,
    BC on 400 jobsets first) into ``{out}/name``; ``lead``: overrides (and swept axes) before the common ones."""
    def command(seeds: str, size: str, bc: str) -> str:
        network = "algo_options.network=slots" + (f" bc.network=slots {bc}" if cloned else "")
        return (f"jaxsched.sweep --config configs/deeprm_slowdown_bc.yaml --seeds {seeds} --out {{out}}/{name} "
                f"{lead}{size} {network}")

    return Step(command(seeds, "iterations=150 algo_options.num_jobsets=10 algo_options.num_rollouts=10",
                        "bc.num_jobsets=400 bc.patience=10") + " devices=auto",
                quick_command=command("0:2", "iterations=2 chunk=1 checkpoint_every=1 eval_jobsets=5 "
                                      "algo_options.num_jobsets=2 algo_options.num_rollouts=2",
                                      "bc.num_jobsets=20 bc.max_epochs=5"))


def one_run_item(name: str, label: str, paper: str, training: Step, wall_s: float, headline: str,
                 note: str = "", beside: dict[str, str] | None = None,
                 numbers: Mapping[str, Number] | None = None) -> Item:
    """One training run (``training`` writes ``{scratch}/label``) and its learning curves and held-out table
    from ``compare_runs``, written to ``{out}/name``; ``beside``: {label: item id} of other one-run items
    whose runs are compared with it (their checkpoints are this item's inputs)."""
    beside = beside or {}
    runs = " ".join(f"{run}={{scratch}}/{run}" for run in (*beside, label))
    compare = Step(f"jaxsched.studies.compare_runs --out {{out}}/{name} {runs}")
    return Item(id=name, paper=paper, steps=(training, compare),
                outputs=(f"{name}/summary.json", f"{name}/learning_curves_iteration.png"),
                wall_s=wall_s, headline=headline, note=note, numbers=numbers or {},
                inputs=tuple(f"{{scratch}}/{run}/checkpoints" for run in beside), needs=tuple(beside.values()))


def copy(source: str, target: str) -> Step:
    """A file kept under another name (e.g. an evaluation before a run was resumed)."""
    return Step(f"copy {source} {target}")


# Tetris*'s knob (its weight on Packer's alignment score; 1 - knob on 1 / duration) from nearly SJF to the default.
TETRIS_KNOBS = ",".join(f"tetris:{knob}" for knob in (0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.8))
VM_CVD = "configs/vm_cvd_frag.yaml"
VM_DQN = "configs/vm_dqn_frag.yaml"
VM_IMPACT = "configs/vm_cvd_frag_impact.yaml"
VM_TABLE_QUICK = "--num-pms 5 --warm-start 0 --starts 2"
DEEPRM_BC = "configs/deeprm_slowdown_bc.yaml"


# ---- readers of the DeepRM and bench items' own files (compare_runs summaries, bench rows) ----------------


def _seed_rows(root, file: str, run: str) -> list[dict]:
    """The held-out rows of ``run``'s seeds (``trained-sK-sampled``) in a compare_runs summary."""
    held = json_value(root, file, f"runs/{run}/heldout")
    return [row for name, row in held.items() if re.fullmatch(r"trained-s\d+-sampled", name)]


def _jobs_left(file: str, path: str) -> Number:
    """``jobs - finished`` of the policy row at ``path`` of the JSON ``file``."""
    return Number(file, lambda root: str(int(json_value(root, file, f"{path}/jobs"))
                                         - int(json_value(root, file, f"{path}/finished"))))


def _below(file: str, run: str, baseline: str = "sjf", metric: str = "mean_slowdown") -> Number:
    """``k/n``: of ``run``'s seeds, how many are below ``baseline``'s held-out ``metric`` with every job
    finished (a compare_runs summary)."""
    def read(root) -> str:
        theirs = float(json_value(root, file, f"runs/{run}/heldout/{baseline}/{metric}"))
        rows = _seed_rows(root, file, run)
        return f"{sum(r['finished'] == r['jobs'] and r[metric] < theirs for r in rows)}/{len(rows)}"
    return Number(file, read)


def _seeds_interval(file: str, run: str, metric: str = "mean_slowdown", fmt: str = ".2f") -> Number:
    """The interval of ``run``'s sampled seeds in a compare_runs summary (the range under 5 seeds)."""
    return Number(file, lambda root: seed_interval([r[metric] for r in _seed_rows(root, file, run)]).text(fmt))


def _beats_heuristics_from(root) -> float:
    """The lowest load of deeprm_fig4_trained_at_0.7 from which, at every load up, the sampled policy
    finishes every job with a mean slowdown below every heuristic's."""
    loads = json_value(root, "deeprm_fig4_trained_at_0.7/summary.json", "")
    lowest = None
    for load in sorted(loads, key=float, reverse=True):
        rows = loads[load]
        mine = rows["checkpoint-sampled"]
        if mine["finished"] != mine["jobs"] or any(
                mine["mean_slowdown"] >= rows[h]["mean_slowdown"] for h in ("sjf", "packer", "tetris", "random")):
            break
        lowest = float(load)
    if lowest is None:
        raise NumberError("the sampled policy does not beat every heuristic at the highest load")
    return lowest


def _sjf_best(file: str) -> Number:
    """``k/n``: at how many of ``file``'s loads SJF's mean slowdown is the lowest (ties included)."""
    def read(root) -> str:
        loads = json_value(root, file, "")
        best = sum(rows["sjf"]["mean_slowdown"] <= min(r["mean_slowdown"] for r in rows.values())
                   for rows in loads.values())
        return f"{best}/{len(loads)}"
    return Number(file, read)


def _beating_all(name: str, cell: str, heuristics=("sjf", "packer", "tetris", "random")) -> Number:
    """``k/n``: of a sweep cell's seeds, how many finish every job with a sampled mean slowdown below every
    heuristic's."""
    file = f"{name}/summary.csv"
    def read(root) -> str:
        rows = csv_rows(root, file, {"run_dir": cell})
        wins = sum(int(float(r["final_sampled_finished"])) == int(float(r["final_sampled_jobs"])) and
                   float(r["final_sampled_mean_slowdown"]) < min(float(r[f"final_{h}_mean_slowdown"]) for h in heuristics)
                   for r in rows)
        return f"{wins}/{len(rows)}"
    return Number(file, read)


def _withheld_long(root) -> float:
    """The percentage of the jobs the trained policy withholds (deeprm_fig7_load1.1) that are long (>= 10 steps)."""
    counts = json_value(root, "deeprm_fig7_load1.1/withholding.json", "policies/trained/withheld_job_length_histogram")
    return 100 * sum(n for length, n in counts.items() if int(length) >= 10) / sum(counts.values())


def _heldout_seed(file: str, run: str, seed: int, metric: str = "mean_slowdown", fmt: str = ".2f") -> Number:
    """Seed ``seed``'s sampled held-out ``metric`` of ``run`` in a compare_runs summary."""
    return at(file, f"runs/{run}/heldout/trained-s{seed}-sampled/{metric}", fmt)


DRM_RECIPE, DRM_RECIPE_BC = "deeprm_paper_recipe_h200/summary.json", "deeprm_paper_recipe_bc_h200/summary.json"
DRM_MLP_BC, DRM_MLP = "deeprm2_mlp_bc_h200/summary.json", "deeprm2_mlp_h200/summary.json"


DRM2_FIG3 = "deeprm2_fig3_h200/load{}/summary.json"
DRM2_FIG4 = "deeprm2_fig4_load0.7/summary.json"
DRM2_FIG6 = "deeprm2_fig6_load0.7/slowdown_by_length.json"
DRM2_FIG6_SERIES = (("mlp", "DeepRM (MLP, lr 1e-3, 330 it)"), ("sjf", "SJF"), ("cnn", "DeepRM2 (CNN + BC, 190 it)"))
SHORT_JOBS, LONG_JOBS = (1, 2, 3), tuple(range(10, 16))


def _by_length(series: str, stat: str, lengths: tuple[int, ...], fmt: str = ".1f", part: str = "") -> Number:
    """``low-high``: the range over ``lengths`` of ``series``' per-length ``stat`` (median, q3) in deeprm2_fig6
    (``part`` "low" or "high": that end alone)."""
    def read(root) -> str:
        values = [float(json_value(root, DRM2_FIG6, f"series/{series}/by_length/{n}/{stat}")) for n in lengths]
        low, high = f"{min(values):{fmt}}", f"{max(values):{fmt}}"
        return {"low": low, "high": high}.get(part, f"{low}-{high}")
    return Number(DRM2_FIG6, read)


def _decision_rate(root, file: str) -> float:
    """Decisions per second of a bench train file's one row (decisions per iteration / median seconds)."""
    row = json_value(root, file, "rows/0")
    return row["decisions_per_iteration"] / row["seconds_per_iteration_median"]


def _call_ratios(root) -> list[float]:
    """bench_env's one-step-per-Python-call ratios of the DeepRM and VM families."""
    return [r["ratio"] for r in json_value(root, "bench_env.json", "rows")
            if r["family"] in ("deeprm", "vm") and r["workload"].endswith("one step per Python call")]


def _seeds_iqm(file: str, run: str, metric: str = "mean_slowdown", fmt: str = ".2f") -> Number:
    """The IQM of ``run``'s sampled seeds' held-out ``metric`` in a compare_runs summary."""
    return Number(file, lambda root: format(float(stats.iqm(np.array([r[metric] for r in _seed_rows(root, file, run)]))),
                                            fmt))


def _bench_row(file: str, key: str = "ratio", fmt: str = ".1f", **match) -> Number:
    """``key`` of the one row of ``file``'s ``rows`` whose columns equal ``match`` (a bench file)."""
    def value(root) -> float:
        rows = [r for r in json_value(root, file, "rows") if all(r.get(k) == v for k, v in match.items())]
        if len(rows) != 1:
            raise NumberError(f"{file}: {len(rows)} rows with {match}")
        return float(rows[0][key])
    return computed(file, value, fmt)


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


MDP_SCENARIOS = ("bracis-1", "bracis-2", "bracis-3", "bracis-7")
MDP_VARIANTS = {  # run-name suffix: observation, stepping, reward_jobs, iterations, chunk (train_study.sh)
    "compact": ("bracis", "time", "all", 60, 10),
    "event": ("bracis", "event", "visible", 8, 2),
    "image": ("image", "time", "all", 30, 5),
}


def _mdp_study_runs() -> tuple[Step, ...]:
    steps = []
    for variant, (observation, stepping, reward_jobs, iterations, chunk) in MDP_VARIANTS.items():
        for scenario in MDP_SCENARIOS:
            steps.append(train(f"{{scratch}}/mdp/{scenario}_{variant}", "configs/mdp_ppo_compact.yaml",
                               f"env={scenario}", f"env_options.observation={observation}",
                               f"env_options.stepping={stepping}", f"env_options.reward_jobs={reward_jobs}",
                               f"iterations={iterations}", f"chunk={chunk}", f"checkpoint_every={iterations}",
                               "eval_jobsets=0", seeds="0,1,2",
                               quick=PPO_QUICK))
    return tuple(steps)


FIG4 = "jaxsched.studies.mdp_study fig4 --runs {scratch}/mdp --jobsets 1000 --out {out}/mdp_ppo/fig4.json"
FIG4_QUICK = "--jobsets 2 --transfer-jobsets 2 --max-time 100"
GRID_TABLES = ("jaxsched.studies.grid_tables --episodes 8 --seed 12345 --option candidates=per_class "
               "--run rig-ora={out}/grid_esn_oracle --run rig-est={out}/grid_esn_estimated "
               "--run ela-ora-0.5={out}/grid_elastic_esn_l0.5 --run ela-ora-1={out}/grid_elastic_esn_l1.0 "
               "--out {out}/grid")
SWF_EVAL = ("jaxsched.studies.swf_eval --trace dataset:{trace} --window 128 --quantum 600 "
            "--policies sjf,packer,fcfs,easy,random --checkpoint {{scratch}}/mdp/bracis-7_compact "
            "--checkpoint {{scratch}}/mdp/bracis-1_compact --out {{out}}/mdp_swf/{name}.json")
SWF_3M = ("jaxsched.studies.swf_eval --trace dataset:{trace} --window 128 --quantum 600 "
          "--policies sjf,packer,fcfs,easy,random --checkpoint {{out}}/sweep_mdp_compact_3m/cells/{cell} "
          "--num-windows {windows} --episodes {episodes} --out {{out}}/mdp_swf_3m/{name}.json")
SWF_3M_CELL = ("cell000__env_options.stepping=time__env_options.reward_jobs=all__iterations=1875__chunk=25__"
               "checkpoint_every=625__eval_jobsets=200")
SWF_3M_QUICK_CELL = ("cell000__env_options.stepping=time__env_options.reward_jobs=all__iterations=2__chunk=1__"
                     "checkpoint_every=1__eval_jobsets=5")
BRACIS_ALL = " ".join(f"bracis-{n}" for n in range(1, 11))
MDP_3M_SETTINGS = "iterations=1875__chunk=25__checkpoint_every=625__eval_jobsets=200"  # a 3M cell's name, after
MDP_3M_QUICK_SETTINGS = "iterations=2__chunk=1__checkpoint_every=1__eval_jobsets=5"  # its swept overrides
MDP_FIRST, MDP_DEEPRM = "mdp_ppo/bracis-1/summary.json", "mdp_ppo/deeprm/summary.json"  # files the texts quote
MDP_FIG4, MDP_LUBLIN, MDP_FIG4_3M = "mdp_ppo/fig4.json", "mdp_swf/lublin-256.json", "mdp_figures_3m/fig4.json"
SEPARATE_3M_CELLS = {"b1": "cell000", "b9": "cell001", "b2": "cell002", "b10": "cell003", "b8": "cell004",
                     "b6": "cell005", "b5": "cell006", "b4": "cell007", "b3": "cell008"}  # sweep_mdp_separate_critic_3m_scenarios
WON_6M_CELLS = {"b8": "cell000", "b9": "cell001", "b4": "cell002", "b5": "cell003", "b2": "cell004",
                "b10": "cell005"}  # sweep_mdp_separate_critic_6m_won
MDP_TRANSFER, MDP_TRANSFER_SEPARATE = "mdp_transfer_3m/time.json", "mdp_transfer_3m_separate_critic/time.json"
MDP_IMAGE_METRICS = "sweep_mdp_image_3m/cells/cell000__iterations=1875__chunk=25__checkpoint_every=125__" \
                    "eval_jobsets=200/metrics.csv"


def transfer_3m_item(name: str, paper: str, source: str, specialised: tuple[str, ...], steppings: tuple[str, ...],
                     wall_s: float, headline: str, swept: str = "", numbers: Mapping[str, Number] | None = None) -> Item:
    """``mdp_transfer`` of the bracis-7 agent of the sweep ``source`` (cell ``cell000__{swept}<3M settings>``,
    ``swept`` naming its swept overrides) on all ten scenarios, 5 seeds sampled, 200 jobsets, beside the
    specialised agents of the sweeps ``specialised`` (which include ``source``); one step per stepping,
    written to ``{out}/name/<stepping>.{json,md}``."""
    def command(settings: str, stepping: str, scenarios: str, jobsets: int) -> str:
        own = " ".join(f"--specialised {{out}}/{sweep}" for sweep in specialised)
        return (f"jaxsched.studies.mdp_transfer {{out}}/{source}/cells/cell000__{swept}{settings} "
                f"{{out}}/{name}/{stepping}.json {scenarios} --all-seeds --sampled --stepping {stepping} "
                f"--jobsets {jobsets} {own}")
    steps = tuple(Step(command(MDP_3M_SETTINGS, stepping, BRACIS_ALL, 200),
                       quick_command=command(MDP_3M_QUICK_SETTINGS, stepping, "bracis-1 bracis-7", 5))
                  for stepping in steppings)
    return Item(id=name, paper=paper, steps=steps,
                outputs=tuple(f"{name}/{stepping}.{ext}" for stepping in steppings for ext in ("json", "md")),
                wall_s=wall_s, inputs=(f"{{out}}/{source}/cells/cell000__{swept}{MDP_3M_SETTINGS}/config.json",),
                needs=specialised, headline=headline, numbers=numbers or {})


def _cells_where(cell: str) -> dict | None:
    return {"run_dir": cell} if cell else None


def seeds_unfinished(name: str, policy: str = "", cell: str = "") -> Number:
    """How many seeds of the sweep ``name`` (``cell``) leave jobs unfinished (greedy unless ``policy``)."""
    file, prefix = f"{name}/summary.csv", f"final_{policy}_" if policy else "final_"
    return computed(file, lambda root: sum(float(r[prefix + "finished"]) < float(r[prefix + "jobs"])
                                           for r in csv_rows(root, file, _cells_where(cell))), "d")


def jobs_unfinished(name: str, policy: str = "", cell: str = "") -> Number:
    """How many jobs the seeds of the sweep ``name`` (``cell``) leave unfinished, summed (greedy unless ``policy``)."""
    file, prefix = f"{name}/summary.csv", f"final_{policy}_" if policy else "final_"
    return computed(file, lambda root: sum(int(float(r[prefix + "jobs"])) - int(float(r[prefix + "finished"]))
                                           for r in csv_rows(root, file, _cells_where(cell))), "d")



def cell_numbers(name: str, cells, interval: str = "_ci", packer: bool = True, prefix: str = "") -> dict[str, Number]:
    """For each ``(key, cell)`` of ``cells`` (a sweep ``name``'s cells, e.g. one per scenario): the sampled IQM
    as ``prefix + key``, its seed interval (``+ interval``) and SJF's (``_sjf``) and Packer's (``_packer``) levels."""
    cells = cells.items() if isinstance(cells, dict) else cells
    options = {"": {}, interval: {"stat": "interval"}, "_sjf": {"policy": "sjf", "stat": "value"}}
    if packer:
        options["_packer"] = {"policy": "packer", "stat": "value"}
    return {f"{prefix}{key}{suffix}": sweep(name, cell=cell, **option)
            for key, cell in cells for suffix, option in options.items()}

def over_cells(name: str, stat: str, cells: tuple[str, ...], metric: str = "mean_completion_time",
               policy: str = "sampled", fmt: str = ".1f") -> Number:
    """``stat`` (min or max) of ``final_[policy_]metric`` over the seeds of ``cells`` of the sweep ``name``."""
    file, name_of = f"{name}/summary.csv", f"final_{policy}_{metric}" if policy else f"final_{metric}"
    pick = {"min": min, "max": max}[stat]
    return computed(file, lambda root: pick(float(v) for c in cells
                                            for v in column(root, file, name_of, {"run_dir": c})), fmt)


def beating_cells(name: str, cells: tuple[str, ...], than: str = "sjf") -> Number:
    """``k/n``: seeds of ``cells`` of the sweep ``name`` beating ``than`` sampled with every job finished."""
    parts = [sweep(name, stat="beating", cell=cell, than=than) for cell in cells]

    def read(root) -> str:
        counts = [tuple(int(x) for x in part.text(root).split("/")) for part in parts]
        return f"{sum(k for k, _ in counts)}/{sum(n for _, n in counts)}"
    return Number(f"{name}/summary.csv", read)


def iqm_over_sjf(name: str, stat: str, fmt: str = ".1f") -> Number:
    """``stat`` (min or max) over the cells of the sweep ``name`` of the sampled IQM divided by SJF's."""
    file = f"{name}/summary.csv"

    def value(root) -> float:
        cells = sorted({r["run_dir"].split("/")[-1].split("__")[0] for r in csv_rows(root, file)})
        ratios = [float(sweep(name, cell=c, fmt=".17g").text(root)) / float(sweep(name, policy="sjf", stat="value",
                                                                                  cell=c, fmt=".17g").text(root))
                  for c in cells]
        return {"min": min, "max": max}[stat](ratios)
    return computed(file, value, fmt)


def transfer_count(file: str, test: Callable[[dict], bool]) -> Number:
    """How many of the transfer file's scenarios other than the one trained on pass ``test`` (a scenario's entry)."""
    def value(root) -> int:
        trained_on = json_value(root, file, "trained_on")
        return sum(bool(test(entry)) for scenario, entry in json_value(root, file, "scenarios").items()
                   if scenario != trained_on)
    return computed(file, value, "d")


def _unfinished(entry: dict) -> int:
    over = entry["transferred_over_seeds"]
    return int(over["jobs"]) - int(over["finished"])


def transfer_unfinished(file: str, stat: str) -> Number:
    """``stat`` (min or max) of the jobs the transferred agent leaves unfinished (over seeds), over the scenarios
    where it leaves some."""
    pick = {"min": min, "max": max}[stat]
    return computed(file, lambda root: pick(n for n in map(_unfinished, json_value(root, file, "scenarios").values())
                                            if n), "d")


def fig4_seeds(agent: str, beating: str) -> Number:
    """``k/n``: seeds of ``agent`` in mdp_figures_3m's Fig. 4 beating ``beating`` (sjf, packer)."""
    file = "mdp_figures_3m/fig4.json"
    return Number(file, lambda root: f"{json_value(root, file, f'agents/{agent}/seeds_beating_{beating}')}/"
                                     f"{json_value(root, file, f'agents/{agent}/seeds')}")


def late_entropy(metrics: str, last: int = 375, fmt: str = ".3f") -> Number:
    """The policy entropy of a run's ``metrics`` (metrics.csv under results/), averaged over its seeds and its last
    ``last`` iterations."""
    def value(root) -> float:
        rows = csv_rows(root, metrics)
        final = max(int(r["iteration"]) for r in rows)
        late = [float(r["entropy"]) for r in rows if int(r["iteration"]) > final - last]
        return sum(late) / len(late)
    return computed(metrics, value, fmt)


# BRACIS'21 Figs. 3 and 4 at 3M decisions: each agent type and the sweeps that trained it, one cell per scenario.
MDP_FIGURES_3M_AGENTS = {
    "compact_sparse_reduced": ("sweep_mdp_sparse_reduced_3m", "sweep_mdp_sparse_reduced_3m_bracis1",
                               "sweep_mdp_sparse_reduced_3m_scenarios"),
    "compact_sparse_reduced_separate": ("sweep_mdp_sparse_reduced_3m_separate_critic",
                                        "sweep_mdp_separate_critic_3m_scenarios"),
    "image": ("sweep_mdp_image_3m", "sweep_mdp_image_3m_small", "sweep_mdp_image_3m_scenarios"),
    "image_separate": ("sweep_mdp_image_separate_critic_3m_scenarios", "sweep_mdp_image_separate_critic_3m_bracis7",
                       "sweep_mdp_image_separate_critic_3m_largest", "sweep_mdp_image_separate_critic_3m_mid"),
    "compact_image_mdp": ("sweep_mdp_compact_3m", "sweep_mdp_compact_3m_scenarios"),
}
MDP_FIGURES_3M = "jaxsched.studies.mdp_budget_figures --out {out}/mdp_figures_3m " + " ".join(
    f"{label}=" + ",".join(f"{{out}}/{sweep}" for sweep in sweeps) for label, sweeps in MDP_FIGURES_3M_AGENTS.items())


DEEPRM2 = "configs/deeprm2_cnn_bc.yaml"
DEEPRM2_SMALL = ("algo_options.num_jobsets=4", "algo_options.num_rollouts=5", "bc.num_jobsets=50", "bc.max_epochs=15")
# DeepRM2 Fig. 3: per load, the iterations its CNN + BC reached in one H200 session.
DEEPRM2_FIG3_ITERATIONS = {"0.7": 190, "1.0": 190, "1.3": 180}
DEEPRM2_CLONED = ("bc.num_jobsets=200", "bc.max_epochs=100", "algo_options.lr=1e-4")


def deeprm2_fig3_run(label: str, load: str, iterations: int, *options: str) -> Step:
    quick = REINFORCE_QUICK if "bc=null" in options else f"{REINFORCE_QUICK} {BC_QUICK}"
    return train(f"{{scratch}}/deeprm2_fig3/{label}_l{load}", DEEPRM2, f"env_options.load={load}", *options,
                 f"iterations={iterations}", "checkpoint_every=10", seeds="0,1,2", quick=quick)


def deeprm2_fig3_steps() -> tuple[Step, ...]:
    """Per load, CNN + BC at lr 1e-4 (cloning 200 jobsets), 20 x 20 rollouts, 3 seeds, beside MLP + BC for the
    same iterations (at 1.0 deeprm2_mlp_bc_h200's, 420) and the MLP without cloning (0.7: DeepRM's lr 1e-3,
    330 iterations; 1.0: deeprm2_mlp_h200's; 1.3: none). compare_runs writes ``load<L>/``."""
    mlp = {"0.7": {"mlp_bc": "{scratch}/deeprm2_fig3/mlp_bc_l0.7", "mlp": "{scratch}/deeprm2_fig3/mlp_l0.7"},
           "1.0": {"mlp_bc": "{scratch}/mlp_bc_20x20", "mlp": "{scratch}/mlp_20x20"},
           "1.3": {"mlp_bc": "{scratch}/deeprm2_fig3/mlp_bc_l1.3"}}
    steps = [deeprm2_fig3_run("mlp", "0.7", 330, "bc=null", "algo_options.network=mlp", "algo_options.lr=1e-3",
                              "chunk=10")]
    for load, iterations in DEEPRM2_FIG3_ITERATIONS.items():
        steps.append(deeprm2_fig3_run("cnn_bc", load, iterations, *DEEPRM2_CLONED, "chunk=1"))
        if load != "1.0":
            steps.append(deeprm2_fig3_run("mlp_bc", load, iterations, *DEEPRM2_CLONED, "bc.network=mlp",
                                          "algo_options.network=mlp", "chunk=10"))
        labels = " ".join(f"{label}={run}" for label, run in
                          {"cnn_bc": f"{{scratch}}/deeprm2_fig3/cnn_bc_l{load}", **mlp[load]}.items())
        steps.append(Step(f"jaxsched.studies.compare_runs --out {{out}}/deeprm2_fig3_h200/load{load} {labels}"))
    return tuple(steps)


def deeprm2_fig4_steps() -> tuple[Step, ...]:
    """DeepRM2 Fig. 4 at load 0.7: :func:`deeprm2_fig3_steps`' three recipes (DeepRM's MLP, lr 1e-3, 330
    iterations; MLP + BC and CNN + BC, lr 1e-4, the CNN's iterations at 0.7) trained on completion time (reward
    -|J|), then beside the slowdown-trained policies (deeprm2_fig3_h200's copies of their runs) on the same
    held-out jobsets."""
    completion, iterations = "env_options.reward=completion_time", DEEPRM2_FIG3_ITERATIONS["0.7"]
    runs = {"mlp_completion": "{scratch}/deeprm2_fig3/mlp_completion_l0.7",
            "mlp_bc_completion": "{scratch}/deeprm2_fig3/mlp_bc_completion_l0.7",
            "cnn_bc_completion": "{scratch}/deeprm2_fig3/cnn_bc_completion_l0.7",
            **{label: f"{{out}}/deeprm2_fig3_h200/load0.7/{label}" for label in ("mlp", "mlp_bc", "cnn_bc")}}
    labels = " ".join(f"{label}={run}" for label, run in runs.items())
    return (deeprm2_fig3_run("mlp_completion", "0.7", 330, completion, "bc=null", "algo_options.network=mlp",
                             "algo_options.lr=1e-3", "chunk=10"),
            deeprm2_fig3_run("mlp_bc_completion", "0.7", iterations, completion, *DEEPRM2_CLONED, "bc.network=mlp",
                             "algo_options.network=mlp", "chunk=10"),
            deeprm2_fig3_run("cnn_bc_completion", "0.7", iterations, completion, *DEEPRM2_CLONED, "chunk=1"),
            Step(f"jaxsched.studies.compare_runs --out {{out}}/deeprm2_fig4_load0.7 {labels}"))


def deeprm2_fig6_steps() -> tuple[Step, ...]:
    """Per-job outcomes of Random, SJF and the two load-0.7 policies of :func:`deeprm2_fig3_steps` on the held-out
    jobsets their training evaluated (seed 99991), then the box plots per job length."""
    out = "{out}/deeprm2_fig6_load0.7"
    evaluations = [Step(f"jaxsched.evaluate --checkpoint {{scratch}}/deeprm2_fig3/{run} --seed-index 0 "
                        f"--policies {policies} --jobsets 100 --seed 99991 --per-job {out}/{label}.csv "
                        f"--summary {out}/{label}.json",
                        quick="--jobsets 3")
                   for label, run, policies in (("cnn_bc", "cnn_bc_l0.7", "random,sjf,checkpoint-sampled"),
                                                ("mlp", "mlp_l0.7", "checkpoint-sampled"))]
    series = {"Random": "cnn_bc.csv:random", "SJF": "cnn_bc.csv:sjf",
              "DeepRM (MLP, lr 1e-3, 330 it)": "mlp.csv:checkpoint-sampled",
              f"DeepRM2 (CNN + BC, {DEEPRM2_FIG3_ITERATIONS['0.7']} it)": "cnn_bc.csv:checkpoint-sampled"}
    flags = " ".join(shlex.quote(f"--series={label}={out}/{spec}") for label, spec in series.items())
    title = shlex.quote("--title=Slowdown by job length, load 0.7, 100 held-out jobsets (DeepRM2 Fig. 6)")
    return (*evaluations, Step(f"jaxsched.studies.slowdown_by_length --out {out} {flags} {title}"))


def sweep_cell_name(overrides: list[str]) -> str:
    """The folder ``jaxsched.sweep`` gives its first cell for these ``key=value`` overrides: the rule of
    :func:`jaxsched.sweep.cell_name`, restated here so that the registry imports no command
    (tests/test_reproduce.py checks that the two agree)."""
    return re.sub(r"[^A-Za-z0-9._=+-]+", "-", "cell000__" + "__".join(overrides))[:150]


# ---- VM placement numbers: eval.json (``policies``), vm_table files (``rows``: PMs x warm start x policy) and
# the impact sweeps' summary.csv (scheduled length: higher is better) --------------------------------------------

_PICK = {"min": min, "max": max, "low": min, "high": max}
ABLATION_5PM = tuple((f"{run}/eval.json", "trained-s0") for run in (
    *(f"vm_cvd_frag_ablation/{name}" for name in ("full_k5_3000it", "no_top_k", "no_decomposition", "no_lookahead",
                                                  "k3", "k7", "k10")), "vm_cvd_frag_5pm_gamma1"))
CVD_WS05 = "vm_cvd_frag_impact_50pm_ws0.5"  # the CVD-RL run at the paper's Table 2 setting (50 PMs, warm start 0.5)
SWEEP_WS05 = "sweep_vm_cvd_frag_impact_50pm_ws0.5"  # the same over seeds


def vs_ws05_seed0(file: str, fmt: str = "+.1f") -> Number:
    """A run's greedy held-out scheduled length (eval.json ``file``, seed 0) relative to seed 0 of the 3-seed sweep
    at the same setting, in percent."""
    seed0 = seeds(f"{SWEEP_WS05}/summary.csv", "final_scheduled_length", "value", ".17g", seed=0)
    return computed(file, lambda root: 100 * (float(json_value(root, file, "policies/trained-s0/scheduled_length")) /
                                              float(seed0.text(root)) - 1), fmt)


def vs_ws05_iqm(file: str, fmt: str = "+.1f") -> Number:
    """A run's greedy held-out scheduled length (eval.json ``file``, seed 0) relative to the 3-seed sweep's IQM."""
    iqm = sweep(SWEEP_WS05, "scheduled_length", "", fmt=".17g")
    return computed(file, lambda root: 100 * (float(json_value(root, file, "policies/trained-s0/scheduled_length")) /
                                              float(iqm.text(root)) - 1), fmt)


K_SEED_RUNS = {run: ((f"vm_cvd_frag_impact_k_50pm_ws0.5/{run}/eval.json", "trained-s0"),  # Fig. 12's two sets
                     *((f"vm_cvd_frag_impact_k_50pm_ws0.5_seeds/{run}/eval.json", f"trained-s{seed}")
                       for seed in (1, 2)))
               for run in ("k3", "k5_paper")}
IMPACT_LEARNED = tuple((f"vm_cvd_frag_impact_variants/{run}/eval.json", "trained-s0")
                       for run in ("imp10", "imp3", "imp10_g75", "imp10_g5"))


def grid_seed_interval(policy: str, file: str = "grid/grid_tables.json") -> Number:
    """The interval over seeds of a learner's interactive W in a grid_tables file (``policy``: "rigid/rig-ora"):
    ``[low, high]`` (its CI) over >= 5 seeds, else ``[range low, high]`` (with 3 seeds the file's CI bounds are
    the seeds' extremes)."""
    def read(root) -> str:
        over = json_value(root, file, f"{policy}/interactive_W_over_seeds")
        text = f"{over['ci_low']:.3f}, {over['ci_high']:.3f}"
        return f"[{text}]" if over["n"] >= 5 else f"[range {text}]"
    return Number(file, read)


def _bench_grid_1024(root) -> dict:
    """bench_grid.json's row at batch 1024."""
    rows = [r for r in json_value(root, "bench_grid.json", "rows") if r["batch"] == 1024]
    if len(rows) != 1:
        raise NumberError(f"bench_grid.json: {len(rows)} rows at batch 1024")
    return rows[0]


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


def _trace_ppo(root, name: str, sampled: bool) -> list[float]:
    """Held-out mean bounded slowdown of each trace-trained PPO seed in a trace_policy eval.json."""
    policies = json_value(root, f"{name}/eval.json", "policies")
    suffix = "-sampled" if sampled else ""
    values = [row["mean_bounded_slowdown"] for key, row in policies.items()
              if re.fullmatch(rf"ppo-s\d+{suffix}", key)]
    if not values:
        raise NumberError(f"{name}/eval.json: no ppo-s<seed>{suffix} rows")
    return values


def trace_policy_numbers(name: str) -> dict[str, Number]:
    """The headline fields of a trace_policy study: PPO's IQM and interval over seeds (greedy and sampled),
    the deployed rules it is measured against, and the held-out job count every row finished."""
    file = f"{name}/eval.json"
    numbers = {"seeds": computed(file, lambda root: len(_trace_ppo(root, name, False)), ".0f")}
    for kind, sampled in (("greedy", False), ("sampled", True)):
        numbers[kind] = computed(file, lambda root, s=sampled: stats.iqm(_trace_ppo(root, name, s)))
        numbers[f"{kind}_ci"] = Number(file, lambda root, s=sampled: seed_interval(_trace_ppo(root, name, s)).text(".3f"))
    for rule in ("f1+easy", "f1", "easy", "sjf-requested+easy", "unicep+easy", "fcfs"):
        numbers[rule.replace("+", "_").replace("-", "_")] = at(file, f"policies/{rule}/mean_bounded_slowdown")
    numbers["jobs"] = computed(file, lambda root: _every_row_finished(root, name), ".0f")
    return numbers


def _every_row_finished(root, name: str) -> int:
    """The held-out job count, read only if every heuristic and trace-trained row of the study finished all
    its jobs (the headline says so; synthetic agents' rows are quoted with their own finished / jobs)."""
    policies = json_value(root, f"{name}/eval.json", "policies")
    unfinished = [key for key, row in policies.items()
                  if row["finished"] != row["jobs"] and not key.startswith("synthetic:")]
    if unfinished:
        raise NumberError(f"{name}/eval.json: {', '.join(unfinished)} leave jobs unfinished")
    return policies["fcfs"]["jobs"]


SYNTHETIC_AGENTS = ("bracis7-ppo-6m", "bracis3-ppo-12m")  # the shipped MDP-design agents the ablations run beside


def trace_policy_item(name: str, trace: str, label: str, wall_s: float, ablation: str = "") -> Item:
    """A trace_policy study; ``ablation`` names a configs/studies/trace_ppo_compact_<ablation>.yaml that differs
    from the study's config in one choice, run with the shipped synthetic agents beside it."""
    options = "--seeds 0,1,2,3,4"
    numbers = trace_policy_numbers(name)
    headline = ("{seeds} seeds, held-out mean bounded slowdown: PPO greedy IQM {greedy} {greedy_ci}, sampled "
                "{sampled} {sampled_ci}; best rule F1 + EASY {f1_easy} (F1 {f1}), SJF by requested time + EASY "
                "{sjf_requested_easy}, FCFS + EASY {easy}; every rule and PPO row finished {jobs}/{jobs} jobs")
    if ablation:
        options += f" --config configs/studies/trace_ppo_compact_{ablation}.yaml --synthetic {','.join(SYNTHETIC_AGENTS)}"
        for agent in SYNTHETIC_AGENTS:
            field = agent.split("-")[0]
            numbers[field] = at(f"{name}/eval.json", f"policies/synthetic:{agent}-sampled/mean_bounded_slowdown")
            numbers[f"{field}_greedy"] = at(f"{name}/eval.json", f"policies/synthetic:{agent}/mean_bounded_slowdown")
            numbers[f"{field}_greedy_finished"] = at(f"{name}/eval.json", f"policies/synthetic:{agent}/finished", ".0f")
        headline += ("; synthetic-trained agents (sampled): bracis-7's {bracis7}, bracis-3's {bracis3}; greedy they "
                     "leave jobs unfinished ({bracis7_greedy_finished} and {bracis3_greedy_finished} of {jobs})")
    return Item(
        id=name,
        paper=f"issue 53: PPO (compact state) trained on the first 70% of {label}'s jobs, evaluated on the later "
              "disjoint windows beside the rules sites deploy (RLScheduler's protocol)"
              + (f"; ablation '{ablation}' of the study's config" if ablation else ""),
        steps=(Step(f"jaxsched.studies.trace_policy --trace {trace} --out {{out}}/{name} {options}",
                    quick="--quick"),),
        outputs=(f"{name}/report.md", f"{name}/eval.json", f"{name}/learning_curve.png"),
        wall_s=wall_s,
        headline=headline,
        numbers=numbers,
        note="Kept: report.md, eval.json, learning_curve.png, run/config.json and run/metrics.csv; the per-job "
             "CSV and the checkpoints are not kept (the command rewrites them). wall_s measured on a 2-core AMD "
             "EPYC shared with other jobs (load 7-11).",
    )


ITEMS: list[Item] = [
    # ---- DeepRM (HotNets'16) and DeepRM2 -------------------------------------------------------------
    Item(
        id="quickstart",
        paper="README's quick start: DeepRM REINFORCE on a small cluster, 2 seeds, held-out against the heuristics",
        steps=(Step("jaxsched.train --config configs/quickstart.yaml --out {out}/quickstart",
                    quick="iterations=2 chunk=1 eval_jobsets=2"),),
        outputs=("quickstart/eval.json", "quickstart/config.json"),
        wall_s=476,
        headline="SJF {sjf}, sampled policies {s0} and {s1} with {f0}/{jobs} and {f1}/{jobs} jobs finished",
        numbers={"sjf": at("quickstart/eval.json", "policies/sjf/mean_slowdown"),
                 "s0": at("quickstart/eval.json", "policies/trained-s0-sampled/mean_slowdown"),
                 "s1": at("quickstart/eval.json", "policies/trained-s1-sampled/mean_slowdown"),
                 "f0": at("quickstart/eval.json", "policies/trained-s0-sampled/finished", ".0f"),
                 "f1": at("quickstart/eval.json", "policies/trained-s1-sampled/finished", ".0f"),
                 "jobs": at("quickstart/eval.json", "policies/sjf/jobs", ".0f"),
                 "g0": at("quickstart/eval.json", "policies/trained-s0/finished", ".0f"),
                 "g1": at("quickstart/eval.json", "policies/trained-s1/finished", ".0f")},
        note="Only eval.json, config.json and metrics.csv are kept (no checkpoints). wall_s was measured on a "
             "2-core AMD EPYC shared with other jobs (load 11); a quiet machine takes about two minutes.",
    ),
    Item(
        id="deeprm_heuristics_vs_load",
        paper="DeepRM Fig. 4 axes (heuristics only), reference check of ../shared/spec/deeprm.md",
        steps=(Step("jaxsched.evaluate --env deeprm --policies sjf,packer,tetris,random,fcfs --loads 0.1:1.9:0.2 "
                    "--jobsets 10 --seeds 0:10 --summary {out}/deeprm_heuristics_vs_load.json --results-dir {out}",
                    quick="--loads 0.3,0.7 --jobsets 2 --seeds 0:2"),),
        outputs=("deeprm_heuristics_vs_load.json", "deeprm_slowdown_vs_load.csv", "deeprm_slowdown_vs_load.png"),
        wall_s=300, estimate=True,
        headline="load 0.7: SJF {sjf}, Packer {packer}, Random {random} (reference {ref_sjf} / {ref_packer} / "
                 "{ref_random})",
        numbers={**{p: at("deeprm_heuristics_vs_load.json", f"0.7/{p}/mean_slowdown", ".2f")
                    for p in ("sjf", "packer", "random")},
                 "ref_sjf": given("2.86", "../shared/spec/deeprm.md, load 0.7"),
                 "ref_packer": given("5.08", "../shared/spec/deeprm.md, load 0.7"),
                 "ref_random": given("7.49", "../shared/spec/deeprm.md, load 0.7")},
    ),
    Item(
        id="deeprm_reference_jobsets",
        paper="DeepRM reference check on the reference code's own jobsets (../shared/spec/deeprm.md)",
        steps=(Step("jaxsched.evaluate --env deeprm --policies sjf,packer,tetris,random,fcfs --loads 0.3,0.7,1.1 "
                    "--jobsets 10 --seeds 0:10 --reference-rng --summary {out}/deeprm_reference_jobsets.json "
                    "--results-dir {scratch}/deeprm_reference_jobsets",
                    quick="--loads 0.7 --jobsets 2 --seeds 0:1 --policies sjf,packer"),),
        outputs=("deeprm_reference_jobsets.json",),
        wall_s=120, estimate=True,
        headline="SJF and Packer equal the reference to the last digit (load 1.1: {sjf}, {packer})",
        numbers={p: computed("deeprm_reference_jobsets.json",  # the spec's mean over seeds of each seed's mean
                             lambda root, p=p: float(np.mean(json_value(root, "deeprm_reference_jobsets.json",
                                                                        f"1.1/{p}/seed_mean_slowdown"))), ".2f")
                 for p in ("sjf", "packer")},
    ),
    Item(
        id="deeprm_load0.7_j20",
        paper="DeepRM Fig. 4 set-up, REINFORCE without behaviour cloning (partial)",
        steps=(train("{out}/deeprm_load0.7_j20", "configs/deeprm_slowdown.yaml", "iterations=300",
                     "algo_options.num_jobsets=20", "algo_options.resample_jobsets=true", "eval_jobsets=100",
                     quick=REINFORCE_QUICK),
               resume("{out}/deeprm_load0.7_j20", 1000, 4)),
        outputs=("deeprm_load0.7_j20/eval.json", "deeprm_load0.7_j20/metrics.csv"),
        wall_s=2169,
        headline="held-out {sampled} vs SJF {sjf} (does not reach SJF)",
        numbers={"sampled": at("deeprm_load0.7_j20/eval.json", "policies/trained-s0-sampled/mean_slowdown", ".2f"),
                 "sjf": at("deeprm_load0.7_j20/eval.json", "policies/sjf/mean_slowdown", ".2f")},
    ),
    Item(
        id="deeprm_bc_load0.7",
        paper="DeepRM Fig. 6 set-up: behaviour cloning, then REINFORCE at load 0.7",
        steps=(train("{out}/deeprm_bc_load0.7", DEEPRM_BC, "iterations=300", quick=f"{REINFORCE_QUICK} {BC_QUICK}"),
               resume("{out}/deeprm_bc_load0.7", 700, 4)),
        outputs=("deeprm_bc_load0.7/eval.json", "deeprm_bc_load0.7/metrics.csv", "deeprm_bc_load0.7/checkpoints"),
        wall_s=2586,
        headline="trained (sampled) {sampled} vs SJF {sjf} ({change}%)",
        numbers={"sampled": at("deeprm_bc_load0.7/eval.json", "policies/trained-s0-sampled/mean_slowdown"),
                 "sjf": at("deeprm_bc_load0.7/eval.json", "policies/sjf/mean_slowdown"),
                 "change": change("deeprm_bc_load0.7/eval.json", "policies/trained-s0-sampled/mean_slowdown",
                                  "policies/sjf/mean_slowdown"),
                 "sampled2": at("deeprm_bc_load0.7/eval.json", "policies/trained-s0-sampled/mean_slowdown", ".2f"),
                 "sjf2": at("deeprm_bc_load0.7/eval.json", "policies/sjf/mean_slowdown", ".2f")},
    ),
    Item(
        id="deeprm_fig4_trained_at_0.7",
        paper="DeepRM Fig. 4: slowdown vs load with the policy trained at 0.7",
        steps=(Step("jaxsched.evaluate --checkpoint {out}/deeprm_bc_load0.7 --policies sjf,packer,tetris,random "
                    "--loads 0.1,0.3,0.5,0.7,0.9,1.1,1.3,1.5,1.7,1.9 --jobsets 10 --seeds 0:10 "
                    "--summary {out}/deeprm_fig4_trained_at_0.7/summary.json "
                    "--results-dir {out}/deeprm_fig4_trained_at_0.7",
                    quick="--loads 0.7 --jobsets 2 --seeds 0:1"),),
        outputs=("deeprm_fig4_trained_at_0.7/summary.json", "deeprm_fig4_trained_at_0.7/deeprm_slowdown_vs_load.csv",
                 "deeprm_fig4_trained_at_0.7/deeprm_slowdown_vs_load.png"),
        wall_s=600, estimate=True,
        inputs=("{out}/deeprm_bc_load0.7/checkpoints",), needs=("deeprm_bc_load0.7",),
        headline="sampled policy beats every heuristic from load {lowest} to 1.9 (load 1.1: {sampled} vs SJF {sjf})",
        numbers={"lowest": computed("deeprm_fig4_trained_at_0.7/summary.json", _beats_heuristics_from, ".1f"),
                 "sampled": at("deeprm_fig4_trained_at_0.7/summary.json", "1.1/checkpoint-sampled/mean_slowdown",
                               ".2f"),
                 "sjf": at("deeprm_fig4_trained_at_0.7/summary.json", "1.1/sjf/mean_slowdown", ".2f")},
    ),
    Item(
        id="sweep_deeprm_bc_load0.7",
        paper="DeepRM Fig. 6 set-up over 8 seeds (10 x 10 rollouts): IQM and 95% CI, learning curves",
        steps=(Step("jaxsched.sweep --config configs/deeprm_slowdown_bc.yaml --seeds 0:8 "
                    "--out {out}/sweep_deeprm_bc_load0.7 iterations=300 algo_options.num_jobsets=10 "
                    "algo_options.num_rollouts=10 devices=auto",
                    quick_command="jaxsched.sweep --config configs/deeprm_slowdown_bc.yaml --seeds 0:2 "
                                  "--out {out}/sweep_deeprm_bc_load0.7 iterations=2 chunk=1 checkpoint_every=1 "
                                  "eval_jobsets=5 algo_options.num_jobsets=2 algo_options.num_rollouts=2 "
                                  "bc.num_jobsets=20 bc.max_epochs=5"),),  # a greedy policy that finishes jobs
        outputs=("sweep_deeprm_bc_load0.7/summary.csv", "sweep_deeprm_bc_load0.7/report.md"),
        wall_s=3900,
        headline="{seeds} seeds, sampled: IQM {iqm} {ci} vs SJF {sjf} ({beating} beat SJF with every job finished "
                 "after 300 iterations of 10 x 10); greedy leaves {unfinished} of {jobs} jobs unfinished (not ranked)",
        numbers={"seeds": sweep("sweep_deeprm_bc_load0.7", stat="count"),
                 "iqm": sweep("sweep_deeprm_bc_load0.7", fmt=".2f"),
                 "ci": sweep("sweep_deeprm_bc_load0.7", stat="interval", fmt=".2f"),
                 "sjf": sweep("sweep_deeprm_bc_load0.7", policy="sjf", stat="value", fmt=".2f"),
                 "beating": sweep("sweep_deeprm_bc_load0.7", stat="beating"),
                 "unfinished": seeds("sweep_deeprm_bc_load0.7/summary.csv", "final_unfinished", "sum", ".0f"),
                 "jobs": seeds("sweep_deeprm_bc_load0.7/summary.csv", "final_jobs", "sum", ".0f")},
    ),
    Item(
        id="sweep_deeprm_slots_load0.7",
        paper="DeepRM Fig. 6 set-up over 8 seeds (10 x 10 rollouts) with the slot scorer: IQM and 95% CI",
        steps=(slot_scorer_sweep("sweep_deeprm_slots_load0.7"),),
        outputs=("sweep_deeprm_slots_load0.7/summary.csv", "sweep_deeprm_slots_load0.7/report.md"),
        wall_s=1536,
        headline="{seeds} seeds, sampled IQM {iqm} {ci} vs SJF {sjf}, {beating} seeds beat SJF with every job "
                 "finished (the MLP, 300 iterations: {mlp}, none)",
        numbers={**sweep_summary("sweep_deeprm_slots_load0.7"),
                 "beating": sweep("sweep_deeprm_slots_load0.7", stat="beating"),
                 "mlp": sweep("sweep_deeprm_bc_load0.7")},
    ),
    Item(
        id="sweep_deeprm_slots_nobc_load0.7",
        paper="the same 8-seed sweep without behaviour cloning (same lr 1e-4): the BC effect, unconfounded",
        steps=(slot_scorer_sweep("sweep_deeprm_slots_nobc_load0.7", "bc=null ", cloned=False),),
        outputs=("sweep_deeprm_slots_nobc_load0.7/summary.csv", "sweep_deeprm_slots_nobc_load0.7/report.md"),
        wall_s=1364,
        headline="no BC, same lr 1e-4, {seeds} seeds: sampled IQM {iqm} {ci} vs SJF {sjf} (with BC: {bc}): "
                 "at this budget behaviour cloning is what beats SJF",
        numbers={**sweep_summary("sweep_deeprm_slots_nobc_load0.7"),
                 "bc": sweep("sweep_deeprm_slots_load0.7"),
                 "beating": sweep("sweep_deeprm_slots_nobc_load0.7", stat="beating")},
    ),
    Item(
        id="sweep_deeprm_slots_load1.1",
        paper="DeepRM Fig. 6 set-up at load 1.1 over 8 seeds (10 x 10 rollouts) with the slot scorer: IQM and "
              "95% CI",
        steps=(slot_scorer_sweep("sweep_deeprm_slots_load1.1", "env_options.load=1.1 "),),
        outputs=("sweep_deeprm_slots_load1.1/summary.csv", "sweep_deeprm_slots_load1.1/report.md"),
        wall_s=1248,
        headline="{seeds} seeds, sampled IQM {iqm} {ci} vs SJF {sjf}, {beating} seeds beat SJF with every job "
                 "finished",
        numbers={**sweep_summary("sweep_deeprm_slots_load1.1"),
                 "beating": sweep("sweep_deeprm_slots_load1.1", stat="beating")},
    ),
    Item(
        id="deeprm_paper_fig4",
        paper="DeepRM Fig. 4 on the paper's job sizes (deeprm-paper: demands 0.25-0.5r / 0.05-0.1r), heuristics vs "
              "load, and Tetris*'s knob on both workloads (where the paper's ordering, Tetris* best, holds)",
        steps=(Step("jaxsched.evaluate --env deeprm-paper --policies sjf,packer,tetris,random,fcfs --loads 0.1:1.9:0.2 "
                    "--jobsets 10 --seeds 0:10 --summary {out}/deeprm_paper_fig4/heuristics.json "
                    "--results-dir {out}/deeprm_paper_fig4", quick="--loads 0.3,0.7 --jobsets 2 --seeds 0:2"),
               *(Step(f"jaxsched.evaluate --env {env} --policies sjf,{TETRIS_KNOBS} --loads 0.3,0.7,1.1 --jobsets 10 "
                      f"--seeds 0:10 --summary {{out}}/deeprm_paper_fig4/tetris_knob_{env}.json "
                      f"--results-dir {{scratch}}/tetris_knob_{env}", quick="--loads 0.7 --jobsets 2 --seeds 0:1")
                 for env in ("deeprm-paper", "deeprm"))),
        outputs=("deeprm_paper_fig4/heuristics.json", "deeprm_paper_fig4/deeprm-paper_slowdown_vs_load.csv",
                 "deeprm_paper_fig4/deeprm-paper_slowdown_vs_load.png", "deeprm_paper_fig4/tetris_knob_deeprm-paper.json",
                 "deeprm_paper_fig4/tetris_knob_deeprm.json"),
        wall_s=600, estimate=True,
        headline="paper sizes: SJF best (ties included) at {sjf_best} loads (at 0.7: SJF {sjf}, Tetris* {tetris}, "
                 "Packer {packer}); one arrival per step caps the offered load at {cap}; Tetris* reaches SJF only as "
                 "its knob goes to 0, where it is SJF up to ties (its knob at 0.02: {knob} vs SJF {knob_sjf} at 0.7)",
        numbers={"sjf_best": _sjf_best("deeprm_paper_fig4/heuristics.json"),
                 **{p: at("deeprm_paper_fig4/heuristics.json", f"0.7/{p}/mean_slowdown", ".2f")
                    for p in ("sjf", "tetris", "packer")},
                 "cap": at("deeprm_paper_fig4/heuristics.json", "1.9/sjf/offered_load", ".2f"),
                 "knob": at("deeprm_paper_fig4/tetris_knob_deeprm-paper.json", "0.7/tetris:0.02/mean_slowdown"),
                 "knob_sjf": at("deeprm_paper_fig4/tetris_knob_deeprm-paper.json", "0.7/sjf/mean_slowdown"),
                 **{f"{policy.split(':')[0]}_{env}_{load.replace('.', '')}": at(
                     f"deeprm_paper_fig4/tetris_knob_{workload}.json", f"{load}/{policy}/mean_slowdown")
                    for env, workload in (("paper", "deeprm-paper"), ("ref", "deeprm")) for load in ("0.3", "0.7", "1.1")
                    for policy in ("sjf", "tetris:0.02")}},
    ),
    Item(
        id="sweep_deeprm_paper_slots",
        paper="DeepRM Fig. 4 on the paper's job sizes with a policy trained per load (0.7 and 1.0, the most one "
              "arrival per step offers): the slot scorer, BC then REINFORCE, 6 seeds",
        steps=(slot_scorer_sweep("sweep_deeprm_paper_slots", "env=deeprm-paper env_options.load=0.7,1.0 ",
                                 seeds="0:6"),),
        outputs=("sweep_deeprm_paper_slots/summary.csv", "sweep_deeprm_paper_slots/report.md"),
        wall_s=6000,
        headline="{seeds} seeds, sampled IQM {iqm07} {interval07} at 0.7 (SJF {sjf07}, Tetris* {tetris07}) and {iqm10} "
                 "{interval10} "
                 "at 1.0 (SJF {sjf10}, Tetris* {tetris10}): {beat07} and {beat10} seeds beat every heuristic with every "
                 "job finished",
        numbers={"seeds": sweep("sweep_deeprm_paper_slots", stat="count", cell="cell000"),
                 **{f"{stat}{load}": sweep("sweep_deeprm_paper_slots", stat=stat, cell=cell)
                    for stat in ("iqm", "interval") for load, cell in (("07", "cell000"), ("10", "cell001"))},
                 **{f"{policy}{load}": sweep("sweep_deeprm_paper_slots", policy=policy, stat="value", cell=cell)
                    for policy in ("sjf", "tetris") for load, cell in (("07", "cell000"), ("10", "cell001"))},
                 "beat07": _beating_all("sweep_deeprm_paper_slots", "cell000"),
                 "beat10": _beating_all("sweep_deeprm_paper_slots", "cell001")},
    ),
    Item(
        id="deeprm_bc_load1.1",
        paper="DeepRM Fig. 6 set-up at load 1.1 (the policy of Fig. 7)",
        steps=(train("{out}/deeprm_bc_load1.1", DEEPRM_BC, "env_options.load=1.1", "iterations=500",
                     quick=f"{REINFORCE_QUICK} {BC_QUICK}"),),
        outputs=("deeprm_bc_load1.1/eval.json", "deeprm_bc_load1.1/checkpoints"),
        wall_s=1823,
        headline="trained (sampled) {sampled} vs SJF {sjf}",
        numbers={"sampled": at("deeprm_bc_load1.1/eval.json", "policies/trained-s0-sampled/mean_slowdown", ".2f"),
                 "sjf": at("deeprm_bc_load1.1/eval.json", "policies/sjf/mean_slowdown", ".2f")},
    ),
    Item(
        id="deeprm_fig7_load1.1",
        paper="DeepRM Fig. 7: withholding of long jobs",
        steps=(Step("jaxsched.studies.withholding --checkpoint {out}/deeprm_bc_load1.1 --load 1.1 --jobsets 100 "
                    "--out {out}/deeprm_fig7_load1.1", quick="--jobsets 2"),),
        outputs=("deeprm_fig7_load1.1/withholding.json", "deeprm_fig7_load1.1/withheld_job_lengths.png",
                 "deeprm_fig7_load1.1/slowdown_by_job_length.png"),
        wall_s=120, estimate=True,
        inputs=("{out}/deeprm_bc_load1.1/checkpoints",), needs=("deeprm_bc_load1.1",),
        headline="{withholding}% of move-ons withhold a job that fits; {long}% of withheld jobs are long",
        numbers={"withholding": at("deeprm_fig7_load1.1/withholding.json",
                                   "policies/trained/withholding_fraction_of_move_ons", ".1f", scale=100),
                 "long": computed("deeprm_fig7_load1.1/withholding.json", _withheld_long, ".0f")},
    ),
    Item(
        id="deeprm_fig5_load1.3",
        paper="DeepRM Fig. 5: slowdown- vs completion-time-trained policies at load 1.3",
        steps=(train("{out}/deeprm_fig5_load1.3/slowdown_trained", DEEPRM_BC, "env_options.load=1.3", "iterations=350",
                     quick=f"{REINFORCE_QUICK} {BC_QUICK}"),
               resume("{out}/deeprm_fig5_load1.3/slowdown_trained", 900, 4),
               train("{out}/deeprm_fig5_load1.3/completion_trained", DEEPRM_BC, "env=deeprm-completion",
                     "env_options.load=1.3", "iterations=350", quick=f"{REINFORCE_QUICK} {BC_QUICK}"),
               resume("{out}/deeprm_fig5_load1.3/completion_trained", 900, 3),
               copy("{out}/deeprm_fig5_load1.3/completion_trained/eval.json",
                    "{out}/deeprm_fig5_load1.3/completion_trained/eval_at_iteration900.json"),
               resume("{out}/deeprm_fig5_load1.3/completion_trained", 1200, 4)),
        outputs=("deeprm_fig5_load1.3/slowdown_trained/eval.json", "deeprm_fig5_load1.3/completion_trained/eval.json",
                 "deeprm_fig5_load1.3/completion_trained/eval_at_iteration900.json"),
        wall_s=10325,
        headline="slowdown-trained {slowdown} vs SJF {sjf}; completion-trained {completion} vs SJF {sjf_completion} "
                 "(completion time)",
        numbers={"slowdown": at("deeprm_fig5_load1.3/slowdown_trained/eval.json",
                                "policies/trained-s0-sampled/mean_slowdown", ".2f"),
                 "sjf": at("deeprm_fig5_load1.3/slowdown_trained/eval.json", "policies/sjf/mean_slowdown", ".2f"),
                 "completion": at("deeprm_fig5_load1.3/completion_trained/eval.json",
                                  "policies/trained-s0-sampled/mean_completion_time", ".2f"),
                 "sjf_completion": at("deeprm_fig5_load1.3/completion_trained/eval.json",
                                      "policies/sjf/mean_completion_time", ".2f")},
    ),
    Item(
        id="deeprm2_load1.0",
        paper="DeepRM2 (CNN + behaviour cloning): MLP vs CNN, with and without BC, load 1.0",
        steps=(train("{scratch}/deeprm2_mlp", DEEPRM2, *DEEPRM2_SMALL, "bc=null", "algo_options.network=mlp",
                     "algo_options.lr=1e-3", "iterations=100", "chunk=10", quick=REINFORCE_QUICK),
               train("{scratch}/deeprm2_mlp_bc", DEEPRM2, *DEEPRM2_SMALL, "bc.network=mlp", "algo_options.network=mlp",
                     "algo_options.lr=1e-4", "iterations=100", "chunk=10", quick=f"{REINFORCE_QUICK} {BC_QUICK}"),
               train("{scratch}/deeprm2_cnn", DEEPRM2, *DEEPRM2_SMALL, "bc=null", "algo_options.lr=1e-3",
                     "iterations=100", quick=REINFORCE_QUICK),
               train("{scratch}/deeprm2_cnn_bc", DEEPRM2, *DEEPRM2_SMALL, "algo_options.lr=1e-4", "iterations=100",
                     quick=f"{REINFORCE_QUICK} {BC_QUICK}"),
               *(resume(f"{{scratch}}/{run}", 250, 4)
                 for run in ("deeprm2_mlp", "deeprm2_mlp_bc", "deeprm2_cnn", "deeprm2_cnn_bc")),
               train("{scratch}/deeprm2_mlp_bc_full", DEEPRM2, "bc.network=mlp", "algo_options.network=mlp",
                     "algo_options.num_jobsets=20", "algo_options.num_rollouts=20", "algo_options.lr=1e-4",
                     "bc.num_jobsets=200", "bc.max_epochs=100", "iterations=300", "chunk=10",
                     quick=f"{REINFORCE_QUICK} {BC_QUICK}"),
               resume("{scratch}/deeprm2_mlp_bc_full", 500, 4),
               Step("jaxsched.studies.compare_runs --out {out}/deeprm2_load1.0 mlp_4x5={scratch}/deeprm2_mlp "
                    "mlp_bc_4x5={scratch}/deeprm2_mlp_bc cnn_4x5={scratch}/deeprm2_cnn "
                    "cnn_bc_4x5={scratch}/deeprm2_cnn_bc mlp_bc_20x20={scratch}/deeprm2_mlp_bc_full")),
        outputs=("deeprm2_load1.0/summary.json", "deeprm2_load1.0/learning_curves_iteration.png",
                 "deeprm2_load1.0/learning_curves_wallclock.png"),
        wall_s=7473,
        headline="MLP + BC at 20 x 20 reaches SJF at iteration {reaches} (held-out {heldout} vs SJF {sjf}); "
                 "4 x 5 runs do not, CNN = MLP",
        numbers={"reaches": at("deeprm2_load1.0/summary.json", "runs/mlp_bc_20x20/reaches_sjf/iteration", ".0f"),
                 "reaches_min": at("deeprm2_load1.0/summary.json", "runs/mlp_bc_20x20/reaches_sjf/wall_s", ".0f",
                                   scale=1 / 60),
                 "heldout": at("deeprm2_load1.0/summary.json",
                               "runs/mlp_bc_20x20/heldout/trained-s0-sampled/mean_slowdown", ".2f"),
                 "sjf": at("deeprm2_load1.0/summary.json", "runs/mlp_bc_20x20/heldout/sjf/mean_slowdown", ".2f")},
    ),
    one_run_item(
        "deeprm_paper_recipe_h200", "paper_recipe",
        paper="DeepRM §4 / Fig. 6 with the paper's own recipe at the paper's size: 100 fixed jobsets x 20 "
              "rollouts, no behaviour cloning, RMSProp 1e-3, load 0.7, 3 seeds (one GPU)",
        training=train("{scratch}/paper_recipe", "configs/deeprm_slowdown.yaml", "algo_options.grad_chunk_len=20",
                       "iterations=840", "checkpoint_every=10", seeds="0,1,2",
                       quick=f"{REINFORCE_QUICK} algo_options.grad_chunk_len=2"),
        wall_s=457,
        headline="{iterations} iterations of 2000 episodes (paper: ~1000): sampled held-out slowdown of seed 0 {s0} "
                 "vs SJF {sjf}, Tetris* {tetris}, every job finished; seeds 1 and 2 leave {u1} and {u2} of {jobs} "
                 "unfinished (not ranked)",
        numbers={"iterations": at(DRM_RECIPE, "runs/paper_recipe/iterations", ".0f"),
                 "s0": _heldout_seed(DRM_RECIPE, "paper_recipe", 0),
                 "sjf": at(DRM_RECIPE, "runs/paper_recipe/heldout/sjf/mean_slowdown", ".2f"),
                 "tetris": at(DRM_RECIPE, "runs/paper_recipe/heldout/tetris/mean_slowdown", ".2f"),
                 "u1": _jobs_left(DRM_RECIPE, "runs/paper_recipe/heldout/trained-s1-sampled"),
                 "u2": _jobs_left(DRM_RECIPE, "runs/paper_recipe/heldout/trained-s2-sampled"),
                 "jobs": at(DRM_RECIPE, "runs/paper_recipe/heldout/sjf/jobs", ".0f"),
                 "s0_3": _heldout_seed(DRM_RECIPE, "paper_recipe", 0, fmt=".3f"),
                 "sjf_3": at(DRM_RECIPE, "runs/paper_recipe/heldout/sjf/mean_slowdown"),
                 "iqm_3": _seeds_iqm(DRM_RECIPE, "paper_recipe", fmt=".3f"),
                 "range_3": _seeds_interval(DRM_RECIPE, "paper_recipe", fmt=".3f")},
        note="Recorded on one NVIDIA H200 (jax 0.11.2, 0.71 s per iteration for 3 seeds, sharing the GPU with "
             "two other runs; stopped at 840 of the config's 1000 by the session's device time, then evaluated "
             "at 840 on the CPU). On the 2-core CPU this is many hours.",
    ),
    one_run_item(
        "deeprm2_mlp_bc_h200", "mlp_bc_20x20",
        paper="DeepRM2 at load 1.0: MLP + BC at the paper's 20 x 20 rollouts, lr 1e-4, 3 seeds (one GPU)",
        training=train("{scratch}/mlp_bc_20x20", DEEPRM2, "bc.network=mlp", "algo_options.network=mlp",
                       "algo_options.lr=1e-4", "bc.num_jobsets=200", "bc.max_epochs=100", "iterations=420",
                       "chunk=10", "checkpoint_every=10", seeds="0,1,2", quick=f"{REINFORCE_QUICK} {BC_QUICK}"),
        wall_s=430,
        headline="{iterations} iterations: sampled held-out {s0} / {s2} (seeds 0 and 2) vs SJF {sjf}, seed 1 leaves "
                 "{u1} of {jobs} unfinished (not ranked); {below} seeds beat SJF with every job finished, the single CPU "
                 "seed's {cpu} at 500 (deeprm2_load1.0) is not robust",
        numbers={"iterations": at(DRM_MLP_BC, "runs/mlp_bc_20x20/iterations", ".0f"),
                 "s0": _heldout_seed(DRM_MLP_BC, "mlp_bc_20x20", 0), "s2": _heldout_seed(DRM_MLP_BC, "mlp_bc_20x20", 2),
                 "sjf": at(DRM_MLP_BC, "runs/mlp_bc_20x20/heldout/sjf/mean_slowdown", ".2f"),
                 "u1": _jobs_left(DRM_MLP_BC, "runs/mlp_bc_20x20/heldout/trained-s1-sampled"),
                 "jobs": at(DRM_MLP_BC, "runs/mlp_bc_20x20/heldout/sjf/jobs", ".0f"),
                 "below": _below(DRM_MLP_BC, "mlp_bc_20x20"),
                 "iqm": _seeds_iqm(DRM_MLP_BC, "mlp_bc_20x20"),
                 "range": _seeds_interval(DRM_MLP_BC, "mlp_bc_20x20"),
                 "iqm_3": _seeds_iqm(DRM_MLP_BC, "mlp_bc_20x20", fmt=".3f"),
                 "range_3": _seeds_interval(DRM_MLP_BC, "mlp_bc_20x20", fmt=".3f"),
                 "sjf_3": at(DRM_MLP_BC, "runs/mlp_bc_20x20/heldout/sjf/mean_slowdown"),
                 "cpu": at("deeprm2_load1.0/summary.json", "runs/mlp_bc_20x20/heldout/trained-s0-sampled/mean_slowdown",
                           ".2f")},
        note="Recorded on one NVIDIA H200 (jax 0.11.2, 1.16 s per iteration for 3 seeds, sharing the GPU with "
             "two other runs; stopped at 420 of 500 by the session's device time, then evaluated at 420 on the CPU).",
    ),
    one_run_item(
        "deeprm_paper_recipe_bc_h200", "paper_recipe_bc",
        paper="DeepRM §4 / Fig. 6, the paper's recipe with behaviour cloning on SJF labels first, at the SAME "
              "lr (1e-3) as deeprm_paper_recipe_h200 (no cloning), 3 seeds (one GPU)",
        training=train("{scratch}/paper_recipe_bc", DEEPRM_BC, "algo_options.num_jobsets=100",
                       "algo_options.resample_jobsets=false", "algo_options.lr=1e-3", "algo_options.grad_chunk_len=20",
                       "iterations=640", "checkpoint_every=10", seeds="0,1,2",
                       quick=f"{REINFORCE_QUICK} {BC_QUICK} algo_options.grad_chunk_len=2"),
        wall_s=424,
        headline="{iterations} iterations after cloning: sampled held-out slowdown {s0} / {s1} / {s2} vs SJF {sjf} "
                 "({change}%), {below} seeds below SJF with every job finished; without cloning seed 0 {recipe} at "
                 "{recipe_iterations} (seeds 1 and 2 leave jobs unfinished)",
        numbers={"iterations": at(DRM_RECIPE_BC, "runs/paper_recipe_bc/iterations", ".0f"),
                 **{f"s{k}": _heldout_seed(DRM_RECIPE_BC, "paper_recipe_bc", k) for k in range(3)},
                 "sjf": at(DRM_RECIPE_BC, "runs/paper_recipe_bc/heldout/sjf/mean_slowdown", ".2f"),
                 "change": computed(DRM_RECIPE_BC, lambda root: 100 * (np.mean([r["mean_slowdown"] for r in _seed_rows(
                     root, DRM_RECIPE_BC, "paper_recipe_bc")]) / json_value(
                     root, DRM_RECIPE_BC, "runs/paper_recipe_bc/heldout/sjf/mean_slowdown") - 1), "+.0f"),
                 "below": _below(DRM_RECIPE_BC, "paper_recipe_bc"),
                 "iqm": _seeds_iqm(DRM_RECIPE_BC, "paper_recipe_bc"),
                 "range": _seeds_interval(DRM_RECIPE_BC, "paper_recipe_bc"),
                 "iqm_3": _seeds_iqm(DRM_RECIPE_BC, "paper_recipe_bc", fmt=".3f"),
                 "range_3": _seeds_interval(DRM_RECIPE_BC, "paper_recipe_bc", fmt=".3f"),
                 "sjf_3": at(DRM_RECIPE_BC, "runs/paper_recipe_bc/heldout/sjf/mean_slowdown"),
                 "recipe": _heldout_seed(DRM_RECIPE_BC, "paper_recipe", 0),
                 "recipe_iterations": at(DRM_RECIPE_BC, "runs/paper_recipe/iterations", ".0f")},
        note="Recorded on one NVIDIA H200 (jax 0.11.2, 0.61 s per iteration for 3 seeds beside two other runs; "
             "stopped at 640 by the session's device time, then evaluated at 640 on the CPU; "
             "device_run.sh says how).",
        beside={"paper_recipe": "deeprm_paper_recipe_h200"},
    ),
    one_run_item(
        "deeprm2_mlp_h200", "mlp_20x20",
        paper="DeepRM2 at load 1.0: the MLP without behaviour cloning at the BC runs' lr (1e-4), 20 x 20 rollouts, "
              "3 seeds (one GPU), beside MLP + BC",
        training=train("{scratch}/mlp_20x20", DEEPRM2, "bc=null", "algo_options.network=mlp", "algo_options.lr=1e-4",
                       "iterations=420", "chunk=10", "checkpoint_every=10", seeds="0,1,2", quick=REINFORCE_QUICK),
        wall_s=95,
        headline="{iterations} iterations at lr 1e-4 without cloning: sampled held-out {s0} / {s1} / {s2} vs SJF {sjf}; "
                 "MLP + BC at the same lr and iterations {mlp_bc}: cloning, not REINFORCE, gives DeepRM2 its start",
        numbers={"iterations": at(DRM_MLP, "runs/mlp_20x20/iterations", ".0f"),
                 **{f"s{k}": _heldout_seed(DRM_MLP, "mlp_20x20", k) for k in range(3)},
                 "sjf": at(DRM_MLP, "runs/mlp_20x20/heldout/sjf/mean_slowdown", ".2f"),
                 "mlp_bc": _seeds_interval(DRM_MLP, "mlp_bc_20x20")},
        note="Recorded on one NVIDIA H200 (jax 0.11.2, beside two other runs; trained and evaluated there).",
        beside={"mlp_bc_20x20": "deeprm2_mlp_bc_h200"},
    ),
    Item(
        id="deeprm2_fig3_h200",
        paper="DeepRM2 Figs. 3 / 4: CNN + BC vs MLP + BC vs MLP (DeepRM) vs SJF / Packer / Tetris* / Random at "
              "loads 0.7 / 1.0 / 1.3, the paper's 20 x 20 rollouts, 3 seeds, both metrics (one GPU)",
        steps=deeprm2_fig3_steps(),
        outputs=tuple(f"deeprm2_fig3_h200/load{load}/summary.json" for load in DEEPRM2_FIG3_ITERATIONS),
        wall_s=700,
        headline="Same cloning and lr: CNN + BC learns faster than MLP + BC (held-out {cnn07} vs {mlp_bc07} at 0.7 after "
                 "{it07} it, {cnn13} vs {mlp_bc13} at 1.3 after {it13}; at 1.0 its training curve reaches SJF's level by "
                 "{reach10} it, the MLP's not in {mlp_bc_it10}); at 0.7 {below07} CNN + BC seeds are below SJF ({iqm07} "
                 "{range07} vs {sjf07}, all jobs finished), at 1.0 {below10} ({cnn10} vs {sjf10}, leaving {left10} of "
                 "{jobs10} jobs), at 1.3 it leaves {left13} of {jobs13} jobs unfinished (not ranked against SJF's "
                 "{sjf13}); DeepRM's MLP at lr 1e-3, {mlp_it} it: {mlp07} at 0.7",
        numbers={**{field: at(DRM2_FIG3.format(load), f"runs/{run}/over_seeds/sampled/mean_slowdown/iqm", ".2f")
                    for field, run, load in (("cnn07", "cnn_bc", "0.7"), ("mlp_bc07", "mlp_bc", "0.7"),
                                             ("cnn13", "cnn_bc", "1.3"), ("mlp_bc13", "mlp_bc", "1.3"),
                                             ("cnn10", "cnn_bc", "1.0"), ("mlp07", "mlp", "0.7"))},
                 "it07": at(DRM2_FIG3.format("0.7"), "runs/cnn_bc/iterations", ".0f"),
                 "it13": at(DRM2_FIG3.format("1.3"), "runs/cnn_bc/iterations", ".0f"),
                 "reach10": at(DRM2_FIG3.format("1.0"), "runs/cnn_bc/reaches_sjf/iteration", ".0f"),
                 "mlp_bc_it10": at(DRM2_FIG3.format("1.0"), "runs/mlp_bc/iterations", ".0f"),
                 "below07": _below(DRM2_FIG3.format("0.7"), "cnn_bc"),
                 "iqm07": at(DRM2_FIG3.format("0.7"), "runs/cnn_bc/over_seeds/sampled/mean_slowdown/iqm", ".2f"),
                 "range07": _seeds_interval(DRM2_FIG3.format("0.7"), "cnn_bc"),
                 "mlp_bc_range07": _seeds_interval(DRM2_FIG3.format("0.7"), "mlp_bc"),
                 "mlp_range07": _seeds_interval(DRM2_FIG3.format("0.7"), "mlp"),
                 **{f"sjf{load}": at(DRM2_FIG3.format(dot), "runs/cnn_bc/heldout/sjf/mean_slowdown", ".2f")
                    for load, dot in (("07", "0.7"), ("10", "1.0"), ("13", "1.3"))},
                 "below10": _below(DRM2_FIG3.format("1.0"), "cnn_bc"),
                 **{f"left{load}": _jobs_left(DRM2_FIG3.format(dot), "runs/cnn_bc/over_seeds/sampled")
                    for load, dot in (("10", "1.0"), ("13", "1.3"))},
                 **{f"jobs{load}": at(DRM2_FIG3.format(dot), "runs/cnn_bc/over_seeds/sampled/jobs", ".0f")
                    for load, dot in (("10", "1.0"), ("13", "1.3"))},
                 "mlp_it": at(DRM2_FIG3.format("0.7"), "runs/mlp/iterations", ".0f"),
                 **{f"{run}_{load.replace('.', '')}_3": at(DRM2_FIG3.format(load),
                                                           f"runs/{run}/over_seeds/sampled/mean_slowdown/iqm")
                    for load in ("0.7", "1.0", "1.3") for run in ("cnn_bc", "mlp_bc", "mlp")
                    if (run, load) != ("mlp", "1.3")},
                 **{f"{run}_{load.replace('.', '')}_range_3": _seeds_interval(DRM2_FIG3.format(load), run, fmt=".3f")
                    for load in ("0.7", "1.0", "1.3") for run in ("cnn_bc", "mlp_bc", "mlp")
                    if (run, load) != ("mlp", "1.3")}},
        inputs=("{scratch}/mlp_bc_20x20/checkpoints", "{scratch}/mlp_20x20/checkpoints"),
        needs=("deeprm2_mlp_bc_h200", "deeprm2_mlp_h200"),
        note="The CNN + BC runs (700 s; 0.7: 500 s in a later session, device_run_load0.7.sh) and the MLP at 0.7 were "
             "trained on one NVIDIA H200 (jax 0.11.2; CNN processes sharing it, 54-58 GB of GPU memory each), the MLP "
             "+ BC twins at 0.7 and 1.3 on the 2-core CPU (the H200's MLP + BC processes ran out of GPU memory beside "
             "the CNN ones); the CNN runs at 1.0 / 1.3 were evaluated on the CPU (13-35 min per CNN run), at 0.7 on the "
             "GPU. What ran where: results/deeprm2_fig3_h200/device_run*.sh.",
    ),
    Item(
        id="deeprm2_fig4_load0.7",
        paper="DeepRM2 Fig. 4: both metrics at load 0.7 with a policy trained per objective: the recipes of "
              "deeprm2_fig3_h200 (CNN + BC, MLP + BC, MLP) trained on completion time, beside its slowdown-trained "
              "policies, 3 seeds, the same 100 held-out jobsets",
        steps=deeprm2_fig4_steps(),
        outputs=tuple(f"deeprm2_fig4_load0.7/{name}" for name in
                      ("summary.json", "learning_curves_iteration.png", "learning_curves_wallclock.png")),
        wall_s=2500,
        headline="Trained on completion time, sampled mean completion time: CNN + BC {cnn_bc_completion} {range} "
                 "({cnn_bc_completion_it} it), MLP + BC {mlp_bc_completion} ({mlp_bc_completion_it} it), MLP "
                 "{mlp_completion} ({mlp_completion_it} it) vs {cnn_bc} / {mlp_bc} / {mlp} trained on slowdown, SJF {sjf}: "
                 "the objective moves each policy the paper's way and the CNN is the best learned policy on completion "
                 "time (on slowdown DeepRM's uncloned MLP at lr 1e-3: {mlp_slowdown} vs {cnn_bc_slowdown}), but none "
                 "reaches SJF's completion time",
        numbers={**{run: at(DRM2_FIG4, f"runs/{run}/over_seeds/sampled/mean_completion_time/iqm", ".2f")
                    for run in ("cnn_bc_completion", "mlp_bc_completion", "mlp_completion", "cnn_bc", "mlp_bc", "mlp")},
                 **{f"{run}_it": at(DRM2_FIG4, f"runs/{run}/iterations", ".0f")
                    for run in ("cnn_bc_completion", "mlp_bc_completion", "mlp_completion")},
                 "range": _seeds_interval(DRM2_FIG4, "cnn_bc_completion", "mean_completion_time"),
                 "sjf": at(DRM2_FIG4, "runs/cnn_bc/heldout/sjf/mean_completion_time", ".2f"),
                 **{f"{run}_slowdown": at(DRM2_FIG4, f"runs/{run}/over_seeds/sampled/mean_slowdown/iqm", ".2f")
                    for run in ("mlp", "cnn_bc")}},
        inputs=tuple(f"{{out}}/deeprm2_fig3_h200/load0.7/{label}/eval.json" for label in ("mlp", "mlp_bc", "cnn_bc")),
        needs=("deeprm2_fig3_h200",),
        note="The MLP completion-time runs were trained on the 2-core CPU (3.6 / 3.9 s per 3-seed iteration), the CNN "
             "+ BC one on one NVIDIA H200 (results/deeprm2_fig3_h200/device_run_load0.7.sh); the slowdown-trained "
             "runs are read from deeprm2_fig3_h200's copies (eval.json, metrics.csv).",
    ),
    Item(
        id="deeprm2_fig6_load0.7",
        paper="DeepRM2 Fig. 6: slowdown by job length (box plots), Random / SJF / DeepRM's MLP / DeepRM2's CNN + BC "
              "at load 0.7, seed 0's policies of deeprm2_fig3_h200 on its 100 held-out jobsets, sampled",
        steps=deeprm2_fig6_steps(),
        outputs=tuple(f"deeprm2_fig6_load0.7/{name}" for name in
                      ("cnn_bc.csv", "mlp.csv", "slowdown_by_length.json", "slowdown_by_length.png")),
        wall_s=150,
        headline="DeepRM's MLP ({mlp} vs SJF {sjf}) wins by the short jobs (median slowdown {mlp_short_median} at lengths "
                 "1-3, upper quartile {mlp_short_q3} vs SJF's {sjf_short_q3}) and pays with the long ones (median "
                 "{mlp_long_median} vs {sjf_long_median} at 10-15); the CNN + BC policy after 190 it ({cnn}) lies between "
                 "them on long jobs (median {cnn_long_median}) and on short ones (upper quartile {cnn_short_q3}): the "
                 "paper's DeepRM2 < DeepRM is not reproduced at 190 it",
        numbers={**{name: at(DRM2_FIG6, f"series/{series}/mean_slowdown", ".2f") for name, series in DRM2_FIG6_SERIES},
                 "mlp_short_median": _by_length("DeepRM (MLP, lr 1e-3, 330 it)", "median", SHORT_JOBS, ".2f"),
                 **{f"{name}_{length}_{stat}": _by_length(series, stat, lengths)
                    for name, series in DRM2_FIG6_SERIES for length, lengths in (("short", SHORT_JOBS),
                                                                                  ("long", LONG_JOBS))
                    for stat in ("median", "q3") if f"{name}_{length}_{stat}" != "mlp_short_median"},
                 **{f"{name}_{length}_{stat}_{part}": _by_length(series, stat, lengths, part=part)
                    for name, series in DRM2_FIG6_SERIES for length, lengths in (("short", SHORT_JOBS),
                                                                                  ("long", LONG_JOBS))
                    for stat in ("median", "q3") for part in ("low", "high")}},
        inputs=tuple(f"{{scratch}}/deeprm2_fig3/{run}/checkpoints" for run in ("cnn_bc_l0.7", "mlp_l0.7")),
        needs=("deeprm2_fig3_h200",),
        note="The two checkpoints evaluated are kept: --scratch results/deeprm2_fig6_load0.7/scratch re-runs this item "
             "from them (seed 0 of each 3-seed run: evaluate --checkpoint --seed-index 0).",
    ),
    Item(
        id="deeprm_off",
        paper="DeepRM2 §4.3 Fig. 7: DeepRM_Off, offline scheduling, 5 seeds (slot scorer cloned from SJF, "
              "then REINFORCE)",
        steps=(Step("jaxsched.sweep --config configs/deeprm_off.yaml --seeds 0:5 --out {out}/deeprm_off",
                    quick_command="jaxsched.sweep --config configs/deeprm_off.yaml --seeds 0:2 "
                                  "--out {out}/deeprm_off iterations=2 chunk=1 checkpoint_every=1 "
                                  "eval_jobsets=5 algo_options.num_jobsets=2 algo_options.num_rollouts=2 "
                                  "bc.num_jobsets=20 bc.max_epochs=5"),),
        outputs=("deeprm_off/summary.csv", "deeprm_off/report.md"),
        wall_s=2923,
        headline="{seeds} seeds, sampled IQM {iqm} {ci} vs SJF {sjf}, {beating} seeds beat SJF with every job "
                 "finished (clone {clone} up to SJF's ties)",
        numbers={**sweep_summary("deeprm_off", baselines=("sjf",)),
                 "beating": sweep("deeprm_off", stat="beating"),
                 "clone": computed("deeprm_off/cells/cell000/behaviour_cloning.json",  # mean over seeds
                                   lambda root: float(np.mean([s["best_val_acc_ties"] for s in json_value(
                                       root, "deeprm_off/cells/cell000/behaviour_cloning.json", "")])), ".2f")},
    ),
    trace_policy_item("trace_policy_lublin", "dataset:lublin-256", "the Lublin-256 trace", 697),
    trace_policy_item("trace_policy_ctc", "dataset:ctc-sp2-first969", "the CTC SP2 excerpt", 962),
    trace_policy_item("trace_policy_lublin_dense", "dataset:lublin-256", "the Lublin-256 trace", 1370, "dense"),
    trace_policy_item("trace_policy_lublin_reduced", "dataset:lublin-256", "the Lublin-256 trace", 392, "reduced"),
    trace_policy_item("trace_policy_ctc_dense", "dataset:ctc-sp2-first969", "the CTC SP2 excerpt", 541, "dense"),
    Item(
        id="bench_env",
        paper="environment steps/s beside the reference simulators (DeepRM, sched-rl-gym, VMAgent), same jobs, one run",
        steps=(Step("jaxsched.bench env --family deeprm,compact,vm --sizes 10,20,50 --loads 1.3,0.7 "
                    "--pms 20,50,100,200 --out {out}/bench_env.json",
                    quick="--sizes 5 --loads 1.3 --pms 20 --quick"),),
        outputs=("bench_env.json", "bench_env.md", "bench_env_scaling.png"),
        wall_s=811,
        headline="DeepRM, batch 1024 over both cores, load 1.3: image {image10}x / {image20}x / {image50}x the reference "
                 "at M = 10 / 20 / 50 (built and read alone: {ceiling10}x / {ceiling20}x / {ceiling50}x), no observation "
                 "{none10}x / {none20}x / {none50}x; VM First-Fit at 50 PMs {vm50}x",
        numbers={**{f"{name}{m}": _bench_row("bench_env.json", fmt=".2f" if name == "call" else ".1f", family="deeprm",
                                             size=m, load=1.3, workload=workload)
                    for m in (10, 20, 50) for name, workload in (
                        ("image", "image, batch 1024"), ("none", "no observation, batch 1024"),
                        ("ceiling", "ceiling: image built and read, no dynamics, batch 1024"),
                        ("batch1_", "image, batch 1"), ("call", "image, one step per Python call"))},
                 "compact_call": _bench_row("bench_env.json", fmt=".2f", family="compact",
                                            workload="compact state, one step per Python call"),
                 "vm200_call": _bench_row("bench_env.json", fmt=".2f", family="vm", size=200,
                                          workload="First-Fit, one step per Python call"),
                 "call_low": computed("bench_env.json", lambda root: min(_call_ratios(root)), ".2f"),
                 "call_high": computed("bench_env.json", lambda root: max(r for r in _call_ratios(root) if r < 1),
                                       ".2f"),
                 "vm50": _bench_row("bench_env.json", fmt=".0f", family="vm", size=50, workload="First-Fit, batch 1024")},
    ),
    Item(
        id="bench_dispatch",
        paper="one env step per Python call taken apart: XLA:CPU's per-execution cost against the step's own",
        steps=(Step("jaxsched.bench dispatch --sizes 10,20,50 --out {out}/bench_dispatch.json",
                    quick="--sizes 5 --calls 20 --repeats 1"),),
        outputs=("bench_dispatch.json",),
        wall_s=44,
        headline="DeepRM M = 10: one packed step {call} us per Python call, {scan} us inside a scan; {thunks} thunks",
        numbers={"call": _bench_row("bench_dispatch.json", "us_per_call", ".0f", program="DeepRM M=10: whole step"),
                 "scan": _bench_row("bench_dispatch.json", "us_per_call", ".1f",
                                    program="DeepRM M=10: whole step, per step of a scan"),
                 "thunks": _bench_row("bench_dispatch.json", "thunks", ".0f", program="DeepRM M=10: whole step"),
                 "call_one_core": _bench_row("bench_dispatch.json", "us_per_call_one_core", ".0f",
                                             program="DeepRM M=10: whole step"),
                 "pack": _bench_row("bench_dispatch.json", "us_per_call", ".0f",
                                    program="DeepRM M=10: pack and unpack only")},
    ),
    Item(
        id="bench_event",
        paper="MDP-design study: what an event-based (sparse) decision costs under vmap against a time-based one",
        steps=(Step("jaxsched.bench event --scenario bracis-7 --batches 32,1024 --out {out}/bench_event.json",
                    quick="--batches 4 --steps 5 --repeats 1 --window 0.1"),),
        outputs=("bench_event.json", "bench_event.md"),
        wall_s=60,
        headline="bracis-7, SJF: an event decision costs {cost32}x (batch 32) / {cost1024}x (batch 1024) a time-based "
                 "one ({ticks} ticks each)",
        numbers={"cost32": at("bench_event.json", "event_cost_per_decision/32", ".1f"),
                 "cost1024": at("bench_event.json", "event_cost_per_decision/1024", ".1f"),
                 "ticks": _bench_row("bench_event.json", "ticks_per_decision", ".1f", stepping="event", batch=1024)},
    ),
    Item(
        id="bench_train",
        paper="training speed, one device vs one per core",
        steps=(Step("jaxsched.bench train --devices 1core,1,auto --out {out}/bench_train.json",
                    quick="--devices 1 --repeats 1 --config configs/quickstart.yaml"),),
        outputs=("bench_train.json",),
        wall_s=223,
        headline="REINFORCE 20 x 10, 2 seeds: {small_one} s -> {small_auto} s per iteration ({small_speedup}x); paper "
                 "size {paper_one} s -> {paper_auto} s ({paper_speedup}x)",
        numbers={**{f"{size}_{spec}": _bench_row("bench_train.json", "seconds_per_iteration_median", ".2f",
                                                  workload=workload, device_spec=device)
                    for size, workload in (("small", "REINFORCE, 20 jobsets x 10 rollouts, 2 seeds"),
                                           ("paper", "REINFORCE, paper size (100 jobsets x 20 rollouts), 1 seed"))
                    for spec, device in (("one", "1"), ("auto", "auto"), ("core", "1core"))},
                 "small_speedup": at("bench_train.json", "speedups/REINFORCE, 20 jobsets x 10 rollouts, 2 seeds/1", ".2f"),
                 "paper_speedup": at("bench_train.json",
                                     "speedups/REINFORCE, paper size (100 jobsets x 20 rollouts), 1 seed/1", ".2f"),
                 "small_vs_core": at("bench_train.json",
                                     "speedups/REINFORCE, 20 jobsets x 10 rollouts, 2 seeds/1core", ".2f"),
                 "paper_vs_core": at("bench_train.json",
                                     "speedups/REINFORCE, paper size (100 jobsets x 20 rollouts), 1 seed/1core", ".2f")},
    ),
    Item(
        id="bench_train_cnn_cpu",
        paper="DeepRM2 CNN iteration cost on CPU at 10 x 10 rollouts (20 x 20 is 4x the rollouts)",
        steps=(Step("jaxsched.bench train --devices 1 --repeats 1 --out {out}/bench_train_cnn_cpu.json "
                    "--config configs/deeprm2_cnn_bc.yaml bc=null algo_options.num_jobsets=10 "
                    "algo_options.num_rollouts=10",
                    quick="algo_options.num_jobsets=2 algo_options.num_rollouts=2"),),
        outputs=("bench_train_cnn_cpu.json",),
        wall_s=220,
        headline="{seconds} s per iteration at {jobsets} x {rollouts} (CNN, one XLA device on the 2-core CPU)",
        numbers={"seconds": at("bench_train_cnn_cpu.json", "seconds_per_iteration_median", ".1f"),
                 "jobsets": at("bench_train_cnn_cpu.json", "jobsets", ".0f"),
                 "rollouts": at("bench_train_cnn_cpu.json", "rollouts", ".0f"),
                 "decisions": at("bench_train_cnn_cpu.json", "decisions_per_iteration", ".0f"),
                 # 20 x 20 is 4x the rollouts of the 10 x 10 measured: a linear estimate, not a measurement
                 "at_20x20": at("bench_train_cnn_cpu.json", "seconds_per_iteration_median", ".0f", scale=4),
                 "hours_400_at_20x20": at("bench_train_cnn_cpu.json", "seconds_per_iteration_median", ".0f",
                                          scale=4 * 400 / 3600)},
    ),
    Item(
        id="bench_train_deeprm2_h200",
        paper="DeepRM2 CNN vs MLP iteration cost at the paper's 20 x 20 rollouts on one GPU (the paper: CNN 37.5% "
              "faster per epoch)",
        steps=tuple(Step(f"jaxsched.bench train --devices 1 --repeats 2 --out {{out}}/bench_train_{net}_h200.json "
                         f"--config configs/deeprm2_cnn_bc.yaml bc=null algo_options.network={net} "
                         "algo_options.num_jobsets=20 algo_options.num_rollouts=20",
                         quick="--repeats 1 algo_options.num_jobsets=2 algo_options.num_rollouts=2")
                    for net in ("cnn", "mlp")),
        outputs=("bench_train_cnn_h200.json", "bench_train_mlp_h200.json"),
        wall_s=81,
        headline="one seed, {decisions}k decisions per iteration: CNN {cnn} s ({cnn_rate}k decisions/s), MLP {mlp} s "
                 "({mlp_rate}M/s); the CNN is {ratio}x the MLP's cost, not faster",
        numbers={"decisions": at("bench_train_cnn_h200.json", "rows/0/decisions_per_iteration", ".0f", scale=1e-3),
                 "cnn": at("bench_train_cnn_h200.json", "rows/0/seconds_per_iteration_median", ".2f"),
                 "mlp": at("bench_train_mlp_h200.json", "rows/0/seconds_per_iteration_median", ".2f"),
                 "cnn_rate": computed("bench_train_cnn_h200.json", lambda root: _decision_rate(
                     root, "bench_train_cnn_h200.json") / 1e3, ".0f"),
                 "mlp_rate": computed("bench_train_mlp_h200.json", lambda root: _decision_rate(
                     root, "bench_train_mlp_h200.json") / 1e6, ".1f"),
                 "ratio": computed("bench_train_cnn_h200.json", lambda root: (
                     json_value(root, "bench_train_cnn_h200.json", "rows/0/seconds_per_iteration_median")
                     / json_value(root, "bench_train_mlp_h200.json", "rows/0/seconds_per_iteration_median")), ".0f")},
        note="Recorded on one NVIDIA H200 (jax 0.11.2); one jitted iteration, no scan over iterations.",
    ),
    Item(
        id="bench_train_cnn_seed_batching",
        paper="DeepRM2's CNN, 3 seeds on one CPU device: vmapped (grouped convolutions) vs one call per seed",
        steps=tuple(Step(f"jaxsched.bench train --devices 1 --repeats 2 --out {{out}}/bench_train_cnn_seeds_{mode}.json "
                         "--config configs/deeprm2_cnn_bc.yaml bc=null algo_options.num_jobsets=2 "
                         f"algo_options.num_rollouts=2 seeds=[0,1,2] seed_batching={mode}", quick="--repeats 1")
                    for mode in ("vmap", "loop")),
        outputs=("bench_train_cnn_seeds_vmap.json", "bench_train_cnn_seeds_loop.json"),
        wall_s=198,
        headline="3 seeds, 2 x 2 rollouts ({decisions} decisions per iteration): vmapped {vmap} s, one call per seed "
                 "{loop} s per iteration ({ratio}x)",
        numbers={"decisions": at("bench_train_cnn_seeds_vmap.json", "rows/0/decisions_per_iteration", ".0f"),
                 "vmap": at("bench_train_cnn_seeds_vmap.json", "rows/0/seconds_per_iteration_median", ".1f"),
                 "loop": at("bench_train_cnn_seeds_loop.json", "rows/0/seconds_per_iteration_median", ".1f"),
                 "ratio": computed("bench_train_cnn_seeds_vmap.json", lambda root: (
                     json_value(root, "bench_train_cnn_seeds_vmap.json", "rows/0/seconds_per_iteration_median")
                     / json_value(root, "bench_train_cnn_seeds_loop.json", "rows/0/seconds_per_iteration_median")),
                     ".1f")},
        note="Measured on the 2-core CPU while a sweep ran beside it (both rows under the same load).",
    ),
    # ---- MDP design (BRACIS'21) ---------------------------------------------------------------------
    Item(
        id="mdp_ppo_first",
        paper="BRACIS'21 MDP study, first PPO measurements on bracis-1 and the transfer check",
        steps=(train("{scratch}/bracis-1_image_time_all", "configs/mdp_ppo_compact.yaml", "env=bracis-1",
                     "iterations=150", "env_options.observation=image", "env_options.stepping=time",
                     "env_options.reward_jobs=all", "eval_jobsets=100", quick=PPO_SUMMARY_QUICK),
               train("{scratch}/bracis-1_bracis_time_all", "configs/mdp_ppo_compact.yaml", "env=bracis-1",
                     "iterations=150", "env_options.observation=bracis", "env_options.stepping=time",
                     "env_options.reward_jobs=all", "eval_jobsets=100", quick=PPO_SUMMARY_QUICK),
               train("{scratch}/bracis-1_bracis_event_visible", "configs/mdp_ppo_compact.yaml", "env=bracis-1",
                     "iterations=50", "env_options.observation=bracis", "env_options.stepping=event",
                     "env_options.reward_jobs=visible", "eval_jobsets=100", quick=PPO_SUMMARY_QUICK),
               Step("jaxsched.studies.mdp_summary {out}/mdp_ppo/bracis-1 {scratch}/bracis-1_image_time_all "
                    "{scratch}/bracis-1_bracis_time_all {scratch}/bracis-1_bracis_event_visible"),
               Step("jaxsched.studies.mdp_transfer {scratch}/bracis-1_bracis_time_all "
                    "{out}/mdp_ppo/bracis-1/transfer_from_bracis-1_compact.json bracis-1 bracis-3 bracis-9")),
        outputs=("mdp_ppo/bracis-1/summary.json", "mdp_ppo/bracis-1/learning_curves.png",
                 "mdp_ppo/bracis-1/transfer_from_bracis-1_compact.json"),
        wall_s=1100,
        headline="image {image} leaves {image_unfinished} of {jobs} unfinished (not ranked); compact {compact}, "
                 "compact+event {event} vs SJF {sjf}, Packer {packer} (bracis-1, held-out)",
        numbers={"image": at(MDP_FIRST, "bracis-1_image_time_all/heldout/trained-s0/mean_slowdown", ".2f"),
                 "image_unfinished": computed(MDP_FIRST, lambda root: int(
                     json_value(root, MDP_FIRST, "bracis-1_image_time_all/heldout/trained-s0/jobs")) - int(
                     json_value(root, MDP_FIRST, "bracis-1_image_time_all/heldout/trained-s0/finished")), "d"),
                 "jobs": at(MDP_FIRST, "bracis-1_image_time_all/heldout/trained-s0/jobs", ".0f"),
                 "compact": at(MDP_FIRST, "bracis-1_bracis_time_all/heldout/trained-s0/mean_slowdown", ".2f"),
                 "event": at(MDP_FIRST, "bracis-1_bracis_event_visible/heldout/trained-s0/mean_slowdown", ".2f"),
                 "sjf": at(MDP_FIRST, "bracis-1_bracis_time_all/heldout/sjf/mean_slowdown", ".2f"),
                 "packer": at(MDP_FIRST, "bracis-1_bracis_time_all/heldout/packer/mean_slowdown", ".2f")},
    ),
    Item(
        id="mdp_ppo_deeprm",
        paper="PPO on DeepRM (load 0.7) against REINFORCE's wall-clock",
        steps=(train("{scratch}/deeprm_ppo", "configs/deeprm_ppo.yaml", "iterations=250", quick=PPO_SUMMARY_QUICK),
               Step("jaxsched.studies.mdp_summary {out}/mdp_ppo/deeprm {scratch}/deeprm_ppo")),
        outputs=("mdp_ppo/deeprm/summary.json", "mdp_ppo/deeprm/learning_curves.png"),
        wall_s=800,
        note="The recorded run was stopped at iteration 250 of the config's 1000; here it runs 250.",
        headline="greedy {greedy} leaves {unfinished} of {jobs} unfinished (not ranked), sampled {sampled} vs SJF {sjf}",
        numbers={"greedy": at(MDP_DEEPRM, "deeprm_ppo/heldout/trained-s0/mean_slowdown", ".2f"),
                 "unfinished": computed(MDP_DEEPRM, lambda root: int(
                     json_value(root, MDP_DEEPRM, "deeprm_ppo/heldout/trained-s0/jobs")) - int(
                     json_value(root, MDP_DEEPRM, "deeprm_ppo/heldout/trained-s0/finished")), "d"),
                 "jobs": at(MDP_DEEPRM, "deeprm_ppo/heldout/trained-s0/jobs", ".0f"),
                 "sampled": at(MDP_DEEPRM, "deeprm_ppo/heldout/trained-s0-sampled/mean_slowdown", ".2f"),
                 "sjf": at(MDP_DEEPRM, "deeprm_ppo/heldout/sjf/mean_slowdown", ".2f")},
    ),
    Item(
        id="mdp_study",
        paper="BRACIS'21 Fig. 4 (1000 jobsets x 4 scenarios), Fig. 6 transfer, learning curves",
        steps=(*_mdp_study_runs(),
               Step(f"{FIG4} --parts heuristics", quick=FIG4_QUICK),
               Step(f"{FIG4} --parts agents --variants compact", quick=FIG4_QUICK),
               Step(f"{FIG4} --parts agents --scenarios bracis-1 --variants event", quick=FIG4_QUICK),
               Step(f"{FIG4} --parts agents --variants image --max-time 600", quick=FIG4_QUICK),
               Step(f"{FIG4} --parts agents --scenarios bracis-2,bracis-3,bracis-7 --variants event --max-time 600",
                    quick=FIG4_QUICK),
               Step(f"{FIG4} --parts transfer --transfer-jobsets 200", quick=FIG4_QUICK),
               Step("jaxsched.studies.mdp_study curves --runs {scratch}/mdp --fig4 {out}/mdp_ppo/fig4.json "
                    "--out {out}/mdp_ppo")),
        outputs=("mdp_ppo/fig4.json", "mdp_ppo/fig4.md", "mdp_ppo/curves_summary.json",
                 *(f"mdp_ppo/{s}/learning_curves_steps.png" for s in MDP_SCENARIOS)),
        wall_s=7200, estimate=True,
        note="Training (2,933 s recorded, results/mdp_ppo/train_study.sh) plus the 1000-jobset evaluations.",
        headline="compact PPO at Packer/EASY level (bracis-1 {compact} vs Packer {packer}, SJF {sjf}); SJF best "
                 "everywhere",
        numbers={"compact": at(MDP_FIG4, "scenarios/bracis-1/ppo-compact/seed_mean_slowdown", ".2f"),
                 "packer": at(MDP_FIG4, "scenarios/bracis-1/packer/mean_slowdown", ".2f"),
                 "sjf": at(MDP_FIG4, "scenarios/bracis-1/sjf/mean_slowdown", ".2f")},
    ),
    Item(
        id="mdp_swf",
        paper="BRACIS'21 on real traces: CTC-SP2 and Lublin-256 windows",
        steps=(Step(SWF_EVAL.format(trace="ctc-sp2-first969", name="ctc-sp2"), quick="--num-windows 1"),
               Step(SWF_EVAL.format(trace="lublin-256", name="lublin-256"), quick="--num-windows 1")),
        outputs=("mdp_swf/ctc-sp2.json", "mdp_swf/ctc-sp2.md", "mdp_swf/lublin-256.json", "mdp_swf/lublin-256.md"),
        wall_s=600, estimate=True,
        inputs=("{scratch}/mdp/bracis-7_compact/config.json", "{scratch}/mdp/bracis-1_compact/config.json"),
        needs=("mdp_study",),
        headline="Lublin: SJF {sjf}, Packer {packer}, EASY {easy}, FCFS {fcfs}; PPO (bracis-7) {ppo} leaves "
                 "{unfinished} of {jobs} unfinished (not ranked)",
        numbers={**{p: at(MDP_LUBLIN, f"policies/{p}/mean_slowdown", ".2f") for p in ("sjf", "packer", "easy")},
                 "fcfs": at(MDP_LUBLIN, "policies/fcfs/mean_slowdown", ".1f"),
                 "ppo": at(MDP_LUBLIN, "policies/ppo:bracis-7_compact/mean_slowdown", ".2f"),
                 "unfinished": computed(MDP_LUBLIN, lambda root: int(
                     json_value(root, MDP_LUBLIN, "policies/ppo:bracis-7_compact/jobs")) - int(
                     json_value(root, MDP_LUBLIN, "policies/ppo:bracis-7_compact/finished")), "d"),
                 "jobs": at(MDP_LUBLIN, "policies/ppo:bracis-7_compact/jobs", ".0f")},
    ),
    mdp_budget_item(
        "sweep_mdp_sparse_reduced_3m",
        "BRACIS'21 at the paper's budget (3M decisions per agent), compact + sparse + reduced PPO on bracis-7, 5 seeds",
        "", 1022,
        "3M decisions x {seeds} seeds: sampled IQM {iqm} {ci} vs SJF {sjf}, Packer {packer} ({beat_packer} beat "
        "Packer, {beat_sjf} SJF, every job finished); greedy leaves jobs unfinished on {greedy_unfinished} of "
        "{seeds_again} seeds",
        numbers={"seeds": sweep("sweep_mdp_sparse_reduced_3m", stat="count"),
                 "seeds_again": sweep("sweep_mdp_sparse_reduced_3m", stat="count"),
                 "iqm": sweep("sweep_mdp_sparse_reduced_3m"),
                 "ci": sweep("sweep_mdp_sparse_reduced_3m", stat="interval"),
                 "sjf": sweep("sweep_mdp_sparse_reduced_3m", policy="sjf", stat="value"),
                 "packer": sweep("sweep_mdp_sparse_reduced_3m", policy="packer", stat="value"),
                 "beat_packer": sweep("sweep_mdp_sparse_reduced_3m", stat="beating", than="packer"),
                 "beat_sjf": sweep("sweep_mdp_sparse_reduced_3m", stat="beating"),
                 "greedy_unfinished": seeds_unfinished("sweep_mdp_sparse_reduced_3m")}),
    mdp_budget_item(
        "sweep_mdp_compact_3m",
        "BRACIS'21 at the paper's budget (3M decisions per agent), compact PPO with time-based steps and every job "
        "in the reward on bracis-7, 5 seeds",
        "env_options.stepping=time env_options.reward_jobs=all", 643,
        "3M decisions x {seeds} seeds: sampled IQM {iqm} {ci} vs SJF {sjf}, Packer {packer} ({beat_packer} beat "
        "Packer, {beat_sjf} SJF, every job finished): level with compact + sparse + reduced ({sparse_reduced})",
        numbers={**sweep_summary("sweep_mdp_compact_3m"),
                 "sparse_reduced": sweep("sweep_mdp_sparse_reduced_3m")}),
    mdp_budget_item(
        "sweep_mdp_compact_3m_scenarios",
        "BRACIS'21 Fig. 4 in one MDP: compact PPO in the image agent's MDP (time-based steps, every job in the reward, "
        "the shared trunk) at the paper's budget on the six other scenarios with image agents, 5 seeds each",
        "env_options.stepping=time env_options.reward_jobs=all env=bracis-1,bracis-2,bracis-10,bracis-9,bracis-8,"
        "bracis-6", 1900,
        "sampled, every job finished, {beat_sjf} seeds reach SJF: bracis-1 IQM {b1}, -2 {b2}, -10 {b10}, -9 {b9}, "
        "-8 {b8}, -6 {b6}; against the image agents in the same MDP: behind on bracis-1 (CIs apart), -8 and -6 (CI "
        "apart from the image agents' 3-seed range), level on -2, -10, -9 (and -7: sweep_mdp_compact_3m): compact is "
        "never ahead of image in one MDP",
        numbers={"beat_sjf": sweep("sweep_mdp_compact_3m_scenarios", stat="beating"),
                 **{scenario: sweep("sweep_mdp_compact_3m_scenarios", cell=cell) for scenario, cell in (
                     ("b1", "cell000"), ("b2", "cell001"), ("b10", "cell002"), ("b9", "cell003"), ("b8", "cell004"),
                     ("b6", "cell005"))}},
        note="3-5 min of training per scenario for the 5 seeds on the 2-core CPU, partly beside other runs (stop 43); "
             "the final checkpoint of each cell kept."),
    mdp_budget_item(
        "sweep_mdp_image_3m",
        "BRACIS'21 Figs. 3-4 at the paper's budget: the image-like (base) MDP's PPO (configs/mdp_ppo_image.yaml: "
        "time-based steps, every job in the reward, the shared 2 x 64 trunk) on bracis-7, 5 seeds (one GPU)",
        "", 180,
        "3M decisions x {seeds} seeds in {minutes} min on one H200: sampled IQM {iqm} {ci} vs SJF {sjf}, Packer {packer} "
        "({beat_packer} beat Packer, {beat_sjf} SJF, every job finished), beside the compact agent on the same MDP "
        "{compact} {compact_ci}: compact no worse than image, as the paper finds; greedy leaves jobs unfinished on "
        "{greedy_unfinished} of {seeds_again} seeds",
        config="configs/mdp_ppo_image.yaml", checkpoint_every=125,
        numbers={"seeds": sweep("sweep_mdp_image_3m", stat="count"),
                 "seeds_again": sweep("sweep_mdp_image_3m", stat="count"),
                 "minutes": computed(MDP_IMAGE_METRICS, lambda root: sum(column(root, MDP_IMAGE_METRICS, "wall_s",
                                                                                {"seed": 0})) / 60, ".0f"),
                 "iqm": sweep("sweep_mdp_image_3m"),
                 "ci": sweep("sweep_mdp_image_3m", stat="interval"),
                 "sjf": sweep("sweep_mdp_image_3m", policy="sjf", stat="value"),
                 "packer": sweep("sweep_mdp_image_3m", policy="packer", stat="value"),
                 "beat_packer": sweep("sweep_mdp_image_3m", stat="beating", than="packer"),
                 "beat_sjf": sweep("sweep_mdp_image_3m", stat="beating"),
                 "compact": sweep("sweep_mdp_compact_3m"),
                 "compact_ci": sweep("sweep_mdp_compact_3m", stat="interval"),
                 "greedy_unfinished": seeds_unfinished("sweep_mdp_image_3m")},
        note="Trained and evaluated on one NVIDIA H200 (jax 0.11.2; 119 s of training for the 5 seeds, 143k steps/s "
             "logged) by results/sweep_mdp_image_3m/device_run.sh; on the 2-core CPU ~100 min (3.3 s per iteration "
             "for 5 seeds, measured on bracis-10; the first layer reads the 20 x 708 image). The checkpoint (21 MB) "
             "is not kept."),
    mdp_budget_item(
        "sweep_mdp_image_3m_scenarios",
        "BRACIS'21 Fig. 4's image agent at the paper's budget on the largest scenarios after bracis-7 (64 processors; "
        "the issue: image agents on at least the four largest): the image-like MDP's PPO as sweep_mdp_image_3m, "
        "3 seeds per scenario (the issue's floor for runs over 30 min: ~62 min per scenario on the 2-core CPU)",
        "env=bracis-10,bracis-9,bracis-8,bracis-6", 4 * 4000,
        "sampled, every job finished, {beat_packer} seeds beat Packer and {beat_sjf} SJF (3 seeds per scenario): "
        "bracis-10 IQM {b10} {b10_range} vs SJF {b10_sjf}, Packer {b10_packer}; bracis-9 {b9} {b9_range} vs {b9_sjf}, "
        "{b9_packer}; bracis-8 {b8} {b8_range} vs {b8_sjf}, {b8_packer}; bracis-6 {b6} {b6_range} vs {b6_sjf}, "
        "{b6_packer}; behind compact + sparse + reduced on bracis-10 ({sr10}, its CI apart from the range), level on "
        "-9, -8, -6 ({sr9}, {sr8}, {sr6}); behind the separate critic's except level on bracis-6 ({sep6})",
        config="configs/mdp_ppo_image.yaml", checkpoint_every=125, seeds=3,
        numbers={"beat_packer": sweep("sweep_mdp_image_3m_scenarios", stat="beating", than="packer"),
                 "beat_sjf": sweep("sweep_mdp_image_3m_scenarios", stat="beating"),
                 **cell_numbers("sweep_mdp_image_3m_scenarios",
                                (("b10", "cell000"), ("b9", "cell001"), ("b8", "cell002"), ("b6", "cell003")),
                                interval="_range"),
                 **{f"sr{n}": sweep("sweep_mdp_sparse_reduced_3m_scenarios", cell=cell)
                    for n, cell in (("10", "cell000"), ("9", "cell001"), ("8", "cell002"), ("6", "cell003"))},
                 "sep6": sweep("sweep_mdp_separate_critic_3m_scenarios", cell="cell005")},
        note="Run on the 2-core CPU (1.9-2.0 s per iteration for 3 seeds, ~62 min of training per scenario; the first "
             "layer reads the 20 x 708 image) from runs/cpu_image/ and copied here without checkpoints (42 MB per "
             "cell). Resumable: a finished scenario's cell is skipped (bracis-10, -9 ran at stop 41, bracis-8, -6 "
             "at stop 42: 61 min 49 s and 60 min 46 s of training)."),
    mdp_budget_item(
        "sweep_mdp_image_3m_small",
        "BRACIS'21 Fig. 4's image agent at the paper's budget on the two 10-processor scenarios: the image-like "
        "MDP's PPO as sweep_mdp_image_3m, 5 seeds, beside the compact agent in the same MDP "
        "(sweep_mdp_compact_3m_scenarios)",
        "env=bracis-1,bracis-2", 2400,
        "sampled, every job finished, {beat_packer} seeds beat Packer, {beat_sjf} SJF: bracis-1 IQM {b1} {b1_ci} vs SJF "
        "{b1_sjf}, Packer {b1_packer}, ahead of compact in the same MDP ({c1} {c1_ci}, CIs apart); bracis-2 {b2} "
        "{b2_ci} vs {b2_sjf}, {b2_packer}, level with compact ({c2} {c2_ci}): image no worse than compact here",
        config="configs/mdp_ppo_image.yaml", checkpoint_every=125,
        numbers={"beat_packer": sweep("sweep_mdp_image_3m_small", stat="beating", than="packer"),
                 "beat_sjf": sweep("sweep_mdp_image_3m_small", stat="beating"),
                 **{f"{agent}{n}{suffix}": sweep(name, cell=cell, **options)
                    for n, cell in (("1", "cell000"), ("2", "cell001"))
                    for agent, name in (("b", "sweep_mdp_image_3m_small"), ("c", "sweep_mdp_compact_3m_scenarios"))
                    for suffix, options in (("", {}), ("_ci", {"stat": "interval"}),
                                            ("_sjf", {"policy": "sjf", "stat": "value"}),
                                            ("_packer", {"policy": "packer", "stat": "value"}))}},
        note="Run on the 2-core CPU from runs/cpu_image_small/ (bracis-1 15 min 51 s, bracis-2 19 min 51 s of "
             "training for the 5 seeds, partly beside other runs) and copied here with the final checkpoint only."),
    mdp_budget_item(
        "sweep_mdp_image_3m_small_ent_coef",
        "Is entropy collapse what holds the shared-trunk image agent back? sweep_mdp_image_3m_small's bracis-1 cell "
        "with 5x the entropy coefficient (0.05), 5 seeds",
        "algo_options.ent_coef=0.05 env=bracis-1", 1080,
        "sampled, every job finished, {beat_packer} seeds beat Packer, {beat_sjf} SJF: IQM {iqm} {ci} vs SJF {sjf}, "
        "Packer {packer}, worse than ent_coef 0.01 ({base} {base_ci}, CIs apart) though its entropy stays up "
        "({entropy} vs {base_entropy} over the last 375 iterations): entropy collapse is not what keeps it behind the "
        "separate critic ({separate})",
        config="configs/mdp_ppo_image.yaml",
        numbers={**sweep_summary("sweep_mdp_image_3m_small_ent_coef"),
                 "base": sweep("sweep_mdp_image_3m_small", cell="cell000"),
                 "base_ci": sweep("sweep_mdp_image_3m_small", cell="cell000", stat="interval"),
                 "entropy": late_entropy("sweep_mdp_image_3m_small_ent_coef/cells/cell000__algo_options.ent_coef=0.05__"
                                         "env=bracis-1__iterations=1875__chunk=25__checkpoint_every=625__"
                                         "eval_jobsets=200/metrics.csv"),
                 "base_entropy": late_entropy("sweep_mdp_image_3m_small/cells/cell000__env=bracis-1__iterations=1875__"
                                              "chunk=25__checkpoint_every=125__eval_jobsets=200/metrics.csv"),
                 "separate": sweep("sweep_mdp_image_separate_critic_3m_scenarios", cell="cell000")},
        note="Run on the 2-core CPU from runs/cpu_image_ent/ (16 min of training for the 5 seeds) and copied here "
             "without its checkpoints (the command regenerates them)."),
    mdp_budget_item(
        "sweep_mdp_image_3m_small_vf_coef",
        "Is the value loss swamping the shared trunk? sweep_mdp_image_3m_small's bracis-1 cell with a 5x smaller "
        "value weight (vf_coef 0.1), 5 seeds",
        "algo_options.vf_coef=0.1 env=bracis-1", 1080,
        "sampled, every job finished, {beat_packer} seeds beat Packer, {beat_sjf} SJF: IQM {iqm} {ci} vs SJF {sjf}, "
        "Packer {packer}, level with vf_coef 0.5 ({base} {base_ci}) and behind the separate critic ({separate} "
        "{separate_ci}): neither the entropy nor the value weight closes the gap; the separate torso carries it",
        config="configs/mdp_ppo_image.yaml",
        numbers={**sweep_summary("sweep_mdp_image_3m_small_vf_coef"),
                 "base": sweep("sweep_mdp_image_3m_small", cell="cell000"),
                 "base_ci": sweep("sweep_mdp_image_3m_small", cell="cell000", stat="interval"),
                 "separate": sweep("sweep_mdp_image_separate_critic_3m_scenarios", cell="cell000"),
                 "separate_ci": sweep("sweep_mdp_image_separate_critic_3m_scenarios", cell="cell000", stat="interval")},
        note="Run on the 2-core CPU from runs/cpu_image_vf/ (15 min 10 s of training for the 5 seeds) and copied here "
             "without its checkpoints (the command regenerates them)."),
    mdp_budget_item(
        "sweep_mdp_sparse_reduced_3m_h60",
        "BRACIS'21's H = 60 test: the compact + sparse + reduced sweep with a 60-step horizon (the paper: "
        "indistinguishable from H = 20)",
        "env_options.horizon=60", 1116,
        "H = 60, 3M decisions x {seeds} seeds: sampled IQM {iqm} {ci} vs {h20} {h20_ci} at H = 20 (CIs "
        "overlap; one H = 60 seed lags at {worst}); SJF {sjf}, Packer {packer}",
        numbers={"seeds": sweep("sweep_mdp_sparse_reduced_3m_h60", stat="count"),
                 "iqm": sweep("sweep_mdp_sparse_reduced_3m_h60"),
                 "ci": sweep("sweep_mdp_sparse_reduced_3m_h60", stat="interval"),
                 "h20": sweep("sweep_mdp_sparse_reduced_3m"),
                 "h20_ci": sweep("sweep_mdp_sparse_reduced_3m", stat="interval"),
                 "worst": sweep("sweep_mdp_sparse_reduced_3m_h60", stat="max", fmt=".2f"),
                 "sjf": sweep("sweep_mdp_sparse_reduced_3m_h60", policy="sjf", stat="value"),
                 "packer": sweep("sweep_mdp_sparse_reduced_3m_h60", policy="packer", stat="value")}),
    mdp_budget_item(
        "sweep_mdp_sparse_reduced_3m_bracis1",
        "BRACIS'21 at the paper's budget on scenario 1 (10 processors, jobs <= 15 steps): compact + sparse + "
        "reduced PPO, 5 seeds",
        "env=bracis-1", 935,
        "bracis-1, 3M decisions x {seeds} seeds: sampled IQM {iqm} {ci} vs SJF {sjf}, Packer {packer} ({beat_packer} "
        "beat Packer, {beat_sjf} SJF, every job finished)",
        numbers={**sweep_summary("sweep_mdp_sparse_reduced_3m_bracis1")}),
    mdp_budget_item(
        "sweep_mdp_sparse_reduced_3m_scenarios",
        "BRACIS'21 at the paper's budget on the other eight scenarios (Fig. 4): compact + sparse + reduced PPO, "
        "5 seeds per scenario",
        "env=bracis-10,bracis-9,bracis-8,bracis-6,bracis-5,bracis-4,bracis-3,bracis-2", 8 * 1100,
        "8 of 8 cells, every job finished sampled: sampled IQM {low}-{high}x SJF; {beat_packer} seeds beat Packer "
        "(bracis-6: {b6_beat}, IQM {b6} vs Packer {b6_packer}; bracis-3: {b3_beat}, {b3} vs {b3_packer}); {b9_beat} "
        "bracis-9 seeds beat SJF ({b9_best} vs {b9_sjf})",
        numbers={"low": iqm_over_sjf("sweep_mdp_sparse_reduced_3m_scenarios", "min"),
                 "high": iqm_over_sjf("sweep_mdp_sparse_reduced_3m_scenarios", "max"),
                 "beat_packer": sweep("sweep_mdp_sparse_reduced_3m_scenarios", stat="beating", than="packer"),
                 "b6_beat": sweep("sweep_mdp_sparse_reduced_3m_scenarios", cell="cell003", stat="beating", than="packer"),
                 "b6": sweep("sweep_mdp_sparse_reduced_3m_scenarios", cell="cell003", fmt=".2f"),
                 "b6_packer": sweep("sweep_mdp_sparse_reduced_3m_scenarios", cell="cell003", policy="packer",
                                    stat="value", fmt=".2f"),
                 "b3_beat": sweep("sweep_mdp_sparse_reduced_3m_scenarios", cell="cell006", stat="beating", than="packer"),
                 "b3": sweep("sweep_mdp_sparse_reduced_3m_scenarios", cell="cell006"),
                 "b3_packer": sweep("sweep_mdp_sparse_reduced_3m_scenarios", cell="cell006", policy="packer",
                                    stat="value"),
                 "b9_beat": sweep("sweep_mdp_sparse_reduced_3m_scenarios", cell="cell001", stat="beating"),
                 "b9_best": sweep("sweep_mdp_sparse_reduced_3m_scenarios", cell="cell001", stat="min"),
                 "b9_sjf": sweep("sweep_mdp_sparse_reduced_3m_scenarios", cell="cell001", policy="sjf", stat="value")},
        note="bracis-4 and -3 ran alone at stop 42 (--shard 5/8, 6/8 of the same command: 5 min 0 s and 4 min 9 s of "
             "training on the 2-core CPU); the six others earlier, with two other runs on the CPU (18-30 min)."),
    mdp_budget_item(
        "sweep_mdp_sparse_reduced_3m_separate_critic",
        "BRACIS'21's networks at the paper's budget: compact + sparse + reduced PPO with a separate actor and "
        "critic (the paper's parameter counts) on bracis-7, 5 seeds",
        "algo_options.separate_critic=true", 1470,
        "3M decisions x {seeds} seeds: sampled IQM {iqm} {ci} vs SJF {sjf}, Packer {packer}: {beat_sjf} seeds beat SJF "
        "with every job finished (the shared trunk: {shared} {shared_ci}; {shared_beat})",
        numbers={**sweep_summary("sweep_mdp_sparse_reduced_3m_separate_critic"),
                 "packer": sweep("sweep_mdp_sparse_reduced_3m_separate_critic", policy="packer", stat="value"),
                 "beat_sjf": sweep("sweep_mdp_sparse_reduced_3m_separate_critic", stat="beating"),
                 "shared": sweep("sweep_mdp_sparse_reduced_3m"),
                 "shared_ci": sweep("sweep_mdp_sparse_reduced_3m", stat="interval"),
                 "shared_beat": sweep("sweep_mdp_sparse_reduced_3m", stat="beating")}),
    mdp_budget_item(
        "sweep_mdp_separate_critic_3m_scenarios",
        "BRACIS'21's networks at the paper's budget on the other nine scenarios: compact + sparse + reduced PPO with "
        "a separate actor and critic, 5 seeds per scenario",
        "algo_options.separate_critic=true env=bracis-1,bracis-9,bracis-2,bracis-10,bracis-8,bracis-6,bracis-5,"
        "bracis-4,bracis-3", 9 * 1440,
        "all 9 cells, sampled, every job finished: bracis-9 IQM {b9} {b9_ci} vs SJF {b9_sjf}, "
        "bracis-2 {b2} {b2_ci} vs {b2_sjf}, bracis-10 {b10} {b10_ci} vs {b10_sjf}, bracis-8 {b8} {b8_ci} "
        "vs {b8_sjf}, bracis-5 {b5} {b5_ci} vs {b5_sjf}, bracis-4 {b4} {b4_ci} vs {b4_sjf} ({won} seeds beat SJF on "
        "these six); bracis-1 {b1} {b1_ci} vs SJF {b1_sjf}, bracis-6 {b6} {b6_ci} vs {b6_sjf} ({lost} beat Packer on "
        "the two), bracis-3 {b3} {b3_ci} vs {b3_sjf} ({b3_beat} beat Packer's {b3_packer})",
        numbers={**cell_numbers("sweep_mdp_separate_critic_3m_scenarios", SEPARATE_3M_CELLS, packer=False),
                 "won": beating_cells("sweep_mdp_separate_critic_3m_scenarios",
                                      tuple(SEPARATE_3M_CELLS[b] for b in ("b9", "b2", "b10", "b8", "b5", "b4"))),
                 "lost": beating_cells("sweep_mdp_separate_critic_3m_scenarios",
                                       (SEPARATE_3M_CELLS["b1"], SEPARATE_3M_CELLS["b6"]), than="packer"),
                 "b3_beat": sweep("sweep_mdp_separate_critic_3m_scenarios", cell="cell008", stat="beating",
                                  than="packer"),
                 "b3_packer": sweep("sweep_mdp_separate_critic_3m_scenarios", cell="cell008", policy="packer",
                                    stat="value")}),
    mdp_budget_item(
        "sweep_mdp_separate_critic_6m",
        "BRACIS'21's networks at twice the paper's budget (6M decisions per seed) on the three scenarios where 3M "
        "left compact + sparse + reduced with a separate actor and critic above SJF, 5 seeds per scenario",
        "algo_options.separate_critic=true env=bracis-1,bracis-3,bracis-6", 3 * 2200,
        "sampled, every job finished: bracis-1 IQM {b1} {b1_ci} vs SJF {b1_sjf} (3M: {b1_3m}) and bracis-6 "
        "{b6} {b6_ci} vs {b6_sjf} (3M: {b6_3m}), {won} seeds beat SJF on the two; bracis-3 level with SJF, {b3} "
        "{b3_ci} vs {b3_sjf} (3M: {b3_3m}; {b3_beat} below it); the paper's budget does not saturate these agents; "
        "completion time stays above SJF's ({ct_low}-{ct_high} vs {sjf_ct_low}-{sjf_ct_high})",
        iterations=3750,
        numbers={**cell_numbers("sweep_mdp_separate_critic_6m", (("b1", "cell000"), ("b3", "cell001"), ("b6", "cell002")), packer=False),
                 **{f"{b}_3m": sweep("sweep_mdp_separate_critic_3m_scenarios", cell=SEPARATE_3M_CELLS[b])
                    for b in ("b1", "b3", "b6")},
                 "won": beating_cells("sweep_mdp_separate_critic_6m", ("cell000", "cell002")),
                 "b3_beat": sweep("sweep_mdp_separate_critic_6m", cell="cell001", stat="beating"),
                 "ct_low": over_cells("sweep_mdp_separate_critic_6m", "min", ("cell000", "cell002")),
                 "ct_high": over_cells("sweep_mdp_separate_critic_6m", "max", ("cell000", "cell002")),
                 "sjf_ct_low": over_cells("sweep_mdp_separate_critic_6m", "min", ("cell000", "cell002"), policy="sjf"),
                 "sjf_ct_high": over_cells("sweep_mdp_separate_critic_6m", "max", ("cell000", "cell002"),
                                           policy="sjf")},
        note="Run on the 2-core CPU from runs/cpu_compact_sep_6m/ (35 min of training per scenario for the 5 seeds "
             "vmapped, 1 min of evaluation) and copied here with the final checkpoint only. Its first 1875 "
             "iterations are sweep_mdp_separate_critic_3m_scenarios' cells bit for bit (every training metric of "
             "every seed equal), so the 3M result is this run's midpoint."),
    mdp_budget_item(
        "sweep_mdp_separate_critic_6m_bracis7",
        "Does twice the paper's budget still help where 3M already beat SJF? BRACIS'21's networks (compact + sparse "
        "+ reduced, separate actor and critic) at 6M decisions on bracis-7, the paper's main scenario, 5 seeds",
        "algo_options.separate_critic=true env=bracis-7", 2300,
        "sampled, every job finished: IQM {iqm} {ci} vs 3M's {m3} {m3_ci} (CIs apart), SJF {sjf}; "
        "{beat} seeds beat SJF sampled, {greedy_beat} greedy (one leaves {greedy_left} jobs); completion time "
        "{ct_low}-{ct_high} vs SJF {sjf_ct} (3M: {m3_ct_low}-{m3_ct_high}): the gain holds where 3M already won",
        iterations=3750,
        numbers={"iqm": sweep("sweep_mdp_separate_critic_6m_bracis7"),
                 "ci": sweep("sweep_mdp_separate_critic_6m_bracis7", stat="interval"),
                 "m3": sweep("sweep_mdp_sparse_reduced_3m_separate_critic"),
                 "m3_ci": sweep("sweep_mdp_sparse_reduced_3m_separate_critic", stat="interval"),
                 "sjf": sweep("sweep_mdp_separate_critic_6m_bracis7", policy="sjf", stat="value"),
                 "beat": sweep("sweep_mdp_separate_critic_6m_bracis7", stat="beating"),
                 "greedy_beat": sweep("sweep_mdp_separate_critic_6m_bracis7", policy="", stat="beating"),
                 "greedy_left": jobs_unfinished("sweep_mdp_separate_critic_6m_bracis7"),
                 "ct_low": over_cells("sweep_mdp_separate_critic_6m_bracis7", "min", ("cell000",)),
                 "ct_high": over_cells("sweep_mdp_separate_critic_6m_bracis7", "max", ("cell000",)),
                 "sjf_ct": over_cells("sweep_mdp_separate_critic_6m_bracis7", "min", ("cell000",), policy="sjf",
                                      fmt=".2f"),
                 "m3_ct_low": over_cells("sweep_mdp_sparse_reduced_3m_separate_critic", "min", ("cell000",)),
                 "m3_ct_high": over_cells("sweep_mdp_sparse_reduced_3m_separate_critic", "max", ("cell000",))},
        note="Run on the 2-core CPU from runs/cpu_compact_sep_6m_b7/ (36 min of training for the 5 seeds vmapped, "
             "partly beside the quickstart check; 1 min of evaluation) and copied here with the final checkpoint "
             "only. Its first 1875 iterations are sweep_mdp_sparse_reduced_3m_separate_critic's cell bit for bit "
             "(every training metric of every seed equal)."),
    mdp_budget_item(
        "sweep_mdp_separate_critic_6m_won",
        "Does twice the paper's budget still help on the other scenarios 3M already won? BRACIS'21's networks "
        "(compact + sparse + reduced, separate actor and critic) at 6M decisions, 5 seeds per scenario; resumable, "
        "one cell at a time",
        "algo_options.separate_critic=true env=bracis-8,bracis-9,bracis-4,bracis-5,bracis-2,bracis-10", 6 * 1400,
        "all 6 cells, sampled, every job finished, {beat} seeds beat SJF: bracis-8 IQM {b8} {b8_ci} "
        "(3M: {b8_3m}) vs SJF {b8_sjf}, bracis-9 {b9} {b9_ci} ({b9_3m}) vs {b9_sjf}, bracis-4 {b4} {b4_ci} "
        "({b4_3m}) vs {b4_sjf}, bracis-5 {b5} {b5_ci} ({b5_3m}) vs {b5_sjf}, bracis-2 {b2} {b2_ci} ({b2_3m}) vs "
        "{b2_sjf}, bracis-10 {b10} {b10_ci} ({b10_3m}) vs {b10_sjf}; greedy below SJF with every job finished on "
        "{greedy_beat} seeds (one bracis-9 seed leaves {b9_left}); completion time not grown (bracis-5: "
        "{b5_ct_low}-{b5_ct_high} vs SJF {b5_sjf_ct})",
        iterations=3750,
        numbers={"beat": sweep("sweep_mdp_separate_critic_6m_won", stat="beating"),
                 **cell_numbers("sweep_mdp_separate_critic_6m_won", WON_6M_CELLS.items(), packer=False),
                 **{f"{b}_3m": sweep("sweep_mdp_separate_critic_3m_scenarios", cell=SEPARATE_3M_CELLS[b])
                    for b in WON_6M_CELLS},
                 "greedy_beat": sweep("sweep_mdp_separate_critic_6m_won", policy="", stat="beating"),
                 "b9_left": jobs_unfinished("sweep_mdp_separate_critic_6m_won", cell=WON_6M_CELLS["b9"]),
                 "b5_ct_low": over_cells("sweep_mdp_separate_critic_6m_won", "min", (WON_6M_CELLS["b5"],)),
                 "b5_ct_high": over_cells("sweep_mdp_separate_critic_6m_won", "max", (WON_6M_CELLS["b5"],)),
                 "b5_sjf_ct": over_cells("sweep_mdp_separate_critic_6m_won", "min", (WON_6M_CELLS["b5"],),
                                         policy="sjf", fmt=".2f")},
        note="Run on the 2-core CPU (an AMD EPYC) from runs/cpu6m_won/ one cell at a time (--shard I/6 of the same "
             "command; bracis-8 as a one-scenario sweep whose cell is this one's cell000): 20-21 min of training per "
             "scenario for the 5 seeds vmapped, 1 min of evaluation; copied here with the final checkpoints only. "
             "Unlike the earlier 6M items, the first 1875 "
             "iterations are not sweep_mdp_separate_critic_3m_scenarios' cells bit for bit: on this machine (jax 0.10.2, "
             "flax 0.12.8, optax 0.2.8) the first iteration's losses already differ in the 6th-7th significant "
             "digit and the sampled episodes from iteration 12-32 on (likely the host CPU: the quick "
             "start's seed 1 differs across machines with the same versions, README.md), so the two runs are "
             "independent samples of the same recipe."),
    mdp_budget_item(
        "sweep_mdp_separate_critic_12m_bracis3",
        "BRACIS'21's networks at four times the paper's budget (12M decisions per seed) on bracis-3, the one scenario "
        "where 6M left compact + sparse + reduced with a separate actor and critic level with SJF, 5 seeds",
        "algo_options.separate_critic=true env=bracis-3", 3900,
        "sampled, every job finished: IQM {iqm} {ci} vs SJF {sjf} (6M: {m6}, 3M: {m3}), {beat} seeds beat "
        "SJF sampled, {greedy_beat} greedy (greedy {greedy} {greedy_ci}, every job finished); with it the paper's "
        "networks beat SJF on all ten scenarios; completion time stays above SJF's ({ct_low}-{ct_high} vs {sjf_ct})",
        iterations=7500,
        numbers={"iqm": sweep("sweep_mdp_separate_critic_12m_bracis3"),
                 "ci": sweep("sweep_mdp_separate_critic_12m_bracis3", stat="interval"),
                 "sjf": sweep("sweep_mdp_separate_critic_12m_bracis3", policy="sjf", stat="value"),
                 "m6": sweep("sweep_mdp_separate_critic_6m", cell="cell001"),
                 "m3": sweep("sweep_mdp_separate_critic_3m_scenarios", cell=SEPARATE_3M_CELLS["b3"]),
                 "beat": sweep("sweep_mdp_separate_critic_12m_bracis3", stat="beating"),
                 "greedy_beat": sweep("sweep_mdp_separate_critic_12m_bracis3", policy="", stat="beating"),
                 "greedy": sweep("sweep_mdp_separate_critic_12m_bracis3", policy=""),
                 "greedy_ci": sweep("sweep_mdp_separate_critic_12m_bracis3", policy="", stat="interval"),
                 "ct_low": over_cells("sweep_mdp_separate_critic_12m_bracis3", "min", ("cell000",)),
                 "ct_high": over_cells("sweep_mdp_separate_critic_12m_bracis3", "max", ("cell000",)),
                 "sjf_ct": over_cells("sweep_mdp_separate_critic_12m_bracis3", "min", ("cell000",), policy="sjf")},
        note="Run on the 2-core CPU from runs/cpu_compact_sep_12m/ (1 h 4 min of training for the 5 seeds vmapped, "
             "1 min of evaluation) and copied here with the final checkpoint only. Its first 3750 iterations are "
             "sweep_mdp_separate_critic_6m's bracis-3 cell bit for bit (every training metric of every seed equal)."),
    mdp_budget_item(
        "sweep_mdp_image_separate_critic_3m_scenarios",
        "BRACIS'21 Fig. 4's image agent with the paper's networks (a separate actor and critic: 301,068 parameters at "
        "10 processors, the paper's count) at the paper's budget on the two 10-processor scenarios, 5 seeds",
        "algo_options.separate_critic=true env=bracis-1,bracis-2", 3900,
        "sampled, every job finished, {beat_packer} seeds beat Packer, {beat_sjf} SJF: bracis-1 IQM {b1} {b1_ci} vs SJF "
        "{b1_sjf}, Packer {b1_packer}, ahead of the compact separate critic ({c1} {c1_ci}, CIs apart); bracis-2 {b2} "
        "{b2_ci} vs {b2_sjf}, {b2_packer}, far behind the compact separate critic ({c2} {c2_ci})",
        config="configs/mdp_ppo_image.yaml", checkpoint_every=125,
        numbers={"beat_packer": sweep("sweep_mdp_image_separate_critic_3m_scenarios", stat="beating", than="packer"),
                 "beat_sjf": sweep("sweep_mdp_image_separate_critic_3m_scenarios", stat="beating"),
                 **cell_numbers("sweep_mdp_image_separate_critic_3m_scenarios", (("1", "cell000"), ("2", "cell001")),
                                prefix="b"),
                 **{f"c{n}{suffix}": sweep("sweep_mdp_separate_critic_3m_scenarios", cell=SEPARATE_3M_CELLS[f"b{n}"],
                                           **options)
                    for n in ("1", "2") for suffix, options in (("", {}), ("_ci", {"stat": "interval"}))}},
        note="Run on the 2-core CPU from runs/cpu_image_sep/ (~1 s per iteration for the 5 seeds vmapped on the "
             "20 x 114 image; bracis-1 31 min 38 s of training, partly beside another run, bracis-2 28 min 27 s) and "
             "copied here with the final checkpoint only (8 MB per cell). The 38- and 64-processor scenarios "
             "(20 x 422 and 20 x 708 images, two torsos) take hours per scenario here: bracis-7 ran as "
             "sweep_mdp_image_separate_critic_3m_bracis7, bracis-10, -9, -8, -6 in "
             "sweep_mdp_image_separate_critic_3m_largest, bracis-5, -4, -3 in "
             "sweep_mdp_image_separate_critic_3m_mid (the last five on an H200)."),
    mdp_budget_item(
        "sweep_mdp_image_separate_critic_3m_bracis7",
        "BRACIS'21 Fig. 4's image agent with the paper's networks (a separate actor and critic: 1,821,708 parameters "
        "at 64 processors, the paper's count) at the paper's budget on bracis-7, 3 seeds (a run over 30 min)",
        "algo_options.separate_critic=true env=bracis-7", 6780,
        "sampled, every job finished, {beat_packer} seeds beat Packer, {beat_sjf} SJF: IQM {iqm} {ci} vs SJF {sjf}, "
        "Packer {packer}, level with the shared-trunk image agent ({shared} {shared_ci}), far behind compact + sparse + "
        "reduced with the same networks ({compact} {compact_ci}, its CI apart from the 3 seeds' range); greedy "
        "{greedy} with every job finished",
        config="configs/mdp_ppo_image.yaml", checkpoint_every=125, seeds=3,
        numbers={**sweep_summary("sweep_mdp_image_separate_critic_3m_bracis7"),
                 "shared": sweep("sweep_mdp_image_3m"),
                 "shared_ci": sweep("sweep_mdp_image_3m", stat="interval"),
                 "compact": sweep("sweep_mdp_sparse_reduced_3m_separate_critic"),
                 "compact_ci": sweep("sweep_mdp_sparse_reduced_3m_separate_critic", stat="interval"),
                 "greedy": sweep("sweep_mdp_image_separate_critic_3m_bracis7", policy="")},
        note="Run on the 2-core CPU from runs/cpu_image_sep64/ (3.5 s per iteration for the 3 seeds vmapped on the "
             "two 20 x 708 torsos: 1 h 50 min of training, 2 min of evaluation) and copied here without its "
             "checkpoints (24 MB for the final one; the command regenerates them)."),
    mdp_budget_item(
        "sweep_mdp_image_separate_critic_3m_largest",
        "BRACIS'21 Fig. 4's image agent with the paper's networks (a separate actor and critic, 1,821,708 parameters) "
        "at the paper's budget on the largest scenarios after bracis-7, 3 seeds each; resumable, one cell at a time",
        "algo_options.separate_critic=true env=bracis-10,bracis-9,bracis-8,bracis-6", 4 * 7000,
        "all 4 cells, sampled, every job finished, {beat_packer} seeds beat Packer, {beat_sjf} SJF (3 seeds per "
        "scenario): bracis-10 IQM {b10} {b10_ci} vs SJF {b10_sjf}, Packer {b10_packer}; bracis-9 {b9} {b9_ci} vs "
        "{b9_sjf}, {b9_packer}; bracis-8 {b8} {b8_ci} vs {b8_sjf}, {b8_packer}; bracis-6 {b6} {b6_ci} vs {b6_sjf}, "
        "{b6_packer}; lower than the shared-trunk image agent on each ({s10}, {s9}, {s8}, {s6}; the two 3-seed ranges "
        "apart on -10, -8, -6); behind compact + sparse + reduced with the same networks on -10, -9, -8 ({c10}, {c9}, "
        "{c8}), level on bracis-6 ({c6})",
        config="configs/mdp_ppo_image.yaml", checkpoint_every=125, seeds=3,
        numbers={"beat_packer": sweep("sweep_mdp_image_separate_critic_3m_largest", stat="beating", than="packer"),
                 "beat_sjf": sweep("sweep_mdp_image_separate_critic_3m_largest", stat="beating"),
                 **cell_numbers("sweep_mdp_image_separate_critic_3m_largest",
                                (("10", "cell000"), ("9", "cell001"), ("8", "cell002"), ("6", "cell003")), prefix="b"),
                 **{f"s{n}": sweep("sweep_mdp_image_3m_scenarios", cell=cell)
                    for n, cell in (("10", "cell000"), ("9", "cell001"), ("8", "cell002"), ("6", "cell003"))},
                 **{f"c{n}": sweep("sweep_mdp_separate_critic_3m_scenarios", cell=SEPARATE_3M_CELLS[f"b{n}"])
                    for n in ("10", "9", "8", "6")}},
        note="bracis-10 and -9 ran on the 2-core CPU from runs/cpu_image_sep_largest/ with --shard 0/4 (1 h 57 min "
             "of training at 3.5 s per iteration, partly beside the CI; 3 min of evaluation) and --shard 1/4 (1 h 51 "
             "min; 3 min); bracis-8 and -6 on one NVIDIA H200 (jax 0.11.2) with --shard 2/4 and 3/4 as two processes "
             "sharing the GPU (device_run.sh here: 4 min 21 s of training each, 5 min 24 s for the call, evaluation "
             "included). Copied here without their checkpoints (~80 MB per cell; the command regenerates them)."),
    mdp_budget_item(
        "sweep_mdp_image_separate_critic_3m_mid",
        "BRACIS'21 Fig. 4's image agent with the paper's networks (a separate actor and critic, 1,089,548 parameters "
        "at 38 processors, the paper's count) at the paper's budget on the three 38-processor scenarios, 3 seeds "
        "each: with the other image items, the paper's image agent on all ten scenarios",
        "algo_options.separate_critic=true env=bracis-5,bracis-4,bracis-3", 3 * 8800,
        "sampled, every job finished, {beat_packer} seeds beat Packer, {beat_sjf} SJF (3 seeds per scenario): bracis-5 "
        "IQM {b5} {b5_ci} vs SJF {b5_sjf}, Packer {b5_packer}; bracis-4 {b4} {b4_ci} vs {b4_sjf}, {b4_packer}; bracis-3 "
        "{b3} {b3_ci} vs {b3_sjf}, {b3_packer}; behind compact + sparse + reduced with the same networks on -5 and -4 "
        "({c5}, {c4}: their CIs apart from the 3-seed ranges), level on bracis-3 ({c3} {c3_ci}); greedy leaves jobs "
        "unfinished on every cell",
        config="configs/mdp_ppo_image.yaml", checkpoint_every=125, seeds=3,
        numbers={"beat_packer": sweep("sweep_mdp_image_separate_critic_3m_mid", stat="beating", than="packer"),
                 "beat_sjf": sweep("sweep_mdp_image_separate_critic_3m_mid", stat="beating"),
                 **cell_numbers("sweep_mdp_image_separate_critic_3m_mid",
                                (("5", "cell000"), ("4", "cell001"), ("3", "cell002")), prefix="b"),
                 **{f"c{n}": sweep("sweep_mdp_separate_critic_3m_scenarios", cell=SEPARATE_3M_CELLS[f"b{n}"])
                    for n in ("5", "4", "3")},
                 "c3_ci": sweep("sweep_mdp_separate_critic_3m_scenarios", cell=SEPARATE_3M_CELLS["b3"],
                                stat="interval")},
        note="Trained and evaluated on one NVIDIA H200 (jax 0.11.2) by "
             "results/sweep_mdp_image_separate_critic_3m_largest/device_run.sh with ENVS=bracis-5,bracis-4,bracis-3 "
             "SHARDS='0 1 2': three processes sharing the GPU (6.1 it/s each) cut by the call's 300 s deadline at "
             "iteration ~1550, then resumed from the iteration-1500 checkpoint in a second call (the same command; "
             "a finished cell is skipped, a cut one resumes), ~5 min 40 s of training per cell in all. On the 2-core "
             "CPU ~2.4 h per cell (4.7 s per iteration for the 3 seeds, measured on bracis-5 over iterations "
             "26-50 on a CPU ~1.3x slower than the one the other items' CPU times came from). Copied here without "
             "checkpoints."),
    transfer_3m_item(
        "mdp_transfer_3m_separate_critic",
        "BRACIS'21 Fig. 6 with the paper's networks: the separate actor-critic compact + sparse + reduced agent "
        "trained on bracis-7 (3M decisions, 5 seeds), sampled, run unchanged on all ten scenarios with "
        "time-based steps, beside each scenario's own separate-critic 3M agents and SJF / Packer",
        "sweep_mdp_sparse_reduced_3m_separate_critic",
        ("sweep_mdp_sparse_reduced_3m_separate_critic", "sweep_mdp_separate_critic_3m_scenarios"), ("time",),
        750,
        "time steps, sampled: behind its own type's agents on all {behind} other scenarios (CIs apart on {apart}, e.g. "
        "bracis-2 {t2} vs {s2}, bracis-4 {t4} vs {s4}; overlapping on bracis-3, {t3} vs {s3}); every job finished only "
        "on bracis-3 and -7, below Packer on both and below SJF on bracis-7 ({t7} vs {sjf7}); on the other "
        "{unfinished} it leaves {fewest}-{most} of {jobs} jobs unfinished (not ranked)",
        swept="algo_options.separate_critic=True__",
        numbers={"behind": transfer_count(MDP_TRANSFER_SEPARATE, lambda s: s["transferred_over_seeds"]["iqm"] >
                                          s["specialised_over_seeds"]["iqm"]),
                 "apart": transfer_count(MDP_TRANSFER_SEPARATE, lambda s: s["transferred_over_seeds"]["ci_low"] >
                                         s["specialised_over_seeds"]["ci_high"]),
                 **{f"{agent}{n}": at(MDP_TRANSFER_SEPARATE, f"scenarios/bracis-{n}/{kind}_over_seeds/iqm", ".2f")
                    for n in ("2", "4", "3", "7") for agent, kind in (("t", "transferred"), ("s", "specialised"))},
                 "sjf7": at(MDP_TRANSFER_SEPARATE, "scenarios/bracis-7/sjf/mean_slowdown", ".2f"),
                 "unfinished": computed(MDP_TRANSFER_SEPARATE, lambda root: sum(
                     map(bool, map(_unfinished, json_value(root, MDP_TRANSFER_SEPARATE, "scenarios").values()))), "d"),
                 "fewest": transfer_unfinished(MDP_TRANSFER_SEPARATE, "min"),
                 "most": transfer_unfinished(MDP_TRANSFER_SEPARATE, "max"),
                 "jobs": at(MDP_TRANSFER_SEPARATE, "scenarios/bracis-1/transferred_over_seeds/jobs", ".0f")}),
    transfer_3m_item(
        "mdp_transfer_3m",
        "BRACIS'21 Fig. 6 with the paper's agent type: the compact + sparse + reduced agent trained on "
        "bracis-7 (3M decisions, 5 seeds), sampled, run unchanged on all ten scenarios with time-based steps "
        "(the paper's) and with its own event steps, beside each scenario's own 3M agents and SJF / Packer",
        "sweep_mdp_sparse_reduced_3m",
        ("sweep_mdp_sparse_reduced_3m", "sweep_mdp_sparse_reduced_3m_bracis1", "sweep_mdp_sparse_reduced_3m_scenarios"),
        ("time", "trained"), 710,
        "time steps: behind each of the {behind} other scenarios' own agents, CIs apart on all but bracis-9 (bracis-1 "
        "{t1} vs {s1}, bracis-3 {t3} vs {s3}); beats Packer only on bracis-7 and -9; the paper's {paper} not "
        "reproduced",
        numbers={"behind": transfer_count(MDP_TRANSFER, lambda s: s["transferred_over_seeds"]["iqm"] >
                                          s["specialised_over_seeds"]["iqm"]),
                 **{f"{agent}{n}": at(MDP_TRANSFER, f"scenarios/bracis-{n}/{kind}_over_seeds/iqm", ".2f")
                    for n in ("1", "3") for agent, kind in (("t", "transferred"), ("s", "specialised"))},
                 "paper": given("80%", "../shared/spec/mdp-variants.md (BRACIS'21 Fig. 6: transferred beats "
                                       "specialised in 80% of scenarios)")}),
    Item(
        id="mdp_figures_3m",
        paper="BRACIS'21 Figs. 3 and 4 at the paper's budget: every agent type's 3M-decision sweeps on every "
              "scenario it ran; Fig. 4 sampled, IQM [95% CI] over seeds beside SJF / Packer and relative to SJF pooled "
              "over scenarios; Fig. 3 the training curves with bands over seeds (read from the sweeps; no training)",
        steps=(Step(MDP_FIGURES_3M),),
        outputs=tuple(f"mdp_figures_3m/fig{n}.{ext}" for n in (3, 4) for ext in ("md", "json", "png")),
        wall_s=40,
        inputs=tuple(f"{{out}}/{sweep}/summary.csv" for sweeps in MDP_FIGURES_3M_AGENTS.values() for sweep in sweeps),
        needs=tuple(sweep for sweeps in MDP_FIGURES_3M_AGENTS.values() for sweep in sweeps),
        headline="relative to SJF over all {all} scenarios: compact + sparse + reduced with the paper's two networks "
                 "{separate} [{separate_low}, {separate_high}] ({separate_beat} seeds beat SJF), with the shared trunk "
                 "{shared} [{shared_low}, {shared_high}] ({shared_beat}); image {image} ({image_scenarios} scenarios, "
                 "{image_beat}), image with two networks {image_separate} ({image_separate_scenarios} scenarios, "
                 "{image_separate_beat}); every job finished; the two networks' training curves still fall at 3M on "
                 "bracis-2, -4, -5, -8, -10",
        numbers={"all": computed(MDP_FIG4_3M, lambda root: len(json_value(
                     root, MDP_FIG4_3M, "agents/compact_sparse_reduced_separate/relative_to_sjf/scenarios")), "d"),
                 **{f"{label}{suffix}": at(MDP_FIG4_3M, f"agents/{agent}/relative_to_sjf/{key}")
                    for label, agent in (("separate", "compact_sparse_reduced_separate"),
                                         ("shared", "compact_sparse_reduced"), ("image", "image"),
                                         ("image_separate", "image_separate"))
                    for suffix, key in (("", "iqm"), ("_low", "ci_low"), ("_high", "ci_high"))},
                 **{f"{label}_beat": fig4_seeds(agent, "sjf")
                    for label, agent in (("separate", "compact_sparse_reduced_separate"),
                                         ("shared", "compact_sparse_reduced"), ("image", "image"),
                                         ("image_separate", "image_separate"))},
                 **{f"{label}_scenarios": computed(MDP_FIG4_3M, lambda root, agent=agent: len(json_value(
                     root, MDP_FIG4_3M, f"agents/{agent}/relative_to_sjf/scenarios")), "d")
                    for label, agent in (("image", "image"), ("image_separate", "image_separate"))},
                 "separate_below_sjf": computed(MDP_FIG4_3M, lambda root: sum(
                     cell["iqm"] < json_value(root, MDP_FIG4_3M, f"heuristics/{scenario}/sjf")
                     for scenario, cell in json_value(root, MDP_FIG4_3M,
                                                      "agents/compact_sparse_reduced_separate/scenarios").items()), "d")}),
    Item(
        id="mdp_swf_3m",
        paper="BRACIS'21 on real traces with the 3M-decision compact time-based agent (seed 0 of sweep_mdp_compact_3m), "
              "1001 / 1000 sampled episodes (7 x 143, 8 x 125 windows x episodes) as the paper's 1000",
        steps=tuple(Step(SWF_3M.format(trace=trace, name=name, cell=SWF_3M_CELL, windows=windows, episodes=episodes),
                         quick_command=SWF_3M.format(trace=trace, name=name, cell=SWF_3M_QUICK_CELL, windows=1,
                                                     episodes=2))
                    for trace, name, windows, episodes in (("ctc-sp2-first969", "ctc-sp2", 7, 143),
                                                           ("lublin-256", "lublin-256", 8, 125))),
        outputs=("mdp_swf_3m/ctc-sp2.json", "mdp_swf_3m/ctc-sp2.md", "mdp_swf_3m/lublin-256.json",
                 "mdp_swf_3m/lublin-256.md"),
        wall_s=228,
        inputs=("{out}/sweep_mdp_compact_3m/cells/" + SWF_3M_CELL + "/config.json",),
        needs=("sweep_mdp_compact_3m",),
        headline="the 3M agent transfers worse than the 96k one: sampled {ctc} on CTC SP2 (SJF {ctc_sjf}; 96k agent "
                 "{ctc_96k}, leaving {ctc_96k_left} of {ctc_96k_jobs} unfinished), {lublin} on Lublin-256, leaving "
                 "{lublin_left} of {lublin_jobs} unfinished (SJF {lublin_sjf}, EASY {lublin_easy}; 96k agent "
                 "{lublin_96k}, leaving {lublin_96k_left} of {lublin_96k_jobs}); rows with jobs unfinished not ranked",
        numbers={**{f"{trace}{suffix}": number
                    for trace, name in (("ctc", "ctc-sp2"), ("lublin", "lublin-256"))
                    for agent_file, agent, own in ((f"mdp_swf_3m/{name}.json", f"ppo:{SWF_3M_CELL}-sampled", ""),
                                                   (f"mdp_swf/{name}.json", "ppo:bracis-7_compact", "_96k"))
                    for suffix, number in ((own, at(agent_file, f"policies/{agent}/mean_slowdown", ".2f")),
                                           (f"{own}_left", computed(agent_file, lambda root, f=agent_file, a=agent:
                                                                    int(json_value(root, f, f"policies/{a}/jobs")) -
                                                                    int(json_value(root, f, f"policies/{a}/finished")),
                                                                    "d")),
                                           (f"{own}_jobs", at(agent_file, f"policies/{agent}/jobs", ".0f")))},
                 "ctc_sjf": at("mdp_swf_3m/ctc-sp2.json", "policies/sjf/mean_slowdown", ".2f"),
                 "lublin_sjf": at("mdp_swf_3m/lublin-256.json", "policies/sjf/mean_slowdown", ".2f"),
                 "lublin_easy": at("mdp_swf_3m/lublin-256.json", "policies/easy/mean_slowdown", ".2f")},
    ),
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
                 "CVD-RL is {pm_low}-{pm_high}% above PM-level Best-Fit and {room_low}-{room_high}% below room_fit; "
                 "Double DQN at warm starts 0-0.6 {dqn_ws0}-{dqn_ws06}, below Best-Fit at {dqn_below} warm starts; "
                 "checkpoints not kept",
        numbers={"cvd": vm_eval(f"{CVD_WS05}/eval.json"), "dqn": vm_eval("vm_dqn_frag_50pm_ws0.5/eval.json"),
                 "dqn_best_fit": vm_eval("vm_dqn_frag_50pm_ws0.5/eval.json", "best_fit"),  # on the DQN run's starts
                 **{p: vm_eval(f"{CVD_WS05}/eval.json", p) for p in ("pm_best_fit", "room_fit", "best_fit", "first_fit")},
                 **{f"vs_{p}": change(f"{CVD_WS05}/eval.json", "policies/trained-s0/scheduled_length",
                                      f"policies/{p}/scheduled_length") for p in ("pm_best_fit", "room_fit")},
                 **{f"pm_{stat}": vm_table_gain(f"{CVD_WS05}_table.json", "trained", "pm_best_fit", stat, fmt=".0f")
                    for stat in ("low", "high")},
                 **{f"room_{stat}": vm_table_gain(f"{CVD_WS05}_table.json", "trained", "room_fit", stat, fmt=".0f",
                                                  below=True) for stat in ("low", "high")},
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
        "{seeds} seeds at the paper's Table 2 setting: IQM {iqm} {ci} vs PM-level Best-Fit {pm_best_fit} "
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
                    for stat, fmt in (("low", "+.0f"), ("high", "+.0f" if short == "room" else ".0f"))},
                 **{f"t4_room_{stat}": vm_table_gain("sweep_vm_cvd_frag_impact_50pm_ws0.5/table4_expansion.json",
                                                     "trained", "room_fit", stat) for stat in ("low", "high")},
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
        wall_s=2700,
        headline="seed 0 each: no top-k {no_top_k}, no decomposition {no_decomposition}, no look-ahead {no_lookahead} vs "
                 "the full model's {full_low}-{full_high} over {seeds} seeds (room_fit {room_fit}): only the top-k filter "
                 "matters ({no_top_k_change}% from the full model's seed 0); checkpoints not kept",
        numbers={**{run: vm_eval(f"vm_cvd_frag_impact_ablation_50pm_ws0.5/{run}/eval.json")
                    for run in ("no_top_k", "no_decomposition", "no_lookahead")},
                 "full_low": sweep(SWEEP_WS05, "scheduled_length", "", "min", fmt=".1f"),
                 "full_high": sweep(SWEEP_WS05, "scheduled_length", "", "max", fmt=".1f"),
                 "seeds": sweep(SWEEP_WS05, "scheduled_length", "", "count"),
                 "room_fit": vm_eval("vm_cvd_frag_impact_ablation_50pm_ws0.5/no_top_k/eval.json", "room_fit"),
                 "no_top_k_change": vs_ws05_seed0("vm_cvd_frag_impact_ablation_50pm_ws0.5/no_top_k/eval.json", "+.0f"),
                 **{f"{run}_vs_seed0": vs_ws05_seed0(f"vm_cvd_frag_impact_ablation_50pm_ws0.5/{run}/eval.json")  # prose
                    for run in ("no_top_k", "no_decomposition", "no_lookahead")}},
        note="Trained beside the 3-seed sweep on the 2-core CPU (75 min for the three runs).",
    ),
    Item(
        id="vm_cvd_frag_impact_k_50pm_ws0.5",
        paper="CVD-RL paper's Fig. 12 (k in {3, 5, 7, 10}) and Fig. 11 (BF-Top-5 vs Internal-Top-5; PM-level Best-Fit "
              "stands in for the paper's undisclosed internal scheduler) at its Table 2 setting, 50 PMs with warm "
              "start 0.5, one seed each; room_fit-Top-5 is ours",
        steps=_vm_runs("vm_cvd_frag_impact_k_50pm_ws0.5", VM_IMPACT, CANDIDATE_SETS_50PM,
                       common="env_options.num_pms=50 env_options.warm_start=0.5"),
        outputs=_vm_outputs("vm_cvd_frag_impact_k_50pm_ws0.5", CANDIDATE_SETS_50PM),
        wall_s=4200, estimate=True,
        headline="seed 0 each (full 2 + 3 + 1: {full} over {seeds} seeds; room_fit {room_fit}): k = 3 {k3}, the paper's "
                 "2 + 3 {k5_paper}, k = 7 {k7}, k = 10 {k10}; BF-Top-5 {bf_top5} vs Internal-Top-5 {internal_top5} (Fig. 11 "
                 "holds), room_fit-Top-5 {room_fit_top5}; smaller sets are better (Fig. 12's k = 5 optimum not reproduced); "
                 "checkpoints not kept",
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
                 "no_top_k": vm_eval("vm_cvd_frag_impact_ablation_50pm_ws0.5/no_top_k/eval.json"),
                 "no_top_k_vs_full": vs_ws05_iqm("vm_cvd_frag_impact_ablation_50pm_ws0.5/no_top_k/eval.json"),
                 **{p: vm_eval("vm_cvd_frag_impact_k_50pm_ws0.5/k3/eval.json", p)
                    for p in ("pm_best_fit", "first_fit", "best_fit")}},
        note="Trained two or three at a time on the 2-core CPU (20-35 min per run).",
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
        wall_s=2000,
        headline="seeds 0 / 1 / 2: k = 3 {k3_0} / {k3_1} / {k3_2} (mean {k3_mean}), the paper's k = 5 {k5_paper_0} / "
                 "{k5_paper_1} / {k5_paper_2} ({k5_paper_mean}): k = 3 above k = 5 on {k3_above} seeds ({k3_vs_k5}% in "
                 "the mean); room_fit {room_fit}; {ended} greedy episodes ended",
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
        note="The two runs trained side by side on the 2-core CPU, one device each; checkpoints not kept.",
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
    # ---- Grid site (SARSA + ESN) --------------------------------------------------------------------
    Item(
        id="grid_runs",
        paper="grid paper (SARSA + ESN): rigid oracle/estimated and elastic training runs",
        steps=(train("{out}/grid_esn_oracle", "configs/grid_sarsa_esn.yaml", quick=GRID_QUICK),
               train("{out}/grid_esn_estimated", "configs/grid_sarsa_esn.yaml", "env_options.runtime_model=estimated",
                     quick=GRID_QUICK),
               train("{out}/grid_elastic_esn_l0.5", "configs/grid_elastic_esn.yaml", quick=GRID_QUICK),
               train("{out}/grid_elastic_esn_l1.0", "configs/grid_elastic_esn.yaml", "env_options.weight=1.0",
                     quick=GRID_QUICK)),
        outputs=("grid_esn_oracle/eval.json", "grid_esn_estimated/eval.json", "grid_elastic_esn_l0.5/eval.json",
                 "grid_elastic_esn_l1.0/eval.json"),
        wall_s=1677,
        note="Checkpoints are not committed (13 MB each); grid_tables retrains when they are missing.",
        headline="see grid_tables",
    ),
    Item(
        id="grid_tables",
        paper="grid paper Tables 2-5 and Figs. 6-9 analogues",
        steps=(Step(GRID_TABLES, quick="--episodes 1 --option num_jobs=300 --option exclude=20"),),
        outputs=("grid/grid_tables.json", "grid/grid_tables.md", "grid/grid_fairness.png", "grid/grid_elastic_pool.png",
                 "grid/grid_elastic_utilisation.png"),
        wall_s=600, estimate=True,
        inputs=("{out}/grid_esn_oracle/checkpoints", "{out}/grid_esn_estimated/checkpoints",
                "{out}/grid_elastic_esn_l0.5/checkpoints", "{out}/grid_elastic_esn_l1.0/checkpoints"),
        needs=("grid_runs",),
        headline="rigid W int: SARSA-ESN {oracle} / {estimated} vs FIFO {fifo}, SJF {sjf}; elastic not reproduced "
                 "({elastic})",
        numbers={**{key: at("grid/grid_tables.json", f"rigid/{policy}/interactive_W_mean")
                    for key, policy in (("oracle", "rig-ora"), ("estimated", "rig-est"), ("fifo", "fifo"),
                                        ("sjf", "sjf"))},
                 **{f"{key}_2": at("grid/grid_tables.json", f"rigid/{policy}/interactive_W_mean", ".2f")  # prose
                    for key, policy in (("oracle", "rig-ora"), ("estimated", "rig-est"), ("fifo", "fifo"),
                                        ("sjf", "sjf"), ("edf", "edf"))},
                 "edf": at("grid/grid_tables.json", "rigid/edf/interactive_W_mean"),
                 **{f"{key}_interval": grid_seed_interval(f"{table}/{policy}")
                    for key, table, policy in (("oracle", "rigid", "rig-ora"), ("estimated", "rigid", "rig-est"),
                                               ("elastic", "elastic", "ela-ora-0.5"),
                                               ("elastic1", "elastic", "ela-ora-1"))},
                 "elastic": at("grid/grid_tables.json", "elastic/ela-ora-0.5/interactive_W_mean", ".2f")},
    ),
    Item(
        id="bench_grid",
        paper="grid env decisions/s against a heapq simulator",
        steps=(Step("jaxsched.bench grid --out {out}/bench_grid.json", quick="--batches 1 --jobs 20 --repeats 1"),),
        outputs=("bench_grid.json", "bench_grid.md"),
        wall_s=300, estimate=True,
        headline="batch 1024: {rate} M decisions/s, {ratio}x the Python simulator",
        numbers={"rate": computed("bench_grid.json", lambda root: _bench_grid_1024(root)["jax_decisions_per_s"] / 1e6,
                                  ".2f"),
                 "ratio": computed("bench_grid.json", lambda root: _bench_grid_1024(root)["ratio"], ".2f")},
    ),
    Item(
        id="grid_lublin",
        paper="grid heuristics on Lublin-256 windows (a real trace)",
        steps=(Step("jaxsched.studies.grid_tables --episodes 4 --swf dataset:lublin-256 --option multi_core=split "
                    "--option num_cores=256 --option num_jobs=2000 --option exclude=200 --option candidates=per_class "
                    "--skip-elastic --out {out}/grid_lublin",
                    quick="--episodes 1 --option num_jobs=200 --option exclude=20"),),
        outputs=("grid_lublin/grid_tables.json", "grid_lublin/grid_tables.md", "grid_lublin/grid_fairness.png"),
        wall_s=300, estimate=True,
        headline="W int: FIFO {fifo}, EDF {edf}, SJF {sjf}, fair-share {fairshare}",
        numbers={policy: at("grid_lublin/grid_tables.json", f"rigid/{policy}/interactive_W_mean")
                 for policy in ("fifo", "edf", "sjf", "fairshare")},
    ),
]


# ---- numbers the prose pages quote beside the headlines' (docs/results/*.md, docs/guide/*.md, results/README.md) --
# A page may round a headline's number (1.605 as 1.60) or write it otherwise (9984 as 9,984): such a field is the
# headline field's number in the page's format, named after it (``b1_r2``: b1 to two decimals).


def _training_minutes(name: str) -> Callable:
    """Minutes of training of the sweep ``name`` (its cells' metrics.csv ``wall_s`` of seed 0, the seeds vmapped)."""
    def value(root) -> float:
        files = sorted((root / name / "cells").glob("*/metrics.csv"))
        if not files:
            raise NumberError(f"{name}/cells/*/metrics.csv do not exist")
        return sum(column(root, f.relative_to(root).as_posix(), "wall_s", {"seed": 0}).sum() for f in files) / 60
    return value


def _below_packer(file: str) -> Callable:
    """How many scenarios of a transfer file the transferred agent's IQM is below Packer's on (all of them)."""
    return lambda root: sum(entry["transferred_over_seeds"]["iqm"] < entry["packer"]["mean_slowdown"]
                            for entry in json_value(root, file, "scenarios").values())


_HEADLINED = {item.id: item for item in ITEMS}


def _rounded(item_id: str, *keys: str, fmt: str = ".2f", suffix: str = "_r2") -> dict[str, Number]:
    return {f"{key}{suffix}": _HEADLINED[item_id].numbers[key].to(fmt) for key in keys}


def _cells_r2(item_id: str, *cells: str, kinds: tuple[str, ...] = ("", "_sjf")) -> dict[str, Number]:
    return _rounded(item_id, *(f"{cell}{kind}" for cell in cells for kind in kinds))


def _run_minutes(file: str) -> Callable:
    """Minutes of training of one run (its metrics.csv ``wall_s`` of seed 0, summed)."""
    return lambda root: column(root, file, "wall_s", {"seed": 0}).sum() / 60


def _bc_accuracy(name: str, key: str, stat: str, fraction: bool = False) -> Number:
    """``stat`` (min, max, mean) over a sweep's seeds of behaviour cloning's ``key`` (best_val_acc[_ties]), in %
    (``fraction``: as a fraction, two decimals)."""
    file = f"{name}/cells"

    def value(root) -> float:
        files = sorted((root / name / "cells").glob("*/behaviour_cloning.json"))
        if not files:
            raise NumberError(f"{name}/cells/*/behaviour_cloning.json do not exist")
        values = [row[key] for f in files for row in json_value(root, f.relative_to(root).as_posix(), "")]
        return (1 if fraction else 100) * {"min": min, "max": max, "mean": np.mean}[stat](values)
    return computed(file, value, ".2f" if fraction else ".0f")


def _each(name: str, cells: tuple[str, ...], index: int) -> Number:
    """One side (0: seeds beating SJF, 1: seeds) of the ``k/n`` every one of ``cells`` of the sweep ``name`` shares,
    for prose that writes "k of n seeds each"."""
    parts = [sweep(name, stat="beating", cell=cell) for cell in cells]

    def read(root) -> str:
        texts = {number.text(root) for number in parts}
        if len(texts) != 1:
            raise NumberError(f"{name}: the cells {cells} differ ({sorted(texts)})")
        return texts.pop().split("/")[index]
    return Number(f"{name}/summary.csv", read)


def _seed_count(file: str, run: str) -> Number:
    """How many sampled seeds ``run`` has in a compare_runs summary."""
    return computed(file, lambda root: len(_seed_rows(root, file, run)), "d")


def _dispatch_span(kind: str, stat: str) -> Number:
    """``stat`` (min, max) of bench_dispatch's ``kind`` rows (fan: independent kernels, chain: chained) in us."""
    pick = {"min": min, "max": max}[stat]
    return computed("bench_dispatch.json", lambda root: pick(
        r["us_per_call"] for r in json_value(root, "bench_dispatch.json", "rows") if r["program"].startswith(f"{kind} ")),
        ".0f")


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

RECIPE_METRICS = "deeprm_paper_recipe_h200/paper_recipe/metrics.csv"
BC_DEVICE_RUN = "deeprm_paper_recipe_bc_h200/device_run.sh"
CNN_ON_GPU = r"~(\d+)-(\d+) s per iteration for 3 vmapped seeds"

def _one_call_rate(family: str, size: int, load) -> Number:
    """jaxsched's median steps/s in bench_env's one-step-per-Python-call row of ``family`` at ``size``, ``load``."""
    def value(root) -> float:
        rows = [r for r in json_value(root, "bench_env.json", "rows") if r["family"] == family and r["size"] == size
                and r["load"] == load and r["workload"].endswith("one step per Python call")]
        if len(rows) != 1:
            raise NumberError(f"bench_env.json: {len(rows)} one-call rows of {family} at {size}, load {load}")
        return rows[0]["jaxsched"]["median"]
    return computed("bench_env.json", value, ",.0f")


PROSE: dict[str, dict[str, Number]] = {
    "mdp_ppo_deeprm": {policy: at(MDP_DEEPRM, f"deeprm_ppo/heldout/{policy}/mean_slowdown", ".2f")
                       for policy in ("tetris", "packer", "random")},
    "deeprm_load0.7_j20": {"greedy": at("deeprm_load0.7_j20/eval.json", "policies/trained-s0/mean_slowdown", ".2f"),
                           **{policy: at("deeprm_load0.7_j20/eval.json", f"policies/{policy}/mean_slowdown", ".2f")
                              for policy in ("tetris", "packer", "random")}},
    "deeprm_paper_recipe_bc_h200": {"vmapped_low": noted(BC_DEVICE_RUN, CNN_ON_GPU, 1),
                                    "vmapped_high": noted(BC_DEVICE_RUN, CNN_ON_GPU, 2)},
    "bench_train": _rounded("bench_train", "paper_auto", "paper_one", fmt=".1f", suffix="_r1"),
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
    "bench_env": {"one_call_07": _one_call_rate("deeprm", 10, 0.7), "one_call_13": _one_call_rate("deeprm", 10, 1.3),
                  **_rounded("bench_env", *(f"{kind}{m}" for kind in ("image", "ceiling") for m in (10, 20, 50)),
                             fmt=".0f", suffix="_r0"),
                  **{f"compact{batch}": _bench_row("bench_env.json", fmt=".0f", family="compact",
                                                   workload=f"compact state, batch {batch}") for batch in (1024, 1)},
                  **{f"vm{pms}_r0": _bench_row("bench_env.json", fmt=".0f", family="vm", size=pms,
                                               workload="First-Fit, batch 1024") for pms in (20, 100, 200)},
                  **{f"vm{pms}_call": _bench_row("bench_env.json", fmt=".2f", family="vm", size=pms,
                                                 workload="First-Fit, one step per Python call") for pms in (20, 50)}},
    "bench_dispatch": {f"{kind}_{stat}": _dispatch_span(kind, stat) for kind in ("fan", "chain") for stat in ("min", "max")},
    "grid_tables": {"elastic1": at("grid/grid_tables.json", "elastic/ela-ora-1/interactive_W_mean", ".2f"),
                    "seeds": at("grid/grid_tables.json", "rigid/rig-ora/interactive_W_over_seeds/n", ".0f"),
                    "paper_elastic": given("0.96", "../shared/spec/grid.md (the paper's elastic interactive W, "
                                                   "0.958-0.971)")},
    "bench_grid": _rounded("bench_grid", "rate", fmt=".1f", suffix="_r1"),
    "deeprm_bc_load0.7": {"training_minutes": computed("deeprm_bc_load0.7/metrics.csv",
                                                       _run_minutes("deeprm_bc_load0.7/metrics.csv"), ".0f"),
                          "below_sjf": computed("deeprm_bc_load0.7/eval.json", lambda root: 100 * (1 - float(json_value(
                              root, "deeprm_bc_load0.7/eval.json", "policies/trained-s0-sampled/mean_slowdown")) / float(
                              json_value(root, "deeprm_bc_load0.7/eval.json", "policies/sjf/mean_slowdown"))), ".0f"),
                          "greedy": at("deeprm_bc_load0.7/eval.json", "policies/trained-s0/mean_slowdown", ".2f"),
                          "greedy_left": _jobs_left("deeprm_bc_load0.7/eval.json", "policies/trained-s0"),
                          "seconds_per_iteration": seeds("deeprm_bc_load0.7/metrics.csv", "wall_s", "median", ".1f",
                                                         seed=0)},
    "deeprm_bc_load1.1": {"training_minutes": computed("deeprm_bc_load1.1/metrics.csv",
                                                       _run_minutes("deeprm_bc_load1.1/metrics.csv"), ".0f")},
    "sweep_deeprm_slots_load0.7": {
        "clone_ties_low": _bc_accuracy("sweep_deeprm_slots_load0.7", "best_val_acc_ties", "min"),
        "clone_ties_high": _bc_accuracy("sweep_deeprm_slots_load0.7", "best_val_acc_ties", "max"),
        **{f"clone_ties_{stat}_fraction": _bc_accuracy("sweep_deeprm_slots_load0.7", "best_val_acc_ties", stat,
                                                       fraction=True) for stat in ("min", "max")},
        "training_minutes": computed("sweep_deeprm_slots_load0.7/cells",
                                     _training_minutes("sweep_deeprm_slots_load0.7"), ".0f")},
    "sweep_deeprm_slots_load1.1": {"training_minutes": computed("sweep_deeprm_slots_load1.1/cells",
                                                                _training_minutes("sweep_deeprm_slots_load1.1"), ".0f")},
    "sweep_deeprm_bc_load0.7": {"clone_mean": _bc_accuracy("sweep_deeprm_bc_load0.7", "best_val_acc", "mean"),
                                "clone_mean_fraction": _bc_accuracy("sweep_deeprm_bc_load0.7", "best_val_acc", "mean",
                                                                    fraction=True)},
    "deeprm2_mlp_bc_h200": {"seeds": _seed_count(DRM_MLP_BC, "mlp_bc_20x20")},
    "deeprm2_fig3_h200": {"seeds": _seed_count(DRM2_FIG3.format("0.7"), "cnn_bc"),
                          "it10": at(DRM2_FIG3.format("1.0"), "runs/cnn_bc/iterations", ".0f"),
                          "margin07": computed(DRM2_FIG3.format("0.7"), lambda root: 100 * (1 - float(json_value(
                              root, DRM2_FIG3.format("0.7"), "runs/cnn_bc/over_seeds/sampled/mean_slowdown/iqm")) / float(
                              json_value(root, DRM2_FIG3.format("0.7"), "runs/cnn_bc/heldout/sjf/mean_slowdown"))), ".0f")},
    "deeprm_paper_recipe_h200": {"seeds": _seed_count(DRM_RECIPE, "paper_recipe"),
                                 "median_s": seeds(RECIPE_METRICS, "wall_s", "median", ".2f", seed=0),
                                 "rate_k": computed(RECIPE_METRICS, lambda root: float(np.median(
                                     column(root, RECIPE_METRICS, "steps_per_s"))) / 1e3, ".0f"),
                                 "minutes": at(DRM_RECIPE, "runs/paper_recipe/train_wall_s", ".0f", scale=1 / 60)},
    "mdp_swf": {"jobs_comma": _HEADLINED["mdp_swf"].numbers["jobs"].to(",.0f")},
    "bench_event": _rounded("bench_event", "cost32", "cost1024", fmt=".0f", suffix="_r0"),
    "sweep_mdp_sparse_reduced_3m": {**_rounded("sweep_mdp_sparse_reduced_3m", "iqm", "sjf", "packer"),
                                    "training_minutes": computed("sweep_mdp_sparse_reduced_3m/cells",
                                                                 _training_minutes("sweep_mdp_sparse_reduced_3m"), ".0f")},
    "sweep_mdp_compact_3m": {**_rounded("sweep_mdp_compact_3m", "iqm"),
                             "training_minutes": computed("sweep_mdp_compact_3m/cells",
                                                          _training_minutes("sweep_mdp_compact_3m"), ".0f")},
    "sweep_mdp_image_3m": _rounded("sweep_mdp_image_3m", "iqm", "ci"),
    "sweep_mdp_image_3m_scenarios": {
        **_rounded("sweep_mdp_image_3m_scenarios", *(f"{k}{n}" for n in ("10", "9", "8", "6") for k in ("b", "sr"))),
        "seeds_per_scenario": sweep("sweep_mdp_image_3m_scenarios", stat="count", cell="cell000")},
    "sweep_mdp_image_3m_small": _rounded("sweep_mdp_image_3m_small", "c1", "b1"),
    "sweep_mdp_sparse_reduced_3m_scenarios": {
        "beat_packer_k": part(_HEADLINED["sweep_mdp_sparse_reduced_3m_scenarios"].numbers["beat_packer"], 0),
        "beat_packer_n": part(_HEADLINED["sweep_mdp_sparse_reduced_3m_scenarios"].numbers["beat_packer"], 1)},
    "sweep_mdp_separate_critic_3m_scenarios": {
        **_cells_r2("sweep_mdp_separate_critic_3m_scenarios", *(f"b{n}" for n in (1, 2, 3, 4, 5, 6, 8, 9, 10))),
        **{f"won_each_{side}": _each("sweep_mdp_separate_critic_3m_scenarios",
                                     tuple(SEPARATE_3M_CELLS[f"b{n}"] for n in (9, 2, 10, 8, 5, 4)), index)
           for side, index in (("k", 0), ("n", 1))}},
    "sweep_mdp_separate_critic_6m": {**_cells_r2("sweep_mdp_separate_critic_6m", "b1", "b3", "b6"),
                                     "seeds": sweep("sweep_mdp_separate_critic_6m", stat="count", cell="cell000")},
    "sweep_mdp_separate_critic_12m_bracis3": _rounded("sweep_mdp_separate_critic_12m_bracis3", "iqm", "sjf"),
    "sweep_mdp_separate_critic_6m_bracis7": _rounded("sweep_mdp_separate_critic_6m_bracis7", "iqm", "m3"),
    "sweep_mdp_separate_critic_6m_won": _cells_r2("sweep_mdp_separate_critic_6m_won", "b2", "b4", "b5", "b8", "b9",
                                                  "b10", kinds=("", "_3m")),
    "sweep_mdp_image_separate_critic_3m_scenarios": _rounded("sweep_mdp_image_separate_critic_3m_scenarios",
                                                             "b1", "c1", "b1_sjf", "b2", "c2"),
    "sweep_mdp_image_separate_critic_3m_bracis7": _rounded("sweep_mdp_image_separate_critic_3m_bracis7",
                                                           "iqm", "compact"),
    "sweep_mdp_image_separate_critic_3m_largest": _cells_r2("sweep_mdp_image_separate_critic_3m_largest",
                                                            "b10", "b9", "b8", "b6", kinds=("", "_sjf")) | _rounded(
        "sweep_mdp_image_separate_critic_3m_largest", "c10", "c9", "c8", "c6", "s10", "s9"),
    "sweep_mdp_image_separate_critic_3m_mid": _rounded("sweep_mdp_image_separate_critic_3m_mid",
                                                       "b5", "c5", "b4", "c4", "b3", "c3"),
    "mdp_figures_3m": {**_rounded("mdp_figures_3m", "separate", "shared"),
                       "separate_interval_r2": span(*_rounded("mdp_figures_3m", "separate_low", "separate_high").values())},
    "mdp_transfer_3m_separate_critic": {
        "below_packer": computed(MDP_TRANSFER_SEPARATE, _below_packer(MDP_TRANSFER_SEPARATE), "d"),
        "scenarios": computed(MDP_TRANSFER_SEPARATE, lambda root: len(json_value(root, MDP_TRANSFER_SEPARATE,
                                                                                  "scenarios")), "d")},
}
ITEMS = [dataclasses.replace(item, numbers={**item.numbers, **PROSE.get(item.id, {})}) for item in ITEMS]
assert set(PROSE) <= set(_HEADLINED), set(PROSE) - set(_HEADLINED)

BY_ID = {item.id: item for item in ITEMS}
